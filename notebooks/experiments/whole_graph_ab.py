# Whole-graph kernel A/B in one process (notebooks/figures/whole_graph_pull_h200.jsonl and the other
# whole_graph_*_h200.jsonl): modes alternated per pass on the same engines' arguments and the same 16
# sources, the first pass validated on the GPU; one JSON line per graph (median ms per mode, the modes'
# whole-graph / staged / pull flags, the first source's level directions), GAP at 16 and 1 thread when
# GAP_DIR is given. Modes: auto (shipped), push, pull, pull:ALPHA:BETA[:SERIAL], off (launch rounds),
# oldpush / oldpull (the kernel of a previous commit, compiled from $OLD_KERNEL, e.g. `git show
# REV:kernels/whole_graph.cu` written to a file; its argument list without pull_serial).
#   MODES=oldpush,auto,push,pull REPS=3 [ANY=1: no edge limit] \
#   OLD_KERNEL=old/kernels/whole_graph.cu python notebooks/experiments/whole_graph_ab.py OUT.jsonl GAP_DIR|- SPEC...
import json, os, sys, time, warnings
warnings.simplefilter("ignore")
import numpy as np, cupy
import autotune as at
import autotune._engine as E
import autotune._kernels as K
from autotune.measure import GPURunner, measure, select_sources

if os.environ.get("ANY"):
    E.WHOLE_GRAPH_MAX_EDGES = 1 << 40
REPS = int(os.environ.get("REPS", "2"))
MODES = os.environ.get("MODES", "oldpush,oldpull,push,pull").split(",")
out = open(sys.argv[1], "a")
gap_dir = sys.argv[2]
_old = {}


def old_kernel(eid64, name):
    if (eid64, name) not in _old:
        mod = cupy.RawModule(code=open(os.environ.get("OLD_KERNEL", "old/kernels/whole_graph.cu")).read(), options=K._options(eid64),
                             name_expressions=[name])
        _old[eid64, name] = mod.get_function(name)
    return _old[eid64, name]


def runner(g, cfg, mode):
    parts = mode.split(":")
    E.WHOLE_GRAPH = "off" if mode == "off" else "auto"
    E.WHOLE_GRAPH_PULL = "auto" if parts[0] == "auto" else ("pull" in parts[0])
    E.WHOLE_GRAPH_ALPHA = int(parts[1]) if len(parts) > 1 else 15
    E.WHOLE_GRAPH_BETA = int(parts[2]) if len(parts) > 2 else 18
    E.WHOLE_GRAPH_PULL_SERIAL = int(parts[3]) if len(parts) > 3 else 8
    g._cache.pop("engine", None)
    r = GPURunner(g, cfg, on_device=True)
    r.prepare()
    r.prepare = lambda: None
    e = r.engine
    if mode.startswith("old") and e.whole_graph:
        name = f"whole_graph_levels<{E.WHOLE_GRAPH_EPT}, {str(e.whole_graph_staged).lower()}, BFSOp>"
        k = old_kernel(e.eid64, name)
        if e._wg_smem + int(k.shared_size_bytes) > 48 * 1024:
            k.max_dynamic_shared_size_bytes = e._wg_smem
        e._wg_kernel, e._wg_graph = k, None
        e._wg_args = e._wg_args[:7] + e._wg_args[8:]
    return r


for spec in sys.argv[3:]:
    t0 = time.time()
    g = at.load_graph(spec)
    name = spec.split("/")[-1].split(".")[0] if "/" in spec else spec
    srcs = select_sources(g, 16, seed=0)
    cfg = at.tune(g)
    t = {m: [] for m in MODES}; ok = {}; used = {}; lv = {}
    for rep in range(REPS):
        for mode in MODES:
            r = runner(g, cfg, mode)
            m = measure(r, srcs, warmup=1, validate=(rep == 0))
            if rep == 0:
                ok[mode] = bool(m.valid) or str(m.error)[:300]
                if not m.valid: print("INVALID", name, mode, str(m.error)[:1500], flush=True)
                used[mode] = [bool(r.engine.whole_graph), bool(getattr(r.engine, "whole_graph_staged", False)), bool(getattr(r.engine, "whole_graph_pull", False))]
                # directions of the first source's levels
                e = r.engine
                if e.whole_graph:
                    levels = e.traverse(int(srcs[0]))
                    lv[mode] = "".join("P" if x.direction == "pull" else "p" for x in e.level_trace(levels))
            t[mode] += list(m.times_ms)
            del r
    rec = dict(graph=name[:70], n=g.n_vertices, m=g.n_edges, label=cfg.label,
               med={k: float(np.median(v)) for k, v in t.items()}, valid=ok, used=used, dirs=lv)
    print(json.dumps({k: v for k, v in rec.items() if k not in ("valid", "dirs")}), flush=True)
    out.write(json.dumps(rec) + "\n"); out.flush()
    g._cache.pop("engine", None)
    if gap_dir != "-" and "/" in spec:
        from autotune.gap import gap_bfs
        for thr in (16, 1):
            gr = gap_bfs(g, gap_dir=gap_dir, n_trials=16, threads=thr, workdir="/tmp")
            rec = dict(part="gap", graph=name, threads=thr, ms=gr.best_ms)
            out.write(json.dumps(rec) + "\n"); out.flush(); print(json.dumps(rec), flush=True)
    del g; cupy.get_default_memory_pool().free_all_blocks()
    print("#", name[:50], round(time.time() - t0, 1), "s", flush=True)
