// supports.cuh -- load-balancing support strategies shared by vertex_mapped_push, scan_mapped_push
// and heavy_vertices: the edge visit, the class of a frontier vertex, warp-based gathering,
// block-based gathering, the heavy-vertex queues (supplementary queues / deferred outliers) and
// a two-level block scan with its uniform binary search.
//
// Busato & Bombieri, "Efficient load balancing techniques for graph traversal applications on
// GPUs", section 3.4 (support strategies; thresholds of Table 2 are set by the engine) and
// Algorithm 1 (uniform binary search with warp shuffles); Hong et al., "Accelerating CUDA Graph
// Algorithms at Maximum Warp" (PPoPP'11), section 3.2 "Deferring Outliers".
//
// * Warp-based gathering: the 4-instruction binary prefix-sum (ballot, lanemask_lt, and, popc)
//   filters the warp's heavy vertices; the filtered list is the ballot word itself, walked with
//   __ffs, and each vertex id / edge range is broadcast with __shfl_sync (the shuffle replaces the
//   paper's shared-memory copy of the filtered list). All 32 lanes then stride over its edges.
// * Block-based gathering: the *unordered* binary prefix-sum: each warp reserves popc(ballot) slots
//   in a shared list with one shared-memory atomicAdd and its lanes write at base + rank. After a
//   __syncthreads the whole block strides over the edges of each listed vertex in turn.
// * Heavy queues (supplementary queues, deferred outliers): vertices go to global segments of
//   aux->heavy with a warp-aggregated atomicAdd per segment (__match_any_sync groups the lanes of
//   one segment); heavy_vertices (heavy.cu) expands them. A segment that would overflow hands the
//   vertex back to the caller, which expands it with warp gathering (never skipped).
//
// Every edge visit is warp-collective: the append (at_stage_append into the warp's stage, AtExpand.stage,
// which the kernel flushes before its level closes) needs all 32 lanes of a converged warp, so every
// loop around a visit has a warp-uniform (or block-uniform) trip count.
#pragma once
#include "traversal.cuh"

#define AT_CLS_NORMAL 0  // the technique's own mapping
#define AT_CLS_WARP 1    // warp-based gathering
#define AT_CLS_BLOCK 2   // block-based gathering
#define AT_CLS_DEFER 3   // deferred outlier (heavy segment 0)
#define AT_CLS_SQ 4      // supplementary-queue bin (heavy segment 1 + bin)

// What every edge visit needs. Built once per kernel.
struct AtExpand {
    const eid_t* row_offsets;
    const vid_t* column_indices;
    const OpArgs* op;
    const BFSAux* aux;
    FrontierOut out;
    int level;       // the level being expanded
    AtStage* stage;  // the warp's append stage (traversal.cuh, at_stage_append); flushed by the kernel
};

// Effective degree thresholds of one kernel. The heavy queues are only usable when heavy_vertices
// runs after the push kernel (push_finishes == 0) and the engine gave them storage; otherwise they
// are switched off here, so a queued vertex can never be left unexpanded.
struct AtSupports {
    int wg, bg, sq, defer;
};

__device__ __forceinline__ AtSupports at_supports(const BFSAux* aux, bool allow_defer) {
    const bool heavy_ok = !aux->push_finishes && aux->heavy != nullptr && aux->heavy_ctr != nullptr;
    AtSupports s;
    s.wg = aux->wg_degree;
    s.bg = aux->bg_degree;
    s.sq = (heavy_ok && aux->sq_bins > 0) ? aux->sq_degree : AT_OFF;
    s.defer = (heavy_ok && allow_defer) ? aux->defer_degree : AT_OFF;
    return s;
}

// Precedence: SQ > deferred > block gathering > warp gathering > normal (AT_OFF is never exceeded).
__device__ __forceinline__ int at_classify(int deg, const AtSupports& s) {
    if (deg > s.sq) return AT_CLS_SQ;
    if (deg > s.defer) return AT_CLS_DEFER;
    if (deg > s.bg) return AT_CLS_BLOCK;
    if (deg > s.wg) return AT_CLS_WARP;
    return AT_CLS_NORMAL;
}

// Heavy segment of a supplementary-queue vertex: 1 + clamp(floor(log2 deg) - b, 0, bins - 1).
__device__ __forceinline__ int at_sq_segment(int deg, const BFSAux* aux) {
    int bin = (31 - __clz(deg > 0 ? deg : 1)) - aux->sq_base_log2;
    bin = bin < 0 ? 0 : (bin >= aux->sq_bins ? aux->sq_bins - 1 : bin);
    return 1 + bin;
}

// The operator's visit of edge e = (u, v) (no append).
template <class Op>
__device__ __forceinline__ bool at_claim_edge(const AtExpand& x, vid_t v, vid_t u, eid_t e, int& deg, eid_t& rs) {
    return at_visit_edge<Op>(x.op, x.aux, x.row_offsets, u, v, e, x.level, deg, rs);
}

// Warp-collective: each lane with `valid` inspects edge e of frontier vertex u.
template <class Op>
__device__ __forceinline__ void at_visit(const AtExpand& x, bool valid, eid_t e, vid_t u) {
    bool claim = false;
    vid_t v = -1;
    int deg = 0;
    eid_t rs = 0;
    if (valid) {
        v = __ldg(x.column_indices + e);
        claim = at_claim_edge<Op>(x, v, u, e, deg, rs);
    }
    at_stage_append<false>(claim, v, deg, rs, *x.stage, x.row_offsets, x.out);
}

// Warp-collective, two edges per lane: both column loads are issued before the claims (ILP).
template <class Op>
__device__ __forceinline__ void at_visit2(const AtExpand& x, bool va, eid_t ea, vid_t ua, bool vb, eid_t eb,
                                          vid_t ub) {
    const vid_t a = va ? __ldg(x.column_indices + ea) : -1;
    const vid_t b = vb ? __ldg(x.column_indices + eb) : -1;
    int da = 0, db = 0;
    eid_t ra = 0, rb = 0;
    const bool ca = va && at_claim_edge<Op>(x, a, ua, ea, da, ra);
    const bool cb = vb && at_claim_edge<Op>(x, b, ub, eb, db, rb);
    at_stage_append<false>(ca, a, da, ra, *x.stage, x.row_offsets, x.out);
    at_stage_append<false>(cb, b, db, rb, *x.stage, x.row_offsets, x.out);
}

// Warp-collective. Appends u to heavy segment `seg` when `take`. Returns true when u was queued;
// false for lanes that did not take, and for a vertex that did not fit (the segment is full: the
// caller must expand it itself). Counters may run past capacity; heavy_vertices clamps them.
__device__ __forceinline__ bool at_heavy_push(bool take, int seg, vid_t u, const BFSAux* aux) {
    if (__ballot_sync(AT_FULL_MASK, take) == 0u) return false;
    const unsigned peers = __match_any_sync(AT_FULL_MASK, take ? seg : -1);
    const int leader = __ffs(peers) - 1;
    int base = 0;
    if (take && (int)at_lane_id() == leader) base = atomicAdd(aux->heavy_ctr + seg, __popc(peers));
    base = __shfl_sync(AT_FULL_MASK, base, leader);
    if (!take) return false;
    const int pos = base + __popc(peers & at_lanemask_lt());
    const int off = aux->heavy_off[seg];
    if (pos >= aux->heavy_off[seg + 1] - off) return false;
    aux->heavy[off + pos] = u;
    return true;
}

// Warp-collective warp-based gathering: every lane with `take` has its vertex expanded by the
// whole warp, one vertex after the other, 64 edges (two per lane) per iteration.
template <class Op>
__device__ __forceinline__ void at_warp_gather(const AtExpand& x, bool take, vid_t u, eid_t beg, eid_t end) {
    unsigned b = __ballot_sync(AT_FULL_MASK, take);
    const int lane = (int)at_lane_id();
    while (b) {
        const int src = __ffs(b) - 1;
        b &= b - 1u;
        const vid_t su = __shfl_sync(AT_FULL_MASK, u, src);
        const eid_t sb = __shfl_sync(AT_FULL_MASK, beg, src);
        const eid_t se = __shfl_sync(AT_FULL_MASK, end, src);
        for (eid_t base = sb; base < se; base += 64) {  // warp-uniform trip count
            const eid_t e0 = base + lane, e1 = e0 + 32;
            at_visit2<Op>(x, e0 < se, e0, su, e1 < se, e1, su);
        }
    }
}

// Shared list of block-based gathering: BLOCK entries (a round offers at most one vertex per thread)
// and two counters used alternately by consecutive rounds (see at_block_gather_run).
struct AtBlockList {
    vid_t* u;
    eid_t* beg;
    eid_t* end;
    int* cnt;  // [2]
};

// Warp-collective: unordered binary prefix-sum into the block's shared list.
__device__ __forceinline__ void at_block_gather_push(bool take, vid_t u, eid_t beg, eid_t end, const AtBlockList& l,
                                                     int round) {
    const unsigned b = __ballot_sync(AT_FULL_MASK, take);
    if (b == 0u) return;
    int base = 0;
    if (at_lane_id() == 0) base = atomicAdd(l.cnt + (round & 1), __popc(b));
    base = __shfl_sync(AT_FULL_MASK, base, 0);
    if (take) {
        const int pos = base + __popc(b & at_lanemask_lt());
        l.u[pos] = u;
        l.beg[pos] = beg;
        l.end[pos] = end;
    }
}

// Block-uniform; call after a __syncthreads that follows every push of this round, and put a
// __syncthreads before the next round's pushes. Counter parity: round r appends into cnt[r & 1]
// and, here, resets cnt[(r + 1) & 1], whose last readers (round r - 1) are all past the barrier
// that ended round r - 1, and whose next writers (round r + 1) come after the barrier ending round r.
template <int BLOCK, class Op>
__device__ __forceinline__ void at_block_gather_run(const AtExpand& x, const AtBlockList& l, int round) {
    const int n = l.cnt[round & 1];
    if (threadIdx.x == 0) l.cnt[(round + 1) & 1] = 0;
    for (int i = 0; i < n; ++i) {
        const vid_t u = l.u[i];
        const eid_t beg = l.beg[i], end = l.end[i];
        for (eid_t base = beg; base < end; base += 2 * BLOCK) {  // block-uniform trip count
            const eid_t e0 = base + (int)threadIdx.x, e1 = e0 + BLOCK;
            at_visit2<Op>(x, e0 < end, e0, u, e1 < end, e1, u);
        }
    }
}

// ---- two-level block scan (warp shuffle scan + scan of the warp totals) and its search ----------
// T: int for counts bounded by int (heavy.cu's stripes), eid_t for sums of degrees.
// Phase 1 (before a __syncthreads): warp-inclusive scan of d; writes the warp-local exclusive prefix
// to s_lprefix[threadIdx.x] and the warp total to s_wsum[warp]. Every thread calls it.
template <int BLOCK, typename T>
__device__ __forceinline__ void at_block_scan_store(T d, T* s_lprefix, T* s_wsum) {
    const int lane = (int)at_lane_id();
    T incl = at_warp_inclusive_scan(d);
    s_lprefix[threadIdx.x] = incl - d;
    if (lane == 31) s_wsum[threadIdx.x >> 5] = incl;
}

// Phase 2 (after the __syncthreads), warp-collective, every warp redundantly: lane w < BLOCK/32
// gets the exclusive offset of warp w (the type's maximum for the other lanes); returns the block total.
template <int BLOCK, typename T>
__device__ __forceinline__ T at_block_scan_offsets(const T* s_wsum, T& woff) {
    constexpr int WARPS = BLOCK / 32;
    const int lane = (int)at_lane_id();
    const T w = lane < WARPS ? s_wsum[lane] : (T)0;
    T incl = w;
#pragma unroll
    for (int o = 1; o < WARPS; o <<= 1) {
        const T t = __shfl_up_sync(AT_FULL_MASK, incl, o);
        if (lane >= o) incl += t;
    }
    woff = lane < WARPS ? incl - w : at_type_max<T>();
    return __shfl_sync(AT_FULL_MASK, incl, WARPS - 1);
}

// Warp-collective (every lane, any key): the entry i of the block (0 <= i < BLOCK) with the last
// exclusive prefix <= key, for 0 <= key < total, and key's offset inside that entry. Uniform
// binary search (Algorithm 1 of Busato & Bombieri): over the warp offsets with __shfl_sync, then over
// the 32 warp-local prefixes in shared memory; branch-free, log2(BLOCK) steps. Entries of zero
// size share their prefix with the next entry and are never returned.
template <int BLOCK, typename T>
__device__ __forceinline__ int at_block_search(T key, T woff, const T* s_lprefix, T& rem) {
    constexpr int WARPS = BLOCK / 32;
    int w = 0;
#pragma unroll
    for (int step = WARPS / 2; step >= 1; step >>= 1) {
        const T o = __shfl_sync(AT_FULL_MASK, woff, w + step);
        if (key >= o) w += step;
    }
    const T lkey = key - __shfl_sync(AT_FULL_MASK, woff, w);
    const T* lp = s_lprefix + w * 32;
    int j = 0;
#pragma unroll
    for (int step = 16; step >= 1; step >>= 1)
        if (lp[j + step] <= lkey) j += step;
    rem = lkey - lp[j];
    return w * 32 + j;
}

// The block-uniform rounds of a push kernel over the frontier entries [0, fsize): each call
// round_fn(start, limit, round) covers BLOCK consecutive entries from `start`. With dynamic
// workload distribution (aux->work_chunk > 0; Hong et al., PPoPP'11, section 3.3) blocks fetch
// chunks of work_chunk entries (rounded up to a multiple of BLOCK) with one atomicAdd on *work_ctr
// (thread 0, broadcast through *s_fetch); otherwise a static split takes rounds blockIdx.x,
// blockIdx.x + gridDim.x, ...
template <int BLOCK, typename RoundFn>
__device__ __forceinline__ void at_block_rounds(int fsize, const BFSAux* aux, int* s_fetch, RoundFn&& round_fn) {
    int round = 0;
    if (aux->work_chunk > 0 && aux->work_ctr != nullptr) {
        const int chunk = (aux->work_chunk + BLOCK - 1) / BLOCK * BLOCK;
        while (true) {
            if (threadIdx.x == 0) *s_fetch = atomicAdd(aux->work_ctr, chunk);
            __syncthreads();
            const int start = *s_fetch;
            __syncthreads();  // everyone has read s_fetch before thread 0 rewrites it
            if (start >= fsize) break;
            const int stop = min(start + chunk, fsize);
            for (int r = start; r < stop; r += BLOCK) round_fn(r, stop, round++);
        }
    } else {
        for (int r = (int)blockIdx.x * BLOCK; r < fsize; r += (int)gridDim.x * BLOCK) round_fn(r, fsize, round++);
    }
}

// End of a push kernel: it closes the level itself (push_finishes), or heavy_vertices does and
// reads the virtual warp size `vw` back from the trace.
__device__ __forceinline__ void at_push_finish(BFSState* st, const BFSParams* prm, const BFSAux* aux, int L,
                                               int fsize, eid_t degsum, int vw, int* level_sizes, int* level_info,
                                               u64* level_time) {
    if (aux->push_finishes) {
        at_multi_block_finish(st, prm, aux, L, fsize, degsum, AT_PATH_PUSH, vw, level_sizes, level_info, level_time);
    } else if (blockIdx.x == 0 && threadIdx.x == 0) {
        level_info[L] = AT_PATH_PUSH | (vw << 8);
    }
}
