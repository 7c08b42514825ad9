# Kronecker scale 22: the fast-path pick of the model before the nine-pass re-sweep (binary_search b256, push/pull,
# single-block 2048) against the shipped model's (the same with hash culling), 16 sources of seed 0, each validated
# once, then four timed passes alternating the two: notebooks/figures/kron22_picks_ab_h200.jsonl.
#   python notebooks/experiments/kron22_picks_ab.py OUT.jsonl
import json, os, sys
import numpy as np
import cupy
from autotune.sweep import training_set
from autotune.generators import generate
from autotune.measure import GPURunner, measure, select_sources
out = open(sys.argv[1], "a")
train = {c.config_id: c for c in training_set()}
cfgs = {"old_pick": train["c-43e28f0644d3"], "new_pick": train["c-961cf3f89603"]}
for k, c in cfgs.items(): print(k, c.label, flush=True)
g = generate("kron:scale=22,edge_factor=16", xp=cupy)
srcs = select_sources(g, 16, seed=0)
for k, c in cfgs.items():
    g._cache.pop("engine", None)
    m = measure(GPURunner(g, c), srcs, warmup=1, validate=True); assert m.valid, m.error
for rep in range(4):
    for k in (list(cfgs) if rep % 2 == 0 else list(cfgs)[::-1]):
        g._cache.pop("engine", None)
        m = measure(GPURunner(g, cfgs[k]), srcs, warmup=1)
        rec = dict(rep=rep, pick=k, config=cfgs[k].label, median_ms=float(np.median(m.times_ms)))
        out.write(json.dumps(rec) + "\n"); out.flush(); print(json.dumps(rec), flush=True)
