# The whole-graph kernel's bit-matrix form against its CSR form (autotune._engine.WHOLE_GRAPH_BITS "auto" /
# "off"), both resident, in one process: every graph file of a folder with at most 1,344 vertices plus
# generated graphs of that size (a path, a 36 x 36 grid, sparse and dense random directed graphs, a star,
# Kronecker scale 10). Per graph and form: one engine (the fast path's pick), every result of a first pass
# over 16 sources checked against the CPU reference, then 2,000 calls cycling over the sources between CUDA
# events (engine.timed_traverse, the benchmarks' protocol), alternated in four rounds; the medians (us), and
# one traced traversal's levels. One JSON line per graph.
#   python notebooks/experiments/whole_graph_bits_ab.py OUT.jsonl [GRAPH_FOLDER]
# The bit-matrix form is not in the release (measured slower on sparse graphs, README "Small graphs"): apply
# notebooks/experiments/whole_graph_bits.patch first (git apply); it adds the kernels, the engine's switch and
# their GPU tests (tests/test_whole_graph_bits_gpu.py, 37 passed on an H200). Figures:
# notebooks/figures/whole_graph_bits_v2_h200.jsonl (the patch's form) and whole_graph_bits_v1_h200.jsonl (its
# first form: every thread scanned every frontier word, four a step, as 16-byte shared loads).
import glob, json, os, sys
import numpy as np
import cupy
import autotune as at
import autotune._engine as E
from autotune.engine import BFSEngine
from autotune.graph import from_edges
from autotune.generators import generate
from autotune.measure import select_sources
from autotune.reference import bfs_reference, validate_bfs

out = open(sys.argv[1], "a")
N = 2000
rng = np.random.default_rng(7)
graphs = []
for path in sorted(glob.glob(os.path.join(sys.argv[2], "*.gz"))) if len(sys.argv) > 2 else []:
    g = at.load_graph(path)
    if g.n_vertices <= 1344:
        graphs.append((os.path.basename(path).split(".")[0], g))
a = np.arange(1299)
graphs.append(("path1300", from_edges(a, a + 1, 1300, directed=False, name="path1300", xp=np)))
graphs.append(("grid36", generate("grid:rows=36,cols=36,drop=0", xp=np)))
graphs.append(("random1300_d4", from_edges(rng.integers(0, 1300, 5200), rng.integers(0, 1300, 5200), 1300,
                                           directed=True, name="random1300_d4", xp=np)))
graphs.append(("random1000_d40", from_edges(rng.integers(0, 1000, 40000), rng.integers(0, 1000, 40000), 1000,
                                            directed=True, name="random1000_d40", xp=np)))
s = np.zeros(1299, dtype=np.int64)
graphs.append(("star1300", from_edges(s, np.arange(1, 1300), 1300, directed=False, name="star1300", xp=np)))
graphs.append(("kron10", generate("kron:scale=10,edge_factor=16", xp=np)))

for name, g in graphs:
    pick = at.tune(g)
    srcs = [int(x) for x in select_sources(g, 16, seed=0)]
    refs = {s: bfs_reference(g, s)[0] for s in srcs}
    engines, times, valid, levels = {}, {}, {}, {}
    for form in ("bits", "csr"):
        E.WHOLE_GRAPH_BITS = "auto" if form == "bits" else "off"
        eng = engines[form] = BFSEngine(g, pick)
        times[form] = []
        try:
            for s in srcs:
                r = eng.bfs(s)
                validate_bfs(g, s, cupy.asnumpy(r.distances), cupy.asnumpy(r.predecessors), reference_distances=refs[s])
            valid[form] = True
        except Exception as e:  # noqa: BLE001 -- recorded
            valid[form] = str(e)[:200]
        r = eng.bfs(srcs[0], trace=True)
        levels[form] = [(lv.frontier_size, lv.direction, round(lv.us or 0.0, 3)) for lv in r.levels]
        engines[form] = (eng, dict(whole_graph=bool(eng.whole_graph), bits=bool(getattr(eng, "whole_graph_bits", False)),
                                   resident=bool(eng.resident)))
    E.WHOLE_GRAPH_BITS = "auto"
    for rep in range(4):
        for form in (("bits", "csr") if rep % 2 == 0 else ("csr", "bits")):
            eng = engines[form][0]
            times[form] += [eng.timed_traverse(srcs[i % 16])[1] for i in range(N // 4)]
    med = {f: float(np.median(v) * 1e3) for f, v in times.items()}
    rec = dict(graph=name, n_vertices=g.n_vertices, n_edges=g.n_edges, config=pick.label, valid=valid,
               engines={f: e[1] for f, e in engines.items()}, median_us=med, bits_over_csr=med["bits"] / med["csr"],
               levels=levels)
    out.write(json.dumps(rec) + "\n")
    out.flush()
    print(json.dumps({k: v for k, v in rec.items() if k != "levels"}), flush=True)
    del engines
    E.release_resident()
