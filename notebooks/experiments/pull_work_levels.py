# Per-level work of a BFS from one source, computed on the CPU: frontier size and out-edges (what a push level
# expands), the unvisited vertices and their in-edges, and the in-edges a pull level examines (each unvisited vertex
# scans its in-edges until one comes from the frontier; all of them when none does), beside GAP's alpha test.
#   python notebooks/experiments/pull_work_levels.py SPEC SOURCE
import sys
import numpy as np
import scipy.sparse as sp
import autotune as at
from autotune.reference import bfs_reference


def table(spec, src):
    g = at.load_graph(spec)
    n, m = g.n_vertices, g.n_edges
    ro, ci = np.asarray(g.row_offsets, np.int64), np.asarray(g.column_indices)
    dist = np.asarray(bfs_reference(g, src)[0], np.int64)  # -1: unreached
    a_in = sp.csr_matrix((np.ones(len(ci), np.int8), ci, ro), shape=(n, n)).T.tocsr()
    a_in.sort_indices()
    out_deg, in_deg = np.diff(ro), np.diff(a_in.indptr)
    rows, explored = [], 0
    for L in range(int(dist.max()) + 1):
        f = np.flatnonzero(dist == L)
        unv = np.flatnonzero((dist > L) | (dist < 0))
        mf = int(out_deg[f].sum())
        sub = a_in[unv]  # each unvisited vertex's in-edges, in row order
        row = np.repeat(np.arange(len(unv)), np.diff(sub.indptr))
        hits = np.flatnonzero(dist[sub.indices] == L)
        first = np.full(len(unv), -1)
        r, i = np.unique(row[hits], return_index=True)
        first[r] = hits[i] - sub.indptr[r]  # position of the first in-edge from the frontier
        examined = int(np.where(first >= 0, first + 1, in_deg[unv]).sum())
        rows.append((L, len(f), mf, len(unv), int(out_deg[unv].sum()), int(in_deg[unv].sum()), examined,
                     m - explored - mf))
        explored += mf
    return n, m, rows


if __name__ == "__main__":
    n, m, rows = table(sys.argv[1], int(sys.argv[2]))
    print("n", n, "m", m, "n/18", n / 18)
    print("L nf mf n_unv mu_out mu_in pull_examined unexplored(alpha rule)")
    for r in rows:
        print(*r, f"mf*15/unexpl={r[2] * 15 / max(r[7], 1):.2f}", f"exam/mf={r[6] / max(r[2], 1):.2f}")
