# A BFS model's cross-validated picks charged with re-sweeps in interleaved passes (`autotune sweep --rounds 3
# --configs train --levels 256 ...`) instead of the one-pass sweep they were chosen and scored on. The logs are
# read together (autotune.model.build_training_set): a config's records of the most interleaved passes supersede
# its one-pass ones, graphs not re-swept keep their one-pass times, one-launch configs are pooled as in training.
# For each graph, the picks that the model's metadata recorded (leave-one-graph-out and leave-one-family-out)
# and its baselines (best fixed config of the folds, Table-2 rule; random: the mean over configs of time / best)
# are charged time / best time; printed for every graph and for the real graphs alone, with the one-pass regret.
#   python notebooks/experiments/rounds_regret.py models/bfs_h200.json LOG.jsonl.gz [LOG ...] [--json OUT.json]
# README: the one-pass log, notebooks/figures/corpus_rounds3_h200.jsonl.gz, real_rounds3_h200.jsonl.gz and
# corpus_deep_rounds3_h200.jsonl.gz (every corpus graph charged with interleaved passes).
import json, math, sys
import numpy as np
from autotune.logs import read_log
from autotune.model import build_training_set, measure_rounds

args = sys.argv[1:]
out_json = None
if "--json" in args:
    k = args.index("--json")
    out_json = args[k + 1]
    del args[k:k + 2]
meta = json.load(open(args[0]))
records = [r for path in args[1:] for r in read_log(path).records]
interleaved = {r.fingerprint for r in records if measure_rounds(r.measure) > 1}
ts = build_training_set(records, warn=False)
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
        rec["real"] = ts.graphs[i]["family"].startswith("real")
        rec["interleaved"] = row["fingerprint"] in interleaved
        out[section][row["name"]] = rec
summary = {}
for section in ("logo", "lofo"):
    for subset in ("all", "real"):
        rows = {k: r for k, r in out[section].items() if subset == "all" or r["real"]}
        n_int = sum(r["interleaved"] for r in rows.values())
        print(f"{section}, {subset}: {len(rows)} graphs ({n_int} charged with interleaved passes)")
        for m in ("model", "best_fixed", "table2", "random", "one_pass"):
            v = np.array([r[m] for r in rows.values()])
            s = dict(geomean=math.exp(np.log(v).mean()), worst=float(v.max()), within_5pct=float(np.mean(v <= 1.05)))
            summary[f"{section}/{subset}/{m}"] = s
            print(f"  {m:10s} geomean {s['geomean']:.3f}  worst {s['worst']:.3f}  within 5% {s['within_5pct']:.0%}")
        for name, r in sorted(rows.items(), key=lambda kv: -kv[1]["model"])[:8]:
            print(f"    {name[:60]:60s} model {r['model']:.3f} (one-pass {r['one_pass']:.3f})  best fixed "
                  f"{r['best_fixed']:.3f}  table2 {r['table2']:.3f}")
if out_json:
    json.dump({"summary": summary, "per_graph": out}, open(out_json, "w"), indent=1)
