# Before/after on Kronecker scale 22 and the 2048 x 2048 grid, one process per code version (PYTHONPATH picks it):
# the measurement protocol's median (autotune.measure, 3 x 16 sources), one at.run validated by the Graph500
# checks on the device, and at.run over the 16 sources (its results' elapsed_ms median, host wall per call).
#   python notebooks/experiments/rows_before_after.py OUT.jsonl TAG
import sys, json, time, numpy as np, cupy
import autotune as at
from autotune.generators import generate
from autotune.measure import GPURunner, measure, select_sources
tag = sys.argv[2]
for spec in ("kron:scale=22,edge_factor=16", "grid:rows=2048,cols=2048,drop=0.1"):
    g = generate(spec, xp=cupy); pick = at.tune(g); srcs = select_sources(g, 16, seed=0)
    r = GPURunner(g, pick); t = []
    for rep in range(3):
        m = measure(r, srcs, warmup=1); t += m.times_ms
    res = at.run(g, pick, source=int(srcs[0]), validate=True)  # Graph500 checks on the device
    el = []; t0 = time.perf_counter()
    for s in srcs: el.append(at.run(g, pick, source=int(s)).elapsed_ms)
    wall = (time.perf_counter() - t0) * 1e3 / len(srcs)
    rec = dict(tag=tag, spec=spec, config=pick.label, measure_median_ms=float(np.median(t)),
               run_elapsed_median_ms=float(np.median(el)), run_wall_mean_ms=wall, validated=True)
    print(json.dumps(rec), flush=True); open(sys.argv[1], "a").write(json.dumps(rec) + "\n")
    del r, g, res; cupy.get_default_memory_pool().free_all_blocks()
