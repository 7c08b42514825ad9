# The BFS training log of the H200 model under the single-block hub rule (kernels/traversal.cuh, at_sb_fits),
# assembled from the committed sweeps: a graph that the rule can reach (hub_rule_affected.py: some level of some
# logged source that a rule config ran single-block before and runs multi-block now) takes only its records swept
# under the rule; any other graph ran the same code in every config before and after it and keeps its earlier
# records (the one-pass sweep and the interleaved re-sweeps, read together by autotune.model.build_training_set).
# --revert TECHNIQUE ...: techniques that had the rule in the sweeps under it and no longer have it
# (autotune._engine.SB_HUB_TECHNIQUES): their BFS single-block configs run the pre-rule code again, so on the
# affected graphs too those configs keep their earlier records and their records under the rule are left out.
# Lines are copied verbatim, so every record keeps its own time, device and origin.
#   python notebooks/experiments/assemble_hub_log.py AFFECTED.tsv --old LOG [LOG ...] --new LOG [LOG ...] \
#       [--revert scan_mapped] --out models/bfs_h200.jsonl
import gzip, json, sys


def lines(path):
    with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
        for line in f:
            if line.strip():
                yield line if line.endswith("\n") else line + "\n"


args = sys.argv[1:]
tsv = args[0]
old = args[args.index("--old") + 1:args.index("--new")]
out = args[args.index("--out") + 1]
revert = set()
if "--revert" in args:
    revert = set(args[args.index("--revert") + 1:args.index("--out")])
    new = args[args.index("--new") + 1:args.index("--revert")]
else:
    new = args[args.index("--new") + 1:args.index("--out")]


def reverted(rec) -> bool:
    c = rec.get("config") or {}
    return (rec.get("algorithm") == "bfs" and c.get("small_frontier") == "single_block"
            and c.get("load_balance") in revert)


status = {}
with open(tsv) as f:
    next(f)
    for row in f:
        name, _, st = row.rstrip("\n").split("\t")[:3]
        status[name] = st
affected = {n for n, s in status.items() if s == "affected"}
new_graphs, counts = set(), {"old": 0, "new": 0, "dropped_old": 0, "reverted_old": 0, "dropped_new": 0}
buf = []
for path in new:
    for line in lines(path):
        rec = json.loads(line)
        name = rec["graph"]["name"]
        if name in affected:
            new_graphs.add(name)
            if reverted(rec):
                counts["dropped_new"] += 1
                continue
            buf.append(line)
            counts["new"] += 1
missing = affected - new_graphs
if missing:
    sys.exit(f"{len(missing)} affected graphs have no record under the rule, e.g. {sorted(missing)[:3]}")
with open(out, "w") as f:
    for path in old:
        for line in lines(path):
            rec = json.loads(line)
            name = rec["graph"]["name"]
            if name in affected:
                if reverted(rec):
                    f.write(line)
                    counts["reverted_old"] += 1
                    continue
                counts["dropped_old"] += 1
                continue
            if name not in status:
                sys.exit(f"{path}: graph {name!r} is not in {tsv}")
            f.write(line)
            counts["old"] += 1
    f.writelines(buf)
print(f"{out}: {counts['old']} earlier records of {len(status) - len(affected)} graphs the rule cannot reach, "
      f"{counts['new']} records of {len(affected)} graphs swept under the rule ({counts['dropped_old']} earlier "
      f"records of those left out)")
if revert:
    print(f"reverted techniques {sorted(revert)}: on those graphs {counts['reverted_old']} earlier records kept, "
          f"{counts['dropped_new']} records under the rule left out")
