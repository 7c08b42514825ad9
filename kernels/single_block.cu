// single_block.cu -- device-resident levels for small frontiers (small_frontier = "single_block").
//
// Busato & Bombieri, "BFS-4K: an Efficient Implementation of BFS for Kepler GPU Architectures",
// section 5.5 (single-block vs. multi-block kernel, FrontierLimit): in the first and last levels of a
// BFS, and in every level of a high-diameter graph (roads, meshes), the frontier is too small to
// feed the whole GPU, and a launch plus a host round trip per level costs more than the level.
// This kernel is launched with ONE block of 1024 threads and iterates levels on the device, with
// __syncthreads between levels, for as long as the frontier holds at most `sb_limit` vertices and
// `sb_edge_limit` edges, and is not a level of hubs (at_sb_fits, traversal.cuh: more than
// AT_SB_HUB_EDGES edges at a mean out-degree above `sb_hub_degree`, which one block expands far
// slower than the whole GPU); it then returns and the multi-block push/pull kernels take over (the
// hand-over is decided from the device state, so no host copy is involved).
//
// A level here is bounded by the latency of its chain of dependent memory accesses, not by
// bandwidth, so the kernel is built to make that chain short:
//  - scan-based mapping (Busato & Bombieri, "Efficient load balancing techniques ...", section 3.2):
//    the block loads up to 1024 frontier vertices and their row offsets, computes the exclusive
//    prefix-sum of their out-degrees in shared memory, and then gives every thread one edge (its
//    vertex found by binary search in the shared prefix), so all edges of a level are inspected in
//    parallel instead of one vertex's edges one after the other;
//  - the next frontier is kept in shared memory too (up to AT_SB_SMEM_FRONTIER vertices) and read
//    from there by the next level; it is also written to global memory (store, off the chain) for
//    the kernels that take over;
//  - the operator's direct visit (Op::visit_direct; BFS: a single atomicCAS on `distances`, no
//    separate visited load first) on passes of at most 1024 edges; on denser passes, where most
//    neighbours are visited and one SM's atomic rate bounds the level, the operator's dense visit
//    (Op::visit_dense; BFS: an L1-cached status load first);
//  - degrees of the next frontier are not looked up when a vertex is appended: the next level
//    loads them anyway. The frontier's prefix-sums, row starts, hub count and degree-class queues,
//    which the multi-block kernels read, are computed once, when the frontier is handed over.
#include "traversal.cuh"

#define AT_SB_THREADS 1024
#ifdef AT_EID64
#define AT_SB_SMEM_FRONTIER 3072  // 64-bit prefix and row-start arrays take the difference (48 KB static)
#else
#define AT_SB_SMEM_FRONTIER 4096
#endif

#include "block_scan.cuh"

template <bool WITH_PREFIX, class Op>
__global__ void __launch_bounds__(AT_SB_THREADS, 1) single_block_levels(AT_LEVEL_ARGS) {
    __shared__ eid_t s_prefix[AT_SB_THREADS];  // exclusive degree prefix of this round's vertices
    __shared__ eid_t s_beg[AT_SB_THREADS];     // their row starts
    __shared__ vid_t s_u[AT_SB_THREADS];       // their ids
    __shared__ vid_t s_front[2][AT_SB_SMEM_FRONTIER];
    __shared__ eid_t s_warp[33];
    __shared__ int s_next, s_path, s_L, s_fsize, s_in_smem, s_exit;
    __shared__ eid_t s_degsum;
    __shared__ long long s_explored;
    const int tid = (int)threadIdx.x;
    const unsigned lane = at_lane_id();

    if (tid == 0) {
        int L, fsize;
        eid_t degsum;
        s_path = at_choose_path(st, prm, L, fsize, degsum);
        s_L = L;
        s_fsize = fsize;
        s_degsum = degsum;
        s_explored = ((const volatile BFSState*)st)->explored;
        s_in_smem = 0;
        s_exit = 0;
    }
    __syncthreads();
    if (s_path != AT_PATH_SINGLE_BLOCK) return;  // uniform: nothing written
    const typename Op::Ctx octx = Op::context(op);
    bool first = true;
    while (true) {
        const int L = s_L, fsize = s_fsize;
        const bool in_smem = s_in_smem != 0;
        const vid_t* fin = (L & 1) ? f1 : f0;
        vid_t* fout = (L & 1) ? f0 : f1;
        const vid_t* sfin = s_front[L & 1];
        vid_t* sfout = s_front[(L + 1) & 1];
        // Edge limit of this level (the vertex limit was checked when the previous level closed).
        // One round: the round's scan gives the sum. Several: a pass over the degrees first.
        if (!first && fsize > AT_SB_THREADS) {
            eid_t part = 0;
            for (int i = tid; i < fsize; i += AT_SB_THREADS) {
                const vid_t u = in_smem ? sfin[i] : fin[i];
                part += row_offsets[u + 1] - row_offsets[u];
            }
            eid_t total;
            at_block_exclusive_scan(part, total, s_warp);
            if (tid == 0) {
                s_degsum = total;
                s_exit = !at_sb_fits(fsize, total, prm);
            }
            __syncthreads();
            if (s_exit) break;
        }
        if (tid == 0) s_next = 0;
        bool stop = false;  // register copy: s_exit is rewritten by thread 0 before the next barrier
        for (int base = 0; base < fsize; base += AT_SB_THREADS) {  // block-uniform rounds
            const int i = base + tid;
            int deg = 0;
            eid_t beg = 0;
            vid_t u = -1;
            if (i < fsize) {
                u = in_smem ? sfin[i] : fin[i];
                beg = row_offsets[u];
                deg = (int)(row_offsets[u + 1] - beg);
            }
            eid_t total;
            const eid_t excl = at_block_exclusive_scan(deg, total, s_warp);
            if (!first && fsize <= AT_SB_THREADS) {  // the whole level in one round: its edge count
                if (tid == 0) {
                    s_degsum = total;
                    s_exit = !at_sb_fits(fsize, total, prm);
                }
                __syncthreads();
                stop = s_exit != 0;
                if (stop) break;
            }
            s_prefix[tid] = excl;
            s_beg[tid] = beg;
            s_u[tid] = u;
            __syncthreads();
            const int nv = min(AT_SB_THREADS, fsize - base);
            // A pass over more edges than threads is throughput-bound: the operator's dense visit
            // (BFS: an L1-cached status load before the atomic); a pass that fits is latency-bound:
            // one atomic round trip, no pre-check.
            const bool dense = total > AT_SB_THREADS;
            for (eid_t e0 = 0; e0 < total; e0 += AT_SB_THREADS) {  // block-uniform
                const eid_t e = e0 + tid;
                bool claim = false;
                vid_t v = -1;
                if (e < total) {
                    const int j = at_sb_last_le(s_prefix, nv, e);
                    const eid_t edge = s_beg[j] + (e - s_prefix[j]);
                    v = column_indices[edge];
                    claim = dense ? Op::visit_dense(octx, s_u[j], v, edge, L)
                                  : Op::visit_direct(octx, s_u[j], v, edge, L);
                }
                const unsigned ballot = __ballot_sync(AT_FULL_MASK, claim);
                if (ballot != 0u) {
                    int pos = 0;
                    if (lane == 0) pos = atomicAdd(&s_next, __popc(ballot));
                    pos = __shfl_sync(AT_FULL_MASK, pos, 0) + __popc(ballot & at_lanemask_lt());
                    if (claim) {
                        fout[pos] = v;
                        if (pos < AT_SB_SMEM_FRONTIER) sfout[pos] = v;
                    }
                }
            }
            __syncthreads();  // the round's shared arrays are rewritten by the next round
        }
        if (stop) break;  // uniform; level L was not expanded
        first = false;
        if (tid == 0) {
            at_trace_level(prm, L, fsize, AT_PATH_SINGLE_BLOCK, level_sizes, level_info, level_time);
            s_explored += s_degsum;
            const int next = s_next;
            s_L = L + 1;
            s_fsize = next;
            s_in_smem = next <= AT_SB_SMEM_FRONTIER;
            s_exit = (next == 0 || next > prm->sb_limit);
            s_degsum = 0;  // known once the next level has loaded its degrees
        }
        __syncthreads();
        if (s_exit) break;
    }

    // Hand the frontier of level L over through the device state: degree sum, and what the other
    // kernels read beside the queue (prefix-sums and row starts, hub count, degree-class queues).
    const int L = s_L, fsize = s_fsize;
    const vid_t* fin = (L & 1) ? f1 : f0;
    eid_t* prefix = (L & 1) ? p1 : p0;
    eid_t* row_start = (L & 1) ? r1 : r0;
    FrontierOut cls;
    const bool classes = aux->dc_ctr != nullptr;
    if (classes) {
        cls.dc_ctr = aux->dc_ctr + (L % 3) * 4;
        cls.dc_queue = aux->dc_queue + (L & 1) * 4;
        cls.dc_small = aux->dc_small;
        cls.dc_middle = aux->dc_middle;
        cls.dc_large = aux->dc_large;
        if (tid < 4) cls.dc_ctr[tid] = 0;
        __syncthreads();
    }
    eid_t run = 0;
    int hubs = 0;
    for (int base = 0; base < fsize; base += AT_SB_THREADS) {  // block-uniform
        const int i = base + tid;
        int deg = 0;
        eid_t beg = 0;
        vid_t u = -1;
        if (i < fsize) {
            u = fin[i];
            beg = row_offsets[u];
            deg = (int)(row_offsets[u + 1] - beg);
        }
        eid_t total;
        const eid_t excl = at_block_exclusive_scan(deg, total, s_warp);
        if (WITH_PREFIX && i < fsize) {
            prefix[i] = run + excl;
            row_start[i] = beg;
        }
        hubs += __syncthreads_count(i < fsize && deg > prm->hub_degree);
        if (classes) at_warp_append_class(i < fsize, u, deg, cls);
        run += total;
        __syncthreads();
    }
    if (tid == 0) {
        st->ctr[L % 3] = at_pack(run, fsize);
        st->ctr[(L + 1) % 3] = 0ull;
        st->hub_ctr[L % 3] = hubs;
        st->hub_ctr[(L + 1) % 3] = 0;
        if (classes) {
            for (int c = 0; c < 4; ++c) aux->dc_ctr[((L + 1) % 3) * 4 + c] = 0;
        }
        st->explored = s_explored;
        st->dir = AT_PATH_PUSH;
        __threadfence();
        st->level = L;
    }
}
