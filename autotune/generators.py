"""Synthetic graphs: Graph500 Kronecker, uniform random, 2-D grid, and generator specs.

A generator spec is a short string naming a generator and its parameters, used wherever a graph
file name is accepted (``autotune.load_graph``, the CLI, the benchmark log's ``graph.spec``)::

    kron:scale=22,edge_factor=16      Graph500 Kronecker graph, 2**22 vertices
    uniform:scale=20,avg_degree=8     uniform random (Erdős–Rényi G(n, m)) graph
    grid:rows=1000,cols=1000,drop=0.1 2-D grid with 10 % of its edges removed (road-like)
    kron:scale=10,edge_factor=16,weights=int:1:255   the same with seeded integer weights (GAP's)
    grid:rows=512,cols=512,weights=float:0.5:2.0     ... or float32 weights uniform in [0.5, 2.0]

Every generator is vectorised (one pass per Kronecker bit level, never one per edge), seeded, and
builds its graph through :func:`autotune.graph.from_edges`. It runs with CuPy on the GPU when one is
present (or when ``xp=cupy``), else with NumPy. A seed fixes the graph for a given backend: NumPy
(``numpy.random.default_rng``) and CuPy (``cupy.random.RandomState``) draw different streams, so
the same spec gives different (statistically equivalent) graphs on the host and on the GPU; the
graph's ``fingerprint`` tells them apart.

Weights (``weights="int:1:255"`` or ``"float:LO:HI"``, any generator) are a seeded hash of each edge
(:func:`edge_weights`): a function of the generator's ``seed`` and the edge's endpoints only, in
exact integer / IEEE arithmetic, so the same graph gets bit-identical weights on the host and on
the GPU. The corpus generators (``rmat``, ``geometric``, ``powerlaw``, ``smallworld``, ``cliques``,
``bipartite``) build the same graph on both, hence the same weighted graph; ``kron``, ``uniform``
and ``grid`` with ``drop > 0`` draw their edges per backend, so their weighted graphs differ
between host and GPU exactly as their edges do (a ``grid`` without ``drop`` is the same on both).
"""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ._backend import gpu_available, xp_of
from .errors import EmptyGraphError, GeneratorSpecError, GraphFormatError
from ._csr import INT32_MAX, CSRGraph, _with_direction, edge_rows, from_edges

__all__ = ["kronecker", "uniform_random", "grid", "parse_spec", "generate", "available_generators", "MAX_SCALE",
           "parse_weight_spec", "edge_weights", "WeightDistribution", "GAP_WEIGHTS"]

#: Largest Kronecker / uniform ``scale``: vertex ids are int32, so at most 2**30 vertices.
MAX_SCALE = 30

# Edges generated per chunk. Fixed (not tuned to the machine) so that the random stream, and hence
# the graph, depends only on the seed and the backend.
_CHUNK = 1 << 22


# ------------------------------------------------------------------------------- validation
def _resolve_xp(xp):
    if xp is None:
        if gpu_available():
            import cupy

            return cupy
        return np
    return xp


def _check_int(name: str, value, lo: int, hi: int | None = None) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise GeneratorSpecError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < lo or (hi is not None and value > hi):
        bound = f"between {lo} and {hi}" if hi is not None else f">= {lo}"
        raise GeneratorSpecError(f"{name} must be {bound}, got {value}")
    return value


def _check_float(name: str, value, lo: float, hi: float, *, lo_open: bool = False) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise GeneratorSpecError(f"{name} must be a number, got {value!r}")
    value = float(value)
    if not (lo < value if lo_open else lo <= value) or not value <= hi:
        raise GeneratorSpecError(f"{name} must be in {'(' if lo_open else '['}{lo}, {hi}], got {value!r}")
    return value


# ------------------------------------------------------------------------------- weights
#: The weight distribution ``weights="int"`` stands for: GAP's integers uniform in [1, 255].
GAP_WEIGHTS = "int:1:255"
_FLOAT32_TINY = float(np.finfo(np.float32).tiny)
_FLOAT32_MAX = float(np.finfo(np.float32).max)
_WEIGHT_SALT = 0x5745494748545321  # "WEIGHTS!": keeps the weight hash apart from the structure's streams
_M64 = (1 << 64) - 1


@dataclass(frozen=True)
class WeightDistribution:
    """A seeded edge-weight distribution: ``kind`` ``"int"`` (uniform integers in [lo, hi]) or
    ``"float"`` (uniform reals in [lo, hi], stored as float32). ``spec`` is its canonical text."""

    kind: str
    lo: float
    hi: float

    @property
    def spec(self) -> str:
        """Canonical text, e.g. ``"int:1:255"`` or ``"float:0.5:2"``."""
        return f"{self.kind}:{_format_value(self.lo)}:{_format_value(self.hi)}"


def parse_weight_spec(text, *, spec: str | None = None) -> WeightDistribution | None:
    """Parse a weight distribution: ``"int:LO:HI"``, ``"float:LO:HI"`` or ``"int"`` (= ``int:1:255``).

    Parameters
    ----------
    text : str or WeightDistribution or None
        ``int:LO:HI``: integers uniform in [LO, HI], ``1 <= LO <= HI <= 2**31 - 1`` (GAP's
        convention is ``int:1:255``); ``float:LO:HI``: reals uniform in [LO, HI] stored as float32,
        ``0 < LO <= HI``, both finite and within float32's normal range. None means unweighted.
    spec : str, optional
        The generator spec the text came from, named in errors.

    Returns
    -------
    WeightDistribution or None

    Raises
    ------
    GeneratorSpecError
        Naming the field (``parameter 'weights'``), the text and, when given, the spec.
    """
    if text is None or isinstance(text, WeightDistribution):
        return text
    where = (f"generator spec {spec!r}: " if spec else "") + "parameter 'weights'"
    form = "expected 'int:LO:HI' or 'float:LO:HI' (e.g. 'int:1:255', 'float:0.5:2.0') or 'int'"
    if not isinstance(text, str):
        raise GeneratorSpecError(f"{where} must be a weight distribution string, got {text!r}; {form}")
    t = text.strip().lower()
    if t == "int":
        t = GAP_WEIGHTS
    parts = t.split(":")
    if len(parts) != 3 or parts[0] not in ("int", "float"):
        raise GeneratorSpecError(f"{where}: unknown weight distribution {text!r}; {form}")
    kind = parts[0]
    try:
        if kind == "int":
            lo, hi = int(parts[1]), int(parts[2])
        else:
            lo, hi = float(parts[1]), float(parts[2])
    except ValueError:
        raise GeneratorSpecError(f"{where}: bounds of {text!r} must be {'integers' if kind == 'int' else 'numbers'}; "
                                 f"{form}") from None
    if kind == "int":
        if not 1 <= lo <= hi <= INT32_MAX:
            raise GeneratorSpecError(f"{where}: {text!r} needs 1 <= LO <= HI <= {INT32_MAX} (weights are positive "
                                     "int32)")
    elif not (np.isfinite(lo) and np.isfinite(hi) and _FLOAT32_TINY <= lo <= hi <= _FLOAT32_MAX):
        raise GeneratorSpecError(f"{where}: {text!r} needs 0 < LO <= HI, finite and within float32's normal range "
                                 f"[{_FLOAT32_TINY:.4g}, {_FLOAT32_MAX:.4g}] (weights are positive float32)")
    return WeightDistribution(kind, lo, hi)


def _weights_text(dist: WeightDistribution | None) -> str | None:
    return None if dist is None else dist.spec


def _mix64(x, xp):
    """SplitMix64's output function on a uint64 array (wrapping arithmetic, NumPy and CuPy alike)."""
    x = x ^ (x >> np.uint64(30))
    x *= np.uint64(0xBF58476D1CE4E5B9)
    x ^= x >> np.uint64(27)
    x *= np.uint64(0x94D049BB133111EB)
    x ^= x >> np.uint64(31)
    return x


def _mix64_int(x: int) -> int:
    x &= _M64
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & _M64
    return x ^ (x >> 31)


def edge_weights(graph: CSRGraph, dist, seed: int = 0):
    """Seeded weights for the stored edges of *graph*, drawn from *dist* (no Python loop per edge).

    The weight of an edge is a function of the seed and the edge alone: a SplitMix64 hash of
    ``(seed, u, v)`` (with ``u <= v`` for an undirected graph, so both directions get the same
    weight) mapped to the distribution — integers ``lo + h mod (hi - lo + 1)``, floats
    ``float32(lo + (hi - lo) * u)`` with ``u = (h >> 11) / 2**53``, clamped to
    ``[float32(lo), float32(hi)]``. Exact integer and IEEE float64 arithmetic, so NumPy and CuPy give
    bit-identical weights for the same graph; the weights do not depend on the order edges were
    generated in.

    Parameters
    ----------
    graph : CSRGraph
        NumPy or CuPy arrays; the result lives in the same module.
    dist : str or WeightDistribution
        See :func:`parse_weight_spec`.
    seed : int
        The generator's seed.

    Returns
    -------
    ndarray, shape (n_edges,), int32 (``int``) or float32 (``float``)
    """
    dist = parse_weight_spec(dist)
    xp = xp_of(graph.row_offsets)
    rows = edge_rows(graph.row_offsets, xp)
    cols = graph.column_indices.astype(np.int64)
    if not graph.directed:
        rows, cols = xp.minimum(rows, cols), xp.maximum(rows, cols)
    key = rows.astype(np.uint64)
    del rows
    key <<= np.uint64(32)
    key |= cols.astype(np.uint64)
    del cols
    key ^= np.uint64(_mix64_int(int(seed) ^ _WEIGHT_SALT))
    h = _mix64(_mix64(key, xp), xp)
    del key
    if dist.kind == "int":
        span = np.uint64(int(dist.hi) - int(dist.lo) + 1)
        return (h % span).astype(np.int64).astype(np.int32) + np.int32(dist.lo)
    u = (h >> np.uint64(11)).astype(np.float64)
    u *= 2.0 ** -53
    w = (u * (float(dist.hi) - float(dist.lo)) + float(dist.lo)).astype(np.float32)
    return xp.clip(w, np.float32(dist.lo), np.float32(dist.hi))


def _with_weights(g: CSRGraph, dist: WeightDistribution | None, seed: int) -> CSRGraph:
    """*g* with :func:`edge_weights` attached (unchanged when *dist* is None)."""
    if dist is None:
        return g
    g.weights = edge_weights(g, dist, seed)
    g._cache.pop("fingerprint", None)
    return g


# ------------------------------------------------------------------------------- Kronecker
def kronecker(scale: int, edge_factor: int = 16, a: float = 0.57, b: float = 0.19, c: float = 0.19, seed: int = 0,
              directed: bool = False, xp=None, weights: str | None = None) -> CSRGraph:
    """Graph500 Kronecker (R-MAT) graph with ``2**scale`` vertices.

    Follows the Graph500 reference generator [1]_: ``edge_factor * 2**scale`` edges are drawn; for
    each of the ``scale`` bit levels every edge falls in one quadrant of the adjacency matrix with
    probabilities ``A, B, C, D = a, b, c, 1 - a - b - c`` (quadrant B sets the destination bit, C the
    source bit, D both); the vertex ids are then permuted with a seeded random permutation so that
    vertex number carries no degree information. Self-loops and duplicate edges are removed by
    :func:`~autotune.graph.from_edges`, as Graph500's BFS kernel ignores them, so ``n_edges`` is a
    little below ``2 * edge_factor * 2**scale`` (undirected). (The reference also shuffles the
    edge order; a CSR graph has no edge order, so that step is skipped.)

    Parameters
    ----------
    scale : int
        log2 of the vertex count, 1..30.
    edge_factor : int, default 16
        Generated edges per vertex (Graph500 uses 16).
    a, b, c : float, default 0.57, 0.19, 0.19
        Quadrant probabilities (Graph500 values); ``d = 1 - a - b - c`` must be >= 0.
    seed : int, default 0
        Random seed; the same seed on the same backend gives the same graph.
    directed : bool, default False
        False symmetrizes every edge (Graph500 BFS treats the graph as undirected).
    xp : module, optional
        ``numpy`` or ``cupy``; default CuPy when a GPU is available. NumPy draws with
        ``numpy.random.default_rng(seed)``, CuPy with ``cupy.random.RandomState(seed)``.
    weights : str, optional
        Seeded edge-weight distribution: ``"int:LO:HI"`` (e.g. ``"int:1:255"``, GAP's convention, also
        written ``"int"``) or ``"float:LO:HI"`` (float32); see :func:`edge_weights` for how the
        weights follow from *seed*. None (default): unweighted.

    Returns
    -------
    CSRGraph
        Named and spec'd by the canonical spec, e.g. ``kron:scale=20,edge_factor=16``. Past
        ``2**31 - 1`` stored edges (``scale >= 27`` at ``edge_factor=16``, undirected) its
        ``row_offsets`` are int64. The endpoints are generated as uint32 and permuted in place
        (8 bytes per generated edge, 12 per vertex for the permutation); the CSR build takes as
        many passes as the available memory needs (:func:`~autotune.graph.from_edges`).

    Raises
    ------
    ValueError
        On an out-of-range parameter (named in the message).

    References
    ----------
    .. [1] Graph500 benchmark specification, section "Kernel 1 / graph generation", and its
       reference implementation ``kronecker_generator``, https://graph500.org/.

    Examples
    --------
    >>> import numpy as np
    >>> g = kronecker(10, xp=np)
    >>> g.n_vertices
    1024
    """
    scale = _check_int("scale", scale, 1, MAX_SCALE)
    edge_factor = _check_int("edge_factor", edge_factor, 1)
    a = _check_float("a", a, 0.0, 1.0)
    b = _check_float("b", b, 0.0, 1.0)
    c = _check_float("c", c, 0.0, 1.0)
    if a + b + c > 1.0 + 1e-12:
        raise GeneratorSpecError(f"a + b + c must be <= 1 (d = 1 - a - b - c), got a={a!r}, b={b!r}, c={c!r}")
    seed = _check_int("seed", seed, 0)
    xp = _resolve_xp(xp)
    n = 1 << scale
    m = edge_factor * n
    if xp is np:
        src, dst = _kron_numpy(scale, m, a, b, c, seed)
    else:
        src, dst = _kron_cupy(scale, m, a, b, c, seed)
    dist = parse_weight_spec(weights)
    spec = _canonical("kron", dict(scale=scale, edge_factor=edge_factor, a=a, b=b, c=c, seed=seed,
                                   directed=bool(directed), weights=_weights_text(dist)))
    g = from_edges(src, dst, n, directed=bool(directed), name=spec, spec=spec, xp=xp, source_label=spec)
    return _with_weights(g, dist, seed)


def _kron_numpy(scale: int, m: int, a: float, b: float, c: float, seed: int):
    """Kronecker edge endpoints on the host: float32 uniforms, bool masks, uint32 ids, chunked."""
    rng = np.random.default_rng(seed)
    ta, tab, tabc = np.float32(a), np.float32(a + b), np.float32(a + b + c)
    src = np.zeros(m, dtype=np.uint32)
    dst = np.zeros(m, dtype=np.uint32)
    size = min(m, _CHUNK)
    u = np.empty(size, dtype=np.float32)
    ibit = np.empty(size, dtype=bool)
    jbit = np.empty(size, dtype=bool)
    dbit = np.empty(size, dtype=bool)
    for lo in range(0, m, _CHUNK):
        k = min(_CHUNK, m - lo)
        s, d = src[lo:lo + k], dst[lo:lo + k]
        uu, ii, jj, dd = u[:k], ibit[:k], jbit[:k], dbit[:k]
        for _ in range(scale):  # one quadrant choice per bit level, all edges of the chunk at once
            rng.random(out=uu, dtype=np.float32)
            np.greater_equal(uu, tab, out=ii)  # quadrant C or D: source bit
            np.greater_equal(uu, ta, out=jj)
            np.not_equal(jj, ii, out=jj)  # quadrant B
            np.greater_equal(uu, tabc, out=dd)  # quadrant D
            np.logical_or(jj, dd, out=jj)  # B or D: destination bit
            s <<= 1
            s += ii
            d <<= 1
            d += jj
    del u, ibit, jbit, dbit, uu, ii, jj, dd
    perm = rng.permutation(1 << scale).astype(np.int32)
    return _permute_in_place(src, perm, np), _permute_in_place(dst, perm, np)


def _permute_in_place(ids, perm, xp):
    """``perm[ids]`` written over *ids* (uint32 or int32, values below ``2**31``) chunk by chunk.

    Parameters
    ----------
    ids : ndarray, shape (m,), uint32 or int32
        Vertex ids; NumPy or CuPy. Overwritten.
    perm : ndarray, shape (n,), int32
        The permutation, same module.
    xp : module

    Returns
    -------
    ndarray, shape (m,), int32
        An int32 view of *ids* holding the permuted ids: no temporary of the edge count (one chunk
        of :data:`_CHUNK` gathered ids at a time, 4 bytes each).
    """
    out = ids.view(np.int32)
    for lo in range(0, int(out.shape[0]), _CHUNK):
        part = out[lo:lo + _CHUNK]
        part[...] = perm[part]
    return out


_KRON_LEVEL = None


def _kron_cupy(scale: int, m: int, a: float, b: float, c: float, seed: int):
    """Kronecker edge endpoints on the GPU: one fused elementwise kernel per bit level and chunk."""
    import cupy

    global _KRON_LEVEL
    if _KRON_LEVEL is None:
        _KRON_LEVEL = cupy.ElementwiseKernel(
            "float32 u, float32 ta, float32 tab, float32 tabc", "uint32 s, uint32 d",
            # ('i' is the kernel's loop index: do not name a variable i)
            "const bool src_bit = u >= tab;"
            "const bool dst_bit = ((u >= ta) != src_bit) || (u >= tabc);"
            "s = (s << 1) | (src_bit ? 1u : 0u);"
            "d = (d << 1) | (dst_bit ? 1u : 0u);",
            "autotune_kron_level")
    rs = cupy.random.RandomState(seed)
    ta, tab, tabc = np.float32(a), np.float32(a + b), np.float32(a + b + c)
    src = cupy.zeros(m, dtype=cupy.uint32)
    dst = cupy.zeros(m, dtype=cupy.uint32)
    for lo in range(0, m, _CHUNK):
        k = min(_CHUNK, m - lo)
        s, d = src[lo:lo + k], dst[lo:lo + k]
        for _ in range(scale):
            u = rs.random_sample(k, dtype=cupy.float32)
            _KRON_LEVEL(u, ta, tab, tabc, s, d)
    perm = rs.permutation(1 << scale).astype(cupy.int32)
    return _permute_in_place(src, perm, cupy), _permute_in_place(dst, perm, cupy)


# ------------------------------------------------------------------------------- uniform
def uniform_random(n_vertices: int, avg_degree: float = 16, seed: int = 0, directed: bool = False,
                   xp=None, weights: str | None = None) -> CSRGraph:
    """Uniform random graph (Erdős–Rényi G(n, m)) with endpoints drawn uniformly.

    ``m = round(n_vertices * avg_degree / 2)`` edges when undirected (each stored in both
    directions, so the mean out-degree is ``avg_degree``), ``round(n_vertices * avg_degree)`` when
    directed. Both endpoints of every edge are drawn uniformly from ``0..n_vertices-1``; self-loops
    and duplicates are removed, so the mean degree ends slightly below ``avg_degree``.

    Parameters
    ----------
    n_vertices : int
        Vertex count, 1..2**30.
    avg_degree : float, default 16
        Mean out-degree before cleaning, > 0.
    seed : int, default 0
        Random seed (same seed and backend, same graph).
    directed : bool, default False
        Draw directed edges instead of symmetrized ones.
    xp : module, optional
        ``numpy`` (``default_rng(seed)``) or ``cupy`` (``RandomState(seed)``); default CuPy when a
        GPU is available.
    weights : str, optional
        Seeded edge-weight distribution: ``"int:LO:HI"`` (e.g. ``"int:1:255"``, GAP's convention, also
        written ``"int"``) or ``"float:LO:HI"`` (float32); see :func:`edge_weights` for how the
        weights follow from *seed*. None (default): unweighted.

    Returns
    -------
    CSRGraph

    Raises
    ------
    ValueError
        On an out-of-range parameter.
    EmptyGraphError
        When no edge is left (e.g. ``n_vertices=1``).
    """
    n = _check_int("n_vertices", n_vertices, 1, 1 << MAX_SCALE)
    avg_degree = _check_float("avg_degree", avg_degree, 0.0, float(INT32_MAX), lo_open=True)
    seed = _check_int("seed", seed, 0)
    xp = _resolve_xp(xp)
    m = int(round(n * avg_degree if directed else n * avg_degree / 2))
    dist = parse_weight_spec(weights)
    spec = _canonical("uniform", dict(n=n, avg_degree=avg_degree, seed=seed, directed=bool(directed),
                                      weights=_weights_text(dist)))
    if m == 0:
        raise EmptyGraphError(f"{m} edges requested (n_vertices={n}, avg_degree={avg_degree!r})", spec)
    if xp is np:
        rng = np.random.default_rng(seed)
        src = rng.integers(0, n, size=m, dtype=np.int32)
        dst = rng.integers(0, n, size=m, dtype=np.int32)
    else:
        rs = xp.random.RandomState(seed)
        src = rs.randint(0, n, size=m, dtype=np.int32)
        dst = rs.randint(0, n, size=m, dtype=np.int32)
    g = from_edges(src, dst, n, directed=bool(directed), name=spec, spec=spec, xp=xp, source_label=spec)
    return _with_weights(g, dist, seed)


# ------------------------------------------------------------------------------- grid
def grid(rows: int, cols: int, drop: float = 0.0, seed: int = 0, xp=None, weights: str | None = None) -> CSRGraph:
    """Undirected 2-D grid (4-neighbour lattice), optionally with random edges removed (road-like).

    Vertex ``r * cols + c`` is joined to its right and lower neighbours, so the full grid has
    ``2 * rows * cols - rows - cols`` undirected edges (twice that stored) and diameter
    ``rows + cols - 2``: a high-diameter, low-degree graph like a road network. Each edge is then
    dropped independently with probability ``drop``; vertices may become isolated.

    Parameters
    ----------
    rows, cols : int
        Grid shape, ``rows * cols <= 2**31 - 1``.
    drop : float, default 0.0
        Probability of removing each edge, in [0, 1].
    seed : int, default 0
        Random seed of the removal (same seed and backend, same graph).
    xp : module, optional
        ``numpy`` or ``cupy``; default CuPy when a GPU is available.
    weights : str, optional
        Seeded edge-weight distribution: ``"int:LO:HI"`` (e.g. ``"int:1:255"``, GAP's convention, also
        written ``"int"``) or ``"float:LO:HI"`` (float32); see :func:`edge_weights` for how the
        weights follow from *seed*. None (default): unweighted.

    Returns
    -------
    CSRGraph

    Raises
    ------
    ValueError
        On an out-of-range parameter.
    EmptyGraphError
        When the grid has no edge (a 1 x 1 grid, or every edge dropped).
    """
    rows = _check_int("rows", rows, 1)
    cols = _check_int("cols", cols, 1)
    if rows * cols > INT32_MAX:
        raise GeneratorSpecError(f"rows * cols must be <= {INT32_MAX:,} (int32 vertex ids), got {rows} x {cols}")
    drop = _check_float("drop", drop, 0.0, 1.0)
    seed = _check_int("seed", seed, 0)
    xp = _resolve_xp(xp)
    dist = parse_weight_spec(weights)
    spec = _canonical("grid", dict(rows=rows, cols=cols, drop=drop, seed=seed, weights=_weights_text(dist)))
    n = rows * cols
    ids = xp.arange(n, dtype=np.int32).reshape(rows, cols)
    src = xp.concatenate([ids[:, :-1].ravel(), ids[:-1, :].ravel()])
    dst = xp.concatenate([ids[:, 1:].ravel(), ids[1:, :].ravel()])
    del ids
    if drop > 0.0 and src.size:
        if xp is np:
            u = np.random.default_rng(seed).random(src.size)
        else:
            u = xp.random.RandomState(seed).random_sample(src.size)
        keep = u >= drop
        src, dst = src[keep], dst[keep]
    if src.size == 0:
        raise EmptyGraphError(f"the {rows} x {cols} grid has no edges" + (f" left after drop={drop!r}" if drop else ""),
                              spec)
    g = from_edges(src, dst, n, directed=False, name=spec, spec=spec, xp=xp, source_label=spec)
    return _with_weights(g, dist, seed)


# ------------------------------------------------------------------------------- specs
@dataclass(frozen=True)
class _Param:
    name: str
    kind: type  # int, float or bool
    default: object
    always: bool = False  # written in the canonical spec even when at its default


@dataclass(frozen=True)
class _Generator:
    name: str
    func: Callable[..., CSRGraph]
    params: tuple[_Param, ...]
    call: Callable[[dict, object], CSRGraph]

    def param(self, key: str) -> _Param | None:
        return next((p for p in self.params if p.name == key), None)


def _uniform_from_spec(values: dict, xp) -> CSRGraph:
    n = values["n"] if "n" in values else 1 << _check_int("scale", values["scale"], 0, MAX_SCALE)
    return uniform_random(n, values["avg_degree"], values["seed"], values["directed"], xp=xp)


_GENERATORS: dict[str, _Generator] = {
    g.name: g for g in (
        _Generator("kron", kronecker, (
            _Param("scale", int, 16, True), _Param("edge_factor", int, 16, True), _Param("a", float, 0.57),
            _Param("b", float, 0.19), _Param("c", float, 0.19), _Param("seed", int, 0),
            _Param("directed", bool, False), _Param("weights", str, None)),
            lambda v, xp: kronecker(v["scale"], v["edge_factor"], v["a"], v["b"], v["c"], v["seed"], v["directed"],
                                    xp=xp)),
        _Generator("uniform", uniform_random, (
            _Param("n", int, None, True), _Param("scale", int, None, True), _Param("avg_degree", float, 16.0, True),
            _Param("seed", int, 0), _Param("directed", bool, False), _Param("weights", str, None)),
            _uniform_from_spec),
        _Generator("grid", grid, (
            _Param("rows", int, 256, True), _Param("cols", int, 256, True), _Param("drop", float, 0.0),
            _Param("seed", int, 0), _Param("weights", str, None)),
            lambda v, xp: grid(v["rows"], v["cols"], v["drop"], v["seed"], xp=xp)),
    )
}
_UNIFORM_DEFAULT_SCALE = 16


def available_generators() -> dict[str, str]:
    """Generator names and the first line of their docstrings, for ``autotune --help`` and the CLI.

    Returns
    -------
    dict of str to str
        E.g. ``{"kron": "Graph500 Kronecker (R-MAT) graph with ``2**scale`` vertices.", ...}``.
    """
    return {name: inspect.getdoc(g.func).splitlines()[0] for name, g in _GENERATORS.items()}


def _parse_value(text: str):
    """int, then float, then bool (``true``/``false``); anything else is returned as the string."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        pass
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    return text


def parse_spec(spec: str) -> tuple[str, dict]:
    """Split a generator spec into its name and parameters.

    Parameters
    ----------
    spec : str
        ``"name"`` or ``"name:key=value,key=value"``; values are read as int, then float, then bool
        (``true``/``false``), else kept as strings (rejected later by :func:`generate`).

    Returns
    -------
    (str, dict)
        E.g. ``("kron", {"scale": 22, "edge_factor": 16})`` for ``"kron:scale=22,edge_factor=16"``.

    Raises
    ------
    ValueError
        On a malformed spec: bad name, a parameter without ``=``, or a repeated parameter.
    """
    if not isinstance(spec, str):
        raise TypeError(f"a generator spec is a string, got {type(spec).__name__}")
    name, _, rest = spec.strip().partition(":")
    name = name.strip()
    if not re.fullmatch(r"[a-z_]+", name):
        raise GeneratorSpecError(f"malformed generator spec {spec!r}: expected 'name' or 'name:key=value,...' with a "
                         "lower-case name")
    params: dict = {}
    for item in rest.split(","):
        item = item.strip()
        if not item:
            continue
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key or not value:
            raise GeneratorSpecError(f"malformed parameter {item!r} in generator spec {spec!r}: expected key=value")
        if key in params:
            raise GeneratorSpecError(f"parameter {key!r} given twice in generator spec {spec!r}")
        params[key] = _parse_value(value)
    return name, params


def _coerce(gen: str, p: _Param, value):
    where = f"parameter {p.name!r} of generator {gen!r}"
    if p.kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        raise GeneratorSpecError(f"{where} must be true or false, got {value!r}")
    if p.kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise GeneratorSpecError(f"{where} must be an integer, got {value!r}")
    if p.kind is str:
        if isinstance(value, str):
            return value
        raise GeneratorSpecError(f"{where} must be a weight distribution such as int:1:255, got {value!r}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise GeneratorSpecError(f"{where} must be a number, got {value!r}")


def _format_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        text = repr(value)
        return text[:-2] if text.endswith(".0") else text
    return str(value)


def _canonical(gen_name: str, values: dict) -> str:
    """``name:key=value,...`` with the generator's parameter order; non-``always`` defaults omitted."""
    parts = []
    for p in _GENERATORS[gen_name].params:
        if p.name not in values or values[p.name] is None:
            continue
        value = values[p.name]
        if p.always or value != p.default:
            parts.append(f"{p.name}={_format_value(value)}")
    return gen_name + (":" + ",".join(parts) if parts else "")


def generate(spec: str, xp=None, *, directed: bool | None = None, name: str | None = None) -> CSRGraph:
    """Build the graph a generator spec describes.

    Parameters
    ----------
    spec : str
        ``kron`` (scale, edge_factor, a, b, c, seed, directed), ``uniform`` (n or scale with
        ``n = 2**scale``, avg_degree, seed, directed) or ``grid`` (rows, cols, drop, seed), e.g.
        ``"kron:scale=22,edge_factor=16"``. Parameters left out take the function defaults; the size
        of a bare name is kron scale=16, uniform scale=16, grid 256 x 256. Every generator also takes
        ``weights=int:LO:HI`` / ``weights=float:LO:HI`` / ``weights=int`` (GAP's ``int:1:255``):
        seeded edge weights, see :func:`edge_weights`.
    xp : module, optional
        ``numpy`` or ``cupy``; default CuPy when a GPU is available.
    directed : bool, optional
        Overrides the generator's direction: sets ``directed`` when the generator has that
        parameter (an explicit, different value in the spec is an error); otherwise True marks the
        undirected result directed (both directions kept).
    name : str, optional
        Graph name; default the spec string as given.

    Returns
    -------
    CSRGraph
        ``name`` is the spec as given, ``spec`` the canonical spec (parameters in the generator's
        order, defaults other than the size omitted), e.g. ``kron:scale=22,edge_factor=16``.

    Raises
    ------
    GeneratorSpecError
        (a :class:`ValueError`) On a malformed spec, an unknown generator (listing the known ones),
        an unknown parameter (listing the accepted ones), a bad value (naming parameter and value),
        or a malformed weight distribution (naming the ``weights`` field); the message names the spec.
    HostMemoryError
        When the graph the spec describes needs more host memory than is available (bytes needed vs
        available), before anything is allocated.
    """
    gen_name, raw = parse_spec(spec)
    gen = _GENERATORS.get(gen_name)
    if gen is None:
        raise GeneratorSpecError(f"unknown generator {gen_name!r} in spec {spec!r}; known generators: "
                         f"{', '.join(sorted(_GENERATORS))}")
    values = {}
    for key, value in raw.items():
        p = gen.param(key)
        if p is None:
            raise GeneratorSpecError(f"unknown parameter {key!r} for generator {gen_name!r}; accepted: "
                             f"{', '.join(q.name for q in gen.params)}")
        values[key] = _coerce(gen_name, p, value)
    if gen_name == "uniform":
        if "n" in values and "scale" in values:
            raise GeneratorSpecError(f"give either 'n' or 'scale' for generator 'uniform', not both (spec {spec!r})")
        if "n" not in values and "scale" not in values:
            values["scale"] = _UNIFORM_DEFAULT_SCALE
    for p in gen.params:
        if p.default is not None:
            values.setdefault(p.name, p.default)
    dist = parse_weight_spec(values.get("weights"), spec=spec)
    if dist is not None:
        values["weights"] = dist.spec  # canonical text in the graph's spec
    mark_directed = None
    if directed is not None:
        if gen.param("directed") is not None:
            if "directed" in raw and values["directed"] != bool(directed):
                raise GeneratorSpecError(f"spec {spec!r} says directed={_format_value(values['directed'])} but "
                                 f"directed={bool(directed)} was asked for")
            values["directed"] = bool(directed)
        else:
            mark_directed = bool(directed)
    if _resolve_xp(xp) is np:  # built on the host: refuse before allocating (autotune.memory)
        _plan_spec(spec, gen_name, values, dist is not None)
    else:  # built on the GPU: the device plan (generation, sort, resident graph), before allocating
        _plan_spec_device(spec)
    try:
        g = gen.call(values, xp)  # unweighted: the weights are attached below, from the same seed
    except GraphFormatError:  # EmptyGraphError: already names the spec
        raise
    except ValueError as exc:  # out-of-range parameter (GeneratorSpecError): add the spec for context
        if spec in str(exc):
            raise
        raise GeneratorSpecError(f"generator spec {spec!r}: {exc}") from exc
    g = _with_weights(g, dist, values["seed"])  # before marking directed: symmetric weights
    g.spec = _canonical(gen_name, values)
    g.name = name or spec.strip()
    if mark_directed is not None:
        g = _with_direction(g, mark_directed)
    return g


def _spec_size(gen_name: str, v: dict) -> tuple[int, int, bool, int] | None:
    """``(n_vertices, n_input_edges, directed, generator bytes)`` a spec will build, from its values
    alone (the generator's own temporaries beside the int32 edge arrays: Kronecker's permutation,
    int64 then int32, 12 bytes per vertex, and a chunk of draws and gathered ids, its endpoints
    being permuted in place; R-MAT's directed shaping, :func:`_direct_edges`, about 17 bytes per
    drawn edge and 10 per vertex; the grid's id table and drop draws, the points of a geometric
    graph); None for an unknown generator."""
    d = bool(v.get("directed", False))
    if v.get("scale") is not None and not 0 <= v["scale"] <= MAX_SCALE:
        return None  # the generator names the parameter
    if gen_name in ("kron", "rmat"):
        n = 1 << v["scale"]
        m0 = v["edge_factor"] * n
        m = m0
        if d and v.get("reciprocity"):
            m = int(m * (1 + v["reciprocity"]))
        shaped = d and (v.get("reciprocity") or v.get("sinks") or v.get("sources"))
        return n, m, d, 12 * n + 8 * min(m0, _CHUNK) + (17 * m0 + 10 * n if shaped else 0)
    if gen_name == "uniform":
        n = v["n"] if v.get("n") is not None else 1 << v["scale"]
        return n, int(round(n * v["avg_degree"] if d else n * v["avg_degree"] / 2)), d, 0
    if gen_name == "grid":
        n = v["rows"] * v["cols"]
        m = max(2 * n - v["rows"] - v["cols"], 0)
        return n, m, False, 4 * n + (9 * m if v.get("drop") else 0)
    if gen_name == "geometric":
        n = v["n"]
        m = int(n * (n - 1) / 2 * min(1.0, np.pi * v["radius"] ** 2))
        return n, m, False, 80 * n + 16 * _PAIR_CHUNK
    if gen_name == "powerlaw":
        n = v["n"]
        m = int(round(n * v["avg_degree"] if d else n * v["avg_degree"] / 2))
        if d and v.get("reciprocity"):
            m = int(m * (1 + v["reciprocity"]))
        return n, m, d, 24 * n
    if gen_name == "bowtie":
        n = v["n"]
        m = int(round(n * v["avg_degree"]))
        return n, int(m * (1 + v["reciprocity"])) + n, True, 24 * n + 32 * m
    if gen_name == "smallworld":
        n = v["n"]
        return n, n * v["k"] // 2, False, 0
    if gen_name == "cliques":
        n = v["n_cliques"] * v["clique_size"]
        return n, v["n_cliques"] * v["clique_size"] * (v["clique_size"] - 1) // 2 + v["n_cliques"], False, 0
    if gen_name == "bipartite":
        n = v["n_left"] + v["n_right"]
        return n, int(round(v["avg_degree"] * n / 2)), False, 0
    return None


def _plan_spec(spec: str, gen_name: str, values: dict, weighted: bool) -> None:
    """Refuse a spec whose graph cannot fit in host memory, in well under a second, before the
    generator allocates (:class:`~autotune.errors.HostMemoryError`: bytes needed vs available,
    naming the spec): the generator's own bytes plus the CSR build's in the fewest passes that fit
    (:func:`autotune.memory.build_passes`, as :func:`~autotune.graph.from_edges` picks them).
    Values out of the generator's range are left to its own checks. Used when the graph is built
    on the host (a build on the GPU needs device memory instead)."""
    try:
        size = _spec_size(gen_name, values)
    except (KeyError, TypeError, ValueError, OverflowError):
        return
    if size is None:
        return
    n, m, directed, extra = size
    if not (0 < n <= INT32_MAX + 1) or m < 0:
        return  # the generator's range check names the parameter
    from .memory import available_host_bytes, build_passes, check_host_memory

    avail = available_host_bytes()
    _, build = build_passes(n, m, directed=directed, id_bytes=4, weighted=weighted,
                            available=None if avail is None else avail - extra)
    check_host_memory(spec.strip(), extra + build, f"{n:,} vertices and about {m:,} generated edges"
                      + ("" if directed else ", stored in both directions"))


def _plan_spec_device(spec: str) -> None:
    """Refuse a GPU build whose peak device bytes (:func:`autotune.memory.spec_device_bytes`: the
    generator's arrays, the CSR build's sort, the resident graph and its transpose) exceed the
    device's memory (:class:`~autotune.errors.DeviceMemoryError`, naming the spec, bytes needed vs
    available), before anything is allocated. Specs whose size is not known before generating, or
    that the generator itself will refuse, are left to it."""
    from .errors import GeneratorSpecError
    from .memory import check_device_plan, spec_device_bytes

    try:
        needed, detail = spec_device_bytes(spec)
    except (GeneratorSpecError, KeyError, TypeError, ValueError, OverflowError):
        return
    check_device_plan(spec.strip(), needed, detail=detail)


# ================================================================================================
# Corpus generators (training corpus of the selection model, see models/corpus.txt)
# ================================================================================================
# These draw their random numbers on the host with ``numpy.random.default_rng(seed)`` whatever the
# backend, and build the CSR with ``xp`` (CuPy when a GPU is present): the same spec gives the same
# graph (same fingerprint) on a GPU machine and on a CPU-only one, so benchmark logs measured on the
# GPU can be matched and replayed on the CPU.

_PAIR_CHUNK = 1 << 23  # candidate pairs examined at once by the geometric generator


def _build(src, dst, n: int, spec: str, xp, directed: bool = False) -> CSRGraph:
    """CSR (cleaned, symmetrized unless *directed*) from host edge arrays, named by *spec*."""
    if src.size == 0:
        raise EmptyGraphError(f"no edges generated for {spec}", spec)
    return from_edges(src, dst, n, directed=bool(directed), name=spec, spec=spec, xp=_resolve_xp(xp),
                      source_label=spec)


def _check_edges(what: str, n_edges: float) -> None:
    """Refuse, before drawing anything, a graph whose edges cannot fit in host memory.

    The corpus generators draw their edges on the host: at least the int32 endpoints of every
    input edge, 4 bytes per stored edge or more (an undirected edge is stored twice). Past
    ``2**31 - 1`` stored edges the graph is built with int64 row offsets; only memory limits it.

    Parameters
    ----------
    what : str
        The generator spec, named in the error.
    n_edges : float
        Stored (directed) edges the parameters ask for, about.

    Raises
    ------
    HostMemoryError
        Bytes needed (``4 * n_edges``) vs available.
    """
    from .memory import check_host_memory

    check_host_memory(what, int(4 * n_edges), f"about {n_edges:,.0f} stored edges drawn on the host, at least 4 bytes "
                      "each")


#: Salt of the random stream that picks sinks, sources and reciprocated edges (:func:`_direct_edges`):
#: separate from the structure's stream, so the defaults leave a spec's graph unchanged.
_DIRECTED_SALT = 0x44495245  # "DIRE"


def _check_directed_shape(gen: str, directed: bool, sinks: float, sources: float, reciprocity: float):
    """Validate the directed-shape parameters of rmat/powerlaw (shares in [0, 1), only when directed)."""
    sinks = _check_float("sinks", sinks, 0.0, 1.0)
    sources = _check_float("sources", sources, 0.0, 1.0)
    reciprocity = _check_float("reciprocity", reciprocity, 0.0, 1.0)
    if (sinks or sources or reciprocity) and not directed:
        raise GeneratorSpecError(f"{gen}: sinks, sources and reciprocity shape a directed graph; add directed=true")
    if sinks + sources >= 1.0:
        raise GeneratorSpecError(f"{gen}: sinks + sources must be < 1, got {sinks!r} + {sources!r}")
    return sinks, sources, reciprocity


def _direct_edges(src, dst, n: int, seed: int, sinks: float, sources: float, reciprocity: float):
    """Directed edges reshaped: a share *reciprocity* of them gets its reverse added, then
    ``round(sinks * n)`` random vertices lose every out-edge and ``round(sources * n)`` others every
    in-edge. An edge that would leave a sink or enter a source is turned around; one that fits neither
    way (between two sinks, between two sources, or from a sink to a source) is dropped. Drawn from ``default_rng([seed, _DIRECTED_SALT])`` (host), so the
    same spec gives the same graph everywhere. Returns host ``(src, dst)`` int32 arrays."""
    rng = np.random.default_rng([int(seed), _DIRECTED_SALT])
    src = np.asarray(src, dtype=np.int32)
    dst = np.asarray(dst, dtype=np.int32)
    if reciprocity > 0:
        back = rng.random(src.size) < reciprocity
        src, dst = np.concatenate([src, dst[back]]), np.concatenate([dst, src[back]])
    k_sink, k_src = int(round(sinks * n)), int(round(sources * n))
    if k_sink or k_src:
        order = rng.permutation(n)
        sink = np.zeros(n, dtype=bool)
        source = np.zeros(n, dtype=bool)
        sink[order[:k_sink]] = True
        source[order[k_sink:k_sink + k_src]] = True
        ok = ~sink[src] & ~source[dst]
        flip = ~ok & ~sink[dst] & ~source[src]
        keep = ok | flip
        src, dst = np.where(flip, dst, src)[keep], np.where(flip, src, dst)[keep]
    return src, dst


# ------------------------------------------------------------------------------- R-MAT (noisy)
def rmat(scale: int, edge_factor: int = 16, a: float = 0.45, b: float = 0.15, c: float = 0.15, noise: float = 0.1,
         seed: int = 0, directed: bool = False, xp=None, weights: str | None = None, sinks: float = 0.0,
         sources: float = 0.0, reciprocity: float = 0.0) -> CSRGraph:
    """R-MAT graph with tunable skew and per-level noise, ``2**scale`` vertices.

    Each of the ``edge_factor * 2**scale`` edges picks, at each of the ``scale`` bit levels, one
    quadrant of the adjacency matrix with probabilities ``a, b, c, d = 1 - a - b - c``
    (Chakrabarti, Zhan & Faloutsos, *R-MAT: A Recursive Model for Graph Mining*, SDM 2004). A larger
    ``a`` (against ``d``) gives a more skewed degree distribution (higher Gini): ``a=0.25, b=c=0.25``
    is Erdős–Rényi-like, ``a=0.65`` extremely skewed. To smooth the comb-shaped degree distribution
    of plain R-MAT, level ``i`` uses noisy probabilities (Seshadhri, Pinar & Kolda, *An in-depth
    study of stochastic Kronecker graphs*, ICDM 2011, §8): ``mu_i ~ U[-noise, noise]``,
    ``a_i = a - 2 mu_i a / (a + d)``, ``b_i = b + mu_i``, ``c_i = c + mu_i``,
    ``d_i = d - 2 mu_i d / (a + d)``. Vertex ids are then randomly permuted; self-loops and
    duplicates are removed (so ``n_edges`` is below ``2 * edge_factor * 2**scale``).

    Parameters
    ----------
    scale : int
        log2 of the vertex count, 1..30.
    edge_factor : int, default 16
        Generated edges per vertex.
    a, b, c : float, default 0.45, 0.15, 0.15
        Quadrant probabilities; ``d = 1 - a - b - c >= 0``.
    noise : float, default 0.1
        Half-width of the per-level noise, ``0 <= noise <= min(b, c, (a + d) / 2)`` (0: plain R-MAT).
    seed : int, default 0
        Random seed (host ``numpy.random.default_rng``: same graph on every backend).
    directed : bool, default False
        Keep edges directed instead of symmetrizing them. Directed R-MAT graphs have sinks and
        sources of their own (vertices whose row or column bits were never drawn; more with higher
        skew and fewer edges) and a low reciprocity.
    xp : module, optional
        ``numpy`` or ``cupy`` for the CSR arrays; default CuPy when a GPU is available.
    weights : str, optional
        Seeded edge-weight distribution: ``"int:LO:HI"`` (e.g. ``"int:1:255"``, GAP's convention, also
        written ``"int"``) or ``"float:LO:HI"`` (float32); see :func:`edge_weights` for how the
        weights follow from *seed*. None (default): unweighted.
    sinks, sources : float, default 0
        Directed only: shares of the vertices made sinks (no out-edge) and sources (no in-edge), on
        top of the ones R-MAT makes (:func:`_direct_edges`: their edges are turned around).
    reciprocity : float, default 0
        Directed only: share of the edges that also get their reverse edge.

    Returns
    -------
    CSRGraph
        Named by its canonical spec, e.g. ``rmat:scale=18,edge_factor=16,a=0.6``.

    Raises
    ------
    ValueError
        On an out-of-range parameter (named in the message).

    Examples
    --------
    >>> import numpy as np
    >>> g = rmat(10, 8, a=0.6, b=0.15, c=0.15, xp=np)
    >>> g.n_vertices
    1024
    """
    scale = _check_int("scale", scale, 1, MAX_SCALE)
    edge_factor = _check_int("edge_factor", edge_factor, 1)
    a = _check_float("a", a, 0.0, 1.0)
    b = _check_float("b", b, 0.0, 1.0)
    c = _check_float("c", c, 0.0, 1.0)
    d = 1.0 - a - b - c
    if d < -1e-12:
        raise GeneratorSpecError(f"a + b + c must be <= 1 (d = 1 - a - b - c), got a={a!r}, b={b!r}, c={c!r}")
    d = max(d, 0.0)
    noise = _check_float("noise", noise, 0.0, 1.0)
    limit = min(b, c, (a + d) / 2)
    if noise > limit + 1e-12:
        raise GeneratorSpecError(f"noise must be <= min(b, c, (a + d) / 2) = {limit!r} to keep probabilities >= 0, "
                         f"got {noise!r}")
    seed = _check_int("seed", seed, 0)
    sinks, sources, reciprocity = _check_directed_shape("rmat", directed, sinks, sources, reciprocity)
    n = 1 << scale
    m = edge_factor * n
    dist = parse_weight_spec(weights)
    spec = _canonical("rmat", dict(scale=scale, edge_factor=edge_factor, a=a, b=b, c=c, noise=noise, seed=seed,
                                   directed=bool(directed), sinks=sinks, sources=sources, reciprocity=reciprocity,
                                   weights=_weights_text(dist)))
    _check_edges(spec, m * ((1 + reciprocity) if directed else 2))
    rng = np.random.default_rng(seed)
    mu = rng.uniform(-noise, noise, size=scale) if noise > 0 else np.zeros(scale)
    ad = a + d
    levels = []
    for i in range(scale):  # cumulative thresholds of quadrants A, A+B, A+B+C at level i
        ai = a - 2 * mu[i] * a / ad if ad > 0 else a
        bi, ci = b + mu[i], c + mu[i]
        levels.append((np.float32(ai), np.float32(ai + bi), np.float32(ai + bi + ci)))
    src = np.zeros(m, dtype=np.uint32)
    dst = np.zeros(m, dtype=np.uint32)
    u = np.empty(min(m, _CHUNK), dtype=np.float32)
    for lo in range(0, m, _CHUNK):
        k = min(_CHUNK, m - lo)
        s, t, uu = src[lo:lo + k], dst[lo:lo + k], u[:k]
        for ta, tab, tabc in levels:
            rng.random(out=uu, dtype=np.float32)
            ibit = uu >= tab                               # quadrant C or D: source bit
            jbit = ((uu >= ta) & ~ibit) | (uu >= tabc)     # quadrant B or D: destination bit
            s <<= 1
            s += ibit
            t <<= 1
            t += jbit
    del u, uu, ibit, jbit
    perm = rng.permutation(n).astype(np.int32)
    src, dst = _permute_in_place(src, perm, np), _permute_in_place(dst, perm, np)
    del perm
    if sinks or sources or reciprocity:
        src, dst = _direct_edges(src, dst, n, seed, sinks, sources, reciprocity)
    return _with_weights(_build(src, dst, n, spec, xp, directed), dist, seed)


# ------------------------------------------------------------------------------- random geometric
def geometric(n: int, radius: float, seed: int = 0, xp=None, weights: str | None = None) -> CSRGraph:
    """Random geometric graph: ``n`` uniform points in the unit square, joined when within ``radius``.

    Points are binned in a grid of square cells of side ``>= radius``, so every pair closer than
    ``radius`` lies in the same or an adjacent cell; the candidate pairs of each cell and its four
    "forward" neighbours (right, upper-left, up, upper-right) are enumerated with vectorised
    ``repeat``/``cumsum`` arithmetic in bounded chunks and filtered by Euclidean distance. The
    expected mean degree is about ``n * pi * radius**2`` (a little less near the border), the BFS
    depth about ``sqrt(2) / radius`` (a mesh-like, high-diameter graph, as the DIMACS ``rgg_n_2_*``
    graphs). Vertex ids follow the (random) order in which the points were drawn.

    Parameters
    ----------
    n : int
        Number of points (vertices), 2..2**31-1.
    radius : float
        Connection radius, in (0, 1.5].
    seed : int, default 0
        Random seed (host ``numpy.random.default_rng``: same graph on every backend).
    xp : module, optional
        ``numpy`` or ``cupy`` for the CSR arrays; default CuPy when a GPU is available.
    weights : str, optional
        Seeded edge-weight distribution: ``"int:LO:HI"`` (e.g. ``"int:1:255"``, GAP's convention, also
        written ``"int"``) or ``"float:LO:HI"`` (float32); see :func:`edge_weights` for how the
        weights follow from *seed*. None (default): unweighted.

    Returns
    -------
    CSRGraph
        Undirected; named by its canonical spec, e.g. ``geometric:n=100000,radius=0.005``.

    Raises
    ------
    ValueError
        On an out-of-range parameter.
    HostMemoryError
        When the expected edges cannot fit in host memory (:func:`_check_edges`), before drawing.
    EmptyGraphError
        When no two points are within ``radius``.
    """
    n = _check_int("n", n, 2, INT32_MAX)
    radius = _check_float("radius", radius, 0.0, 1.5, lo_open=True)
    seed = _check_int("seed", seed, 0)
    dist = parse_weight_spec(weights)
    spec = _canonical("geometric", dict(n=n, radius=radius, seed=seed, weights=_weights_text(dist)))
    _check_edges(spec, float(n) * (n - 1) * min(1.0, np.pi * radius * radius))
    rng = np.random.default_rng(seed)
    pts = rng.random((n, 2))
    side = max(1, int(np.floor(1.0 / radius)))          # cells per side; cell size 1/side >= radius
    side = min(side, 1 << 15)
    cx = np.minimum((pts[:, 0] * side).astype(np.int64), side - 1)
    cy = np.minimum((pts[:, 1] * side).astype(np.int64), side - 1)
    cell = cy * side + cx
    order = np.argsort(cell, kind="stable")              # point ids sorted by cell
    cell_sorted = cell[order]
    x, y = pts[order, 0], pts[order, 1]
    counts = np.bincount(cell_sorted, minlength=side * side)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    r2 = radius * radius
    src_parts, dst_parts = [], []
    pcx, pcy = cx[order], cy[order]
    for dx, dy in ((0, 0), (1, 0), (-1, 1), (0, 1), (1, 1)):
        tx, ty = pcx + dx, pcy + dy
        ok = (tx >= 0) & (tx < side) & (ty < side)
        tcell = np.where(ok, ty * side + tx, 0)
        if dx == 0 and dy == 0:   # same cell: partners after i in the cell (each pair once)
            first = np.arange(n, dtype=np.int64) + 1
            cnt = starts[tcell] + counts[tcell] - first
        else:
            first = starts[tcell]
            cnt = np.where(ok, counts[tcell], 0)
        cnt = np.maximum(cnt, 0)
        # chunks of points whose candidate pairs fit in _PAIR_CHUNK
        csum = np.cumsum(cnt)
        lo = 0
        while lo < n:
            base = csum[lo - 1] if lo else 0
            hi = int(np.searchsorted(csum, base + _PAIR_CHUNK, side="right"))
            hi = max(hi, lo + 1)
            c = cnt[lo:hi]
            total = int(c.sum())
            if total:
                i = np.repeat(np.arange(lo, hi, dtype=np.int64), c)
                within = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(c) - c, c)
                j = np.repeat(first[lo:hi], c) + within
                close = (x[i] - x[j]) ** 2 + (y[i] - y[j]) ** 2 <= r2
                src_parts.append(order[i[close]].astype(np.int32))
                dst_parts.append(order[j[close]].astype(np.int32))
            lo = hi
    src = np.concatenate(src_parts) if src_parts else np.empty(0, np.int32)
    dst = np.concatenate(dst_parts) if dst_parts else np.empty(0, np.int32)
    return _with_weights(_build(src, dst, n, spec, xp), dist, seed)


# ------------------------------------------------------------------------------- power law
def powerlaw(n: int, avg_degree: float = 8.0, exponent: float = 2.5, seed: int = 0, directed: bool = False,
             xp=None, weights: str | None = None, sinks: float = 0.0, sources: float = 0.0,
             reciprocity: float = 0.0) -> CSRGraph:
    """Power-law random graph (Chung–Lu expected-degree model) with degree exponent ``exponent``.

    Vertex ``i`` (before a random relabelling) gets the expected degree
    ``w_i ∝ (i + 1) ** (-1 / (exponent - 1))`` (Chung & Lu, *Connected components in random graphs
    with given expected degree sequences*, 2002), scaled so that the mean is ``avg_degree`` and
    capped at ``n - 1``. ``m = n * avg_degree / 2`` edges (``n * avg_degree`` when directed) are
    drawn with both endpoints chosen independently with probability ``∝ w`` (the edge-sampling form
    of Chung–Lu, also the Barabási–Albert degree law for ``exponent = 3``), so the degree of ``i``
    is about Poisson(``w_i``); a smaller exponent gives heavier hubs (higher Gini). Self-loops and
    duplicate edges are removed, which trims the largest hubs a little. Vertex ids are randomly
    permuted.

    Parameters
    ----------
    n : int
        Vertex count, 2..2**30.
    avg_degree : float, default 8
        Target mean out-degree (> 0).
    exponent : float, default 2.5
        Power-law exponent ``gamma`` of the degree distribution, in (1.5, 10].
    seed : int, default 0
        Random seed (host ``numpy.random.default_rng``: same graph on every backend).
    directed : bool, default False
        Draw directed edges (source and destination both ``∝ w``).
    xp : module, optional
        ``numpy`` or ``cupy`` for the CSR arrays; default CuPy when a GPU is available.
    weights : str, optional
        Seeded edge-weight distribution: ``"int:LO:HI"`` (e.g. ``"int:1:255"``, GAP's convention, also
        written ``"int"``) or ``"float:LO:HI"`` (float32); see :func:`edge_weights` for how the
        weights follow from *seed*. None (default): unweighted.
    sinks, sources : float, default 0
        Directed only: shares of the vertices (random, hubs included) made sinks (no out-edge:
        a web page without links, a paper citing nothing in the set) and sources (no in-edge: an
        account nobody mentions); see :func:`_direct_edges`.
    reciprocity : float, default 0
        Directed only: share of the edges that also get their reverse edge (a directed Chung-Lu
        graph has almost none).

    Returns
    -------
    CSRGraph
        Named by its canonical spec, e.g. ``powerlaw:n=1000000,avg_degree=8,exponent=2.1``.

    Raises
    ------
    ValueError
        On an out-of-range parameter.
    """
    n = _check_int("n", n, 2, 1 << MAX_SCALE)
    avg_degree = _check_float("avg_degree", avg_degree, 0.0, float(n - 1), lo_open=True)
    exponent = _check_float("exponent", exponent, 1.5, 10.0, lo_open=True)
    seed = _check_int("seed", seed, 0)
    sinks, sources, reciprocity = _check_directed_shape("powerlaw", directed, sinks, sources, reciprocity)
    m = int(round(n * avg_degree if directed else n * avg_degree / 2))
    dist = parse_weight_spec(weights)
    spec = _canonical("powerlaw", dict(n=n, avg_degree=avg_degree, exponent=exponent, seed=seed,
                                       directed=bool(directed), sinks=sinks, sources=sources,
                                       reciprocity=reciprocity, weights=_weights_text(dist)))
    _check_edges(spec, m * ((1 + reciprocity) if directed else 2))
    w = np.arange(1, n + 1, dtype=np.float64) ** (-1.0 / (exponent - 1.0))
    w *= avg_degree * n / w.sum()
    for _ in range(8):  # cap at n - 1 and rescale the rest to keep the mean
        over = w > n - 1
        if not over.any():
            break
        w[over] = n - 1
        free = ~over
        w[free] *= (avg_degree * n - w[over].sum()) / w[free].sum()
    cdf = np.cumsum(w)
    cdf /= cdf[-1]
    rng = np.random.default_rng(seed)
    src = np.empty(m, dtype=np.int32)
    dst = np.empty(m, dtype=np.int32)
    for lo in range(0, m, _CHUNK):
        k = min(_CHUNK, m - lo)
        src[lo:lo + k] = np.minimum(np.searchsorted(cdf, rng.random(k), side="right"), n - 1)
        dst[lo:lo + k] = np.minimum(np.searchsorted(cdf, rng.random(k), side="right"), n - 1)
    perm = rng.permutation(n).astype(np.int32)
    src, dst = _permute_in_place(src, perm, np), _permute_in_place(dst, perm, np)
    del perm
    if sinks or sources or reciprocity:
        src, dst = _direct_edges(src, dst, n, seed, sinks, sources, reciprocity)
    return _with_weights(_build(src, dst, n, spec, xp, directed), dist, seed)


# ------------------------------------------------------------------------------- small world
def smallworld(n: int, k: int = 6, p: float = 0.1, seed: int = 0, xp=None, weights: str | None = None) -> CSRGraph:
    """Watts–Strogatz small-world graph: a ring lattice with each edge rewired with probability ``p``.

    Vertex ``i`` is joined to ``i + 1, ..., i + k/2`` (mod ``n``), giving every vertex degree ``k``;
    then the far endpoint of each of the ``n * k / 2`` edges is replaced, with probability ``p``, by a
    uniformly random vertex (Watts & Strogatz, *Collective dynamics of 'small-world' networks*,
    Nature 1998). ``p = 0`` keeps the ring (BFS depth ``n / k``); a little rewiring collapses the
    depth to ``O(log n)`` while the degree stays nearly regular (Gini near 0). Rewired edges that
    become self-loops or duplicates are dropped (a few fewer edges than ``n * k / 2``).

    Parameters
    ----------
    n : int
        Vertex count, > k.
    k : int, default 6
        Ring neighbours per vertex, even, >= 2.
    p : float, default 0.1
        Rewiring probability, in [0, 1].
    seed : int, default 0
        Random seed (host ``numpy.random.default_rng``: same graph on every backend).
    xp : module, optional
        ``numpy`` or ``cupy`` for the CSR arrays; default CuPy when a GPU is available.
    weights : str, optional
        Seeded edge-weight distribution: ``"int:LO:HI"`` (e.g. ``"int:1:255"``, GAP's convention, also
        written ``"int"``) or ``"float:LO:HI"`` (float32); see :func:`edge_weights` for how the
        weights follow from *seed*. None (default): unweighted.

    Returns
    -------
    CSRGraph
        Undirected; named by its canonical spec, e.g. ``smallworld:n=1000000,k=10,p=0.05``.

    Raises
    ------
    ValueError
        On an odd or too large ``k``, or an out-of-range parameter.
    """
    n = _check_int("n", n, 3, 1 << MAX_SCALE)
    k = _check_int("k", k, 2)
    if k % 2 or k >= n:
        raise GeneratorSpecError(f"k must be even and < n, got k={k}, n={n}")
    p = _check_float("p", p, 0.0, 1.0)
    seed = _check_int("seed", seed, 0)
    dist = parse_weight_spec(weights)
    spec = _canonical("smallworld", dict(n=n, k=k, p=p, seed=seed, weights=_weights_text(dist)))
    _check_edges(spec, float(n) * k)
    rng = np.random.default_rng(seed)
    half = k // 2
    src = np.repeat(np.arange(n, dtype=np.int64), half)
    dst = (src + np.tile(np.arange(1, half + 1, dtype=np.int64), n)) % n
    if p > 0:
        rewire = rng.random(src.size) < p
        dst[rewire] = rng.integers(0, n, size=int(rewire.sum()))
    return _with_weights(_build(src.astype(np.int32), dst.astype(np.int32), n, spec, xp), dist, seed)


# ------------------------------------------------------------------------------- chain of cliques
def cliques(n_cliques: int, clique_size: int, seed: int = 0, xp=None, weights: str | None = None) -> CSRGraph:
    """A chain of cliques: ``n_cliques`` complete graphs of ``clique_size`` vertices joined in a path.

    Clique ``t`` holds vertices ``t * s .. t * s + s - 1`` (``s = clique_size``); its last vertex is
    joined to the first vertex of clique ``t + 1``. Every vertex has degree ``s - 1`` (bridge
    endpoints ``s``): a regular, dense graph (Gini near 0, mean degree up to hundreds) whose BFS
    depth grows with the chain (about ``2 * n_cliques`` from an end) — dense *and* deep, a corner
    of feature space no random model reaches. Deterministic: ``seed`` is accepted for a uniform
    spec interface and ignored.

    Parameters
    ----------
    n_cliques : int
        Number of cliques, >= 1.
    clique_size : int
        Vertices per clique, >= 2.
    seed : int, default 0
        Unused (the graph is deterministic).
    xp : module, optional
        ``numpy`` or ``cupy`` for the CSR arrays; default CuPy when a GPU is available.
    weights : str, optional
        Seeded edge-weight distribution: ``"int:LO:HI"`` (e.g. ``"int:1:255"``, GAP's convention, also
        written ``"int"``) or ``"float:LO:HI"`` (float32); see :func:`edge_weights` for how the
        weights follow from *seed*. None (default): unweighted.

    Returns
    -------
    CSRGraph
        Undirected; named by its canonical spec, e.g. ``cliques:n_cliques=1000,clique_size=32``.

    Raises
    ------
    ValueError
        On an out-of-range parameter.
    HostMemoryError
        When the edges cannot fit in host memory (:func:`_check_edges`), before drawing them.
    """
    n_cliques = _check_int("n_cliques", n_cliques, 1)
    s = _check_int("clique_size", clique_size, 2)
    _check_int("seed", seed, 0)
    if n_cliques * s > INT32_MAX:
        raise GeneratorSpecError(f"n_cliques * clique_size must be <= {INT32_MAX:,}, got {n_cliques} x {s}")
    dist = parse_weight_spec(weights)
    spec = _canonical("cliques", dict(n_cliques=n_cliques, clique_size=s, seed=seed if dist else None,
                                          weights=_weights_text(dist)))
    _check_edges(spec, float(n_cliques) * s * (s - 1) + 2 * (n_cliques - 1))
    iu, ju = np.triu_indices(s, k=1)
    base = (np.arange(n_cliques, dtype=np.int64) * s)[:, None]
    src = (base + iu[None, :]).ravel()
    dst = (base + ju[None, :]).ravel()
    bridges = np.arange(n_cliques - 1, dtype=np.int64) * s
    src = np.concatenate([src, bridges + s - 1])
    dst = np.concatenate([dst, bridges + s])
    return _with_weights(_build(src.astype(np.int32), dst.astype(np.int32), n_cliques * s, spec, xp), dist, seed)


# ------------------------------------------------------------------------------- bipartite
def bipartite(n_left: int, n_right: int, avg_degree: float = 8.0, seed: int = 0, xp=None,
              weights: str | None = None) -> CSRGraph:
    """Random bipartite graph: uniform edges between a left and a right vertex set.

    ``m = round(avg_degree * (n_left + n_right) / 2)`` edges each join a uniformly random left
    vertex (ids ``0 .. n_left - 1``) to a uniformly random right vertex (ids ``n_left ..``), so the
    mean degree over all vertices is ``avg_degree``, the left side's ``m / n_left`` and the right
    side's ``m / n_right``: unequal sides give a two-level degree distribution (a user–item graph).
    Duplicate edges are removed.

    Parameters
    ----------
    n_left, n_right : int
        Sizes of the two sides, >= 1, ``n_left + n_right <= 2**31 - 1``.
    avg_degree : float, default 8
        Mean degree over all vertices (> 0).
    seed : int, default 0
        Random seed (host ``numpy.random.default_rng``: same graph on every backend).
    xp : module, optional
        ``numpy`` or ``cupy`` for the CSR arrays; default CuPy when a GPU is available.
    weights : str, optional
        Seeded edge-weight distribution: ``"int:LO:HI"`` (e.g. ``"int:1:255"``, GAP's convention, also
        written ``"int"``) or ``"float:LO:HI"`` (float32); see :func:`edge_weights` for how the
        weights follow from *seed*. None (default): unweighted.

    Returns
    -------
    CSRGraph
        Undirected; named by its canonical spec, e.g. ``bipartite:n_left=1000,n_right=100000``.

    Raises
    ------
    ValueError
        On an out-of-range parameter.
    """
    n_left = _check_int("n_left", n_left, 1)
    n_right = _check_int("n_right", n_right, 1)
    n = n_left + n_right
    if n > INT32_MAX:
        raise GeneratorSpecError(f"n_left + n_right must be <= {INT32_MAX:,}, got {n:,}")
    avg_degree = _check_float("avg_degree", avg_degree, 0.0, float(min(n_left, n_right)) * 2, lo_open=True)
    seed = _check_int("seed", seed, 0)
    m = int(round(avg_degree * n / 2))
    dist = parse_weight_spec(weights)
    spec = _canonical("bipartite", dict(n_left=n_left, n_right=n_right, avg_degree=avg_degree, seed=seed,
                                        weights=_weights_text(dist)))
    _check_edges(spec, 2.0 * m)
    rng = np.random.default_rng(seed)
    src = rng.integers(0, n_left, size=m, dtype=np.int32)
    dst = rng.integers(n_left, n, size=m, dtype=np.int32)
    return _with_weights(_build(src, dst, n, spec, xp), dist, seed)


# ------------------------------------------------------------------------------- web-like bow tie
#: Group codes of :func:`bowtie`'s vertices.
_BT_CORE, _BT_IN, _BT_OUT, _BT_TENDRIL, _BT_DISC = 0, 1, 2, 3, 4

#: Allowed directed group pairs of :func:`bowtie` (source group, destination group) -> whether the
#: pair must follow the DAG order (lower rank to higher) to keep the group acyclic.
_BT_ALLOWED = {(_BT_CORE, _BT_CORE): False, (_BT_IN, _BT_CORE): False, (_BT_CORE, _BT_OUT): False,
               (_BT_IN, _BT_IN): True, (_BT_OUT, _BT_OUT): True, (_BT_IN, _BT_OUT): False,
               (_BT_IN, _BT_TENDRIL): False, (_BT_TENDRIL, _BT_TENDRIL): True, (_BT_TENDRIL, _BT_OUT): False,
               (_BT_DISC, _BT_DISC): False}


def bowtie(n: int, avg_degree: float = 8.0, core: float = 0.3, in_share: float = 0.2, out_share: float = 0.35,
           exponent: float = 2.3, reciprocity: float = 0.3, seed: int = 0, xp=None,
           weights: str | None = None) -> CSRGraph:
    """Web-like directed graph with a bow tie: a strongly connected core, an IN set that reaches it,
    an OUT set it reaches, tendrils and disconnected pieces (Broder et al., *Graph structure in the
    Web*, 2000).

    Vertices are split at random into the core (share *core*), IN (*in_share*), OUT
    (*out_share*) and the rest, half tendrils and half disconnected. ``n * avg_degree`` edges are
    drawn Chung-Lu style (both endpoints with probability ``∝ w``, ``w_i ∝ (i + 1) ** (-1 /
    (exponent - 1))`` over a random order of the vertices, as :func:`powerlaw`), then oriented to
    respect the bow tie: core -> core as drawn, IN -> core, core -> OUT, IN -> OUT (tubes),
    IN -> tendril, tendril -> OUT, and within IN, OUT and the tendrils from lower to higher rank
    (acyclic, so none of them joins the core); disconnected vertices keep only their own edges; an
    edge that fits in neither direction (core and tendril, any group and the disconnected part) is
    dropped. A share *reciprocity* of the core's edges gets its reverse. Structure edges make the
    groups what they are: a directed cycle through the core, one edge from every IN vertex to the
    core, one from the core to every OUT vertex and one from IN to every tendril. The result has
    many sinks (the end of OUT's and the tendrils' orders), a low reciprocity outside the core, and
    BFS reaches most of the graph from IN, less from the core and little from OUT.

    Parameters
    ----------
    n : int
        Vertex count, >= 8.
    avg_degree : float, default 8
        Drawn edges per vertex (> 0); the structure edges add about one more per vertex.
    core, in_share, out_share : float, default 0.3, 0.2, 0.35
        Shares of the vertices in the core (> 0), IN and OUT; their sum must not exceed 1.
    exponent : float, default 2.3
        Power-law exponent of the degree weights, in (1.5, 10].
    reciprocity : float, default 0.3
        Share of the core's drawn edges that also get their reverse, in [0, 1].
    seed : int, default 0
        Random seed (host ``numpy.random.default_rng``: same graph on every backend).
    xp : module, optional
        ``numpy`` or ``cupy`` for the CSR arrays; default CuPy when a GPU is available.
    weights : str, optional
        Seeded edge-weight distribution (``"int:LO:HI"``, ``"float:LO:HI"``); see
        :func:`edge_weights`. None (default): unweighted.

    Returns
    -------
    CSRGraph
        Directed; named by its canonical spec, e.g. ``bowtie:n=100000,avg_degree=8``.

    Raises
    ------
    ValueError
        On an out-of-range parameter.
    """
    n = _check_int("n", n, 8, 1 << MAX_SCALE)
    avg_degree = _check_float("avg_degree", avg_degree, 0.0, float(n - 1), lo_open=True)
    core = _check_float("core", core, 0.0, 1.0, lo_open=True)
    in_share = _check_float("in_share", in_share, 0.0, 1.0)
    out_share = _check_float("out_share", out_share, 0.0, 1.0)
    if core + in_share + out_share > 1.0 + 1e-12:
        raise GeneratorSpecError(f"core + in_share + out_share must be <= 1, got {core!r} + {in_share!r} + "
                                 f"{out_share!r}")
    exponent = _check_float("exponent", exponent, 1.5, 10.0, lo_open=True)
    reciprocity = _check_float("reciprocity", reciprocity, 0.0, 1.0)
    seed = _check_int("seed", seed, 0)
    m = int(round(n * avg_degree))
    dist = parse_weight_spec(weights)
    spec = _canonical("bowtie", dict(n=n, avg_degree=avg_degree, core=core, in_share=in_share, out_share=out_share,
                                     exponent=exponent, reciprocity=reciprocity, seed=seed,
                                     weights=_weights_text(dist)))
    _check_edges(spec, m * (1 + reciprocity) + n)
    rng = np.random.default_rng(seed)
    rank = rng.permutation(n).astype(np.int64)            # vertex -> rank (group and DAG order)
    n_core = max(1, int(round(core * n)))
    n_in = int(round(in_share * n))
    n_out = min(int(round(out_share * n)), n - n_core - n_in)
    n_tend = (n - n_core - n_in - n_out) // 2
    bounds = np.cumsum([n_core, n_in, n_out, n_tend])
    group = np.searchsorted(bounds, rank, side="right").astype(np.int8)
    # Chung-Lu weights over a random order of the vertices (independent of the groups)
    w = np.arange(1, n + 1, dtype=np.float64) ** (-1.0 / (exponent - 1.0))
    w = w[rng.permutation(n)]
    cdf = np.cumsum(w)
    cdf /= cdf[-1]
    src = np.minimum(np.searchsorted(cdf, rng.random(m), side="right"), n - 1).astype(np.int64)
    dst = np.minimum(np.searchsorted(cdf, rng.random(m), side="right"), n - 1).astype(np.int64)
    gs, gd = group[src], group[dst]
    pair = gs.astype(np.int64) * 8 + gd
    fwd_ok = np.zeros(64, dtype=bool)
    ordered = np.zeros(64, dtype=bool)
    for (a, b), dag in _BT_ALLOWED.items():
        fwd_ok[a * 8 + b] = True
        ordered[a * 8 + b] = dag
    rev_pair = gd.astype(np.int64) * 8 + gs
    up = rank[src] < rank[dst]
    keep_fwd = fwd_ok[pair] & (~ordered[pair] | up)
    keep_rev = ~keep_fwd & fwd_ok[rev_pair] & (~ordered[rev_pair] | ~up)
    s1 = np.concatenate([src[keep_fwd], dst[keep_rev]])
    d1 = np.concatenate([dst[keep_fwd], src[keep_rev]])
    if reciprocity > 0:
        in_core = (group[s1] == _BT_CORE) & (group[d1] == _BT_CORE)
        back = in_core & (rng.random(s1.size) < reciprocity)
        s1, d1 = np.concatenate([s1, d1[back]]), np.concatenate([d1, s1[back]])
    by_group = [np.flatnonzero(group == k) for k in range(5)]
    core_v = by_group[_BT_CORE][rng.permutation(by_group[_BT_CORE].size)]
    extra_s = [core_v]                                    # a cycle through the core: strongly connected
    extra_d = [np.roll(core_v, -1)]
    if by_group[_BT_IN].size:                             # every IN vertex reaches the core
        extra_s.append(by_group[_BT_IN])
        extra_d.append(core_v[rng.integers(0, core_v.size, by_group[_BT_IN].size)])
    if by_group[_BT_OUT].size:                            # the core reaches every OUT vertex
        extra_s.append(core_v[rng.integers(0, core_v.size, by_group[_BT_OUT].size)])
        extra_d.append(by_group[_BT_OUT])
    if by_group[_BT_TENDRIL].size and by_group[_BT_IN].size:  # tendrils hang off IN
        ins = by_group[_BT_IN]
        extra_s.append(ins[rng.integers(0, ins.size, by_group[_BT_TENDRIL].size)])
        extra_d.append(by_group[_BT_TENDRIL])
    src = np.concatenate([s1, *extra_s]).astype(np.int32)
    dst = np.concatenate([d1, *extra_d]).astype(np.int32)
    return _with_weights(_build(src, dst, n, spec, xp, directed=True), dist, seed)


_GENERATORS.update({
    g.name: g for g in (
        _Generator("rmat", rmat, (
            _Param("scale", int, 16, True), _Param("edge_factor", int, 16, True), _Param("a", float, 0.45),
            _Param("b", float, 0.15), _Param("c", float, 0.15), _Param("noise", float, 0.1),
            _Param("seed", int, 0), _Param("directed", bool, False), _Param("sinks", float, 0.0),
            _Param("sources", float, 0.0), _Param("reciprocity", float, 0.0), _Param("weights", str, None)),
            lambda v, xp: rmat(v["scale"], v["edge_factor"], v["a"], v["b"], v["c"], v["noise"], v["seed"],
                               v["directed"], xp=xp, sinks=v["sinks"], sources=v["sources"],
                               reciprocity=v["reciprocity"])),
        _Generator("geometric", geometric, (
            _Param("n", int, 100_000, True), _Param("radius", float, 0.005, True), _Param("seed", int, 0),
            _Param("weights", str, None)),
            lambda v, xp: geometric(v["n"], v["radius"], v["seed"], xp=xp)),
        _Generator("powerlaw", powerlaw, (
            _Param("n", int, 100_000, True), _Param("avg_degree", float, 8.0, True),
            _Param("exponent", float, 2.5, True), _Param("seed", int, 0), _Param("directed", bool, False),
            _Param("sinks", float, 0.0), _Param("sources", float, 0.0), _Param("reciprocity", float, 0.0),
            _Param("weights", str, None)),
            lambda v, xp: powerlaw(v["n"], v["avg_degree"], v["exponent"], v["seed"], v["directed"], xp=xp,
                                   sinks=v["sinks"], sources=v["sources"], reciprocity=v["reciprocity"])),
        _Generator("smallworld", smallworld, (
            _Param("n", int, 100_000, True), _Param("k", int, 6, True), _Param("p", float, 0.1, True),
            _Param("seed", int, 0), _Param("weights", str, None)),
            lambda v, xp: smallworld(v["n"], v["k"], v["p"], v["seed"], xp=xp)),
        _Generator("cliques", cliques, (
            _Param("n_cliques", int, 100, True), _Param("clique_size", int, 16, True), _Param("seed", int, 0),
            _Param("weights", str, None)),
            lambda v, xp: cliques(v["n_cliques"], v["clique_size"], v["seed"], xp=xp)),
        _Generator("bipartite", bipartite, (
            _Param("n_left", int, 10_000, True), _Param("n_right", int, 100_000, True),
            _Param("avg_degree", float, 8.0, True), _Param("seed", int, 0), _Param("weights", str, None)),
            lambda v, xp: bipartite(v["n_left"], v["n_right"], v["avg_degree"], v["seed"], xp=xp)),
        _Generator("bowtie", bowtie, (
            _Param("n", int, 100_000, True), _Param("avg_degree", float, 8.0, True), _Param("core", float, 0.3),
            _Param("in_share", float, 0.2), _Param("out_share", float, 0.35), _Param("exponent", float, 2.3),
            _Param("reciprocity", float, 0.3), _Param("seed", int, 0), _Param("weights", str, None)),
            lambda v, xp: bowtie(v["n"], v["avg_degree"], v["core"], v["in_share"], v["out_share"], v["exponent"],
                                 v["reciprocity"], v["seed"], xp=xp)),
    )
})
__all__ += ["rmat", "geometric", "powerlaw", "smallworld", "cliques", "bipartite", "bowtie"]
