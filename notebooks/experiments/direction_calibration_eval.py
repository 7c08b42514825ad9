# The direction calibration (autotune._engine.DIRECTION_CALIBRATION) on the graphs where it can move the shipped
# BFS model's regret (direction_calibration_targets.py): per graph, the model's leave-one-graph-out and
# leave-one-family-out picks, the graph's best swept config and the push twins of the push/pull ones, swept with
# the shipped protocol (16 sources, the first validated on the GPU, three interleaved passes, one traced
# traversal) with the calibration on ("auto", this release) and off (the config's direction: the code before it),
# one after the other in one process, the order alternated per graph (ABBA).
#   python notebooks/experiments/direction_calibration_eval.py TARGETS.json OUTDIR
import json
import sys
import time
from pathlib import Path

import autotune._engine as E
from autotune.config import TraversalConfig
from autotune.sweep import sweep

targets = json.load(open(sys.argv[1]))
out = Path(sys.argv[2])
out.mkdir(parents=True, exist_ok=True)
t0 = time.time()
for k, (name, t) in enumerate(sorted(targets.items())):
    cfgs = {}
    for d in list(t["configs"].values()) + list(t.get("twins", {}).values()):
        c = TraversalConfig(**{a: v for a, v in d.items() if v is not None})
        cfgs.setdefault(c.label, c)
    for mode in (("auto", "off") if k % 2 == 0 else ("off", "auto")):
        E.DIRECTION_CALIBRATION = mode
        sweep(graphs=[t["entry"]], configs=list(cfgs.values()), out=str(out / f"calibration_{mode}.jsonl"),
              n_sources=16, validate_sources=1, validate_on_device=True, levels=256, rounds=3, progress=False)
    print(f"{k + 1}/{len(targets)} {name[:60]} {len(cfgs)} configs {time.time() - t0:.0f} s", flush=True)
