# The pull exit (TraversalConfig.pull_exit) measured in one run: on each graph, two push/pull `train` configs
# (binary_search b256 single-block 2048, the corpus's most frequent best; edge_mapped b512 hash single-block
# 2048) with pull_exit off, 0.25, 0.5 and 0.75, beside their push twins: a fresh engine per config, 16 seeded
# sources, one warm-up, three passes interleaved (config order reversed on odd passes), the first validated on
# the GPU (Graph500 checks); the median of the passes' times. Each record also has the directions of the
# levels of the first source (a traced traversal) and the pull levels' hit rates the exit sees.
#   python notebooks/experiments/pull_exit_probe.py OUT.jsonl SPEC...
# Needs the pull exit, which is not in the release: `git apply notebooks/experiments/pull_exit.patch` first
# (README, "A pull exit, measured and not shipped").
import json, sys, time
import numpy as np
import autotune as at
from autotune.engine import BFSEngine
from autotune.measure import GPURunner, measure, select_sources
from autotune.sweep import training_set

out = sys.argv[1]
# (load_balance, block_size, small_frontier, frontier_limit, duplicate_culling)
BASES = [("binary_search", 256, "single_block", 2048, "none"), ("edge_mapped", 512, "single_block", 2048, "hash")]
EXITS = ("off", 0.25, 0.5, 0.75)


def configs():
    out = []
    train = training_set("bfs")
    for want in BASES:
        for c in train:
            if (c.direction == "push_pull" and (c.load_balance, c.block_size, c.small_frontier, c.frontier_limit,
                                                c.duplicate_culling) == want
                    and c.chunk_size in (None, "dynamic") and c.pull_gate in (None, "off")):
                out.append(c.with_(direction="push"))
                out += [c.with_(pull_exit=e) for e in EXITS]
                break
    return out


with open(out, "a") as fh:
    for spec in sys.argv[2:]:
        t0 = time.time()
        g = at.load_graph(spec)
        srcs = [int(s) for s in select_sources(g, 16, seed=0)]
        cfgs = configs()
        runners = {c.config_id: GPURunner(g, c, on_device=True) for c in cfgs}
        times = {c.config_id: [] for c in cfgs}
        valid = {}
        for rep in range(3):
            for c in (cfgs if rep % 2 == 0 else cfgs[::-1]):
                m = measure(runners[c.config_id], srcs, warmup=1, validate=(rep == 0))
                if rep == 0:
                    valid[c.config_id] = bool(m.valid)
                times[c.config_id] += list(m.times_ms)
        for c in cfgs:
            res = BFSEngine(g, c).bfs(srcs[0], trace=True)
            dirs = "".join({"pull": "P", "push": "p"}.get(lv.direction, "s") for lv in res.levels)
            rec = dict(graph=spec[:80], config=c.label, config_id=c.config_id, median_ms=float(np.median(times[c.config_id])),
                       valid=valid[c.config_id], directions=dirs,
                       level_us=[None if lv.us is None else round(lv.us, 1) for lv in res.levels])
            fh.write(json.dumps(rec) + "\n"); fh.flush()
            print(json.dumps({k: rec[k] for k in ("graph", "config", "median_ms", "valid", "directions")}), flush=True)
        del runners
        print(spec[:60], f"{time.time() - t0:.1f} s", flush=True)
