"""tune(): Table-2 rules, fast path, and the Optuna search replaying recorded timings (CPU)."""
from __future__ import annotations

import dataclasses
import itertools
import json
import math
import random
import warnings
from pathlib import Path

import numpy as np
import pytest

from autotune._backend import gpu_available
from autotune import config as config_module
from autotune import search as search_module
from autotune.config import TraversalConfig, _FIELDS, count_configs, iter_configs
from autotune.errors import GPUUnavailableError, InvalidArgumentError
from autotune.features import GraphFeatures, profile
from autotune.logs import read_log
from autotune.search import (
    IRREGULAR_DEGREE_CV, SearchError, SlowTrialPruner, _n_configs, _switch_value, config_params, default_storage,
    stored_best, suggest_config, table2_rule, tune, tune_detailed,
)
from autotune.sweep import grid, portfolio

from ._tuning_helpers import FAKE_DEVICE, install_clock, model_time, replay_factory, small_graph

REPO = Path(__file__).resolve().parent.parent
optuna = pytest.importorskip("optuna")


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    """Studies, logs and models of these tests live under tmp_path, never in ~/.cache or models/."""
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("AUTOTUNE_STORAGE", raising=False)
    monkeypatch.setenv("AUTOTUNE_MODEL", str(tmp_path / "no-model.joblib"))


@pytest.fixture
def clock(monkeypatch):
    return install_clock(monkeypatch)


def _features(**kw):
    base = dict(n_vertices=10**6, n_edges=8 * 10**6, directed=False, degree_mean=8.0, degree_std=3.0,
                degree_gini=0.2, degree_max=30, degree_min=1, leaf_fraction=0.05, degree_p50=8.0, degree_p90=12.0,
                degree_p99=20.0, isolated_fraction=0.0, eccentricity_mean=12.0, eccentricity_max=14)
    base.update(kw)
    return GraphFeatures(**base)


# ------------------------------------------------------------------------------ Table 2
def test_table2_technique_by_degree_spread():
    road = _features(degree_mean=2.4, degree_std=0.9, degree_gini=0.2, degree_max=9, eccentricity_mean=3000.0)
    social = _features(degree_mean=14.2, degree_std=36.1, degree_gini=0.72, degree_max=20293)
    assert table2_rule(road).load_balance == "vertex_mapped"
    assert table2_rule(social).load_balance == "binary_search"
    assert table2_rule(social).virtual_warp_size is None
    # the threshold is the coefficient of variation
    at = _features(degree_mean=10.0, degree_std=10.0 * IRREGULAR_DEGREE_CV)
    above = _features(degree_mean=10.0, degree_std=10.0 * IRREGULAR_DEGREE_CV + 0.01)
    assert table2_rule(at).load_balance == "vertex_mapped" and table2_rule(above).load_balance == "binary_search"


@pytest.mark.parametrize("mean, vw", [(1.0, 1), (2.1, 2), (2.9, 4), (6.0, 8), (15.1, 16), (17.8, 16), (49.9, 32),
                                      (200.0, 32), (0.0, 1)])
def test_table2_virtual_warp_follows_average_degree(mean, vw):
    cfg = table2_rule(_features(degree_mean=mean, degree_std=0.1 * mean))
    assert cfg.load_balance == "vertex_mapped" and cfg.virtual_warp_size == vw
    assert cfg.min_virtual_warp_size is None
    # everything else at its default
    d = TraversalConfig(load_balance="vertex_mapped", virtual_warp_size=vw).to_dict()
    assert cfg.to_dict() == d


def test_table2_accepts_dicts_and_support_switch_values():
    f = _features()
    assert table2_rule(f.to_dict()) == table2_rule(f)
    assert _switch_value((False, True), True) is True and _switch_value((False, True), False) is False
    assert _switch_value(("off", "on"), True) == "on" and _switch_value((0, 32, 64), True) is None
    # threshold fields ('off', then thresholds): "on" is the first threshold, the paper's default
    assert _switch_value(("off", 32, 128), True) == 32 and _switch_value(("off", 32, 128), False) == "off"
    assert _switch_value(("off", "block_size", 4096), True) == "block_size"
    assert _switch_value(("off", "half_resident", 65536), True) == "half_resident"
    assert _switch_value(("off",), True) is None and _switch_value(("static", 32), True) is None
    with pytest.raises(TypeError):
        table2_rule([1, 2])


def test_table2_switches_on_supports_for_a_skewed_vertex_mapped_graph():
    """Table 2: warp gathering above the warp size, block gathering above the block size, supplementary
    queues above half the resident threads, at the papers' default thresholds (vertex_mapped rule)."""
    def t2(degree_max, device=None):
        cfg = table2_rule(_features(degree_mean=8.0, degree_std=7.5, degree_max=degree_max), device)
        assert cfg.load_balance == "vertex_mapped" and cfg.virtual_warp_size == 8  # cv 0.94: not irregular
        return cfg.warp_gathering, cfg.block_gathering, cfg.supplementary_queues

    assert t2(32) == ("off", "off", "off")
    assert t2(33) == (32, "off", "off")
    assert t2(256) == (32, "off", "off")
    assert t2(257) == (32, "block_size", "off")
    half = 132 * 2048 // 2  # H100 resident threads / 2 (the default device)
    assert t2(half) == (32, "block_size", "off")
    assert t2(half + 1) == (32, "block_size", "half_resident")
    small_gpu = {"sm_count": 2, "max_threads_per_sm": 1024}
    assert t2(1025, small_gpu) == (32, "block_size", "half_resident")
    assert t2(1024, small_gpu) == (32, "block_size", "off")
    # the rest stays at its defaults
    cfg = table2_rule(_features(degree_mean=8.0, degree_std=7.5, degree_max=300_000))
    assert cfg == TraversalConfig(virtual_warp_size=8, warp_gathering=32, block_gathering="block_size",
                                  supplementary_queues="half_resident")


def test_table2_supports_do_not_apply_to_binary_search():
    social = _features(degree_mean=14.2, degree_std=36.1, degree_gini=0.72, degree_max=20293)
    cfg = table2_rule(social)
    assert cfg.load_balance == "binary_search"
    assert (cfg.warp_gathering, cfg.block_gathering, cfg.supplementary_queues) == (None, None, None)
    assert cfg == TraversalConfig(load_balance="binary_search")


# ------------------------------------------------------------------------------ search space
def _table_sample(n_random=3000, seed=0) -> tuple[TraversalConfig, ...]:
    """A bounded, deterministic sample of the ~2 * 10**7-config table: the sweep sets, the first
    configs in table order, and seeded random walks over the table rows."""
    rng = random.Random(seed)

    def walk():
        values = {}
        for name, spec in _FIELDS.items():
            values[name] = rng.choice(spec.allowed_here(values)) if spec.applies(values) else None
        return TraversalConfig(**values)

    out = dict.fromkeys(itertools.chain(portfolio(), grid(), portfolio("sssp"), grid("sssp"),
                                        itertools.islice(iter_configs(), 500), (walk() for _ in range(n_random))))
    return tuple(out)


def _check_suggest_reproduces(cfg):
    params = config_params(cfg)
    assert "algorithm" not in params  # a study fixes its algorithm: never a parameter
    trial = optuna.trial.FixedTrial(params)
    assert suggest_config(trial, cfg.algorithm) == cfg
    # only applicable fields were suggested
    assert set(trial.params) == set(params)


def test_define_by_run_space_is_exactly_the_config_table():
    """Suggesting from the table rows reproduces every config (conditional fields only when they apply)."""
    sample = _table_sample()
    assert len(sample) > 3000
    for name, spec in _FIELDS.items():  # the sample reaches every value of every field
        assert {repr(v) for v in spec.allowed} <= {repr(getattr(c, name)) for c in sample}, name
    for cfg in sample:
        _check_suggest_reproduces(cfg)
    lb = _FIELDS["load_balance"].allowed
    assert set(config_params(TraversalConfig(load_balance=lb[-1]))) >= {"load_balance", "block_size"}
    # the search stops after that many distinct configs (BFS: the table before SSSP existed, each
    # alpha_beta config beside its gated twin)
    assert _n_configs() == _n_configs("bfs") == 31_519_488
    assert _n_configs("bfs") + _n_configs("sssp") == count_configs()
    assert {c.algorithm for c in sample} == {"bfs", "sssp"}


def test_define_by_run_space_on_a_whole_restricted_table(monkeypatch):
    """On a table with the same rules and fewer values, every config (all of iter_configs) is reproduced
    by the define-by-run suggestion, and nothing else is reachable."""
    small = {"virtual_warp_size": (4, "dynamic"), "min_virtual_warp_size": (2,), "defer_outliers": ("off", 256),
             "work_chunk": ("static",), "warp_gathering": ("off", 32), "block_gathering": ("off",),
             "supplementary_queues": ("off", "half_resident"), "dc_small": (16,), "dc_middle": (256,),
             "block_size": (256,), "alpha": (15,), "beta": (18,), "gamma": (0.3,), "hub_degree": (64,),
             "frontier_limit": (512,)}
    table = {n: dataclasses.replace(spec, allowed=small.get(n, spec.allowed)) for n, spec in _FIELDS.items()}
    monkeypatch.setattr(config_module, "_FIELDS", table)
    monkeypatch.setattr(search_module, "_FIELDS", table)
    search_module._n_configs.cache_clear()
    configs = list(iter_configs())
    assert len(configs) == count_configs() > 100
    for cfg in configs:
        _check_suggest_reproduces(cfg)
    # walking every branch of each algorithm's define-by-run tree reaches exactly these configs, once
    # each (iter_configs lists the BFS ones, then the SSSP ones: algorithm is the table's first row)
    reached = []
    for algorithm in ("bfs", "sssp"):
        path: list = []
        n0 = len(reached)
        while True:
            trial = _PathTrial(path)
            reached.append(suggest_config(trial, algorithm))
            full = path + [0] * (len(trial.sizes) - len(path))
            j = len(full) - 1
            while j >= 0 and full[j] + 1 == trial.sizes[j]:
                j -= 1
            if j < 0:
                break
            path = full[:j] + [full[j] + 1]
        assert len(reached) - n0 == search_module._n_configs(algorithm)
    search_module._n_configs.cache_clear()
    assert reached == configs  # same configs, same (table) order, no duplicates


class _PathTrial:
    """A stand-in Optuna trial answering the i-th ``suggest_categorical`` with ``choices[path[i]]``
    (the first choice past the path), recording how many choices each suggestion had."""

    def __init__(self, path):
        self.path = list(path)
        self.sizes: list = []

    def suggest_categorical(self, name, choices):
        i = len(self.sizes)
        self.sizes.append(len(choices))
        return choices[self.path[i] if i < len(self.path) else 0]


def test_slow_trial_pruner_compares_same_step():
    from optuna.trial import TrialState, create_trial
    from optuna.distributions import CategoricalDistribution

    study = optuna.create_study()
    d = {"x": CategoricalDistribution([0, 1])}
    study.add_trial(create_trial(params={"x": 0}, distributions=d, value=1.0, intermediate_values={4: 1.0, 16: 1.0}))
    pr = SlowTrialPruner(1.5)
    slow = create_trial(params={"x": 1}, distributions=d, state=TrialState.RUNNING, intermediate_values={4: 1.6})
    ok = create_trial(params={"x": 1}, distributions=d, state=TrialState.RUNNING, intermediate_values={4: 1.4})
    other_step = create_trial(params={"x": 1}, distributions=d, state=TrialState.RUNNING,
                              intermediate_values={3: 9.0})
    assert pr.prune(study, slow) and not pr.prune(study, ok) and not pr.prune(study, other_step)
    assert not SlowTrialPruner(1.5, n_min_complete=2).prune(study, slow)
    with pytest.raises(ValueError):
        SlowTrialPruner(1.0)


# ------------------------------------------------------------------------------ search (replay)
def _replay_base(graph):
    feats = profile(graph, xp=np).to_dict()
    return lambda cfg: model_time(feats, cfg)


def _search(graph, clock, tmp_path, n_trials=12, db="s.db", **kw):
    kw.setdefault("runner_factory", replay_factory(clock, _replay_base(graph), jitter=0.02))
    kw.setdefault("model", False)
    return tune_detailed(graph, n_trials, storage=f"sqlite:///{tmp_path / db}", n_sources=8, progress=False,
                         device=FAKE_DEVICE, log=tmp_path / "tune.jsonl", **kw)


def _trials(res):
    study = optuna.load_study(study_name=res.study, storage=res.storage)
    return [(t.number, t.state.name, t.user_attrs.get("config_id"), t.value) for t in study.get_trials()]


def test_search_is_deterministic_with_a_seed(tmp_path, clock):
    g = small_graph(400, 6)
    r1 = _search(g, clock, tmp_path, db="a.db", seed=3)
    r2 = _search(g, clock, tmp_path, db="b.db", seed=3)
    assert _trials(r1) == _trials(r2)
    assert r1.config == r2.config and r1.best_ms == r2.best_ms
    assert r1.method == "search" and r1.n_trials == 12
    r3 = _search(g, clock, tmp_path, db="c.db", seed=4)
    assert [t[2] for t in _trials(r3)] != [t[2] for t in _trials(r1)]


def test_search_finds_the_best_logs_and_prunes(tmp_path, clock):
    g = small_graph(400, 6)
    base = _replay_base(g)
    res = _search(g, clock, tmp_path, n_trials=30, seed=0)
    trials = _trials(res)
    complete = [t for t in trials if t[1] == "COMPLETE"]
    assert res.best_ms == min(t[3] for t in complete)
    assert res.config.config_id == min(complete, key=lambda t: t[3])[2]
    # the best is within the measurement jitter of the cost model's time for it
    assert res.best_ms == pytest.approx(base(res.config), rel=0.03)
    # every measured trial is in the log, with study and trial number
    recs = read_log(tmp_path / "tune.jsonl").records
    assert all(r.origin["command"] == "tune" and r.origin["study"] == res.study for r in recs)
    measured = {t[0] for t in trials if t[1] in ("COMPLETE", "PRUNED")}
    study = optuna.load_study(study_name=res.study, storage=res.storage)
    dup = {t.number for t in study.get_trials() if "duplicate_of" in t.user_attrs}
    assert {r.origin["trial"] for r in recs} == measured - dup
    pruned = [r for r in recs if r.pruned]
    assert pruned, "clearly slow configs are pruned on partial sources"
    assert all(len(r.measure["times_ms"]) == 2 for r in pruned)  # a quarter of 8 sources
    full = [r for r in recs if not r.pruned]
    assert all(len(r.measure["times_ms"]) == 8 for r in full)


def test_invalid_configs_fail_and_are_never_best(tmp_path, clock):
    g = small_graph(400, 6)
    model_ms = _replay_base(g)
    # the fastest config of the sweep sets, made faster than any config of the table could be
    fastest = min(portfolio() + grid(), key=model_ms)

    def base(cfg):
        return 1e-3 if cfg == fastest else model_ms(cfg)

    t2 = table2_rule(profile(g, xp=np))
    assert t2 != fastest
    factory = replay_factory(clock, base, corrupt={fastest.config_id}, fail={t2.config_id})
    res = _search(g, clock, tmp_path, n_trials=10, runner_factory=factory,
                  model=_ConstModel(fastest))  # the model points at the broken config
    study = optuna.load_study(study_name=res.study, storage=res.storage)
    t0, t1 = study.trials[0], study.trials[1]
    assert t0.user_attrs["config_id"] == fastest.config_id and t0.state.name == "FAIL"
    assert "ValidationError" in t0.user_attrs["error"]
    assert t1.user_attrs["config_id"] == t2.config_id and t1.state.name == "FAIL"
    assert "cannot run" in t1.user_attrs["error"]
    assert res.config.config_id not in (fastest.config_id, t2.config_id)
    recs = {r.config_id: r for r in read_log(tmp_path / "tune.jsonl").records}
    assert not recs[fastest.config_id].valid and "distances" in recs[fastest.config_id].error
    assert not recs[t2.config_id].valid


def test_all_invalid_raises(tmp_path, clock):
    g = small_graph(200, 4)
    factory = replay_factory(clock, lambda c: 1.0, fail=_Everything())
    with pytest.raises(SearchError, match="no valid config.*cannot run"):
        _search(g, clock, tmp_path, n_trials=4, runner_factory=factory)


class _Everything:
    """A collection holding every config_id (of the ~2 * 10**7, without listing them)."""

    def __contains__(self, config_id):
        return isinstance(config_id, str) and config_id.startswith("c-")


class _Missing:
    """The config_ids not in *present*."""

    def __init__(self, present):
        self.present = set(present)

    def __contains__(self, config_id):
        return config_id not in self.present


class _ConstModel:
    """A stand-in selection model that always predicts one config."""

    def __init__(self, cfg):
        self.cfg = cfg

    def predict_config(self, features):
        return self.cfg


def test_first_trials_are_model_prediction_then_table2(tmp_path, clock):
    g = small_graph(400, 6)
    t2 = table2_rule(profile(g, xp=np))
    pred = TraversalConfig(load_balance="binary_search", block_size=1024)
    assert pred != t2
    res = _search(g, clock, tmp_path, n_trials=5, model=_ConstModel(pred))
    study = optuna.load_study(study_name=res.study, storage=res.storage)
    assert study.trials[0].params == config_params(pred) and study.trials[0].user_attrs["enqueued"] == "model"
    assert study.trials[1].params == config_params(t2) and study.trials[1].user_attrs["enqueued"] == "table2"
    assert [c["source"] for c in res.candidates] == ["model", "table2"]
    # the same config from both is enqueued once
    res2 = _search(g, clock, tmp_path, n_trials=3, db="same.db", model=_ConstModel(t2))
    assert [c["source"] for c in res2.candidates] == ["model"]


class _RankingModel(_ConstModel):
    """A stand-in model that ranks a fixed list of configs (its first is its prediction)."""

    def __init__(self, ranked):
        super().__init__(ranked[0])
        self.ranked = list(ranked)
        self.asked = []

    def predict_configs(self, features, k):
        self.asked.append(k)
        return self.ranked[:k]


def _ranked_candidates(g):
    t2 = table2_rule(profile(g, xp=np))
    others = [c for c in (TraversalConfig(load_balance="binary_search", block_size=b) for b in (128, 256, 512, 1024))
              if c != t2]
    return t2, others + [TraversalConfig(load_balance="edge_mapped", block_size=256)]


def test_first_trials_are_the_models_ranked_configs(tmp_path, clock):
    """n_ranked: the model's pick, the rule, then the model's next n_ranked - 1, in that order, before
    the sampler; as many as n_trials allows, none left queued."""
    g = small_graph(400, 6)
    t2, ranked = _ranked_candidates(g)
    mdl = _RankingModel(ranked)
    res = _search(g, clock, tmp_path, n_trials=7, model=mdl, n_ranked=4)
    assert mdl.asked == [4]
    study = optuna.load_study(study_name=res.study, storage=res.storage)
    order = [ranked[0], t2, ranked[1], ranked[2], ranked[3]]
    assert [t.params for t in study.trials[:5]] == [config_params(c) for c in order]
    assert [t.user_attrs["enqueued"] for t in study.trials[:5]] == ["model", "table2", "model-2", "model-3", "model-4"]
    assert [c["source"] for c in res.candidates] == ["model", "table2", "model-2", "model-3", "model-4"]
    assert "enqueued" not in study.trials[5].user_attrs  # then the sampler
    # the best of the measured seeds is the answer of a search that measured only them
    res5 = _search(g, clock, tmp_path, n_trials=5, db="five.db", model=mdl)
    assert res5.n_trials == 5 and [c["source"] for c in res5.candidates][-1] == "model-4"
    study5 = optuna.load_study(study_name=res5.study, storage=res5.storage)
    times = {t.user_attrs["config_id"]: t.value for t in study5.trials}
    assert res5.config.config_id == min(times, key=times.get) and set(times) == {c.config_id for c in order}
    # fewer trials than seeds: only the first n_trials seeds are queued (nothing left waiting)
    res2 = _search(g, clock, tmp_path, n_trials=2, db="two.db", model=mdl)
    study2 = optuna.load_study(study_name=res2.study, storage=res2.storage)
    assert [c["source"] for c in res2.candidates] == ["model", "table2"]
    assert [t.state.name for t in study2.trials] == ["COMPLETE", "COMPLETE"]
    # n_ranked=1: the pick and the rule only, as before ranking existed
    res1 = _search(g, clock, tmp_path, n_trials=4, db="one.db", model=mdl, n_ranked=1)
    assert [c["source"] for c in res1.candidates] == ["model", "table2"]
    for bad in (0, -2, True, 2.5, "3"):
        with pytest.raises(InvalidArgumentError, match="n_ranked"):
            _search(g, clock, tmp_path, n_trials=4, db="bad.db", model=mdl, n_ranked=bad)


def test_trained_model_ranked_configs_are_enqueued(tmp_path, clock):
    from autotune._synthetic import write_synthetic_log
    from autotune.model import load_model, retrain

    log = write_synthetic_log(tmp_path / "syn.jsonl", 15)
    with pytest.warns(UserWarning, match="SYNTHETIC"):
        retrain(log, out=tmp_path / "m.joblib")
    g = small_graph(400, 6)
    with pytest.warns(UserWarning, match="trained on 'SYNTHETIC"):
        mdl = load_model(tmp_path / "m.joblib", device_name=FAKE_DEVICE["name"])
    ranked = [c.config_id for c in mdl.predict_configs(profile(g, xp=np), 3)]
    res = _search(g, clock, tmp_path, n_trials=6, model=mdl, n_ranked=3)
    seeded = {c["source"]: c["config_id"] for c in res.candidates}
    assert seeded["model"] == ranked[0]
    assert [seeded.get("model-2"), seeded.get("model-3")] == [c if c != seeded["table2"] else None
                                                               for c in ranked[1:]]


def test_trained_model_prediction_is_enqueued(tmp_path, clock):
    from autotune._synthetic import write_synthetic_log
    from autotune.model import retrain
    from sklearn.tree import DecisionTreeClassifier

    log = write_synthetic_log(tmp_path / "syn.jsonl", 15)
    with pytest.warns(UserWarning, match="SYNTHETIC"):
        retrain(log, out=tmp_path / "m.joblib", estimator=DecisionTreeClassifier(random_state=0))
    g = small_graph(400, 6)
    from autotune.model import load_model

    with pytest.warns(UserWarning, match="trained on 'SYNTHETIC"):
        expected = load_model(tmp_path / "m.joblib", device_name=FAKE_DEVICE["name"]).predict_config(profile(g, xp=np))
    with pytest.warns(UserWarning):
        res = _search(g, clock, tmp_path, n_trials=3, model=tmp_path / "m.joblib")
    study = optuna.load_study(study_name=res.study, storage=res.storage)
    assert study.trials[0].user_attrs["config_id"] == expected.config_id


def test_interrupted_study_resumes_from_sqlite(tmp_path, clock):
    """Kill the search in the middle of trial 6: the 5 finished trials stay; the rerun does the rest."""
    g = small_graph(400, 6)
    inner = replay_factory(clock, _replay_base(g), jitter=0.02)
    built = []

    def dying(graph, cfg):
        built.append(cfg.config_id)
        if len(built) == 6:
            raise KeyboardInterrupt
        return inner(graph, cfg)

    with pytest.raises(KeyboardInterrupt):
        _search(g, clock, tmp_path, n_trials=12, runner_factory=dying)
    study = optuna.load_study(study_name=_name(g), storage=f"sqlite:///{tmp_path / 's.db'}")
    before = [(t.number, t.state.name, t.value, t.user_attrs.get("config_id")) for t in study.get_trials()]
    # trials before the kill finished (5 measured + any duplicates); the killed one is FAIL
    assert before[-1][1] == "FAIL" and "error" not in study.trials[-1].user_attrs
    assert len(before) - 1 >= 5 and all(b[1] in ("COMPLETE", "PRUNED") for b in before[:-1])
    n_log = len(read_log(tmp_path / "tune.jsonl").records)
    res = _search(g, clock, tmp_path, n_trials=12, runner_factory=inner)
    after = _trials(res)
    # nothing lost: the first trials are unchanged, and the study now holds 12 counted trials
    assert [(a[0], a[1], a[3], a[2]) for a in after[:len(before) - 1]] == [tuple(b) for b in before[:-1]]
    assert res.n_trials == 12
    assert sum(1 for a in after if a[1] in ("COMPLETE", "PRUNED")) == 12
    assert len(read_log(tmp_path / "tune.jsonl").records) > n_log


def _name(g):
    from autotune.search import study_name_for

    return study_name_for(g, FAKE_DEVICE["name"])


def test_tuned_graph_returns_stored_best_unless_retune(tmp_path, clock):
    g = small_graph(400, 6)
    first = _search(g, clock, tmp_path, n_trials=6)

    def forbidden(graph, cfg):
        raise AssertionError("must not measure")

    again = _search(g, clock, tmp_path, n_trials=60, runner_factory=forbidden)
    assert again.method == "stored" and again.config == first.config and again.study == first.study
    assert stored_best(g, FAKE_DEVICE["name"], f"sqlite:///{tmp_path / 's.db'}")[0] == first.config
    assert stored_best(g, "ANOTHER GPU", f"sqlite:///{tmp_path / 's.db'}") is None
    # the fast path on a GPU machine returns it too
    fast = tune_detailed(g, storage=f"sqlite:///{tmp_path / 's.db'}", device=FAKE_DEVICE, model=False)
    assert fast.method == "stored" and fast.config == first.config
    # retune: a new study
    re = _search(g, clock, tmp_path, n_trials=4, retune=True)
    assert re.method == "search" and re.study == first.study + "-retune1"


def test_study_of_another_graph_is_refused(tmp_path, clock):
    g1, g2 = small_graph(400, 6, seed=1), small_graph(400, 6, seed=2)
    _search(g1, clock, tmp_path, n_trials=2, study_name="shared-name", timeout=None)
    with pytest.raises(SearchError, match="belongs to graph"):
        _search(g2, clock, tmp_path, n_trials=2, study_name="shared-name")


def test_timeout_leaves_a_resumable_study(tmp_path, clock):
    import time

    g = small_graph(400, 6)
    inner = replay_factory(clock, _replay_base(g))

    def slow(graph, cfg):
        time.sleep(0.15)  # real wall time: the timeout is on the wall clock
        return inner(graph, cfg)

    res = _search(g, clock, tmp_path, n_trials=50, timeout=0.5, runner_factory=slow)
    assert res.method == "search" and 1 <= res.n_trials < 50 and "resume" in res.message
    assert stored_best(g, FAKE_DEVICE["name"], res.storage) is None  # not finished: not a stored result
    with pytest.raises(SearchError, match="no trial finished.*timeout"):
        _search(g, clock, tmp_path, n_trials=50, db="other.db", timeout=1e-9, runner_factory=slow)


@pytest.mark.gpu
def test_short_search_on_the_gpu_measures_the_ranked_seeds(tmp_path):
    """A real 5-trial search with the shipped model: its seeds are the model's ranked configs and the
    Table-2 one, every trial validated and logged, and the chosen config's distances exact."""
    import autotune as at
    from autotune.model import load_model
    from autotune.reference import bfs_reference

    g = at.load_graph("rmat:scale=11,edge_factor=8,directed=true")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # on another GPU than an H200 the model warns
        mdl = load_model(REPO / "models" / "bfs_h200.joblib")
        ranked = [c.config_id for c in mdl.predict_configs(profile(g), 4)]
        res = tune_detailed(g, 5, model=mdl, storage=f"sqlite:///{tmp_path / 's.db'}", progress=False,
                            log=tmp_path / "tune.jsonl", n_sources=8)
    assert res.method == "search" and res.n_trials == 5
    seeded = [c["config_id"] for c in res.candidates]
    by_source = {c["source"]: c["config_id"] for c in res.candidates}
    assert by_source["model"] == ranked[0] and len(seeded) == len(set(seeded))
    for i in (2, 3, 4):  # the model's i-th config, unless it is the Table-2 one (measured once)
        assert by_source.get(f"model-{i}") == (None if ranked[i - 1] == by_source.get("table2") else ranked[i - 1])
    recs = read_log(tmp_path / "tune.jsonl").records
    assert len(recs) == 5 and all(r.valid for r in recs)
    assert {r.config_id for r in recs} == set(seeded)  # the five trials were the seeds
    assert res.config.config_id in seeded
    from autotune._backend import to_host

    s = int(np.flatnonzero(to_host(g.out_degrees(np)) > 0)[0])
    got = at.run(g, res.config, source=s)
    np.testing.assert_array_equal(to_host(got.distances), bfs_reference(g, s)[0])


@pytest.mark.skipif(gpu_available(), reason="checks the behaviour without a GPU")
def test_search_needs_a_gpu_without_runner(tmp_path):
    with pytest.raises(GPUUnavailableError, match="tune --trials"):
        tune(small_graph(), 5, storage=f"sqlite:///{tmp_path / 's.db'}")


# ------------------------------------------------------------------------------ fast path
def test_fast_path_without_model_uses_table2_and_says_so(tmp_path):
    g = small_graph(400, 6)
    with pytest.warns(UserWarning, match="Table-2 rules.*autotune retrain"):
        res = tune_detailed(g, model=None)
    assert res.method == "table2" and res.config == table2_rule(res.features)
    assert res.features.n_edges == g.n_edges and res.profile_ms > 0
    with pytest.warns(UserWarning, match="Table-2"):
        assert tune(g, model=False) == res.config


def test_fast_path_with_model(tmp_path):
    from autotune._synthetic import write_synthetic_log
    from autotune.model import retrain
    from sklearn.tree import DecisionTreeClassifier

    log = write_synthetic_log(tmp_path / "syn.jsonl", 10)
    with pytest.warns(UserWarning):
        m = retrain(log, estimator=DecisionTreeClassifier(random_state=0))
    g = small_graph(400, 6)
    res = tune_detailed(g, model=m)
    assert res.method == "model" and res.config == m.predict_config(res.features)
    assert res.select_ms < 1000


def test_default_storage_under_cache_dir(tmp_path, monkeypatch):
    assert default_storage() == f"sqlite:///{tmp_path / 'cache' / 'studies.db'}"
    monkeypatch.setenv("AUTOTUNE_STORAGE", "postgresql://u:p@db/at")
    assert default_storage() == "postgresql://u:p@db/at"


def test_cli_tune_fast_path_writes_config(tmp_path, capsys, monkeypatch):
    from autotune.cli_tuning import main

    monkeypatch.setenv("COLUMNS", "300")  # rich wraps table cells on narrow terminals

    out = tmp_path / "cfg.json"
    assert main(["tune", "grid:rows=20,cols=20", "--no-model", "--out", str(out)]) == 0
    cfg = TraversalConfig.from_json(out.read_text())
    captured = capsys.readouterr()
    assert cfg.label in captured.out and "table2" in captured.out and "Table-2" in captured.err
    assert main(["tune", "grid:rows=20,cols=20", "kron:scale=8", "--no-model", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["method"] for d in data] == ["table2", "table2"] and data[1]["config_id"].startswith("c-")
    assert main(["tune", "grid:rows=20,cols=20", "kron:scale=8", "--out", str(out)]) == 2


@pytest.mark.skipif(gpu_available(), reason="checks the behaviour without a GPU")
def test_cli_tune_search_needs_gpu(capsys):
    from autotune.cli_tuning import main

    assert main(["tune", "kron:scale=8", "--trials", "5"]) == 2
    assert "needs an NVIDIA GPU" in capsys.readouterr().err


# ------------------------------------------------------------------------------ committed log replay
COMMITTED_LOG = REPO / "models" / "bfs_h100.jsonl"


def _logged_table(configs):
    """The config table restricted to the values the logged *configs* take (same rules): the space
    the committed sweep measured, for the search to walk."""
    table = {}
    for name, spec in _FIELDS.items():
        seen = {repr(getattr(c, name)) for c in configs}
        allowed = tuple(v for v in spec.allowed if repr(v) in seen)
        table[name] = dataclasses.replace(spec, allowed=allowed or spec.allowed)
    return table


@pytest.mark.skipif(not COMMITTED_LOG.is_file(), reason="models/bfs_h100.jsonl (the GPU sweep) not committed yet")
def test_search_replays_committed_measurements(tmp_path, clock, monkeypatch):
    """The search runs on real H100 timings: each trial replays the logged median time of one graph;
    configs never measured there are treated as failing. The log predates the larger config table:
    its configs load with today's defaults for the new fields (and so today's config_ids), and the
    search walks the table restricted to the values the sweep measured. Deterministic with a seed,
    and the best it returns is the fastest logged config among those it tried."""
    recs = [r for r in read_log(COMMITTED_LOG).records if not r.pruned]
    by_graph: dict = {}
    for r in recs:
        cfg = TraversalConfig.from_dict(r.config)  # the logged strategy under today's table
        by_graph.setdefault(r.fingerprint, {})[cfg.config_id] = (cfg, r)
    fp, table = max(by_graph.items(), key=lambda kv: (sum(r.valid for _, r in kv[1].values()), kv[0]))
    valid = {cid: r for cid, (_, r) in table.items() if r.valid}
    assert len(valid) >= 10
    space = _logged_table([cfg for cfg, _ in table.values()])
    for patched in (config_module, search_module):
        monkeypatch.setattr(patched, "_FIELDS", space)
    monkeypatch.setattr(search_module, "_n_configs", count_configs)  # the restricted table's size
    n_space = count_configs()
    assert len(valid) < n_space < 10**4
    assert all(TraversalConfig.from_dict(cfg.to_dict()) == cfg for cfg, _ in table.values())  # all in the space
    g = small_graph(400, 6)  # stands in for the logged graph: sources index the logged times

    def base(cfg):
        r = valid.get(cfg.config_id)
        return r.median_ms if r is not None else 1.0

    fac = replay_factory(clock, base, fail=_Missing(valid), jitter=0.0)
    r1 = _search(g, clock, tmp_path, n_trials=20, db="a.db", runner_factory=fac, seed=1)
    r2 = _search(g, clock, tmp_path, n_trials=20, db="b.db", runner_factory=fac, seed=1)
    assert _trials(r1) == _trials(r2)
    tried = {t[2] for t in _trials(r1) if t[1] == "COMPLETE"}
    assert len(tried) >= 2 and tried <= set(valid)  # a choice among several measured configs
    assert r1.config.config_id in valid
    assert math.isclose(r1.best_ms, min(valid[c].median_ms for c in tried), rel_tol=1e-9)


def test_fast_path_works_without_optuna(monkeypatch, tmp_path):
    """A GPU machine without Optuna (or its storage) still gets the fast path's prediction."""
    import builtins
    import sqlite3

    from autotune import search
    from autotune.graph import from_edges

    db = tmp_path / "studies.db"
    sqlite3.connect(db).close()  # a storage file exists, so stored_best would reach for optuna
    real_import = builtins.__import__

    def no_optuna(name, *a, **k):
        if name == "optuna" or name.startswith("optuna."):
            raise ImportError("No module named 'optuna'")
        return real_import(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_optuna)
    g = from_edges([0, 1, 2, 3], [1, 2, 3, 0], 4, directed=False, xp=np)
    assert search.stored_best(g, "NVIDIA H100 80GB HBM3", f"sqlite:///{db}") is None
