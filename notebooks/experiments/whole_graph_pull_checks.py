# In-edges the one-block kernel's pull levels examine, counted on the CPU for the source the A/B scripts trace
# (cluster_ab.py: the middle one of the 16 seeded sources): for every level GAP's rule may pull (a frontier of at
# least n / 18 vertices), each unvisited vertex's in-edges in row order up to its first in-neighbour in the
# frontier ("early exit"), and as the shipped kernel examines them (a thread's own first eight stop at a hit; past
# them its warp scans the rest of the row whole).
#   python notebooks/experiments/whole_graph_pull_checks.py GRAPH_FILE [GRAPH_FILE ...]
import sys
import numpy as np
import autotune as at
from autotune.measure import select_sources
from autotune.reference import bfs_reference

SERIAL = 8  # autotune._engine.WHOLE_GRAPH_PULL_SERIAL when these counts were taken (32 since)
for path in sys.argv[1:]:
    g = at.load_graph(path)
    n = g.n_vertices
    ro, ci = np.asarray(g.row_offsets, np.int64), np.asarray(g.column_indices, np.int64)
    order = np.argsort(ci, kind="stable")  # the transpose's rows, in-neighbours in increasing id order
    in_src = np.repeat(np.arange(n), np.diff(ro))[order]
    in_off = np.r_[0, np.cumsum(np.bincount(ci, minlength=n))]
    src = int(select_sources(g, 16, seed=0)[8])
    dist = np.asarray(bfs_reference(g, src)[0], np.int64)
    for L in range(int(dist.max()) + 1):
        front = dist == L
        unvisited = (dist > L) | (dist < 0)
        if front.sum() * 18 < n:
            continue
        early = kernel = 0
        for v in np.nonzero(unvisited)[0]:
            row = in_src[in_off[v]:in_off[v + 1]]
            hit = np.nonzero(front[row])[0]
            first = int(hit[0]) + 1 if len(hit) else len(row)
            early += first
            kernel += first if len(hit) and first <= SERIAL else len(row)
        print(f"{path.split('/')[-1]} source {src} level {L}: frontier {int(front.sum())}, unvisited "
              f"{int(unvisited.sum())}, in-edges examined {kernel} (early exit: {early}), rounds of 1024 vertices "
              f"{-(-n // 1024)}")
