"""GPU tests of the direction calibration (autotune._engine.DIRECTION_CALIBRATION): before its first
traversal an engine of a push/pull config times its launch rounds as configured and with every level
pushed, keeps the faster, and every traversal after it is exact in either direction; the push form is
the launch sequence and device parameters of the config's push twin."""
from __future__ import annotations

import numpy as np
import pytest

from autotune.config import TraversalConfig

from .test_engine_gpu import ZOO, _check

pytestmark = [pytest.mark.gpu, pytest.mark.direction_calibration]

#: Push/pull configs on each small-frontier path; the last pulls on most of the zoo (alpha 4, beta 6).
PUSH_PULL = [
    TraversalConfig(load_balance="binary_search", direction="push_pull", small_frontier="single_block",
                    frontier_limit=2048),
    TraversalConfig(load_balance="edge_mapped", block_size=512, duplicate_culling="hash", direction="push_pull",
                    hub_cache="on", small_frontier="persistent", frontier_limit=8192),
    TraversalConfig(load_balance="vertex_mapped", virtual_warp_size=32, direction="push_pull",
                    switch_rule="alpha_beta", alpha=4, beta=6, small_frontier="none"),
]
GRAPHS = ["directed", "kron13", "disconnected", "grid", "loops+dups"]


def _sources(g, given, k=6):
    rng = np.random.default_rng(11)
    return list(dict.fromkeys(list(given) + [int(v) for v in rng.integers(0, g.n_vertices, k)]))


@pytest.mark.parametrize("margin,want", [(1e9, "push"), (0.0, "push_pull")], ids=["push", "push_pull"])
@pytest.mark.parametrize("cfg", PUSH_PULL, ids=lambda c: c.label)
@pytest.mark.parametrize("name", GRAPHS)
def test_either_direction_exact(name, cfg, margin, want, monkeypatch):
    """A margin every time meets keeps push levels, one no time meets keeps the config's direction;
    the calibration's record matches, and every traversal after it (replayed CUDA graphs, many
    sources) is exact; kept push levels run no pull level."""
    import autotune._engine as E
    from autotune.engine import BFSEngine

    monkeypatch.setattr(E, "DIRECTION_MARGIN", margin)
    g, given = ZOO[name]
    eng = BFSEngine(g, cfg)
    assert eng._direction_pending and eng.direction == "push_pull" and eng.direction_calibration is None
    refs: dict = {}
    pulled = 0
    for s in _sources(g, given):
        res = eng.bfs(s, trace=True)
        _check(g, s, res, refs)
        pulled += sum(lv.direction == "pull" for lv in res.levels)
        _check(g, s, eng.bfs(s), refs)  # untraced: the replayed graph
    cal = eng.direction_calibration
    assert cal["chosen"] == want == eng.direction and not eng._direction_pending
    assert eng._direction_replay == {} and eng._graphs  # the chosen direction's graphs, replayed
    hub = int(np.argmax(g.out_degrees(np)))
    assert cal["sources"][0] == hub and len(cal["sources"]) == len(cal["push_pull_ms"]) >= len(cal["push_ms"]) >= 1
    if len(cal["push_ms"]) < len(cal["sources"]):  # stopped once push could not win
        assert sum(cal["push_ms"]) >= E.DIRECTION_MARGIN * sum(cal["push_pull_ms"]) and want == "push_pull"
    assert all(t > 0 for t in cal["push_pull_ms"] + cal["push_ms"])
    if want == "push":
        assert pulled == 0
        twin = BFSEngine(g, cfg.with_(direction="push"))
        def seq(e):
            return [(k.name, grid, block) for k, grid, block in e._launches]

        assert seq(eng) == seq(twin)  # the push twin's launch sequence
        assert int(eng.params_host["dir_mode"]) == int(twin.params_host["dir_mode"]) == 0
        aux = np.frombuffer(eng.aux.get().tobytes(), dtype=E.AUX_DTYPE)[0]
        assert aux["frontier_bits"] == 0 and aux["unvisited_ctr"] == 0
    else:
        assert int(eng.params_host["dir_mode"]) != 0
        assert len(eng._launches) > len(eng._direction_launches["push"])


def test_default_margin_keeps_the_faster():
    """Default settings: the choice follows the rule on the recorded times."""
    import autotune._engine as E
    from autotune.engine import BFSEngine

    g, given = ZOO["kron13"]
    refs: dict = {}
    eng = BFSEngine(g, PUSH_PULL[2])
    for s in given:
        _check(g, s, eng.bfs(s, trace=True), refs)
    cal = eng.direction_calibration
    push = sum(cal["push_ms"]) < E.DIRECTION_MARGIN * sum(cal["push_pull_ms"])
    assert cal["chosen"] == ("push" if push else "push_pull") == eng.direction


def test_slow_traversal_keeps_the_config(monkeypatch):
    """A first timed source slower than DIRECTION_CALIBRATION_MAX_MS: the config's direction, push not
    timed (one source recorded)."""
    import autotune._engine as E
    from autotune.engine import BFSEngine

    monkeypatch.setattr(E, "DIRECTION_CALIBRATION_MAX_MS", 0.0)
    g, given = ZOO["directed"]
    eng = BFSEngine(g, PUSH_PULL[2])
    refs: dict = {}
    for s in given:
        _check(g, s, eng.bfs(s, trace=True), refs)
    cal = eng.direction_calibration
    assert cal["chosen"] == "push_pull" == eng.direction and cal["push_ms"] == [] and len(cal["sources"]) == 1


def test_off_and_push_configs_do_not_calibrate(monkeypatch):
    """``DIRECTION_CALIBRATION = "off"`` and push configs: no calibration, the config's direction."""
    import autotune._engine as E
    from autotune.engine import BFSEngine

    g, given = ZOO["directed"]
    refs: dict = {}
    eng = BFSEngine(g, PUSH_PULL[0].with_(direction="push"))
    assert not eng._direction_pending
    _check(g, given[0], eng.bfs(given[0]), refs)
    assert eng.direction_calibration is None and eng.direction == "push"
    monkeypatch.setattr(E, "DIRECTION_CALIBRATION", "off")
    eng = BFSEngine(g, PUSH_PULL[2])
    assert not eng._direction_pending
    res = eng.bfs(given[0], trace=True)
    _check(g, given[0], res, refs)
    assert eng.direction_calibration is None and eng.direction == "push_pull"


@pytest.mark.whole_graph
def test_one_launch_kernels_are_not_calibrated():
    """A graph the whole-graph kernel takes runs no launch rounds: nothing to calibrate."""
    from autotune.engine import BFSEngine

    g, given = ZOO["directed"]
    eng = BFSEngine(g, PUSH_PULL[0])
    assert eng.whole_graph and not eng._direction_pending
    _check(g, given[0], eng.bfs(given[0]), {})
    assert eng.direction_calibration is None


def test_sssp_configs_are_not_calibrated():
    """SSSP configs have no pull levels: nothing to calibrate."""
    from autotune.engine import SSSPEngine
    from autotune.graph import from_edges

    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, 500, 4000), rng.integers(0, 500, 4000)
    g = from_edges(src, dst, 500, weights=rng.integers(1, 9, 4000).astype(np.int32), directed=True, name="w",
                   xp=np)
    eng = SSSPEngine(g, TraversalConfig(algorithm="sssp"))
    assert not eng._direction_pending and eng.direction == "push"
    eng.sssp(0)
    assert eng.direction_calibration is None


def test_sweep_logs_the_calibration(tmp_path):
    """A sweep of a push/pull config logs its engine's calibration in ``measure.direction_calibration``
    (a push config's record has none); the record is valid."""
    from autotune.logs import read_log
    from autotune.sweep import sweep

    g, _ = ZOO["kron13"]
    out = tmp_path / "s.jsonl"
    sweep([g], [PUSH_PULL[2], PUSH_PULL[2].with_(direction="push")], out, n_sources=4, validate_sources=1,
          progress=False)
    recs = {r.config["direction"]: r for r in read_log(out).records}
    assert all(r.valid for r in recs.values())
    cal = recs["push_pull"].measure["direction_calibration"]
    assert cal["chosen"] in ("push", "push_pull") and len(cal["push_pull_ms"]) == len(cal["sources"]) >= 1
    assert "direction_calibration" not in recs["push"].measure
