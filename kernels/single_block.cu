// single_block.cu -- device-resident levels for small frontiers (small_frontier = "single_block").
//
// Busato & Bombieri, "BFS-4K: an Efficient Implementation of BFS for Kepler GPU Architectures",
// section 5.5 (single-block vs. multi-block kernel, FrontierLimit): in the first and last levels of a
// BFS, and in every level of a high-diameter graph (roads, meshes), the frontier is too small to
// feed the whole GPU, and a launch plus a host round trip per level costs more than the level.
// This kernel is launched with ONE block of 1024 threads and iterates levels on the device, with
// __syncthreads between levels, for as long as the frontier holds at most `sb_limit` vertices and
// `sb_edge_limit` edges; it then returns and the multi-block push/pull kernels take over (the
// hand-over is decided by at_choose_path from the device state, so no host copy is involved).
// Each level uses dynamic virtual warps sized for one block: nearest_pow2(1024 / |F|) in [1, 32]
// (BFS-4K section 5.2 with #ResThreads = block size).
#include "vertex_expand.cuh"

#define AT_SB_THREADS 1024

// Levels run back to back inside the block; their bookkeeping (level number, frontier counter,
// hub counter, explored edges) lives in shared memory, so a level costs only its own memory
// accesses plus two __syncthreads. The device state is read once on entry and written back once on
// exit (when the frontier outgrows the limit or the traversal ends), for the multi-block kernels.
template <bool WITH_PREFIX>
__global__ void __launch_bounds__(AT_SB_THREADS) single_block_levels(AT_LEVEL_ARGS) {
    __shared__ u64 s_next;          // counter the current level appends into
    __shared__ int s_next_hubs;
    __shared__ int s_path, s_L, s_fsize, s_degsum, s_hubs;
    __shared__ long long s_explored;
    if (threadIdx.x == 0) {
        int L, fsize, degsum;
        s_path = at_choose_path(st, prm, L, fsize, degsum);
        s_L = L;
        s_fsize = fsize;
        s_degsum = degsum;
        s_hubs = ((const volatile BFSState*)st)->hub_ctr[L % 3];
        s_explored = ((const volatile BFSState*)st)->explored;
        s_next = 0ull;
        s_next_hubs = 0;
    }
    __syncthreads();
    if (s_path != AT_PATH_SINGLE_BLOCK) return;  // uniform: nothing written
    while (true) {
        const int L = s_L, fsize = s_fsize;
        const vid_t* frontier_in = (L & 1) ? f1 : f0;
        FrontierOut out = at_frontier_out(L, f0, f1, p0, p1, r0, r1, st, prm);
        out.ctr = &s_next;  // shared-memory counters for levels run here
        out.hubs = prm->dir_mode == AT_DIR_HUB_RATIO ? &s_next_hubs : nullptr;
        const int vw = at_dynamic_vw(AT_SB_THREADS, fsize, 1);
        vm_expand_dynamic<WITH_PREFIX>(vw, row_offsets, column_indices, distances, predecessors, frontier_in, fsize,
                                       out, L + 1);
        __syncthreads();
        if (threadIdx.x == 0) {
            level_sizes[L] = fsize;
            level_info[L] = AT_PATH_SINGLE_BLOCK | (vw << 8);
            level_time[L + 1] = at_globaltimer();
            s_explored += s_degsum;
            const u64 next = s_next;
            s_L = L + 1;
            s_fsize = at_count(next);
            s_degsum = at_degsum(next);
            s_hubs = s_next_hubs;
            s_next = 0ull;
            s_next_hubs = 0;
            s_path = at_decide_path(s_fsize, s_degsum, s_hubs, s_explored, AT_PATH_PUSH, prm);
        }
        __syncthreads();
        if (s_path != AT_PATH_SINGLE_BLOCK) break;
    }
    if (threadIdx.x == 0) {  // hand the traversal back through the device state
        const int L = s_L;
        st->ctr[L % 3] = ((u64)(unsigned)s_degsum << 32) | (u64)(unsigned)s_fsize;
        st->ctr[(L + 1) % 3] = 0ull;
        st->hub_ctr[L % 3] = s_hubs;
        st->hub_ctr[(L + 1) % 3] = 0;
        st->explored = s_explored;
        st->dir = AT_PATH_PUSH;
        __threadfence();
        st->level = L;
    }
}
