# Before/after of the pull kernel in one run: each call times, with the autotune package of TREE (its kernels
# compiled from TREE/kernels), every push/pull `train` config of a few techniques (PULL_AB_CONFIGS below) and
# the fast path's pick on each graph: a fresh engine, 16 seeded sources, one warm-up, the first of three passes
# validated on the GPU (Graph500 checks), the median of the three passes' times. Alternate TREEs across calls.
#   python notebooks/experiments/pull_ab.py TREE LABEL OUT.jsonl SPEC...
import json, os, sys, time
tree, label, out = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.abspath(tree))
import numpy as np
import autotune as at
from autotune.measure import GPURunner, measure, select_sources
from autotune.sweep import training_set
assert os.path.abspath(at.__file__).startswith(os.path.abspath(tree)), at.__file__

# (load_balance, block_size, small_frontier, frontier_limit, duplicate_culling, chunk_size or None)
PULL_AB_CONFIGS = [("binary_search", 256, "single_block", 2048, "none", "dynamic"),
                   ("edge_mapped", 512, "single_block", 2048, "hash", None),
                   ("binary_search", 256, "persistent", 8192, "none", None),
                   ("scan_mapped", 256, None, None, None, None)]


def configs(g):
    out = []
    for want in PULL_AB_CONFIGS:
        for c in training_set("bfs"):
            if c.direction != "push_pull" or (c.load_balance, c.block_size) != want[:2]:
                continue
            if want[2] is not None and (c.small_frontier, c.frontier_limit, c.duplicate_culling) != want[2:5]:
                continue
            if want[5] is not None and c.chunk_size != want[5]:
                continue
            out.append(c)
            break
    pick = at.tune(g)
    return out + ([pick] if pick not in out else [])


with open(out, "a") as fh:
    for spec in sys.argv[4:]:
        t0 = time.time()
        g = at.load_graph(spec)
        srcs = [int(s) for s in select_sources(g, 16, seed=0)]
        for cfg in configs(g):
            g._cache.pop("engine", None)
            r = GPURunner(g, cfg, on_device=True)
            times = []
            for rep in range(3):
                m = measure(r, srcs, warmup=1, validate=(rep == 0))
                if rep == 0:
                    valid = bool(m.valid)
                times += list(m.times_ms)
            rec = dict(tree=label, graph=spec[:70], config=cfg.label, median_ms=float(np.median(times)), valid=valid)
            fh.write(json.dumps(rec) + "\n"); fh.flush()
            print(json.dumps(rec), flush=True)
            del r
        print(spec[:60], f"{time.time() - t0:.1f} s", flush=True)
