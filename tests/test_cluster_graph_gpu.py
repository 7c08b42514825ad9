"""GPU tests of the cluster BFS kernel (kernels/cluster_graph.cu): a whole traversal in one launch of
one thread-block cluster (sm_90), the visited bitmap partitioned over the blocks' shared memories and
claimed through distributed shared memory; exact against the CPU reference (scipy.sparse.csgraph) and
the Graph500 BFS-tree checks on the zoo, in every variant (8 or 16 blocks, rows staged or not, pull
levels or not)."""
from __future__ import annotations

import numpy as np
import pytest

from autotune.config import TraversalConfig
from autotune.graph import from_edges

from .test_engine_gpu import ZOO, _check
from .test_resident_gpu import _check_out_copies
from .test_whole_graph_gpu import _sinks_and_hubs, _zoo_traversals

pytestmark = [pytest.mark.gpu, pytest.mark.whole_graph]

CONFIG = TraversalConfig(load_balance="binary_search", direction="push_pull", small_frontier="persistent",
                         frontier_limit=8192)


@pytest.fixture
def clustered(monkeypatch):
    """Every zoo graph with an edge goes to the cluster kernel (the one-block kernel's limit at 0, no
    cluster limit); skips where the device has no thread-block clusters."""
    import autotune._engine as E
    from autotune._backend import device_properties

    if int(device_properties()["cc"].split(".")[0]) < 9:
        pytest.skip("thread-block clusters need compute capability 9.0")
    monkeypatch.setattr(E, "WHOLE_GRAPH_MAX_EDGES", 0)
    monkeypatch.setattr(E, "CLUSTER", "on")
    monkeypatch.setattr(E, "CLUSTER_MAX_EDGES", 1 << 40)
    monkeypatch.setattr(E, "CLUSTER_MAX_VERTICES", 1 << 30)
    return E


#: (blocks, rows staged in shared memory ("auto") or read from global ("off"), pull levels, RESIDENT:
#: the resident kernel serving every traversal of one launch ("auto") or one launch per traversal)
VARIANTS = [(16, "auto", True, "auto"), (16, "off", False, "auto"), (8, "off", True, "auto"),
            (8, "auto", False, "auto"), (16, "auto", False, "auto"), (16, "auto", True, "off"),
            (8, "off", False, "off")]


def _engine(E, monkeypatch, g, variant):
    from autotune.engine import BFSEngine

    c, stage, pull, resident = (variant + ("auto",))[:4]
    monkeypatch.setattr(E, "CLUSTER_SIZE", c)
    monkeypatch.setattr(E, "WHOLE_GRAPH_STAGE", stage)
    monkeypatch.setattr(E, "CLUSTER_PULL", pull)
    monkeypatch.setattr(E, "RESIDENT", resident)
    eng = BFSEngine(g, CONFIG)
    assert eng.whole_graph and eng.cluster_size in (c, 8)
    if stage == "off":
        assert not eng.whole_graph_staged
    assert eng.whole_graph_pull == pull
    assert eng.resident == (resident == "auto" and eng.zero_copy)
    return eng


def _vid(v):
    return f"c{v[0]}-stage_{v[1]}-{'pull' if v[2] else 'push'}-{'resident' if v[3] == 'auto' else 'replayed'}"


@pytest.mark.parametrize("variant", VARIANTS, ids=_vid)
@pytest.mark.parametrize("name", list(ZOO))
def test_zoo_exact_cluster(name, variant, clustered, monkeypatch):
    """Every zoo graph in every variant: one launch (resident: one for all the traversals), every level
    traced on the cluster path, exact distances, valid BFS tree, depth and edges traversed; pull
    levels only where allowed; the engine reused."""
    g, given = ZOO[name]
    if g.n_vertices > 100_000 and variant != VARIANTS[0]:
        pytest.skip("the largest zoo graph in the first variant only (time)")
    eng = _engine(clustered, monkeypatch, g, variant)
    _zoo_traversals(eng, g, given, "cluster", variant[2])
    if eng.resident:
        assert eng._wg_graph is None and clustered._RESIDENTS.get(id(eng)) is eng._res  # nothing replayed


@pytest.mark.parametrize("stage", ["auto", "off"])
@pytest.mark.parametrize("serial", [0, 1, 8])
@pytest.mark.parametrize("name", ["kron13", "directed"])
def test_pull_levels_run(name, serial, stage, clustered, monkeypatch):
    """On kron13 (dense, low diameter) and a directed graph pull levels are taken, and stay exact, from a
    hub and a leaf, whatever share of a vertex's in-edges its own thread scans (``CLUSTER_PULL_SERIAL``:
    0 leaves every in-edge to its warp, 1 and 8 split them), rows staged or read from global."""
    g, given = ZOO[name]
    monkeypatch.setattr(clustered, "CLUSTER_PULL_SERIAL", serial)
    eng = _engine(clustered, monkeypatch, g, (16, stage, True))
    refs: dict = {}
    pulled = 0
    for s in given:
        res = eng.bfs(s, trace=True)
        _check(g, s, res, refs)
        pulled += sum(lv.direction == "pull" for lv in res.levels)
    assert pulled > 0


@pytest.mark.parametrize("variant", [(16, "auto", True, "auto"), (8, "off", True, "off")], ids=_vid)
@pytest.mark.parametrize("n", [40_000, 70_001])
def test_pull_levels_several_rounds(n, variant, clustered, monkeypatch):
    """Blocks of 2,500-8,751 vertices (several rounds of 1,024 a pull level): random digraphs, exact from
    a hub and a late vertex, with late pull levels (at most n / 4 vertices unvisited) among them."""
    from .test_whole_graph_gpu import _late_pull_levels, _random_digraph

    g, sources = _random_digraph(n)
    eng = _engine(clustered, monkeypatch, g, variant)
    refs: dict = {}
    late = 0
    for s in sources:
        res = eng.bfs(s, trace=True)
        _check(g, s, res, refs)
        late += _late_pull_levels(res, n)
    assert late > 0


@pytest.mark.parametrize("n_sinks, hubs", [(3000, [(0, 5000)]), (3000, [(1500, 70), (2999, 4000)]),
                                          (5000, [(17, 1), (1025, 2), (4000, 31)])])
@pytest.mark.parametrize("variant", [(16, "auto", False, "auto"), (8, "off", True, "off")], ids=_vid)
def test_rows_among_empty_rows(n_sinks, hubs, variant, clustered, monkeypatch):
    """Frontiers of thousands of sinks with a few long rows among them, spread over the blocks' ranges
    (ranges of very different vertex counts: the partition balances edges + vertices): exact."""
    g = _sinks_and_hubs(n_sinks, hubs)
    eng = _engine(clustered, monkeypatch, g, variant)
    refs: dict = {}
    for s in (0, 1 + n_sinks):
        _check(g, s, eng.bfs(s, trace=True), refs)


@pytest.mark.parametrize("n", [2, 33, 1000, 70_000])
def test_paths_and_empty_ranges(n, clustered, monkeypatch):
    """Paths of 2 to 70,000 vertices (most blocks own no vertex when n is small; 70,000 levels, each
    crossing from one block's range to the next), from both ends and the middle."""
    a = np.arange(n - 1)
    g = from_edges(a, a + 1, n, directed=False, name=f"path{n}", xp=np)
    eng = _engine(clustered, monkeypatch, g, (16, "auto", False))
    for s in dict.fromkeys([0, n - 1, n // 2]):
        _check(g, s, eng.bfs(s, trace=n < 1000), {})


def test_engine_calibrates_between_the_limits(monkeypatch):
    """Default settings (``CLUSTER = "auto"``): a graph past the one-block kernel's edge limit and within
    CLUSTER_MAX_EDGES gets the cluster kernel prepared (sm_90) and, before its first traversal, timed
    against the config's launch rounds on the calibration sources; the faster is kept (recorded in
    ``cluster_calibration``) and every traversal after it is exact, on either path. A margin no time
    can meet keeps the rounds, one every time meets keeps the cluster; CLUSTER = "off" prepares
    nothing."""
    import autotune._engine as E
    from autotune.engine import BFSEngine

    g, given = ZOO["kron13"]  # 8,192 vertices, ~200,000 edges
    assert E.WHOLE_GRAPH_MAX_EDGES < g.n_edges <= E.CLUSTER_MAX_EDGES
    refs: dict = {}
    eng = BFSEngine(g, CONFIG)
    fits = int(eng.props["cc"].split(".")[0]) >= 9
    assert not eng.whole_graph and eng._cluster_pending == fits
    for s in given:
        res = eng.bfs(s, trace=True)
        _check(g, s, res, refs)
    cal = eng.cluster_calibration
    assert (cal is not None) == fits
    if fits:
        hub = int(np.argmax(g.out_degrees(np)))
        assert cal["sources"][0] == hub and len(cal["sources"]) == 1 + E.CLUSTER_CALIBRATION_SOURCES
        assert len(cal["rounds_ms"]) == len(cal["cluster_ms"]) == len(cal["sources"])
        assert all(t > 0 for t in cal["rounds_ms"] + cal["cluster_ms"])
        assert cal["chosen"] == (sum(cal["cluster_ms"]) < E.CLUSTER_MARGIN * sum(cal["rounds_ms"]))
        assert eng.whole_graph == cal["chosen"] == (eng.cluster_size > 0)
        paths = {lv.path for lv in res.levels}
        assert paths == {"cluster"} if cal["chosen"] else "cluster" not in paths
        for margin, want in ((1e9, True), (0.0, False)):
            monkeypatch.setattr(E, "CLUSTER_MARGIN", margin)
            eng = BFSEngine(g, CONFIG)
            res = eng.bfs(given[0], trace=True)
            _check(g, given[0], res, refs)
            assert eng.cluster_calibration["chosen"] is want and eng.whole_graph is want
            assert ("cluster" in {lv.path for lv in res.levels}) is want
            # the cluster, where kept, serves from its resident kernel; rounds kept: it returned
            assert eng.resident == (want and eng.zero_copy) and (E._RESIDENTS.get(id(eng)) is not None) == eng.resident
            assert (eng._res is not None) == eng.resident
            _check(g, given[1], eng.bfs(given[1]), refs)
    monkeypatch.setattr(E, "CLUSTER", "off")
    eng = BFSEngine(g, CONFIG)
    assert not eng.whole_graph and eng.cluster_size == 0 and not eng._cluster_pending
    _check(g, given[0], eng.bfs(given[0]), refs)
    assert eng.cluster_calibration is None


@pytest.mark.parametrize("zero_copy", [True, False])
@pytest.mark.parametrize("graphs", [True, False])
def test_copies_and_plain_launches(zero_copy, graphs, clustered, monkeypatch):
    """The source read and the state written zero-copy or with copies, replayed as a CUDA graph or
    launched directly: the same exact results and state."""
    monkeypatch.setattr(clustered, "ZERO_COPY", zero_copy)
    monkeypatch.setattr(clustered, "USE_CUDA_GRAPHS", graphs)
    g, sources = ZOO["directed"]
    eng = _engine(clustered, monkeypatch, g, (16, "auto", True, "off"))
    for _ in range(2):
        for s in sources:
            _check(g, s, eng.bfs(s), {})
            assert eng.read_state().tobytes() == eng.last_state.tobytes()
    assert (eng._wg_graph is not None) is graphs


def test_int64_offsets(clustered, monkeypatch):
    """The module built for int64 row offsets (forced here), rows read from global memory."""
    from autotune.engine import BFSEngine

    monkeypatch.setattr(clustered, "WHOLE_GRAPH_STAGE", "off")
    g, sources = ZOO["kron13"]
    eng = BFSEngine(g, CONFIG, offsets="int64")
    assert eng.whole_graph and eng.cluster_size and eng.eid64
    for s in sources:
        _check(g, s, eng.bfs(s), {})


def test_sssp_never_takes_it(clustered):
    """SSSP's relaxations are not final: its engine keeps the launch rounds."""
    from autotune.engine import SSSPEngine

    g, _ = ZOO["kron13"]
    eng = SSSPEngine(g, TraversalConfig(algorithm="sssp"))
    assert not eng.whole_graph and eng.cluster_size == 0


def _resident_cluster(E, monkeypatch, g):
    eng = _engine(E, monkeypatch, g, (16, "auto", True, "auto"))
    if not eng.resident:
        pytest.skip("the device does not map pinned host memory (the resident kernel needs it)")
    return eng


@pytest.mark.parametrize("n", [1001, 4096])
def test_resident_out_copy_split_over_the_blocks(n, clustered, monkeypatch):
    """The resident cluster kernel copies the results into a caller's array, each block one C-th of
    the buffer (n odd: the buffer's 8-byte words straddle distances and predecessors): equal to the
    engine's own buffer; not written when no array is given; an unaligned array copied after the
    answer; distances those of the replayed kernel."""
    rng = np.random.default_rng(n)
    src = rng.integers(0, n, 6 * n)
    dst = rng.integers(0, n, 6 * n)
    g = from_edges(src, dst, n, directed=True, name=f"random{n}", xp=np)
    eng = _resident_cluster(clustered, monkeypatch, g)
    rep = _engine(clustered, monkeypatch, g, (16, "auto", True, "off"))
    refs: dict = {}
    for s in (0, n // 3, n - 1):
        _check_out_copies(eng, s)
        res = eng.bfs(s, trace=True)
        _check(g, s, res, refs)
        np.testing.assert_array_equal(res.distances, rep.bfs(s).distances)


def test_resident_idle_return_relaunch_and_release(clustered, monkeypatch):
    """The resident cluster kernel returns when idle and is launched again (with no idle wait at all,
    most requests race its return: all exact); its launch asks a one-block resident kernel to return
    first; another engine's persistent-kernel launch rounds ask it to return; a device synchronize
    after release_resident does not wait for it."""
    import time

    import cupy

    from autotune.engine import BFSEngine

    clustered.release_resident()
    g, given = ZOO["kron13"]
    eng = _resident_cluster(clustered, monkeypatch, g)
    refs: dict = {}
    monkeypatch.setattr(clustered, "RESIDENT_IDLE_US", 200.0)
    _check(g, given[0], eng.bfs(given[0]), refs)
    time.sleep(0.02)
    assert eng._res_event.done
    _check(g, given[1], eng.bfs(given[1]), refs)
    monkeypatch.setattr(clustered, "RESIDENT_IDLE_US", 0.0)
    clustered.release_resident()
    for i in range(40):
        s = given[i % len(given)]
        _check(g, s, eng.bfs(s), refs)
    monkeypatch.setattr(clustered, "RESIDENT_IDLE_US", 1000.0)
    clustered.release_resident()
    # a one-block resident engine alive: the cluster's launch asks it to return
    monkeypatch.setattr(clustered, "WHOLE_GRAPH_MAX_EDGES", 48 * 1024)
    sg, ss = ZOO["directed"]
    small = BFSEngine(sg, TraversalConfig(load_balance="edge_mapped", small_frontier="single_block",
                                          frontier_limit=512))
    assert small.whole_graph and small.resident and not small.cluster_size
    _check(sg, ss[0], small.bfs(ss[0]), refs)
    assert small._res.live
    _check(g, given[0], eng.bfs(given[0]), refs)
    assert not small._res.live and eng._res.live and list(clustered._RESIDENTS) == [id(eng)]
    # the small engine's next launch leaves the cluster running
    _check(sg, ss[1], small.bfs(ss[1]), refs)
    assert small._res.live and eng._res.live
    # launch rounds with a persistent kernel: both return first
    monkeypatch.setattr(clustered, "CLUSTER", "off")
    big, bsrc = ZOO["kron17+hub"]
    other = BFSEngine(big, TraversalConfig(load_balance="binary_search", small_frontier="persistent",
                                           frontier_limit=8192))
    assert not other.whole_graph
    _check(big, bsrc[0], other.bfs(bsrc[0]), refs)
    assert not eng._res.live and not small._res.live and not clustered._RESIDENTS
    _check(g, given[1], eng.bfs(given[1]), refs)
    clustered.release_resident()
    t0 = time.perf_counter()
    cupy.cuda.Device().synchronize()
    assert time.perf_counter() - t0 < 0.5e-3 + 0.01
