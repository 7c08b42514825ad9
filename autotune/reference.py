"""CPU reference BFS and the Graph500-style validator every GPU kernel is checked against.

The reference traversal is SciPy's ``scipy.sparse.csgraph.breadth_first_order`` (a queue-based
top-down BFS in compiled code). It returns the BFS order and a BFS tree (predecessor array); exact
``distances`` are derived from the tree by vectorised pointer jumping, so no Python loop runs per
vertex or per level.

Terms follow DESIGN.md: ``distances`` (int32, -1 = unreached), ``predecessors`` (-1 = unreached,
``predecessors[source] == source``), ``edges_traversed`` (sum of the out-degrees of the reached
vertices, the Graph500 TEPS numerator).
"""
from __future__ import annotations

import numpy as np

from ._backend import to_host
from .errors import ValidationError

__all__ = ["bfs_reference", "validate_bfs", "reference_edges_traversed"]


# --------------------------------------------------------------------------- helpers
def _csgraph(graph):
    """``scipy.sparse.csr_matrix`` of *graph* with float64 data (SciPy's csgraph dtype, so that
    ``breadth_first_order`` does not convert it again on every call)."""
    import scipy.sparse as sp

    ro, ci = graph.host()
    n = graph.n_vertices
    data = np.ones(ci.shape[0], dtype=np.float64)
    return sp.csr_matrix((data, ci, ro), shape=(n, n))


def _check_source(graph, source) -> int:
    if isinstance(source, (bool, np.bool_)) or not isinstance(source, (int, np.integer)):
        raise TypeError(f"source must be an integer vertex index, got {source!r} ({type(source).__name__})")
    s = int(source)
    if not 0 <= s < graph.n_vertices:
        raise ValueError(f"source {s} is not a vertex (valid: 0..{graph.n_vertices - 1})")
    return s


def _tree_depths(order: np.ndarray, scipy_pred: np.ndarray, n: int) -> np.ndarray:
    """Depth of every vertex of a BFS tree, in BFS order.

    Parameters
    ----------
    order : ndarray, shape (k,), int
        BFS order (``order[0]`` is the source), as returned by ``breadth_first_order``.
    scipy_pred : ndarray, shape (n,), int
        Predecessor of every reached vertex other than the source.
    n : int
        Number of vertices.

    Returns
    -------
    ndarray, shape (k,), int32
        ``depth[i]`` = number of tree edges from ``order[i]`` to the source.

    Notes
    -----
    Pointer jumping over BFS-order positions: with ``jump[i]`` an ancestor of position ``i`` and
    ``depth[i]`` the tree distance to it, ``depth += depth[jump]; jump = jump[jump]`` doubles the
    distance covered, so ``ceil(log2(max depth))`` passes suffice. Parent positions are
    non-decreasing in BFS order, so the gathers stream through memory.
    """
    k = order.shape[0]
    depth = np.ones(k, dtype=np.int32)
    depth[0] = 0
    if k <= 1:
        return depth
    pos = np.empty(n, dtype=np.int32)
    pos[order] = np.arange(k, dtype=np.int32)
    jump = np.empty(k, dtype=np.int32)
    jump[0] = 0
    jump[1:] = pos[scipy_pred[order[1:]]]
    if np.all(jump[1:] >= jump[:-1]):
        # BFS-queue order: jump stays non-decreasing, so finished positions (jump == 0) form a
        # prefix and each pass only touches the unfinished suffix.
        lo = int(np.searchsorted(jump, 0, side="right"))
        while lo < k:
            j = jump[lo:]
            depth[lo:] += depth[j]
            jump[lo:] = jump[j]
            lo += int(np.searchsorted(jump[lo:], 0, side="right"))
    else:  # any tree order (not produced by SciPy today): plain synchronous pointer jumping
        while jump.any():
            depth += depth[jump]
            jump = jump[jump]
    return depth


def _bfs_order_depths(csgraph, source: int, n: int):
    """``(order, depth_in_order, scipy_pred)`` of one BFS from *source* on a SciPy CSR matrix."""
    from scipy.sparse.csgraph import breadth_first_order

    order, scipy_pred = breadth_first_order(csgraph, source, directed=True, return_predecessors=True)
    return order, _tree_depths(order, scipy_pred, n), scipy_pred


# --------------------------------------------------------------------------- public API
def bfs_reference(graph, source) -> tuple[np.ndarray, np.ndarray]:
    """Breadth-first search on the CPU: the reference every GPU technique must match.

    Parameters
    ----------
    graph : CSRGraph
        Directed adjacency (an undirected graph stores both directions); host or device arrays
        (device arrays are copied to the host once and cached by ``graph.host()``).
    source : int
        Start vertex, ``0 <= source < graph.n_vertices``.

    Returns
    -------
    distances : ndarray, shape (n_vertices,), int32
        Number of edges on a shortest path from *source*; -1 for unreached vertices.
    predecessors : ndarray, shape (n_vertices,), int32
        Parent in a BFS tree (``distances[predecessors[v]] == distances[v] - 1``);
        ``predecessors[source] == source``; -1 for unreached vertices.

    Raises
    ------
    ValueError
        When *source* is not a vertex of the graph.
    TypeError
        When *source* is not an integer.

    Notes
    -----
    Uses ``scipy.sparse.csgraph.breadth_first_order(csr, source, directed=True,
    return_predecessors=True)``; exact distances come from the BFS tree by pointer jumping
    (O(k log depth) vectorised work for k reached vertices).
    """
    s = _check_source(graph, source)
    n = graph.n_vertices
    order, depth, scipy_pred = _bfs_order_depths(_csgraph(graph), s, n)
    distances = np.full(n, -1, dtype=np.int32)
    distances[order] = depth
    predecessors = np.full(n, -1, dtype=np.int32)
    rest = order[1:]
    predecessors[rest] = scipy_pred[rest]
    predecessors[s] = s
    return distances, predecessors


def reference_edges_traversed(graph, distances) -> int:
    """Edges traversed by a BFS: the sum of the out-degrees of the reached vertices.

    This is the Graph500 TEPS numerator fixed by DESIGN.md (the edges of the traversed component).

    Parameters
    ----------
    graph : CSRGraph
    distances : ndarray, shape (n_vertices,), int
        BFS distances (NumPy or CuPy), -1 = unreached.

    Returns
    -------
    int
        Number of (directed, stored) edges leaving reached vertices; an undirected edge inside the
        component counts twice, as it is stored twice.
    """
    d = to_host(distances)
    if d.shape != (graph.n_vertices,):
        raise ValueError(f"distances has shape {d.shape}, expected ({graph.n_vertices},)")
    deg = graph.out_degrees(np)
    return int(deg[d >= 0].sum())


def _fail(check: str, source: int, detail: str, n_bad: int, n_total: int, vertex=None):
    msg = f"BFS validation failed, check '{check}' (source {source}): {detail}"
    if n_total:
        msg += f"; {n_bad:,} of {n_total:,} vertices fail this check"
    err = ValidationError(msg)
    err.check = check
    err.vertex = None if vertex is None else int(vertex)
    err.n_failing = int(n_bad)
    raise err


def _edge_exists(row_offsets: np.ndarray, column_indices: np.ndarray, rows: np.ndarray,
                 cols: np.ndarray) -> np.ndarray:
    """Whether ``(rows[i], cols[i])`` is an edge: vectorised binary search in each CSR row.

    Relies on the CSR contract that columns are sorted within each row. ``O(len(rows) *
    log2(max degree))`` work and no ``O(n_edges)`` temporaries.
    """
    m = column_indices.shape[0]
    if rows.size == 0 or m == 0:
        return np.zeros(rows.shape[0], dtype=bool)
    lo = row_offsets[rows].astype(np.int64)
    end = row_offsets[rows + 1].astype(np.int64)
    hi = end.copy()
    cols = cols.astype(np.int64)
    while True:
        active = lo < hi
        if not active.any():
            break
        mid = (lo + hi) >> 1
        less = column_indices[np.minimum(mid, m - 1)] < cols
        go_right = active & less
        go_left = active & ~less
        lo = np.where(go_right, mid + 1, lo)
        hi = np.where(go_left, mid, hi)
    return (lo < end) & (column_indices[np.minimum(lo, m - 1)] == cols)


def validate_bfs(graph, source, distances, predecessors, reference_distances=None) -> None:
    """Check a BFS result against the CPU reference and the Graph500 BFS-tree rules.

    Checks, in this order (the first failing one raises; its name is in the message and in
    ``err.check``):

    ``shape`` / ``dtype``
        Both arrays have shape (n_vertices,); ``distances`` is int32, ``predecessors`` int32 or int64.
    ``source distance`` / ``source predecessor``
        ``distances[source] == 0`` and ``predecessors[source] == source``.
    ``distances``
        ``distances`` equals the reference exactly (-1 = unreached).
    ``predecessor range``
        Every reached ``v != source`` has ``0 <= predecessors[v] < n_vertices``.
    ``predecessor reached``
        ... and its predecessor is reached.
    ``tree edge``
        ... and ``(predecessors[v], v)`` is an edge of the graph.
    ``tree level``
        ... and ``distances[predecessors[v]] == distances[v] - 1``.
    ``unreached predecessor``
        Unreached vertices have predecessor -1.

    Parameters
    ----------
    graph : CSRGraph
    source : int
        The BFS source.
    distances : ndarray, shape (n_vertices,), int32
        Result to check (NumPy or CuPy).
    predecessors : ndarray, shape (n_vertices,), int32 or int64
        Result to check (NumPy or CuPy).
    reference_distances : ndarray, shape (n_vertices,), optional
        Precomputed :func:`bfs_reference` distances for *source* (saves a CPU BFS when one
        source is validated several times); computed when omitted.

    Raises
    ------
    ValidationError
        Naming the failing check, the first offending vertex, expected vs got, and how many
        vertices fail that check. Attributes ``check``, ``vertex`` and ``n_failing`` are set.
    ValueError
        When *source* is not a vertex or *reference_distances* has the wrong shape.
    """
    s = _check_source(graph, source)
    n = graph.n_vertices
    dist = to_host(distances)
    pred = to_host(predecessors)

    for name, arr in (("distances", dist), ("predecessors", pred)):
        if arr.shape != (n,):
            _fail("shape", s, f"{name} has shape {arr.shape}, expected ({n},)", 0, 0)
    if dist.dtype != np.int32:
        _fail("dtype", s, f"distances has dtype {dist.dtype}, expected int32", 0, 0)
    if pred.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        _fail("dtype", s, f"predecessors has dtype {pred.dtype}, expected int32 or int64", 0, 0)

    if reference_distances is None:
        ref = bfs_reference(graph, s)[0]
    else:
        ref = to_host(reference_distances)
        if ref.shape != (n,):
            raise ValueError(f"reference_distances has shape {ref.shape}, expected ({n},)")

    if dist[s] != 0:
        _fail("source distance", s, f"source vertex {s}: distances[{s}] = {int(dist[s])}, expected 0", 1, 0, s)
    if pred[s] != s:
        _fail("source predecessor", s, f"source vertex {s}: predecessors[{s}] = {int(pred[s])}, expected {s} "
              f"(the source itself)", 1, 0, s)

    bad = np.flatnonzero(dist != ref)
    if bad.size:
        v = int(bad[0])
        _fail("distances", s, f"first offending vertex {v}: expected distance {int(ref[v])}, got {int(dist[v])}",
              bad.size, n, v)

    reached = dist >= 0
    unreached_bad = np.flatnonzero(~reached & (pred != -1))

    tree = reached.copy()
    tree[s] = False
    v = np.flatnonzero(tree)
    p = pred[v].astype(np.int64)
    n_tree = v.size

    bad = np.flatnonzero((p < 0) | (p >= n))
    if bad.size:
        i = int(bad[0])
        _fail("predecessor range", s, f"first offending vertex {int(v[i])}: predecessor {int(p[i])} is not a "
              f"vertex (valid: 0..{n - 1})", bad.size, n_tree, v[i])

    dp = dist[p]
    bad = np.flatnonzero(dp < 0)
    if bad.size:
        i = int(bad[0])
        _fail("predecessor reached", s, f"first offending vertex {int(v[i])} (distance {int(dist[v[i]])}): "
              f"predecessor {int(p[i])} is unreached (distance -1)", bad.size, n_tree, v[i])

    ro, ci = graph.host()
    bad = np.flatnonzero(~_edge_exists(ro, ci, p, v))
    if bad.size:
        i = int(bad[0])
        _fail("tree edge", s, f"first offending vertex {int(v[i])}: ({int(p[i])}, {int(v[i])}) is not an edge of "
              f"the graph", bad.size, n_tree, v[i])

    bad = np.flatnonzero(dp != dist[v] - 1)
    if bad.size:
        i = int(bad[0])
        _fail("tree level", s, f"first offending vertex {int(v[i])} (distance {int(dist[v[i]])}): predecessor "
              f"{int(p[i])} has distance {int(dp[i])}, expected {int(dist[v[i]]) - 1}", bad.size, n_tree, v[i])

    if unreached_bad.size:
        u = int(unreached_bad[0])
        _fail("unreached predecessor", s, f"first offending vertex {u}: unreached but predecessor "
              f"{int(pred[u])}, expected -1", unreached_bad.size, n - int(reached.sum()), u)
