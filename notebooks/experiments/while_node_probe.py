"""Probe: a CUDA-graph WHILE conditional node built from CuPy stream capture through ``cuda.bindings``,
timed against flat captured graphs of the same launch rounds (a GPU; ``cuda-bindings`` installed).

Why: the engine replays a start graph of the rounds the last traversals needed (the median of 16); a
traversal that needs fewer still launches the rest (empty rounds), one that needs more replays
continuation graphs after a host wait. A WHILE node loops a round's body on the device while a
kernel of the body keeps its condition set (``cudaGraphSetConditional``), so a traversal would run
exactly the rounds it needs. CuPy 14 captures graphs but does not expose conditional nodes, so the
node is added to the graph being captured: ``cudaStreamGetCaptureInfo`` gives the capturing graph and
its dependencies, ``cudaGraphConditionalHandleCreate`` + ``cudaGraphAddNode`` add the node,
``cudaStreamUpdateCaptureDependencies`` continues the capture after it, and the body is captured from
a second stream with ``cudaStreamBeginCaptureToGraph``. The device function is declared, not
included (NVRTC's ``cuda_runtime.h`` lacks it), and compiled with ``-rdc=true``; the driver resolves
it when the module loads.

A round here is three one-warp kernels (two that count, one that ticks the loop counter), the shape
of an engine round (the tick, the level kernels). Each graph is replayed 200 times after 10 warm-up
replays, CUDA events around each replay, median in us.

Usage::

    python notebooks/experiments/while_node_probe.py notebooks/figures/while_node_probe_h200.json

Measured on an H200 (driver 580.159.04, CuPy 14.2, cuda-bindings 13.3.1; the committed JSON): the WHILE
node runs the body exactly n times (counters 2n) and costs about 7.6 + 6.2 n us (n = 1: 13.9, 8: 58.6,
64: 413); a flat graph of n captured rounds 3.7 + 2.85 n us (n = 1: 6.5, 8: 26.3, 64: 186), whether its
rounds have work or not (64 rounds for a traversal needing 1: 185 us). So a loop iteration costs about
twice a captured round, and a flat graph that replays more than about twice the rounds a traversal
needs loses to the loop: the engine's next form would replay a short flat start (a low quantile of
the recent rounds) and loop the rest on the device, instead of empty rounds and continuation graphs.
"""
import json, sys, traceback
import numpy as np
import cupy as cp
from cuda.bindings import runtime as cr

out = {}
def log(k, v):
    out[k] = v; print(k, v, flush=True)

def ck(r, what):
    if not isinstance(r, tuple):
        r = (r,)
    if int(r[0]) != 0:
        raise RuntimeError(f"{what}: {r[0]}")
    return r[1:] if len(r) > 2 else (r[1] if len(r) == 2 else None)

decl = r'''
typedef unsigned long long cudaGraphConditionalHandle;
extern "C" __device__ void cudaGraphSetConditional(cudaGraphConditionalHandle handle, unsigned int value);
'''
body = r'''
extern "C" __global__ void work(int* c) { if (threadIdx.x == 0 && blockIdx.x == 0) atomicAdd(c + 1, 1); }
extern "C" __global__ void tick_plain(int* c) { if (threadIdx.x == 0 && blockIdx.x == 0) { int l = c[0]; if (l > 0) c[0] = l - 1; } }
extern "C" __global__ void tick(int* c, unsigned long long h) {
    if (threadIdx.x == 0 && blockIdx.x == 0) { int l = c[0] - 1; c[0] = l; cudaGraphSetConditional((cudaGraphConditionalHandle)h, l > 0 ? 1u : 0u); }
}
extern "C" __global__ void setn(int* c, int n) { if (threadIdx.x == 0 && blockIdx.x == 0) { c[0] = n; c[1] = 0; } }
'''
try:
    mod = cp.RawModule(code=decl + body, options=("-rdc=true",))  # the extern builtin needs relocatable code
    mod.get_function("tick")
    log("compile", "declared, rdc")
except Exception as exc:
    log("compile failed: declared, rdc", repr(exc)[:400])
    json.dump(out, open(sys.argv[1], "w"), indent=1); sys.exit(0)
work, tick, tick_plain, setn = (mod.get_function(n) for n in ("work", "tick", "tick_plain", "setn"))
c = cp.zeros(2, dtype=np.int32)
s = cp.cuda.Stream(non_blocking=True)

def flat_graph(n_rounds, n):
    with s:
        s.begin_capture()
        setn((1,), (32,), (c, np.int32(n)))
        for _ in range(n_rounds):
            work((1,), (32,), (c,)); work((1,), (32,), (c,)); tick_plain((1,), (32,), (c,))
        return s.end_capture()

SETDEPS = getattr(getattr(cr, 'cudaStreamUpdateCaptureDependenciesFlags', None), 'cudaStreamSetCaptureDependencies', 1)

def while_graph(n):
    with s:
        s.begin_capture()
        setn((1,), (32,), (c, np.int32(n)))
        info = cr.cudaStreamGetCaptureInfo(s.ptr)
        log("capture info len", len(info))
        graph, deps = info[3], info[4]  # (err, status, id, graph, dependencies, edge data, count)
        ndeps = info[-1] if isinstance(info[-1], int) else len(deps)
        handle = ck(cr.cudaGraphConditionalHandleCreate(graph, 1, getattr(cr, "cudaGraphCondAssignDefault", 1)), "handle")
        params = cr.cudaGraphNodeParams()
        params.type = cr.cudaGraphNodeType.cudaGraphNodeTypeConditional
        params.conditional.handle = handle
        params.conditional.type = cr.cudaGraphConditionalNodeType.cudaGraphCondTypeWhile
        params.conditional.size = 1
        node = ck(cr.cudaGraphAddNode(graph, deps, None, ndeps, params), "add node")
        bodyg = params.conditional.phGraph_out[0]
        ck(cr.cudaStreamUpdateCaptureDependencies(s.ptr, [node], None, 1, SETDEPS), "update deps")
        s2 = cp.cuda.Stream(non_blocking=True)
        ck(cr.cudaStreamBeginCaptureToGraph(s2.ptr, bodyg, None, None, 0, cr.cudaStreamCaptureMode.cudaStreamCaptureModeRelaxed), "capture to body")
        with s2:
            work((1,), (32,), (c,)); work((1,), (32,), (c,)); tick((1,), (32,), (c, np.uint64(int(handle))))
        ck(cr.cudaStreamEndCapture(s2.ptr), "end body capture")
        g = s.end_capture()
    return g

def timeit(g, reps=200):
    g.upload(s) if hasattr(g, "upload") else None
    for _ in range(10): g.launch(s)
    s.synchronize()
    ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()
    ts = []
    for _ in range(reps):
        ev0.record(s); g.launch(s); ev1.record(s); ev1.synchronize()
        ts.append(cp.cuda.get_elapsed_time(ev0, ev1) * 1e3)
    return float(np.median(ts))

try:
    for n in (1, 2, 4, 8, 16, 64):
        gw = while_graph(n)
        t = timeit(gw)
        got = c.get().tolist()
        log(f"while n={n} us", round(t, 2)); log(f"while n={n} counters", got)
        log(f"flat {n} rounds us", round(timeit(flat_graph(n, n)), 2))
    log("flat 64 rounds for n=1 us", round(timeit(flat_graph(64, 1)), 2))
    log("flat 8 rounds for n=1 us", round(timeit(flat_graph(8, 1)), 2))
except Exception:
    log("error", traceback.format_exc()[-1500:])
json.dump(out, open(sys.argv[1], "w"), indent=1)
