"""Tuning SSSP end to end on the CPU: config sets, weighted corpus, sweep (log schema 2), weight
features, one model per algorithm, tune(algorithm="sssp") fast path and search, CLI, bench peers.

Timings are replayed (tests/_tuning_helpers.py: SciPy's Dijkstra computes the results, a virtual
clock takes the recorded/modelled time); the SYNTHETIC logs come from autotune._synthetic. No GPU.
"""
from __future__ import annotations

import json
import math
import os
import stat
import warnings
from pathlib import Path

import numpy as np
import pytest

from autotune import cli
from autotune._synthetic import write_synthetic_log
from autotune.config import DELTA_SCALES, SSSP_METHODS, TraversalConfig
from autotune.errors import InvalidArgumentError, ModelError, TrainingDataError
from autotune.features import FEATURE_NAMES, SSSP_FEATURE_NAMES, WEIGHT_FEATURE_NAMES, profile, weight_statistics
from autotune.logs import read_log
from autotune.sssp_rules import DEFAULT_SSSP_CONFIG, baseline_rule, delta_rule
from autotune.sweep import (
    attach_weights, default_corpus_path, grid, portfolio, read_corpus, resolve_configs, split_graph_entry,
    sssp_training_set, sweep, training_set,
)

from ._tuning_helpers import FAKE_DEVICE, install_clock, model_time, replay_factory, small_graph
from .conftest import check_shared_corpus_entries

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    """Studies, logs and models live under tmp_path; no shipped model of either algorithm is used."""
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("AUTOTUNE_STORAGE", raising=False)
    monkeypatch.setenv("AUTOTUNE_MODEL", str(tmp_path / "no-model.joblib"))
    monkeypatch.setenv("AUTOTUNE_SSSP_MODEL", str(tmp_path / "no-sssp-model.joblib"))


@pytest.fixture
def clock(monkeypatch):
    return install_clock(monkeypatch)


def _fast_estimator():
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=25, random_state=0)


@pytest.fixture(scope="module")
def sssp_log(tmp_path_factory):
    return write_synthetic_log(tmp_path_factory.mktemp("sssp") / "sssp.jsonl", n_graphs=25, configs="train", seed=2,
                               algorithm="sssp")


@pytest.fixture(scope="module")
def bfs_log(tmp_path_factory):
    return write_synthetic_log(tmp_path_factory.mktemp("bfs") / "bfs.jsonl", n_graphs=12, configs="grid", seed=4)


@pytest.fixture(scope="module")
def sssp_model(sssp_log, tmp_path_factory):
    from autotune.model import retrain

    out = tmp_path_factory.mktemp("m") / "sssp_test.joblib"
    with pytest.warns(UserWarning, match="SYNTHETIC"):
        model = retrain(sssp_log, out=out, estimator=_fast_estimator())
    return model, out


# ============================================================================ config sets
def test_sssp_training_set_is_every_method_and_delta_on_the_main_configs():
    from autotune.sweep import _SSSP_MAIN_CONFIGS

    t = sssp_training_set()
    assert t == training_set("sssp") == resolve_configs("train", "sssp")
    persistent = [m for m in _SSSP_MAIN_CONFIGS if m.get("small_frontier") == "persistent"]
    assert len(t) == len(_SSSP_MAIN_CONFIGS) * (1 + 2 * len(DELTA_SCALES)) + len(persistent) == 58
    assert len({c.config_id for c in t}) == len(t)
    # Bellman-Ford's in-place expansion (degree 8) on each main config of the persistent kernel
    inline = [c for c in t if c.inline_degree not in (None, "off")]
    assert {(c.with_(inline_degree="off"), c.inline_degree) for c in inline} == {
        (TraversalConfig(algorithm="sssp", sssp_method="bellman_ford", **m), 8) for m in persistent}
    mains = set()
    for c in t:
        if c.inline_degree not in (None, "off"):
            continue
        assert c.algorithm == "sssp" and c.direction == "push" and c.duplicate_culling == "none"
        main = c.with_(sssp_method="delta_stepping", delta=1)  # only the method and delta vary per main config
        mains.add(main)
        for method in SSSP_METHODS:
            for d in (DELTA_SCALES if method != "bellman_ford" else (None,)):
                assert main.with_(sssp_method=method, delta=d) in t
    assert mains == {TraversalConfig(algorithm="sssp", **m) for m in _SSSP_MAIN_CONFIGS}
    # the balancers and both small-frontier drivers are covered
    assert {c.load_balance for c in t} >= {"binary_search", "vertex_mapped", "edge_mapped"}
    assert {c.small_frontier for c in t} == {"single_block", "persistent"}
    assert {c.sssp_method for c in t} == set(SSSP_METHODS)
    # the delta rule's config is one of them (the baseline is measured on every graph)
    assert delta_rule() in t and DEFAULT_SSSP_CONFIG in t


def test_sssp_grid_and_portfolio_hold_no_bfs_only_value():
    for cfgs in (grid("sssp"), portfolio("sssp"), resolve_configs("grid", "sssp"), resolve_configs("portfolio", "sssp")):
        assert cfgs and {c.algorithm for c in cfgs} == {"sssp"}
        assert {c.direction for c in cfgs} == {"push"} and {c.duplicate_culling for c in cfgs} == {"none"}
    # the SSSP grid is the BFS grid's push / no-culling half, on the default method
    bfs_half = {c.with_(algorithm="sssp").config_id for c in grid() if c.direction == "push"
                and c.duplicate_culling == "none"}
    assert {c.config_id for c in grid("sssp")} == bfs_half
    # the portfolio varies the method and delta too
    p = portfolio("sssp")
    assert {c.sssp_method for c in p} == set(SSSP_METHODS) and {c.delta for c in p} == set(DELTA_SCALES) | {None}
    # BFS sets are what they were before SSSP existed
    assert {c.algorithm for c in grid() + portfolio() + training_set()} == {"bfs"}
    with pytest.raises(ValueError, match="unknown algorithm"):
        resolve_configs("train", "dfs")


def test_delta_rule_and_baselines():
    cfg = delta_rule()
    assert (cfg.algorithm, cfg.sssp_method, cfg.delta, cfg.load_balance) == ("sssp", "delta_stepping", 1,
                                                                           "binary_search")
    assert cfg == TraversalConfig(algorithm="sssp", load_balance="binary_search")  # every other knob at its default
    f = profile(small_graph(200, 4, weights="int:1:255"), xp=np)
    assert baseline_rule("sssp", f) == cfg
    from autotune.table2 import table2_rule

    assert baseline_rule("bfs", f) == table2_rule(f)
    with pytest.raises(ValueError, match="unknown algorithm"):
        baseline_rule("dfs", f)


# ============================================================================ weighted corpus
def test_committed_sssp_corpus_is_weighted_spans_sizes_and_is_documented():
    """models/corpus_sssp.txt: ~60 weighted graphs of several families, 1e4..1e7 edges, every generator
    spec valid, shared entries resolvable and given weights, the header documenting each entry."""
    from autotune.generators import _GENERATORS, parse_spec, parse_weight_spec

    path = default_corpus_path("sssp")
    assert path == REPO / "models" / "corpus_sssp.txt" or path.name == "corpus_sssp.txt"
    assert default_corpus_path("bfs").name == "corpus.txt"
    entries = read_corpus(path)
    assert 55 <= len(entries) <= 70
    families, kinds = set(), set()
    for e in entries:
        entry, weights = split_graph_entry(e)
        if entry.startswith("shared:"):
            assert weights is not None, e  # the real graphs are unweighted: the line gives them weights
            dist = parse_weight_spec(weights)
        else:
            assert weights is None, e
            name, params = parse_spec(entry)
            assert name in _GENERATORS, e
            for k in params:
                assert _GENERATORS[name].param(k) is not None, (e, k)
            assert "weights" in params, e
            dist = parse_weight_spec(params["weights"])
            families.add(name)
        kinds.add(dist.kind)
    assert len(families) >= 8 and kinds == {"int", "float"}
    assert sum("int:1:255" in e for e in entries) >= len(entries) * 2 // 3  # GAP's, the benchmark's distribution
    shared = [split_graph_entry(e)[0] for e in entries if e.startswith("shared:")]
    check_shared_corpus_entries(shared, ("MANIFEST.tsv", "MANIFEST-corpus.tsv"))  # all 16 real graphs
    # the held-out benchmark graphs are not trained on
    assert not any(e.startswith(("grid:rows=2048,cols=2048", "kron:scale=22")) for e in entries)
    rows = [ln for ln in path.read_text().splitlines() if ln.startswith("#|")][1:]
    documented = {r.split("|")[1].strip(): r for r in rows}
    assert set(entries) == set(documented)
    edges = np.array([float(documented[e].split("|")[3]) for e in entries])
    assert edges.min() <= 3e4 and 5e6 <= edges.max() <= 2e7
    assert list(entries) == sorted(entries, key=lambda e: float(documented[e].split("|")[3]))  # small ones first


def test_documented_features_of_a_small_corpus_entry_reproduce():
    from autotune.graph import load_graph

    path = default_corpus_path("sssp")
    rows = {r.split("|")[1].strip(): r.split("|") for r in path.read_text().splitlines() if r.startswith("#|")}
    spec = "grid:rows=100,cols=100,weights=int:1:255"
    g = load_graph(spec, xp=np)
    f = profile(g, xp=np)
    row = rows[spec]
    assert int(row[2]) == f.n_vertices and int(row[3]) == f.n_edges
    assert float(row[8]) == pytest.approx(f.weight_mean, rel=1e-3) and row[7].strip() == "int"


def test_split_entry_and_attach_weights():
    assert split_graph_entry("shared:road-usroads.mtx.gz weights=int:1:255") == ("shared:road-usroads.mtx.gz",
                                                                                  "int:1:255")
    assert split_graph_entry("  kron:scale=3,weights=int:1:255 ") == ("kron:scale=3,weights=int:1:255", None)
    g = small_graph(300, 5)
    w = attach_weights(g, "int:1:255")
    assert g.weights is None and w.weights is not None and w.weights.dtype == np.int32  # g itself is unchanged
    assert w.fingerprint != g.fingerprint and w.n_edges == g.n_edges
    assert (w.host()[1] is g.host()[1])  # the CSR arrays are shared, not copied
    # seed 0 on a generator graph: the same graph as its spec with weights=
    assert w.fingerprint == small_graph(300, 5, weights="int:1:255").fingerprint
    assert attach_weights(w, "float:0.5:2") is w  # weights of its own are kept
    assert attach_weights(g, None) is g
    from autotune.logs import weights_spec

    assert weights_spec(w) == "int:1:255" and weights_spec(attach_weights(g, "float:0.5:2")) == "float:0.5:2"
    from autotune.errors import GeneratorSpecError

    with pytest.raises(GeneratorSpecError, match="weights"):
        attach_weights(g, "int:0:5")


# ============================================================================ weight features
def test_weight_statistics_exact_for_integers_and_rounded_for_floats():
    rng = np.random.default_rng(0)
    wi = rng.integers(1, 256, size=10_001).astype(np.int32)
    s = weight_statistics(wi)
    assert s["weighted"] is True and s["weight_integer"] is True
    w64 = wi.astype(np.int64)
    assert s["weight_mean"] == int(w64.sum()) / wi.size  # exact integer sums, one rounding
    assert s["weight_std"] == pytest.approx(float(np.std(w64)), rel=1e-14)
    assert (s["weight_max"], s["weight_min"]) == (float(wi.max()), float(wi.min()))
    wf = rng.uniform(0.5, 2.0, size=5_000).astype(np.float32)
    s = weight_statistics(wf)
    assert s["weight_integer"] is False
    assert s["weight_mean"] == pytest.approx(float(wf.astype(np.float64).mean()), rel=1e-11)
    assert s["weight_std"] == pytest.approx(float(wf.astype(np.float64).std()), rel=1e-11)
    assert s["weight_max"] == float(wf.max())
    # rounded to WEIGHT_STAT_DIGITS significant digits (the same on NumPy and CuPy)
    assert s["weight_mean"] == float(f"{s['weight_mean']:.11e}")
    assert weight_statistics(None) == {"weighted": False, "weight_integer": True, "weight_mean": 1.0,
                                       "weight_std": 0.0, "weight_max": 1.0, "weight_min": 1.0}
    assert weight_statistics(np.empty(0, np.float32))["weight_mean"] == 0.0
    # large integer weights: w**2 per chunk still fits int64
    big = np.full(7, 2**31 - 1, dtype=np.int32)
    assert weight_statistics(big)["weight_std"] == 0.0 and weight_statistics(big)["weight_mean"] == 2**31 - 1


def test_profile_carries_weight_features_and_bfs_vectors_are_unchanged():
    g = small_graph(300, 5)
    gw = attach_weights(g, "int:1:255")
    f, fw = profile(g, xp=np), profile(gw, xp=np)
    assert (f.weighted, f.weight_mean) == (False, 1.0) and fw.weighted and fw.weight_integer
    assert 100 < fw.weight_mean < 160 and fw.weight_max <= 255 and fw.weight_min >= 1
    # the structure features do not depend on the weights
    assert {k: v for k, v in f.to_dict().items() if k not in WEIGHT_FEATURE_NAMES + ("profile_ms",)} == \
        {k: v for k, v in fw.to_dict().items() if k not in WEIGHT_FEATURE_NAMES + ("profile_ms",)}
    # BFS models read exactly the features they were trained on; SSSP models the weights too
    assert fw.vector().shape == (len(FEATURE_NAMES),) and np.array_equal(fw.vector(), f.vector())
    x = fw.vector(SSSP_FEATURE_NAMES)
    assert x.shape == (len(FEATURE_NAMES) + len(WEIGHT_FEATURE_NAMES),)
    names = list(SSSP_FEATURE_NAMES)
    assert x[names.index("weighted")] == 1.0 and x[names.index("weight_mean")] == pytest.approx(
        math.log1p(fw.weight_mean))
    # an old (schema-1) profile without weight keys reads as unweighted
    from autotune.features import GraphFeatures

    old = {k: v for k, v in f.to_dict().items() if k not in WEIGHT_FEATURE_NAMES}
    assert GraphFeatures.from_dict(old).weighted is False


# ============================================================================ sweep
def _sweep_sssp(graphs, tmp_path, clock, configs=None, **kw):
    feats = {}

    def base(cfg):
        return 1.0 + model_time(feats.setdefault("f", profile(graphs[0], xp=np).to_dict()), cfg)

    fac = replay_factory(clock, base, **{k: kw.pop(k) for k in ("corrupt", "calls") if k in kw})
    return sweep(graphs, configs if configs is not None else "train", tmp_path / "s.jsonl", n_sources=4,
                 progress=False, runner_factory=fac, device=FAKE_DEVICE, algorithm="sssp", **kw)


def test_sweep_sssp_writes_schema2_records_and_validates_against_dijkstra(tmp_path, clock):
    g = small_graph(300, 5, seed=1, weights="int:1:255")
    cfgs = sssp_training_set()[:6]
    bad = {cfgs[2].config_id}
    res = _sweep_sssp([g], tmp_path, clock, cfgs, corrupt=bad)
    assert res.n_measured == 6 and res.n_invalid == 1
    recs = read_log(tmp_path / "s.jsonl").records
    assert {r.schema for r in recs} == {2} and {r.algorithm for r in recs} == {"sssp"}
    assert {r.weights for r in recs} == {"int:1:255"}
    assert {r.config["algorithm"] for r in recs} == {"sssp"}
    f = recs[0].features
    assert f["weighted"] is True and f["weight_integer"] is True and 1 <= f["weight_min"] <= f["weight_max"] <= 255
    invalid = [r for r in recs if not r.valid]
    assert [r.config_id for r in invalid] == [cfgs[2].config_id] and "distances" in invalid[0].error
    # resumed: nothing measured twice
    again = _sweep_sssp([g], tmp_path, clock, cfgs)
    assert again.n_measured == 0 and again.n_skipped == 6


def test_sweep_weights_option_and_corpus_suffix(tmp_path, clock):
    """Unweighted inputs get seeded weights from sweep(weights=...) or a corpus line's suffix; the log
    names the distribution."""
    from autotune.graph import load_graph

    edge_file = tmp_path / "tri.txt"
    edge_file.write_text("0 1\n1 2\n2 0\n2 3\n3 4\n4 0\n")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text(f"{edge_file} weights=float:0.5:2   # a file with weights attached\n"
                      "grid:rows=6,cols=7,weights=int:1:9\n")
    cfgs = [DEFAULT_SSSP_CONFIG, DEFAULT_SSSP_CONFIG.with_(sssp_method="bellman_ford")]
    g0 = load_graph("grid:rows=5,cols=5", xp=np)

    def base(cfg):
        return 2.0 if cfg.sssp_method == "bellman_ford" else 1.0

    fac = replay_factory(clock, base)
    res = sweep([g0], cfgs, tmp_path / "w.jsonl", n_sources=3, progress=False, runner_factory=fac,
                device=FAKE_DEVICE, corpus=corpus, weights="int:1:255")
    assert res.n_measured == 6 and res.n_invalid == 0
    by_spec = {}
    for r in read_log(tmp_path / "w.jsonl").records:
        by_spec.setdefault(r.graph["spec"], set()).add(r.weights)
    assert by_spec == {"grid:rows=5,cols=5": {"int:1:255"}, str(edge_file): {"float:0.5:2"},
                       "grid:rows=6,cols=7,weights=int:1:9": {"int:1:9"}}


def test_validated_gpu_runner_checks_sssp_against_a_shared_dijkstra(monkeypatch):
    """The sweep's default runner validates SSSP configs with validate_sssp against Dijkstra's
    distances, computed once per source and shared across configs (the GPU engine stubbed)."""
    import autotune.reference as reference
    from autotune.errors import ValidationError
    from autotune.measure import GPURunner
    from autotune.sweep import ValidatedGPURunner

    g = small_graph(200, 4, weights="int:1:255")
    calls = []
    real = reference.sssp_reference
    monkeypatch.setattr(reference, "sssp_reference", lambda graph, s: (calls.append(s), real(graph, s))[1])

    class Engine:
        def __init__(self, graph, config, wrong=False):
            self.graph, self.config, self.wrong = graph, config, wrong

        def traverse(self, s):
            d, self._p = real(self.graph, s)
            self._d = np.full(d.shape, np.iinfo(np.int64).max, dtype=np.int64)
            self._d[np.isfinite(d)] = d[np.isfinite(d)].astype(np.int64)
            if self.wrong:
                self._d[np.flatnonzero(self._d > 0)[0]] += 1
            return 3

        def result_arrays(self):
            return self._d, self._p

        def edges_traversed(self):
            return 1

    fac = ValidatedGPURunner(g)
    src = 7
    for cfg in sssp_training_set()[:3]:
        r = fac(g, cfg)
        assert isinstance(r, GPURunner)
        r.engine = Engine(g, cfg)
        r.traverse(src)
        r.check(src)
        assert r.outcome(src) == (1, 3)  # SSSP: the iterations, not levels - 1
    assert calls == [src]  # one Dijkstra for three configs
    r = fac(g, sssp_training_set()[3])
    r.engine = Engine(g, r.config, wrong=True)
    r.traverse(src)
    with pytest.raises(ValidationError):
        r.check(src)


# ============================================================================ model per algorithm
def test_retrain_sssp_model_metadata_features_and_delta_rule_baseline(sssp_model):
    from autotune.model import model_algorithm, regret_rows

    model, out = sssp_model
    meta = model.metadata_
    assert meta["algorithm"] == "sssp" == model_algorithm(model)
    assert meta["feature_names"] == list(SSSP_FEATURE_NAMES)
    assert "--algorithm sssp" in meta["retrain_command"]
    reg = meta["cv"]["regret"]
    assert set(reg) == {"model", "best_fixed", "delta_rule", "random"}  # the delta rule replaces Table 2
    assert meta["cv"]["algorithm"] == "sssp"
    assert all(row["delta_rule"]["config_id"] == delta_rule().config_id for row in meta["cv"]["per_graph"])
    assert [r["method"] for r in regret_rows(meta["cv"])] == ["model", "best_fixed", "delta_rule", "random"]
    assert "Delta rule" in regret_rows(meta["cv"])[2]["title"]
    # the SYNTHETIC cost model makes the choice depend on the graph: the model beats any fixed config
    assert reg["model"]["geomean"] < reg["best_fixed"]["geomean"] < reg["random"]["geomean"]
    assert {TraversalConfig.from_dict(c).algorithm for c in meta["label_configs"].values()} == {"sssp"}
    assert json.loads(out.with_suffix(".json").read_text())["algorithm"] == "sssp"


def test_retrain_refuses_mixed_logs_unless_an_algorithm_is_chosen(sssp_log, bfs_log):
    from autotune.model import build_training_set, retrain, select_algorithm

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(TrainingDataError, match=r"mix algorithms.*bfs.*sssp.*--algorithm"):
            retrain([bfs_log, sssp_log], estimator=_fast_estimator())
        m = retrain([bfs_log, sssp_log], estimator=_fast_estimator(), algorithm="bfs")
        assert m.metadata_["algorithm"] == "bfs" and m.metadata_["feature_names"] == list(FEATURE_NAMES)
        assert "table2" in m.metadata_["cv"]["regret"] and "delta_rule" not in m.metadata_["cv"]["regret"]
        assert "--algorithm" not in m.metadata_["retrain_command"]
        with pytest.raises(TrainingDataError, match="no sssp record"):
            retrain([bfs_log], estimator=_fast_estimator(), algorithm="sssp")
    recs = read_log([bfs_log, sssp_log]).records
    alg, kept = select_algorithm(recs, "sssp")
    assert alg == "sssp" and kept and all(r.algorithm == "sssp" for r in kept)
    with pytest.raises(InvalidArgumentError, match="unknown algorithm"):
        select_algorithm(recs, "dfs")
    ts = build_training_set(kept, warn=False)
    assert ts.algorithm == "sssp" and ts.feature_names == SSSP_FEATURE_NAMES


def test_committed_bfs_model_still_selects_with_its_stored_feature_names():
    from autotune.model import load_model, model_algorithm

    path = REPO / "models" / "bfs_h100.joblib"
    if not path.is_file():
        pytest.skip("no shipped BFS model")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = load_model(path, device_name="NVIDIA H100 80GB HBM3")
        assert model_algorithm(m) == "bfs"
        f = profile(attach_weights(small_graph(300, 5), "int:1:255"), xp=np)  # a profile with weight features
        cfg = m.predict_config(f)
        assert cfg.algorithm == "bfs" and cfg.config_id in m.classes_
        assert list(m.feature_names_in_) == list(FEATURE_NAMES)
        with pytest.raises(ModelError, match="selects bfs configs"):
            load_model(path, device_name="NVIDIA H100 80GB HBM3", algorithm="sssp")


def test_default_model_path_per_algorithm(tmp_path, monkeypatch, sssp_model):
    from autotune.model import DEFAULT_MODEL_RELPATHS, default_model_path

    assert DEFAULT_MODEL_RELPATHS["sssp"].startswith("models/sssp_") and DEFAULT_MODEL_RELPATHS["bfs"].startswith(
        "models/bfs_")
    assert default_model_path("sssp") is None  # $AUTOTUNE_SSSP_MODEL names a missing file
    monkeypatch.setenv("AUTOTUNE_SSSP_MODEL", str(sssp_model[1]))
    assert default_model_path("sssp") == sssp_model[1]
    monkeypatch.delenv("AUTOTUNE_SSSP_MODEL")
    shipped = REPO / DEFAULT_MODEL_RELPATHS["sssp"]
    assert default_model_path("sssp") == (shipped if shipped.is_file() else None)
    with pytest.raises(InvalidArgumentError):
        default_model_path("dfs")


# ============================================================================ tune
def test_tune_sssp_fast_path_without_a_model_is_the_documented_default(tmp_path):
    from autotune.search import tune, tune_detailed

    g = small_graph(300, 5, weights="int:1:255")
    with pytest.warns(UserWarning, match=r"documented default SSSP config.*--algorithm sssp"):
        res = tune_detailed(g, algorithm="sssp")
    assert res.method == "delta_rule" and res.config == DEFAULT_SSSP_CONFIG
    assert "Delta rule" in res.message and res.features.weighted
    with pytest.warns(UserWarning):
        assert tune(g, algorithm="sssp") == DEFAULT_SSSP_CONFIG
    # an unweighted graph tunes SSSP too (unit weights)
    with pytest.warns(UserWarning):
        assert tune(small_graph(200, 4), algorithm="sssp").algorithm == "sssp"
    with pytest.raises(InvalidArgumentError, match="unknown algorithm"):
        tune(g, algorithm="dfs")


def test_tune_sssp_fast_path_uses_the_sssp_model_and_refuses_a_bfs_one(sssp_model, monkeypatch):
    from autotune.search import tune_detailed

    model, path = sssp_model
    g = small_graph(300, 5, weights="int:1:255")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = tune_detailed(g, algorithm="sssp", model=path)
        assert res.method == "model" and res.config.algorithm == "sssp"
        assert res.config == model.predict_config(profile(g, xp=np))
        monkeypatch.setenv("AUTOTUNE_SSSP_MODEL", str(path))  # the default SSSP model
        assert tune_detailed(g, algorithm="sssp").method == "model"
        # the SSSP model is never used for BFS, nor a BFS model for SSSP
        assert tune_detailed(g).method == "table2"
        with pytest.raises(InvalidArgumentError, match="selects sssp configs, not bfs"):
            tune_detailed(g, model=path)
        bfs = REPO / "models" / "bfs_h100.joblib"
        if bfs.is_file():
            with pytest.raises(InvalidArgumentError, match="selects bfs configs, not sssp"):
                tune_detailed(g, algorithm="sssp", model=bfs)


optuna = pytest.importorskip("optuna")


def _search_sssp(graph, clock, tmp_path, n_trials=10, **kw):
    from autotune.search import tune_detailed

    feats = profile(graph, xp=np).to_dict()
    kw.setdefault("runner_factory", replay_factory(clock, lambda cfg: model_time(feats, cfg), jitter=0.02))
    kw.setdefault("model", False)
    return tune_detailed(graph, n_trials, storage=f"sqlite:///{tmp_path / 's.db'}", n_sources=8, progress=False,
                         device=FAKE_DEVICE, log=tmp_path / "tune.jsonl", algorithm="sssp", **kw)


def test_sssp_search_samples_the_sssp_space_seeded_by_model_and_delta_rule(tmp_path, clock, sssp_model):
    g = small_graph(300, 5, weights="int:1:255")
    model, _ = sssp_model
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pick = model.predict_config(profile(g, xp=np))
        ranked = model.predict_configs(profile(g, xp=np), 4)
        res = _search_sssp(g, clock, tmp_path, n_trials=12, model=model)
    assert res.method == "search" and res.config.algorithm == "sssp" and res.study.startswith("sssp:")
    assert ranked[0] == pick
    # seeds: the model's pick, the Delta rule, then the model's next three (each config once)
    expect = []
    for c in [pick, delta_rule()] + ranked[1:]:
        if c.config_id not in expect:
            expect.append(c.config_id)
    assert [c["config_id"] for c in res.candidates] == expect
    assert "delta_rule" in [c["source"] for c in res.candidates]
    study = optuna.load_study(study_name=res.study, storage=res.storage)
    assert study.user_attrs["autotune"]["algorithm"] == "sssp"
    trials = study.get_trials()
    assert [t.user_attrs["config_id"] for t in trials[:len(expect)]] == expect  # seeds first
    assert "algorithm" not in trials[0].params
    for t in trials:
        cfg = TraversalConfig.from_dict(t.user_attrs["config"])
        assert cfg.algorithm == "sssp" and cfg.direction == "push" and cfg.duplicate_culling == "none"
        assert ("delta" in t.params) == (cfg.sssp_method != "bellman_ford")  # conditional on the method
    recs = read_log(tmp_path / "tune.jsonl").records
    assert recs and {r.algorithm for r in recs} == {"sssp"} and {r.weights for r in recs} == {"int:1:255"}
    assert res.best_ms == min(t.value for t in trials if t.state.name == "COMPLETE")


def test_sssp_and_bfs_searches_are_separate_studies(tmp_path, clock):
    from autotune.search import stored_best, study_name_for

    g = small_graph(300, 5, weights="int:1:255")
    r1 = _search_sssp(g, clock, tmp_path, n_trials=4)
    assert r1.study == study_name_for(g, FAKE_DEVICE["name"], "sssp")
    url = f"sqlite:///{tmp_path / 's.db'}"
    hit = stored_best(g, FAKE_DEVICE["name"], url, algorithm="sssp")
    assert hit is not None and hit[0] == r1.config and hit[2] == r1.study
    assert stored_best(g, FAKE_DEVICE["name"], url) is None  # a finished SSSP search is no BFS answer
    # the stored SSSP best answers the SSSP fast path at once
    from autotune.search import tune_detailed

    res = tune_detailed(g, storage=url, device=FAKE_DEVICE, algorithm="sssp", model=False)
    assert res.method == "stored" and res.config == r1.config
    from autotune.search import SearchError

    with pytest.raises(SearchError, match="searches sssp configs, not bfs"):
        feats = profile(g, xp=np).to_dict()
        tune_detailed(g, 2, storage=url, study_name=r1.study, n_sources=8, progress=False, device=FAKE_DEVICE,
                      runner_factory=replay_factory(clock, lambda c: model_time(feats, c)), model=False,
                      log=tmp_path / "t2.jsonl")


# ============================================================================ CLI
def _write_config(tmp_path, cfg):
    p = tmp_path / "cfg.json"
    p.write_text(cfg.to_json())
    return p


def test_cli_run_builds_sssp_configs_from_flags():
    from autotune.cli import _configs_from_args, build_parser
    from autotune.errors import ConfigError

    p = build_parser()
    (c,) = _configs_from_args(p.parse_args(["run", "g.mtx", "--algorithm", "sssp"]))
    assert c == DEFAULT_SSSP_CONFIG
    (c,) = _configs_from_args(p.parse_args(["run", "g.mtx", "--sssp-method", "near_far", "--delta", "16"]))
    assert (c.algorithm, c.sssp_method, c.delta) == ("sssp", "near_far", 16)  # the SSSP flags imply sssp
    vm, bs = _configs_from_args(p.parse_args(["run", "g.mtx", "--algorithm", "sssp", "--sssp-method", "bellman_ford",
                                              "--load-balance", "vertex_mapped", "binary_search"]))
    assert (vm.load_balance, vm.sssp_method, vm.delta) == ("vertex_mapped", "bellman_ford", None)
    assert bs.algorithm == "sssp" and bs.direction == "push"
    with pytest.raises(ConfigError, match="--direction"):
        _configs_from_args(p.parse_args(["run", "g.mtx", "--algorithm", "sssp", "--direction", "push_pull"]))
    with pytest.raises(ConfigError, match="--delta applies to none"):
        _configs_from_args(p.parse_args(["run", "g.mtx", "--sssp-method", "bellman_ford", "--delta", "4"]))
    (c,) = _configs_from_args(p.parse_args(["run", "g.mtx"]))
    assert c.algorithm == "bfs" and c.direction == "push_pull"  # BFS default unchanged


def test_cli_tune_sssp_fast_path_json(capsys, tmp_path):
    out = tmp_path / "c.json"
    assert cli.main(["tune", "grid:rows=20,cols=20,weights=int:1:255", "--algorithm", "sssp", "--json",
                     "--out", str(out)]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data[0]["method"] == "delta_rule" and data[0]["config"]["algorithm"] == "sssp"
    assert data[0]["features"]["weighted"] is True
    assert "documented default SSSP config" in captured.err
    assert TraversalConfig.from_json(out.read_text()) == DEFAULT_SSSP_CONFIG
    # --weights gives an unweighted input seeded weights
    assert cli.main(["tune", "grid:rows=20,cols=20", "--weights", "int:1:255", "--algorithm", "sssp", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)[0]["features"]["weight_max"] <= 255


def test_cli_retrain_algorithm_flag(sssp_log, bfs_log, tmp_path, capsys):
    assert cli.main(["retrain", str(bfs_log), str(sssp_log), "--n-estimators", "10"]) == 2
    assert "mix algorithms" in capsys.readouterr().err
    out = tmp_path / "sssp_x.joblib"
    assert cli.main(["retrain", str(bfs_log), str(sssp_log), "--algorithm", "sssp", "--n-estimators", "10",
                     "--out", str(out), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["algorithm"] == "sssp" and set(data["cv"]) == {"model", "best_fixed", "delta_rule", "random"}
    assert json.loads(out.with_suffix(".json").read_text())["algorithm"] == "sssp"
    assert cli.main(["retrain", str(sssp_log), "--n-estimators", "10"]) == 0
    assert "Delta rule" in capsys.readouterr().out


def test_cli_sweep_and_bench_take_algorithm_flags():
    p = cli.build_parser()
    a = p.parse_args(["sweep", "--algorithm", "sssp", "--configs", "train", "--corpus", "models/corpus_sssp.txt",
                      "--out", "x.jsonl", "--weights", "int:1:255"])
    assert (a.algorithm, a.configs, a.weights) == ("sssp", "train", "int:1:255")
    a = p.parse_args(["bench", "g.mtx", "--algorithm", "sssp", "--gap-dir", "/opt/gap", "--weights", "int:1:255"])
    assert (a.algorithm, a.gap_dir, a.gap_threads, a.peers) == ("sssp", "/opt/gap", 16, None)
    a = p.parse_args(["retrain", "x.jsonl", "--algorithm", "sssp"])
    assert a.algorithm == "sssp"
    assert p.parse_args(["retrain", "x.jsonl"]).algorithm is None


# ============================================================================ bench peers (CPU)
_FAKE_GAP = """#!/bin/sh
# stands in for GAP's bfs/sssp: prints its timing lines (the time grows with -d, smallest at 16)
delta=0
while [ $# -gt 0 ]; do
  case "$1" in
    -d) delta=$2; shift;;
    -r) echo "$2" >> "$(dirname "$0")/sources.txt"; shift;;
  esac
  shift
done
echo "threads $OMP_NUM_THREADS" >> "$(dirname "$0")/threads.txt"
case "$delta" in
  16) t=0.00100;; 2) t=0.00300;; *) t=0.00200;;
esac
echo "Trial Time:          $t"
echo "Average Time:        $t"
"""


@pytest.fixture
def fake_gap(tmp_path):
    d = tmp_path / "gap"
    d.mkdir()
    for name in ("bfs", "sssp"):
        f = d / name
        f.write_text(_FAKE_GAP)
        f.chmod(f.stat().st_mode | stat.S_IEXEC)
    return d


def test_bench_sssp_peers_dijkstra_and_gap_on_the_same_sources(fake_gap, monkeypatch, tmp_path):
    from autotune.bench import BenchResult, bench, plot, write_json
    from autotune.measure import select_sources

    monkeypatch.delenv("AUTOTUNE_GAP_DIR", raising=False)
    g = small_graph(300, 5, weights="int:1:255")
    res = bench(g, [], peers=["scipy", "gap"], n_sources=6, algorithm="sssp", gap_dir=fake_gap, gap_sources=4)
    assert isinstance(res, BenchResult) and res.algorithm == "sssp" and res.weights == "int:1:255"
    scipy_m, gap_m = res.measurements
    assert scipy_m.name.startswith("scipy.csgraph dijkstra") and scipy_m.valid and len(scipy_m.times_ms) == 6
    sources = [int(s) for s in select_sources(g, 6, 0)]
    assert scipy_m.sources == sources
    assert gap_m.valid, gap_m.error
    assert gap_m.sources == sources[:4] and gap_m.times_ms == [1.0] * 4  # GAP's own trial times, ms
    assert gap_m.extra["best_delta"] == 16 and gap_m.extra["deltas_ms"] == {"2": 3.0, "16": 1.0, "128": 2.0,
                                                                           "1024": 2.0}
    assert gap_m.extra["threads"] == 16 and set((fake_gap / "threads.txt").read_text().split()) == {"threads", "16"}
    ran = [int(x) for x in (fake_gap / "sources.txt").read_text().split()]
    assert ran == [s for s in sources[:4] for _ in range(4)]  # every source at every delta
    # edges traversed follow the protocol (out-degrees of the reached vertices)
    assert gap_m.edges == scipy_m.edges[:4] and min(gap_m.edges) > 0
    d = res.to_dict()
    assert d["algorithm"] == "sssp" and d["measurements"][1]["extra"]["best_delta"] == 16
    write_json([res], tmp_path / "b.json", FAKE_DEVICE)
    assert json.loads((tmp_path / "b.json").read_text())["results"][0]["weights"] == "int:1:255"
    plot([res], str(tmp_path / "b.png"))
    assert (tmp_path / "b.png").stat().st_size > 1000


def test_bench_gap_peer_skips_fails_and_refuses(fake_gap, monkeypatch):
    from autotune.bench import bench, peer_runner
    from autotune.errors import PeerError

    monkeypatch.delenv("AUTOTUNE_GAP_DIR", raising=False)
    g = small_graph(200, 4, weights="int:1:255")
    res = bench(g, [], peers=["gap"], n_sources=2, algorithm="sssp")  # no GAP folder: a note, not an error
    assert res.measurements == [] and "gap" in res.notes[0] and "AUTOTUNE_GAP_DIR" in res.notes[0]
    with pytest.raises(PeerError, match="does not exist"):
        bench(g, [], peers=["gap"], n_sources=2, algorithm="sssp", gap_dir=fake_gap / "nope")
    monkeypatch.setenv("AUTOTUNE_GAP_DIR", str(fake_gap))
    gf = attach_weights(small_graph(200, 4), "float:0.5:2")  # GAP reads int32 weights only: an invalid peer
    (m,) = bench(gf, [], peers=["gap"], n_sources=2, algorithm="sssp").measurements
    assert not m.valid and "int32" in m.error
    (m,) = bench(g, [], peers=["gap"], n_sources=2, algorithm="bfs").measurements  # GAP's BFS peer
    assert m.valid and m.name.startswith("GAP bfs") and "deltas_ms" in m.extra and m.extra["best_delta"] is None
    with pytest.raises(InvalidArgumentError, match="unknown sssp peer 'cupyx'"):
        peer_runner("cupyx", g, "sssp")
    with pytest.raises(InvalidArgumentError, match="one algorithm at a time"):
        bench(g, [DEFAULT_SSSP_CONFIG, TraversalConfig()], peers=[], n_sources=2)


def test_scipy_dijkstra_peer_matches_the_reference():
    from autotune.measure import ScipyDijkstraRunner, measure, reference_distances

    g = small_graph(300, 5, weights="float:0.5:2")
    r = ScipyDijkstraRunner(g)
    m = measure(r, [3, 11], validate=True)
    assert m.valid and m.timer == "perf_counter" and len(m.times_ms) == 2
    np.testing.assert_array_equal(r._last[0], reference_distances(g, 11, "sssp"))
    assert m.edges[-1] == int(g.out_degrees(np)[np.isfinite(r._last[0])].sum())


def test_cli_bench_and_run_say_they_need_a_gpu():
    import subprocess
    import sys

    env = dict(os.environ, AUTOTUNE_DISABLE_GPU="1")
    for verb in ("run", "bench"):
        r = subprocess.run([sys.executable, "-m", "autotune.cli", verb, "grid:rows=4,cols=4,weights=int:1:255",
                            "--algorithm", "sssp"], env=env, capture_output=True, text=True)
        assert r.returncode == 2 and "needs an NVIDIA GPU" in r.stderr, r.stderr
