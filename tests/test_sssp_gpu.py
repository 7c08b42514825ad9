"""GPU tests: SSSP (frontier Bellman-Ford, Delta-stepping, near-far) on every load-balancing technique,
support strategy and small-frontier driver, exact against scipy's Dijkstra with the shortest-path-tree
check ``dist[pred[v]] + w(pred[v], v) == dist[v]``."""
from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import dijkstra

from autotune.config import SSSP_METHODS, TraversalConfig
from autotune.graph import from_edges
from autotune.techniques import TECHNIQUES

from .conftest import hub_tree_edges

pytestmark = pytest.mark.gpu

TECHNIQUE_VARIANTS = [
    dict(load_balance="vertex_mapped", virtual_warp_size="dynamic"),
    dict(load_balance="vertex_mapped", virtual_warp_size=1),
    dict(load_balance="vertex_mapped", virtual_warp_size=32),
    dict(load_balance="vertex_mapped", defer_outliers=256, supplementary_queues=65536, warp_gathering=32),
    dict(load_balance="vertex_mapped", work_chunk=32, block_gathering="block_size"),
    dict(load_balance="scan_mapped"),
    dict(load_balance="scan_mapped", warp_gathering=128, block_gathering=4096, supplementary_queues=65536),
    dict(load_balance="binary_search"),
    dict(load_balance="binary_search", chunk_size=2048),
    dict(load_balance="degree_classified"),
    dict(load_balance="degree_classified", dc_small=16, dc_middle=128, dc_large=4096),
    dict(load_balance="edge_mapped"),
]
# every technique of the registry runs SSSP, also one added later without its own variants here
TECHNIQUE_VARIANTS += [dict(load_balance=t) for t in TECHNIQUES if all(v["load_balance"] != t for v in TECHNIQUE_VARIANTS)]
SMALLS = [dict(small_frontier="none"), dict(small_frontier="single_block", frontier_limit=512),
          dict(small_frontier="persistent", frontier_limit=2048)]


def sssp_configs():
    out = []
    for t in TECHNIQUE_VARIANTS:
        for method in SSSP_METHODS:
            for sm in SMALLS:
                for b in ((128, 1024) if sm["small_frontier"] == "persistent" else (256,)):
                    out.append(TraversalConfig(algorithm="sssp", sssp_method=method, block_size=b, **t, **sm))
    for t in TECHNIQUE_VARIANTS:  # Bellman-Ford's in-place expansion on the persistent kernel
        for inline, fl, b in ((8, 2048, 128), (64, 131072, 1024)):
            out.append(TraversalConfig(algorithm="sssp", sssp_method="bellman_ford", block_size=b, **t,
                                       small_frontier="persistent", frontier_limit=fl, inline_degree=inline))
    for method in ("delta_stepping", "near_far"):  # bucket widths far from the heuristic
        for scale in (0.25, 64):
            for t in (dict(load_balance="binary_search"), dict(load_balance="vertex_mapped")):
                out.append(TraversalConfig(algorithm="sssp", sssp_method=method, delta=scale, **t))
    return out


CONFIGS = sssp_configs()


def _weighted(src, dst, n, w, directed, name):
    return from_edges(np.asarray(src), np.asarray(dst), n, weights=w, directed=directed, name=name, xp=np)


def _zoo():
    rng = np.random.default_rng(11)
    z = {}
    n = 3000  # a path: thousands of iterations, every one small
    z["path-unit"] = (from_edges(np.arange(n - 1), np.arange(1, n), n, directed=False, name="path", xp=np), [0, 1500])
    r = c = 50
    idx = np.arange(r * c).reshape(r, c)
    s = np.concatenate([idx[:, :-1].ravel(), idx[:-1, :].ravel()])
    d = np.concatenate([idx[:, 1:].ravel(), idx[1:, :].ravel()])
    z["grid-int"] = (_weighted(s, d, r * c, rng.integers(1, 256, s.size).astype(np.int32), False, "grid"), [0, 1234])
    # large integer weights (path sums in the billions stay exact)
    a, b = rng.integers(0, 2000, 12000), rng.integers(0, 2000, 12000)
    z["large-weights"] = (_weighted(a, b, 2000, rng.integers(1, 1_000_000, a.size).astype(np.int32), True,
                                    "large"), [0, 7])
    # float weights
    a, b = rng.integers(0, 3000, 20000), rng.integers(0, 3000, 20000)
    z["float"] = (_weighted(a, b, 3000, rng.uniform(0.5, 2.0, a.size).astype(np.float32), True, "float"), [0, 99])
    # parallel edges with different weights (the minimum is kept) + self-loops
    a, b = rng.integers(0, 400, 3000), rng.integers(0, 400, 3000)
    a = np.r_[a, a[:1500], np.arange(50)]
    b = np.r_[b, b[:1500], np.arange(50)]
    w = rng.integers(1, 50, a.size).astype(np.int32)
    z["parallel"] = (_weighted(a, b, 400, w, True, "parallel"), [0, 3])
    # disconnected, with isolated vertices (ids 400..409), one of them the source
    a, b = rng.integers(0, 200, 1500), rng.integers(0, 200, 1500)
    a2, b2 = rng.integers(200, 400, 1500), rng.integers(200, 400, 1500)
    z["disconnected"] = (_weighted(np.r_[a, a2], np.r_[b, b2], 410, rng.integers(1, 100, 3000).astype(np.int32),
                                   False, "disconnected"), [0, 250, 405])
    from autotune.generators import kronecker

    kg = kronecker(13, edge_factor=16, seed=3, xp=np)
    w = rng.integers(1, 256, kg.n_edges).astype(np.int32)
    kw = from_edges(np.repeat(np.arange(kg.n_vertices), np.diff(kg.row_offsets)), kg.column_indices,
                    kg.n_vertices, weights=w, directed=True, name="kron13-w", xp=np)
    hub = int(np.argmax(kw.out_degrees(np)))
    z["kron13-int"] = (kw, [hub, int(np.flatnonzero(kw.out_degrees(np) == 1)[0])])
    # a giant hub of 70,000 edges (supplementary queues, deferred outliers, extreme class trigger)
    m = 70_000
    leaves = np.arange(1, m + 1)
    a = np.r_[np.zeros(m, dtype=np.int64), rng.integers(1, m + 1, 60_000)]
    b = np.r_[leaves, rng.integers(1, m + 1, 60_000)]
    z["hub"] = (_weighted(a, b, m + 1, rng.integers(1, 256, a.size).astype(np.int32), False, "hub"), [0, 5])
    return z


ZOO = _zoo()
_REF: dict = {}


def _reference(g, src):
    key = (g.name, src)
    if key not in _REF:
        w = np.ones(g.n_edges) if g.weights is None else np.asarray(g.weights, dtype=np.float64)
        m = sp.csr_matrix((w, g.column_indices, g.row_offsets), shape=(g.n_vertices,) * 2)
        _REF[key] = dijkstra(m, directed=True, indices=src)
    return _REF[key]


def check(g, src, res):
    ref = _reference(g, src)
    reached = np.isfinite(ref)
    dist = np.asarray(res.distances)
    pred = np.asarray(res.predecessors)
    assert np.array_equal(pred >= 0, reached)
    if g.weights is not None and np.dtype(g.weights.dtype).kind == "f":
        assert np.all(np.isinf(dist[~reached]))
        np.testing.assert_allclose(dist[reached], ref[reached], rtol=1e-4)
        d32 = dist.astype(np.float32)
    else:
        assert dist.dtype == np.int64
        assert np.all(dist[~reached] == np.iinfo(np.int64).max)
        np.testing.assert_array_equal(dist[reached], ref[reached].astype(np.int64))
    # tree check: (pred[v], v) is an edge and dist[pred] + w == dist[v] (in the device's arithmetic)
    assert pred[src] == src
    v = np.flatnonzero(reached & (np.arange(g.n_vertices) != src))
    u = pred[v]
    ro, ci = g.row_offsets, g.column_indices
    w = np.ones(g.n_edges, dtype=np.int64) if g.weights is None else np.asarray(g.weights)
    # the stored (minimum) weight of edge (u, v): edges sorted by (row, column), one searchsorted
    n = np.int64(g.n_vertices)
    keys = np.repeat(np.arange(g.n_vertices, dtype=np.int64), np.diff(ro)) * n + ci
    assert np.all(np.diff(keys) > 0)
    pos = np.searchsorted(keys, u.astype(np.int64) * n + v)
    assert np.all(pos < g.n_edges) and np.all(keys[np.minimum(pos, g.n_edges - 1)] == u.astype(np.int64) * n + v), \
        "predecessor is not an edge"
    if g.weights is not None and np.dtype(g.weights.dtype).kind == "f":
        assert np.all(d32[u] + w[pos] == d32[v])
    else:
        assert np.all(dist[u] + w[pos].astype(np.int64) == dist[v])
    from autotune.reference import validate_sssp

    validate_sssp(g, src, dist, pred)


@pytest.mark.parametrize("cfg", CONFIGS, ids=lambda c: c.label)
def test_sssp_zoo_exact(cfg):
    from autotune.engine import SSSPEngine

    for name, (g, sources) in ZOO.items():
        eng = SSSPEngine(g, cfg)
        for s in sources:
            res = eng.sssp(s, trace=False)
            check(g, s, res)
            assert res.relaxations >= g.out_degrees(np)[s]


@pytest.mark.parametrize("block", (128, 1024))
@pytest.mark.parametrize("method", SSSP_METHODS)
def test_persistent_hub_levels_exact(block, method):
    """A root whose 24 hubs hold 40-3,000 out-edges each: the persistent kernel spreads a hub
    level's edges over the block (block-balanced rounds); distances and tree stay exact."""
    from autotune.engine import SSSPEngine

    rng = np.random.default_rng(5)
    a, b, nxt, _ = hub_tree_edges(rng, n_cross=20000)
    g = _weighted(a, b, nxt, rng.integers(1, 200, a.size).astype(np.int32), False, "hub-tree-w")
    cfg = TraversalConfig(algorithm="sssp", sssp_method=method, load_balance="binary_search", block_size=block,
                          small_frontier="persistent", frontier_limit=131072)
    eng = SSSPEngine(g, cfg)
    for s in (0, 3, nxt - 1):
        check(g, s, eng.sssp(s, trace=False))


def test_unit_weights_give_bfs_distances():
    from autotune.engine import run
    from autotune.reference import bfs_reference

    g, sources = ZOO["path-unit"]
    for method in SSSP_METHODS:
        res = run(g, TraversalConfig(algorithm="sssp", sssp_method=method, load_balance="binary_search"), sources[0],
                  trace=True)
        ref = bfs_reference(g, sources[0])[0]
        np.testing.assert_array_equal(np.where(ref >= 0, res.distances, -1), ref)
        assert res.iterations and res.elapsed_ms > 0 and res.gteps > 0


def test_run_validates_and_traces_sssp():
    from autotune.engine import DEFAULT_SSSP_CONFIG, SSSPResult, run

    g, sources = ZOO["kron13-int"]
    res = run(g, DEFAULT_SSSP_CONFIG, sources[0], validate=True, trace=True)
    assert isinstance(res, SSSPResult)
    assert res.delta is not None and res.delta >= 1
    assert sum(it.frontier_size for it in res.iterations) >= res.n_reached


def test_inline_expansion_halves_the_iterations_of_a_path():
    """In-place expansion advances a path by two edges per iteration: on a 3,000-vertex path from one
    end, about 1,500 iterations instead of about 3,000, the same distances, and every relaxation
    (the in-place ones too) counted."""
    from autotune.engine import SSSPEngine

    g, _ = ZOO["path-unit"]
    base = TraversalConfig(algorithm="sssp", sssp_method="bellman_ford", load_balance="binary_search",
                           small_frontier="persistent", frontier_limit=2048)
    plain = SSSPEngine(g, base).sssp(0)
    fast = SSSPEngine(g, base.with_(inline_degree=8)).sssp(0)
    check(g, 0, plain)
    check(g, 0, fast)
    n = g.n_vertices
    assert plain.extra["iterations"] >= n - 1
    assert fast.extra["iterations"] <= n // 2 + 2
    # each vertex's edges are relaxed once either way (from its end, a path improves every vertex once)
    assert fast.relaxations == plain.relaxations == g.n_edges


def test_integer_path_sums_that_overflow_32_bits_are_refused():
    from autotune.engine import SSSPEngine

    n = 5000
    g = _weighted(np.arange(n - 1), np.arange(1, n), n, np.full(n - 1, 2_000_000, dtype=np.int32), True, "long")
    with pytest.raises(ValueError, match="32-bit"):
        SSSPEngine(g, TraversalConfig(algorithm="sssp"))
