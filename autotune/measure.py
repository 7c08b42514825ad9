"""The measurement protocol of DESIGN.md, in one harness that autotune and its peers share.

- Graph uploaded and kernels compiled before timing (the caller builds the runner); one warm-up
  traversal.
- Sources: ``n_sources`` vertices with out-degree > 0, drawn with a fixed seed.
- Time per source: CUDA events around the whole traversal, host loop included (GPU runners), or
  ``time.perf_counter`` around the call (CPU peers).
- ``edges_traversed(s)`` = sum of out-degrees of the vertices reached from ``s``;
  GTEPS = harmonic mean over sources of ``edges_traversed(s) / time(s)``; median time reported too.

The protocol is the same for both traversals: :class:`GPURunner` times whatever engine
``autotune.engine.get_engine(graph, config)`` builds for ``config.algorithm`` (BFS or SSSP) and
validates it against the matching CPU reference (``validate_bfs`` for BFS, ``validate_sssp``
against ``scipy.sparse.csgraph.dijkstra`` for SSSP, computed once per graph and source). The CPU
peers are :class:`ScipyRunner` (BFS) and :class:`ScipyDijkstraRunner` (SSSP).
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Callable

import numpy as np

from .errors import InvalidArgumentError
from .graph import CSRGraph

DEFAULT_SEARCH_SOURCES = 16
DEFAULT_BENCH_SOURCES = 64


def select_sources(graph: CSRGraph, n_sources: int, seed: int = 0) -> np.ndarray:
    """Sources for a measurement: vertices with out-degree > 0 drawn without replacement.

    Parameters
    ----------
    graph : CSRGraph
    n_sources : int
        How many (all eligible vertices when fewer exist).
    seed : int
        Seed of ``numpy.random.default_rng``; the same seed gives the same sources.

    Returns
    -------
    ndarray of int64, shape (min(n_sources, #eligible),)
        Internal vertex ids, in draw order.

    Raises
    ------
    ValueError
        When ``n_sources < 1`` or no vertex has an out-edge.
    """
    if n_sources < 1:
        raise InvalidArgumentError(f"n_sources must be >= 1, got {n_sources}")
    deg = graph.out_degrees(np)
    eligible = np.flatnonzero(deg > 0)
    if eligible.size == 0:
        raise InvalidArgumentError(f"graph {graph.name!r} has no vertex with an out-edge to start a BFS from")
    rng = np.random.default_rng(seed)
    k = min(int(n_sources), eligible.size)
    return eligible[rng.choice(eligible.size, size=k, replace=False)].astype(np.int64)


@dataclass
class Measurement:
    """Timings of one runner (a config or a peer) on one graph, per DESIGN.md's protocol.

    Attributes
    ----------
    name : str
        Runner label (config label or peer name).
    sources : list of int
    times_ms : list of float
        Time of each traversal, ms.
    edges : list of int
        ``edges_traversed(s)`` per source.
    depths : list of int
        Per source: the BFS depth (levels - 1) for BFS; for SSSP the iterations the method ran
        (what the engine's ``traverse`` returns: frontier rounds of Bellman-Ford, bucket phases of
        Delta-stepping / near-far); 0 for CPU peers that do not expose one (Dijkstra).
    timer : str
        ``"cuda-events"`` or ``"perf_counter"``.
    valid : bool
        False when a traversal failed or its validation failed.
    error : str or None
    """

    name: str
    sources: list
    times_ms: list
    edges: list
    depths: list
    timer: str
    valid: bool = True
    error: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def median_ms(self) -> float:
        """Median time per traversal, ms (nan when nothing was timed)."""
        return float(np.median(self.times_ms)) if self.times_ms else float("nan")

    @property
    def gteps(self) -> float:
        """Harmonic mean over sources of edges_traversed / time, in 10^9 edges per second."""
        if not self.times_ms:
            return float("nan")
        t = np.asarray(self.times_ms, dtype=np.float64) * 1e-3
        e = np.asarray(self.edges, dtype=np.float64)
        ok = (t > 0) & (e > 0)
        if not ok.any():
            return 0.0
        rates = e[ok] / t[ok]
        return float(len(rates) / np.sum(1.0 / rates) / 1e9)

    @property
    def depth_mean(self) -> float:
        """Mean BFS depth over sources."""
        return float(np.mean(self.depths)) if self.depths else float("nan")

    def to_dict(self) -> dict:
        """Plain dict (JSON-ready) with the derived median_ms, gteps and depth_mean."""
        d = asdict(self)
        d.update(median_ms=self.median_ms, gteps=self.gteps, depth_mean=self.depth_mean)
        return d


class Runner:
    """Something the harness can time: ``prepare()`` once, then ``traverse(source)`` per source.

    Subclasses set ``name`` and ``timer`` (``"cuda-events"`` for GPU runners, ``"perf_counter"``
    for CPU peers) and implement :meth:`traverse` and :meth:`outcome`.
    """

    name = "runner"
    timer = "perf_counter"

    def prepare(self) -> None:
        """Upload / compile / allocate: everything that must stay outside the timed region."""

    def traverse(self, source: int) -> None:
        """One whole traversal from *source* (timed)."""
        raise NotImplementedError

    def outcome(self, source: int) -> tuple[int, int]:
        """``(edges_traversed, depth)`` of the last traversal (not timed)."""
        raise NotImplementedError

    def check(self, source: int) -> None:
        """Validate the last traversal; raise on a wrong result (not timed)."""


def measure(runner: Runner, sources, *, warmup: int = 1, validate: bool = False,
            budget_s: float | None = None) -> Measurement:
    """Time *runner* on *sources* following DESIGN.md's measurement protocol.

    Parameters
    ----------
    runner : Runner
    sources : array_like of int
        From :func:`select_sources`; every runner of one comparison gets the same ones.
    warmup : int
        Untimed traversals before timing (from the first source).
    validate : bool
        Call ``runner.check(source)`` after each timed traversal; the first failure marks the
        measurement invalid (``valid=False`` with the error) and stops it.
    budget_s : float, optional
        Wall seconds after which no further source is started (at least one is always timed): a
        slow CPU peer is then timed on the first sources only, the same for every runner. The
        measurement's ``sources`` lists the sources actually timed and ``extra["sources_skipped"]``
        how many were left out.

    Returns
    -------
    Measurement
    """
    sources = [int(s) for s in np.asarray(sources).ravel()]
    m = Measurement(runner.name, sources, [], [], [], runner.timer)
    t_start = time.perf_counter()
    try:
        runner.prepare()
        for _ in range(warmup):
            runner.traverse(sources[0])
        if runner.timer == "cuda-events":
            import cupy

            # the runner's own stream when it has one (autotune's engines traverse on theirs)
            stream = getattr(runner, "stream", None) or cupy.cuda.get_current_stream()
            start, end = cupy.cuda.Event(), cupy.cuda.Event()
        for i, s in enumerate(sources):
            if budget_s is not None and i > 0 and time.perf_counter() - t_start > budget_s:
                m.extra["sources_skipped"] = len(sources) - i
                m.sources = sources[:i]
                break
            if runner.timer == "cuda-events":
                start.record(stream)
                runner.traverse(s)
                end.record(stream)
                end.synchronize()
                m.times_ms.append(float(cupy.cuda.get_elapsed_time(start, end)))
            else:
                t0 = time.perf_counter()
                runner.traverse(s)
                m.times_ms.append((time.perf_counter() - t0) * 1e3)
            edges, depth = runner.outcome(s)
            m.edges.append(int(edges))
            m.depths.append(int(depth))
            if validate:
                runner.check(s)
    except Exception as exc:  # an invalid or failing runner is reported, never a fast "best"
        m.valid = False
        m.error = f"{exc.__class__.__name__}: {exc}"
    return m


class GPURunner(Runner):
    """Times an autotune engine (graph × config): the BFS engine or, when ``config.algorithm ==
    "sssp"``, the SSSP engine (both built by ``autotune.engine.get_engine``, same methods).

    :meth:`check` validates the last traversal against the CPU reference of the config's algorithm
    (:func:`validate_against_reference`: BFS tree rules, or Dijkstra distances and the SSSP tree
    check ``dist[pred[v]] + w(pred[v], v) == dist[v]``), read from the engine's device buffers
    (:func:`engine_result_arrays`); with ``on_device=True`` it runs the Graph500 checks on the GPU
    instead (:func:`autotune.validate_gpu.validate_bfs_gpu` / ``validate_sssp_gpu``: no reference
    traversal, milliseconds where the CPU reference takes seconds on large graphs).
    """

    timer = "cuda-events"

    def __init__(self, graph: CSRGraph, config=None, *, on_device: bool = False):
        from .engine import DEFAULT_CONFIG

        self.graph = graph
        self.on_device = bool(on_device)
        self.config = config if config is not None else DEFAULT_CONFIG
        self.name = self.config.label
        self.engine = None
        self._levels = 0

    def prepare(self) -> None:
        from .engine import get_engine

        self.engine = get_engine(self.graph, self.config)

    @property
    def stream(self):
        """The engine's CUDA stream (the traversal runs and is timed there)."""
        return self.engine.stream if self.engine is not None else None

    def traverse(self, source: int) -> None:
        self._levels = self.engine.traverse(source)

    def outcome(self, source: int) -> tuple[int, int]:
        if self.config.algorithm == "sssp":
            return self.engine.edges_traversed(), int(self._levels)
        return self.engine.edges_traversed(), max(0, self._levels - 1)

    def check(self, source: int) -> None:
        if self.on_device:
            from .validate_gpu import validate_on_device

            validate_on_device(self.graph, source, *engine_result_arrays(self.engine),
                               algorithm=self.config.algorithm)
            return
        validate_against_reference(self.graph, source, *engine_result_arrays(self.engine),
                                   algorithm=self.config.algorithm)


def engine_result_arrays(engine):
    """``(distances, predecessors)`` of an engine's last traversal, as device arrays.

    The SSSP engine packs distance and predecessor in one 64-bit word on the device and unpacks them
    with ``result_arrays()`` (int64 distances with ``np.iinfo(np.int64).max`` unreached, or float64
    with +inf, for float weights; int32 predecessors); the BFS engine keeps ``distances`` (int32, -1
    unreached) and ``predecessors`` buffers.
    """
    unpack = getattr(engine, "result_arrays", None)
    if unpack is not None:
        return unpack()
    return engine.distances, engine.predecessors


def reference_distances(graph: CSRGraph, source: int, algorithm: str = "bfs") -> np.ndarray:
    """CPU reference distances from *source*, computed once per (graph, algorithm, source) and kept
    on the graph so that every runner of one comparison shares them.

    Parameters
    ----------
    graph : CSRGraph
    source : int
        Internal vertex id.
    algorithm : {'bfs', 'sssp'}
        ``bfs``: hop distances of :func:`autotune.reference.bfs_reference` (int32, -1 unreached);
        ``sssp``: shortest-path distances of :func:`autotune.reference.sssp_reference`
        (``scipy.sparse.csgraph.dijkstra`` on the graph's weights, unit weights when unweighted).

    Returns
    -------
    ndarray, shape (n_vertices,)
    """
    key = "reference_distances" if algorithm == "bfs" else f"reference_distances_{algorithm}"
    cache = graph._cache.setdefault(key, {})
    ref = cache.get(int(source))
    if ref is None:
        if algorithm == "sssp":
            from .reference import sssp_reference

            ref = cache[int(source)] = sssp_reference(graph, int(source))[0]
        elif algorithm == "bfs":
            from .reference import bfs_reference

            ref = cache[int(source)] = bfs_reference(graph, int(source))[0]
        else:
            raise InvalidArgumentError(f"unknown algorithm {algorithm!r}; expected 'bfs' or 'sssp'")
    return ref


def validate_against_reference(graph: CSRGraph, source: int, distances, predecessors, *,
                               algorithm: str = "bfs") -> None:
    """Check one result against the (cached) CPU reference of *algorithm*.

    BFS: Graph500 checks (:func:`autotune.reference.validate_bfs`). SSSP: equal distances to
    Dijkstra's and the tree check (:func:`autotune.reference.validate_sssp`).

    Raises
    ------
    ValidationError
        On any mismatch (the message names the check and the first bad vertex).
    """
    ref = reference_distances(graph, source, algorithm)
    if algorithm == "sssp":
        from .reference import validate_sssp

        validate_sssp(graph, int(source), distances, predecessors, reference_distances=ref)
    else:
        from .reference import validate_bfs

        validate_bfs(graph, int(source), distances, predecessors, reference_distances=ref)


class ScipyRunner(Runner):
    """Peer: ``scipy.sparse.csgraph.breadth_first_order`` on the CPU (single thread)."""

    name = "scipy.csgraph (CPU)"
    timer = "perf_counter"

    def __init__(self, graph: CSRGraph):
        self.graph = graph
        self._csr = None
        self._last = None

    def prepare(self) -> None:
        self._csr = self.graph.to_scipy()
        self._deg = self.graph.out_degrees(np)

    def traverse(self, source: int) -> None:
        from scipy.sparse.csgraph import breadth_first_order

        self._last = breadth_first_order(self._csr, source, directed=True, return_predecessors=True)

    def outcome(self, source: int) -> tuple[int, int]:
        from .reference import _tree_depths

        order, pred = self._last
        depth = int(_tree_depths(order, pred, self.graph.n_vertices).max()) if order.size > 1 else 0
        return int(self._deg[order].sum()), depth


def _weighted_csr(graph: CSRGraph):
    """``scipy.sparse.csr_matrix`` of *graph* with its weights as float64 data (unit weights when
    unweighted), the input of ``scipy.sparse.csgraph.dijkstra``. Built once and kept on the graph."""
    cached = graph._cache.get("scipy_weighted_csr")
    if cached is not None:
        return cached
    import scipy.sparse as sp

    ro, ci = graph.host()
    w = graph.host_weights() if getattr(graph, "weights", None) is not None else None
    data = np.ones(ci.shape[0], dtype=np.float64) if w is None else np.asarray(w, dtype=np.float64)
    n = graph.n_vertices
    graph._cache["scipy_weighted_csr"] = sp.csr_matrix((data, ci, ro), shape=(n, n))
    return graph._cache["scipy_weighted_csr"]


class ScipyDijkstraRunner(ScipyRunner):
    """Peer: ``scipy.sparse.csgraph.dijkstra`` on the CPU (one thread, one source per call).

    Runs on the same CSR and weights as the GPU (float64 copies of the int32/float32 weights, made
    in :meth:`prepare`, outside the timed region; unit weights for an unweighted graph), with
    predecessors, as SSSP's CPU reference does. ``depth`` is not defined for Dijkstra: 0.
    """

    name = "scipy.csgraph dijkstra (CPU)"

    def prepare(self) -> None:
        self._csr = _weighted_csr(self.graph)
        self._deg = self.graph.out_degrees(np)

    def traverse(self, source: int) -> None:
        from scipy.sparse.csgraph import dijkstra

        self._last = dijkstra(self._csr, directed=True, indices=int(source), return_predecessors=True)

    def outcome(self, source: int) -> tuple[int, int]:
        dist = self._last[0]
        return int(self._deg[np.isfinite(dist)].sum()), 0


def compare(graph: CSRGraph, runners: list[Runner], n_sources: int = DEFAULT_BENCH_SOURCES, seed: int = 0,
            validate: bool = False, progress: Callable[[str], None] | None = None) -> list[Measurement]:
    """Measure several runners on the same sources of *graph* in one process (one harness for all)."""
    sources = select_sources(graph, n_sources, seed)
    out = []
    for r in runners:
        if progress:
            progress(r.name)
        out.append(measure(r, sources, validate=validate))
    return out
