// binary_search.cu -- device-wide binary search over the prefix-sum of frontier degrees
// (load_balance = "binary_search", basic form), one multi-block push level per launch.
//
// Technique: Busato & Bombieri, "Efficient load balancing techniques for graph traversal
// applications on GPUs", section 3.3 (device-wide binary search with unordered prefix-sum), and the
// "dynamic / direct search" family of Busato & Bombieri, "Graph Algorithms on GPUs", section 5.
//
// Every frontier entry carries (vertex, row start, exclusive prefix-sum of degrees). The prefix is
// produced while the frontier is built, by the packed 64-bit atomicAdd of bfs_common.cuh (the
// paper's *online unordered prefix-sum*, first of its three optimizations), so no scan kernel runs.
// The frontier's edges [0, total) are cut into equal chunks of CHUNK = 2048 edges (the shared-memory
// capacity of one block: 2048 x 12 bytes). Per chunk, one thread binary-searches the global
// prefix for the first and last frontier entries it touches (phase A of the paper), the block
// stages that slice in shared memory (phase B), and every thread then takes CHUNK / BLOCK edges,
// each located with a binary search in shared memory, so every thread gets the same number of
// edges whatever the degree distribution (phase C filters and builds the next frontier).
// Chunks are taken grid-stride by a fully resident grid, so nothing depends on a host copy.
// Not yet here (issue "every load-balancing technique"): discarding zero-contribution vertices,
// the dynamic chunk size, the warp-level uniform binary search with shuffles (Algorithm 1).
#include "bfs_common.cuh"

#define AT_BS_CHUNK 2048

// last index i in [0, n) with a[i] <= key (a is non-decreasing and a[0] <= key)
__device__ __forceinline__ int at_last_le(const int* a, int n, int key) {
    int lo = 0, hi = n;  // answer in [lo, hi)
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (a[mid] <= key) lo = mid; else hi = mid;
    }
    return lo;
}

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) binary_search_push(AT_LEVEL_ARGS) {
    constexpr int ITEMS = AT_BS_CHUNK / BLOCK;
    __shared__ int s_prefix[AT_BS_CHUNK];
    __shared__ int s_vertex[AT_BS_CHUNK];
    __shared__ int s_row_start[AT_BS_CHUNK];
    __shared__ int s_lo, s_cnt;

    int L, fsize, total;
    if (at_choose_path(st, prm, L, fsize, total) != AT_PATH_PUSH) return;
    const vid_t* frontier_in = (L & 1) ? f1 : f0;
    const int* prefix_in = (L & 1) ? p1 : p0;
    const int* row_start_in = (L & 1) ? r1 : r0;
    const FrontierOut out = at_frontier_out(L, f0, f1, p0, p1, r0, r1, st, prm);
    const int next_level = L + 1;

    for (long long chunk_start = (long long)blockIdx.x * AT_BS_CHUNK; chunk_start < total;
         chunk_start += (long long)gridDim.x * AT_BS_CHUNK) {
        const int c0 = (int)chunk_start;
        const int c1 = (int)min(chunk_start + AT_BS_CHUNK, (long long)total);
        if (threadIdx.x == 0) {
            const int lo = at_last_le(prefix_in, fsize, c0);
            const int hi = at_last_le(prefix_in, fsize, c1 - 1);
            s_lo = lo;
            s_cnt = hi - lo + 1;
        }
        __syncthreads();
        const int lo = s_lo;
        const int cnt = s_cnt;
        const bool staged = cnt <= AT_BS_CHUNK;  // more entries than edges only with many degree-0 vertices
        if (staged) {
            for (int j = threadIdx.x; j < cnt; j += BLOCK) {
                s_prefix[j] = prefix_in[lo + j];
                s_vertex[j] = frontier_in[lo + j];
                s_row_start[j] = row_start_in[lo + j];
            }
        }
        __syncthreads();
#pragma unroll
        for (int it = 0; it < ITEMS; ++it) {
            const int e = c0 + it * BLOCK + (int)threadIdx.x;
            bool claim = false;
            vid_t v = -1;
            int deg = 0, rs_v = 0;
            if (e < c1) {
                int u, col;
                if (staged) {
                    const int i = at_last_le(s_prefix, cnt, e);
                    u = s_vertex[i];
                    col = s_row_start[i] + (e - s_prefix[i]);
                } else {
                    const int i = lo + at_last_le(prefix_in + lo, cnt, e);
                    u = frontier_in[i];
                    col = row_start_in[i] + (e - prefix_in[i]);
                }
                v = column_indices[col];
                claim = at_try_claim(distances, v, next_level);
                if (claim) {
                    predecessors[v] = u;
                    rs_v = row_offsets[v];
                    deg = row_offsets[v + 1] - rs_v;
                }
            }
            at_warp_append<true>(claim, v, deg, rs_v, out);
        }
        __syncthreads();  // the shared slice is rewritten by the next chunk
    }
    at_multi_block_finish(st, L, fsize, total, AT_PATH_PUSH, 0, level_sizes, level_info, level_time);
}
