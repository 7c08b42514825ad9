// op_bfs.cuh -- the BFS operator: claim the unvisited neighbour, record its parent.
//
// Used by every advance template (technique files) and by the small-frontier drivers through their
// `Op` template parameter; BFS and SSSP differ only in this operator (Gunrock's split of advance
// and operator). State (OpArgs): `distances` (int32 hop distance, -1 = unreached) and
// `predecessors` (int32 BFS-tree parent, -1 = unreached, source = itself).
//
// Visited-status check + claim (Busato & Bombieri, "Efficient load balancing techniques for graph
// traversal applications on GPUs", section 3; Liu & Huang, "Enterprise", section 4.1): exactly one
// thread wins a vertex (atomicCAS on its distance), so the next frontier never holds duplicates and
// the winner's parent is a valid BFS-tree edge. In front of the exact claim, the optional
// shared-memory hash table of BFS-4K (Busato & Bombieri, "BFS-4K", section 6; aux->hash_cull) drops
// neighbours this block has already offered: exact only for a claim-once operator such as this one.
//
// Pull (bottom-up) levels of direction-optimizing BFS (pull.cu) use the pull_* hooks: an unvisited
// vertex looks for any parent in the frontier (Enterprise, section 2.1), which is a BFS-only notion.
#pragma once

struct BFSOp {
    // An edge's visit: true when v joins the next frontier (level L + 1) with parent u.
    __device__ __forceinline__ static bool visit(const OpArgs* __restrict__ op, const BFSAux* __restrict__ aux,
                                                 vid_t u, vid_t v, eid_t /*e*/, int L) {
        int* distances = op->distances;
        if (*((volatile int*)distances + v) != -1) return false;
        if (aux->hash_cull && at_hash_seen(v)) return false;
        if (atomicCAS(distances + v, -1, L + 1) != -1) return false;
        op->predecessors[v] = u;
        return true;
    }

    // The latency-bound drivers (single-block, persistent) keep the operator's pointers in registers
    // (Ctx, loaded once per kernel) so no claim waits on a load of the OpArgs block first.
    struct Ctx {
        int* distances;
        int* predecessors;
    };
    __device__ __forceinline__ static Ctx context(const OpArgs* __restrict__ op) {
        return Ctx{op->distances, op->predecessors};
    }

    // Their visit: one atomicCAS round trip, no separate status load first (most of their
    // neighbours are unvisited).
    __device__ __forceinline__ static bool visit_direct(const Ctx& c, vid_t u, vid_t v, eid_t /*e*/, int L) {
        if (atomicCAS(c.distances + v, -1, L + 1) != -1) return false;
        c.predecessors[v] = u;
        return true;
    }

    // Their visit on a dense level (the single-block driver, when a pass holds more edges than
    // its threads; most neighbours then are visited already): a status load first, through the
    // SM's L1 (a plain load, not volatile: one block's working set of a small graph stays there),
    // and the atomic only for a neighbour still unvisited there. A stale L1 line can only say -1
    // for a vertex claimed meanwhile (distances only go from -1 to a level), and the atomic then
    // fails as before, so the result is the same; the pre-check turns the level's atomics, which
    // one SM issues at a limited rate, into cached loads.
    __device__ __forceinline__ static bool visit_dense(const Ctx& c, vid_t u, vid_t v, eid_t e, int L) {
        if (c.distances[v] != -1) return false;
        return visit_direct(c, u, v, e, L);
    }

    // The one-block whole-graph driver (whole_graph.cu) decides claims in a shared-memory bitmap;
    // the operator resets each vertex at the start and records the claim the bitmap gave it.
    // Exact because a claim is final: the first visit of a vertex sets its hop distance.
    static constexpr bool kClaimOnce = true;
    __device__ __forceinline__ static void reset_vertex(const Ctx& c, vid_t v) {
        c.distances[v] = -1;
        c.predecessors[v] = -1;
    }
    __device__ __forceinline__ static void record_claim(const Ctx& c, vid_t u, vid_t v, int L) {
        c.distances[v] = L + 1;
        c.predecessors[v] = u;
    }

    // Status-array form of the frontier (edge_mapped, pull): u belongs to frontier L. Stable while
    // level L runs: vertices claimed during it get L + 1.
    __device__ __forceinline__ static bool in_frontier(const OpArgs* __restrict__ op, vid_t u, int L) {
        return op->distances[u] == L;
    }

    __device__ __forceinline__ static bool pull_unvisited(const OpArgs* __restrict__ op, vid_t v) {
        return op->distances[v] == -1;
    }

    // Pull levels: one thread owns v, so the claim needs no atomic.
    __device__ __forceinline__ static void pull_claim(const OpArgs* __restrict__ op, vid_t v, vid_t parent, int L) {
        op->distances[v] = L + 1;
        op->predecessors[v] = parent;
    }

    // One thread, before level 0 (the arrays were filled with -1 by the engine).
    __device__ __forceinline__ static void init_source(const OpArgs* __restrict__ op, vid_t source) {
        op->distances[source] = 0;
        op->predecessors[source] = source;
    }

    // binary_search's leaf pruning (its second optimization) is exact for this operator: a vertex
    // whose only out-edge leads back to its parent (or to itself) can never claim anything.
    static constexpr bool kPruneReturnLeaf = true;

    // No in-place expansion (the persistent driver's inline_degree): a hop distance is the level
    // that claims the vertex, so a vertex must wait for its level.
    static constexpr bool kInlineExpand = false;
};
