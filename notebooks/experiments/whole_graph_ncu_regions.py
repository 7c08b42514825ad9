# Warp-state samples of one launch of the one-block kernel (ncu --section SourceCounters --section WarpStateStats
# --warp-sampling-interval 0, the kernel compiled with -lineinfo; notebooks/experiments/whole_graph_ncu_probe.py),
# summed by region of kernels/whole_graph.cu as of commit f9f914d, with each region's stall reasons. Input: the
# CSV of `ncu --import REP --page source --csv --print-source cuda,sass`. One JSON line per CSV.
#   python notebooks/experiments/whole_graph_ncu_regions.py GRAPH_NAME SOURCE.csv [GRAPH_NAME SOURCE.csv ...]
import collections
import csv
import json
import sys

# line ranges of whole_graph.cu at f9f914d; helper headers (block_scan.cuh, traversal.cuh, op_bfs.cuh) by file
REGIONS = [("staging (CSR copied into shared memory)", 150, 193), ("reset and source", 194, 238),
           ("level start: direction rule (scout count)", 239, 260), ("pull levels", 261, 317),
           ("pull levels: barrier at their end", 318, 318), ("push levels, frontier <= 32", 319, 351),
           ("push levels, block rounds", 352, 397), ("level end: trace, next frontier", 398, 411),
           ("finish and launch", 412, 500), ("queue / claim / append helpers", 1, 149)]
args = sys.argv[1:]
for name, path in zip(args[::2], args[1::2]):
    rows = list(csv.reader(open(path)))
    cur, hdr = None, None
    samples, stalls = collections.Counter(), collections.defaultdict(collections.Counter)
    for r in rows:
        if len(r) == 2 and r[0] == "File Path":
            cur = r[1].split("/")[-1]
            continue
        if r and r[0] == "Line No":
            hdr = r
            continue
        if not (hdr and len(r) == len(hdr) and r[0]):
            continue
        line = int(r[0])
        if cur.endswith(".cuh"):
            region = f"{cur} (searches, scans, operator)"
        else:
            region = next(n for n, lo, hi in REGIONS if lo <= line <= hi) if line <= 500 else "other"
        s = float(r[hdr.index("Warp Stall Sampling (All Samples)")] or 0)
        samples[region] += s
        for i, h in enumerate(hdr):
            if h.startswith("stall_") and "Not Issued" not in h:
                stalls[region][h[6:]] += float(r[i] or 0)
    total = sum(samples.values())
    print(json.dumps({"graph": name, "kernel_commit": "f9f914d", "device": "NVIDIA H200, SM 1.98 GHz", "samples": total,
                      "regions": {k: {"share": round(v / total, 3),
                                      "top_stalls": dict(stalls[k].most_common(3))} for k, v in samples.most_common()}}))
