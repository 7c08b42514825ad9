// vertex_mapped.cu -- vertex-based mapping with warp shuffle (load_balance = "vertex_mapped"),
// one multi-block push level per launch.
//
// Technique: Busato & Bombieri, "Efficient load balancing techniques for graph traversal
// applications on GPUs", section 3.1, on the virtual warps of Hong et al., "Accelerating CUDA Graph
// Algorithms at Maximum Warp" (PPoPP'11, section 3.1); see vertex_expand.cuh. VW == 0 selects the
// dynamic virtual warps of Busato & Bombieri, "BFS-4K" (section 5.2), chosen per level on the device:
//   VW = nearest_pow2(resident_threads / frontier_size) clamped to [min_vw, 32].
#include "vertex_expand.cuh"

template <int BLOCK, int VW>
__global__ void __launch_bounds__(BLOCK) vertex_mapped_push(AT_LEVEL_ARGS) {
    int L, fsize, degsum;
    if (at_choose_path(st, prm, L, fsize, degsum) != AT_PATH_PUSH) return;
    const vid_t* frontier_in = (L & 1) ? f1 : f0;
    const FrontierOut out = at_frontier_out(L, f0, f1, p0, p1, r0, r1, st, prm);
    int vw = VW;
    if constexpr (VW == 0) {
        vw = at_dynamic_vw((int)(gridDim.x * blockDim.x), fsize, prm->min_vw);
        vm_expand_dynamic<false>(vw, row_offsets, column_indices, distances, predecessors, frontier_in, fsize, out,
                                 L + 1);
    } else {
        vm_expand<VW, false>(row_offsets, column_indices, distances, predecessors, frontier_in, fsize, out, L + 1);
    }
    at_multi_block_finish(st, L, fsize, degsum, AT_PATH_PUSH, vw, level_sizes, level_info, level_time);
}
