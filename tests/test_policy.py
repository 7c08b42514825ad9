"""Per-level policy study (autotune.policy): the oracle bound from logged level traces (CPU).

The records are built by hand with known per-level times, so every gain is an exact fraction.
"""
from __future__ import annotations

import json
import math

import pytest

from autotune.config import TraversalConfig
from autotune.logs import LogRecord, LogWriter
from autotune.policy import KEEP_THRESHOLD, POLICY_FEATURES, format_study, has_level_traces, per_level_oracle

DEVICE = {"name": "FAKE GPU (test)", "cc": "9.0", "sm_count": 132}

A = TraversalConfig(load_balance="vertex_mapped")                            # push, single_block
B = TraversalConfig(load_balance="vertex_mapped", direction="push_pull")      # same technique, other direction
C = TraversalConfig(load_balance="vertex_mapped", small_frontier="persistent")
D = TraversalConfig(load_balance="edge_mapped")                              # another technique
E = TraversalConfig(load_balance="vertex_mapped", block_size=512)             # same technique, other block size


def _rec(graph: str, cfg: TraversalConfig, median_ms: float, us=None, *, n_levels=None, valid=True,
         family: str | None = "testfam", first_ms=None) -> dict:
    """A schema-2 record dict of *cfg* on *graph* with level times *us* (None: untraced)."""
    fp = "sha256:" + graph.encode().hex().ljust(64, "0")[:64]
    measure = {"n_sources": 2, "seed": 0, "times_ms": [first_ms or median_ms, median_ms] if valid else [],
               "median_ms": median_ms if valid else None, "gteps": 1.0 if valid else None,
               "depth_mean": 3.0 if valid else None, "sources": [0, 1], "timer": "cuda-events"}
    if us is not None:
        measure["levels"] = [[10 * (i + 1), "push", "single_block", u] for i, u in enumerate(us)]
        measure["n_levels"] = len(us) if n_levels is None else n_levels
    g = {"name": graph, "fingerprint": fp, "spec": graph, "weights": None, "features": {"n_vertices": 100}}
    if family is not None:
        g["family"] = family
    d = {"schema": 2, "algorithm": "bfs", "time": "2026-01-01T00:00:00Z", "device": dict(DEVICE), "graph": g,
         "config": cfg.to_dict(), "config_id": cfg.config_id, "measure": measure, "valid": valid,
         "error": None if valid else "ValidationError: wrong distances",
         "origin": {"command": "sweep", "study": None, "trial": None, "version": "0.1.0"}}
    LogRecord.from_dict(d)  # must validate
    return d


def _records(dicts):
    return [LogRecord.from_dict(d) for d in dicts]


# ------------------------------------------------------------------------------------------ oracle
def test_oracle_gain_is_exact():
    recs = _records([
        _rec("g1", A, 1.0, [10, 20, 30], first_ms=0.5),  # the per-graph best (least median)
        _rec("g1", B, 1.1, [12, 5, 40]),
        _rec("g1", D, 1.2, [1, 30, 30]),
        _rec("g2", A, 2.0, [4, 4]),                      # the best is fastest at every level: gain 1
        _rec("g2", B, 3.0, [5, 6]),
    ])
    study = per_level_oracle(recs)
    rows = {r.name: r for r in study.rows}
    assert set(rows) == {"g1", "g2"} and not study.excluded and study.n_untraced == 0
    r = rows["g1"]
    assert r.best_config_id == A.config_id and r.n_configs == 3 and r.n_levels == 3
    assert r.best_us == 60 and r.oracle_us == 1 + 5 + 30
    assert r.gain == pytest.approx(60 / 36)
    assert r.restricted_us == 10 + 5 + 30 and r.restricted_gain == pytest.approx(60 / 45)  # A, B only
    assert r.static_us == 57 and r.static_gain == pytest.approx(60 / 57) and r.level_gain == pytest.approx(57 / 36)
    assert r.gain == pytest.approx(r.static_gain * r.level_gain)
    assert r.coverage == pytest.approx(60 / 1000 / 1.0)
    assert r.coverage_first == pytest.approx(60 / 1000 / 0.5)
    assert r.traversal_gain == pytest.approx(0.5 / (0.5 - 24 / 1000))
    assert r.oracle_configs == 3
    assert rows["g2"].gain == 1.0 and rows["g2"].restricted_gain == 1.0
    s = study.summary
    assert s["n_graphs"] == 2 and s["gain"]["geomean"] == pytest.approx(math.sqrt(60 / 36))
    assert s["gain"]["max"] == pytest.approx(60 / 36) and s["gain"]["n_ge_5pct"] == 1
    assert s["restricted_gain"]["geomean"] == pytest.approx(math.sqrt(60 / 45))
    assert s["families"]["testfam"]["n_graphs"] == 2
    assert s["keep"] is (math.sqrt(60 / 45) >= KEEP_THRESHOLD)
    assert study.rows[0].name == "g1"  # largest gain first
    json.dumps(study.to_dict())  # JSON-safe


def test_best_is_least_median_not_least_trace_and_invalid_records_are_ignored():
    recs = _records([
        _rec("g", B, 1.0, [50, 50]),             # best by median, slow on the trace
        _rec("g", A, 2.0, [10, 10]),
        _rec("g", C, 0.1, [1, 1], valid=False),  # invalid: no measurement, must not count
    ])
    # an invalid record carries no trace in a real log; give it one anyway: it must still be ignored
    recs[2].measure["levels"] = [[10, "push", "single_block", 1], [20, "push", "single_block", 1]]
    recs[2].measure["n_levels"] = 2
    (r,) = per_level_oracle(recs).rows
    assert r.best_config_id == B.config_id and r.n_configs == 2
    assert r.gain == pytest.approx(100 / 20) and r.static_gain == pytest.approx(100 / 20) and r.level_gain == 1.0


# ------------------------------------------------------------------------------------------ exclusions
def test_truncated_traces_are_excluded_and_counted():
    recs = _records([
        _rec("deep", A, 1.0, [1, 2, 3], n_levels=300),   # 3 of 300 levels logged
        _rec("deep", B, 2.0, [1, 1, 1], n_levels=300),
        _rec("ok", A, 1.0, [2, 2]),
        _rec("ok", B, 2.0, [1, 3]),
        _rec("lonely", A, 1.0, [2, 2]),                  # one traced config only
        _rec("untraced", A, 1.0),                        # a log swept without --levels
        _rec("untraced", B, 2.0),
    ])
    study = per_level_oracle(recs)
    assert [r.name for r in study.rows] == ["ok"]
    reasons = {e["name"]: e["reason"] for e in study.excluded}
    assert set(reasons) == {"deep", "lonely"}
    assert reasons["deep"].startswith("truncated") and "3 of 300" in reasons["deep"]
    assert "fewer than 2" in reasons["lonely"]
    s = study.summary
    assert s["n_truncated"] == 1 and s["n_excluded"] == 2 and s["n_untraced"] == 1 and s["n_graphs"] == 1
    text = format_study(study)
    assert "deep" in text and "truncated" in text and "1 truncated" in text


def test_traces_of_different_traversals_are_excluded():
    recs = _records([_rec("g", A, 1.0, [2, 2]), _rec("g", B, 2.0, [1, 3])])
    recs[1].measure["levels"][1][0] = 999  # another frontier at level 1: not the same traversal
    study = per_level_oracle(recs)
    assert not study.rows and "frontier sizes differ" in study.excluded[0]["reason"]


# ------------------------------------------------------------------------------------------ restricted
def test_restricted_oracle_ignores_configs_of_another_technique_or_block_size():
    base = [_rec("g", A, 1.0, [10, 10, 10]), _rec("g", B, 1.5, [20, 4, 10]), _rec("g", C, 1.6, [3, 20, 10])]
    others = [_rec("g", D, 5.0, [0.5, 0.5, 0.5]), _rec("g", E, 6.0, [0.25, 0.25, 0.25])]
    with_others = per_level_oracle(_records(base + others)).rows[0]
    alone = per_level_oracle(_records(base)).rows[0]
    assert with_others.n_restricted == 3 and with_others.n_configs == 5
    assert with_others.restricted_us == alone.restricted_us == 3 + 4 + 10
    assert with_others.restricted_gain == pytest.approx(30 / 17)
    assert with_others.oracle_us == pytest.approx(0.75)  # the unrestricted oracle does take them
    assert with_others.gain == pytest.approx(30 / 0.75)
    assert with_others.restricted_static_us == 30 and with_others.restricted_level_gain == pytest.approx(30 / 17)


def test_family_falls_back_to_graph_family():
    recs = _records([_rec("rmat:scale=10", A, 1.0, [2, 2], family=None),
                     _rec("rmat:scale=10", B, 2.0, [1, 3], family=None)])
    assert per_level_oracle(recs).rows[0].family == "rmat"


def test_has_level_traces():
    assert has_level_traces(_records([_rec("g", A, 1.0, [1])]))
    assert not has_level_traces(_records([_rec("g", A, 1.0), _rec("g", B, 2.0)]))


# ------------------------------------------------------------------------------------------ simulated policy
def _traced(graph, cfg, median_ms, rows, family, first_ms=None):
    """A record whose level trace is *rows* ``(direction, path, us)``, frontier sizes 1, 50, 5000, 20."""
    d = _rec(graph, cfg, median_ms, [u for _, _, u in rows], family=family, first_ms=first_ms)
    d["measure"]["levels"] = [[size, dr, path, u] for size, (dr, path, u) in zip((1, 50, 5000, 20), rows)]
    return d


PUSH = ("push", "single_block")


def _policy_graphs(flip_family=None):
    """Six graphs in three families: config A (the per-graph best by median) pushes every level;
    B (same technique and block size) pulls the two last levels, 80 us faster on the large frontier
    and 45 us slower on the small one (the other way round in *flip_family*); D (another technique)
    is fastest everywhere but outside the policy's choice."""
    dicts = []
    for fam in ("f1", "f2", "f3"):
        big, small = (100, 5) if fam != flip_family else (20, 50)
        pull_big, pull_small = (20, 50) if fam != flip_family else (100, 5)
        for k in range(2):
            g = f"{fam}-{k}"
            dicts += [_traced(g, A, 1.0, [(*PUSH, 5), (*PUSH, 10), (*PUSH, big), (*PUSH, small)], fam, first_ms=0.5),
                      _traced(g, B, 1.5, [(*PUSH, 5), (*PUSH, 10), ("pull", "multi_block", pull_big),
                                          ("pull", "multi_block", pull_small)], fam),
                      _traced(g, D, 2.0, [(*PUSH, 1), (*PUSH, 1), (*PUSH, 1), (*PUSH, 1)], fam)]
    return _records(dicts)


def test_simulated_policy_learns_the_action_per_level_and_stays_in_the_best_technique():
    study = per_level_oracle(_policy_graphs(), policy=True)
    pol = study.policy
    for scheme in ("lofo", "logo"):
        rows = pol["rows"][scheme]
        assert len(rows) == 6
        for r in rows:  # pull on the large frontier (20 us), push on the small one (5 us); D never taken
            assert r["best_us"] == 120 and r["policy_us"] == 40 and r["oracle_us"] == 40
            assert r["gain"] == pytest.approx(3.0) and r["levels_with_choice"] == 2 and r["levels_switched"] == 1
            assert r["traversal_gain"] == pytest.approx(0.5 / (0.5 - 80 / 1000))
        s = pol["summary"][scheme]
        assert s["gain"]["geomean"] == pytest.approx(3.0) and s["gain"]["n_lose_1pct"] == 0
        assert s["levels_switched_share"] == pytest.approx(0.5)
    assert pol["keep"] is True and pol["features"] == list(POLICY_FEATURES)
    assert per_level_oracle(_policy_graphs()).policy is None  # only when asked for
    text = format_study(study)
    assert "simulated per-level policy" in text and "a per-level policy is worth building" in text
    json.dumps(study.to_dict())


def test_simulated_policy_held_out_by_family_can_lose():
    """A family on which the other families' rule is wrong: the policy trained without it pulls
    where pushing is faster; by graph (its sibling in training) it learns nothing consistent."""
    pol = per_level_oracle(_policy_graphs(flip_family="f3"), policy=True).policy
    lofo = {r["name"]: r for r in pol["rows"]["lofo"]}
    for k in range(2):
        r = lofo[f"f3-{k}"]  # the best config pushes: 5+10+20+50; the policy pulls the large frontier, pushes the small
        assert r["best_us"] == 85 and r["policy_us"] == 5 + 10 + 100 + 50 and r["gain"] == pytest.approx(85 / 165)
        assert r["oracle_us"] == 5 + 10 + 20 + 5
    assert pol["summary"]["lofo"]["gain"]["n_lose_1pct"] == 2
    assert pol["keep"] is (pol["summary"]["lofo"]["traversal_gain"]["geomean"] >= KEEP_THRESHOLD)


def test_simulated_policy_with_one_family_keeps_the_best_action_when_held_out_by_family():
    """All graphs in one family: held out by family, the training folds are empty, so every level
    keeps the per-graph best's action (gain 1.0); held out by graph it learns from its sibling."""
    recs = [r for r in _policy_graphs() if r.graph.get("family") == "f1"]
    pol = per_level_oracle(recs, policy=True).policy
    for r in pol["rows"]["lofo"]:
        assert r["levels_switched"] == 0 and r["policy_us"] == r["best_us"] == 120 and r["gain"] == pytest.approx(1.0)
        assert r["oracle_us"] == 40  # the bound still sees what a per-level choice could gain
    for r in pol["rows"]["logo"]:
        # trained on its one sibling's two levels: a leaf needs 2 samples, so no split; the forest
        # takes the action of more microseconds at stake (pull: 80 us against push's 45) everywhere
        assert r["levels_switched"] == 2 and r["policy_us"] == 5 + 10 + 20 + 50 and r["gain"] == pytest.approx(120 / 85)
    assert pol["summary"]["lofo"]["levels_switched_share"] == 0.0 and pol["keep"] is False


def test_simulated_policy_without_a_choice_on_any_level():
    """Only the best config (and one of another technique) traced: no level has two actions of the
    best's technique and block size, so nothing is trained, nothing switched, and the gain is 1.0."""
    recs = [r for r in _policy_graphs() if r.config_id != B.config_id]
    pol = per_level_oracle(recs, policy=True).policy
    for scheme in ("lofo", "logo"):
        for r in pol["rows"][scheme]:
            assert r["levels_with_choice"] == 0 and r["levels_switched"] == 0
            assert r["gain"] == pytest.approx(1.0) and r["oracle_gain"] == pytest.approx(1.0)
        assert pol["summary"][scheme]["levels_switched_share"] == 0.0
    assert pol["keep"] is False


# ------------------------------------------------------------------------------------------ retrain
def _synthetic_log(path, traced: bool):
    from autotune._synthetic import synthetic_records

    recs = synthetic_records(n_graphs=10, configs="portfolio", seed=3)
    with LogWriter(path, fsync=False) as w:
        for k, r in enumerate(recs):
            if traced:  # the same frontier per graph and level, config-dependent times
                us = [round(r.median_ms * 100 * (1 + ((k * 7 + i * 3) % 5) / 10), 2) for i in range(4)]
                r.measure["levels"] = [[10 ** i, "push", "single_block", u] for i, u in enumerate(us)]
                r.measure["n_levels"] = 4
            w.write(r)
    return path, recs


def _retrain_json(log, capsys) -> dict:
    from autotune.cli_tuning import main

    capsys.readouterr()
    assert main(["retrain", str(log), "--json", "--n-estimators", "5"]) == 0
    return json.loads(capsys.readouterr().out)


def test_retrain_json_carries_the_per_level_study(tmp_path, capsys):
    log, recs = _synthetic_log(tmp_path / "traced.jsonl", traced=True)
    out = _retrain_json(log, capsys)
    assert "per_level" in out and "cv" in out
    expected = per_level_oracle(recs).to_dict()
    assert out["per_level"]["summary"]["n_graphs"] == 10 == expected["summary"]["n_graphs"]
    assert out["per_level"]["summary"]["gain"]["geomean"] == pytest.approx(expected["summary"]["gain"]["geomean"])
    assert out["per_level"]["summary"]["gain"]["geomean"] > 1.0
    assert set(out["per_level"]["policy"]["summary"]) == {"lofo", "logo"}


def test_retrain_without_traces_has_no_per_level_study(tmp_path, capsys):
    log, _ = _synthetic_log(tmp_path / "plain.jsonl", traced=False)
    out = _retrain_json(log, capsys)
    assert "per_level" not in out and "cv" in out


def test_retrain_table_prints_the_study(tmp_path, capsys):
    from autotune.cli_tuning import main

    log, _ = _synthetic_log(tmp_path / "traced.jsonl", traced=True)
    assert main(["retrain", str(log), "--n-estimators", "5"]) == 0
    text = capsys.readouterr().out
    assert "leave-one-graph-out regret" in text and "per-level policy oracle" in text and "decision:" in text
    assert "simulated per-level policy" in text
