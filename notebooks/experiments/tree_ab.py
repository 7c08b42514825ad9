# Before/after of two source trees in one run: each call times the fast path's pick of each graph with the
# autotune package of TREE (imported from TREE, its kernels compiled from TREE/kernels), median of 16 seeded
# sources x 3 passes after a warm-up, device time with CUDA events; alternate TREEs across calls.
#   python notebooks/experiments/tree_ab.py TREE LABEL OUT.jsonl SPEC...
import json, os, sys, time
tree, label, out = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.abspath(tree))
import numpy as np
import cupy
import autotune as at
from _warm import warm_engine  # after the path: it imports TREE's autotune
assert os.path.abspath(at.__file__).startswith(os.path.abspath(tree)), at.__file__
with open(out, "a") as fh:
    for spec in sys.argv[4:]:
        t0 = time.time()
        g, cfg, eng, srcs = warm_engine(spec)
        ev = (cupy.cuda.Event(), cupy.cuda.Event())
        t = [eng.timed_traverse(s, events=ev)[1] for _ in range(3) for s in srcs]
        rec = dict(tree=label, graph=os.path.basename(spec)[:60], config=cfg.label, median_ms=float(np.median(t)))
        fh.write(json.dumps(rec) + "\n"); fh.flush()
        print(json.dumps(rec), f"{time.time() - t0:.1f} s", flush=True)
