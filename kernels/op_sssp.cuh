// op_sssp.cuh -- the SSSP operator: relax the weighted edge, push the improved vertex.
//
// Busato & Bombieri, "Graph Algorithms on GPUs", section 3.2 (H-BF, frontier-based Bellman-Ford):
// the frontier holds exactly the vertices whose tentative distance improved, and every advance
// technique applies this relax to the frontier's edges. Distance and predecessor are updated
// together by ONE 64-bit atomicMin on (distance bits << 32 | predecessor) (H-BF's 64-bit atomics),
// so the stored predecessor always belongs to the stored distance; a vertex enters the next frontier
// at most once per iteration (the atomicExch on near_stamp is H-BF's duplicate removal).
//
// Distances are 32-bit: unsigned integers for integer weights (the engine checks that no path sum
// can reach 2^32 - 1), or float32 bits for float weights (positive floats order like their bit
// patterns, so one unsigned compare serves both). All ones = unreached.
//
// Bucketed methods (method != AT_SSSP_BELLMAN_FORD; the bucket moves are sssp.cu's kernels):
//  * near_far (Davidson et al.'s Near-Far Pile, "Graph Algorithms on GPUs" section 3.1): a relaxed
//    vertex below sst->threshold joins the next (near) frontier, otherwise the far pile;
//  * delta_stepping (Meyer & Sanders, ibid. section 3.1): the same two piles, and light edges
//    (w <= delta) are relaxed while the bucket runs, heavy edges (w > delta) once, from every vertex
//    the bucket settled (the R list), at the level sst->heavy_level.
#pragma once

// Warp-aggregated append of v to a pile: the lanes that reach it together share one atomicAdd.
__device__ __forceinline__ void at_pile_append(int* count, vid_t* pile, int capacity, vid_t v) {
    const unsigned m = __activemask();
    const int leader = __ffs(m) - 1;
    int base = 0;
    if ((int)at_lane_id() == leader) base = atomicAdd(count, __popc(m));
    base = __shfl_sync(m, base, leader);
    const int pos = base + __popc(m & at_lanemask_lt());
    if (pos < capacity) pile[pos] = v;
}

struct SSSPOp {
    __device__ __forceinline__ static unsigned weight(const OpArgs* __restrict__ op, eid_t e) {
        if (op->weights != nullptr) return __ldg(op->weights + e);
        return op->weight_float ? 0x3f800000u : 1u;  // unit weights: 1.0f or 1
    }

    __device__ __forceinline__ static unsigned add(const OpArgs* __restrict__ op, unsigned d, unsigned w) {
        return op->weight_float ? __float_as_uint(__uint_as_float(d) + __uint_as_float(w)) : d + w;
    }

    __device__ __forceinline__ static unsigned distance(const OpArgs* __restrict__ op, vid_t v) {
        return (unsigned)(*((const volatile u64*)op->dist_pred + v) >> 32);
    }

    // delta_stepping's R list: vertices of the current bucket whose heavy edges are still to relax.
    __device__ __noinline__ static void r_append(const OpArgs* __restrict__ op, vid_t v) {
        SSSPState* s = op->sst;
        const int ep = *(volatile int*)&s->r_epoch;
        if (atomicExch(op->r_stamp + v, ep) == ep) return;
        at_pile_append(&s->r_count, op->r_list, op->capacity, v);
    }

    __device__ __noinline__ static void far_append(const OpArgs* __restrict__ op, vid_t v) {
        SSSPState* s = op->sst;
        const int ep = *(volatile int*)&s->epoch;
        if (atomicExch(op->far_stamp + v, ep) == ep) return;  // already in the far pile
        const int cur = *(volatile int*)&s->far_cur;
        at_pile_append(&s->far_count[cur], op->far[cur], op->capacity, v);
    }

    // v joins frontier L + 1 unless it is there already (H-BF duplicate removal).
    __device__ __forceinline__ static bool push_near(const OpArgs* __restrict__ op, vid_t v, int L) {
        if (atomicExch(op->near_stamp + v, L + 1) == L + 1) return false;
        if (op->method == AT_SSSP_DELTA_STEPPING) r_append(op, v);
        return true;
    }

    // Lower v's distance to nd = du + w through u (one 64-bit atomicMin). True when v's distance
    // dropped (a tie only may change its parent, and is not an improvement).
    __device__ __forceinline__ static bool lower(const OpArgs* __restrict__ op, vid_t u, unsigned du, vid_t v,
                                                 unsigned w, unsigned& nd) {
        nd = add(op, du, w);
        const u64 key = ((u64)nd << 32) | (u64)(unsigned)u;
        if (key >= *((const volatile u64*)op->dist_pred + v)) return false;  // saves the atomic
        const u64 old = atomicMin(op->dist_pred + v, key);
        return (unsigned)(old >> 32) > nd;
    }

    // Relax (u, v) of weight bits w. True when v joins the next frontier.
    __device__ __forceinline__ static bool relax(const OpArgs* __restrict__ op, vid_t u, vid_t v, unsigned w, int L) {
        unsigned nd;
        if (!lower(op, u, distance(op, u), v, w, nd)) return false;
        if (op->method == AT_SSSP_BELLMAN_FORD || nd < *(const volatile unsigned*)&op->sst->threshold)
            return push_near(op, v, L);
        far_append(op, v);
        return false;
    }

    __device__ __forceinline__ static bool visit(const OpArgs* __restrict__ op, const BFSAux* __restrict__ /*aux*/,
                                                 vid_t u, vid_t v, eid_t e, int L) {
        const unsigned w = weight(op, e);
        if (op->method == AT_SSSP_DELTA_STEPPING) {  // light edges in the bucket, heavy ones at its end
            const bool heavy_edge = w > op->delta;
            const bool heavy_level = L == *(const volatile int*)&op->sst->heavy_level;
            if (heavy_edge != heavy_level) return false;
        }
        return relax(op, u, v, w, L);
    }

    struct Ctx {
        const OpArgs* op;
    };
    __device__ __forceinline__ static Ctx context(const OpArgs* __restrict__ op) { return Ctx{op}; }

    __device__ __forceinline__ static bool visit_direct(const Ctx& c, vid_t u, vid_t v, eid_t e, int L) {
        return visit(c.op, nullptr, u, v, e, L);
    }
    // Dense levels of the single-block driver: the same (visit() loads the distance first already).
    __device__ __forceinline__ static bool visit_dense(const Ctx& c, vid_t u, vid_t v, eid_t e, int L) {
        return visit_direct(c, u, v, e, L);
    }

    // In-place expansion (the persistent driver's inline_degree; Bellman-Ford only). Relaxation in
    // any order converges to the same distances (label-correcting: every vertex whose distance
    // drops has its out-edges relaxed afterwards from a distance at most as large), so the thread
    // that lowers v may relax v's out-edges itself, in the same iteration, instead of sending v to
    // the next frontier. The driver calls improve() for the frontier's edges; for an improved v it
    // either expands v at once (relax_from() on v's edges with the distance v got) or enters v in
    // the next frontier (enter()). A later, shorter distance of v is handled by whoever sets it.
    static constexpr bool kInlineExpand = true;
    using Carry = unsigned;  // the distance bits v was lowered to

    __device__ __forceinline__ static bool improve(const Ctx& c, vid_t u, vid_t v, eid_t e, unsigned& nd) {
        return lower(c.op, u, distance(c.op, u), v, weight(c.op, e), nd);
    }

    __device__ __forceinline__ static bool enter(const Ctx& c, vid_t v, int L) { return push_near(c.op, v, L); }

    // Relax (u, x) from u's distance du; true when x joins the next frontier.
    __device__ __forceinline__ static bool relax_from(const Ctx& c, vid_t u, unsigned du, vid_t x, eid_t e, int L) {
        unsigned nd;
        if (!lower(c.op, u, du, x, weight(c.op, e), nd)) return false;
        return push_near(c.op, x, L);
    }

    // u was appended to frontier L (if it has since been appended to L + 1 too, its remaining edges
    // of level L may be skipped: level L + 1 relaxes them all from a shorter distance).
    __device__ __forceinline__ static bool in_frontier(const OpArgs* __restrict__ op, vid_t u, int L) {
        return op->near_stamp[u] == L;
    }

    // One thread, before level 0 (dist_pred filled with all ones, stamps with -1 by the engine).
    __device__ __forceinline__ static void init_source(const OpArgs* __restrict__ op, vid_t source) {
        op->dist_pred[source] = (u64)(unsigned)source;  // distance 0, parent = itself
        op->near_stamp[source] = 0;
        SSSPState* s = op->sst;
        if (s == nullptr) return;
        s->threshold = op->method == AT_SSSP_BELLMAN_FORD ? 0xffffffffu : op->delta;
        s->far_min = 0xffffffffu;
        s->far_count[0] = s->far_count[1] = 0;
        s->far_cur = 0;
        s->epoch = 0;
        s->r_count = 0;
        s->r_epoch = 0;
        s->heavy_level = -1;
        s->done_blocks = 0u;
        s->split = 0;
        s->next_threshold = 0u;
        s->action = 0;
        if (op->method == AT_SSSP_DELTA_STEPPING) {
            op->r_stamp[source] = 0;
            op->r_list[0] = source;
            s->r_count = 1;
        }
    }

    // Not exact here: a vertex appended by u may be improved again by another vertex x in the same
    // iteration (one frontier entry), and then its edge back to u can shorten u's path.
    static constexpr bool kPruneReturnLeaf = false;

    // A relaxation is not final (a later, shorter path lowers it again): no whole_graph.cu driver.
    static constexpr bool kClaimOnce = false;
};
