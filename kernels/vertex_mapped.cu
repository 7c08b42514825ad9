// vertex_mapped.cu -- vertex-based mapping with warp shuffle (load_balance = "vertex_mapped"),
// one multi-block push level per launch, with the support strategies.
//
// Technique: Busato & Bombieri, "Efficient load balancing techniques for graph traversal
// applications on GPUs", section 3.1, on the virtual warps of Hong et al., "Accelerating CUDA Graph
// Algorithms at Maximum Warp" (PPoPP'11, section 3.1); see vertex_expand.cuh. VW == 0 selects the
// dynamic virtual warps of Busato & Bombieri, "BFS-4K" (section 5.2), chosen per level on the device:
//   VW = nearest_pow2(resident_threads / frontier_size) clamped to [min_vw, 32].
// Runtime options (BFSAux; supports.cuh):
//   * support strategies of Busato & Bombieri section 3.4 (thresholds per Table 2): warp-based
//     gathering (wg_degree), block-based gathering (bg_degree), supplementary queues (sq_degree);
//   * deferring outliers (Hong et al. section 3.2, defer_degree): queued to heavy segment 0 and
//     expanded by heavy_vertices (heavy.cu), which then closes the level (push_finishes == 0);
//   * dynamic workload distribution (Hong et al. section 3.2, work_chunk > 0): instead of the static
//     grid-stride split, each warp fetches work_chunk frontier entries (rounded up to a multiple of
//     32) at a time with one atomicAdd on *work_ctr (lane 0, broadcast by shuffle). Block gathering
//     needs block-uniform rounds (its list is run after a __syncthreads), so with block gathering on
//     the fetch is per block (thread 0, broadcast through shared memory) and the chunk is rounded up
//     to a multiple of BLOCK. work_ctr is zeroed when the level closes.
// Rounds: a block round covers BLOCK consecutive frontier entries, warp w taking 32 of them at
// round_start + 32 w; the static split takes rounds blockIdx.x, blockIdx.x + gridDim.x, ... (the
// same assignment as a warp grid-stride loop).
#include "vertex_expand.cuh"

template <int BLOCK, int VW, class Op>
__global__ void __launch_bounds__(BLOCK) vertex_mapped_push(AT_LEVEL_ARGS) {
    __shared__ vid_t s_bg_u[BLOCK];
    __shared__ eid_t s_bg_beg[BLOCK], s_bg_end[BLOCK];
    __shared__ int s_bg_cnt[2];
    __shared__ int s_fetch;

    int L, fsize;
    eid_t degsum;
    if (at_block_path(st, prm, L, fsize, degsum) != AT_PATH_PUSH) return;
    at_hash_init(aux);
    const vid_t* frontier_in = (L & 1) ? f1 : f0;
    __shared__ vid_t s_stage_v[AT_STAGE_BLOCK_ENTRIES];
    __shared__ int s_stage_d[AT_STAGE_BLOCK_ENTRIES];
    AtStage stage = at_stage_slice(s_stage_v, s_stage_d, AT_STAGE_PER_WARP(BLOCK, AT_STAGE_BLOCK_ENTRIES));
    const AtExpand x{row_offsets, column_indices, op, aux, at_frontier_out(L, f0, f1, p0, p1, r0, r1, st, prm, aux),
                     L, &stage};
    const AtSupports sup = at_supports(aux, true);
    const bool bg_on = sup.bg != AT_OFF;
    const AtBlockList bl{s_bg_u, s_bg_beg, s_bg_end, s_bg_cnt};
    int vw = VW;
    if constexpr (VW == 0) vw = at_dynamic_vw((int)(gridDim.x * blockDim.x), fsize, prm->min_vw);
    const int warp = (int)(threadIdx.x >> 5);
    const bool dynamic = aux->work_chunk > 0 && aux->work_ctr != nullptr;

    if (bg_on) {
        if (threadIdx.x < 2) s_bg_cnt[threadIdx.x] = 0;
        __syncthreads();
    }
    // One block round (block-uniform call when bg_on).
    auto round_fn = [&](int start, int limit, int round) {
        vm_warp_step<VW, Op>(x, sup, vw, frontier_in, start + warp * 32, limit, bg_on, bl, round);
        if (bg_on) {
            __syncthreads();  // every push of this round is in the list
            at_block_gather_run<BLOCK, Op>(x, bl, round);
            __syncthreads();  // the list is rewritten by the next round
        }
    };

    if (dynamic && !bg_on) {  // per-warp fetches
        const int chunk = (aux->work_chunk + 31) & ~31;
        while (true) {
            int start = 0;
            if (at_lane_id() == 0) start = atomicAdd(aux->work_ctr, chunk);
            start = __shfl_sync(AT_FULL_MASK, start, 0);
            if (start >= fsize) break;
            const int stop = min(start + chunk, fsize);
            for (int b = start; b < stop; b += 32)
                vm_warp_step<VW, Op>(x, sup, vw, frontier_in, b, stop, false, bl, 0);
        }
    } else {  // block rounds: per-block fetches (block gathering needs block-uniform rounds) or static
        at_block_rounds<BLOCK>(fsize, aux, &s_fetch, round_fn);
    }
    at_stage_flush<false>(stage, row_offsets, x.out);
    at_push_finish(st, prm, aux, L, fsize, degsum, vw, level_sizes, level_info, level_time);
}
