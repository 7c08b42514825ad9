# Where the host wait of a whole-graph traversal goes: the replay followed by (a) stream.synchronize() (shipped),
# (b) a spin on the pinned state word `iterations` (set to a sentinel before the replay) until the kernel's
# read-back overwrites it, then the time until stream.synchronize() returns after it; (c) engine.traverse.
# A probe only: the shipped kernel writes the state's eight words unordered, so a spin would need the last
# word written after a system fence. Medians of N calls per graph (README, "Small graphs"; H200).
#   python notebooks/experiments/spin_wait_probe.py OUT.jsonl GRAPH_FILE [GRAPH_FILE ...]
import json, os, sys, time
import numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _warm import warm_engine
out = open(sys.argv[1], "a")
N = 3000
pc = time.perf_counter
for path in sys.argv[2:]:
    g, cfg, eng, srcs = warm_engine(path)
    st = eng.stream
    G = eng._wg_graph
    rec = dict(graph=os.path.basename(path), whole_graph=bool(eng.whole_graph))
    words = eng._state_host.view(np.int32)   # iterations at int32 index 14
    a, b, c, t = [], [], [], []
    for i in range(N):
        eng._source_host[0] = srcs[i & 15]
        words[14] = -7
        t0 = pc(); G.launch(st); st.synchronize(); t1 = pc()
        a.append(t1 - t0)
    for i in range(N):
        eng._source_host[0] = srcs[i & 15]
        words[14] = -7
        t0 = pc(); G.launch(st)
        while words[14] == -7:
            pass
        t1 = pc(); st.synchronize(); t2 = pc()
        b.append(t1 - t0); c.append(t2 - t1)
    def trav(i): eng.traverse(srcs[i & 15])
    for i in range(N):
        t0 = pc(); trav(i); t.append(pc() - t0)
    rec.update(sync_us=float(np.median(a) * 1e6), spin_us=float(np.median(b) * 1e6),
               sync_after_spin_us=float(np.median(c) * 1e6), traverse_us=float(np.median(t) * 1e6),
               spin_p90_us=float(np.percentile(b, 90) * 1e6), sync_p90_us=float(np.percentile(a, 90) * 1e6))
    out.write(json.dumps(rec) + "\n"); out.flush(); print(json.dumps(rec), flush=True)
