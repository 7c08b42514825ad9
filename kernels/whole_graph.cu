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
// shared-memory atomicOr instead of a global atomicCAS at the L2, and the frontier queues are 16-bit
// vertex ids in shared memory too: ONE array of n entries holds both, the current frontier filling it
// from one end and the next from the other (the two are disjoint sets of vertices, so they never
// overlap). Where the graph itself fits beside them (kStaged), the block first copies the CSR into
// shared memory too (row offsets as 32-bit, column indices as 16-bit ids: 4 (n + 1) + 2 m bytes), so
// no level waits on a global load; a directed graph's in-edges, which its pull levels read, are staged
// the same way where they fit too. Shared memory: n / 8 + 2 n bytes (+ n / 8 for pull levels, + the
// staged CSR and in-edges), i.e. up to 65,536 vertices within the 227 KB a block may opt in to on an
// H100/H200 (the engine checks the device's limit and sizes it: autotune/_engine.py,
// whole_graph_smem_bytes).
//
// Push levels map edges by the scan-based mapping of Busato & Bombieri, "Efficient load balancing
// techniques for graph traversal applications on GPUs", section 3.2: a block-wide prefix-sum of up
// to 1024 frontier vertices' out-degrees, then every edge's vertex is found by search in it. A warp
// takes one contiguous share of the round's edges, each lane searches once per round and then
// follows its rows forward (a gallop: one shared read while it stays in a row), and EPT strided steps
// are unrolled so their column loads are in flight together. A frontier of at most 32 vertices skips
// the block scan: every warp scans it in registers (shuffles) and searches it by shuffles, so such a
// level costs one barrier.
//
// Pull levels: Beamer, Asanovic & Patterson, "Direction-Optimizing Breadth-First Search" (SC'12),
// sections 3-4: once the frontier's out-edges outnumber the unexplored edges / alpha (and the frontier
// holds at least n / beta vertices), every unvisited vertex looks for a parent among its in-neighbours
// (stopping at the first one in the frontier, a bitmap built from the queue), until the frontier
// shrinks below n / beta (GAP's rule and its alpha = 15, beta = 18). The frontier's out-edges are
// counted at the start of a level, and only for a frontier of at least n / beta vertices, so levels
// that cannot pull pay nothing for the rule. A thread scans the first pull_serial in-edges of its
// vertex alone, then its warp scans the rest of its unresolved vertices' in-edges 32 at a time (no
// lane walks a long in-edge row while 31 wait). The engine passes in-edges only to graphs where pull
// levels pay (autotune/_engine.py, whole_graph_pull: dense graphs). The operator only records a claim
// the bitmap decided (Op::record_claim): exact for claim-once operators (Op::kClaimOnce; BFS), where
// the first claim of a vertex is its final value; the advance here holds no algorithm code. What
// bounds it: ~0.5-1 us per level of barriers and dependent shared-memory reads, and on levels of many
// edges one SM's issue rate (the engine runs larger graphs on the multi-block kernels); a pull level
// pays its n / 1024 rounds however few in-edges it examines (soc-sign-bitcoinotc on an H200: six rounds,
// 64 in-edges, 2.7 us). So late pull levels (at most n / 4 vertices unvisited) of graphs of three rounds
// or more are packed (kPacked): each warp gathers the unvisited vertices of every 32nd bitmap word into
// its lanes and scans only those, ceil(unvisited / 32) warp steps instead of the rounds. The engine
// instantiates kPacked only for such graphs (autotune/_engine.py, whole_graph_packed); with kPacked
// false the kernel compiles to the same PTX as without that code, because any code added here moved the
// push levels of graphs that never pull (CA-GrQc, p2p-Gnutella04) by 3-10 % on an H200. Four other
// changes to the pull levels were measured and not kept (README, "Four changes to the pull levels";
// notebooks/experiments/whole_graph_pull_*.patch).
#include "traversal.cuh"
#include "block_scan.cuh"

#define AT_WG_THREADS 1024
#define AT_PATH_WHOLE_GRAPH 4       // level_info path codes (autotune/_engine.py _PATH_NAMES): push levels
#define AT_PATH_WHOLE_GRAPH_PULL 5  // pull levels

// Frontier queue access: one array of n 16-bit ids; level L reads from one end, appends to the other.
__device__ __forceinline__ int at_wg_get(const unsigned short* q, int n, int L, int i) {
    return (L & 1) ? (int)q[n - 1 - i] : (int)q[i];
}
__device__ __forceinline__ void at_wg_put(unsigned short* q, int n, int L, int pos, int v) {
    if (L & 1) q[pos] = (unsigned short)v;  // level L+1 (even) reads from the front
    else q[n - 1 - pos] = (unsigned short)v;
}

// The CSR a level reads: the staged copy in shared memory (kStaged) or the global arrays.
template <bool kStaged> struct WGCsr;
template <> struct WGCsr<true> {
    const unsigned* off;
    const unsigned short* col;
    __device__ __forceinline__ eid_t row(vid_t u) const { return (eid_t)off[u]; }
    __device__ __forceinline__ vid_t at(eid_t e) const { return (vid_t)col[e]; }
};
template <> struct WGCsr<false> {
    const eid_t* off;
    const vid_t* col;
    __device__ __forceinline__ eid_t row(vid_t u) const { return __ldg(off + u); }
    __device__ __forceinline__ vid_t at(eid_t e) const { return __ldg(col + e); }
};

__device__ __forceinline__ bool at_wg_bit(const unsigned* bits, int v) { return (bits[v >> 5] >> (v & 31)) & 1u; }

// Claim v (unvisited in the bitmap when read) for parent u at level L: the bitmap decides, the
// operator records. Returns whether this thread claimed it.
template <class Op>
__device__ __forceinline__ bool at_wg_claim(unsigned* bits, const typename Op::Ctx& octx, vid_t u, vid_t v, int L) {
    unsigned* const w = bits + (v >> 5);
    const unsigned bit = 1u << (v & 31);
    if ((*(volatile unsigned*)w & bit) != 0u) return false;
    if ((atomicOr(w, bit) & bit) != 0u) return false;
    Op::record_claim(octx, u, v, L);
    return true;
}

// Append the claimed ids of EPT ballots of this warp to the next frontier (one shared atomicAdd).
template <int EPT>
__device__ __forceinline__ void at_wg_append(const bool (&claim)[EPT], const vid_t (&v)[EPT], unsigned short* q, int n,
                                             int L, int* next_ctr) {
    unsigned ballot[EPT];
    int count = 0;
#pragma unroll
    for (int k = 0; k < EPT; ++k) {
        ballot[k] = __ballot_sync(AT_FULL_MASK, claim[k]);
        count += __popc(ballot[k]);
    }
    if (count == 0) return;  // warp-uniform
    int pos = 0;
    if (at_lane_id() == 0) pos = atomicAdd(next_ctr, count);
    pos = __shfl_sync(AT_FULL_MASK, pos, 0);
#pragma unroll
    for (int k = 0; k < EPT; ++k) {
        if (claim[k]) at_wg_put(q, n, L, pos + __popc(ballot[k] & at_lanemask_lt()), v[k]);
        pos += __popc(ballot[k]);
    }
}

// The frontier's i-th vertex of level L (fsize of them): its id u and row start beg; returns its
// out-degree (u = -1, 0 past the frontier).
template <bool kStaged>
__device__ __forceinline__ int at_wg_row(const WGCsr<kStaged>& g, const unsigned short* q, int n, int L, int i,
                                         int fsize, vid_t& u, eid_t& beg) {
    u = -1;
    beg = 0;
    if (i >= fsize) return 0;
    u = (vid_t)at_wg_get(q, n, L, i);
    beg = g.row(u);
    return (int)(g.row(u + 1) - beg);
}

// Dynamic shared memory, in 32-bit words, each part a multiple of 4 words (16 bytes): the visited
// bitmap, the frontier bitmap (pull levels only), the queue of n 16-bit ids, then when staged the
// n + 1 row offsets and the m 16-bit column ids. autotune/_engine.py (whole_graph_layout) mirrors it.
__device__ __forceinline__ int at_wg_round4(int x) { return (x + 3) & ~3; }

// The shared-memory parts of a traversal (the layout above) of a graph of n vertices.
struct WGShared {
    unsigned* bits;         // visited
    unsigned* fbits;        // frontier (pull levels)
    unsigned short* q;      // the two frontier queues
    unsigned* off;          // staged row offsets
    unsigned short* col;    // staged column ids
    unsigned* in_off;       // staged in-edge offsets (a directed graph's pull levels)
    unsigned short* in_col; // staged in-edge source ids
    int wbits;              // words of a bitmap
};
__device__ __forceinline__ WGShared at_wg_layout(uint4* dyn, int n, long long m, bool can_pull) {
    WGShared s;
    s.wbits = at_wg_round4((n + 31) >> 5);
    s.bits = reinterpret_cast<unsigned*>(dyn);
    s.fbits = s.bits + s.wbits;
    s.q = reinterpret_cast<unsigned short*>(s.fbits + (can_pull ? s.wbits : 0));
    s.off = reinterpret_cast<unsigned*>(s.q) + at_wg_round4((n + 1) >> 1);
    s.col = reinterpret_cast<unsigned short*>(s.off + at_wg_round4(n + 1));
    s.in_off = reinterpret_cast<unsigned*>(s.col) + at_wg_round4((int)((m + 1) >> 1));
    s.in_col = reinterpret_cast<unsigned short*>(s.in_off + at_wg_round4(n + 1));
    return s;
}

// Copy a CSR into shared memory (32-bit offsets, the 16-bit ids as whole 16-byte words): every thread
// its share, the caller's barrier publishes it.
__device__ __forceinline__ void at_wg_stage(const eid_t* __restrict__ offsets, const uint4* __restrict__ ids16,
                                            unsigned* s_off, unsigned short* s_ids, int n, long long m) {
    const int tid = (int)threadIdx.x;
    for (int i = tid; i <= n; i += AT_WG_THREADS) s_off[i] = (unsigned)offsets[i];
    const int c4 = at_wg_round4((int)((m + 1) >> 1)) >> 2;
    uint4* const s4 = reinterpret_cast<uint4*>(s_ids);
    for (int i = tid; i < c4; i += AT_WG_THREADS) s4[i] = __ldg(ids16 + i);
}

// The CSR the levels read: staged into shared memory (kStaged) or the global arrays; a directed
// graph's in-edges are staged too when the engine passes them as 16-bit ids (in_columns16).
template <bool kStaged>
__device__ __forceinline__ WGCsr<kStaged> at_wg_csr(const eid_t* __restrict__ row_offsets,
                                                    const vid_t* __restrict__ column_indices,
                                                    const uint4* __restrict__ columns16,
                                                    const eid_t* __restrict__ pull_offsets,
                                                    const uint4* __restrict__ in_columns16, const WGShared& s, int n,
                                                    long long m) {
    if constexpr (kStaged) {
        at_wg_stage(row_offsets, columns16, s.off, s.col, n, m);
        if (in_columns16 != nullptr) at_wg_stage(pull_offsets, in_columns16, s.in_off, s.in_col, n, m);
        return WGCsr<true>{s.off, s.col};
    } else {
        return WGCsr<false>{row_offsets, column_indices};
    }
}

// One whole traversal from `source` (read by thread 0 only) by the calling block: the per-vertex
// reset, every level, the state (and its zero-copy read-back where host_state is given); returns the
// number of levels. The staged CSR (kStaged) is complete
// or is being copied by this block's threads: the first barrier here publishes it. kPacked: late pull
// levels packed (above).
template <int EPT, bool kStaged, bool kPacked, class Op>
__device__ __forceinline__ int at_wg_traverse(const WGCsr<kStaged>& g, const WGShared& sh,
                                               const eid_t* __restrict__ row_offsets,
                                               const eid_t* __restrict__ pull_offsets,
                                               const vid_t* __restrict__ pull_indices, int pull_alpha,
                                               int pull_beta, int pull_serial, const OpArgs* __restrict__ op,
                                               vid_t source, BFSState* st, BFSState* host_state,
                                               const BFSParams* __restrict__ prm, int* level_sizes,
                                               int* level_info, u64* level_time, bool in_staged) {
    __shared__ eid_t s_prefix[AT_WG_THREADS];  // exclusive degree prefix of this round's vertices
    __shared__ eid_t s_beg[AT_WG_THREADS];     // their row starts
    __shared__ vid_t s_u[AT_WG_THREADS];       // their ids
    __shared__ eid_t s_warp[33];
    __shared__ int s_next[3];          // appends of level L: s_next[L % 3]
    const int n = prm->n_vertices;
    const long long m = prm->n_edges;
    const bool can_pull = pull_offsets != nullptr;
    const int wbits = sh.wbits;
    unsigned* const s_bits = sh.bits;
    unsigned* const s_fbits = sh.fbits;
    unsigned short* const s_q = sh.q;
    const int tid = (int)threadIdx.x;
    const int lane = (int)at_lane_id();
    const typename Op::Ctx octx = Op::context(op);

    // pull levels read in-edges: the staged CSR when they are the same arrays (undirected graphs), or
    // the staged in-edges (in_staged)
    const bool pull_staged = kStaged && (pull_offsets == row_offsets || in_staged);
    const WGCsr<true> gin{in_staged ? sh.in_off : sh.off, in_staged ? sh.in_col : sh.col};
    for (int i = tid; i < n; i += AT_WG_THREADS) Op::reset_vertex(octx, i);
    for (int i = tid; i < wbits; i += AT_WG_THREADS) s_bits[i] = 0u;
    __syncthreads();  // the resets (this block's own writes) before the source's state
    if (tid == 0) {
        Op::init_source(op, source);
        s_bits[source >> 5] = 1u << (source & 31);
        s_q[0] = (unsigned short)source;
        s_next[0] = 0;
        level_time[0] = at_globaltimer();
    }
    __syncthreads();

    int L = 0, fsize = 1;
    int visited = 1;  // vertices claimed so far (the frontiers' sizes, the current one included)
    bool pulling = false, after_pull = false;
    long long explored = 0;  // out-edges of the push levels' frontiers (GAP's edges_to_check is m - explored)
    while (true) {
        int* const next_ctr = &s_next[L % 3];
        // the next level's counter: last read at the end of level L - 2, before level L - 1's barriers
        // (level L - 1's, read now by the slower threads, is the third)
        if (tid == 0) s_next[(L + 1) % 3] = 0;
        if (can_pull && !pulling && !after_pull && (long long)fsize * pull_beta >= (long long)n) {
            // GAP's rule (bfs.cc, DOBFS): push -> pull when the frontier's out-edges (its scout count)
            // exceed the unexplored edges / alpha. Counted here, over the frontier, and only for a frontier
            // of at least n / beta vertices (the size below which pull levels end): a pull level visits
            // every vertex (n / 1024 rounds of the block) and scans the in-edges of the unreachable ones
            // each time, which a small frontier's push level does not pay (meshes' last levels, graphs of
            // many components); levels below that size pay nothing for the rule.
            eid_t mine = 0;
            for (int i = tid; i < fsize; i += AT_WG_THREADS) {
                vid_t u;
                eid_t b;
                mine += at_wg_row(g, s_q, n, L, i, fsize, u, b);
            }
            eid_t scout;
            at_block_exclusive_scan(mine, scout, s_warp);  // the next use of s_warp is after a warp-wide shuffle
            pulling = (long long)scout > (m - explored) / pull_alpha;
        }
        after_pull = false;  // GAP: one push level after every pull phase (its scout count restarts at 1)
        if (pulling) {
            // the frontier as a bitmap, from the queue
            for (int i = tid; i < wbits; i += AT_WG_THREADS) s_fbits[i] = 0u;
            __syncthreads();
            for (int i = tid; i < fsize; i += AT_WG_THREADS) {
                const int u = at_wg_get(s_q, n, L, i);
                atomicOr(s_fbits + (u >> 5), 1u << (u & 31));
            }
            __syncthreads();
            // Every vertex once, a thread each (block-uniform rounds). A thread scans at most pull_serial
            // in-edges of its vertex alone (a parent is usually among the first in-edges of a vertex the
            // frontier reaches); the rest of the in-edges of its warp's unresolved vertices are then
            // scanned by the whole warp, 32 at a time (the same shuffle search as a small frontier's push
            // level), so a vertex the frontier does not reach (most of them while the frontier is young,
            // all of those in other components) costs its warp in-degree / 32 steps, not in-degree
            // dependent reads in one lane while 31 wait.
            if (kPacked && n > 2 * AT_WG_THREADS && (long long)(n - visited) * 4 <= (long long)n) {
              // late pull levels of graphs of three rounds or more: each warp packs the unvisited vertices of
              // every 32nd bitmap word into its lanes, ceil(its unvisited / 32) steps instead of the rounds.
              // The per-vertex scan below repeats the rounds' (after this branch) on purpose: one helper for
              // both changes the PTX of the rounds (checked with NVRTC), which kPacked false keeps identical
              // to the kernel before the packed levels (whole_graph_ptx_compare.py).
              const int warp = tid >> 5;
              for (int k0 = 0; warp + 32 * k0 < ((n + 31) >> 5); k0 += 32) {  // warp-uniform chunks of 32 words
                const int n_words = (n + 31) >> 5;
                const int wi = warp + 32 * (k0 + lane);
                unsigned unv = 0u;
                if (wi < n_words) {
                    unv = ~s_bits[wi];
                    if (wi == n_words - 1 && (n & 31) != 0) unv &= (1u << (n & 31)) - 1u;
                }
                const int cnt = __popc(unv);
                const int cincl = at_warp_inclusive_scan(cnt);
                const int ctotal = __shfl_sync(AT_FULL_MASK, cincl, 31);
                const int cexcl = cincl - cnt;
                for (int s0 = 0; s0 < ctotal; s0 += 32) {
                    const int px = s0 + lane;
                    const int pj = at_warp_last_le(cexcl, px, 32);
                    const unsigned wj = __shfl_sync(AT_FULL_MASK, unv, pj);
                    const int rj = px - __shfl_sync(AT_FULL_MASK, cexcl, pj);
                    const vid_t v = px < ctotal ? (vid_t)((warp + 32 * (k0 + pj)) * 32 + at_nth_set_bit(wj, rj)) : -1;
                    bool claim[1] = {false};
                    vid_t vv[1] = {v};
                    eid_t e = 0, end = 0;
                    if (v >= 0) {
                        if (pull_staged) { e = gin.row(v); end = gin.row(v + 1); }
                        else { e = __ldg(pull_offsets + v); end = __ldg(pull_offsets + v + 1); }
                        const eid_t stop = min(end, e + (eid_t)pull_serial);
                        for (; e < stop; ++e) {
                            const vid_t u = pull_staged ? gin.at(e) : __ldg(pull_indices + e);
                            if (at_wg_bit(s_fbits, u)) {
                                atomicOr(s_bits + (v >> 5), 1u << (v & 31));
                                Op::record_claim(octx, u, v, L);
                                claim[0] = true;
                                e = end;
                                break;
                            }
                        }
                    }
                    at_wg_append<1>(claim, vv, s_q, n, L, next_ctr);
                    const int rem = (int)(end - e);
                    const int incl = at_warp_inclusive_scan(rem);
                    const int total = __shfl_sync(AT_FULL_MASK, incl, 31);
                    const int excl = incl - rem;
                    for (int x0 = 0; x0 < total; x0 += 32) {
                        const int x = x0 + lane;
                        const int j = at_warp_last_le(excl, x, 32);
                        const eid_t ej = __shfl_sync(AT_FULL_MASK, e, j) + (eid_t)(x - __shfl_sync(AT_FULL_MASK, excl, j));
                        const vid_t vj = __shfl_sync(AT_FULL_MASK, v, j);
                        claim[0] = false;
                        vv[0] = vj;
                        if (x < total && !at_wg_bit(s_bits, vj)) {
                            const vid_t u = pull_staged ? gin.at(ej) : __ldg(pull_indices + ej);
                            if (at_wg_bit(s_fbits, u)) claim[0] = at_wg_claim<Op>(s_bits, octx, u, vj, L);
                        }
                        at_wg_append<1>(claim, vv, s_q, n, L, next_ctr);
                    }
                }
              }
            } else {
            const int wbase = (tid >> 5) << 5;
            for (int base = 0; base < n; base += AT_WG_THREADS) {
                const vid_t v = base + tid;
                bool claim[1] = {false};
                vid_t vv[1] = {v};
                eid_t e = 0, end = 0;
                if (v < n && !at_wg_bit(s_bits, v)) {
                    if (pull_staged) { e = gin.row(v); end = gin.row(v + 1); }
                    else { e = __ldg(pull_offsets + v); end = __ldg(pull_offsets + v + 1); }
                    const eid_t stop = min(end, e + (eid_t)pull_serial);
                    for (; e < stop; ++e) {
                        const vid_t u = pull_staged ? gin.at(e) : __ldg(pull_indices + e);
                        if (at_wg_bit(s_fbits, u)) {
                            atomicOr(s_bits + (v >> 5), 1u << (v & 31));  // only this warp claims v
                            Op::record_claim(octx, u, v, L);
                            claim[0] = true;
                            e = end;
                            break;
                        }
                    }
                }
                at_wg_append<1>(claim, vv, s_q, n, L, next_ctr);
                const int rem = (int)(end - e);  // in-edges left of an unresolved vertex
                const int incl = at_warp_inclusive_scan(rem);
                const int total = __shfl_sync(AT_FULL_MASK, incl, 31);
                const int excl = incl - rem;
                for (int x0 = 0; x0 < total; x0 += 32) {  // warp-uniform steps
                    const int x = x0 + lane;
                    const int j = at_warp_last_le(excl, x, 32);  // the lane whose remaining in-edges hold x
                    const eid_t ej = __shfl_sync(AT_FULL_MASK, e, j) + (eid_t)(x - __shfl_sync(AT_FULL_MASK, excl, j));
                    const vid_t vj = base + wbase + j;
                    claim[0] = false;
                    vv[0] = vj;
                    if (x < total && !at_wg_bit(s_bits, vj)) {
                        const vid_t u = pull_staged ? gin.at(ej) : __ldg(pull_indices + ej);
                        // lanes of this warp may tie on vj: the bitmap decides
                        if (at_wg_bit(s_fbits, u)) claim[0] = at_wg_claim<Op>(s_bits, octx, u, vj, L);
                    }
                    at_wg_append<1>(claim, vv, s_q, n, L, next_ctr);
                }
            }
            }
            __syncthreads();  // (the state's explored count covers push levels' edges)
        } else if (fsize <= 32) {
            // every warp scans the (at most 32) frontier vertices in registers: no block barrier
            vid_t u;
            eid_t beg;
            const int deg = at_wg_row(g, s_q, n, L, lane, fsize, u, beg);
            const int incl = at_warp_inclusive_scan(deg);
            const int total = __shfl_sync(AT_FULL_MASK, incl, 31);
            const int excl = incl - deg;
            const int per_warp = (total + AT_WG_THREADS - 1) / AT_WG_THREADS * 32;
            const int wb = (tid >> 5) * per_warp;
            const int we = min(wb + per_warp, total);
            for (int e0 = wb; e0 < we; e0 += EPT * 32) {  // warp-uniform steps
                bool claim[EPT];
                vid_t v[EPT];
#pragma unroll
                for (int k = 0; k < EPT; ++k) {
                    const int e = e0 + k * 32 + lane;
                    // the lane j with excl_j <= e < excl_j + deg_j: last j with excl_j <= e, by shuffles
                    const int j = at_warp_last_le(excl, e, fsize);
                    const eid_t bj = __shfl_sync(AT_FULL_MASK, beg, j);
                    const int ej = __shfl_sync(AT_FULL_MASK, excl, j);
                    const vid_t uj = __shfl_sync(AT_FULL_MASK, u, j);
                    claim[k] = false;
                    v[k] = -1;
                    if (e < we) {
                        v[k] = g.at(bj + (eid_t)(e - ej));
                        claim[k] = at_wg_claim<Op>(s_bits, octx, uj, v[k], L);
                    }
                }
                at_wg_append<EPT>(claim, v, s_q, n, L, next_ctr);
            }
            explored += total;
            __syncthreads();  // the level's claims and appends before the next level reads them
        } else {
            for (int base = 0; base < fsize; base += AT_WG_THREADS) {  // block-uniform rounds
                vid_t u;
                eid_t beg;
                const int deg = at_wg_row(g, s_q, n, L, base + tid, fsize, u, beg);
                eid_t total;
                const eid_t excl = at_block_exclusive_scan(deg, total, s_warp);
                s_prefix[tid] = excl;
                s_beg[tid] = beg;
                s_u[tid] = u;
                __syncthreads();
                const int nv = min(AT_WG_THREADS, fsize - base);
                // Each warp takes one contiguous range of the round's edges (a multiple of 32, the last
                // shorter), its lanes striding it 32 edges at a time; each lane finds its edge's vertex
                // by ONE binary search per round, then follows it forward with a galloping step.
                const eid_t per_warp = (total + AT_WG_THREADS - 1) / AT_WG_THREADS * 32;
                const eid_t wb = (eid_t)(tid >> 5) * per_warp;
                const eid_t we = min(wb + per_warp, total);
                int j = -1;  // this lane's row (index into the round's arrays) of its last edge
                for (eid_t e0 = wb; e0 < we; e0 += (eid_t)EPT * 32) {  // warp-uniform steps
                    int jk[EPT];
                    vid_t v[EPT];
                    bool claim[EPT];
#pragma unroll
                    for (int k = 0; k < EPT; ++k) {
                        const eid_t e = e0 + (eid_t)(k * 32 + lane);
                        jk[k] = -1;
                        if (e < we) {
                            j = j < 0 ? at_sb_last_le(s_prefix, nv, e) : at_sb_advance(s_prefix, nv, j, e);
                            jk[k] = j;
                        }
                    }
#pragma unroll
                    for (int k = 0; k < EPT; ++k) {
                        const eid_t e = e0 + (eid_t)(k * 32 + lane);
                        v[k] = jk[k] >= 0 ? g.at(s_beg[jk[k]] + (e - s_prefix[jk[k]])) : -1;
                    }
#pragma unroll
                    for (int k = 0; k < EPT; ++k)
                        claim[k] = v[k] >= 0 && at_wg_claim<Op>(s_bits, octx, s_u[jk[k]], v[k], L);
                    at_wg_append<EPT>(claim, v, s_q, n, L, next_ctr);
                }
                explored += total;
                __syncthreads();  // the round's shared arrays are rewritten by the next round; appends done
            }
        }
        if (tid == 0)
            at_trace_level(prm, L, fsize, pulling ? AT_PATH_WHOLE_GRAPH_PULL : AT_PATH_WHOLE_GRAPH, level_sizes,
                           level_info, level_time);
        const int next = *(volatile int*)next_ctr;
        if (pulling && next < fsize && (long long)next * pull_beta < (long long)n) {
            // GAP: stay bottom-up while the frontier grows or holds more than n / beta vertices
            pulling = false;
            after_pull = true;
        }
        fsize = next;
        visited += next;
        ++L;
        if (fsize == 0) break;  // uniform: every thread read the same count after the barrier
    }

    at_finish_state(st, host_state, L, explored);
    return L;
}

template <int EPT, bool kStaged, bool kPacked, class Op>
__global__ void __launch_bounds__(AT_WG_THREADS, 1)
whole_graph_levels(const eid_t* __restrict__ row_offsets, const vid_t* __restrict__ column_indices,
                   const uint4* __restrict__ columns16, const eid_t* __restrict__ pull_offsets,
                   const vid_t* __restrict__ pull_indices, int pull_alpha, int pull_beta, int pull_serial,
                   const OpArgs* __restrict__ op, const vid_t* __restrict__ source_slot, BFSState* st,
                   BFSState* host_state, const BFSParams* __restrict__ prm, int* level_sizes, int* level_info,
                   u64* level_time, const uint4* __restrict__ in_columns16) {
    static_assert(Op::kClaimOnce, "whole_graph_levels decides claims in a shared bitmap: claim-once operators only");
    extern __shared__ uint4 s_dyn4[];
    // the source: a zero-copy read across the bus, issued first so it is in flight during the staging
    // and the reset
    const vid_t source = threadIdx.x == 0 ? *(const volatile vid_t*)source_slot : 0;
    const WGShared sh = at_wg_layout(s_dyn4, prm->n_vertices, prm->n_edges, pull_offsets != nullptr);
    const WGCsr<kStaged> g = at_wg_csr<kStaged>(row_offsets, column_indices, columns16, pull_offsets, in_columns16,
                                                sh, prm->n_vertices, prm->n_edges);
    at_wg_traverse<EPT, kStaged, kPacked, Op>(g, sh, row_offsets, pull_offsets, pull_indices, pull_alpha, pull_beta,
                                     pull_serial, op, source, st, host_state, prm, level_sizes, level_info,
                                     level_time, kStaged && in_columns16 != nullptr);
}

// The resident form: ONE launch serves many traversals. The block stages the CSR once, then waits
// for requests in a mailbox of mapped (pinned) host memory (block_scan.cuh: at_res_wait) and answers
// each with a whole traversal, so a traversal costs no launch, no staging and no stream wait: the host
// writes the request, spins on the answer (autotune/_engine.py, TraversalEngine._traverse_resident).
// After the traversal the kernel copies the engine's result buffer (`result`, result_len 8-byte words:
// BFS's distances and predecessors) to the address the request carries, so a result lands in the
// caller's own array: no copy launch, no second stream wait. `served` is the sequence number already
// answered when the launch was made; the kernel returns when asked, or by itself once no request came
// for idle_ns nanoseconds.
template <int EPT, bool kStaged, bool kPacked, class Op>
__global__ void __launch_bounds__(AT_WG_THREADS, 1)
whole_graph_resident(const eid_t* __restrict__ row_offsets, const vid_t* __restrict__ column_indices,
                     const uint4* __restrict__ columns16, const eid_t* __restrict__ pull_offsets,
                     const vid_t* __restrict__ pull_indices, int pull_alpha, int pull_beta, int pull_serial,
                     const OpArgs* __restrict__ op, volatile unsigned long long* mailbox, unsigned served,
                     long long idle_ns, long long busy_ns, int nap_ns, const uint2* __restrict__ result,
                     int result_len, BFSState* st,
                     const BFSParams* __restrict__ prm, int* level_sizes, int* level_info, u64* level_time,
                     const uint4* __restrict__ in_columns16) {
    static_assert(Op::kClaimOnce, "whole_graph_resident decides claims in a shared bitmap: claim-once operators only");
    extern __shared__ uint4 s_dyn4[];
    __shared__ unsigned long long s_req;
    __shared__ uint2* s_out;
    const WGShared sh = at_wg_layout(s_dyn4, prm->n_vertices, prm->n_edges, pull_offsets != nullptr);
    const WGCsr<kStaged> g = at_wg_csr<kStaged>(row_offsets, column_indices, columns16, pull_offsets, in_columns16,
                                                sh, prm->n_vertices, prm->n_edges);
    while (true) {
        if (threadIdx.x == 0) s_req = at_res_wait(mailbox, served, idle_ns, busy_ns, nap_ns, s_out);
        __syncthreads();  // (also publishes the staged CSR before the first traversal)
        const unsigned long long req = s_req;
        const unsigned source = (unsigned)(req & 0xFFFFFFFFull);
        if (source == 0xFFFFFFFFu) return;  // asked to return, or idle (block-uniform)
        served = (unsigned)(req >> 32);
        const int levels = at_wg_traverse<EPT, kStaged, kPacked, Op>(g, sh, row_offsets, pull_offsets, pull_indices,
                                                            pull_alpha, pull_beta, pull_serial, op, (vid_t)source,
                                                            st, nullptr, prm, level_sizes, level_info, level_time,
                                                            kStaged && in_columns16 != nullptr);
        uint2* const out = s_out;
        if (out != nullptr) {
            __syncthreads();  // every claim recorded
            for (int i = (int)threadIdx.x; i < result_len; i += AT_WG_THREADS) out[i] = result[i];
        }
        __threadfence();  // every thread's results (distances, predecessors, trace, state) device-wide ...
        __syncthreads();  // ... and s_req, s_out read by all, before the answer
        if (threadIdx.x == 0) at_res_answer(mailbox, levels, served);
    }
}
