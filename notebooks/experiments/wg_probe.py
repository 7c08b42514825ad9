# The whole-graph kernel on small graphs: per-level trace of one source and the median call of a loop
# (the fast path's pick, engine warmed), for profiling it (ncu) and timing it.
#   python notebooks/experiments/wg_probe.py N_LOOP PATH...
import sys, time
import numpy as np
import cupy
from _warm import warm_engine

n_loop = int(sys.argv[1])
for path in sys.argv[2:]:
    g, cfg, eng, srcs = warm_engine(path)
    ev = (cupy.cuda.Event(), cupy.cuda.Event())
    t = [eng.timed_traverse(s, events=ev)[1] for _ in range(n_loop) for s in srcs]
    s = max(srcs, key=lambda s: eng.traverse(s))
    L = eng.traverse(s)
    tr = eng.level_trace(L)
    print(path.split("/")[-1], cfg.label, "median ms", round(float(np.median(t)), 4) if t else None,
          "levels", [(x.frontier_size, x.path, round(x.us, 2)) for x in tr] if tr else None, flush=True)
