"""Graph profiler: the features the strategy selector learns from.

The features follow Table 1 of Busato & Bombieri, *Efficient load balancing techniques for graph
traversal applications on GPUs* (average degree, standard deviation, Gini coefficient, maximum
degree, average eccentricity / BFS depth), plus degree percentiles, leaf and isolated fractions and
the maximum sampled BFS depth.

Cost. Every degree statistic comes from one histogram of the out-degrees (``xp.bincount``, O(n)),
and the in-degree statistics from one of the in-degrees (``xp.bincount`` of the column indices,
O(m)), computed on the GPU when the graph is there; the histogram (length max degree + 1) is brought to
the host and the statistics are computed from it with exact integer arithmetic. No sort of the
degree array is needed (the sorted sequence is the histogram), and the values are bit-identical
on NumPy and CuPy. The BFS depths take ``n_sources`` traversals: on the GPU one batched traversal
(:func:`autotune.batched.run_batch`), on the CPU one bit-parallel NumPy BFS of all of them; the same
traversals give the reached vertices and their out-edges (integer counts, the same on both). The
reciprocity binary-searches the reverse of every edge (at most :data:`RECIPROCITY_SAMPLE` edges,
drawn on the host with the profile's seed, so both backends test the same edges).

Weighted graphs (``CSRGraph.weights``) add the weight statistics of :func:`weight_statistics`
(mean, std, max, min, integer or float), which the SSSP selection model reads
(:data:`SSSP_FEATURE_NAMES`): the bucket width of Delta-stepping scales with the mean weight
(*Graph Algorithms on GPUs*, §3.1), and the spread decides how many re-relaxations Bellman-Ford
pays. They are computed where the weights live, in chunks, exactly for integer weights.
"""
from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass

import numpy as np

from ._backend import gpu_available, to_host, xp_of
from .errors import InvalidArgumentError

__all__ = ["GraphFeatures", "FEATURE_NAMES", "WEIGHT_FEATURE_NAMES", "SSSP_FEATURE_NAMES", "LOG_SCALED_FEATURES",
           "profile", "sample_sources", "weight_statistics", "DIRECTED_FEATURE_NAMES", "FEATURE_NAMES_V2",
           "SSSP_FEATURE_NAMES_V2", "FEATURE_ALIASES", "RECIPROCITY_SAMPLE", "reciprocity"]

#: The profile the shipped models (``models/bfs_h100``, ``models/sssp_h200``) were trained on, in order
#: (``profile_ms`` is a cost, not a graph property, and is left out; ``directed`` is encoded 1.0 /
#: 0.0). ``isolated_fraction`` is the old name of ``sink_fraction`` (:data:`FEATURE_ALIASES`), kept
#: here so that those models get exactly the inputs they were trained with.
FEATURE_NAMES: tuple[str, ...] = (
    "n_vertices", "n_edges", "directed",
    "degree_mean", "degree_std", "degree_gini", "degree_max", "degree_min",
    "leaf_fraction", "degree_p50", "degree_p90", "degree_p99", "isolated_fraction",
    "eccentricity_mean", "eccentricity_max",
)

#: Old feature names read as their current ones (logs and models of earlier releases).
FEATURE_ALIASES: dict[str, str] = {"isolated_fraction": "sink_fraction"}

#: Features that separate directed, sink-heavy and small graphs (profiled since this release; logs
#: of earlier releases lack them, see :meth:`GraphFeatures.vector`):
#:
#: ``reciprocity``
#:     share of the stored edges ``(u, v)`` whose reverse ``(v, u)`` is stored too (1 undirected);
#: ``in_degree_std``, ``in_degree_gini``, ``in_degree_max``, ``in_zero_fraction``
#:     the in-degree distribution (equal to the out-degree's for an undirected graph);
#:     ``in_zero_fraction`` is the share of vertices no edge points to;
#: ``reach_mean``
#:     mean share of the vertices a BFS from a sampled source reaches (1 on a strongly connected
#:     graph; small when most sources run into sinks after a few levels);
#: ``level_vertices_mean``, ``level_edges_mean``
#:     mean over the sampled sources of the reached vertices, and of their out-edges, per BFS
#:     level: the frontier and the work of a typical level, measured rather than inferred from the
#:     graph's size (which overstates both when a BFS reaches a small part of the graph).
DIRECTED_FEATURE_NAMES: tuple[str, ...] = (
    "reciprocity", "in_degree_std", "in_degree_gini", "in_degree_max", "in_zero_fraction",
    "reach_mean", "level_vertices_mean", "level_edges_mean",
)

#: The profile models trained from logs of this release read: :data:`FEATURE_NAMES` under the
#: current names (``sink_fraction``) plus :data:`DIRECTED_FEATURE_NAMES`.
FEATURE_NAMES_V2: tuple[str, ...] = tuple(FEATURE_ALIASES.get(k, k) for k in FEATURE_NAMES) + DIRECTED_FEATURE_NAMES

#: Heavy-tailed features that :meth:`GraphFeatures.vector` reports as ``log1p(value)``: sizes,
#: degree scale (mean, std, max, percentiles; in-degree std and max), BFS depths, the vertices and
#: edges per level, and the weight scale (mean, std, max, min). Fractions, Gini, reciprocity,
#: ``degree_min``, ``directed`` and the two weight flags stay linear.
LOG_SCALED_FEATURES: frozenset[str] = frozenset({
    "n_vertices", "n_edges", "degree_mean", "degree_std", "degree_max",
    "degree_p50", "degree_p90", "degree_p99", "eccentricity_mean", "eccentricity_max",
    "weight_mean", "weight_std", "weight_max", "weight_min",
    "in_degree_std", "in_degree_max", "level_vertices_mean", "level_edges_mean",
})

#: Edge-weight statistics (SSSP models only; :data:`FEATURE_NAMES`, what the BFS models were trained
#: on, is unchanged). ``weighted`` and ``weight_integer`` are encoded 1.0 / 0.0 by
#: :meth:`GraphFeatures.vector`; an unweighted graph profiles as unit weights (what SSSP runs on it).
WEIGHT_FEATURE_NAMES: tuple[str, ...] = (
    "weighted", "weight_integer", "weight_mean", "weight_std", "weight_max", "weight_min",
)

#: The inputs of the shipped SSSP selection model: the profile of :data:`FEATURE_NAMES` plus the weights'.
SSSP_FEATURE_NAMES: tuple[str, ...] = FEATURE_NAMES + WEIGHT_FEATURE_NAMES

#: The SSSP inputs of models trained from logs of this release: :data:`FEATURE_NAMES_V2` plus the weights'.
SSSP_FEATURE_NAMES_V2: tuple[str, ...] = FEATURE_NAMES_V2 + WEIGHT_FEATURE_NAMES

#: Every name :meth:`GraphFeatures.vector` accepts (aliases included).
ALL_FEATURE_NAMES: tuple[str, ...] = SSSP_FEATURE_NAMES_V2 + tuple(FEATURE_ALIASES)

#: Edges whose reverse the reciprocity looks up: every edge of a graph with at most this many, else
#: this many drawn uniformly (with replacement, seeded): a standard error below 0.001.
RECIPROCITY_SAMPLE = 1 << 18

#: Significant digits kept of the float-weight statistics: float64 sums of the same values on the
#: CPU (pairwise) and on the GPU (tree reduction) may differ in the last bits; rounded, both
#: backends report the same numbers. Integer weights are summed exactly and not rounded.
WEIGHT_STAT_DIGITS = 12

#: Edges per chunk of the weight statistics (bounds the temporary int64/float64 copies).
_WEIGHT_CHUNK = 1 << 24

_PERCENTILES = (("degree_p50", 50), ("degree_p90", 90), ("degree_p99", 99))


@dataclass(frozen=True)
class GraphFeatures:
    """Structural features of a graph, as computed by :func:`profile`.

    Degrees are out-degrees unless named ``in_degree_*`` (for an undirected graph, stored both ways,
    out-degree = in-degree = degree).

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
    eccentricity_mean : float
        Mean BFS depth (largest distance reached, in levels/edges) over the sampled sources; an
        estimate of the average eccentricity of Table 1. 0 when no vertex has an out-edge.
    eccentricity_max : int
        Largest BFS depth over the sampled sources (levels), a lower bound of the diameter.
    sink_fraction : float
        Share of vertices with out-degree 0 (sinks), in [0, 1]. Required; may be given under its
        old name ``isolated_fraction`` (:data:`FEATURE_ALIASES`), which stays readable as an
        attribute.
    reciprocity : float, optional
        Share of the stored edges whose reverse is stored too, in [0, 1] (:func:`reciprocity`).
    in_degree_std, in_degree_gini : float, optional
        Standard deviation and Gini coefficient of the in-degree (as for the out-degree).
    in_degree_max : int, optional
        Largest in-degree.
    in_zero_fraction : float, optional
        Share of vertices with in-degree 0.
    reach_mean : float, optional
        Mean over the sampled sources of (vertices reached, source included) / ``n_vertices``; 0
        without sources.
    level_vertices_mean, level_edges_mean : float, optional
        Mean over the sampled sources of the reached vertices, and of the sum of their
        out-degrees, divided by the BFS's levels (depth + 1); 0 without sources.
    weighted : bool
        Whether the graph carries edge weights (``CSRGraph.weights is not None``). Default False.
    weight_integer : bool
        Whether the weights are integers (int32); True for an unweighted graph (unit weights).
    weight_mean, weight_std : float
        Mean and population standard deviation of the stored edges' weights (weight units; 1 and 0
        for an unweighted graph, which SSSP runs with unit weights; 0 and 0 for a weighted graph
        without edges). See :func:`weight_statistics`.
    weight_max, weight_min : float
        Largest and smallest edge weight (1 and 1 unweighted; 0 without edges).
    profile_ms : float
        Wall-clock cost of profiling, in milliseconds (not a model feature).

    The :data:`DIRECTED_FEATURE_NAMES` are None in a profile read from a log of an earlier release
    (:meth:`to_dict` leaves them out; :meth:`vector` refuses to make them up).
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
    eccentricity_mean: float
    eccentricity_max: int
    sink_fraction: float | None = None
    reciprocity: float | None = None
    in_degree_std: float | None = None
    in_degree_gini: float | None = None
    in_degree_max: int | None = None
    in_zero_fraction: float | None = None
    reach_mean: float | None = None
    level_vertices_mean: float | None = None
    level_edges_mean: float | None = None
    weighted: bool = False
    weight_integer: bool = True
    weight_mean: float = 1.0
    weight_std: float = 0.0
    weight_max: float = 1.0
    weight_min: float = 1.0
    profile_ms: float = 0.0
    isolated_fraction: dataclasses.InitVar[float | None] = None

    def __post_init__(self, isolated_fraction):
        sink = self.sink_fraction
        if sink is None:
            if isolated_fraction is None:
                raise InvalidArgumentError("GraphFeatures: missing 'sink_fraction' (or its old name "
                                           "'isolated_fraction')")
            sink = float(isolated_fraction)
            object.__setattr__(self, "sink_fraction", sink)
        elif isolated_fraction is not None and float(isolated_fraction) != float(sink):
            raise InvalidArgumentError(f"GraphFeatures: sink_fraction={sink!r} and its old name "
                                       f"isolated_fraction={isolated_fraction!r} disagree")
        object.__setattr__(self, "isolated_fraction", sink)  # the old name stays readable

    def to_dict(self) -> dict:
        """Plain ``dict`` of every field (JSON-serialisable Python scalars); features that were not
        profiled (None, see the class notes) are left out."""
        return {k: v for k, v in dataclasses.asdict(self).items() if v is not None}

    @classmethod
    def from_dict(cls, d: dict) -> "GraphFeatures":
        """Inverse of :meth:`to_dict`; also reads the dicts of earlier releases (``isolated_fraction``
        for ``sink_fraction``, no :data:`DIRECTED_FEATURE_NAMES`).

        Raises
        ------
        ValueError
            Naming the unknown keys, or the missing required keys.
        """
        fields = {f.name: f for f in dataclasses.fields(cls)}
        known = set(fields) | set(FEATURE_ALIASES)
        unknown = sorted(set(d) - known)
        if unknown:
            raise InvalidArgumentError(f"GraphFeatures.from_dict: unknown key(s) {', '.join(map(repr, unknown))}; "
                             f"known: {', '.join(fields)}")
        d = dict(d)
        for old, new in FEATURE_ALIASES.items():
            if old in d:
                value = d.pop(old)
                d.setdefault(new, value)
        missing = [k for k, f in fields.items() if k not in d and f.default is dataclasses.MISSING]
        if "sink_fraction" not in d:
            missing.append("sink_fraction")
        if missing:
            raise InvalidArgumentError(f"GraphFeatures.from_dict: missing key(s) {', '.join(map(repr, missing))}")
        conv = {"int": int, "float": float, "bool": bool}

        def convert(k, v):
            if v is None:
                return None
            return conv[str(fields[k].type).split("|")[0].strip()](v)

        return cls(**{k: convert(k, v) for k, v in d.items()})

    def vector(self, names=None) -> np.ndarray:
        """Model input: the features *names* (default :data:`FEATURE_NAMES`) as float64.

        Features in :data:`LOG_SCALED_FEATURES` (n_vertices, n_edges, degree_mean, degree_std,
        degree_max, degree_p50/p90/p99, eccentricity_mean, eccentricity_max, in_degree_std,
        in_degree_max, level_vertices_mean, level_edges_mean, and the weight mean, std, max and min)
        are returned as ``log1p(value)``; ``directed``, ``weighted`` and ``weight_integer`` as 1.0 /
        0.0; the rest as is. An old name (:data:`FEATURE_ALIASES`: ``isolated_fraction``) gives the
        value of the current one.

        Parameters
        ----------
        names : sequence of str, optional
            Feature names, in the order wanted: any of :data:`FEATURE_NAMES` (the default, what the
            shipped BFS models use), :data:`FEATURE_NAMES_V2` (with :data:`DIRECTED_FEATURE_NAMES`)
            and :data:`WEIGHT_FEATURE_NAMES` (:data:`SSSP_FEATURE_NAMES` for SSSP).

        Returns
        -------
        ndarray, shape (len(names),), float64

        Raises
        ------
        ValueError
            Naming an unknown feature, or one this profile does not hold (read from a log of an
            earlier release that did not profile it).
        """
        names = FEATURE_NAMES if names is None else tuple(names)
        unknown = [k for k in names if k not in ALL_FEATURE_NAMES]
        if unknown:
            raise InvalidArgumentError(f"unknown feature name(s) {', '.join(map(repr, unknown))}; known: "
                             f"{', '.join(ALL_FEATURE_NAMES)}")
        out = np.empty(len(names), dtype=np.float64)
        for i, k in enumerate(names):
            key = FEATURE_ALIASES.get(k, k)
            raw = getattr(self, key)
            if raw is None:
                raise InvalidArgumentError(f"feature {k!r} is not in this profile (logged by an earlier release "
                                           f"that did not compute it); profile the graph again")
            x = float(raw)
            out[i] = math.log1p(x) if key in LOG_SCALED_FEATURES else x
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
        ``leaf_fraction``, ``degree_p50``, ``degree_p90``, ``degree_p99``, ``sink_fraction``.
    """
    xp = xp_of(degrees)
    n = int(degrees.shape[0])
    if n == 0:
        raise InvalidArgumentError("cannot profile a graph with no vertices")
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
        "sink_fraction": int(hist[0]) / n,
    }
    for name, q in _PERCENTILES:
        stats[name] = _percentile_from_sorted(order_stat, n, q)
    return stats


# --------------------------------------------------------------------------- weight statistics
_UNIT_WEIGHTS = {"weighted": False, "weight_integer": True, "weight_mean": 1.0, "weight_std": 0.0,
                 "weight_max": 1.0, "weight_min": 1.0}


def _round_sig(x: float, digits: int = WEIGHT_STAT_DIGITS) -> float:
    """*x* rounded to *digits* significant digits (0 and non-finite values unchanged)."""
    if x == 0.0 or not math.isfinite(x):
        return float(x)
    return float(f"{x:.{digits - 1}e}")


def weight_statistics(weights) -> dict:
    """Edge-weight features of a graph (the :data:`WEIGHT_FEATURE_NAMES` entries of its profile).

    Parameters
    ----------
    weights : ndarray of int32 or float32, shape (n_edges,), or None
        ``CSRGraph.weights`` (NumPy or CuPy; computed where they live, in chunks of 2**24 edges so
        the temporary copies stay small). None: an unweighted graph, profiled as unit weights.

    Returns
    -------
    dict
        ``weighted`` (bool), ``weight_integer`` (bool: integer dtype), ``weight_mean``,
        ``weight_std`` (population), ``weight_max``, ``weight_min`` (floats, in weight units).
        Unweighted: ``False, True, 1.0, 0.0, 1.0, 1.0``; weighted without edges: zeros.

    Notes
    -----
    Integer weights are summed exactly (int64 chunk sums of ``w`` and of the 16-bit halves' products
    that make up ``w**2``, combined in Python integers), so NumPy and CuPy give bit-identical values. Float weights are summed in float64 (two passes: the
    mean, then the squared deviations) and the results rounded to :data:`WEIGHT_STAT_DIGITS`
    significant digits, so the last-bit differences between the CPU's pairwise and the GPU's tree
    reductions do not show.
    """
    if weights is None:
        return dict(_UNIT_WEIGHTS)
    xp = xp_of(weights)
    m = int(weights.shape[0])
    integer = np.dtype(weights.dtype).kind in "iu"
    if m == 0:
        return {"weighted": True, "weight_integer": integer, "weight_mean": 0.0, "weight_std": 0.0,
                "weight_max": 0.0, "weight_min": 0.0}
    chunks = [weights[i:i + _WEIGHT_CHUNK] for i in range(0, m, _WEIGHT_CHUNK)]
    w_max = max(float(to_host(c.max())) for c in chunks)
    w_min = min(float(to_host(c.min())) for c in chunks)
    if integer:
        s1 = s2 = 0
        for c in chunks:
            c64 = c.astype(xp.int64)
            s1 += int(to_host(c64.sum()))
            # w = hi * 2**16 + lo (0 < w < 2**31): the chunk sums of hi**2, hi * lo and lo**2 each fit
            # int64 (2**24 edges x < 2**32), and w**2 = hi**2 * 2**32 + 2 hi lo * 2**16 + lo**2 exactly
            hi, lo = c64 >> 16, c64 & 0xFFFF
            s2 += (int(to_host((hi * hi).sum())) << 32) + (int(to_host((hi * lo).sum())) << 17) \
                + int(to_host((lo * lo).sum()))
        mean = s1 / m
        std = math.sqrt((m * s2 - s1 * s1) / (m * m))
        return {"weighted": True, "weight_integer": True, "weight_mean": mean, "weight_std": std,
                "weight_max": w_max, "weight_min": w_min}
    total = sum(float(to_host(c.astype(xp.float64).sum())) for c in chunks)
    mean = total / m
    sq = 0.0
    for c in chunks:
        d = c.astype(xp.float64) - mean
        sq += float(to_host((d * d).sum()))
    return {"weighted": True, "weight_integer": False, "weight_mean": _round_sig(mean),
            "weight_std": _round_sig(math.sqrt(sq / m)), "weight_max": w_max, "weight_min": w_min}


# --------------------------------------------------------------------------- sources, depths
def _sample_from_degrees(degrees, n_sources: int, seed: int) -> np.ndarray:
    if n_sources < 0:
        raise InvalidArgumentError(f"n_sources must be >= 0, got {n_sources}")
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


#: Sources traversed together by :func:`_numpy_traversals`: one bit each of a uint8/16/32 per vertex
#: (with the vertex id, 31 bits, a mask fits one int64 sort key).
_HOST_BFS_SOURCES = 32

#: Work after which :func:`_cpu_traversals` leaves the traversals to SciPy: expanded edges plus
#: :data:`_HOST_BFS_LEVEL_WORK` per level (8 sources: soc-Slashdot0902 2.7e6, road-usroads 4.0e6 over
#: 521 levels, coAuthorsDBLP 8.9e6). NumPy pays 15-35 ns per unit (2-core CPU machine: 0.05, 0.10
#: and 0.19 s), SciPy's compiled BFS a few ns per edge after a 0.15-0.25 s import, so beyond about
#: this much work SciPy is the faster (a 1024 x 1024 grid: 1,961 levels, 3.9e7 units, 1.3 s in NumPy
#: against 0.3 s).
_HOST_BFS_WORK = 10_000_000
_HOST_BFS_LEVEL_WORK = 3000


def _cpu_traversals(graph, sources: np.ndarray, degrees: np.ndarray) -> np.ndarray:
    """``(depth, vertices reached, out-edges of the reached vertices)`` per source on the host.

    Parameters
    ----------
    graph : CSRGraph
        Its host arrays (:meth:`CSRGraph.host`) are traversed.
    sources : ndarray, shape (k,), int64
        Distinct source vertices.
    degrees : ndarray, shape (n_vertices,), int64
        Out-degrees (NumPy).

    Returns
    -------
    ndarray, shape (k, 3), int64
        Per source: its eccentricity (the deepest BFS level reached, in edges), the number of
        vertices reached (the source included) and the sum of their out-degrees.

    Notes
    -----
    :func:`_numpy_traversals` (no SciPy import: about 0.2 s of a cold ``autotune tune``), or, once
    it has done :data:`_HOST_BFS_WORK` without finishing, :func:`_scipy_traversals`. Both give the
    same numbers (integer counts of the BFS trees; tests/test_features.py compares them).
    """
    out = _numpy_traversals(graph, sources, degrees, work_limit=_HOST_BFS_WORK)
    return _scipy_traversals(graph, sources, degrees) if out is None else out


def _scipy_traversals(graph, sources: np.ndarray, degrees: np.ndarray) -> np.ndarray:
    """:func:`_cpu_traversals` by SciPy's BFS, one source at a time."""
    from scipy.sparse.csgraph import breadth_first_order

    from .reference import _csgraph

    csgraph = _csgraph(graph)
    out = np.zeros((len(sources), 3), dtype=np.int64)
    for i, s in enumerate(sources):
        s = int(s)
        order, pred = breadth_first_order(csgraph, s, directed=True, return_predecessors=True)
        # BFS order is level order: the last vertex is a deepest one, and its tree path back to the
        # source (one step per level, O(depth)) is the eccentricity; no per-vertex depths needed
        v, depth = int(order[-1]), 0
        while v != s:
            v = int(pred[v])
            depth += 1
        out[i] = (depth, int(order.size), int(degrees[order].sum()))
    return out


def _numpy_traversals(graph, sources: np.ndarray, degrees: np.ndarray, *, work_limit: float = math.inf):
    """:func:`_cpu_traversals` in NumPy, or None once *work_limit* (expanded edges plus
    :data:`_HOST_BFS_LEVEL_WORK` per level) is spent before the traversals finish.

    One level-synchronous BFS per group of up to :data:`_HOST_BFS_SOURCES` sources: each vertex
    carries a bit mask of the sources that reached it, and each level expands the vertices with new
    bits once for all of their sources. The masks sent to one vertex are merged by
    ``bitwise_or.at`` into a vertex-length array when the level is wide, else by sorting
    ``vertex << bits | mask`` keys (``bitwise_or.reduceat``); either way the next frontier is in
    vertex order, so the next level's reads stay local.
    """
    ro, ci = graph.host()
    n = int(ro.shape[0]) - 1
    out = np.zeros((len(sources), 3), dtype=np.int64)
    work = 0
    for c0 in range(0, len(sources), _HOST_BFS_SOURCES):
        src = np.asarray(sources[c0:c0 + _HOST_BFS_SOURCES], dtype=np.int64)
        k = int(src.size)
        dt = np.dtype(np.uint8 if k <= 8 else np.uint16 if k <= 16 else np.uint32)
        width = 8 * dt.itemsize
        bits = np.left_shift(np.ones(k, dtype=dt), np.arange(k).astype(dt))
        visited = np.zeros(n, dtype=dt)
        visited[src] = bits
        merged = None  # the wide levels' vertex-length array of merged masks (all zero between levels)
        frontier, masks = src, bits
        depth = [0] * k
        level = 0
        while True:
            lens = degrees[frontier]
            ends = np.cumsum(lens)
            total = int(ends[-1])
            work += total + _HOST_BFS_LEVEL_WORK
            if total == 0:
                break
            if work > work_limit:
                return None
            edges = np.repeat(ro[frontier] - (ends - lens), lens)  # CSR position of every expanded edge
            edges += np.arange(total, dtype=edges.dtype)
            targets = ci[edges]
            del edges
            sent = np.repeat(masks, lens)
            sent &= ~visited[targets]  # the bits new to each target
            keep = np.flatnonzero(sent)
            if keep.size == 0:
                break
            targets, sent = targets[keep], sent[keep]
            if 8 * keep.size > n:  # wide level
                if merged is None:
                    merged = np.zeros(n, dtype=dt)
                np.bitwise_or.at(merged, targets, sent)
                frontier = np.flatnonzero(merged)
                masks = merged[frontier]
                merged[frontier] = 0
            else:
                keys = targets.astype(np.int64)
                keys <<= width
                keys |= sent
                keys.sort()
                vertex = keys >> width
                starts = np.flatnonzero(np.concatenate(([True], vertex[1:] != vertex[:-1])))
                frontier = vertex[starts]
                masks = np.bitwise_or.reduceat(keys, starts).astype(dt)  # low bits: the masks, merged
                del keys, vertex
            del targets, sent, keep
            visited[frontier] |= masks
            level += 1
            found = int(np.bitwise_or.reduce(masks))
            for j in range(k):
                if found >> j & 1:
                    depth[j] = level
        for j in range(k):
            hit = (visited & bits[j]) != 0
            out[c0 + j] = (depth[j], int(np.count_nonzero(hit)), int(degrees[hit].sum()))
    return out


def _device_traversals(graph, sources: np.ndarray, degrees) -> np.ndarray:
    """As :func:`_cpu_traversals`, on the GPU: one batched BFS from every source (the profiler's
    traversal, :func:`autotune.batched.run_batch`, as :func:`autotune.engine.bfs_depths`), whose
    per-source eccentricity and reached count are reduced on the device; the out-edges of the
    reached vertices are summed on the device from the batch's distance rows (int8 for the shallow
    graphs of a profile: ``n_sources * n_vertices`` bytes)."""
    from .batched import BatchConfig, run_batch  # GPU only: the CPU path never imports the kernels

    xp = xp_of(degrees)
    res = run_batch(graph, sources, BatchConfig(width=64), distances=True)
    out = np.zeros((len(sources), 3), dtype=np.int64)
    for i in range(len(sources)):
        mask = xp.asarray(res.distances[i]) >= 0
        out[i] = (int(res.eccentricity[i]), int(res.reached[i]), int(to_host(degrees[mask].sum())))
    return out


def _csr_arrays(graph, xp):
    """``(row_offsets, column_indices)`` of *graph* in the array module *xp*."""
    if xp is xp_of(graph.row_offsets):
        return graph.row_offsets, graph.column_indices
    return graph.host() if xp is np else graph.device()


#: Salt of the reciprocity's edge sample (keeps it apart from the sources' draw of the same seed).
_RECIPROCITY_SALT = 0x52454349

#: Most stored edges for which :func:`reciprocity` on the host looks the reverses up among all edges
#: as int64 keys (8 bytes per edge, 128 MiB here); larger graphs take the per-row binary searches.
_RECIPROCITY_KEYS_MAX = 1 << 24


def reciprocity(graph, *, seed: int = 0, sample: int = RECIPROCITY_SAMPLE, xp=None) -> float:
    """Share of the stored edges ``(u, v)`` of *graph* whose reverse ``(v, u)`` is stored too.

    Parameters
    ----------
    graph : CSRGraph
        Rows sorted (as every loader and generator builds them).
    seed : int, default 0
        Seed of the edge sample (host ``numpy.random.default_rng``, so the same edges are tested on
        both backends).
    sample : int, default :data:`RECIPROCITY_SAMPLE`
        A graph with at most this many edges is counted exactly; a larger one on this many edges
        drawn uniformly with replacement.
    xp : module, optional
        ``numpy`` or ``cupy`` (default: where the graph lives, else CuPy when a GPU is present).

    Returns
    -------
    float
        In [0, 1]; 1.0 for an undirected graph (every edge is stored both ways), 0.0 for a directed
        graph without edges.

    Notes
    -----
    Each tested edge's reverse is looked up by a binary search of the sorted row of ``v`` for ``u``,
    vectorised over the edges (``bit_length(max out-degree) + 1`` passes of gathers and compares, no
    host synchronisation in between); integer arithmetic only, so NumPy and CuPy agree exactly. On
    the host, a graph of at most 2**24 edges is searched as one sorted array of ``row * n + column``
    keys instead (the same membership test, soc-Slashdot0902: 25 ms instead of 60 ms).
    """
    if not graph.directed:
        return 1.0
    m = graph.n_edges
    if m == 0:
        return 0.0
    xp = _resolve_xp(graph, xp)
    ro, ci = _csr_arrays(graph, xp)
    if m <= sample:
        idx = xp.arange(m, dtype=np.int64)
    else:
        draw = np.sort(np.random.default_rng([int(seed), _RECIPROCITY_SALT]).integers(0, m, size=int(sample)))
        idx = xp.asarray(draw)
    u = xp.searchsorted(ro[1:], idx.astype(ro.dtype), side="right").astype(np.int64)  # row (source) of each edge
    v = ci[idx].astype(np.int64)
    if xp is np and m <= _RECIPROCITY_KEYS_MAX:
        # the stored edges as sorted keys row * n + column (CSR order), the reverses looked up in
        # increasing order: the same count as the binary searches below, in a third of the time
        n = int(graph.n_vertices)
        keys = np.repeat(np.arange(n, dtype=np.int64) * n, ro[1:] - ro[:-1])
        keys += ci
        want = np.sort(v * n + u)
        at = np.minimum(np.searchsorted(keys, want), m - 1)
        return int(np.count_nonzero(keys[at] == want)) / int(idx.shape[0])
    lo = ro[v].astype(np.int64)
    end = ro[v + 1].astype(np.int64)
    hi = end.copy()
    max_deg = int(to_host((ro[1:] - ro[:-1]).max()))
    for _ in range(max_deg.bit_length() + 1):  # lower bound of u in column_indices[lo:hi]
        active = lo < hi
        mid = (lo + hi) >> 1
        less = ci[xp.minimum(mid, m - 1)] < u
        lo = xp.where(active & less, mid + 1, lo)
        hi = xp.where(active & ~less, mid, hi)
    found = (lo < end) & (ci[xp.minimum(lo, m - 1)] == u)
    return int(to_host(found.sum())) / int(idx.shape[0])


def _in_degree_statistics(graph, xp, out_stats: dict) -> dict:
    """The in-degree features (``in_degree_std``, ``in_degree_gini``, ``in_degree_max``,
    ``in_zero_fraction``): one ``bincount`` of the column indices; an undirected graph's are its
    out-degree's (*out_stats*)."""
    if graph.directed:
        ro, ci = _csr_arrays(graph, xp)
        st = _degree_statistics(xp.bincount(ci, minlength=graph.n_vertices).astype(np.int64))
    else:
        st = out_stats
    return {"in_degree_std": st["degree_std"], "in_degree_gini": st["degree_gini"],
            "in_degree_max": st["degree_max"], "in_zero_fraction": st["sink_fraction"]}


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
        ``cupy`` (GPU: degree histograms and the reciprocity on the device, the BFS traversals as one
        batched traversal, :func:`autotune.batched.run_batch`) or ``numpy`` (CPU: a bit-parallel
        NumPy BFS). Default: CuPy when the graph is on the device or a GPU is present, NumPy
        otherwise. Both give identical values.

    Returns
    -------
    GraphFeatures
        With ``profile_ms`` the wall-clock cost of this call (ms).

    Notes
    -----
    Follows Table 1 of Busato & Bombieri, *Efficient load balancing techniques for graph traversal
    applications on GPUs* (avg degree, std, Gini, max degree, avg eccentricity), plus the edge
    weights' statistics (:func:`weight_statistics`; unit weights when the graph has none), and the
    :data:`DIRECTED_FEATURE_NAMES`: reciprocity (:func:`reciprocity`), in-degree statistics, and from
    the same sampled traversals as the depths, the share of vertices reached and the vertices and
    edges per level.
    """
    t0 = time.perf_counter()
    xp = _resolve_xp(graph, xp)
    degrees = graph.out_degrees(xp)
    stats = _degree_statistics(degrees)
    sources = _sample_from_degrees(degrees, n_sources, seed)
    if sources.size == 0:
        trav = np.zeros((0, 3), dtype=np.int64)
    elif xp is np:
        trav = _cpu_traversals(graph, sources, degrees)
    else:
        trav = _device_traversals(graph, sources, degrees)
    depths, reached, reached_edges = trav[:, 0], trav[:, 1], trav[:, 2]
    ecc_mean = float(depths.mean()) if depths.size else 0.0
    ecc_max = int(depths.max()) if depths.size else 0
    levels = (depths + 1).astype(np.float64)
    walk = {
        "reach_mean": float(np.mean(reached / graph.n_vertices)) if depths.size else 0.0,
        "level_vertices_mean": float(np.mean(reached / levels)) if depths.size else 0.0,
        "level_edges_mean": float(np.mean(reached_edges / levels)) if depths.size else 0.0,
    }
    instats = _in_degree_statistics(graph, xp, stats)
    recip = reciprocity(graph, seed=seed, xp=xp)
    wstats = weight_statistics(getattr(graph, "weights", None))
    return GraphFeatures(
        n_vertices=graph.n_vertices, n_edges=graph.n_edges, directed=bool(graph.directed),
        eccentricity_mean=ecc_mean, eccentricity_max=ecc_max, reciprocity=recip,
        profile_ms=(time.perf_counter() - t0) * 1e3, **stats, **instats, **walk, **wstats,
    )
