# Regret of the shipped BFS model with the direction calibration (autotune._engine.DIRECTION_CALIBRATION): the
# 53 graphs of direction_calibration_targets_h200.json (a push/pull config among the leave-one-graph-out pick,
# the leave-one-family-out pick and the best swept config) are charged the times of direction_calibration_eval.py's
# run (pick / the fastest config measured on that graph in the same sweep), the other 86 the model's
# cross-validated regrets from its metadata (their pick and best are push configs or run a one-launch kernel,
# the same code with the calibration on or off). Prints the table for the calibration on ("auto") and, for the
# same graphs re-timed in the same run, off.
#   python notebooks/experiments/direction_calibration_regret.py [AUTO.jsonl.gz OFF.jsonl.gz]
import gzip
import json
import sys

import numpy as np

from autotune.config import TraversalConfig

FIG = "notebooks/figures/"
meta = json.load(open("models/bfs_h200.json"))
targets = json.load(open(FIG + "direction_calibration_targets_h200.json"))
logs = sys.argv[1:3] or [FIG + "direction_calibration_auto_h200.jsonl.gz",
                         FIG + "direction_calibration_off_h200.jsonl.gz"]


def label(d):
    return TraversalConfig(**{k: v for k, v in d.items() if v is not None}).label


def medians(path):
    out = {}
    for line in gzip.open(path, "rt"):
        r = json.loads(line)
        assert r["valid"], r["graph"]["name"]
        out.setdefault(r["graph"]["name"], {})[label(r["config"])] = r["measure"]["median_ms"]
    return out


def summary(x):
    x = np.asarray(x)
    return f"geomean {np.exp(np.log(x).mean()):.3f} worst {x.max():.3f} within 5 % {100 * np.mean(x <= 1.05):.0f} %"


for mode, path in zip(("on (auto)", "off"), logs):
    m = medians(path)
    for section, rows in (("LOGO", meta["cv"]["per_graph"]), ("LOFO", meta["cv"]["lofo"]["per_graph"])):
        key = section.lower()
        allr, real, worst = [], [], []
        for r in rows:
            name = r["name"]
            t = targets.get(name)
            if t is not None and key in t:
                times = m[name]
                reg = times[label(t["configs"][t[key]])] / min(times.values())
            else:
                reg = r["model"]["regret"]
            allr.append(reg)
            worst.append((reg, name))
            if r["family"].startswith("real-"):
                real.append(reg)
        top = ", ".join(f"{n[:40]} {v:.3f}" for v, n in sorted(worst, reverse=True)[:3])
        print(f"calibration {mode:9s} {section} corpus ({len(allr)}): {summary(allr)}; real ({len(real)}): "
              f"{summary(real)}; worst: {top}")
