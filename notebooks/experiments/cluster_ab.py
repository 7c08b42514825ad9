# The cluster kernel (kernels/cluster_graph.cu) against the release's paths, one process, same sources:
# every graph file of a folder plus Kronecker scale 22 and the 2048 x 2048 grid; the fast path's pick
# (at.tune) built with the cluster kernel off (the launch rounds, or the one-block kernel on graphs it
# takes), then with it (16 or 8 blocks, pull levels auto / off / on; graphs the one-block kernel takes
# also with that kernel's limit at 0), in the order base / variants / base again, each a fresh engine:
# one pass over 16 sources validating every result on the GPU (untimed), then 3 timed passes, median
# of the 48 (device time including the host wait, CUDA events around each call); GAP's BFS on the same
# CSR at 16 and at 1 thread (best of 16 trials). One JSON line per measurement.
#   python notebooks/experiments/cluster_ab.py GAP_DIR OUT.jsonl GRAPH_FOLDER [--variants base,c16,...]
#       [--specs "SPEC;SPEC"] [--in-range]   (GAP_DIR "-": no GAP; --in-range: only graphs the kernel may take)
# The resident cluster kernel (autotune._engine.RESIDENT): "on" and "default" run it where the device maps
# pinned host memory, "on_replayed" and "default_replayed" replay the one-kernel CUDA graph per traversal
# (the cluster's path before it; RESIDENT = "off" changes nothing else on graphs past the one-block kernel).
# "serial4" / "serial8" / "serial16" / "serial32": the one-block kernel's pull levels with WHOLE_GRAPH_PULL_SERIAL at
# 4 / 8 / 16 / 32 (the release: 32; 8 before d46b00e's successor).
import argparse, glob, json, os, sys, time
import numpy as np
import cupy
import autotune as at
import autotune._engine as E
from autotune.gap import gap_bfs
from autotune.generators import generate
from autotune.measure import GPURunner, measure, select_sources

ap = argparse.ArgumentParser()
ap.add_argument("gap_dir")
ap.add_argument("out")
ap.add_argument("folder")
ap.add_argument("--variants", default=None)
ap.add_argument("--specs", default="kron:scale=22,edge_factor=16;grid:rows=2048,cols=2048,drop=0.1")
ap.add_argument("--in-range", action="store_true")
args = ap.parse_args()
gap_dir, out = args.gap_dir, open(args.out, "a")
only = args.variants.split(",") if args.variants else None
graphs = (sorted(glob.glob(os.path.join(args.folder, "*.gz"))) if args.folder != "-" else []) + \
    [x for x in args.specs.split(";") if x]
DEFAULTS = {k: getattr(E, k) for k in ("CLUSTER", "CLUSTER_SIZE", "CLUSTER_MAX_EDGES", "CLUSTER_MAX_VERTICES",
                                       "CLUSTER_PULL", "WHOLE_GRAPH_MAX_EDGES", "RESIDENT", "WHOLE_GRAPH_PULL_SERIAL")}
LIFT = dict(CLUSTER="on", CLUSTER_MAX_EDGES=1 << 40)
VARIANTS = {
    "base": dict(CLUSTER="off"),
    "c16": dict(LIFT, CLUSTER_SIZE=16, CLUSTER_PULL="auto"),
    "c16_push": dict(LIFT, CLUSTER_SIZE=16, CLUSTER_PULL=False),
    "c16_pull": dict(LIFT, CLUSTER_SIZE=16, CLUSTER_PULL=True),
    "c8": dict(LIFT, CLUSTER_SIZE=8, CLUSTER_PULL="auto"),
    "on": dict(CLUSTER="on"),  # wherever it fits, no calibration
    "on_replayed": dict(CLUSTER="on", RESIDENT="off"),
    "default": {},  # the shipped settings (CLUSTER = "auto": calibrated against the launch rounds)
    "default_replayed": dict(RESIDENT="off"),
    # in-edges a thread of the one-block kernel's pull levels scans alone before its warp takes the rest
    "serial4": dict(WHOLE_GRAPH_PULL_SERIAL=4),
    "serial8": dict(WHOLE_GRAPH_PULL_SERIAL=8),
    "serial16": dict(WHOLE_GRAPH_PULL_SERIAL=16),
    "serial32": dict(WHOLE_GRAPH_PULL_SERIAL=32),
}


def emit(rec):
    out.write(json.dumps(rec) + "\n")
    out.flush()
    print(json.dumps(rec), flush=True)


def timed(g, pick, srcs, name, label, settings):
    for k, v in DEFAULTS.items():
        setattr(E, k, v)
    for k, v in settings.items():
        setattr(E, k, v)
    r = GPURunner(g, pick)
    r.prepare()
    eng = r.engine
    times, vtimes = [], []
    for rep in range(4):
        m = measure(r, srcs, warmup=1, validate=(rep == 0))
        if not m.valid:
            emit(dict(part="ab", graph=name, label=label, valid=False, error=str(m.error)[:500]))
            return None
        (vtimes if rep == 0 else times).extend(m.times_ms)
    rec = dict(part="ab", graph=name, label=label, config=pick.label, median_ms=float(np.median(times)),
               min_ms=float(np.min(times)), validated_pass_median_ms=float(np.median(vtimes)), n=len(times),
               cluster=int(getattr(eng, "cluster_size", 0)), whole_graph=bool(eng.whole_graph),
               staged=bool(eng.whole_graph_staged), pull=bool(eng.whole_graph_pull), valid=True,
               resident=bool(getattr(eng, "resident", False)),
               calibration=getattr(eng, "cluster_calibration", None))
    if eng.whole_graph:  # one traced traversal from the median-time source: where the time goes
        res = eng.bfs(int(srcs[len(srcs) // 2]), trace=True)
        lv = res.levels
        rec["trace"] = dict(levels=len(lv), us=round(sum(x.us for x in lv), 1),
                            pull_levels=sum(x.direction == "pull" for x in lv),
                            top=[(x.frontier_size, x.direction, round(x.us, 2)) for x in sorted(lv, key=lambda x: -x.us)[:4]])
    emit(rec)
    eng = r.engine = None
    g._cache.pop("engine", None)
    return rec


for spec in graphs:
    g = generate(spec, xp=cupy) if not spec.endswith(".gz") else at.load_graph(spec)
    name = spec.split("/")[-1].split(".")[0] if spec.endswith(".gz") else spec
    pick = at.tune(g)
    srcs = select_sources(g, 16, seed=0)
    n, m = g.n_vertices, g.n_edges
    if args.in_range and not (DEFAULTS["WHOLE_GRAPH_MAX_EDGES"] < m <= 1 << 20 and n <= DEFAULTS["CLUSTER_MAX_VERTICES"]):
        continue
    labels = ["base"]
    if n <= DEFAULTS["CLUSTER_MAX_VERTICES"]:
        labels += ["c16", "c16_push", "c16_pull", "c8", "on_replayed", "on"]
    labels += ["default_replayed", "default", "serial4", "serial8", "serial16", "serial32", "base"]
    for label in labels:
        if only and label not in only:
            continue
        settings = dict(VARIANTS[label])
        if label.startswith("c") and m <= DEFAULTS["WHOLE_GRAPH_MAX_EDGES"]:
            settings["WHOLE_GRAPH_MAX_EDGES"] = 0  # against the one-block kernel
        t0 = time.perf_counter()
        try:
            timed(g, pick, srcs, name, label, settings)
        except Exception as exc:  # noqa: BLE001 -- recorded, the run goes on
            emit(dict(part="ab", graph=name, label=label, valid=False, error=f"{type(exc).__name__}: {exc}"[:500]))
    for k, v in DEFAULTS.items():
        setattr(E, k, v)
    if gap_dir != "-":
        for thr in (16, 1):
            gr = gap_bfs(g, gap_dir=gap_dir, n_trials=16, threads=thr, workdir="/tmp")
            emit(dict(part="gap", graph=name, threads=thr, ms=gr.best_ms, n_vertices=n, n_edges=m))
    del g
    cupy.get_default_memory_pool().free_all_blocks()
