# Does an idle resident kernel (autotune._engine.RESIDENT) slow other GPU work down? Engine A (resident,
# email-Eu-core's pick) traverses once before each call of engine B, so A's kernel is alive and polling
# its mailbox while B runs; B: the replayed whole-graph kernel (CollegeMsg, RESIDENT "off") and the launch
# rounds of a Kronecker graph of 2^16 vertices, single-block (shares the GPU with A) and persistent (asks
# A's kernel to return first, inside its timed call). B's time (CUDA events around engine.traverse, as the
# benchmarks time it; median of 400) with A released before each call, and with A alive under several
# polling settings (RESIDENT_NAP_NS: sleep between reads once RESIDENT_BUSY_US passed without a request).
#   python notebooks/experiments/resident_neighbour_probe.py OUT.jsonl GRAPH_FOLDER
import json, os, sys
import numpy as np
import autotune as at
import autotune._engine as E
from autotune.config import TraversalConfig
from autotune.engine import BFSEngine
from autotune.generators import generate
from autotune.measure import select_sources

out, folder = open(sys.argv[1], "a"), sys.argv[2]
ga = at.load_graph(os.path.join(folder, "email-Eu-core.txt.gz"))
E.RESIDENT = "auto"
A = BFSEngine(ga, at.tune(ga))
sa = [int(s) for s in select_sources(ga, 16, seed=0)]
E.RESIDENT = "off"
gb = at.load_graph(os.path.join(folder, "CollegeMsg.txt.gz"))
gk = generate("kron:scale=16,edge_factor=16")
sk = [int(s) for s in select_sources(gk, 16, seed=0)]
Bs = {"replayed whole-graph (CollegeMsg)": (BFSEngine(gb, at.tune(gb)), [int(s) for s in select_sources(gb, 16, seed=0)]),
      "launch rounds, single-block (kron 16)": (BFSEngine(gk, TraversalConfig(load_balance="binary_search",
                                                small_frontier="single_block", frontier_limit=2048)), sk),
      "launch rounds, persistent (kron 16)": (BFSEngine(gk, TraversalConfig(load_balance="edge_mapped",
                                              small_frontier="persistent", frontier_limit=8192)), sk)}
E.RESIDENT = "auto"
for name, (B, sb) in Bs.items():
    B.traverse(sb[0])
    res = {}
    for label, busy, nap in (("released", None, None), ("alive, no nap", 50.0, 0), ("alive, nap 500 ns", 0.0, 500),
                             ("alive, nap 2000 ns", 0.0, 2000), ("released again", None, None)):
        ts = []
        for i in range(400):
            if busy is not None:
                E.RESIDENT_BUSY_US, E.RESIDENT_NAP_NS = busy, nap
                if i == 0:
                    E.release_resident()  # the next launch takes the settings
            A.traverse(sa[i % 16])
            if busy is None:
                E.release_resident()
            ts.append(B.timed_traverse(sb[i % 16])[1] * 1e3)
        res[label] = float(np.median(ts))
        E.release_resident()
    rec = dict(b=name, **{k + "_us": v for k, v in res.items()})
    out.write(json.dumps(rec) + "\n"); out.flush(); print(json.dumps(rec), flush=True)
# A's own cost under each setting (wall clock per traversal, back to back and 0.2 ms apart)
import time
for busy, nap in ((50.0, 0), (0.0, 500), (0.0, 2000), (50.0, 2000)):
    E.RESIDENT_BUSY_US, E.RESIDENT_NAP_NS = busy, nap
    E.release_resident()
    A.traverse(sa[0])
    for gap in (0.0, 2e-4):
        ts = []
        for i in range(400):
            if gap:
                t = time.perf_counter() + gap
                while time.perf_counter() < t:
                    pass
            t0 = time.perf_counter()
            A.traverse(sa[i % 16])
            ts.append((time.perf_counter() - t0) * 1e6)
        rec = dict(a="email-Eu-core resident", busy_us=busy, nap_ns=nap, gap_ms=gap * 1e3, wall_us=float(np.median(ts)))
        out.write(json.dumps(rec) + "\n"); out.flush(); print(json.dumps(rec), flush=True)
