# Host wall per call (us, medians over 200 seeded sources x 3) of the pieces of at.run on one graph: engine.traverse,
# engine.timed_traverse (and its CUDA-event time), engine.bfs, at.run (and its results' elapsed_ms), and the CuPy
# calls on that path (a new array, empty_like, a row view, an event record). One JSON line, tagged.
#   python notebooks/experiments/loop_parts.py OUT.jsonl GRAPH_FILE TAG
import sys, time, json
import numpy as np, cupy
import autotune as at
from autotune.engine import get_engine
from autotune.measure import select_sources
g = at.load_graph(sys.argv[2]); cfg = at.tune(g)
srcs = [int(s) for s in select_sources(g, 200, seed=0)]
eng = get_engine(g, cfg)
for s in srcs: at.run(g, cfg, source=s)
def loop(f):
    ts = []
    for rep in range(3):
        cupy.cuda.runtime.deviceSynchronize()
        for s in srcs:
            t0 = time.perf_counter(); f(s); ts.append(time.perf_counter() - t0)
    return float(np.median(ts) * 1e6)
rec = dict(tag=sys.argv[3], resident=bool(eng.resident))
rec["traverse"] = loop(lambda s: eng.traverse(s))
el = []
rec["timed_traverse"] = loop(lambda s: el.append(eng.timed_traverse(s)[1]))
rec["timed_elapsed"] = float(np.median(el) * 1e3)
rec["bfs"] = loop(lambda s: eng.bfs(s))
el2 = []
rec["at_run"] = loop(lambda s: el2.append(at.run(g, cfg, source=s).elapsed_ms))
rec["at_run_elapsed"] = float(np.median(el2) * 1e3)
a = eng._dist_pred
rec["ndarray"] = loop(lambda s: cupy.ndarray(a.shape, a.dtype))
rec["empty_like"] = loop(lambda s: cupy.empty_like(a))
rec["view"] = loop(lambda s: a[0])
ev = cupy.cuda.Event()
rec["event_record"] = loop(lambda s: ev.record(eng.stream))
print(json.dumps(rec), flush=True)
open(sys.argv[1], "a").write(json.dumps(rec) + "\n")
