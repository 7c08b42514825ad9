# The same resident calls timed four ways in one process (us, medians; each way twice, alternated): "measure" the
# benchmarks' protocol (autotune.measure.measure with GPURunner: CUDA events around engine.traverse, the outcome --
# edges traversed, a device reduction read back -- after each call; 3 x 16 sources), "timed" engine.timed_traverse
# (events, nothing between calls), "timed_outcome" the same with the outcome read after each call, "wall"
# time.perf_counter around engine.traverse (no events). 480 calls each but "measure". Prints one JSON line per
# graph file of the folder (notebooks/figures/timing_protocols_h200.jsonl).
#   python notebooks/experiments/timing_protocols.py GRAPH_FOLDER
import sys, json, time, glob, os
import numpy as np, cupy
import autotune as at
from autotune.measure import GPURunner, measure, select_sources
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.gz"))):
    g = at.load_graph(path); pick = at.tune(g)
    srcs = select_sources(g, 16, seed=0)
    r = GPURunner(g, pick)
    m0 = measure(r, srcs, warmup=1, validate=True)
    eng = r.engine
    rec = dict(graph=os.path.basename(path).split(".")[0])
    for rep in range(2):
        ms = []
        for _ in range(3): ms += measure(r, srcs, warmup=1, validate=False).times_ms
        rec[f"measure_{rep}"] = float(np.median(ms) * 1e3)
        t = [eng.timed_traverse(int(srcs[i % 16]))[1] for i in range(480)]
        rec[f"timed_{rep}"] = float(np.median(t) * 1e3)
        # timed with an outcome read after each call, as measure does
        t2 = []
        for i in range(480):
            t2.append(eng.timed_traverse(int(srcs[i % 16]))[1]); eng.edges_traversed()
        rec[f"timed_outcome_{rep}"] = float(np.median(t2) * 1e3)
        # time.perf_counter around engine.traverse
        t3 = []
        for i in range(480):
            t0 = time.perf_counter(); eng.traverse(int(srcs[i % 16])); t3.append(time.perf_counter() - t0)
        rec[f"wall_{rep}"] = float(np.median(t3) * 1e6)
    print(json.dumps(rec), flush=True)
