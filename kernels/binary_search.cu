// binary_search.cu -- device-wide binary search over the prefix-sum of frontier degrees
// (load_balance = "binary_search", full form), one multi-block push level per launch.
//
// Technique: Busato & Bombieri, "Efficient load balancing techniques for graph traversal
// applications on GPUs", section 3.3 (device-wide binary search with unordered prefix-sum, its three
// optimizations and Algorithm 1), and Busato & Bombieri, "Graph Algorithms on GPUs", section 5.3
// (dynamic mapping: direct search 5.3.1, local warp search 5.3.2, block search 5.3.3).
//
// Every frontier entry carries (vertex, row start, exclusive prefix-sum of degrees). The prefix is
// produced while the frontier is built, by the packed 64-bit atomicAdd of the append
// (traversal.cuh: at_stage_append, one atomic per warp's stage of claimed vertices): the paper's
// *online unordered prefix-sum* (first optimization), so no scan kernel runs. The frontier's edges [0, total) are cut into equal chunks; chunks are taken
// grid-stride by the fully resident grid (no host read per level). Per chunk (the paper's phases
// A, B, C, fused in one launch):
//   (A) two warps locate, with a warp-cooperative 32-ary search of the global prefix (each lane
//       compares one pivot, ballot, narrow), the first and last frontier entries the chunk touches;
//   (B) the block stages that slice of the frontier (prefix, vertex, row start - prefix) in shared
//       memory (at most AT_BS_CHUNK entries = 24 KB; a slice with more entries, possible only when
//       many entries have zero degree, is searched in global memory instead);
//   (C) each warp takes 32 consecutive edges of the chunk per step: one cooperative search finds
//       the entry of the warp's first edge, the warp loads the 32 entries from there (one
//       coalesced shared-memory access, a lane each) and every lane finds its own edge's entry with
//       the *uniform binary search with shuffles* of Algorithm 1 (5 __shfl_sync steps, no memory
//       access). Lanes whose edge lies past those 32 entries (only across zero-degree entries)
//       repeat from the entry of the first such edge. Then status lookup, claim and the append of
//       the next frontier with its online prefix-sum.
//
// Second optimization (discarding vertices that cannot contribute), done exactly:
//   * out-degree 0: such an entry adds 0 to the prefix, so its prefix equals its successor's and
//     every search ("last entry with prefix <= edge") resolves past it: it is never expanded. It
//     still occupies a queue slot and a staging slot (the frontier size stays the true |F|).
//   * out-degree 1 (operators with Op::kPruneReturnLeaf, e.g. BFS's claim-once operator): when a
//     vertex v is claimed from u and its single out-neighbour
//     column_indices[row_offsets[v]] is u itself (the undirected "leaf" case of the paper) or v
//     (a self-loop), that neighbour is already visited, so expanding v can never claim anything:
//     v is appended with degree 0, i.e. it enters the next frontier (distances, predecessors,
//     frontier size are unchanged) but contributes no edge to the prefix and is never searched.
//     This is checked per vertex, so it is exact on directed graphs too (no 'directed' flag).
//     Side effect: the degree sum of a frontier built by this kernel (the high half of the packed
//     counter, hence BFSState::explored and the alpha rule) counts only contributing edges.
// Third optimization (aux->bs_dynamic_chunk == 1): the chunk size is
//   min(ceil(total_edges / resident_threads) * BLOCK, AT_BS_CHUNK)
// so small frontiers are spread over many blocks instead of a few; otherwise AT_BS_CHUNK edges.
#include "traversal.cuh"

#define AT_BS_CHUNK 2048  // staging capacity in entries (24 KB; 40 KB with 64-bit offsets) and fixed chunk size
// Entries of the block's append stage (at_stage_append, 8 bytes each): within the 48 KB of static shared
// memory beside the slice staging and the culling table. With int64 offsets, blocks of 512 and 1,024
// threads get fewer than 32 per warp: none (AT_STAGE_PER_WARP), they append directly.
#ifdef AT_EID64
#define AT_BS_APPEND_STAGE 256
#else
#define AT_BS_APPEND_STAGE AT_STAGE_BLOCK_ENTRIES
#endif

// Warp-cooperative search (all 32 lanes, same arguments): the last index i in [lo, hi) with
// P[i] <= key, given P non-decreasing and P[lo] <= key. Each round every lane compares one pivot
// (lane * step), a ballot picks the last pivot <= key and the range shrinks 32-fold: ceil(log32(n))
// rounds instead of log2(n) dependent loads of a per-thread binary search.
__device__ __forceinline__ int bs_warp_last_le(const eid_t* P, int lo, int hi, eid_t key) {
    const int lane = (int)at_lane_id();
    while (hi - lo > 1) {  // warp-uniform: lo, hi are the same in every lane
        const int step = (hi - lo + 31) >> 5;
        const int p = lo + lane * step;
        const bool le = p < hi && P[p] <= key;
        const unsigned b = __ballot_sync(AT_FULL_MASK, le);  // bit 0 set (P[lo] <= key)
        lo += (31 - __clz(b)) * step;
        hi = min(hi, lo + step);
    }
    return lo;
}

// Locate the frontier entry of every lane's edge `e` (lanes with valid == false are ignored):
// u = its vertex, col = its column index. Slice arrays: P (prefix), V (vertex), and either B
// (row start - prefix, STAGED) or R (row start). `e_first` is the edge of lane 0 (valid, smallest).
template <bool STAGED>
__device__ __forceinline__ void bs_warp_locate(const eid_t* P, const vid_t* V, const eid_t* B, const eid_t* R, int n,
                                               eid_t e, bool valid, eid_t e_first, vid_t& u, eid_t& col) {
    const unsigned lane = at_lane_id();
    unsigned pending = __ballot_sync(AT_FULL_MASK, valid);
    int s = bs_warp_last_le(P, 0, n, e_first);
    while (true) {  // warp-uniform (pending is a ballot)
        const int idx = s + (int)lane;
        const eid_t val = idx < n ? P[idx] : at_type_max<eid_t>();  // one coalesced access, a lane each
        const eid_t bound = s + 32 < n ? P[s + 32] : at_type_max<eid_t>();
        // Algorithm 1: uniform binary search over the 32 values held by the lanes
        int low = 0;
#pragma unroll
        for (int half = 16; half >= 1; half >>= 1) {
            const eid_t pv = __shfl_sync(AT_FULL_MASK, val, low + half);
            if (e >= pv) low += half;
        }
        const bool mine = ((pending >> lane) & 1u) && e < bound;
        if (mine) {
            const int j = s + low;
            u = V[j];
            col = STAGED ? B[j] + e : R[j] + (e - P[j]);
        }
        pending &= ~__ballot_sync(AT_FULL_MASK, mine);
        if (pending == 0u) break;
        // only across zero-degree entries: restart from the entry of the first unresolved edge
        const eid_t ef = __shfl_sync(AT_FULL_MASK, e, __ffs(pending) - 1);
        s = bs_warp_last_le(P, s + 32, n, ef);  // P[s + 32] = bound <= ef
    }
}

// Phase C over one chunk [c0, c1): `items` steps of BLOCK consecutive edges, a warp taking 32.
template <int BLOCK, bool STAGED, class Op>
__device__ __forceinline__ void bs_expand_chunk(const eid_t* P, const vid_t* V, const eid_t* B, const eid_t* R, int n,
                                                eid_t c0, eid_t c1, int items,
                                                const eid_t* __restrict__ row_offsets,
                                                const vid_t* __restrict__ column_indices,
                                                const OpArgs* __restrict__ op, const FrontierOut& out, int L,
                                                const BFSAux* __restrict__ aux, AtStage& stage) {
    const int lane = (int)at_lane_id();
    const eid_t warp_first = c0 + (int)(threadIdx.x & ~31u);
#pragma unroll 1
    for (int it = 0; it < items; ++it) {  // block-uniform trip count
        const eid_t wbase = warp_first + it * BLOCK;
        const eid_t e = wbase + lane;
        bool claim = false;
        vid_t v = -1;
        int deg = 0;
        eid_t rs_v = 0;
        if (wbase < c1) {  // warp-uniform
            vid_t u = -1;
            eid_t col = 0;
            bs_warp_locate<STAGED>(P, V, B, R, n, e, e < c1, wbase, u, col);
            if (e < c1) {
                v = column_indices[col];
                claim = at_visit_edge<Op>(op, aux, row_offsets, u, v, col, L, deg, rs_v);
                if (Op::kPruneReturnLeaf && claim && deg == 1) {  // second optimization: a leaf whose only edge leads back
                    const vid_t w = column_indices[rs_v];
                    if (w == u || w == v) deg = 0;
                }
            }
        }
        at_stage_append<true>(claim, v, deg, rs_v, stage, row_offsets, out);  // all 32 lanes, converged
    }
}

template <int BLOCK, class Op>
__global__ void __launch_bounds__(BLOCK) binary_search_push(AT_LEVEL_ARGS) {
    static_assert(BLOCK >= 64 && BLOCK % 32 == 0 && AT_BS_CHUNK % BLOCK == 0, "block size");
    __shared__ eid_t s_prefix[AT_BS_CHUNK];
    __shared__ vid_t s_vertex[AT_BS_CHUNK];
    __shared__ eid_t s_base[AT_BS_CHUNK];  // row start - prefix: column of edge e = s_base[i] + e
    __shared__ int s_lo, s_hi;
    __shared__ vid_t s_stage_v[AT_BS_APPEND_STAGE];
    __shared__ int s_stage_d[AT_BS_APPEND_STAGE];

    int L, fsize;
    eid_t total;
    if (at_block_path(st, prm, L, fsize, total) != AT_PATH_PUSH) return;  // block-uniform
    at_hash_init(aux);
    const vid_t* frontier_in = (L & 1) ? f1 : f0;
    const eid_t* prefix_in = (L & 1) ? p1 : p0;
    const eid_t* row_start_in = (L & 1) ? r1 : r0;
    const FrontierOut out = at_frontier_out(L, f0, f1, p0, p1, r0, r1, st, prm, aux);

    // third optimization: dynamic chunk size (block-uniform; a multiple of BLOCK, <= AT_BS_CHUNK)
    int chunk = AT_BS_CHUNK;
    if (aux->bs_dynamic_chunk) {
        const long long resident = (long long)gridDim.x * BLOCK;
        const long long per_thread = ((long long)total + resident - 1) / resident;
        chunk = (int)min(per_thread * BLOCK, (long long)AT_BS_CHUNK);
        if (chunk < BLOCK) chunk = BLOCK;
    }
    const int items = chunk / BLOCK;
    const int warp = (int)(threadIdx.x >> 5);
    AtStage stage = at_stage_slice(s_stage_v, s_stage_d, AT_STAGE_PER_WARP(BLOCK, AT_BS_APPEND_STAGE));

    for (long long chunk_start = (long long)blockIdx.x * chunk; chunk_start < total;
         chunk_start += (long long)gridDim.x * chunk) {
        const eid_t c0 = (eid_t)chunk_start;
        const eid_t c1 = (eid_t)min(chunk_start + chunk, (long long)total);
        // (A) entries of the chunk's first and last edges, two warps in parallel
        if (warp == 0) {
            const int lo = bs_warp_last_le(prefix_in, 0, fsize, c0);
            if (at_lane_id() == 0) s_lo = lo;
        } else if (warp == 1) {
            const int hi = bs_warp_last_le(prefix_in, 0, fsize, c1 - 1);
            if (at_lane_id() == 0) s_hi = hi;
        }
        __syncthreads();
        const int lo = s_lo;
        const int cnt = s_hi - lo + 1;
        // (B) stage the slice; more entries than the capacity only with many zero-degree entries
        if (cnt <= AT_BS_CHUNK) {
            for (int j = threadIdx.x; j < cnt; j += BLOCK) {
                const eid_t p = prefix_in[lo + j];
                s_prefix[j] = p;
                s_vertex[j] = frontier_in[lo + j];
                s_base[j] = row_start_in[lo + j] - p;
            }
            __syncthreads();
            bs_expand_chunk<BLOCK, true, Op>(s_prefix, s_vertex, s_base, nullptr, cnt, c0, c1, items, row_offsets,
                                             column_indices, op, out, L, aux, stage);
        } else {
            bs_expand_chunk<BLOCK, false, Op>(prefix_in + lo, frontier_in + lo, nullptr, row_start_in + lo, cnt, c0,
                                              c1, items, row_offsets, column_indices, op, out, L, aux, stage);
        }
        __syncthreads();  // s_lo / s_hi and the shared slice are rewritten by the next chunk
    }
    at_stage_flush<true>(stage, row_offsets, out);
    at_multi_block_finish(st, prm, aux, L, fsize, total, AT_PATH_PUSH, 0, level_sizes, level_info, level_time);
}
