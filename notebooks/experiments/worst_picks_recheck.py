# Are the shipped BFS model's worst picks real or sweep noise? For each graph in SPEC.json (written from
# models/bfs_h200.json: its best swept config and the configs the leave-one-graph-out and leave-one-family-out
# models picked), time those configs again on the sweep's 16 sources (seed 0), interleaved: 5 rounds, each
# config once per round (a fresh engine each time, as the sweep builds it), the order rotated every round;
# per config the median over the 16 sources in each round, then the median over the rounds.
#   python notebooks/experiments/worst_picks_recheck.py SPEC.json OUT.jsonl
import json, sys
import numpy as np
from autotune.measure import GPURunner, measure, select_sources
from autotune.sweep import _load, resolve_configs

spec = json.load(open(sys.argv[1]))
out = open(sys.argv[2], "a")
cfgs = {cid: resolve_configs([c])[0] for cid, c in spec["configs"].items()}
assert all(c.config_id == cid for cid, c in cfgs.items())
for gr in spec["graphs"]:
    g = _load(gr["spec"], False)
    srcs = select_sources(g, 16, seed=0)
    ids = list(gr["ids"])
    runners = {cid: GPURunner(g, cfgs[cid]) for cid in ids}
    for cid in ids:  # one validating pass each (untimed)
        m = measure(runners[cid], srcs, warmup=1, validate=True)
        assert m.valid, (gr["name"], cid, m.error)
    rounds = {cid: [] for cid in ids}
    for rnd in range(5):
        k = rnd % len(ids)
        for cid in ids[k:] + ids[:k]:
            m = measure(runners[cid], srcs, warmup=1)
            rounds[cid].append(float(np.median(m.times_ms)))
    med = {cid: float(np.median(v)) for cid, v in rounds.items()}
    rec = dict(graph=gr["name"], fingerprint=g.fingerprint, best=gr["best"], lofo=gr["lofo"], logo=gr["logo"],
               median_ms=med, rounds_ms=rounds,
               lofo_regret=med[gr["lofo"]] / med[gr["best"]], logo_regret=med[gr["logo"]] / med[gr["best"]])
    out.write(json.dumps(rec) + "\n"); out.flush(); print(json.dumps(rec), flush=True)
    g._cache.pop("engine", None)
