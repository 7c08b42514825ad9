# The graphs and configs on which the direction calibration (autotune._engine.DIRECTION_CALIBRATION) can move
# the shipped BFS model's regret: every corpus graph whose leave-one-graph-out or leave-one-family-out pick, or
# whose best swept config, is a push/pull config (from the model's metadata, models/bfs_h200.json), with those
# configs and the push twins of the push/pull ones. Writes the targets JSON direction_calibration_eval.py reads.
#   python notebooks/experiments/direction_calibration_targets.py OUT.json
import json
import sys

from autotune.logs import read_log
from autotune.model import _buildable_records, _log_files, build_training_set
from autotune.sweep import parse_graph_entry, read_corpus

read = read_log(_log_files(["models/bfs_h200.jsonl.gz"]))
ts = build_training_set(_buildable_records(read), device="NVIDIA H200", warn=False)
meta = json.load(open("models/bfs_h200.json"))
entries = {}
for line in read_corpus("models/corpus_h200.txt"):
    e = parse_graph_entry(line).entry
    entries[e.split("shared:")[-1].split(".")[0] if e.startswith("shared:") else e] = line
pp = lambda c: ts.configs[c]["direction"] == "push_pull"
out = {}
for section, rows in (("logo", meta["cv"]["per_graph"]), ("lofo", meta["cv"]["lofo"]["per_graph"])):
    for r in rows:
        ids = {r["model"]["config_id"], r["best"]}
        if not any(pp(c) for c in ids):
            continue
        t = out.setdefault(r["name"], {"entry": entries[r["name"]], "family": r["family"], "best": r["best"],
                                       "configs": {}})
        t[section] = r["model"]["config_id"]
        for c in ids:
            t["configs"][c] = ts.configs[c]
from autotune.config import TraversalConfig

for t in out.values():
    for c in list(t["configs"]):
        if pp(c):
            twin = TraversalConfig(**{k: v for k, v in ts.configs[c].items() if v is not None}).with_(direction="push")
            t.setdefault("twins", {})[c] = twin.to_dict() if hasattr(twin, "to_dict") else twin.__dict__
json.dump(out, open(sys.argv[1], "w"), indent=1, sort_keys=True)
print(len(out), "graphs", sum(len(t["configs"]) + len(t.get("twins", {})) for t in out.values()), "measurements")
