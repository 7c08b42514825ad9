"""CPU reference SSSP (Dijkstra) against networkx, and every validate_sssp rule and failure mode."""
from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autotune.errors import ValidationError
from autotune.generators import kronecker
from autotune.graph import from_edges
from autotune.reference import (
    SSSP_FLOAT_TOLERANCE, SSSP_INT_UNREACHED, _edge_search, _tree_hops, bfs_reference, sssp_reference, validate_sssp,
)

INF = SSSP_INT_UNREACHED


# ------------------------------------------------------------------------------- helpers
def as_int_result(dist64: np.ndarray) -> np.ndarray:
    """Reference float64 distances in the integer-weight convention (int64, int64 max = unreached)."""
    out = np.full(dist64.shape, INF, dtype=np.int64)
    ok = np.isfinite(dist64)
    out[ok] = dist64[ok].astype(np.int64)
    return out


def float32_along_tree(g, source, pred) -> np.ndarray:
    """What a float32 device computes along the tree *pred*: ``d[v] = float32(d[p] + w(p, v))``,
    level by level (one vectorised step per hop count), widened to float64; +inf unreached."""
    reached = pred >= 0
    hops, stuck = _tree_hops(pred, source, reached)
    assert stuck.size == 0
    ro, ci = g.host()
    w = g.host_weights()
    out = np.full(g.n_vertices, np.inf, dtype=np.float32)
    out[source] = 0
    for k in range(1, int(hops.max()) + 1):
        v = np.flatnonzero(reached & (hops == k))
        p = pred[v].astype(np.int64)
        ok, pos = _edge_search(ro, ci, p, v)
        assert ok.all()
        out[v] = out[p] + w[pos]
    return out.astype(np.float64)


def device_like(g, source):
    """A correct SSSP result in the engine's conventions, built from the reference tree."""
    d, p = sssp_reference(g, source)
    if g.weights is not None and g.weights.dtype.kind == "f":
        return float32_along_tree(g, source, p), p
    return as_int_result(d), p


def check_fails(g, s, dist, pred, check, vertex=None, **kw):
    with pytest.raises(ValidationError) as info:
        validate_sssp(g, s, dist, pred, **kw)
    err = info.value
    assert err.check == check, str(err)
    assert str(err).startswith(f"SSSP validation failed, check '{check}' (source {s})"), str(err)
    if vertex is not None:
        assert err.vertex == vertex, str(err)
    return err


@st.composite
def weighted_graphs(draw, max_n=25, floats=None):
    n = draw(st.integers(2, max_n))
    m = draw(st.integers(1, 4 * n))
    src = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    dst = draw(st.lists(st.integers(0, n - 1), min_size=m, max_size=m))
    fl = draw(st.booleans()) if floats is None else floats
    if fl:
        w = draw(st.lists(st.floats(0.0009765625, 1024.0, allow_nan=False, width=32), min_size=m, max_size=m))
    else:
        w = draw(st.lists(st.integers(1, 1000), min_size=m, max_size=m))
    directed = draw(st.booleans())
    if all(a == b for a, b in zip(src, dst)):
        src, dst = [0], [1]
        w = w[:1]
    g = from_edges(np.array(src), np.array(dst), n, weights=np.array(w), directed=directed, xp=np)
    return g, draw(st.integers(0, n - 1))


def to_nx(g):
    G = nx.DiGraph()
    G.add_nodes_from(range(g.n_vertices))
    ro, ci = g.host()
    rows = np.repeat(np.arange(g.n_vertices), np.diff(ro))
    w = np.ones(g.n_edges) if g.weights is None else g.host_weights().astype(np.float64)
    G.add_weighted_edges_from(zip(rows.tolist(), ci.tolist(), w.tolist()))
    return G


# ------------------------------------------------------------------------ sssp_reference
@settings(max_examples=200, deadline=None)
@given(weighted_graphs())
def test_reference_matches_networkx_and_validates(case):
    g, s = case
    dist, pred = sssp_reference(g, s)
    assert dist.dtype == np.float64 and pred.dtype == np.int32 and dist.shape == pred.shape == (g.n_vertices,)
    want = nx.single_source_dijkstra_path_length(to_nx(g), s)
    expect = np.full(g.n_vertices, np.inf)
    for v, d in want.items():
        expect[v] = d
    np.testing.assert_allclose(dist, expect, rtol=1e-12)
    assert pred[s] == s and np.all(pred[~np.isfinite(dist)] == -1)
    d, p = device_like(g, s)
    validate_sssp(g, s, d, p)  # a correct result in the engine's conventions passes
    validate_sssp(g, s, d, p, reference=(dist, pred))
    validate_sssp(g, s, d, p, reference_distances=dist)


def test_unit_weights_give_bfs_distances():
    g = kronecker(9, 8, seed=2, xp=np, directed=True)
    s = int(np.argmax(g.out_degrees()))
    dist, pred = sssp_reference(g, s)
    bdist, bpred = bfs_reference(g, s)
    np.testing.assert_array_equal(np.where(bdist >= 0, bdist, -1), np.where(np.isfinite(dist), dist, -1))
    # a BFS result in the SSSP conventions (int64, int64 max unreached) is a valid unit-weight SSSP result
    d = np.where(bdist >= 0, bdist.astype(np.int64), INF)
    validate_sssp(g, s, d, bpred)
    with pytest.raises(ValidationError, match="expected int64"):
        validate_sssp(g, s, bdist, bpred)  # BFS's own int32 / -1 convention is not SSSP's


def test_reference_parallel_edges_take_the_lightest():
    g = from_edges([0, 0, 1], [1, 1, 2], 3, weights=[9, 2, 5], remove_duplicates=False, xp=np)
    assert g.n_edges == 3
    dist, pred = sssp_reference(g, 0)
    assert dist.tolist() == [0.0, 2.0, 7.0] and pred.tolist() == [0, 0, 1]
    validate_sssp(g, 0, np.array([0, 2, 7]), pred)
    check_fails(g, 0, np.array([0, 9, 14]), pred, "distances", vertex=1)


def test_reference_bad_source():
    g = from_edges([0], [1], weights=[1], xp=np)
    with pytest.raises(ValueError, match="not a vertex"):
        sssp_reference(g, 2)
    with pytest.raises(TypeError):
        sssp_reference(g, 0.5)


# ------------------------------------------------------------------------ validate_sssp
@pytest.fixture
def int_case():
    #   0 -3-> 1 -4-> 2        0 -10-> 2 (longer than via 1)      3 unreached, 4 -> 0
    g = from_edges([0, 1, 0, 4], [1, 2, 2, 0], 5, weights=[3, 4, 10, 1], xp=np)
    d, p = device_like(g, 0)
    assert d.tolist() == [0, 3, 7, INF, INF] and p.tolist() == [0, 0, 1, -1, -1]
    return g, d, p


def test_validate_accepts_correct_int_result(int_case):
    g, d, p = int_case
    validate_sssp(g, 0, d, p)
    validate_sssp(g, 0, d, p.astype(np.int64))


def test_validate_wrong_distance(int_case):
    g, d, p = int_case
    d[2] = 8
    err = check_fails(g, 0, d, p, "distances", vertex=2)
    assert "expected distance 7, got 8" in str(err)


def test_validate_wrong_predecessor(int_case):
    g, d, p = int_case
    p[2] = 0  # (0, 2) is an edge, but 0 + 10 != 7
    err = check_fails(g, 0, d, p, "tree weight", vertex=2)
    assert "distances[0] + w(0, 2) = 0 + 10 = 10" in str(err) and "distances[2] = 7" in str(err)


def test_validate_non_edge_predecessor(int_case):
    g, d, p = int_case
    p[1] = 2  # (2, 1) is no edge
    check_fails(g, 0, d, p, "tree edge", vertex=1)


def test_validate_reached_mismatch(int_case):
    g, d, p = int_case
    bad = d.copy()
    bad[2] = INF
    err = check_fails(g, 0, bad, p, "reached", vertex=2)
    assert "reached at distance 7 by Dijkstra" in str(err)
    bad = d.copy()
    bad[3] = 5
    check_fails(g, 0, bad, p, "reached", vertex=3)


@pytest.mark.parametrize("pred_value,check", [(7, "predecessor range"), (-1, "predecessor range"),
                                              (3, "predecessor reached")])
def test_validate_predecessor_range_and_reached(int_case, pred_value, check):
    g, d, p = int_case
    p[2] = pred_value
    check_fails(g, 0, d, p, check, vertex=2)


def test_validate_source_and_unreached(int_case):
    g, d, p = int_case
    bad = d.copy()
    bad[0] = 1
    check_fails(g, 0, bad, p, "source distance", vertex=0)
    bad = p.copy()
    bad[0] = -1
    check_fails(g, 0, d, bad, "source predecessor", vertex=0)
    bad = p.copy()
    bad[3] = 0
    check_fails(g, 0, d, bad, "unreached predecessor", vertex=3)


def test_validate_shapes_and_dtypes(int_case):
    g, d, p = int_case
    check_fails(g, 0, d[:4], p, "shape")
    check_fails(g, 0, d, p[:4], "shape")
    check_fails(g, 0, d.astype(np.float64), p, "dtype")
    check_fails(g, 0, d, p.astype(np.float32), "dtype")
    with pytest.raises(ValueError, match="shape"):
        validate_sssp(g, 0, d, p, reference_distances=np.zeros(3))


@pytest.fixture
def float_case():
    g = kronecker(10, 8, seed=4, weights="float:0.001:1000", xp=np)
    s = int(np.argmax(g.out_degrees()))
    d, p = device_like(g, s)
    return g, s, d, p


def test_validate_float_result_conventions(float_case):
    g, s, d, p = float_case
    assert d.dtype == np.float64 and np.isinf(d[p < 0]).all()
    validate_sssp(g, s, d, p)
    validate_sssp(g, s, d.astype(np.float32), p)
    check_fails(g, s, as_int_result(d), p, "dtype")


def test_validate_float_wrong_distance(float_case):
    g, s, d, p = float_case
    leaf = int(np.flatnonzero((p >= 0) & ~np.isin(np.arange(g.n_vertices), p[p != np.arange(g.n_vertices)]))[0])
    bad = d.copy()
    bad[leaf] = np.nextafter(np.float32(d[leaf]), np.float32(np.inf))  # one float32 ulp off
    check_fails(g, s, bad, p, "tree weight", vertex=leaf)


def test_validate_float_consistent_but_too_long_tree():
    # 0 -1-> 1 -1-> 2 and 0 -5-> 2: a tree through the heavy edge is self-consistent but 3 too long
    g = from_edges([0, 1, 0], [1, 2, 2], 3, weights=np.array([1.0, 1.0, 5.0]), xp=np)
    pred = np.array([0, 0, 0], dtype=np.int32)
    dist = np.array([0.0, 1.0, 5.0])
    err = check_fails(g, 0, dist, pred, "distances", vertex=2)
    assert "expected distance 2" in str(err) and "tolerance" in str(err)
    validate_sssp(g, 0, np.array([0.0, 1.0, 2.0]), np.array([0, 0, 1], dtype=np.int32))


def test_validate_float_cycle_of_absorbed_weights():
    # d(1) = d(2) = 1e8; w = 1 vanishes in float32 (1e8 + 1 == 1e8), so 1 <-> 2 passes the weight rule
    g = from_edges([0, 0, 1, 2], [1, 2, 2, 1], 3, weights=np.array([1e8, 1e8, 1.0, 1.0]), xp=np)
    dist = np.array([0.0, 1e8, 1e8])
    check_fails(g, 0, dist, np.array([0, 2, 1], dtype=np.int32), "tree cycle")
    validate_sssp(g, 0, dist, np.array([0, 0, 0], dtype=np.int32))


def test_float_tolerance_rule():
    # a long path of weights that do not add exactly in float32: the float32 sum drifts from the float64
    # one, within 2**-22 x hops x distance
    n = 3000
    w = np.full(n - 1, 0.1, dtype=np.float32)
    g = from_edges(np.arange(n - 1), np.arange(1, n), n, weights=w, xp=np)
    d, p = device_like(g, 0)
    ref = sssp_reference(g, 0)[0]
    drift = np.abs(d - ref)
    assert drift.max() > 0  # the float32 sums do differ
    assert np.all(drift <= SSSP_FLOAT_TOLERANCE * np.arange(n) * ref)
    validate_sssp(g, 0, d, p)


@settings(max_examples=100, deadline=None)
@given(weighted_graphs(max_n=40, floats=True))
def test_float_results_along_any_reference_tree_pass(case):
    g, s = case
    d, p = device_like(g, s)
    validate_sssp(g, s, d, p)


@settings(max_examples=100, deadline=None)
@given(weighted_graphs(max_n=30, floats=False), st.data())
def test_random_corruption_is_detected(case, data):
    g, s = case
    d, p = device_like(g, s)
    reached = np.flatnonzero(p >= 0)
    others = reached[reached != s]
    if others.size == 0:
        return
    v = int(data.draw(st.sampled_from(others.tolist())))
    kind = data.draw(st.sampled_from(["dist", "pred"]))
    if kind == "dist":
        d[v] += data.draw(st.sampled_from([-1, 1, 7]))
    else:
        new = data.draw(st.integers(0, g.n_vertices - 1))
        if new == p[v]:
            return
        p[v] = new
        # still valid when new is another optimal parent
        ro, ci = g.host()
        ok, pos = _edge_search(ro, ci, np.array([new]), np.array([v]))
        if ok[0] and d[new] != INF and d[new] + int(g.host_weights()[pos[0]]) == d[v] and new != v:
            hops, stuck = _tree_hops(p, s, p >= 0)
            if stuck.size == 0:
                validate_sssp(g, s, d, p)
                return
    with pytest.raises(ValidationError):
        validate_sssp(g, s, d, p)
