// single_block.cu -- device-resident levels for small frontiers (small_frontier = "single_block").
//
// Busato & Bombieri, "BFS-4K: an Efficient Implementation of BFS for Kepler GPU Architectures",
// section 5.5 (single-block vs. multi-block kernel, FrontierLimit): in the first and last levels of a
// BFS, and in every level of a high-diameter graph (roads, meshes), the frontier is too small to
// feed the whole GPU, and a launch plus a host round trip per level costs more than the level.
// This kernel is launched with ONE block of 1024 threads and iterates levels on the device, with
// __syncthreads between levels, for as long as the frontier holds at most `sb_limit` vertices and
// `sb_edge_limit` edges; it then returns and the multi-block push/pull kernels take over (the
// hand-over is decided by at_choose_path from the device state, so no host copy is involved).
// Each level uses dynamic virtual warps sized for one block: nearest_pow2(1024 / |F|) in [1, 32]
// (BFS-4K section 5.2 with #ResThreads = block size).
#include "vertex_expand.cuh"

#define AT_SB_THREADS 1024

template <bool WITH_PREFIX>
__global__ void __launch_bounds__(AT_SB_THREADS) single_block_levels(AT_LEVEL_ARGS) {
    __shared__ int s_path, s_L, s_fsize, s_degsum;
    while (true) {
        if (threadIdx.x == 0) {
            int L, fsize, degsum;
            s_path = at_choose_path(st, prm, L, fsize, degsum);
            s_L = L;
            s_fsize = fsize;
            s_degsum = degsum;
        }
        __syncthreads();
        const int path = s_path, L = s_L, fsize = s_fsize, degsum = s_degsum;
        if (path != AT_PATH_SINGLE_BLOCK) return;
        const vid_t* frontier_in = (L & 1) ? f1 : f0;
        const FrontierOut out = at_frontier_out(L, f0, f1, p0, p1, r0, r1, st, prm);
        const int vw = at_dynamic_vw(AT_SB_THREADS, fsize, 1);
        vm_expand_dynamic<WITH_PREFIX>(vw, row_offsets, column_indices, distances, predecessors, frontier_in, fsize,
                                       out, L + 1);
        __threadfence_block();
        __syncthreads();
        if (threadIdx.x == 0) at_finish_level(st, L, fsize, degsum, AT_PATH_SINGLE_BLOCK, vw, level_sizes, level_info,
                                              level_time);
        __syncthreads();
    }
}
