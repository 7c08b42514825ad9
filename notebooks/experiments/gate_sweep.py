# The pull gate (TraversalConfig.pull_gate = "beta": Beamer's push -> pull switch only on a frontier of at
# least n / beta vertices): the fast path's pick on soc-Slashdot0902 and the six push/pull `train` configs
# that are fastest on some corpus graph, each beside its gated twin, swept on the H200 corpus in three
# interleaved passes (the first validating on the GPU), as alpha_sweep.py did for alpha 4 (README,
# "Retraining the model"). Resumable (the sweep's own log).
#   python notebooks/experiments/gate_sweep.py OUT.jsonl [CORPUS]
import sys
from autotune.sweep import sweep, training_set

BASE = ["c-a8dd49cd5894", "c-43e28f0644d3", "c-961cf3f89603", "c-e3d9efca9fca", "c-1848908916c0", "c-25717dde1374", "c-4af80fa3d9c2"]
train = {c.config_id: c for c in training_set()}
configs = []
for cid in BASE:
    configs += [train[cid], train[cid].with_(pull_gate="beta")]
if __name__ == "__main__":
    res = sweep(None, configs=configs, out=sys.argv[1], corpus=sys.argv[2] if len(sys.argv) > 2 else "models/corpus_h200.txt",
                n_sources=16, validate_sources=1, validate_on_device=True, levels=256, rounds=3, baselines=False)
    print("measured", res.n_measured, "skipped", res.n_skipped, "invalid", res.n_invalid)
