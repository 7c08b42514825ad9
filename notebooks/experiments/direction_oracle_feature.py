# An oracle check of the direction question for the selection model (CPU, the shipped log): add to every graph's
# profile the logged ratio of its best push/pull config's time to its best push config's time (what no profile
# can know) and re-run retrain's cross-validation (forest seed 0). On the shipped log the bow-tie of 1.5·10^6
# vertices keeps its leave-one-family-out pick (binary_search b256 push/pull single-block 2048, 1.273): the
# forest's neighbours for it, with the bow-ties held out, do not carry the push preference through this column
# either, so no feature of the profile would move that pick; the engine's direction calibration does
# (README, "Direction calibration").
#   python notebooks/experiments/direction_oracle_feature.py [LOG]
import dataclasses
import sys

import numpy as np

from autotune.logs import read_log
from autotune.model import _buildable_records, _log_files, build_training_set, evaluate

log = sys.argv[1] if len(sys.argv) > 1 else "models/bfs_h200.jsonl.gz"
ts = build_training_set(_buildable_records(read_log(_log_files([log]))), device="NVIDIA H200", warn=False)


def push_over_pull(i):
    t = ts.times[i]
    best = {d: min((v for c, v in t.items() if (ts.configs[c]["direction"] == "push") == (d == "push")),
                   default=np.inf) for d in ("push", "push_pull")}
    return np.log(best["push_pull"] / best["push"])


for oracle in (False, True):
    run = ts
    if oracle:
        col = np.array([push_over_pull(i) for i in range(ts.n_graphs)])
        run = dataclasses.replace(ts, X=np.column_stack([ts.X, col]),
                                  feature_names=tuple(ts.feature_names) + ("oracle",))
    cv = evaluate(run, None, label_tolerance=0.02, random_state=0)
    worst = sorted(cv["lofo"]["per_graph"], key=lambda r: -r["model"]["regret"])[:3]
    print("with the oracle column" if oracle else "profile only         ",
          "LOGO %.3f / %.3f" % (cv["regret"]["model"]["geomean"], cv["regret"]["model"]["worst"]),
          "LOFO %.3f / %.3f" % (cv["lofo"]["regret"]["model"]["geomean"], cv["lofo"]["regret"]["model"]["worst"]),
          "; worst LOFO:", ", ".join(f"{r['name'][:40]} {r['model']['regret']:.3f}" for r in worst))
