// block_scan.cuh -- block-wide helpers of the one-block drivers (single_block.cu, whole_graph.cu):
// the scan-based mapping of Busato & Bombieri, "Efficient load balancing techniques for graph
// traversal applications on GPUs" (section 3.2): an exclusive prefix-sum of the frontier's
// out-degrees over the block, then every thread finds the vertex of its edge by binary search in it.
#pragma once
#include "traversal.cuh"

// Exclusive prefix-sum of one eid_t per thread over a 1024-thread block; `total` gets the sum.
// s_warp holds 33 values. Contains two __syncthreads; the caller syncs before reusing s_warp.
__device__ __forceinline__ eid_t at_block_exclusive_scan(eid_t x, eid_t& total, eid_t* s_warp) {
    const int lane = (int)at_lane_id(), warp = (int)(threadIdx.x >> 5);
    eid_t incl = at_warp_inclusive_scan(x);
    if (lane == 31) s_warp[warp] = incl;
    __syncthreads();
    if (warp == 0) {
        const eid_t w = s_warp[lane];
        eid_t wi = at_warp_inclusive_scan(w);
        s_warp[lane] = wi - w;
        if (lane == 31) s_warp[32] = wi;
    }
    __syncthreads();
    total = s_warp[32];
    return s_warp[warp] + incl - x;
}

// last index i in [0, n) with a[i] <= key (a non-decreasing, a[0] <= key)
__device__ __forceinline__ int at_sb_last_le(const eid_t* a, int n, eid_t key) {
    int lo = 0, hi = n;
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (a[mid] <= key) lo = mid; else hi = mid;
    }
    return lo;
}

