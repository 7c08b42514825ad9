"""Multi-GPU BFS: 1-D partitioned, direction-optimizing, one process per GPU, NCCL through CuPy.

After Liu & Huang, "Enterprise: Breadth-First Graph Traversal on GPUs" (SC'15), section 4.4
(1-D partitioned BFS over several GPUs) and Beamer's push/pull switch. The vertices are split into
contiguous ranges (:func:`partition_ranges`, balanced by out- plus in-edges, boundaries multiples of
32), one per GPU (a *rank*); a rank stores the out- and in-edges of the vertices it owns. Every rank
holds the frontier and the visited set of all vertices as bitmaps (n / 8 bytes each). Per level
(:class:`RankBFS`, kernels in ``kernels/distributed.cu``):

(a) the direction is decided from the frontier's vertices and out-edges summed over the ranks
    (the same numbers, hence the same decision, on every rank);
(b) push: each rank marks the unvisited out-neighbours of its owned frontier; the marks in other
    ranks' ranges go to their owners, as a queue of ids or as bitmap words, whichever is smaller
    (``exchange``); the owner finds each marked vertex's parent among its in-edges;
    pull: each rank looks for a parent of every owned unvisited vertex among its in-edges;
(c) the ranks' new frontier words are all-gathered (one broadcast per rank, grouped) and their
    counts all-reduced; a rank's next push frontier is the list of its own new vertices.

The result is exact, and the tree does not depend on the number of ranks nor on the directions
taken: a vertex's parent is the last in-neighbour of its (sorted) in-edge list that is one level up,
the largest id. Distances and predecessors stay with their owner until gathered. Predecessors
follow :class:`autotune.engine.BFSResult`: the source is its own parent, -1 for unreached vertices.

NVLink multicast (NVLS) stays off: every process sets ``NCCL_NVLS_ENABLE=0`` (unless already set)
before NCCL is initialised.

Run from the command line::

    python -m autotune.distributed GRAPH --devices 0,1 [--source S] [--validate]
        [--direction push_pull|push] [--exchange auto|queue|bitmap] [--partition out_in|out]
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Protocol

import numpy as np

from ._backend import to_host
from ._csr import host_transpose
from .errors import AutotuneError, InvalidArgumentError, VertexError
from .reference import _check_source  # the CPU reference's source check (TypeError / VertexError)

__all__ = ["partition_ranges", "rank_inputs", "Comm", "LocalComm", "NcclComm", "RankBFS", "RankError",
           "bfs_multi_gpu", "bfs_multi_gpu_sources", "knobs_from_config", "main", "DEFAULT_TIMEOUT_S", "PARTITIONS", "EXCHANGES"]

#: Seconds the parent waits for the ranks' results before it gives up and terminates them.
DEFAULT_TIMEOUT_S = 600.0
#: Range boundaries are multiples of it: a rank's vertices fill whole 32-bit words of the bitmaps.
_ALIGN = 32
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
def partition_ranges(row_offsets, n_ranks: int, in_offsets=None, *, align: int = 1) -> np.ndarray:
    """Contiguous vertex ranges, one per rank, balanced by edges.

    Rank ``r`` owns the vertices ``[b[r], b[r + 1])``. The boundaries are the positions where the
    cumulative edge count (out-edges, plus in-edges when *in_offsets* is given) crosses
    ``r / n_ranks`` of the total (``np.searchsorted``). With ``align == 1`` they are then moved the
    least needed so that every range holds at least one vertex, and every range holds at most
    ``total / n_ranks + 1 + w_max`` edges (``w_max``: the largest edge count of one vertex). With
    ``align > 1`` every inner boundary is rounded to the nearest multiple of *align* (the multi-GPU
    BFS uses 32: a rank's vertices then fill whole words of a bitmap); a range may then be empty
    (graphs of fewer than ``align * n_ranks`` vertices) and holds at most ``align`` vertices' edges
    more than the bound above.

    Parameters
    ----------
    row_offsets : array_like, shape (n_vertices + 1,), int32 or int64
        CSR row offsets of the out-edges (NumPy; a CuPy array is copied to the host).
    n_ranks : int
        Number of ranges, ``1 <= n_ranks <= n_vertices``.
    in_offsets : array_like, shape (n_vertices + 1,), optional
        Row offsets of the in-edges (transposed CSR); their counts are added to the weights.
    align : int, default 1
        Inner boundaries are multiples of it (a positive integer).

    Returns
    -------
    ndarray, shape (n_ranks + 1,), int64
        Boundaries, ``b[0] == 0`` and ``b[-1] == n_vertices``; strictly increasing when ``align == 1``,
        non-decreasing otherwise.

    Raises
    ------
    InvalidArgumentError
        When *n_ranks* is not an integer in ``[1, n_vertices]``, *align* is not a positive integer, or
        *in_offsets* does not match.
    """
    ro = np.asarray(to_host(row_offsets), dtype=np.int64)
    if ro.ndim != 1 or ro.shape[0] < 1:
        raise InvalidArgumentError(f"row_offsets must be 1-D of length n_vertices + 1, got shape {ro.shape}")
    n = int(ro.shape[0] - 1)
    if isinstance(n_ranks, (bool, np.bool_)) or not isinstance(n_ranks, (int, np.integer)):
        raise InvalidArgumentError(f"n_ranks must be an integer, got {n_ranks!r}")
    if isinstance(align, (bool, np.bool_)) or not isinstance(align, (int, np.integer)) or int(align) < 1:
        raise InvalidArgumentError(f"align must be a positive integer, got {align!r}")
    k, align = int(n_ranks), int(align)
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
    if align > 1:
        b[1:k] = np.minimum((b[1:k] + align // 2) // align * align, n)
        return np.maximum.accumulate(b)
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


#: ``partition`` values: balance the ranks' ranges by out-edges, or by out- plus in-edges (what a
#: rank reads on push levels and on pull levels).
PARTITIONS = ("out", "out_in")
#: ``exchange`` values of push levels: ``queue`` sends the ids found in another rank's range (4 bytes
#: each), ``bitmap`` that range's words of the found-bitmap (n / 8 bytes over all ranks), ``auto``
#: the smaller of the two by the level's frontier edges (queue when 32 * frontier edges < (ranks - 1) * n).
EXCHANGES = ("auto", "queue", "bitmap")


def rank_inputs(graph, n_ranks: int, *, partition: str = "out_in", offsets: str | None = None):
    """What each rank of the multi-GPU BFS holds: its range and its slices of the out- and in-edges.

    Parameters
    ----------
    graph : CSRGraph
        The graph (read through ``graph.host()``).
    n_ranks : int
        Number of ranks, ``1 <= n_ranks <= n_vertices``.
    partition : {'out_in', 'out'}, default 'out_in'
        Balance the ranges by out- plus in-edges, or by out-edges only (:func:`partition_ranges`,
        boundaries multiples of 32).
    offsets : {None, 'int32', 'int64'}, optional
        Row-offset type of the slices: None picks int32 unless a slice has more than 2**31 - 1 edges.

    Returns
    -------
    ranges : ndarray, shape (n_ranks + 1,), int64
        Rank ``r`` owns ``[ranges[r], ranges[r + 1])``.
    slices : list of tuple
        Per rank ``(row_offsets, column_indices, in_offsets, in_indices, eid64)``: rebased offsets
        (int32, or int64 when *eid64*), global ids (int32). For an undirected graph the in-edge slice
        is the out-edge slice (the same arrays).

    Raises
    ------
    InvalidArgumentError
        For an unknown *partition* or *offsets*, or a bad *n_ranks*.
    """
    if partition not in PARTITIONS:
        raise InvalidArgumentError(f"partition must be one of {PARTITIONS}, got {partition!r}")
    offsets = _check_offsets(offsets)
    ro, ci = graph.host()
    ro = np.asarray(ro)
    io, ii = (ro, ci) if not graph.directed else host_transpose(ro, ci)[:2]
    ranges = partition_ranges(ro, n_ranks, io if partition == "out_in" else None, align=_ALIGN)
    slices = []
    for r in range(int(n_ranks)):
        lo, hi = int(ranges[r]), int(ranges[r + 1])
        eid64 = (offsets == "int64" or int(ro[hi]) - int(ro[lo]) > _MAX_EDGES_INT32
                 or int(io[hi]) - int(io[lo]) > _MAX_EDGES_INT32)
        sro, sci = _slice_csr(ro, ci, lo, hi, eid64)
        sio, sii = (sro, sci) if not graph.directed else _slice_csr(io, ii, lo, hi, eid64)
        slices.append((sro, sci, sio, sii, eid64))
    return ranges, slices


# --------------------------------------------------------------------------- communicators
class Comm(Protocol):
    """What a rank of :class:`RankBFS` needs from its communicator (MPI's collectives, in NCCL's form).

    Every rank calls the same collectives in the same order with the same host-side counts.

    Attributes
    ----------
    rank : int
        This rank, ``0 <= rank < size``.
    size : int
        Number of ranks.
    """

    rank: int
    size: int

    def allreduce_sum(self, sendbuf, recvbuf) -> None:
        """``recvbuf = sum over the ranks of sendbuf`` (int64, same length on every rank)."""

    def allgatherv(self, buf, displs, counts) -> None:
        """In place: rank ``r``'s elements ``buf[displs[r]:displs[r] + counts[r]]`` copied to every rank
        (uint32; *displs*, *counts*: host integers, the same on every rank)."""

    def alltoallv(self, sendbuf, send_displs, send_counts, recvbuf, recv_displs, recv_counts) -> None:
        """``sendbuf[send_displs[p]:][:send_counts[p]]`` goes to rank ``p``, whose ``recvbuf`` gets it at
        ``recv_displs[this rank]``; ``recv_counts[p]`` elements arrive from ``p`` (same dtype)."""

    def close(self) -> None:
        """Release the communicator."""


class LocalComm:
    """The communicator of a single rank, in-process and without NCCL."""

    rank = 0
    size = 1

    def allreduce_sum(self, sendbuf, recvbuf) -> None:
        """The sum over one rank: a copy."""
        recvbuf[...] = sendbuf

    def allgatherv(self, buf, displs, counts) -> None:
        """Nothing to do: the only segment is already in place."""
        return None

    def alltoallv(self, sendbuf, send_displs, send_counts, recvbuf, recv_displs, recv_counts) -> None:
        """The segment to itself, copied."""
        c = int(send_counts[0])
        recvbuf[int(recv_displs[0]):int(recv_displs[0]) + c] = sendbuf[int(send_displs[0]):int(send_displs[0]) + c]

    def close(self) -> None:
        return None


class NcclComm:
    """One rank of an NCCL communicator (``cupy.cuda.nccl.NcclCommunicator(size, uid, rank)``).

    Create it in the rank's process, after selecting its device (``cupy.cuda.Device(d).use()``);
    every rank of the group must create it with the same *uid* (``cupy.cuda.nccl.get_unique_id()``,
    made once by the parent). Collectives run on CuPy's current stream: ``allreduce_sum`` is
    ``ncclAllReduce``; ``allgatherv`` one ``ncclBroadcast`` per rank in one group (variable counts);
    ``alltoallv`` ``ncclSend``/``ncclRecv`` pairs in one group (NCCL 2.7+; the segment to itself
    too, so that one rank exercises the same calls).

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

    def _dtype(self, a) -> int:
        nccl = self._nccl
        table = {np.dtype(np.int32): nccl.NCCL_INT32, np.dtype(np.uint32): nccl.NCCL_UINT32,
                 np.dtype(np.int64): nccl.NCCL_INT64, np.dtype(np.uint64): nccl.NCCL_UINT64}
        if a.dtype not in table or not a.flags.c_contiguous:
            raise InvalidArgumentError(f"NcclComm needs contiguous int32/uint32/int64/uint64 arrays, got {a.dtype}")
        return table[a.dtype]

    def allreduce_sum(self, sendbuf, recvbuf) -> None:
        """``ncclAllReduce`` (sum) of int64 CuPy arrays."""
        import cupy

        self.comm.allReduce(sendbuf.data.ptr, recvbuf.data.ptr, sendbuf.size, self._dtype(sendbuf),
                            self._nccl.NCCL_SUM, cupy.cuda.get_current_stream().ptr)

    def allgatherv(self, buf, displs, counts) -> None:
        """One in-place ``ncclBroadcast`` per rank with elements to send, grouped."""
        import cupy

        dt, item, stream = self._dtype(buf), buf.itemsize, cupy.cuda.get_current_stream().ptr
        self._nccl.groupStart()
        try:
            for root in range(self.size):
                c = int(counts[root])
                if c:
                    ptr = buf.data.ptr + int(displs[root]) * item
                    self.comm.broadcast(ptr, ptr, c, dt, root, stream)
        finally:
            self._nccl.groupEnd()

    def alltoallv(self, sendbuf, send_displs, send_counts, recvbuf, recv_displs, recv_counts) -> None:
        """``ncclSend``/``ncclRecv`` to and from every rank with elements to move, grouped."""
        import cupy

        dt, stream = self._dtype(sendbuf), cupy.cuda.get_current_stream().ptr
        if recvbuf.dtype != sendbuf.dtype:
            raise InvalidArgumentError(f"alltoallv: send {sendbuf.dtype} but receive {recvbuf.dtype}")
        s_item, r_item = sendbuf.itemsize, recvbuf.itemsize
        self._nccl.groupStart()
        try:
            for p in range(self.size):
                if int(send_counts[p]):
                    self.comm.send(sendbuf.data.ptr + int(send_displs[p]) * s_item, int(send_counts[p]), dt, p, stream)
                if int(recv_counts[p]):
                    self.comm.recv(recvbuf.data.ptr + int(recv_displs[p]) * r_item, int(recv_counts[p]), dt, p, stream)
        finally:
            self._nccl.groupEnd()

    def close(self) -> None:
        """Destroy the NCCL communicator (idempotent)."""
        comm, self.comm = self.comm, None
        if comm is not None:
            comm.destroy()


# --------------------------------------------------------------------------- one rank
_TURN = None


def _turn_kernel():
    """The end of a level over the bitmap words, in one launch (CuPy ``ElementwiseKernel``):
    ``visited |= new``, the old frontier and the push marks cleared."""
    global _TURN
    if _TURN is None:
        import cupy

        _TURN = cupy.ElementwiseKernel("uint32 new_bits", "uint32 visited, uint32 old_frontier, uint32 disc",
                                       "visited |= new_bits; old_frontier = 0; disc = 0;",
                                       "autotune_distributed_turn")
    return _TURN


def _check_knobs(direction: str, alpha, beta, exchange: str, partition: str = "out_in") -> None:
    if direction not in ("push", "push_pull"):
        raise InvalidArgumentError(f"direction must be 'push' or 'push_pull', got {direction!r}")
    for name, v in (("alpha", alpha), ("beta", beta)):
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, float, np.integer, np.floating)) or not v > 0:
            raise InvalidArgumentError(f"{name} must be a positive number, got {v!r}")
    if exchange not in EXCHANGES:
        raise InvalidArgumentError(f"exchange must be one of {EXCHANGES}, got {exchange!r}")
    if partition not in PARTITIONS:
        raise InvalidArgumentError(f"partition must be one of {PARTITIONS}, got {partition!r}")


class RankBFS:
    """The level loop of one rank of the 1-D partitioned, direction-optimizing BFS (Liu & Huang,
    "Enterprise: Breadth-First Graph Traversal on GPUs", SC'15, section 4.4; Beamer's switch rule).

    Every rank holds two bitmaps of all n vertices, the same on every rank: the frontier and the
    visited set. A level is top-down (push) or bottom-up (pull), chosen from the frontier's vertex and
    out-edge counts summed over the ranks, by the rule of the single-GPU engine (pull when the
    frontier's out-edges exceed the unexplored edges / *alpha*; back to push when the frontier holds
    fewer than n / *beta* vertices).

    push
        the rank marks the unvisited out-neighbours of its owned frontier; the marks in other ranks'
        ranges go to their owners (*exchange*: ids or bitmap words, ``alltoallv``); each owner finds
        the parents of its marked vertices in their in-edges.
    pull
        each rank looks for a parent of every owned unvisited vertex in its in-edges.

    Either way a new vertex's parent is the last in-neighbour of its in-edge list that is in the
    frontier (the largest id: the lists are sorted), so the tree does not depend on the directions
    taken nor on the number of ranks; then the ranks' new frontier words are all-gathered
    (``allgatherv``) and their counts summed (``allreduce_sum``). One host read per level (the counts);
    a push level with the queue exchange reads three more (sizes).

    Parameters
    ----------
    row_offsets : ndarray, shape (hi - lo + 1,), int32 or int64
        Row offsets of the owned rows' out-edges, rebased (``row_offsets[0] == 0``).
    column_indices : ndarray, shape (row_offsets[-1],), int32
        Out-neighbours of the owned rows, global vertex ids.
    lo, hi : int
        The owned range ``[lo, hi)`` (may be empty), ``ranges[comm.rank]`` and ``ranges[comm.rank + 1]``.
    n_vertices : int
        Vertices of the whole graph.
    comm : Comm
        :class:`LocalComm` for one rank, :class:`NcclComm` for several.
    ranges : array_like, shape (comm.size + 1,)
        Every rank's range (:func:`partition_ranges` with ``align=32``): inner boundaries multiples of 32.
    n_edges : int
        Edges of the whole graph (for the switch rule).
    in_offsets, in_indices : ndarray, optional
        The owned vertices' in-edges (rebased offsets of the dtype of *row_offsets*; global source ids,
        each list ascending). None: the graph is undirected and the out-edges serve.
    direction : {'push_pull', 'push'}, default 'push_pull'
        Direction-optimizing, or top-down only.
    alpha, beta : float, default 15, 18
        The switch rule's thresholds (as :class:`autotune.TraversalConfig`).
    exchange : {'auto', 'queue', 'bitmap'}, default 'auto'
        How push levels send the marks of other ranks' vertices (:data:`EXCHANGES`). With one rank and
        'auto' nothing is sent.
    xp : module, optional
        ``cupy`` (default): the GPU path on the current device (``kernels/distributed.cu``). ``numpy``:
        the same level loop on the host, vectorised, used to test the algorithm without a GPU.

    Attributes
    ----------
    distances, predecessors : ndarray, shape (hi - lo,), int32
        Of the owned vertices after :meth:`run` (-1 unreached; the source is its own predecessor).
    eid64 : bool
        Whether the int64-offset kernels run.
    directions : list of str
        After :meth:`run`: 'push' or 'pull' per level.

    Raises
    ------
    InvalidArgumentError
        When the range, the ranges, the slices' shapes or a knob do not fit.
    """

    def __init__(self, row_offsets, column_indices, lo: int, hi: int, n_vertices: int, comm, *, ranges,
                 n_edges: int, in_offsets=None, in_indices=None, direction: str = "push_pull", alpha=15, beta=18,
                 exchange: str = "auto", xp=None):
        lo, hi, n = int(lo), int(hi), int(n_vertices)
        if not 0 <= lo <= hi <= n:
            raise InvalidArgumentError(f"owned range [{lo}, {hi}) must lie inside [0, {n})")
        if n >= 2 ** 31 - 32:
            raise InvalidArgumentError(f"n_vertices={n}: vertex ids are int32")
        ranges = np.asarray(ranges, dtype=np.int64)
        k = int(comm.size)
        if (ranges.shape != (k + 1,) or ranges[0] != 0 or ranges[-1] != n or np.any(np.diff(ranges) < 0)
                or np.any((ranges[1:-1] % _ALIGN != 0) & (ranges[1:-1] != n)) or (int(ranges[comm.rank]), int(ranges[comm.rank + 1])) != (lo, hi)):
            raise InvalidArgumentError(f"ranges {ranges.tolist()} must be {k + 1} non-decreasing boundaries from 0 to "
                                       f"{n}, inner ones multiples of {_ALIGN} (or {n}), with [{lo}, {hi}) at rank {comm.rank}")
        _check_knobs(direction, alpha, beta, exchange)
        if in_offsets is None:
            in_offsets, in_indices = row_offsets, column_indices
        for what, off, ind in (("row_offsets", row_offsets, column_indices), ("in_offsets", in_offsets, in_indices)):
            if tuple(off.shape) != (hi - lo + 1,):
                raise InvalidArgumentError(f"{what} has shape {tuple(off.shape)}, expected ({hi - lo + 1},)")
            m = int(ind.shape[0])
            if int(off[0]) != 0 or int(off[-1]) != m:
                raise InvalidArgumentError(f"{what} must run from 0 to the length of its indices ({m}), got "
                                           f"{int(off[0])}..{int(off[-1])}")
        if xp is None:
            import cupy as xp
        self.xp = xp
        self.lo, self.hi, self.n_vertices, self.comm, self.ranges = lo, hi, n, comm, ranges
        self.n_edges = int(n_edges)
        self.direction, self.alpha, self.beta, self.exchange = direction, float(alpha), float(beta), exchange
        self.eid64 = bool(row_offsets.dtype == np.int64 or in_offsets.dtype == np.int64
                          or int(column_indices.shape[0]) > _MAX_EDGES_INT32 or int(in_indices.shape[0]) > _MAX_EDGES_INT32)
        et = np.int64 if self.eid64 else np.int32
        self.row_offsets = xp.asarray(row_offsets, dtype=et)
        self.column_indices = xp.asarray(column_indices, dtype=np.int32)
        same = in_offsets is row_offsets and in_indices is column_indices
        self.in_offsets = self.row_offsets if same else xp.asarray(in_offsets, dtype=et)
        self.in_indices = self.column_indices if same else xp.asarray(in_indices, dtype=np.int32)
        # word ranges of the ranks in the bitmaps (disjoint: inner boundaries are multiples of 32)
        self.word_lo = (ranges[:-1] // _ALIGN).astype(np.int64)
        self.word_counts = np.where(np.diff(ranges) > 0, (ranges[1:] + _ALIGN - 1) // _ALIGN - self.word_lo,
                                    0).astype(np.int64)
        n_words = (n + _ALIGN - 1) // _ALIGN
        own = hi - lo
        self.frontier_bits = xp.zeros(n_words, dtype=np.uint32)
        self.next_bits = xp.zeros(n_words, dtype=np.uint32)
        self.visited_bits = xp.zeros(n_words, dtype=np.uint32)
        self.disc_bits = xp.zeros(n_words, dtype=np.uint32)
        self.frontier = xp.zeros(max(own, 1), dtype=np.int32)
        self.next_frontier = xp.zeros(max(own, 1), dtype=np.int32)
        self.counts = xp.zeros(4, dtype=np.uint64)  # [found, their out-edges] local, then summed over the ranks
        self.distances = xp.full(own, -1, dtype=np.int32)
        self.predecessors = xp.full(own, -1, dtype=np.int32)
        self.out_degrees = np.diff(np.asarray(to_host(row_offsets), dtype=np.int64))  # host: the source's degree
        self.directions: list[str] = []
        my_words = int(self.word_counts[comm.rank])
        self._recv_words = xp.zeros(max(k * my_words, 1), dtype=np.uint32)  # bitmap exchange
        if exchange != "bitmap" and (k > 1 or exchange == "queue"):  # queue exchange
            self._queue = xp.zeros(max(n, 1), dtype=np.int32)
            self._queue_len = xp.zeros(1, dtype=np.uint64)
            self._recv_ids = xp.zeros(max(k * own, 1), dtype=np.int32)
            self._count_matrix = xp.zeros(2 * k * k, dtype=np.int64)
        self._gpu = xp is not np
        if self._gpu:
            import cupy

            from ._kernels import DISTRIBUTED_BLOCK, get_kernel

            self._block = DISTRIBUTED_BLOCK
            self._k_push = {q: get_kernel("distributed", f"distributed_push<{DISTRIBUTED_BLOCK}, {str(q).lower()}>",
                                          "bfs", self.eid64) for q in (False, True)}
            self._k_mark = get_kernel("distributed", "distributed_mark", "bfs", self.eid64)
            self._k_parents = {p: get_kernel("distributed", f"distributed_parents<{DISTRIBUTED_BLOCK}, {str(p).lower()}>",
                                             "bfs", self.eid64) for p in (False, True)}
            self._max_blocks = 32 * cupy.cuda.Device().attributes["MultiProcessorCount"]
            self._events = cupy.cuda.Event(), cupy.cuda.Event()

    # ---------------------------------------------------------------- bitmap helpers (host path)
    @staticmethod
    def _test(bits, v):
        return ((bits[v >> 5] >> (v & 31).astype(np.uint32)) & np.uint32(1)).astype(bool)

    @staticmethod
    def _set(bits, v):
        np.bitwise_or.at(bits, v >> 5, np.left_shift(np.uint32(1), (v & 31).astype(np.uint32)))

    def _blocks(self, warps: int) -> int:
        per_block = self._block // 32
        return max(1, min((warps + per_block - 1) // per_block, self._max_blocks))

    # ---------------------------------------------------------------- steps
    def _push(self, n_frontier: int, queue: bool) -> None:
        """Mark the unvisited out-neighbours of the owned frontier in ``disc_bits`` (and the queue)."""
        if n_frontier == 0:
            return
        if self._gpu:
            qbuf = self._queue if queue else self.frontier
            qlen = self._queue_len if queue else self.counts
            self._k_push[queue]((self._blocks(n_frontier),), (self._block,),
                                (self.row_offsets, self.column_indices, self.frontier, np.int32(n_frontier),
                                 np.int32(self.lo), self.visited_bits, self.disc_bits, qbuf, qlen))
            return
        ro, ci = self.row_offsets, self.column_indices
        local = self.frontier[:n_frontier] - self.lo
        starts, deg = ro[local].astype(np.int64), (ro[local + 1] - ro[local]).astype(np.int64)
        offs = np.repeat(starts - np.concatenate(([0], np.cumsum(deg)[:-1])), deg)
        v = ci[offs + np.arange(int(deg.sum()), dtype=np.int64)]
        v = np.unique(v[~self._test(self.visited_bits, v)])
        if queue:
            fresh = v[~self._test(self.disc_bits, v)]
            nq = int(self._queue_len[0])
            self._queue[nq:nq + fresh.shape[0]] = fresh
            self._queue_len[0] = nq + fresh.shape[0]
        self._set(self.disc_bits, v)

    def _exchange_bitmap(self) -> None:
        """Every rank's words of ``disc_bits`` to their owner, OR-ed there."""
        xp, k, me = self.xp, self.comm.size, self.comm.rank
        mine = int(self.word_counts[me])
        recv_displs = np.arange(k, dtype=np.int64) * mine
        self.comm.alltoallv(self.disc_bits, self.word_lo, self.word_counts, self._recv_words, recv_displs,
                            np.full(k, mine, dtype=np.int64))
        if mine == 0:
            return
        w0 = int(self.word_lo[me])
        own = self.disc_bits[w0:w0 + mine]
        for p in range(k):
            xp.bitwise_or(own, self._recv_words[p * mine:(p + 1) * mine], out=own)

    def _exchange_queue(self) -> None:
        """The ids this rank marked in other ranks' ranges to their owner, marked there."""
        xp, k, me = self.xp, self.comm.size, self.comm.rank
        nq = int(self._queue_len[0])
        q = xp.sort(self._queue[:nq])
        cuts = np.asarray(to_host(xp.searchsorted(q, xp.asarray(self.ranges.astype(np.int32)))), dtype=np.int64)
        send_counts = np.diff(cuts)
        mat = self._count_matrix
        mat[:k * k].fill(0)
        mat[me * k:(me + 1) * k] = xp.asarray(send_counts)
        self.comm.allreduce_sum(mat[:k * k], mat[k * k:])
        matrix = np.asarray(to_host(mat[k * k:]), dtype=np.int64).reshape(k, k)  # [sender, receiver]
        recv_counts = matrix[:, me]
        recv_displs = np.concatenate(([0], np.cumsum(recv_counts)[:-1])).astype(np.int64)
        self.comm.alltoallv(q, cuts[:-1], send_counts, self._recv_ids, recv_displs, recv_counts)
        total = int(recv_counts.sum())
        if total == 0:
            return
        ids = self._recv_ids[:total]
        if self._gpu:
            self._k_mark((min((total + 255) // 256, self._max_blocks),), (256,), (ids, np.int32(total), self.disc_bits))
        else:
            self._set(self.disc_bits, ids)

    def _parents(self, pull: bool, next_level: int) -> None:
        """Parents of the owned vertices found this level; their bits, distances, predecessors, next
        frontier and counts."""
        lo, hi = self.lo, self.hi
        if hi == lo:
            return
        if self._gpu:
            n_words = int(self.word_counts[self.comm.rank])
            self._k_parents[pull]((self._blocks(n_words),), (self._block,),
                                  (self.row_offsets, self.in_offsets, self.in_indices, np.int32(lo), np.int32(hi),
                                   self.frontier_bits, self.visited_bits, self.disc_bits, self.next_bits,
                                   self.distances, self.predecessors, np.int32(next_level), self.next_frontier,
                                   self.counts))
            return
        v = np.arange(lo, hi, dtype=np.int64)
        cand = ~self._test(self.visited_bits, v)
        if not pull:
            cand &= self._test(self.disc_bits, v)
        c = v[cand] - lo
        io, ii = self.in_offsets, self.in_indices
        starts, deg = io[c].astype(np.int64), (io[c + 1] - io[c]).astype(np.int64)
        row = np.repeat(np.arange(c.shape[0]), deg)
        pos = np.repeat(starts - np.concatenate(([0], np.cumsum(deg)[:-1])), deg) + np.arange(int(deg.sum()))
        hit = self._test(self.frontier_bits, ii[pos].astype(np.int64))
        best = np.full(c.shape[0], -1, dtype=np.int64)
        np.maximum.at(best, row[hit], pos[hit])
        found = best >= 0
        local = c[found]
        self.distances[local] = next_level
        self.predecessors[local] = ii[best[found]]
        self._set(self.next_bits, local + lo)
        nf = int(local.shape[0])
        self.next_frontier[:nf] = local + lo
        self.counts[0] = nf
        self.counts[1] = int((self.row_offsets[local + 1] - self.row_offsets[local]).sum())

    def _sum_counts(self) -> tuple[int, int, int]:
        """Sum ``counts[0:2]`` over the ranks into ``counts[2:4]``; ``(local found, found, out-edges)``."""
        c = self.counts
        self.comm.allreduce_sum(c[0:2].view(np.int64), c[2:4].view(np.int64))
        h = np.asarray(to_host(c), dtype=np.int64)
        return int(h[0]), int(h[2]), int(h[3])

    # ---------------------------------------------------------------- traversal
    def run(self, source: int) -> tuple[int, float]:
        """One BFS from *source* (a global vertex id; every rank must pass the same one).

        Returns
        -------
        levels : int
            Frontiers expanded (the depth of the BFS tree + 1).
        elapsed_ms : float
            Device time of the level loop on this rank (CUDA events; host wall time on the NumPy path), ms.

        Raises
        ------
        VertexError
            When *source* is not a vertex.
        """
        xp, lo, hi, n = self.xp, self.lo, self.hi, self.n_vertices
        s = int(source)
        if not 0 <= s < n:
            raise VertexError(f"source {s} is not a vertex (valid: 0..{n - 1})")
        k = self.comm.size
        for a, val in ((self.frontier_bits, 0), (self.next_bits, 0), (self.visited_bits, 0), (self.disc_bits, 0),
                       (self.distances, -1), (self.predecessors, -1), (self.counts, 0)):
            a.fill(val)
        if self._gpu:
            start, stop = self._events
            start.record()
        else:
            t0 = time.perf_counter()
        bit = np.uint32(1 << (s & 31))
        self.frontier_bits[s >> 5] = bit
        self.visited_bits[s >> 5] = bit
        if lo <= s < hi:
            self.distances[s - lo] = 0
            self.predecessors[s - lo] = s
            self.frontier[0] = s
            self.counts[0] = 1
            self.counts[1] = int(self.out_degrees[s - lo])
        n_own, nf, mf = self._sum_counts()
        explored, level, pull = 0, 0, False
        self.directions = []
        send = self.exchange != "auto" or k > 1
        while nf > 0:
            if self.direction == "push_pull":
                if pull:
                    pull = not nf < n / self.beta
                else:
                    pull = mf > (self.n_edges - explored - mf) / self.alpha
            self.directions.append("pull" if pull else "push")
            self.counts.fill(0)
            if not pull:
                queue = send and (self.exchange == "queue" or (self.exchange == "auto" and 32 * mf < (k - 1) * n))
                if queue:
                    self._queue_len.fill(0)
                self._push(n_own, queue)
                if queue:
                    self._exchange_queue()
                elif send:
                    self._exchange_bitmap()
            self._parents(pull, level + 1)
            self.comm.allgatherv(self.next_bits, self.word_lo, self.word_counts)
            # visited |= new; the old frontier and the marks cleared for the next level (one pass)
            if self._gpu:
                _turn_kernel()(self.next_bits, self.visited_bits, self.frontier_bits, self.disc_bits)
            else:
                self.visited_bits |= self.next_bits
                self.frontier_bits.fill(0)
                self.disc_bits.fill(0)
            self.frontier_bits, self.next_bits = self.next_bits, self.frontier_bits
            self.frontier, self.next_frontier = self.next_frontier, self.frontier
            explored += mf
            n_own, nf, mf = self._sum_counts()
            level += 1
        if self._gpu:
            import cupy

            stop.record()
            stop.synchronize()
            ms = float(cupy.cuda.get_elapsed_time(start, stop))
        else:
            ms = (time.perf_counter() - t0) * 1e3
        return level, ms

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        """``(distances, predecessors)`` of the owned vertices as NumPy arrays."""
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
def _worker(rank: int, size: int, device: int, uid, inputs: dict, sources, queue) -> None:
    """Body of one rank's process: select the device, join the NCCL group, run, send the owned part.

    *inputs* holds :class:`RankBFS`'s arguments but ``comm``."""
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    comm = None
    try:
        import cupy

        cupy.cuda.Device(device).use()
        comm = NcclComm(size, uid, rank)
        rb = RankBFS(comm=comm, **inputs)
        rb.run(sources[0])  # warm-up: NCCL connects its channels and CuPy loads its kernels on first use
        out = []
        for source in sources:
            levels, ms = rb.run(source)
            out.append((*rb.result(), levels, ms, list(rb.directions)))
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


def _run_ranks(inputs: list, devices, sources, timeout_s: float) -> dict:
    """Spawn one process per device (rank ``r`` gets ``inputs[r]``), gather
    ``{rank: ([(dist, pred, levels, ms, directions) per source], eid64)}``."""
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
                         args=(r, k, devices[r], uid, inputs[r], tuple(sources), q)) for r in range(k)]
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


def knobs_from_config(config) -> dict:
    """The direction knobs of :func:`bfs_multi_gpu` taken from a :class:`autotune.TraversalConfig`.

    ``direction`` (and with ``push_pull`` its ``alpha`` and ``beta``) carry over; None gives the
    multi-GPU defaults (direction-optimizing, alpha 15, beta 18). The load-balancing fields do not
    apply: every rank runs the warp-per-vertex kernels of ``kernels/distributed.cu``.

    Raises
    ------
    ConfigError
        For an SSSP config, the ``hub_ratio`` switch rule or a ``pull_gate`` (the multi-GPU BFS switches by
        Beamer's rule alone).
    """
    from .errors import ConfigError

    if config is None:
        return dict(direction="push_pull", alpha=15, beta=18)
    if config.algorithm != "bfs":
        raise ConfigError(f"runs over several devices are BFS only; the config has algorithm={config.algorithm!r}")
    if config.direction == "push":
        return dict(direction="push", alpha=15, beta=18)
    if config.switch_rule != "alpha_beta":
        raise ConfigError(f"the multi-GPU BFS switches direction by Beamer's alpha/beta rule; the config has "
                          f"switch_rule={config.switch_rule!r}")
    if config.pull_gate not in (None, "off"):
        raise ConfigError(f"the multi-GPU BFS switches direction by Beamer's rule without a gate; the config has "
                          f"pull_gate={config.pull_gate!r}")
    return dict(direction="push_pull", alpha=config.alpha, beta=config.beta)


def bfs_multi_gpu(graph, source, devices=(0, 1), *, direction: str = "push_pull", alpha=15, beta=18,
                  exchange: str = "auto", partition: str = "out_in", offsets=None,
                  timeout_s: float = DEFAULT_TIMEOUT_S):
    """BFS over several GPUs of one host, 1-D partitioned and direction-optimizing (Liu & Huang,
    "Enterprise: Breadth-First Graph Traversal on GPUs", SC'15, section 4.4); exact.

    The vertices are split into ``len(devices)`` contiguous ranges (:func:`rank_inputs`); rank ``r``
    runs on ``devices[r]`` and holds the out- and in-edges of its range (:class:`RankBFS`). With one
    device it runs in this process (:class:`LocalComm`, no NCCL); with several it spawns one process
    per device (``multiprocessing`` spawn context) joined by NCCL.

    Parameters
    ----------
    graph : CSRGraph
        The graph (host or device arrays; the CSR is read through ``graph.host()``).
    source : int
        Start vertex, ``0 <= source < n_vertices``.
    devices : sequence of int, default (0, 1)
        CUDA device ids, one rank each, distinct.
    direction : {'push_pull', 'push'}, default 'push_pull'
        Direction-optimizing levels (Beamer's rule, *alpha* and *beta*) or top-down only.
    alpha, beta : float, default 15, 18
        Push -> pull when the frontier's out-edges exceed the unexplored edges / alpha; back to push
        when the frontier holds fewer than n_vertices / beta vertices.
    exchange : {'auto', 'queue', 'bitmap'}, default 'auto'
        How push levels send the vertices found in other ranks' ranges: ids (4 bytes each), the
        range's bitmap words (n / 8 bytes over all ranks), or the smaller by the level's frontier edges.
    partition : {'out_in', 'out'}, default 'out_in'
        Balance the ranks' ranges by out- plus in-edges (what push and pull levels read) or by out-edges.
    offsets : {None, 'int32', 'int64'}, optional
        Row-offset type of the ranks' slices: None picks int32 unless a slice has more than
        2**31 - 1 edges; 'int64' forces the int64-offset kernels (for tests).
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
        ``levels`` (frontiers expanded, depth + 1), ``depth``, ``directions`` ('push' or 'pull' per
        level), ``elapsed_ms`` (after one warm-up traversal; the largest over the ranks of the device
        time of the level loop, CUDA events, setup and transfers excluded), ``ranks``, ``devices``,
        ``ranges`` (list of ``(lo, hi)``), ``eid64`` (per rank), and the knobs ``direction``,
        ``alpha``, ``beta``, ``exchange``, ``partition``.

    Raises
    ------
    VertexError
        When *source* is not a vertex (TypeError when it is not an integer).
    InvalidArgumentError
        When *devices* is empty, repeats a device, names a device that does not exist, asks for
        more ranks than vertices, or a knob or *offsets* is unknown.
    GPUUnavailableError
        When no GPU with CuPy is usable (or, for several devices, CuPy has no NCCL).
    RankError
        When a rank fails (its exception and traceback in the message), dies, or times out.
    """
    (res,) = bfs_multi_gpu_sources(graph, [source], devices, direction=direction, alpha=alpha, beta=beta,
                                   exchange=exchange, partition=partition, offsets=offsets, timeout_s=timeout_s)
    return res


def bfs_multi_gpu_sources(graph, sources, devices=(0, 1), *, direction: str = "push_pull", alpha=15, beta=18,
                          exchange: str = "auto", partition: str = "out_in", offsets=None,
                          timeout_s: float = DEFAULT_TIMEOUT_S) -> list:
    """:func:`bfs_multi_gpu` from each of *sources*, one after the other, with the ranks (processes,
    NCCL group, slices) set up once; one warm-up traversal from the first source is not timed.

    Returns
    -------
    list of (distances, predecessors, info)
        One per source, as :func:`bfs_multi_gpu` returns them.

    Raises
    ------
    Same as :func:`bfs_multi_gpu` (a bad source or knob is reported before any rank starts).
    """
    from ._backend import require_gpu

    srcs = [_check_source(graph, s) for s in sources]
    if not srcs:
        raise InvalidArgumentError("no sources given")
    devs = _check_devices(devices)
    offsets = _check_offsets(offsets)
    _check_knobs(direction, alpha, beta, exchange, partition)
    require_gpu("bfs_multi_gpu")
    import cupy

    count = cupy.cuda.runtime.getDeviceCount()
    bad = [d for d in devs if d >= count]
    if bad:
        raise InvalidArgumentError(f"device(s) {bad} do not exist: this host has {count} CUDA device(s) "
                                   f"(ids 0..{count - 1})")
    n, k = graph.n_vertices, len(devs)
    ranges, slices = rank_inputs(graph, k, partition=partition, offsets=offsets)
    knobs = dict(direction=direction, alpha=alpha, beta=beta, exchange=exchange)
    inputs = []
    for r, (sro, sci, sio, sii, _eid64) in enumerate(slices):
        directed = sio is not sro
        inputs.append(dict(row_offsets=sro, column_indices=sci, lo=int(ranges[r]), hi=int(ranges[r + 1]),
                           n_vertices=n, ranges=ranges, n_edges=graph.n_edges,
                           in_offsets=sio if directed else None, in_indices=sii if directed else None, **knobs))
    if k == 1:
        with cupy.cuda.Device(devs[0]):
            rb = RankBFS(comm=LocalComm(), **inputs[0])
            rb.run(srcs[0])  # warm-up (first launches)
            out = []
            for s in srcs:
                levels, ms = rb.run(s)
                out.append((*rb.result(), levels, ms, list(rb.directions)))
        results = {0: (out, rb.eid64)}
    else:
        results = _run_ranks(inputs, devs, srcs, timeout_s)
    answers = []
    for i in range(len(srcs)):
        distances = np.concatenate([results[r][0][i][0] for r in range(k)]).astype(np.int32, copy=False)
        predecessors = np.concatenate([results[r][0][i][1] for r in range(k)]).astype(np.int32, copy=False)
        levels = {results[r][0][i][2] for r in range(k)}
        if len(levels) != 1:
            raise RankError(f"ranks disagree on the number of levels: {sorted(levels)}")
        (lv,) = levels
        info = dict(levels=lv, depth=int(distances.max()) if n else 0, directions=results[0][0][i][4],
                    elapsed_ms=max(results[r][0][i][3] for r in range(k)), ranks=k, devices=list(devs),
                    ranges=[(int(ranges[r]), int(ranges[r + 1])) for r in range(k)],
                    eid64=[bool(results[r][1]) for r in range(k)], partition=partition, **knobs)
        answers.append((distances, predecessors, info))
    return answers


# --------------------------------------------------------------------------- command line
def _device_list(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(t) for t in text.split(",") if t.strip() != "")
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated device ids such as 0,1, got {text!r}") from None


def main(argv=None) -> int:
    """``python -m autotune.distributed GRAPH --devices 0,1 [--source S] [--validate] [--direction D]
    [--exchange E] [--partition P]``.

    Prints the levels, the time (largest over the ranks), the edges traversed (sum of the
    out-degrees of the reached vertices) and GTEPS. Exit status 0, 1 when ``--validate`` finds the
    result wrong, 2 on a usage or input error.
    """
    from .graph import load_graph
    from .reference import reference_edges_traversed, validate_bfs
    from .errors import ValidationError

    p = argparse.ArgumentParser(prog="python -m autotune.distributed",
                                description="Multi-GPU BFS (1-D partitioned, direction-optimizing, NCCL), one "
                                            "process per GPU.")
    p.add_argument("graph", help="graph file or generator spec (e.g. kron:scale=20,edge_factor=16)")
    p.add_argument("--devices", type=_device_list, default=(0, 1), help="comma-separated CUDA device ids (default 0,1)")
    p.add_argument("--source", type=int, default=None,
                   help="source vertex (internal id; default: the vertex of largest out-degree)")
    p.add_argument("--offsets", choices=("int32", "int64"), default=None, help="force the row-offset type")
    p.add_argument("--direction", choices=("push_pull", "push"), default="push_pull",
                   help="direction-optimizing levels (default) or top-down only")
    p.add_argument("--alpha", type=float, default=15.0, help="push -> pull threshold (default 15)")
    p.add_argument("--beta", type=float, default=18.0, help="pull -> push threshold (default 18)")
    p.add_argument("--exchange", choices=EXCHANGES, default="auto",
                   help="push levels send found vertices as ids, bitmap words, or the smaller (auto, default)")
    p.add_argument("--partition", choices=PARTITIONS, default="out_in",
                   help="balance ranges by out- plus in-edges (default) or by out-edges")
    p.add_argument("--validate", action="store_true", help="check against the CPU reference (exit 1 if wrong)")
    args = p.parse_args(argv)
    try:
        g = load_graph(args.graph)
        src = int(np.argmax(g.out_degrees(np))) if args.source is None else args.source
        dist, pred, info = bfs_multi_gpu(g, src, args.devices, offsets=args.offsets, direction=args.direction,
                                         alpha=args.alpha, beta=args.beta, exchange=args.exchange,
                                         partition=args.partition)
    except (AutotuneError, TypeError) as exc:
        print(f"autotune: error: {exc}", file=sys.stderr)
        return 2
    edges = reference_edges_traversed(g, dist)
    ms = info["elapsed_ms"]
    gteps = edges / (ms * 1e6) if ms > 0 else float("nan")
    print(f"{g.name}: n={g.n_vertices:,} m={g.n_edges:,} source={src} ranks={info['ranks']} "
          f"devices={','.join(map(str, info['devices']))}")
    print(f"levels={info['levels']} ({','.join(info['directions'])}) reached={int((dist >= 0).sum()):,} "
          f"edges={edges:,} ms={ms:.3f} GTEPS={gteps:.3f}")
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
