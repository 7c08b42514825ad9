// persistent.cu -- device-resident levels on the whole GPU (small_frontier = "persistent").
//
// The multi-block sibling of single_block.cu (Busato & Bombieri, "BFS-4K", section 5.5: levels
// whose frontier is too small for one launch each are iterated on the device). Frontiers of a few
// thousand vertices (meshes, grids, large roads) are too big for one block yet far too small to
// amortise a launch per level, so this kernel keeps every resident block alive and separates
// levels with a grid-wide barrier instead of a kernel boundary. It is launched cooperatively
// (cuLaunchCooperativeKernel, through CuPy's `enable_cooperative_groups`), which guarantees that all
// blocks are co-resident, so the barrier cannot deadlock; the barrier itself is a ticket counter
// (at_grid_arrive_wait in traversal.cuh; no cooperative_groups header, so NVRTC compiles it without
// the CUDA toolkit headers).
//
// Per level, warps take K frontier vertices each (K = the smallest power of two >= |F| / warps,
// within [1, 32], so the frontier is covered in one pass), compute the prefix-sum of their
// out-degrees with warp shuffles and spread the edges over the 32 lanes, each lane locating its
// edge's vertex by a binary search over the lanes' prefix-sums with __shfl_sync (warp-level
// scan-based mapping, Busato & Bombieri, "Efficient load balancing techniques ...", section 3.2).
// On graphs with hubs (the HUBS instantiation, which the engine takes when an out-degree exceeds
// PERSIST_HUB_DEGREE = 64, autotune/_engine.py), a block whose heaviest warp would need more rounds
// of 32 edges than the block's edges spread over all its threads does the latter (block-level
// scan-based mapping, same section): a hub of d out-edges takes d / BLOCK rounds instead of d / 32.
// Claims and appends are those of the multi-block kernels (the operator's direct visit,
// at_warp_append), so the frontier counters, prefix-sums, hub counts and class queues are always
// complete and any kernel can take over at any level. The kernel returns when a frontier exceeds
// the limits (or is empty), leaving the state for the multi-block kernels.
#include "traversal.cuh"

#define AT_PATH_PERSISTENT 3

// Grid-wide barrier (at_grid_arrive_wait, traversal.cuh) that also hands every thread the counters
// of the frontier just appended: only thread 0 of each block reads the counters afterwards, into
// shared memory. (Every thread reading them costs one request per warp on a single L2 line: with 4,096
// warps that serialised read cost more than the barrier itself.)
__device__ __forceinline__ void at_grid_barrier_read(unsigned* bar, const volatile u64* ctr, const volatile int* hub_ctr,
                                                     u64& packed, int& hubs) {
    __shared__ u64 s_packed;
    __shared__ int s_hubs;
    __syncthreads();
    if (threadIdx.x == 0) {
        at_grid_arrive_wait(bar);
        s_packed = *ctr;
        s_hubs = *hub_ctr;
    }
    __syncthreads();
    packed = s_packed;
    hubs = s_hubs;
}

// Block-aggregated append of the claimed vertices to the next frontier (every thread of the block
// calls it, block-uniformly): each warp reserves its run in a shared-memory packed counter, then
// thread 0 makes the one global atomicAdd of the block and every warp writes at the block's base.
// Same outputs as at_warp_append<true> (vertices, exclusive degree prefix-sums, row starts, hub
// count, class queues), but one global atomic per block instead of one per warp: appends of one
// level all go to one address, and with thousands of warps their serialisation in L2 was the
// largest cost of a level.
__device__ __forceinline__ void at_block_append(bool claim, vid_t v, int deg, eid_t row_start, const FrontierOut& out,
                                                u64* s_blk, u64* s_base, int* s_hubs) {
    const unsigned ballot = __ballot_sync(AT_FULL_MASK, claim);
    const unsigned lane = at_lane_id();
    const eid_t d = claim ? deg : 0;
    eid_t incl = at_warp_inclusive_scan(d);
    const eid_t total_d = __shfl_sync(AT_FULL_MASK, incl, 31);
    u64 wold = 0;
    if (lane == 0 && ballot != 0u) wold = atomicAdd(s_blk, at_pack(total_d, __popc(ballot)));
    wold = __shfl_sync(AT_FULL_MASK, wold, 0);
    if (out.hubs != nullptr) {
        const unsigned hb = __ballot_sync(AT_FULL_MASK, claim && deg > out.hub_degree);
        if (lane == 0 && hb) atomicAdd(s_hubs, __popc(hb));
    }
    if (!__syncthreads_or(claim)) return;  // block-uniform
    if (threadIdx.x == 0) {
        *s_base = atomicAdd(out.ctr, *s_blk);
        *s_blk = 0ull;
        if (*s_hubs) {
            atomicAdd(out.hubs, *s_hubs);
            *s_hubs = 0;
        }
    }
    __syncthreads();
    if (claim) {
        const u64 base = *s_base;
        const int pos = at_count(base) + at_count(wold) + __popc(ballot & at_lanemask_lt());
        out.vertices[pos] = v;
        out.prefix[pos] = at_degsum(base) + at_degsum(wold) + incl - d;
        out.row_start[pos] = row_start;
    }
    if (out.dc_ctr != nullptr) at_warp_append_class(claim, v, deg, out);
}

// The lane that owns a warp's edge e (warp-level scan-based mapping): the first lane whose inclusive
// prefix-sum of degrees `incl` exceeds e, by a binary search over the lanes' prefixes with
// __shfl_sync (every lane of the converged warp calls it).
__device__ __forceinline__ int at_warp_edge_owner(int incl, int e) {
    int pos = 0;
#pragma unroll
    for (int step = 16; step >= 1; step >>= 1) {
        const int val = __shfl_sync(AT_FULL_MASK, incl, pos + step - 1);
        if (val <= e) pos += step;
    }
    return pos & 31;
}

// The slot of a block that owns the block's edge e: the last j with prefix[j] <= e (prefix holds the
// block's exclusive degree prefix-sums, one per thread slot, non-decreasing; slots of degree 0 share
// their successor's value, so the last match is a slot with edges).
template <int BLOCK>
__device__ __forceinline__ int at_block_edge_owner(const int* prefix, int e) {
    int pos = 0;
#pragma unroll
    for (int step = BLOCK / 2; step >= 1; step >>= 1) {
        if (prefix[pos + step] <= e) pos += step;
    }
    return pos;
}

// One edge per lane of a persistent level with in-place expansion (persistent_levels<..., true>:
// BFSParams.inline_degree > 0, operators with Op::kInlineExpand; every thread of the block calls it,
// block-uniformly). The lane's edge
// (u, v) is relaxed by Op::improve; an improved v of out-degree <= inline_degree is expanded at
// once by its warp (its out-edges spread over the lanes by the same scan-based mapping as the
// frontier's, relaxed from the distance v just got, Op::relax_from), so a level advances paths by
// up to two edges and a long-diameter graph needs up to half the levels (and grid barriers);
// other improved vertices enter the next frontier (Op::enter). Label-correcting relaxation makes
// the order irrelevant to the result (op_sssp.cuh). Relaxations made in place are counted in
// `inline_edges` (thread 0 of each block adds them to the state's explored edges at the end).
template <class Op>
__device__ __forceinline__ void persistent_inline_edge(bool active, eid_t edge, vid_t su, int L, int inline_degree,
                                                       const typename Op::Ctx& octx, const eid_t* __restrict__ row_offsets,
                                                       const vid_t* __restrict__ column_indices, const FrontierOut& out,
                                                       u64* s_blk, u64* s_base, int* s_hubs, int* inline_edges) {
    const unsigned lane = at_lane_id();
    vid_t v = -1;
    int vdeg = 0;
    eid_t rs = 0;
    bool improved = false;
    typename Op::Carry carry{};
    if (active) {
        v = column_indices[edge];
        rs = __ldg(row_offsets + v);
        vdeg = (int)(__ldg(row_offsets + v + 1) - rs);
        improved = Op::improve(octx, su, v, edge, carry);
    }
    const bool expand = improved && vdeg <= inline_degree;
    const bool claim = improved && !expand && Op::enter(octx, v, L);
    at_block_append(claim, v, vdeg, rs, out, s_blk, s_base, s_hubs);
    // the expanded vertices' out-edges, 32 per round over the warp
    const int xdeg = expand ? vdeg : 0;
    const int xincl = at_warp_inclusive_scan(xdeg);
    const int xtotal = __shfl_sync(AT_FULL_MASK, xincl, 31);
    if (lane == 0 && xtotal > 0) atomicAdd(inline_edges, xtotal);
    for (int x0 = 0; __syncthreads_or(x0 < xtotal); x0 += 32) {
        const int x = x0 + (int)lane;
        const int pos = at_warp_edge_owner(xincl, x);
        const vid_t sv = __shfl_sync(AT_FULL_MASK, v, pos);
        const eid_t srs = __shfl_sync(AT_FULL_MASK, rs, pos);
        const int sincl = __shfl_sync(AT_FULL_MASK, xincl, pos);
        const int sdeg = __shfl_sync(AT_FULL_MASK, xdeg, pos);
        const typename Op::Carry scarry = __shfl_sync(AT_FULL_MASK, carry, pos);
        bool claim2 = false;
        vid_t w = -1;
        int wdeg = 0;
        eid_t wrs = 0;
        if (x < xtotal) {
            const eid_t e2 = srs + (x - (sincl - sdeg));
            w = column_indices[e2];
            const eid_t rs_w = __ldg(row_offsets + w);
            const eid_t re_w = __ldg(row_offsets + w + 1);
            claim2 = Op::relax_from(octx, sv, scarry, w, e2, L);
            if (claim2) {
                wrs = rs_w;
                wdeg = (int)(re_w - rs_w);
            }
        }
        at_block_append(claim2, w, wdeg, wrs, out, s_blk, s_base, s_hubs);
    }
}

// INLINE: the in-place expansion of BFSParams.inline_degree (a separate instantiation, so the plain
// kernel keeps its registers). HUBS: block-balanced rounds for chunks holding a hub, the form the
// engine takes for graphs with out-degrees above PERSIST_HUB_DEGREE (a separate instantiation too:
// its bookkeeping, compiled in, made the plain form 1-7 % slower on meshes and roads, which never
// need it).
template <int BLOCK, bool WITH_PREFIX, class Op, bool INLINE = false, bool HUBS = false>
__global__ void __launch_bounds__(BLOCK) persistent_levels(AT_LEVEL_ARGS) {
    static_assert(!INLINE || Op::kInlineExpand, "in-place expansion needs an operator with kInlineExpand");
    static_assert(!(INLINE && HUBS), "the in-place expansion has no block-balanced form");
    __shared__ int s_path, s_L, s_fsize;
    __shared__ eid_t s_degsum;
    __shared__ long long s_explored;
    __shared__ u64 s_blk, s_base;
    __shared__ int s_blk_hubs;
    __shared__ int s_inline_edges;  // relaxations made in place by this block (inline_degree)
    // block-balanced rounds (HUBS): warp totals, their sum and maximum by chunk % 3, the block's
    // degree prefix, row starts and vertices
    __shared__ int s_wtot[3][HUBS ? BLOCK / 32 : 1];
    __shared__ int s_bsum[HUBS ? 3 : 1], s_bmax[HUBS ? 3 : 1];
    __shared__ int s_bpre[HUBS ? BLOCK : 1];
    __shared__ eid_t s_bbeg[HUBS ? BLOCK : 1];
    __shared__ vid_t s_bu[HUBS ? BLOCK : 1];
    int chunk = 0;  // this block's chunk count, mod 3 (HUBS)
    if (threadIdx.x == 0) {
        s_blk = 0ull;
        s_blk_hubs = 0;
        s_inline_edges = 0;
        if constexpr (HUBS) {
            for (int i = 0; i < 3; ++i) s_bsum[i] = s_bmax[i] = 0;
        }
        int L, fsize;
        eid_t degsum;
        s_path = at_choose_path(st, prm, L, fsize, degsum);
        s_L = L;
        s_fsize = fsize;
        s_degsum = degsum;
        s_explored = ((const volatile BFSState*)st)->explored;
    }
    __syncthreads();
    if (s_path != AT_PATH_SINGLE_BLOCK) return;  // every block reads the same state: uniform
    const typename Op::Ctx octx = Op::context(op);
    int L = s_L, fsize = s_fsize;
    eid_t degsum = s_degsum;
    long long explored = s_explored;
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
    const int inline_degree = INLINE ? prm->inline_degree : 0;
    int* const inline_edges = &s_inline_edges;
    const unsigned lane = at_lane_id();
    constexpr int WARPS = BLOCK / 32;
    const int warp_in_block = (int)(threadIdx.x >> 5);
    const int n_warps = (int)((gridDim.x * BLOCK) >> 5);
    volatile BFSState* vs = (volatile BFSState*)st;
    // The frontier's degree prefix-sums and row starts are there when the producer wrote them:
    // binary_search's kernels always do, and this kernel does for every level it appends (the
    // engine gives it the prefix buffers), so from its second level on no frontier vertex needs a
    // dependent row_offsets load before its edges are known.
    bool have_prefix = WITH_PREFIX;
    while (true) {
        const int odd = L & 1;
        const vid_t* frontier_in = odd ? f1 : f0;
        const eid_t* prefix_in = odd ? p1 : p0;
        const eid_t* row_start_in = odd ? r1 : r0;
        const FrontierOut out = at_frontier_out(L, f0, f1, p0, p1, r0, r1, st, prm, aux);
        // K = the smallest power of two >= |F| / warps (within [1, 32]): one pass over the frontier,
        // so a level is one chain of dependent accesses, not several. The loops are block-uniform
        // (a block's warps take consecutive runs of K vertices) because appends are block-aggregated.
        const int per = (fsize + n_warps - 1) / n_warps;
        const int K = per >= 32 ? 32 : (per <= 1 ? 1 : (1 << (32 - __clz(per - 1))));
        for (int bbase = (int)blockIdx.x * WARPS * K; bbase < fsize; bbase += n_warps * K) {
            const int idx = bbase + warp_in_block * K + (int)lane;
            vid_t u = -1;
            eid_t beg = 0;
            int deg = 0;  // a level here has at most sb_edge_limit edges: its sums are ints
            if ((int)lane < K && idx < fsize) {
                u = frontier_in[idx];
                if (have_prefix) {
                    beg = row_start_in[idx];
                    deg = (int)((idx + 1 < fsize ? prefix_in[idx + 1] : degsum) - prefix_in[idx]);
                } else {
                    beg = row_offsets[u];
                    deg = (int)(row_offsets[u + 1] - beg);
                }
            }
            int incl = at_warp_inclusive_scan(deg);
            const int total = __shfl_sync(AT_FULL_MASK, incl, 31);
            // HUBS: the warps' totals, their sum and maximum, published before the chunk's first
            // barrier (the one the rounds below need anyway) in buffer chunk % 3: a thread runs at
            // most one chunk ahead of another (every chunk holds a barrier), and after chunk c's
            // barrier nobody reads buffer (c + 2) % 3 (chunk c - 1's) any more, so thread 0 clears
            // it then for chunk c + 2.
            bool any_edges = false;
            if constexpr (HUBS) {
                const int buf = chunk;
                if (lane == 0) {
                    s_wtot[buf][warp_in_block] = total;
                    atomicAdd(&s_bsum[buf], total);
                    atomicMax(&s_bmax[buf], total);
                }
                any_edges = __syncthreads_or(total > 0);
                const bool block_rounds = (s_bsum[buf] + BLOCK - 1) / BLOCK < (s_bmax[buf] + 31) / 32;
                if (threadIdx.x == 0) {
                    s_bsum[(buf + 2) % 3] = 0;
                    s_bmax[(buf + 2) % 3] = 0;
                }
                chunk = buf == 2 ? 0 : buf + 1;
                // A warp walks its vertices' edges 32 per round, and every round of the block waits
                // for its heaviest warp (appends are block-aggregated): a hub of d out-edges costs
                // d / 32 rounds, each a chain of dependent accesses plus the block's append. When
                // spreading the block's edges over all its threads takes fewer rounds, do that
                // instead (block-level scan-based mapping, Busato & Bombieri, "Efficient load
                // balancing techniques ...", section 3.2; each thread finds its edge's vertex by a
                // binary search over the block's degree prefix in shared memory).
                if (block_rounds) {  // block-uniform
                    const int bsum = s_bsum[buf];  // cleared two chunks from now
                    int wbase = 0;
                    for (int w = 0; w < warp_in_block; ++w) wbase += s_wtot[buf][w];
                    s_bpre[threadIdx.x] = wbase + incl - deg;
                    s_bbeg[threadIdx.x] = beg;
                    s_bu[threadIdx.x] = u;
                    __syncthreads();
                    for (int e0 = 0; e0 < bsum; e0 += BLOCK) {  // rounds of BLOCK edges per block
                        const int e = e0 + (int)threadIdx.x;
                        bool claim = false;
                        vid_t v = -1;
                        int vdeg = 0;
                        eid_t rs = 0;
                        if (e < bsum) {
                            const int j = at_block_edge_owner<BLOCK>(s_bpre, e);
                            const eid_t edge = s_bbeg[j] + (e - s_bpre[j]);
                            v = column_indices[edge];
                            const eid_t rs_v = __ldg(row_offsets + v);
                            const eid_t re_v = __ldg(row_offsets + v + 1);
                            claim = Op::visit_direct(octx, s_bu[j], v, edge, L);
                            if (claim) {
                                rs = rs_v;
                                vdeg = (int)(re_v - rs_v);
                            }
                        }
                        // its barriers also keep s_b* until every thread has read them this round
                        at_block_append(claim, v, vdeg, rs, out, &s_blk, &s_base, &s_blk_hubs);
                    }
                    continue;  // s_b* are rewritten only after the next chunk's first barrier
                }
            }
            // rounds of 32 edges per warp (the first round's barrier is the one above)
            for (int e0 = 0; (HUBS && e0 == 0) ? any_edges : __syncthreads_or(e0 < total); e0 += 32) {
                const int e = e0 + (int)lane;
                const int pos = at_warp_edge_owner(incl, e);
                const vid_t su = __shfl_sync(AT_FULL_MASK, u, pos);
                const eid_t sbeg = __shfl_sync(AT_FULL_MASK, beg, pos);
                const int sincl = __shfl_sync(AT_FULL_MASK, incl, pos);
                const int sdeg = __shfl_sync(AT_FULL_MASK, deg, pos);
                bool claim = false;
                vid_t v = -1;
                int vdeg = 0;
                eid_t rs = 0;
                if constexpr (INLINE) {
                    persistent_inline_edge<Op>(e < total, sbeg + (e - (sincl - sdeg)), su, L, inline_degree, octx,
                                               row_offsets, column_indices, out, &s_blk, &s_base, &s_blk_hubs,
                                               inline_edges);
                    continue;
                }
                if (e < total) {
                    const eid_t edge = sbeg + (e - (sincl - sdeg));
                    v = column_indices[edge];
                    // v's row is read beside the claim, not after it (speculatively: most of these
                    // loads are wasted on visited neighbours, but they cost no latency).
                    const eid_t rs_v = __ldg(row_offsets + v);
                    const eid_t re_v = __ldg(row_offsets + v + 1);
                    claim = Op::visit_direct(octx, su, v, edge, L);  // BFS: one round trip, no pre-check
                    if (claim) {
                        rs = rs_v;
                        vdeg = (int)(re_v - rs_v);
                    }
                }
                at_block_append(claim, v, vdeg, rs, out, &s_blk, &s_base, &s_blk_hubs);
            }
        }
        if (leader) {  // slot (L+2)%3 is nobody's during level L: clear it for level L+1
            st->ctr[(L + 2) % 3] = 0ull;
            st->hub_ctr[(L + 2) % 3] = 0;
            at_aux_finish_level(aux, L);
        }
        u64 packed;
        int hubs;
        at_grid_barrier_read(aux->barrier, &vs->ctr[(L + 1) % 3], &vs->hub_ctr[(L + 1) % 3], packed, hubs);
        if (leader) at_trace_level(prm, L, fsize, AT_PATH_PERSISTENT | (K << 8), level_sizes, level_info, level_time);
        explored += degsum;
        ++L;
        fsize = at_count(packed);
        degsum = at_degsum(packed);
        have_prefix = true;
        // Same inputs in every thread of every block: a uniform decision.
        if (at_decide_path(fsize, degsum, hubs, explored, AT_PATH_PUSH, prm) != AT_PATH_SINGLE_BLOCK) break;
        // Nobody may append to ctr[(L+1)%3] (cleared above) before everyone has read ctr[L%3]:
        // the appends of level L happen after this point and the reads before it, in every block,
        // and a block only starts appending after its own read. The clear of slot (L+2)%3 at the
        // end of level L touches a slot last read two barriers earlier.
    }
    if (INLINE) {
        // Every block adds its in-place relaxations; the leader adds the frontiers' edges. All
        // blocks read `explored` at the start, before the first barrier, so nobody adds before
        // every block has read it.
        __syncthreads();
        if (threadIdx.x == 0) {
            long long add = s_inline_edges;
            if (leader) add += explored - s_explored;
            if (add) atomicAdd((unsigned long long*)&st->explored, (unsigned long long)add);
        }
    } else if (leader) {
        st->explored = explored;
    }
    if (leader) {
        st->dir = AT_PATH_PUSH;
        __threadfence();
        st->level = L;
    }
}
