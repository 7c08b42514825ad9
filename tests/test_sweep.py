"""Sweeps (CPU, replayed timings): config sets, corpus files, shared graphs, resumability, validation."""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pytest

from autotune._backend import gpu_available
from autotune.config import TraversalConfig, _FIELDS, count_configs
from autotune.errors import GPUUnavailableError
from autotune.logs import read_log
from autotune.sweep import (
    grid, portfolio, read_corpus, resolve_configs, resolve_graph_entry, shared_graphs_dirs, sweep,
)

from ._tuning_helpers import FAKE_DEVICE, install_clock, replay_factory, small_graph
from .conftest import check_shared_corpus_entries

REPO = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------------------ config sets
@pytest.mark.parametrize("algorithm, size", [("bfs", 94), ("sssp", 114)])
def test_portfolio_is_small_valid_and_covers_every_knob_value(algorithm, size):
    p = portfolio(algorithm)
    ids = [c.config_id for c in p]
    assert len(set(ids)) == len(ids)
    assert {c.algorithm for c in p} == {algorithm}
    # one config per technique plus one per other value of each field that applies to its default
    # (fields that only apply after another change, e.g. alpha under push, are not varied), among
    # the values the algorithm allows (SSSP: no push_pull, no hash culling)
    expected = 0
    for lb in _FIELDS["load_balance"].allowed:
        base = TraversalConfig(algorithm=algorithm, load_balance=lb)
        expected += 1 + sum(len(spec.allowed_here(base.to_dict())) - 1 for name, spec in _FIELDS.items()
                            if name not in ("load_balance", "algorithm") and getattr(base, name) is not None)
    assert len(p) == expected == size
    assert len(p) < count_configs() // 10**5  # a few dozen out of ~2 * 10**7
    for lb in _FIELDS["load_balance"].allowed:
        assert TraversalConfig(algorithm=algorithm, load_balance=lb) in p  # each technique's default
    # every allowed value of every field that applies to a technique's default shows up
    for lb in _FIELDS["load_balance"].allowed:
        base = TraversalConfig(algorithm=algorithm, load_balance=lb)
        for name, spec in _FIELDS.items():
            if name in ("load_balance", "algorithm") or getattr(base, name) is None:
                continue
            for v in spec.allowed_here(base.to_dict()):
                assert any(c.load_balance == lb and getattr(c, name) == v for c in p), (lb, name, v)
    # and each portfolio config is one knob away from its technique's default
    for c in p:
        base = TraversalConfig(algorithm=algorithm, load_balance=c.load_balance)
        diff = [k for k, v in c.to_dict().items() if v is not None and getattr(base, k) is not None
                and getattr(base, k) != v]
        assert len(diff) <= 1, (c.label, diff)


def test_resolve_configs():
    assert resolve_configs("grid") == grid()
    assert resolve_configs("portfolio") == portfolio()
    a, b = TraversalConfig(), TraversalConfig(load_balance="binary_search")
    assert resolve_configs([a, b.to_dict(), a]) == (a, b)
    with pytest.raises(ValueError, match="unknown config set"):
        resolve_configs("everything")
    with pytest.raises(ValueError, match="no configs"):
        resolve_configs([])


#: The crossover grid's options per technique, at the papers' defaults (written out independently).
GRID_OPTIONS = {
    "vertex_mapped": dict(warp_gathering=32, block_gathering="block_size", supplementary_queues="half_resident",
                          defer_outliers=2048, work_chunk=32),
    "scan_mapped": dict(warp_gathering=32, block_gathering="block_size", supplementary_queues="half_resident"),
    "binary_search": dict(chunk_size=2048),
    "degree_classified": {},
    "edge_mapped": {},
}
SUPPORT_FIELDS = ("warp_gathering", "block_gathering", "supplementary_queues")


def test_grid_is_the_crossover_grid():
    g = grid()
    assert len(g) == 42 and len(set(g)) == 42 and len({c.config_id for c in g}) == 42
    assert grid() == g  # stable order
    expected = set()
    for lb, opts in GRID_OPTIONS.items():
        variants = [{}, {"duplicate_culling": "hash"}] + [{k: v} for k, v in opts.items()]
        supports = {k: v for k, v in opts.items() if k in SUPPORT_FIELDS}
        if supports:
            variants.append(supports)  # Table 2 with every condition true
        for kw in variants:
            for d in ("push", "push_pull"):
                expected.add(TraversalConfig(load_balance=lb, direction=d, **kw))
    assert set(g) == expected
    # every technique in both directions, each direction at its defaults
    for lb in _FIELDS["load_balance"].allowed:
        for d in ("push", "push_pull"):
            assert TraversalConfig(load_balance=lb, direction=d) in g, (lb, d)
            assert TraversalConfig(load_balance=lb, direction=d, duplicate_culling="hash") in g, (lb, d)
    assert sum(c.direction == "push" for c in g) == sum(c.direction == "push_pull" for c in g) == 21
    # the supports only with vertex- and scan-based mapping, alone and all three together
    with_support = [c for c in g if any(getattr(c, f) not in (None, "off") for f in SUPPORT_FIELDS)]
    assert {c.load_balance for c in with_support} == {"vertex_mapped", "scan_mapped"}
    for lb in ("vertex_mapped", "scan_mapped"):
        mine = [c for c in with_support if c.load_balance == lb]
        assert len(mine) == 2 * 4  # each alone and all together, in both directions
        assert sum(all(getattr(c, f) != "off" for f in SUPPORT_FIELDS) for c in mine) == 2
    # everything else at its default: each config is its technique + direction + at most the supports
    for c in g:
        base = TraversalConfig(load_balance=c.load_balance, direction=c.direction)
        diff = {k for k, v in c.to_dict().items() if getattr(base, k) != v}
        assert diff <= set(GRID_OPTIONS[c.load_balance]) | {"duplicate_culling"}, (c.label, diff)
        assert len(diff) <= 1 or diff == set(SUPPORT_FIELDS), (c.label, diff)


def test_grid_supports_together_are_table2_with_every_condition():
    from autotune.features import GraphFeatures
    from autotune.search import table2_rule

    # regular enough for vertex_mapped (std / mean < 1) but with a hub above every support threshold
    hub = GraphFeatures(n_vertices=10**6, n_edges=10**7, directed=False, degree_mean=10.0, degree_std=9.0,
                        degree_gini=0.4, degree_max=200_000, degree_min=1, leaf_fraction=0.05, degree_p50=8.0,
                        degree_p90=20.0, degree_p99=60.0, isolated_fraction=0.0, eccentricity_mean=10.0,
                        eccentricity_max=14)
    t2 = table2_rule(hub)
    assert t2.load_balance == "vertex_mapped"
    assert t2.with_(virtual_warp_size="dynamic") in grid()
    assert TraversalConfig(load_balance="scan_mapped", **{f: getattr(t2, f) for f in SUPPORT_FIELDS}) in grid()


# ------------------------------------------------------------------------------ corpus / shared
def test_read_corpus_comments_and_blanks(tmp_path):
    f = tmp_path / "c.txt"
    f.write_text("# header\n\nkron:scale=10   # small\n  grid:rows=5,cols=5\n#gone\nshared:x.mtx.gz\n")
    assert read_corpus(f) == ["kron:scale=10", "grid:rows=5,cols=5", "shared:x.mtx.gz"]
    (tmp_path / "empty.txt").write_text("# nothing\n")
    with pytest.raises(ValueError, match="lists no graph"):
        read_corpus(tmp_path / "empty.txt")


def test_shared_entries_resolve_from_env(tmp_path, monkeypatch):
    d = tmp_path / "graphs"
    d.mkdir()
    for name in ("b.mtx.gz", "a.mtx.gz", "c.txt.gz", "MANIFEST.tsv"):
        (d / name).write_bytes(b"")
    monkeypatch.setenv("AUTOTUNE_SHARED_GRAPHS", str(d))
    assert shared_graphs_dirs()[0] == d
    assert resolve_graph_entry("shared:a.mtx.gz") == [str(d / "a.mtx.gz")]
    assert resolve_graph_entry("shared:*.mtx.gz") == [str(d / "a.mtx.gz"), str(d / "b.mtx.gz")]
    assert resolve_graph_entry("kron:scale=3") == ["kron:scale=3"]
    with pytest.raises(FileNotFoundError, match="AUTOTUNE_SHARED_GRAPHS"):
        resolve_graph_entry("shared:nope.mtx.gz")


def test_committed_corpus_spans_the_feature_space():
    """models/corpus.txt: >= 40 graphs, generator specs valid, shared entries resolvable, and the
    documented feature ranges (avg degree ~2-200, Gini ~0-0.9, depth ~4-thousands, 1e5-1e8 edges)."""
    from autotune.generators import _GENERATORS, parse_spec

    path = REPO / "models" / "corpus.txt"
    entries = read_corpus(path)
    assert len(entries) >= 40
    shared = [e for e in entries if e.startswith("shared:")]
    gens = [e for e in entries if not e.startswith("shared:")]
    for spec in gens:
        name, params = parse_spec(spec)
        assert name in _GENERATORS, spec
        for k in params:
            assert _GENERATORS[name].param(k) is not None, (spec, k)
    # every graph of the shared set is in the corpus
    if not check_shared_corpus_entries(shared):
        assert len(shared) >= 7
    # the header table documents the measured features of every generated entry
    text = path.read_text()
    rows = [ln for ln in text.splitlines() if ln.startswith("#|")][1:]  # after the column titles
    documented = {r.split("|")[1].strip() for r in rows}
    assert set(gens) <= documented
    vals = [[float(x.replace(",", "")) for x in r.split("|")[2:8]] for r in rows]
    edges, mean, gini, depth = (np.array([v[i] for v in vals]) for i in (1, 2, 3, 5))
    assert edges.min() <= 3e5 and edges.max() >= 9e7
    assert mean.min() <= 3 and mean.max() >= 190
    assert gini.min() <= 0.01 and gini.max() >= 0.9
    assert depth.min() <= 5 and depth.max() >= 3000


# ------------------------------------------------------------------------------ sweeping
@pytest.fixture
def clock(monkeypatch):
    return install_clock(monkeypatch)


CONFIGS = [TraversalConfig(), TraversalConfig(load_balance="binary_search"),
           TraversalConfig().with_(virtual_warp_size=4), TraversalConfig().with_(block_size=512)]


def _base_ms(cfg):
    return {0: 1.0, 1: 2.0, 2: 0.5, 3: 0.8}[[c.config_id for c in CONFIGS].index(cfg.config_id)]


def test_sweep_logs_every_graph_x_config_and_resumes(tmp_path, clock):
    out = tmp_path / "logs" / "s.jsonl"
    g1, g2 = small_graph(300, 5, seed=1), small_graph(200, 3, seed=2)
    bad = {CONFIGS[3].config_id}
    calls = []
    fac = replay_factory(clock, _base_ms, corrupt=bad, calls=calls)
    res = sweep([g1, g2], CONFIGS, out, n_sources=4, progress=False, runner_factory=fac, device=FAKE_DEVICE)
    assert res.n_measured == 8 and res.n_skipped == 0 and res.n_invalid == 2
    recs = read_log(out).records
    assert len(recs) == 8
    assert {(r.fingerprint, r.config_id) for r in recs} == {(g.fingerprint, c.config_id) for g in (g1, g2)
                                                            for c in CONFIGS}
    for r in recs:
        assert r.device_name == FAKE_DEVICE["name"] and r.origin["command"] == "sweep"
        assert r.measure["n_sources"] == 4 and r.graph["features"]["n_edges"] in (g1.n_edges, g2.n_edges)
        if r.config_id in bad:  # a wrong result is logged as invalid, with the validation error
            assert not r.valid and "ValidationError" in r.error and "distances" in r.error
        else:
            assert r.valid and len(r.measure["times_ms"]) == 4
            assert r.median_ms == pytest.approx(_base_ms(TraversalConfig.from_dict(r.config)), rel=0.02)
    # same sources for every config of a graph
    srcs = {tuple(r.measure["sources"]) for r in recs if r.fingerprint == g1.fingerprint and r.valid}
    assert len(srcs) == 1
    # resume: nothing left to do
    calls.clear()
    res2 = sweep([g1, g2], CONFIGS, out, n_sources=4, progress=False, runner_factory=fac, device=FAKE_DEVICE)
    assert res2.n_measured == 0 and res2.n_skipped == 8 and calls == []
    # another device is another measurement
    res3 = sweep([g1], CONFIGS[:1], out, n_sources=4, progress=False, runner_factory=fac,
                 device={"name": "OTHER GPU"})
    assert res3.n_measured == 1
    # retry_invalid re-measures only the invalid pairs
    calls.clear()
    res4 = sweep([g1, g2], CONFIGS, out, n_sources=4, progress=False, runner_factory=fac, device=FAKE_DEVICE,
                 retry_invalid=True)
    assert res4.n_measured == 2 and set(calls) == bad


def test_interrupted_sweep_loses_nothing_and_resumes(tmp_path, clock):
    """A sweep killed after k measurements keeps those k lines; the next run does only the rest."""
    out = tmp_path / "s.jsonl"
    g = small_graph(300, 5, seed=1)
    inner = replay_factory(clock, _base_ms)
    n = {"built": 0}

    def dying(graph, cfg):
        n["built"] += 1
        if n["built"] == 3:
            raise KeyboardInterrupt
        return inner(graph, cfg)

    with pytest.raises(KeyboardInterrupt):
        sweep([g], CONFIGS, out, n_sources=3, progress=False, runner_factory=dying, device=FAKE_DEVICE)
    assert len(read_log(out).records) == 2
    res = sweep([g], CONFIGS, out, n_sources=3, progress=False, runner_factory=inner, device=FAKE_DEVICE)
    assert res.n_measured == 2 and res.n_skipped == 2
    recs = read_log(out).records
    assert sorted(r.config_id for r in recs) == sorted(c.config_id for c in CONFIGS)


def test_failing_runner_and_factory_are_invalid_records(tmp_path, clock):
    out = tmp_path / "s.jsonl"
    g = small_graph(200, 4)
    inner = replay_factory(clock, _base_ms, fail={CONFIGS[0].config_id})

    def factory(graph, cfg):
        if cfg.config_id == CONFIGS[1].config_id:
            raise ValueError("no kernel for this config")
        return inner(graph, cfg)

    res = sweep(g, CONFIGS[:3], out, n_sources=2, progress=False, runner_factory=factory, device=FAKE_DEVICE)
    errs = {r.config_id: r.error for r in res.records}
    assert errs[CONFIGS[0].config_id].startswith("RuntimeError: cannot run")
    assert errs[CONFIGS[1].config_id] == "ValueError: no kernel for this config"
    assert errs[CONFIGS[2].config_id] is None
    assert res.n_invalid == 2


def test_sweep_specs_corpus_and_progress_bar(tmp_path, clock, capsys):
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("# tiny corpus\ngrid:rows=12,cols=12\nuniform:n=150,avg_degree=4  # random\n")
    res = sweep(["grid:rows=6,cols=6"], CONFIGS[:2], tmp_path / "s.jsonl", corpus=corpus, n_sources=2, progress=True,
                runner_factory=replay_factory(clock, _base_ms), device=FAKE_DEVICE)
    assert [g["spec"] for g in res.graphs] == ["grid:rows=6,cols=6", "grid:rows=12,cols=12",
                                               "uniform:n=150,avg_degree=4"]
    assert res.n_measured == 6
    assert {r.graph["spec"] for r in res.records} == {g["spec"] for g in res.graphs}
    with pytest.raises(ValueError, match="no graphs"):
        sweep([], CONFIGS, tmp_path / "x.jsonl", runner_factory=replay_factory(clock, _base_ms), device=FAKE_DEVICE)


@pytest.mark.skipif(gpu_available(), reason="checks the behaviour without a GPU")
def test_sweep_needs_gpu_without_runner(tmp_path):
    with pytest.raises(GPUUnavailableError, match="autotune sweep"):
        sweep(small_graph(), CONFIGS, tmp_path / "s.jsonl", progress=False)


@pytest.mark.skipif(gpu_available(), reason="checks the behaviour without a GPU")
def test_cli_sweep_says_it_needs_a_gpu(tmp_path, capsys):
    from autotune.cli_tuning import main

    assert main(["sweep", "kron:scale=8", "--out", str(tmp_path / "s.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "needs an NVIDIA GPU" in err and "retrain" in err
    assert not (tmp_path / "s.jsonl").exists()


def test_cli_register_adds_three_verbs():
    from autotune.cli_tuning import register

    p = argparse.ArgumentParser(prog="autotune")
    register(p.add_subparsers(dest="command", required=True))
    a = p.parse_args(["sweep", "g1", "g2", "--configs", "grid", "--out", "logs/x.jsonl", "--corpus", "c.txt"])
    assert (a.graphs, a.configs, a.out, a.corpus) == (["g1", "g2"], "grid", "logs/x.jsonl", "c.txt")
    assert a.rounds == 1 and p.parse_args(["sweep", "g", "--out", "x.jsonl", "--rounds", "3"]).rounds == 3
    with pytest.raises(SystemExit):
        p.parse_args(["sweep", "g", "--out", "x.jsonl", "--rounds", "0"])
    a = p.parse_args(["tune", "g", "--trials", "60", "--storage", "postgresql://x/y", "--study", "s", "--retune",
                      "--out", "c.json"])
    assert (a.trials, a.storage, a.study, a.retune, a.out) == (60, "postgresql://x/y", "s", True, "c.json")
    assert a.ranked == 4 and p.parse_args(["tune", "g", "--trials", "5", "--ranked", "2"]).ranked == 2
    a = p.parse_args(["retrain", "a.jsonl", "b.jsonl", "--out", "models/m.joblib"])
    assert a.logs == ["a.jsonl", "b.jsonl"] and callable(a.func)


def test_default_runner_validates_with_a_shared_reference(monkeypatch):
    """The GPU runners of a sweep validate against a CPU reference computed once per source and
    graph (not once per config), and only the first K sources with validate_sources=K."""
    from types import SimpleNamespace

    import autotune.reference as ref
    from autotune.errors import ValidationError
    from autotune.sweep import ValidatedGPURunner

    g = small_graph(300, 5)
    calls = []
    real = ref.bfs_reference
    monkeypatch.setattr(ref, "bfs_reference", lambda graph, s: (calls.append(s), real(graph, s))[1])
    factory = ValidatedGPURunner(g)
    dist, pred = real(g, 7)
    for cfg in CONFIGS:  # the engine is faked: check() only reads its result arrays
        r = factory(g, cfg)
        assert r.config == cfg and r.timer == "cuda-events"
        r.engine = SimpleNamespace(distances=dist, predecessors=pred)
        r.check(7)
    assert calls == [7]
    bad = dist.copy()
    bad[np.flatnonzero(bad > 0)[0]] += 1
    r = factory(g, CONFIGS[0])
    r.engine = SimpleNamespace(distances=bad, predecessors=pred)
    with pytest.raises(ValidationError, match="distances"):
        r.check(7)
    only_first = ValidatedGPURunner(g, validate_sources=1)(g, CONFIGS[0])
    only_first.engine = SimpleNamespace(distances=dist, predecessors=pred)
    only_first.check(7)
    only_first.engine = SimpleNamespace(distances=bad, predecessors=pred)
    only_first.check(7)  # second source: not validated


def test_runner_validating_on_device_needs_no_cpu_reference(monkeypatch):
    """With on_device=True the sweep's runners check each validated traversal with the Graph500 rules
    (validate_on_device; NumPy arrays are checked on the host the same way) and never compute a CPU
    reference; a wrong result is still caught. The CLI flag reaches sweep()."""
    from types import SimpleNamespace

    import autotune.reference as ref
    from autotune.cli import build_parser
    from autotune.errors import ValidationError
    from autotune.sweep import ValidatedGPURunner

    g = small_graph(300, 5)
    dist, pred = ref.bfs_reference(g, 7)
    calls = []
    monkeypatch.setattr(ref, "bfs_reference", lambda graph, s: calls.append(s))
    factory = ValidatedGPURunner(g, on_device=True)
    r = factory(g, CONFIGS[0])
    r.engine = SimpleNamespace(distances=dist, predecessors=pred)
    r.check(7)
    bad = dist.copy()
    bad[np.flatnonzero(bad > 0)[0]] += 1
    r = factory(g, CONFIGS[1])
    r.engine = SimpleNamespace(distances=bad, predecessors=pred)
    with pytest.raises(ValidationError):
        r.check(7)
    assert calls == []
    p = build_parser()
    assert p.parse_args(["sweep", "g", "--out", "x.jsonl", "--validate-on-device"]).validate_on_device
    assert not p.parse_args(["sweep", "g", "--out", "x.jsonl"]).validate_on_device


def test_training_set_is_grid_plus_persistent_bases():
    from autotune.sweep import grid, training_set

    t = training_set()
    g = grid()
    assert set(g) <= set(t) and len(set(t)) == len(t)
    extra = [c for c in t if c not in g]
    large = [c for c in extra if c.block_size >= 512]
    assert len(large) == 6 and all(c.small_frontier == "single_block" for c in large)
    assert {(c.load_balance, c.block_size) for c in large} == {("edge_mapped", 1024), ("edge_mapped", 512),
                                                              ("binary_search", 512)}
    extra = [c for c in extra if c not in large]
    small = [c for c in extra if c.block_size == 128 and c.frontier_limit != 32768 or c.small_frontier == "single_block"]
    assert len(small) == 4 and all(c.block_size == 128 for c in small)
    assert {(c.load_balance, c.small_frontier, c.frontier_limit) for c in small} == {
        ("binary_search", "single_block", 512), ("binary_search", "single_block", 2048),
        ("binary_search", "single_block", 32768), ("scan_mapped", "persistent", 8192)}
    extra = [c for c in extra if c not in small]
    assert len(extra) == 2 * len(_FIELDS["load_balance"].allowed) + 2
    assert len(t) == 64
    assert all(c.small_frontier == "persistent" for c in extra)
    wide = [c for c in extra if c.frontier_limit == 32768]
    assert len(wide) == 2 and {c.direction for c in wide} == {"push", "push_pull"}
    assert all(c.load_balance == "binary_search" and c.block_size == 128 for c in wide)
    assert all(c.frontier_limit == 8192 for c in extra if c not in wide)
    assert resolve_configs("train") == t


# ------------------------------------------------------------------------------ GPU faults and level traces
def test_context_lost_recognises_cuda_faults_only():
    from autotune.sweep import context_lost

    assert context_lost("CUDARuntimeError: cudaErrorIllegalAddress: an illegal memory access was encountered")
    assert context_lost("CUDADriverError: CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure")
    assert context_lost("CUDARuntimeError: cudaErrorMisalignedAddress: misaligned address")
    assert not context_lost("ValidationError: distances differ at vertex 3")
    assert not context_lost("DeviceMemoryError: needs 10 bytes but only 5 are free")
    assert not context_lost(None)


def test_sweep_stops_after_a_gpu_fault_and_resumes_past_it(tmp_path, clock):
    """A config that faults the GPU context is logged invalid, the sweep stops (nothing more can run in
    that process) and the next sweep resumes after it instead of faulting again."""
    from autotune.errors import DeviceFaultError

    out = tmp_path / "s.jsonl"
    g = small_graph(300, 5, seed=1)
    fault = "CUDARuntimeError: cudaErrorIllegalAddress: an illegal memory access was encountered"
    fac = replay_factory(clock, _base_ms)

    def factory(graph, config):
        runner = fac(graph, config)
        if config.config_id == CONFIGS[1].config_id:
            runner.fail = fault
        return runner

    with pytest.raises(DeviceFaultError, match="resume"):
        sweep([g], CONFIGS, out, n_sources=4, progress=False, runner_factory=factory, device=FAKE_DEVICE)
    recs = read_log(out).records
    assert [r.config_id for r in recs] == [CONFIGS[0].config_id, CONFIGS[1].config_id]
    assert recs[0].valid and not recs[1].valid and "illegal memory access" in recs[1].error
    calls = []
    res = sweep([g], CONFIGS, out, n_sources=4, progress=False, runner_factory=replay_factory(clock, _base_ms,
                calls=calls), device=FAKE_DEVICE)
    assert res.n_measured == 2 and calls == [c.config_id for c in CONFIGS[2:]]


class _TracedEngine:
    """Stands in for a GPU engine: three levels of a known trace."""

    def traverse(self, source):
        return 3

    def level_trace(self, n):
        from autotune._engine import LevelTrace

        rows = [LevelTrace(0, 1, "push", "single_block", None, 1.5), LevelTrace(1, 40, "push", "multi_block", 8, 4.25),
                LevelTrace(2, 900, "pull", "multi_block", None, 7.0)]
        return rows[:n]


def test_sweep_logs_the_level_trace_when_asked(tmp_path, clock):
    out = tmp_path / "s.jsonl"
    g = small_graph(300, 5, seed=1)
    fac = replay_factory(clock, _base_ms)

    def factory(graph, config):
        runner = fac(graph, config)
        runner.engine = _TracedEngine()
        return runner

    sweep([g], CONFIGS[:2], out, n_sources=4, progress=False, runner_factory=factory, device=FAKE_DEVICE, levels=2)
    for r in read_log(out).records:
        assert r.measure["n_levels"] == 3
        assert r.measure["levels"] == [[1, "push", "single_block", 1.5], [40, "push", "multi_block", 4.25]]
    out2 = tmp_path / "s2.jsonl"
    sweep([g], CONFIGS[:1], out2, n_sources=4, progress=False, runner_factory=factory, device=FAKE_DEVICE)
    assert "levels" not in read_log(out2).records[0].measure


class _CalibratedEngine(_TracedEngine):
    """A push/pull config's engine that calibrated its direction (autotune._engine.DIRECTION_CALIBRATION)."""

    direction_calibration = {"sources": np.array([7, 3]), "push_pull_ms": [0.5, 0.25],
                             "push_ms": [0.2, np.float32(0.125)], "chosen": "push"}


@pytest.mark.parametrize("rounds", [1, 3])
@pytest.mark.parametrize("levels", [0, 2])
def test_sweep_logs_the_direction_calibration(tmp_path, clock, levels, rounds):
    """An engine's direction calibration is logged in ``measure`` (JSON types), with or without the
    level trace and interleaved passes; engines without one log nothing."""
    out = tmp_path / "s.jsonl"
    g = small_graph(300, 5, seed=1)
    fac = replay_factory(clock, _base_ms)

    def factory(graph, config):
        runner = fac(graph, config)
        runner.engine = _CalibratedEngine() if config.config_id == CONFIGS[0].config_id else _TracedEngine()
        return runner

    sweep([g], CONFIGS[:2], out, n_sources=4, progress=False, runner_factory=factory, device=FAKE_DEVICE,
          levels=levels, rounds=rounds)
    recs = {r.config_id: r for r in read_log(out).records}
    cal = recs[CONFIGS[0].config_id].measure["direction_calibration"]
    assert cal == {"sources": [7, 3], "push_pull_ms": [0.5, 0.25], "push_ms": [0.2, 0.125], "chosen": "push"}
    assert "direction_calibration" not in recs[CONFIGS[1].config_id].measure
    assert ("levels" in recs[CONFIGS[0].config_id].measure) == (levels > 0)


# ------------------------------------------------------------------------------ interleaved passes
class _PassRunner:
    """Wraps a replay runner: its *k*-th measurement (one ``prepare`` each) takes ``factors[k]`` times
    the replayed time, ``visits`` records ``(config_id, k)`` in the order the sweep measured them, and
    ``fail_at`` makes the *k*-th ``prepare`` raise."""

    def __init__(self, inner, factors, visits, fail_at=None):
        self.inner, self.factors, self.visits, self.fail_at = inner, factors, visits, fail_at
        self.name, self.timer, self.config = inner.name, inner.timer, inner.config
        self.k = -1
        base = inner.times_ms
        inner.times_ms = lambda cfg, s: base(cfg, s) * self.factors[self.k]

    def prepare(self):
        self.k += 1
        self.visits.append((self.config.config_id, self.k))
        if self.fail_at == self.k:
            raise RuntimeError("engine lost")
        self.inner.prepare()

    def traverse(self, source):
        self.inner.traverse(source)

    def outcome(self, source):
        return self.inner.outcome(source)

    def check(self, source):
        self.inner.check(source)


def _pass_factory(clock, factors, visits, *, fail_at=None, corrupt=()):
    inner = replay_factory(clock, _base_ms, corrupt=corrupt, jitter=0.0)

    def factory(graph, cfg):
        return _PassRunner(inner(graph, cfg), factors, visits, (fail_at or {}).get(cfg.config_id))

    return factory


def test_rounds_log_each_sources_median_over_interleaved_passes(tmp_path, clock):
    out = tmp_path / "s.jsonl"
    g = small_graph(300, 5, seed=1)
    visits = []
    # pass 2 is an outlier (5x: the GPU's state moved while it ran); the median of 1, 5, 1.2 is 1.2
    fac = _pass_factory(clock, [1.0, 5.0, 1.2], visits)
    res = sweep([g], CONFIGS, out, n_sources=4, progress=False, runner_factory=fac, device=FAKE_DEVICE, rounds=3)
    assert res.n_measured == 4 and res.n_invalid == 0
    recs = {r.config_id: r for r in read_log(out).records}
    for c in CONFIGS:
        m = recs[c.config_id].measure
        assert m["rounds"] == 3
        assert m["round_medians_ms"] == pytest.approx([_base_ms(c), 5 * _base_ms(c), 1.2 * _base_ms(c)])
        assert m["times_ms"] == pytest.approx([1.2 * _base_ms(c)] * 4)
        assert recs[c.config_id].median_ms == pytest.approx(1.2 * _base_ms(c))
    # the first pass in the given order, then each pass rotated one config further on
    ids = [c.config_id for c in CONFIGS]
    assert visits == ([(i, 0) for i in ids] + [(i, 1) for i in ids[1:] + ids[:1]]
                      + [(i, 2) for i in ids[2:] + ids[:2]])


def test_rounds_one_is_the_single_pass_protocol(tmp_path, clock):
    visits = []
    fac = _pass_factory(clock, [1.0, 5.0], visits)
    res = sweep([small_graph(200, 4)], CONFIGS[:2], tmp_path / "s.jsonl", n_sources=3, progress=False,
                runner_factory=fac, device=FAKE_DEVICE)
    assert [k for _, k in visits] == [0, 0]
    assert all("rounds" not in r.measure for r in res.records)
    for bad in (0, -1, 1.5, True, "2"):
        with pytest.raises(Exception, match="rounds must be an integer >= 1"):
            sweep([small_graph(200, 4)], CONFIGS[:1], tmp_path / "x.jsonl", runner_factory=fac, device=FAKE_DEVICE,
                  progress=False, rounds=bad)


def test_rounds_skip_invalid_configs_and_log_a_later_failure(tmp_path, clock):
    out = tmp_path / "s.jsonl"
    g = small_graph(300, 5, seed=1)
    visits = []
    fac = _pass_factory(clock, [1.0, 1.0, 1.0], visits, corrupt={CONFIGS[0].config_id},
                        fail_at={CONFIGS[1].config_id: 1})
    res = sweep([g], CONFIGS[:3], out, n_sources=3, progress=False, runner_factory=fac, device=FAKE_DEVICE, rounds=3)
    recs = {r.config_id: r for r in read_log(out).records}
    assert not recs[CONFIGS[0].config_id].valid and "ValidationError" in recs[CONFIGS[0].config_id].error
    assert [k for i, k in visits if i == CONFIGS[0].config_id] == [0]  # invalid in pass 1: not timed again
    err = recs[CONFIGS[1].config_id].error
    assert not recs[CONFIGS[1].config_id].valid and "engine lost" in err and "(pass 2 of 3)" in err
    assert [k for i, k in visits if i == CONFIGS[1].config_id] == [0, 1]  # not visited after it failed
    assert recs[CONFIGS[2].config_id].valid and recs[CONFIGS[2].config_id].measure["rounds"] == 3
    assert res.n_invalid == 2


def test_rounds_write_a_graph_once_its_passes_are_done(tmp_path, clock):
    """Interrupted in a later pass, the graph's configs are not logged; the next run measures them all."""
    out = tmp_path / "s.jsonl"
    g1, g2 = small_graph(300, 5, seed=1), small_graph(200, 3, seed=2)
    visits = []
    fac = _pass_factory(clock, [1.0, 1.1, 0.9], visits)
    n = {"prepared": 0}

    def dying(graph, cfg):
        runner = fac(graph, cfg)
        prepare = runner.prepare

        def counted():
            n["prepared"] += 1
            if graph is g2 and runner.k == 0:  # g2's second pass
                raise KeyboardInterrupt
            prepare()

        runner.prepare = counted
        return runner

    with pytest.raises(KeyboardInterrupt):
        sweep([g1, g2], CONFIGS[:2], out, n_sources=3, progress=False, runner_factory=dying, device=FAKE_DEVICE,
              rounds=2)
    recs = read_log(out).records
    assert {r.fingerprint for r in recs} == {g1.fingerprint} and len(recs) == 2
    res = sweep([g1, g2], CONFIGS[:2], out, n_sources=3, progress=False, runner_factory=fac, device=FAKE_DEVICE,
                rounds=2)
    assert res.n_measured == 2 and res.n_skipped == 2


@pytest.mark.skipif(gpu_available(), reason="checks the behaviour without a GPU")
def test_rounds_keep_the_first_pass_level_trace(tmp_path, clock):
    out = tmp_path / "s.jsonl"
    g = small_graph(300, 5, seed=1)
    visits = []
    fac = _pass_factory(clock, [1.0, 2.0, 1.0], visits)

    def factory(graph, config):
        runner = fac(graph, config)
        runner.engine = _TracedEngine()
        return runner

    sweep([g], CONFIGS[:2], out, n_sources=4, progress=False, runner_factory=factory, device=FAKE_DEVICE, levels=2,
          rounds=3)
    for r in read_log(out).records:
        assert r.measure["n_levels"] == 3 and len(r.measure["levels"]) == 2 and r.measure["rounds"] == 3
