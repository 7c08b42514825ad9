// scan_mapped.cu -- scan-based mapping (load_balance = "scan_mapped"), one multi-block push level per
// launch, with the support strategies.
//
// Technique: Busato & Bombieri, "Efficient load balancing techniques for graph traversal
// applications on GPUs", section 3.2 (scan-based mapping with warp-level prefix-sum, loops
// reorganized for ILP) and section 3.4 (warp-based gathering, block-based gathering, supplementary
// queues; supports.cuh), i.e. the CTA+Warp+Scan scheme of Merrill et al. as described in Busato &
// Bombieri, "Graph algorithms on GPUs" (section 5.2.2), with its strip-mined gathering replaced
// by the binary prefix-sum gatherings of section 3.4.
//
// A block takes BLOCK frontier entries per round (one per thread, coalesced, with their row
// offsets; rounds are block-uniform: static grid-stride, or fetched work_chunk entries at a time
// (rounded up to a multiple of BLOCK) from *work_ctr when work_chunk > 0). Each vertex is
// classified: supplementary-queue vertices go to heavy_vertices (heavy.cu), block-gathering ones to
// the block's shared list, warp-gathering ones are expanded by their warp, the rest ("normal") are
// scanned: the exclusive prefix-sum of their out-degrees is a warp-shuffle scan per warp (warp-local
// prefixes to shared memory) plus a scan of the warp totals that every warp recomputes from shared
// memory into registers (lane w = offset of warp w), so one __syncthreads suffices. The block then
// walks the round's normal edges [0, total) in strips of 2 * BLOCK (two edges per thread, both
// located and their column indices loaded before the claims: ILP). Each thread finds the vertex of
// its edge by a uniform binary search (Algorithm 1 of the paper): over the warp offsets with
// __shfl_sync, then over the owning warp's 32 prefixes in shared memory (log2(BLOCK) branch-free
// steps, no scatter pass and no second barrier). Every edge of the round is visited exactly once.
#include "supports.cuh"

// Entries of the block's append stage (at_stage_append, 8 bytes each), within the 48 KB of static shared
// memory beside the round's arrays (int64 offsets double those; then blocks of 512 and 1,024 threads get
// fewer than 32 per warp: none, AT_STAGE_PER_WARP, they append directly).
#ifdef AT_EID64
#define SM_APPEND_STAGE 256
#else
#define SM_APPEND_STAGE AT_STAGE_BLOCK_ENTRIES
#endif

template <int BLOCK, class Op>
__global__ void __launch_bounds__(BLOCK) scan_mapped_push(AT_LEVEL_ARGS) {
    constexpr int WARPS = BLOCK / 32;
    __shared__ eid_t s_lprefix[BLOCK + 1];  // warp-local exclusive prefix of normal degrees (+1: search pad)
    __shared__ vid_t s_u[BLOCK];
    __shared__ eid_t s_beg[BLOCK];
    __shared__ eid_t s_wsum[WARPS];
    __shared__ vid_t s_bg_u[BLOCK];
    __shared__ eid_t s_bg_beg[BLOCK], s_bg_end[BLOCK];
    __shared__ int s_bg_cnt[2];
    __shared__ int s_fetch;

    int L, fsize;
    eid_t degsum;
    if (at_block_path(st, prm, L, fsize, degsum) != AT_PATH_PUSH) return;
    at_hash_init(aux);
    const vid_t* frontier_in = (L & 1) ? f1 : f0;
    __shared__ vid_t s_stage_v[SM_APPEND_STAGE];
    __shared__ int s_stage_d[SM_APPEND_STAGE];
    AtStage stage = at_stage_slice(s_stage_v, s_stage_d, AT_STAGE_PER_WARP(BLOCK, SM_APPEND_STAGE));
    const AtExpand x{row_offsets, column_indices, op, aux, at_frontier_out(L, f0, f1, p0, p1, r0, r1, st, prm, aux),
                     L, &stage};
    const AtSupports sup = at_supports(aux, false);
    const bool bg_on = sup.bg != AT_OFF;
    const AtBlockList bl{s_bg_u, s_bg_beg, s_bg_end, s_bg_cnt};
    if (threadIdx.x < 2) s_bg_cnt[threadIdx.x] = 0;
    __syncthreads();

    // One round: entries [start, min(start + BLOCK, limit)). Block-uniform.
    auto round_fn = [&](int start, int limit, int round) {
        const int idx = start + (int)threadIdx.x;
        vid_t u = -1;
        eid_t beg = 0, end = 0;
        if (idx < limit) {
            u = frontier_in[idx];
            beg = __ldg(row_offsets + u);
            end = __ldg(row_offsets + u + 1);
        }
        int cls = at_classify((int)(end - beg), sup);
        if (__ballot_sync(AT_FULL_MASK, cls == AT_CLS_SQ)) {
            const bool is_sq = cls == AT_CLS_SQ;
            const bool queued = at_heavy_push(is_sq, is_sq ? at_sq_segment((int)(end - beg), aux) : 0, u, aux);
            if (is_sq && !queued) cls = AT_CLS_WARP;  // segment full: the warp expands it
        }
        if (bg_on) at_block_gather_push(cls == AT_CLS_BLOCK, u, beg, end, bl, round);
        const eid_t d = cls == AT_CLS_NORMAL ? end - beg : 0;
        at_block_scan_store<BLOCK>(d, s_lprefix, s_wsum);
        s_u[threadIdx.x] = u;
        s_beg[threadIdx.x] = beg;
        __syncthreads();
        // block gathering first: the whole block, one listed vertex after the other
        if (bg_on) at_block_gather_run<BLOCK, Op>(x, bl, round);
        // scanned normal edges, two strips of BLOCK per iteration
        eid_t woff;
        const eid_t total = at_block_scan_offsets<BLOCK>(s_wsum, woff);
        for (eid_t s = 0; s < total; s += 2 * BLOCK) {  // block-uniform trip count
            const eid_t e0 = s + (int)threadIdx.x, e1 = e0 + BLOCK;
            eid_t rem0, rem1;
            const int i0 = at_block_search<BLOCK>(e0, woff, s_lprefix, rem0);
            const int i1 = at_block_search<BLOCK>(e1, woff, s_lprefix, rem1);
            at_visit2<Op>(x, e0 < total, s_beg[i0] + rem0, s_u[i0], e1 < total, s_beg[i1] + rem1, s_u[i1]);
        }
        // warp gathering (registers of this warp only)
        at_warp_gather<Op>(x, cls == AT_CLS_WARP, u, beg, end);
        __syncthreads();  // shared arrays and the gathering list are rewritten by the next round
    };

    at_block_rounds<BLOCK>(fsize, aux, &s_fetch, round_fn);
    at_stage_flush<false>(stage, row_offsets, x.out);
    at_push_finish(st, prm, aux, L, fsize, degsum, 0, level_sizes, level_info, level_time);
}
