# Before / after of the resident whole-graph kernel (autotune._engine.RESIDENT) and of the staged in-edges
# (WHOLE_GRAPH_STAGE_IN), in one process: for every graph file of a folder that takes the one-block
# whole-graph kernel, the fast path's pick built three times (MODES below), each an engine of its own; the
# same 16 sources; a validating pass each (untimed), then 4 alternated passes of each (every resident kernel
# returned after each pass: one alive slows another engine's replayed whole-graph kernel by ~8 us,
# resident_neighbour_probe.py), every call timed as
# graphs_vs_gap.py times it (CUDA events around engine.traverse, the host's wait included), median of the 64.
# Then engine.bfs with the host copy of its distances (wall clock per call, median of 3 x 16), and a Python
# loop of autotune.run over the same sources on the host graph (same), both ways.
# One JSON line per graph.
#   python notebooks/experiments/resident_ab.py OUT.jsonl GRAPH_FOLDER
import glob, json, os, sys, time
import numpy as np
import cupy
import autotune as at
import autotune._engine as E
from autotune.engine import BFSEngine
from autotune.measure import GPURunner, measure, select_sources

out, folder = open(sys.argv[1], "a"), sys.argv[2]
# before: the replayed kernel, in-edges read from global memory (the previous release); stage_in: the
# replayed kernel with a directed graph's in-edges staged in shared memory; after: both and the resident
# kernel (this release's defaults)
MODES = {"before": dict(RESIDENT="off", WHOLE_GRAPH_STAGE_IN="off"),
         "stage_in": dict(RESIDENT="off", WHOLE_GRAPH_STAGE_IN="auto"),
         "after": dict(RESIDENT="auto", WHOLE_GRAPH_STAGE_IN="auto")}


def setm(mode):
    for k, v in MODES[mode].items():
        setattr(E, k, v)


for path in sorted(glob.glob(os.path.join(folder, "*.gz"))):
    g = at.load_graph(path)
    name = os.path.basename(path).split(".")[0]
    pick = at.tune(g)
    srcs = select_sources(g, 16, seed=0)
    runners = {}
    for mode in MODES:
        setm(mode)
        r = GPURunner(g, pick)
        r.engine = BFSEngine(g, pick)  # an engine of its own (get_engine would share the graph's)
        r.prepare = lambda: None
        m = measure(r, srcs, warmup=1, validate=True)
        assert m.valid, m.error
        runners[mode] = r
    setm("after")
    if not runners["before"].engine.whole_graph:
        print(name, "not on the whole-graph kernel", flush=True)
        continue
    times = {k: [] for k in MODES}
    for rep in range(4):
        for mode in MODES:
            m = measure(runners[mode], srcs, warmup=1)
            assert m.valid, m.error
            times[mode] += m.times_ms
            E.release_resident()  # each mode alone on the GPU (a live resident kernel slows another's launches)
    calls = {k: [] for k in MODES}  # engine.bfs + the host copy, wall clock
    for rep in range(3):
        for mode in MODES:
            eng = runners[mode].engine
            for s in srcs:
                t0 = time.perf_counter()
                d = eng.bfs(int(s)).distances
                calls[mode].append((time.perf_counter() - t0) * 1e3)
            E.release_resident()
    loop = {k: [] for k in MODES}
    for rep in range(3):
        for mode in MODES:
            setm(mode)
            g._cache.pop("engine", None)
            at.run(g, pick, source=int(srcs[0]))  # build + warm
            for s in srcs:
                t0 = time.perf_counter()
                res = at.run(g, pick, source=int(s))
                _ = res.distances  # the host copy a user reads
                loop[mode].append((time.perf_counter() - t0) * 1e3)
            g._cache.pop("engine", None)
            E.release_resident()
    setm("after")
    eng = runners["after"].engine
    rec = dict(graph=name, n_vertices=g.n_vertices, n_edges=g.n_edges, config=pick.label,
               resident=bool(eng.resident), staged_in=bool(eng.whole_graph_staged_in), pull=bool(eng.whole_graph_pull),
               n=len(times["before"]), device=cupy.cuda.runtime.getDeviceProperties(0)["name"].decode())
    for k in MODES:
        rec[f"{k}_median_ms"] = float(np.median(times[k]))
        rec[f"{k}_min_ms"] = float(np.min(times[k]))
        rec[f"{k}_bfs_call_ms"] = float(np.median(calls[k]))
        rec[f"{k}_run_loop_ms"] = float(np.median(loop[k]))
    rec["ratio"] = rec["after_median_ms"] / rec["before_median_ms"]
    out.write(json.dumps(rec) + "\n"); out.flush(); print(json.dumps(rec), flush=True)
    for r in runners.values():
        r.engine = None
    g._cache.clear()
    E.release_resident()
