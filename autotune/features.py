"""Graph profiler: the features the strategy selector learns from.

The features follow Table 1 of Busato & Bombieri, *Efficient load balancing techniques for graph
traversal applications on GPUs* (average degree, standard deviation, Gini coefficient, maximum
degree, average eccentricity / BFS depth), plus degree percentiles, leaf and isolated fractions and
the maximum sampled BFS depth.

Cost. Every degree statistic comes from one histogram of the out-degrees (``xp.bincount``, O(n)),
computed on the GPU when the graph is there; the histogram (length max degree + 1) is brought to
the host and the statistics are computed from it with exact integer arithmetic. No sort of the
degree array is needed (the sorted sequence is the histogram), and the values are bit-identical
on NumPy and CuPy. The BFS depths take ``n_sources`` traversals: on the GPU via
``autotune.engine.bfs_depths``, on the CPU via SciPy (:mod:`autotune.reference`).
"""
from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass

import numpy as np

from ._backend import gpu_available, to_host, xp_of

__all__ = ["GraphFeatures", "FEATURE_NAMES", "LOG_SCALED_FEATURES", "profile", "sample_sources"]

#: Names of the entries of :meth:`GraphFeatures.vector`, in order (``profile_ms`` is a cost, not a
#: graph property, and is left out; ``directed`` is encoded 1.0 / 0.0).
FEATURE_NAMES: tuple[str, ...] = (
    "n_vertices", "n_edges", "directed",
    "degree_mean", "degree_std", "degree_gini", "degree_max", "degree_min",
    "leaf_fraction", "degree_p50", "degree_p90", "degree_p99", "isolated_fraction",
    "eccentricity_mean", "eccentricity_max",
)

#: Heavy-tailed features that :meth:`GraphFeatures.vector` reports as ``log1p(value)``: sizes,
#: degree scale (mean, std, max, percentiles) and BFS depths. Fractions, Gini, ``degree_min`` and
#: ``directed`` stay linear.
LOG_SCALED_FEATURES: frozenset[str] = frozenset({
    "n_vertices", "n_edges", "degree_mean", "degree_std", "degree_max",
    "degree_p50", "degree_p90", "degree_p99", "eccentricity_mean", "eccentricity_max",
})

_PERCENTILES = (("degree_p50", 50), ("degree_p90", 90), ("degree_p99", 99))


@dataclass(frozen=True)
class GraphFeatures:
    """Structural features of a graph, as computed by :func:`profile`.

    All degrees are out-degrees (for an undirected graph, stored both ways, out-degree = degree).

    Parameters
    ----------
    n_vertices : int
        Number of vertices.
    n_edges : int
        Number of stored directed edges (an undirected edge counts twice).
    directed : bool
        Whether the graph is directed.
    degree_mean : float
        Mean out-degree, ``n_edges / n_vertices`` (edges per vertex).
    degree_std : float
        Population standard deviation of the out-degree (edges per vertex).
    degree_gini : float
        Gini coefficient of the out-degree distribution, in [0, 1): 0 for a regular graph, close
        to 1 when few vertices own all edges. ``G = sum_i (2i - n - 1) x_(i) / (n sum_i x_i)`` with
        ``x`` sorted ascending, ``i = 1..n`` (0 when there are no edges).
    degree_max, degree_min : int
        Largest and smallest out-degree (edges).
    leaf_fraction : float
        Share of vertices with out-degree <= 1, in [0, 1].
    degree_p50, degree_p90, degree_p99 : float
        50th, 90th and 99th percentiles of the out-degree (edges), NumPy's ``'linear'`` method.
    isolated_fraction : float
        Share of vertices with out-degree 0, in [0, 1].
    eccentricity_mean : float
        Mean BFS depth (largest distance reached, in levels/edges) over the sampled sources; an
        estimate of the average eccentricity of Table 1. 0 when no vertex has an out-edge.
    eccentricity_max : int
        Largest BFS depth over the sampled sources (levels), a lower bound of the diameter.
    profile_ms : float
        Wall-clock cost of profiling, in milliseconds (not a model feature).
    """

    n_vertices: int
    n_edges: int
    directed: bool
    degree_mean: float
    degree_std: float
    degree_gini: float
    degree_max: int
    degree_min: int
    leaf_fraction: float
    degree_p50: float
    degree_p90: float
    degree_p99: float
    isolated_fraction: float
    eccentricity_mean: float
    eccentricity_max: int
    profile_ms: float = 0.0

    def to_dict(self) -> dict:
        """Plain ``dict`` of every field (JSON-serialisable Python scalars)."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "GraphFeatures":
        """Inverse of :meth:`to_dict`.

        Raises
        ------
        ValueError
            Naming the unknown keys, or the missing required keys.
        """
        fields = {f.name: f for f in dataclasses.fields(cls)}
        unknown = sorted(set(d) - set(fields))
        if unknown:
            raise ValueError(f"GraphFeatures.from_dict: unknown key(s) {', '.join(map(repr, unknown))}; "
                             f"known: {', '.join(fields)}")
        missing = [k for k, f in fields.items() if k not in d and f.default is dataclasses.MISSING]
        if missing:
            raise ValueError(f"GraphFeatures.from_dict: missing key(s) {', '.join(map(repr, missing))}")
        conv = {"int": int, "float": float, "bool": bool}
        return cls(**{k: conv[fields[k].type](v) for k, v in d.items()})

    def vector(self, names=None) -> np.ndarray:
        """Model input: the features *names* (default :data:`FEATURE_NAMES`) as float64.

        Features in :data:`LOG_SCALED_FEATURES` (n_vertices, n_edges, degree_mean, degree_std,
        degree_max, degree_p50/p90/p99, eccentricity_mean, eccentricity_max) are returned as
        ``log1p(value)``; ``directed`` as 1.0 / 0.0; the rest as is.

        Parameters
        ----------
        names : sequence of str, optional
            Feature names, in the order wanted.

        Returns
        -------
        ndarray, shape (len(names),), float64

        Raises
        ------
        ValueError
            Naming an unknown feature.
        """
        names = FEATURE_NAMES if names is None else tuple(names)
        unknown = [k for k in names if k not in FEATURE_NAMES]
        if unknown:
            raise ValueError(f"unknown feature name(s) {', '.join(map(repr, unknown))}; known: "
                             f"{', '.join(FEATURE_NAMES)}")
        out = np.empty(len(names), dtype=np.float64)
        for i, k in enumerate(names):
            x = float(getattr(self, k))
            out[i] = math.log1p(x) if k in LOG_SCALED_FEATURES else x
        return out


# --------------------------------------------------------------------------- degree statistics
def _percentile_from_sorted(order_stat, n: int, q: float) -> float:
    """NumPy's ``'linear'`` percentile given ``order_stat(k)`` = k-th smallest value (0-based)."""
    # Same arithmetic as numpy.percentile(method="linear") so results agree to the last bit.
    quantile = np.true_divide(q, 100)
    virtual = (n - 1) * quantile
    prev = math.floor(virtual)
    gamma = float(virtual - prev)
    a = float(order_stat(min(prev, n - 1)))
    b = float(order_stat(min(prev + 1, n - 1)))
    diff = b - a
    return b - diff * (1 - gamma) if gamma >= 0.5 else a + diff * gamma


def _degree_statistics(degrees) -> dict:
    """Degree features of an out-degree array (NumPy or CuPy; the only device work is a bincount).

    Parameters
    ----------
    degrees : ndarray, shape (n_vertices,), integer, non-negative

    Returns
    -------
    dict
        ``degree_mean``, ``degree_std``, ``degree_gini``, ``degree_max``, ``degree_min``,
        ``leaf_fraction``, ``degree_p50``, ``degree_p90``, ``degree_p99``, ``isolated_fraction``.
    """
    xp = xp_of(degrees)
    n = int(degrees.shape[0])
    if n == 0:
        raise ValueError("cannot profile a graph with no vertices")
    hist = to_host(xp.bincount(degrees)).astype(np.int64)  # hist[d] = number of vertices of degree d
    values = np.flatnonzero(hist)                        # distinct degrees, ascending
    counts = hist[values]
    cum = np.cumsum(counts)                               # vertices with degree <= values[j]
    # Exact integer arithmetic (Python ints; the number of distinct degrees is O(sqrt(n_edges))).
    v_o = values.astype(object)
    c_o = counts.astype(object)
    s1 = int(np.sum(v_o * c_o))
    s2 = int(np.sum(v_o * v_o * c_o))
    start = (cum - counts).astype(object)                 # 0-based rank of the first vertex of each degree
    # sum over sorted positions i = 1..n of i * x_(i), grouped by degree value
    s_ix = int(np.sum(v_o * (c_o * start + c_o * (c_o + 1) // 2)))

    def order_stat(k: int) -> int:
        return int(values[np.searchsorted(cum, k, side="right")])

    stats = {
        "degree_mean": s1 / n,
        "degree_std": math.sqrt((n * s2 - s1 * s1) / (n * n)),
        "degree_gini": (2 * s_ix - (n + 1) * s1) / (n * s1) if s1 else 0.0,
        "degree_max": int(values[-1]),
        "degree_min": int(values[0]),
        "leaf_fraction": int(hist[:2].sum()) / n,
        "isolated_fraction": int(hist[0]) / n,
    }
    for name, q in _PERCENTILES:
        stats[name] = _percentile_from_sorted(order_stat, n, q)
    return stats


# --------------------------------------------------------------------------- sources, depths
def _sample_from_degrees(degrees, n_sources: int, seed: int) -> np.ndarray:
    if n_sources < 0:
        raise ValueError(f"n_sources must be >= 0, got {n_sources}")
    xp = xp_of(degrees)
    candidates = xp.flatnonzero(degrees > 0)
    k = min(int(n_sources), int(candidates.shape[0]))
    if k == 0:
        return np.empty(0, dtype=np.int64)
    idx = np.random.default_rng(seed).choice(int(candidates.shape[0]), size=k, replace=False)
    return np.sort(to_host(candidates[xp.asarray(idx)]).astype(np.int64))


def sample_sources(graph, n_sources: int = 8, seed: int = 0, *, xp=None) -> np.ndarray:
    """BFS sources as fixed by the measurement protocol: vertices with out-degree > 0.

    Parameters
    ----------
    graph : CSRGraph
    n_sources : int
        How many to draw (fewer when fewer vertices have an out-edge).
    seed : int
        Seed of ``numpy.random.default_rng``; positions are drawn without replacement among the
        candidate vertices in increasing id order, so the result does not depend on the backend.
    xp : module, optional
        ``numpy`` or ``cupy`` to compute the degrees with (default: where the graph lives).

    Returns
    -------
    ndarray, shape (min(n_sources, #candidates),), int64
        Distinct vertex ids, sorted ascending (host array).
    """
    return _sample_from_degrees(graph.out_degrees(xp), n_sources, seed)


def _cpu_depths(graph, sources: np.ndarray) -> np.ndarray:
    from .reference import _bfs_order_depths, _csgraph

    csgraph = _csgraph(graph)
    n = graph.n_vertices
    return np.array([int(_bfs_order_depths(csgraph, int(s), n)[1].max()) for s in sources], dtype=np.int64)


def _resolve_xp(graph, xp):
    if xp is not None:
        return xp
    if graph.on_device:
        return xp_of(graph.row_offsets)
    if gpu_available():
        import cupy

        return cupy
    return np


def profile(graph, *, n_sources: int = 8, seed: int = 0, xp=None) -> GraphFeatures:
    """Compute the :class:`GraphFeatures` of *graph*.

    Parameters
    ----------
    graph : CSRGraph
    n_sources : int
        Number of BFS sources for the eccentricity estimate (see :func:`sample_sources`).
    seed : int
        Seed for drawing the sources.
    xp : module, optional
        ``cupy`` (GPU: degree histogram on the device, depths through
        ``autotune.engine.bfs_depths``) or ``numpy`` (CPU: SciPy BFS). Default: CuPy when the graph
        is on the device or a GPU is present, NumPy otherwise. Both give identical values.

    Returns
    -------
    GraphFeatures
        With ``profile_ms`` the wall-clock cost of this call (ms).

    Notes
    -----
    Follows Table 1 of Busato & Bombieri, *Efficient load balancing techniques for graph traversal
    applications on GPUs* (avg degree, std, Gini, max degree, avg eccentricity).
    """
    t0 = time.perf_counter()
    xp = _resolve_xp(graph, xp)
    degrees = graph.out_degrees(xp)
    stats = _degree_statistics(degrees)
    sources = _sample_from_degrees(degrees, n_sources, seed)
    if sources.size == 0:
        depths = np.zeros(0, dtype=np.int64)
    elif xp is np:
        depths = _cpu_depths(graph, sources)
    else:
        from .engine import bfs_depths  # GPU only: the CPU path never imports the kernels

        depths = np.asarray(to_host(bfs_depths(graph, sources)), dtype=np.int64)
    ecc_mean = float(depths.mean()) if depths.size else 0.0
    ecc_max = int(depths.max()) if depths.size else 0
    return GraphFeatures(
        n_vertices=graph.n_vertices, n_edges=graph.n_edges, directed=bool(graph.directed),
        eccentricity_mean=ecc_mean, eccentricity_max=ecc_max,
        profile_ms=(time.perf_counter() - t0) * 1e3, **stats,
    )
