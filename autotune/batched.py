"""Batched multi-source BFS on the GPU, and closeness centrality on top of it.

One traversal advances up to 64 * W sources at once (bit-parallel MS-BFS: Then et al., *The More
the Merrier: Efficient Multi-Source Graph Traversal*, VLDB 2015, §3; its GPU form after Liu, Huang &
Hu, *iBFS: Concurrent Breadth-First Search on GPUs*, SIGMOD 2016, §4): every vertex carries W 64-bit
status words, one bit per source, and a level is one pass over the joint frontier's edges (push) or
over the unreached vertices' in-edges (pull), whichever the level's edges favour. A batch runs in
one cooperative kernel launch (``kernels/msbfs.cu``); more sources than one batch holds run as
consecutive batches, queued without a host wait between them.

Outputs (:class:`BatchBFSResult`): the distance matrix (optional), predecessors (optional), and
per-source reductions that never need the matrix — vertices reached, sum of distances, eccentricity
— counted on the device as levels are visited. :func:`closeness_centrality` uses the reductions
only, so the closeness of every vertex of a 10^5-vertex graph needs O(n) memory beyond the graph.

The knobs (:class:`BatchConfig`): batch width (sources per traversal: 64 ... 2048), direction
(push only, or push/pull per level with threshold ``alpha``) and block size; :func:`tune_batch`
times every combination on the graph and returns the fastest per source.
"""
from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field

import numpy as np

from ._engine import release_resident
from .errors import ConfigError, VertexError

__all__ = ["BatchConfig", "BatchBFSResult", "BatchBFSEngine", "run_batch", "closeness_centrality", "tune_batch",
           "BATCH_WIDTHS", "MSARGS_DTYPE"]

#: Sources per traversal (64 * W status words per vertex).
BATCH_WIDTHS: tuple[int, ...] = (64, 128, 256, 512, 1024, 2048)
BATCH_BLOCK_SIZES: tuple[int, ...] = (256, 512)
BATCH_DIRECTIONS: tuple[str, ...] = ("push", "push_pull")
BATCH_ALPHAS: tuple[float, ...] = (2.0, 8.0)

#: Mirrors ``struct MSArgs`` (kernels/msbfs.cu), 208 bytes.
MSARGS_DTYPE = np.dtype([
    ("seen", "<u8"), ("nx", "<u8", (2,)), ("fr", "<u8", (2,)), ("mark", "<u8"), ("queue", "<u8", (3,)),
    ("qsize", "<u8"), ("qdeg", "<u8"), ("dist", "<u8"), ("reached", "<u8"), ("dist_sum", "<u8"), ("ecc", "<u8"),
    ("barrier", "<u8"), ("out", "<u8"), ("n_vertices", "<i4"), ("n_sources", "<i4"), ("dist_bytes", "<i4"),
    ("dir_mode", "<i4"), ("alpha", "<f4"), ("heavy_push", "<i4"), ("n_edges", "<i8"), ("dist_stride", "<i8"),
    ("chunks", "<u8"), ("ccount", "<u8"), ("pull_chunks", "<u8"), ("n_pull_chunks", "<i8")], align=True)
assert MSARGS_DTYPE.itemsize == 208

#: In-edges a pull level's group of W lanes scans per work item (``MS_PULL_CHUNK``, kernels/msbfs.cu).
MS_PULL_CHUNK = 64


def push_chunk_edges(words: int) -> int:
    """Out-edges per push work item of the batched kernel (``MS_PUSH_ITERS * 32 / W``, kernels/msbfs.cu)."""
    return 16 * (32 // words)


@dataclass(frozen=True)
class BatchConfig:
    """Knobs of the batched BFS kernel.

    Parameters
    ----------
    width : {64, 128, 256, 512, 1024, 2048}
        Sources advanced by one traversal (status words per vertex = width / 64). Wider batches
        share more of each level's memory traffic when the sources' frontiers overlap (small-world
        graphs, nearby sources) and cost more per edge when they do not.
    direction : {'push', 'push_pull'}
        ``push_pull``: a level whose frontier's out-edges exceed ``n_edges / alpha`` runs bottom-up
        (each vertex not yet reached by every source ORs its in-neighbours' frontier words and stops
        once every missing source is found).
    alpha : {2.0, 8.0}
        Pull threshold (only with ``push_pull``).
    block_size : {256, 512}
        Threads per block of the cooperative kernel.

    Raises
    ------
    ConfigError
        A value outside the allowed ones (naming the field).
    """

    width: int = 256
    direction: str = "push_pull"
    alpha: float = 2.0
    block_size: int = 256

    def __post_init__(self):
        for name, allowed in (("width", BATCH_WIDTHS), ("direction", BATCH_DIRECTIONS), ("alpha", BATCH_ALPHAS),
                              ("block_size", BATCH_BLOCK_SIZES)):
            v = getattr(self, name)
            if v not in allowed:
                raise ConfigError(f"BatchConfig.{name}: invalid value {v!r}; allowed: "
                                  f"{', '.join(repr(a) for a in allowed)}")

    @property
    def words(self) -> int:
        return self.width // 64

    @property
    def config_id(self) -> str:
        return f"msbfs-w{self.width}-{self.direction}" + (f"-a{self.alpha:g}" if self.direction == "push_pull" else "") \
            + f"-b{self.block_size}"


def default_batch_config(graph, n_sources: int) -> BatchConfig:
    """The rule used when no :class:`BatchConfig` is given: the widest batch not wider than the
    number of sources (rounded up to a power of two >= 64) and at most 512 (wider batches pay W
    words per edge even where the sources' frontiers do not overlap), push/pull."""
    w = 64
    while w < min(n_sources, 512):
        w *= 2
    return BatchConfig(width=w)


@dataclass
class BatchBFSResult:
    """Result of a batched BFS from ``len(sources)`` sources.

    Attributes
    ----------
    sources : ndarray, shape (n_sources,), int32
        The sources, in the order given (duplicates kept).
    distances : ndarray, shape (n_sources, n_vertices) or None
        Hop distance of every vertex from each source; -1 = unreached. Its dtype is the smallest
        signed integer type holding the largest distance found: int8 (depth <= 127), int16 (<=
        32767), else int32. None when the run asked for reductions only. CuPy when the graph lives
        on the GPU, else NumPy.
    predecessors : ndarray, shape (n_sources, n_vertices), int32, or None
        A BFS-tree parent per (source, vertex): the first in-neighbour in CSR order one level up;
        the source is its own parent; -1 = unreached. Only when asked for.
    reached : ndarray, shape (n_sources,), int64
        Vertices reached from each source (the source included).
    distance_sums : ndarray, shape (n_sources,), int64
        Sum of the distances of the reached vertices.
    eccentricity : ndarray, shape (n_sources,), int32
        Largest distance reached from each source (within its component).
    elapsed_ms : float
        Device time of the whole batch (CUDA events), ms.
    config : BatchConfig
    """

    sources: np.ndarray
    distances: object
    predecessors: object
    reached: np.ndarray
    distance_sums: np.ndarray
    eccentricity: np.ndarray
    elapsed_ms: float
    config: BatchConfig
    extra: dict = field(default_factory=dict)

    @property
    def n_sources(self) -> int:
        return len(self.sources)

    @property
    def ms_per_source(self) -> float:
        return self.elapsed_ms / max(1, self.n_sources)


def _as_sources(graph, sources) -> np.ndarray:
    """Validated int32 sources (raises VertexError naming the first bad one and its index)."""
    if hasattr(sources, "get") and type(sources).__module__.startswith("cupy"):
        sources = sources.get()
    arr = np.asarray(sources)
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim != 1:
        raise VertexError(f"sources must be a 1-D array of vertex ids; got shape {arr.shape}")
    if arr.size == 0:
        raise VertexError("sources is empty: give at least one vertex id")
    if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
        arr = arr.astype(np.int64)
    if arr.dtype.kind not in "iu":
        raise VertexError(f"sources must be integer vertex ids; got dtype {arr.dtype}")
    n = graph.n_vertices
    bad = np.flatnonzero((arr < 0) | (arr >= n))
    if bad.size:
        i = int(bad[0])
        raise VertexError(f"sources[{i}] = {int(arr[i])} is not a vertex (graph has {n:,} vertices; "
                          f"{bad.size:,} of {arr.size:,} sources out of range)")
    return arr.astype(np.int32)


class BatchBFSEngine:
    """Device buffers and kernels of the batched BFS for one graph x :class:`BatchConfig`.

    Parameters
    ----------
    graph : CSRGraph
    config : BatchConfig, optional
    reverse : bool
        Traverse in-edges instead of out-edges (distances *to* each source; closeness of directed
        graphs uses this, as NetworkX does).
    offsets : {'int32', 'int64'}, optional
        Row-offset type of the kernels; default int32 below 2**31 edges, else int64
        (:func:`autotune._engine.offset_dtype`).

    Raises
    ------
    GPUUnavailableError
        Without a usable GPU.
    DeviceMemoryError
        When the status words and queues do not fit in free device memory (bytes needed vs free).
    GraphTooLargeError
        Past 2**33 - 1 edges.
    """

    def __init__(self, graph, config: BatchConfig | None = None, *, reverse: bool = False, offsets: str | None = None):
        from ._backend import device_properties, require_gpu

        require_gpu("batched BFS on the GPU")
        import cupy

        from ._engine import check_device_memory, offset_dtype, transpose_csr
        from ._kernels import get_kernel

        self.graph = graph
        self.config = cfg = config if config is not None else BatchConfig()
        self.reverse = reverse
        n, m = graph.n_vertices, graph.n_edges
        self.n = n
        W = cfg.words
        need = self.state_bytes(n, W, m)
        if graph.directed and "transpose" not in graph._cache:
            need += 4 * (n + 1) + 16 * m
        check_device_memory(need, f"batched BFS on {graph.name!r} ({n:,} vertices, width {cfg.width})")
        eid = offset_dtype(m, offsets)  # int64 row offsets (the -DAT_EID64 modules) past 2**31 - 1 edges
        self.eid64 = eid.itemsize == 8
        ro, ci = graph.device()
        ro = ro if ro.dtype == eid else ro.astype(eid)
        if graph.directed:
            ti, tx = transpose_csr(graph)
            ti = ti if ti.dtype == eid else ti.astype(eid)
        else:
            ti, tx = ro, ci
        if reverse:
            ro, ci, ti, tx = ti, tx, ro, ci
        self.out_offsets, self.out_indices, self.in_offsets, self.in_indices = ro, ci, ti, tx
        nn = max(n, 1)
        self.seen = cupy.empty(nn * W, dtype=np.uint64)
        self.nx = [cupy.empty(nn * W, dtype=np.uint64) for _ in range(2)]
        self.fr = [cupy.empty(nn * W, dtype=np.uint64) for _ in range(2)]
        self.mark = cupy.empty(nn, dtype=np.int32)
        self.queues = [cupy.empty(nn, dtype=np.int32) for _ in range(3)]
        self.small = cupy.zeros(64, dtype=np.int64)  # qsize[3] (as int32 pairs), qdeg[3], barrier, out, ccount[2]
        self.qsize = self.small[0:2].view(np.int32)[:3]
        self.qdeg = self.small[2:5].view(np.uint64)
        self.barrier = self.small[5:6].view(np.uint32)
        self.out = self.small[6:7].view(np.int32)
        self.ccount = self.small[7:8].view(np.int32)
        # push work items: a queued vertex's edge chunks past the first (at most m / chunk per level)
        self.chunks = cupy.empty(m // push_chunk_edges(W) + 2, dtype=np.uint64)
        # pull work items, fixed per graph: in-edge chunks k >= 1 of each vertex with more than
        # MS_PULL_CHUNK in-edges, as (w | k << 32)
        self.pull_chunks = self._pull_chunks(self.in_offsets, n) if cfg.direction == "push_pull" else None
        self.sources_dev = cupy.empty(cfg.width, dtype=np.int32)
        self.args_host = np.zeros((), dtype=MSARGS_DTYPE)
        a = self.args_host
        a["seen"] = self.seen.data.ptr
        a["nx"] = [x.data.ptr for x in self.nx]
        a["fr"] = [x.data.ptr for x in self.fr]
        a["mark"] = self.mark.data.ptr
        a["queue"] = [q.data.ptr for q in self.queues]
        a["qsize"] = self.qsize.data.ptr
        a["qdeg"] = self.qdeg.data.ptr
        a["barrier"] = self.barrier.data.ptr
        a["out"] = self.out.data.ptr
        a["n_vertices"] = n
        a["dir_mode"] = 1 if cfg.direction == "push_pull" else 0
        a["alpha"] = cfg.alpha
        a["n_edges"] = m
        a["heavy_push"] = int(m > 0 and int(cupy.diff(ro).max()) > push_chunk_edges(W))
        a["chunks"] = self.chunks.data.ptr
        a["ccount"] = self.ccount.data.ptr
        a["pull_chunks"] = 0 if self.pull_chunks is None else self.pull_chunks.data.ptr
        a["n_pull_chunks"] = 0 if self.pull_chunks is None else self.pull_chunks.size
        self.args = cupy.empty(MSARGS_DTYPE.itemsize, dtype=np.uint8)
        self._init = get_kernel("msbfs", f"msbfs_init<{W}>", "bfs", self.eid64)
        self._levels = get_kernel("msbfs", f"msbfs_levels<{W}, {cfg.block_size}>", "bfs", self.eid64)
        props = device_properties()
        func = getattr(self._levels, "kernel", self._levels)
        try:
            per_sm = cupy.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(func.ptr, cfg.block_size, 0)
        except Exception:
            per_sm = max(1, props["max_threads_per_sm"] // cfg.block_size)
        self.grid = int(props["sm_count"] * max(1, per_sm))
        self.stream = cupy.cuda.Stream(non_blocking=True)
        self._events = (cupy.cuda.Event(), cupy.cuda.Event())
        # the graph's arrays and the batch state were filled on the stream current while building,
        # which the non-blocking engine stream does not wait for
        release_resident()  # (a resident whole-graph kernel would hold the synchronize up)
        cupy.cuda.Device().synchronize()

    @staticmethod
    def _pull_chunks(in_offsets, n: int, xp=None):
        """Pull work items: in-edge chunks ``k >= 1`` of the vertices with more than ``MS_PULL_CHUNK``
        in-edges, as uint64 ``w | k << 32`` (chunk k covers in-edges ``[k * 64, (k + 1) * 64)`` of w;
        chunk 0 is w's own item). Vectorized in *xp* (CuPy by default; NumPy in the CPU tests), no
        Python per vertex."""
        if xp is None:
            import cupy as xp
        indeg = xp.diff(in_offsets[: n + 1].astype(xp.int64))
        extra = xp.maximum((indeg + MS_PULL_CHUNK - 1) // MS_PULL_CHUNK - 1, 0)
        total = int(extra.sum()) if n else 0
        if total == 0:
            return xp.zeros(0, dtype=xp.uint64)
        ends = xp.cumsum(extra)  # items of vertices 0..w
        pos = xp.arange(total, dtype=xp.int64)
        owners = xp.searchsorted(ends, pos, side="right")
        k = pos - (ends - extra)[owners] + 1
        return owners.astype(xp.uint64) | (k.astype(xp.uint64) << xp.uint64(32))

    @staticmethod
    def state_bytes(n_vertices: int, words: int, n_edges: int = 0) -> int:
        """Device bytes of the batch state: 5 status-word arrays (8 * words bytes per vertex each),
        the level marks and three queues (4 bytes per vertex each), and at most ``n_edges /
        push_chunk_edges(words)`` push and ``n_edges / MS_PULL_CHUNK`` pull work items of 8 bytes."""
        items = n_edges // push_chunk_edges(words) + n_edges // MS_PULL_CHUNK + 4
        return 5 * 8 * words * max(n_vertices, 1) + 16 * max(n_vertices, 1) + 8 * items + 4096

    def _launch_batch(self, srcs_dev, k: int, dist_ptr: int, dist_bytes: int, stride: int, reached, dsum, ecc):
        """Enqueue one batch of *k* sources (device int32 array) on the engine's stream."""
        import cupy

        rt = cupy.cuda.runtime
        sp = self.stream.ptr
        for arr in (self.seen, self.nx[0], self.nx[1], self.fr[0], self.fr[1]):
            rt.memsetAsync(arr.data.ptr, 0, arr.nbytes, sp)
        rt.memsetAsync(self.mark.data.ptr, 0xFF, self.mark.nbytes, sp)
        rt.memsetAsync(self.small.data.ptr, 0, self.small.nbytes, sp)
        a = self.args_host
        a["n_sources"] = k
        a["dist"] = dist_ptr
        a["dist_bytes"] = dist_bytes
        a["dist_stride"] = stride
        a["reached"], a["dist_sum"], a["ecc"] = reached, dsum, ecc
        # the block is read by the kernels of this batch only: a stream-ordered copy from a fresh
        # host buffer (CuPy keeps it alive until the copy is done)
        buf = np.frombuffer(a.tobytes(), dtype=np.uint8)
        self.args.set(buf, stream=self.stream)
        with self.stream:
            self._init(((k + 255) // 256,), (256,), (self.out_offsets, srcs_dev, self.args))
            self._levels((self.grid,), (self.config.block_size,),
                         (self.out_offsets, self.out_indices, self.in_offsets, self.in_indices, self.args))

    def run(self, sources, *, distances: bool = True, predecessors: bool = False, progress=None) -> BatchBFSResult:
        """BFS from every source of *sources* (batches of ``config.width``).

        Parameters
        ----------
        sources : array_like of int, shape (n_sources,)
            Internal vertex ids; duplicates allowed (each gets its own row).
        distances : bool
            Build the (n_sources, n_vertices) distance matrix (else reductions only).
        predecessors : bool
            Also build the predecessor matrix (needs ``distances``).
        progress : callable, optional
            ``progress(done_sources, total_sources)`` after each batch is queued.

        Raises
        ------
        VertexError
            A source that is not a vertex (its index and value named), or an empty / non-integer
            *sources*.
        DeviceMemoryError
            When the matrices do not fit in free device memory (bytes needed vs free).
        """
        import cupy

        from ._engine import check_device_memory

        src = _as_sources(self.graph, sources)
        k_total = len(src)
        n = self.n
        if predecessors and not distances:
            raise ValueError("predecessors=True needs distances=True (predecessors are derived from distances)")
        dist_bytes = 2  # int16 first; rerun as int32 if a depth passes 32767
        mat_bytes = (k_total * n * dist_bytes if distances else 0) + (k_total * n * 4 if predecessors else 0)
        check_device_memory(mat_bytes + 20 * k_total, f"batched BFS result matrices ({k_total:,} sources x {n:,} "
                                                       f"vertices)")
        while True:
            res = self._run(src, distances, dist_bytes, progress)
            if res is not None:
                break
            dist_bytes = 4  # a depth past 32767: int32 matrix
        dist, reached, dsum, ecc, ms = res
        pred = None
        if predecessors:
            with self.stream:
                pred = cupy.empty((k_total, n), dtype=np.int32)
            from ._kernels import get_kernel

            k = get_kernel("msbfs_post", f"msbfs_predecessors<{'short' if dist.dtype == np.int16 else 'int'}>", "bfs",
                           self.eid64)
            total = k_total * n
            with self.stream:
                k((min((total + 255) // 256, 16384),), (256,), (self.in_offsets, self.in_indices, dist, pred, np.int32(n),
                                                     np.int64(total)))
            self.stream.synchronize()
        if dist is not None:
            depth = int(ecc.max()) if k_total else 0
            if depth <= 127:
                dist = dist.astype(np.int8)
            elif depth <= 32767 and dist.dtype != np.int16:
                dist = dist.astype(np.int16)
        host = not self.graph.on_device
        if host:
            dist = dist.get() if dist is not None else None
            pred = pred.get() if pred is not None else None
        return BatchBFSResult(sources=src, distances=dist, predecessors=pred, reached=reached.get().astype(np.int64),
                              distance_sums=dsum.get().astype(np.int64), eccentricity=ecc.get().astype(np.int32),
                              elapsed_ms=ms, config=self.config)

    def _run(self, src: np.ndarray, distances: bool, dist_bytes: int, progress):
        import cupy

        release_resident()  # its cooperative launches need every SM

        n, k_total, width = self.n, len(src), self.config.width
        with self.stream:  # allocated and filled in the order of the batch's kernels
            dist = cupy.full((k_total, n), -1, dtype=np.int16 if dist_bytes == 2 else np.int32) if distances else None
            reached = cupy.zeros(k_total, dtype=np.int32)
            dsum = cupy.zeros(k_total, dtype=np.uint64)
            ecc = cupy.zeros(k_total, dtype=np.int32)
            src_dev = cupy.asarray(src)
            overflow = cupy.zeros(1, dtype=np.int32)
        start, end = self._events
        start.record(self.stream)
        for b0 in range(0, k_total, width):
            k = min(width, k_total - b0)
            dptr = dist.data.ptr + b0 * n * dist.itemsize if distances else 0
            self._launch_batch(src_dev[b0:b0 + k], k, dptr, dist_bytes, n, reached.data.ptr + 4 * b0,
                               dsum.data.ptr + 8 * b0, ecc.data.ptr + 4 * b0)
            if distances:
                with self.stream:
                    cupy.maximum(overflow, self.out[1:2], out=overflow)
            if progress is not None:
                progress(b0 + k, k_total)
        end.record(self.stream)
        end.synchronize()
        if distances and dist_bytes == 2 and int(overflow.get()[0]):
            return None
        return dist, reached, dsum, ecc, float(cupy.cuda.get_elapsed_time(start, end))


def _engine(graph, config: BatchConfig, reverse: bool = False) -> BatchBFSEngine:
    key = ("batch_engine", config, reverse)
    eng = graph._cache.get(key)
    if eng is None:
        for k in [k for k in graph._cache if isinstance(k, tuple) and k and k[0] == "batch_engine"]:
            del graph._cache[k]  # one batched engine per graph: release the previous buffers
        eng = graph._cache[key] = BatchBFSEngine(graph, config, reverse=reverse)
    return eng


def run_batch(graph, sources, config: BatchConfig | None = None, *, distances: bool = True,
              predecessors: bool = False, progress=None) -> BatchBFSResult:
    """Batched BFS from *sources* (see :class:`BatchBFSEngine.run`); the engine is cached on the graph.

    Parameters
    ----------
    graph : CSRGraph or anything :func:`autotune.load_graph` accepts
    sources : array_like of int
    config : BatchConfig, optional
        Default: :func:`default_batch_config` for this number of sources.

    Returns
    -------
    BatchBFSResult
    """
    from .graph import CSRGraph, load_graph

    if not isinstance(graph, CSRGraph):
        graph = load_graph(graph)
    src = _as_sources(graph, sources)
    cfg = config if config is not None else default_batch_config(graph, len(src))
    return _engine(graph, cfg).run(src, distances=distances, predecessors=predecessors, progress=progress)


def closeness_from_reductions(n_vertices: int, reached, distance_sums, wf_improved: bool = True) -> np.ndarray:
    """NetworkX's closeness from per-vertex reached counts r (self included) and distance sums S:
    ``(r - 1) / S``, times ``(r - 1) / (n - 1)`` with ``wf_improved``; 0 where S == 0 or n == 1."""
    r = np.asarray(reached, dtype=np.float64)
    s = np.asarray(distance_sums, dtype=np.float64)
    out = np.zeros_like(r)
    ok = (s > 0) & (n_vertices > 1)
    out[ok] = (r[ok] - 1.0) / s[ok]
    if wf_improved and n_vertices > 1:
        out[ok] *= (r[ok] - 1.0) / (n_vertices - 1)
    return out


def locality_order(graph) -> np.ndarray:
    """Vertices in reverse Cuthill-McKee order (scipy): consecutive vertices are close in the graph,
    so a batch of consecutive sources has overlapping frontiers (this only changes speed)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import reverse_cuthill_mckee

    ro, ci = graph.row_offsets, graph.column_indices
    if hasattr(ro, "get"):
        ro, ci = ro.get(), ci.get()
    n = graph.n_vertices
    a = csr_matrix((np.ones(len(ci), dtype=np.int8), np.asarray(ci), np.asarray(ro)), shape=(n, n))
    return np.asarray(reverse_cuthill_mckee(a, symmetric_mode=not graph.directed), dtype=np.int32)


def closeness_centrality(graph, sources=None, *, wf_improved: bool = True, config: BatchConfig | None = None,
                         progress=None):
    """Closeness centrality with NetworkX's definition, from batched BFS on the GPU.

    ``C(u) = (r(u) - 1) / S(u)`` where ``r(u)`` counts the vertices that can reach ``u`` (``u``
    included) and ``S(u)`` sums their distances to ``u`` (NetworkX uses inward distance on directed
    graphs: the traversal runs over in-edges); with ``wf_improved`` (Wasserman & Faust) it is scaled
    by ``(r(u) - 1) / (n - 1)``; 0 when ``S(u) == 0``. Distances are never stored: each source's
    ``r`` and ``S`` are counted on the device.

    Parameters
    ----------
    graph : CSRGraph or anything :func:`autotune.load_graph` accepts
    sources : array_like of int, optional
        Vertices to compute it for (default: all). Batches take them in a locality order (reverse
        Cuthill-McKee) so each batch's frontiers overlap; the result follows *sources*' order.
    wf_improved : bool
    config : BatchConfig, optional
        Default: width 1024 (fewer for fewer sources), push/pull (see :func:`tune_batch` to pick per graph).
    progress : callable, optional
        ``progress(done, total)`` after each batch is queued.

    Returns
    -------
    ndarray of float64, shape (len(sources),)

    Raises
    ------
    VertexError, GPUUnavailableError, DeviceMemoryError
    """
    from .graph import CSRGraph, load_graph

    if not isinstance(graph, CSRGraph):
        graph = load_graph(graph)
    n = graph.n_vertices
    if sources is None:
        order = locality_order(graph)
        src = order
    else:
        src = _as_sources(graph, sources)
        order = None
    # all-vertex runs: a wide batch (every vertex of road-usroads, H200: 1024 -> 3.9 s, 2048 -> 4.1 s,
    # 512 -> 4.4 s, 256 -> 6.2 s)
    w = 64
    while w < min(len(src), 1024):
        w *= 2
    cfg = config if config is not None else BatchConfig(width=w)
    eng = _engine(graph, cfg, reverse=graph.directed)
    res = eng.run(src, distances=False, progress=progress)
    c = closeness_from_reductions(n, res.reached, res.distance_sums, wf_improved)
    if order is not None:
        out = np.empty(n, dtype=np.float64)
        out[order] = c
        return out
    return c


def tune_batch(graph, n_sources: int = 1024, *, seed: int = 0, configs=None, repeats: int = 2) -> tuple[BatchConfig, list]:
    """Time every :class:`BatchConfig` (or *configs*) on *n_sources* random sources of *graph*
    and return ``(fastest, [(config, ms per source), ...])``. Needs a GPU."""
    rng = np.random.default_rng(seed)
    src = rng.integers(0, graph.n_vertices, size=min(n_sources, max(1, graph.n_vertices)), dtype=np.int64)
    if configs is None:
        configs = [BatchConfig(width=w, direction=d, alpha=a if d == "push_pull" else 2.0, block_size=b)
                   for w, d, a, b in itertools.product(BATCH_WIDTHS, BATCH_DIRECTIONS, BATCH_ALPHAS, BATCH_BLOCK_SIZES)
                   if not (d == "push" and a != 2.0)]
    rows = []
    for cfg in configs:
        eng = _engine(graph, cfg)
        eng.run(src[: cfg.width], distances=False)  # warm-up (compile, first touch)
        best = min(eng.run(src, distances=False).elapsed_ms for _ in range(repeats))
        rows.append((cfg, best / len(src)))
    rows.sort(key=lambda r: r[1])
    return rows[0][0], rows
