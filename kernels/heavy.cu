// heavy.cu -- expansion of the heavy frontier vertices queued by vertex_mapped_push / scan_mapped_push
// (deferred outliers and supplementary-queue bins), then the close of the level.
//
// Launched right after the push kernel, in the same stream with the same arguments, when
// aux->push_finishes == 0; it runs the same device-side path check (and returns unless the level is
// a multi-block push level), so the state it reads is the one the push kernel saw.
//
// * Segment 0, deferred outliers (Hong et al., "Accelerating CUDA Graph Algorithms at Maximum Warp",
//   PPoPP'11, section 3.2 "Deferring Outliers"): each deferred vertex is processed individually,
//   its work spread over the whole grid. The vertices' edges are cut into stripes of 64 (one warp,
//   two edges per lane); batches of BLOCK deferred vertices are scanned by every block (two-level
//   block scan of the stripe counts, supports.cuh) and stripe g of the batch goes to warp
//   (rot + g) mod W, rot advancing by the batch's stripe count, so the stripes of consecutive
//   vertices continue round-robin over the W resident warps: vertex after vertex with the whole
//   grid, without idle warps between vertices. A warp locates its stripe's vertex with the uniform
//   binary search of Busato & Bombieri (Algorithm 1).
// * Segments 1.., supplementary queues (Busato & Bombieri, "Efficient load balancing techniques for
//   graph traversal applications on GPUs", section 3.4): bin i holds out-degrees in
//   [2^(b+i), 2^(b+i+1)) (the last bin: and above); each of its vertices gets a group of
//   min(2^(b+i), resident threads) threads. Groups of >= 32 threads are whole warps (gw warps per
//   vertex, grid-stride over the bin's vertices, 64 edges per warp step); smaller groups are
//   virtual warps inside a warp with a warp-uniform trip count (warp max).
// Warps that finish a segment go on to the next one without a barrier. The segment counters may
// exceed the segment capacity (the push kernel then expanded the extra vertices itself), so they
// are clamped here; at_multi_block_finish -> at_aux_finish_level zeroes them.
#include "supports.cuh"

// Deferred outliers (see the header). Block-uniform.
template <int BLOCK, class Op>
__device__ __forceinline__ void heavy_deferred(const AtExpand& x, const vid_t* __restrict__ list, int n,
                                               int* s_lprefix, int* s_wsum, vid_t* s_u, eid_t* s_beg,
                                               eid_t* s_end) {
    const int W = (int)((gridDim.x * BLOCK) >> 5);
    const int wg = (int)((blockIdx.x * BLOCK + threadIdx.x) >> 5);
    const int lane = (int)at_lane_id();
    int rot = 0;
    for (int jb = 0; jb < n; jb += BLOCK) {
        const int j = jb + (int)threadIdx.x;
        vid_t u = -1;
        eid_t beg = 0, end = 0;
        if (j < n) {
            u = list[j];
            beg = __ldg(x.row_offsets + u);
            end = __ldg(x.row_offsets + u + 1);
        }
        // stripes: a batch's sum is at most n_edges / 64 + BLOCK, an int
        at_block_scan_store<BLOCK>((int)((end - beg + 63) >> 6), s_lprefix, s_wsum);
        s_u[threadIdx.x] = u;
        s_beg[threadIdx.x] = beg;
        s_end[threadIdx.x] = end;
        __syncthreads();
        int woff;
        const int S = at_block_scan_offsets<BLOCK>(s_wsum, woff);
        int g = wg - rot;
        if (g < 0) g += W;
        for (; g < S; g += W) {  // warp-uniform
            int rem;
            const int i = at_block_search<BLOCK>(g, woff, s_lprefix, rem);
            const vid_t su = s_u[i];
            const eid_t se = s_end[i];
            const eid_t e0 = s_beg[i] + (eid_t)rem * 64 + lane, e1 = e0 + 32;
            at_visit2<Op>(x, e0 < se, e0, su, e1 < se, e1, su);
        }
        rot = (int)(((long long)rot + S) % W);
        __syncthreads();  // the batch arrays are rewritten by the next batch
    }
}

// gw whole warps per vertex (1 <= gw <= W). Warp-level, no barrier.
template <class Op>
__device__ __forceinline__ void heavy_warp_groups(const AtExpand& x, const vid_t* __restrict__ list, int n, int gw) {
    const int W = (int)((gridDim.x * blockDim.x) >> 5);
    const int wg = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const int lane = (int)at_lane_id();
    const int ng = W / gw;
    const int g = wg / gw, r = wg - g * gw;
    if (g >= ng) return;
    for (int j = g; j < n; j += ng) {
        const vid_t u = list[j];
        const eid_t beg = __ldg(x.row_offsets + u), end = __ldg(x.row_offsets + u + 1);
        for (eid_t base = beg + (eid_t)r * 64; base < end; base += (eid_t)gw * 64) {  // warp-uniform
            const eid_t e0 = base + lane, e1 = e0 + 32;
            at_visit2<Op>(x, e0 < end, e0, u, e1 < end, e1, u);
        }
    }
}

// Groups of 2^lg < 32 threads (virtual warps) per vertex. Warp-level, no barrier.
template <class Op>
__device__ __forceinline__ void heavy_subwarp_groups(const AtExpand& x, const vid_t* __restrict__ list, int n,
                                                     int lg) {
    const int W = (int)((gridDim.x * blockDim.x) >> 5);
    const int wg = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const int lane = (int)at_lane_id();
    const int per_warp = 32 >> lg;
    const int gl = lane & ((1 << lg) - 1);
    for (int jb = wg * per_warp; jb < n; jb += W * per_warp) {  // warp-uniform
        const int j = jb + (lane >> lg);
        vid_t u = -1;
        eid_t beg = 0, end = 0;
        if (j < n) {
            u = list[j];
            beg = __ldg(x.row_offsets + u);
            end = __ldg(x.row_offsets + u + 1);
        }
        const unsigned iters =
            __reduce_max_sync(AT_FULL_MASK, (unsigned)(end - beg + (1 << lg) - 1) >> lg);
        for (unsigned k = 0; k < iters; ++k) {
            const eid_t e = beg + ((eid_t)k << lg) + gl;
            at_visit<Op>(x, e < end, e, u);
        }
    }
}

template <int BLOCK, class Op>
__global__ void __launch_bounds__(BLOCK) heavy_vertices(AT_LEVEL_ARGS) {
    __shared__ int s_lprefix[BLOCK];
    __shared__ int s_wsum[BLOCK / 32];
    __shared__ vid_t s_u[BLOCK];
    __shared__ eid_t s_beg[BLOCK], s_end[BLOCK];

    if (aux->push_finishes) return;  // the push kernel closed the level itself: nothing to do here
    int L, fsize;
    eid_t degsum;
    if (at_block_path(st, prm, L, fsize, degsum) != AT_PATH_PUSH) return;
    at_hash_init(aux);
    __shared__ vid_t s_stage_v[AT_STAGE_BLOCK_ENTRIES];
    __shared__ int s_stage_d[AT_STAGE_BLOCK_ENTRIES];
    AtStage stage = at_stage_slice(s_stage_v, s_stage_d, AT_STAGE_PER_WARP(BLOCK, AT_STAGE_BLOCK_ENTRIES));
    const AtExpand x{row_offsets, column_indices, op, aux, at_frontier_out(L, f0, f1, p0, p1, r0, r1, st, prm, aux),
                     L, &stage};

    if (aux->heavy != nullptr && aux->heavy_ctr != nullptr) {
        const int W = (int)((gridDim.x * BLOCK) >> 5);
        {  // segment 0: deferred outliers
            const int cap = aux->heavy_off[1] - aux->heavy_off[0];
            const int n = min(aux->heavy_ctr[0], cap);  // block-uniform
            if (n > 0)
                heavy_deferred<BLOCK, Op>(x, aux->heavy + aux->heavy_off[0], n, s_lprefix, s_wsum, s_u, s_beg, s_end);
        }
        for (int i = 0; i < aux->sq_bins; ++i) {  // supplementary-queue bins
            const int seg = i + 1;
            const int n = min(aux->heavy_ctr[seg], aux->heavy_off[seg + 1] - aux->heavy_off[seg]);
            if (n <= 0) continue;
            const vid_t* list = aux->heavy + aux->heavy_off[seg];
            const int lg = aux->sq_base_log2 + i;  // 2^lg threads per vertex, at most the resident grid
            if (lg >= 5) {
                const int gw = lg - 5 >= 30 ? W : min(1 << (lg - 5), W);
                heavy_warp_groups<Op>(x, list, n, gw);
            } else {
                heavy_subwarp_groups<Op>(x, list, n, lg < 0 ? 0 : lg);
            }
        }
    }

    at_stage_flush<false>(stage, row_offsets, x.out);
    const int info = level_info[L];  // written by the push kernel of this level: its virtual warp size
    const int vw = (info & 0xff) == AT_PATH_PUSH ? (info >> 8) & 0xff : 0;
    at_multi_block_finish(st, prm, aux, L, fsize, degsum, AT_PATH_PUSH, vw, level_sizes, level_info, level_time);
}
