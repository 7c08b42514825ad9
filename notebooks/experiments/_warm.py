# Shared by the call-floor probes: a graph file's fast-path engine, warmed on its 16 seeded sources.
import autotune as at
from autotune.engine import get_engine
from autotune.measure import select_sources


def warm_engine(path):
    """(graph, config, engine, sources) for *path*: the fast path's pick, every source traversed once."""
    g = at.load_graph(path)
    cfg = at.tune(g)
    eng = get_engine(g, cfg)
    srcs = [int(s) for s in select_sources(g, 16, seed=0)]
    for s in srcs:
        eng.traverse(s)
    return g, cfg, eng, srcs
