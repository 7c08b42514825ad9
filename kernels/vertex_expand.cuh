// vertex_expand.cuh -- the vertex-based expansion with warp shuffle, shared by the multi-block
// `vertex_mapped` kernels and the single-block multi-level kernel.
//
// Busato & Bombieri, "Efficient load balancing techniques for graph traversal applications on
// GPUs", section 3.1; virtual warps of Hong et al., "Accelerating CUDA Graph Algorithms at Maximum
// Warp" (PPoPP'11, section 3.1). A warp loads 32 frontier vertices with one coalesced access (one per
// lane) together with their row_offsets; a virtual warp of VW lanes then processes VW of those
// vertices one after the other, receiving each vertex id and edge range from its owner lane through
// __shfl_sync instead of VW separate (non-coalesced) loads. Edge loops run a warp-uniform trip count
// (warp max of the per-group counts, __reduce_max_sync) so the warp stays converged and the next
// frontier is appended with one warp-aggregated atomic per iteration. Works for any grid (the
// single-block kernel calls it with gridDim.x == 1).
#pragma once
#include "bfs_common.cuh"

template <int VW, bool WITH_PREFIX>
__device__ __forceinline__ void vm_expand(const int* __restrict__ row_offsets, const vid_t* __restrict__ column_indices,
                                          int* distances, int* predecessors, const vid_t* __restrict__ frontier_in,
                                          int fsize, const FrontierOut& out, int next_level) {
    const unsigned lane = at_lane_id();
    const int warp_global = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const int n_warps = (int)((gridDim.x * blockDim.x) >> 5);
    const int group = (int)lane / VW;
    const int g_lane = (int)lane % VW;
    for (int base = warp_global * 32; base < fsize; base += n_warps * 32) {
        const int idx = base + (int)lane;
        vid_t u = -1;
        int beg = 0, end = 0;
        if (idx < fsize) {
            u = frontier_in[idx];
            beg = row_offsets[u];
            end = row_offsets[u + 1];
        }
#pragma unroll 1
        for (int i = 0; i < VW; ++i) {
            const int src_lane = group * VW + i;
            const vid_t su = __shfl_sync(AT_FULL_MASK, u, src_lane);
            const int sb = __shfl_sync(AT_FULL_MASK, beg, src_lane);
            const int se = __shfl_sync(AT_FULL_MASK, end, src_lane);
            const unsigned my_iters = (unsigned)(se - sb + VW - 1) / VW;
            const unsigned iters = __reduce_max_sync(AT_FULL_MASK, my_iters);
            for (unsigned k = 0; k < iters; ++k) {
                const int e = sb + (int)k * VW + g_lane;
                bool claim = false;
                vid_t v = -1;
                int deg = 0, rs = 0;
                if (e < se) {
                    v = column_indices[e];
                    claim = at_try_claim(distances, v, next_level);
                    if (claim) {
                        predecessors[v] = su;
                        rs = row_offsets[v];
                        deg = row_offsets[v + 1] - rs;
                    }
                }
                at_warp_append<WITH_PREFIX>(claim, v, deg, rs, out);
            }
        }
    }
}

template <bool WITH_PREFIX>
__device__ __forceinline__ void vm_expand_dynamic(int vw, const int* __restrict__ row_offsets,
                                                  const vid_t* __restrict__ column_indices, int* distances,
                                                  int* predecessors, const vid_t* __restrict__ frontier_in, int fsize,
                                                  const FrontierOut& out, int next_level) {
    switch (vw) {
        case 1: vm_expand<1, WITH_PREFIX>(row_offsets, column_indices, distances, predecessors, frontier_in, fsize, out, next_level); break;
        case 2: vm_expand<2, WITH_PREFIX>(row_offsets, column_indices, distances, predecessors, frontier_in, fsize, out, next_level); break;
        case 4: vm_expand<4, WITH_PREFIX>(row_offsets, column_indices, distances, predecessors, frontier_in, fsize, out, next_level); break;
        case 8: vm_expand<8, WITH_PREFIX>(row_offsets, column_indices, distances, predecessors, frontier_in, fsize, out, next_level); break;
        case 16: vm_expand<16, WITH_PREFIX>(row_offsets, column_indices, distances, predecessors, frontier_in, fsize, out, next_level); break;
        default: vm_expand<32, WITH_PREFIX>(row_offsets, column_indices, distances, predecessors, frontier_in, fsize, out, next_level); break;
    }
}
