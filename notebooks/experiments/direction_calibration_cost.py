# What the direction calibration (autotune._engine.DIRECTION_CALIBRATION) costs and changes on the fast path's pick:
# per graph, engines built with the calibration on ("auto") and off, alternated (on, off, off, on): the engine's
# build and first traversal (wall ms; the first traversal runs the calibrations), then the median of 16 sources
# (device ms, CUDA events) in three interleaved passes, every first traversal's distances checked against the
# other mode's. Writes one JSON line per graph and mode.
#   python notebooks/experiments/direction_calibration_cost.py OUT.jsonl SPEC...
import json
import sys
import time

import cupy
import numpy as np

import autotune as at
import autotune._engine as E
from autotune.engine import BFSEngine
from autotune.graph import load_graph
from autotune.measure import select_sources

out = open(sys.argv[1], "a")
for spec in sys.argv[2:]:
    g = load_graph(spec)
    g.device()
    cfg = at.tune(g)
    sources = [int(s) for s in select_sources(g, 16, 0)]
    engines, rec = {}, {}
    for mode in ("auto", "off", "off2", "auto2"):
        E.DIRECTION_CALIBRATION = mode.rstrip("2")
        cupy.cuda.Device().synchronize()
        t0 = time.perf_counter()
        eng = BFSEngine(g, cfg)
        cupy.cuda.Device().synchronize()
        t1 = time.perf_counter()
        res = eng.bfs(sources[0])
        t2 = time.perf_counter()
        engines[mode] = eng
        rec[mode] = {"build_ms": (t1 - t0) * 1e3, "first_ms": (t2 - t1) * 1e3, "distances": res.distances,
                     "calibration": eng.direction_calibration, "direction": eng.direction,
                     "cluster": eng.cluster_calibration is not None, "whole_graph": eng.whole_graph, "passes": []}
    for m in rec:
        assert np.array_equal(rec[m]["distances"], rec["off"]["distances"]), (spec, m)
    for _ in range(3):
        for mode in ("auto", "off", "off2", "auto2"):
            eng = engines[mode]
            ts = [eng.timed_traverse(s)[1] for s in sources]
            rec[mode]["passes"].append(float(np.median(ts)))
    for mode, r in rec.items():
        r.pop("distances")
        line = {"graph": spec, "config": cfg.label, "mode": mode, "median_ms": float(np.median(r["passes"])), **r}
        out.write(json.dumps(line, default=str) + "\n")
        out.flush()
        print(spec[:40], mode, cfg.label, round(line["median_ms"], 4), "first %.1f ms" % r["first_ms"], r["direction"],
              flush=True)
