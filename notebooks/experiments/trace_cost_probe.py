# What the per-level trace costs the one-launch kernels: the whole-graph kernels record every level's
# frontier size, path and end time (%globaltimer) by thread 0 at the end of the level, on every traversal
# (kernels/traversal.cuh, at_trace_level; BFSParams.trace_cap levels at most). Here the fast path's pick on
# each graph file of a folder is timed with the engine's trace_cap as built and with trace_cap = 0 written
# into its device parameters (nothing recorded; the kernels read the field every level), the resident
# kernel returned and relaunched at each switch so it reads the new value, alternated four times; medians
# of 2,000 calls cycling over 16 sources, engine.traverse between CUDA events (the benchmarks' protocol),
# and the levels' sum from the traced passes. Every mode's first pass is checked against the CPU reference.
# One JSON line per graph.
#   python notebooks/experiments/trace_cost_probe.py OUT.jsonl GRAPH_FOLDER
import glob, json, os, sys
import numpy as np
import cupy
import autotune as at
import autotune._engine as E
from autotune.engine import get_engine
from autotune.measure import select_sources
from autotune.reference import validate_bfs

out, folder = open(sys.argv[1], "a"), sys.argv[2]
N = 2000
CAP = E.PARAMS_DTYPE.fields["trace_cap"][1]  # byte offset of BFSParams.trace_cap


def set_cap(eng, cap):
    E.release_resident()  # a resident kernel reads the parameters again when launched anew
    eng.params[CAP:CAP + 4] = cupy.asarray(np.frombuffer(np.int32(cap).tobytes(), dtype=np.uint8))
    cupy.cuda.Device().synchronize()


for path in sorted(glob.glob(os.path.join(folder, "*.gz"))):
    g = at.load_graph(path)
    name = os.path.basename(path).split(".")[0]
    pick = at.tune(g)
    srcs = [int(s) for s in select_sources(g, 16, seed=0)]
    eng = get_engine(g, pick)
    for s in srcs:
        eng.traverse(s)
    cap0 = int(eng.trace_cap)
    times = {"trace": [], "no_trace": []}
    valid = {}
    for rep in range(4):
        for mode in (("trace", "no_trace") if rep % 2 == 0 else ("no_trace", "trace")):
            set_cap(eng, cap0 if mode == "trace" else 0)
            if rep == 0:
                ok = True
                for s in srcs:
                    res = eng.bfs(s)
                    try:
                        validate_bfs(g, s, cupy.asnumpy(res.distances), cupy.asnumpy(res.predecessors))
                    except Exception as e:  # noqa: BLE001 -- recorded
                        ok = str(e)[:200]
                        break
                valid[mode] = ok
            times[mode] += [eng.timed_traverse(srcs[i % len(srcs)])[1] for i in range(N // 4)]
    set_cap(eng, cap0)
    rec = dict(graph=name, config=pick.label, resident=bool(eng.resident), whole_graph=bool(eng.whole_graph),
               cluster=int(eng.cluster_size), trace_cap=cap0, valid=valid,
               median_us={k: float(np.median(v) * 1e3) for k, v in times.items()})
    rec["no_trace_over_trace"] = rec["median_us"]["no_trace"] / rec["median_us"]["trace"]
    out.write(json.dumps(rec) + "\n")
    out.flush()
    print(json.dumps(rec), flush=True)
    del eng
    g._cache.clear()
