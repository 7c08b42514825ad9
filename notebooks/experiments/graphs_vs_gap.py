# README's "vs GAP" tables (notebooks/figures/graphs_vs_gap_wholegraph_h200.jsonl): every graph file of a
# folder plus Kronecker scale 22 and the 2048 x 2048 grid; the fast path's pick (at.tune) timed as a loop of
# calls would see it -- one pass over 16 sources validating every result on the GPU (untimed: its checks
# leave the next traversal a cold L2; its median is recorded beside), then 3 timed passes, median of the
# 48 (device time including the host wait, CUDA events around each call) -- against GAP's BFS on the same
# CSR at 16 and at 1 thread, two ways: part "gap_same_sources" is the protocol of autotune.bench.GapPeer -- GAP
# on the same 16 sources, one process per source (-r SOURCE -n 2: a warm-up trial, then the timed trial, its
# "Trial Time"), the median over the sources (GapPeer itself is not called: it also finds each source's reach with
# the CPU reference, minutes on Kronecker scale 22); part "gap" is GAP's own "Average Time" over 16 trials from
# sources GAP draws itself (-n 16; what the tables before the gap-fill model reported, there miscalled "best of
# 16 trials"). Beside the protocol's median, `wall_median_ms`: 3 more passes timed by time.perf_counter around
# engine.traverse alone (no events, no outcome read), the kind of time GAP's Trial Time is. One JSON line per graph
# and per GAP run. --retime-after-gap: after a graph's GAP runs, a fresh engine is timed again the same way
# (part "single_after_gap"), so every graph has a GPU time taken right after its 34 GAP processes as well as one
# taken before them (the next graph's first timing follows this graph's GAP runs either way).
#   python notebooks/experiments/graphs_vs_gap.py GAP_DIR OUT.jsonl GRAPH_FOLDER [--files-only] [--retime-after-gap]
import glob, json, os, sys, time
import numpy as np
import cupy
import autotune as at
import tempfile
from autotune.bench import _timed_trial
from autotune.gap import gap_bfs, write_sg
from autotune.generators import generate
from autotune.measure import GPURunner, measure, select_sources


def time_gpu(g, pick, srcs):
    """The protocol's median (3 timed passes after a validating one) and the host-wall median."""
    r = GPURunner(g, pick)
    times, vtimes = [], []
    for rep in range(4):  # pass 0 validates every source (untimed), passes 1-3 are timed
        m = measure(r, srcs, warmup=1, validate=(rep == 0))
        assert m.valid, m.error
        if rep == 0:
            vtimes = list(m.times_ms)
        else:
            times += m.times_ms
    wall = []  # host wall time around each call (time.perf_counter, no events, no outcome read): GAP's Trial Time's kind
    for rep in range(3):
        for s in srcs:
            t0 = time.perf_counter()
            r.engine.traverse(int(s))
            wall.append((time.perf_counter() - t0) * 1e3)
    r.engine = None
    g._cache.pop("engine", None)
    return times, vtimes, wall


gap_dir, out, folder = sys.argv[1], open(sys.argv[2], "a"), sys.argv[3]
graphs = sorted(glob.glob(os.path.join(folder, "*.gz")))
if "--files-only" not in sys.argv[4:]:  # (--files-only: the folder's graphs, not the two generated ones)
    graphs += ["kron:scale=22,edge_factor=16", "grid:rows=2048,cols=2048,drop=0.1"]
for spec in graphs:
    g = generate(spec, xp=cupy) if not spec.endswith(".gz") else at.load_graph(spec)
    name = spec.split("/")[-1].split(".")[0] if spec.endswith(".gz") else spec
    t0 = time.perf_counter()
    pick = at.tune(g)
    t_tune = time.perf_counter() - t0
    srcs = select_sources(g, 16, seed=0)
    times, vtimes, wall = time_gpu(g, pick, srcs)
    rec = dict(part="single", graph=name, label="tuned", config=pick.label, median_ms=float(np.median(times)),
               wall_median_ms=float(np.median(wall)),
               min_ms=float(np.min(times)), n=len(times), validated_pass_median_ms=float(np.median(vtimes)),
               n_vertices=g.n_vertices, n_edges=g.n_edges, tune_s=round(t_tune, 3), validated=True)
    out.write(json.dumps(rec) + "\n"); out.flush(); print(json.dumps(rec), flush=True)
    with tempfile.TemporaryDirectory(prefix="gap-", dir="/tmp") as tmp:
        path = write_sg(g, os.path.join(tmp, "graph.sg"))
        for thr in (16, 1):
            per_source = [_timed_trial(gap_bfs(path, gap_dir=gap_dir, n_trials=2, threads=thr, source=int(s)), None)
                          for s in srcs]
            rec = dict(part="gap_same_sources", graph=name, threads=thr, ms=float(np.median(per_source)),
                       times_ms=per_source)
            out.write(json.dumps(rec) + "\n"); out.flush(); print(json.dumps(rec), flush=True)
            gr = gap_bfs(path, gap_dir=gap_dir, n_trials=16, threads=thr)
            rec = dict(part="gap", graph=name, threads=thr, ms=gr.best_ms, trials_ms=gr.trial_ms.get(None))
            out.write(json.dumps(rec) + "\n"); out.flush(); print(json.dumps(rec), flush=True)
    if "--retime-after-gap" in sys.argv[4:]:
        times, vtimes, wall = time_gpu(g, pick, srcs)
        rec = dict(part="single_after_gap", graph=name, label="tuned", config=pick.label,
                   median_ms=float(np.median(times)), wall_median_ms=float(np.median(wall)), min_ms=float(np.min(times)),
                   n=len(times), validated_pass_median_ms=float(np.median(vtimes)), validated=True)
        out.write(json.dumps(rec) + "\n"); out.flush(); print(json.dumps(rec), flush=True)
    del g
    cupy.get_default_memory_pool().free_all_blocks()
