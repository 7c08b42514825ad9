"""autotune.validate_gpu: Graph500's BFS-tree checks and the SSSP tree rules, vectorised (run here
with NumPy; the same code runs on the GPU with CuPy arrays)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autotune.errors import ValidationError
from autotune.graph import CSRGraph, from_edges, load_graph
from autotune.reference import SSSP_INT_UNREACHED, bfs_reference, sssp_reference
from autotune.validate_gpu import validate_bfs_gpu, validate_sssp_gpu

from .conftest import csr_graph

SPECS = ["kron:scale=10", "kron:scale=10,directed=true", "grid:rows=25,cols=25,drop=0.15",
         "uniform:n=3000,avg_degree=2,directed=true", "kron:scale=9,weights=int:1:255",
         "kron:scale=9,directed=true,weights=float:0.5:2.0", "grid:rows=20,cols=30,weights=int:1:9"]


@pytest.fixture(scope="module", params=SPECS)
def graph(request):
    return load_graph(request.param, xp=np)


def sources(g, k=3):
    deg = np.diff(g.host()[0])
    return [int(x) for x in np.flatnonzero(deg > 0)[:: max(1, g.n_vertices // k)][:k]]


def int_sssp(dist64):
    """Dijkstra's float64 distances in the engine's integer convention (int64, unreached = int64 max)."""
    out = np.full(dist64.shape, SSSP_INT_UNREACHED, dtype=np.int64)
    fin = np.isfinite(dist64)
    out[fin] = dist64[fin].astype(np.int64)
    return out


def edge_set(g):
    ro, ci = g.host()
    rows = np.repeat(np.arange(g.n_vertices), np.diff(ro))
    return set(zip(rows.tolist(), ci.tolist()))


def check_of(fn, *args, **kw):
    with pytest.raises(ValidationError) as info:
        fn(*args, **kw)
    return info.value


# ------------------------------------------------------------------------ correct results pass
def test_reference_bfs_passes(graph):
    for s in sources(graph):
        d, p = bfs_reference(graph, s)
        validate_bfs_gpu(graph, s, d, p)
        validate_bfs_gpu(graph, s, d, p.astype(np.int64), chunk_edges=997)  # chunk boundaries inside rows


def test_reference_sssp_passes(graph):
    for s in sources(graph):
        d, p = sssp_reference(graph, s)
        validate_sssp_gpu(graph, s, d, p)  # SciPy's float64 distances as they are
        if graph.weights is not None and graph.weights.dtype.kind == "f":
            validate_sssp_gpu(graph, s, d.astype(np.float32).astype(np.float64), p, chunk_edges=1013)
        else:
            validate_sssp_gpu(graph, s, int_sssp(d), p, chunk_edges=1013)


def test_graph_without_edges_from_the_source():
    g = csr_graph(4, [(1, 2), (2, 3)], directed=True)
    d, p = bfs_reference(g, 0)
    validate_bfs_gpu(g, 0, d, p)
    validate_sssp_gpu(g, 0, int_sssp(sssp_reference(g, 0)[0]), sssp_reference(g, 0)[1])


def test_unsorted_rows_take_the_fallback_and_still_pass():
    g = load_graph("kron:scale=9,weights=int:1:50", xp=np)
    ro, ci = g.host()
    rng = np.random.default_rng(1)
    perm = np.arange(ci.size)
    for u in range(g.n_vertices):  # shuffle every row (weights follow their edges)
        a, b = ro[u], ro[u + 1]
        perm[a:b] = rng.permutation(perm[a:b])
    h = CSRGraph(row_offsets=ro, column_indices=ci[perm], directed=g.directed, weights=g.weights[perm])
    s = sources(g)[0]
    d, p = bfs_reference(g, s)
    validate_bfs_gpu(h, s, d, p, chunk_edges=301)
    sd, sp_ = sssp_reference(g, s)
    validate_sssp_gpu(h, s, int_sssp(sd), sp_, chunk_edges=301)
    bad = p.copy()
    v = int(np.flatnonzero(d == 2)[0])
    bad[v] = int(np.flatnonzero((d == 1) & ~np.isin(np.arange(g.n_vertices), [u for u, x in edge_set(g) if x == v]))[0])
    assert check_of(validate_bfs_gpu, h, s, d, bad).check == "tree edge"


def test_parallel_edges_use_the_lightest_copy():
    src = np.array([0, 0, 1, 0])
    dst = np.array([1, 1, 2, 2])
    g = from_edges(src, dst, 3, weights=np.array([5, 2, 1, 9]), remove_duplicates=False, xp=np)
    assert g.n_edges == 4
    d, p = sssp_reference(g, 0)
    assert list(d) == [0, 2, 3]
    validate_sssp_gpu(g, 0, int_sssp(d), p)
    wrong = int_sssp(d)
    wrong[1], wrong[2] = 5, 6  # the heavier copy: the tree rule holds, the lighter copy's relaxation does not
    assert check_of(validate_sssp_gpu, g, 0, wrong, p).check == "edge relaxation"


# --------------------------------------------------------------------------- each corruption
@pytest.fixture(scope="module")
def bfs_case():
    g = load_graph("kron:scale=11", xp=np)
    s = sources(g)[0]
    d, p = bfs_reference(g, s)
    return g, s, d, p, edge_set(g)


def in_neighbours(edges, v):
    return sorted(u for u, x in edges if x == v)


def test_wrong_distance_is_caught(bfs_case):
    g, s, d, p, _ = bfs_case
    v = int(np.flatnonzero(d == 2)[0])
    bad = d.copy()
    bad[v] = 3
    err = check_of(validate_bfs_gpu, g, s, bad, p)
    assert err.check == "tree level" and err.vertex == v and f"first offending vertex {v}" in str(err)
    assert str(err).startswith(f"BFS validation failed, check 'tree level' (source {s}): ")


def test_consistent_tree_one_level_too_deep_is_caught_by_an_edge(bfs_case):
    g, s, d, p, edges = bfs_case
    # a leaf v of level 2 re-hung under a level-2 neighbour u at level 3: the tree rules hold,
    # the edge from v's level-1 neighbours spans two levels
    v, u = next((v, u) for v in np.flatnonzero(d == 2).tolist() if not np.any(p == v)
                for u in in_neighbours(edges, v) if d[u] == 2)
    bad_d, bad_p = d.copy(), p.copy()
    bad_d[v], bad_p[v] = 3, u
    err = check_of(validate_bfs_gpu, g, s, bad_d, bad_p)
    assert err.check == "edge span" and err.vertex == v and d[err.edge[0]] == 1
    assert "an edge spans at most one level" in str(err)


def test_edge_spanning_two_levels_is_caught():
    # 0 -> 1 -> 2 and 0 -> 2: claiming d[2] = 2 via 1 is a valid tree but the edge 0 -> 2 spans 2 levels
    g = csr_graph(3, [(0, 1), (1, 2), (0, 2)], directed=True)
    err = check_of(validate_bfs_gpu, g, 0, np.array([0, 1, 2], np.int32), np.array([0, 0, 1], np.int32))
    assert err.check == "edge span" and err.edge == (0, 2) and err.n_failing == 1
    assert "first offending edge (0, 2): distances[0] = 0, distances[2] = 2" in str(err)
    assert "1 of 3 edges from reached vertices fail this check" in str(err)


def test_predecessor_not_a_neighbour_is_caught(bfs_case):
    g, s, d, p, edges = bfs_case
    v = int(np.flatnonzero(d == 2)[0])
    nb = set(in_neighbours(edges, v))
    fake = next(int(u) for u in np.flatnonzero(d == 1) if int(u) not in nb)
    bad = p.copy()
    bad[v] = fake
    err = check_of(validate_bfs_gpu, g, s, d, bad)
    assert err.check == "tree edge" and err.vertex == v and err.edge == (fake, v)
    assert f"its predecessor {fake} is not an in-neighbour" in str(err)


def test_predecessor_at_the_wrong_level_is_caught(bfs_case):
    g, s, d, p, edges = bfs_case
    v, u = next((v, u) for v in np.flatnonzero(d == 2).tolist() for u in in_neighbours(edges, v) if d[u] == 2)
    bad = p.copy()
    bad[v] = u
    err = check_of(validate_bfs_gpu, g, s, d, bad)
    assert err.check == "tree level" and err.vertex == v
    assert f"predecessor {u} has distances[{u}] = 2, expected 1 (one level up)" in str(err)


def test_unreached_marked_reached_is_caught():
    g = load_graph("kron:scale=11,directed=true", xp=np)
    s = sources(g)[0]
    d, p = bfs_reference(g, s)
    x = int(np.flatnonzero(d < 0)[0])
    bad_d, bad_p = d.copy(), p.copy()
    bad_d[x], bad_p[x] = 1, s
    err = check_of(validate_bfs_gpu, g, s, bad_d, bad_p)
    assert err.check == "tree edge" and err.vertex == x  # s -> x is not an edge
    bad_p[x] = -1
    assert check_of(validate_bfs_gpu, g, s, bad_d, bad_p).check == "predecessor range"


def test_reached_marked_unreached_is_caught(bfs_case):
    g, s, d, p, _ = bfs_case
    leaf = next(int(v) for v in np.flatnonzero(d == 2) if not np.any(p == v))
    bad_d, bad_p = d.copy(), p.copy()
    bad_d[leaf], bad_p[leaf] = -1, -1
    err = check_of(validate_bfs_gpu, g, s, bad_d, bad_p)
    assert err.check == "reached" and err.vertex == leaf and err.edge[1] == leaf
    assert f"but {leaf} is marked unreached (-1)" in str(err)
    bad_d[leaf] = -1
    bad_p[leaf] = p[leaf]
    assert check_of(validate_bfs_gpu, g, s, bad_d, bad_p).check == "unreached predecessor"


def test_wrong_source_is_caught(bfs_case):
    g, s, d, p, _ = bfs_case
    other = int(np.flatnonzero(d == 1)[0])
    err = check_of(validate_bfs_gpu, g, other, d, p)
    assert err.check == "source distance" and err.vertex == other
    bad = p.copy()
    bad[s] = other
    assert check_of(validate_bfs_gpu, g, s, d, bad).check == "source predecessor"


def test_shape_dtype_and_range_are_checked(bfs_case):
    g, s, d, p, _ = bfs_case
    assert check_of(validate_bfs_gpu, g, s, d[:-1], p).check == "shape"
    assert check_of(validate_bfs_gpu, g, s, d.astype(np.float64), p).check == "dtype"
    bad = d.copy()
    bad[int(np.flatnonzero(d == 1)[0])] = -5
    assert check_of(validate_bfs_gpu, g, s, bad, p).check == "distance range"
    with pytest.raises(Exception, match="source"):
        validate_bfs_gpu(g, g.n_vertices, d, p)


# ------------------------------------------------------------------------------ SSSP corruptions
@pytest.fixture(scope="module")
def sssp_case():
    g = load_graph("kron:scale=10,weights=int:1:255", xp=np)
    s = sources(g)[0]
    d, p = sssp_reference(g, s)
    return g, s, int_sssp(d), p


def tree_weight(g, u, v):
    ro, ci = g.host()
    k = ro[u] + int(np.searchsorted(ci[ro[u]:ro[u + 1]], v))
    return int(g.weights[k])


def test_sssp_wrong_distance_is_caught(sssp_case):
    g, s, d, p = sssp_case
    v = int(np.flatnonzero((d > 0) & (d < SSSP_INT_UNREACHED))[5])
    bad = d.copy()
    bad[v] += 1
    err = check_of(validate_sssp_gpu, g, s, bad, p)
    assert err.check in ("edge relaxation", "tree weight")
    bad = d.copy()
    bad[v] -= 1
    assert check_of(validate_sssp_gpu, g, s, bad, p).check == "tree weight"


def test_sssp_longer_path_through_another_neighbour_is_caught(sssp_case):
    g, s, d, p = sssp_case
    edges = edge_set(g)
    for v in np.flatnonzero((d > 0) & (d < SSSP_INT_UNREACHED)).tolist():
        if np.any(p == v):
            continue  # a leaf of the tree
        alts = [u for u in in_neighbours(edges, v) if u != p[v] and d[u] < SSSP_INT_UNREACHED
                and d[u] + tree_weight(g, u, v) > d[v]]
        if alts:
            break
    u = alts[0]
    bad_d, bad_p = d.copy(), p.copy()
    bad_d[v], bad_p[v] = d[u] + tree_weight(g, u, v), u  # a consistent tree, but not shortest
    err = check_of(validate_sssp_gpu, g, s, bad_d, bad_p)
    assert err.check == "edge relaxation" and err.vertex == v and "a shorter path exists" in str(err)


def test_sssp_float_tolerance_and_cycle():
    g = load_graph("kron:scale=9,weights=float:0.5:2.0", xp=np)
    s = sources(g)[0]
    d, p = sssp_reference(g, s)
    v = int(np.flatnonzero(np.isfinite(d) & (d > 0))[3])
    ok = d.copy()
    ok[v] *= 1 + 2.0 ** -30  # well inside the 2**-22 tolerance
    validate_sssp_gpu(g, s, ok, p)
    bad = d.copy()
    bad[v] *= 1 + 1e-3
    assert check_of(validate_sssp_gpu, g, s, bad, p).check in ("tree weight", "edge relaxation")
    # a weight float rounding absorbs: a <-> b with d[a] = d[b], each the other's predecessor
    h = from_edges(np.array([0, 1, 2]), np.array([1, 2, 1]), 3, weights=np.array([1.0, 1e-30, 1e-30]), xp=np)
    dist = np.array([0.0, 1.0, 1.0])
    validate_sssp_gpu(h, 0, dist, np.array([0, 0, 1], np.int32))
    err = check_of(validate_sssp_gpu, h, 0, dist, np.array([0, 2, 1], np.int32))
    assert err.check == "tree cycle"


def test_sssp_unreached_conventions(sssp_case):
    g, s, d, p = sssp_case
    v = int(np.flatnonzero((d > 0) & (d < SSSP_INT_UNREACHED))[0])
    bad = d.copy()
    bad[v] = -3
    assert check_of(validate_sssp_gpu, g, s, bad, p).check == "distance value"
    leaf = next(int(x) for x in np.flatnonzero((d > 0) & (d < SSSP_INT_UNREACHED)) if not np.any(p == x))
    bad_d, bad_p = d.copy(), p.copy()
    bad_d[leaf], bad_p[leaf] = SSSP_INT_UNREACHED, -1
    err = check_of(validate_sssp_gpu, g, s, bad_d, bad_p)
    assert err.check == "reached" and err.vertex == leaf
    bad_p[leaf] = 0
    assert check_of(validate_sssp_gpu, g, s, bad_d, bad_p).check == "unreached predecessor"


# ------------------------------------------------------------------- random corruption (property)
@st.composite
def corrupted(draw, max_n=24):
    n = draw(st.integers(2, max_n))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=4 * n))
    directed = draw(st.booleans())
    source = draw(st.integers(0, n - 1))
    n_changes = draw(st.integers(1, 3))
    # dist / pred: one value; rehang: pred[v] = u and dist[v] = dist[u] + 1 (a consistent-looking
    # change only the edge checks can judge); unreach: v and its subtree marked unreached
    changes = [(draw(st.sampled_from(["dist", "pred", "rehang", "rehang", "unreach"])), draw(st.integers(0, n - 1)),
                draw(st.integers(-2, n))) for _ in range(n_changes)]
    chunk = draw(st.sampled_from([1, 3, 1 << 20]))
    return n, edges, directed, source, changes, chunk


def corrupt(ref, pred, changes):
    d, p = ref.copy(), pred.copy()
    for what, v, value in changes:
        if what == "dist":
            d[v] = value
        elif what == "pred":
            p[v] = value
        elif what == "unreach":  # v and its subtree
            gone = np.zeros(d.size, bool)
            gone[v] = True
            while True:
                inside = (p >= 0) & (p < d.size)
                more = ~gone & inside & gone[np.where(inside, p, 0)] & (np.arange(d.size) != p)
                if not more.any():
                    break
                gone |= more
            d[gone] = p[gone] = -1
        else:
            u = value % d.size
            p[v], d[v] = u, (d[u] + 1 if d[u] >= 0 else 1)
    return d, p


def bfs_is_valid(n, adj, source, ref, d, p) -> bool:
    """Oracle: the distances are the BFS distances and the predecessors a BFS tree."""
    if not np.array_equal(d, ref) or p[source] != source:
        return False
    for v in range(n):
        if v == source:
            continue
        if d[v] < 0:
            if p[v] != -1:
                return False
        elif not (0 <= p[v] < n and (int(p[v]), v) in adj and d[p[v]] == d[v] - 1):
            return False
    return True


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(corrupted())
def test_random_corruption_is_caught_exactly_when_invalid(case):
    n, edges, directed, source, changes, chunk = case
    g = csr_graph(n, edges, directed)
    ref, pred = bfs_reference(g, source)
    d, p = corrupt(ref, pred, changes)
    adj = edge_set(g)
    if bfs_is_valid(n, adj, source, ref, d, p):
        validate_bfs_gpu(g, source, d, p, chunk_edges=chunk)
    else:
        with pytest.raises(ValidationError):
            validate_bfs_gpu(g, source, d, p, chunk_edges=chunk)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_random_sssp_corruption_is_caught_exactly_when_invalid(data):
    n = data.draw(st.integers(2, 16))
    m = data.draw(st.integers(1, 4 * n))
    src = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)))
    dst = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m)))
    if np.all(src == dst):
        return
    w = np.array(data.draw(st.lists(st.integers(1, 5), min_size=m, max_size=m)))
    g = from_edges(src, dst, n, weights=w, directed=data.draw(st.booleans()), xp=np)
    source = data.draw(st.integers(0, n - 1))
    ref64, pred = sssp_reference(g, source)
    ref = int_sssp(ref64)
    d, p = ref.copy(), pred.copy()
    for _ in range(data.draw(st.integers(1, 2))):
        v = data.draw(st.integers(0, n - 1))
        if data.draw(st.booleans()):
            d[v] = data.draw(st.sampled_from([SSSP_INT_UNREACHED, -1, 0, 1, 2, 3, 7, 11]))
        else:
            p[v] = data.draw(st.integers(-1, n - 1))
    ro, ci = g.host()
    wmin = {}
    for u in range(n):
        for k in range(ro[u], ro[u + 1]):
            wmin[(u, int(ci[k]))] = min(wmin.get((u, int(ci[k])), 1 << 40), int(g.weights[k]))
    reached = ref < SSSP_INT_UNREACHED
    valid = np.array_equal(d, ref) and p[source] == source and all(
        (p[v] == -1) if not reached[v] else (0 <= p[v] < n and (int(p[v]), v) in wmin
                                             and int(d[p[v]]) + wmin[(int(p[v]), v)] == d[v])
        for v in range(n) if v != source)
    if valid:
        validate_sssp_gpu(g, source, d, p, chunk_edges=3)
    else:
        with pytest.raises(ValidationError):
            validate_sssp_gpu(g, source, d, p, chunk_edges=3)
