# Sweep of the pull exit (TraversalConfig.pull_exit = 0.5) over the H200 corpus: the four push/pull `train`
# configs most often best among push/pull configs on the shipped log (binary_search b256 single-block 2048, with
# and without hash culling; binary_search b256 persistent 8192; edge_mapped b512 hash single-block 2048), each
# with the exit and without it (re-timed in the same passes, so the twins' labels compare times of one process),
# with the shipped sweep's protocol: 16 sources, the first validated on the GPU, three interleaved passes, the
# per-level trace of one traversal.
#   python notebooks/experiments/pull_exit_sweep.py OUT.jsonl [CORPUS]
# Needs the pull exit, which is not in the release: `git apply notebooks/experiments/pull_exit.patch` first
# (README, "A pull exit, measured and not shipped").
import sys
from autotune.sweep import sweep, training_set

EXIT = 0.5
WANT = {"binary_search/chunk=dynamic/b256/push_pull(a15,b18)/sb2048",
        "binary_search/chunk=dynamic/b256/cull=hash/push_pull(a15,b18)/sb2048",
        "binary_search/chunk=dynamic/b256/push_pull(a15,b18)/persist8192",
        "edge_mapped/b512/cull=hash/push_pull(a15,b18)/sb2048"}


def exit_configs():
    bases = [c for c in training_set("bfs") if c.label in WANT]
    assert len(bases) == len(WANT), [c.label for c in bases]
    return bases + [c.with_(pull_exit=EXIT) for c in bases]


if __name__ == "__main__":
    out = sys.argv[1]
    corpus = sys.argv[2] if len(sys.argv) > 2 else "models/corpus_h200.txt"
    sweep(configs=exit_configs(), corpus=corpus, out=out, n_sources=16, validate_sources=1,
          validate_on_device=True, levels=256, rounds=3, progress=False)
