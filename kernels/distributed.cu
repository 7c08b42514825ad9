// distributed.cu -- the per-rank kernels of the multi-GPU BFS (autotune/distributed.py).
//
// Liu & Huang, "Enterprise: Breadth-First Graph Traversal on GPUs" (SC'15), section 4.4 (1-D
// partitioned, direction-optimizing BFS over several GPUs): the vertices are split into contiguous
// ranges, one per GPU (a rank); a rank stores the out-edges and the in-edges of the vertices it owns.
// Every rank holds the same two bitmaps of all n vertices (one bit per vertex, 32 per word): the
// frontier of the current level and the visited set. Range boundaries are multiples of 32 vertices
// (the last one is n), so a rank's vertices fill whole words of the bitmaps and no word is shared.
//
// A level is
//   push (top-down): distributed_push marks, in `disc` (a bitmap of all n vertices), the unvisited
//     out-neighbours of the owned frontier; the marks of other ranks' vertices travel to their owner
//     (as bitmap words or as a queue of ids, distributed_mark) and the owner finds their parents
//     with distributed_parents<false>;
//   pull (bottom-up): distributed_parents<true> looks at every owned unvisited vertex;
// and then every rank's new owned frontier words are all-gathered into the frontier bitmap.
//
// Parents: distributed_parents scans a candidate's in-edges from the END of its in-edge list, 32 at
// a time (one warp per candidate), and stops at the first whose source is in the frontier bitmap: the
// parent is the LAST in-neighbour one level up in list order (the largest id, as the loaders sort
// each list). It does not depend on the direction of the level nor on the number of ranks.
// The owner also counts, for the direction rule of the next level, the vertices it found and the sum
// of their out-degrees (one atomicAdd each per warp).
#include "traversal.cuh"

// Unvisited out-neighbours of the owned frontier -> `disc` bits; with QUEUE the first marker of a
// vertex also appends it to `queue` (for the queue exchange). One warp per frontier vertex, its lanes
// striding the out-edges (coalesced reads of column_indices); grid-stride over the frontier (global
// ids of the owned range [lo, hi); the rank's row offsets are rebased to lo).
template <int BLOCK, bool QUEUE>
__global__ void __launch_bounds__(BLOCK) distributed_push(const eid_t* __restrict__ row_offsets,
                                                          const vid_t* __restrict__ column_indices,
                                                          const vid_t* __restrict__ frontier, int n_frontier, int lo,
                                                          const unsigned* __restrict__ visited_bits,
                                                          unsigned* disc_bits, vid_t* queue,
                                                          unsigned long long* queue_len) {
    const int lane = threadIdx.x & 31;
    const long long warp = ((long long)blockIdx.x * BLOCK + threadIdx.x) >> 5;
    const long long n_warps = ((long long)gridDim.x * BLOCK) >> 5;
    for (long long i = warp; i < n_frontier; i += n_warps) {
        const vid_t u = frontier[i];
        const eid_t begin = row_offsets[u - lo];
        const eid_t end = row_offsets[u - lo + 1];
        for (eid_t e = begin + lane; e < end; e += 32) {
            const vid_t v = column_indices[e];
            const unsigned bit = 1u << (v & 31);
            if ((visited_bits[v >> 5] & bit) || (disc_bits[v >> 5] & bit)) continue;  // plain reads first
            const unsigned old = atomicOr(&disc_bits[v >> 5], bit);
            if (QUEUE && !(old & bit)) queue[atomicAdd(queue_len, 1ull)] = v;
        }
    }
}

// The ids other ranks found in this rank's range (queue exchange) -> `disc` bits.
__global__ void distributed_mark(const vid_t* __restrict__ ids, int n_ids, unsigned* disc_bits) {
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n_ids; i += (long long)gridDim.x * blockDim.x) {
        const vid_t v = ids[i];
        atomicOr(&disc_bits[v >> 5], 1u << (v & 31));
    }
}

// Parents of this level's new owned vertices. One warp per word of the owned range (32 vertices,
// lane = vertex); candidates: unvisited (PULL) or unvisited and marked in `disc` (push). For each
// candidate in turn the warp scans its in-edges backwards, 32 per step, and takes the highest lane
// whose source is in the frontier bitmap. A vertex found gets distances/predecessors (owned arrays,
// index v - lo), its bit in `next_bits` (a plain store of the warp's whole word: the word belongs to
// this rank alone), and a slot in `next_frontier`; counts[0..1] += (vertices, their out-edges).
// `counts[0]` is also the append position of `next_frontier`.
template <int BLOCK, bool PULL>
__global__ void __launch_bounds__(BLOCK) distributed_parents(
    const eid_t* __restrict__ row_offsets, const eid_t* __restrict__ in_offsets,
    const vid_t* __restrict__ in_indices, int lo, int hi, const unsigned* __restrict__ frontier_bits,
    const unsigned* __restrict__ visited_bits, const unsigned* __restrict__ disc_bits, unsigned* next_bits,
    int* distances, int* predecessors, int next_level, vid_t* next_frontier, unsigned long long* counts) {
    const int lane = threadIdx.x & 31;
    const long long warp = ((long long)blockIdx.x * BLOCK + threadIdx.x) >> 5;
    const long long n_warps = ((long long)gridDim.x * BLOCK) >> 5;
    const long long n_words = ((long long)(hi - lo) + 31) >> 5;
    const int word0 = lo >> 5;  // lo is a multiple of 32
    for (long long w = warp; w < n_words; w += n_warps) {
        const long long vl = (w << 5) + lane;  // local index of this lane's vertex
        const bool in_range = vl < hi - lo;
        const unsigned bit = 1u << lane;
        bool cand = in_range && !(visited_bits[word0 + w] & bit);
        if (!PULL) cand = cand && (disc_bits[word0 + w] & bit);
        unsigned todo = __ballot_sync(0xffffffffu, cand);
        unsigned found = 0;
        int parent_mine = -1;
        while (todo) {
            const int j = __ffs(todo) - 1;
            todo &= todo - 1;
            const long long vj = (w << 5) + j;
            const eid_t begin = in_offsets[vj];
            for (eid_t top = in_offsets[vj + 1]; top > begin; top -= 32) {
                const eid_t e = top - 1 - lane;
                vid_t u = -1;
                bool hit = false;
                if (e >= begin) {
                    u = in_indices[e];
                    hit = (frontier_bits[u >> 5] >> (u & 31)) & 1u;
                }
                const unsigned hits = __ballot_sync(0xffffffffu, hit);
                if (hits) {  // lowest lane = latest edge of the list
                    const int p = __shfl_sync(0xffffffffu, u, __ffs(hits) - 1);
                    if (lane == j) parent_mine = p;
                    found |= 1u << j;
                    break;
                }
            }
        }
        const bool mine = (found >> lane) & 1u;
        long long out_deg = 0;
        if (mine) {
            distances[vl] = next_level;
            predecessors[vl] = parent_mine;
            out_deg = (long long)(row_offsets[vl + 1] - row_offsets[vl]);
        }
        if (found) {
            for (int o = 16; o > 0; o >>= 1) out_deg += __shfl_down_sync(0xffffffffu, out_deg, o);
            unsigned long long base = 0;
            if (lane == 0) {
                next_bits[word0 + w] = found;
                base = atomicAdd(&counts[0], (unsigned long long)__popc(found));
                atomicAdd(&counts[1], (unsigned long long)out_deg);
            }
            base = __shfl_sync(0xffffffffu, base, 0);
            if (mine) next_frontier[base + __popc(found & (bit - 1u))] = (vid_t)(lo + vl);
        }
    }
}
