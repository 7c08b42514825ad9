# The shipped BFS model's cross-validated picks on the 16 real graphs, charged with a re-sweep of those graphs
# in three interleaved passes (`autotune sweep --corpus <the corpus's shared: lines> --configs train --rounds 3
# --levels 256 ...`) instead of the one-pass sweep they were chosen and scored on. For each graph, the picks
# that models/bfs_h200.json's cross-validation recorded (leave-one-graph-out and leave-one-family-out) and its
# baselines (best fixed config of the folds, Table-2 rule; random: the mean over configs) are charged
# time / best time under the new log, one-launch configs pooled as in training (autotune.model).
#   python notebooks/experiments/real_rounds_regret.py models/bfs_h200.json ROUNDS_LOG.jsonl.gz
import json, math, sys
import numpy as np
from autotune.logs import read_log
from autotune.model import build_training_set

meta = json.load(open(sys.argv[1]))
ts = build_training_set(read_log(sys.argv[2]).records, warn=False)
idx = {g["fingerprint"]: i for i, g in enumerate(ts.graphs)}
cv = meta["cv"]
out = {"logo": {}, "lofo": {}}
for section, rows in (("logo", cv["per_graph"]), ("lofo", cv["lofo"]["per_graph"])):
    for row in rows:
        i = idx.get(row["fingerprint"])
        if i is None:
            continue
        best = ts.best(i)[1]
        rs = np.array([t / best for t in ts.times[i].values()])
        rec = {m: ts.regret(i, row[m]["config_id"])[0] for m in ("model", "best_fixed", "table2")}
        rec["random"] = float(rs.mean())
        rec["one_pass"] = row["model"]["regret"]
        out[section][row["name"]] = rec
for section in ("logo", "lofo"):
    rows = out[section]
    print(f"{section}: {len(rows)} real graphs")
    for m in ("model", "best_fixed", "table2", "random", "one_pass"):
        v = np.array([r[m] for r in rows.values()])
        print(f"  {m:10s} geomean {math.exp(np.log(v).mean()):.3f}  worst {v.max():.3f}  within 5% {np.mean(v <= 1.05):.0%}")
    for name, r in sorted(rows.items(), key=lambda kv: -kv[1]["model"]):
        print(f"    {name:24s} model {r['model']:.3f} (one-pass table {r['one_pass']:.3f})  best fixed {r['best_fixed']:.3f}"
              f"  table2 {r['table2']:.3f}")
