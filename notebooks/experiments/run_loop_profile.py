# Where a Python loop of at.run spends its host time on a resident (one-block) engine: per graph file of
# a folder, the median wall time per call of at.run (host graph and device graph), engine.bfs and
# engine.traverse (2,000 calls cycling over 16 sources), then a cProfile of 2,000 at.run calls on the
# host graph (the top 25 functions by own time; with --profile). One JSON line per graph, the profile printed.
#   python notebooks/experiments/run_loop_profile.py OUT.jsonl GRAPH_FOLDER [--profile]
import cProfile, glob, io, json, os, pstats, sys, time
import numpy as np
import cupy
import autotune as at
from autotune.measure import select_sources

out, folder = open(sys.argv[1], "a"), sys.argv[2]
N = 2000


def per_call(f, srcs):
    ts = []
    for i in range(N):
        t0 = time.perf_counter()
        f(srcs[i % len(srcs)])
        ts.append(time.perf_counter() - t0)
    return round(float(np.median(ts) * 1e6), 2)


for path in sorted(glob.glob(os.path.join(folder, "*.gz"))):
    g = at.load_graph(path, xp=np)
    gd = at.load_graph(path, xp=cupy)
    name = os.path.basename(path).split(".")[0]
    pick = at.tune(g)
    srcs = [int(s) for s in select_sources(g, 16, seed=0)]
    at.run(g, pick, srcs[0])
    eng = g._cache["engine"]
    rec = dict(graph=name, config=pick.label, resident=bool(getattr(eng, "resident", False)))
    rec["run_host_us"] = per_call(lambda s: at.run(g, pick, s), srcs)
    rec["bfs_us"] = per_call(lambda s: eng.bfs(s), srcs)
    rec["traverse_us"] = per_call(lambda s: eng.traverse(s), srcs)
    at.run(gd, pick, srcs[0])
    rec["run_device_us"] = per_call(lambda s: at.run(gd, pick, s), srcs)
    gd._cache.clear()
    out.write(json.dumps(rec) + "\n"); out.flush(); print(json.dumps(rec), flush=True)
    if "--profile" not in sys.argv[3:]:
        del eng
        g._cache.clear()
        continue
    pr = cProfile.Profile()
    pr.enable()
    for i in range(N):
        at.run(g, pick, srcs[i % 16])
    pr.disable()
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(25)
    print(s.getvalue()[:6000], flush=True)
    del eng, gd
    g._cache.clear()
