// pull.cu -- bottom-up (pull) levels of direction-optimizing BFS (direction = "push_pull").
//
// Liu & Huang, "Enterprise: Breadth-First Graph Traversal on GPUs" (SC'15), sections 2.1 and 4.3,
// after Beamer et al.'s direction-optimizing BFS: instead of expanding the frontier, every
// unvisited vertex scans its in-edges and stops at the first parent found in the frontier. The
// frontier is read as a status array: Op::in_frontier(u, L) (BFS: `distances[u] == L`) marks
// exactly the vertices of the frontier of level L (no separate bitmap to build or convert). The
// pull hooks of the operator (Op::pull_unvisited, Op::pull_claim) exist only for BFS's operator:
// looking for any parent is what a claim-once traversal allows, so only BFSOp instantiates this. Each thread owns one vertex, so
// the claim needs no atomic; the discovered vertices are appended, staged per warp (at_stage_append,
// one atomic per stage-full), to the ordinary frontier queue (with degree prefix-sums when WITH_PREFIX), so the traversal can
// switch back to push at any level without a bitmap -> queue conversion kernel. For directed graphs
// in-edges come from the transposed CSR, built once by the engine.
//
// Hub-vertex cache (Enterprise section 4.3, aux->n_hub_cache > 0): most unvisited vertices of a
// pull level find their parent among the few hub vertices of the frontier, so each block first
// caches, in shared memory, which of the graph's largest-degree vertices (aux->hub_list) are in the
// frontier, in a direct-mapped table indexed by vertex id. A parent lookup probes the table before
// reading `distances` from global memory; a miss (or a collision) falls back to the global check,
// so the result is exact either way.
//
// Heavy in-degree vertices (aux->n_pull_heavy > 0): one thread per vertex makes a level as long as
// the largest unvisited in-degree -- on a directed graph a vertex that is never reached scans all
// its in-edges at every pull level (measured: 5 ms per level for one in-degree of 245,886, where the
// whole level's edges take ~0.1 ms at memory bandwidth). The engine lists the vertices of in-degree >
// aux->pull_heavy_degree; the thread pass skips them and a second pass hands out their in-edges in
// chunks of AT_PULL_CHUNK, one warp per chunk, coalesced, with a warp vote per 32 edges (the
// early exit) and an atomic claim (several chunks of one vertex may find a parent in the same
// level; Op::visit_direct lets exactly one win). The same load balancing as a push level's edge
// chunks (Busato & Bombieri, "Efficient load balancing techniques for graph traversal applications
// on GPUs", section 3.3, applied to in-edges).
//
// Long rows (AT_PULL_SERIAL): a thread scans the first AT_PULL_SERIAL in-edges of its vertex alone
// (most vertices that find a parent find it there); when the rows still open after that are uneven
// (one warp-wide scan per open row, 32 in-edges per step, takes fewer steps than the longest row
// alone), the whole warp scans them one after the other with a ballot for the first hit
// (Enterprise's warp-level work for larger vertices, section 4.2, applied to the bottom-up scan), so
// a warp's time is about the sum of its long rows / 32 instead of its longest row; else the threads
// finish their rows alone.
//
// Frontier bitmap (aux->frontier_bits, Enterprise section 4.1's status array kept as bits): the parent
// test of a pull level reads `distances` (or the operator's status) at a random in-neighbour for
// every in-edge it scans; when that array is larger than the L2 cache (kron scale 26: 268 MB against
// the H200's 50 MB) nearly every test is a DRAM sector read for 4 useful bytes. pull_bitmap, launched
// before pull_level, packs the frontier of the level into one bit per vertex (a warp ballot per 32
// consecutive vertices, plain stores, no atomics: n / 8 bytes, 8 MB for kron 26, which stays in L2),
// and pull_level tests the bit instead. The engine turns it on when the status array exceeds half
// the L2 (autotune/_engine.py, PULL_BITMAP_L2_SHARE).
//
// Vertex lists (BFSAux.unvisited; Enterprise section 2.1: a bottom-up level's frontier is the set of
// unvisited vertices, and section 3: a queue of exactly those instead of a thread per vertex of the
// graph): a level that walks every vertex pays one dependent round trip per grid-stride round for
// vertices with nothing to do -- on kron scale 22, 45 % of the vertices are isolated, and after the
// explosion level ~15 % of the others are still unvisited. The first pull level of a run walks the
// static list of the vertices of in-degree 1..pull_heavy_degree; each pull level appends the vertices
// it left without a parent (staged per warp, one atomic per stage-full), and the next pull level walks only those, knowing they
// are unvisited. Each list is read only when it is shorter than all the vertices by at least one
// grid-stride round (see pull_level).
#include "traversal.cuh"

#define AT_HUB_CACHE_SIZE 1024  // entries (power of two), >= the engine's HUB_CACHE_ENTRIES
#define AT_PULL_CHUNK 1024      // in-edges per warp work item of a heavy vertex (engine: PULL_CHUNK)
#ifndef AT_PULL_SERIAL
#define AT_PULL_SERIAL 8        // in-edges a thread scans alone before its warp takes the rest of the row
#endif

// Build the frontier bitmap of a pull level (grid-stride over 32-vertex words, one ballot each).
template <class Op>
__global__ void pull_bitmap(AT_LEVEL_ARGS) {
    int L, fsize;
    eid_t degsum;
    if (at_block_path(st, prm, L, fsize, degsum) != AT_PATH_PULL) return;
    unsigned* bits = aux->frontier_bits;
    if (bits == nullptr) return;
    const int n = prm->n_vertices;
    const int n_words = (n + 31) >> 5;
    const int lane = (int)at_lane_id();
    const int warp_global = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const int n_warps = (int)((gridDim.x * blockDim.x) >> 5);
    for (int w = warp_global; w < n_words; w += n_warps) {  // warp-uniform
        const vid_t v = (w << 5) + lane;
        const unsigned word = __ballot_sync(AT_FULL_MASK, v < n && Op::in_frontier(op, v, L));
        if (lane == 0) bits[w] = word;
    }
}

// u in the frontier of level L: its bit when the bitmap exists (built by pull_bitmap for this level),
// else the operator's status array.
template <class Op>
__device__ __forceinline__ bool at_pull_in_frontier(const OpArgs* __restrict__ op, const unsigned* __restrict__ bits,
                                                    vid_t u, int L) {
    if (bits != nullptr) return (__ldg(bits + (u >> 5)) >> (u & 31)) & 1u;
    return Op::in_frontier(op, u, L);
}

template <int BLOCK, bool WITH_PREFIX, class Op>
__global__ void __launch_bounds__(BLOCK) pull_level(AT_LEVEL_ARGS) {
    int L, fsize, prev_dir;
    eid_t degsum;
    if (at_block_path(st, prm, L, fsize, degsum, &prev_dir) != AT_PATH_PULL) return;
    const FrontierOut out = at_frontier_out(L, f0, f1, p0, p1, r0, r1, st, prm, aux);
    // The warps' append stages (traversal.cuh, at_stage_append): the next frontier and the list of
    // vertices left without a parent, each taken with one atomic per stage-full instead of per step.
    constexpr int kLeftEntries = AT_STAGE_BLOCK_ENTRIES / 2 > BLOCK ? AT_STAGE_BLOCK_ENTRIES / 2 : BLOCK;
    constexpr int kLeftPerWarp = AT_STAGE_PER_WARP(BLOCK, kLeftEntries);
    __shared__ vid_t s_stage_v[AT_STAGE_BLOCK_ENTRIES];
    __shared__ int s_stage_d[AT_STAGE_BLOCK_ENTRIES];
    __shared__ vid_t s_left_v[kLeftEntries];
    AtStage stage = at_stage_slice(s_stage_v, s_stage_d, AT_STAGE_PER_WARP(BLOCK, AT_STAGE_BLOCK_ENTRIES));
    AtListStage left_stage{s_left_v + (threadIdx.x >> 5) * kLeftPerWarp, kLeftPerWarp, 0};
    __shared__ vid_t s_hubs[AT_HUB_CACHE_SIZE];
    const int n_cache = aux->n_hub_cache;
    if (n_cache > 0) {  // block-uniform
        for (int i = threadIdx.x; i < AT_HUB_CACHE_SIZE; i += BLOCK) s_hubs[i] = -1;
        __syncthreads();
        for (int i = threadIdx.x; i < n_cache; i += BLOCK) {
            const vid_t h = aux->hub_list[i];
            if (Op::in_frontier(op, h, L)) s_hubs[h & (AT_HUB_CACHE_SIZE - 1)] = h;
        }
        __syncthreads();
    }
    // The vertices this level examines (BFSAux.unvisited): the list the previous level left when it
    // was a pull level, else the static list of the vertices a pull level can reach, else all. A
    // list is walked only when it is shorter than all the vertices by at least one grid-stride round
    // (the grid's threads): each entry costs one more dependent load and scatters the status reads,
    // which a shorter walk by a fraction of a round does not recover (measured on the H200:
    // coAuthorsDBLP, 3 * 10^5 vertices, 1.5 % slower when any shorter list was walked). The engine
    // builds no lists for graphs of fewer vertices than the grid's threads.
    const vid_t* __restrict__ list = nullptr;
    int count = prm->n_vertices;
    bool listed_unvisited = false;  // every entry is unvisited (the previous pull level left it so)
    vid_t* next_list = nullptr;
    if (aux->unvisited_ctr != nullptr) {  // grid-uniform
        __shared__ int s_count;
        __shared__ int s_which;  // 0: every vertex, 1: the previous level's list, 2: the static list
        if (threadIdx.x == 0) {
            const int T = (int)min((long long)gridDim.x * BLOCK, 0x7fffffffll);
            int which = 0, c = count;
            if (prev_dir == AT_PATH_PULL) {
                const int k = ((const volatile int*)aux->unvisited_ctr)[L & 1];
                if (k <= count - T) which = 1, c = k;
            } else if (aux->pull_vertices != nullptr && aux->n_pull_vertices <= count - T) {
                which = 2, c = aux->n_pull_vertices;
            }
            s_which = which;
            s_count = c;
        }
        __syncthreads();
        const int which = s_which;
        count = s_count;
        list = which == 1 ? aux->unvisited[L & 1] : (which == 2 ? aux->pull_vertices : nullptr);
        listed_unvisited = which == 1;
        next_list = aux->unvisited[(L + 1) & 1];
    }
    const unsigned* __restrict__ fbits = aux->frontier_bits;
    const int n_heavy = aux->n_pull_heavy;
    const int heavy_degree = n_heavy > 0 ? aux->pull_heavy_degree : 0x7fffffff;  // larger: the warp pass
    const int lane = (int)at_lane_id();
    const int warp_global = (int)((blockIdx.x * BLOCK + threadIdx.x) >> 5);
    const int n_warps = (int)((gridDim.x * BLOCK) >> 5);
    for (int base = warp_global * 32; base < count; base += n_warps * 32) {  // warp-uniform loop
        const int i = base + lane;
        const vid_t v = i < count ? (list != nullptr ? list[i] : i) : -1;
        bool claim = false;
        int deg = 0;
        eid_t rs = 0;
        vid_t parent = -1;
        bool examined = false;
        eid_t k = 0, e = 0;
        // The vertex's status and in-edge range, loaded together (independent loads in flight; the
        // status test first and the range after it were two round trips).
        eid_t kv = 0, ev = 0;
        bool unvisited = false;
        if (v >= 0) {
            kv = pull_offsets[v];
            ev = pull_offsets[v + 1];
            unvisited = listed_unvisited || Op::pull_unvisited(op, v);
        }
        if (unvisited && ev - kv <= heavy_degree) {
            k = kv;
            e = ev;
            examined = k < e;  // unvisited, not heavy, with in-edges: a parent may yet turn up
            const eid_t stop = min(e, k + (eid_t)AT_PULL_SERIAL);  // the first in-edges: this thread alone
            for (; k < stop; ++k) {
                const vid_t u = pull_indices[k];
                if ((n_cache > 0 && s_hubs[u & (AT_HUB_CACHE_SIZE - 1)] == u) || at_pull_in_frontier<Op>(op, fbits, u, L)) {
                    parent = u;
                    break;
                }
            }
        }
        // The rest of the rows still without a parent: when the warp's open rows are uneven, the whole
        // warp scans each in turn, 32 in-edges per step (coalesced; a ballot stops it at the first
        // hit), so one long row no longer keeps 31 idle lanes waiting while its thread walks it
        // alone. At most sum(ceil(rest / 32)) warp steps against at most max(rest) steps of the
        // threads alone: the smaller bound decides (warp-uniform), so rows that are all short or
        // all alike stay with their threads.
        const bool open = parent < 0 && k < e;
        const int rest = open ? (int)min(e - k, (eid_t)0x7fffffff) : 0;
        int steps = (rest + 31) >> 5, longest = rest;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            steps += __shfl_xor_sync(AT_FULL_MASK, steps, off);
            longest = max(longest, __shfl_xor_sync(AT_FULL_MASK, longest, off));
        }
        if (steps >= longest) {  // warp-uniform: the threads finish their rows alone
            for (; parent < 0 && k < e; ++k) {
                const vid_t u = pull_indices[k];
                if ((n_cache > 0 && s_hubs[u & (AT_HUB_CACHE_SIZE - 1)] == u) || at_pull_in_frontier<Op>(op, fbits, u, L))
                    parent = u;
            }
        }
        // (This warp scan and the heavy pass's below are written out twice on purpose: one shared device
        // function changed the kernels' register allocation and measured 1.03x slower, kron 24 1.08x, on
        // an H200: notebooks/figures/pull_scan_refactor_h200.jsonl.)
        unsigned todo = __ballot_sync(AT_FULL_MASK, parent < 0 && k < e);
        while (todo != 0u) {  // warp-uniform
            const int owner = __ffs(todo) - 1;
            todo &= todo - 1u;
            const eid_t kb = __shfl_sync(AT_FULL_MASK, k, owner);
            const eid_t ke = __shfl_sync(AT_FULL_MASK, e, owner);
            for (eid_t k0 = kb; k0 < ke; k0 += 32) {  // warp-uniform
                const eid_t kk = k0 + lane;
                const vid_t u = kk < ke ? pull_indices[kk] : -1;
                const bool hit = u >= 0 && ((n_cache > 0 && s_hubs[u & (AT_HUB_CACHE_SIZE - 1)] == u) ||
                                            at_pull_in_frontier<Op>(op, fbits, u, L));
                const unsigned m = __ballot_sync(AT_FULL_MASK, hit);
                if (m != 0u) {
                    const vid_t found = __shfl_sync(AT_FULL_MASK, u, __ffs(m) - 1);
                    if (lane == owner) parent = found;
                    break;
                }
            }
        }
        if (parent >= 0) {
            claim = true;
            Op::pull_claim(op, v, parent, L);
            if (row_offsets == pull_offsets) {  // undirected: the out-edges are the in-edges just read
                rs = kv;
                deg = (int)(ev - kv);
            } else {
                rs = row_offsets[v];
                deg = (int)(row_offsets[v + 1] - rs);
            }
        }
        // The vertices left without a parent, for the next pull level (staged like the frontier).
        const bool left = next_list != nullptr && examined && parent < 0;
        at_list_append(left, v, left_stage, next_list, aux->unvisited_ctr + ((L + 1) & 1));
        at_stage_append<WITH_PREFIX>(claim, v, deg, rs, stage, row_offsets, out);
    }
    if (next_list != nullptr) at_list_flush(left_stage, next_list, aux->unvisited_ctr + ((L + 1) & 1));
    if (n_heavy > 0) {  // the heavy vertices: one warp per chunk of in-edges
        const int total = aux->pull_heavy_total;
        const u64* __restrict__ items = aux->pull_heavy_items;
        for (int c = warp_global; c < total; c += n_warps) {  // warp-uniform loop
            const u64 item = items[c];
            const vid_t v = (vid_t)(item >> 32);
            const eid_t first = (eid_t)(unsigned)item * (eid_t)AT_PULL_CHUNK;  // the chunk's first in-edge of v
            bool claim = false;
            int deg = 0;
            eid_t rs = 0;
            int unvisited = lane == 0 ? (int)Op::pull_unvisited(op, v) : 0;
            unvisited = __shfl_sync(AT_FULL_MASK, unvisited, 0);  // one answer for the warp
            if (unvisited) {
                const eid_t b = pull_offsets[v] + first;
                const eid_t e = min(b + (eid_t)AT_PULL_CHUNK, pull_offsets[v + 1]);
                for (eid_t k0 = b; k0 < e; k0 += 32) {  // warp-uniform
                    const eid_t k = k0 + lane;
                    const vid_t u = k < e ? pull_indices[k] : -1;
                    const bool hit = u >= 0 && ((n_cache > 0 && s_hubs[u & (AT_HUB_CACHE_SIZE - 1)] == u) ||
                                                at_pull_in_frontier<Op>(op, fbits, u, L));
                    const unsigned m = __ballot_sync(AT_FULL_MASK, hit);
                    if (m != 0u) {  // same m on every lane: the warp leaves together
                        const vid_t parent = __shfl_sync(AT_FULL_MASK, u, __ffs(m) - 1);
                        if (lane == 0) claim = Op::visit_direct(Op::context(op), parent, v, 0, L);
                        break;
                    }
                }
                if (claim) {
                    rs = row_offsets[v];
                    deg = (int)(row_offsets[v + 1] - rs);
                }
            }
            at_stage_append<WITH_PREFIX>(claim, v, deg, rs, stage, row_offsets, out);
        }
    }
    at_stage_flush<WITH_PREFIX>(stage, row_offsets, out);
    at_multi_block_finish(st, prm, aux, L, fsize, degsum, AT_PATH_PULL, 0, level_sizes, level_info, level_time);
}
