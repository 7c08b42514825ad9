// edge_mapped.cu -- edge-based mapping over the COO edge list (load_balance = "edge_mapped"),
// one multi-block push level per launch.
//
// Technique: Busato & Bombieri, "Graph Algorithms on GPUs", section 1.3 (edge list / COO
// representation: "perfect load balancing and memory coalescing with a simple thread mapping",
// generally better than CSR on graphs with a non-uniform degree distribution) with the one
// work-unit per thread mapping of section 5.3.1 (direct search), where the COO source array makes
// the search unnecessary: the source of edge e is read, not searched.
//
// One thread per edge: aux->coo_src[e] is the source of edge e (the COO row array, in CSR order)
// and column_indices[e] its destination, e in [0, prm->n_edges). The frontier is read as a status
// array: edge e is active when its source belongs to frontier L (Op::in_frontier: for BFS
// distances[u] == L, stable while the level runs since vertices claimed during it get L + 1). An
// active edge gets the operator's visit as in every push kernel, and the vertices it sends to the
// next frontier are staged per warp and appended with one atomic per stage-full (at_stage_append,
// traversal.cuh). The grid strides over all edges in warp-sized tiles (warp-uniform trip count), so
// every append sees a converged warp. Trade-off: O(|E|) work per level whatever the frontier size, paid back on
// low-diameter, skewed graphs where a few levels hold most edges.
//
// Without a COO array (aux->coo_src == nullptr, a misconfiguration) the source is found by a
// per-thread binary search of row_offsets (the direct search of section 5.3.1), so the level stays
// exact.
#include "traversal.cuh"

// Source of edge e: the last vertex u with row_offsets[u] <= e (ties: empty rows before it).
__device__ __forceinline__ vid_t em_search_source(const eid_t* __restrict__ row_offsets, int n, eid_t e) {
    int lo = 0, hi = n;  // answer in [lo, hi): row_offsets[0] = 0 <= e < row_offsets[n]
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (row_offsets[mid] <= e) lo = mid; else hi = mid;
    }
    return lo;
}

template <int BLOCK, class Op>
__global__ void __launch_bounds__(BLOCK) edge_mapped_push(AT_LEVEL_ARGS) {
    int L, fsize;
    eid_t degsum;
    if (at_block_path(st, prm, L, fsize, degsum) != AT_PATH_PUSH) return;  // block-uniform
    at_hash_init(aux);
    const FrontierOut out = at_frontier_out(L, f0, f1, p0, p1, r0, r1, st, prm, aux);
    const long long m = prm->n_edges;
    const int n = prm->n_vertices;
    const vid_t* __restrict__ coo_src = aux->coo_src;
    const int lane = (int)at_lane_id();
    const long long warp_global = (long long)((blockIdx.x * BLOCK + threadIdx.x) >> 5);
    const long long n_warps = (long long)((gridDim.x * BLOCK) >> 5);
    __shared__ vid_t s_stage_v[AT_STAGE_BLOCK_ENTRIES];
    __shared__ int s_stage_d[AT_STAGE_BLOCK_ENTRIES];
    AtStage stage = at_stage_slice(s_stage_v, s_stage_d, AT_STAGE_PER_WARP(BLOCK, AT_STAGE_BLOCK_ENTRIES));

    for (long long base = warp_global * 32; base < m; base += n_warps * 32) {  // warp-uniform
        const long long e = base + lane;
        bool claim = false;
        vid_t v = -1;
        int deg = 0;
        eid_t rs = 0;
        if (e < m) {
            const vid_t u = coo_src != nullptr ? coo_src[e] : em_search_source(row_offsets, n, (eid_t)e);
            if (Op::in_frontier(op, u, L)) {  // edge of the frontier
                v = column_indices[e];
                claim = at_visit_edge<Op>(op, aux, row_offsets, u, v, (eid_t)e, L, deg, rs);
            }
        }
        at_stage_append<false>(claim, v, deg, rs, stage, row_offsets, out);
    }
    at_stage_flush<false>(stage, row_offsets, out);
    at_multi_block_finish(st, prm, aux, L, fsize, degsum, AT_PATH_PUSH, 0, level_sizes, level_info, level_time);
}
