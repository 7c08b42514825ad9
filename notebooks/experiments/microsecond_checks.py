# The "Microsecond BFS" figures besides GAP, with the current release (README, "Many sources at once" and
# the loop figures before it). One JSON line per measurement, written as it is measured.
#   loop:      a Python loop of at.run over 200 seeded sources of each --loop graph (the fast path's pick,
#              the engine built and warmed first), host wall time per call, three loops, against the calls'
#              own device time (the results' elapsed_ms: CUDA events around the traversal, host wait
#              included; a resident engine's, host wall around its request and answer): the issue asks
#              per call <= device time + 0.05 ms. Beside it, a loop of engine.timed_traverse on the same
#              sources (no result copy: the bare traversal).
#   batch:     1,024 seeded sources of each --batch graph in ONE at.run(g, sources=...) call with
#              at.tune_batch's pick (best of 3 calls, host wall, the distance matrix returned: NumPy for a
#              file's graph, so its copy to the host is timed too), against 1,024
#              single-source at.run calls of the fast path's pick (host wall, one loop); the first batch
#              result checked row by row against the single-source distances.
#   closeness: at.closeness_centrality of every vertex of the undirected --closeness graph (host wall, the kernels
#              compiled by a first call on 1,024 sources), 64 of its values checked against single-source
#              BFS distances; projected single-source loop time (the batch part's per-call time x n).
#   python notebooks/experiments/microsecond_checks.py OUT.jsonl [--loop F ...] [--batch F ...] [--closeness F]
import argparse, json, os, time
import numpy as np
import cupy
import autotune as at
from autotune.engine import get_engine
from autotune.measure import select_sources

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--loop", nargs="*", default=[])
ap.add_argument("--batch", nargs="*", default=[])
ap.add_argument("--closeness", default=None)
args = ap.parse_args()
out = open(args.out, "a")
single_ms = {}


def emit(**rec):
    out.write(json.dumps(rec) + "\n")
    out.flush()
    print(json.dumps(rec)[:300], flush=True)


def name(path):
    return os.path.basename(path).split(".")[0]


for path in args.loop:
    g = at.load_graph(path)
    cfg = at.tune(g)
    srcs = [int(s) for s in select_sources(g, 200, seed=0)]
    eng = get_engine(g, cfg)
    for s in srcs:  # build and warm: captures, calibrations, the resident kernel's launch
        at.run(g, cfg, source=s)
    for rep in range(3):
        cupy.cuda.runtime.deviceSynchronize()
        t0 = time.perf_counter()
        calls = [at.run(g, cfg, source=s).elapsed_ms for s in srcs]
        per_call = (time.perf_counter() - t0) * 1e3 / len(srcs)
        dev = [eng.timed_traverse(s)[1] for s in srcs]
        emit(part="loop", graph=name(path), config=cfg.label, rep=rep, per_call_ms=per_call,
             call_ms_mean=float(np.mean(calls)), host_overhead_ms=per_call - float(np.mean(calls)),
             traverse_ms_mean=float(np.mean(dev)), traverse_ms_median=float(np.median(dev)),
             resident=bool(getattr(eng, "resident", False)))

for path in args.batch:
    g = at.load_graph(path)
    cfg = at.tune(g)
    srcs = np.asarray(select_sources(g, 1024, seed=0), dtype=np.int64)
    for s in srcs[:16]:
        at.run(g, cfg, source=int(s))  # warm
    cupy.cuda.runtime.deviceSynchronize()
    t0 = time.perf_counter()
    single = [at.run(g, cfg, source=int(s)) for s in srcs]
    cupy.cuda.runtime.deviceSynchronize()
    single_total = (time.perf_counter() - t0) * 1e3
    single_ms[path] = single_total / len(srcs)
    emit(part="single_loop_1024", graph=name(path), config=cfg.label, total_ms=single_total,
         per_source_ms=single_ms[path])
    best, table = at.tune_batch(g, 1024)
    for bc, ms in table:
        emit(part="batch_cfg", graph=name(path), config=bc.config_id,
             ms_per_source=ms)
    walls = []
    for rep in range(3):
        cupy.cuda.runtime.deviceSynchronize()
        t0 = time.perf_counter()
        res = at.run(g, sources=srcs, batch=best)
        d = res.distances
        cupy.cuda.runtime.deviceSynchronize()
        walls.append((time.perf_counter() - t0) * 1e3)
        if rep == 0:  # every row against the single-source result (-1 = unreached in both)
            dm = cupy.asnumpy(d).astype(np.int64)
            ok = all(np.array_equal(dm[i], cupy.asnumpy(single[i].distances).astype(np.int64))
                     for i in range(len(srcs)))
    wall = min(walls)
    emit(part="batch", graph=name(path), config=best.config_id, device_ms=res.elapsed_ms,
         wall_ms=wall, walls_ms=walls, per_source_ms=wall / len(srcs), speedup_vs_single=single_total / wall,
         dtype=str(d.dtype), equal_to_single=bool(ok))

if args.closeness:
    path = args.closeness
    g = at.load_graph(path)
    assert not g.directed, "the closeness check below needs an undirected graph"
    n = g.n_vertices
    at.closeness_centrality(g, sources=np.arange(min(1024, n)))  # compile, warm
    cupy.cuda.runtime.deviceSynchronize()
    t0 = time.perf_counter()
    c = np.asarray(at.closeness_centrality(g))
    wall_s = time.perf_counter() - t0
    rng = np.random.default_rng(0)
    check = rng.choice(n, size=min(64, n), replace=False)
    cfg = at.tune(g)
    bad = 0
    for v in check:  # closeness reads in-distances: on an undirected graph, the BFS's from v
        dist = cupy.asnumpy(at.run(g, cfg, source=int(v)).distances).astype(np.int64)
        reach = dist >= 0
        r, s = int(reach.sum()), int(dist[reach].sum())
        want = 0.0 if s == 0 else (r - 1) / s * (r - 1) / (n - 1)
        bad += not np.isclose(c[v], want, rtol=1e-12, atol=0)
    emit(part="closeness", graph=name(path), n_vertices=n, wall_s=wall_s, directed=bool(g.directed),
         checked=int(len(check)), mismatches=int(bad),
         projected_single_loop_s=(single_ms.get(path, float("nan")) * n / 1e3))
