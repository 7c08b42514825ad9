# Per-level trace of the whole-graph kernel (resident) on the small graphs of a folder: for each graph and
# 4 sources, every level's frontier size, direction and µs (the kernel's own %globaltimer), pull levels
# as the engine decides ("auto") and forced off. Prints one line per traversal.
#   python notebooks/experiments/wg_levels_probe.py GRAPH_FOLDER
import glob, os, sys
import numpy as np
import autotune as at
import autotune._engine as E
from autotune.engine import BFSEngine
from autotune.measure import select_sources

for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.gz"))):
    g = at.load_graph(path)
    pick = at.tune(g)
    srcs = [int(s) for s in select_sources(g, 4, seed=0)]
    for pull in ("auto", False):
        E.WHOLE_GRAPH_PULL = pull
        eng = BFSEngine(g, pick)
        if not eng.whole_graph:
            break
        for s in srcs:
            for _ in range(3):
                res = eng.bfs(s, trace=True)
            lv = " ".join(f"{l.frontier_size}{'P' if l.direction == 'pull' else ''}:{l.us:.1f}" for l in res.levels)
            print(os.path.basename(path)[:14], "pull" if pull else "push", s, f"total {sum(l.us for l in res.levels):.1f}us |", lv, flush=True)
        del eng
        E.release_resident()
    E.WHOLE_GRAPH_PULL = "auto"
