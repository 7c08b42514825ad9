// cluster_graph.cu -- a whole BFS in ONE launch of ONE thread-block cluster (Hopper, sm_90): C blocks
// on C SMs of one GPC, their shared memories joined into one distributed shared memory (DSMEM).
//
// The one-block whole-graph kernel (whole_graph.cu) runs a BFS start to finish on one SM, which
// bounds it on graphs of 10^5 edges and more (one SM's issue rate), while the multi-block kernels pay
// a launch round (or a grid barrier) and global-memory claims per level. This kernel is the same
// traversal spread over a cluster: the levels are separated by the cluster's hardware barrier
// (barrier.cluster, a few hundred ns) instead of a grid barrier, and the visited status stays in
// shared memory, now distributed.
//
// Busato & Bombieri, "BFS-4K: an Efficient Implementation of BFS for Kepler GPU Architectures",
// section 5.5: levels iterated on the device, without a launch per level, while the frontier is
// small; here for every level of the traversal, on a group of SMs that synchronise in hardware.
//
// Liu & Huang, "Enterprise: Breadth-First Graph Traversal on GPUs" (SC'15), section 2 (Table 2: the
// status array in the fastest memory that holds it): the visited bitmap is partitioned over the
// cluster's shared memories. Block r OWNS the vertices [bounds[r], bounds[r+1]) (contiguous ranges of
// about equal edges + vertices, starting at multiples of 32, chosen by the engine): their visited bits,
// their next-frontier bits, their frontier queue (16-bit local ids), their parents and levels, and,
// where it fits, their CSR rows (staged: row offsets relative to the range, 32-bit column ids), so a
// block expands only its own frontier vertices and reads their edges from its own shared memory. A
// claim of vertex v goes to v's owner: a shared-memory atomicOr on its visited word when the claimer
// owns v, else the same atomic on the owner's shared memory through DSMEM (mapa +
// atom.shared::cluster, one round trip), and then, without waiting, the parent into the owner's slot
// of v and v's bit in the owner's next-frontier bitmap (st / red.shared::cluster). After the level's
// cluster barrier each block turns its next-frontier bitmap into its next queue (a block-wide scan of
// the words' popcounts) and notes the level of each new vertex, so no queue is appended across SMs.
// The operator's per-vertex results (Op::record_claim, Op::init_source, Op::reset_vertex for vertices
// not reached) are written once, by each block for its range, after the last level: no global store
// is outstanding at a level's barrier, whose release waits for every store of the block. Every block
// counts its claims; after the barrier each block reads the C counts (one DSMEM load per lane of one
// warp) and all agree on the next frontier's size, so they run the same number of barriers and stop
// together.
//
// Push levels map a block's frontier edges as whole_graph.cu does (Busato & Bombieri, "Efficient load
// balancing techniques for graph traversal applications on GPUs", section 3.2: a block-wide prefix-sum
// of up to 1024 frontier vertices' out-degrees, each warp one contiguous share of the edges, each lane
// one binary search per round, then a gallop), and a frontier of at most 32 vertices by registers; a
// block whose range holds no frontier vertex goes straight to the barrier.
//
// Pull levels: Beamer, Asanovic & Patterson, "Direction-Optimizing Breadth-First Search" (SC'12),
// sections 3-4, with GAP's rule (alpha = 15, beta = 18): at the start of a level whose frontier holds at
// least n / beta vertices, the blocks sum their frontier's out-edges (one extra cluster barrier on
// those levels only) and pull when that exceeds the unexplored edges / alpha. A pull level first
// gathers the whole frontier bitmap into every block's shared memory (n / 32 DSMEM loads spread over
// the cluster), then every block looks for a parent of each of its unvisited vertices among its
// in-edges: a thread scans pull_serial of them alone, then its warp scans the rest 32 at a time. The
// claims of a pull level are the owner's own (no atomic crosses SMs).
//
// What bounds it (measured on an H200, notebooks/figures/cluster_barrier_h200.json and
// cluster_phases_v3_h200.json): a level costs ~2.5 us before its edges -- the cluster barrier (0.31 us
// alone with 16 blocks of 1024 threads, 0.07 us without release semantics, more when the blocks arrive
// unevenly), the DSMEM round trip of the counts, the bitmap-to-queue pass and the bookkeeping that all
// 32 warps of a block run (8 warps share each of an SM's 4 schedulers, so every instruction they all
// run costs 8 issue slots). That is more than the persistent kernel's grid barrier costs on levels of a
// few vertices, so on deep, narrow graphs (thousands of levels) the launch rounds stay faster, while on
// levels of 10^2-10^4 vertices the 16 SMs' shared-memory claims win; the engine times both on each
// graph before its first traversal and keeps the faster (autotune/_engine.py, CLUSTER = "auto").
#include "traversal.cuh"
#include "block_scan.cuh"

#define AT_CL_THREADS 1024
#define AT_PATH_CLUSTER 6       // level_info path codes (autotune/_engine.py _PATH_NAMES): push levels
#define AT_PATH_CLUSTER_PULL 7  // pull levels

// Thread-block clusters and DSMEM are sm_90 features: built for an older architecture (NVRTC's check
// in CI compiles every file for sm_80 too) the kernel is an empty trap the engine never launches
// (it takes this kernel only on devices of compute capability 9.0 or more).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
#define AT_CL_SM90 1
#define AT_CL_DIMS(c) __cluster_dims__(c, 1, 1)
#else
#define AT_CL_DIMS(c)
#endif

#ifdef AT_CL_SM90
__device__ __forceinline__ unsigned at_cl_addr(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
// The same shared-memory address in block `rank` of the cluster (every block has the same layout).
__device__ __forceinline__ unsigned at_cl_map(unsigned addr, int rank) {
    unsigned d;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(d) : "r"(addr), "r"(rank));
    return d;
}
__device__ __forceinline__ unsigned at_cl_ld(unsigned addr) {
    unsigned v;
    asm volatile("ld.relaxed.cluster.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}
__device__ __forceinline__ long long at_cl_ld64(unsigned addr) {
    long long v;
    asm volatile("ld.relaxed.cluster.shared::cluster.s64 %0, [%1];" : "=l"(v) : "r"(addr) : "memory");
    return v;
}
__device__ __forceinline__ unsigned at_cl_atom_or(unsigned addr, unsigned x) {
    unsigned old;
    asm volatile("atom.relaxed.cluster.shared::cluster.or.b32 %0, [%1], %2;" : "=r"(old) : "r"(addr), "r"(x) : "memory");
    return old;
}
__device__ __forceinline__ void at_cl_st(unsigned addr, unsigned x) {
    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(addr), "r"(x) : "memory");
}
__device__ __forceinline__ void at_cl_red_or(unsigned addr, unsigned x) {
    asm volatile("red.relaxed.cluster.shared::cluster.or.b32 [%0], %1;" ::"r"(addr), "r"(x) : "memory");
}
// Every thread of every block of the cluster: writes before it (shared, distributed shared and global)
// are visible to every thread after it.
__device__ __forceinline__ void at_cl_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}
__device__ __forceinline__ int at_cl_rank() {
    unsigned r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return (int)r;
}

// A block's rows: staged in its shared memory (offsets relative to the range's first edge) or global.
// Rows are indexed by LOCAL id (v - bounds[r]); column ids are global.
template <bool kStaged> struct CLCsr;
template <> struct CLCsr<true> {
    const unsigned* off;
    const unsigned* col;
    __device__ __forceinline__ eid_t row(int ul) const { return (eid_t)off[ul]; }
    __device__ __forceinline__ vid_t at(eid_t e) const { return (vid_t)col[e]; }
};
template <> struct CLCsr<false> {
    const eid_t* off;  // row_offsets + bounds[r]
    const vid_t* col;
    __device__ __forceinline__ eid_t row(int ul) const { return __ldg(off + ul); }
    __device__ __forceinline__ vid_t at(eid_t e) const { return __ldg(col + e); }
};

// Claim v for parent u: v's owner's visited bitmap decides (a shared-memory atomic when this block owns
// v, else the same atomic through DSMEM: one round trip, no load first); the winner writes u into the
// owner's parent slot of v and sets v's bit in the owner's next-frontier bitmap (s_nbL: the ring of
// this level; every block has the same layout), both without waiting. The operator records the claim
// after the last level, from the owner's parent and level slots: no global store is outstanding at a
// level's barrier, whose release would wait for it.
__device__ __forceinline__ bool at_cl_claim(unsigned* s_bits, unsigned* s_nbL, vid_t* s_pred,
                                            const unsigned char* s_own, const int* s_wlo, int rank, vid_t u,
                                            vid_t v) {
    const int w = v >> 5;
    const int s = (int)s_own[w];
    const int wl = w - s_wlo[s];
    const int vl = v - 32 * s_wlo[s];  // ranges start at whole words
    const unsigned bit = 1u << (v & 31);
    if (s == rank) {
        unsigned* const p = s_bits + wl;
        if ((*(volatile unsigned*)p & bit) != 0u) return false;
        if ((atomicOr(p, bit) & bit) != 0u) return false;
        s_pred[vl] = u;
        atomicOr(s_nbL + wl, bit);
    } else {
        if ((at_cl_atom_or(at_cl_map(at_cl_addr(s_bits + wl), s), bit) & bit) != 0u) return false;
        at_cl_st(at_cl_map(at_cl_addr(s_pred + vl), s), (unsigned)u);
        at_cl_red_or(at_cl_map(at_cl_addr(s_nbL + wl), s), bit);
    }
    return true;
}

__device__ __forceinline__ int at_cl_round4(int x) { return (x + 3) & ~3; }

// Levels L0 .. L0 + k - 1 of the trace, from block 0's shared buffer (slots L & 31) to the trace arrays
// (levels past trace_cap are not traced, as at_trace_level).
__device__ __forceinline__ void at_cl_trace_out(int L0, int k, int trace_cap, const int* s_tsize, const int* s_tinfo,
                                                const u64* s_ttime, int* level_sizes, int* level_info, u64* level_time) {
    for (int i = 0; i < k && L0 + i < trace_cap; ++i) {
        level_sizes[L0 + i] = s_tsize[i];
        level_info[L0 + i] = s_tinfo[i];
        level_time[L0 + i + 1] = s_ttime[i];
    }
}

#endif  // AT_CL_SM90

// Dynamic shared memory, in 32-bit words, the same layout in every block (wmax = the largest range's
// bitmap words, a multiple of 4): visited bits (wmax), next-frontier bits (3 x wmax, a ring: level L's
// claims go to ring L % 3), the whole frontier bitmap for pull levels (nw = ceil(n / 32), rounded to
// 4; pull only), the word -> owner table (nw bytes), the queue (32 wmax 16-bit local ids), the parent
// and the level of each vertex of the range (32 wmax each), then when staged the range's row offsets
// (32 wmax + 1) and column ids (emax). autotune/_engine.py (cluster_smem_bytes) mirrors it.
template <int C, bool kStaged, bool kResident, class Op>
__device__ __forceinline__ void
at_cl_run(const eid_t* __restrict__ row_offsets, const vid_t* __restrict__ column_indices,
          const eid_t* __restrict__ pull_offsets, const vid_t* __restrict__ pull_indices,
          const int* __restrict__ bounds, const unsigned char* __restrict__ owners, int wmax,
          int pull_alpha, int pull_beta, int pull_serial, const OpArgs* __restrict__ op,
          const vid_t* __restrict__ source_slot, BFSState* st, BFSState* host_state,
          const BFSParams* __restrict__ prm, int* level_sizes, int* level_info, u64* level_time,
          volatile unsigned long long* mailbox, unsigned served, long long idle_ns, long long busy_ns, int nap_ns,
          const uint2* __restrict__ result, int result_len, long long* phases) {
#ifdef AT_CL_SM90
#ifdef AT_CL_PHASES
    long long ph[6] = {0, 0, 0, 0, 0, 0}, t_last = clock64();
#define AT_CL_T(k) if (!kResident && threadIdx.x == 0) { const long long t_ = clock64(); ph[k] += t_ - t_last; t_last = t_; }
#else
#define AT_CL_T(k)
#endif
    static_assert(Op::kClaimOnce, "cluster_levels decides claims in a shared bitmap: claim-once operators only");
    extern __shared__ uint4 s_dyn4[];
    __shared__ eid_t s_prefix[AT_CL_THREADS];  // exclusive degree prefix of this round's vertices
    __shared__ eid_t s_beg[AT_CL_THREADS];     // their row starts
    __shared__ vid_t s_u[AT_CL_THREADS];       // their global ids
    __shared__ eid_t s_warp[33];
    __shared__ int s_wlo[C + 1];       // first bitmap word of each block's range
    __shared__ int s_cnt[3];           // claims this block made at level L: s_cnt[L % 3] (read by every block)
    __shared__ int s_edges[3];         // out-edges this block expanded at level L (push levels)
    __shared__ long long s_scout;      // this block's frontier out-edges (levels that may pull)
    __shared__ long long s_sum[2];     // the cluster's sums, for this block's threads
    __shared__ int s_tsize[32], s_tinfo[32];  // the trace of the last 32 levels (block 0), written out in batches
    __shared__ u64 s_ttime[32];
    __shared__ unsigned long long s_req[2];   // resident: block 0's request and copy word; every block's copy
    __shared__ unsigned long long s_mine[2];  // of them
    const int n = prm->n_vertices;
    const int trace_cap = prm->trace_cap;
    const long long m = prm->n_edges;
    const bool can_pull = pull_offsets != nullptr;
    const int tid = (int)threadIdx.x;
    const int lane = (int)at_lane_id();
    const int rank = at_cl_rank();
    const int lo = bounds[rank], hi = bounds[rank + 1];
    const int nr = hi - lo;                  // vertices this block owns
    const int nwr = (nr + 31) >> 5;          // their bitmap words
    const int nw = (n + 31) >> 5;
    unsigned* const s_bits = reinterpret_cast<unsigned*>(s_dyn4);
    unsigned* const s_nb = s_bits + wmax;
    unsigned* const s_fb = s_nb + 3 * wmax;
    unsigned char* const s_own = reinterpret_cast<unsigned char*>(s_fb + (can_pull ? at_cl_round4(nw) : 0));
    unsigned short* const s_q = reinterpret_cast<unsigned short*>(s_own + 16 * ((nw + 15) >> 4));
    vid_t* const s_pred = reinterpret_cast<vid_t*>(s_q + 32 * wmax);
    int* const s_dist = s_pred + 32 * wmax;
    unsigned* const s_off = reinterpret_cast<unsigned*>(s_dist + 32 * wmax);
    unsigned* const s_col = s_off + at_cl_round4(32 * wmax + 1);
    const typename Op::Ctx octx = Op::context(op);

    __shared__ vid_t s_source;
    if (!kResident && tid == 0) s_source = *(const volatile vid_t*)source_slot;  // zero-copy, in flight during the reset
    CLCsr<kStaged> g;
    const eid_t e0 = row_offsets[lo];
    if constexpr (kStaged) {  // this block's rows into its shared memory, beside the reset
        // four loads in flight per thread (the copy is latency-bound: one SM, ~10^4-10^5 words)
        for (int i = tid; i <= nr; i += 4 * AT_CL_THREADS) {
            eid_t x[4];
#pragma unroll
            for (int k = 0; k < 4; ++k) x[k] = i + k * AT_CL_THREADS <= nr ? __ldg(row_offsets + lo + i + k * AT_CL_THREADS) : 0;
#pragma unroll
            for (int k = 0; k < 4; ++k)
                if (i + k * AT_CL_THREADS <= nr) s_off[i + k * AT_CL_THREADS] = (unsigned)(x[k] - e0);
        }
        const int er = (int)(row_offsets[hi] - e0);
        for (int i = tid; i < er; i += 4 * AT_CL_THREADS) {
            vid_t x[4];
#pragma unroll
            for (int k = 0; k < 4; ++k) x[k] = i + k * AT_CL_THREADS < er ? __ldg(column_indices + e0 + i + k * AT_CL_THREADS) : 0;
#pragma unroll
            for (int k = 0; k < 4; ++k)
                if (i + k * AT_CL_THREADS < er) s_col[i + k * AT_CL_THREADS] = (unsigned)x[k];
        }
        g = CLCsr<true>{s_off, s_col};
    } else {
        g = CLCsr<false>{row_offsets + lo, column_indices};
    }
    const bool pull_staged = kStaged && pull_offsets == row_offsets;  // undirected: in-edges = out-edges
    for (int i = tid; i < nw; i += AT_CL_THREADS) s_own[i] = owners[i];
    if (tid <= C) s_wlo[tid] = bounds[tid] >> 5;
    while (true) {  // resident: one traversal per request; else one
        if constexpr (kResident) {
            // block 0 waits for the request; the others wait at the cluster barrier, then copy it (one DSMEM
            // load each; block 0 writes s_req again only after this traversal's last barrier)
            uint2* out = nullptr;
            if (rank == 0 && tid == 0) {
                s_req[0] = at_res_wait(mailbox, served, idle_ns, busy_ns, nap_ns, out);
                s_req[1] = (unsigned long long)out;
            }
            __syncwarp();  // warp 0 whole again before the aligned cluster barrier
            at_cl_sync();
            if (tid == 0) {
                s_mine[0] = rank == 0 ? s_req[0] : (unsigned long long)at_cl_ld64(at_cl_map(at_cl_addr(&s_req[0]), 0));
                s_mine[1] = rank == 0 ? s_req[1] : (unsigned long long)at_cl_ld64(at_cl_map(at_cl_addr(&s_req[1]), 0));
                s_source = (vid_t)(unsigned)(s_mine[0] & 0xFFFFFFFFull);
            }
        }
        for (int i = tid; i < 4 * wmax; i += AT_CL_THREADS) s_bits[i] = 0u;  // visited and the ring
        if (tid < 3) {
            s_cnt[tid] = 0;
            s_edges[tid] = 0;
        }
        __syncthreads();
        if constexpr (kResident) {
            if ((unsigned)(s_mine[0] & 0xFFFFFFFFull) == 0xFFFFFFFFu) {  // asked to return, or idle (cluster-uniform)
                at_cl_sync();  // no block exits while another may still read block 0's s_req
                return;
            }
            served = (unsigned)(s_mine[0] >> 32);
        }
        const vid_t source = s_source;
        const int src_owner = (int)s_own[source >> 5];
        int qn = 0;  // this block's frontier (block-uniform)
        if (src_owner == rank) {
            if (tid == 0) {
                const int sl = source - lo;
                s_bits[sl >> 5] = 1u << (sl & 31);
                s_nb[2 * wmax + (sl >> 5)] = 1u << (sl & 31);  // the frontier of level 0 is ring (0 + 2) % 3
                s_q[0] = (unsigned short)sl;
                s_dist[sl] = 0;
                s_pred[sl] = source;
            }
            qn = 1;
        }
        if (rank == 0 && tid == 0) level_time[0] = at_globaltimer();
        at_cl_sync();  // every block started and reset before any DSMEM access

        int L = 0, fsize = 1;
        bool pulling = false, after_pull = false;
        long long explored = 0;  // out-edges of the push levels' frontiers (GAP's edges_to_check is m - explored)
        while (true) {
            unsigned* const nbL = s_nb + (L % 3) * wmax;  // claims of this level: the next frontier
            // ring (L + 1) % 3 takes the next level's claims: last read during level L - 1 (as its frontier
            // bitmap), written after this level's barrier, so cleared now; and this block's counters of the
            // next level (last read by the other blocks before they arrived at level L - 1's barrier)
            // (one warp: the per-level bookkeeping runs on as few warps as it can, since the block's 32 warps
            // share 4 schedulers and every instruction they all run costs 8 issue slots of each)
            if (tid < 32)
                for (int i = lane; i < nwr; i += 32) s_nb[((L + 1) % 3) * wmax + i] = 0u;
            if (tid == 0) {
                s_cnt[(L + 1) % 3] = 0;
                s_edges[(L + 1) % 3] = 0;
            }
            if (can_pull && !pulling && !after_pull && (long long)fsize * pull_beta >= (long long)n) {
                // GAP's rule over the whole cluster: the frontier's out-edges against the unexplored ones
                eid_t mine = 0;
                for (int i = tid; i < qn; i += AT_CL_THREADS) {
                    const int ul = s_q[i];
                    mine += g.row(ul + 1) - g.row(ul);
                }
                eid_t tot;
                at_block_exclusive_scan(mine, tot, s_warp);
                if (tid == 0) s_scout = (long long)tot;
                at_cl_sync();
                if (tid < 32) {
                    long long x = 0;
                    if (lane < C) x = lane == rank ? s_scout : at_cl_ld64(at_cl_map(at_cl_addr(&s_scout), lane));
                    x = at_warp_sum(x);
                    if (lane == 0) s_sum[0] = x;
                }
                __syncthreads();
                pulling = s_sum[0] > (m - explored) / pull_alpha;
                // s_scout is written again only after this level's barrier, which every reader passes after
                // reading it
            }
            after_pull = false;  // GAP: one push level after every pull phase
            AT_CL_T(0)
            int claims = 0;      // this warp's claims (lane 0's count is the one added)
            if (pulling) {
                // the whole frontier bitmap (ring (L + 2) % 3 of every block) into this block's shared memory
                const unsigned* const fr = s_nb + ((L + 2) % 3) * wmax;
                for (int j = tid; j < nw; j += AT_CL_THREADS) {
                    const int s = (int)s_own[j];
                    const int wl = j - s_wlo[s];
                    s_fb[j] = s == rank ? fr[wl] : at_cl_ld(at_cl_map(at_cl_addr(fr + wl), s));
                }
                __syncthreads();
                // every unvisited vertex of this block's range, a thread each (block-uniform rounds); a
                // thread scans at most pull_serial in-edges alone, then the warp the rest 32 at a time
                for (int base = 0; base < nr; base += AT_CL_THREADS) {
                    const int vl = base + tid;
                    const vid_t v = lo + vl;
                    bool claim = false;
                    eid_t e = 0, end = 0;
                    if (vl < nr && !((s_bits[vl >> 5] >> (vl & 31)) & 1u)) {
                        if (pull_staged) {
                            e = g.row(vl);
                            end = g.row(vl + 1);
                        } else {
                            e = __ldg(pull_offsets + v);
                            end = __ldg(pull_offsets + v + 1);
                        }
                        const eid_t stop = min(end, e + (eid_t)pull_serial);
                        for (; e < stop; ++e) {
                            const vid_t u = pull_staged ? g.at(e) : __ldg(pull_indices + e);
                            if ((s_fb[u >> 5] >> (u & 31)) & 1u) {
                                atomicOr(s_bits + (vl >> 5), 1u << (vl & 31));  // only this warp claims v
                                s_pred[vl] = u;
                                atomicOr(nbL + (vl >> 5), 1u << (vl & 31));
                                claim = true;
                                e = end;
                                break;
                            }
                        }
                    }
                    claims += __popc(__ballot_sync(AT_FULL_MASK, claim));
                    const int rem = (int)(end - e);  // in-edges left of an unresolved vertex
                    const int incl = at_warp_inclusive_scan(rem);
                    const int total = __shfl_sync(AT_FULL_MASK, incl, 31);
                    const int excl = incl - rem;
                    const int wbase = base + ((tid >> 5) << 5);
                    for (int x0 = 0; x0 < total; x0 += 32) {  // warp-uniform steps
                        const int x = x0 + lane;
                        const int j = at_warp_last_le(excl, x, 32);  // the lane whose remaining in-edges hold x
                        const eid_t ej = __shfl_sync(AT_FULL_MASK, e, j) + (eid_t)(x - __shfl_sync(AT_FULL_MASK, excl, j));
                        const int vjl = wbase + j;
                        bool c = false;
                        if (x < total && !((s_bits[vjl >> 5] >> (vjl & 31)) & 1u)) {
                            const vid_t u = pull_staged ? g.at(ej) : __ldg(pull_indices + ej);
                            if ((s_fb[u >> 5] >> (u & 31)) & 1u) {  // lanes may tie on v: the bitmap decides
                                const unsigned bit = 1u << (vjl & 31);
                                if ((atomicOr(s_bits + (vjl >> 5), bit) & bit) == 0u) {
                                    s_pred[vjl] = u;
                                    atomicOr(nbL + (vjl >> 5), bit);
                                    c = true;
                                }
                            }
                        }
                        claims += __popc(__ballot_sync(AT_FULL_MASK, c));
                    }
                }
            } else if (qn == 0) {
                // nothing to expand here (most blocks, on levels of a few vertices): straight to the barrier
            } else if (qn <= 32) {
                // every warp scans the (at most 32) frontier vertices in registers: no block barrier
                vid_t u = -1;
                eid_t beg = 0;
                int deg = 0;
                if (lane < qn) {
                    const int ul = s_q[lane];
                    beg = g.row(ul);
                    deg = (int)(g.row(ul + 1) - beg);
                    u = lo + ul;
                }
                const int incl = at_warp_inclusive_scan(deg);
                const int total = __shfl_sync(AT_FULL_MASK, incl, 31);
                const int excl = incl - deg;
                const int per_warp = (total + AT_CL_THREADS - 1) / AT_CL_THREADS * 32;
                const int wb = (tid >> 5) * per_warp;
                const int we = min(wb + per_warp, total);
                for (int e = wb + lane; e - lane < we; e += 32) {  // warp-uniform steps
                    const int j = at_warp_last_le(excl, e, qn);  // the lane j with excl_j <= e < excl_j + deg_j
                    const eid_t bj = __shfl_sync(AT_FULL_MASK, beg, j);
                    const int ej = __shfl_sync(AT_FULL_MASK, excl, j);
                    const vid_t uj = __shfl_sync(AT_FULL_MASK, u, j);
                    bool c = false;
                    if (e < we) c = at_cl_claim(s_bits, nbL, s_pred, s_own, s_wlo, rank, uj, g.at(bj + (eid_t)(e - ej)));
                    claims += __popc(__ballot_sync(AT_FULL_MASK, c));
                }
                if (tid == 0) s_edges[L % 3] = total;
            } else {
                eid_t edges = 0;
                for (int base = 0; base < qn; base += AT_CL_THREADS) {  // block-uniform rounds
                    vid_t u = -1;
                    eid_t beg = 0;
                    int deg = 0;
                    if (base + tid < qn) {
                        const int ul = s_q[base + tid];
                        beg = g.row(ul);
                        deg = (int)(g.row(ul + 1) - beg);
                        u = lo + ul;
                    }
                    eid_t total;
                    const eid_t excl = at_block_exclusive_scan((eid_t)deg, total, s_warp);
                    s_prefix[tid] = excl;
                    s_beg[tid] = beg;
                    s_u[tid] = u;
                    __syncthreads();
                    const int nv = min(AT_CL_THREADS, qn - base);
                    const eid_t per_warp = (total + AT_CL_THREADS - 1) / AT_CL_THREADS * 32;
                    const eid_t wb = (eid_t)(tid >> 5) * per_warp;
                    const eid_t we = min(wb + per_warp, total);
                    int j = -1;  // this lane's row (index into the round's arrays) of its last edge
                    for (eid_t e = wb + lane; e - lane < we; e += 32) {  // warp-uniform steps
                        bool c = false;
                        if (e < we) {
                            j = j < 0 ? at_sb_last_le(s_prefix, nv, e) : at_sb_advance(s_prefix, nv, j, e);
                            const vid_t v = g.at(s_beg[j] + (e - s_prefix[j]));
                            c = at_cl_claim(s_bits, nbL, s_pred, s_own, s_wlo, rank, s_u[j], v);
                        }
                        claims += __popc(__ballot_sync(AT_FULL_MASK, c));
                    }
                    edges += total;
                    __syncthreads();  // the round's shared arrays are rewritten by the next round
                }
                if (tid == 0) s_edges[L % 3] = (int)edges;
            }
            AT_CL_T(1)
            if (lane == 0 && claims != 0) atomicAdd(&s_cnt[L % 3], claims);
            at_cl_sync();  // the level's claims (bits, ring, parents, counts) are complete
            AT_CL_T(2)
            if (tid < 32) {  // one warp: the cluster's claims and push edges of level L
                int c = 0, ed = 0;
                if (lane < C) {
                    if (lane == rank) {
                        c = s_cnt[L % 3];
                        ed = s_edges[L % 3];
                    } else {
                        c = (int)at_cl_ld(at_cl_map(at_cl_addr(&s_cnt[L % 3]), lane));
                        ed = (int)at_cl_ld(at_cl_map(at_cl_addr(&s_edges[L % 3]), lane));
                    }
                }
                c = __reduce_add_sync(AT_FULL_MASK, c);
                ed = __reduce_add_sync(AT_FULL_MASK, ed);
                if (lane == 0) {
                    s_sum[0] = c;
                    s_sum[1] = ed;
                }
            }
            AT_CL_T(3)
            // this block's next queue: its ring words of level L, in order (a block-wide scan of popcounts:
            // one warp alone, measured, let the busiest block fall behind the others at the next barrier),
            // and the level of each vertex claimed
            int qnext = 0;
            for (int base = 0; base < nwr; base += AT_CL_THREADS) {  // block-uniform rounds
                const int i = base + tid;
                const unsigned x = i < nwr ? nbL[i] : 0u;
                eid_t tot;
                const eid_t pos = at_block_exclusive_scan((eid_t)__popc(x), tot, s_warp);
                unsigned y = x;
                int p = qnext + (int)pos;
                while (y != 0u) {
                    const int vl = i * 32 + __ffs(y) - 1;
                    s_q[p++] = (unsigned short)vl;
                    s_dist[vl] = L + 1;
                    y &= y - 1u;
                }
                qnext += (int)tot;
                __syncthreads();  // s_warp is reused by the next round's scan
            }
            __syncthreads();  // (no round ran when this block owns no vertex) the sums and the queue are complete
            AT_CL_T(4)
            const int next = (int)s_sum[0];
            if (!pulling) explored += s_sum[1];
            if (rank == 0 && tid == 0) {  // the trace, written out every 32 levels (a global store outstanding
                // at every barrier would make each release wait for it)
                s_tsize[L & 31] = fsize;
                s_tinfo[L & 31] = pulling ? AT_PATH_CLUSTER_PULL : AT_PATH_CLUSTER;
                s_ttime[L & 31] = at_globaltimer();
                if ((L & 31) == 31) at_cl_trace_out(L - 31, 32, trace_cap, s_tsize, s_tinfo, s_ttime, level_sizes, level_info, level_time);
            }
            if (pulling && next < fsize && (long long)next * pull_beta < (long long)n) {
                pulling = false;  // GAP: stay bottom-up while the frontier grows or holds more than n / beta
                after_pull = true;
            }
            qn = qnext;
            fsize = next;
            ++L;
            AT_CL_T(5)
            if (fsize == 0) break;  // uniform over the cluster: every block summed the same counts
        }
#ifdef AT_CL_PHASES
        if (!kResident && tid == 0) {
            for (int k = 0; k < 6; ++k) phases[rank * 8 + k] = ph[k];
            phases[rank * 8 + 7] = L;
        }
#endif

        // the operator's results of this block's range, written once: the claims (parent and level kept in
        // shared memory through the traversal), the source, the reset of every vertex not reached
        for (int vl = tid; vl < nr; vl += AT_CL_THREADS) {
            const vid_t v = lo + vl;
            if (!((s_bits[vl >> 5] >> (vl & 31)) & 1u)) Op::reset_vertex(octx, v);
            else if (v == source) Op::init_source(op, source);
            else Op::record_claim(octx, s_pred[vl], v, s_dist[vl] - 1);
        }
        if (rank == 0) {  // the trace's last levels; the state of the finished traversal
            if (tid == 0)
                at_cl_trace_out(L & ~31, L & 31, trace_cap, s_tsize, s_tinfo, s_ttime, level_sizes, level_info, level_time);
            at_finish_state(st, kResident ? nullptr : host_state, L, explored);
        }
        if constexpr (!kResident) {
            at_cl_sync();  // no block exits while another may still read its shared memory (the last counts)
            return;
        } else {
            __threadfence();  // every block's results, trace and state device-wide ...
            at_cl_sync();     // ... before any block copies them, or block 0 answers
            uint2* const out = reinterpret_cast<uint2*>(s_mine[1]);
            if (out != nullptr) {  // each block one C-th of the result buffer into the caller's array
                const int chunk = (result_len + C - 1) / C;
                const int end = min(result_len, (rank + 1) * chunk);
                for (int i = rank * chunk + tid; i < end; i += AT_CL_THREADS) out[i] = result[i];
                __threadfence();
                at_cl_sync();
            }
            if (rank == 0 && tid == 0) at_res_answer(mailbox, L, served);
        }
    }  // while
#else
    __trap();
#endif
}

template <int C, bool kStaged, class Op>
__global__ void AT_CL_DIMS(C) __launch_bounds__(AT_CL_THREADS, 1)
cluster_levels(const eid_t* __restrict__ row_offsets, const vid_t* __restrict__ column_indices,
               const eid_t* __restrict__ pull_offsets, const vid_t* __restrict__ pull_indices,
               const int* __restrict__ bounds, const unsigned char* __restrict__ owners, int wmax,
               int pull_alpha, int pull_beta, int pull_serial, const OpArgs* __restrict__ op,
               const vid_t* __restrict__ source_slot, BFSState* st, BFSState* host_state,
               const BFSParams* __restrict__ prm, int* level_sizes, int* level_info, u64* level_time
#ifdef AT_CL_PHASES
               , long long* phases  // per block: SM cycles of each phase of a level, summed (a probe build)
#endif
               ) {
#ifndef AT_CL_PHASES
    long long* const phases = nullptr;
#endif
    at_cl_run<C, kStaged, false, Op>(row_offsets, column_indices, pull_offsets, pull_indices, bounds, owners, wmax,
                                     pull_alpha, pull_beta, pull_serial, op, source_slot, st, host_state, prm,
                                     level_sizes, level_info, level_time, nullptr, 0u, 0ll, 0ll, 0, nullptr, 0,
                                     phases);
}

// The resident form (autotune/_engine.py, RESIDENT; the mailbox: block_scan.cuh): ONE launch of the
// cluster serves many traversals. Every block stages its rows once; block 0 waits for each request in
// the mailbox of pinned host memory and passes it to the others through DSMEM at the cluster barrier
// that starts the traversal; after it every block copies one C-th of the engine's result buffer
// (`result`, result_len 8-byte words: BFS's distances and predecessors) to the address the request
// carries, and block 0 answers. So a traversal costs no launch, no staging of the rows and no stream
// wait; the kernel returns when asked, or by itself once no request came for idle_ns nanoseconds.
template <int C, bool kStaged, class Op>
__global__ void AT_CL_DIMS(C) __launch_bounds__(AT_CL_THREADS, 1)
cluster_resident(const eid_t* __restrict__ row_offsets, const vid_t* __restrict__ column_indices,
                 const eid_t* __restrict__ pull_offsets, const vid_t* __restrict__ pull_indices,
                 const int* __restrict__ bounds, const unsigned char* __restrict__ owners, int wmax,
                 int pull_alpha, int pull_beta, int pull_serial, const OpArgs* __restrict__ op,
                 volatile unsigned long long* mailbox, unsigned served, long long idle_ns, long long busy_ns,
                 int nap_ns, const uint2* __restrict__ result, int result_len, BFSState* st,
                 const BFSParams* __restrict__ prm, int* level_sizes, int* level_info, u64* level_time) {
    at_cl_run<C, kStaged, true, Op>(row_offsets, column_indices, pull_offsets, pull_indices, bounds, owners, wmax,
                                    pull_alpha, pull_beta, pull_serial, op, nullptr, st, nullptr, prm, level_sizes,
                                    level_info, level_time, mailbox, served, idle_ns, busy_ns, nap_ns, result,
                                    result_len, nullptr);
}
