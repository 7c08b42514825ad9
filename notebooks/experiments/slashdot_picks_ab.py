# soc-Slashdot0902: the fast-path pick of the model before the nine-pass re-sweep (edge_mapped b512, hash culling,
# push/pull, single-block 2048) against the shipped model's (its push twin), on the 16 sources of seed 0 and the
# 32 of seed 1, three passes alternating the two (the first validating): notebooks/figures/slashdot_picks_ab_h200.jsonl.
#   python notebooks/experiments/slashdot_picks_ab.py soc-Slashdot0902.txt.gz OUT.jsonl
import json, os, sys
import numpy as np
import autotune as at
from autotune.sweep import training_set
from autotune.measure import GPURunner, measure, select_sources
out = open(sys.argv[2], "a")
train = {c.config_id: c for c in training_set()}
want = {"old_pick": "c-a8dd49cd5894", "new_pick": "c-b4b52b4d1184"}
cfgs = {k: train[v] for k, v in want.items()}
g = at.load_graph(sys.argv[1])
src = {"seed0x16": select_sources(g, 16, seed=0), "seed1x32": select_sources(g, 32, seed=1)}
for k, c in cfgs.items(): print(k, c.config_id, c.label, flush=True)
for rep in range(3):
    for k in (list(cfgs) if rep % 2 == 0 else list(cfgs)[::-1]):
        g._cache.pop("engine", None)
        r = GPURunner(g, cfgs[k])
        for sk, s in src.items():
            m = measure(r, s, warmup=1, validate=(rep == 0))
            rec = dict(rep=rep, pick=k, config=cfgs[k].label, sources=sk, median_ms=float(np.median(m.times_ms)), valid=bool(m.valid))
            out.write(json.dumps(rec) + "\n"); out.flush(); print(json.dumps(rec), flush=True)
        del r
