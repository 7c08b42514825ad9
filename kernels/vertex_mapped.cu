// vertex_mapped.cu -- vertex-based mapping with warp shuffle (load_balance = "vertex_mapped").
//
// Technique: Busato & Bombieri, "Efficient load balancing techniques for graph traversal
// applications on GPUs", section 3.1 (vertex-based mapping with warp shuffle), on top of the
// virtual warps of Hong et al., "Accelerating CUDA Graph Algorithms at Maximum Warp" (PPoPP'11,
// section 3.1) and the dynamic virtual warps of Busato & Bombieri, "BFS-4K" (section 5.2).
//
// A warp loads 32 frontier vertices with one coalesced access (one per lane) together with their
// row_offsets; a virtual warp of VW lanes then processes VW of those vertices one after the other,
// receiving each vertex id and edge range from its owner lane through __shfl_sync instead of
// VW separate (non-coalesced) loads. Edge loops run a warp-uniform trip count (warp max of the
// per-group counts, __reduce_max_sync) so the warp stays converged and the next frontier can be
// appended with one warp-aggregated atomic per iteration.
//
// `vertex_mapped_dynamic` chooses VW per level *on the device* (BFS-4K section 5.2):
//   VW = nearest_pow2(resident_threads / frontier_size) clamped to [min_vw, 32]
// so no host round trip is needed to pick it.
#include "bfs_common.cuh"

template <int VW>
__device__ __forceinline__ void vm_expand(const int* __restrict__ row_offsets, const vid_t* __restrict__ column_indices,
                                          int* distances, int* predecessors, const vid_t* __restrict__ frontier_in,
                                          int fsize, vid_t* frontier_out, u64* next_ctr, int next_level) {
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
                int deg = 0;
                if (e < se) {
                    v = column_indices[e];
                    claim = at_try_claim(distances, v, next_level);
                    if (claim) {
                        predecessors[v] = su;
                        deg = row_offsets[v + 1] - row_offsets[v];
                    }
                }
                at_warp_append<false>(claim, v, deg, 0, next_ctr, frontier_out, nullptr, nullptr);
            }
        }
    }
}

template <int BLOCK, int VW>
__global__ void __launch_bounds__(BLOCK) vertex_mapped_level(const int* __restrict__ row_offsets, const vid_t* __restrict__ column_indices,
                                    int* distances, int* predecessors, const vid_t* __restrict__ frontier_in,
                                    vid_t* frontier_out, u64* ctr, int level, int* level_sizes) {
    const int fsize = at_count(*((volatile u64*)ctr + (level % 3)));
    at_level_bookkeeping(ctr, level, fsize, level_sizes);
    if (fsize == 0) return;
    vm_expand<VW>(row_offsets, column_indices, distances, predecessors, frontier_in, fsize, frontier_out,
                  ctr + ((level + 1) % 3), level + 1);
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) vertex_mapped_dynamic(const int* __restrict__ row_offsets,
                                                 const vid_t* __restrict__ column_indices, int* distances,
                                                 int* predecessors, const vid_t* __restrict__ frontier_in,
                                                 vid_t* frontier_out, u64* ctr, int level, int* level_sizes,
                                                 int min_vw, int* vw_trace) {
    const int fsize = at_count(*((volatile u64*)ctr + (level % 3)));
    at_level_bookkeeping(ctr, level, fsize, level_sizes);
    if (fsize == 0) return;
    // BFS-4K 5.2: lower nearest power of two of resident_threads / |F|, clamped to [K1, 32].
    const int resident = (int)(gridDim.x * blockDim.x);
    const int ratio = resident / fsize;
    int vw = ratio >= 32 ? 32 : (ratio <= 1 ? 1 : (1 << (31 - __clz(ratio))));
    if (vw < min_vw) vw = min_vw;
    if (blockIdx.x == 0 && threadIdx.x == 0 && vw_trace != nullptr) vw_trace[level] = vw;
    u64* next = ctr + ((level + 1) % 3);
    switch (vw) {
        case 1: vm_expand<1>(row_offsets, column_indices, distances, predecessors, frontier_in, fsize, frontier_out, next, level + 1); break;
        case 2: vm_expand<2>(row_offsets, column_indices, distances, predecessors, frontier_in, fsize, frontier_out, next, level + 1); break;
        case 4: vm_expand<4>(row_offsets, column_indices, distances, predecessors, frontier_in, fsize, frontier_out, next, level + 1); break;
        case 8: vm_expand<8>(row_offsets, column_indices, distances, predecessors, frontier_in, fsize, frontier_out, next, level + 1); break;
        case 16: vm_expand<16>(row_offsets, column_indices, distances, predecessors, frontier_in, fsize, frontier_out, next, level + 1); break;
        default: vm_expand<32>(row_offsets, column_indices, distances, predecessors, frontier_in, fsize, frontier_out, next, level + 1); break;
    }
}
