// traversal.cuh -- device code shared by every autotune kernel: the advance side of the
// advance x operator split (Gunrock's model; DESIGN.md "Kernels: advance x operator").
//
// A load-balancing technique (vertex_mapped.cu, scan_mapped.cu, binary_search.cu, ...) decides which
// thread handles which frontier edge: it is an *advance* template over an operator type `Op` and
// holds no algorithm code. The operator (op_bfs.cuh: claim the unvisited neighbour and record its
// parent; op_sssp.cuh: relax the weighted edge) decides what is done to each edge and whether the
// neighbour joins the next frontier. Operators read and write their per-vertex state through one
// `OpArgs` block (a device pointer every kernel receives); the advance side owns the frontier
// queues, the counters, the path decision and the level close below.
//
// Data layout (DESIGN.md terms): CSR `row_offsets` (n_vertices + 1, `eid_t`) and `column_indices`
// (n_edges, int32 vertex ids). Pull levels read in-edges (`pull_offsets`, `pull_indices`): the CSR itself for
// undirected graphs, the transposed CSR (built once, lazily) for directed ones.
//
// Device-resident levels (no host round trip per level)
// -----------------------------------------------------
// The traversal state lives in device memory (BFSState): the level (iteration) being expanded, a
// ring of three packed frontier counters, hub counters, the direction of the last level and the
// edges explored so far. Every level kernel reads the level from there, decides *on the device*
// which path runs it (at_choose_path: single-block, multi-block push or multi-block pull; all blocks
// of all kernels reach the same decision from the same state; the multi-block kernels read it in one
// thread per block, at_block_path), exits at once if that path is not its own, and the last block
// to finish a level (threadfence + atomic "last block done") advances the state. The host therefore
// enqueues the same launches over and over with the same arguments and reads the 64-byte state back
// once per batch of levels, only to learn whether to stop.
//
// Each frontier counter packs  (sum of out-degrees of the frontier's vertices) << AT_COUNT_BITS | (size).
// Level L reads ctr[L % 3], appends into ctr[(L+1) % 3] with warp-aggregated 64-bit atomicAdd and
// its finisher zeroes ctr[(L+2) % 3]. The packed atomic is the "online unordered prefix-sum" of
// Busato & Bombieri, "Efficient load balancing techniques for graph traversal applications on
// GPUs" (section 3.3): its return value gives each appended vertex both its position and the sum of
// the degrees of every vertex placed before it (a prefix-sum monotonic in position).
#pragma once

#define AT_FULL_MASK 0xffffffffu

#define AT_PATH_NONE (-1)
#define AT_PATH_PUSH 0
#define AT_PATH_PULL 1
#define AT_PATH_SINGLE_BLOCK 2

#define AT_DIR_PUSH_ONLY 0
#define AT_DIR_ALPHA_BETA 1
#define AT_DIR_HUB_RATIO 2
#define AT_DIR_ALPHA_BETA_GATED 3  // AT_DIR_ALPHA_BETA, pulling only a frontier of >= n / beta vertices

typedef int vid_t;
typedef unsigned long long u64;

// Edge offsets: every module is compiled twice, once per offset type (the engine picks the module
// from the graph's row_offsets dtype; autotune/_kernels.py adds -DAT_EID64 for the second). With
// int32 offsets (graphs below 2^31 edges) row offsets, edge indices, frontier degree prefix-sums
// and row starts are 32-bit, as they always were; with AT_EID64 they are 64-bit, so a graph may
// have up to 2^33 - 1 edges (the frontier counter's degree field) while vertex ids stay int32.
// Per-vertex degrees stay int (a degree is below n_vertices < 2^31).
#ifdef AT_EID64
typedef long long eid_t;
#define AT_COUNT_BITS 31  // frontier size field of the packed counter; the degree sum gets 33 bits
#else
typedef int eid_t;
#define AT_COUNT_BITS 32
#endif

// 64 bytes; mirrored by autotune/_engine.py (STATE_DTYPE).
struct BFSState {
    u64 ctr[3];            // packed frontier counters (ring)
    int hub_ctr[3];        // hub vertices (out-degree > hub_degree) appended to each frontier
    int level;             // level being expanded
    unsigned done_blocks;  // "last block done" counter of multi-block kernels
    int dir;               // path of the last level: AT_PATH_PUSH or AT_PATH_PULL
    long long explored;    // sum of out-degrees of the vertices of frontiers < level
    int iterations;        // launch rounds that began with a non-empty frontier (traversal_tick)
    int pad;
};

// 64 bytes; mirrored by autotune/_engine.py (PARAMS_DTYPE).
struct BFSParams {
    int n_vertices;
    int dir_mode;       // AT_DIR_*
    int sb_limit;       // single-block path when frontier size <= sb_limit (0: disabled)
    int sb_edge_limit;  // ... and frontier edges <= sb_edge_limit
    float alpha;        // push -> pull when frontier edges > unexplored edges / alpha (Beamer)
    float beta;         // pull -> push when frontier size < n_vertices / beta
    float gamma;        // push -> pull when hubs in frontier > gamma * n_hubs (Enterprise 4.3)
    int hub_degree;     // hub: out-degree > hub_degree
    int n_hubs;         // hubs in the graph
    int min_vw;         // BFS-4K K1 (multi-block dynamic virtual warps)
    int trace_cap;      // entries of level_sizes / level_info (level_time: + 1); later levels are not traced
    int eid_bytes;      // sizeof(eid_t) the engine built its buffers for (traversal_init traps otherwise)
    int inline_degree;  // persistent driver, operators with kInlineExpand: improved vertices of out-degree
                        // <= inline_degree are expanded in place (0: off)
    int sb_hub_degree;  // single-block path: a level of more than AT_SB_HUB_EDGES edges whose frontier's
                        // mean out-degree exceeds this goes multi-block (at_sb_fits; 0: off)
    long long n_edges;
};
static_assert(sizeof(BFSParams) == 64, "BFSParams must match PARAMS_DTYPE in autotune/_engine.py");


// Dynamic state of the bucketed SSSP methods (op_sssp.cuh, sssp.cu). 64 bytes; mirrored by
// autotune/engine.py (SSSP_STATE_DTYPE).
struct SSSPState {
    unsigned threshold;    // near/far threshold: distance bits (float bits for float weights)
    unsigned far_min;      // smallest live far-pile distance (bits), reduced by sssp_far_min
    int far_count[2];      // entries of the two far piles
    int far_cur;           // the far pile being appended to
    int epoch;             // far-pile stamp of the current bucket
    int r_count;           // delta_stepping: vertices of the bucket whose heavy edges are pending
    int r_epoch;           // stamp of the current R list
    int heavy_level;       // the level expanded with heavy edges only (-1: none)
    unsigned done_blocks;  // "last block done" counter of the bucket kernels
    int split;             // 1: sssp_far_split must refill the frontier (set by sssp_far_min)
    unsigned next_threshold;  // the threshold sssp_far_split moves to
    int action;            // set by sssp_bucket_check: 0 none, 1 sssp_r_move, 2 sssp_far_min (+ split)
    int pad[3];
};
static_assert(sizeof(SSSPState) == 64, "SSSPState must match SSSP_STATE_DTYPE in autotune/_engine.py");

#define AT_SSSP_BELLMAN_FORD 0
#define AT_SSSP_DELTA_STEPPING 1
#define AT_SSSP_NEAR_FAR 2

// Per-vertex state of the operators, and their options. Built by the engine (OPARGS_DTYPE mirrors
// it); every pointer an operator does not use is null. 104 bytes.
struct OpArgs {
    // BFS (op_bfs.cuh)
    int* distances;        // hop distance, -1 = unreached
    int* predecessors;     // BFS-tree parent, -1 = unreached, source = itself
    // SSSP (op_sssp.cuh)
    u64* dist_pred;        // (distance bits << 32) | predecessor; all ones = unreached
    const unsigned* weights;  // one per edge: int32 or float32 bits (null: unit weights)
    int* near_stamp;       // level whose frontier v was last appended to
    int* far_stamp;        // far-pile epoch v was last appended in
    int* r_stamp;          // R-list epoch v was last appended in (delta_stepping)
    vid_t* far[2];         // the two far piles (n_vertices entries each)
    vid_t* r_list;         // delta_stepping: R (n_vertices entries)
    SSSPState* sst;
    int weight_float;      // 1: weights are float32
    int method;            // AT_SSSP_*
    unsigned delta;        // bucket width: distance bits (float bits for float weights)
    int capacity;          // entries of each far pile and of r_list (n_vertices)
};
static_assert(sizeof(OpArgs) == 104, "OpArgs must match OPARGS_DTYPE in autotune/_engine.py");

#define AT_OFF 0x7fffffff  // a degree threshold that is never exceeded: the option is off
#define AT_SQ_MAX_BINS 16
#define AT_HASH_SIZE 1024  // entries of the shared-memory duplicate-culling table (power of two)
#ifndef AT_STAGE_BLOCK_ENTRIES
#define AT_STAGE_BLOCK_ENTRIES 1024  // append-stage entries per block, shared by its warps (at_stage_append)
#endif
// Entries per warp of a block's append stage of ENTRIES: a warp step appends up to 32, so a slice of
// fewer than 32 is no slice at all: 0, and the warp appends directly (at_stage_append).
#define AT_STAGE_PER_WARP(BLOCK, ENTRIES) \
    (((ENTRIES) / ((BLOCK) / 32)) >= 32 ? ((ENTRIES) / ((BLOCK) / 32)) : 0)

// Options and scratch buffers of the techniques beyond the basic push/pull levels. Built by the
// engine (autotune/engine.py, AUX_DTYPE mirrors it); every pointer a technique does not use is null.
// Degree thresholds are out-degrees; AT_OFF (INT_MAX) switches an option off.
struct BFSAux {
    // Support strategies of vertex_mapped / scan_mapped (Busato & Bombieri, "Efficient load
    // balancing techniques ...", section 3.4).
    int wg_degree;       // warp-based gathering: out-degree > wg_degree -> the whole warp
    int bg_degree;       // block-based gathering: out-degree > bg_degree -> the whole block
    int sq_degree;       // supplementary queues: out-degree > sq_degree -> power-of-two bins
    int sq_base_log2;    // b: bin i holds out-degrees in [2^(b+i), 2^(b+i+1)) (last bin: and above)
    int sq_bins;         // bins in use (<= AT_SQ_MAX_BINS)
    // Virtual-warp options (Hong et al., PPoPP'11, section 3.2).
    int defer_degree;    // deferring outliers: out-degree > defer_degree -> deferred queue
    int work_chunk;      // dynamic workload distribution: frontier vertices per fetch; 0 = static
    int push_finishes;   // 1: the push kernel closes the level; 0: heavy_vertices (deferred / SQ) does
    int hash_cull;       // BFS-4K section 6: shared-memory hash-table duplicate culling before the claim
    // degree_classified (Liu & Huang, "Enterprise", section 4.2): Small < dc_small <= Middle <
    // dc_middle <= Large <= dc_large < Extreme.
    int dc_small, dc_middle, dc_large;
    int bs_dynamic_chunk;  // binary_search: 1 = dynamic chunk size, 0 = fixed AT_BS_CHUNK edges
    int n_hub_cache;     // pull levels: hub-vertex cache entries in shared memory (Enterprise 4.3); 0 = off
    int heavy_off[AT_SQ_MAX_BINS + 2];  // segment k of `heavy`: [heavy_off[k], heavy_off[k+1]); 0 = deferred
    vid_t* heavy;        // deferred outliers (segment 0) and supplementary-queue bins (segments 1..)
    int* heavy_ctr;      // [AT_SQ_MAX_BINS + 1] fill counters of the segments, zeroed when a level closes
    vid_t* dc_queue[8];  // class queues: frontier L uses dc_queue[(L & 1) * 4 + class]
    int* dc_ctr;         // [3][4] ring of class-queue sizes: frontier L counts in dc_ctr[(L % 3) * 4 + class]
    const vid_t* coo_src;  // edge_mapped: source vertex of every edge (COO row array)
    const vid_t* hub_list; // pull hub cache: the n_hub_cache vertices of largest out-degree
    unsigned* barrier;   // persistent kernel: [2] one 64-bit arrival counter (at_grid_arrive_wait)
    int* work_ctr;       // dynamic workload distribution: next frontier index to hand out
    // Pull levels: vertices of in-degree > pull_heavy_degree are scanned by whole warps, one chunk of
    // AT_PULL_CHUNK in-edges per warp (pull.cu), not by one thread each.
    // One work item per chunk: (vertex << 32) | the chunk's index among its vertex's chunks, so a
    // warp finds its vertex in one load (a binary search over the vertices took ~16 dependent loads
    // per chunk, ~40 % of a kron scale 22 pull level after the explosion).
    const u64* pull_heavy_items;   // [pull_heavy_total]
    int n_pull_heavy;              // vertices of in-degree > pull_heavy_degree; 0 = none: one thread scans every unvisited vertex
    int pull_heavy_total;          // chunks of AT_PULL_CHUNK in-edges of those vertices
    int pull_heavy_degree;         // the in-degree threshold of the list
    int pull_pad;
    // Pull levels: the frontier as a bitmap (bit v of word v / 32), built from the status array by
    // pull_bitmap before each pull level (pull.cu); null: pull levels read the status array itself.
    unsigned* frontier_bits;
    // Pull levels: the vertices to examine (Enterprise section 2.1: a bottom-up level's "frontier" is
    // the unvisited vertices; section 3, a queue of them rather than a thread per vertex of the
    // graph). A pull level that follows a pull level reads the list the previous one wrote
    // (unvisited[L & 1], unvisited_ctr[L & 1] entries): the vertices it left without a parent; it
    // appends its own to unvisited[(L + 1) & 1]. A pull level after a push level reads pull_vertices
    // (the vertices of in-degree 1..pull_heavy_degree, n_pull_vertices of them; null: every
    // vertex). A list is read only when it is shorter than n by at least the grid's threads (else
    // the level walks 0..n-1). Null unvisited_ctr: off, every pull level examines every vertex.
    vid_t* unvisited[2];
    int* unvisited_ctr;            // [2] entries of the two lists; unvisited_ctr[L & 1] zeroed when level L closes
    const vid_t* pull_vertices;
    int n_pull_vertices;
    int unvisited_pad;
};
static_assert(sizeof(BFSAux) == 320, "BFSAux must match AUX_DTYPE in autotune/_engine.py");

// Where a level appends its next frontier.
struct FrontierOut {
    vid_t* vertices;
    eid_t* prefix;    // exclusive prefix-sum of degrees (WITH_PREFIX only)
    eid_t* row_start; // row_offsets[v] (WITH_PREFIX only)
    u64* ctr;
    int* hubs;        // nullptr unless the hub-ratio rule counts hubs
    int hub_degree;
    int* dc_ctr;      // degree_classified: the 4 class counters of the next frontier (else nullptr)
    vid_t* const* dc_queue;  // degree_classified: the 4 class queues of the next frontier
    int dc_small, dc_middle, dc_large;
};

#define AT_LEVEL_ARGS                                                                                  \
    const eid_t* __restrict__ row_offsets, const vid_t* __restrict__ column_indices,                  \
    const eid_t* __restrict__ pull_offsets, const vid_t* __restrict__ pull_indices,                   \
    const OpArgs* __restrict__ op, vid_t* f0, vid_t* f1, eid_t* p0, eid_t* p1, eid_t* r0, eid_t* r1,   \
    BFSState* st, const BFSParams* __restrict__ prm, int* level_sizes, int* level_info, u64* level_time, \
    const BFSAux* __restrict__ aux

__device__ __forceinline__ unsigned at_lane_id() { return threadIdx.x & 31u; }

__device__ __forceinline__ unsigned at_lanemask_lt() {
    unsigned m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}

// Inclusive prefix-sum of one value per lane over a converged warp (Kogge-Stone with shuffles).
template <typename T>
__device__ __forceinline__ T at_warp_inclusive_scan(T x) {
    const int lane = (int)at_lane_id();
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const T t = __shfl_up_sync(AT_FULL_MASK, x, o);
        if (lane >= o) x += t;
    }
    return x;
}

// Largest value of an int or long long (a search key no entry reaches).
template <typename T>
__device__ __forceinline__ T at_type_max();
template <>
__device__ __forceinline__ int at_type_max<int>() { return 0x7fffffff; }
template <>
__device__ __forceinline__ long long at_type_max<long long>() { return 0x7fffffffffffffffll; }

// Sum of one value per lane over a converged warp (every lane gets it).
__device__ __forceinline__ int at_warp_sum(int x) { return __reduce_add_sync(AT_FULL_MASK, x); }
__device__ __forceinline__ long long at_warp_sum(long long x) {
#pragma unroll
    for (int o = 16; o >= 1; o >>= 1) x += __shfl_xor_sync(AT_FULL_MASK, x, o);
    return x;
}

__device__ __forceinline__ u64 at_globaltimer() {
    u64 t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// The packed frontier counter: (degree sum << AT_COUNT_BITS) | size.
__device__ __forceinline__ int at_count(u64 packed) {
    return (int)(unsigned)(packed & ((1ull << AT_COUNT_BITS) - 1ull));
}
__device__ __forceinline__ eid_t at_degsum(u64 packed) { return (eid_t)(packed >> AT_COUNT_BITS); }
__device__ __forceinline__ u64 at_pack(eid_t degsum, int count) {
    return ((u64)degsum << AT_COUNT_BITS) | (u64)(unsigned)count;
}

__device__ __forceinline__ FrontierOut at_frontier_out(int L, vid_t* f0, vid_t* f1, eid_t* p0, eid_t* p1, eid_t* r0,
                                                       eid_t* r1, BFSState* st, const BFSParams* prm,
                                                       const BFSAux* aux) {
    const bool odd = (L & 1) != 0;  // level L reads buffer L&1 and writes buffer (L+1)&1
    FrontierOut o;
    o.vertices = odd ? f0 : f1;
    o.prefix = odd ? p0 : p1;
    o.row_start = odd ? r0 : r1;
    o.ctr = &st->ctr[(L + 1) % 3];
    o.hubs = prm->dir_mode == AT_DIR_HUB_RATIO ? &st->hub_ctr[(L + 1) % 3] : nullptr;
    o.hub_degree = prm->hub_degree;
    if (aux->dc_ctr != nullptr) {
        o.dc_ctr = aux->dc_ctr + ((L + 1) % 3) * 4;
        o.dc_queue = aux->dc_queue + ((L + 1) & 1) * 4;
    } else {
        o.dc_ctr = nullptr;
        o.dc_queue = nullptr;
    }
    o.dc_small = aux->dc_small;
    o.dc_middle = aux->dc_middle;
    o.dc_large = aux->dc_large;
    return o;
}

// Degree class of a frontier vertex (Enterprise section 4.2): 0 Small, 1 Middle, 2 Large,
// 3 Extreme; -1 for out-degree 0 (nothing to expand, kept out of the class queues).
__device__ __forceinline__ int at_degree_class(int deg, int small, int middle, int large) {
    if (deg <= 0) return -1;
    return deg < small ? 0 : (deg < middle ? 1 : (deg <= large ? 2 : 3));
}

// Append `v` (when `take`) to the class queue of its degree, warp-aggregated; every lane calls it.
__device__ __forceinline__ void at_warp_append_class(bool take, vid_t v, int deg, const FrontierOut& out) {
    const int cls = take ? at_degree_class(deg, out.dc_small, out.dc_middle, out.dc_large) : -1;
    const unsigned lane = at_lane_id();
#pragma unroll
    for (int c = 0; c < 4; ++c) {
        const unsigned b = __ballot_sync(AT_FULL_MASK, cls == c);
        if (b == 0u) continue;
        int base = 0;
        if (lane == 0) base = atomicAdd(out.dc_ctr + c, __popc(b));
        base = __shfl_sync(AT_FULL_MASK, base, 0);
        if (cls == c) out.dc_queue[c][base + __popc(b & at_lanemask_lt())] = v;
    }
}

// The block's shared-memory duplicate-culling table (BFS-4K section 6). One static instance per
// kernel that uses it; at_hash_init must run (block-uniformly) before the first at_hash_seen.
__device__ __forceinline__ int* at_hash_table() {
    __shared__ int table[AT_HASH_SIZE];
    return table;
}

__device__ __forceinline__ void at_hash_init(const BFSAux* aux) {
    if (!aux->hash_cull) return;
    int* t = at_hash_table();
    for (int i = threadIdx.x; i < AT_HASH_SIZE; i += blockDim.x) t[i] = -1;
    __syncthreads();
}

// True when another thread of this block already inserted `v` in this kernel: that thread makes
// the exact claim for v (or found it visited), so this one may drop it. Any vertex in the table
// was offered to the exact claim during this traversal, so dropping is always safe; a false
// "not seen" only costs the claim. Reduces the atomics of frontiers with many duplicate neighbours.
__device__ __forceinline__ bool at_hash_seen(vid_t v) {
    int* t = at_hash_table();
    return atomicExch(t + ((unsigned)v * 2654435761u >> 22) % AT_HASH_SIZE, v) == v;
}

// Edges above which a single-block level of hubs goes multi-block (BFSParams.sb_hub_degree): the
// single-block edge limit of the smallest frontier limit (16 x 512), so those configs never see it.
#define AT_SB_HUB_EDGES 8192

// Whether a level of `fsize` vertices and `degsum` edges runs on the small-frontier path: within the
// config's vertex and edge limits, and not a level of few vertices and many edges (hubs) when
// sb_hub_degree is set: one block expands ~400 such edges per us (a bow-tie's 9 hubs, 28,000 edges:
// 74 us) where the multi-block kernels spread them over every SM (11 us).
__device__ __forceinline__ bool at_sb_fits(int fsize, eid_t degsum, const BFSParams* prm) {
    if (!(prm->sb_limit > 0 && fsize <= prm->sb_limit && degsum <= prm->sb_edge_limit)) return false;
    return !(prm->sb_hub_degree > 0 && degsum > AT_SB_HUB_EDGES && degsum > (eid_t)prm->sb_hub_degree * fsize);
}

// Which path runs a level, from its frontier size and edges, its hub count, the edges explored by
// earlier levels and the direction of the previous level. Pure: every caller with the same inputs
// gets the same answer.
__device__ __forceinline__ int at_decide_path(int fsize, eid_t degsum, int hubs, long long explored, int prev_dir,
                                              const BFSParams* prm) {
    if (fsize == 0) return AT_PATH_NONE;
    if (at_sb_fits(fsize, degsum, prm)) return AT_PATH_SINGLE_BLOCK;
    if (prm->dir_mode == AT_DIR_PUSH_ONLY) return AT_PATH_PUSH;
    if (prev_dir == AT_PATH_PULL)  // back to push once the frontier is small again
        return ((float)fsize < (float)prm->n_vertices / prm->beta) ? AT_PATH_PUSH : AT_PATH_PULL;
    if (prm->dir_mode == AT_DIR_ALPHA_BETA || prm->dir_mode == AT_DIR_ALPHA_BETA_GATED) {
        // the gate (TraversalConfig.pull_gate): a frontier below the size at which pull levels end
        // stays push, however many out-edges its hubs have (Beamer's rule alone would pull it)
        if (prm->dir_mode == AT_DIR_ALPHA_BETA_GATED && (float)fsize < (float)prm->n_vertices / prm->beta)
            return AT_PATH_PUSH;
        const long long unexplored = prm->n_edges - explored - (long long)degsum;
        return ((double)degsum > (double)unexplored / (double)prm->alpha) ? AT_PATH_PULL : AT_PATH_PUSH;
    }
    return (prm->n_hubs > 0 && (float)hubs > prm->gamma * (float)prm->n_hubs) ? AT_PATH_PULL : AT_PATH_PUSH;
}

// Which path runs the current level, read from the device state. Every block of every level
// kernel computes the same answer.
__device__ __forceinline__ int at_choose_path(const BFSState* st, const BFSParams* prm, int& L, int& fsize,
                                              eid_t& degsum) {
    const volatile BFSState* vs = (const volatile BFSState*)st;
    L = vs->level;
    const u64 packed = vs->ctr[L % 3];
    fsize = at_count(packed);
    degsum = at_degsum(packed);
    return at_decide_path(fsize, degsum, vs->hub_ctr[L % 3], vs->explored, vs->dir, prm);
}

// at_choose_path for the multi-block level kernels, whose every thread needs the answer: thread 0
// reads the state and the block gets the answer through shared memory. Every thread of the block
// must call it, once, at the start of the kernel (it holds a __syncthreads). Reading the state in
// every thread made each of the grid's warps load the same L2 line several times: with ~800 blocks
// an empty launch (a round whose level is not this kernel's path) cost ~10 us instead of ~2 us on
// an H200 (same-address requests serialise at one L2 slice), and every launch round pays it once per
// multi-block kernel.
// *prev_dir (when given) gets the path of the previous level (BFSState.dir).
__device__ __forceinline__ int at_block_path(const BFSState* st, const BFSParams* prm, int& L, int& fsize,
                                             eid_t& degsum, int* prev_dir = nullptr) {
    __shared__ int s_path, s_level, s_fsize, s_dir;
    __shared__ eid_t s_degsum;
    if (threadIdx.x == 0) {
        int l, f;
        eid_t d;
        s_path = at_choose_path(st, prm, l, f, d);
        s_level = l;
        s_fsize = f;
        s_degsum = d;
        s_dir = ((const volatile BFSState*)st)->dir;
    }
    __syncthreads();
    L = s_level;
    fsize = s_fsize;
    degsum = s_degsum;
    if (prev_dir != nullptr) *prev_dir = s_dir;
    return s_path;
}

// A flag another launch wrote (volatile), read by thread 0 and given to the whole block: the early
// exit of grid-wide kernels that act only in some rounds (see at_block_path). Every thread of the
// block must call it, once, at the start of the kernel.
__device__ __forceinline__ int at_block_flag(const int* p) {
    __shared__ int s_flag;
    if (threadIdx.x == 0) s_flag = *(const volatile int*)p;
    __syncthreads();
    return s_flag;
}

// BFS-4K section 5.2: lower nearest power of two of resident_threads / |F|, clamped to [min_vw, 32].
__device__ __forceinline__ int at_dynamic_vw(int resident, int fsize, int min_vw) {
    const int ratio = resident / fsize;
    int vw = ratio >= 32 ? 32 : (ratio <= 1 ? 1 : (1 << (31 - __clz(ratio))));
    return vw < min_vw ? min_vw : vw;
}

// The operator's visit of edge e = (u, v) from frontier level L (behind whatever culling the operator
// does); when v joins the next frontier, read its row start and out-degree, which the append needs.
template <class Op>
__device__ __forceinline__ bool at_visit_edge(const OpArgs* __restrict__ op, const BFSAux* __restrict__ aux,
                                              const eid_t* __restrict__ row_offsets, vid_t u, vid_t v, eid_t e,
                                              int L, int& deg, eid_t& rs) {
    if (!Op::visit(op, aux, u, v, e, L)) return false;
    rs = __ldg(row_offsets + v);
    deg = (int)(__ldg(row_offsets + v + 1) - rs);
    return true;
}

// Warp-aggregated append of the claimed vertices of a *converged* warp to the next frontier.
// Every lane must call it (full mask). WITH_PREFIX also writes, per appended vertex, the exclusive
// prefix-sum of degrees (online unordered prefix-sum) and its row start, as binary_search needs.
template <bool WITH_PREFIX>
__device__ __forceinline__ void at_warp_append(bool claim, vid_t v, int deg, eid_t row_start, const FrontierOut& out) {
    const unsigned ballot = __ballot_sync(AT_FULL_MASK, claim);
    if (ballot == 0u) return;
    const unsigned lane = at_lane_id();
    const eid_t d = claim ? deg : 0;
    const eid_t incl = WITH_PREFIX ? at_warp_inclusive_scan(d) : d;
    const eid_t total_d = WITH_PREFIX ? __shfl_sync(AT_FULL_MASK, incl, 31) : at_warp_sum(d);
    u64 old = 0;
    if (lane == 0) old = atomicAdd(out.ctr, at_pack(total_d, __popc(ballot)));
    old = __shfl_sync(AT_FULL_MASK, old, 0);
    if (out.hubs != nullptr) {
        const unsigned hb = __ballot_sync(AT_FULL_MASK, claim && deg > out.hub_degree);
        if (lane == 0 && hb) atomicAdd(out.hubs, __popc(hb));
    }
    if (claim) {
        const int pos = at_count(old) + __popc(ballot & at_lanemask_lt());
        out.vertices[pos] = v;
        if (WITH_PREFIX) {
            out.prefix[pos] = at_degsum(old) + incl - d;
            out.row_start[pos] = row_start;
        }
    }
    if (out.dc_ctr != nullptr) at_warp_append_class(claim, v, deg, out);
}

// Per-warp staging of the next frontier's appends (at_stage_append / at_stage_flush): the claimed
// vertices of a warp's steps gather in its own slice of shared memory, and the warp takes their queue
// slots with one atomicAdd per AT_STAGE entries instead of one per step. Every step's append is a
// returning 64-bit atomic on the one frontier counter, and same-address atomics serialise at one L2
// slice: the explosion level of kron scale 22 claims ~2*10^6 vertices, one or more per warp step
// (about 10^5 atomics on one address, the level's critical path). Staging keeps the outputs of
// at_warp_append (queue entries, exclusive degree prefix-sums, row starts, the packed counter); only the
// order of the entries changes, which no level depends on (the reservation of many queue slots at once:
// Merrill, Garland & Grimshaw, "Scalable GPU Graph Traversal", PPoPP 2012, per thread array; with the
// online unordered prefix-sum of Busato & Bombieri, "Efficient load balancing techniques ...", section
// 3.3). Measured on an H200: kron 22's pick 0.526 -> 0.398 ms. Kernels with degree-class queues
// (out.dc_ctr) append directly. The warp's slice holds `cap` (vertex, out-degree) pairs; `n`
// (warp-uniform, a register of the caller) counts those staged; the row start is read again at the
// flush (the claim just loaded it, so it is a cache hit).
struct AtStage {
    vid_t* v;  // [cap] vertices (this warp's slice of the block's shared array)
    int* d;    // [cap] their out-degrees
    int cap;
    int n;     // staged entries (warp-uniform)
};

// The warp's slice of the block's shared arrays (`per_warp` entries each: AT_STAGE_PER_WARP, 0 or >= 32).
__device__ __forceinline__ AtStage at_stage_slice(vid_t* sv, int* sd, int per_warp) {
    const int w = (int)(threadIdx.x >> 5);
    return AtStage{sv + w * per_warp, sd + w * per_warp, per_warp, 0};
}

// Append the staged entries to the next frontier (all 32 lanes of a converged warp).
template <bool WITH_PREFIX>
__device__ __forceinline__ void at_stage_flush(AtStage& s, const eid_t* __restrict__ row_offsets,
                                               const FrontierOut& out) {
    if (s.n == 0) return;  // warp-uniform
    __syncwarp();
    const int lane = (int)at_lane_id();
    eid_t mine = 0;
    for (int j = lane; j < s.n; j += 32) mine += (eid_t)s.d[j];
    const eid_t total = at_warp_sum(mine);
    u64 old = 0;
    if (lane == 0) old = atomicAdd(out.ctr, at_pack(total, s.n));
    old = __shfl_sync(AT_FULL_MASK, old, 0);
    const int base = at_count(old);
    eid_t run = at_degsum(old);
    for (int j0 = 0; j0 < s.n; j0 += 32) {  // warp-uniform
        const int j = j0 + lane;
        const eid_t d = j < s.n ? (eid_t)s.d[j] : 0;
        const eid_t incl = WITH_PREFIX ? at_warp_inclusive_scan(d) : d;
        if (j < s.n) {
            const vid_t v = s.v[j];
            out.vertices[base + j] = v;
            if (WITH_PREFIX) {
                out.prefix[base + j] = run + incl - d;
                out.row_start[base + j] = __ldg(row_offsets + v);
            }
        }
        if (WITH_PREFIX) run += __shfl_sync(AT_FULL_MASK, incl, 31);
    }
    s.n = 0;
    __syncwarp();  // the slice is rewritten by the next appends
}

// at_warp_append through the warp's stage (all 32 lanes of a converged warp). The caller flushes the
// stage (at_stage_flush) before its level closes.
template <bool WITH_PREFIX>
__device__ __forceinline__ void at_stage_append(bool claim, vid_t v, int deg, eid_t row_start, AtStage& s,
                                                const eid_t* __restrict__ row_offsets, const FrontierOut& out) {
    if (out.dc_ctr != nullptr || s.cap == 0) {  // uniform: class queues, or no slice: appended directly
        at_warp_append<WITH_PREFIX>(claim, v, deg, row_start, out);
        return;
    }
    const unsigned ballot = __ballot_sync(AT_FULL_MASK, claim);
    if (ballot == 0u) return;
    if (out.hubs != nullptr) {
        const unsigned hb = __ballot_sync(AT_FULL_MASK, claim && deg > out.hub_degree);
        if (at_lane_id() == 0 && hb) atomicAdd(out.hubs, __popc(hb));
    }
    const int k = __popc(ballot);
    if (s.n + k > s.cap) at_stage_flush<WITH_PREFIX>(s, row_offsets, out);
    if (claim) {
        const int p = s.n + __popc(ballot & at_lanemask_lt());
        s.v[p] = v;
        s.d[p] = deg;
    }
    s.n += k;
}

// A list of vertices (no degrees) staged per warp the same way: `*ctr` counts the list's entries
// (`cap`: AT_STAGE_PER_WARP, 0 or >= 32).
struct AtListStage {
    vid_t* v;
    int cap;
    int n;
};

__device__ __forceinline__ void at_list_flush(AtListStage& s, vid_t* list, int* ctr) {
    if (s.n == 0) return;  // warp-uniform
    __syncwarp();
    const int lane = (int)at_lane_id();
    int base = 0;
    if (lane == 0) base = atomicAdd(ctr, s.n);
    base = __shfl_sync(AT_FULL_MASK, base, 0);
    for (int j = lane; j < s.n; j += 32) list[base + j] = s.v[j];
    s.n = 0;
    __syncwarp();
}

__device__ __forceinline__ void at_list_append(bool take, vid_t v, AtListStage& s, vid_t* list, int* ctr) {
    const unsigned ballot = __ballot_sync(AT_FULL_MASK, take);
    if (ballot == 0u) return;
    const int k = __popc(ballot);
    if (s.cap == 0) {  // no slice (fewer than a warp step's 32 entries): one warp-aggregated atomic
        int base = 0;
        if (at_lane_id() == 0) base = atomicAdd(ctr, k);
        base = __shfl_sync(AT_FULL_MASK, base, 0);
        if (take) list[base + __popc(ballot & at_lanemask_lt())] = v;
        return;
    }
    if (s.n + k > s.cap) at_list_flush(s, list, ctr);
    if (take) s.v[s.n + __popc(ballot & at_lanemask_lt())] = v;
    s.n += k;
}

// Per-level scratch of BFSAux reset when level L closes (one thread): the class counters two
// levels ahead, the heavy-vertex segments and the work counter.
__device__ __forceinline__ void at_aux_finish_level(const BFSAux* aux, int L) {
    if (aux->dc_ctr != nullptr) {
#pragma unroll
        for (int c = 0; c < 4; ++c) aux->dc_ctr[((L + 2) % 3) * 4 + c] = 0;
    }
    if (aux->heavy_ctr != nullptr) {
        for (int k = 0; k <= aux->sq_bins; ++k) aux->heavy_ctr[k] = 0;
    }
    if (aux->work_ctr != nullptr) *aux->work_ctr = 0;
    if (aux->unvisited_ctr != nullptr) aux->unvisited_ctr[L & 1] = 0;  // read by level L, written by level L + 1
}

// Trace of level L (one thread); levels past the trace capacity are not traced.
__device__ __forceinline__ void at_trace_level(const BFSParams* prm, int L, int fsize, int info, int* level_sizes,
                                               int* level_info, u64* level_time) {
    if (L >= prm->trace_cap) return;
    level_sizes[L] = fsize;
    level_info[L] = info;
    level_time[L + 1] = at_globaltimer();
}

// Close level L (one thread): trace, explored edges, direction, counters, then advance the level.
__device__ __forceinline__ void at_finish_level(BFSState* st, const BFSParams* prm, const BFSAux* aux, int L,
                                                int fsize, eid_t degsum,
                                                int path, int vw, int* level_sizes, int* level_info,
                                                u64* level_time) {
    at_aux_finish_level(aux, L);
    at_trace_level(prm, L, fsize, path | (vw << 8), level_sizes, level_info, level_time);
    st->explored += degsum;
    st->dir = path == AT_PATH_PULL ? AT_PATH_PULL : AT_PATH_PUSH;
    st->ctr[(L + 2) % 3] = 0ull;
    st->hub_ctr[(L + 2) % 3] = 0;
    __threadfence();
    st->level = L + 1;
}

// End of a multi-block level kernel: the last block to get here closes the level.
__device__ __forceinline__ void at_multi_block_finish(BFSState* st, const BFSParams* prm, const BFSAux* aux, int L,
                                                      int fsize, eid_t degsum,
                                                      int path, int vw, int* level_sizes, int* level_info,
                                                      u64* level_time) {
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        const unsigned prev = atomicAdd(&st->done_blocks, 1u);
        if (prev == gridDim.x - 1) {
            __threadfence();
            st->done_blocks = 0u;
            at_finish_level(st, prm, aux, L, fsize, degsum, path, vw, level_sizes, level_info, level_time);
        }
    }
}

// Start a traversal from `source`: the operator's per-vertex state must already be reset.
// The source is read from memory (`source_slot`: the engine's pinned host word, read zero-copy by
// this one thread, or a device word filled by a copy where the device cannot map host memory), so
// the launch sequence of a traversal, this kernel included, is the same for every source and can be
// captured once in a CUDA graph and replayed (the engine writes the source before each replay).
template <class Op>
__global__ void traversal_init(const eid_t* __restrict__ row_offsets, const OpArgs* __restrict__ op,
                               const vid_t* __restrict__ source_slot,
                               vid_t* frontier0, eid_t* prefix0, eid_t* row_start0, BFSState* st,
                               const BFSParams* __restrict__ prm, u64* level_time, const BFSAux* __restrict__ aux) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        if (prm->eid_bytes != (int)sizeof(eid_t)) __trap();  // buffers built for the other offset type: a bug
        const vid_t source = *source_slot;
        const eid_t rs = row_offsets[source];
        const int deg = (int)(row_offsets[source + 1] - rs);
        Op::init_source(op, source);
        frontier0[0] = source;
        prefix0[0] = 0;
        row_start0[0] = rs;
        st->ctr[0] = at_pack(deg, 1);
        st->ctr[1] = 0ull;
        st->ctr[2] = 0ull;
        st->hub_ctr[0] = deg > prm->hub_degree ? 1 : 0;
        st->hub_ctr[1] = 0;
        st->hub_ctr[2] = 0;
        st->level = 0;
        st->done_blocks = 0u;
        st->dir = AT_PATH_PUSH;
        st->explored = 0;
        st->iterations = 0;
        level_time[0] = at_globaltimer();
        if (aux->dc_ctr != nullptr) {
            for (int i = 0; i < 12; ++i) aux->dc_ctr[i] = 0;
            const int c = at_degree_class(deg, aux->dc_small, aux->dc_middle, aux->dc_large);
            if (c >= 0) {
                aux->dc_queue[c][0] = source;
                aux->dc_ctr[c] = 1;
            }
        }
        if (aux->heavy_ctr != nullptr) {
            for (int k = 0; k <= aux->sq_bins; ++k) aux->heavy_ctr[k] = 0;
        }
        if (aux->work_ctr != nullptr) *aux->work_ctr = 0;
        if (aux->unvisited_ctr != nullptr) {
            aux->unvisited_ctr[0] = 0;
            aux->unvisited_ctr[1] = 0;
        }
        if (aux->barrier != nullptr) {
            aux->barrier[0] = 0u;
            aux->barrier[1] = 0u;
        }
    }
}

// Grid-wide barrier, the part of thread 0 of each block (the caller brackets it with
// __syncthreads). Only for cooperative launches (all blocks co-resident). One 64-bit arrival counter
// that only grows: it is reset by the traversal's init kernel, every block of a launch passes the same
// barriers, and every launch of a traversal has the same grid, so the tickets of one barrier form
// one range [k G, (k+1) G); a block takes a ticket (a release atomic after a fence: the block's
// writes are visible before it arrives) and waits (acquire loads, then a fence) until the counter
// reaches the end of its range. The arrive-counter + generation-flag barrier it replaces needed a
// reset write, a second atomic and one more dependent round trip for the last block: 2.08 us per
// barrier against 1.3 on the 132 blocks of an H200 (notebooks/figures/grid_barrier_h200.json).
// `bar` points to 8-byte-aligned storage (two unsigned words of the auxiliary state).
__device__ __forceinline__ void at_grid_arrive_wait(unsigned* bar) {
    unsigned long long* const cnt = reinterpret_cast<unsigned long long*>(bar);
    __threadfence();
    unsigned long long ticket;
    asm volatile("atom.add.release.gpu.global.u64 %0, [%1], 1;" : "=l"(ticket) : "l"(cnt) : "memory");
    const unsigned long long target = ticket - ticket % gridDim.x + gridDim.x;
    unsigned long long now;
    do {
        asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(now) : "l"(cnt) : "memory");
    } while (now < target);
    __threadfence();
}

// One thread, at the start of every launch round (the level kernels of one iteration): counts the
// rounds that begin with a non-empty frontier, i.e. the rounds the traversal needed. The engine
// replays exactly that many rounds in one CUDA graph for the next source.
extern "C" __global__ void traversal_tick(BFSState* st) {
    const volatile BFSState* vs = (const volatile BFSState*)st;
    if (at_count(vs->ctr[vs->level % 3]) != 0) st->iterations += 1;
}

// The state read-back as a kernel (one warp, 8 words) writing straight into the engine's pinned
// host buffer (zero-copy: with unified addressing a pinned host pointer is a device pointer). In a
// CUDA graph a device-to-host copy node after the level kernels costs ~9 us on an H200, this
// kernel ~1 us; the host reads the buffer after its one wait on the stream, when the kernel's
// writes are complete.
extern "C" __global__ void traversal_state_out(const BFSState* st, BFSState* host_state) {
    static_assert(sizeof(BFSState) == 64, "8 words");
    if (threadIdx.x < 8)
        reinterpret_cast<volatile u64*>(host_state)[threadIdx.x] = reinterpret_cast<const volatile u64*>(st)[threadIdx.x];
}

// The operators (they use the helpers above; the advance templates above and in the technique files
// call them through their template parameter).
#include "op_bfs.cuh"
#include "op_sssp.cuh"
