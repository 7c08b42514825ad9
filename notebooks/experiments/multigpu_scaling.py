# Multi-GPU BFS (autotune.distributed) on 1 and 2 GPUs of one host against the single-GPU engine, same run: for
# each generator spec, 8 seeded sources; the engine's fast-path pick (medians of two timed passes, CUDA events,
# after a warm-up pass whose distances are the reference), then bfs_multi_gpu_sources on devices (0,) and (0, 1)
# (ranks and NCCL set up once, one untimed warm-up; `elapsed_ms` the largest over the ranks), every source's
# distances compared with the engine's, the first source's tree checked by the CPU reference's Graph500 rules on
# the smallest spec. GTEPS: out-degrees of the reached vertices (directed edges) over the median time.
# One JSON line per spec and device set.
#   python notebooks/experiments/multigpu_scaling.py OUT.jsonl SPEC [SPEC ...]
# Not yet run: written on 2026-11-29 when `status` listed a two-GPU machine, which was no longer lent at the call.
import json, sys, time
import numpy as np
import cupy
import autotune as at
from autotune.distributed import bfs_multi_gpu_sources
from autotune.engine import get_engine
from autotune.generators import generate
from autotune.measure import select_sources
from autotune.reference import validate_bfs

out = open(sys.argv[1], "a")


def emit(**rec):
    out.write(json.dumps(rec) + "\n")
    out.flush()
    print(json.dumps(rec), flush=True)


for i, spec in enumerate(sys.argv[2:]):
    t0 = time.perf_counter()
    g = generate(spec, xp=np)
    t_gen = time.perf_counter() - t0
    srcs = [int(s) for s in select_sources(g, 8, seed=0)]
    deg = g.out_degrees(np)
    pick = at.tune(g)
    eng = get_engine(g, pick)
    ref, edges = {}, {}
    for s in srcs:
        d = cupy.asnumpy(eng.bfs(s).distances)
        ref[s], edges[s] = d, int(deg[d >= 0].sum())
    times = [eng.timed_traverse(s)[1] for _ in range(2) for s in srcs]
    ms = float(np.median(times))
    te = float(np.median([edges[s] for s in srcs]))
    emit(spec=spec, devices="engine", config=pick.label, median_ms=ms, gteps=te / ms / 1e6, n_vertices=g.n_vertices,
         n_edges=g.n_edges, gen_s=round(t_gen, 1))
    del eng
    g._cache.clear()
    cupy.get_default_memory_pool().free_all_blocks()
    for devs in ((0,), (0, 1)):
        t0 = time.perf_counter()
        res = bfs_multi_gpu_sources(g, srcs, devices=devs)
        wall = time.perf_counter() - t0
        exact = all(np.array_equal(np.asarray(d), ref[s]) for (d, _p, _info), s in zip(res, srcs))
        if i == 0:
            d0, p0, _ = res[0]
            validate_bfs(g, srcs[0], np.asarray(d0), np.asarray(p0), reference_distances=ref[srcs[0]])
        mms = [float(info["elapsed_ms"]) for _d, _p, info in res]
        m = float(np.median(mms))
        emit(spec=spec, devices=list(devs), median_ms=m, min_ms=min(mms), gteps=te / m / 1e6, exact=exact,
             tree_checked=i == 0, levels=int(res[0][2]["levels"]) if not isinstance(res[0][2]["levels"], list)
             else len(res[0][2]["levels"]), call_s=round(wall, 1), engine_over_this=ms / m)
