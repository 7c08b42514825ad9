"""Multi-GPU BFS: 1-D partitioned, level-synchronous, one process per GPU, NCCL through CuPy.

After Liu & Huang, "Enterprise: Breadth-First Graph Traversal on GPUs" (SC'15), section 4.4
(1-D partitioned BFS over several GPUs). The vertices are split into contiguous ranges
(:func:`partition_ranges`), one per GPU (a *rank*); a rank stores only the out-edges of the
vertices it owns and expands only the owned part of each frontier. Per level every rank

(a) pushes from its owned frontier: for every out-edge ``u -> v`` with ``v`` not yet visited,
    ``cand[v] = max(cand[v], u + 1)`` (``kernels/distributed.cu``, one warp per frontier vertex);
(b) all-reduces ``cand`` (n int32, maximum) with NCCL, so every rank sees the same array;
(c) marks ``new = cand > 0 & !visited``, sets ``visited``, and for its owned ``v`` records the
    distance ``L + 1`` and the predecessor ``cand[v] - 1``; its next frontier is the owned part of
    ``new``; ``cand`` is reset;
(d) stops when nothing is new (every rank holds the same reduced array, so every rank takes the
    same decision without another reduction).

The result is exact: any in-neighbour one level up is a valid BFS parent, and taking the largest id
makes it deterministic (the same for any number of ranks). Predecessors follow
:class:`autotune.engine.BFSResult`: the source is its own parent, -1 for unreached vertices.

This is a first version: every level exchanges the whole candidate array (4 n bytes per rank and
level) and there is no bottom-up (pull) direction.

NVLink multicast (NVLS) stays off: every process sets ``NCCL_NVLS_ENABLE=0`` (unless already set)
before NCCL is initialised.

Run from the command line::

    python -m autotune.distributed GRAPH --devices 0,1 [--source S] [--validate]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Protocol

import numpy as np

from ._backend import count_nonzero
from .errors import AutotuneError, InvalidArgumentError, VertexError
from .reference import _check_source  # the CPU reference's source check (TypeError / VertexError)

__all__ = ["partition_ranges", "Comm", "LocalComm", "NcclComm", "RankBFS", "RankError", "bfs_multi_gpu",
           "bfs_multi_gpu_sources", "main",
           "DEFAULT_TIMEOUT_S"]

#: Seconds the parent waits for the ranks' results before it gives up and terminates them.
DEFAULT_TIMEOUT_S = 600.0
#: Threads per block of the push kernel (an instantiation of ``kernels/distributed.cu``).
PUSH_BLOCK = 256
_MAX_EDGES_INT32 = 2 ** 31 - 1


class RankError(AutotuneError, RuntimeError):
    """A rank (worker process) of :func:`bfs_multi_gpu` failed, died or did not answer in time.

    Attributes
    ----------
    rank : int or None
        The failing rank (None when several ranks timed out at once).
    device : int or None
        Its CUDA device.
    """

    def __init__(self, message: str, rank: int | None = None, device: int | None = None):
        self.rank = rank
        self.device = device
        super().__init__(message)

    def __reduce__(self):
        return (type(self), (str(self), self.rank, self.device))


# --------------------------------------------------------------------------- partition
def partition_ranges(row_offsets, n_ranks: int, in_offsets=None) -> np.ndarray:
    """Contiguous vertex ranges, one per rank, balanced by edges.

    Rank ``r`` owns the vertices ``[b[r], b[r + 1])``. The boundaries are the positions where the
    cumulative edge count (out-edges, plus in-edges when *in_offsets* is given) crosses
    ``r / n_ranks`` of the total (``np.searchsorted``), then moved the least needed so that every
    range holds at least one vertex. Every range then holds at most ``total / n_ranks + 1 + w_max``
    edges (``w_max``: the largest edge count of one vertex).

    Parameters
    ----------
    row_offsets : array_like, shape (n_vertices + 1,), int32 or int64
        CSR row offsets of the out-edges (NumPy; a CuPy array is copied to the host).
    n_ranks : int
        Number of ranges, ``1 <= n_ranks <= n_vertices``.
    in_offsets : array_like, shape (n_vertices + 1,), optional
        Row offsets of the in-edges (transposed CSR); their counts are added to the weights.

    Returns
    -------
    ndarray, shape (n_ranks + 1,), int64
        Strictly increasing boundaries, ``b[0] == 0`` and ``b[-1] == n_vertices``.

    Raises
    ------
    InvalidArgumentError
        When *n_ranks* is not an integer in ``[1, n_vertices]``, or *in_offsets* does not match.
    """
    from ._backend import to_host

    ro = np.asarray(to_host(row_offsets), dtype=np.int64)
    if ro.ndim != 1 or ro.shape[0] < 1:
        raise InvalidArgumentError(f"row_offsets must be 1-D of length n_vertices + 1, got shape {ro.shape}")
    n = int(ro.shape[0] - 1)
    if isinstance(n_ranks, (bool, np.bool_)) or not isinstance(n_ranks, (int, np.integer)):
        raise InvalidArgumentError(f"n_ranks must be an integer, got {n_ranks!r}")
    k = int(n_ranks)
    if not 1 <= k <= n:
        raise InvalidArgumentError(f"n_ranks={k} must be between 1 and the number of vertices ({n})")
    w = np.diff(ro)
    if in_offsets is not None:
        io = np.asarray(to_host(in_offsets), dtype=np.int64)
        if io.shape != ro.shape:
            raise InvalidArgumentError(f"in_offsets has shape {io.shape}, expected {ro.shape}")
        w = w + np.diff(io)
    cum = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(w, out=cum[1:])
    total = int(cum[-1])
    targets = (total * np.arange(1, k, dtype=np.int64)) // k
    b = np.empty(k + 1, dtype=np.int64)
    b[0], b[-1] = 0, n
    b[1:k] = np.searchsorted(cum, targets, side="left")
    for r in range(1, k):  # at least one vertex per range, room left for the ranks after r
        b[r] = min(max(int(b[r]), int(b[r - 1]) + 1), n - (k - r))
    return b


def _slice_csr(row_offsets: np.ndarray, column_indices: np.ndarray, lo: int, hi: int, eid64: bool):
    """The rows ``[lo, hi)`` of a CSR: row offsets rebased to 0 (int64 when *eid64*, else int32)
    and their column indices (global ids, int32)."""
    ro = np.asarray(row_offsets)
    first, last = int(ro[lo]), int(ro[hi])
    sro = (ro[lo:hi + 1].astype(np.int64) - first).astype(np.int64 if eid64 else np.int32)
    sci = np.ascontiguousarray(np.asarray(column_indices)[first:last], dtype=np.int32)
    return sro, sci


# --------------------------------------------------------------------------- communicators
class Comm(Protocol):
    """What a rank of :class:`RankBFS` needs from its communicator.

    Attributes
    ----------
    rank : int
        This rank, ``0 <= rank < size``.
    size : int
        Number of ranks.
    """

    rank: int
    size: int

    def allreduce_max(self, buf) -> None:
        """Replace *buf* (int32, same length on every rank) by its elementwise maximum over the ranks."""

    def close(self) -> None:
        """Release the communicator."""


class LocalComm:
    """The communicator of a single rank, in-process and without NCCL: reductions are the identity."""

    rank = 0
    size = 1

    def allreduce_max(self, buf) -> None:
        """Nothing to do: the maximum over one rank is its own array."""
        return None

    def close(self) -> None:
        return None


class NcclComm:
    """One rank of an NCCL communicator (``cupy.cuda.nccl.NcclCommunicator(size, uid, rank)``).

    Create it in the rank's process, after selecting its device (``cupy.cuda.Device(d).use()``);
    every rank of the group must create it with the same *uid* (``cupy.cuda.nccl.get_unique_id()``,
    made once by the parent). Collectives run on CuPy's current stream.

    Parameters
    ----------
    size : int
        Number of ranks.
    uid : tuple
        NCCL unique id of the group.
    rank : int
        This rank.

    Notes
    -----
    Sets ``NCCL_NVLS_ENABLE=0`` in the process environment (unless already set) before NCCL is
    initialised: NVLink multicast stays off.
    """

    def __init__(self, size: int, uid, rank: int):
        os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
        from cupy.cuda import nccl

        self._nccl = nccl
        self.size = int(size)
        self.rank = int(rank)
        self.comm = nccl.NcclCommunicator(self.size, uid, self.rank)

    def allreduce_max(self, buf) -> None:
        """In-place elementwise maximum of the CuPy int32 array *buf* over the ranks.

        Raises
        ------
        InvalidArgumentError
            When *buf* is not a C-contiguous int32 array.
        """
        import cupy

        if buf.dtype != np.int32 or not buf.flags.c_contiguous:
            raise InvalidArgumentError(f"allreduce_max needs a contiguous int32 array, got {buf.dtype}")
        nccl = self._nccl
        stream = cupy.cuda.get_current_stream()
        self.comm.allReduce(buf.data.ptr, buf.data.ptr, buf.size, nccl.NCCL_INT32, nccl.NCCL_MAX, stream.ptr)

    def close(self) -> None:
        """Destroy the NCCL communicator (idempotent)."""
        comm, self.comm = self.comm, None
        if comm is not None:
            comm.destroy()


# --------------------------------------------------------------------------- one rank
_SETTLE = None


def _settle_kernel():
    """Step (c) of a level, elementwise over all n vertices (CuPy ``ElementwiseKernel``)."""
    global _SETTLE
    if _SETTLE is None:
        import cupy

        _SETTLE = cupy.ElementwiseKernel(
            "int32 lo, int32 hi, int32 next_level",
            "int32 cand, uint8 visited, uint8 fresh, raw int32 dist, raw int32 pred",
            """
            fresh = 0;
            if (cand > 0 && !visited) {
                visited = 1;
                fresh = 1;
                if (i >= lo && i < hi) {
                    dist[i - lo] = next_level;
                    pred[i - lo] = cand - 1;
                }
            }
            cand = 0;
            """,
            "autotune_distributed_settle")
    return _SETTLE


class RankBFS:
    """The level loop of one rank of the 1-D partitioned BFS (Liu & Huang, "Enterprise: Breadth-First
    Graph Traversal on GPUs", SC'15, section 4.4).

    Parameters
    ----------
    row_offsets : ndarray, shape (hi - lo + 1,), int32 or int64
        Row offsets of the owned rows, rebased (``row_offsets[0] == 0``). int64 offsets select the
        kernel built for int64 offsets; a slice of 2**31 edges or more needs them.
    column_indices : ndarray, shape (row_offsets[-1],), int32
        Out-neighbours of the owned rows, global vertex ids.
    lo, hi : int
        The owned range ``[lo, hi)``, ``0 <= lo < hi <= n_vertices``.
    n_vertices : int
        Vertices of the whole graph.
    comm : Comm
        :class:`LocalComm` for one rank, :class:`NcclComm` for several.
    xp : module, optional
        ``cupy`` (default): the GPU path on the current device. ``numpy``: the same level loop on the
        host (the push step with ``np.maximum.at``), used to test the algorithm without a GPU.

    Attributes
    ----------
    distances, predecessors : ndarray, shape (hi - lo,), int32
        Of the owned vertices after :meth:`run` (-1 unreached; the source is its own predecessor).
    eid64 : bool
        Whether the int64-offset kernel runs.

    Raises
    ------
    InvalidArgumentError
        When the range or the slice's shapes do not fit together.
    """

    def __init__(self, row_offsets, column_indices, lo: int, hi: int, n_vertices: int, comm, *, xp=None):
        lo, hi, n = int(lo), int(hi), int(n_vertices)
        if not 0 <= lo < hi <= n:
            raise InvalidArgumentError(f"owned range [{lo}, {hi}) must be non-empty and inside [0, {n})")
        if n >= 2 ** 31 - 1:
            raise InvalidArgumentError(f"n_vertices={n}: vertex ids are int32 (u + 1 must fit)")
        if tuple(row_offsets.shape) != (hi - lo + 1,):
            raise InvalidArgumentError(f"row_offsets has shape {tuple(row_offsets.shape)}, expected ({hi - lo + 1},)")
        m = int(column_indices.shape[0])
        if int(row_offsets[0]) != 0 or int(row_offsets[-1]) != m:
            raise InvalidArgumentError(f"row_offsets must run from 0 to len(column_indices)={m}, got "
                                       f"{int(row_offsets[0])}..{int(row_offsets[-1])}")
        if xp is None:
            import cupy as xp
        self.xp = xp
        self.lo, self.hi, self.n_vertices, self.comm = lo, hi, n, comm
        self.eid64 = bool(row_offsets.dtype == np.int64) or m > _MAX_EDGES_INT32
        self.row_offsets = xp.asarray(row_offsets, dtype=np.int64 if self.eid64 else np.int32)
        self.column_indices = xp.asarray(column_indices, dtype=np.int32)
        self.cand = xp.zeros(n, dtype=np.int32)
        self.visited = xp.zeros(n, dtype=np.uint8)
        self.fresh = xp.zeros(n, dtype=np.uint8)
        self.distances = xp.full(hi - lo, -1, dtype=np.int32)
        self.predecessors = xp.full(hi - lo, -1, dtype=np.int32)
        self._gpu = xp is not np
        if self._gpu:
            import cupy

            from ._kernels import get_kernel

            self._push_kernel = get_kernel("distributed", f"distributed_push<{PUSH_BLOCK}>", "bfs", self.eid64)
            self._settle = _settle_kernel()
            self._max_blocks = 32 * cupy.cuda.Device().attributes["MultiProcessorCount"]

    # ---------------------------------------------------------------- steps
    def _push(self, frontier) -> None:
        nf = int(frontier.shape[0])
        if nf == 0:
            return
        if self._gpu:
            warps_per_block = PUSH_BLOCK // 32
            blocks = max(1, min((nf + warps_per_block - 1) // warps_per_block, self._max_blocks))
            self._push_kernel((blocks,), (PUSH_BLOCK,),
                              (self.row_offsets, self.column_indices, frontier, np.int32(nf), np.int32(self.lo),
                               self.visited, self.cand))
            return
        ro, ci = self.row_offsets, self.column_indices
        local = frontier - self.lo
        deg = (ro[local + 1] - ro[local]).astype(np.int64)
        src = np.repeat(frontier, deg)
        starts = np.repeat(ro[local].astype(np.int64) - np.concatenate(([0], np.cumsum(deg)[:-1])), deg)
        v = ci[starts + np.arange(int(deg.sum()), dtype=np.int64)]
        keep = self.visited[v] == 0
        np.maximum.at(self.cand, v[keep], src[keep] + 1)

    def _settle_level(self, next_level: int) -> None:
        if self._gpu:
            self._settle(np.int32(self.lo), np.int32(self.hi), np.int32(next_level), self.cand, self.visited,
                         self.fresh, self.distances, self.predecessors)
            return
        new = (self.cand > 0) & (self.visited == 0)
        self.fresh[:] = new
        self.visited[new] = 1
        own = np.flatnonzero(new[self.lo:self.hi])
        self.distances[own] = next_level
        self.predecessors[own] = self.cand[self.lo + own] - 1
        self.cand[:] = 0

    # ---------------------------------------------------------------- traversal
    def run(self, source: int) -> tuple[int, float]:
        """One BFS from *source* (a global vertex id; every rank must pass the same one).

        Returns
        -------
        levels : int
            Frontiers expanded (the depth of the BFS tree + 1).
        elapsed_ms : float
            Device time of the level loop on this rank (CUDA events; host wall time on the NumPy path), ms.
        """
        xp, lo, hi = self.xp, self.lo, self.hi
        s = int(source)
        if not 0 <= s < self.n_vertices:
            raise VertexError(f"source {s} is not a vertex (valid: 0..{self.n_vertices - 1})")
        for a, val in ((self.cand, 0), (self.visited, 0), (self.fresh, 0), (self.distances, -1),
                       (self.predecessors, -1)):
            a.fill(val)
        self.visited[s] = 1
        if lo <= s < hi:
            self.distances[s - lo] = 0
            self.predecessors[s - lo] = s
            frontier = xp.asarray(np.array([s], dtype=np.int32))
        else:
            frontier = xp.zeros(0, dtype=np.int32)
        if self._gpu:
            import cupy

            start, stop = cupy.cuda.Event(), cupy.cuda.Event()
            start.record()
        else:
            t0 = time.perf_counter()
        level = 0
        while True:
            self._push(frontier)
            self.comm.allreduce_max(self.cand)
            self._settle_level(level + 1)
            if count_nonzero(self.fresh) == 0:  # the same reduced array on every rank
                break
            frontier = (xp.flatnonzero(self.fresh[lo:hi]) + lo).astype(np.int32)
            level += 1
        if self._gpu:
            stop.record()
            stop.synchronize()
            ms = float(cupy.cuda.get_elapsed_time(start, stop))
        else:
            ms = (time.perf_counter() - t0) * 1e3
        return level + 1, ms

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        """``(distances, predecessors)`` of the owned vertices as NumPy arrays."""
        from ._backend import to_host

        return to_host(self.distances), to_host(self.predecessors)


# --------------------------------------------------------------------------- argument checks
def _check_devices(devices) -> tuple[int, ...]:
    """Device ids as a tuple; empty, duplicate, negative or non-integer ids are refused (no GPU needed)."""
    try:
        devs = tuple(devices)
    except TypeError:
        raise InvalidArgumentError(f"devices must be a sequence of CUDA device ids, got {devices!r}") from None
    if not devs:
        raise InvalidArgumentError("devices is empty: give at least one CUDA device id")
    for d in devs:
        if isinstance(d, (bool, np.bool_)) or not isinstance(d, (int, np.integer)) or int(d) < 0:
            raise InvalidArgumentError(f"device {d!r} is not a CUDA device id (a non-negative integer)")
    devs = tuple(int(d) for d in devs)
    dup = sorted({d for d in devs if devs.count(d) > 1})
    if dup:
        raise InvalidArgumentError(f"devices lists device(s) {dup} more than once (one rank per GPU)")
    return devs


def _check_offsets(offsets) -> str | None:
    if offsets not in (None, "int32", "int64"):
        raise InvalidArgumentError(f"offsets must be None, 'int32' or 'int64', got {offsets!r}")
    return offsets


# --------------------------------------------------------------------------- several processes
def _worker(rank: int, size: int, device: int, uid, row_offsets, column_indices, lo: int, hi: int, n: int,
            sources, queue) -> None:
    """Body of one rank's process: select the device, join the NCCL group, run, send the owned part."""
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    comm = None
    try:
        import cupy

        cupy.cuda.Device(device).use()
        comm = NcclComm(size, uid, rank)
        rb = RankBFS(row_offsets, column_indices, lo, hi, n, comm)
        rb.run(sources[0])  # warm-up: NCCL connects its channels and CuPy loads its kernels on first use
        out = []
        for source in sources:
            levels, ms = rb.run(source)
            out.append((*rb.result(), levels, ms))
        queue.put(("ok", rank, out, rb.eid64))
    except BaseException as exc:  # noqa: BLE001 - reported to the parent, which raises it naming the rank
        import traceback

        queue.put(("error", rank, f"{type(exc).__name__}: {exc}", traceback.format_exc()))
    finally:
        if comm is not None:
            try:
                comm.close()
            except Exception:  # noqa: BLE001 - the result (or the error) is already on its way
                pass


def _stop(procs, grace_s: float = 10.0) -> None:
    """Terminate the worker processes still alive (SIGTERM, then SIGKILL after *grace_s*)."""
    for p in procs:
        if p.is_alive():
            p.terminate()
    deadline = time.monotonic() + grace_s
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join(5.0)


def _run_ranks(slices, ranges, devices, n: int, sources, timeout_s: float) -> dict:
    """Spawn one process per device, gather ``{rank: ([(dist, pred, levels, ms) per source], eid64)}``."""
    import multiprocessing
    import queue as queue_mod

    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")  # inherited by the spawned processes
    try:
        from cupy.cuda import nccl

        uid = nccl.get_unique_id()
    except (ImportError, AttributeError, RuntimeError) as exc:
        from .errors import GPUUnavailableError

        raise GPUUnavailableError(f"bfs_multi_gpu with several devices needs CuPy's NCCL bindings "
                                  f"(cupy.cuda.nccl; install nvidia-nccl for your CUDA): {exc}") from exc
    ctx = multiprocessing.get_context("spawn")
    q = ctx.Queue()
    k = len(devices)
    procs = [ctx.Process(target=_worker, name=f"autotune-bfs-rank{r}", daemon=True,
                         args=(r, k, devices[r], uid, slices[r][0], slices[r][1], int(ranges[r]), int(ranges[r + 1]),
                               n, tuple(sources), q)) for r in range(k)]
    results: dict = {}
    ok = False
    try:
        for p in procs:
            p.start()
        deadline = time.monotonic() + timeout_s
        while len(results) < k:
            try:
                msg = q.get(timeout=1.0)
            except queue_mod.Empty:
                for r, p in enumerate(procs):
                    if r not in results and not p.is_alive() and p.exitcode not in (0, None):
                        raise RankError(f"rank {r} (device {devices[r]}) exited with code {p.exitcode} "
                                        f"without a result", r, devices[r])
                if time.monotonic() > deadline:
                    missing = [r for r in range(k) if r not in results]
                    raise RankError(f"no result from rank(s) {missing} (devices {[devices[r] for r in missing]}) "
                                    f"after {timeout_s:g} s", missing[0] if len(missing) == 1 else None,
                                    devices[missing[0]] if len(missing) == 1 else None)
                continue
            if msg[0] == "error":
                _, r, text, tb = msg
                raise RankError(f"rank {r} (device {devices[r]}) failed: {text}\n{tb}", r, devices[r])
            _, r, out, eid64 = msg
            results[r] = (out, eid64)
        ok = True
    finally:
        if ok:
            for p in procs:
                p.join(30.0)
        _stop(procs)
        q.close()
    return results


def bfs_multi_gpu(graph, source, devices=(0, 1), *, offsets=None, timeout_s: float = DEFAULT_TIMEOUT_S):
    """BFS over several GPUs of one host, 1-D partitioned (Liu & Huang, "Enterprise: Breadth-First
    Graph Traversal on GPUs", SC'15, section 4.4); exact.

    The vertices are split into ``len(devices)`` contiguous ranges balanced by out-edges
    (:func:`partition_ranges`); rank ``r`` runs on ``devices[r]`` and holds only the out-edges of
    its range. With one device it runs in this process (:class:`LocalComm`, no NCCL); with several it
    spawns one process per device (``multiprocessing`` spawn context) joined by NCCL.

    Parameters
    ----------
    graph : CSRGraph
        The graph (host or device arrays; the CSR is read through ``graph.host()``).
    source : int
        Start vertex, ``0 <= source < n_vertices``.
    devices : sequence of int, default (0, 1)
        CUDA device ids, one rank each, distinct.
    offsets : {None, 'int32', 'int64'}, optional
        Row-offset type of the ranks' slices: None picks int32 unless a slice has more than
        2**31 - 1 edges; 'int64' forces the int64-offset kernel (for tests).
    timeout_s : float, default 600
        Seconds to wait for the ranks' results; past it the workers are terminated and
        :class:`RankError` is raised (so a lost rank never hangs the caller).

    Returns
    -------
    distances : ndarray, shape (n_vertices,), int32
        Hops from *source*; -1 unreached.
    predecessors : ndarray, shape (n_vertices,), int32
        BFS-tree parent (the largest-id in-neighbour one level up); ``predecessors[source] ==
        source``; -1 unreached.
    info : dict
        ``levels`` (frontiers expanded, depth + 1), ``depth``, ``elapsed_ms`` (after one warm-up traversal; the largest over the
        ranks of the device time of the level loop, CUDA events, setup and transfers excluded),
        ``ranks``, ``devices``, ``ranges`` (list of ``(lo, hi)``), ``eid64`` (per rank).

    Raises
    ------
    VertexError
        When *source* is not a vertex (TypeError when it is not an integer).
    InvalidArgumentError
        When *devices* is empty, repeats a device, names a device that does not exist, asks for
        more ranks than vertices, or *offsets* is unknown.
    GPUUnavailableError
        When no GPU with CuPy is usable (or, for several devices, CuPy has no NCCL).
    RankError
        When a rank fails (its exception and traceback in the message), dies, or times out.
    """
    (res,) = bfs_multi_gpu_sources(graph, [source], devices, offsets=offsets, timeout_s=timeout_s)
    return res


def bfs_multi_gpu_sources(graph, sources, devices=(0, 1), *, offsets=None,
                          timeout_s: float = DEFAULT_TIMEOUT_S) -> list:
    """:func:`bfs_multi_gpu` from each of *sources*, one after the other, with the ranks (processes,
    NCCL group, slices) set up once; one warm-up traversal from the first source is not timed.

    Returns
    -------
    list of (distances, predecessors, info)
        One per source, as :func:`bfs_multi_gpu` returns them.

    Raises
    ------
    Same as :func:`bfs_multi_gpu` (a bad source is reported before any rank starts).
    """
    from ._backend import require_gpu

    srcs = [_check_source(graph, s) for s in sources]
    if not srcs:
        raise InvalidArgumentError("no sources given")
    devs = _check_devices(devices)
    offsets = _check_offsets(offsets)
    require_gpu("bfs_multi_gpu")
    import cupy

    count = cupy.cuda.runtime.getDeviceCount()
    bad = [d for d in devs if d >= count]
    if bad:
        raise InvalidArgumentError(f"device(s) {bad} do not exist: this host has {count} CUDA device(s) "
                                   f"(ids 0..{count - 1})")
    n = graph.n_vertices
    ro, ci = graph.host()
    ranges = partition_ranges(ro, len(devs))
    slices = []
    for r in range(len(devs)):
        lo, hi = int(ranges[r]), int(ranges[r + 1])
        eid64 = offsets == "int64" or int(ro[hi]) - int(ro[lo]) > _MAX_EDGES_INT32
        slices.append(_slice_csr(ro, ci, lo, hi, eid64))
    if len(devs) == 1:
        with cupy.cuda.Device(devs[0]):
            rb = RankBFS(slices[0][0], slices[0][1], 0, n, n, LocalComm())
            rb.run(srcs[0])  # warm-up (first launches)
            out = []
            for s in srcs:
                levels, ms = rb.run(s)
                out.append((*rb.result(), levels, ms))
        results = {0: (out, rb.eid64)}
    else:
        results = _run_ranks(slices, ranges, devs, n, srcs, timeout_s)
    k = len(devs)
    answers = []
    for i in range(len(srcs)):
        distances = np.concatenate([results[r][0][i][0] for r in range(k)]).astype(np.int32, copy=False)
        predecessors = np.concatenate([results[r][0][i][1] for r in range(k)]).astype(np.int32, copy=False)
        levels = {results[r][0][i][2] for r in range(k)}
        if len(levels) != 1:
            raise RankError(f"ranks disagree on the number of levels: {sorted(levels)}")
        (lv,) = levels
        info = dict(levels=lv, depth=int(distances.max()) if n else 0,
                    elapsed_ms=max(results[r][0][i][3] for r in range(k)), ranks=k, devices=list(devs),
                    ranges=[(int(ranges[r]), int(ranges[r + 1])) for r in range(k)],
                    eid64=[bool(results[r][1]) for r in range(k)])
        answers.append((distances, predecessors, info))
    return answers


# --------------------------------------------------------------------------- command line
def _device_list(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(t) for t in text.split(",") if t.strip() != "")
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated device ids such as 0,1, got {text!r}") from None


def main(argv=None) -> int:
    """``python -m autotune.distributed GRAPH --devices 0,1 [--source S] [--validate]``.

    Prints the levels, the time (largest over the ranks), the edges traversed (sum of the
    out-degrees of the reached vertices) and GTEPS. Exit status 0, 1 when ``--validate`` finds the
    result wrong, 2 on a usage or input error.
    """
    from .graph import load_graph
    from .reference import reference_edges_traversed, validate_bfs
    from .errors import ValidationError

    p = argparse.ArgumentParser(prog="python -m autotune.distributed",
                                description="Multi-GPU BFS (1-D partitioned, NCCL), one process per GPU.")
    p.add_argument("graph", help="graph file or generator spec (e.g. kron:scale=20,edge_factor=16)")
    p.add_argument("--devices", type=_device_list, default=(0, 1), help="comma-separated CUDA device ids (default 0,1)")
    p.add_argument("--source", type=int, default=None,
                   help="source vertex (internal id; default: the vertex of largest out-degree)")
    p.add_argument("--offsets", choices=("int32", "int64"), default=None, help="force the row-offset type")
    p.add_argument("--validate", action="store_true", help="check against the CPU reference (exit 1 if wrong)")
    args = p.parse_args(argv)
    try:
        g = load_graph(args.graph)
        src = int(np.argmax(g.out_degrees(np))) if args.source is None else args.source
        dist, pred, info = bfs_multi_gpu(g, src, args.devices, offsets=args.offsets)
    except (AutotuneError, TypeError) as exc:
        print(f"autotune: error: {exc}", file=sys.stderr)
        return 2
    edges = reference_edges_traversed(g, dist)
    ms = info["elapsed_ms"]
    gteps = edges / (ms * 1e6) if ms > 0 else float("nan")
    print(f"{g.name}: n={g.n_vertices:,} m={g.n_edges:,} source={src} ranks={info['ranks']} "
          f"devices={','.join(map(str, info['devices']))}")
    print(f"levels={info['levels']} reached={int((dist >= 0).sum()):,} edges={edges:,} ms={ms:.3f} "
          f"GTEPS={gteps:.3f}")
    if args.validate:
        try:
            validate_bfs(g, src, dist, pred)
        except ValidationError as exc:
            print(f"INVALID: {exc}", file=sys.stderr)
            return 1
        print("valid")
    return 0


if __name__ == "__main__":
    sys.exit(main())
