"""Generic machinery of the traversal engines: buffers every traversal needs, launch sequence,
device-side level batching, state read-back, occupancy and the device-memory check.

A traversal engine (:class:`autotune.engine.BFSEngine`, :class:`autotune.engine.SSSPEngine`) adds
its operator's per-vertex state (the ``OpArgs`` block of ``kernels/traversal.cuh``), how it is reset
before a traversal and how results are read; everything else is here and knows nothing of the
algorithm: the push kernel comes from the technique registry (:mod:`autotune.techniques`),
instantiated over the engine's operator.

Host synchronisation left per level: none. The level being expanded, the frontier counters and the
direction live in device memory (``BFSState``); every kernel decides on the device whether the
current level is its own, and the last block to finish a level advances the state. The host enqueues
the same launches with the same arguments in batches of iterations (2, 4, 8, ... up to
:data:`MAX_BATCH`) and reads the 64-byte state back once per batch (one copy + stream sync) to learn
whether the traversal is over. Launches past the last level exit after reading an empty frontier.
"""
from __future__ import annotations

from dataclasses import dataclass
import bisect
import functools
import time

import numpy as np

from ._backend import device_properties, masked_sum, require_gpu
from ._kernels import MAX_EDGES_INT32, MAX_EDGES_INT64, get_kernel, prefetch
from .errors import DeviceMemoryError
from .techniques import OPERATORS, AuxContext, technique

MAX_BATCH = 64
FIRST_BATCH = 2
#: Launch rounds captured in one CUDA graph at most (a traversal needing more replays a
#: continuation graph, one host wait each).
MAX_GRAPH_ROUNDS = 64
#: CUDA graphs kept per engine (keyed by rounds); past it, capturing another evicts the least recently
#: replayed one (:meth:`TraversalEngine._store_graph`).
MAX_GRAPHS = 24
#: The replay policy's cost model. Each engine measures, right after its first traversal, what a
#: replayed round that the traversal does not need costs (its kernels launch over their grids and
#: exit: 3-7.5 us a round on an H200) and what a continuation graph's launch, host wait and state
#: check cost (7.5-13 us), by replaying two continuation graphs on the finished traversal
#: (TraversalEngine._measure_replay); these are the defaults until then. A start graph's capture
#: (capture, instantiation, upload) is timed when it happens (0.06-0.7 ms on an H200).
ROUND_US = 3.0
CONTINUATION_US = 15.0
CAPTURE_US = 250.0
#: Traversals whose rounds the replay policy remembers (TraversalEngine._note_rounds).
ROUND_HISTORY = 16
#: Start graphs of 1 .. PRIME_FEWER_ROUNDS rounds fewer and 1 .. PRIME_MORE_ROUNDS more than the
#: first traversal needed are primed too: sources that reach a little less or more than the warm-up
#: source (most sources of small and directed graphs) then replay a graph of their own rounds at
#: once, without a capture, empty rounds or a continuation.
PRIME_FEWER_ROUNDS = 3
PRIME_MORE_ROUNDS = 2
#: Replay traversals as CUDA graphs (False: launch round by round, as before).
USE_CUDA_GRAPHS = True
#: Run a whole BFS in one launch of one block (``kernels/whole_graph.cu``) when the graph fits it
#: (:func:`whole_graph_fits`): ``"auto"``; ``"off"``: always the config's launch rounds.
WHOLE_GRAPH = "auto"
#: ... on graphs of at most this many edges: one SM expands every edge (~1 edge per ns on an H200), so
#: a level of many edges is faster on the config's multi-block kernels. Measured on an H200 against
#: each graph's fast-path pick and a fixed single-block config, same sources, in one run
#: (notebooks/figures/whole_graph_ab_h200.jsonl): 0.53-0.93x on the 12 graphs of 14,700-40,000 edges,
#: 1.14x on a Kronecker graph of 53,000 (one level holds most edges), 1.5-42x on graphs of 150,000
#: edges and more; meshes and shallow-reach graphs gain up to 125,000 edges (0.51-0.74x), which this
#: limit leaves to the config's kernels. Not re-calibrated for the current kernel (staged CSR, one
#: search per lane per round): in one run (notebooks/figures/whole_graph_v2_h200.jsonl, push levels)
#: it took a Kronecker graph of 53,134 edges to 0.79x and a 200 x 200 grid to 0.75x of the launch
#: rounds, but cit-HepTh and sx-mathoverflow stay 1.6-2.4x slower on it.
WHOLE_GRAPH_MAX_EDGES = 48 * 1024
#: Steps of 32 edges a warp of the whole-graph kernel unrolls (a value of ``_kernels.WHOLE_GRAPH_EPT``).
WHOLE_GRAPH_EPT = 1
#: Let the whole-graph kernel run pull (bottom-up) levels: GAP's rule, push -> pull when the
#: frontier's out-edges exceed the unexplored edges / WHOLE_GRAPH_ALPHA and the frontier holds at
#: least n / WHOLE_GRAPH_BETA vertices, back when it shrinks below that (Beamer et al., SC'12; GAP's
#: alpha and beta). ``"auto"`` (the default): on graphs of at least WHOLE_GRAPH_PULL_MIN_DEGREE edges
#: per vertex (:func:`whole_graph_pull`); ``True`` / ``False``: on every graph / none.
WHOLE_GRAPH_PULL = "auto"
#: Mean out-degree (edges / vertices) from which ``WHOLE_GRAPH_PULL = "auto"`` allows pull levels.
#: Measured on an H200 against push levels only, same run and sources
#: (notebooks/figures/whole_graph_pull_h200.jsonl; README, "Small graphs"): pull levels made
#: email-Eu-core (24.8 edges per vertex), CollegeMsg (10.7), soc-sign-bitcoinalpha (6.4),
#: soc-sign-bitcoinotc (5.9) and a directed Kronecker graph (12.4) 0.61-0.79x, but CA-GrQc (5.5)
#: 1.31x and p2p-Gnutella04 (3.7) 1.16x slower (1.36-1.54x and 1.08-1.16x in two earlier runs): on
#: sparse graphs a pull level scans most in-edges of the unvisited vertices (many unreachable)
#: without finding a parent, while the push level it replaces has few edges. Fitted on these graphs:
#: the threshold lies between the measured 5.5 and 5.9.
WHOLE_GRAPH_PULL_MIN_DEGREE = 5.7
WHOLE_GRAPH_ALPHA = 15
WHOLE_GRAPH_BETA = 18
#: In-edges a thread of a pull level scans alone before its warp takes the rest of them, 32 at a time
#: (the one-block kernel). Measured on an H200 against 4, 8 and 16, same processes, fast path's pick
#: (notebooks/figures/whole_graph_pull_serial_ab_h200.jsonl; README, "A thread's own share of a pull
#: level's in-edges"): email-Eu-core's
#: first pull level 7.1 -> 5.0 µs (its unresolved in-edges are left to fewer warp steps; 4: 10.7),
#: the other pull levels of the six one-block graphs within their spread.
WHOLE_GRAPH_PULL_SERIAL = 32
#: Compile the whole-graph kernel with its packed late pull levels (:func:`whole_graph_packed`):
#: ``"auto"`` (the default) for graphs with pull levels of more than two rounds of the block;
#: ``True`` / ``False``: for every graph with pull levels / none.
WHOLE_GRAPH_PACKED = "auto"
#: Copy the graph's CSR into the kernel's shared memory where it fits beside the bitmaps and the
#: queue (``"auto"``), so no level waits on a global load; ``"off"``: levels read it from global memory.
WHOLE_GRAPH_STAGE = "auto"
#: Copy a directed graph's in-edges into the kernel's shared memory too, for its pull levels, where
#: they fit beside the staged CSR (``"auto"``); ``"off"``: pull levels read them from global memory.
WHOLE_GRAPH_STAGE_IN = "auto"
#: Threads of its one block.
WHOLE_GRAPH_THREADS = 1024
#: Run a whole BFS in one launch of one thread-block cluster (``kernels/cluster_graph.cu``: C blocks on
#: C SMs, the visited bitmap partitioned over their shared memories, levels separated by the cluster's
#: hardware barrier) on graphs past the one-block kernel's edge limit and within
#: :data:`CLUSTER_MAX_EDGES` (:func:`cluster_fits`), on devices of compute capability 9.0 or more.
#: ``"auto"``: where it is faster than the config's launch rounds on this graph, which the engine
#: measures before its first traversal (:meth:`TraversalEngine._calibrate_cluster`): measured on an
#: H200, it is 0.79-0.96x on meshes, geometric and power-law graphs of 20,000-65,536 vertices but
#: 1.1-1.3x on deep, narrow ones (chains of cliques, small worlds) and on graphs of 10^5 vertices
#: (README, "Small graphs"), and no feature known when the engine is built tells them apart; ``"on"``:
#: wherever it fits; ``"off"``: never.
CLUSTER = "auto"
#: The cluster kernel is kept when its time on the calibration sources is below this share of the
#: launch rounds' (both measured the same way, in the same engine).
CLUSTER_MARGIN = 0.97
#: Calibration sources: the vertex of largest out-degree and this many more (seeded, out-degree > 0).
CLUSTER_CALIBRATION_SOURCES = 3
#: Direction calibration of push/pull configs (``direction="push_pull"``) on the launch rounds:
#: ``"auto"``: before the engine's first traversal, time the config's rounds as configured and with
#: every level pushed (the pull kernels left out of the rounds: the launch sequence of the config's push
#: twin) on the calibration sources, and keep push levels only when they take less than
#: :data:`DIRECTION_MARGIN` of the push/pull time (:meth:`TraversalEngine._calibrate_direction`);
#: ``"off"``: the config's direction always. Beamer's rule (GAP's alpha and beta) decides when a level
#: pulls from the frontier's out-edges against the unexplored ones, and cannot see how many in-edges a
#: pull level examines without finding a parent: on a directed bow-tie of 1.5·10^6 vertices the first
#: pull level examines 3.1·10^6 in-edges where the push level it replaces expands 1.8·10^6 out-edges,
#: and the push/pull config took 1.27x its push twin (README, "Retraining the model"); a pull exit rule
#: inside the kernels was built and measured and lost elsewhere (README, "A pull exit"). The engine
#: measures instead, as it does for the cluster kernel.
DIRECTION_CALIBRATION = "auto"
#: Push levels are kept when their time on the calibration sources is below this share of the
#: push/pull levels' (both measured the same way, in the same engine).
DIRECTION_MARGIN = 0.97
#: The direction is not calibrated when one traversal of the push/pull rounds takes longer than this
#: (ms, the first timed source): the calibration costs ~20 traversals, paid once by the engine.
DIRECTION_CALIBRATION_MAX_MS = 5.0


def _fresh_replay_state() -> dict:
    """The engine's CUDA-graph replay state before its first traversal (attribute -> value), kept per
    direction by :meth:`TraversalEngine._set_direction`: a direction run for the first time starts from
    it."""
    return {
        "_graphs": {},           # captured CUDA graphs: (start?, rounds) -> graph
        "_round_history": [],    # the rounds the last traversals needed
        "_rounds_needed": 0,
        "_start_k": 0,           # rounds of the start graph the engine replays (0: none yet)
        "_plan": None,           # (target rounds, start graph replayed, its extra cost in us per traversal)
        "_plan_stale": False,    # the remembered rounds changed since the plan was made
        "_costs": {},            # (start rounds, rounds needed) -> us: _start_cost
        "_conts": [],            # rounds of the captured continuation graphs, sorted
        "_waste_us": 0.0,        # estimated cost paid since the ideal start graph was last captured
        "round_us": ROUND_US,    # measured by _measure_replay after the first traversal
        "continuation_us": CONTINUATION_US,
    }


#: The replay state's attributes (:func:`_fresh_replay_state`).
_REPLAY_FIELDS = tuple(_fresh_replay_state())
#: Blocks of the cluster: 16 (Hopper's largest cluster, a non-portable size the engine opts in to),
#: else 8 where the device cannot schedule 16 blocks of 1024 threads with this shared memory.
CLUSTER_SIZE = 16
#: Edge limit of the cluster kernel: past it the multi-block kernels' levels win (first form of the
#: kernel, one H200 run, notebooks/figures/cluster_v1_ab_h200.jsonl: caidaRouterLevel, 1.2 million
#: edges, 1.55x; coAuthorsDBLP, 2 million, 1.42x; soc-Slashdot0902, 870,000, 1.25x), and graphs
#: within it are calibrated anyway.
CLUSTER_MAX_EDGES = 1 << 20
#: Vertex limit: 16 blocks of at most CLUSTER_MAX_RANGE vertices each.
CLUSTER_MAX_VERTICES = 1 << 18
#: Vertices a block of the cluster may own: its queue holds 16-bit local ids, and its parents and levels
#: (8 bytes a vertex) share its shared memory with the bitmaps and its staged rows.
CLUSTER_MAX_RANGE = 1 << 14
#: Pull levels in the cluster kernel: ``"auto"`` = on graphs of at least CLUSTER_PULL_MIN_DEGREE
#: edges per vertex, ``True`` / ``False``: on every graph / none.
CLUSTER_PULL = "auto"
#: Measured on an H200 (notebooks/figures/cluster_v3_ab_h200.jsonl): pull levels made the kernel
#: 0.79-0.88x of push-only on random, R-MAT, power-law and Kronecker graphs of 4-6 edges per vertex,
#: no faster on meshes and geometric graphs (4-10), 1.12x slower on road-usroads (2.6).
CLUSTER_PULL_MIN_DEGREE = 3.5
#: In-edges a thread of the cluster kernel's pull levels scans alone before its warp takes the rest.
CLUSTER_PULL_SERIAL = 8
#: Serve the traversals of a whole-graph engine from a *resident* kernel (``whole_graph_resident`` in
#: ``kernels/whole_graph.cu``, one block; ``cluster_resident`` in ``kernels/cluster_graph.cu``, one
#: thread-block cluster): ``"auto"`` (where the device maps pinned host memory): the first traversal
#: launches it, it stages the CSR into its shared memory once and then answers each traversal's
#: request from a mailbox in pinned host memory, so a traversal costs no launch, no staging and no
#: stream wait (the host writes the request and spins on the answer word; README, "Small graphs");
#: ``"off"``: every traversal replays the one-kernel CUDA graph. The kernel holds its SM (a cluster:
#: its 16) while it waits, and returns by itself :data:`RESIDENT_IDLE_US` after the last request (a
#: later traversal launches it again), before another engine's persistent-kernel launch rounds,
#: cluster kernel or batch (:func:`release_resident`), and when its engine is collected. Measured on
#: an H200 (README, "Small graphs"): 0.69-0.88x the replayed kernel's time per traversal; the cluster's
#: 0.62-0.93x (README, "The cluster kernel, resident").
RESIDENT = "auto"
#: Microseconds a resident kernel waits for the next request before it returns (its SM, and any
#: ``cudaDeviceSynchronize`` of the process, wait at most this long after the last traversal).
RESIDENT_IDLE_US = 1000.0
#: The resident kernel's copy word: (request's sequence number mod 2**19) << 45 | (address >> 4)
#: (``kernels/block_scan.cuh``, ``at_res_wait``: AT_RES_TAG_SHIFT, AT_RES_TAG_MASK).
RESIDENT_TAG_SHIFT = 45
RESIDENT_TAG_MASK = (1 << 19) - 1
#: Past this many microseconds without a request the resident kernel sleeps RESIDENT_NAP_NS
#: nanoseconds between its reads of the mailbox (0: reads without pause). Measured on an H200: a nap
#: of 500-2,000 ns changed nothing for other engines' kernels and cost the resident engine 0.5-0.9 µs
#: a traversal, so it is off.
RESIDENT_BUSY_US = 50.0
RESIDENT_NAP_NS = 0
#: Resident kernels alive at once (one SM each, a cluster's 16); past it the least recently used returns.
RESIDENT_MAX = 4
#: Seconds a traversal waits for the resident kernel's answer before it raises (a traversal of the
#: whole-graph kernel's graphs takes well under a millisecond; the wait covers a GPU busy with other
#: work before the kernel is scheduled).
RESIDENT_TIMEOUT_S = 60.0
#: Read the source and write the state back zero-copy (pinned host memory mapped into the device's
#: address space) where the device supports it; off: a copy node each way.
ZERO_COPY = True


def _ladder(k0: int) -> list[int]:
    """The powers of two primed as start graphs beside the first traversal's *k0* rounds: those
    below ``k0 - PRIME_FEWER_ROUNDS`` (from 2) and those above ``k0 + PRIME_MORE_ROUNDS`` up to
    ``4 k0`` (at most :data:`MAX_GRAPH_ROUNDS`)."""
    below = [1 << i for i in range(1, 7) if (1 << i) < k0 - PRIME_FEWER_ROUNDS]
    above = [1 << i for i in range(1, 7) if k0 + PRIME_MORE_ROUNDS < (1 << i) <= min(4 * k0, MAX_GRAPH_ROUNDS)]
    return below + above


#: Engines whose resident kernel may be running, least recently used first (id -> stopper).
_RESIDENTS: dict = {}


def release_resident(keep=None) -> None:
    """Ask every running resident whole-graph kernel (:data:`RESIDENT`) but *keep*'s engine's to
    return, and wait for them (a few µs each).

    autotune calls it before launches that need the whole GPU (launch rounds whose persistent kernels
    wait for all their blocks, cluster kernels, batches) and before a device-wide synchronize; call it
    before a cooperative kernel of your own. Costs nothing when none runs; an engine whose kernel
    returned launches it again on its next traversal.

    Parameters
    ----------
    keep : TraversalEngine, optional
        The engine whose resident kernel keeps running.
    """
    if not _RESIDENTS:
        return
    for key in list(_RESIDENTS):
        if keep is None or key != id(keep):
            stop = _RESIDENTS.pop(key, None)
            if stop is not None:
                stop()


def _opt_in(kernel, smem: int, cluster_size: int = 0) -> bool:
    """Set the launch attributes a one-launch kernel needs: its dynamic shared memory (*smem* bytes)
    when past 48 KB in all with its static part (cudaFuncAttributeMaxDynamicSharedMemorySize), and a
    cluster of more than 8 blocks (CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED). Returns False
    when the driver refuses either (the caller then keeps another path)."""
    import cupy

    try:
        if smem + int(kernel.shared_size_bytes) > 48 * 1024:
            kernel.max_dynamic_shared_size_bytes = smem
        if cluster_size > 8:
            cupy.cuda.driver.funcSetAttribute(kernel.kernel.ptr, 14, 1)
    except Exception:  # noqa: BLE001 -- any refusal means: not this kernel
        return False
    return True


class _ResidentStopper:
    """Stops one engine's resident kernel: writes the return request into its mailbox and waits for
    its stream. Holds the mailbox, stream and counter (not the engine), so it also runs when the
    engine is collected, before its buffers go back to the memory pool."""

    def __init__(self, mailbox, stream):
        self.mailbox, self.stream = mailbox, stream
        # the same three words as a memoryview: a store or load of one is a third of NumPy's item
        # access (a Python int, no NumPy scalar), on the host's critical path of every resident call
        self.words = memoryview(mailbox).cast("B").cast("Q")
        self.seq = 0        # the last request written
        self.live = False   # a launch may still be running

    def __call__(self) -> None:
        if not self.live:
            return
        self.live = False
        self.seq = (self.seq + 1) & 0xFFFFFFFF
        self.words[1] = (self.seq & RESIDENT_TAG_MASK) << RESIDENT_TAG_SHIFT  # (no copy)
        self.words[0] = (self.seq << 32) | 0xFFFFFFFF
        try:
            self.stream.synchronize()
        except Exception:  # a faulted context: nothing runs any more
            pass


def _drop_resident(key: int, stop: _ResidentStopper) -> None:
    """An engine's finalizer: its resident kernel returns before its buffers are released."""
    if _RESIDENTS.get(key) is stop:
        del _RESIDENTS[key]
    stop()


@functools.lru_cache(maxsize=None)
def _host_memory_mapped(device_id: int) -> bool:
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(device_id)
    return bool(props.get("canMapHostMemory", 0)) and bool(props.get("unifiedAddressing", 0))


def host_memory_mapped() -> bool:
    """True when the current device reads and writes pinned host memory through the host pointer
    (``canMapHostMemory`` and ``unifiedAddressing``: every 64-bit Linux CUDA system)."""
    import cupy

    return _host_memory_mapped(cupy.cuda.Device().id)

#: Mirrors ``struct BFSState`` (kernels/traversal.cuh), 64 bytes.
STATE_DTYPE = np.dtype([("ctr", "<u8", (3,)), ("hub_ctr", "<i4", (3,)), ("level", "<i4"), ("done_blocks", "<u4"),
                        ("dir", "<i4"), ("explored", "<i8"), ("iterations", "<i4"), ("pad", "<i4")], align=True)
#: Mirrors ``struct BFSParams`` (kernels/traversal.cuh), 64 bytes.
PARAMS_DTYPE = np.dtype([("n_vertices", "<i4"), ("dir_mode", "<i4"), ("sb_limit", "<i4"), ("sb_edge_limit", "<i4"),
                         ("alpha", "<f4"), ("beta", "<f4"), ("gamma", "<f4"), ("hub_degree", "<i4"),
                         ("n_hubs", "<i4"), ("min_vw", "<i4"), ("trace_cap", "<i4"), ("eid_bytes", "<i4"),
                         ("inline_degree", "<i4"), ("sb_hub_degree", "<i4"), ("n_edges", "<i8")],
                        align=True)
#: Mirrors ``struct BFSAux`` (kernels/traversal.cuh), 320 bytes: options and scratch buffers of
#: the techniques beyond plain push/pull levels (pointers as uint64, 0 = unused).
AT_SQ_MAX_BINS = 16
AUX_DTYPE = np.dtype([
    ("wg_degree", "<i4"), ("bg_degree", "<i4"), ("sq_degree", "<i4"), ("sq_base_log2", "<i4"), ("sq_bins", "<i4"),
    ("defer_degree", "<i4"), ("work_chunk", "<i4"), ("push_finishes", "<i4"), ("hash_cull", "<i4"),
    ("dc_small", "<i4"), ("dc_middle", "<i4"), ("dc_large", "<i4"), ("bs_dynamic_chunk", "<i4"),
    ("n_hub_cache", "<i4"), ("heavy_off", "<i4", (AT_SQ_MAX_BINS + 2,)),
    ("heavy", "<u8"), ("heavy_ctr", "<u8"), ("dc_queue", "<u8", (8,)), ("dc_ctr", "<u8"), ("coo_src", "<u8"),
    ("hub_list", "<u8"), ("barrier", "<u8"), ("work_ctr", "<u8"), ("pull_heavy_items", "<u8"),
    ("n_pull_heavy", "<i4"), ("pull_heavy_total", "<i4"), ("pull_heavy_degree", "<i4"), ("pull_pad", "<i4"),
    ("frontier_bits", "<u8"), ("unvisited", "<u8", (2,)), ("unvisited_ctr", "<u8"), ("pull_vertices", "<u8"),
    ("n_pull_vertices", "<i4"), ("unvisited_pad", "<i4")],
    align=True)
#: Pull levels: vertices of larger in-degree are scanned by warps in chunks (pull.cu, ``BFSAux.pull_heavy_items``).
PULL_HEAVY_DEGREE = 256
#: In-edges per warp work item of those vertices; must equal ``AT_PULL_CHUNK`` in kernels/pull.cu.
PULL_CHUNK = 1024
#: Pull levels test frontier membership in a bitmap (kernels/pull.cu, ``pull_bitmap``) when the
#: per-vertex status array (4 bytes per vertex) exceeds this share of the GPU's L2 cache: then the
#: random status reads of the in-edge scans miss L2, and a bitmap (n / 8 bytes) fits it. An engine
#: policy, exact either way (measured on the H200 before/after, see README "Scale").
PULL_BITMAP_L2_SHARE = 0.5


#: Pull levels examine a list of vertices (kernels/pull.cu, ``BFSAux.unvisited``): a pull level after a
#: pull level only the vertices the previous one left without a parent, the first one of a run of pull
#: levels only the vertices of in-degree 1..PULL_HEAVY_DEGREE, each when it is shorter than all the
#: vertices by at least one grid-stride round (the kernel's threads). Built only for graphs with more vertices than the pull kernel's
#: resident threads (else no list can save a round). Off (False): every pull level examines every
#: vertex, as before (measured on the H200 before/after, README "Scale").
PULL_UNVISITED_LIST = True
#: Blocks of the pull kernel's grid at most (None: as many as are resident). Only the tests lower it:
#: a small grid walks a small graph in many grid-stride rounds, as a large graph is walked.
PULL_GRID_BLOCKS: int | None = None


def use_pull_bitmap(n_vertices: int, l2_bytes: int) -> bool:
    """Whether pull levels use the frontier bitmap: the status array (``4 n`` bytes) exceeds
    :data:`PULL_BITMAP_L2_SHARE` of the L2 cache (*l2_bytes*; 0 = unknown: never)."""
    return l2_bytes > 0 and 4 * int(n_vertices) > PULL_BITMAP_L2_SHARE * int(l2_bytes)
#: Mirrors ``struct OpArgs`` (kernels/traversal.cuh), 104 bytes: the operators' per-vertex state.
OPARGS_DTYPE = np.dtype([
    ("distances", "<u8"), ("predecessors", "<u8"), ("dist_pred", "<u8"), ("weights", "<u8"), ("near_stamp", "<u8"),
    ("far_stamp", "<u8"), ("r_stamp", "<u8"), ("far", "<u8", (2,)), ("r_list", "<u8"), ("sst", "<u8"),
    ("weight_float", "<i4"), ("method", "<i4"), ("delta", "<u4"), ("capacity", "<i4")], align=True)
#: Mirrors ``struct SSSPState`` (kernels/traversal.cuh), 64 bytes.
SSSP_STATE_DTYPE = np.dtype([
    ("threshold", "<u4"), ("far_min", "<u4"), ("far_count", "<i4", (2,)), ("far_cur", "<i4"), ("epoch", "<i4"),
    ("r_count", "<i4"), ("r_epoch", "<i4"), ("heavy_level", "<i4"), ("done_blocks", "<u4"), ("split", "<i4"),
    ("next_threshold", "<u4"), ("action", "<i4"), ("pad", "<i4", (3,))], align=True)
#: Every device struct the engine mirrors, by its C++ name (checked field by field against the
#: kernel headers by the test-suite).
DEVICE_STRUCTS = {"BFSState": STATE_DTYPE, "BFSParams": PARAMS_DTYPE, "BFSAux": AUX_DTYPE, "OpArgs": OPARGS_DTYPE,
                  "SSSPState": SSSP_STATE_DTYPE}
assert STATE_DTYPE.itemsize == 64 and PARAMS_DTYPE.itemsize == 64 and AUX_DTYPE.itemsize == 320
assert OPARGS_DTYPE.itemsize == 104 and SSSP_STATE_DTYPE.itemsize == 64
AT_OFF = np.iinfo(np.int32).max
#: Entries of the pull levels' hub-vertex cache in shared memory (Enterprise §4.3).
HUB_CACHE_ENTRIES = 1024

PATH_PUSH, PATH_PULL, PATH_SINGLE_BLOCK, PATH_PERSISTENT, PATH_WHOLE_GRAPH, PATH_WHOLE_GRAPH_PULL = 0, 1, 2, 3, 4, 5
PATH_CLUSTER, PATH_CLUSTER_PULL = 6, 7
_PATH_NAMES = {PATH_PUSH: ("push", "multi_block"), PATH_PULL: ("pull", "multi_block"),
               PATH_SINGLE_BLOCK: ("push", "single_block"), PATH_PERSISTENT: ("push", "persistent"),
               PATH_WHOLE_GRAPH: ("push", "whole_graph"), PATH_WHOLE_GRAPH_PULL: ("pull", "whole_graph"),
               PATH_CLUSTER: ("push", "cluster"), PATH_CLUSTER_PULL: ("pull", "cluster")}
SB_THREADS = 1024
SB_EDGE_FACTOR = 16
#: BFS single-block configs of the edge-balanced techniques (:data:`SB_HUB_TECHNIQUES`): a level of more
#: than 8,192 edges (``AT_SB_HUB_EDGES``, the limit of ``frontier_limit=512``) whose frontier's mean
#: out-degree exceeds this runs multi-block (kernels/traversal.cuh, ``at_sb_fits``); 0: off. One block
#: expands a level of hubs at ~400 edges per us (a bow-tie's 9 hubs, 28,000 edges: 74 us against 11 us
#: on the multi-block kernels). Measured on an H200 (README, "Single-block levels of hubs").
SB_HUB_DEGREE = 16
#: The techniques whose multi-block kernels balance a hub's edges over the whole GPU; vertex_mapped
#: (a virtual warp per vertex) was slower with the rule (soc-Slashdot0902 1.11-1.14x), degree_classified
#: is unmeasured: both keep their single-block levels. scan_mapped had the rule for one release: on the
#: 82 corpus graphs it reaches, swept with it, its single-block configs moved 1.061x geomean against the
#: other configs' drift (90th percentile 1.17x, up to 5.0x; a chain of cliques of 128 2.8-3.4x: its
#: multi-block level, a prefix scan and then the expansion, cost more than the single-block level it
#: replaced), where binary_search's moved 0.950x and edge_mapped's 1.006x (README, "Single-block levels
#: of hubs").
SB_HUB_TECHNIQUES = ("binary_search", "edge_mapped")
#: Blocks per SM of the persistent kernel (None: as many as fit). Every block arrives at the grid
#: barrier once per level, one atomic each on one address, so fewer blocks make a cheaper level.
PERSISTENT_BLOCKS_PER_SM: int | None = 1
#: Threads per block of the SSSP bucket kernels (sssp.cu).
BUCKET_BLOCK = 256


@dataclass(frozen=True)
class LevelTrace:
    """One level (BFS) or iteration (SSSP) as it ran.

    Attributes
    ----------
    level : int
        Index of the frontier expanded (BFS: its depth; 0 = the source).
    frontier_size : int
        Vertices in the frontier of this level.
    direction : str
        ``"push"`` (top-down) or ``"pull"`` (bottom-up).
    path : str
        Which kernel ran the level: ``"multi_block"`` (a fully resident grid, one launch per level),
        ``"single_block"`` or ``"persistent"`` (device-resident kernels iterating levels) or
        ``"whole_graph"`` (one block running the whole traversal in one launch) or ``"cluster"`` (one
        thread-block cluster running it in one launch).
    virtual_warp_size : int or None
        Virtual warp size used (vertex_mapped; chosen on the device when ``dynamic``).
    us : float or None
        Device time of the level in microseconds (``%globaltimer`` read at the end of each level,
        so levels run inside one launch are timed individually too).
    """

    level: int
    frontier_size: int
    direction: str
    path: str
    virtual_warp_size: int | None
    us: float | None


def _free_device_bytes() -> int:
    import cupy

    free, _total = cupy.cuda.runtime.memGetInfo()
    return int(free) + int(cupy.get_default_memory_pool().free_bytes())


def whole_graph_smem_bytes(n_vertices: int, n_edges: int = 0, pull: bool = False, staged: bool = False,
                           staged_in: bool = False) -> int:
    """Dynamic shared memory (bytes) of the whole-graph kernel (``kernels/whole_graph.cu``): the
    visited bitmap (one bit per vertex), with *pull* levels a frontier bitmap too, one queue of 16-bit
    vertex ids, and with *staged* the CSR copied in (n + 1 32-bit row offsets, *n_edges* 16-bit column
    ids), and with *staged_in* a directed graph's in-edges the same way; each part rounded up to 16
    bytes."""
    n, m = int(n_vertices), int(n_edges)

    def r4(words: int) -> int:
        return (words + 3) // 4 * 4

    words = r4((n + 31) // 32) * (2 if pull else 1) + r4((n + 1) // 2)
    if staged:
        words += (r4(n + 1) + r4((m + 1) // 2)) * (2 if staged_in else 1)
    return 4 * words


def whole_graph_pull(n_vertices: int, n_edges: int) -> bool:
    """Whether the whole-graph kernel runs pull levels on a graph of *n_vertices* and *n_edges*
    (directed edges; an undirected graph counts each edge both ways): :data:`WHOLE_GRAPH_PULL`, and
    for ``"auto"`` a mean out-degree of at least :data:`WHOLE_GRAPH_PULL_MIN_DEGREE`."""
    if WHOLE_GRAPH_PULL == "auto":
        return int(n_edges) >= WHOLE_GRAPH_PULL_MIN_DEGREE * max(int(n_vertices), 1)
    return bool(WHOLE_GRAPH_PULL)


def whole_graph_packed(n_vertices: int, pull: bool) -> bool:
    """Whether the whole-graph kernel is compiled with its packed late pull levels (``kPacked``): a
    graph with pull levels (:func:`whole_graph_pull`) of more than two rounds of the block (over
    2 x :data:`WHOLE_GRAPH_THREADS` vertices). A pull level past the first costs its rounds (n / 1,024
    of them), not the in-edges it scans; once no more than a quarter of the vertices are unvisited the
    packed form has each warp gather the unvisited vertices of its bitmap words into its lanes and
    scan only those (Beamer, Asanovic & Patterson, "Direction-Optimizing Breadth-First Search",
    SC'12, sections 3-4: the bottom-up step examines unvisited vertices only). Every other graph gets
    the kernel without that code: its instantiation compiles to the same PTX as the kernel before it
    was added (``notebooks/experiments/whole_graph_ptx_compare.py``), since any code added to the
    kernel moved the push levels of graphs that never pull by 3-10 % on an H200 (README, *The packed
    late pull levels, where they pay*). :data:`WHOLE_GRAPH_PACKED` ``True`` / ``False``: on every
    graph with pull levels / none."""
    if WHOLE_GRAPH_PACKED != "auto":
        return bool(pull) and bool(WHOLE_GRAPH_PACKED)
    return bool(pull) and int(n_vertices) > 2 * WHOLE_GRAPH_THREADS


def whole_graph_fits(n_vertices: int, n_edges: int, smem_optin: int, static_smem: int = 20 * 1024) -> bool:
    """Whether a BFS of this graph runs in one launch of the whole-graph kernel: vertex ids below
    2**16 (its queue holds 16-bit ids), at most :data:`WHOLE_GRAPH_MAX_EDGES` edges, and the bitmaps
    and queue (:func:`whole_graph_smem_bytes`, with pull levels when :func:`whole_graph_pull`) plus
    the kernel's static shared memory (*static_smem* bytes) within the device's per-block opt-in limit
    (*smem_optin* bytes; 232,448 on an H100/H200, so up to 65,536 vertices). Whether the CSR is
    staged in shared memory too is the engine's choice beside it (:data:`WHOLE_GRAPH_STAGE`)."""
    n = int(n_vertices)
    return (0 < n <= 1 << 16 and int(n_edges) <= WHOLE_GRAPH_MAX_EDGES
            and whole_graph_smem_bytes(n, pull=whole_graph_pull(n, n_edges)) + int(static_smem) <= int(smem_optin))


def cluster_partition(row_offsets, n_vertices: int, blocks: int):
    """Split the vertices among the *blocks* of the cluster kernel (``kernels/cluster_graph.cu``):
    contiguous ranges of about equal work (out-edges + vertices), each starting at a multiple of 32
    (whole bitmap words).

    Parameters
    ----------
    row_offsets : ndarray of int, shape (n_vertices + 1,)
        The CSR row offsets (host).
    n_vertices : int
    blocks : int
        Blocks of the cluster (8 or 16).

    Returns
    -------
    bounds : ndarray of int32, shape (blocks + 1,)
        Block r owns the vertices ``[bounds[r], bounds[r + 1])`` (some ranges may be empty).
    owners : ndarray of uint8, shape (ceil(n_vertices / 32),)
        The block owning each 32-vertex bitmap word.
    wmax : int
        The largest range's bitmap words, rounded up to a multiple of 4.
    emax : int
        The largest range's out-edges.
    """
    n = int(n_vertices)
    ro = np.asarray(row_offsets, dtype=np.int64)
    work = ro + np.arange(n + 1, dtype=np.int64)
    cut = np.searchsorted(work, work[-1] * np.arange(1, blocks, dtype=np.float64) / blocks)
    cut = np.maximum.accumulate(np.clip((cut + 31) // 32 * 32, 0, n))  # up to a whole bitmap word
    bounds = np.concatenate([[0], cut, [n]]).astype(np.int32)
    nw = (n + 31) // 32
    owners = (np.searchsorted(bounds[1:], np.arange(nw, dtype=np.int64) * 32, side="right")).astype(np.uint8)
    words = (np.diff(bounds.astype(np.int64)) + 31) // 32
    wmax = int((int(words.max()) + 3) // 4 * 4)
    emax = int((ro[bounds[1:]] - ro[bounds[:-1]]).max())
    return bounds, owners, wmax, emax


def cluster_smem_bytes(n_vertices: int, wmax: int, emax: int = 0, pull: bool = False, staged: bool = False) -> int:
    """Dynamic shared memory (bytes) of each block of the cluster kernel (``kernels/cluster_graph.cu``):
    its visited bitmap and the ring of three next-frontier bitmaps (*wmax* words each), with *pull* levels
    the whole frontier bitmap, the word -> owner table (one byte per 32 vertices), its queue of 16-bit
    local ids (32 *wmax*), the parent and the level of every vertex of its range (32 *wmax* each), and
    with *staged* its rows (32 *wmax* + 1 offsets, *emax* column ids)."""
    n, wmax, emax = int(n_vertices), int(wmax), int(emax)
    nw = (n + 31) // 32

    def r4(words: int) -> int:
        return (words + 3) // 4 * 4

    words = 4 * wmax + (r4(nw) if pull else 0) + 4 * ((nw + 15) // 16) + 16 * wmax + 64 * wmax
    if staged:
        words += r4(32 * wmax + 1) + r4(emax)
    return 4 * words


def cluster_fits(n_vertices: int, n_edges: int, compute_capability: str) -> bool:
    """Whether a BFS of this graph may run on the cluster kernel: a device of compute capability 9.0
    or more (thread-block clusters, distributed shared memory), more edges than the one-block kernel
    takes (:data:`WHOLE_GRAPH_MAX_EDGES`), at most :data:`CLUSTER_MAX_EDGES` edges and
    :data:`CLUSTER_MAX_VERTICES` vertices. The shared memory of the partition is checked by the engine."""
    try:
        major = int(str(compute_capability).split(".")[0])
    except ValueError:
        return False
    n, m = int(n_vertices), int(n_edges)
    return major >= 9 and WHOLE_GRAPH_MAX_EDGES < m <= CLUSTER_MAX_EDGES and 0 < n <= CLUSTER_MAX_VERTICES


def check_device_memory(needed_bytes: int, what: str) -> None:
    """Raise :class:`DeviceMemoryError` (bytes needed vs free) when *needed_bytes* do not fit."""
    free = _free_device_bytes()
    if needed_bytes > free:
        raise DeviceMemoryError(what, needed_bytes, free)


def offset_dtype(n_edges: int, offsets=None):
    """The row-offset type of the kernels that traverse a graph of *n_edges* edges: int32 below
    2**31 edges (the default, fastest), else int64 (``-DAT_EID64`` modules, up to
    :data:`~autotune._kernels.MAX_EDGES_INT64` edges). *offsets* (``"int32"``, ``"int64"`` or None =
    automatic) forces a type; int32 for a graph past 2**31 - 1 edges is refused.

    Raises
    ------
    GraphTooLargeError
        (a ``ValueError``) When the graph has more than ``MAX_EDGES_INT64`` edges, or *offsets* is
        ``"int32"`` for a graph past ``MAX_EDGES_INT32``.
    ValueError
        For another *offsets* value.
    """
    from .errors import GraphTooLargeError

    m = int(n_edges)
    if m > MAX_EDGES_INT64:
        raise GraphTooLargeError(f"graph has {m:,} edges; one GPU's kernels index at most {MAX_EDGES_INT64:,} "
                                 f"(2**33 - 1: the frontier counter's degree-sum field)")
    if offsets is None:
        return np.dtype(np.int32) if m <= MAX_EDGES_INT32 else np.dtype(np.int64)
    if str(offsets) not in ("int32", "int64"):
        raise ValueError(f"offsets must be 'int32', 'int64' or None, not {offsets!r}")
    if str(offsets) == "int32" and m > MAX_EDGES_INT32:
        raise GraphTooLargeError(f"graph has {m:,} edges: int32 row offsets hold at most {MAX_EDGES_INT32:,}")
    return np.dtype(str(offsets))


def carries_prefix(config) -> bool:
    """True when the frontier buffers carry degree prefix-sums and row starts beside the vertices:
    techniques that read them every level (``binary_search``), and the persistent kernel, which reads
    its own levels' (so a level needs no dependent ``row_offsets`` load before its edges are known)."""
    return technique(config.load_balance).frontier_prefix or config.small_frontier == "persistent"


#: Out-degree above which the engine takes the persistent driver's block-balanced form (HUBS in
#: kernels/persistent.cu): below it a hub costs at most two rounds of 32 edges, and the plain form
#: is 1-7 % faster on meshes and roads (H200).
PERSIST_HUB_DEGREE = 64


def persistent_name(config, wp: str, hubs: bool = True) -> str:
    """Instantiation of the persistent driver for *config* (``wp``: ``'true'``/``'false'``, whether
    the technique's frontier carries degree prefix-sums); the in-place-expansion form when
    ``config.inline_degree`` is on, else the block-balanced form for graphs with hubs when *hubs*
    (some out-degree above :data:`PERSIST_HUB_DEGREE`)."""
    op = OPERATORS[config.algorithm]
    if isinstance(config.inline_degree, int):
        return f"persistent_levels<{config.block_size}, {wp}, {op}, true>"
    if hubs:
        return f"persistent_levels<{config.block_size}, {wp}, {op}, false, true>"
    return f"persistent_levels<{config.block_size}, {wp}, {op}>"


def launch_kernels(config, pull_bitmap: bool = False, hubs: bool = True) -> list[tuple[str, str]]:
    """``(kernel file, name expression)`` of the kernels the launch sequence of *config* uses (the
    algorithm's own extra kernels, e.g. SSSP's bucket moves, aside; the heavy-vertex kernel of some
    support strategies, decided by the auxiliary state, aside): what the engine compiles at once,
    and what ``autotune run`` starts compiling before the graph is loaded.

    Parameters
    ----------
    config : TraversalConfig
    pull_bitmap : bool
        Whether pull levels build the frontier bitmap (:func:`use_pull_bitmap` of the graph).
    hubs : bool, default True
        Whether the graph has an out-degree above :data:`PERSIST_HUB_DEGREE` (the persistent
        driver's form; True before the graph is known).
    """
    op = OPERATORS[config.algorithm]
    b = config.block_size
    wp = "true" if technique(config.load_balance).frontier_prefix else "false"
    out = [("traversal", f"traversal_init<{op}>"), ("traversal", "traversal_tick"), ("traversal", "traversal_state_out"),
           (config.load_balance, technique(config.load_balance).kernel_name(config, config.algorithm))]
    if config.small_frontier == "single_block":
        out.append(("single_block", f"single_block_levels<{wp}, {op}>"))
    elif config.small_frontier == "persistent":
        out.append(("persistent", persistent_name(config, wp, hubs)))
    if config.direction == "push_pull":
        out.append(("pull", f"pull_level<{b}, {wp}, {op}>"))
        if pull_bitmap:
            out.append(("pull", f"pull_bitmap<{op}>"))
    return out


def common_bytes_needed(graph, config, trace_entries: int, offsets=None) -> int:
    """Device bytes every traversal engine allocates for *graph* x *config*: the CSR upload when the
    graph is still on the host (and its int64 copy when *offsets* forces 64-bit offsets on a graph
    stored with int32 ones), out-degrees, two frontier buffers (vertices, and prefix-sums and row
    starts of the offset type when they carry them), the per-level trace (*trace_entries* levels),
    the technique's own buffers (registry), the heavy-vertex segments and the transposed CSR of
    pull levels on directed graphs."""
    n, m = graph.n_vertices, graph.n_edges
    eb = offset_dtype(m, offsets).itemsize
    need = 0
    if not graph.on_device and "device" not in graph._cache:
        need += graph.row_offsets.nbytes + graph.column_indices.nbytes
    if np.dtype(graph.row_offsets.dtype).itemsize != eb:
        need += eb * (n + 1)               # the row offsets converted to the kernels' type
    need += 4 * n                          # out-degrees
    need += 2 * 4 * n                      # frontier in/out
    if carries_prefix(config):
        need += 2 * 2 * eb * n             # their degree prefix-sums and row starts
    need += 16 * (trace_entries + 1) + 512  # per-level trace (sizes, path/vw, timestamps), state, params, aux
    need += technique(config.load_balance).extra_bytes(n, m, config)
    if config.load_balance == "edge_mapped":
        need += 8 * m                      # transient search keys of the COO build
    if config.defer_outliers not in (None, "off") or config.supplementary_queues not in (None, "off"):
        need += 4 * n                      # heavy-vertex segments (at most every vertex)
    if config.direction == "push_pull":
        need += 4 * ((n + 31) // 32)       # the pull levels' frontier bitmap (when the engine uses it)
        need += 3 * 4 * n + 8              # their vertex lists (two for the unvisited, one static) and counters
        need += 8 * (m // PULL_CHUNK + m // PULL_HEAVY_DEGREE + 1)  # chunk work items of heavy in-degree vertices
    if config.direction == "push_pull" and graph.directed and "transpose" not in graph._cache:
        need += eb * (n + 1) + 4 * m       # in-edges (transposed CSR), kept
        need += 12 * m                     # transient: row ids + sort order while transposing
    return need


class TraversalEngine:
    """Device buffers, compiled kernels and launch sequence for one graph x config x operator.

    Subclasses (one per traversal) set :attr:`algorithm`, allocate their operator state in
    :meth:`_operator_state` (returning the host ``OpArgs`` block), reset it in :meth:`_reset`, may
    add launches after the level kernels (:meth:`_extra_launches`), and read results. Build once,
    traverse from many sources (this is what ``tune``, ``bench`` and ``sweep`` time).

    Raises
    ------
    GPUUnavailableError
        Without a usable NVIDIA GPU.
    DeviceMemoryError
        When the graph and the buffers do not fit in free device memory (bytes needed vs free),
        checked before anything is allocated.
    GraphTooLargeError
        (a ``ValueError``) When the graph has more than 2**33 - 1 edges (:func:`offset_dtype`).

    Notes
    -----
    Graphs of fewer than 2**31 edges run the kernels built for int32 row offsets; larger ones (and
    any graph with ``offsets="int64"``) the modules built for int64 offsets, where row offsets,
    edge indices and frontier degree prefix-sums are 64-bit and vertex ids stay int32.
    """

    algorithm = "bfs"
    #: The operator's claims are final (BFS): the whole-graph kernel may run it (whole_graph.cu).
    claim_once = False

    def __init__(self, graph, config, *, offsets=None):
        require_gpu(f"{self.algorithm.upper()} on the GPU")
        import cupy
        import cupyx

        self.graph = graph
        self._res = None  # the resident kernel's stopper (_setup_resident)
        self._last_state = None
        cfg = self.config = config
        if cfg.algorithm != self.algorithm:
            raise ValueError(f"{type(self).__name__} runs algorithm={self.algorithm!r}; the config has "
                             f"algorithm={cfg.algorithm!r}")
        eid = self.offset_dtype = offset_dtype(graph.n_edges, offsets)
        self.eid64 = eid.itemsize == 8
        # the frontier-size field of the packed counter (AT_COUNT_BITS in kernels/traversal.cuh)
        self._count_mask = (1 << 31) - 1 if self.eid64 else 0xFFFFFFFF
        n = self.n = graph.n_vertices
        self.trace_cap = self._trace_entries(n)
        check_device_memory(common_bytes_needed(graph, cfg, self.trace_cap, offsets) + self._operator_bytes(),
                            f"{self.algorithm.upper()} on {graph.name!r} ({n:,} vertices, {graph.n_edges:,} edges)")
        self.props = device_properties()
        ro, ci = graph.device()
        if ro.dtype != eid:
            ro = ro.astype(eid)
        self.row_offsets, self.column_indices = ro, ci
        self.out_degrees = (ro[1:] - ro[:-1]).astype(np.int32)
        self.max_out_degree = int(self.out_degrees.max()) if n else 0
        tech = technique(cfg.load_balance)
        with_prefix = tech.frontier_prefix
        self.frontiers = [cupy.empty(max(n, 1), dtype=np.int32) for _ in range(2)]
        if carries_prefix(cfg):
            self.prefixes = [cupy.empty(max(n, 1), dtype=eid) for _ in range(2)]
            self.row_starts = [cupy.empty(max(n, 1), dtype=eid) for _ in range(2)]
        else:  # no kernel reads them; one entry each keeps the kernel signature uniform
            self.prefixes = [cupy.zeros(1, dtype=eid) for _ in range(2)]
            self.row_starts = [cupy.zeros(1, dtype=eid) for _ in range(2)]
        self.level_sizes = cupy.zeros(self.trace_cap, dtype=np.int32)
        self.level_info = cupy.zeros(self.trace_cap, dtype=np.int32)
        self.level_time = cupy.zeros(self.trace_cap + 1, dtype=np.uint64)
        self.state = cupy.zeros(STATE_DTYPE.itemsize, dtype=np.uint8)
        self._state_host = cupyx.empty_pinned((STATE_DTYPE.itemsize,), dtype=np.uint8)
        self._state_view = self._state_host.view(STATE_DTYPE)[0]
        self._source_host = cupyx.empty_pinned((1,), dtype=np.int32)
        # Zero-copy where the device maps pinned host memory (unified addressing): the init kernel
        # reads the source from the pinned word and a one-warp kernel writes the state back into the
        # pinned buffer, instead of a host-to-device and a device-to-host copy node in every
        # traversal's CUDA graph (measured on an H200: a replay of [copy in, memset, init, kernel,
        # copy out] 13.4 us, the zero-copy form 7.3 us; notebooks/figures/graph_nodes_h200.json).
        self.zero_copy = ZERO_COPY and host_memory_mapped()
        if self.zero_copy:
            self.source_slot = np.uintp(self._source_host.ctypes.data)
        else:
            self.source_slot = cupy.zeros(1, dtype=np.int32)
        # The engine's own stream: CUDA graphs are captured from a non-default stream; a traversal
        # ends with a host wait on it, so its results are complete for any stream afterwards.
        self.stream = cupy.cuda.Stream(non_blocking=True)
        # Buffers are allocated and filled (memsets, uploads, the techniques' auxiliary arrays) on the
        # stream current while the engine is built, which a non-blocking stream does not wait for:
        # the first traversal waits for the device once (a race seen on the H200 as misaligned or
        # illegal addresses when a large auxiliary array, e.g. edge_mapped's COO sources, was still
        # being built as the first level ran).
        self._built_synced = False
        self._events = (cupy.cuda.Event(), cupy.cuda.Event())
        for f, v in _fresh_replay_state().items():  # captured graphs, rounds remembered, the plan, costs
            setattr(self, f, v)
        self.capture_us = CAPTURE_US  # the mean capture of this engine's start graphs (_graph)
        self._captures: list[float] = []
        self.use_graphs = USE_CUDA_GRAPHS
        self.graph_error: str | None = None

        # in-edges for pull levels
        pull = cfg.direction == "push_pull"
        if pull and graph.directed:
            self.pull_offsets, self.pull_indices = transpose_csr(graph)
            if self.pull_offsets.dtype != eid:
                self.pull_offsets = self.pull_offsets.astype(eid)
        else:
            self.pull_offsets, self.pull_indices = ro, ci

        prm = np.zeros((), dtype=PARAMS_DTYPE)
        prm["n_vertices"] = n
        prm["n_edges"] = graph.n_edges
        prm["trace_cap"] = self.trace_cap
        prm["eid_bytes"] = eid.itemsize
        # kernels/traversal.cuh AT_DIR_*: 1 Beamer's rule, 3 the same gated by the frontier's size, 2 hub ratio
        prm["dir_mode"] = 0 if not pull else (2 if cfg.switch_rule != "alpha_beta" else
                                              3 if cfg.pull_gate == "beta" else 1)
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
        if cfg.small_frontier == "single_block" and self.algorithm == "bfs" and cfg.load_balance in SB_HUB_TECHNIQUES:
            prm["sb_hub_degree"] = SB_HUB_DEGREE
        prm["inline_degree"] = cfg.inline_degree if isinstance(cfg.inline_degree, int) else 0
        self.params_host = prm
        self.params = cupy.asarray(np.frombuffer(prm.tobytes(), dtype=np.uint8))

        self.op_host = self._operator_state()
        self.op_args = cupy.asarray(np.frombuffer(self.op_host.tobytes(), dtype=np.uint8))

        alg = self.algorithm
        b = cfg.block_size
        wp = "true" if with_prefix else "false"
        op = OPERATORS[alg]
        e64 = self.eid64
        # compile what this launch sequence needs at once (threads; a first run on a fresh machine
        # waits for its slowest kernel instead of the sum)
        # the persistent driver's block-balanced form only where an out-degree calls for it
        self.persist_hubs = cfg.small_frontier == "persistent" and self.max_out_degree > PERSIST_HUB_DEGREE
        prefetch(launch_kernels(cfg, use_pull_bitmap(n, self.props.get("l2_bytes", 0)), self.persist_hubs)
                 + self._extra_kernels(wp), alg, e64)
        self._init = get_kernel("traversal", f"traversal_init<{op}>", alg, e64)
        self._tick = get_kernel("traversal", "traversal_tick", alg, e64)
        self._state_out = get_kernel("traversal", "traversal_state_out", alg, e64)
        self._launches = []  # (kernel, grid, block) enqueued once per iteration, same arguments every time
        if cfg.small_frontier == "single_block":
            self._launches.append((get_kernel("single_block", f"single_block_levels<{wp}, {op}>", alg, e64), 1,
                                   SB_THREADS))
        elif cfg.small_frontier == "persistent":
            k = get_kernel("persistent", persistent_name(cfg, wp, self.persist_hubs), alg, e64)
            blocks = self._resident_blocks(k, b)
            if PERSISTENT_BLOCKS_PER_SM:
                blocks = min(blocks, max(1, int(self.props["sm_count"] * PERSISTENT_BLOCKS_PER_SM)))
            self._launches.append((k, blocks, b))
        push = get_kernel(cfg.load_balance, tech.kernel_name(cfg, alg), alg, e64)
        self.grid = self._resident_blocks(push, b)
        self.resident_threads = self.grid * b
        self._launches.append((push, self.grid, b))
        if pull:
            pull_kernel = get_kernel("pull", f"pull_level<{b}, {wp}, {op}>", alg, e64)
            self._pull_grid = self._resident_blocks(pull_kernel, b)
            if PULL_GRID_BLOCKS:
                self._pull_grid = min(self._pull_grid, int(PULL_GRID_BLOCKS))
        self.aux_host, self._aux_buffers = self._build_aux(cfg)
        self.aux = cupy.asarray(np.frombuffer(self.aux_host.tobytes(), dtype=np.uint8))
        if not self.aux_host["push_finishes"]:  # deferred outliers / supplementary queues close the level
            k = get_kernel("heavy", f"heavy_vertices<{b}, {op}>", alg, e64)
            self._launches.append((k, self._resident_blocks(k, b), b))
        n_push_launches = len(self._launches)
        if pull:
            if self.aux_host["frontier_bits"]:
                k = get_kernel("pull", f"pull_bitmap<{op}>", alg, e64)
                self._launches.append((k, self._resident_blocks(k, 256), 256))
            self._launches.append((pull_kernel, self._pull_grid, b))
        # the rounds of each direction: as configured, and with the pull kernels left out (push twin)
        self._direction_launches = {cfg.direction: list(self._launches),
                                    "push": self._launches[:n_push_launches]}
        self._launches += self._extra_launches(wp)
        extra = self._launches[len(self._direction_launches[cfg.direction]):]
        for v in self._direction_launches.values():
            v += extra
        #: The direction the launch rounds run: the config's, or ``"push"`` when the direction
        #: calibration (:data:`DIRECTION_CALIBRATION`) found the push levels faster on this graph.
        self.direction = cfg.direction
        #: The direction calibration: ``{"sources", "push_pull_ms", "push_ms", "chosen"}`` (device ms
        #: of each source, best of two; ``push_ms`` shorter once push cannot win, empty when skipped),
        #: or None when not run.
        self.direction_calibration = None
        self._dir_mode = int(prm["dir_mode"])
        self._direction_replay: dict = {}  # direction -> its replay state while the other runs
        self._setup_whole_graph()
        self._direction_pending = (pull and DIRECTION_CALIBRATION == "auto"
                                   and (self._cluster_pending or not self.whole_graph))
        self._args = (ro, ci, self.pull_offsets, self.pull_indices, self.op_args,
                      self.frontiers[0], self.frontiers[1], self.prefixes[0], self.prefixes[1],
                      self.row_starts[0], self.row_starts[1], self.state, self.params,
                      self.level_sizes, self.level_info, self.level_time, self.aux)

    def _setup_whole_graph(self) -> None:
        """Decide whether traversals run the whole-graph kernel (one launch of one block, the visited
        bitmap and the frontier in its shared memory; ``kernels/whole_graph.cu``) and prepare it:
        operators whose claims are final (:attr:`claim_once`), :data:`WHOLE_GRAPH` ``"auto"``, and a
        graph that fits (:func:`whole_graph_fits`). Sets ``whole_graph`` and ``whole_graph_staged``
        (the CSR copied into shared memory too: :data:`WHOLE_GRAPH_STAGE` ``"auto"`` and room for it);
        and ``whole_graph_pull``: with pull levels (:func:`whole_graph_pull`) the kernel gets the
        in-edges (built here for a directed graph whose config has none)."""
        self.whole_graph = self.whole_graph_staged = self.whole_graph_pull = False
        #: The kernel has the packed late pull levels (:func:`whole_graph_packed`).
        self.whole_graph_packed = False
        #: A directed graph's in-edges are staged in shared memory too, for pull levels
        #: (:data:`WHOLE_GRAPH_STAGE_IN`).
        self.whole_graph_staged_in = False
        #: Traversals are served by the resident one-block kernel (:data:`RESIDENT`).
        self.resident = False
        self._res = None
        self.cluster_size = 0
        self._cluster_pending = False
        #: The cluster kernel's calibration (``CLUSTER = "auto"``): ``{"sources", "rounds_ms",
        #: "cluster_ms", "chosen"}`` (device ms of each source, best of two), or None.
        self.cluster_calibration = None
        self._wg_graph = None
        self._wg_grid = 1
        if not self.claim_once or WHOLE_GRAPH != "auto":
            return
        n, m = self.n, self.graph.n_edges
        optin = int(self.props.get("shared_mem_per_block_optin", 0) or 0)
        if not whole_graph_fits(n, m, optin):
            if CLUSTER in ("auto", "on") and cluster_fits(n, m, self.props.get("cc", "0.0")):
                self._setup_cluster(optin)
            return
        import cupy

        pull = whole_graph_pull(n, m)
        packed = whole_graph_packed(n, pull)
        choices = [(False, False)]
        if WHOLE_GRAPH_STAGE == "auto":
            choices[:0] = [(True, True), (True, False)] if pull and self.graph.directed and \
                WHOLE_GRAPH_STAGE_IN == "auto" else [(True, False)]
        for staged, staged_in in choices:
            k = get_kernel("whole_graph",
                           f"whole_graph_levels<{WHOLE_GRAPH_EPT}, {str(staged).lower()}, {str(packed).lower()}, "
                           f"{OPERATORS[self.algorithm]}>",
                           self.algorithm, self.eid64)
            smem = whole_graph_smem_bytes(n, m, pull=pull, staged=staged, staged_in=staged_in)
            if smem + int(k.shared_size_bytes) <= optin:  # the kernel's static shared memory beside it
                break
        else:
            return
        if not _opt_in(k, smem):
            return
        null = np.uintp(0)
        columns16 = null
        if staged:  # the column ids as 16-bit, padded to whole 16-byte words (the kernel copies those)
            self._wg_columns16 = cupy.zeros(((m + 1) // 2 + 3) // 4 * 8, dtype=cupy.uint16)
            self._wg_columns16[:m] = self.column_indices
            columns16 = self._wg_columns16
        pull_offsets, pull_indices = self._in_edges() if pull else (null, null)
        in_columns16 = null
        if staged_in:  # a directed graph's in-edge sources, the same way
            self._wg_in_columns16 = cupy.zeros(((m + 1) // 2 + 3) // 4 * 8, dtype=cupy.uint16)
            self._wg_in_columns16[:m] = pull_indices
            in_columns16 = self._wg_in_columns16
        host_state = np.uintp(self._state_host.ctypes.data) if self.zero_copy else null
        self._wg_kernel, self._wg_smem, self.whole_graph_staged, self.whole_graph_pull = k, smem, staged, pull
        self.whole_graph_packed = packed
        self.whole_graph_staged_in = staged_in
        self._wg_args = (self.row_offsets, self.column_indices, columns16, pull_offsets, pull_indices,
                         np.int32(WHOLE_GRAPH_ALPHA), np.int32(WHOLE_GRAPH_BETA),
                         np.int32(WHOLE_GRAPH_PULL_SERIAL), self.op_args, self.source_slot,
                         self.state, host_state, self.params, self.level_sizes, self.level_info, self.level_time,
                         in_columns16)
        self.whole_graph = True
        self._setup_resident(optin)

    def _setup_resident(self, optin: int) -> None:
        """Prepare the resident form of the whole-graph kernel (:data:`RESIDENT`): its kernel (the
        same traversal code: ``whole_graph_resident``, or ``cluster_resident`` when the engine runs the
        cluster kernel), the mailbox (three 64-bit words of pinned host memory the device reads and
        writes zero-copy: request, copy address, answer), its own stream, and the finalizer that makes
        it return before the engine's buffers are released. Sets ``resident`` (traversals are served by
        the resident kernel)."""
        import weakref

        import cupy
        import cupyx

        self.resident = False
        self._res = None
        if RESIDENT != "auto" or not self.zero_copy:
            return
        res_buf = self._result_buffer()
        if res_buf is None or res_buf.nbytes % 8:
            return
        staged = str(self.whole_graph_staged).lower()
        a = self._wg_args
        if self.cluster_size:
            # cluster_levels' arguments: ..., op, source slot, state, host state, params, trace
            k = get_kernel("cluster_graph", f"cluster_resident<{self.cluster_size}, {staged}, "
                           f"{OPERATORS[self.algorithm]}>", self.algorithm, self.eid64)
            n_head = 11
        else:
            # whole_graph_levels': ..., op, source slot, state, host state, params, trace, in-edges
            k = get_kernel("whole_graph", f"whole_graph_resident<{WHOLE_GRAPH_EPT}, {staged}, "
                           f"{str(self.whole_graph_packed).lower()}, "
                           f"{OPERATORS[self.algorithm]}>", self.algorithm, self.eid64)
            n_head = 9
        smem = self._wg_smem
        if smem + int(k.shared_size_bytes) > optin:
            return
        if not _opt_in(k, smem, self.cluster_size):
            return
        mailbox = cupyx.zeros_pinned((3,), dtype=np.uint64)
        stop = _ResidentStopper(mailbox, cupy.cuda.Stream(non_blocking=True))
        # the launch's arguments but the last request answered and the idle wait (_launch_resident):
        # the source slot and the host state give way to the mailbox, the result buffer and its length
        self._res_head = a[:n_head] + (np.uintp(mailbox.ctypes.data),)
        self._res_tail = (res_buf, np.int32(res_buf.nbytes // 8), a[n_head + 1]) + a[n_head + 3:]
        self._res_kernel, self._res, self._res_last = k, stop, 0.0
        self._res_event = cupy.cuda.Event(block=False, disable_timing=True)
        weakref.finalize(self, _drop_resident, id(self), stop)
        self.resident = True

    def _launch_resident(self, served: int) -> None:
        """Launch the resident kernel on its stream; *served*: the request it must not answer (the
        last one answered, or consumed by a return). At most :data:`RESIDENT_MAX` run at once: the
        least recently launched of the others returns first; a cluster kernel (16 SMs of one GPC)
        asks every other resident kernel to return first, as the cluster's replayed launch does."""
        stop, key = self._res, id(self)
        _RESIDENTS.pop(key, None)
        if self.cluster_size:
            release_resident(keep=self)
        while len(_RESIDENTS) >= RESIDENT_MAX:
            _RESIDENTS.pop(next(iter(_RESIDENTS)))()
        with stop.stream:
            self._res_kernel((self._wg_grid,), (WHOLE_GRAPH_THREADS,),
                             self._res_head + (np.uint32(served), np.int64(RESIDENT_IDLE_US * 1e3),
                                               np.int64(RESIDENT_BUSY_US * 1e3), np.int32(RESIDENT_NAP_NS))
                             + self._res_tail,
                             shared_mem=self._wg_smem)
        self._res_event.record(stop.stream)
        stop.live = True
        _RESIDENTS[key] = stop

    def _result_buffer(self):
        """The operator's result arrays as one contiguous device buffer (BFS: distances and
        predecessors), which the resident kernel copies into a caller's array; None if it has none."""
        return None

    def _check_out(self, out) -> None:
        """Raise :class:`~autotune.errors.InvalidArgumentError` unless *out* can receive
        :meth:`_result_buffer` (a C-contiguous CuPy array of its shape and dtype)."""
        from .errors import InvalidArgumentError

        buf = self._result_buffer()
        if buf is None:
            raise InvalidArgumentError(f"{type(self).__name__} has no result buffer to copy into out")
        if (type(out).__module__.split(".")[0] != "cupy" or getattr(out, "shape", None) != buf.shape
                or getattr(out, "dtype", None) != buf.dtype or not out.flags.c_contiguous):
            raise InvalidArgumentError(
                f"out must be a C-contiguous cupy.ndarray of shape {buf.shape} and dtype {buf.dtype}; got "
                f"{type(out).__name__} of shape {getattr(out, 'shape', None)} and dtype {getattr(out, 'dtype', None)}")

    def _copy_out_before(self, out, before_sync):
        """*before_sync* preceded by a copy of the result buffer into *out* on :attr:`stream`."""
        def copy():
            import cupy

            buf = self._result_buffer()
            cupy.cuda.runtime.memcpyAsync(out.data.ptr, buf.data.ptr, buf.nbytes,
                                          cupy.cuda.runtime.memcpyDeviceToDevice, self.stream.ptr)
            if before_sync is not None:
                before_sync()
        return copy

    @property
    def last_state(self):
        """The state (``STATE_DTYPE``) the last traversal left: read back with it, or, after a
        resident traversal (which answers with its level count only), copied from the device when
        first asked for."""
        st = self._last_state
        if st is None and self._res is not None:
            st = self._last_state = np.frombuffer(self.state.get().tobytes(), dtype=STATE_DTYPE)[0]
        return st

    @last_state.setter
    def last_state(self, value) -> None:
        self._last_state = value

    def _traverse_resident(self, source: int, before_sync=None, out=None) -> int:
        """One traversal served by the resident kernel (:data:`RESIDENT`): launched first when it is
        not running (or may have returned: idle past half of :data:`RESIDENT_IDLE_US`), the request
        written into the mailbox, a spin on the answer word (checking every 50 µs that the kernel has
        not returned without reading the request, in which case it is launched again to answer it),
        then *before_sync*'s work and its stream wait. *out* (a C-contiguous device array of the
        size of :meth:`_result_buffer`, optional): the kernel copies the results into it before it
        answers (an address it cannot encode, not 16-byte aligned: a copy on the stream after it).
        Returns the number of levels (the answer's); :attr:`last_state` is read when asked for.

        Raises
        ------
        DeviceTimeoutError
            No answer within :data:`RESIDENT_TIMEOUT_S` seconds.
        """
        stop = self._res
        mb = stop.words
        now = time.perf_counter()
        if not stop.live or (now - self._res_last) * 1e6 > 0.5 * RESIDENT_IDLE_US and self._res_event.done:
            self._launch_resident(stop.seq)
        seq = stop.seq = (stop.seq + 1) & 0xFFFFFFFF
        addr = 0 if out is None else out.data.ptr
        late = addr and (addr & 15 or addr >> (RESIDENT_TAG_SHIFT + 4))
        mb[1] = (seq & RESIDENT_TAG_MASK) << RESIDENT_TAG_SHIFT | (0 if late else addr >> 4)
        mb[0] = (seq << 32) | source  # after the copy word (the kernel checks its tag)
        t0 = now
        check = time.perf_counter() + 50e-6
        while (mb[2] & 0xFFFFFFFF) != seq:
            now = time.perf_counter()
            if now < check:
                continue
            check = now + 50e-6
            if self._res_event.done:  # returned (idle) before it read the request
                if (mb[2] & 0xFFFFFFFF) == seq:
                    break
                self._launch_resident((seq - 1) & 0xFFFFFFFF)
            elif now - t0 > RESIDENT_TIMEOUT_S:
                from .errors import DeviceTimeoutError

                raise DeviceTimeoutError(
                    f"the resident whole-graph kernel of {self.graph.name!r} did not answer within "
                    f"{RESIDENT_TIMEOUT_S:g} s (is the GPU busy with other work?); "
                    f"autotune._engine.RESIDENT = 'off' replays a CUDA graph per traversal instead")
        self._res_last = time.perf_counter()
        self._last_state = None
        if late:  # an address the copy word cannot carry: copied on the stream after the answer
            before_sync = self._copy_out_before(out, before_sync)
        if before_sync is not None:  # work behind the traversal (result copies), on the engine's stream
            before_sync()
            self.stream.synchronize()
        return mb[2] >> 32

    def _in_edges(self):
        """The in-edges (row offsets, column indices) of the one-launch kernels' pull levels: the
        graph's own CSR when undirected (the kernels then read their staged copy), the config's
        in-edges when it has them, else the transpose, built here once and kept."""
        if not self.graph.directed:
            pair = (self.row_offsets, self.column_indices)
        elif self.pull_offsets is not self.row_offsets:
            pair = (self.pull_offsets, self.pull_indices)
        else:
            po, pi = transpose_csr(self.graph)
            pair = (po.astype(self.row_offsets.dtype, copy=False), pi)
        self._wg_pull = pair
        return pair

    def _setup_cluster(self, optin: int) -> None:
        """Prepare the cluster kernel (``kernels/cluster_graph.cu``: a whole BFS in one launch of one
        thread-block cluster) for this graph: the partition of the vertices among its blocks
        (:func:`cluster_partition`), their rows staged in shared memory where they fit, pull levels per
        :data:`CLUSTER_PULL`. Tries :data:`CLUSTER_SIZE` blocks, then 8; a size the device cannot
        schedule (its launch fails) is dropped, and with no size left the engine keeps the config's
        launch rounds. Sets ``whole_graph`` (the traversal is one launch), ``cluster_size`` (its blocks),
        ``whole_graph_staged`` and ``whole_graph_pull``."""
        import cupy

        from ._kernels import CLUSTER_SIZES

        n, m = self.n, self.graph.n_edges
        ro = self.row_offsets
        ro_host = ro.get() if hasattr(ro, "get") else np.asarray(ro)
        pull = m >= CLUSTER_PULL_MIN_DEGREE * n if CLUSTER_PULL == "auto" else bool(CLUSTER_PULL)
        null = np.uintp(0)
        pull_pair = None
        host_state = np.uintp(self._state_host.ctypes.data) if self.zero_copy else null
        for c in dict.fromkeys((CLUSTER_SIZE, 8)):
            if c not in CLUSTER_SIZES:
                continue
            bounds, owners, wmax, emax = cluster_partition(ro_host, n, c)
            if 32 * wmax > CLUSTER_MAX_RANGE:
                continue
            for staged in ((True, False) if WHOLE_GRAPH_STAGE == "auto" else (False,)):
                k = get_kernel("cluster_graph", f"cluster_levels<{c}, {str(staged).lower()}, "
                               f"{OPERATORS[self.algorithm]}>", self.algorithm, self.eid64)
                smem = cluster_smem_bytes(n, wmax, emax, pull=pull, staged=staged)
                if smem + int(k.shared_size_bytes) <= optin:
                    break
            else:
                continue
            if not _opt_in(k, smem, c):
                continue
            if pull and pull_pair is None:
                pull_pair = self._in_edges()
            po, pi = pull_pair if pull else (null, null)
            self._cl_bounds = cupy.asarray(bounds)
            self._cl_owners = cupy.asarray(owners)
            args = (self.row_offsets, self.column_indices, po, pi, self._cl_bounds, self._cl_owners,
                    np.int32(wmax), np.int32(WHOLE_GRAPH_ALPHA), np.int32(WHOLE_GRAPH_BETA),
                    np.int32(CLUSTER_PULL_SERIAL), self.op_args, self.source_slot, self.state, host_state,
                    self.params, self.level_sizes, self.level_info, self.level_time)
            try:  # a trial launch: a cluster the device cannot schedule fails here, not in a traversal
                release_resident()  # (a resident kernel would hold the synchronize and the cluster's SMs)
                cupy.cuda.Device().synchronize()  # the graph's arrays were built on other streams
                self._source_host[0] = 0
                with self.stream:
                    self._enqueue_source(self.stream.ptr)
                    k((c,), (WHOLE_GRAPH_THREADS,), args, shared_mem=smem)
                self.stream.synchronize()
            except cupy.cuda.driver.CUDADriverError:
                continue
            self._wg_kernel, self._wg_smem, self._wg_args, self._wg_grid = k, smem, args, c
            self.whole_graph_staged, self.whole_graph_pull, self.cluster_size = staged, pull, c
            self.whole_graph = True
            self._setup_resident(optin)
            if CLUSTER == "auto":  # measured against the launch rounds before the first traversal
                self.whole_graph, self.resident, self._cluster_pending = False, False, True
            return

    def _calibrate(self) -> None:
        """The engine's calibrations, once, before its first traversal: the cluster kernel against the
        launch rounds (:meth:`_calibrate_cluster`), then, where the rounds run, their direction
        (:meth:`_calibrate_direction`)."""
        cluster, direction = self._cluster_pending, self._direction_pending
        self._cluster_pending = self._direction_pending = False  # their traversals run uncalibrated
        if cluster:
            self._calibrate_cluster()
        if direction and not self.whole_graph:
            self._calibrate_direction()

    def _calibration_sources(self) -> list[int]:
        """The calibration sources: the vertex of largest out-degree and :data:`CLUSTER_CALIBRATION_SOURCES`
        more (seeded, out-degree > 0)."""
        import cupy

        deg = self.out_degrees
        hub = int(deg.argmax())
        nz = cupy.asnumpy(cupy.flatnonzero(cupy.asarray(deg) > 0))
        nz = nz[nz != hub]
        rng = np.random.default_rng(0)
        extra = rng.choice(nz, size=min(CLUSTER_CALIBRATION_SOURCES, nz.size), replace=False) if nz.size else []
        return list(dict.fromkeys([hub] + [int(v) for v in extra]))

    def _set_direction(self, direction: str) -> None:
        """Run the launch rounds in *direction*: the config's (``"push_pull"``) or ``"push"`` (``dir_mode``
        0, the pull kernels left out of the rounds and the pull levels' bookkeeping off: the launch
        sequence and device parameters of the config's push twin). The captured graphs, the rounds
        remembered and the replay costs measured (:data:`_REPLAY_FIELDS`) are each direction's own: the
        other direction's are kept aside and restored when it runs again (a direction run for the first
        time starts without graphs: its next traversal primes them). Call between traversals."""
        if direction == self.direction:
            return
        push = direction == "push"
        self.params_host["dir_mode"] = 0 if push else self._dir_mode
        aux = self.aux_host.copy()
        if push:
            aux["frontier_bits"] = aux["unvisited_ctr"] = 0
        stream = self.stream
        with stream:
            self.params.set(np.frombuffer(self.params_host.tobytes(), dtype=np.uint8), stream=stream)
            self.aux.set(np.frombuffer(aux.tobytes(), dtype=np.uint8), stream=stream)
        stream.synchronize()
        self._launches = self._direction_launches[direction]
        saved = self._direction_replay
        saved[self.direction] = {f: getattr(self, f) for f in _REPLAY_FIELDS}
        self.direction = direction
        for f, v in (saved.pop(direction, None) or _fresh_replay_state()).items():
            setattr(self, f, v)

    def _calibrate_direction(self) -> None:
        """Time the push/pull config's launch rounds against the same rounds with every level pushed
        (:meth:`_set_direction`) on this graph and keep the faster (``DIRECTION_CALIBRATION = "auto"``;
        once, before the engine's first traversal, after the cluster calibration). Sources as
        :meth:`_calibrate_cluster`'s; each direction runs one untimed traversal (it primes that
        direction's CUDA graphs, which the engine keeps while it times the other), then each source
        twice, device time with CUDA events (the better of the two). Push levels are kept when their
        total is below :data:`DIRECTION_MARGIN` of the push/pull total; when the first timed push/pull
        source takes more than :data:`DIRECTION_CALIBRATION_MAX_MS` the config's direction is kept,
        untimed against push, and the push sources stop once their total reaches the bound (kron 22:
        push levels took 1.9 ms on its first source against 1.5 ms for all four push/pull ones).
        ``direction_calibration`` records the times and the choice, ``direction`` the direction the
        rounds run. Both directions are exact, so the choice changes only the time."""
        import cupy

        sources = self._calibration_sources()
        events = (cupy.cuda.Event(), cupy.cuda.Event())

        def timed(s: int) -> float:
            return min(self.timed_traverse(s, events=events)[1], self.timed_traverse(s, events=events)[1])

        config_dir = self.config.direction
        self.traverse(sources[0])
        times = {config_dir: [timed(sources[0])], "push": []}
        if times[config_dir][0] <= DIRECTION_CALIBRATION_MAX_MS:
            times[config_dir] += [timed(s) for s in sources[1:]]
            self._set_direction("push")
            self.traverse(sources[0])
            bound = DIRECTION_MARGIN * sum(times[config_dir])
            for s in sources:  # until the push levels' total cannot win any more
                times["push"].append(timed(s))
                if sum(times["push"]) >= bound:
                    break
            chosen = "push" if sum(times["push"]) < bound else config_dir
            self._set_direction(chosen)  # back to the config's: its graphs and replay plan as they were
            self._direction_replay = {}  # the other direction's graphs are not replayed again
        self.direction_calibration = {"sources": sources[:len(times[config_dir])],
                                      "push_pull_ms": times[config_dir], "push_ms": times["push"],
                                      "chosen": self.direction}

    def _calibrate_cluster(self) -> None:
        """Time the cluster kernel against the config's launch rounds on this graph and keep the faster
        (``CLUSTER = "auto"``; run once, before the engine's first traversal). Sources: the vertex of
        largest out-degree and :data:`CLUSTER_CALIBRATION_SOURCES` more (seeded, out-degree > 0); each path
        runs one untimed traversal (the launch rounds' first primes their CUDA graphs, the cluster's
        launches its resident kernel (:data:`RESIDENT`), or captures its one-node graph), then each
        source twice, time with CUDA events around :meth:`traverse` (the better of the two; a resident
        traversal's events enclose the request and the answer, the host's wait included). The cluster
        kernel is kept when its total is below :data:`CLUSTER_MARGIN` of the rounds';
        ``cluster_calibration`` records the times and the choice, ``cluster_size`` is 0 when the rounds
        were kept (and the resident kernel has returned). Both paths are exact, so the choice changes
        only the time."""
        import cupy

        self._cluster_pending = False
        sources = self._calibration_sources()
        events = (cupy.cuda.Event(), cupy.cuda.Event())  # its own: it runs inside a timed traversal

        def timed(s: int) -> float:
            return self.timed_traverse(s, events=events)[1]

        times = {}
        for cluster in (False, True):
            self.whole_graph = cluster
            self.resident = cluster and self._res is not None  # the cluster's resident form where it has one
            self.traverse(sources[0])
            times[cluster] = [min(timed(s), timed(s)) for s in sources]
        chosen = sum(times[True]) < CLUSTER_MARGIN * sum(times[False])
        self.whole_graph = chosen
        if not chosen:
            if self._res is not None:  # its resident kernel returns now, and is not launched again
                _drop_resident(id(self), self._res)
                self._res = None
            self.cluster_size = 0
            self.resident = self.whole_graph_staged = self.whole_graph_pull = self.whole_graph_packed = False
        self.cluster_calibration = {"sources": sources, "rounds_ms": times[False], "cluster_ms": times[True],
                                    "chosen": chosen}

    def _enqueue_whole(self, stream_ptr: int) -> None:
        """Enqueue a whole traversal on the whole-graph kernel: the source (a copy where the device
        cannot map host memory), the one launch, the state read-back (the kernel writes it zero-copy,
        else a copy)."""
        self._enqueue_source(stream_ptr)
        self._wg_kernel((self._wg_grid,), (WHOLE_GRAPH_THREADS,), self._wg_args, shared_mem=self._wg_smem)
        if not self.zero_copy:
            self._enqueue_state_copy(stream_ptr)

    def _traverse_whole(self, before_sync=None) -> int:
        """One traversal on the whole-graph kernel (the source is in ``_source_host``): its CUDA graph
        (one kernel node with zero-copy) captured once and replayed, one host wait."""
        import cupy

        stream = self.stream
        g = self._wg_graph
        if g is None and self.use_graphs:
            g = self._wg_graph = self._capture(self._enqueue_whole)
        if g is not None:
            g.launch(stream)
        else:
            with stream:
                self._enqueue_whole(stream.ptr)
        if before_sync is not None:
            before_sync()
        stream.synchronize()
        st = self.last_state = np.frombuffer(self._state_host.tobytes(), dtype=STATE_DTYPE)[0]
        return int(st["level"])

    # ------------------------------------------------------------------ operator hooks
    def _trace_entries(self, n: int) -> int:
        """Levels the trace arrays hold (later levels run untraced)."""
        return n + 2

    def _operator_bytes(self) -> int:
        """Device bytes of the operator's state (checked with the common buffers before allocation)."""
        raise NotImplementedError

    def _operator_state(self) -> np.void:
        """Allocate the operator's device state; return the host ``OpArgs`` block pointing at it."""
        raise NotImplementedError

    def _reset(self, source: int) -> None:
        """Reset the operator's device state before a traversal from *source*."""
        raise NotImplementedError

    def _extra_launches(self, wp: str) -> list:
        """Launches enqueued after the level kernels of every iteration (none by default)."""
        return []

    def _extra_kernels(self, wp: str) -> list:
        """``(kernel file, name)`` of the kernels :meth:`_extra_launches` will ask for (compiled ahead
        with the others)."""
        return []

    def reached(self):
        """Device boolean mask of the vertices reached by the last traversal."""
        raise NotImplementedError

    # ------------------------------------------------------------------ generic machinery
    def _build_aux(self, cfg: TraversalConfig):
        """The ``BFSAux`` block (host copy) and the device buffers it points to: the support strategies
        and caches here, the technique's own state from its registry record."""
        import cupy

        aux = np.zeros((), dtype=AUX_DTYPE)
        bufs: dict[str, object] = {}
        deg = self.out_degrees
        max_deg = self.max_out_degree
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
        aux["dc_small"] = aux["dc_middle"] = aux["dc_large"] = AT_OFF
        technique(cfg.load_balance).build_aux(AuxContext(cfg, aux, deg, self.row_offsets, self.n, self.graph.n_edges, ptr))
        if cfg.hub_cache == "on":
            k = min(HUB_CACHE_ENTRIES, self.n)
            hubs = cupy.argsort(-deg)[:k].astype(np.int32)
            aux["n_hub_cache"] = k
            aux["hub_list"] = ptr("hub_list", hubs)
        if cfg.small_frontier == "persistent":
            aux["barrier"] = ptr("barrier", cupy.zeros(2, dtype=np.uint32))
        if cfg.direction == "push_pull":
            self._pull_heavy_aux(aux, ptr)
            if PULL_UNVISITED_LIST and self.n > self._pull_grid * b:
                self._pull_lists_aux(aux, ptr)
            if use_pull_bitmap(self.n, self.props.get("l2_bytes", 0)):
                aux["frontier_bits"] = ptr("frontier_bits", cupy.zeros((self.n + 31) // 32, dtype=np.uint32))
        return aux, bufs

    def _pull_heavy_aux(self, aux, ptr) -> None:
        """The pull levels' work items for the vertices of in-degree > :data:`PULL_HEAVY_DEGREE`: one per
        chunk of :data:`PULL_CHUNK` in-edges (the vertex and the chunk's index, so a warp finds its
        vertex in one load): pull.cu scans those vertices with one warp per chunk. One thread per vertex (Enterprise's bottom-up step) costs a level as much as the
        largest unvisited in-degree: measured on the H200, a directed bow-tie graph (2·10^6 vertices,
        unreachable vertices of in-degree up to 245,886) took 5 ms per pull level against 0.1–0.3 ms
        per push level."""
        import cupy

        in_deg = cupy.diff(self.pull_offsets)
        heavy = cupy.flatnonzero(in_deg > PULL_HEAVY_DEGREE).astype(np.int32)
        if heavy.size == 0:
            return
        chunks = cupy.zeros(heavy.size + 1, dtype=np.int64)
        cupy.cumsum((in_deg[heavy].astype(np.int64) + PULL_CHUNK - 1) // PULL_CHUNK, out=chunks[1:])
        total = int(chunks[-1])
        # one work item per chunk: (vertex << 32) | the chunk's index among its vertex's chunks
        c = cupy.arange(total, dtype=np.int64)
        owner = cupy.searchsorted(chunks, c, side="right") - 1
        items = (heavy[owner].astype(np.uint64) << np.uint64(32)) | (c - chunks[owner]).astype(np.uint64)
        aux["pull_heavy_items"] = ptr("pull_heavy_items", items)
        aux["n_pull_heavy"] = int(heavy.size)
        aux["pull_heavy_total"] = total
        aux["pull_heavy_degree"] = PULL_HEAVY_DEGREE

    def _pull_lists_aux(self, aux, ptr) -> None:
        """The pull levels' vertex lists (kernels/pull.cu, ``BFSAux.unvisited``): two lists of the
        vertices a pull level left without a parent (the next pull level examines only those) and
        the static list of the vertices a pull level can claim (in-degree 1..the heavy threshold; the
        heavy ones have their own pass), read by the first pull level of a run. The kernel reads a
        list only when it is shorter than all the vertices by at least the grid's threads.
        Enterprise (Liu & Huang, SC'15), section 2.1 (a bottom-up level's frontier is the unvisited
        vertices) and section 3 (a queue of them instead of a thread per vertex): on kron scale 22,
        45 % of the vertices are isolated and the level after the explosion leaves ~15 % of the
        others."""
        import cupy

        in_deg = cupy.diff(self.pull_offsets)
        keep = in_deg > 0
        if int(aux["n_pull_heavy"]) > 0:
            keep &= in_deg <= int(aux["pull_heavy_degree"])
        n_keep = int(keep.sum())
        cap = max(n_keep, 1)
        aux["unvisited"][0] = ptr("unvisited0", cupy.empty(cap, dtype=np.int32))
        aux["unvisited"][1] = ptr("unvisited1", cupy.empty(cap, dtype=np.int32))
        aux["unvisited_ctr"] = ptr("unvisited_ctr", cupy.zeros(2, dtype=np.int32))
        if n_keep < self.n:
            aux["pull_vertices"] = ptr("pull_vertices", cupy.flatnonzero(keep).astype(np.int32))
            aux["n_pull_vertices"] = n_keep

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

        stream = self.stream
        with stream:
            self._enqueue_state_copy(stream.ptr)
        stream.synchronize()
        return np.frombuffer(self._state_host.tobytes(), dtype=STATE_DTYPE)[0]

    # ------------------------------------------------------------------ launching a traversal
    def _memset_ones(self, stream_ptr: int) -> None:
        """Reset the operator's state: every array of :meth:`_ones_arrays` filled with 0xFF bytes
        (-1 for int32, all ones for the packed SSSP words), as plain memsets (capturable)."""
        import cupy

        for a in self._ones_arrays():
            if a.nbytes:
                cupy.cuda.runtime.memsetAsync(a.data.ptr, 0xFF, a.nbytes, stream_ptr)

    def _ones_arrays(self) -> list:
        """Device arrays reset to all-ones bytes before each traversal."""
        raise NotImplementedError

    def _reset(self, source: int) -> None:
        """Reset the operator's device state before a traversal (on the engine's stream)."""
        self._memset_ones(self.stream.ptr)

    def _enqueue_source(self, stream_ptr: int) -> None:
        """Enqueue the copy of the source into ``source_slot`` (nothing with zero-copy: the init
        kernel reads the pinned word itself)."""
        if self.zero_copy:
            return
        import cupy

        cupy.cuda.runtime.memcpyAsync(self.source_slot.data.ptr, self._source_host.ctypes.data, 4,
                                      cupy.cuda.runtime.memcpyHostToDevice, stream_ptr)

    def _enqueue_start(self, stream_ptr: int) -> None:
        """Enqueue the reset and the init kernel (source read from ``source_slot``)."""
        self._memset_ones(stream_ptr)
        self._init((1,), (32,), (self.row_offsets, self.op_args, self.source_slot, self.frontiers[0],
                                 self.prefixes[0], self.row_starts[0], self.state, self.params, self.level_time,
                                 self.aux))

    def _enqueue_rounds(self, k: int) -> None:
        """Enqueue *k* launch rounds: the tick, then every level kernel with the same arguments."""
        args, launches, tick, state = self._args, self._launches, self._tick, (self.state,)
        for _ in range(k):
            tick((1,), (1,), state)
            for kernel, grid, block in launches:
                kernel((grid,), (block,), args)

    def _enqueue_state_copy(self, stream_ptr: int) -> None:
        """Enqueue the state read-back into the pinned host buffer (a one-warp kernel writing it
        zero-copy, or a device-to-host copy where the device cannot map host memory)."""
        import cupy

        if self.zero_copy:  # launched on the current stream: the caller's (capture or read_state)
            self._state_out((1,), (32,), (self.state, np.uintp(self._state_host.ctypes.data)))
            return
        cupy.cuda.runtime.memcpyAsync(self._state_host.ctypes.data, self.state.data.ptr, STATE_DTYPE.itemsize,
                                      cupy.cuda.runtime.memcpyDeviceToHost, stream_ptr)

    def _capture(self, enqueue):
        """Capture what ``enqueue(stream_ptr)`` launches on the engine's stream into a CUDA graph and
        upload it; None, with graphs turned off for this engine (:attr:`graph_error` says why), when
        this driver cannot capture those launches (the engine then launches them directly)."""
        import cupy

        stream = self.stream
        try:
            with stream:
                stream.begin_capture(cupy.cuda.runtime.streamCaptureModeRelaxed)
                try:
                    enqueue(stream.ptr)
                finally:
                    graph = stream.end_capture()
        except Exception as exc:  # a driver without capture of these launches: plain launches
            self.use_graphs = False
            self.graph_error = f"{type(exc).__name__}: {exc}"
            return None
        upload = getattr(graph, "upload", None)  # CuPy >= 13; else the first launch uploads
        if upload is not None:
            try:
                upload(stream)
            except Exception:  # an upload is an optimisation only
                pass
        return graph

    def _graph(self, start: bool, k: int):
        """The CUDA graph of [reset + init if *start*] + *k* launch rounds + state read-back,
        captured once per (start, k) from the engine's stream and replayed (None when capture is
        not possible here; the engine then launches round by round)."""
        key = (start, k)
        g = self._cached_graph(key)
        if g is not None:
            return g
        if not self.use_graphs:
            return None
        t0 = time.perf_counter()

        def enqueue(stream_ptr: int) -> None:
            if start:
                self._enqueue_source(stream_ptr)
                self._enqueue_start(stream_ptr)
            self._enqueue_rounds(k)
            self._enqueue_state_copy(stream_ptr)

        graph = self._capture(enqueue)
        if graph is None:
            return None
        if start:  # what a capture costs this engine (_start_rounds weighs it)
            self._captures = self._captures[-7:] + [(time.perf_counter() - t0) * 1e6]
            self.capture_us = sum(self._captures) / len(self._captures)
        self._store_graph(key, graph)
        return graph

    def _cached_graph(self, key):
        """The captured graph of *key* ``(start, rounds)``, or None; a hit makes it the most recently
        replayed (``_graphs`` is kept in order of last use, least recent first)."""
        graphs = self._graphs
        g = graphs.get(key)
        if g is not None and next(reversed(graphs)) != key:
            graphs[key] = graphs.pop(key)
        return g

    def _store_graph(self, key, graph) -> None:
        """Keep a newly captured graph, evicting the least recently replayed one past
        :data:`MAX_GRAPHS` (not the oldest capture: the primed start graph a plan replays on every
        traversal is the oldest, and evicting it would capture it again inside the next traversal)."""
        graphs = self._graphs
        while len(graphs) >= MAX_GRAPHS:
            graphs.pop(next(iter(graphs)))
        graphs[key] = graph
        self._graphs_changed()

    def _finished(self, st) -> bool:
        level = int(st["level"])
        return int(st["ctr"][level % 3]) & self._count_mask == 0

    def traverse(self, source: int, before_sync=None, out=None) -> int:
        """Run one traversal from internal vertex *source*, leaving results in the device buffers.

        The launch sequence is the same for every source (the source is read from device memory),
        so it is captured in a CUDA graph once and replayed: reset, init and as many launch rounds
        as the previous traversals needed (``BFSState.iterations``, counted on the device), then
        the 64-byte state is copied back inside the graph and the host waits once. Only when a
        traversal needs more rounds than its start graph holds does the host replay a continuation
        graph.
        A whole-graph engine replays one kernel instead, or, when :attr:`resident`, writes the
        request into the resident kernel's mailbox and spins on its answer (:data:`RESIDENT`).
        The first traversal of an engine launches round by round (batches of 2, 4, 8, ... rounds,
        one state read each), measures the rounds needed and captures the graphs the next
        traversals replay (:meth:`_prime_graph`); later traversals replay the start graph of the
        engine's plan, of least expected cost over the rounds the last traversals needed
        (:meth:`_start_rounds`, :meth:`_update_plan`).

        Parameters
        ----------
        source : int
            Internal vertex id in ``[0, n_vertices)``.
        before_sync : callable, optional
            Called after the (last) launch and before the host waits, to enqueue more work on
            :attr:`stream` (e.g. result copies) that the same wait covers; called again when the
            traversal needed more launches. On a resident engine (:attr:`resident`), called after
            the answer, then the stream is waited for.
        out : cupy.ndarray, optional
            A C-contiguous device array of the shape and dtype of the operator's result buffer (BFS:
            int32, shape (2, n_vertices), distances then predecessors) that receives the results: a
            resident kernel fills it before it answers, other engines copy into it on :attr:`stream`
            before the host's wait.

        Returns
        -------
        int
            Number of levels (iterations) expanded.

        Raises
        ------
        VertexError
            (a ``ValueError``) When *source* is not a vertex.
        InvalidArgumentError
            When *out* is not such an array (or the engine has no result buffer).
        """
        if out is not None:
            self._check_out(out)
            if not self.resident:
                before_sync = self._copy_out_before(out, before_sync)
        return self._traverse(source, before_sync, out)

    def _traverse(self, source, before_sync=None, out=None) -> int:
        """:meth:`traverse` with *out* taken as checked (and, off a resident engine, already wrapped
        into *before_sync*): the engine's own callers pass arrays they made."""
        try:
            s = int(source)
        except (TypeError, ValueError):
            from .errors import VertexError

            raise VertexError(f"source {source!r} is not a vertex id (an integer in [0, {self.n:,}))") from None
        if not 0 <= s < self.n:
            from .errors import VertexError

            raise VertexError(f"source {source} is not a vertex (graph has {self.n:,} vertices)")
        stream = self.stream
        if not self._built_synced:
            import cupy

            release_resident(keep=self if self.resident else None)
            cupy.cuda.Device().synchronize()
            self._built_synced = True
        if self.resident:
            return self._traverse_resident(s, before_sync, out)
        if _RESIDENTS and (self.small_frontier == "persistent" or self.cluster_size or self._cluster_pending):
            # a persistent kernel's grid waits for all its blocks (one SM's worth of them would wait
            # for a resident kernel to return), a cluster for 16 SMs of one GPC: residents return first.
            # Other kernels share the GPU with them (asking costs a few µs).
            release_resident()
        if self._cluster_pending or self._direction_pending:  # once, before the first traversal
            self._calibrate()
            if self.resident:  # the cluster kernel kept, in its resident form (out: copied by before_sync)
                return self._traverse_resident(s, before_sync)
        self._source_host[0] = s  # read by the graph's first node (a copy from this pinned word)
        if self.whole_graph:
            return self._traverse_whole(before_sync)
        need = self._rounds_needed
        if need and self.use_graphs:
            done, start = 0, True
            k = self._start_rounds(need)
            while True:
                g = self._graph(start, k)
                if g is None:
                    break
                g.launch(stream)
                if before_sync is not None:
                    before_sync()
                if self._plan_stale:  # while the GPU runs: the plan of the next traversals
                    self._update_plan()
                stream.synchronize()
                st = self._state_view
                done += k
                start = False
                if self._finished(st):
                    self.last_state = np.frombuffer(self._state_host.tobytes(), dtype=STATE_DTYPE)[0]
                    self._note_rounds(int(st["iterations"]))
                    return int(st["level"])
                k = self._continuation_rounds(done)  # beyond the start graph: double (primed: k0, 2 k0)
            if not start:  # capture failed mid-way: finish round by round
                return self._loop(start=False, before_sync=before_sync)
        levels = self._loop(start=True, before_sync=before_sync)
        if not need:
            self._prime_graph()
        return levels

    def _prime_graph(self) -> None:
        """Capture and upload the CUDA graphs the next traversals replay, right after the first one:
        the start graph of the rounds that traversal needed (k0), the start graphs of 1 to
        :data:`PRIME_FEWER_ROUNDS` rounds fewer and 1 to :data:`PRIME_MORE_ROUNDS` more, a ladder of
        start graphs of powers of two (below k0, and above it up to 4 k0: :func:`_ladder`), and the
        continuation graphs of k0, 2 k0 and every power of two up to :data:`MAX_GRAPH_ROUNDS` (the
        doubling continuations after any start graph). Then the costs the replay policy weighs are
        measured on them (:meth:`_measure_replay`).

        Capturing a graph inside a traversal puts the capture, instantiation and upload (0.2-0.3 ms
        on the H200) into that traversal: measured by the harness after its one warm-up traversal,
        the first timed source of a sweep took 2.3-2.6x its measurement's median (median over the
        2,371 measurements of the H200 sweep log whose median is under 0.15 ms), and later sources
        that needed more rounds than the first paid a continuation's capture
        (notebooks/figures/prime_graph_before_after_h200.jsonl: first timed source 2.9x -> 1.07x
        the median of the others on small graphs). Now the warm-up (or a user's first call) pays
        them. The ladder is for sources that need far fewer or more rounds than the first: on a
        bow-tie graph whose first source ran 134 levels and the next ones about 10, the next
        sources replayed the 64-round start graph, 50-odd empty rounds each, 0.26-0.35 ms where
        0.14 ms sufficed (notebooks/figures/bowtie_order_h200.jsonl); with the ladder and the plan
        (:meth:`_update_plan`) they replay a primed graph near their own rounds (that bow-tie's
        single-block configs 0.40-0.64x, notebooks/figures/replay_cost_before_after_h200.jsonl)."""
        if not self.use_graphs or not self._rounds_needed:
            return
        k0 = min(self._rounds_needed, MAX_GRAPH_ROUNDS)
        self._start_k, self._waste_us = k0, 0.0
        keys = [(True, k0), (False, k0), (False, min(2 * k0, MAX_GRAPH_ROUNDS))]
        keys += [(True, k) for k in range(k0 - 1, max(0, k0 - 1 - PRIME_FEWER_ROUNDS), -1)]
        keys += [(True, k) for k in range(k0 + 1, min(k0 + PRIME_MORE_ROUNDS, MAX_GRAPH_ROUNDS) + 1)]
        keys += [(True, k) for k in _ladder(k0)]
        keys += [(False, 1 << i) for i in range(MAX_GRAPH_ROUNDS.bit_length())]  # doubling continuations
        for key in dict.fromkeys(keys):
            if self._graph(*key) is None:
                return
        self._measure_replay(min(2 * k0, MAX_GRAPH_ROUNDS))

    def _measure_replay(self, k: int, repeats: int = 3) -> None:
        """Measure the replay policy's costs on this engine (host wall time, the best of *repeats*):
        the continuation graphs of 1 and *k* rounds replayed on the traversal just finished, whose
        frontier is empty, so every round is one the traversal does not need (the state stays as it
        is). ``round_us`` = their difference per round; ``continuation_us`` = the 1-round graph less
        one round (launch, host wait, state check)."""
        g1, gk = self._graphs.get((False, 1)), self._graphs.get((False, k))
        if g1 is None or gk is None or k <= 1:
            return
        stream = self.stream
        best = {}
        for key, g in ((1, g1), (k, gk)):
            ts = []
            for _ in range(repeats):
                t0 = time.perf_counter()
                g.launch(stream)
                stream.synchronize()
                self._finished(self._state_view)
                ts.append(time.perf_counter() - t0)
            best[key] = min(ts) * 1e6
        self.round_us = max(0.5, (best[k] - best[1]) / (k - 1))
        self.continuation_us = max(2.0, best[1] - self.round_us)
        self._graphs_changed()

    def _graphs_changed(self) -> None:
        """Forget what depends on the captured graphs or the measured costs (the plan, the costs)."""
        self._plan_stale, self._costs = True, {}
        self._conts = sorted(j for (start, j) in self._graphs if not start)

    def _start_cost(self, j: int, k: int) -> float:
        """Estimated cost (us) of replaying the start graph of *j* rounds for a traversal needing
        *k*, against the start graph of exactly *k*: the rounds replayed but not needed (a longer
        start graph's, or those of the last continuation graph) plus, for a shorter one, a launch and
        host wait per continuation graph (:meth:`_continuation_rounds`). Memoized per engine."""
        c = self._costs.get((j, k))
        if c is None:
            n, done = 0, j
            while done < k:
                done += self._continuation_rounds(done)
                n += 1
            c = self._costs[(j, k)] = (done - k) * self.round_us + n * self.continuation_us
        return c

    def _expected_cost(self, j: int, counts: dict) -> float:
        """Total :meth:`_start_cost` of start graph *j* over the remembered rounds (*counts*: rounds
        -> traversals)."""
        cost = self._start_cost
        return sum(n * cost(j, v) for v, n in counts.items())

    def _update_plan(self) -> None:
        """Choose the next traversals' start graph from the rounds the last :data:`ROUND_HISTORY`
        traversals needed: the target is the rounds of least expected cost (:meth:`_start_cost`,
        with this engine's measured costs) among the remembered ones; when its start graph is not
        captured, the captured one next to it (above or below) of least expected cost is replayed,
        and the difference per traversal is what not having the target's costs. Rounds past
        2 x :data:`MAX_GRAPH_ROUNDS` count as that many (their further continuations are the same
        whatever the start graph). The traversal calls this while the GPU runs its graph, so the
        Python work here is off the traversal's critical path."""
        self._plan_stale = False
        cap = 2 * MAX_GRAPH_ROUNDS
        counts: dict = {}
        for v in self._round_history:
            v = min(v, cap)
            counts[v] = counts.get(v, 0) + 1
        if not counts:
            self._plan = None
            return
        exp = {k: self._expected_cost(k, counts) for k in {min(v, MAX_GRAPH_ROUNDS) for v in counts}}
        target = min(exp, key=lambda k: (exp[k], -k))
        if (True, target) in self._graphs:
            self._plan = (target, target, 0.0)
            return
        starts = [j for (start, j) in self._graphs if start]
        above, below = [j for j in starts if j > target], [j for j in starts if j < target]
        cands = ([min(above)] if above else []) + ([max(below)] if below else [])
        if not cands:
            self._plan = (target, target, 0.0)
            return
        costs = {j: self._expected_cost(j, counts) for j in cands}
        best = min(cands, key=lambda j: (costs[j], -j))
        n = len(self._round_history)
        self._plan = (target, best, (costs[best] - exp[target]) / n)

    def _start_rounds(self, need: int | None = None) -> int:
        """Rounds of the start graph this traversal replays.

        Sources need different numbers of rounds (on small graphs: those that reach the large
        component and those that do not; on a bow-tie, a few sources 10x as many as the rest). A
        start graph longer than a traversal needs replays empty rounds, a shorter one continuation
        graphs, and a start graph not yet captured costs a capture inside the traversal
        (0.2-0.3 ms). The engine replays the start graph of the plan (:meth:`_update_plan`: the
        target of least expected cost over the remembered rounds, or the captured one next to it of
        least expected cost), and captures the target's once what it has paid for not having it
        reaches a capture (the ski-rental rule: never more than twice the better of the two choices
        in hindsight). *need* (rounds) is the target when no traversal is remembered yet.
        """
        if self._plan is None:
            self._update_plan()
        plan = self._plan
        if plan is None:
            k = min(need or 1, MAX_GRAPH_ROUNDS)
            self._start_k = k
            return k
        target, best, delta = plan  # made during the last traversal, from the rounds before it
        if delta <= 0:
            self._waste_us = 0.0
        else:
            self._waste_us += delta
            if self._waste_us >= self.capture_us:  # capture the target's start graph (traverse does)
                best, self._waste_us = target, 0.0
        self._start_k = best
        return best

    def _continuation_rounds(self, k: int) -> int:
        """Rounds of the continuation graph replayed after *k* rounds done: *k* (capped; primed for
        powers of two, k0 and 2 k0) when it is captured, else the longest captured one not above *k*
        (at least half of *k* when the powers of two are primed: the rounds done still grow
        geometrically, and its unneeded rounds stay fewer than those needed), else the shortest;
        never a capture inside the traversal when any is captured."""
        k = min(k, MAX_GRAPH_ROUNDS)
        if (False, k) in self._graphs:
            return k
        conts = self._conts
        if not conts:
            return k
        i = bisect.bisect_right(conts, k)
        return conts[i - 1] if i else conts[0]

    def _loop(self, start: bool, before_sync=None) -> int:
        """Round-by-round launches (no graph): batches of 2, 4, 8, ... rounds, one state read each."""
        import cupy

        stream = self.stream
        with stream:
            if start:
                self._enqueue_source(stream.ptr)
                self._enqueue_start(stream.ptr)
            batch = FIRST_BATCH
            while True:
                self._enqueue_rounds(batch)
                st = self.read_state()  # the one host round trip of this batch
                if self._finished(st):
                    self.last_state = st
                    self._note_rounds(int(st["iterations"]))
                    if before_sync is not None:
                        before_sync()
                        stream.synchronize()
                    return int(st["level"])
                batch = min(batch * 2, MAX_BATCH)

    def _note_rounds(self, rounds: int) -> None:
        """Remember the launch rounds the last :data:`ROUND_HISTORY` traversals needed (``iterations``:
        the rounds that began with a non-empty frontier; after them the host sees the frontier
        empty, so a start graph of exactly that many rounds finishes the traversal); the plan is
        brought up to date during the next traversal (:meth:`_update_plan`). ``_rounds_needed`` is
        their median (the first traversal's rounds prime the graphs)."""
        hist = self._round_history
        r = max(1, int(rounds))
        hist.append(r)
        if len(hist) > ROUND_HISTORY:
            self._plan_stale |= hist.pop(0) != r
        else:
            self._plan_stale = True
        self._rounds_needed = sorted(hist)[len(hist) // 2]

    def edges_traversed(self) -> int:
        """Sum of out-degrees of the vertices reached by the last traversal (on the device)."""
        import cupy

        return masked_sum(self.reached(), self.out_degrees)

    def level_trace(self, n_levels: int) -> list[LevelTrace]:
        """Per-level trace of the last traversal (*n_levels* as returned by :meth:`traverse`; levels
        past the trace capacity are left out)."""
        n_levels = min(n_levels, self.trace_cap)
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

    def timed_traverse(self, source: int, after=None, events=None) -> tuple[int, float]:
        """:meth:`traverse` between two CUDA events on the engine's stream; returns (levels, elapsed
        ms). *after* (optional) enqueues more work after the end event, covered by the same wait;
        *events* (optional): the (start, end) pair to use instead of the engine's own."""
        import cupy

        stream = self.stream
        start, end = self._events if events is None else events

        def before_sync():
            end.record(stream)
            if after is not None:
                after()

        start.record(stream)
        n_levels = self.traverse(source, before_sync)
        end.synchronize()
        return n_levels, float(cupy.cuda.get_elapsed_time(start, end))


def transpose_csr(graph: CSRGraph):
    """In-edges of a directed graph as ``(in_offsets, in_indices)`` CuPy arrays, built once.

    ``in_indices[in_offsets[v]:in_offsets[v+1]]`` (int32) are the sources of the edges into ``v``;
    ``in_offsets`` has the dtype of the graph's row offsets (int32, or int64 past 2**31 - 1 edges).
    Built on the device with a stable sort by destination and cached on the graph (``graph._cache``).
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
    in_offsets = cupy.zeros(n + 1, dtype=ro.dtype)
    in_offsets[1:] = cupy.cumsum(counts).astype(ro.dtype)
    graph._cache["transpose"] = (in_offsets, in_indices)
    return graph._cache["transpose"]


