# The single-block hub rule with and without scan_mapped (autotune._engine.SB_HUB_TECHNIQUES): "with" is the
# previous release's tuple, "without" this release's. Per graph: the fast path's pick and the single-block
# scan_mapped `train` configs of frontier_limit 2048 (the ones the rule reached), alternated per pass with fresh
# engines on the same 16 sources, the first pass validated on the GPU; per graph x config the median over the
# passes' sources per mode.
#   REPS=3 python notebooks/experiments/sb_hub_scan_ab.py OUT.jsonl SPEC...
import os, sys, warnings
warnings.simplefilter("ignore")
import autotune._engine as E
from _warm import ab_graphs
from autotune.sweep import training_set

REPS = int(os.environ.get("REPS", "3"))
N_SCAN = int(os.environ.get("N_SCAN", "3"))
MODES = {"with_scan": ("binary_search", "edge_mapped", "scan_mapped"), "without_scan": E.SB_HUB_TECHNIQUES}
SCAN = [c for c in training_set() if c.load_balance == "scan_mapped" and c.small_frontier == "single_block"
        and c.frontier_limit > 512][:N_SCAN]
ab_graphs(sys.argv[2:], lambda pick: {c.config_id: c for c in SCAN if c.config_id != pick.config_id}, MODES,
          lambda mode: setattr(E, "SB_HUB_TECHNIQUES", MODES[mode]), REPS, sys.argv[1],
          lambda: setattr(E, "SB_HUB_TECHNIQUES", MODES["without_scan"]))
