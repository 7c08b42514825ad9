"""CPU reference BFS (autotune.reference) against networkx, and every validate_bfs failure mode."""
from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autotune.errors import ValidationError
from autotune.graph import from_edges
from autotune.reference import _edge_exists, bfs_reference, reference_edges_traversed, validate_bfs


from .conftest import csr_graph  # noqa: E402


def to_nx(n, edges, directed):
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from((int(u), int(v)) for u, v in edges if u != v)
    return g


@st.composite
def graphs(draw, max_n=30):
    n = draw(st.integers(1, max_n))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=4 * n))
    directed = draw(st.booleans())
    source = draw(st.integers(0, n - 1))
    return n, edges, directed, source


# --------------------------------------------------------------------------- bfs_reference
@settings(max_examples=300, deadline=None)
@given(graphs())
def test_reference_matches_networkx(case):
    n, edges, directed, source = case
    g = csr_graph(n, edges, directed)
    dist, pred = bfs_reference(g, source)
    assert dist.dtype == np.int32 and pred.dtype == np.int32
    assert dist.shape == pred.shape == (n,)
    expected = np.full(n, -1, dtype=np.int32)
    for v, d in nx.single_source_shortest_path_length(to_nx(n, edges, directed), source).items():
        expected[v] = d
    np.testing.assert_array_equal(dist, expected)
    # the tree is a valid BFS tree (checked independently of validate_bfs)
    assert pred[source] == source
    assert np.all(pred[dist < 0] == -1)
    adj = {(int(u), int(v)) for u, v in edges if u != v}
    if not directed:
        adj |= {(v, u) for u, v in adj}
    for v in np.flatnonzero(dist > 0):
        p = int(pred[v])
        assert (p, int(v)) in adj
        assert dist[p] == dist[v] - 1
    validate_bfs(g, source, dist, pred)  # the validator accepts the reference


def test_reference_small_directed():
    g = from_edges([0, 0, 1, 2, 4, 5], [1, 2, 3, 4, 3, 0], 7, directed=True, xp=np)
    dist, pred = bfs_reference(g, 0)
    np.testing.assert_array_equal(dist, [0, 1, 1, 2, 2, -1, -1])
    np.testing.assert_array_equal(pred, [0, 0, 0, 1, 2, -1, -1])


@pytest.mark.parametrize("n", [2, 3, 1000, 20_001])
def test_reference_long_path_depths(n):
    """Deep trees exercise many pointer-jumping passes; both ends as sources."""
    g = from_edges(np.arange(n - 1), np.arange(1, n), n, directed=False, xp=np)
    dist, pred = bfs_reference(g, 0)
    np.testing.assert_array_equal(dist, np.arange(n))
    np.testing.assert_array_equal(pred[1:], np.arange(n - 1))
    dist, pred = bfs_reference(g, n - 1)
    np.testing.assert_array_equal(dist, np.arange(n)[::-1])
    validate_bfs(g, n - 1, dist, pred)


def test_reference_isolated_source():
    g = csr_graph(5, [(0, 1), (1, 2)], directed=False)
    dist, pred = bfs_reference(g, 4)
    np.testing.assert_array_equal(dist, [-1, -1, -1, -1, 0])
    np.testing.assert_array_equal(pred, [-1, -1, -1, -1, 4])
    validate_bfs(g, 4, dist, pred)
    assert reference_edges_traversed(g, dist) == 0


@pytest.mark.parametrize("source", [-1, 5, 10**9])
def test_reference_bad_source(source):
    g = csr_graph(5, [(0, 1)])
    with pytest.raises(ValueError, match="not a vertex"):
        bfs_reference(g, source)


@pytest.mark.parametrize("source", [1.0, "1", True])
def test_reference_source_type(source):
    with pytest.raises(TypeError, match="integer"):
        bfs_reference(csr_graph(5, [(0, 1)]), source)


def test_reference_numpy_integer_source():
    g = csr_graph(3, [(0, 1), (1, 2)])
    np.testing.assert_array_equal(bfs_reference(g, np.int64(1))[0], [-1, 0, 1])


# --------------------------------------------------------------------------- edges traversed
@settings(max_examples=100, deadline=None)
@given(graphs())
def test_edges_traversed_is_sum_of_reached_out_degrees(case):
    n, edges, directed, source = case
    g = csr_graph(n, edges, directed)
    dist, _ = bfs_reference(g, source)
    nxg = to_nx(n, edges, directed)
    reached = nx.descendants(nxg, source) | {source} if directed else nx.node_connected_component(nxg, source)
    deg = dict(nxg.out_degree()) if directed else dict(nxg.degree())
    assert reference_edges_traversed(g, dist) == sum(deg[v] for v in reached)


def test_edges_traversed_undirected_counts_both_directions():
    g = csr_graph(4, [(0, 1), (1, 2)], directed=False)  # vertex 3 isolated
    assert reference_edges_traversed(g, bfs_reference(g, 0)[0]) == 4


def test_edges_traversed_shape_error():
    g = csr_graph(4, [(0, 1)])
    with pytest.raises(ValueError, match="shape"):
        reference_edges_traversed(g, np.zeros(3, dtype=np.int32))


# --------------------------------------------------------------------------- edge lookup
@settings(max_examples=100, deadline=None)
@given(graphs(max_n=20), st.lists(st.tuples(st.integers(0, 19), st.integers(0, 19)), max_size=50))
def test_edge_exists_matches_brute_force(case, queries):
    n, edges, directed, _ = case
    g = csr_graph(n, edges, directed)
    q = np.asarray([(u % n, v % n) for u, v in queries], dtype=np.int64).reshape(-1, 2)
    ro, ci = g.host()
    got = _edge_exists(ro, ci, q[:, 0], q[:, 1])
    adj = {(int(u), int(v)) for u, v in edges if u != v}
    if not directed:
        adj |= {(v, u) for u, v in adj}
    assert got.tolist() == [(int(u), int(v)) in adj for u, v in q]


# --------------------------------------------------------------------------- validate_bfs failures
@pytest.fixture
def tree():
    """0->1, 0->2, 1->3, 2->4, 4->3, 5->0, 6 isolated.

    From 0: dist [0, 1, 1, 2, 2, -1, -1], pred [0, 0, 0, 1, 2, -1, -1]."""
    g = from_edges([0, 0, 1, 2, 4, 5], [1, 2, 3, 4, 3, 0], 7, directed=True, xp=np)
    dist, pred = bfs_reference(g, 0)
    return g, dist.copy(), pred.copy()


def check_fails(g, dist, pred, check, vertex=None, n_failing=None, **kw):
    with pytest.raises(ValidationError, match=f"check '{check}'") as info:
        validate_bfs(g, 0, dist, pred, **kw)
    assert info.value.check == check
    if vertex is not None:
        assert info.value.vertex == vertex
        assert f"vertex {vertex}" in str(info.value)
    if n_failing is not None:
        assert info.value.n_failing == n_failing
    return str(info.value)


def test_validate_accepts_reference(tree):
    g, dist, pred = tree
    validate_bfs(g, 0, dist, pred)
    validate_bfs(g, 0, dist, pred.astype(np.int64), reference_distances=dist)


def test_validate_wrong_distance(tree):
    g, dist, pred = tree
    dist[3] = 3
    dist[4] = 5
    msg = check_fails(g, dist, pred, "distances", vertex=3, n_failing=2)
    assert "expected distance 2, got 3" in msg and "2 of 7 vertices" in msg


def test_validate_reached_vertex_reported_unreached(tree):
    g, dist, pred = tree
    dist[4] = -1
    pred[4] = -1
    assert "expected distance 2, got -1" in check_fails(g, dist, pred, "distances", vertex=4)


def test_validate_uses_given_reference(tree):
    g, dist, pred = tree
    ref = dist.copy()
    ref[1] = 7  # a (wrong) reference is trusted as given
    check_fails(g, dist, pred, "distances", vertex=1, reference_distances=ref)


def test_validate_pred_not_an_edge(tree):
    g, dist, pred = tree
    pred[3] = 2  # level 1, but 2->3 is not an edge
    msg = check_fails(g, dist, pred, "tree edge", vertex=3, n_failing=1)
    assert "(2, 3) is not an edge" in msg


def test_validate_pred_edge_reversed_direction(tree):
    g, dist, pred = tree
    pred[4] = 3  # 4->3 is an edge, 3->4 is not (directed)
    check_fails(g, dist, pred, "tree edge", vertex=4)


def test_validate_pred_level_wrong(tree):
    g, dist, pred = tree
    pred[3] = 4  # 4->3 is an edge, but dist[4] == dist[3]
    msg = check_fails(g, dist, pred, "tree level", vertex=3, n_failing=1)
    assert "predecessor 4 has distance 2, expected 1" in msg


def test_validate_pred_self(tree):
    g, dist, pred = tree
    pred[1] = 1  # no self-loop edge
    check_fails(g, dist, pred, "tree edge", vertex=1)


def test_validate_source_pred_wrong(tree):
    g, dist, pred = tree
    pred[0] = -1
    msg = check_fails(g, dist, pred, "source predecessor", vertex=0)
    assert "predecessors[0] = -1, expected 0" in msg


def test_validate_source_distance_wrong(tree):
    g, dist, pred = tree
    dist[0] = 1
    check_fails(g, dist, pred, "source distance", vertex=0)


def test_validate_unreached_with_pred(tree):
    g, dist, pred = tree
    pred[5] = 0
    pred[6] = 3
    msg = check_fails(g, dist, pred, "unreached predecessor", vertex=5, n_failing=2)
    assert "2 of 2 vertices" in msg


def test_validate_pred_unreached(tree):
    g, dist, pred = tree
    pred[3] = 5  # vertex 5 is unreached (5->3 is not an edge either; this check comes first)
    check_fails(g, dist, pred, "predecessor reached", vertex=3)


@pytest.mark.parametrize("bad", [-1, 7, 2**40])
def test_validate_pred_out_of_range(tree, bad):
    g, dist, pred = tree
    pred = pred.astype(np.int64)
    pred[4] = bad
    check_fails(g, dist, pred, "predecessor range", vertex=4)


def test_validate_shape_and_dtype(tree):
    g, dist, pred = tree
    check_fails(g, dist[:-1], pred, "shape")
    check_fails(g, dist, pred[:-1], "shape")
    check_fails(g, dist.astype(np.int64), pred, "dtype")
    check_fails(g, dist.astype(np.float64), pred, "dtype")
    check_fails(g, dist, pred.astype(np.float32), "dtype")


def test_validate_bad_reference_shape(tree):
    g, dist, pred = tree
    with pytest.raises(ValueError, match="reference_distances"):
        validate_bfs(g, 0, dist, pred, reference_distances=dist[:3])


def test_validate_undirected_accepts_any_bfs_tree():
    """A different but valid BFS tree (another parent on the previous level) passes."""
    g = csr_graph(4, [(0, 1), (0, 2), (1, 3), (2, 3)], directed=False)
    dist, pred = bfs_reference(g, 0)
    alt = pred.copy()
    alt[3] = 2 if pred[3] == 1 else 1
    validate_bfs(g, 0, dist, alt)


@settings(max_examples=150, deadline=None)
@given(graphs(), st.data())
def test_validate_detects_random_corruption(case, data):
    """Any change of one predecessor to a vertex that is not a valid BFS parent is rejected."""
    n, edges, directed, source = case
    g = csr_graph(n, edges, directed)
    dist, pred = bfs_reference(g, source)
    v = data.draw(st.integers(0, n - 1))
    new = data.draw(st.integers(-1, n - 1))
    adj = {(int(a), int(b)) for a, b in edges if a != b}
    if not directed:
        adj |= {(b, a) for a, b in adj}
    if v == source:
        valid = new == source
    elif dist[v] < 0:
        valid = new == -1
    else:
        valid = new >= 0 and (new, v) in adj and dist[new] == dist[v] - 1
    corrupted = pred.copy()
    corrupted[v] = new
    if valid:
        validate_bfs(g, source, dist, corrupted)
    else:
        with pytest.raises(ValidationError):
            validate_bfs(g, source, dist, corrupted)


# --------------------------------------------------------------------------- pointer jumping
@settings(max_examples=200, deadline=None)
@given(st.integers(1, 60).flatmap(lambda k: st.tuples(
    st.just(k), st.lists(st.integers(0, 10**6), min_size=k - 1, max_size=k - 1), st.randoms())))
def test_tree_depths_any_parent_first_order(case):
    """Depths by pointer jumping equal a sequential walk, for BFS orders (monotone fast path) and for
    any order that lists parents before children (general path)."""
    from autotune.reference import _tree_depths

    k, picks, rnd = case
    parent = [-1] + [p % i for i, p in enumerate(picks, start=1)]  # vertex i's parent is < i
    naive = [0] * k
    for i in range(1, k):
        naive[i] = naive[parent[i]] + 1
    perm = list(range(1, k))
    rnd.shuffle(perm)
    labels = np.array([0] + perm)  # relabel vertices; order lists parents first (by construction)
    n = k + 3
    scipy_pred = np.full(n, -9999, dtype=np.int64)
    scipy_pred[labels[1:]] = labels[np.array(parent[1:], dtype=np.int64)]
    got = _tree_depths(labels, scipy_pred, n)
    assert got.tolist() == naive
