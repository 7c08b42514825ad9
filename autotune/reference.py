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

__all__ = ["bfs_reference", "validate_bfs", "reference_edges_traversed", "sssp_reference", "validate_sssp",
           "SSSP_INT_UNREACHED", "SSSP_FLOAT_TOLERANCE"]

#: SSSP ``distances`` of an unreached vertex for integer weights (and unweighted graphs, unit
#: weights): the int64 maximum. Float weights use ``+inf``.
SSSP_INT_UNREACHED = int(np.iinfo(np.int64).max)
#: Relative tolerance per hop of float32 SSSP distances against the float64 reference
#: (:func:`validate_sssp`): 2**-22, twice the bound 2**-23 >= gamma_h / h of a float32 sum of h
#: positive terms (unit roundoff 2**-24).
SSSP_FLOAT_TOLERANCE = 2.0 ** -22


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
        from .errors import VertexError

        raise VertexError(f"source {s} is not a vertex (valid: 0..{graph.n_vertices - 1})")
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


def _fail(check: str, source: int, detail: str, n_bad: int, n_total: int, vertex=None, algorithm: str = "BFS"):
    msg = f"{algorithm} validation failed, check '{check}' (source {source}): {detail}"
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
    return _edge_search(row_offsets, column_indices, rows, cols)[0]


def _edge_search(row_offsets: np.ndarray, column_indices: np.ndarray, rows: np.ndarray,
                 cols: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(exists, position)``: whether ``(rows[i], cols[i])`` is an edge and, where it is, the CSR
    position of its first stored copy (the lower bound of ``cols[i]`` in row ``rows[i]``)."""
    m = column_indices.shape[0]
    if rows.size == 0 or m == 0:
        return np.zeros(rows.shape[0], dtype=bool), np.zeros(rows.shape[0], dtype=np.int64)
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
    return (lo < end) & (column_indices[np.minimum(lo, m - 1)] == cols), lo


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


# =========================================================================================== SSSP
def _has_parallel_edges(row_offsets: np.ndarray, column_indices: np.ndarray) -> bool:
    """Whether some row stores a column twice (a graph built with ``remove_duplicates=False``)."""
    m = column_indices.shape[0]
    if m < 2:
        return False
    same = column_indices[1:] == column_indices[:-1]
    starts = row_offsets[1:-1].astype(np.int64)  # position m of a row start: pairs (m - 1, m) span two rows
    starts = starts[(starts > 0) & (starts < m)]
    same[starts - 1] = False
    return bool(same.any())


def _sssp_csgraph(graph):
    """``scipy.sparse.csr_matrix`` of the weights as float64 (unit weights when unweighted), parallel
    edges merged to their minimum weight; cached on the graph."""
    import scipy.sparse as sp

    cached = graph._cache.get("reference_sssp_csgraph")
    if cached is not None:
        return cached
    ro, ci = graph.host()
    w = graph.host_weights()
    n = graph.n_vertices
    data = np.ones(ci.shape[0], dtype=np.float64) if w is None else w.astype(np.float64)
    if _has_parallel_edges(ro, ci):  # SciPy would sum duplicates; a shortest path takes the lightest
        rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(ro))
        keys = rows * n + ci
        first = np.empty(keys.size, dtype=bool)
        first[0] = True
        np.not_equal(keys[1:], keys[:-1], out=first[1:])  # CSR order: equal keys are adjacent
        data = np.minimum.reduceat(data, np.flatnonzero(first))
        a = sp.csr_matrix((data, (rows[first], ci[first])), shape=(n, n))
    else:
        a = sp.csr_matrix((data, ci, ro), shape=(n, n))
    graph._cache["reference_sssp_csgraph"] = a
    return a


def sssp_reference(graph, source) -> tuple[np.ndarray, np.ndarray]:
    """Single-source shortest paths on the CPU (Dijkstra): the reference every GPU SSSP must match.

    Parameters
    ----------
    graph : CSRGraph
        Weighted (``graph.weights``, int32 or float32, positive) or unweighted (unit weights, so
        the distances are BFS hop counts). Host or device arrays (copied to the host once).
    source : int
        Start vertex, ``0 <= source < graph.n_vertices``.

    Returns
    -------
    distances : ndarray, shape (n_vertices,), float64
        Length of a shortest path from *source*, summed in float64 (exact for integer weights
        while sums stay below 2**53); ``inf`` for unreached vertices.
    predecessors : ndarray, shape (n_vertices,), int32
        Parent in a shortest-path tree; ``predecessors[source] == source``; -1 for unreached.

    Raises
    ------
    ValueError
        When *source* is not a vertex of the graph.
    TypeError
        When *source* is not an integer.

    Notes
    -----
    ``scipy.sparse.csgraph.dijkstra(csr, directed=True, indices=source, return_predecessors=True)``
    on a float64 copy of the weights (cached on the graph); parallel edges (graphs built with
    ``remove_duplicates=False``) are merged to their minimum weight first, as SciPy would add them.
    """
    from scipy.sparse.csgraph import dijkstra

    s = _check_source(graph, source)
    dist, pred = dijkstra(_sssp_csgraph(graph), directed=True, indices=s, return_predecessors=True)
    dist = np.asarray(dist, dtype=np.float64)
    predecessors = np.where(np.isfinite(dist), pred, -1).astype(np.int32)
    predecessors[s] = s
    return dist, predecessors


def _tree_hops(pred: np.ndarray, source: int, reached: np.ndarray):
    """Tree edges from every reached vertex to *source* following *pred*, by pointer jumping.

    Parameters
    ----------
    pred : ndarray, shape (n,), int
        Parent of every reached vertex other than the source (in range, reached: checked before).
    source : int
    reached : ndarray, shape (n,), bool

    Returns
    -------
    (hops, stuck)
        ``hops`` int64, shape (n,) (0 for the source and unreached vertices); ``stuck`` the vertices
        whose parent chain never reaches the source (a cycle), empty when the parents form a tree.
        ``ceil(log2(n)) + 1`` vectorised passes at most.
    """
    n = pred.shape[0]
    jump = np.where(reached, pred, source).astype(np.int64)
    jump[source] = source
    hops = reached.astype(np.int64)
    hops[source] = 0
    for _ in range(max(1, n.bit_length()) + 1):
        if not bool((jump != source).any()):
            return hops, np.zeros(0, dtype=np.int64)
        hops += hops[jump]
        jump = jump[jump]
    return hops, np.flatnonzero(jump != source)


def _sssp_weights_of(graph, p: np.ndarray, v: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """Weight of the tree edge ``(p[i], v[i])`` found at CSR position ``pos[i]``: the minimum over
    parallel copies (int64 or float32; 1 when unweighted)."""
    w = graph.host_weights()
    if w is None:
        return np.ones(p.shape[0], dtype=np.int64)
    ro, ci = graph.host()
    out = w[pos]
    if _has_parallel_edges(ro, ci):
        end = ro[p + 1].astype(np.int64)
        m = ci.shape[0]
        nxt = pos + 1
        while True:
            more = (nxt < end) & (ci[np.minimum(nxt, m - 1)] == v)
            if not bool(more.any()):
                break
            out = np.where(more, np.minimum(out, w[np.minimum(nxt, m - 1)]), out)
            nxt = nxt + more
    return out.astype(np.int64) if w.dtype.kind in "iu" else out


def _num(x) -> str:
    """A distance or weight for a message: integers as such, float32 with 9 and float64 with 17
    significant digits (enough to tell two values apart), ``inf`` as is."""
    x = np.asarray(x)
    if x.dtype.kind in "iub":
        return str(int(x))
    return f"{float(x):.9g}" if x.dtype == np.float32 else f"{float(x):.17g}"


def validate_sssp(graph, source, distances, predecessors, reference=None, *, reference_distances=None) -> None:
    """Check an SSSP result against Dijkstra (:func:`sssp_reference`) and the shortest-path-tree rules.

    Input conventions (what the GPU engine produces)
        - integer weights, and unweighted graphs (unit weights): ``distances`` int64, unreached =
          :data:`SSSP_INT_UNREACHED` (``np.iinfo(np.int64).max``); compared **exactly**.
        - float32 weights: ``distances`` float64 (float32 values widened; they are cast back to
          float32) or float32, unreached = ``+inf``.
        - ``predecessors`` int32 (or int64), -1 = unreached, ``predecessors[source] == source``.
        NumPy or CuPy arrays (copied to the host).

    Checks, in this order (the first failing one raises; its name is in the message and in
    ``err.check``):

    ``shape`` / ``dtype``
        Shapes (n_vertices,); dtypes as above.
    ``source distance`` / ``source predecessor``
        ``distances[source] == 0`` and ``predecessors[source] == source``.
    ``reached``
        A vertex is reached (distance not the unreached value) exactly when Dijkstra reaches it.
    ``distances`` (integer weights, checked here)
        Equal to the reference exactly.
    ``predecessor range`` / ``predecessor reached``
        Every reached ``v != source`` has a predecessor that is a vertex and is reached.
    ``tree edge``
        ``(predecessors[v], v)`` is an edge (its weight ``w``: the lightest parallel copy).
    ``tree weight``
        ``distances[p] + w == distances[v]`` for ``p = predecessors[v]``: exactly in int64 for
        integer weights; for float weights in **float32** arithmetic,
        ``float32(d[p]) + float32(w) == float32(d[v])`` rounded to nearest, as the device computes
        ``float32(d_u + w)`` and stores it.
    ``tree cycle`` (float weights)
        Following predecessors from every reached vertex ends at the source (float32 rounding can
        absorb a tiny weight, ``d + w == d``, so the tree-weight rule alone does not exclude cycles).
    ``distances`` (float weights, checked here)
        ``|d[v] - ref[v]| <= 2**-22 * h(v) * ref[v]`` with ``d[v]`` the float32 distance, ``ref`` the
        float64 Dijkstra distance and ``h(v) = max(h_ref(v), h_dev(v))``, the larger hop count of
        ``v``'s path in the reference tree and in the checked tree (both by vectorised pointer
        jumping). Sound: after the tree checks ``d[v]`` is the float32 left-to-right sum of the
        ``h_dev`` weights of its tree path, at least ``L(1 - gamma)``; a correct device's ``d[v]`` is
        at most the float32 sum along the reference path, at most ``L(1 + gamma)``; ``gamma_h =
        h u / (1 - h u) <= h 2**-23`` (unit roundoff ``u = 2**-24``, ``h <= 2**22``), so the rule
        leaves a factor 2 of slack (which also covers the reference's own float64 rounding). It
        holds for paths of up to about ``1.2e7`` hops.
    ``unreached predecessor``
        Unreached vertices have predecessor -1.

    Parameters
    ----------
    graph : CSRGraph
        Weighted or unweighted (unit weights: the distances are BFS hop counts).
    source : int
    distances : ndarray, shape (n_vertices,), int64 / float64 / float32
    predecessors : ndarray, shape (n_vertices,), int32 or int64
    reference : tuple (distances, predecessors), optional
        :func:`sssp_reference` of *source*, when already computed (saves a Dijkstra).
    reference_distances : ndarray or tuple, optional
        The reference distances alone (enough for integer weights; for float weights the
        reference predecessors are then recomputed with a Dijkstra run), or the same tuple as
        *reference*.

    Raises
    ------
    ValidationError
        Naming the failing check, the first offending vertex, expected vs got, and how many
        vertices fail that check; attributes ``check``, ``vertex`` and ``n_failing``.
    ValueError
        When *source* is not a vertex, or a reference has the wrong shape.
    """
    s = _check_source(graph, source)
    n = graph.n_vertices
    dist = to_host(distances)
    pred = to_host(predecessors)
    w = graph.host_weights()
    floating = w is not None and w.dtype.kind == "f"

    def fail(check, detail, n_bad, n_total, vertex=None):
        _fail(check, s, detail, n_bad, n_total, vertex, algorithm="SSSP")

    for name, arr in (("distances", dist), ("predecessors", pred)):
        if arr.shape != (n,):
            fail("shape", f"{name} has shape {arr.shape}, expected ({n},)", 0, 0)
    if floating and dist.dtype not in (np.dtype(np.float64), np.dtype(np.float32)):
        fail("dtype", f"distances has dtype {dist.dtype}, expected float64 (or float32) for float32 weights", 0, 0)
    if not floating and dist.dtype != np.int64:
        fail("dtype", f"distances has dtype {dist.dtype}, expected int64 for "
             f"{'integer' if w is not None else 'unit (unweighted)'} weights", 0, 0)
    if pred.dtype not in (np.dtype(np.int32), np.dtype(np.int64)):
        fail("dtype", f"predecessors has dtype {pred.dtype}, expected int32 or int64", 0, 0)

    if reference is None and isinstance(reference_distances, tuple):
        reference = reference_distances
    if reference is not None:
        ref, ref_pred = to_host(reference[0]), to_host(reference[1])
    elif reference_distances is not None:
        ref, ref_pred = to_host(reference_distances), None
    else:
        ref, ref_pred = sssp_reference(graph, s)
    if ref.shape != (n,) or (ref_pred is not None and ref_pred.shape != (n,)):
        raise ValueError(f"the reference has shape {ref.shape}, expected ({n},)")
    if floating and ref_pred is None:
        ref, ref_pred = sssp_reference(graph, s)

    if floating:
        d32 = dist.astype(np.float32)
        reached = d32 != np.float32(np.inf)
        shown = d32
    else:
        reached = dist != SSSP_INT_UNREACHED
        shown = dist
    if shown[s] != 0:
        fail("source distance", f"source vertex {s}: distances[{s}] = {_num(shown[s])}, expected 0", 1, 0, s)
    if pred[s] != s:
        fail("source predecessor", f"source vertex {s}: predecessors[{s}] = {int(pred[s])}, expected {s} "
             f"(the source itself)", 1, 0, s)

    ref_reached = np.isfinite(ref)
    unreached_text = "+inf" if floating else f"{SSSP_INT_UNREACHED} (int64 max)"
    bad = np.flatnonzero(reached != ref_reached)
    if bad.size:
        v = int(bad[0])
        detail = (f"first offending vertex {v}: reached at distance {_num(ref[v])} by Dijkstra, got the unreached "
                  f"value {unreached_text}" if ref_reached[v] else
                  f"first offending vertex {v}: unreached by Dijkstra (expected {unreached_text}), got "
                  f"{_num(shown[v])}")
        fail("reached", detail, bad.size, n, v)

    if not floating:
        bad = np.flatnonzero(reached & (dist != np.where(ref_reached, ref, 0).astype(np.int64)))
        if bad.size:
            v = int(bad[0])
            fail("distances", f"first offending vertex {v}: expected distance {int(ref[v])}, got {int(dist[v])}",
                 bad.size, n, v)

    tree = reached.copy()
    tree[s] = False
    v = np.flatnonzero(tree)
    p = pred[v].astype(np.int64)
    n_tree = v.size
    bad = np.flatnonzero((p < 0) | (p >= n))
    if bad.size:
        i = int(bad[0])
        fail("predecessor range", f"first offending vertex {int(v[i])}: predecessor {int(p[i])} is not a vertex "
             f"(valid: 0..{n - 1})", bad.size, n_tree, v[i])
    bad = np.flatnonzero(~reached[p])
    if bad.size:
        i = int(bad[0])
        fail("predecessor reached", f"first offending vertex {int(v[i])}: predecessor {int(p[i])} is unreached",
             bad.size, n_tree, v[i])

    ro, ci = graph.host()
    exists, pos = _edge_search(ro, ci, p, v)
    bad = np.flatnonzero(~exists)
    if bad.size:
        i = int(bad[0])
        fail("tree edge", f"first offending vertex {int(v[i])}: ({int(p[i])}, {int(v[i])}) is not an edge of the "
             f"graph", bad.size, n_tree, v[i])
    we = _sssp_weights_of(graph, p, v, pos)
    if floating:
        with np.errstate(over="ignore"):
            got = d32[p] + we  # float32 + float32: rounded to nearest float32, as on the device
        bad = np.flatnonzero(got != d32[v])
    else:
        got = dist[p] + we
        bad = np.flatnonzero(got != dist[v])
    if bad.size:
        i = int(bad[0])
        vi, pi = int(v[i]), int(p[i])
        arith = "float32 " if floating else ""
        fail("tree weight", f"first offending vertex {vi}: distances[{pi}] + w({pi}, {vi}) = {_num(shown[pi])} + "
             f"{_num(we[i])} = {_num(got[i])} ({arith}sum) but distances[{vi}] = {_num(shown[vi])}", bad.size, n_tree,
             vi)

    if floating:
        hops, stuck = _tree_hops(pred, s, reached)
        if stuck.size:
            u = int(stuck[0])
            fail("tree cycle", f"first offending vertex {u}: following predecessors from it never reaches the source "
                 f"(a cycle of equal float32 distances)", stuck.size, n_tree, u)
        ref_hops, _ = _tree_hops(ref_pred, s, ref_reached)
        h = np.maximum(hops, ref_hops).astype(np.float64)
        refr = np.where(ref_reached, ref, 0.0)
        err = np.abs(np.where(reached, d32.astype(np.float64), 0.0) - refr)
        tol = SSSP_FLOAT_TOLERANCE * h * refr
        bad = np.flatnonzero(~(err <= tol))
        if bad.size:
            u = int(bad[0])
            fail("distances", f"first offending vertex {u}: expected distance {_num(ref[u])} (float64 reference), got "
                 f"{_num(d32[u])} (float32), off by {float(err[u]):.3g} > tolerance {float(tol[u]):.3g} "
                 f"(2**-22 x {int(h[u])} hops x distance)", bad.size, n, u)

    unreached_bad = np.flatnonzero(~reached & (pred != -1))
    if unreached_bad.size:
        u = int(unreached_bad[0])
        fail("unreached predecessor", f"first offending vertex {u}: unreached but predecessor {int(pred[u])}, "
             f"expected -1", unreached_bad.size, n - int(reached.sum()), u)
