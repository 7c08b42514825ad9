// sssp.cu -- the bucket moves of the bucketed SSSP methods (op_sssp.cuh), device-resident.
//
// Busato & Bombieri, "Graph Algorithms on GPUs", section 3.1: Delta-stepping (Meyer & Sanders) and
// its two-bucket GPU form, the Near-Far Pile of Davidson et al. The relax operator sends a vertex
// whose new distance is below sst->threshold to the next (near) frontier and the others to the far
// pile. These kernels run after the level kernels of every iteration, with the same arguments, and
// act only when the near frontier of the current level is empty (read from the device state, like
// every level kernel), so the host still enqueues the same launches and reads the state once per
// batch of iterations:
//   sssp_bucket_check (one thread) decides, from the state before any bucket move, which move runs
//                  (a kernel that appends to the frontier cannot test "the frontier is empty"
//                  itself: its first blocks' appends would change the answer for its later blocks);
//   sssp_r_move    (delta_stepping) the bucket is settled: its R list (every vertex the bucket
//                  reached) becomes the frontier, expanded once with heavy edges only (w > delta);
//   sssp_far_min   the smallest live far distance d_min (entries below the threshold are stale:
//                  their vertex was improved into the near frontier and already expanded);
//   sssp_far_split the threshold moves to the first multiple of delta above d_min (empty buckets
//                  are skipped, an exact shortcut of Davidson's threshold += delta); far entries
//                  below it become the frontier of the same level, the rest move to the other pile.
// Appends use the frontier machinery of the level kernels (at_warp_append: counters, degree
// prefix-sums, class queues), so any technique expands the refilled frontier.
#include "traversal.cuh"

// Last block of a bucket kernel: true in exactly one thread of the grid, after every block's work.
__device__ __forceinline__ bool sssp_last_block(SSSPState* s) {
    __syncthreads();
    __shared__ int s_last;
    if (threadIdx.x == 0) {
        __threadfence();
        s_last = atomicAdd(&s->done_blocks, 1u) == gridDim.x - 1;
        if (s_last) {
            __threadfence();
            s->done_blocks = 0u;
        }
    }
    __syncthreads();
    return s_last && threadIdx.x == 0;
}

__device__ __forceinline__ bool sssp_frontier_empty(const BFSState* st, int& L) {
    const volatile BFSState* vs = (const volatile BFSState*)st;
    L = vs->level;
    return at_count(vs->ctr[L % 3]) == 0;
}

#define AT_ACTION_NONE 0
#define AT_ACTION_R_MOVE 1
#define AT_ACTION_FAR 2

// One thread: when the frontier of the current level is empty, the next bucket move: the R list
// first (delta_stepping), else the far pile.
__global__ void sssp_bucket_check(AT_LEVEL_ARGS) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    SSSPState* s = op->sst;
    int L;
    int action = AT_ACTION_NONE;
    if (sssp_frontier_empty(st, L)) {
        volatile SSSPState* vs = (volatile SSSPState*)s;
        if (vs->r_count > 0) action = AT_ACTION_R_MOVE;
        else if (vs->far_count[vs->far_cur] > 0) action = AT_ACTION_FAR;
    }
    s->action = action;
    __threadfence();
}

// delta_stepping: frontier L := R, expanded with heavy edges only.
template <bool WITH_PREFIX>
__global__ void sssp_r_move(AT_LEVEL_ARGS) {
    SSSPState* s = op->sst;
    if (at_block_flag(&s->action) != AT_ACTION_R_MOVE) return;  // grid-uniform
    const int L = ((const volatile BFSState*)st)->level;
    const int n = min(*(volatile int*)&s->r_count, op->capacity);
    const FrontierOut out = at_frontier_out(L - 1, f0, f1, p0, p1, r0, r1, st, prm, aux);  // writes frontier L
    const int lane = (int)at_lane_id();
    const int warp_global = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const int n_warps = (int)((gridDim.x * blockDim.x) >> 5);
    for (int base = warp_global * 32; base < n; base += n_warps * 32) {  // warp-uniform
        const int i = base + lane;
        const bool take = i < n;
        vid_t v = -1;
        int deg = 0;
        eid_t rs = 0;
        if (take) {
            v = op->r_list[i];
            op->near_stamp[v] = L;
            rs = __ldg(row_offsets + v);
            deg = (int)(__ldg(row_offsets + v + 1) - rs);
        }
        at_warp_append<WITH_PREFIX>(take, v, deg, rs, out);
    }
    if (sssp_last_block(s)) {
        s->r_count = 0;
        s->r_epoch += 1;
        s->heavy_level = L;
        s->action = AT_ACTION_NONE;
        __threadfence();
    }
}

// Smallest live far distance, then the next threshold (last block).
__global__ void sssp_far_min(AT_LEVEL_ARGS) {
    SSSPState* s = op->sst;
    if (at_block_flag(&s->action) != AT_ACTION_FAR) return;  // grid-uniform
    const int cur = *(volatile int*)&s->far_cur;
    const int n = min(*(volatile int*)&s->far_count[cur], op->capacity);
    const unsigned t = *(volatile unsigned*)&s->threshold;
    const vid_t* pile = op->far[cur];
    unsigned local = 0xffffffffu;
    for (int i = (int)(blockIdx.x * blockDim.x + threadIdx.x); i < n; i += (int)(gridDim.x * blockDim.x)) {
        const unsigned d = SSSPOp::distance(op, pile[i]);
        if (d >= t && d < local) local = d;
    }
    local = __reduce_min_sync(AT_FULL_MASK, local);
    if (at_lane_id() == 0 && local != 0xffffffffu) atomicMin(&s->far_min, local);
    if (sssp_last_block(s)) {
        const unsigned dmin = *(volatile unsigned*)&s->far_min;
        unsigned next = 0xffffffffu;  // every entry stale: the split empties the pile
        if (dmin != 0xffffffffu) {
            if (op->weight_float) {
                const float tf = __uint_as_float(t), df = __uint_as_float(op->delta), mf = __uint_as_float(dmin);
                float nf = tf + (floorf((mf - tf) / df) + 1.0f) * df;
                while (!(nf > mf)) nf += df;  // rounding
                next = __float_as_uint(nf);   // may be +inf: then every live entry is near
            } else {
                const unsigned long long k = (unsigned long long)((dmin - t) / op->delta) + 1ull;
                const unsigned long long nt = (unsigned long long)t + k * (unsigned long long)op->delta;
                next = nt >= 0xffffffffull ? 0xfffffffeu : (unsigned)nt;
            }
        }
        s->next_threshold = next;
        s->split = 1;
        s->action = AT_ACTION_NONE;
        __threadfence();
    }
}

template <bool WITH_PREFIX>
__global__ void sssp_far_split(AT_LEVEL_ARGS) {
    SSSPState* s = op->sst;
    if (at_block_flag(&s->split) == 0) return;  // grid-uniform (set by the previous launch)
    int L;
    sssp_frontier_empty(st, L);
    const int cur = *(volatile int*)&s->far_cur, nxt = cur ^ 1;
    const int n = min(*(volatile int*)&s->far_count[cur], op->capacity);
    const unsigned t_old = *(volatile unsigned*)&s->threshold, t_new = *(volatile unsigned*)&s->next_threshold;
    const int new_epoch = *(volatile int*)&s->epoch + 1;
    const FrontierOut out = at_frontier_out(L - 1, f0, f1, p0, p1, r0, r1, st, prm, aux);  // writes frontier L
    const vid_t* pile = op->far[cur];
    vid_t* keep_pile = op->far[nxt];
    const int lane = (int)at_lane_id();
    const int warp_global = (int)((blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    const int n_warps = (int)((gridDim.x * blockDim.x) >> 5);
    for (int base = warp_global * 32; base < n; base += n_warps * 32) {  // warp-uniform
        const int i = base + lane;
        vid_t v = -1;
        unsigned d = 0xffffffffu;
        if (i < n) {
            v = pile[i];
            d = SSSPOp::distance(op, v);
        }
        bool near = i < n && d >= t_old && d < t_new;  // below t_old: stale, already expanded
        const bool keep = i < n && d >= t_new;
        int deg = 0;
        eid_t rs = 0;
        if (near) {
            near = atomicExch(op->near_stamp + v, L) != L;
            if (near) {
                if (op->method == AT_SSSP_DELTA_STEPPING) SSSPOp::r_append(op, v);
                rs = __ldg(row_offsets + v);
                deg = (int)(__ldg(row_offsets + v + 1) - rs);
            }
        }
        if (keep) {
            op->far_stamp[v] = new_epoch;
            at_pile_append(&s->far_count[nxt], keep_pile, op->capacity, v);
        }
        __syncwarp();
        at_warp_append<WITH_PREFIX>(near, v, deg, rs, out);
    }
    if (sssp_last_block(s)) {
        s->far_count[cur] = 0;
        s->far_cur = nxt;
        s->epoch = new_epoch;
        s->threshold = t_new;
        s->far_min = 0xffffffffu;
        s->heavy_level = -1;
        s->split = 0;
        __threadfence();
    }
}
