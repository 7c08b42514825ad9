"""How much a short search seeded by the model's ranked configs gains over the fast path, from a
committed sweep log alone (no GPU): ``tune(g, n_trials=k + 1)`` with ``n_ranked=k`` measures the
model's k best-ranked configs and the Table-2 config and keeps the fastest.

For every graph, a model fitted without it (leave one graph out) or without its family (leave one
family out) ranks the configs; the candidates are timed on half of the graph's logged sources (the
even ones: what the short search measures) and the fastest there is charged its median on the other
half (the odd ones: the traversals the user runs afterwards), against the best median of any
measured config on that half. So the choice pays the per-source noise a real search pays. The
"every config" row chooses among all measured configs the same way: the floor that the noise leaves.

Usage (about 10 minutes on one CPU core)::

    python notebooks/experiments/ranked_seeds.py models/bfs_h200.jsonl.gz \
        --out notebooks/figures/ranked_seeds_h200.jsonl

Writes one JSON line per (folds, seed, k, rule) with the geometric-mean and worst regret over the
whole corpus and over the real graphs, and the share of graphs within 5 % of the best.
"""
from __future__ import annotations

import argparse
import json
import math
from collections import defaultdict

import numpy as np

from autotune import model as M
from autotune.logs import read_log
from autotune.table2 import table2_rule


def _gm(x) -> float:
    return float(math.exp(np.mean(np.log(x))))


def _per_source_times(records) -> dict:
    """fingerprint -> config_id -> per-source times (ms), valid measurements only."""
    out: dict = defaultdict(dict)
    for r in records:
        if r.valid and not r.pruned:
            out[r.fingerprint][r.config_id] = np.asarray(r.measure["times_ms"], dtype=np.float64)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("logs", nargs="+")
    ap.add_argument("--out", required=True)
    ap.add_argument("--ks", default="1,2,3,4,6,8")
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--folds", default="family,graph")
    args = ap.parse_args(argv)
    recs = M._buildable_records(read_log(args.logs))
    ts = M.build_training_set(recs)
    per = _per_source_times(recs)
    fam = M._graph_families(ts)
    real = np.array([f.startswith("real-") for f in fam])
    rule = [table2_rule(g["features"]).config_id for g in ts.graphs]
    ks = [int(k) for k in args.ks.split(",")]
    n = ts.n_graphs
    with open(args.out, "w") as fh:
        def emit(row):
            fh.write(json.dumps(row) + "\n")
            fh.flush()
            print(json.dumps(row))

        # the noise floor: every measured config, chosen on the even sources, charged on the odd ones
        floor = np.empty(n)
        for i, g in enumerate(ts.graphs):
            T = per[g["fingerprint"]]
            ev = {c: float(np.median(t[1::2])) for c, t in T.items()}
            floor[i] = ev[min(T, key=lambda c: float(np.median(T[c][0::2])))] / min(ev.values())
        emit({"method": "every config", "geomean": _gm(floor), "worst": float(floor.max()),
              "real_geomean": _gm(floor[real]), "real_worst": float(floor[real].max()),
              "within_5pct": float((floor < 1.05).mean())})
        for scheme in args.folds.split(","):
            groups: dict = defaultdict(list)
            for i, f in enumerate(fam):
                groups[f if scheme == "family" else i].append(i)
            for seed in (int(s) for s in args.seeds.split(",")):
                res = {(k, w): np.empty(n) for k in ks for w in (False, True)}
                for fold in groups.values():
                    held = set(fold)
                    train = [j for j in range(n) if j not in held]
                    m = M.SelectionModel(None, ts.feature_names, seed, "regret").fit(
                        ts.X[train], M._labels(ts, train, 0.02), times=[ts.times[j] for j in train],
                        invalid=[ts.invalid[j] for j in train])
                    pr = m.predict_regret(ts.X[fold])
                    for row, i in zip(pr, fold):
                        T = per[ts.graphs[i]["fingerprint"]]
                        order = [c for c in (str(m.classes_[j]) for j in np.argsort(row, kind="stable")) if c in T]
                        ev = {c: float(np.median(t[1::2])) for c, t in T.items()}
                        best = min(ev.values())
                        for k in ks:
                            for with_rule in (False, True):
                                cand = order[:k]
                                if with_rule and rule[i] in T and rule[i] not in cand:
                                    cand = cand + [rule[i]]
                                pick = min(cand, key=lambda c: float(np.median(T[c][0::2])))
                                res[(k, with_rule)][i] = ev[pick] / best
                for (k, with_rule), r in res.items():
                    worst = int(np.argmax(r))
                    emit({"folds": scheme, "seed": seed, "k": k, "rule": with_rule, "trials": k + int(with_rule),
                          "geomean": _gm(r), "worst": float(r.max()), "worst_graph": ts.graphs[worst]["name"],
                          "real_geomean": _gm(r[real]), "real_worst": float(r[real].max()),
                          "within_5pct": float((r < 1.05).mean())})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
