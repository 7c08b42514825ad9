# Single-block levels of hubs sent multi-block (kernels/traversal.cuh, at_sb_fits; autotune._engine.SB_HUB_DEGREE):
# modes = thresholds of the frontier's mean out-degree (0: off, the previous rule), alternated per pass with fresh
# engines on the same 16 sources, the first pass validated on the GPU; per graph x config the median over the
# passes' sources per mode. Configs: the fast path's pick and four single-block `train` configs.
#   MODES=0,64,16 REPS=3 python notebooks/experiments/sb_hub_ab.py OUT.jsonl SPEC...
import json, os, sys, time, warnings
warnings.simplefilter("ignore")
import numpy as np, cupy
import autotune as at
import autotune._engine as E
from autotune.measure import select_sources
from _warm import alternate_modes
from autotune.sweep import training_set

MODES = [int(x) for x in os.environ.get("MODES", "0,64,16").split(",")]
REPS = int(os.environ.get("REPS", "3"))
TRAIN = {c.config_id: c for c in training_set()}
IDS = ["c-cd5a96f5f82c", "c-961cf3f89603", "c-e126535ebddc", "c-3cbd572c198f"]
out = open(sys.argv[1], "a")
for spec in sys.argv[2:]:
    t0 = time.time()
    g = at.load_graph(spec)
    name = os.path.basename(spec).split(".")[0] if "/" in spec else spec
    srcs = select_sources(g, 16, seed=0)
    pick = at.tune(g)
    cfgs = {"pick": pick, **{cid: TRAIN[cid] for cid in IDS if cid != pick.config_id}}
    for label, cfg in cfgs.items():
        t, ok = alternate_modes(g, cfg, srcs, MODES, lambda mode: setattr(E, "SB_HUB_DEGREE", mode), REPS)
        rec = dict(graph=name[:70], n=g.n_vertices, m=g.n_edges, label=label, config=cfg.label,
                   med={str(k): float(np.median(v)) for k, v in t.items()}, valid=ok)
        print(json.dumps({k: rec[k] for k in ("graph", "label", "med")}), flush=True)
        out.write(json.dumps(rec) + "\n"); out.flush()
    E.SB_HUB_DEGREE = MODES[0]
    g._cache.pop("engine", None)
    del g; cupy.get_default_memory_pool().free_all_blocks()
    print("#", name[:50], round(time.time() - t0, 1), "s", flush=True)
