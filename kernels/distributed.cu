// distributed.cu -- the push step of the multi-GPU BFS (autotune/distributed.py).
//
// Liu & Huang, "Enterprise: Breadth-First Graph Traversal on GPUs" (SC'15), section 4.4 (1-D
// partitioned BFS over several GPUs): the vertices are split into contiguous ranges, one per GPU;
// a GPU stores only the out-edges of the vertices it owns and expands only the part of the
// frontier it owns. The parents it finds for *any* vertex (owned or not) are exchanged once per
// level. Here the exchange is one NCCL all-reduce (max) of a full-length candidate array: each rank
// writes `cand[v] = max(cand[v], u + 1)` for every edge u -> v of its frontier whose head is not yet
// visited, so after the reduction every rank holds, for every newly reached v, the largest id of an
// in-neighbour u one level up (0 = not reached this level). Any such u is a valid BFS parent; the
// maximum makes the choice deterministic, independent of the number of ranks and of timing.
//
// Mapping: one warp per frontier vertex, its lanes striding the vertex's out-edges (coalesced
// reads of column_indices), grid-stride over the frontier. The frontier holds global vertex ids of
// the owned range [lo, hi); the rank's row offsets are rebased to its first owned vertex (row
// offsets of the slice start at 0), eid_t (traversal.cuh) is int32 or, with -DAT_EID64, int64.
// A visited vertex is skipped before the atomic, and so is one whose candidate is already as large
// (a plain read first: most edges of a dense level hit vertices already claimed by a larger id).
#include "traversal.cuh"

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) distributed_push(const eid_t* __restrict__ row_offsets,
                                                          const vid_t* __restrict__ column_indices,
                                                          const vid_t* __restrict__ frontier, int n_frontier, int lo,
                                                          const unsigned char* __restrict__ visited,
                                                          int* __restrict__ cand) {
    const int lane = threadIdx.x & 31;
    const long long warp = ((long long)blockIdx.x * BLOCK + threadIdx.x) >> 5;
    const long long n_warps = ((long long)gridDim.x * BLOCK) >> 5;
    for (long long i = warp; i < n_frontier; i += n_warps) {
        const vid_t u = frontier[i];
        const int mine = u + 1;
        const eid_t begin = row_offsets[u - lo];
        const eid_t end = row_offsets[u - lo + 1];
        for (eid_t e = begin + lane; e < end; e += 32) {
            const vid_t v = column_indices[e];
            if (!visited[v] && cand[v] < mine) atomicMax(&cand[v], mine);
        }
    }
}
