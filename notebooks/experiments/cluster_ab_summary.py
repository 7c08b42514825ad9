# Summary of cluster_ab.py's JSON lines: per graph, the base (the mean of its runs), each variant's
# median and its ratio to the base, the cluster size / staged / pull it ran with, and GAP.
#   python notebooks/experiments/cluster_ab_summary.py AB.jsonl [AB.jsonl ...]
import json, sys
from collections import defaultdict

rows, gap, bad = defaultdict(lambda: defaultdict(list)), defaultdict(dict), []
for path in sys.argv[1:]:
    for line in open(path):
        r = json.loads(line)
        if r["part"] == "gap":
            gap[r["graph"]][r["threads"]] = r["ms"]
        elif r.get("valid"):
            rows[r["graph"]][r["label"]].append(r)
        else:
            bad.append(r)
for gname, labels in rows.items():
    base = sum(x["median_ms"] for x in labels["base"]) / max(1, len(labels["base"]))
    g = gap.get(gname, {})
    best_gap = min(g.values()) if g else None
    parts = [f"{gname[:26]:26s} base {base:8.4f}"]
    for label, recs in labels.items():
        if label == "base":
            continue
        r = recs[-1]
        parts.append(f"{label} {r['median_ms']:.4f} ({r['median_ms'] / base:.2f}x c{r['cluster']}"
                     f"{'s' if r['staged'] else ''}{'p' if r['pull'] else ''})")
    if best_gap:
        parts.append(f"GAP {best_gap} -> base {best_gap / base:.1f}x")
    print("  ".join(parts))
for r in bad:
    print("INVALID", r)
