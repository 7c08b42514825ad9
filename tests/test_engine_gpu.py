"""GPU tests: every technique × option × small-frontier path × direction on a graph zoo, exact
against the CPU reference (scipy.sparse.csgraph) and the Graph500 BFS-tree checks."""
from __future__ import annotations

import numpy as np
import pytest

from autotune.config import BLOCK_SIZES, TraversalConfig
from autotune.graph import from_edges, load_graph
from autotune.reference import bfs_reference, validate_bfs

from .conftest import hub_tree_edges, shared_graphs_dir

pytestmark = pytest.mark.gpu

VW = (1, 2, 4, 8, 16, 32, "dynamic")


def all_configs():
    """Every technique x virtual warp size x block size (multi-block push only), then every
    technique with each small-frontier path and each direction rule (knobs set so that each path
    really runs on the zoo)."""
    out = []
    for b in BLOCK_SIZES:
        for vw in VW:
            out.append(TraversalConfig(load_balance="vertex_mapped", virtual_warp_size=vw, block_size=b,
                                       small_frontier="none"))
        out.append(TraversalConfig(load_balance="vertex_mapped", virtual_warp_size="dynamic",
                                   min_virtual_warp_size=1, block_size=b, small_frontier="none"))
        out.append(TraversalConfig(load_balance="binary_search", block_size=b, small_frontier="none"))
    techniques = [dict(load_balance="vertex_mapped", virtual_warp_size=vw) for vw in (1, 32, "dynamic")]
    techniques.append(dict(load_balance="binary_search"))
    directions = [dict(direction="push"), dict(direction="push_pull", switch_rule="alpha_beta", alpha=60, beta=48),
                  dict(direction="push_pull", switch_rule="alpha_beta", alpha=4, beta=6),
                  dict(direction="push_pull", switch_rule="alpha_beta", alpha=4, beta=6, pull_gate="beta"),
                  dict(direction="push_pull", switch_rule="hub_ratio", gamma=0.1, hub_degree=64, beta=48)]
    smalls = [dict(small_frontier="none"), dict(small_frontier="single_block", frontier_limit=512),
              dict(small_frontier="single_block", frontier_limit=8192)]
    for t in techniques:
        for d in directions:
            for sm in smalls:
                for b in (128, 1024):
                    c = TraversalConfig(block_size=b, **t, **d, **sm)
                    if c not in out:
                        out.append(c)
    out += [c for c in option_matrix() if c not in out]
    return out


def option_matrix():
    """Every technique with each of its options (thresholds low enough to trigger on the zoo, and the
    papers' defaults) and the supports together, × small-frontier path (none / single-block /
    persistent) × direction (push / push_pull with and without the hub cache)."""
    from autotune.sweep import grid

    variants = list(grid())
    extra = [
        dict(load_balance="vertex_mapped", defer_outliers=256),
        dict(load_balance="vertex_mapped", defer_outliers=256, supplementary_queues=65536, warp_gathering=128),
        dict(load_balance="vertex_mapped", work_chunk=256, block_gathering=4096),
        dict(load_balance="vertex_mapped", work_chunk=32, virtual_warp_size=1, duplicate_culling="hash"),
        dict(load_balance="vertex_mapped", warp_gathering=32, block_gathering="block_size", defer_outliers=2048,
             supplementary_queues=65536, work_chunk=32),
        dict(load_balance="scan_mapped", warp_gathering=128, block_gathering=4096, supplementary_queues=65536),
        dict(load_balance="scan_mapped", duplicate_culling="hash", supplementary_queues=65536),
        dict(load_balance="degree_classified", dc_small=16, dc_middle=128, dc_large=4096),
        dict(load_balance="degree_classified", dc_small=64, dc_middle=1024, dc_large=65536, duplicate_culling="hash"),
        dict(load_balance="binary_search", chunk_size=2048, duplicate_culling="hash"),
    ]
    variants += [TraversalConfig(**e) for e in extra]
    out = []
    smalls = [dict(small_frontier="none"), dict(small_frontier="single_block", frontier_limit=512),
              dict(small_frontier="persistent", frontier_limit=2048)]
    directions = [dict(direction="push"),
                  dict(direction="push_pull", switch_rule="alpha_beta", alpha=4, beta=6, hub_cache="on"),
                  dict(direction="push_pull", switch_rule="hub_ratio", gamma=0.1, hub_degree=64, beta=48)]
    for v in variants:
        for sm in smalls:
            for d in directions:
                for b in ((128, 1024) if sm["small_frontier"] == "persistent" else (v.block_size,)):
                    c = v.with_(block_size=b, **sm, **d)
                    if c not in out:
                        out.append(c)
    return out


CONFIGS = all_configs()


def _zoo():
    rng = np.random.default_rng(7)
    z = {}
    n = 3000
    z["path"] = (from_edges(np.arange(n - 1), np.arange(1, n), n, directed=False, name="path", xp=np), [0, n // 2])
    leaves = 6000
    z["star"] = (from_edges(np.zeros(leaves, dtype=np.int64), np.arange(1, leaves + 1), leaves + 1, directed=False,
                            name="star", xp=np), [0, 17])
    k = 80
    s, d = np.meshgrid(np.arange(k), np.arange(k))
    z["complete"] = (from_edges(s.ravel(), d.ravel(), k, directed=False, name="complete", xp=np), [0, 5])
    r = c = 60
    idx = np.arange(r * c).reshape(r, c)
    src = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    dst = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    z["grid"] = (from_edges(src, dst, r * c, directed=False, name="grid", xp=np), [0, r * c // 2 + 7])
    # two components + isolated vertices (ids 400..409 have no edges)
    a = rng.integers(0, 200, 1500)
    b = rng.integers(0, 200, 1500)
    a2 = rng.integers(200, 400, 1500)
    b2 = rng.integers(200, 400, 1500)
    z["disconnected"] = (from_edges(np.r_[a, a2], np.r_[b, b2], 410, directed=False, name="disconnected", xp=np),
                         [0, 250, 405])
    # directed: random digraph + a one-way chain
    a = rng.integers(0, 2000, 9000)
    b = rng.integers(0, 2000, 9000)
    chain = np.arange(2000, 2500)
    z["directed"] = (from_edges(np.r_[a, chain[:-1]], np.r_[b, chain[1:]], 2500, directed=True, name="directed",
                                xp=np), [0, 2000, 2499])
    # self-loops and duplicates in the input (removed by the builder)
    a = rng.integers(0, 500, 5000)
    b = rng.integers(0, 500, 5000)
    a = np.r_[a, a[:1000], np.arange(100)]
    b = np.r_[b, b[:1000], np.arange(100)]
    g = from_edges(a, b, 500, directed=True, name="loops+dups", xp=np)
    assert g.n_self_loops_removed >= 100 and g.n_duplicates_removed >= 1000
    z["loops+dups"] = (g, [0, 3])
    from autotune.generators import kronecker

    kg = kronecker(13, edge_factor=16, seed=3, xp=np)
    hub = int(np.argmax(kg.out_degrees(np)))
    z["kron13"] = (kg, [hub, int(np.flatnonzero(kg.out_degrees(np) == 1)[0])])
    # Kronecker (scale 17) plus a giant hub of 120,000 edges (> 10**5: extreme class, supplementary
    # queues, deferred outliers, block gathering all trigger)
    k16 = kronecker(17, edge_factor=4, seed=5, xp=np)
    n16 = k16.n_vertices + 1
    ro, ci = k16.row_offsets, k16.column_indices
    src = np.repeat(np.arange(k16.n_vertices), np.diff(ro))
    leaves = rng.choice(k16.n_vertices, 120_000, replace=False)
    giant = n16 - 1
    gh = from_edges(np.r_[src, np.full(leaves.size, giant)], np.r_[ci, leaves], n16, directed=False,
                    name="kron17+hub", xp=np)
    assert int(gh.out_degrees(np)[giant]) == 120_000
    z["kron17+hub"] = (gh, [giant, int(leaves[0])])
    return z


ZOO = _zoo()


@pytest.fixture(scope="module")
def device_zoo():
    # upload once per module
    for g, _ in ZOO.values():
        g.device()
    return ZOO


def _check(g, src, res, ref_cache):
    key = (g.name, src)
    if key not in ref_cache:
        ref_cache[key] = bfs_reference(g, src)[0]
    ref = ref_cache[key]
    np.testing.assert_array_equal(res.distances, ref)
    validate_bfs(g, src, res.distances, res.predecessors, reference_distances=ref)
    assert res.depth == int(ref.max())
    assert res.edges_traversed == int(g.out_degrees(np)[ref >= 0].sum())
    if res.levels:  # traced runs: every reached vertex appears in exactly one frontier
        assert sum(lv.frontier_size for lv in res.levels) == int((ref >= 0).sum())
        assert len(res.levels) == res.depth + 1


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: c.label)
def test_zoo_exact(cfg, device_zoo):
    from autotune.engine import BFSEngine

    refs = {}
    for name, (g, sources) in device_zoo.items():
        eng = BFSEngine(g, cfg)
        for s in sources:
            res = eng.bfs(s, trace=True)
            _check(g, s, res, refs)
            # the same engine is reusable: a second traversal gives the same distances
        res2 = eng.bfs(sources[0], trace=False)
        _check(g, sources[0], res2, refs)


def test_isolated_source():
    from autotune.engine import run

    g, _ = ZOO["disconnected"]
    res = run(g, TraversalConfig(), source=405, validate=True)
    assert res.depth == 0 and res.n_reached == 1 and res.edges_traversed == 0
    assert res.predecessors[405] == 405


def test_dynamic_virtual_warp_trace_follows_bfs4k_rule():
    from autotune.engine import BFSEngine

    g, _ = ZOO["kron13"]
    cfg = TraversalConfig(load_balance="vertex_mapped", virtual_warp_size="dynamic", min_virtual_warp_size=2,
                          small_frontier="none")
    eng = BFSEngine(g, cfg)
    res = eng.bfs(0 if g.out_degrees(np)[0] else int(np.flatnonzero(g.out_degrees(np))[0]), trace=True)
    for lv in res.levels:
        ratio = eng.resident_threads // lv.frontier_size
        expect = 32 if ratio >= 32 else max(1, 1 << (int(ratio).bit_length() - 1)) if ratio >= 1 else 1
        assert lv.virtual_warp_size == max(expect, 2)


def test_real_graphs_all_techniques():
    d = shared_graphs_dir()
    if d is None:
        pytest.skip("real graphs not found (set AUTOTUNE_SHARED_GRAPHS or copy ../shared/graphs to .graphs)")
    from autotune.engine import BFSEngine
    from autotune.graph import load_graph
    from autotune.measure import select_sources

    files = sorted(p for p in d.iterdir() if p.name.endswith(".gz"))
    assert files
    for p in files:
        g = load_graph(str(p))
        for cfg in (TraversalConfig(), TraversalConfig(load_balance="vertex_mapped", virtual_warp_size=4),
                    TraversalConfig(load_balance="binary_search")):
            eng = BFSEngine(g, cfg)
            for s in select_sources(g, 3, seed=1):
                res = eng.bfs(int(s), trace=False)
                validate_bfs(g, int(s), res.distances, res.predecessors)


def test_device_memory_check_reports_bytes():
    import cupy

    from autotune.engine import check_device_memory
    from autotune.errors import DeviceMemoryError

    free, total = cupy.cuda.runtime.memGetInfo()
    with pytest.raises(DeviceMemoryError, match="bytes"):
        check_device_memory(total * 4, "test")


def test_measurement_harness_gpu_and_scipy_same_sources():
    from autotune.measure import GPURunner, ScipyRunner, compare

    g, _ = ZOO["kron13"]
    ms = compare(g, [GPURunner(g, TraversalConfig()), ScipyRunner(g)], n_sources=4, seed=0, validate=True)
    assert all(m.valid for m in ms), [m.error for m in ms]
    assert ms[0].sources == ms[1].sources
    assert ms[0].edges == ms[1].edges
    assert ms[0].depths == ms[1].depths
    assert ms[0].gteps > 0 and ms[0].timer == "cuda-events"


def _paths(res):
    return {(lv.direction, lv.path) for lv in res.levels}


@pytest.mark.parametrize("lb", ["vertex_mapped", "binary_search"])
def test_single_block_hand_over_both_ways(lb):
    """Small first levels run in the single-block kernel, the explosion in the multi-block one, and the
    tail back in the single-block kernel: two hand-overs, both exact."""
    from autotune.engine import BFSEngine

    g, _ = ZOO["kron13"]
    cfg = TraversalConfig(load_balance=lb, small_frontier="single_block", frontier_limit=512)
    eng = BFSEngine(g, cfg)
    src = int(np.flatnonzero(g.out_degrees(np) == 1)[0])  # a leaf: tiny first levels
    res = eng.bfs(src, trace=True)
    _check(g, src, res, {})
    where = [lv.path for lv in res.levels]
    assert where[0] == "single_block" and "multi_block" in where and where[-1] == "single_block", where
    for lv in res.levels:  # single-block only below the limit (and 16x as many edges)
        if lv.path == "single_block":
            assert lv.frontier_size <= 512, lv
        else:
            deg = g.out_degrees(np)
            frontier = np.flatnonzero(res.distances == lv.level)
            assert lv.frontier_size > 512 or int(deg[frontier].sum()) > 512 * 16, lv
    # a high-diameter graph runs every level inside the single-block kernel
    g2, _ = ZOO["grid"]
    res2 = BFSEngine(g2, TraversalConfig(small_frontier="single_block", frontier_limit=512)).bfs(0, trace=True)
    _check(g2, 0, res2, {})
    assert {lv.path for lv in res2.levels} == {"single_block"}
    assert all(lv.us is not None and lv.us >= 0 for lv in res2.levels)


def _hub_fan_graph(n_hubs=4, n_leaves=10_000):
    """Source 0 -> n_hubs hubs -> every leaf, the leaves a chain: the second level is a frontier of
    n_hubs vertices with n_hubs * n_leaves out-edges against n_leaves unexplored ones, so Beamer's rule
    pulls it although it holds far fewer than n / beta vertices."""
    from .conftest import csr_graph

    hubs = np.arange(1, n_hubs + 1)
    leaves = np.arange(n_hubs + 1, n_hubs + 1 + n_leaves)
    edges = [np.stack([np.zeros_like(hubs), hubs], 1),
             np.stack([np.repeat(hubs, n_leaves), np.tile(leaves, n_hubs)], 1),
             np.stack([leaves[:-1], leaves[1:]], 1)]
    return csr_graph(n_hubs + 1 + n_leaves, np.concatenate(edges))


@pytest.mark.parametrize("lb", ["vertex_mapped", "binary_search", "edge_mapped"])
def test_pull_gate_keeps_a_small_frontier_of_hubs_push(lb, monkeypatch):
    """pull_gate='beta': a frontier below n / beta vertices is pushed however many out-edges its hubs
    have, where the ungated rule pulls it; both exact, and no pull level of the gated run starts on a
    frontier below n / beta (only a pull phase's own later levels may be that small). The one-launch
    kernels (which always gate) are off, so the config's own levels run."""
    import autotune._engine as E
    from autotune.engine import BFSEngine

    monkeypatch.setattr(E, "WHOLE_GRAPH", "off")
    monkeypatch.setattr(E, "CLUSTER", "off")

    g = _hub_fan_graph()
    base = TraversalConfig(load_balance=lb, direction="push_pull", alpha=15, beta=18, small_frontier="none")
    runs = {}
    for gate in ("off", "beta"):
        res = BFSEngine(g, base.with_(pull_gate=gate)).bfs(0, trace=True)
        _check(g, 0, res, {})
        runs[gate] = [(lv.frontier_size, lv.direction) for lv in res.levels]
    assert runs["off"][1] == (4, "pull"), runs["off"]   # Beamer's rule pulls the four hubs
    assert runs["beta"][1] == (4, "push"), runs["beta"]  # the gate keeps them push
    for i, (size, d) in enumerate(runs["beta"]):
        if d == "pull" and (i == 0 or runs["beta"][i - 1][1] != "pull"):
            assert size >= g.n_vertices / 18, runs["beta"]


@pytest.mark.parametrize("rule", [dict(switch_rule="alpha_beta", alpha=60, beta=18),
                                  dict(switch_rule="hub_ratio", gamma=0.1, hub_degree=64, beta=18)])
@pytest.mark.parametrize("lb", ["vertex_mapped", "binary_search"])
def test_push_pull_switches_both_ways(rule, lb):
    from autotune.engine import BFSEngine

    g, _ = ZOO["kron13"]
    cfg = TraversalConfig(load_balance=lb, direction="push_pull", small_frontier="none", **rule)
    res = BFSEngine(g, cfg).bfs(0 if g.out_degrees(np)[0] else 1, trace=True)
    _check(g, res.source, res, {})
    dirs = [lv.direction for lv in res.levels]
    assert dirs[0] == "push" and "pull" in dirs, dirs
    first_pull = dirs.index("pull")
    assert "push" in dirs[first_pull:], dirs  # switched back for the tail


def test_pull_on_directed_graph_uses_in_edges():
    from autotune.engine import BFSEngine

    g, sources = ZOO["directed"]
    cfg = TraversalConfig(direction="push_pull", switch_rule="alpha_beta", alpha=60, beta=48, small_frontier="none")
    eng = BFSEngine(g, cfg)
    refs = {}
    saw_pull = False
    for s in sources:
        res = eng.bfs(s, trace=True)
        _check(g, s, res, refs)
        saw_pull |= any(lv.direction == "pull" for lv in res.levels)
    assert saw_pull
    assert "transpose" in g._cache


@pytest.mark.parametrize("lb", ["vertex_mapped", "binary_search", "degree_classified"])
def test_persistent_hand_over_both_ways(lb):
    """The cooperative persistent kernel runs the small levels with grid barriers, hands the explosion
    to the multi-block kernels and takes the tail back; a high-diameter graph runs in it entirely."""
    from autotune.engine import BFSEngine

    g, _ = ZOO["kron13"]
    cfg = TraversalConfig(load_balance=lb, small_frontier="persistent", frontier_limit=512)
    eng = BFSEngine(g, cfg)
    src = int(np.flatnonzero(g.out_degrees(np) == 1)[0])
    res = eng.bfs(src, trace=True)
    _check(g, src, res, {})
    where = [lv.path for lv in res.levels]
    assert where[0] == "persistent" and "multi_block" in where and where[-1] == "persistent", where
    for lv in res.levels:
        if lv.path == "persistent":
            assert lv.frontier_size <= 512, lv
    g2, _ = ZOO["grid"]
    eng2 = BFSEngine(g2, TraversalConfig(load_balance=lb, small_frontier="persistent", frontier_limit=512))
    assert eng.persist_hubs and not eng2.persist_hubs  # kron13 has hubs, the grid's degrees are <= 4
    res2 = eng2.bfs(0, trace=True)
    _check(g2, 0, res2, {})
    assert {lv.path for lv in res2.levels} == {"persistent"}


def _hub_tree(directed: bool, seed: int = 21):
    """conftest.hub_tree_edges with a 40-vertex chain, as a graph and three sources."""
    src, dst, n, first_leaf = hub_tree_edges(np.random.default_rng(seed), chain=40)
    g = from_edges(src, dst, n, directed=directed, name=f"hub-tree-{directed}", xp=np)
    return g, [0, 1, int(first_leaf + 7)]


@pytest.mark.parametrize("block", BLOCK_SIZES)
@pytest.mark.parametrize("directed", [False, True])
def test_persistent_hub_levels_spread_over_the_block(block, directed):
    """Levels holding hubs of 40-3,000 out-edges run whole in the persistent kernel, their edges
    spread over the block's threads (block-balanced rounds) instead of 32 per warp: exact distances
    and a valid BFS tree for every block size, push and push/pull."""
    from autotune.engine import BFSEngine

    g, sources = _hub_tree(directed)
    refs = {}
    for d in (dict(direction="push"), dict(direction="push_pull", switch_rule="alpha_beta", alpha=15, beta=18)):
        for lb in ("binary_search", "vertex_mapped"):
            cfg = TraversalConfig(load_balance=lb, block_size=block, small_frontier="persistent",
                                  frontier_limit=131072, **d)
            eng = BFSEngine(g, cfg)
            assert eng.persist_hubs  # out-degrees above 64: the block-balanced form
            for s in sources:
                res = eng.bfs(s, trace=True)
                _check(g, s, res, refs)
                if d["direction"] == "push":
                    assert {lv.path for lv in res.levels} == {"persistent"}, res.levels


def test_single_block_edge_limit_hands_over_a_hub_level():
    """A one-vertex frontier with 120,000 edges exceeds the single-block edge limit (16 x 512): that
    level must run on the multi-block kernels."""
    from autotune.engine import BFSEngine

    g, (giant, leaf) = ZOO["kron17+hub"]
    res = BFSEngine(g, TraversalConfig(small_frontier="single_block", frontier_limit=512)).bfs(giant, trace=True)
    _check(g, giant, res, {})
    assert res.levels[0].frontier_size == 1 and res.levels[0].path == "multi_block"


def _hub_and_mesh_levels():
    """Directed: source 0 -> 4 hubs of 3,000 leaves each (level 1: 4 vertices, 12,000 edges), and
    0 -> 2,000 vertices of 6 leaves each (with the hubs, level 1: 2,004 vertices, 24,000 edges);
    every leaf then points at one vertex of a short chain, so the traversal goes on past them."""
    src, dst = [], []
    nxt = 1
    hubs = list(range(nxt, nxt + 4)); nxt += 4
    mids = list(range(nxt, nxt + 2000)); nxt += 2000
    leaves = []
    for h in hubs:
        src += [0, *([h] * 3000)]
        dst += [h, *range(nxt, nxt + 3000)]
        leaves += list(range(nxt, nxt + 3000)); nxt += 3000
    return src, dst, mids, leaves, nxt


@pytest.mark.parametrize("lb, hub_rule", [("binary_search", True), ("edge_mapped", True), ("scan_mapped", False),
                                          ("vertex_mapped", False), ("degree_classified", False)])
@pytest.mark.parametrize("mesh", [False, True])
def test_single_block_sends_hub_levels_multi_block(lb, hub_rule, mesh, monkeypatch):
    """A single-block level of more than 8,192 edges whose frontier's mean out-degree exceeds
    SB_HUB_DEGREE runs multi-block on binary_search and edge_mapped (SB_HUB_TECHNIQUES) and stays
    single-block on the others (scan_mapped, vertex_mapped, degree_classified); a level of as many edges over 2,000
    low-degree vertices stays single-block everywhere; exact either way, and the rule off
    (SB_HUB_DEGREE = 0) keeps the hub level single-block."""
    import autotune._engine as E
    from autotune.engine import BFSEngine

    assert E.SB_HUB_DEGREE == 16  # the shipped threshold
    assert E.SB_HUB_TECHNIQUES == ("binary_search", "edge_mapped")
    monkeypatch.setattr(E, "WHOLE_GRAPH", "off")
    src, dst, mids, leaves, nxt = _hub_and_mesh_levels()
    if mesh:  # the hubs' level also holds 2,000 vertices of 6 out-edges: mean degree ~12
        for v in mids:
            src += [0, *([v] * 6)]
            dst += [v, *range(nxt, nxt + 6)]
            nxt += 6
    chain = list(range(nxt, nxt + 5)); nxt += 5
    src += leaves[::100] + chain[:-1]
    dst += [chain[0]] * len(leaves[::100]) + chain[1:]
    g = from_edges(np.array(src), np.array(dst), nxt, directed=True, name=f"hubs+mesh{int(mesh)}", xp=np)
    cfg = TraversalConfig(load_balance=lb, small_frontier="single_block", frontier_limit=2048)
    refs = {}
    for degree, multi in ((E.SB_HUB_DEGREE, hub_rule and not mesh), (0, False)):
        monkeypatch.setattr(E, "SB_HUB_DEGREE", degree)
        res = BFSEngine(g, cfg).bfs(0, trace=True)
        _check(g, 0, res, refs)
        assert res.levels[1].frontier_size == 4 + 2000 * mesh
        assert res.levels[1].path == ("multi_block" if multi else "single_block"), (degree, res.levels[:3])
        assert res.levels[0].path == "single_block" and res.levels[-1].path == "single_block"


@pytest.mark.parametrize("options", [dict(defer_outliers=256), dict(supplementary_queues=65536),
                                     dict(supplementary_queues="half_resident", defer_outliers=16384)])
def test_heavy_vertex_segments_are_sized_and_used(options):
    """Deferred outliers / supplementary-queue bins: the engine sizes the segments from the degree
    distribution and the heavy kernel closes the level (push kernel does not)."""
    from autotune.engine import BFSEngine

    g, (giant, leaf) = ZOO["kron17+hub"]
    eng = BFSEngine(g, TraversalConfig(load_balance="vertex_mapped", small_frontier="none", **options))
    assert eng.aux_host["push_finishes"] == 0
    off = eng.aux_host["heavy_off"]
    assert off[-1] >= 1 and np.all(np.diff(off) >= 0)
    for s in (giant, leaf):
        _check(g, s, eng.bfs(s), {})


def _heavy_in_degree_graph(seed: int = 3):
    """Directed: a random part reachable from 0, a reachable vertex A and an unreachable vertex B of
    in-degree >> PULL_HEAVY_DEGREE (B's in-neighbours form a part nothing reachable points into)."""
    rng = np.random.default_rng(seed)
    n_reach, n_unreach = 6000, 3000
    A, B = n_reach, n_reach + 1
    base = n_reach + 2
    src = [np.repeat(np.arange(n_reach), 6), rng.choice(n_reach, 4000, replace=False),
           base + np.repeat(np.arange(n_unreach), 4), base + rng.choice(n_unreach, 2500, replace=False),
           np.full(50, A)]
    dst = [rng.integers(0, n_reach, n_reach * 6), np.full(4000, A),
           base + rng.integers(0, n_unreach, n_unreach * 4), np.full(2500, B),
           rng.integers(0, n_reach, 50)]
    return from_edges(np.concatenate(src), np.concatenate(dst), base + n_unreach, directed=True,
                      name="heavy-in-degree", xp=np)


@pytest.mark.parametrize("lb", ["vertex_mapped", "binary_search", "edge_mapped", "scan_mapped"])
@pytest.mark.parametrize("hub_cache", ["off", "on"])
def test_pull_scans_heavy_in_degree_vertices_by_warps(lb, hub_cache):
    """Vertices of in-degree > PULL_HEAVY_DEGREE are scanned by warps in chunks (pull.cu's second
    pass): exact for a reachable one (claimed once, by an atomic, though several chunks may find a
    parent) and an unreachable one, and the pull levels really ran."""
    from autotune._engine import PULL_CHUNK, PULL_HEAVY_DEGREE
    from autotune.engine import BFSEngine

    g = _heavy_in_degree_graph()
    in_deg = np.bincount(g.column_indices, minlength=g.n_vertices)
    assert (in_deg > PULL_CHUNK).sum() >= 2 and PULL_HEAVY_DEGREE < PULL_CHUNK
    cfg = TraversalConfig(load_balance=lb, direction="push_pull", switch_rule="alpha_beta", alpha=60, beta=48,
                          small_frontier="none", hub_cache=hub_cache)
    eng = BFSEngine(g, cfg)
    assert int(eng.aux_host["n_pull_heavy"]) >= 2
    refs = {}
    for s in (0, 17, 4321):
        res = eng.bfs(s, trace=True)
        _check(g, s, res, refs)
        assert any(lv.direction == "pull" for lv in res.levels)
        assert res.distances[g.n_vertices - 3000 - 1] == -1  # B unreached


_BITMAP_CONFIGS = [
    dict(load_balance="binary_search"),
    dict(load_balance="vertex_mapped", virtual_warp_size="dynamic", hub_cache="on"),
    dict(load_balance="scan_mapped", small_frontier="single_block", frontier_limit=512),
    dict(load_balance="degree_classified", small_frontier="persistent", frontier_limit=2048),
    dict(load_balance="edge_mapped", switch_rule="hub_ratio", gamma=0.1, hub_degree=64, beta=48),
]


def _pull_zoo(opts, device_zoo):
    """A push/pull config that pulls early (*opts* on top) and the zoo plus the heavy in-degree graph."""
    base = dict(direction="push_pull", switch_rule="alpha_beta", alpha=4, beta=6, small_frontier="none")
    if opts.get("switch_rule") == "hub_ratio":
        base.pop("alpha")
    graphs = dict(device_zoo)
    graphs["heavy-in-degree"] = (_heavy_in_degree_graph(), [0, 17])
    return TraversalConfig(**{**base, **opts}), graphs


@pytest.mark.parametrize("offsets", ["int32", "int64"])
@pytest.mark.parametrize("opts", _BITMAP_CONFIGS, ids=lambda o: o["load_balance"])
def test_pull_frontier_bitmap_exact(opts, offsets, monkeypatch, device_zoo):
    """The pull levels' frontier bitmap (pull.cu, pull_bitmap), forced on every graph of the zoo
    (the engine uses it only when the status array exceeds half the L2): exact, the heavy in-degree
    pass included, and the pull levels really ran with it."""
    import autotune._engine as E
    from autotune.engine import BFSEngine

    monkeypatch.setattr(E, "PULL_BITMAP_L2_SHARE", 0.0)
    cfg, graphs = _pull_zoo(opts, device_zoo)
    refs = {}
    pulled = 0
    for name, (g, sources) in graphs.items():
        eng = BFSEngine(g, cfg, offsets=offsets)
        assert int(eng.aux_host["frontier_bits"]) != 0
        for s in sources:
            res = eng.bfs(s, trace=True)
            _check(g, s, res, refs)
            pulled += sum(lv.direction == "pull" for lv in res.levels)
    assert pulled > 0



@pytest.mark.parametrize("offsets", ["int32", "int64"])
@pytest.mark.parametrize("opts", _BITMAP_CONFIGS, ids=lambda o: o["load_balance"])
def test_pull_unvisited_lists_exact(opts, offsets, monkeypatch, device_zoo):
    """The pull levels' vertex lists (pull.cu, BFSAux.unvisited): with the pull grid cut to two
    blocks, every graph of the zoo takes many grid-stride rounds, so the static list (in-degree
    1..heavy) and the lists of vertices left without a parent are read (a list is read only when it
    saves a round): exact, with the heavy in-degree pass and the frontier bitmap, and the pull
    levels really ran."""
    import autotune._engine as E
    from autotune.engine import BFSEngine

    monkeypatch.setattr(E, "PULL_GRID_BLOCKS", 2)
    cfg, graphs = _pull_zoo(opts, device_zoo)
    refs = {}
    pulled = listed = 0
    for name, (g, sources) in graphs.items():
        if g.n_vertices <= 2 * cfg.block_size:  # one round: no list is built
            continue
        eng = BFSEngine(g, cfg, offsets=offsets)
        assert int(eng.aux_host["unvisited_ctr"]) != 0
        listed += int(eng.aux_host["pull_vertices"]) != 0
        for s in sources:
            res = eng.bfs(s, trace=True)
            _check(g, s, res, refs)
            pulled += sum(lv.direction == "pull" for lv in res.levels)
    assert pulled > 0 and listed > 0


def test_pull_unvisited_lists_on_kron():
    """Kronecker scale 19 (a third of its vertices isolated, more vertices than the pull kernel's
    resident threads): the engine builds the lists at its real grid, and BFS from several sources is
    exact."""
    from autotune.engine import BFSEngine

    g = load_graph("kron:scale=19,edge_factor=16", xp=np)  # a host graph: NumPy results for the reference
    cfg = TraversalConfig(load_balance="binary_search", direction="push_pull", small_frontier="single_block",
                          frontier_limit=2048)
    eng = BFSEngine(g, cfg)
    assert int(eng.aux_host["unvisited_ctr"]) != 0 and int(eng.aux_host["pull_vertices"]) != 0
    deg = g.out_degrees(np)
    refs = {}
    for s in np.random.default_rng(1).choice(np.flatnonzero(deg > 0), 3, replace=False):
        res = eng.bfs(int(s), trace=True)
        _check(g, int(s), res, refs)
        assert any(lv.direction == "pull" for lv in res.levels)


def _hub_graph(directed: bool):
    """A hub joined to 20,000 leaves, with 60,000 random edges among the leaves: the hub's level
    claims a vertex on every edge (every warp step appends 32), pushed or pulled."""
    rng = np.random.default_rng(11)
    n = 20_001
    src = np.concatenate([np.zeros(n - 1, np.int64), rng.integers(1, n, 60_000)])
    dst = np.concatenate([np.arange(1, n), rng.integers(1, n, 60_000)])
    return from_edges(src, dst, n_vertices=n, directed=directed, name=f"hub-{directed}", xp=np)


@pytest.mark.parametrize("offsets", ["int32", "int64"])
@pytest.mark.parametrize("block", [256, 512, 1024])
@pytest.mark.parametrize("lb", ["binary_search", "edge_mapped", "vertex_mapped", "scan_mapped"])
def test_append_stage_every_block_size(lb, block, offsets, monkeypatch):
    """The per-warp append stages (traversal.cuh, at_stage_append / at_list_append) at every block
    size and offset width: levels whose every warp step claims 32 vertices, pushed (the technique's
    kernel) and pulled (pull.cu, with the unvisited lists forced by a two-block pull grid), exact. A
    stage slice of fewer than 32 entries per warp (int64 offsets leave binary_search and scan_mapped
    256 entries per block) must append directly, not overrun the next warp's slice."""
    import autotune._engine as E
    from autotune.engine import BFSEngine

    monkeypatch.setattr(E, "PULL_GRID_BLOCKS", 2)
    refs = {}
    for directed in (False, True):
        g = _hub_graph(directed)
        for d in (dict(direction="push"), dict(direction="push_pull", switch_rule="alpha_beta", alpha=4, beta=6)):
            cfg = TraversalConfig(load_balance=lb, block_size=block, small_frontier="none", **d)
            eng = BFSEngine(g, cfg, offsets=offsets)
            pulled = 0
            for s in (0, 5, 17):
                res = eng.bfs(s, trace=True)
                _check(g, s, res, refs)
                pulled += sum(lv.direction == "pull" for lv in res.levels)
            assert (pulled > 0) == (d["direction"] == "push_pull")


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("lb", ["binary_search", "edge_mapped"])
def test_single_block_dense_passes_exact(directed, lb, monkeypatch):
    """A small dense graph (1,000 vertices, ~40 edges each) run start to finish in the single-block
    kernel: its middle levels hold passes of far more than 1,024 edges (the operator's dense visit,
    an L1-cached status load before the claim), exact against the reference from several sources.
    The hub-level rule is off here (those levels' mean degree of ~40 would send them multi-block;
    tested in test_single_block_sends_hub_levels_multi_block)."""
    import autotune._engine as E
    from autotune.engine import BFSEngine

    monkeypatch.setattr(E, "SB_HUB_DEGREE", 0)

    rng = np.random.default_rng(7)
    n, m = 1000, 40_000
    g = from_edges(rng.integers(0, n, m), rng.integers(0, n, m), n_vertices=n, directed=directed, name="dense", xp=np)
    cfg = TraversalConfig(load_balance=lb, block_size=1024 if lb == "edge_mapped" else 256,
                          small_frontier="single_block", frontier_limit=131072)
    eng = BFSEngine(g, cfg)
    deg = g.out_degrees(np)
    for s in [int(x) for x in rng.choice(np.flatnonzero(deg > 0), 6, replace=False)]:
        res = eng.bfs(s, trace=True)
        _check(g, s, res, {})
        assert {lv.path for lv in res.levels} == {"single_block"}
        frontier_edges = [int(deg[res.distances == lv.level].sum()) for lv in res.levels]
        assert max(frontier_edges) > 4 * 1024  # the dense passes really ran


@pytest.mark.parametrize("zero_copy", [True, False])
def test_state_read_back_zero_copy_and_copy_nodes_agree(zero_copy, monkeypatch):
    """The source is read and the state written back zero-copy through pinned host memory (this
    GPU maps it), or with a copy node each way: the same distances, depths and round counts,
    from CUDA-graph replays and from the first, round-by-round traversal."""
    import autotune._engine as E
    from autotune.engine import BFSEngine

    monkeypatch.setattr(E, "ZERO_COPY", zero_copy)
    g, _ = ZOO["kron13"]
    eng = BFSEngine(g, TraversalConfig(small_frontier="single_block", frontier_limit=512))
    assert eng.zero_copy is (zero_copy and E.host_memory_mapped())
    if zero_copy:
        assert eng.zero_copy, "an H100/H200-class Linux system maps pinned host memory"
    deg = g.out_degrees(np)
    sources = [int(x) for x in np.flatnonzero(deg > 0)[:5]] + [int(np.flatnonzero(deg == 0)[0])]
    for rep in range(2):  # rep 0: round by round then graphs; rep 1: graph replays only
        for s in sources:
            res = eng.bfs(s)
            _check(g, s, res, {})
            # the state read back outside a graph (read_state) equals the one the graph read back
            assert eng.read_state().tobytes() == eng.last_state.tobytes()
            assert int(eng.last_state["level"]) == res.depth + 1
    assert eng.use_graphs and eng.graph_error is None


def test_first_traversal_primes_the_replay_graph():
    """The first traversal (round by round) leaves the CUDA graph the next one replays captured and
    uploaded, so no later traversal pays a capture inside its timed span; results stay exact."""
    import autotune._engine as E
    from autotune.engine import BFSEngine

    g, _ = ZOO["kron13"]
    eng = BFSEngine(g, TraversalConfig(small_frontier="single_block", frontier_limit=512))
    deg = g.out_degrees(np)
    s0, s1 = (int(x) for x in np.flatnonzero(deg > 0)[:2])
    assert eng._graphs == {}
    _check(g, s0, eng.bfs(s0), {})
    assert eng.use_graphs, eng.graph_error
    k0 = min(eng._rounds_needed, E.MAX_GRAPH_ROUNDS)
    key = (True, k0)
    # the start graph, those of up to PRIME_FEWER_ROUNDS rounds fewer and PRIME_MORE_ROUNDS more,
    # the continuations of k0, 2 k0 and the powers of two, and the ladder of powers of two
    fewer = {(True, k) for k in range(max(1, k0 - E.PRIME_FEWER_ROUNDS), k0)}
    more = {(True, k) for k in range(k0 + 1, min(k0 + E.PRIME_MORE_ROUNDS, E.MAX_GRAPH_ROUNDS) + 1)}
    ladder = {(True, k) for k in E._ladder(k0)}
    conts = {(False, k0), (False, min(2 * k0, E.MAX_GRAPH_ROUNDS))}
    conts |= {(False, 1 << i) for i in range(E.MAX_GRAPH_ROUNDS.bit_length())}
    assert set(eng._graphs) == {key} | conts | fewer | more | ladder
    # the replay policy's costs were measured on this engine (not the defaults)
    assert eng._captures and eng.capture_us == sum(eng._captures) / len(eng._captures)
    assert eng.round_us >= 0.5 and eng.continuation_us >= 2.0
    assert (eng.round_us, eng.continuation_us) != (E.ROUND_US, E.CONTINUATION_US)
    primed = eng._graphs[key]
    _check(g, s1, eng.bfs(s1), {})
    assert eng._graphs[key] is primed  # the second traversal replayed the primed graph


def _kron13_and_path(length: int = 64):
    """kron13 plus a disjoint path of *length* vertices, from vertex kron13.n_vertices on: (graph,
    the hub of kron13, a vertex on the path). With the 512-vertex single-block limit a source on the
    64-vertex path needs one launch round, the hub several (its frontiers pass the limit)."""
    kg, _ = ZOO["kron13"]
    n0 = kg.n_vertices
    src = np.repeat(np.arange(n0), np.diff(kg.row_offsets))
    path = np.arange(n0, n0 + length)
    g = from_edges(np.r_[src, path[:-1]], np.r_[kg.column_indices, path[1:]], n0 + length, directed=False,
                   name=f"kron13+path{length}", xp=np)
    return g, int(np.argmax(g.out_degrees(np))), n0 + 5


def _primed_engine(first: str):
    """An engine on :func:`_kron13_and_path` with the 512-vertex single-block limit, primed by one
    exact traversal from *first* ("hub" or "on_path"): (graph, hub, on_path, engine, reference
    cache, k0, the primed graph keys)."""
    from autotune.engine import BFSEngine

    g, hub, on_path = _kron13_and_path()
    eng = BFSEngine(g, TraversalConfig(small_frontier="single_block", frontier_limit=512))
    refs: dict = {}
    s = hub if first == "hub" else on_path
    _check(g, s, eng.bfs(s), refs)
    return g, hub, on_path, eng, refs, eng._start_k, set(eng._graphs)


def test_start_graph_captured_once_its_estimated_cost_pays():
    """Primed with a source needing few rounds, sources needing more replay the start graph of the
    engine's plan, a primed one (no capture inside their traversal), until the estimated cost they
    paid for not having the plan's target reaches a capture (the engine's measured capture_us); then
    the target's is captured once. Every result exact."""
    g, hub, on_path, eng, refs, k0, primed = _primed_engine("on_path")
    assert eng.use_graphs, eng.graph_error
    waste = 0.0
    for i in range(400):
        plan, cap = eng._plan, eng.capture_us  # the plan made during the last traversal
        _check(g, hub, eng.bfs(hub), refs)
        target, best, delta = plan or eng._plan  # (the first one is made at the traversal's start)
        if set(eng._graphs) != primed:  # a capture: of the target's start graph, once it paid
            assert set(eng._graphs) == primed | {(True, target)} and eng._start_k == target
            assert waste + delta >= cap, (i, waste, delta, cap)
            break
        assert eng._start_k == best and (True, best) in primed
        waste = 0.0 if delta <= 0 else waste + delta
        assert waste < cap
    r_hub = eng._round_history[-1]
    assert k0 < r_hub, (k0, r_hub)  # the hub needs more rounds than the primed start graph


def test_shallow_sources_after_a_deep_first_one_replay_a_ladder_graph():
    """The first source runs more rounds than a graph holds (a 200-vertex path, one level per round
    without the single-block kernel); hub sources of kron13 need a few. From the third hub
    traversals on (the plan follows one traversal late) they replay a primed start graph near their
    rounds, not the 64-round one, without a capture. Every result exact."""
    import autotune._engine as E
    from autotune.engine import BFSEngine

    g, hub, _ = _kron13_and_path(200)
    n0 = ZOO["kron13"][0].n_vertices  # the path's first vertex, one of its ends
    eng = BFSEngine(g, TraversalConfig(small_frontier="none"))
    refs: dict = {}
    _check(g, n0, eng.bfs(n0), refs)  # the path's end: ~200 rounds
    assert eng._start_k == E.MAX_GRAPH_ROUNDS, eng._round_history
    primed = set(eng._graphs)
    assert {(True, k) for k in E._ladder(E.MAX_GRAPH_ROUNDS)} <= primed
    for _ in range(4):
        _check(g, hub, eng.bfs(hub), refs)
    r_hub = eng._round_history[-1]
    assert r_hub < 16, eng._round_history
    assert set(eng._graphs) == primed  # no capture
    assert (True, eng._start_k) in primed and eng._start_k < 2 * r_hub and eng._plan[0] < 2 * r_hub


def test_sources_needing_fewer_rounds_replay_a_primed_start_graph():
    """Primed with a source needing several rounds, sources needing up to PRIME_FEWER_ROUNDS fewer
    replay the primed start graph of their own rounds once they are most of the remembered
    traversals: no capture, exact result."""
    import autotune._engine as E

    g, hub, on_path, eng, refs, k0, primed = _primed_engine("hub")
    for _ in range(8):
        _check(g, on_path, eng.bfs(on_path), refs)
    r_path = eng._round_history[-1]
    assert k0 - E.PRIME_FEWER_ROUNDS <= r_path < k0, (k0, r_path)
    assert set(eng._graphs) == primed and eng._start_k == r_path


def test_sources_needing_more_rounds_replay_primed_continuations():
    """Primed with a source needing few rounds, a source needing more replays the primed
    continuation graphs after the start graph (k0, 2 k0 and the powers of two; else the longest
    captured one not above the rounds done): no capture, exact result."""
    g, hub, on_path, eng, refs, k0, primed = _primed_engine("on_path")
    _check(g, hub, eng.bfs(hub), refs)
    r_hub = eng._round_history[-1]
    assert k0 < r_hub, (k0, r_hub)
    assert set(eng._graphs) == primed
