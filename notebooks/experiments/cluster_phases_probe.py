# Where a level of the cluster kernel (kernels/cluster_graph.cu) spends its time: the kernel built with
# -DAT_CL_PHASES (thread 0 of each block sums the SM cycles of each phase of a level) and launched with
# the engine's own arguments on a few graphs; prints cycles per level per phase for the block that
# spent the most in expansion, and the mean over blocks.
#   python notebooks/experiments/cluster_phases_probe.py OUT.json SPEC [SPEC ...]
import json, sys
import numpy as np
import cupy
import autotune as at
import autotune._engine as E
from autotune._kernels import _options, read_source
from autotune.engine import BFSEngine
from autotune.generators import generate
from autotune.measure import select_sources

PH = ["start+scout", "expand", "barrier", "counts", "extract", "trace+loop"]
res = []
for spec in sys.argv[2:]:
    g = generate(spec, xp=cupy) if not spec.endswith(".gz") else at.load_graph(spec)
    E.CLUSTER_MAX_EDGES = 1 << 40
    eng = BFSEngine(g, at.tune(g))
    if not eng.cluster_size:
        print(spec, "no cluster")
        continue
    c, st = eng.cluster_size, str(eng.whole_graph_staged).lower()
    name = f"cluster_levels<{c}, {st}, BFSOp>"
    mod = cupy.RawModule(code=read_source("cluster_graph"), options=_options(False) + ("-DAT_CL_PHASES",),
                         name_expressions=[name])
    k = mod.get_function(name)
    k.max_dynamic_shared_size_bytes = eng._wg_smem
    if c > 8:
        cupy.cuda.driver.funcSetAttribute(k.kernel.ptr, 14, 1)
    phases = cupy.zeros(c * 8, dtype=cupy.int64)
    src = int(select_sources(g, 16, seed=0)[0])
    eng._source_host[0] = src
    if not eng.zero_copy:
        eng.source_slot[0] = src
    for _ in range(3):
        with eng.stream:
            k((c,), (1024,), eng._wg_args + (phases,), shared_mem=eng._wg_smem)
        eng.stream.synchronize()
    p = phases.get().reshape(c, 8)
    levels = int(p[0, 7])
    per = p[:, :6] / max(levels, 1)
    busy = int(np.argmax(per[:, 1]))
    rec = dict(graph=spec, cluster=c, staged=eng.whole_graph_staged, levels=levels,
               busiest_block={k: round(float(v)) for k, v in zip(PH, per[busy])},
               mean={k: round(float(v)) for k, v in zip(PH, per.mean(0))})
    res.append(rec)
    print(json.dumps(rec), flush=True)
json.dump(res, open(sys.argv[1], "w"), indent=1)
