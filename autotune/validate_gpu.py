"""Graph500's BFS-tree checks and the shortest-path-tree rules, vectorised for the GPU.

:func:`validate_bfs_gpu` and :func:`validate_sssp_gpu` check a traversal's result from the graph
and the result alone (no reference traversal): with CuPy arrays they run on the GPU (the graph's
``device()`` arrays), with NumPy arrays on the host, the same code through the array module
``xp``. They share no code with the traversal kernels (``kernels/``) or the engine: only array
operations (gathers, comparisons, ``bincount``, ``cumsum``, a segmented binary search).

What the checks prove (BFS). With (1) ``distances[source] == 0``, ``predecessors[source] ==
source``; (2) every reached ``v != source`` has a predecessor ``p`` that is reached, one level up
(``distances[p] == distances[v] - 1``) and an in-neighbour (the edge ``p -> v`` exists); (3) every
edge ``u -> v`` with ``u`` reached has ``v`` reached and ``distances[v] <= distances[u] + 1``;
and unreached vertices carrying ``-1`` in both arrays: following predecessors from a reached
vertex descends one level per step to the only vertex of level 0, the source, so every reached
vertex is reachable and ``distances`` is at least its hop distance; by (3) along a shortest path
it is at most that. So ``distances`` is exactly the BFS distance, the reached set is exactly the
source's (out-)component, and ``predecessors`` is a BFS tree: Graph500's validation.

SSSP: the same with weights: (2') ``distances[p] + w(p, v) == distances[v]`` (the lightest of
parallel copies), (3') ``distances[v] <= distances[u] + w(u, v)`` for every edge from a reached
``u``, and for float weights a check that the predecessors form a tree (pointer jumping). Exact for
integer weights (int64 sums); float weights within :data:`~autotune.reference.SSSP_FLOAT_TOLERANCE`
(``2**-22``, the per-hop tolerance of :func:`autotune.reference.validate_sssp`) relative, per edge.

Memory. The edge-wise checks run over chunks of *chunk_edges* edges (default
:data:`DEFAULT_CHUNK_EDGES`, 2**24): per chunk the row id of every edge (``bincount`` of the row
starts, ``cumsum``: int64) and the gathered distances, at most about 40 bytes per edge of the chunk
for BFS (int32 distances) and 50 for SSSP (int64 / float64 sums), whatever the graph's size: so no
``O(n_edges)`` temporaries (2**24 edges: under 0.7 / 0.9 GB). The per-vertex checks hold about 70
bytes per reached vertex (the segmented binary search's bounds in int64). Measured with NumPy
(tracemalloc) on kron scale 17, 3.7e6 edges: peak 24 / 33 bytes per chunk edge (chunks of 2**18),
48 / 66 bytes per vertex; the whole edge set as one chunk 18 / 27 bytes per edge. (The row ids'
``cumsum`` is not done in place, 8 bytes per chunk edge more than that minimum, as CuPy's scan need
not support an output aliasing its input.) Only a graph whose columns are not sorted within their
rows (against the :class:`~autotune.graph.CSRGraph` contract; found in the edge pass) takes
a fallback with ``O(n_edges)`` temporaries: sorted int64 ``row * n + column`` keys and their
order, 16 bytes per edge plus the sort's scratch.
"""
from __future__ import annotations

import numpy as np

from ._backend import to_host, xp_of
from .errors import ValidationError
from .reference import SSSP_FLOAT_TOLERANCE, SSSP_INT_UNREACHED, _check_source, _num

__all__ = ["validate_bfs_gpu", "validate_sssp_gpu", "validate_on_device", "DEFAULT_CHUNK_EDGES"]

#: Edges examined at once by the edge-wise checks (bounds their temporaries, see the module notes).
DEFAULT_CHUNK_EDGES = 1 << 24


# --------------------------------------------------------------------------------- helpers
def _fail(algorithm: str, check: str, source: int, detail: str, n_bad: int = 0, n_total: int = 0,
          unit: str = "vertices", vertex=None, edge=None):
    msg = f"{algorithm} validation failed, check '{check}' (source {source}): {detail}"
    if n_total:
        msg += f"; {n_bad:,} of {n_total:,} {unit} fail this check"
    err = ValidationError(msg)
    err.check = check
    err.vertex = None if vertex is None else int(vertex)
    err.edge = None if edge is None else (int(edge[0]), int(edge[1]))
    err.n_failing = int(n_bad)
    raise err


def _first(mask, xp) -> tuple[int, int]:
    """``(count, first index)`` of the True entries of a 1-D bool array (first = -1 when none)."""
    count = int(xp.count_nonzero(mask))
    if not count:
        return 0, -1
    return count, int(xp.argmax(mask.view(xp.int8)))


def _module_arrays(graph, xp, weighted: bool):
    """``(row_offsets, column_indices, weights or None)`` of *graph* in module *xp*."""
    if xp is np:
        ro, ci = graph.host()
        w = graph.host_weights() if weighted else None
    else:
        ro, ci = graph.device()
        w = graph.device_weights() if weighted else None
    return ro, ci, w


def _as_module(a, xp):
    if xp is np:
        return to_host(a)
    return xp.asarray(a)


class _EdgeTally:
    """First offending edge (global CSR position) and count of one edge-wise check."""

    def __init__(self):
        self.count = 0
        self.first = -1

    def add(self, mask, e0: int, xp) -> None:
        c, i = _first(mask, xp)
        if c:
            if self.first < 0:
                self.first = e0 + i
            self.count += c


def _edge_pass(ro, ci, n: int, chunk: int, xp, visit) -> bool:
    """Walk the edges in chunks; ``visit(e0, rows, cols)`` gets each chunk's row ids (int64) and
    column indices. Returns whether the columns are sorted (non-decreasing) within every row."""
    m = int(ci.shape[0])
    rows_sorted = True
    for e0 in range(0, m, chunk):
        e1 = min(m, e0 + chunk)
        size = e1 - e0
        r0, r1 = (int(x) for x in (xp.searchsorted(ro, xp.asarray([e0, e1 - 1], dtype=ro.dtype), side="right")
                                  - 1).tolist())
        starts = (ro[r0 + 1:r1 + 1] - e0).astype(np.int64)  # chunk positions where a row begins (repeats: empty rows)
        if starts.size:
            rows = xp.bincount(starts, minlength=size)[:size].astype(np.int64, copy=False)
        else:
            rows = xp.zeros(size, dtype=np.int64)
        cols = ci[e0:e1]
        if rows_sorted and size > 1:
            # a descent between neighbours is fine only where a new row begins
            desc = (cols[1:] < cols[:-1]) & (rows[1:] == 0)
            if bool(desc.any()):
                rows_sorted = False
            del desc
        if rows_sorted and e0 > 0 and int(ro[r0]) < e0 and int(ci[e0 - 1]) > int(ci[e0]):
            rows_sorted = False  # the pair across the chunk boundary, inside one row
        del starts
        rows = xp.cumsum(rows)  # not in place: CuPy's scan need not support out= aliasing its input
        rows += r0
        visit(e0, rows, cols)
        del rows
    return rows_sorted


def _edge_row(ro, e: int, xp) -> int:
    """Row (source vertex) of the edge at CSR position *e*."""
    return int((xp.searchsorted(ro, xp.asarray([e], dtype=ro.dtype), side="right") - 1).tolist()[0])


def _find_edges(ro, ci, w, p, v, n: int, rows_sorted: bool, chunk: int, xp):
    """Whether each ``(p[i], v[i])`` is an edge and, with weights *w*, the lightest weight of its
    parallel copies (else None).

    Sorted rows: a segmented binary search (lower bound of ``v[i]`` in ``ci[ro[p[i]]:ro[p[i]+1]]``),
    ``bit_length(max degree)`` vectorised steps, about 50 bytes per query. Otherwise: sorted int64
    keys ``row * n + column`` of every edge and their order (the documented ``O(n_edges)`` fallback).
    """
    k = int(p.shape[0])
    m = int(ci.shape[0])
    if k == 0 or m == 0:
        return xp.zeros(k, dtype=bool), (None if w is None else xp.zeros(k, dtype=w.dtype))
    v = v.astype(np.int64, copy=False)
    if rows_sorted:
        lo = ro[p].astype(np.int64)
        end = ro[p + 1].astype(np.int64)
        hi = end.copy()
        for _ in range(int((end - lo).max()).bit_length()):  # finished searches (lo == hi) stay put
            mid = lo + hi
            mid >>= 1
            less = ci[xp.minimum(mid, m - 1)] < v
            active = lo < hi
            lo = xp.where(active & less, mid + 1, lo)
            hi = xp.where(active & ~less, mid, hi)
            del mid, less, active
        del hi

        def is_edge(pos):  # the entry at CSR position pos (< end) is (p, v)
            return ci[xp.minimum(pos, m - 1)] == v

        weights = w
    else:
        keys = xp.empty(m, dtype=np.int64)

        def fill(e0, rows, cols):
            seg = keys[e0:e0 + int(cols.shape[0])]
            seg[...] = rows
            seg *= n
            seg += cols

        _edge_pass(ro, ci, n, chunk, xp, fill)
        order = xp.argsort(keys)
        skeys = keys[order]
        del keys
        weights = None if w is None else w[order]
        del order
        q = p * n + v
        lo = xp.searchsorted(skeys, q)
        end = xp.full(k, m, dtype=np.int64)

        def is_edge(pos):
            return skeys[xp.minimum(pos, m - 1)] == q

    found = lo < end
    found &= is_edge(lo)
    if w is None:
        return found, None
    wt = weights[xp.minimum(lo, m - 1)]
    nxt = lo + 1
    while True:  # parallel copies (graphs built with remove_duplicates=False): keep the lightest
        more = found & (nxt < end)
        more &= is_edge(nxt)
        if not bool(more.any()):
            break
        wt = xp.where(more, xp.minimum(wt, weights[xp.minimum(nxt, m - 1)]), wt)
        nxt = nxt + more
    return found, wt


def _check_arrays(algorithm, graph, source, distances, predecessors):
    s = _check_source(graph, source)
    n = graph.n_vertices
    xp = xp_of(distances)
    dist = distances if xp is not np else to_host(distances)
    pred = _as_module(predecessors, xp)
    for name, arr in (("distances", dist), ("predecessors", pred)):
        if tuple(arr.shape) != (n,):
            _fail(algorithm, "shape", s, f"{name} has shape {tuple(arr.shape)}, expected ({n},)")
    if pred.dtype.kind not in "iu":
        _fail(algorithm, "dtype", s, f"predecessors has dtype {pred.dtype}, expected an integer dtype")
    return s, n, xp, dist, pred


def _tree_vertices(reached, s: int, xp):
    tree = reached.copy()
    tree[s] = False
    return xp.flatnonzero(tree)


# ------------------------------------------------------------------------------------- BFS
def validate_bfs_gpu(graph, source, distances, predecessors, *, chunk_edges: int = DEFAULT_CHUNK_EDGES) -> None:
    """Check a BFS result with Graph500's tree rules, on the GPU for CuPy arrays (NumPy: the host).

    Checks, in this order (the first failing one raises; its name is in the message and in
    ``err.check``):

    ``shape`` / ``dtype``
        Both arrays of shape (n_vertices,), integer.
    ``source distance`` / ``source predecessor``
        ``distances[source] == 0``, ``predecessors[source] == source``.
    ``distance range``
        Every distance is -1 (unreached) or in ``0..n_vertices - 1``.
    ``unreached predecessor``
        An unreached vertex has predecessor -1.
    ``predecessor range`` / ``predecessor reached``
        Every reached ``v != source`` has a predecessor that is a vertex, and reached.
    ``tree level``
        ... exactly one level up: ``distances[p] == distances[v] - 1``.
    ``reached``
        Every edge ``u -> v`` with ``u`` reached has ``v`` reached (the reached set is closed: a
        vertex the BFS should reach is not marked unreached).
    ``edge span``
        ... and ``distances[v] <= distances[u] + 1`` (an edge spans at most one level).
    ``tree edge``
        ``p -> v`` is an edge of the graph (``p`` an in-neighbour of ``v``).

    Together these make ``distances`` the exact hop distances, the reached set the source's
    component and ``predecessors`` a BFS tree (module notes).

    Parameters
    ----------
    graph : CSRGraph
        Its ``device()`` arrays are used for CuPy results, ``host()`` for NumPy ones. Columns sorted
        within each row (the ``CSRGraph`` contract; otherwise a slower ``O(n_edges)``-memory path).
    source : int
        The BFS source (internal index).
    distances : ndarray, shape (n_vertices,), int
        NumPy or CuPy; -1 = unreached. The array module chosen for the checks is this array's.
    predecessors : ndarray, shape (n_vertices,), int
        -1 = unreached, ``predecessors[source] == source``. Moved to *distances*' module if needed.
    chunk_edges : int, default :data:`DEFAULT_CHUNK_EDGES`
        Edges per chunk of the edge-wise checks: bounds their temporaries to about 40 bytes x
        *chunk_edges* (0.7 GB by default).

    Raises
    ------
    ValidationError
        Naming the check, the source, the first offending vertex or edge with the values found,
        and how many vertices (edges) fail that check; attributes ``check``, ``vertex``, ``edge``
        (``(u, v)`` or None) and ``n_failing``.
    VertexError, TypeError
        When *source* is not a vertex (an integer).

    Notes
    -----
    Device memory beyond the inputs: about 70 bytes per reached vertex (the tree checks) and 40
    bytes per edge of a chunk (module notes). The edge pass reads each column index once.
    """
    alg = "BFS"
    s, n, xp, dist, pred = _check_arrays(alg, graph, source, distances, predecessors)
    if dist.dtype.kind not in "iu":
        _fail(alg, "dtype", s, f"distances has dtype {dist.dtype}, expected an integer dtype")
    ro, ci, _ = _module_arrays(graph, xp, False)
    ds, ps = int(dist[s]), int(pred[s])
    if ds != 0:
        _fail(alg, "source distance", s, f"distances[{s}] = {ds}, expected 0", vertex=s)
    if ps != s:
        _fail(alg, "source predecessor", s, f"predecessors[{s}] = {ps}, expected {s} (the source itself)", vertex=s)
    c, i = _first((dist < -1) | (dist >= n), xp)
    if c:
        _fail(alg, "distance range", s, f"first offending vertex {i}: distances[{i}] = {int(dist[i])}, expected -1 "
              f"(unreached) or 0..{n - 1}", c, n, vertex=i)
    reached = dist >= 0
    c, i = _first(~reached & (pred != -1), xp)
    if c:
        _fail(alg, "unreached predecessor", s, f"first offending vertex {i}: unreached (distance -1) but "
              f"predecessors[{i}] = {int(pred[i])}, expected -1", c, n - int(xp.count_nonzero(reached)), vertex=i)

    v = _tree_vertices(reached, s, xp)
    k = int(v.shape[0])
    p = pred[v].astype(np.int64)
    c, i = _first((p < 0) | (p >= n), xp)
    if c:
        _fail(alg, "predecessor range", s, f"first offending vertex {int(v[i])}: predecessors[{int(v[i])}] = "
              f"{int(p[i])} is not a vertex (valid: 0..{n - 1})", c, k, vertex=v[i])
    dp = dist[p]
    c, i = _first(dp < 0, xp)
    if c:
        _fail(alg, "predecessor reached", s, f"first offending vertex {int(v[i])}: its predecessor {int(p[i])} is "
              f"unreached", c, k, vertex=v[i])
    c, i = _first(dp != dist[v] - 1, xp)
    if c:
        vi, pi = int(v[i]), int(p[i])
        _fail(alg, "tree level", s, f"first offending vertex {vi}: distances[{vi}] = {int(dist[vi])} but its "
              f"predecessor {pi} has distances[{pi}] = {int(dist[pi])}, expected {int(dist[vi]) - 1} (one level up)",
              c, k, vertex=vi)
    del dp

    out, span = _EdgeTally(), _EdgeTally()

    def visit(e0, rows, cols):
        du = dist[rows]
        dv = dist[cols]
        from_reached = du >= 0
        out.add(from_reached & (dv < 0), e0, xp)
        du += 1
        span.add(from_reached & (dv > du), e0, xp)

    rows_sorted = _edge_pass(ro, ci, n, max(1, int(chunk_edges)), xp, visit)
    if out.count or span.count:
        n_from = int(graph.out_degrees(xp)[reached].sum())
        tally = out if out.count else span
        e = tally.first
        u, w_ = _edge_row(ro, e, xp), int(ci[e])
        if out.count:
            _fail(alg, "reached", s, f"first offending edge ({u}, {w_}): {u} is reached (distance {int(dist[u])}) "
                  f"but {w_} is marked unreached (-1)", out.count, n_from, "edges from reached vertices",
                  vertex=w_, edge=(u, w_))
        _fail(alg, "edge span", s, f"first offending edge ({u}, {w_}): distances[{u}] = {int(dist[u])}, "
              f"distances[{w_}] = {int(dist[w_])}; an edge spans at most one level", span.count, n_from,
              "edges from reached vertices", vertex=w_, edge=(u, w_))

    _tree_edges(alg, s, ro, ci, None, p, v, n, rows_sorted, chunk_edges, k, xp)


def _tree_edges(alg, s, ro, ci, w, p, v, n, rows_sorted, chunk_edges, k, xp):
    """Fail unless every (predecessor p[j], vertex v[j]) pair is an edge of the graph; returns the
    pairs' edge weights (None when *w* is None), for the SSSP tree rule."""
    found, wt = _find_edges(ro, ci, w, p, v, n, rows_sorted, max(1, int(chunk_edges)), xp)
    c, i = _first(~found, xp)
    if c:
        vi, pi = int(v[i]), int(p[i])
        _fail(alg, "tree edge", s, f"first offending vertex {vi}: its predecessor {pi} is not an in-neighbour "
              f"(({pi}, {vi}) is not an edge of the graph)", c, k, vertex=vi, edge=(pi, vi))
    return wt


# ------------------------------------------------------------------------------------ SSSP
def validate_sssp_gpu(graph, source, distances, predecessors, *, chunk_edges: int = DEFAULT_CHUNK_EDGES) -> None:
    """Check an SSSP result with the shortest-path-tree rules, on the GPU for CuPy arrays.

    Input conventions (the GPU engine's, and :func:`autotune.reference.validate_sssp`'s)
        - integer ``distances`` (int64; integer or unit weights): unreached =
          :data:`~autotune.reference.SSSP_INT_UNREACHED` (the dtype's maximum); sums exact.
        - float ``distances`` (float64, e.g. float32 values widened, or float32): unreached =
          ``+inf``; SciPy's float64 Dijkstra distances pass as they are.
        - ``predecessors`` integer, -1 = unreached, ``predecessors[source] == source``.

    Checks, in this order (the first failing one raises):

    ``shape`` / ``dtype``; ``source distance`` / ``source predecessor``
        As for BFS (``distances[source] == 0``).
    ``distance value``
        A reached vertex's distance is >= 0 (not NaN); integer distances at most ``2**62`` (so no
        sum below overflows).
    ``unreached predecessor``, ``predecessor range``, ``predecessor reached``
        As for BFS.
    ``reached``
        Every edge from a reached vertex ends at a reached vertex.
    ``edge relaxation``
        ``d[v] <= d[u] + w(u, v)`` for every edge from a reached ``u`` (float weights:
        ``d[v] <= (d[u] + w) (1 + 2**-22)``, in float64).
    ``tree edge``
        ``p -> v`` is an edge for ``p = predecessors[v]``; its weight ``w`` is the lightest of
        parallel copies (1 when unweighted).
    ``tree weight``
        ``d[p] + w == d[v]`` exactly for integer (and unit) weights; float weights
        ``|d[p] + w - d[v]| <= 2**-22 d[v]`` in float64.
    ``tree cycle`` (float weights)
        Following predecessors from every reached vertex ends at the source (a tolerance, or a
        float32 sum absorbing a tiny weight, would let a cycle of equal distances pass the rule
        above); ``bit_length(n) + 1`` pointer-jumping passes.

    Tolerance: :data:`~autotune.reference.SSSP_FLOAT_TOLERANCE` (``2**-22``) relative per edge,
    the per-hop tolerance of :func:`autotune.reference.validate_sssp`. A float32 addition rounds
    by at most ``2**-24`` relative, so a correct float32 result (``d[v] = float32(d[p] + w)``, and
    ``d[v] <= float32(d[u] + w)`` after its last relaxation) passes with a factor 4 to spare, and so
    does a float64 reference. A result passing them is within ``(1 + 2**-22)**h`` of the exact
    distances, ``h`` the hops of the paths involved; exact for integer weights.

    Parameters
    ----------
    graph : CSRGraph
        Weighted (int32 / float32) or unweighted (unit weights); ``device()`` /
        ``device_weights()`` are used for CuPy results, ``host()`` / ``host_weights()`` else.
    source : int
    distances : ndarray, shape (n_vertices,), int64 / float64 / float32
        NumPy or CuPy (this array's module runs the checks).
    predecessors : ndarray, shape (n_vertices,), int
    chunk_edges : int, default :data:`DEFAULT_CHUNK_EDGES`
        Edges per chunk of the edge-wise checks (about 50 bytes x *chunk_edges* of temporaries).

    Raises
    ------
    ValidationError
        Naming the check, the first offending vertex or edge with the values found, and the count;
        attributes ``check``, ``vertex``, ``edge`` and ``n_failing``.
    VertexError, TypeError
        When *source* is not a vertex (an integer).
    """
    alg = "SSSP"
    s, n, xp, dist, pred = _check_arrays(alg, graph, source, distances, predecessors)
    kind = dist.dtype.kind
    if kind not in "iuf":
        _fail(alg, "dtype", s, f"distances has dtype {dist.dtype}, expected int64 or float64 (float32)")
    floating = kind == "f"
    ro, ci, w = _module_arrays(graph, xp, graph.weights is not None)
    tolerant = w is not None and w.dtype.kind == "f"
    tol = SSSP_FLOAT_TOLERANCE if tolerant else 0.0
    if floating:
        unreached_value = np.inf
        reached = dist != np.inf
        d64 = dist.astype(np.float64, copy=False)
    else:
        unreached_value = SSSP_INT_UNREACHED if dist.dtype == np.int64 else int(np.iinfo(dist.dtype).max)
        reached = dist != unreached_value
        d64 = dist.astype(np.int64, copy=False)
    if float(dist[s]) != 0:
        _fail(alg, "source distance", s, f"distances[{s}] = {_num(to_host(dist[s:s + 1])[0])}, expected 0", vertex=s)
    ps = int(pred[s])
    if ps != s:
        _fail(alg, "source predecessor", s, f"predecessors[{s}] = {ps}, expected {s} (the source itself)", vertex=s)
    bad = reached & ~(dist >= 0)
    if not floating:
        bad |= reached & (dist > (1 << 62))
    c, i = _first(bad, xp)
    if c:
        _fail(alg, "distance value", s, f"first offending vertex {i}: distances[{i}] = "
              f"{_num(to_host(dist[i:i + 1])[0])}, expected >= 0" + ("" if floating else " and <= 2**62"),
              c, n, vertex=i)
    del bad
    c, i = _first(~reached & (pred != -1), xp)
    if c:
        _fail(alg, "unreached predecessor", s, f"first offending vertex {i}: unreached (distance "
              f"{_num(np.asarray(unreached_value, dtype=dist.dtype))}) but predecessors[{i}] = {int(pred[i])}, "
              f"expected -1", c, n - int(xp.count_nonzero(reached)), vertex=i)

    v = _tree_vertices(reached, s, xp)
    k = int(v.shape[0])
    p = pred[v].astype(np.int64)
    c, i = _first((p < 0) | (p >= n), xp)
    if c:
        _fail(alg, "predecessor range", s, f"first offending vertex {int(v[i])}: predecessors[{int(v[i])}] = "
              f"{int(p[i])} is not a vertex (valid: 0..{n - 1})", c, k, vertex=v[i])
    c, i = _first(~reached[p], xp)
    if c:
        _fail(alg, "predecessor reached", s, f"first offending vertex {int(v[i])}: its predecessor {int(p[i])} is "
              f"unreached", c, k, vertex=v[i])

    out, relax = _EdgeTally(), _EdgeTally()

    def visit(e0, rows, cols):
        from_reached = reached[rows]
        out.add(from_reached & ~reached[cols], e0, xp)
        du = d64[rows]
        if w is None:
            du += 1
        else:
            du = du + w[e0:e0 + int(cols.shape[0])]  # int64 + int32 -> int64; float64 + float32 -> float64
        if tolerant:
            du *= 1.0 + tol
        relax.add(from_reached & reached[cols] & (d64[cols] > du), e0, xp)

    rows_sorted = _edge_pass(ro, ci, n, max(1, int(chunk_edges)), xp, visit)
    if out.count or relax.count:
        n_from = int(graph.out_degrees(xp)[reached].sum())
        e = (out if out.count else relax).first
        u, x = _edge_row(ro, e, xp), int(ci[e])
        du_t, dx_t = _num(to_host(dist[u:u + 1])[0]), _num(to_host(dist[x:x + 1])[0])
        if out.count:
            _fail(alg, "reached", s, f"first offending edge ({u}, {x}): {u} is reached (distance {du_t}) but {x} is "
                  f"marked unreached ({dx_t})", out.count, n_from, "edges from reached vertices", vertex=x,
                  edge=(u, x))
        we = 1 if w is None else to_host(w[e:e + 1])[0]
        rule = " (+ tolerance 2**-22 relative)" if tolerant else ""
        _fail(alg, "edge relaxation", s, f"first offending edge ({u}, {x}): distances[{x}] = {dx_t} > distances[{u}] "
              f"+ w({u}, {x}) = {du_t} + {_num(np.asarray(we))}{rule}: a shorter path exists", relax.count, n_from,
              "edges from reached vertices", vertex=x, edge=(u, x))

    wt = _tree_edges(alg, s, ro, ci, w, p, v, n, rows_sorted, chunk_edges, k, xp)
    got = d64[p] + (1 if wt is None else wt)
    dv = d64[v]
    bad = xp.abs(got - dv) > tol * dv if tolerant else got != dv
    c, i = _first(bad, xp)
    if c:
        vi, pi = int(v[i]), int(p[i])
        wi = 1 if wt is None else to_host(wt[i:i + 1])[0]
        _fail(alg, "tree weight", s, f"first offending vertex {vi}: distances[{pi}] + w({pi}, {vi}) = "
              f"{_num(to_host(dist[pi:pi + 1])[0])} + {_num(np.asarray(wi))} = {_num(to_host(got[i:i + 1])[0])} but "
              f"distances[{vi}] = {_num(to_host(dist[vi:vi + 1])[0])}"
              + (" (beyond the tolerance 2**-22 relative)" if tolerant else ""), c, k, vertex=vi, edge=(pi, vi))
    del got, dv, bad
    if tolerant:
        jump = xp.where(reached, pred, s).astype(np.int64)
        for _ in range(max(1, n.bit_length()) + 1):
            if not bool((jump != s).any()):
                break
            jump = jump[jump]
        c, i = _first(jump != s, xp)
        if c:
            _fail(alg, "tree cycle", s, f"first offending vertex {i}: following predecessors from it never reaches "
                  f"the source (a cycle)", c, k, vertex=i)


def validate_on_device(graph, source, distances, predecessors, *, algorithm: str = "bfs") -> None:
    """:func:`validate_bfs_gpu` or :func:`validate_sssp_gpu`, by *algorithm* (``"bfs"`` or ``"sssp"``).

    Raises
    ------
    ValidationError
        As the two checks do.
    """
    check = validate_sssp_gpu if algorithm == "sssp" else validate_bfs_gpu
    check(graph, source, distances, predecessors)
