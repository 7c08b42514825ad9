// persistent.cu -- device-resident levels on the whole GPU (small_frontier = "persistent").
//
// The multi-block sibling of single_block.cu (Busato & Bombieri, "BFS-4K", section 5.5: levels
// whose frontier is too small for one launch each are iterated on the device). Frontiers of a few
// thousand vertices (meshes, grids, large roads) are too big for one block yet far too small to
// amortise a launch per level, so this kernel keeps every resident block alive and separates
// levels with a grid-wide barrier instead of a kernel boundary. It is launched cooperatively
// (cuLaunchCooperativeKernel, through CuPy's `enable_cooperative_groups`), which guarantees that all
// blocks are co-resident, so the barrier cannot deadlock; the barrier itself is the classic
// arrive-counter + generation flag (no cooperative_groups header, so NVRTC compiles it without the
// CUDA toolkit headers).
//
// Per level, warps take K frontier vertices each (K = the largest power of two <= |F| / warps,
// within [1, 32]), compute the prefix-sum of their out-degrees with warp shuffles and spread the
// edges over the 32 lanes, each lane locating its edge's vertex by a binary search over the lanes'
// prefix-sums with __shfl_sync (warp-level scan-based mapping, Busato & Bombieri, "Efficient load
// balancing techniques ...", section 3.2). Claims and appends are those of the multi-block kernels
// (the atomicCAS claim, at_warp_append), so the frontier counters, prefix-sums, hub counts and class
// queues are always complete and any kernel can take over at any level. The kernel returns when a
// frontier exceeds the limits (or is empty), leaving the state for the multi-block kernels.
#include "bfs_common.cuh"

#define AT_PATH_PERSISTENT 3

// Grid-wide barrier: every block arrives once per call. bar[0] counts arrivals, bar[1] is the
// generation the waiting blocks watch.
__device__ __forceinline__ void at_grid_barrier(unsigned* bar) {
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile unsigned* vgen = bar + 1;
        const unsigned gen = *vgen;
        __threadfence();
        if (atomicAdd(bar, 1u) == gridDim.x - 1) {
            bar[0] = 0u;
            __threadfence();
            atomicAdd(bar + 1, 1u);
        } else {
            while (*vgen == gen) {
            }
        }
        __threadfence();
    }
    __syncthreads();
}

template <int BLOCK, bool WITH_PREFIX>
__global__ void __launch_bounds__(BLOCK) persistent_levels(AT_LEVEL_ARGS) {
    __shared__ int s_path, s_L, s_fsize, s_degsum;
    __shared__ long long s_explored;
    if (threadIdx.x == 0) {
        int L, fsize, degsum;
        s_path = at_choose_path(st, prm, L, fsize, degsum);
        s_L = L;
        s_fsize = fsize;
        s_degsum = degsum;
        s_explored = ((const volatile BFSState*)st)->explored;
    }
    __syncthreads();
    if (s_path != AT_PATH_SINGLE_BLOCK) return;  // every block reads the same state: uniform
    int L = s_L, fsize = s_fsize, degsum = s_degsum;
    long long explored = s_explored;
    const bool leader = blockIdx.x == 0 && threadIdx.x == 0;
    const unsigned lane = at_lane_id();
    const int warp_global = (int)((blockIdx.x * BLOCK + threadIdx.x) >> 5);
    const int n_warps = (int)((gridDim.x * BLOCK) >> 5);
    volatile BFSState* vs = (volatile BFSState*)st;
    while (true) {
        const vid_t* frontier_in = (L & 1) ? f1 : f0;
        const FrontierOut out = at_frontier_out(L, f0, f1, p0, p1, r0, r1, st, prm, aux);
        const int ratio = fsize / n_warps;
        const int K = ratio >= 32 ? 32 : (ratio <= 1 ? 1 : (1 << (31 - __clz(ratio))));
        for (int base = warp_global * K; base < fsize; base += n_warps * K) {  // warp-uniform
            const int idx = base + (int)lane;
            vid_t u = -1;
            int beg = 0, deg = 0;
            if ((int)lane < K && idx < fsize) {
                u = frontier_in[idx];
                beg = row_offsets[u];
                deg = row_offsets[u + 1] - beg;
            }
            int incl = deg;
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                const int t = __shfl_up_sync(AT_FULL_MASK, incl, o);
                if ((int)lane >= o) incl += t;
            }
            const int total = __shfl_sync(AT_FULL_MASK, incl, 31);
            for (int e0 = 0; e0 < total; e0 += 32) {  // warp-uniform
                const int e = e0 + (int)lane;
                // owner = first lane whose inclusive prefix exceeds e
                int pos = 0;
#pragma unroll
                for (int step = 16; step >= 1; step >>= 1) {
                    const int val = __shfl_sync(AT_FULL_MASK, incl, pos + step - 1);
                    if (val <= e) pos += step;
                }
                const vid_t su = __shfl_sync(AT_FULL_MASK, u, pos & 31);
                const int sbeg = __shfl_sync(AT_FULL_MASK, beg, pos & 31);
                const int sincl = __shfl_sync(AT_FULL_MASK, incl, pos & 31);
                const int sdeg = __shfl_sync(AT_FULL_MASK, deg, pos & 31);
                bool claim = false;
                vid_t v = -1;
                int vdeg = 0, rs = 0;
                if (e < total) {
                    v = column_indices[sbeg + (e - (sincl - sdeg))];
                    claim = atomicCAS(distances + v, -1, L + 1) == -1;  // one round trip, no pre-check
                    if (claim) {
                        predecessors[v] = su;
                        rs = row_offsets[v];
                        vdeg = row_offsets[v + 1] - rs;
                    }
                }
                at_warp_append<WITH_PREFIX>(claim, v, vdeg, rs, out);
            }
        }
        if (leader) {  // slot (L+2)%3 is nobody's during level L: clear it for level L+1
            st->ctr[(L + 2) % 3] = 0ull;
            st->hub_ctr[(L + 2) % 3] = 0;
            at_aux_finish_level(aux, L);
        }
        at_grid_barrier(aux->barrier);
        const u64 packed = vs->ctr[(L + 1) % 3];
        const int hubs = vs->hub_ctr[(L + 1) % 3];
        if (leader) {
            level_sizes[L] = fsize;
            level_info[L] = AT_PATH_PERSISTENT | (K << 8);
            level_time[L + 1] = at_globaltimer();
        }
        explored += degsum;
        ++L;
        fsize = at_count(packed);
        degsum = at_degsum(packed);
        // Same inputs in every thread of every block: a uniform decision.
        if (at_decide_path(fsize, degsum, hubs, explored, AT_PATH_PUSH, prm) != AT_PATH_SINGLE_BLOCK) break;
        // Nobody may append to ctr[(L+1)%3] (cleared above) before everyone has read ctr[L%3]:
        // the appends of level L happen after this point and the reads before it, in every block,
        // and a block only starts appending after its own read. The clear of slot (L+2)%3 at the
        // end of level L touches a slot last read two barriers earlier.
    }
    if (leader) {
        st->explored = explored;
        st->dir = AT_PATH_PUSH;
        __threadfence();
        st->level = L;
    }
}
