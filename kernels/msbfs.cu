// msbfs.cu -- batched multi-source BFS, bit-parallel: one traversal advances 64*W sources at once.
//
// Then et al., "The More the Merrier: Efficient Multi-Source Graph Traversal" (VLDB 2015, MS-BFS),
// section 3: every vertex carries W 64-bit words, bit i of word j standing for source 64*j + i;
// `seen[v]` holds the sources that have reached v, the frontier word `fr[v]` the sources that
// reached v at exactly the current level, and one pass over the edges of the frontier advances all
// of them (`next[w] |= fr[u] & ~seen[w]`), so sources whose frontiers overlap share every memory
// access. iBFS (Liu, Huang & Hu, SIGMOD 2016, section 4) adds the GPU form used here: the joint
// frontier is a queue of vertices (each queued once per level, whatever its number of sources),
// bitwise status words, and top-down/bottom-up levels chosen from the joint frontier's edges.
//
// One cooperative launch runs the whole batch (every level), with a grid-wide barrier between the
// two phases of a level:
//  A. "visit": for each queued vertex u and word j: fr = next_in & ~seen (the sources that reach u
//     first at this level), seen |= fr, next_in = 0; the distance L is written for each such
//     (source, u) pair into the optional distances matrix, and counted per source in shared memory
//     (reached vertices, sum of distances, eccentricity: reductions that never need the matrix);
//  B. "advance": push (a warp per queued vertex: lanes split into 32/W groups of W lanes, lane j of
//     a group handling word j of one edge, so an edge's W words are one coalesced access; the same
//     vertex-per-warp mapping as vertex_mapped with virtual warps of 32 lanes, Hong et al. PPoPP'11)
//     or pull (a group of W lanes per vertex not yet reached by every source: OR of the in-neighbours'
//     frontier words, stopping as soon as every missing source is found; Beamer's bottom-up step).
//     A vertex enters the next queue once per level (atomicExch on its level mark).
// Cross-block data (status words, queues) is read with ld.global.cg (L2, not the non-coherent L1),
// since blocks of the same launch write it.
#include "traversal.cuh"

// 176 bytes; mirrored by autotune/batched.py (MSARGS_DTYPE).
struct MSArgs {
    u64* seen;           // n * W: sources that have reached v
    u64* nx[2];          // n * W: sources reaching v at level L + 1 (written by level L, read by L + 1)
    u64* fr[2];          // n * W: frontier words of level L in fr[L & 1]
    int* mark;           // n: last level v was queued for (-1 before the batch)
    vid_t* queue[3];     // n each: the vertices of level L in queue[L % 3]
    int* qsize;          // [3] sizes of the queues
    u64* qdeg;           // [3] sum of out-degrees of the queues
    void* dist;          // n_sources x dist_stride distances (int16 or int32), null: not written
    int* reached;        // [n_sources] vertices reached (the source included)
    u64* dist_sum;       // [n_sources] sum of distances of the reached vertices
    int* ecc;            // [n_sources] largest distance reached
    unsigned* barrier;   // [2] grid barrier: arrivals, generation
    int* out;            // [2] levels run, int16 overflow flag
    int n_vertices;
    int n_sources;       // sources of this batch (<= 64 * W)
    int dist_bytes;      // 2 or 4 (ignored when dist is null)
    int dir_mode;        // 0: push only, 1: push or pull per level
    float alpha;         // pull when the frontier's edges * alpha > n_edges
    int pad;
    long long n_edges;
    long long dist_stride;  // elements per row of the distances matrix
};
static_assert(sizeof(MSArgs) == 176, "MSArgs must match MSARGS_DTYPE in autotune/batched.py");

__device__ __forceinline__ void ms_grid_sync(unsigned* bar) {
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile unsigned* vgen = bar + 1;
        const unsigned gen = *vgen;
        __threadfence();
        if (atomicAdd(bar, 1u) == gridDim.x - 1) {
            bar[0] = 0u;
            __threadfence();
            atomicAdd(bar + 1, 1u);
        } else {
            while (*vgen == gen) {
            }
        }
        __threadfence();
    }
    __syncthreads();
}

// Valid source bits of word j (the last word of a partial batch has fewer).
__device__ __forceinline__ u64 ms_valid(int j, int n_sources) {
    const int lo = j * 64;
    if (n_sources >= lo + 64) return ~0ull;
    if (n_sources <= lo) return 0ull;
    return (1ull << (n_sources - lo)) - 1ull;
}

// Warp-aggregated append of the lanes' `enq` vertices to the next queue (every lane calls it): one
// atomicAdd on the queue size and one on its degree sum per warp.
__device__ __forceinline__ void ms_warp_enqueue(bool enq, vid_t w, const eid_t* __restrict__ row_offsets, vid_t* Qout,
                                                int* qsize_out, u64* qdeg_out) {
    const unsigned eb = __ballot_sync(AT_FULL_MASK, enq);
    if (eb == 0u) return;
    // distinct vertices (one queue entry each): their degree sum is at most n_edges, an eid_t
    const eid_t d = enq ? (eid_t)(__ldg(row_offsets + w + 1) - __ldg(row_offsets + w)) : (eid_t)0;
    const eid_t dsum = at_warp_sum(d);
    const int first = __ffs(eb) - 1;
    int base = 0;
    if ((int)at_lane_id() == first) {
        base = atomicAdd(qsize_out, __popc(eb));
        atomicAdd(qdeg_out, (u64)dsum);
    }
    base = __shfl_sync(AT_FULL_MASK, base, first);
    if (enq) __stcg(Qout + base + __popc(eb & at_lanemask_lt()), w);
}

// Queue the sources: bit i of source i's word, each distinct source once in queue 0.
template <int W>
__global__ void msbfs_init(const eid_t* __restrict__ row_offsets, const vid_t* __restrict__ sources,
                           const MSArgs* __restrict__ a) {
    const int i = (int)(blockIdx.x * blockDim.x + threadIdx.x);
    if (i == 0) {
        a->barrier[0] = 0u;
        a->barrier[1] = 0u;
    }
    if (i >= a->n_sources) return;
    const vid_t s = sources[i];
    atomicOr(a->nx[0] + (size_t)s * W + (i >> 6), 1ull << (i & 63));
    if (atomicExch(a->mark + s, 0) != 0) {
        const int pos = atomicAdd(a->qsize, 1);
        a->queue[0][pos] = s;
        atomicAdd(a->qdeg, (u64)(row_offsets[s + 1] - row_offsets[s]));
    }
}

template <int W, int BLOCK>
__global__ void __launch_bounds__(BLOCK) msbfs_levels(const eid_t* __restrict__ row_offsets,
                                                      const vid_t* __restrict__ column_indices,
                                                      const eid_t* __restrict__ pull_offsets,
                                                      const vid_t* __restrict__ pull_indices,
                                                      const MSArgs* __restrict__ a) {
    static_assert(W == 1 || W == 2 || W == 4 || W == 8 || W == 16 || W == 32, "W: 1..32 words");
    constexpr int G = 32 / W;  // edge groups per warp
    __shared__ unsigned s_cnt[64 * W];
    const int n = a->n_vertices, n_src = a->n_sources;
    const int tid = (int)(blockIdx.x * BLOCK + threadIdx.x);
    const int n_threads = (int)(gridDim.x * BLOCK);
    const unsigned lane = at_lane_id();
    const int j = (int)lane % W, g = (int)lane / W;
    const unsigned gmask = W >= 32 ? AT_FULL_MASK : (((1u << W) - 1u) << (g * W));
    const int warp = tid >> 5, n_warps = n_threads >> 5;
    const bool leader = tid == 0;
    u64* const seen = a->seen;
    int* const mark = a->mark;
    const bool write_dist = a->dist != nullptr;
    short* const dist16 = (short*)a->dist;
    int* const dist32 = (int*)a->dist;
    const long long stride = a->dist_stride;
    const u64 valid = ms_valid(j, n_src);
    int L = 0;
    int qprev = 0;  // size of the queue of level L - 1
    while (true) {
        const int qn = __ldcg(a->qsize + L % 3);
        if (qn == 0) break;
        const vid_t* Q = a->queue[L % 3];
        u64* const nx_in = a->nx[L & 1];
        u64* const nx_out = a->nx[(L + 1) & 1];
        u64* const fr = a->fr[L & 1];
        u64* const fr_old = a->fr[(L + 1) & 1];
        const vid_t* Qprev = a->queue[(L + 2) % 3];
        const bool overflow = a->dist_bytes == 2 && L > 32767;

        // ---- phase A: visit the queued vertices (one thread per vertex x word)
        for (int i = (int)threadIdx.x; i < 64 * W; i += BLOCK) s_cnt[i] = 0u;
        __syncthreads();
        for (long long idx = tid; idx < (long long)qprev * W; idx += n_threads) {  // level L-1's words
            const vid_t u = __ldcg(Qprev + idx / W);
            __stcg(fr_old + (size_t)u * W + (idx % W), 0ull);
        }
        for (long long idx = tid; idx < (long long)qn * W; idx += n_threads) {
            const vid_t u = __ldcg(Q + idx / W);
            const int jj = (int)(idx % W);
            const size_t o = (size_t)u * W + jj;
            const u64 sn = __ldcg(seen + o);
            u64 f = __ldcg(nx_in + o) & ~sn;
            __stcg(nx_in + o, 0ull);
            __stcg(fr + o, f);
            if (f) __stcg(seen + o, sn | f);
            while (f) {
                const int b = __ffsll((long long)f) - 1;
                f &= f - 1ull;
                const int s = jj * 64 + b;
                atomicAdd(s_cnt + s, 1u);
                if (write_dist && !overflow) {
                    if (a->dist_bytes == 2) dist16[(long long)s * stride + u] = (short)L;
                    else dist32[(long long)s * stride + u] = L;
                }
            }
        }
        if (overflow && leader) a->out[1] = 1;
        __syncthreads();
        for (int i = (int)threadIdx.x; i < 64 * W; i += BLOCK) {
            const unsigned c = s_cnt[i];
            if (c) {
                atomicAdd(a->reached + i, (int)c);
                atomicAdd(a->dist_sum + i, (u64)c * (u64)L);
                atomicMax(a->ecc + i, L);
            }
        }
        ms_grid_sync(a->barrier);

        // ---- phase B: advance from the frontier words
        if (leader) {  // queue (L+2)%3 (level L-1's) was read by every block before the barrier
            a->qsize[(L + 2) % 3] = 0;
            a->qdeg[(L + 2) % 3] = 0ull;
        }
        int* const qsize_out = a->qsize + (L + 1) % 3;
        u64* const qdeg_out = a->qdeg + (L + 1) % 3;
        vid_t* const Qout = a->queue[(L + 1) % 3];
        const u64 fdeg = __ldcg(a->qdeg + L % 3);
        const bool pull = a->dir_mode != 0 && (double)fdeg * (double)a->alpha > (double)a->n_edges;
        if (!pull) {
            for (int qi = warp; qi < qn; qi += n_warps) {  // warp-uniform
                const vid_t u = __ldcg(Q + qi);
                const u64 f = __ldcg(fr + (size_t)u * W + j);
                if (!__any_sync(AT_FULL_MASK, f != 0ull)) continue;
                const eid_t beg = __ldg(row_offsets + u), end = __ldg(row_offsets + u + 1);
                for (eid_t e0 = beg; e0 < end; e0 += G) {
                    const eid_t e = e0 + g;
                    vid_t w = 0;
                    u64 nb = 0ull;
                    if (e < end) {
                        w = __ldg(column_indices + e);
                        const size_t o = (size_t)w * W + j;
                        nb = f & ~__ldcg(seen + o);
                        if (nb) atomicOr(nx_out + o, nb);
                    }
                    const unsigned bal = __ballot_sync(AT_FULL_MASK, nb != 0ull);
                    bool enq = false;
                    if (j == 0 && (bal & gmask) != 0u) enq = atomicExch(mark + w, L + 1) != L + 1;
                    ms_warp_enqueue(enq, w, row_offsets, Qout, qsize_out, qdeg_out);
                }
            }
        } else {
            for (int w0 = warp * G; w0 < n; w0 += n_warps * G) {  // warp-uniform
                const vid_t w = w0 + g;
                u64 need = 0ull;
                if (w < n) need = ~__ldcg(seen + (size_t)w * W + j) & valid;
                const unsigned nb_bal = __ballot_sync(AT_FULL_MASK, need != 0ull);
                u64 acc = 0ull;
                if ((nb_bal & gmask) != 0u) {  // group-uniform
                    const eid_t beg = __ldg(pull_offsets + w), end = __ldg(pull_offsets + w + 1);
                    for (eid_t e = beg; e < end; ++e) {
                        const vid_t u = __ldg(pull_indices + e);
                        acc |= __ldcg(fr + (size_t)u * W + j) & need;
                        if (__all_sync(gmask, acc == need)) break;
                    }
                    if (acc) __stcg(nx_out + (size_t)w * W + j, acc);
                }
                const unsigned ab = __ballot_sync(AT_FULL_MASK, acc != 0ull);
                const bool enq = j == 0 && (ab & gmask) != 0u;
                if (enq) mark[w] = L + 1;
                ms_warp_enqueue(enq, w, row_offsets, Qout, qsize_out, qdeg_out);
            }
        }
        ms_grid_sync(a->barrier);
        qprev = qn;
        ++L;
    }
    if (leader) a->out[0] = L;
}

// Predecessors of a batch (optional output), from its distances: for each (source s, vertex w)
// at distance d > 0, the first in-neighbour u (in CSR order) with dist[s][u] == d - 1; the source
// is its own predecessor; -1 when unreached. One thread per (s, w); dist and pred share a layout.
template <typename D>
__global__ void msbfs_predecessors(const eid_t* __restrict__ pull_offsets, const vid_t* __restrict__ pull_indices,
                                   const D* __restrict__ dist, int* __restrict__ pred, int n, long long total) {
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < total;
       i += (long long)gridDim.x * blockDim.x) {
    const long long row = i / n;
    const vid_t w = (vid_t)(i - row * n);
    const int d = (int)dist[i];
    int p = -1;
    if (d == 0) {
        p = w;
    } else if (d > 0) {
        const D* drow = dist + row * n;
        for (eid_t e = pull_offsets[w]; e < pull_offsets[w + 1]; ++e) {
            const vid_t u = pull_indices[e];
            if ((int)drow[u] == d - 1) {
                p = u;
                break;
            }
        }
    }
    pred[i] = p;
  }
}
