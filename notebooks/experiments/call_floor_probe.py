# Where a small graph's call goes (README, "Small graphs"): wall per call of engine.traverse, the bare graph replay
# + wait, the replay alone (enqueue), the replay's GPU span (events), an empty graph, a direct kernel launch.
#   python notebooks/experiments/call_floor_probe.py OUT.jsonl GRAPH_FILE [GRAPH_FILE ...]
import json, os, sys, time
import numpy as np, cupy
import autotune as at
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _warm import warm_engine
out = open(sys.argv[1], "a")
N = 2000
def wall(fn, n=N):
    ts = []
    for _ in range(n):
        t0 = time.perf_counter(); fn(); ts.append(time.perf_counter() - t0)
    return float(np.median(ts) * 1e6)
for path in sys.argv[2:]:
    g, cfg, eng, srcs = warm_engine(path)
    rec = dict(graph=os.path.basename(path), whole_graph=bool(eng.whole_graph), n=g.n_vertices, m=g.n_edges)
    st = eng.stream
    k = [0]
    def trav():
        eng.traverse(srcs[k[0] & 15]); k[0] += 1
    rec["traverse_wall_us"] = wall(trav)
    # protocol: events around the call
    e0, e1 = cupy.cuda.Event(), cupy.cuda.Event()
    ev = []
    for i in range(N):
        e0.record(st); eng.traverse(srcs[i & 15]); e1.record(st); e1.synchronize()
        ev.append(cupy.cuda.get_elapsed_time(e0, e1) * 1e3)
    rec["traverse_events_us"] = float(np.median(ev))
    if eng.whole_graph and eng._wg_graph is not None:
        G = eng._wg_graph
        eng._source_host[0] = srcs[1]
        rec["replay_sync_wall_us"] = wall(lambda: (G.launch(st), st.synchronize()))
        ts = []
        for _ in range(N):
            t0 = time.perf_counter(); G.launch(st); ts.append(time.perf_counter() - t0); st.synchronize()
        rec["replay_enqueue_wall_us"] = float(np.median(ts) * 1e6)
        ts = []
        for _ in range(N):
            G.launch(st); t0 = time.perf_counter(); st.synchronize(); ts.append(time.perf_counter() - t0)
        rec["sync_after_enqueue_wall_us"] = float(np.median(ts) * 1e6)
        ev = []
        for _ in range(N):
            e0.record(st); G.launch(st); e1.record(st); e1.synchronize()
            ev.append(cupy.cuda.get_elapsed_time(e0, e1) * 1e3)
        rec["replay_events_us"] = float(np.median(ev))
        # direct launch of the same kernel (no graph)
        def direct():
            with st:
                eng._enqueue_whole(st.ptr)
            st.synchronize()
        rec["direct_launch_sync_wall_us"] = wall(direct)
        # level trace: the kernel's own span from globaltimer, when traced
        try:
            r = at.run(g, cfg, source=srcs[1], trace=True)
            rec["levels_us"] = [(l.frontier_size, l.direction, l.path, None if l.us is None else round(float(l.us), 2)) for l in r.levels][:40]
        except Exception as exc:
            rec["trace_error"] = repr(exc)
    # empty graph and empty kernel
    k0 = cupy.RawKernel('extern "C" __global__ void nop(){}', 'nop')
    s2 = cupy.cuda.Stream(non_blocking=True)
    with s2:
        s2.begin_capture(); k0((1,), (32,), ()); Gn = s2.end_capture()
    Gn.upload(s2)
    rec["empty_kernel_graph_sync_wall_us"] = wall(lambda: (Gn.launch(s2), s2.synchronize()))
    def nop():
        with s2: k0((1,), (32,), ())
        s2.synchronize()
    rec["empty_kernel_direct_sync_wall_us"] = wall(nop)
    rec["sync_idle_wall_us"] = wall(lambda: s2.synchronize())
    out.write(json.dumps(rec) + "\n"); out.flush(); print(json.dumps(rec), flush=True)
