# Beamer's alpha below the `train` set's 15: the six push/pull `train` configs that are fastest on some corpus
# graph, each beside its alpha-4 twin, swept on the whole H200 corpus in three interleaved passes (README,
# "Retraining the model": what the bow-ties' worst case is made of). Resumable (the sweep's own log).
#   python notebooks/experiments/alpha_sweep.py OUT.jsonl [CORPUS]
import sys
from autotune.sweep import sweep, training_set

BASE = ["c-43e28f0644d3", "c-961cf3f89603", "c-e3d9efca9fca", "c-1848908916c0", "c-25717dde1374", "c-4af80fa3d9c2"]
train = {c.config_id: c for c in training_set()}
configs = []
for cid in BASE:
    configs += [train[cid], train[cid].with_(alpha=4)]
if __name__ == "__main__":
    res = sweep(None, configs=configs, out=sys.argv[1], corpus=sys.argv[2] if len(sys.argv) > 2 else "models/corpus_h200.txt",
                n_sources=16, validate_sources=1, validate_on_device=True, levels=256, rounds=3, baselines=False)
    print("measured", res.n_measured, "skipped", res.n_skipped, "invalid", res.n_invalid)
