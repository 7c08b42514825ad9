# GPU check of `sweep(..., rounds=R)`: two small graphs x three configs, 3 interleaved passes, level traces;
# prints each record's rounds, per-pass medians and logged median.
#   python notebooks/experiments/rounds_smoke.py OUT.jsonl
import json, sys
from autotune.config import TraversalConfig
from autotune.sweep import sweep

cfgs = [TraversalConfig(), TraversalConfig(load_balance="binary_search"),
        TraversalConfig(load_balance="edge_mapped", small_frontier="persistent", frontier_limit=8192)]
res = sweep(["kron:scale=16,edge_factor=16", "grid:rows=300,cols=300"], cfgs, sys.argv[1], n_sources=16,
            progress=False, validate_sources=1, validate_on_device=True, levels=64, rounds=3)
for r in res.records:
    m = r.measure
    print(json.dumps(dict(graph=r.graph["name"], config=r.config_id, valid=r.valid, error=r.error,
                          rounds=m.get("rounds"), round_medians_ms=m.get("round_medians_ms"),
                          median_ms=m["median_ms"], n_levels=m.get("n_levels"))), flush=True)
