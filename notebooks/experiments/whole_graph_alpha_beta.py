# The one-block whole-graph kernel's direction rule (autotune._engine.WHOLE_GRAPH_ALPHA / WHOLE_GRAPH_BETA, GAP's
# alpha = 15 and beta = 18 by default) swept on every graph file of a folder: per (alpha, beta), a fresh engine of
# the fast path's pick (resident where the engine serves it so), its first pass over 16 seeded sources checked
# against the CPU reference, then 1,000 calls cycling over them between CUDA events (engine.timed_traverse), the
# median in us. The default pair runs first, in the middle and last (the run's noise). One JSON line per graph.
#   python notebooks/experiments/whole_graph_alpha_beta.py OUT.jsonl GRAPH_FOLDER
import glob, itertools, json, os, sys
import numpy as np
import cupy
import autotune as at
import autotune._engine as E
from autotune.engine import BFSEngine
from autotune.measure import select_sources
from autotune.reference import bfs_reference, validate_bfs

out = open(sys.argv[1], "a")
pairs = [(a, b) for a, b in itertools.product((2, 4, 8, 15, 30, 60), (6, 18, 54)) if (a, b) != (15, 18)]
order = [(15, 18)] + pairs[: len(pairs) // 2] + [(15, 18)] + pairs[len(pairs) // 2:] + [(15, 18)]
for path in sorted(glob.glob(os.path.join(sys.argv[2], "*.gz"))):
    g = at.load_graph(path)
    pick = at.tune(g)
    srcs = [int(s) for s in select_sources(g, 16, seed=0)]
    refs = {s: bfs_reference(g, s)[0] for s in srcs}
    res, valid, pulls = [], True, {}
    for a, b in order:
        E.WHOLE_GRAPH_ALPHA, E.WHOLE_GRAPH_BETA = a, b
        E.release_resident()
        eng = BFSEngine(g, pick)
        n_pull = 0
        for s in srcs:
            r = eng.bfs(s, trace=True)
            n_pull += sum(lv.direction == "pull" for lv in r.levels)
            try:
                validate_bfs(g, s, cupy.asnumpy(r.distances), cupy.asnumpy(r.predecessors), reference_distances=refs[s])
            except Exception as e:  # noqa: BLE001 -- recorded
                valid = f"{a},{b}: {str(e)[:150]}"
        t = [eng.timed_traverse(srcs[i % 16])[1] for i in range(1000)]
        res.append(dict(alpha=a, beta=b, median_us=float(np.median(t) * 1e3), pull_levels=n_pull))
        del eng
    E.WHOLE_GRAPH_ALPHA, E.WHOLE_GRAPH_BETA = 15, 18
    rec = dict(graph=os.path.basename(path).split(".")[0], config=pick.label, valid=valid, runs=res)
    out.write(json.dumps(rec) + "\n")
    out.flush()
    best = min(res, key=lambda r: r["median_us"])
    print(rec["graph"], "default", [round(r["median_us"], 2) for r in res if (r["alpha"], r["beta"]) == (15, 18)],
          "best", best, "valid", valid, flush=True)
