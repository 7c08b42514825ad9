"""The traversal engines: BFS and SSSP on the same load-balancing techniques.

Each engine is the generic machinery of :mod:`autotune._engine` (buffers, launch sequence,
device-side level batching, state read-back) plus its operator's state: BFS's ``distances`` and
``predecessors`` (the claim-once operator, ``kernels/op_bfs.cuh``), SSSP's packed
distance/predecessor words, stamps and buckets (the relax operator, ``kernels/op_sssp.cuh``, with
the bucket moves of ``kernels/sssp.cu``). :func:`run` picks the engine from
``TraversalConfig.algorithm``.

BFS is level-synchronous: a push level fuses ``advance`` and ``filter`` (unvisited neighbours are
claimed with ``atomicCAS`` on ``distances``, so the next frontier holds no duplicates); with
``direction="push_pull"`` large levels may run as pull (bottom-up) levels; small frontiers run in the
single-block or persistent kernels that iterate levels on the device.

SSSP (Busato & Bombieri, *Graph Algorithms on GPUs*, §3): frontier Bellman-Ford (H-BF), Delta-stepping
and the Near-Far pile, on every technique, with the same device-resident iteration (no host round
trip per iteration).
"""
from __future__ import annotations

from dataclasses import dataclass, field
import time

import numpy as np

from ._engine import (  # noqa: F401  (re-exported: the engine's public names)
    AT_OFF, AUX_DTYPE, BUCKET_BLOCK, DEVICE_STRUCTS, FIRST_BATCH, HUB_CACHE_ENTRIES, MAX_BATCH, OPARGS_DTYPE,
    PARAMS_DTYPE, PERSISTENT_BLOCKS_PER_SM, SB_EDGE_FACTOR, SB_THREADS, SSSP_STATE_DTYPE, STATE_DTYPE, LevelTrace,
    TraversalEngine, check_device_memory, common_bytes_needed, transpose_csr)
from ._backend import count_nonzero, masked_sum
from ._kernels import get_kernel
from .config import TraversalConfig
from .graph import CSRGraph
from .sssp_rules import delta_rule

#: What ``run(graph)`` / ``BFSEngine(graph)`` use when no config is given: the most robust config
#: measured on an H100 (binary search + direction-optimizing + single-block small levels). It is
#: within ~5% of the best measured config on roads and meshes and 3x faster than push-only on
#: Kronecker graphs; ``tune(graph)`` picks per graph.
DEFAULT_CONFIG = TraversalConfig(load_balance="binary_search", direction="push_pull")
#: What ``SSSPEngine(graph)`` runs when no config is given: the documented rule of
#: :mod:`autotune.sssp_rules` (Delta-stepping with the bucket width of *Graph Algorithms on GPUs*
#: §3.1 on binary search); ``tune(graph, algorithm='sssp')`` picks per graph.
DEFAULT_SSSP_CONFIG = delta_rule()


def device_bytes_needed(graph: CSRGraph, config: TraversalConfig) -> int:
    """Device memory (bytes) an engine allocates for *graph* with *config* (either algorithm).

    Counts the CSR upload when the graph is still on the host, the buffers every traversal needs
    (:func:`autotune._engine.common_bytes_needed`) and the operator's own state.
    """
    n, m = graph.n_vertices, graph.n_edges
    if config.algorithm == "sssp":
        return common_bytes_needed(graph, config, 2 * n + 64) + SSSPEngine.state_bytes(graph, config)
    return common_bytes_needed(graph, config, n + 2) + 8 * n


def _is_device_array(a) -> bool:
    return a is not None and type(a).__module__.startswith("cupy")


class _LazyArrays:
    """Result arrays typed like the input graph's: CuPy arrays for a graph on the GPU (never copied
    to the host), NumPy for a host graph, copied from the device once, on first access. The arrays
    may come as the rows of one stacked array (*rows*, named by ``_ROW_NAMES``), whose row views are
    made when first read: a result nobody reads costs no view (a CuPy view is a few µs of host time,
    on the path of every call of a loop)."""

    _ROW_NAMES: tuple = ()

    def _init_arrays(self, host: bool, rows=None, **arrays) -> None:
        self._host = bool(host)
        self._arrays = dict(arrays)
        self._rows = rows

    def _raw(self, name: str):
        """The array as the device left it (a row view of *rows*, made once): no host copy."""
        a = self._arrays.get(name)
        if a is None and self._rows is not None:
            a = self._arrays[name] = self._rows[self._ROW_NAMES.index(name)]
        return a

    def _array(self, name: str):
        a = self._raw(name)
        if self._host and _is_device_array(a):
            a = self._arrays[name] = a.get()
        return a


class BFSResult(_LazyArrays):
    """Result of one traversal.

    Attributes
    ----------
    source : int
        Internal id of the source vertex.
    distances : ndarray, shape (n_vertices,), int32
        Hop distance from the source; -1 for unreached vertices. A CuPy array when the graph's
        arrays live on the GPU (no host copy is made), else a NumPy array copied from the device
        once, when first read.
    predecessors : ndarray, shape (n_vertices,), int32
        BFS-tree parent; the source is its own parent; -1 for unreached vertices (typed like
        ``distances``).
    depth : int
        Largest distance reached (0 when the source has no out-edges).
    levels : list of LevelTrace
        Per-level trace (frontier size, direction, path, virtual warp size, µs); empty unless the
        traversal ran with ``trace=True``.
    elapsed_ms : float
        Device time of the whole traversal (CUDA events around it, host waits included), ms; on a
        resident engine (``autotune._engine.RESIDENT``) the host's time from the request to the answer.
    edges_traversed : int
        Sum of out-degrees of the reached vertices (Graph500 TEPS numerator); computed on the
        device when first read.
    gteps : float
        ``edges_traversed / elapsed`` in 10^9 edges per second.
    config : TraversalConfig
        The configuration that ran.

    Notes
    -----
    The engines pass ``rows``: one int32 array of shape (2, n_vertices) whose rows are the distances
    and the predecessors (the row views are made when first read; a host graph's row is copied to
    NumPy then, the other row only if read too).
    """

    _ROW_NAMES = ("distances", "predecessors")

    def __init__(self, source, distances, predecessors, depth, levels, elapsed_ms, edges_traversed=None,
                 gteps=None, config=None, extra=None, *, out_degrees=None, host: bool = True, rows=None):
        self.source = int(source)
        self.depth = int(depth)
        self.levels = levels
        self.elapsed_ms = float(elapsed_ms)
        self.config = config
        self.extra = extra if extra is not None else {}
        self._edges = edges_traversed
        self._gteps = gteps
        self._out_degrees = out_degrees
        if rows is not None:  # distances and predecessors as the rows of one (2, n) array
            self._init_arrays(host, rows)
        else:
            self._init_arrays(host, distances=distances, predecessors=predecessors)

    @property
    def distances(self):
        return self._array("distances")

    @property
    def predecessors(self):
        return self._array("predecessors")

    @property
    def edges_traversed(self) -> int:
        if self._edges is None:
            d = self._raw("distances")
            deg = self._out_degrees
            if not _is_device_array(d):
                deg = deg.get() if _is_device_array(deg) else np.asarray(deg)
            self._edges = masked_sum(d >= 0, deg)
        return self._edges

    @property
    def gteps(self) -> float:
        if self._gteps is None:
            ms = self.elapsed_ms
            self._gteps = self.edges_traversed / (ms * 1e-3) / 1e9 if ms > 0 else 0.0
        return self._gteps

    @property
    def n_reached(self) -> int:
        """Number of vertices reached (source included)."""
        return count_nonzero(self._raw("distances") >= 0)

    def __repr__(self) -> str:
        return (f"BFSResult(source={self.source}, depth={self.depth}, n_reached={self.n_reached}, "
                f"elapsed_ms={self.elapsed_ms:.4f})")


class BFSEngine(TraversalEngine):
    """BFS on one graph x config: the claim-once operator (``kernels/op_bfs.cuh``).

    Parameters
    ----------
    graph : CSRGraph
        Uploaded to the device on first use (``graph.device()``).
    config : TraversalConfig, optional
        ``algorithm='bfs'``; defaults to :data:`DEFAULT_CONFIG`.
    offsets : {'int32', 'int64'}, optional
        Row-offset type of the kernels; default: int32 below 2**31 edges, else int64
        (:func:`autotune._engine.offset_dtype`). ``'int64'`` runs the 64-bit kernels on any graph.

    Raises
    ------
    GPUUnavailableError, DeviceMemoryError, ValueError
        See :class:`autotune._engine.TraversalEngine`.
    """

    algorithm = "bfs"
    claim_once = True

    def __init__(self, graph: CSRGraph, config: TraversalConfig | None = None, *, offsets: str | None = None):
        super().__init__(graph, config if config is not None else DEFAULT_CONFIG, offsets=offsets)

    def _operator_bytes(self) -> int:
        return 8 * self.n  # distances, predecessors

    def _operator_state(self):
        import cupy

        self._dist_pred = cupy.empty((2, self.n), dtype=np.int32)  # one block: one result copy
        self.distances, self.predecessors = self._dist_pred[0], self._dist_pred[1]
        op = np.zeros((), dtype=OPARGS_DTYPE)
        op["distances"] = self.distances.data.ptr
        op["predecessors"] = self.predecessors.data.ptr
        return op

    def _ones_arrays(self) -> list:
        return [self._dist_pred]  # -1 = unreached

    def _result_buffer(self):
        return self._dist_pred

    def reached(self):
        return self.distances >= 0

    def _copy(self, a):
        """A device copy of engine buffer *a* (the next traversal overwrites the buffer)."""
        import cupy

        out = cupy.ndarray(a.shape, a.dtype)  # (no empty_like: ~2 µs less)
        cupy.cuda.runtime.memcpyAsync(out.data.ptr, a.data.ptr, a.nbytes, cupy.cuda.runtime.memcpyDeviceToDevice,
                                      self.stream.ptr)
        return out

    def bfs(self, source: int, *, trace: bool = False) -> BFSResult:
        """Traverse from *source* and return a :class:`BFSResult`.

        Its arrays are device copies made on the engine's stream (a few µs), or by the resident
        kernel itself before it answers (:data:`autotune._engine.RESIDENT`); a host graph's result
        copies them to NumPy when first read. ``trace=True`` also reads the per-level trace back.
        """
        if self.resident:  # the resident kernel copies the results into the new array itself
            import cupy

            both = cupy.ndarray(self._dist_pred.shape, self._dist_pred.dtype)  # (no empty_like: ~2 µs less)
            t0 = time.perf_counter()
            n_levels = self._traverse(source, out=both)  # (its own array: no check)
            elapsed_ms = (time.perf_counter() - t0) * 1e3
        else:
            out = []
            n_levels, elapsed_ms = self.timed_traverse(source, lambda: out.append(self._copy(self._dist_pred)))
            both = out[-1]
        levels = self.level_trace(n_levels) if trace else []
        return BFSResult(source=int(source), distances=None, predecessors=None, rows=both, depth=max(0, n_levels - 1),
                         levels=levels, elapsed_ms=elapsed_ms, config=self.config, extra={"grid": self.grid},
                         out_degrees=self.out_degrees, host=not self.graph.on_device)


@dataclass
class SSSPResult:
    """Result of one single-source shortest-path traversal.

    Attributes
    ----------
    source : int
        Internal id of the source vertex.
    distances : ndarray, shape (n_vertices,)
        Shortest-path distance from the source. Integer weights (and unweighted graphs, unit
        weights): int64, unreached = :data:`UNREACHED_INT` (``np.iinfo(np.int64).max``). Float
        weights: float64 holding the float32 sums computed on the device, unreached = ``+inf``.
    predecessors : ndarray, shape (n_vertices,), int32
        Shortest-path-tree parent: ``dist[pred[v]] + w(pred[v], v) == dist[v]``; the source is its own
        parent; -1 for unreached vertices.
    iterations : list of LevelTrace
        Per-iteration trace (frontier size, kernel path, µs); bucket moves are not iterations.
    elapsed_ms : float
        Device time of the whole traversal (CUDA events around it, host loop included), ms.
    relaxations : int
        Edges relaxed (the out-degrees of every frontier expanded, summed over iterations).
    edges_traversed : int
        Sum of out-degrees of the reached vertices (the TEPS numerator of the BFS protocol).
    gteps : float
        ``edges_traversed / elapsed`` in 10^9 edges per second.
    config : TraversalConfig
        The configuration that ran.
    delta : float or None
        Bucket width used (weight units), None for Bellman-Ford.
    """

    source: int
    distances: np.ndarray
    predecessors: np.ndarray
    iterations: list[LevelTrace]
    elapsed_ms: float
    relaxations: int
    edges_traversed: int
    gteps: float
    config: TraversalConfig
    delta: float | None = None
    extra: dict = field(default_factory=dict)

    @property
    def n_reached(self) -> int:
        """Number of vertices reached (source included)."""
        return count_nonzero(self.predecessors >= 0)

    @property
    def levels(self) -> list[LevelTrace]:
        """Alias of :attr:`iterations` (the name the BFS result uses)."""
        return self.iterations


#: Unreached distance of integer-weight SSSP results.
UNREACHED_INT = np.iinfo(np.int64).max
_SSSP_METHOD_CODES = {"bellman_ford": 0, "delta_stepping": 1, "near_far": 2}


def delta_heuristic(graph: CSRGraph) -> float:
    """Delta-stepping bucket width of *Graph Algorithms on GPUs* §3.1 (after Davidson et al.):
    ``32 * mean weight / mean out-degree`` (32 = warp width; unit weights when unweighted).

    Returns
    -------
    float
        In weight units (> 0).
    """
    n, m = graph.n_vertices, graph.n_edges
    if m == 0 or n == 0:
        return 1.0
    w = graph.weights
    mean_w = 1.0 if w is None else float(w.mean(dtype=np.float64))
    return 32.0 * mean_w / (m / n)


def sssp_bucket_kernels(method: str, wp: str) -> list[str]:
    """Name expressions (in ``kernels/sssp.cu``) of the bucket moves of SSSP *method* (none for
    ``bellman_ford``); *wp* is ``"true"`` when the frontier carries degree prefix-sums."""
    if method == "bellman_ford":
        return []
    return ["sssp_bucket_check"] + (["sssp_r_move<%s>" % wp] if method == "delta_stepping" else []) + [
        "sssp_far_min", "sssp_far_split<%s>" % wp]


def prefetch_kernels(config: TraversalConfig, eid64: bool = False) -> None:
    """Compile (or load from CuPy's disk cache) the kernels a run of *config* launches, several at
    once, before any graph exists: ``autotune run`` calls this in a background thread while it
    loads the graph, so that a first run on a fresh machine overlaps its compiles with parsing.
    The pull bitmap's kernel, which depends on the graph's size, is left to the engine."""
    from ._engine import launch_kernels
    from ._kernels import prefetch
    from .techniques import technique

    wp = "true" if technique(config.load_balance).frontier_prefix else "false"
    extra = [("sssp", k) for k in sssp_bucket_kernels(config.sssp_method, wp)] if config.algorithm == "sssp" else []
    prefetch(launch_kernels(config) + extra, config.algorithm, eid64)


class SSSPEngine(TraversalEngine):
    """SSSP on one graph x config: the relax operator (``kernels/op_sssp.cuh``) on any technique.

    Distances are 32-bit on the device (unsigned integers for integer weights, float32 for float
    weights) packed with the predecessor in one 64-bit word updated by ``atomicMin`` (H-BF).

    Parameters
    ----------
    graph : CSRGraph
        Its ``weights`` (int32 or float32, positive) are used; an unweighted graph has unit weights.
    config : TraversalConfig, optional
        ``algorithm='sssp'``; defaults to :data:`DEFAULT_SSSP_CONFIG`.
    offsets : {'int32', 'int64'}, optional
        As for :class:`BFSEngine`.

    Raises
    ------
    ValueError
        When integer path lengths could reach 2**32 - 1 ((n_vertices - 1) * max weight), which the
        32-bit device distances cannot hold; plus those of :class:`autotune._engine.TraversalEngine`.
    """

    algorithm = "sssp"

    def __init__(self, graph: CSRGraph, config: TraversalConfig | None = None, *, offsets: str | None = None):
        cfg = config if config is not None else DEFAULT_SSSP_CONFIG
        w = graph.weights
        self.weight_float = w is not None and np.dtype(w.dtype).kind == "f"
        if w is not None and not self.weight_float:
            max_w = int(w.max()) if len(w) else 1
            bound = max(graph.n_vertices - 1, 0) * max_w
            if bound >= 0xFFFFFFFF:
                raise ValueError(
                    f"SSSP on {graph.name!r}: a path can weigh up to (n_vertices - 1) * max weight = {bound:,}, "
                    f"which 32-bit device distances cannot hold (at most {0xFFFFFFFE:,}); use float32 weights "
                    f"or smaller integer weights")
        self.method = cfg.sssp_method
        self.delta = None
        if cfg.delta is not None:
            d = delta_heuristic(graph) * float(cfg.delta)
            self.delta = float(np.float32(d)) if self.weight_float else float(max(1, int(round(d))))
        super().__init__(graph, cfg, offsets=offsets)

    @staticmethod
    def state_bytes(graph: CSRGraph, config: TraversalConfig) -> int:
        """Device bytes of the SSSP operator's state for *graph* x *config*."""
        n = graph.n_vertices
        need = 12 * n + 64  # dist_pred, near_stamp, state
        if config.sssp_method != "bellman_ford":
            need += 4 * n * 2 + 4 * 2 * n  # far stamps + two far piles
            if config.sssp_method == "delta_stepping":
                need += 8 * n  # R stamps + R list
        if graph.weights is not None and not graph.on_device and "device_weights" not in graph._cache:
            need += 4 * graph.n_edges  # the weights' upload
        return need

    def _trace_entries(self, n: int) -> int:
        return 2 * n + 64

    def _operator_bytes(self) -> int:
        return self.state_bytes(self.graph, self.config)

    def _operator_state(self):
        import cupy

        n = max(self.n, 1)
        self.dist_pred = cupy.empty(n, dtype=np.uint64)
        self.near_stamp = cupy.empty(n, dtype=np.int32)
        self.sssp_state = cupy.zeros(SSSP_STATE_DTYPE.itemsize, dtype=np.uint8)
        op = np.zeros((), dtype=OPARGS_DTYPE)
        op["dist_pred"] = self.dist_pred.data.ptr
        op["near_stamp"] = self.near_stamp.data.ptr
        op["sst"] = self.sssp_state.data.ptr
        op["method"] = _SSSP_METHOD_CODES[self.method]
        op["weight_float"] = 1 if self.weight_float else 0
        op["capacity"] = n
        w = self.graph.device_weights()
        if w is not None:
            self.weights = w.view(np.uint32) if w.dtype.itemsize == 4 else w.astype(
                np.float32 if self.weight_float else np.int32).view(np.uint32)
            op["weights"] = self.weights.data.ptr
        if self.delta is not None:
            op["delta"] = (np.float32(self.delta).view(np.uint32) if self.weight_float
                           else np.uint32(int(self.delta)))
        self._piles = []
        if self.method != "bellman_ford":
            self.far_stamp = cupy.empty(n, dtype=np.int32)
            self.far_piles = [cupy.empty(n, dtype=np.int32) for _ in range(2)]
            op["far_stamp"] = self.far_stamp.data.ptr
            op["far"][0], op["far"][1] = self.far_piles[0].data.ptr, self.far_piles[1].data.ptr
            self._piles.append(self.far_stamp)
            if self.method == "delta_stepping":
                self.r_stamp = cupy.empty(n, dtype=np.int32)
                self.r_list = cupy.empty(n, dtype=np.int32)
                op["r_stamp"] = self.r_stamp.data.ptr
                op["r_list"] = self.r_list.data.ptr
                self._piles.append(self.r_stamp)
        return op

    def _bucket_kernels(self, wp: str) -> list[str]:
        return sssp_bucket_kernels(self.method, wp)

    def _extra_kernels(self, wp: str) -> list:
        return [("sssp", name) for name in self._bucket_kernels(wp)]

    def _extra_launches(self, wp: str) -> list:
        if self.method == "bellman_ford":
            return []
        b = BUCKET_BLOCK
        out = [(get_kernel("sssp", "sssp_bucket_check", "sssp", self.eid64), 1, 32)]
        for name in self._bucket_kernels(wp)[1:]:
            k = get_kernel("sssp", name, "sssp", self.eid64)
            out.append((k, self._resident_blocks(k, b), b))
        return out

    def _ones_arrays(self) -> list:
        return [self.dist_pred, self.near_stamp] + self._piles  # all ones = unreached; stamps -1

    def reached(self):
        return self.dist_pred != np.uint64(0xFFFFFFFFFFFFFFFF)

    def result_arrays(self):
        """(distances, predecessors) of the last traversal as CuPy arrays (dtypes of :class:`SSSPResult`)."""
        import cupy

        packed = self.dist_pred[: self.n]
        unreached = packed == np.uint64(0xFFFFFFFFFFFFFFFF)
        bits = (packed >> np.uint64(32)).astype(np.uint32)
        pred = (packed & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.int32)
        pred = cupy.where(unreached, np.int32(-1), pred)
        if self.weight_float:
            dist = bits.view(np.float32).astype(np.float64)
            dist = cupy.where(unreached, np.inf, dist)
        else:
            dist = cupy.where(unreached, np.int64(UNREACHED_INT), bits.astype(np.int64))
        return dist, pred

    def sssp(self, source: int, *, trace: bool = False) -> SSSPResult:
        """Traverse from *source* and return the full :class:`SSSPResult` (arrays typed like the
        graph's: CuPy for a graph on the GPU, else NumPy)."""
        n_levels, elapsed_ms = self.timed_traverse(source)
        iterations = self.level_trace(n_levels) if trace else []
        with self.stream:
            edges = self.edges_traversed()
            dist, pred = self.result_arrays()
            if not self.graph.on_device:
                dist, pred = dist.get(), pred.get()
        self.stream.synchronize()
        return SSSPResult(
            source=int(source), distances=dist, predecessors=pred, iterations=iterations,
            elapsed_ms=elapsed_ms, relaxations=int(self.last_state["explored"]), edges_traversed=edges,
            gteps=edges / (elapsed_ms * 1e-3) / 1e9 if elapsed_ms > 0 else 0.0, config=self.config,
            delta=self.delta, extra={"grid": self.grid, "iterations": n_levels})

    def bfs(self, source: int, *, trace: bool = False) -> SSSPResult:  # the measurement harness's entry point
        """Same as :meth:`sssp` (the name every engine answers to)."""
        return self.sssp(source, trace=trace)


_ENGINES = {"bfs": BFSEngine, "sssp": SSSPEngine}


def get_engine(graph: CSRGraph, config: TraversalConfig | None = None) -> TraversalEngine:
    """Engine for *graph* x *config* (BFS or SSSP by ``config.algorithm``), reusing the one cached on
    the graph when the config matches."""
    config = config if config is not None else DEFAULT_CONFIG
    cached = graph._cache.get("engine")
    if cached is not None and (cached.config is config or cached.config == config):
        return cached
    graph._cache.pop("engine", None)  # release the previous buffers first
    eng = _ENGINES[config.algorithm](graph, config)
    graph._cache["engine"] = eng
    return eng


def run(graph, config: TraversalConfig | None = None, source: int = 0, *, validate: bool = False,
        trace: bool = False, sources=None, batch=None, predecessors: bool = False, devices=None):
    """Run an exact BFS or SSSP on the GPU (or a batched BFS from many sources).

    One call costs the device time plus a few tens of µs: the engine (buffers, kernels, CUDA graph
    of the launch sequence) is built on the first call for a graph x config and cached on the graph.

    Parameters
    ----------
    graph : CSRGraph or anything :func:`autotune.load_graph` accepts
    config : TraversalConfig, optional
        Strategy to run (default: :data:`DEFAULT_CONFIG`, a BFS; ``algorithm='sssp'`` runs shortest
        paths; :func:`autotune.tune` picks one per graph).
    source : int
        Internal vertex id (use ``graph.index_of(file_id)`` for ids as written in the file).
    validate : bool
        Check the result: for a graph on the GPU, Graph500's tree checks vectorized on the device
        (:mod:`autotune.validate_gpu`, no CPU reference); else against the CPU reference
        (``scipy.sparse.csgraph``: BFS, or Dijkstra) and the tree rules (Graph500 for BFS; ``dist[pred[v]] + w == dist[v]`` for SSSP); raises
        :class:`~autotune.errors.ValidationError` on any mismatch.
    trace : bool
        Read the per-level (per-iteration) trace back (``levels`` of the result).
    sources : array_like of int, optional
        Run a batched BFS from all of them at once (:func:`autotune.batched.run_batch`) and return
        a :class:`~autotune.batched.BatchBFSResult` (distances of shape (n_sources, n_vertices));
        *config* must then be None or a BFS config (its ``direction`` is used) and *source* is ignored.
    batch : BatchConfig, optional
        Knobs of the batched kernel (width, direction, block size).
    predecessors : bool
        Batched runs: also return the predecessor matrix.
    devices : sequence of int, optional
        Run the BFS over these GPUs of the host (:func:`autotune.distributed.bfs_multi_gpu`:
        1-D partitioned, direction-optimizing, one process per GPU, NCCL). *config* must be None
        (direction-optimizing, alpha 15, beta 18) or a BFS config, whose ``direction``, ``alpha``
        and ``beta`` are used (:func:`autotune.distributed.knobs_from_config`; the exchange and
        partition knobs are :func:`~autotune.distributed.bfs_multi_gpu`'s). The result's arrays are
        NumPy (gathered); ``extra`` holds ``devices``, ``ranges``, ``levels`` and ``directions``.

    Returns
    -------
    BFSResult, SSSPResult or BatchBFSResult

    Raises
    ------
    GPUUnavailableError, DeviceMemoryError, ValueError, ValidationError
    VertexError
        A source that is not a vertex (for a batch: its index and value).
    """
    if not isinstance(graph, CSRGraph):
        from .graph import load_graph

        graph = load_graph(graph)
    if devices is not None:
        return _run_multi_gpu(graph, config, source, devices, validate)
    if sources is not None:
        from .batched import run_batch

        if config is not None and config.algorithm != "bfs":
            raise ValueError(f"batched runs are BFS only; the config has algorithm={config.algorithm!r}")
        return run_batch(graph, sources, batch, predecessors=predecessors)
    eng = get_engine(graph, config)
    if eng.algorithm == "sssp":
        res = eng.sssp(source, trace=trace)
        if validate:
            if _is_device_array(res.distances):  # Graph500-style checks on the device (autotune.validate_gpu)
                from .validate_gpu import validate_sssp_gpu

                validate_sssp_gpu(graph, source, res.distances, res.predecessors)
            else:
                from .reference import validate_sssp

                validate_sssp(graph, source, res.distances, res.predecessors)
        return res
    res = eng.bfs(source, trace=trace)
    if validate:
        if _is_device_array(res.distances):
            from .validate_gpu import validate_bfs_gpu

            validate_bfs_gpu(graph, source, res.distances, res.predecessors)
        else:
            from .reference import validate_bfs

            validate_bfs(graph, source, res.distances, res.predecessors)
    return res


def _run_multi_gpu(graph, config, source, devices, validate: bool) -> BFSResult:
    """:func:`run` with ``devices``: the multi-GPU BFS as a :class:`BFSResult` (NumPy arrays)."""
    from .distributed import bfs_multi_gpu, knobs_from_config

    dist, pred, info = bfs_multi_gpu(graph, source, devices, **knobs_from_config(config))
    res = BFSResult(source, dist, pred, info["depth"], [], info["elapsed_ms"], config=config,
                    extra={k: info[k] for k in ("devices", "ranges", "levels", "ranks", "directions")},
                    out_degrees=graph.out_degrees(np), host=True)
    if validate:
        from .reference import validate_bfs

        validate_bfs(graph, int(source), dist, pred)
    return res


def _host(a):
    return a.get() if _is_device_array(a) else a


def bfs_depths(graph: CSRGraph, sources) -> np.ndarray:
    """BFS depth (largest distance reached) from each source, on the GPU (used by the profiler):
    one batched traversal for all of them (:mod:`autotune.batched`), reductions only.

    Returns
    -------
    ndarray of int64, shape (len(sources),)
    """
    from .batched import BatchConfig, run_batch

    if len(sources) == 0:
        return np.empty(0, dtype=np.int64)
    res = run_batch(graph, sources, BatchConfig(width=64), distances=False)
    return res.eccentricity.astype(np.int64)
