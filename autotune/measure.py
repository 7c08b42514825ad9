"""The measurement protocol of DESIGN.md, in one harness that autotune and its peers share.

- Graph uploaded and kernels compiled before timing (the caller builds the runner); one warm-up
  traversal.
- Sources: ``n_sources`` vertices with out-degree > 0, drawn with a fixed seed.
- Time per source: CUDA events around the whole traversal, host loop included (GPU runners), or
  ``time.perf_counter`` around the call (CPU peers).
- ``edges_traversed(s)`` = sum of out-degrees of the vertices reached from ``s``;
  GTEPS = harmonic mean over sources of ``edges_traversed(s) / time(s)``; median time reported too.
"""
from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Callable

import numpy as np

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
        raise ValueError(f"n_sources must be >= 1, got {n_sources}")
    deg = graph.out_degrees(np)
    eligible = np.flatnonzero(deg > 0)
    if eligible.size == 0:
        raise ValueError(f"graph {graph.name!r} has no vertex with an out-edge to start a BFS from")
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
        BFS depth per source.
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


def measure(runner: Runner, sources, *, warmup: int = 1, validate: bool = False) -> Measurement:
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

    Returns
    -------
    Measurement
    """
    sources = [int(s) for s in np.asarray(sources).ravel()]
    m = Measurement(runner.name, sources, [], [], [], runner.timer)
    try:
        runner.prepare()
        for _ in range(warmup):
            runner.traverse(sources[0])
        if runner.timer == "cuda-events":
            import cupy

            stream = cupy.cuda.get_current_stream()
            start, end = cupy.cuda.Event(), cupy.cuda.Event()
        for s in sources:
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
    """Times an autotune :class:`~autotune.engine.BFSEngine` (graph × config)."""

    timer = "cuda-events"

    def __init__(self, graph: CSRGraph, config=None):
        from .engine import DEFAULT_CONFIG

        self.graph = graph
        self.config = config if config is not None else DEFAULT_CONFIG
        self.name = self.config.label
        self.engine = None
        self._levels = 0

    def prepare(self) -> None:
        from .engine import get_engine

        self.engine = get_engine(self.graph, self.config)

    def traverse(self, source: int) -> None:
        self._levels = self.engine.traverse(source)

    def outcome(self, source: int) -> tuple[int, int]:
        return self.engine.edges_traversed(), max(0, self._levels - 1)

    def check(self, source: int) -> None:
        validate_against_reference(self.graph, source, self.engine.distances, self.engine.predecessors)


def reference_distances(graph: CSRGraph, source: int) -> np.ndarray:
    """CPU reference distances from *source*, computed once per (graph, source) and kept on the
    graph so that every runner of one comparison shares them."""
    from .reference import bfs_reference

    cache = graph._cache.setdefault("reference_distances", {})
    ref = cache.get(int(source))
    if ref is None:
        ref = cache[int(source)] = bfs_reference(graph, int(source))[0]
    return ref


def validate_against_reference(graph: CSRGraph, source: int, distances, predecessors) -> None:
    """Graph500 checks of one result against the (cached) CPU reference."""
    from .reference import validate_bfs

    validate_bfs(graph, int(source), distances, predecessors,
                 reference_distances=reference_distances(graph, source))


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
