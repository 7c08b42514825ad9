"""GPU tests of the resident whole-graph kernel (``whole_graph_resident`` in kernels/whole_graph.cu;
autotune._engine.RESIDENT): one launch serving many traversals from a mailbox in pinned host memory.
Exact against the CPU reference on the zoo; the kernel's return when idle, when asked (before
another engine's launch rounds, past RESIDENT_MAX, when its engine is collected) and its relaunch for
a request it returned before reading."""
from __future__ import annotations

import gc
import time

import numpy as np
import pytest

from autotune.config import TraversalConfig

from .test_engine_gpu import ZOO, _check
from .test_whole_graph_gpu import _sources

pytestmark = [pytest.mark.gpu, pytest.mark.whole_graph]

CFG = TraversalConfig(load_balance="edge_mapped", block_size=1024, duplicate_culling="hash",
                      small_frontier="single_block", frontier_limit=512)
SMALL = [k for k, (g, _) in ZOO.items() if g.n_edges <= 49_152 and g.n_vertices <= 1 << 16]


@pytest.fixture
def E(monkeypatch):
    import autotune._engine as E

    monkeypatch.setattr(E, "RESIDENT", "auto")
    E.release_resident()
    yield E
    E.release_resident()


def _engine(E, name, cfg=CFG):
    from autotune.engine import BFSEngine

    g, sources = ZOO[name]
    eng = BFSEngine(g, cfg)
    if not E.host_memory_mapped():
        pytest.skip("the device does not map pinned host memory (the resident kernel needs it)")
    assert eng.whole_graph and eng.resident
    return g, sources, eng


@pytest.mark.parametrize("name", SMALL)
def test_zoo_exact_resident(name, E):
    """Every zoo graph of the kernel's size, every source twice (traced and not) from ONE launch:
    exact, the state as the replayed kernel leaves it, the traced levels on the whole-graph path."""
    g, given, eng = _engine(E, name)
    refs: dict = {}
    for _ in range(2):
        for s in _sources(g, given):
            res = eng.bfs(s, trace=True)
            _check(g, s, res, refs)
            assert {lv.path for lv in res.levels} == {"whole_graph"}
            assert int(eng.last_state["iterations"]) == 1 and int(eng.last_state["level"]) == res.depth + 1
            _check(g, s, eng.bfs(s), refs)
    assert eng._res.live and E._RESIDENTS.get(id(eng)) is eng._res
    assert eng._wg_graph is None  # nothing replayed


def _check_out_copies(eng, s):
    """engine.traverse(s, out=...) on a resident engine: the kernel's copy into a caller's array equals
    the engine's own buffer; an array not given is not written; an address the kernel's copy word cannot
    carry (4 bytes past 16-byte alignment) is copied after the answer. Returns the level count."""
    import cupy

    n = eng.n
    out = cupy.full((2, n), -7, dtype=np.int32)
    levels = eng.traverse(s, out=out)
    np.testing.assert_array_equal(out.get(), eng._dist_pred.get())
    assert levels == int(eng.last_state["level"]) and int(out[0].max()) == levels - 1
    out[:] = -7
    eng.traverse(s)
    assert int(out.max()) == -7
    flat = cupy.full(2 * n + 1, -7, dtype=np.int32)
    view = flat[1:].reshape(2, n)
    assert view.data.ptr % 16
    assert eng.traverse(s, out=view) == levels
    np.testing.assert_array_equal(view.get(), eng._dist_pred.get())
    return levels


def test_same_results_as_replayed(E, monkeypatch):
    """Distances those of the replayed kernel and valid parents, every 7th vertex a source; the results
    copied by the kernel into a caller's array only when one is given."""
    from autotune.engine import BFSEngine

    g, _, eng = _engine(E, "directed")
    monkeypatch.setattr(E, "RESIDENT", "off")
    rep = BFSEngine(g, CFG)
    assert rep.whole_graph and not rep.resident
    refs: dict = {}
    for s in range(0, g.n_vertices, 7):
        a, b = eng.bfs(s), rep.bfs(s)
        np.testing.assert_array_equal(a.distances, b.distances)  # (parents: any valid one, checked)
        _check(g, s, a, refs)
    for s in (0, 5, 2499):  # engine.traverse with the copy into a caller's array, and without
        import cupy

        levels = _check_out_copies(eng, s)
        # the replayed engine copies into out on its stream
        out2 = cupy.full((2, g.n_vertices), -7, dtype=np.int32)
        assert rep.traverse(s, out=out2) == levels
        np.testing.assert_array_equal(out2.get()[0], eng._dist_pred.get()[0])  # (distances: parents may differ)
        from autotune.errors import InvalidArgumentError

        with pytest.raises(InvalidArgumentError, match="shape"):
            eng.traverse(s, out=cupy.zeros((2, g.n_vertices - 1), dtype=np.int32))
        with pytest.raises(InvalidArgumentError, match="dtype"):
            rep.traverse(s, out=cupy.zeros((2, g.n_vertices), dtype=np.int64))


def test_idle_return_and_relaunch(E, monkeypatch):
    """The kernel returns by itself RESIDENT_IDLE_US after the last request; the next traversal
    launches it again. With no idle wait at all most requests arrive after it returned (the request
    is relaunched and answered): every result still exact."""
    g, sources, eng = _engine(E, "disconnected")
    refs: dict = {}
    monkeypatch.setattr(E, "RESIDENT_IDLE_US", 200.0)
    E.release_resident()
    _check(g, sources[0], eng.bfs(sources[0]), refs)
    time.sleep(0.02)
    assert eng._res_event.done  # returned alone
    _check(g, sources[1], eng.bfs(sources[1]), refs)
    monkeypatch.setattr(E, "RESIDENT_IDLE_US", 0.0)
    E.release_resident()  # (the idle wait is an argument of the next launch)
    for i in range(60):
        s = sources[i % len(sources)]
        _check(g, s, eng.bfs(s), refs)
        if i % 7 == 0:
            time.sleep(0.001)


def test_released_before_launch_rounds(E, monkeypatch):
    """Another engine's launch rounds with a persistent kernel (which waits for all its blocks) ask
    the resident kernel to return first; the resident engine launches it again on its next traversal.
    Launch rounds without one leave it running (and its answers exact)."""
    from autotune.engine import BFSEngine

    g, sources, eng = _engine(E, "grid")
    refs: dict = {}
    _check(g, sources[0], eng.bfs(sources[0]), refs)
    assert eng._res.live
    big, bsrc = ZOO["kron17+hub"]
    other = BFSEngine(big, TraversalConfig(load_balance="binary_search", small_frontier="persistent",
                                           frontier_limit=8192))
    assert not other.whole_graph
    _check(big, bsrc[0], other.bfs(bsrc[0]), refs)
    assert not eng._res.live and eng._res_event.done and not E._RESIDENTS
    _check(g, sources[1], eng.bfs(sources[1]), refs)
    assert eng._res.live
    # launch rounds without a persistent kernel share the GPU with it
    sb = BFSEngine(big, TraversalConfig(load_balance="binary_search", small_frontier="single_block",
                                        frontier_limit=2048))
    _check(big, bsrc[0], sb.bfs(bsrc[0]), refs)  # (its first traversal waits for the device once)
    _check(g, sources[0], eng.bfs(sources[0]), refs)
    assert eng._res.live
    _check(big, bsrc[1], sb.bfs(bsrc[1]), refs)
    assert eng._res.live and E._RESIDENTS.get(id(eng)) is eng._res
    _check(g, sources[1], eng.bfs(sources[1]), refs)


def test_at_most_resident_max(E, monkeypatch):
    """Past RESIDENT_MAX engines, the least recently launched kernel returns; all stay exact."""
    monkeypatch.setattr(E, "RESIDENT_MAX", 2)
    engines = [_engine(E, name) for name in ("directed", "grid", "disconnected", "loops+dups")]
    refs: dict = {}
    for _ in range(2):
        for g, sources, eng in engines:
            _check(g, sources[0], eng.bfs(sources[0]), refs)
            assert len(E._RESIDENTS) <= 2 and E._RESIDENTS.get(id(eng)) is eng._res
    assert sum(e._res.live for _, _, e in engines) == 2


def test_returns_when_collected_and_device_synchronizes(E):
    """A collected engine's kernel returns before its buffers are released; a device-wide
    synchronize after release_resident does not wait for an idle kernel."""
    import cupy

    g, sources, eng = _engine(E, "directed")
    eng.bfs(sources[0])
    stop, ev = eng._res, eng._res_event
    assert stop.live
    del eng
    gc.collect()
    assert not stop.live and ev.done and not E._RESIDENTS
    g2, s2, eng2 = _engine(E, "grid")
    eng2.bfs(s2[0])
    E.release_resident()
    t0 = time.perf_counter()
    cupy.cuda.Device().synchronize()
    assert time.perf_counter() - t0 < 0.5 * E.RESIDENT_IDLE_US * 1e-6 + 0.01


def test_run_and_timed_traverse(E):
    """Through ``autotune.run`` (host graph: NumPy; device graph: CuPy) and timed_traverse: exact,
    the time a positive host-side span."""
    import cupy

    from autotune.engine import run
    from autotune.graph import CSRGraph

    g, sources = ZOO["loops+dups"]
    res = run(g, CFG, source=sources[1], validate=True)
    assert isinstance(res.distances, np.ndarray) and g._cache["engine"].resident
    _check(g, sources[1], res, {})
    ro, ci = g.device()
    dg = CSRGraph(ro, ci, directed=True, name="loops+dups-dev")
    res_d = run(dg, CFG, source=sources[1])
    assert isinstance(res_d.distances, cupy.ndarray) and dg._cache["engine"].resident
    np.testing.assert_array_equal(res_d.distances.get(), res.distances)
    levels, ms = dg._cache["engine"].timed_traverse(sources[0])
    assert levels >= 1 and 0 < ms < 1000
