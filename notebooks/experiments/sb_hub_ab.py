# Single-block levels of hubs sent multi-block (kernels/traversal.cuh, at_sb_fits; autotune._engine.SB_HUB_DEGREE):
# modes = thresholds of the frontier's mean out-degree (0: off, the previous rule), alternated per pass with fresh
# engines on the same 16 sources, the first pass validated on the GPU; per graph x config the median over the
# passes' sources per mode. Configs: the fast path's pick and four single-block `train` configs.
#   MODES=0,64,16 REPS=3 python notebooks/experiments/sb_hub_ab.py OUT.jsonl SPEC...
import os, sys, warnings
warnings.simplefilter("ignore")
import autotune._engine as E
from _warm import ab_graphs
from autotune.sweep import training_set

MODES = [int(x) for x in os.environ.get("MODES", "0,64,16").split(",")]
REPS = int(os.environ.get("REPS", "3"))
TRAIN = {c.config_id: c for c in training_set()}
IDS = ["c-cd5a96f5f82c", "c-961cf3f89603", "c-e126535ebddc", "c-3cbd572c198f"]
ab_graphs(sys.argv[2:], lambda pick: {cid: TRAIN[cid] for cid in IDS if cid != pick.config_id}, MODES,
          lambda mode: setattr(E, "SB_HUB_DEGREE", mode), REPS, sys.argv[1],
          lambda: setattr(E, "SB_HUB_DEGREE", MODES[0]))
