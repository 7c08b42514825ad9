// block_scan.cuh -- block-wide helpers of the one-block drivers (single_block.cu, whole_graph.cu):
// the scan-based mapping of Busato & Bombieri, "Efficient load balancing techniques for graph
// traversal applications on GPUs" (section 3.2): an exclusive prefix-sum of the frontier's
// out-degrees over the block, then every thread finds the vertex of its edge by binary search in it.
#pragma once
#include "traversal.cuh"

// Exclusive prefix-sum of one eid_t per thread over a 1024-thread block; `total` gets the sum.
// s_warp holds 33 values. Contains two __syncthreads; the caller syncs before reusing s_warp.
__device__ __forceinline__ eid_t at_block_exclusive_scan(eid_t x, eid_t& total, eid_t* s_warp) {
    const int lane = (int)at_lane_id(), warp = (int)(threadIdx.x >> 5);
    eid_t incl = at_warp_inclusive_scan(x);
    if (lane == 31) s_warp[warp] = incl;
    __syncthreads();
    if (warp == 0) {
        const eid_t w = s_warp[lane];
        eid_t wi = at_warp_inclusive_scan(w);
        s_warp[lane] = wi - w;
        if (lane == 31) s_warp[32] = wi;
    }
    __syncthreads();
    total = s_warp[32];
    return s_warp[warp] + incl - x;
}

// Position of the (r + 1)-th set bit of w (r < popc(w)): a binary search by popc over halves.
__device__ __forceinline__ int at_nth_set_bit(unsigned w, int r) {
    int pos = 0;
#pragma unroll
    for (int half = 16; half > 0; half >>= 1) {
        const int c = __popc(w & ((1u << half) - 1u));
        if (r >= c) {
            r -= c;
            w >>= half;
            pos += half;
        }
    }
    return pos;
}

// last index i in [0, n) with a[i] <= key (a non-decreasing, a[0] <= key)
__device__ __forceinline__ int at_sb_last_le(const eid_t* a, int n, eid_t key) {
    int lo = 0, hi = n;
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (a[mid] <= key) lo = mid; else hi = mid;
    }
    return lo;
}

// Last index i >= j in [0, n) with a[i] <= key, given a[j] <= key (a non-decreasing): gallop forward
// from j, then binary search the last gap; one read when key is still in row j.
__device__ __forceinline__ int at_sb_advance(const eid_t* a, int n, int j, eid_t key) {
    int lo = j, step = 1;
    while (lo + step < n && a[lo + step] <= key) {
        lo += step;
        step <<= 1;
    }
    int hi = min(lo + step, n);
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (a[mid] <= key) lo = mid; else hi = mid;
    }
    return lo;
}

// In a converged warp whose lanes hold a non-decreasing `excl` (an exclusive prefix-sum), the last lane
// j < lanes with excl_j <= x (lane 0 when none): a binary search by shuffles, x per lane.
__device__ __forceinline__ int at_warp_last_le(int excl, int x, int lanes) {
    int j = 0;
#pragma unroll
    for (int step = 16; step > 0; step >>= 1) {
        const int y = __shfl_sync(AT_FULL_MASK, excl, j + step);
        if (j + step < lanes && y <= x) j += step;
    }
    return j;
}

// The state of a traversal finished inside one launch (whole_graph.cu, cluster_graph.cu), as the
// launch-round kernels leave it (L levels, `explored` push edges), and its zero-copy read-back to the
// host (see traversal_state_out). Every thread of the block calls it (host_state is uniform).
__device__ __forceinline__ void at_finish_state(BFSState* st, BFSState* host_state, int L, long long explored) {
    if (threadIdx.x == 0) {
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
    if (host_state != nullptr) {
        __syncthreads();
        if (threadIdx.x < 8)
            reinterpret_cast<volatile u64*>(host_state)[threadIdx.x] = reinterpret_cast<const volatile u64*>(st)[threadIdx.x];
    }
}

// The resident kernels' mailbox (whole_graph.cu's whole_graph_resident, cluster_graph.cu's
// cluster_resident; autotune/_engine.py, RESIDENT): three 64-bit words of pinned host memory the
// device reads and writes zero-copy.
//   mailbox[0]  request: (sequence number << 32) | source, written by the host in one 8-byte store
//               after mailbox[1]; a source of 0xFFFFFFFF asks the kernel to return.
//   mailbox[1]  where to copy the engine's result buffer after the traversal: (tag << AT_RES_TAG_SHIFT)
//               | (address >> 4), tag = the request's sequence number & AT_RES_TAG_MASK, the address
//               16-byte aligned or 0 for no copy.
//   mailbox[2]  answer: (levels << 32) | sequence number of the traversal finished, written after its
//               results, trace and state are visible.
#define AT_RES_TAG_SHIFT 45
#define AT_RES_TAG_MASK ((1u << 19) - 1u)
#define AT_RES_RETURN 0xFFFFFFFFFFFFFFFFull  // at_res_wait's answer when no request came (source 0xFFFFFFFF)

// One thread: wait for a request newer than `served`, reading words 0 and 1 in ONE 16-byte load across
// the bus per step (a load that saw a new request but the previous copy word -- the two host stores
// straddled it -- fails the tag check and is read again). Returns the request word, and the copy
// address in `out` (nullptr: no copy); AT_RES_RETURN once no request came for idle_ns nanoseconds
// (%globaltimer), so a resident kernel never holds its SMs (and a device-wide synchronize) longer than
// that after the last traversal. Past busy_ns without a request it sleeps nap_ns between reads.
__device__ __forceinline__ unsigned long long at_res_wait(const volatile unsigned long long* mailbox, unsigned served,
                                                          long long idle_ns, long long busy_ns, int nap_ns,
                                                          uint2*& out) {
    const u64 t0 = at_globaltimer();
    while (true) {
        unsigned long long req, copy;
        asm volatile("ld.volatile.v2.u64 {%0, %1}, [%2];" : "=l"(req), "=l"(copy) : "l"(mailbox) : "memory");
        const unsigned seq = (unsigned)(req >> 32);
        if (seq != served && (unsigned)(copy >> AT_RES_TAG_SHIFT) == (seq & AT_RES_TAG_MASK)) {
            out = reinterpret_cast<uint2*>((copy & ((1ull << AT_RES_TAG_SHIFT) - 1ull)) << 4);
            return req;
        }
        const long long waited = (long long)(at_globaltimer() - t0);
        if (waited > idle_ns) {
            out = nullptr;
            return AT_RES_RETURN;
        }
        if (waited > busy_ns) __nanosleep(nap_ns);  // fewer reads across the bus while idle
    }
}

// One thread, after every thread's results are visible device-wide: the answer of traversal `served`.
__device__ __forceinline__ void at_res_answer(volatile unsigned long long* mailbox, int levels, unsigned served) {
    __threadfence_system();
    mailbox[2] = ((unsigned long long)(unsigned)levels << 32) | (unsigned long long)served;
}
