# Shared by the experiments: a graph file's fast-path engine warmed on its 16 seeded sources (the call-floor probes),
# and the alternated A/B timing of the hub-rule experiments (one config: alternate_modes; their per-graph loop: ab_graphs).
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


def alternate_modes(g, cfg, srcs, modes, apply, reps):
    """A/B timing shared by the hub-rule experiments: for each of *reps* passes, every mode of *modes*
    (in order on even passes, reversed on odd ones) is set by ``apply(mode)`` and timed with a fresh
    engine on *srcs*, the first pass validated on the GPU. Returns ``({mode: [ms, ...]}, {mode: True or
    the validation error})``."""
    from autotune.measure import GPURunner, measure

    t = {m: [] for m in modes}
    ok = {}
    for rep in range(reps):
        for mode in (list(modes) if rep % 2 == 0 else list(modes)[::-1]):
            apply(mode)
            g._cache.pop("engine", None)
            r = GPURunner(g, cfg, on_device=True)
            m = measure(r, srcs, warmup=1, validate=(rep == 0))
            if rep == 0:
                ok[mode] = bool(m.valid) or str(m.error)[:300]
            t[mode] += list(m.times_ms)
            del r
    return t, ok


def ab_graphs(specs, others, modes, apply, reps, out_path, reset):
    """The hub-rule experiments' loop: for each graph spec of *specs*, the fast path's pick and the configs
    ``others(pick)`` (``{label: config}``) each timed by :func:`alternate_modes` on 16 seeded sources; one JSON
    line per graph x config appended to *out_path* (graph, n, m, label, config, the median per mode, valid);
    ``reset()`` after each graph restores the shipped setting."""
    import json, os, time
    import cupy
    import numpy as np

    with open(out_path, "a") as out:
        for spec in specs:
            t0 = time.time()
            g = at.load_graph(spec)
            name = os.path.basename(spec).split(".")[0] if "/" in spec else spec
            srcs = select_sources(g, 16, seed=0)
            pick = at.tune(g)
            for label, cfg in {"pick": pick, **others(pick)}.items():
                t, ok = alternate_modes(g, cfg, srcs, modes, apply, reps)
                rec = dict(graph=name[:70], n=g.n_vertices, m=g.n_edges, label=label, config=cfg.label,
                           med={str(k): float(np.median(v)) for k, v in t.items()}, valid=ok)
                out.write(json.dumps(rec) + "\n"); out.flush()
                print(json.dumps({k: rec[k] for k in ("graph", "label", "med", "valid")}), flush=True)
            reset()
            g._cache.pop("engine", None)
            del g
            cupy.get_default_memory_pool().free_all_blocks()
            print(f"# {name[:50]}: {time.time() - t0:.1f} s", flush=True)
