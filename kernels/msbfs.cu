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
//     A vertex enters the next queue once per level (atomicExch on its level mark), through its
//     block's staging queue in shared memory (one global atomicAdd per block and level).
//     Hubs are split: a push work item is at most MS_PUSH_ITERS * 32 / W out-edges of one queued
//     vertex (a heavy vertex's further chunks are listed in phase A), a pull work item at most
//     MS_PULL_CHUNK in-edges (the chunks of the vertices with more in-edges are listed once per
//     engine, their partial ORs combined with atomicOr), so no warp walks a hub's edges alone.
// Cross-block data (status words, queues) is read with ld.global.cg (L2, not the non-coherent L1),
// since blocks of the same launch write it.
#include "traversal.cuh"

// 208 bytes; mirrored by autotune/batched.py (MSARGS_DTYPE).
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
    unsigned* barrier;   // [2] grid barrier: one 64-bit arrival counter (at_grid_arrive_wait)
    int* out;            // [2] levels run, int16 overflow flag
    int n_vertices;
    int n_sources;       // sources of this batch (<= 64 * W)
    int dist_bytes;      // 2 or 4 (ignored when dist is null)
    int dir_mode;        // 0: push only, 1: push or pull per level
    float alpha;         // pull when the frontier's edges * alpha > n_edges
    int heavy_push;      // some vertex has more out-edges than a push work item holds (else no chunks)
    long long n_edges;
    long long dist_stride;  // elements per row of the distances matrix
    u64* chunks;            // push levels: edge chunks k >= 1 of the queued heavy vertices (u | k << 32)
    int* ccount;            // [2] chunks of the level, by level parity
    const u64* pull_chunks; // in-edge chunks k >= 1 of the vertices with > MS_PULL_CHUNK in-edges (static)
    long long n_pull_chunks;
};
static_assert(sizeof(MSArgs) == 208, "MSArgs must match MSARGS_DTYPE in autotune/batched.py");

__device__ __forceinline__ void ms_grid_sync(unsigned* bar) {
    __syncthreads();
    if (threadIdx.x == 0) at_grid_arrive_wait(bar);
    __syncthreads();
}

// Valid source bits of word j (the last word of a partial batch has fewer).
__device__ __forceinline__ u64 ms_valid(int j, int n_sources) {
    const int lo = j * 64;
    if (n_sources >= lo + 64) return ~0ull;
    if (n_sources <= lo) return 0ull;
    return (1ull << (n_sources - lo)) - 1ull;
}

// Capacity (vertices) of a block's staging queue in shared memory.
#define MS_STAGE 1024
// Load balance inside a level (the long tail of the hubs): a push level's warp handles one queued
// vertex's first MS_PUSH_ITERS * (32 / W) out-edges, and each further chunk of that many edges is a
// work item of its own (listed during the visit phase); a pull level's group of W lanes scans at
// most MS_PULL_CHUNK in-edges of a vertex, further chunks of the vertices with more in-edges being
// items of their own (listed once per engine), combined with atomicOr. Before, one warp walked a
// hub's 10^3-10^4 edges alone, one dependent load chain per edge, while the rest of the grid waited
// at the level's barrier. Edge loads are unrolled MS_UNROLL deep, so a lane has that many in flight.
#define MS_PUSH_ITERS 16
#define MS_PULL_CHUNK 64
#define MS_UNROLL 4

// Block-aggregated append of the lanes' `enq` vertices to the next queue (every lane of the warp
// calls it). A warp reserves its slots in the block's shared staging queue (one shared-memory atomic)
// and adds its degree sum to the block's; the block appends the staged vertices to the global queue
// with one atomicAdd at the end of the level (ms_stage_flush). A warp-level atomicAdd on the global
// queue size, as before, put every warp of the grid on one L2 address once per enqueueing step: tens
// of thousands of serialised returning atomics per level, most of the batched kernel's time on
// road-usroads. Slots past the staging capacity go to the global queue directly.
__device__ __forceinline__ void ms_stage_enqueue(bool enq, vid_t w, const eid_t* __restrict__ row_offsets,
                                                 vid_t* s_q, int* s_qn, unsigned long long* s_qdeg, vid_t* Qout,
                                                 int* qsize_out) {
    const unsigned eb = __ballot_sync(AT_FULL_MASK, enq);
    if (eb == 0u) return;
    // distinct vertices (one queue entry each): their degree sum is at most n_edges, an eid_t
    const eid_t d = enq ? (eid_t)(__ldg(row_offsets + w + 1) - __ldg(row_offsets + w)) : (eid_t)0;
    const eid_t dsum = at_warp_sum(d);
    const int first = __ffs(eb) - 1;
    const int cnt = __popc(eb);
    int pos = 0, gbase = 0;
    if ((int)at_lane_id() == first) {
        pos = atomicAdd(s_qn, cnt);
        atomicAdd(s_qdeg, (unsigned long long)dsum);
        const int lo = pos > MS_STAGE ? pos : MS_STAGE;  // first slot past the capacity
        if (pos + cnt > MS_STAGE) gbase = atomicAdd(qsize_out, pos + cnt - lo) - (lo - pos);
    }
    pos = __shfl_sync(AT_FULL_MASK, pos, first);
    gbase = __shfl_sync(AT_FULL_MASK, gbase, first);
    if (enq) {
        const int r = __popc(eb & at_lanemask_lt());
        if (pos + r < MS_STAGE) s_q[pos + r] = w;
        else __stcg(Qout + gbase + r, w);
    }
}

// The block's staged vertices and degree sum into the global queue (every thread of the block calls
// it, after the level's advance).
__device__ __forceinline__ void ms_stage_flush(vid_t* s_q, int* s_qn, unsigned long long* s_qdeg, int* s_base,
                                               vid_t* Qout, int* qsize_out, u64* qdeg_out) {
    __syncthreads();
    const int k = *s_qn < MS_STAGE ? *s_qn : MS_STAGE;
    if (threadIdx.x == 0) {
        if (k > 0) *s_base = atomicAdd(qsize_out, k);
        if (*s_qdeg) atomicAdd(qdeg_out, (u64)*s_qdeg);
    }
    __syncthreads();
    const int base = *s_base;
    for (int i = (int)threadIdx.x; i < k; i += (int)blockDim.x) __stcg(Qout + base + i, s_q[i]);
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
    __shared__ vid_t s_q[MS_STAGE];  // the block's staged vertices of the next queue
    __shared__ int s_qn_out, s_base, s_hn;
    __shared__ unsigned long long s_qdeg_out;
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
    // The queue size and degree sum of level L, read by thread 0 of each block and handed to the block
    // through shared memory: every warp of the grid loading the same two words (serialised at one L2
    // slice) cost microseconds per level (the level kernels' at_block_path, kernels/traversal.cuh).
    // Both are final at the grid barrier that ends level L - 1 (phase A does not touch them).
    __shared__ int s_qn;
    __shared__ u64 s_fdeg;
    while (true) {
        if (threadIdx.x == 0) {
            s_qn = __ldcg(a->qsize + L % 3);
            s_fdeg = __ldcg(a->qdeg + L % 3);
        }
        __syncthreads();  // the previous read of s_qn / s_fdeg was two grid barriers ago
        const int qn = s_qn;
        if (qn == 0) break;
        const vid_t* Q = a->queue[L % 3];
        u64* const nx_in = a->nx[L & 1];
        u64* const nx_out = a->nx[(L + 1) & 1];
        u64* const fr = a->fr[L & 1];
        u64* const fr_old = a->fr[(L + 1) & 1];
        const vid_t* Qprev = a->queue[(L + 2) % 3];
        const bool overflow = a->dist_bytes == 2 && L > 32767;
        const bool pull = a->dir_mode != 0 && (double)s_fdeg * (double)a->alpha > (double)a->n_edges;
        constexpr int CHUNK = MS_PUSH_ITERS * G;  // push: out-edges per work item

        // ---- phase A: visit the queued vertices (one thread per vertex x word)
        for (int i = (int)threadIdx.x; i < 64 * W; i += BLOCK) s_cnt[i] = 0u;
        if (threadIdx.x == 0) {  // read by phase B's flush two barriers ago
            s_qn_out = 0;
            s_qdeg_out = 0ull;
        }
        __syncthreads();
        for (long long idx = tid; idx < (long long)qprev * W; idx += n_threads) {  // level L-1's words
            const vid_t u = __ldcg(Qprev + idx / W);
            __stcg(fr_old + (size_t)u * W + (idx % W), 0ull);
        }
        for (long long idx = tid; idx < (long long)qn * W; idx += n_threads) {
            const vid_t u = __ldcg(Q + idx / W);
            const int jj = (int)(idx % W);
            const size_t o = (size_t)u * W + jj;
            if (!pull && a->heavy_push && jj == 0) {  // a heavy vertex's further edge chunks become work items
                const eid_t deg = __ldg(row_offsets + u + 1) - __ldg(row_offsets + u);
                if (deg > (eid_t)CHUNK) {
                    const int k_n = (int)((deg + CHUNK - 1) / CHUNK);
                    const int pos = atomicAdd(a->ccount + (L & 1), k_n - 1);
                    for (int k = 1; k < k_n; ++k) __stcg(a->chunks + pos + k - 1, (u64)(unsigned)u | ((u64)k << 32));
                }
            }
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
            a->ccount[(L + 1) & 1] = 0;  // last read in level L-1's phase B; next written in L+1's phase A
        }
        int* const qsize_out = a->qsize + (L + 1) % 3;
        u64* const qdeg_out = a->qdeg + (L + 1) % 3;
        vid_t* const Qout = a->queue[(L + 1) % 3];
        if (!pull) {
            int n_items = qn;
            if (a->heavy_push) {  // uniform
                if (threadIdx.x == 0) s_hn = __ldcg(a->ccount + (L & 1));
                __syncthreads();
                n_items += s_hn;
            }
            for (int qi = warp; qi < n_items; qi += n_warps) {  // warp-uniform
                vid_t u;
                int k = 0;
                if (qi < qn) {
                    u = __ldcg(Q + qi);
                } else {
                    const u64 c = __ldcg(a->chunks + (qi - qn));
                    u = (vid_t)(unsigned)(c & 0xffffffffull);
                    k = (int)(c >> 32);
                }
                const u64 f = __ldcg(fr + (size_t)u * W + j);
                if (!__any_sync(AT_FULL_MASK, f != 0ull)) continue;
                const eid_t b0 = __ldg(row_offsets + u), b1 = __ldg(row_offsets + u + 1);
                const eid_t beg = b0 + (eid_t)k * CHUNK;
                const eid_t end = b1 - beg > (eid_t)CHUNK ? beg + CHUNK : b1;
                for (eid_t e0 = beg; e0 < end; e0 += G * MS_UNROLL) {
                    vid_t w[MS_UNROLL];
                    u64 nb[MS_UNROLL];
#pragma unroll
                    for (int r = 0; r < MS_UNROLL; ++r) {
                        const eid_t e = e0 + r * G + g;
                        w[r] = e < end ? __ldg(column_indices + e) : (vid_t)-1;
                    }
#pragma unroll
                    for (int r = 0; r < MS_UNROLL; ++r) {
                        nb[r] = 0ull;
                        if (w[r] >= 0) {
                            const size_t o = (size_t)w[r] * W + j;
                            nb[r] = f & ~__ldcg(seen + o);
                            if (nb[r]) atomicOr(nx_out + o, nb[r]);
                        }
                    }
                    bool enq[MS_UNROLL];
#pragma unroll
                    for (int r = 0; r < MS_UNROLL; ++r) {
                        const unsigned bal = __ballot_sync(AT_FULL_MASK, nb[r] != 0ull);
                        enq[r] = j == 0 && (bal & gmask) != 0u && atomicExch(mark + w[r], L + 1) != L + 1;
                    }
#pragma unroll
                    for (int r = 0; r < MS_UNROLL; ++r)
                        ms_stage_enqueue(enq[r], w[r], row_offsets, s_q, &s_qn_out, &s_qdeg_out, Qout, qsize_out);
                }
            }
        } else {
            const long long n_items = (long long)n + a->n_pull_chunks;
            for (long long i0 = (long long)warp * G; i0 < n_items; i0 += (long long)n_warps * G) {  // warp-uniform
                const long long i = i0 + g;
                vid_t w = 0;
                int k = 0;
                u64 need = 0ull;
                if (i < n_items) {
                    if (i < n) {
                        w = (vid_t)i;
                    } else {
                        const u64 c = __ldg(a->pull_chunks + (i - n));
                        w = (vid_t)(unsigned)(c & 0xffffffffull);
                        k = (int)(c >> 32);
                    }
                    need = ~__ldcg(seen + (size_t)w * W + j) & valid;
                }
                const unsigned nb_bal = __ballot_sync(AT_FULL_MASK, need != 0ull);
                u64 acc = 0ull;
                bool heavy = false;
                if ((nb_bal & gmask) != 0u) {  // group-uniform
                    const eid_t b0 = __ldg(pull_offsets + w), b1 = __ldg(pull_offsets + w + 1);
                    heavy = b1 - b0 > (eid_t)MS_PULL_CHUNK;
                    const eid_t beg = b0 + (eid_t)k * MS_PULL_CHUNK;
                    const eid_t end = b1 - beg > (eid_t)MS_PULL_CHUNK ? beg + MS_PULL_CHUNK : b1;
                    for (eid_t e = beg; e < end; e += MS_UNROLL) {
                        vid_t u[MS_UNROLL];
#pragma unroll
                        for (int r = 0; r < MS_UNROLL; ++r) u[r] = e + r < end ? __ldg(pull_indices + e + r) : (vid_t)-1;
#pragma unroll
                        for (int r = 0; r < MS_UNROLL; ++r)
                            if (u[r] >= 0) acc |= __ldcg(fr + (size_t)u[r] * W + j);
                        acc &= need;
                        if (__all_sync(gmask, acc == need)) break;
                    }
                    if (acc) {
                        if (heavy) atomicOr(nx_out + (size_t)w * W + j, acc);  // chunks of one vertex
                        else __stcg(nx_out + (size_t)w * W + j, acc);
                    }
                }
                const unsigned ab = __ballot_sync(AT_FULL_MASK, acc != 0ull);
                bool enq = j == 0 && (ab & gmask) != 0u;
                if (enq) {
                    if (heavy) enq = atomicExch(mark + w, L + 1) != L + 1;
                    else mark[w] = L + 1;
                }
                ms_stage_enqueue(enq, w, row_offsets, s_q, &s_qn_out, &s_qdeg_out, Qout, qsize_out);
            }
        }
        ms_stage_flush(s_q, &s_qn_out, &s_qdeg_out, &s_base, Qout, qsize_out, qdeg_out);
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
