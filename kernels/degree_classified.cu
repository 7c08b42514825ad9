// degree_classified.cu -- degree-classified frontier queues (load_balance = "degree_classified"),
// one multi-block push level per launch.
//
// Technique: Liu & Huang, "Enterprise: Breadth-First Graph Traversal on GPUs" (SC'15), section 4.2
// (GPU workload balancing). While a frontier is generated, every discovered vertex is also put into
// one of four class queues by its out-degree (at_warp_append -> at_warp_append_class in
// bfs_common.cuh, warp-aggregated): Small (< aux->dc_small, paper: 32), Middle (< aux->dc_middle,
// paper: 256), Large (<= aux->dc_large, paper: 65,536) and Extreme (above). Out-degree-0 vertices
// enter no class queue (nothing to expand). At the next level each class is expanded with a
// matching parallel granularity:
//   Extreme -> the whole grid per vertex (each block takes BLOCK-edge tiles of it, grid-stride),
//   Large   -> one CTA per vertex,
//   Middle  -> one warp per vertex,
//   Small   -> one thread per vertex.
// The paper runs four kernels concurrently (Hyper-Q); here the four are phases of this one launch,
// largest granularity first, so blocks that run out of large work fill in with the fine-grained
// classes (no grid synchronization: the phases are independent work on the same level). Every
// loop has a warp-uniform trip count so each at_warp_append call sees a converged warp.
//
// Queues of frontier L: class c is aux->dc_queue[(L & 1) * 4 + c], of size
// aux->dc_ctr[(L % 3) * 4 + c] (written by the previous level's kernels, read volatile here).
// Without class queues (aux->dc_ctr == nullptr, a misconfiguration) the plain frontier queue is
// expanded thread-per-vertex, so the level stays exact.
#include "traversal.cuh"

// Inspect edge `e` of frontier vertex `u` (when `valid`) and append what the operator sends to the
// next frontier; all 32 lanes call.
template <class Op>
__device__ __forceinline__ void dc_edge(bool valid, vid_t u, eid_t e, const eid_t* __restrict__ row_offsets,
                                        const vid_t* __restrict__ column_indices, const OpArgs* __restrict__ op,
                                        const FrontierOut& out, int L, const BFSAux* __restrict__ aux) {
    bool claim = false;
    vid_t v = -1;
    int deg = 0;
    eid_t rs = 0;
    if (valid) {
        v = column_indices[e];
        claim = at_visit_edge<Op>(op, aux, row_offsets, u, v, e, L, deg, rs);
    }
    at_warp_append<false>(claim, v, deg, rs, out);
}

// Small: one thread per vertex. A warp loads 32 queue entries (coalesced), then each lane walks its
// own edges; the warp iterates max(degree) times so it stays converged.
template <class Op>
__device__ __forceinline__ void dc_thread_per_vertex(const vid_t* queue, int n, const eid_t* __restrict__ row_offsets,
                                                     const vid_t* __restrict__ column_indices,
                                                     const OpArgs* __restrict__ op, const FrontierOut& out, int L,
                                                     const BFSAux* __restrict__ aux) {
    const int lane = (int)at_lane_id();
    const long long warp_global = (long long)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const long long n_warps = (long long)((gridDim.x * blockDim.x) >> 5);
    for (long long base = warp_global * 32; base < n; base += n_warps * 32) {  // warp-uniform
        const long long idx = base + lane;
        vid_t u = -1;
        eid_t beg = 0, end = 0;
        if (idx < n) {
            u = queue[idx];
            beg = row_offsets[u];
            end = row_offsets[u + 1];
        }
        const unsigned iters = __reduce_max_sync(AT_FULL_MASK, (unsigned)(end - beg));
#pragma unroll 1
        for (unsigned k = 0; k < iters; ++k) {
            const eid_t e = beg + (eid_t)k;
            dc_edge<Op>(e < end, u, e, row_offsets, column_indices, op, out, L, aux);
        }
    }
}

template <int BLOCK, class Op>
__global__ void __launch_bounds__(BLOCK) degree_classified_push(AT_LEVEL_ARGS) {
    int L, fsize;
    eid_t degsum;
    if (at_block_path(st, prm, L, fsize, degsum) != AT_PATH_PUSH) return;  // block-uniform
    at_hash_init(aux);
    const FrontierOut out = at_frontier_out(L, f0, f1, p0, p1, r0, r1, st, prm, aux);
    const int lane = (int)at_lane_id();

    if (aux->dc_ctr == nullptr) {  // no class queues: plain frontier, one thread per vertex
        dc_thread_per_vertex<Op>((L & 1) ? f1 : f0, fsize, row_offsets, column_indices, op, out, L, aux);
    } else {
        const volatile int* cnt = aux->dc_ctr + (L % 3) * 4;
        vid_t* const* queues = aux->dc_queue + (L & 1) * 4;
        const int n_small = cnt[0], n_middle = cnt[1], n_large = cnt[2], n_extreme = cnt[3];

        // Extreme: the whole grid per vertex; block b takes tiles b, b + grid, ... of BLOCK edges.
        if (n_extreme > 0) {
            const vid_t* q = queues[3];
            for (int i = 0; i < n_extreme; ++i) {  // grid-uniform
                const vid_t u = q[i];
                const eid_t beg = row_offsets[u], end = row_offsets[u + 1];
                for (long long k = (long long)beg + (long long)blockIdx.x * BLOCK; k < end;
                     k += (long long)gridDim.x * BLOCK) {  // block-uniform
                    const long long e = k + threadIdx.x;
                    dc_edge<Op>(e < end, u, (eid_t)e, row_offsets, column_indices, op, out, L, aux);
                }
            }
        }
        // Large: one CTA per vertex.
        if (n_large > 0) {
            const vid_t* q = queues[2];
            for (int i = blockIdx.x; i < n_large; i += gridDim.x) {  // block-uniform
                const vid_t u = q[i];
                const eid_t beg = row_offsets[u], end = row_offsets[u + 1];
                for (long long k = beg; k < end; k += BLOCK) {  // block-uniform
                    const long long e = k + threadIdx.x;
                    dc_edge<Op>(e < end, u, (eid_t)e, row_offsets, column_indices, op, out, L, aux);
                }
            }
        }
        // Middle: one warp per vertex.
        if (n_middle > 0) {
            const vid_t* q = queues[1];
            const int warp_global = (int)((blockIdx.x * BLOCK + threadIdx.x) >> 5);
            const int n_warps = (int)((gridDim.x * BLOCK) >> 5);
            for (int i = warp_global; i < n_middle; i += n_warps) {  // warp-uniform
                vid_t u = 0;
                eid_t beg = 0, end = 0;
                if (lane == 0) {
                    u = q[i];
                    beg = row_offsets[u];
                    end = row_offsets[u + 1];
                }
                u = __shfl_sync(AT_FULL_MASK, u, 0);
                beg = __shfl_sync(AT_FULL_MASK, beg, 0);
                end = __shfl_sync(AT_FULL_MASK, end, 0);
                for (long long k = beg; k < end; k += 32) {  // warp-uniform
                    const long long e = k + lane;
                    dc_edge<Op>(e < end, u, (eid_t)e, row_offsets, column_indices, op, out, L, aux);
                }
            }
        }
        // Small: one thread per vertex.
        if (n_small > 0)
            dc_thread_per_vertex<Op>(queues[0], n_small, row_offsets, column_indices, op, out, L, aux);
    }
    at_multi_block_finish(st, prm, aux, L, fsize, degsum, AT_PATH_PUSH, 0, level_sizes, level_info, level_time);
}
