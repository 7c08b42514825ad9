# The single-block hub rule with and without scan_mapped (autotune._engine.SB_HUB_TECHNIQUES): "with" is the
# previous release's tuple, "without" this release's. Per graph: the fast path's pick and the single-block
# scan_mapped `train` configs of frontier_limit 2048 (the ones the rule reached), alternated per pass with fresh
# engines on the same 16 sources, the first pass validated on the GPU; per graph x config the median over the
# passes' sources per mode.
#   REPS=3 python notebooks/experiments/sb_hub_scan_ab.py OUT.jsonl SPEC...
import json, os, sys, time, warnings
warnings.simplefilter("ignore")
import numpy as np
import autotune as at
import autotune._engine as E
from autotune.measure import select_sources
from _warm import alternate_modes
from autotune.sweep import training_set

REPS = int(os.environ.get("REPS", "3"))
N_SCAN = int(os.environ.get("N_SCAN", "3"))
MODES = {"with_scan": ("binary_search", "edge_mapped", "scan_mapped"), "without_scan": E.SB_HUB_TECHNIQUES}
SCAN = [c for c in training_set() if c.load_balance == "scan_mapped" and c.small_frontier == "single_block"
        and c.frontier_limit > 512][:N_SCAN]
out = open(sys.argv[1], "a")
for spec in sys.argv[2:]:
    t0 = time.time()
    g = at.load_graph(spec)
    name = os.path.basename(spec).split(".")[0] if "/" in spec else spec
    srcs = select_sources(g, 16, seed=0)
    pick = at.tune(g)
    cfgs = {"pick": pick, **{c.config_id: c for c in SCAN if c.config_id != pick.config_id}}
    for label, cfg in cfgs.items():
        t, ok = alternate_modes(g, cfg, srcs, MODES,
                                lambda mode: setattr(E, "SB_HUB_TECHNIQUES", MODES[mode]), REPS)
        rec = dict(graph=name[:70], n=g.n_vertices, m=g.n_edges, label=label, config=cfg.label,
                   med={k: float(np.median(v)) for k, v in t.items()}, valid=ok)
        out.write(json.dumps(rec) + "\n"); out.flush()
        print(json.dumps({k: rec[k] for k in ("graph", "label", "med", "valid")}), flush=True)
    E.SB_HUB_TECHNIQUES = MODES["without_scan"]
    print(f"# {name}: {time.time() - t0:.1f} s", flush=True)
