"""GPU tests of the whole-graph BFS kernel (kernels/whole_graph.cu): a whole traversal in one launch of
one block, the visited bitmap and the frontier in its shared memory; exact against the CPU reference
(scipy.sparse.csgraph) and the Graph500 BFS-tree checks on the zoo and at its size limits."""
from __future__ import annotations

import numpy as np
import pytest

from autotune._kernels import WHOLE_GRAPH_EPT
from autotune.config import TraversalConfig
from autotune.graph import from_edges

from .test_engine_gpu import ZOO, _check

pytestmark = [pytest.mark.gpu, pytest.mark.whole_graph]

CONFIGS = [TraversalConfig(load_balance="edge_mapped", block_size=1024, duplicate_culling="hash",
                           small_frontier="single_block", frontier_limit=512),
           TraversalConfig(load_balance="binary_search", direction="push_pull", small_frontier="persistent",
                           frontier_limit=8192)]


@pytest.fixture
def any_size(monkeypatch):
    """No edge limit: every zoo graph of at most 65,536 vertices runs on the kernel (and no other graph
    on the cluster kernel, tests/test_cluster_graph_gpu.py)."""
    import autotune._engine as E

    monkeypatch.setattr(E, "WHOLE_GRAPH_MAX_EDGES", 1 << 40)
    monkeypatch.setattr(E, "CLUSTER", "off")
    return E


def _sources(g, given):
    deg = g.out_degrees(np)
    extra = [g.n_vertices - 1, int(np.argmax(deg))]
    if (deg == 0).any():
        extra.append(int(np.flatnonzero(deg == 0)[0]))
    return list(dict.fromkeys(list(given) + extra))


def _zoo_traversals(eng, g, given, path, pull):
    """Every source of :func:`_sources` traced, then *given[0]* untraced, each checked exact: every
    level on *path* (pushed unless *pull*), the whole traversal one launch."""
    refs: dict = {}
    for s in _sources(g, given):
        res = eng.bfs(s, trace=True)
        _check(g, s, res, refs)
        assert {lv.path for lv in res.levels} == {path}
        if not pull:
            assert {lv.direction for lv in res.levels} == {"push"}
        assert int(eng.last_state["iterations"]) == 1 and int(eng.last_state["level"]) == res.depth + 1
    _check(g, given[0], eng.bfs(given[0]), refs)


#: (steps a warp unrolls, CSR staged in shared memory ("auto") or read from global ("off"), pull levels)
VARIANTS = [(1, "auto", True), (WHOLE_GRAPH_EPT[-1], "off", True), (1, "off", False), (WHOLE_GRAPH_EPT[-1], "auto", False)]


def _variant(E, monkeypatch, variant):
    ept, stage, pull = variant
    monkeypatch.setattr(E, "WHOLE_GRAPH_EPT", ept)
    monkeypatch.setattr(E, "WHOLE_GRAPH_STAGE", stage)
    monkeypatch.setattr(E, "WHOLE_GRAPH_PULL", pull)


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: f"ept{v[0]}-stage_{v[1]}-{'pull' if v[2] else 'push'}")
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: c.label)
@pytest.mark.parametrize("name", [k for k, (g, _) in ZOO.items() if g.n_vertices <= 1 << 16])
def test_zoo_exact_whole_graph(name, cfg, variant, any_size, monkeypatch):
    """Every zoo graph that fits, whatever the config, in every variant of the kernel (steps of 32
    edges a warp unrolls, the CSR staged in shared memory or not, pull levels or not): one launch,
    every level traced on the whole-graph path, exact distances, valid BFS tree, depth and edges
    traversed; the engine reused."""
    from autotune.engine import BFSEngine

    _variant(any_size, monkeypatch, variant)
    g, given = ZOO[name]
    eng = BFSEngine(g, cfg)
    assert eng.whole_graph
    if variant[1] == "off":
        assert not eng.whole_graph_staged
    _zoo_traversals(eng, g, given, "whole_graph", variant[2])


def _sinks_and_hubs(n_sinks: int, hubs: list[tuple[int, int]]):
    """Directed: vertex 0 points at ``n_sinks`` sinks and at hubs placed among them (position in
    0's row, out-degree), each hub pointing at fresh vertices, every one of them a sink except one
    per hub that has one out-edge."""
    src, dst = [], []
    nxt = 1 + n_sinks + len(hubs)
    row0 = list(range(1, 1 + n_sinks))
    for i, (pos, deg) in enumerate(hubs):
        h = 1 + n_sinks + i
        row0.insert(min(pos, len(row0)), h)
        leaves = np.arange(nxt, nxt + deg)
        src += [h] * deg
        dst += leaves.tolist()
        src.append(int(leaves[0]))
        dst.append(nxt + deg)
        nxt += deg + 1
    src = [0] * len(row0) + src
    dst = row0 + dst
    return from_edges(np.array(src), np.array(dst), nxt, directed=True, name="sinks+hubs", xp=np)


@pytest.mark.parametrize("pull", [False, True])
@pytest.mark.parametrize("ept", WHOLE_GRAPH_EPT)
@pytest.mark.parametrize("n_sinks, hubs", [(3000, [(0, 5000)]), (3000, [(1500, 70), (2999, 4000)]),
                                          (1023, [(1023, 33)]), (5000, [(17, 1), (1025, 2), (4000, 31)])])
def test_rows_among_empty_rows(n_sinks, hubs, ept, pull, any_size, monkeypatch):
    """Frontiers of thousands of sinks (rounds of 1,024 vertices, most of degree 0) with a few rows of
    1-5,000 edges among them: each lane's search and its forward gallop over empty rows land on the
    right row at every step (exact against the reference); the same with pull levels allowed."""
    from autotune.engine import BFSEngine

    monkeypatch.setattr(any_size, "WHOLE_GRAPH_EPT", ept)
    monkeypatch.setattr(any_size, "WHOLE_GRAPH_PULL", pull)
    g = _sinks_and_hubs(n_sinks, hubs)
    eng = BFSEngine(g, CONFIGS[0])
    assert eng.whole_graph
    refs: dict = {}
    for s in (0, 1 + n_sinks):
        _check(g, s, eng.bfs(s), refs)


def _pull_levels_exact(eng, g, given, refs) -> int:
    """Traverse from every test source of *g*, check each result exact; the pull levels run in all."""
    pulled = 0
    for s in _sources(g, given):
        res = eng.bfs(s, trace=True)
        _check(g, s, res, refs)
        pulled += sum(lv.direction == "pull" for lv in res.levels)
    return pulled


def _random_digraph(n: int):
    """A random digraph of n vertices and 6 n edges (seeded by n), and two sources: its largest
    out-degree and its last vertex with an out-edge."""
    rng = np.random.default_rng(n)
    m = 6 * n
    g = from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n, directed=True, name=f"random{n}", xp=np)
    deg = g.out_degrees(np)
    return g, (int(np.argmax(deg)), int(np.flatnonzero(deg > 0)[-1]))


def _late_pull_levels(res, n: int) -> int:
    """Pull levels of a traced result that ran with at most n / 4 vertices unvisited."""
    visited, late = 0, 0
    for lv in res.levels:
        visited += lv.frontier_size
        late += lv.direction == "pull" and 4 * (n - visited) <= n
    return late


_ROUND_SIZES = [1000, 1025, 2049, 6000, 33_000, 50_001, 1 << 16]


@pytest.mark.parametrize("n,packed", [(n, "auto") for n in _ROUND_SIZES]
                         + [(n, False) for n in _ROUND_SIZES if n > 2048])
def test_pull_levels_round_sizes(n, packed, any_size, monkeypatch):
    """Pull levels visit every vertex once in rounds of 1,024 threads: random digraphs of one round,
    of a last round of one vertex, of several rounds and of the kernel's largest size (a last bitmap word
    shorter than 32 vertices), pull levels forced, from a hub and from a late vertex: every result exact,
    pull levels taken, late ones (at most n / 4 vertices left unvisited) among them; past two rounds
    with the packed late pull levels (the engine's choice) and without them."""
    from autotune.engine import BFSEngine

    g, sources = _random_digraph(n)
    monkeypatch.setattr(any_size, "WHOLE_GRAPH_PULL", True)
    monkeypatch.setattr(any_size, "WHOLE_GRAPH_PACKED", packed)
    eng = BFSEngine(g, CONFIGS[0])
    assert eng.whole_graph
    assert eng.whole_graph_packed == (packed == "auto" and n > 2048)
    refs: dict = {}
    pulled = late = 0
    for s in sources:
        res = eng.bfs(s, trace=True)
        _check(g, s, res, refs)
        pulled += sum(lv.direction == "pull" for lv in res.levels)
        late += _late_pull_levels(res, n)
    assert pulled > 0 and late > 0


@pytest.mark.parametrize("serial", [0, 1, 8, 32])
@pytest.mark.parametrize("stage", ["auto", "off"])
@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: c.label)
@pytest.mark.parametrize("name", ["kron13", "loops+dups", "directed"])
def test_pull_levels(name, cfg, stage, serial, any_size, monkeypatch):
    """Dense levels run bottom-up inside the kernel (GAP's rule): on these graphs some level pulls
    (undirected: the graph's own CSR, staged or not; directed: the in-edges, built for a push-only
    config too), and every result is exact, whether a thread scans none, one, eight or 32 in-edges alone
    before its warp takes the rest (``WHOLE_GRAPH_PULL_SERIAL``); with pull levels off, no level pulls."""
    from autotune.engine import BFSEngine

    monkeypatch.setattr(any_size, "WHOLE_GRAPH_STAGE", stage)
    monkeypatch.setattr(any_size, "WHOLE_GRAPH_PULL_SERIAL", serial)
    monkeypatch.setattr(any_size, "WHOLE_GRAPH_PULL", True)
    g, given = ZOO[name]
    eng = BFSEngine(g, cfg)
    assert eng.whole_graph
    refs: dict = {}
    assert _pull_levels_exact(eng, g, given, refs) > 0
    monkeypatch.setattr(any_size, "WHOLE_GRAPH_PULL", False)
    eng = BFSEngine(g, cfg)
    res = eng.bfs(given[0], trace=True)
    _check(g, given[0], res, refs)
    assert all(lv.direction == "push" for lv in res.levels)


def test_staged_when_the_csr_fits(any_size):
    """The CSR is staged in shared memory when it fits beside the bitmaps and the queue (email-Eu-core's
    size fits, kron13's 8,192 vertices and ~250,000 edges do not), and the kernel's shared memory is
    what whole_graph_smem_bytes says."""
    from autotune.engine import BFSEngine

    g, _ = ZOO["directed"]
    eng = BFSEngine(g, CONFIGS[0])
    assert eng.whole_graph and eng.whole_graph_staged
    pull = any_size.whole_graph_pull(g.n_vertices, g.n_edges)
    assert eng.whole_graph_pull == pull
    assert eng._wg_smem == any_size.whole_graph_smem_bytes(g.n_vertices, g.n_edges, pull=pull, staged=True)
    g, _ = ZOO["kron13"]
    eng = BFSEngine(g, CONFIGS[0])
    assert eng.whole_graph and not eng.whole_graph_staged
    pull = any_size.whole_graph_pull(g.n_vertices, g.n_edges)
    assert eng.whole_graph_pull == pull
    assert eng._wg_smem == any_size.whole_graph_smem_bytes(g.n_vertices, pull=pull)


def test_pull_levels_auto(any_size, monkeypatch):
    """``WHOLE_GRAPH_PULL = "auto"``: pull levels on a graph of mean out-degree >= the threshold
    (kron13, ~30 edges per vertex: some level pulls), none on a sparser one (the zoo's grid, < 4); both
    exact."""
    from autotune.engine import BFSEngine

    monkeypatch.setattr(any_size, "WHOLE_GRAPH_PULL", "auto")
    for name, want in (("kron13", True), ("grid", False)):
        g, given = ZOO[name]
        assert any_size.whole_graph_pull(g.n_vertices, g.n_edges) == want
        eng = BFSEngine(g, CONFIGS[0])
        assert eng.whole_graph and eng.whole_graph_pull == want
        assert (_pull_levels_exact(eng, g, given, {}) > 0) == want


def test_edge_limit_and_switch(monkeypatch):
    """The kernel runs graphs of at most WHOLE_GRAPH_MAX_EDGES edges; "off" keeps the config's
    kernels; SSSP (relaxations are not final) never uses it."""
    import autotune._engine as E
    from autotune.engine import BFSEngine, SSSPEngine

    g, sources = ZOO["disconnected"]  # 410 vertices
    assert E.whole_graph_fits(g.n_vertices, g.n_edges, 232448)
    assert BFSEngine(g, CONFIGS[0]).whole_graph
    monkeypatch.setattr(E, "WHOLE_GRAPH_MAX_EDGES", g.n_edges - 1)
    eng = BFSEngine(g, CONFIGS[0])  # past the limit: the cluster kernel (calibrated) where the device has clusters
    assert not eng.whole_graph
    _check(g, sources[0], eng.bfs(sources[0]), {})
    assert (eng.cluster_calibration is not None) == E.cluster_fits(g.n_vertices, g.n_edges, eng.props["cc"])
    monkeypatch.setattr(E, "CLUSTER", "off")
    assert not BFSEngine(g, CONFIGS[0]).whole_graph
    monkeypatch.setattr(E, "CLUSTER", "auto")
    monkeypatch.setattr(E, "WHOLE_GRAPH_MAX_EDGES", g.n_edges)
    monkeypatch.setattr(E, "WHOLE_GRAPH", "off")
    eng = BFSEngine(g, CONFIGS[0])
    assert not eng.whole_graph
    _check(g, sources[0], eng.bfs(sources[0]), {})
    monkeypatch.setattr(E, "WHOLE_GRAPH", "auto")
    assert not SSSPEngine(g, TraversalConfig(algorithm="sssp")).whole_graph


@pytest.mark.parametrize("n", [2, 3, 1 << 16])
def test_size_limits(n, any_size):
    """Paths of two and three vertices and of 65,536 (ids up to 2**16 - 1 in the 16-bit queue, the
    largest bitmap, 65,535 levels, past the 48 KB shared-memory default); 65,537 do not fit."""
    from autotune.engine import BFSEngine

    a = np.arange(n - 1)
    g = from_edges(a, a + 1, n, directed=False, name=f"path{n}", xp=np)
    eng = BFSEngine(g, CONFIGS[0])
    assert eng.whole_graph
    for s in dict.fromkeys([0, n - 1, n // 2]):
        _check(g, s, eng.bfs(s, trace=n < 1000), {})
    if n == 1 << 16:
        a = np.arange(n)
        assert not BFSEngine(from_edges(a, a + 1, n + 1, directed=False, xp=np), CONFIGS[0]).whole_graph


@pytest.mark.parametrize("resident", [True, False])
@pytest.mark.parametrize("zero_copy", [True, False])
@pytest.mark.parametrize("graphs", [True, False])
def test_copies_and_plain_launches(zero_copy, graphs, resident, any_size, monkeypatch):
    """The source read and the state written zero-copy or with copies, replayed as a CUDA graph or
    launched directly, or served by the resident kernel (zero-copy only): the same exact results and
    state."""
    from autotune.engine import BFSEngine

    monkeypatch.setattr(any_size, "ZERO_COPY", zero_copy)
    monkeypatch.setattr(any_size, "USE_CUDA_GRAPHS", graphs)
    monkeypatch.setattr(any_size, "RESIDENT", "auto" if resident else "off")
    g, sources = ZOO["directed"]
    eng = BFSEngine(g, CONFIGS[0])
    assert eng.whole_graph and eng.zero_copy is (zero_copy and any_size.host_memory_mapped())
    assert eng.resident is (resident and eng.zero_copy)
    for _ in range(2):
        for s in sources:
            res = eng.bfs(s)
            _check(g, s, res, {})
            assert eng.read_state().tobytes() == eng.last_state.tobytes()
    assert (eng._wg_graph is not None) is (graphs and not eng.resident)


@pytest.mark.parametrize("stage_in", ["auto", "off"])
@pytest.mark.parametrize("resident", ["auto", "off"])
@pytest.mark.parametrize("name", ["directed", "loops+dups", "kron13"])
def test_in_edges_staged(name, stage_in, resident, any_size, monkeypatch):
    """Pull levels of a directed graph reading its in-edges staged in shared memory (where they fit
    beside the staged CSR) or from global memory; an undirected graph (kron13) reads its staged CSR:
    every source exact, replayed or resident."""
    from autotune.engine import BFSEngine

    monkeypatch.setattr(any_size, "WHOLE_GRAPH_PULL", True)
    monkeypatch.setattr(any_size, "WHOLE_GRAPH_STAGE_IN", stage_in)
    monkeypatch.setattr(any_size, "RESIDENT", resident)
    g, given = ZOO[name]
    eng = BFSEngine(g, CONFIGS[1])
    assert eng.whole_graph and eng.whole_graph_pull
    want = stage_in == "auto" and g.directed and eng.whole_graph_staged
    assert eng.whole_graph_staged_in is want
    if want:
        assert eng._wg_smem == any_size.whole_graph_smem_bytes(g.n_vertices, g.n_edges, pull=True, staged=True,
                                                               staged_in=True)
    _zoo_traversals(eng, g, given, "whole_graph", True)


@pytest.mark.parametrize("name", ["kron13", "directed"])
def test_int64_offsets(name, any_size):
    """The module built for int64 row offsets (graphs past 2**31 edges use it; here forced), the CSR
    read from global memory (kron13) and staged (directed)."""
    from autotune.engine import BFSEngine

    g, sources = ZOO[name]
    eng = BFSEngine(g, CONFIGS[0], offsets="int64")
    assert eng.whole_graph and eng.eid64
    for s in sources:
        _check(g, s, eng.bfs(s), {})


def test_run_outputs_follow_the_input():
    """Through ``autotune.run`` (the default path for a small graph): exact, validated, the arrays
    NumPy for a host graph and CuPy for a device graph."""
    import cupy

    import autotune._engine as E
    from autotune.engine import run
    from autotune.graph import CSRGraph

    g, sources = ZOO["loops+dups"]
    assert g.n_edges <= E.WHOLE_GRAPH_MAX_EDGES
    res = run(g, CONFIGS[0], source=sources[1], validate=True)
    assert isinstance(res.distances, np.ndarray) and g._cache["engine"].whole_graph
    _check(g, sources[1], res, {})
    ro, ci = g.device()
    dg = CSRGraph(ro, ci, directed=True, name="loops+dups-dev")
    res_d = run(dg, CONFIGS[0], source=sources[1])
    assert isinstance(res_d.distances, cupy.ndarray) and isinstance(res_d.predecessors, cupy.ndarray)
    np.testing.assert_array_equal(res_d.distances.get(), res.distances)
