"""The BFS engine: runs one :class:`~autotune.config.TraversalConfig` on a graph with CuPy kernels.

Level-synchronous BFS. A push level fuses ``advance`` and ``filter``: every frontier edge is
inspected, unvisited neighbours are claimed with ``atomicCAS`` on ``distances`` (so the next
frontier holds no duplicates) and appended with warp-aggregated atomics. With
``direction="push_pull"`` large levels may run as pull (bottom-up) levels instead; with
``small_frontier="single_block"`` levels with a small frontier run inside one persistent
single-block kernel that iterates levels on the device.

Host synchronisation left per level: none. The level being expanded, the frontier counters and
the direction live in device memory (``BFSState`` in ``kernels/bfs_common.cuh``); every kernel
decides on the device whether the current level is its own, and the last block to finish a level
advances the state. The host enqueues the same launches with the same arguments in batches of
iterations (2, 4, 8, ... up to :data:`MAX_BATCH`; one iteration = single-block kernel, push kernel,
pull kernel) and reads the 64-byte state back once per batch (one copy + stream sync) to learn
whether the traversal is over. Launches past the last level exit after reading an empty frontier.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ._backend import device_properties, require_gpu
from ._kernels import get_kernel
from .config import TraversalConfig
from .errors import DeviceMemoryError
from .graph import CSRGraph

MAX_BATCH = 64
FIRST_BATCH = 2

#: Mirrors ``struct BFSState`` (kernels/bfs_common.cuh), 64 bytes.
STATE_DTYPE = np.dtype([("ctr", "<u8", (3,)), ("hub_ctr", "<i4", (3,)), ("level", "<i4"), ("done_blocks", "<u4"),
                        ("dir", "<i4"), ("explored", "<i8"), ("pad", "<i4", (2,))], align=True)
#: Mirrors ``struct BFSParams`` (kernels/bfs_common.cuh), 48 bytes.
PARAMS_DTYPE = np.dtype([("n_vertices", "<i4"), ("dir_mode", "<i4"), ("sb_limit", "<i4"), ("sb_edge_limit", "<i4"),
                         ("alpha", "<f4"), ("beta", "<f4"), ("gamma", "<f4"), ("hub_degree", "<i4"),
                         ("n_hubs", "<i4"), ("min_vw", "<i4"), ("n_edges", "<i8")], align=True)
#: Mirrors ``struct BFSAux`` (kernels/bfs_common.cuh), 248 bytes: options and scratch buffers of
#: the techniques beyond plain push/pull levels (pointers as uint64, 0 = unused).
AT_SQ_MAX_BINS = 16
AUX_DTYPE = np.dtype([
    ("wg_degree", "<i4"), ("bg_degree", "<i4"), ("sq_degree", "<i4"), ("sq_base_log2", "<i4"), ("sq_bins", "<i4"),
    ("defer_degree", "<i4"), ("work_chunk", "<i4"), ("push_finishes", "<i4"), ("hash_cull", "<i4"),
    ("dc_small", "<i4"), ("dc_middle", "<i4"), ("dc_large", "<i4"), ("bs_dynamic_chunk", "<i4"),
    ("n_hub_cache", "<i4"), ("heavy_off", "<i4", (AT_SQ_MAX_BINS + 2,)),
    ("heavy", "<u8"), ("heavy_ctr", "<u8"), ("dc_queue", "<u8", (8,)), ("dc_ctr", "<u8"), ("coo_src", "<u8"),
    ("hub_list", "<u8"), ("barrier", "<u8"), ("work_ctr", "<u8")], align=True)
assert STATE_DTYPE.itemsize == 64 and PARAMS_DTYPE.itemsize == 48 and AUX_DTYPE.itemsize == 248
AT_OFF = np.iinfo(np.int32).max
#: Entries of the pull levels' hub-vertex cache in shared memory (Enterprise §4.3).
HUB_CACHE_ENTRIES = 1024

#: What ``run(graph)`` / ``BFSEngine(graph)`` use when no config is given: the most robust config
#: measured on an H100 (binary search + direction-optimizing + single-block small levels). It is
#: within ~5% of the best measured config on roads and meshes and 3x faster than push-only on
#: Kronecker graphs; ``tune(graph)`` picks per graph.
DEFAULT_CONFIG = TraversalConfig(load_balance="binary_search", direction="push_pull")

PATH_PUSH, PATH_PULL, PATH_SINGLE_BLOCK, PATH_PERSISTENT = 0, 1, 2, 3
_PATH_NAMES = {PATH_PUSH: ("push", "multi_block"), PATH_PULL: ("pull", "multi_block"),
               PATH_SINGLE_BLOCK: ("push", "single_block"), PATH_PERSISTENT: ("push", "persistent")}
SB_THREADS = 1024
SB_EDGE_FACTOR = 16
#: Blocks per SM of the persistent kernel (None: as many as fit). Every block arrives at the grid
#: barrier once per level, one atomic each on one address, so fewer blocks make a cheaper level.
PERSISTENT_BLOCKS_PER_SM: int | None = 1


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
        ``"push"`` (top-down) or ``"pull"`` (bottom-up).
    path : str
        Which kernel ran the level: ``"multi_block"`` (a fully resident grid, one launch per level)
        or ``"single_block"`` (the persistent single-block kernel iterating levels on the device).
    virtual_warp_size : int or None
        Virtual warp size used (vertex_mapped; chosen on the device when ``dynamic``).
    us : float or None
        Device time of the level in microseconds (``%globaltimer`` read at the end of each level,
        so levels run inside one single-block launch are timed individually too).
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
        Per-level trace (frontier size, direction, path, virtual warp size, µs).
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


def _carries_prefix(config: TraversalConfig) -> bool:
    """True when the frontier buffers carry degree prefix-sums and row starts beside the vertices:
    ``binary_search`` reads them every level, and the persistent kernel reads its own levels'
    (so a level needs no dependent ``row_offsets`` load before its edges are known)."""
    return config.load_balance == "binary_search" or config.small_frontier == "persistent"


def device_bytes_needed(graph: CSRGraph, config: TraversalConfig) -> int:
    """Device memory (bytes) a :class:`BFSEngine` allocates for *graph* with *config*.

    Counts the CSR upload when the graph is still on the host, plus distances, predecessors,
    out-degrees, two frontier buffers (three int32 arrays each for ``binary_search`` and the
    persistent kernel) and the per-level trace arrays.
    """
    n, m = graph.n_vertices, graph.n_edges
    need = 0
    if not graph.on_device and "device" not in graph._cache:
        need += graph.row_offsets.nbytes + graph.column_indices.nbytes
    per_frontier = 3 if _carries_prefix(config) else 1
    need += 4 * n * 3                      # distances, predecessors, out-degrees
    need += 2 * per_frontier * 4 * n       # frontier in/out (+ prefix, row start)
    need += 16 * (n + 3) + 512             # per-level trace (sizes, path/vw, timestamps), state, params, aux
    if config.load_balance == "degree_classified":
        need += 2 * 4 * n                  # class queues of two frontiers (each partitions its frontier)
    if config.load_balance == "edge_mapped":
        need += 4 * m + 8 * m              # COO sources, kept (+ transient search keys)
    if config.defer_outliers not in (None, "off") or config.supplementary_queues not in (None, "off"):
        need += 4 * n                      # heavy-vertex segments (at most every vertex)
    if config.direction == "push_pull" and graph.directed and "transpose" not in graph._cache:
        need += 4 * (n + 1) + 4 * m        # in-edges (transposed CSR), kept
        need += 12 * m                     # transient: row ids + sort order while transposing
    return need


class BFSEngine:
    """Device buffers, compiled kernels and launch geometry for one graph × config.

    Build once, traverse from many sources (this is what ``tune``, ``bench`` and ``sweep`` time).

    Parameters
    ----------
    graph : CSRGraph
        Uploaded to the device on first use (``graph.device()``).
    config : TraversalConfig, optional
        Defaults to :data:`DEFAULT_CONFIG`.

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
        cfg = self.config = config if config is not None else DEFAULT_CONFIG
        if graph.n_edges > np.iinfo(np.int32).max:
            raise ValueError(f"graph has {graph.n_edges:,} edges; this release indexes edges with int32 "
                             f"(at most {np.iinfo(np.int32).max:,})")
        check_device_memory(device_bytes_needed(graph, cfg),
                            f"BFS on {graph.name!r} ({graph.n_vertices:,} vertices, {graph.n_edges:,} edges)")
        self.props = device_properties()
        ro, ci = graph.device()
        if ro.dtype != np.int32:
            ro = ro.astype(np.int32)
        self.row_offsets, self.column_indices = ro, ci
        n = self.n = graph.n_vertices
        self.out_degrees = (ro[1:] - ro[:-1]).astype(np.int32)
        self.distances = cupy.empty(n, dtype=np.int32)
        self.predecessors = cupy.empty(n, dtype=np.int32)
        lb = cfg.load_balance
        with_prefix = lb == "binary_search"
        self.frontiers = [cupy.empty(n, dtype=np.int32) for _ in range(2)]
        if _carries_prefix(cfg):
            self.prefixes = [cupy.empty(n, dtype=np.int32) for _ in range(2)]
            self.row_starts = [cupy.empty(n, dtype=np.int32) for _ in range(2)]
        else:  # no kernel reads them; one int each keeps the kernel signature uniform
            self.prefixes = [cupy.zeros(1, dtype=np.int32) for _ in range(2)]
            self.row_starts = [cupy.zeros(1, dtype=np.int32) for _ in range(2)]
        self.level_sizes = cupy.zeros(n + 2, dtype=np.int32)
        self.level_info = cupy.zeros(n + 2, dtype=np.int32)
        self.level_time = cupy.zeros(n + 3, dtype=np.uint64)
        self.state = cupy.zeros(STATE_DTYPE.itemsize, dtype=np.uint8)
        self._state_host = cupyx.empty_pinned((STATE_DTYPE.itemsize,), dtype=np.uint8)

        # in-edges for pull levels
        pull = cfg.direction == "push_pull"
        if pull and graph.directed:
            self.pull_offsets, self.pull_indices = transpose_csr(graph)
        else:
            self.pull_offsets, self.pull_indices = ro, ci

        prm = np.zeros((), dtype=PARAMS_DTYPE)
        prm["n_vertices"] = n
        prm["n_edges"] = graph.n_edges
        prm["dir_mode"] = 0 if not pull else (1 if cfg.switch_rule == "alpha_beta" else 2)
        prm["alpha"] = cfg.alpha or 1.0
        prm["beta"] = cfg.beta or 1.0
        prm["gamma"] = cfg.gamma or 0.0
        prm["hub_degree"] = cfg.hub_degree if cfg.hub_degree is not None else np.iinfo(np.int32).max
        prm["n_hubs"] = int((self.out_degrees > cfg.hub_degree).sum()) if cfg.hub_degree is not None else 0
        prm["min_vw"] = cfg.min_virtual_warp_size or 1
        self.small_frontier = cfg.small_frontier
        if cfg.small_frontier != "none":
            prm["sb_limit"] = cfg.frontier_limit
            prm["sb_edge_limit"] = cfg.frontier_limit * SB_EDGE_FACTOR
        self.params_host = prm
        self.params = cupy.asarray(np.frombuffer(prm.tobytes(), dtype=np.uint8))

        b = cfg.block_size
        wp = "true" if with_prefix else "false"
        self._init = get_kernel(lb, "bfs_init")
        if lb == "vertex_mapped":
            vw = cfg.virtual_warp_size
            push_name = f"vertex_mapped_push<{b}, {0 if vw == 'dynamic' else vw}>"
        elif lb in ("scan_mapped", "binary_search", "degree_classified", "edge_mapped"):
            push_name = f"{lb}_push<{b}>"
        else:  # pragma: no cover - TraversalConfig rejects unknown techniques
            raise ValueError(f"load_balance={lb!r} has no kernel")
        self._launches = []  # (kernel, grid, block) enqueued once per iteration, same arguments every time
        if cfg.small_frontier == "single_block":
            self._launches.append((get_kernel("single_block", f"single_block_levels<{wp}>"), 1, SB_THREADS))
        elif cfg.small_frontier == "persistent":
            k = get_kernel("persistent", f"persistent_levels<{b}, {wp}>")
            blocks = self._resident_blocks(k, b)
            if PERSISTENT_BLOCKS_PER_SM:
                blocks = min(blocks, self.props["sm_count"] * PERSISTENT_BLOCKS_PER_SM)
            self._launches.append((k, blocks, b))
        push = get_kernel(lb, push_name)
        self.grid = self._resident_blocks(push, b)
        self.resident_threads = self.grid * b
        self._launches.append((push, self.grid, b))
        self.aux_host, self._aux_buffers = self._build_aux(cfg)
        self.aux = cupy.asarray(np.frombuffer(self.aux_host.tobytes(), dtype=np.uint8))
        if not self.aux_host["push_finishes"]:  # deferred outliers / supplementary queues close the level
            k = get_kernel("heavy", f"heavy_vertices<{b}>")
            self._launches.append((k, self._resident_blocks(k, b), b))
        if pull:
            k = get_kernel("pull", f"pull_level<{b}, {wp}>")
            self._launches.append((k, self._resident_blocks(k, b), b))
        self._args = (ro, ci, self.pull_offsets, self.pull_indices, self.distances, self.predecessors,
                      self.frontiers[0], self.frontiers[1], self.prefixes[0], self.prefixes[1],
                      self.row_starts[0], self.row_starts[1], self.state, self.params,
                      self.level_sizes, self.level_info, self.level_time, self.aux)

    def _build_aux(self, cfg: TraversalConfig):
        """The ``BFSAux`` block (host copy) and the device buffers it points to."""
        import cupy

        aux = np.zeros((), dtype=AUX_DTYPE)
        bufs: dict[str, object] = {}
        deg = self.out_degrees
        max_deg = int(deg.max()) if self.n else 0
        b = cfg.block_size

        def ptr(name, arr):
            bufs[name] = arr
            return arr.data.ptr

        def threshold(value, *, named: dict) -> int:
            if value in (None, "off"):
                return AT_OFF
            return int(named.get(value, value))

        device_threads = self.props["sm_count"] * self.props["max_threads_per_sm"]
        aux["wg_degree"] = threshold(cfg.warp_gathering, named={})
        aux["bg_degree"] = threshold(cfg.block_gathering, named={"block_size": b})
        aux["sq_degree"] = sq = threshold(cfg.supplementary_queues, named={"half_resident": device_threads // 2})
        aux["defer_degree"] = defer = threshold(cfg.defer_outliers, named={})
        # heavy-vertex segments: 0 = deferred outliers, 1.. = supplementary-queue bins
        seg_sizes = [0] * (AT_SQ_MAX_BINS + 1)
        if sq != AT_OFF and max_deg > sq:
            base = int(np.floor(np.log2(sq)))
            bins = min(AT_SQ_MAX_BINS, int(np.floor(np.log2(max_deg))) - base + 1)
            aux["sq_base_log2"], aux["sq_bins"] = base, bins
            lg = cupy.floor(cupy.log2(cupy.maximum(deg, 1).astype(np.float64))).astype(np.int32)
            idx = cupy.clip(lg - base, 0, bins - 1)
            counts = cupy.bincount(idx[deg > sq], minlength=bins).get()
            seg_sizes[1:bins + 1] = [int(c) for c in counts]
        else:
            aux["sq_degree"] = sq = AT_OFF
        if defer != AT_OFF:
            seg_sizes[0] = int((deg > defer).sum())
        offsets = np.concatenate([[0], np.cumsum(seg_sizes)]).astype(np.int32)
        aux["heavy_off"][: len(offsets)] = offsets
        aux["heavy_off"][len(offsets):] = offsets[-1]
        heavy_on = offsets[-1] > 0
        aux["push_finishes"] = 0 if heavy_on else 1
        if heavy_on:
            aux["heavy"] = ptr("heavy", cupy.empty(int(offsets[-1]), dtype=np.int32))
            aux["heavy_ctr"] = ptr("heavy_ctr", cupy.zeros(AT_SQ_MAX_BINS + 1, dtype=np.int32))
        if cfg.work_chunk not in (None, "static"):
            aux["work_chunk"] = int(cfg.work_chunk)
            aux["work_ctr"] = ptr("work_ctr", cupy.zeros(1, dtype=np.int32))
        aux["hash_cull"] = 1 if cfg.duplicate_culling == "hash" else 0
        if cfg.load_balance == "degree_classified":
            aux["dc_small"], aux["dc_middle"], aux["dc_large"] = cfg.dc_small, cfg.dc_middle, cfg.dc_large
            bounds = [(1, cfg.dc_small), (cfg.dc_small, cfg.dc_middle), (cfg.dc_middle, cfg.dc_large + 1),
                      (cfg.dc_large + 1, AT_OFF)]
            for c, (lo, hi) in enumerate(bounds):  # a class queue holds at most the graph's vertices of that class
                cap = max(1, int(((deg >= lo) & (deg < hi)).sum()))
                for s in range(2):
                    aux["dc_queue"][s * 4 + c] = ptr(f"dc_queue{s}{c}", cupy.empty(cap, dtype=np.int32))
            aux["dc_ctr"] = ptr("dc_ctr", cupy.zeros(12, dtype=np.int32))
        else:
            aux["dc_small"] = aux["dc_middle"] = aux["dc_large"] = AT_OFF
        aux["bs_dynamic_chunk"] = 1 if cfg.chunk_size == "dynamic" else 0
        if cfg.load_balance == "edge_mapped":
            ro = self.row_offsets
            src = (cupy.searchsorted(ro, cupy.arange(self.graph.n_edges, dtype=ro.dtype), side="right") - 1)
            aux["coo_src"] = ptr("coo_src", src.astype(np.int32))
        if cfg.hub_cache == "on":
            k = min(HUB_CACHE_ENTRIES, self.n)
            hubs = cupy.argsort(-deg)[:k].astype(np.int32)
            aux["n_hub_cache"] = k
            aux["hub_list"] = ptr("hub_list", hubs)
        if cfg.small_frontier == "persistent":
            aux["barrier"] = ptr("barrier", cupy.zeros(2, dtype=np.uint32))
        return aux, bufs

    def _resident_blocks(self, kernel, block: int) -> int:
        """Blocks of *kernel* that fit on the GPU at once: SMs x the driver's occupancy for *block*
        threads (the grid of every level kernel, and the largest cooperative launch)."""
        sm = self.props["sm_count"]
        func = getattr(kernel, "kernel", kernel)  # cupy.RawKernel wraps a cupy.cuda.function.Function
        try:
            import cupy

            per_sm = cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(func.ptr, block, 0)
        except Exception:  # no occupancy API: bound by threads, registers and shared memory
            per_sm = self.props["max_threads_per_sm"] // block
            regs = int(getattr(kernel, "num_regs", 0) or 0)
            if regs:
                per_sm = min(per_sm, 65536 // (regs * block))
            smem = int(getattr(kernel, "shared_size_bytes", 0) or 0)
            if smem:
                per_sm = min(per_sm, (228 * 1024) // (smem + 1024))
        return int(sm * max(1, per_sm))

    def read_state(self) -> np.void:
        """The device traversal state (``STATE_DTYPE``), copied to the host (synchronizes the stream)."""
        import cupy

        stream = cupy.cuda.get_current_stream()
        cupy.cuda.runtime.memcpyAsync(self._state_host.ctypes.data, self.state.data.ptr, STATE_DTYPE.itemsize,
                                      cupy.cuda.runtime.memcpyDeviceToHost, stream.ptr)
        stream.synchronize()
        return np.frombuffer(self._state_host.tobytes(), dtype=STATE_DTYPE)[0]

    def traverse(self, source: int) -> int:
        """Run one BFS from internal vertex *source*, leaving results in the device buffers.

        Parameters
        ----------
        source : int
            Internal vertex id in ``[0, n_vertices)``.

        Returns
        -------
        int
            Number of levels expanded (depth + 1).

        Raises
        ------
        ValueError
            When *source* is not a vertex.
        """
        if not 0 <= int(source) < self.n:
            raise ValueError(f"source {source} is not a vertex (graph has {self.n:,} vertices)")
        self.distances.fill(-1)
        self.predecessors.fill(-1)
        self._init((1,), (32,), (self.row_offsets, self.distances, self.predecessors, np.int32(source),
                                 self.frontiers[0], self.prefixes[0], self.row_starts[0], self.state, self.params,
                                 self.level_time, self.aux))
        args, launches = self._args, self._launches
        batch = FIRST_BATCH
        while True:
            for _ in range(batch):
                for kernel, grid, block in launches:
                    kernel((grid,), (block,), args)
            st = self.read_state()  # the one host round trip of this batch
            level = int(st["level"])
            if int(st["ctr"][level % 3]) & 0xFFFFFFFF == 0:
                return level
            batch = min(batch * 2, MAX_BATCH)

    def edges_traversed(self) -> int:
        """Sum of out-degrees of the vertices reached by the last traversal (on the device)."""
        import cupy

        return int(cupy.sum(cupy.where(self.distances >= 0, self.out_degrees, 0), dtype=np.int64))

    def level_trace(self, n_levels: int) -> list[LevelTrace]:
        """Per-level trace of the last traversal (*n_levels* as returned by :meth:`traverse`)."""
        sizes = self.level_sizes[:n_levels].get()
        info = self.level_info[:n_levels].get()
        times = self.level_time[: n_levels + 1].get().astype(np.int64)
        out = []
        for L in range(n_levels):
            path = int(info[L]) & 0xFF
            vw = int(info[L]) >> 8
            direction, where = _PATH_NAMES.get(path, ("?", "?"))
            out.append(LevelTrace(L, int(sizes[L]), direction, where, vw or None, (times[L + 1] - times[L]) / 1e3))
        return out

    def bfs(self, source: int, *, trace: bool = True) -> BFSResult:
        """Traverse from *source* and return the full :class:`BFSResult` (copies results to the host)."""
        import cupy

        stream = cupy.cuda.get_current_stream()
        start, end = cupy.cuda.Event(), cupy.cuda.Event()
        start.record(stream)
        n_levels = self.traverse(source)
        end.record(stream)
        end.synchronize()
        elapsed_ms = cupy.cuda.get_elapsed_time(start, end)
        levels = self.level_trace(n_levels) if trace else []
        edges = self.edges_traversed()
        return BFSResult(
            source=int(source), distances=self.distances.get(), predecessors=self.predecessors.get(),
            depth=max(0, n_levels - 1), levels=levels, elapsed_ms=float(elapsed_ms), edges_traversed=edges,
            gteps=edges / (elapsed_ms * 1e-3) / 1e9 if elapsed_ms > 0 else 0.0, config=self.config,
            extra={"grid": self.grid})


def transpose_csr(graph: CSRGraph):
    """In-edges of a directed graph as ``(in_offsets, in_indices)`` CuPy int32 arrays, built once.

    ``in_indices[in_offsets[v]:in_offsets[v+1]]`` are the sources of the edges into ``v``. Built on
    the device with a stable sort by destination and cached on the graph (``graph._cache``).
    """
    if "transpose" in graph._cache:
        return graph._cache["transpose"]
    import cupy

    ro, ci = graph.device()
    n = graph.n_vertices
    # source vertex of every edge, then a stable sort of the edges by destination
    rows = (cupy.searchsorted(ro, cupy.arange(graph.n_edges, dtype=ro.dtype), side="right") - 1).astype(np.int32)
    order = cupy.argsort(ci, kind="stable")
    in_indices = rows[order].astype(np.int32)
    del rows, order
    counts = cupy.bincount(ci, minlength=n)
    in_offsets = cupy.zeros(n + 1, dtype=np.int32)
    in_offsets[1:] = cupy.cumsum(counts).astype(np.int32)
    graph._cache["transpose"] = (in_offsets, in_indices)
    return graph._cache["transpose"]


def get_engine(graph: CSRGraph, config: TraversalConfig | None = None) -> BFSEngine:
    """Engine for *graph* × *config*, reusing the one cached on the graph when the config matches."""
    config = config if config is not None else DEFAULT_CONFIG
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
        Strategy to run (default: :data:`DEFAULT_CONFIG`; :func:`autotune.tune` picks one per graph).
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
        out[i] = max(0, eng.traverse(int(s)) - 1)
    return out
