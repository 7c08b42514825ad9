# What a resident traversal costs (autotune._engine.RESIDENT), beside the replayed kernel: on each graph
# file of a folder that takes the whole-graph kernel, medians of 2,000 calls cycling over 16 sources:
# engine.traverse wall clock (resident and replayed), the same between CUDA events (the benchmarks'
# protocol), a source without out-edges (one level: the call's floor), and the kernel's own span from
# its trace (first level start to last level end, %globaltimer). One JSON line per graph.
#   python notebooks/experiments/resident_floor_probe.py OUT.jsonl GRAPH_FOLDER [MODES]
# MODES: the RESIDENT settings to time, comma-separated (default "off,auto").
import glob, json, os, sys, time
import numpy as np
import cupy
import autotune as at
import autotune._engine as E
from autotune.engine import BFSEngine
from autotune.measure import select_sources

out, folder = open(sys.argv[1], "a"), sys.argv[2]
modes = sys.argv[3].split(",") if len(sys.argv) > 3 else ["off", "auto"]
N = 2000


def wall(eng, srcs):
    ts = []
    for i in range(N):
        t0 = time.perf_counter()
        eng.traverse(srcs[i % len(srcs)])
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts) * 1e6)


def events(eng, srcs):
    ts = []
    for i in range(N // 2):
        ts.append(eng.timed_traverse(srcs[i % len(srcs)])[1])
    return float(np.median(ts) * 1e3)


for path in sorted(glob.glob(os.path.join(folder, "*.gz"))):
    g = at.load_graph(path)
    name = os.path.basename(path).split(".")[0]
    pick = at.tune(g)
    srcs = [int(s) for s in select_sources(g, 16, seed=0)]
    deg = g.out_degrees(np)
    sink = [int(np.flatnonzero(deg == 0)[0])] if (deg == 0).any() else None
    rec = dict(graph=name, config=pick.label)
    for mode in modes:
        E.RESIDENT = mode
        eng = BFSEngine(g, pick)
        if not eng.whole_graph:
            break
        eng.traverse(srcs[0])
        rec[f"{mode}_wall_us"] = wall(eng, srcs)
        rec[f"{mode}_events_us"] = events(eng, srcs)
        if sink:
            rec[f"{mode}_sink_wall_us"] = wall(eng, sink)
        spans = []
        for s in srcs:
            lv = eng.traverse(s)
            t = eng.level_time[: lv + 1].get().astype(np.int64)
            spans.append((t[lv] - t[0]) / 1e3)
        rec[f"{mode}_kernel_levels_us"] = float(np.median(spans))
        del eng
        E.release_resident()
    E.RESIDENT = "auto"
    if len(rec) > 2:
        out.write(json.dumps(rec) + "\n"); out.flush(); print(json.dumps(rec), flush=True)
