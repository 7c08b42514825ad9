# Pull (bottom-up) levels on a directed graph: the per-level trace of one source under a push/pull config
# and its push twin, for profiling the pull kernel (ncu -k regex:pull_level) and comparing its levels.
#   python notebooks/experiments/pull_probe.py SPEC SOURCE [REPS]
import sys
import numpy as np
import autotune as at
from autotune.engine import get_engine
from autotune.sweep import training_set

spec, src = sys.argv[1], int(sys.argv[2])
reps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
g = at.load_graph(spec)


def pick(direction):
    for c in training_set("bfs"):
        if (c.load_balance, c.block_size, c.direction, c.small_frontier, c.frontier_limit, c.duplicate_culling,
                c.chunk_size) == ("binary_search", 256, direction, "single_block", 2048, "none", "dynamic"):
            return c
    raise SystemExit("config not in the training set")


for direction in ("push_pull", "push"):
    cfg = pick(direction)
    g._cache.pop("engine", None)
    eng = get_engine(g, cfg)
    for _ in range(reps):
        L = eng.traverse(src)
    tr = eng.level_trace(L)
    print(cfg.label, "levels", L, "traced us", round(sum(x.us for x in tr), 1), flush=True)
    print("  ", [(x.frontier_size, x.direction[:2], x.path[:2], round(x.us, 1)) for x in tr], flush=True)
