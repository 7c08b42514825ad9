# Which corpus graphs the single-block hub rule (kernels/traversal.cuh, at_sb_fits; engine SB_HUB_DEGREE) can
# change, decided on the CPU from the sweep's own sources: a level runs differently under the rule only where a
# config with the rule (BFS, small_frontier single_block, binary_search / edge_mapped / scan_mapped) would have
# taken the single-block path before it (fsize <= frontier_limit, degsum <= 16 x frontier_limit) and the rule
# now sends it multi-block (degsum > AT_SB_HUB_EDGES = 8192 and degsum > SB_HUB_DEGREE x fsize). Level sizes and
# out-edge sums are the same whatever the direction (the frontier of a BFS level is fixed), so one CPU BFS per
# logged source tells which levels of which graphs the rule reaches. A graph no source of which has such a level
# ran the same code in every config before and after the rule, so its earlier records still hold.
#   python notebooks/experiments/hub_rule_affected.py models/corpus_h200.txt LOG [LOG ...] --out FILE.tsv
import sys, time
import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import breadth_first_order

from autotune._engine import SB_EDGE_FACTOR, SB_HUB_DEGREE
from autotune.logs import read_log
from autotune.sweep import _graph_items, _load, training_set

HUB_EDGES = 8192  # AT_SB_HUB_EDGES
SWEPT_TECHNIQUES = ("binary_search", "edge_mapped", "scan_mapped")  # the rule as the corpus was swept with it
args = sys.argv[1:]
out_path = args[args.index("--out") + 1]
del args[args.index("--out"):args.index("--out") + 2]
corpus, logs = args[0], args[1:]

limits = sorted({c.frontier_limit for c in training_set("bfs")
                 if c.small_frontier == "single_block" and c.load_balance in SWEPT_TECHNIQUES})
sources = {}
for path in logs:
    for r in read_log(path).records:
        if r.algorithm == "bfs" and r.measure and r.measure.get("sources"):
            sources.setdefault(r.graph["name"], r.measure["sources"])
print("limits of the rule's configs:", limits, "| graphs with logged sources:", len(sources), flush=True)


def levels(a, deg, s):
    """Per-level (vertices, out-edges) of a BFS from *s*: depths by pointer jumping over scipy's BFS tree."""
    order, pred = breadth_first_order(a, int(s), directed=True, return_predecessors=True)
    n = a.shape[0]
    anc = np.full(n, -1, dtype=np.int64)
    anc[order[1:]] = pred[order[1:]]
    d = np.zeros(n, dtype=np.int64)
    d[order[1:]] = 1
    live = order[1:]
    while live.size:  # d[v]: distance to anc[v]; jump until every ancestor is the root
        up = anc[live]
        d[live] += d[up]
        anc[live] = anc[up]
        live = live[anc[live] >= 0]
    depth = d[order]
    return np.bincount(depth), np.bincount(depth, weights=deg[order]).astype(np.int64)


rows = []
for item, _, family, directed in _graph_items(None, corpus):
    t0 = time.perf_counter()
    g = _load(item, False, directed)
    name = g.name
    src = sources.get(name)
    ro = np.asarray(g.row_offsets, dtype=np.int64)
    deg = np.diff(ro)
    hit = {lim: 0 for lim in limits}
    if src is None:
        status = "no-sources"
    elif deg.max() <= SB_HUB_DEGREE:
        status = "unaffected"  # no frontier's mean out-degree can exceed the rule's
    else:
        n = g.n_vertices
        a = sp.csr_matrix((np.ones(len(g.column_indices), dtype=np.int8), np.asarray(g.column_indices), ro),
                          shape=(n, n))
        for s in src:
            fsize, degsum = levels(a, deg, s)
            rule = (degsum > HUB_EDGES) & (degsum > SB_HUB_DEGREE * fsize)
            for lim in limits:
                hit[lim] += int(np.any(rule & (fsize <= lim) & (degsum <= SB_EDGE_FACTOR * lim)))
        status = "affected" if any(hit.values()) else "unaffected"
    rows.append((name, family, status, *(hit[lim] for lim in limits)))
    print(f"{status:11s} {name[:70]:70s} {hit} {time.perf_counter() - t0:.1f}s", flush=True)

with open(out_path, "w") as f:
    f.write("graph\tfamily\tstatus\t" + "\t".join(f"sources_hit_limit_{lim}" for lim in limits) + "\n")
    for r in rows:
        f.write("\t".join(map(str, r)) + "\n")
print(sum(r[2] == "affected" for r in rows), "of", len(rows), "graphs affected")
