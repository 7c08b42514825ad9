# README's "Fast path against a 60-trial search" table: for each graph file, the fast path's pick
# (at.tune(g): profile + the shipped model) and a 60-trial Optuna search's pick (at.tune(g, 60) from a
# fresh study in a temporary SQLite file), both then timed on the same 32 other sources (seed 1; the
# search ranked its trials on 16 sources of seed 0): one validating pass of each (untimed), then three
# timed passes alternating the two picks, the median of the 96 times of each. (Before
# fastpath_vs_search_noisy_h200.jsonl: the fast pick first, then the search's, each the better of its
# validating pass and one more, so the fast pick was timed first and colder.)
# One JSON line per graph, written as it is measured.
#   python notebooks/experiments/fastpath_vs_search.py OUT.jsonl GRAPH_FILE...
import json, os, sys, tempfile, time
import numpy as np
import autotune as at
from autotune.measure import GPURunner, measure, select_sources

out = open(sys.argv[1], "a")
for path in sys.argv[2:]:
    g = at.load_graph(path)
    name = os.path.basename(path).split(".")[0]
    t0 = time.perf_counter()
    fast = at.tune(g)
    t_fast = time.perf_counter() - t0
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        searched = at.tune(g, 60, storage=f"sqlite:///{tmp}/study.db", log=os.path.join(tmp, "log.jsonl"),
                           progress=False)
        t_search = time.perf_counter() - t0
    srcs = select_sources(g, 32, seed=1)
    picks = {"fast": fast, "search": searched}
    times = {label: [] for label in picks}
    for label, cfg in picks.items():  # a validating pass of each (untimed: its checks leave the L2 cold)
        g._cache.pop("engine", None)
        first = measure(GPURunner(g, cfg), srcs, warmup=1, validate=True)
        assert first.valid, first.error
    for rep in range(3):  # timed passes, the two picks alternated (the first in turn changes each pass)
        for label in (("fast", "search") if rep % 2 == 0 else ("search", "fast")):
            g._cache.pop("engine", None)
            times[label] += measure(GPURunner(g, picks[label]), srcs, warmup=1).times_ms
    ms = {label: float(np.median(t)) for label, t in times.items()}
    g._cache.pop("engine", None)
    rec = dict(graph=name, fast=fast.label, search=searched.label, fast_ms=ms["fast"], search_ms=ms["search"],
               t_fast_s=round(t_fast, 3), t_search_s=round(t_search, 3), ratio=ms["fast"] / ms["search"])
    out.write(json.dumps(rec) + "\n"); out.flush(); print(json.dumps(rec), flush=True)
