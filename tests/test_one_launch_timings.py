"""Training timings of graphs the one-launch kernels take (CPU): configs that ran the same one-launch
kernel share one delivered time, the fit reads each config's launch-round records, regrets charge
what a config delivers."""
from __future__ import annotations

import copy

import numpy as np
import pytest

from autotune._synthetic import synthetic_records
from autotune.logs import LogRecord
from autotune.model import ONE_LAUNCH_PATHS, build_training_set, evaluate, one_launch_path, one_launch_summary


def _levels(path, n=3):
    return [[1, "push", path, 2.0] for _ in range(n)]


@pytest.mark.parametrize("levels, expected", [
    (_levels("whole_graph"), "whole_graph"),
    (_levels("cluster"), "cluster"),
    ([[1, "push", "cluster", 2.0], [9, "pull", "cluster", 3.0]], "cluster"),
    (_levels("single_block"), None),
    (_levels("whole_graph") + _levels("single_block"), None),
    ([], None),
    (None, None),
])
def test_one_launch_path(levels, expected):
    measure = {"median_ms": 1.0} if levels is None else {"median_ms": 1.0, "levels": levels}
    assert one_launch_path(measure) == expected
    assert expected is None or expected in ONE_LAUNCH_PATHS


def _records():
    """Three configs on one synthetic graph and their records, as dicts to edit."""
    base = [r for r in synthetic_records(2, "portfolio", seed=3)]
    fp = base[0].fingerprint
    one_graph = [r for r in base if r.fingerprint == fp]
    return [r.to_dict() for r in one_graph[:3]], [r for r in base if r.fingerprint != fp]


def _rec(d, ms, path, rounds=None):
    d = copy.deepcopy(d)
    if rounds is not None:
        d["measure"]["rounds"] = rounds
    d["measure"]["median_ms"] = ms
    d["measure"]["times_ms"] = [ms] * len(d["measure"].get("times_ms") or [ms])
    d["measure"]["levels"] = _levels(path)
    return LogRecord.from_dict(d)


def _sweeps(*runs):
    """A training set of one graph's three configs swept once per entry of *runs* (each a list of
    ``(ms, path)`` or ``(ms, path, rounds)`` for the configs in order) beside another graph; its index and the config ids."""
    (a, b, c), other = _records()
    recs = [_rec(d, *entry) for run in runs for d, entry in zip((a, b, c), run)]
    ts = build_training_set(recs + other, warn=False)
    i = next(k for k, g in enumerate(ts.graphs) if g["fingerprint"] == recs[0].fingerprint)
    return ts, i, [LogRecord.from_dict(x).config_id for x in (a, b, c)]


ROUNDS = [(1.0, "single_block"), (2.0, "persistent"), (3.0, "single_block")]


def test_pooled_delivered_times_and_launch_round_fit():
    ts, i, (ida, idb, idc) = _sweeps(ROUNDS, [(0.50, "whole_graph"), (0.60, "whole_graph"), (2.8, "single_block")])
    # delivered: the two configs that ran the whole-graph kernel share its median time; the third its rounds
    assert ts.times[i][ida] == ts.times[i][idb] == pytest.approx(0.55)
    assert ts.times[i][idc] == pytest.approx(2.9)
    assert ts.regret(i, idb) == (1.0, "measured")
    # fit: the whole-graph configs' launch-round records
    fit = ts.fit_view()
    assert fit.times[i] == {ida: pytest.approx(1.0), idb: pytest.approx(2.0), idc: pytest.approx(2.9)}
    assert fit.fit_times is None and fit.X is ts.X
    # the other graph has no one-launch record: fitted and charged on the same timings
    j = 1 - i
    assert fit.times[j] == ts.times[j]
    assert one_launch_summary(ts) == {"graphs": 1, "configs": {"whole_graph": 2}, "fitted_on_launch_rounds": 1}


def test_cluster_configs_are_fitted_on_what_they_delivered():
    """The engine keeps the cluster kernel only where it beat the config's rounds: the fit reads the
    pooled cluster time, not the rounds of a sweep from before the kernel."""
    ts, i, (ida, idb, idc) = _sweeps(ROUNDS, [(0.9, "cluster"), (1.1, "cluster"), (0.8, "single_block")])
    assert ts.times[i] == {ida: pytest.approx(1.0), idb: pytest.approx(1.0), idc: pytest.approx(1.9)}
    assert ts.fit_view().times[i] == ts.times[i]


def test_no_one_launch_record_means_one_set_of_timings():
    recs = synthetic_records(6, "portfolio", seed=1)
    ts = build_training_set(recs, warn=False)
    assert ts.fit_times is None and ts.fit_view() is ts


def test_a_lone_one_launch_config_keeps_its_own_time():
    ts, i, (ida, idb, _) = _sweeps([(0.5, "cluster"), (0.7, "single_block"), (0.9, "single_block")])
    assert ts.times[i][ida] == pytest.approx(0.5) and ts.times[i][idb] == pytest.approx(0.7)
    # no launch-round record of config a: the fit reads the time it delivered
    assert ts.fit_view().times[i][ida] == pytest.approx(0.5)


def test_summary_in_the_metadata_and_the_cli(tmp_path, capsys):
    """retrain says how many graphs' configs were pooled and fitted on launch-round records."""
    import json

    from autotune.cli import main
    from autotune.logs import LogWriter

    (a, b, c), other = _records()
    recs = [_rec(d, ms, path) for run in (ROUNDS, [(0.5, "whole_graph"), (0.6, "whole_graph"), (2.8, "single_block")])
            for d, (ms, path) in zip((a, b, c), run)] + other
    log = tmp_path / "log.jsonl"
    with LogWriter(log, fsync=False) as w:
        for r in recs + synthetic_records(10, "portfolio", seed=5):
            w.write(r)
    assert main(["retrain", str(log), "--out", str(tmp_path / "m.joblib")]) == 0
    out = capsys.readouterr().out
    assert "one-launch kernels: on 1 graph(s)" in out and "whole_graph 2 configs" in out
    meta = json.loads((tmp_path / "m.json").read_text())
    assert meta["one_launch"]["graphs"] == 1


def test_interleaved_records_supersede_one_pass_ones():
    """A re-sweep in interleaved passes (``sweep --rounds 3``) replaces a config's one-pass records
    rather than being averaged with them; configs it did not re-time keep theirs."""
    ts, i, (ida, idb, idc) = _sweeps(ROUNDS, [(1.4, "single_block", 3), (1.6, "persistent", 3), (2.8, "single_block")])
    assert ts.times[i] == {ida: pytest.approx(1.4), idb: pytest.approx(1.6), idc: pytest.approx(2.9)}
    assert ts.fit_times is None
    # more passes beat fewer, whatever the order in the log
    ts, i, (ida, _, _) = _sweeps([(0.7, "single_block", 5)] + ROUNDS[1:], [(1.4, "single_block", 3)] + ROUNDS[1:])
    assert ts.times[i][ida] == pytest.approx(0.7)


def test_interleaved_whole_graph_records_keep_the_launch_round_fit():
    """Where the interleaved re-sweep ran the whole-graph kernel, the one-pass launch-round records
    stay what those configs are fitted on; an older one-pass whole-graph record is superseded."""
    ts, i, (ida, idb, idc) = _sweeps(ROUNDS, [(0.50, "whole_graph"), (0.60, "whole_graph"), (2.8, "single_block")],
                                     [(0.40, "whole_graph", 3), (0.44, "whole_graph", 3), (2.6, "single_block", 3)])
    assert ts.times[i][ida] == ts.times[i][idb] == pytest.approx(0.42)
    assert ts.times[i][idc] == pytest.approx(2.6)
    fit = ts.fit_view()
    assert fit.times[i] == {ida: pytest.approx(1.0), idb: pytest.approx(2.0), idc: pytest.approx(2.6)}


@pytest.mark.parametrize("measure, expected", [({}, 1), ({"rounds": 3}, 3), ({"rounds": 1}, 1), ({"rounds": True}, 1),
                                               ({"rounds": "3"}, 1), ({"rounds": 0}, 1), (None, 1)])
def test_measure_rounds(measure, expected):
    from autotune.model import measure_rounds

    assert measure_rounds(measure) == expected


# ------------------------------------------------------------------ push/pull configs calibrated to push
def _calibrated_sweep(chosen_a, ms_a=1.0, ms_twin=1.2, rounds_a=None):
    """One graph: a push/pull config (its engine's logged calibration chose *chosen_a*), its push twin
    and a third config, beside another graph; the training set, the graph's index and the three ids."""
    from autotune.config import TraversalConfig

    (a, b, c), other = _records()
    pp = TraversalConfig(load_balance="binary_search", direction="push_pull", small_frontier="single_block",
                         frontier_limit=2048)
    twin = pp.with_(direction="push")
    recs = []
    for d, cfg, ms in ((a, pp, ms_a), (b, twin, ms_twin), (c, None, 3.0)):
        d = copy.deepcopy(d)
        if cfg is not None:
            d["config"], d["config_id"] = cfg.to_dict(), cfg.config_id
        r = _rec(d, ms, "single_block", rounds_a if cfg is pp else None)
        if cfg is pp and chosen_a is not None:
            r.measure["direction_calibration"] = {"sources": [0], "push_pull_ms": [1.0], "push_ms": [0.9],
                                                  "chosen": chosen_a}
        recs.append(r)
    ts = build_training_set(recs + other, warn=False)
    i = next(k for k, g in enumerate(ts.graphs) if g["fingerprint"] == recs[0].fingerprint)
    return ts, i, [r.config_id for r in recs]


def test_push_twins_pooled_where_the_calibration_chose_push():
    """A push/pull config that ran its push twin's rounds (its engine calibrated to push) shares one
    time with the twin, the median of theirs, delivered and fitted alike; the third config keeps its own."""
    ts, i, (pp, twin, other) = _calibrated_sweep("push")
    assert ts.times[i][pp] == ts.times[i][twin] == pytest.approx(1.1)
    assert ts.times[i][other] == pytest.approx(3.0)
    assert ts.fit_view().times[i][pp] == pytest.approx(1.1)
    assert ts.graphs[i]["push_twins_pooled"] == 1


@pytest.mark.parametrize("chosen", ["push_pull", None])
def test_push_pull_kept_or_not_calibrated_keeps_its_time(chosen):
    ts, i, (pp, twin, _) = _calibrated_sweep(chosen)
    assert ts.times[i][pp] == pytest.approx(1.0) and ts.times[i][twin] == pytest.approx(1.2)
    assert "push_twins_pooled" not in ts.graphs[i]
