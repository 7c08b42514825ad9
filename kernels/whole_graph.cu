// whole_graph.cu -- a whole traversal in ONE launch of ONE block, for graphs small enough that the
// visited status and the frontier queues live in that block's shared memory.
//
// Busato & Bombieri, "BFS-4K: an Efficient Implementation of BFS for Kepler GPU Architectures",
// section 5.5: while the frontier is small, one block iterating levels on the device (__syncthreads
// between levels) beats a launch per level. On a graph of a few thousand vertices every level is
// small, so here one block runs the traversal from start to finish: the per-vertex reset, the
// source, every level and the state read-back are one kernel, and a traversal is one node of a CUDA
// graph (the launch-round engine replays at least a reset, an init, a tick, the level kernels and a
// state copy: ~7 us before the first level on an H200).
//
// Liu & Huang, "Enterprise: Breadth-First Graph Traversal on GPUs" (SC'15), section 2 (Table 2:
// which BFS structure lives in which level of the memory hierarchy): the status array belongs in the
// fastest memory that holds it. Here it is a bitmap in shared memory (n / 8 bytes), so a claim is a
// shared-memory atomicOr instead of a global atomicCAS at the L2 (one SM issues those at a limited
// rate and waits ~0.5 us for each), and the frontier queues are 16-bit vertex ids in shared memory
// too: ONE array of n entries holds both, the current frontier filling it from one end and the
// next from the other (the two are disjoint sets of vertices, so they never overlap). Shared memory
// used: n / 8 + 2 n bytes (vertex ids below 2^16), i.e. up to 65,536 vertices in 136 KB of the
// 227 KB a block may opt in to on an H100/H200 (the engine checks the device's limit).
//
// Edges are mapped as in single_block.cu (the scan-based mapping of Busato & Bombieri, "Efficient
// load balancing techniques for graph traversal applications on GPUs", section 3.2: a block-wide
// prefix-sum of the frontier's out-degrees, then each thread finds its edge's vertex by binary
// search), EPT edges per thread per pass, their loads issued back to back. The operator only
// records a claim the bitmap decided (Op::record_claim): exact for claim-once operators
// (Op::kClaimOnce; BFS), where the first claim of a vertex is its final value; the advance here
// holds no algorithm code. What bounds it: one SM's rate of shared-memory and L1 accesses on levels
// of many edges (the engine runs larger graphs on the multi-block kernels), ~1 us per level of
// barriers and dependent loads otherwise.
#include "traversal.cuh"
#include "block_scan.cuh"

#define AT_WG_THREADS 1024
#define AT_PATH_WHOLE_GRAPH 4  // level_info path code (autotune/_engine.py _PATH_NAMES)

// Frontier queue access: one array of n 16-bit ids; level L reads from one end, appends to the other.
__device__ __forceinline__ int at_wg_get(const unsigned short* q, int n, int L, int i) {
    return (L & 1) ? (int)q[n - 1 - i] : (int)q[i];
}
__device__ __forceinline__ void at_wg_put(unsigned short* q, int n, int L, int pos, int v) {
    if (L & 1) q[pos] = (unsigned short)v;  // level L+1 (even) reads from the front
    else q[n - 1 - pos] = (unsigned short)v;
}

template <int EPT, class Op>
__global__ void __launch_bounds__(AT_WG_THREADS, 1)
whole_graph_levels(const eid_t* __restrict__ row_offsets, const vid_t* __restrict__ column_indices,
                   const OpArgs* __restrict__ op, const vid_t* __restrict__ source_slot, BFSState* st,
                   BFSState* host_state, const BFSParams* __restrict__ prm, int* level_sizes, int* level_info,
                   u64* level_time) {
    static_assert(Op::kClaimOnce, "whole_graph_levels decides claims in a shared bitmap: claim-once operators only");
    extern __shared__ unsigned s_dyn[];
    __shared__ eid_t s_prefix[AT_WG_THREADS];  // exclusive degree prefix of this round's vertices
    __shared__ eid_t s_beg[AT_WG_THREADS];     // their row starts
    __shared__ vid_t s_u[AT_WG_THREADS];       // their ids
    __shared__ eid_t s_warp[33];
    __shared__ int s_next[3];  // appends of level L: s_next[L % 3]
    const int n = prm->n_vertices;
    const int words = (n + 31) >> 5;
    unsigned* const s_bits = s_dyn;                                             // visited bitmap
    unsigned short* const s_q = reinterpret_cast<unsigned short*>(s_dyn + words);  // n entries
    const int tid = (int)threadIdx.x;
    const unsigned lane = at_lane_id();
    const typename Op::Ctx octx = Op::context(op);

    for (int i = tid; i < n; i += AT_WG_THREADS) Op::reset_vertex(octx, i);
    for (int i = tid; i < words; i += AT_WG_THREADS) s_bits[i] = 0u;
    __syncthreads();  // the resets (this block's own writes) before the source's state
    if (tid == 0) {
        const vid_t source = *(const volatile vid_t*)source_slot;
        Op::init_source(op, source);
        s_bits[source >> 5] = 1u << (source & 31);
        s_q[0] = (unsigned short)source;
        s_next[0] = 0;
        level_time[0] = at_globaltimer();
    }
    __syncthreads();

    int L = 0, fsize = 1;
    long long explored = 0;
    while (true) {
        int* const next_ctr = &s_next[L % 3];
        // the next level's counter: last read at the end of level L - 2, before level L - 1's barriers
        // (level L - 1's, read now by the slower threads, is the third)
        if (tid == 0) s_next[(L + 1) % 3] = 0;
        for (int base = 0; base < fsize; base += AT_WG_THREADS) {  // block-uniform rounds
            const int i = base + tid;
            int deg = 0;
            eid_t beg = 0;
            vid_t u = -1;
            if (i < fsize) {
                u = at_wg_get(s_q, n, L, i);
                beg = row_offsets[u];
                deg = (int)(row_offsets[u + 1] - beg);
            }
            eid_t total;
            const eid_t excl = at_block_exclusive_scan(deg, total, s_warp);
            s_prefix[tid] = excl;
            s_beg[tid] = beg;
            s_u[tid] = u;
            __syncthreads();
            const int nv = min(AT_WG_THREADS, fsize - base);
            for (eid_t e0 = 0; e0 < total; e0 += (eid_t)EPT * AT_WG_THREADS) {  // block-uniform passes
                int j[EPT];
                vid_t v[EPT];
                bool claim[EPT];
#pragma unroll
                for (int k = 0; k < EPT; ++k) {
                    const eid_t e = e0 + (eid_t)k * AT_WG_THREADS + tid;
                    j[k] = e < total ? at_sb_last_le(s_prefix, nv, e) : -1;
                }
#pragma unroll
                for (int k = 0; k < EPT; ++k) {
                    const eid_t e = e0 + (eid_t)k * AT_WG_THREADS + tid;
                    v[k] = j[k] >= 0 ? __ldg(column_indices + s_beg[j[k]] + (e - s_prefix[j[k]])) : -1;
                }
#pragma unroll
                for (int k = 0; k < EPT; ++k) {
                    claim[k] = false;
                    if (v[k] >= 0) {
                        unsigned* const w = s_bits + (v[k] >> 5);
                        const unsigned bit = 1u << (v[k] & 31);
                        if ((*(volatile unsigned*)w & bit) == 0u) claim[k] = (atomicOr(w, bit) & bit) == 0u;
                        if (claim[k]) Op::record_claim(octx, s_u[j[k]], v[k], L);
                    }
                }
#pragma unroll
                for (int k = 0; k < EPT; ++k) {
                    const unsigned ballot = __ballot_sync(AT_FULL_MASK, claim[k]);
                    if (ballot != 0u) {
                        int pos = 0;
                        if (lane == 0) pos = atomicAdd(next_ctr, __popc(ballot));
                        pos = __shfl_sync(AT_FULL_MASK, pos, 0) + __popc(ballot & at_lanemask_lt());
                        if (claim[k]) at_wg_put(s_q, n, L, pos, v[k]);
                    }
                }
            }
            explored += total;
            __syncthreads();  // the round's shared arrays are rewritten by the next round; appends done
        }
        if (tid == 0) at_trace_level(prm, L, fsize, AT_PATH_WHOLE_GRAPH, level_sizes, level_info, level_time);
        fsize = *(volatile int*)next_ctr;
        ++L;
        if (fsize == 0) break;  // uniform: every thread read the same count after the barrier
    }

    if (tid == 0) {  // the state of a finished traversal, as the launch-round kernels leave it
        st->ctr[0] = 0ull;
        st->ctr[1] = 0ull;
        st->ctr[2] = 0ull;
        st->hub_ctr[0] = 0;
        st->hub_ctr[1] = 0;
        st->hub_ctr[2] = 0;
        st->level = L;
        st->done_blocks = 0u;
        st->dir = AT_PATH_PUSH;
        st->explored = explored;
        st->iterations = 1;
        st->pad = 0;
    }
    if (host_state != nullptr) {  // zero-copy read-back (see traversal_state_out); uniform
        __syncthreads();
        if (tid < 8)
            reinterpret_cast<volatile u64*>(host_state)[tid] = reinterpret_cast<const volatile u64*>(st)[tid];
    }
}
