// bfs_common.cuh -- shared device code of every autotune BFS kernel.
//
// Data layout (DESIGN.md terms): CSR `row_offsets` (n_vertices + 1, int32) and `column_indices`
// (n_edges, int32); `distances` (int32, -1 = unreached) and `predecessors` (int32, -1 = unreached,
// source = itself).
//
// Frontier bookkeeping without host round trips
// ---------------------------------------------
// The size of every frontier lives in device memory, in a ring of three 64-bit counters `ctr[3]`.
// Each counter packs  (sum of out-degrees of the frontier's vertices) << 32  |  (frontier size).
// The kernels of level L read ctr[L % 3] (current frontier), append the next frontier into
// ctr[(L+1) % 3] with warp-aggregated 64-bit atomicAdd, and block 0 zeroes ctr[(L+2) % 3] (the
// counter level L+1 appends into; nothing of level L touches it). Stream order makes this safe, so
// the host can enqueue many levels back to back and launch sizes never depend on a host copy:
// every kernel uses a fixed, fully resident grid with grid-stride loops.
//
// The packed atomic is the "online unordered prefix-sum" of Busato & Bombieri, "Efficient load
// balancing techniques for graph traversal applications on GPUs" (section 3.3): the value returned by
// the atomic gives each appended vertex both its position and the sum of the degrees of every
// vertex placed before it, i.e. an exclusive prefix-sum of frontier degrees that is monotonic in
// position (hence searchable) without a separate scan kernel.
#pragma once

#define AT_FULL_MASK 0xffffffffu

typedef int vid_t;
typedef unsigned long long u64;

__device__ __forceinline__ unsigned at_lane_id() { return threadIdx.x & 31u; }

__device__ __forceinline__ unsigned at_lanemask_lt() {
    unsigned m;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(m));
    return m;
}

__device__ __forceinline__ int at_count(u64 packed) { return (int)(unsigned)(packed & 0xffffffffull); }
__device__ __forceinline__ int at_degsum(u64 packed) { return (int)(unsigned)(packed >> 32); }

// Visited-status check + claim. Exactly one thread wins a vertex (atomicCAS on its distance), so
// the next frontier never holds duplicates and the winner's parent is a valid BFS-tree edge.
__device__ __forceinline__ bool at_try_claim(int* distances, vid_t v, int next_level) {
    if (*((volatile int*)distances + v) != -1) return false;
    return atomicCAS(distances + v, -1, next_level) == -1;
}

// Warp-aggregated append of the claimed vertices of a *converged* warp to the next frontier.
// Every lane must call it (full mask). WITH_PREFIX also writes, per appended vertex, the exclusive
// prefix-sum of degrees (online unordered prefix-sum) and its row start, as binary_search needs.
template <bool WITH_PREFIX>
__device__ __forceinline__ void at_warp_append(bool claim, vid_t v, int deg, int row_start,
                                               u64* next_ctr, vid_t* frontier_out,
                                               int* prefix_out, int* row_start_out) {
    const unsigned ballot = __ballot_sync(AT_FULL_MASK, claim);
    if (ballot == 0u) return;
    const unsigned lane = at_lane_id();
    const int d = claim ? deg : 0;
    int incl = d;
    if (WITH_PREFIX) {
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
            int t = __shfl_up_sync(AT_FULL_MASK, incl, o);
            if ((int)lane >= o) incl += t;
        }
    }
    const int total_d = WITH_PREFIX ? __shfl_sync(AT_FULL_MASK, incl, 31) : __reduce_add_sync(AT_FULL_MASK, d);
    u64 old = 0;
    if (lane == 0) old = atomicAdd(next_ctr, ((u64)(unsigned)total_d << 32) | (u64)__popc(ballot));
    old = __shfl_sync(AT_FULL_MASK, old, 0);
    if (claim) {
        const int pos = at_count(old) + __popc(ballot & at_lanemask_lt());
        frontier_out[pos] = v;
        if (WITH_PREFIX) {
            prefix_out[pos] = at_degsum(old) + incl - d;
            row_start_out[pos] = row_start;
        }
    }
}

// Level bookkeeping done once per level by block 0 / thread 0: record the frontier size for the
// per-level trace and zero the counter the *next* level will append into.
__device__ __forceinline__ void at_level_bookkeeping(u64* ctr, int level, int fsize, int* level_sizes) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        level_sizes[level] = fsize;
        ctr[(level + 2) % 3] = 0ull;
    }
}

// Start a traversal from `source`: distances/predecessors must already be filled with -1.
extern "C" __global__ void bfs_init(const int* __restrict__ row_offsets, int* distances, int* predecessors,
                                    vid_t source, vid_t* frontier0, int* prefix0, int* row_start0, u64* ctr) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        const int rs = row_offsets[source];
        const int deg = row_offsets[source + 1] - rs;
        distances[source] = 0;
        predecessors[source] = source;
        frontier0[0] = source;
        if (prefix0 != nullptr) prefix0[0] = 0;
        if (row_start0 != nullptr) row_start0[0] = rs;
        ctr[0] = ((u64)(unsigned)deg << 32) | 1ull;
        ctr[1] = 0ull;
        ctr[2] = 0ull;
    }
}
