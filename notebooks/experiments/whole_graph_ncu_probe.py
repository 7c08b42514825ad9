# The one-block levels kernel (not resident) of one graph, compiled with -lineinfo, for Nsight Compute: warm-up
# calls, then the profiled ones and one traced call (its levels printed). Used as:
#   ncu --clock-control none -k regex:whole_graph_levels --launch-skip 3 --launch-count 1 --warp-sampling-interval 0 \
#       --section SourceCounters --section WarpStateStats --import-source yes -o OUT \
#       python notebooks/experiments/whole_graph_ncu_probe.py GRAPH_FILE 5
#   ncu --import OUT.ncu-rep --page source --csv --print-source cuda,sass > OUT.csv   (whole_graph_ncu_regions.py)
import sys
import autotune._kernels as K
K.COMMON_OPTIONS = K.COMMON_OPTIONS + ("-lineinfo",)
import autotune as at
import autotune._engine as E
from autotune.engine import BFSEngine
from autotune.measure import select_sources
E.RESIDENT = False
g = at.load_graph(sys.argv[1])
pick = at.tune(g)
eng = BFSEngine(g, pick)
print("whole_graph", eng.whole_graph, "pull", getattr(eng, "whole_graph_pull", None), flush=True)
src = int(select_sources(g, 16, seed=0)[8])
for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 6):
    r = eng.bfs(src)
r = eng.bfs(src, trace=True)
print(" ".join(f"{l.frontier_size}{'P' if l.direction == 'pull' else ''}:{l.us:.2f}" for l in r.levels), flush=True)
