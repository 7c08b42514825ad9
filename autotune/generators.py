"""Synthetic graphs: Graph500 Kronecker, uniform random, 2-D grid, and generator specs.

A generator spec is a short string naming a generator and its parameters, used wherever a graph
file name is accepted (``autotune.load_graph``, the CLI, the benchmark log's ``graph.spec``)::

    kron:scale=22,edge_factor=16      Graph500 Kronecker graph, 2**22 vertices
    uniform:scale=20,avg_degree=8     uniform random (Erdős–Rényi G(n, m)) graph
    grid:rows=1000,cols=1000,drop=0.1 2-D grid with 10 % of its edges removed (road-like)

Every generator is vectorised (one pass per Kronecker bit level, never one per edge), seeded, and
builds its graph through :func:`autotune.graph.from_edges`. It runs with CuPy on the GPU when one is
present (or when ``xp=cupy``), else with NumPy. A seed fixes the graph for a given backend: NumPy
(``numpy.random.default_rng``) and CuPy (``cupy.random.RandomState``) draw different streams, so
the same spec gives different (statistically equivalent) graphs on the host and on the GPU; the
graph's ``fingerprint`` tells them apart.
"""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

from ._backend import gpu_available
from .errors import EmptyGraphError
from .graph import INT32_MAX, CSRGraph, _with_direction, from_edges

__all__ = ["kronecker", "uniform_random", "grid", "parse_spec", "generate", "available_generators", "MAX_SCALE"]

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
        raise ValueError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < lo or (hi is not None and value > hi):
        bound = f"between {lo} and {hi}" if hi is not None else f">= {lo}"
        raise ValueError(f"{name} must be {bound}, got {value}")
    return value


def _check_float(name: str, value, lo: float, hi: float, *, lo_open: bool = False) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number, got {value!r}")
    value = float(value)
    if not (lo < value if lo_open else lo <= value) or not value <= hi:
        raise ValueError(f"{name} must be in {'(' if lo_open else '['}{lo}, {hi}], got {value!r}")
    return value


# ------------------------------------------------------------------------------- Kronecker
def kronecker(scale: int, edge_factor: int = 16, a: float = 0.57, b: float = 0.19, c: float = 0.19, seed: int = 0,
              directed: bool = False, xp=None) -> CSRGraph:
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

    Returns
    -------
    CSRGraph
        Named and spec'd by the canonical spec, e.g. ``kron:scale=20,edge_factor=16``.

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
        raise ValueError(f"a + b + c must be <= 1 (d = 1 - a - b - c), got a={a!r}, b={b!r}, c={c!r}")
    seed = _check_int("seed", seed, 0)
    xp = _resolve_xp(xp)
    n = 1 << scale
    m = edge_factor * n
    if xp is np:
        src, dst = _kron_numpy(scale, m, a, b, c, seed)
    else:
        src, dst = _kron_cupy(scale, m, a, b, c, seed)
    spec = _canonical("kron", dict(scale=scale, edge_factor=edge_factor, a=a, b=b, c=c, seed=seed,
                                   directed=bool(directed)))
    return from_edges(src, dst, n, directed=bool(directed), name=spec, spec=spec, xp=xp, source_label=spec)


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
    perm = rng.permutation(1 << scale).astype(np.int32)
    return perm[src], perm[dst]


_KRON_LEVEL = None


def _kron_cupy(scale: int, m: int, a: float, b: float, c: float, seed: int):
    """Kronecker edge endpoints on the GPU: one fused elementwise kernel per bit level and chunk."""
    import cupy

    global _KRON_LEVEL
    if _KRON_LEVEL is None:
        _KRON_LEVEL = cupy.ElementwiseKernel(
            "float32 u, float32 ta, float32 tab, float32 tabc", "uint32 s, uint32 d",
            "const bool i = u >= tab;"
            "const bool j = ((u >= ta) != i) || (u >= tabc);"
            "s = (s << 1) | (i ? 1u : 0u);"
            "d = (d << 1) | (j ? 1u : 0u);",
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
    return perm[src], perm[dst]


# ------------------------------------------------------------------------------- uniform
def uniform_random(n_vertices: int, avg_degree: float = 16, seed: int = 0, directed: bool = False,
                   xp=None) -> CSRGraph:
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
    spec = _canonical("uniform", dict(n=n, avg_degree=avg_degree, seed=seed, directed=bool(directed)))
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
    return from_edges(src, dst, n, directed=bool(directed), name=spec, spec=spec, xp=xp, source_label=spec)


# ------------------------------------------------------------------------------- grid
def grid(rows: int, cols: int, drop: float = 0.0, seed: int = 0, xp=None) -> CSRGraph:
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
        raise ValueError(f"rows * cols must be <= {INT32_MAX:,} (int32 vertex ids), got {rows} x {cols}")
    drop = _check_float("drop", drop, 0.0, 1.0)
    seed = _check_int("seed", seed, 0)
    xp = _resolve_xp(xp)
    spec = _canonical("grid", dict(rows=rows, cols=cols, drop=drop, seed=seed))
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
    return from_edges(src, dst, n, directed=False, name=spec, spec=spec, xp=xp, source_label=spec)


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
            _Param("directed", bool, False)),
            lambda v, xp: kronecker(v["scale"], v["edge_factor"], v["a"], v["b"], v["c"], v["seed"], v["directed"],
                                    xp=xp)),
        _Generator("uniform", uniform_random, (
            _Param("n", int, None, True), _Param("scale", int, None, True), _Param("avg_degree", float, 16.0, True),
            _Param("seed", int, 0), _Param("directed", bool, False)),
            _uniform_from_spec),
        _Generator("grid", grid, (
            _Param("rows", int, 256, True), _Param("cols", int, 256, True), _Param("drop", float, 0.0),
            _Param("seed", int, 0)),
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
        raise ValueError(f"malformed generator spec {spec!r}: expected 'name' or 'name:key=value,...' with a "
                         "lower-case name")
    params: dict = {}
    for item in rest.split(","):
        item = item.strip()
        if not item:
            continue
        key, eq, value = item.partition("=")
        key, value = key.strip(), value.strip()
        if not eq or not key or not value:
            raise ValueError(f"malformed parameter {item!r} in generator spec {spec!r}: expected key=value")
        if key in params:
            raise ValueError(f"parameter {key!r} given twice in generator spec {spec!r}")
        params[key] = _parse_value(value)
    return name, params


def _coerce(gen: str, p: _Param, value):
    where = f"parameter {p.name!r} of generator {gen!r}"
    if p.kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, int) and value in (0, 1):
            return bool(value)
        raise ValueError(f"{where} must be true or false, got {value!r}")
    if p.kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, float) and value.is_integer():
            return int(value)
        raise ValueError(f"{where} must be an integer, got {value!r}")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise ValueError(f"{where} must be a number, got {value!r}")


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
        of a bare name is kron scale=16, uniform scale=16, grid 256 x 256.
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
    ValueError
        On an unknown generator (listing the known ones), an unknown parameter (listing the
        accepted ones), or a bad value (naming parameter and value).
    """
    gen_name, raw = parse_spec(spec)
    gen = _GENERATORS.get(gen_name)
    if gen is None:
        raise ValueError(f"unknown generator {gen_name!r} in spec {spec!r}; known generators: "
                         f"{', '.join(sorted(_GENERATORS))}")
    values = {}
    for key, value in raw.items():
        p = gen.param(key)
        if p is None:
            raise ValueError(f"unknown parameter {key!r} for generator {gen_name!r}; accepted: "
                             f"{', '.join(q.name for q in gen.params)}")
        values[key] = _coerce(gen_name, p, value)
    if gen_name == "uniform":
        if "n" in values and "scale" in values:
            raise ValueError(f"give either 'n' or 'scale' for generator 'uniform', not both (spec {spec!r})")
        if "n" not in values and "scale" not in values:
            values["scale"] = _UNIFORM_DEFAULT_SCALE
    for p in gen.params:
        if p.default is not None:
            values.setdefault(p.name, p.default)
    mark_directed = None
    if directed is not None:
        if gen.param("directed") is not None:
            if "directed" in raw and values["directed"] != bool(directed):
                raise ValueError(f"spec {spec!r} says directed={_format_value(values['directed'])} but "
                                 f"directed={bool(directed)} was asked for")
            values["directed"] = bool(directed)
        else:
            mark_directed = bool(directed)
    g = gen.call(values, xp)
    g.spec = _canonical(gen_name, values)
    g.name = name or spec.strip()
    if mark_directed is not None:
        g = _with_direction(g, mark_directed)
    return g
