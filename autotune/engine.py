"""The BFS engine: runs one :class:`~autotune.config.TraversalConfig` on a graph with CuPy kernels.

Push (top-down) level-synchronous BFS. Each level is one kernel launch (``advance`` and ``filter``
fused: every frontier edge is inspected, unvisited neighbours are claimed with ``atomicCAS`` on
``distances`` so the next frontier holds no duplicates, and appended with warp-aggregated atomics).

Host synchronisation left per level: none. Frontier sizes live in device memory (see
``kernels/bfs_common.cuh``), every launch uses the same fully resident grid with grid-stride loops,
and the host enqueues levels in batches (2, 4, 8, ... up to :data:`MAX_LEVEL_BATCH`), reading the
next frontier size back once per batch (one 8-byte copy + stream sync) to know whether to stop.
A batch that runs past the last level costs only empty launches (each kernel exits after reading
a zero frontier size).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ._backend import device_properties, require_gpu
from ._kernels import get_kernel
from .config import TraversalConfig
from .errors import DeviceMemoryError
from .graph import CSRGraph

MAX_LEVEL_BATCH = 64
FIRST_LEVEL_BATCH = 2


@dataclass(frozen=True)
class LevelTrace:
    """One BFS level as it ran.

    Attributes
    ----------
    level : int
        Depth of the frontier expanded (0 = the source).
    frontier_size : int
        Vertices in the frontier of this level.
    direction : str
        ``"push"``.
    path : str
        Which kernel path ran the level (``"multi_block"``: a fully resident grid).
    virtual_warp_size : int or None
        Virtual warp size used (vertex_mapped; chosen on the device when ``dynamic``).
    us : float or None
        Device time of the level in microseconds (``None`` unless traced).
    """

    level: int
    frontier_size: int
    direction: str
    path: str
    virtual_warp_size: int | None
    us: float | None


@dataclass
class BFSResult:
    """Result of one traversal.

    Attributes
    ----------
    source : int
        Internal id of the source vertex.
    distances : ndarray, shape (n_vertices,), int32
        Hop distance from the source; -1 for unreached vertices.
    predecessors : ndarray, shape (n_vertices,), int32
        BFS-tree parent; the source is its own parent; -1 for unreached vertices.
    depth : int
        Largest distance reached (0 when the source has no out-edges).
    levels : list of LevelTrace
        Per-level trace (frontier size, direction, path, µs when traced).
    elapsed_ms : float
        Device time of the whole traversal (CUDA events around it, host loop included), ms.
    edges_traversed : int
        Sum of out-degrees of the reached vertices (Graph500 TEPS numerator).
    gteps : float
        ``edges_traversed / elapsed`` in 10^9 edges per second.
    config : TraversalConfig
        The configuration that ran.
    """

    source: int
    distances: np.ndarray
    predecessors: np.ndarray
    depth: int
    levels: list[LevelTrace]
    elapsed_ms: float
    edges_traversed: int
    gteps: float
    config: TraversalConfig
    extra: dict = field(default_factory=dict)

    @property
    def n_reached(self) -> int:
        """Number of vertices reached (source included)."""
        return int((self.distances >= 0).sum())


def _free_device_bytes() -> int:
    import cupy

    free, _total = cupy.cuda.runtime.memGetInfo()
    return int(free) + int(cupy.get_default_memory_pool().free_bytes())


def check_device_memory(needed_bytes: int, what: str) -> None:
    """Raise :class:`DeviceMemoryError` (bytes needed vs free) when *needed_bytes* do not fit."""
    free = _free_device_bytes()
    if needed_bytes > free:
        raise DeviceMemoryError(what, needed_bytes, free)


def device_bytes_needed(graph: CSRGraph, config: TraversalConfig) -> int:
    """Device memory (bytes) a :class:`BFSEngine` allocates for *graph* with *config*.

    Counts the CSR upload when the graph is still on the host, plus distances, predecessors,
    out-degrees, two frontier buffers (three int32 arrays each for ``binary_search``) and the
    per-level trace arrays.
    """
    n, m = graph.n_vertices, graph.n_edges
    need = 0
    if not graph.on_device and "device" not in graph._cache:
        need += graph.row_offsets.nbytes + graph.column_indices.nbytes
    per_frontier = 3 if config.load_balance == "binary_search" else 1
    need += 4 * n * 3                      # distances, predecessors, out-degrees
    need += 2 * per_frontier * 4 * n       # frontier in/out (+ prefix, row start)
    need += 2 * 4 * (n + 2) + 64           # level sizes, virtual-warp trace, counters
    return need


class BFSEngine:
    """Device buffers, compiled kernels and launch geometry for one graph × config.

    Build once, traverse from many sources (this is what ``tune``, ``bench`` and ``sweep`` time).

    Parameters
    ----------
    graph : CSRGraph
        Uploaded to the device on first use (``graph.device()``).
    config : TraversalConfig, optional
        Defaults to ``TraversalConfig()``.

    Raises
    ------
    GPUUnavailableError
        Without a usable NVIDIA GPU.
    DeviceMemoryError
        When the graph and the traversal buffers do not fit in free device memory (bytes needed
        vs free), checked before anything is allocated.
    ValueError
        When the graph has 2**31 or more edges (int32 edge offsets only in this release).
    """

    def __init__(self, graph: CSRGraph, config: TraversalConfig | None = None):
        require_gpu("BFS on the GPU")
        import cupy
        import cupyx

        self.graph = graph
        self.config = config if config is not None else TraversalConfig()
        if self.config.direction != "push":
            raise ValueError(f"direction={self.config.direction!r} is not implemented by this engine")
        if graph.n_edges > np.iinfo(np.int32).max:
            raise ValueError(f"graph has {graph.n_edges:,} edges; this release indexes edges with int32 "
                             f"(at most {np.iinfo(np.int32).max:,})")
        check_device_memory(device_bytes_needed(graph, self.config),
                            f"BFS on {graph.name!r} ({graph.n_vertices:,} vertices, {graph.n_edges:,} edges)")
        self.props = device_properties()
        ro, ci = graph.device()
        if ro.dtype != np.int32:
            ro = ro.astype(np.int32)
        self.row_offsets, self.column_indices = ro, ci
        n = graph.n_vertices
        self.n = n
        self.out_degrees = (ro[1:] - ro[:-1]).astype(np.int32)
        self.distances = cupy.empty(n, dtype=np.int32)
        self.predecessors = cupy.empty(n, dtype=np.int32)
        self.frontiers = [cupy.empty(n, dtype=np.int32) for _ in range(2)]
        lb = self.config.load_balance
        if lb == "binary_search":
            self.prefixes = [cupy.empty(n, dtype=np.int32) for _ in range(2)]
            self.row_starts = [cupy.empty(n, dtype=np.int32) for _ in range(2)]
        self.ctr = cupy.zeros(3, dtype=np.uint64)
        self.level_sizes = cupy.zeros(n + 2, dtype=np.int32)
        self.vw_trace = cupy.zeros(n + 2, dtype=np.int32)
        self._pinned = cupyx.empty_pinned((1,), dtype=np.uint64)
        self._scratch = cupy.zeros(2, dtype=np.int32)  # stands in for the prefix/row-start of vertex_mapped

        b = self.config.block_size
        self._init = get_kernel(lb, "bfs_init")
        if lb == "vertex_mapped":
            vw = self.config.virtual_warp_size
            name = f"vertex_mapped_dynamic<{b}>" if vw == "dynamic" else f"vertex_mapped_level<{b}, {vw}>"
        elif lb == "binary_search":
            name = f"binary_search_level<{b}>"
        else:  # pragma: no cover - TraversalConfig rejects unknown techniques
            raise ValueError(f"load_balance={lb!r} has no kernel")
        self._level = get_kernel(lb, name)
        self.grid = self._resident_blocks(self._level, b)
        self.resident_threads = self.grid * b

    def _resident_blocks(self, kernel, block: int) -> int:
        sm = self.props["sm_count"]
        try:
            import cupy

            per_sm = cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(kernel.ptr, block, 0)
        except Exception:
            per_sm = max(1, self.props["max_threads_per_sm"] // block)
        return int(sm * max(1, per_sm))

    # ---------------------------------------------------------------- launch
    def _launch_level(self, level: int) -> None:
        cfg = self.config
        i, o = level & 1, (level + 1) & 1
        lvl = np.int32(level)
        if cfg.load_balance == "vertex_mapped":
            args = (self.row_offsets, self.column_indices, self.distances, self.predecessors,
                    self.frontiers[i], self.frontiers[o], self.ctr, lvl, self.level_sizes)
            if cfg.virtual_warp_size == "dynamic":
                args = args + (np.int32(cfg.min_virtual_warp_size), self.vw_trace)
        else:
            args = (self.row_offsets, self.column_indices, self.distances, self.predecessors,
                    self.frontiers[i], self.prefixes[i], self.row_starts[i],
                    self.frontiers[o], self.prefixes[o], self.row_starts[o], self.ctr, lvl, self.level_sizes)
        self._level((self.grid,), (cfg.block_size,), args)

    def traverse(self, source: int, *, level_events: list | None = None) -> int:
        """Run one BFS from internal vertex *source*, leaving results in the device buffers.

        Parameters
        ----------
        source : int
            Internal vertex id in ``[0, n_vertices)``.
        level_events : list, optional
            When given, a CUDA event is recorded before every level and at the end (for the trace).

        Returns
        -------
        int
            Number of level launches issued (levels actually run + empty trailing launches).
        """
        import cupy

        if not 0 <= int(source) < self.n:
            raise ValueError(f"source {source} is not a vertex (graph has {self.n:,} vertices)")
        stream = cupy.cuda.get_current_stream()
        self.distances.fill(-1)
        self.predecessors.fill(-1)
        bs = self.config.load_balance == "binary_search"
        self._init((1,), (32,), (self.row_offsets, self.distances, self.predecessors, np.int32(source),
                                 self.frontiers[0], self.prefixes[0] if bs else self._scratch,
                                 self.row_starts[0] if bs else self._scratch[1:], self.ctr))
        level, batch = 0, FIRST_LEVEL_BATCH
        while True:
            for _ in range(batch):
                if level_events is not None:
                    ev = cupy.cuda.Event()
                    ev.record(stream)
                    level_events.append(ev)
                self._launch_level(level)
                level += 1
            # one host round trip per batch: is the frontier of `level` empty?
            slot = level % 3
            cupy.cuda.runtime.memcpyAsync(self._pinned.ctypes.data, self.ctr.data.ptr + 8 * slot, 8,
                                          cupy.cuda.runtime.memcpyDeviceToHost, stream.ptr)
            stream.synchronize()
            if int(self._pinned[0]) & 0xFFFFFFFF == 0:
                break
            batch = min(batch * 2, MAX_LEVEL_BATCH)
        if level_events is not None:
            ev = cupy.cuda.Event()
            ev.record(stream)
            level_events.append(ev)
        return level

    def edges_traversed(self) -> int:
        """Sum of out-degrees of the vertices reached by the last traversal (on the device)."""
        import cupy

        return int(cupy.sum(cupy.where(self.distances >= 0, self.out_degrees, 0), dtype=np.int64))

    def bfs(self, source: int, *, trace: bool = True) -> BFSResult:
        """Traverse from *source* and return the full :class:`BFSResult` (copies results to the host)."""
        import cupy

        stream = cupy.cuda.get_current_stream()
        events = [] if trace else None
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record(stream)
        launches = self.traverse(source, level_events=events)
        end.record(stream)
        end.synchronize()
        elapsed_ms = cupy.cuda.get_elapsed_time(start, end)
        sizes = self.level_sizes[:launches].get()
        n_levels = int(np.count_nonzero(sizes))  # frontiers are non-empty up to the last level
        vw = self.config.virtual_warp_size if self.config.load_balance == "vertex_mapped" else None
        vws = self.vw_trace[:n_levels].get() if vw == "dynamic" else None
        levels = []
        for L in range(n_levels):
            us = None
            if events is not None:
                us = 1000.0 * cupy.cuda.get_elapsed_time(events[L], events[L + 1])
            levels.append(LevelTrace(L, int(sizes[L]), "push", "multi_block",
                                     int(vws[L]) if vws is not None else vw, us))
        edges = self.edges_traversed()
        return BFSResult(
            source=int(source), distances=self.distances.get(), predecessors=self.predecessors.get(),
            depth=max(0, n_levels - 1), levels=levels, elapsed_ms=float(elapsed_ms), edges_traversed=edges,
            gteps=edges / (elapsed_ms * 1e-3) / 1e9 if elapsed_ms > 0 else 0.0, config=self.config,
            extra={"launches": launches, "grid": self.grid})


def get_engine(graph: CSRGraph, config: TraversalConfig | None = None) -> BFSEngine:
    """Engine for *graph* × *config*, reusing the one cached on the graph when the config matches."""
    config = config if config is not None else TraversalConfig()
    cached = graph._cache.get("engine")
    if cached is not None and cached.config == config:
        return cached
    graph._cache.pop("engine", None)  # release the previous buffers first
    eng = BFSEngine(graph, config)
    graph._cache["engine"] = eng
    return eng


def run(graph, config: TraversalConfig | None = None, source: int = 0, *, validate: bool = False,
        trace: bool = True) -> BFSResult:
    """Run an exact BFS on the GPU.

    Parameters
    ----------
    graph : CSRGraph or anything :func:`autotune.load_graph` accepts
    config : TraversalConfig, optional
        Strategy to run (default: ``TraversalConfig()``; see :func:`autotune.tune`).
    source : int
        Internal vertex id (use ``graph.index_of(file_id)`` for ids as written in the file).
    validate : bool
        Check the result against the CPU reference (``scipy.sparse.csgraph``) and the Graph500
        BFS-tree rules; raises :class:`~autotune.errors.ValidationError` on any mismatch.
    trace : bool
        Record a CUDA event per level to fill ``BFSResult.levels[i].us``.

    Returns
    -------
    BFSResult

    Raises
    ------
    GPUUnavailableError, DeviceMemoryError, ValueError, ValidationError
    """
    if not isinstance(graph, CSRGraph):
        from .graph import load_graph

        graph = load_graph(graph)
    res = get_engine(graph, config).bfs(source, trace=trace)
    if validate:
        from .reference import validate_bfs

        validate_bfs(graph, source, res.distances, res.predecessors)
    return res


def bfs_depths(graph: CSRGraph, sources) -> np.ndarray:
    """BFS depth (largest distance reached) from each source, on the GPU (used by the profiler).

    Returns
    -------
    ndarray of int64, shape (len(sources),)
    """
    eng = get_engine(graph, graph._cache["engine"].config if "engine" in graph._cache else None)
    out = np.empty(len(sources), dtype=np.int64)
    for i, s in enumerate(sources):
        launches = eng.traverse(int(s))
        sizes = eng.level_sizes[:launches].get()
        out[i] = max(0, int(np.count_nonzero(sizes)) - 1)
    return out


def wall_ms(fn, *args, **kwargs):
    """(result, wall-clock ms) of ``fn(*args, **kwargs)``."""
    t0 = time.perf_counter()
    r = fn(*args, **kwargs)
    return r, (time.perf_counter() - t0) * 1e3
