// vertex_expand.cuh -- the vertex-based expansion with warp shuffle of the `vertex_mapped` kernels.
//
// Busato & Bombieri, "Efficient load balancing techniques for graph traversal applications on
// GPUs", section 3.1; virtual warps of Hong et al., "Accelerating CUDA Graph Algorithms at Maximum
// Warp" (PPoPP'11, section 3.1). A warp loads 32 frontier vertices with one coalesced access (one per
// lane) together with their row_offsets; a virtual warp of VW lanes then processes VW of those
// vertices one after the other, receiving each vertex id and edge range from its owner lane through
// __shfl_sync instead of VW separate (non-coalesced) loads. Edge loops run a warp-uniform trip count
// (warp max of the per-group counts, __reduce_max_sync) so the warp stays converged and the next
// frontier is appended with one warp-aggregated atomic per iteration.
//
// vertex_mapped_push uses vm_warp_step / vm_normal below: warp-shuffle loading and virtual warps, plus the support
// strategies of supports.cuh (Busato & Bombieri section 3.4; deferring outliers of Hong et al.
// section 3.2), a runtime virtual-warp size for the dynamic case (one instantiation instead of six),
// and slots without edges skipped.
#pragma once
#include "traversal.cuh"

// ---------------------------------------------------------------------------------------------------
// vertex_mapped_push building blocks (with the support strategies of supports.cuh).
// ---------------------------------------------------------------------------------------------------
#include "supports.cuh"

// Warp-collective normal mapping of the warp's 32 loaded vertices (lane i holds vertex i's u and
// edge range [beg, end); lanes whose vertex is handled elsewhere pass beg == end). Virtual warps of
// vw lanes (VW > 0: compile-time; VW == 0: runtime `vw_rt`, a power of two): group g owns lanes
// [g*vw, (g+1)*vw) and processes their vertices one after the other, each vertex id and range
// broadcast from its owner lane by __shfl_sync. Slots i whose vertex has no edges in every group are
// skipped (the set of live slots is folded from one ballot), so zero-degree and gathered vertices
// cost nothing. The edge loop runs the warp max of the groups' trip counts: the warp stays converged.
template <int VW, class Op>
__device__ __forceinline__ void vm_normal(const AtExpand& x, int vw_rt, vid_t u, eid_t beg, eid_t end) {
    const int vw = VW > 0 ? VW : vw_rt;
    const int lg = __ffs(vw) - 1;
    const int lane = (int)at_lane_id();
    const int group_base = (lane >> lg) << lg;
    const int g_lane = lane & (vw - 1);
    unsigned slots = __ballot_sync(AT_FULL_MASK, end > beg);
#pragma unroll
    for (int s = 16; s >= 1; s >>= 1)
        if (s >= vw) slots |= slots >> s;
    if (vw < 32) slots &= (1u << (vw & 31)) - 1u;
    while (slots) {
        const int i = __ffs(slots) - 1;
        slots &= slots - 1u;
        const int src = group_base + i;
        const vid_t su = __shfl_sync(AT_FULL_MASK, u, src);
        const eid_t sb = __shfl_sync(AT_FULL_MASK, beg, src);
        const eid_t se = __shfl_sync(AT_FULL_MASK, end, src);
        const unsigned my_iters = (unsigned)(se - sb + vw - 1) >> lg;
        const unsigned iters = __reduce_max_sync(AT_FULL_MASK, my_iters);
        for (unsigned k = 0; k < iters; ++k) {
            const eid_t e = sb + ((eid_t)k << lg) + g_lane;
            at_visit<Op>(x, e < se, e, su);
        }
    }
}

// Warp-collective: the warp loads frontier entries [base, base + 32) clipped to `limit` (one
// coalesced access, one per lane, with their row offsets), classifies them, queues the heavy ones
// (supplementary queues, deferred outliers), offers the block-gathering ones to the block's shared
// list (only when bg_on; the caller runs that list), then expands the warp-gathering vertices and,
// with virtual warps, the normal ones. A heavy vertex that does not fit its segment falls back to
// warp gathering.
template <int VW, class Op>
__device__ __forceinline__ void vm_warp_step(const AtExpand& x, const AtSupports& sup, int vw_rt,
                                             const vid_t* __restrict__ frontier_in, int base, int limit,
                                             bool bg_on, const AtBlockList& bl, int round) {
    const int idx = base + (int)at_lane_id();
    vid_t u = -1;
    eid_t beg = 0, end = 0;
    if (idx < limit) {
        u = frontier_in[idx];
        beg = __ldg(x.row_offsets + u);
        end = __ldg(x.row_offsets + u + 1);
    }
    int cls = at_classify((int)(end - beg), sup);
    const bool is_sq = cls == AT_CLS_SQ;
    const int seg = is_sq ? at_sq_segment((int)(end - beg), x.aux) : 0;
    if (__ballot_sync(AT_FULL_MASK, cls >= AT_CLS_DEFER)) {
        const bool queued = at_heavy_push(cls >= AT_CLS_DEFER, seg, u, x.aux);
        if (cls >= AT_CLS_DEFER && !queued) cls = AT_CLS_WARP;
    }
    if (bg_on) at_block_gather_push(cls == AT_CLS_BLOCK, u, beg, end, bl, round);
    at_warp_gather<Op>(x, cls == AT_CLS_WARP, u, beg, end);
    if (cls != AT_CLS_NORMAL) end = beg;
    vm_normal<VW, Op>(x, vw_rt, u, beg, end);
}
