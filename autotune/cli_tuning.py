"""CLI verbs of the tuning loop: ``autotune tune``, ``autotune sweep``, ``autotune retrain``.

:func:`register` adds the three subcommands to ``autotune``'s argparse subparsers (called from
:mod:`autotune.cli`). Each prints a table, or JSON with ``--json``::

    autotune tune GRAPH... [--algorithm {bfs,sssp}] [--trials N] [--storage URL] [--study NAME] [--retune]
                  [--out config.json]
    autotune sweep [GRAPH...] [--corpus FILE] [--algorithm {bfs,sssp}] --configs {portfolio,grid,train}
                   [--weights DIST] --out logs/NAME.jsonl
    autotune retrain LOGS... [--algorithm {bfs,sssp}] --out models/NAME.joblib

Every verb works per algorithm (one model, one rule, one search space and one config set per
traversal): e.g. ``autotune sweep --algorithm sssp --configs train --corpus models/corpus_sssp.txt``
then ``autotune retrain LOGS --algorithm sssp --out models/sssp_h200.joblib``.

``sweep`` and ``tune --trials`` need an NVIDIA GPU; ``tune`` without ``--trials`` (profile + model
prediction) and ``retrain`` work on the CPU.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import warnings

from ._cli_common import dispatch, err as _err, fraction, int_at_least, positive_float
from ._cli_common import warn_to_stderr as _warn_to_stderr

__all__ = ["register", "build_parser", "main", "cmd_tune", "cmd_sweep", "cmd_retrain"]


def _console():
    from rich.console import Console

    return Console(stderr=False, highlight=False)


def _fmt(x, nd: int = 3) -> str:
    if x is None:
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        return "-" if math.isnan(x) else ("inf" if math.isinf(x) else f"{x:,.{nd}f}")
    if isinstance(x, int):
        return f"{x:,}"
    return str(x)


def _needs_gpu(what: str, alternative: str) -> bool:
    """Print the plain 'needs an NVIDIA GPU' message and return True when no GPU is usable."""
    from ._backend import _probe, gpu_available

    if gpu_available():
        return False
    _err(f"'{what}' needs an NVIDIA GPU with CuPy ({_probe()[1]}). {alternative}")
    return True


# ------------------------------------------------------------------------------------------ tune
def cmd_tune(args) -> int:
    """``autotune tune``: fast path (profile + model) or, with ``--trials``, an Optuna search."""
    if args.trials is not None and _needs_gpu("autotune tune --trials",
                                              "'autotune tune' without --trials works without one."):
        return 2
    if args.out and len(args.graphs) > 1:
        _err("--out writes one config: give a single GRAPH")
        return 2
    if args.out:
        import os

        from .errors import FileAccessError

        folder = os.path.dirname(os.path.abspath(args.out))
        if not os.path.isdir(folder):  # say so now, not after the search
            raise FileAccessError(args.out, "cannot write the config file (--out): folder not found")
    from .graph import load_graph
    from .search import tune_detailed

    model = False if args.no_model else (args.model or None)
    results = []
    for spec in args.graphs:
        g = load_graph(spec, directed=False if args.undirected else None, weight_column=args.weight_column)
        if args.weights:
            from .sweep import attach_weights

            g = attach_weights(g, args.weights)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = tune_detailed(g, args.trials, algorithm=args.algorithm, storage=args.storage, study_name=args.study,
                                timeout=args.timeout,
                                retune=args.retune, model=model, n_sources=args.sources, seed=args.seed,
                                log=args.log, progress=not args.json)
        _warn_to_stderr(caught)
        results.append(res)
    if args.out:
        from ._files import write_text

        write_text(args.out, results[0].config.to_json() + "\n", "config file (--out)")
    if args.json:
        print(json.dumps([r.to_dict() for r in results], indent=2))
        return 0
    from rich.table import Table

    t = Table(title="autotune tune" + (f" — search, {args.trials} trials" if args.trials else " — fast path"))
    for c in ("graph", "method", "config", "config_id", "profile ms", "select ms", "best ms", "study / trials"):
        t.add_column(c, justify="right" if "ms" in c else "left")
    for r in results:
        study = f"{r.study} ({r.n_trials})" if r.study else "-"
        t.add_row(r.graph, r.method, r.config.label, r.config.config_id, _fmt(r.profile_ms, 1), _fmt(r.select_ms, 1),
                  _fmt(r.best_ms, 4), study)
    con = _console()
    con.print(t)
    for r in results:
        con.print(f"{r.graph}: {r.message}")
    if args.out:
        con.print(f"config written to {args.out} (run it with: autotune run GRAPH --config {args.out})")
    return 0


# ----------------------------------------------------------------------------------------- sweep
def cmd_sweep(args) -> int:
    """``autotune sweep``: measure a config set on many graphs into a benchmark log (GPU)."""
    if not args.graphs and not args.corpus:
        _err("give GRAPH arguments and/or --corpus FILE")
        return 2
    if _needs_gpu("autotune sweep", "'autotune retrain' and 'autotune tune' (fast path) work without one."):
        return 2
    from .sweep import sweep

    res = sweep(args.graphs or None, configs=args.configs, out=args.out, n_sources=args.sources, seed=args.seed,
                progress=not args.json, corpus=args.corpus, validate_sources=args.validate_sources,
                retry_invalid=args.retry_invalid, undirected=args.undirected, algorithm=args.algorithm,
                weights=args.weights)
    summary = {"out": res.out, "n_measured": res.n_measured, "n_skipped": res.n_skipped, "n_invalid": res.n_invalid,
               "graphs": res.graphs}
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        from rich.table import Table

        best: dict = {}
        for r in res.records:
            if r.valid and (r.fingerprint not in best or r.median_ms < best[r.fingerprint].median_ms):
                best[r.fingerprint] = r
        t = Table(title=f"autotune sweep → {res.out}: {res.n_measured} measured, {res.n_skipped} already logged, "
                        f"{res.n_invalid} invalid")
        for c in ("graph", "vertices", "edges", "fastest config (this run)", "median ms", "GTEPS"):
            t.add_column(c, justify="left" if c in ("graph", "fastest config (this run)") else "right")
        for g in res.graphs:
            b = best.get(g["fingerprint"])
            t.add_row(g["name"], _fmt(g["n_vertices"]), _fmt(g["n_edges"]),
                      b.config_id + " " + _label(b.config) if b else "-",
                      _fmt(b.median_ms, 4) if b else "-", _fmt(b.measure.get("gteps"), 2) if b else "-")
        _console().print(t)
    for r in res.records:
        if not r.valid:
            _err(f"{r.graph['name']} × {r.config_id}: {r.error}")
    return 1 if res.n_invalid else 0


def _label(config: dict) -> str:
    from .config import TraversalConfig

    try:
        return TraversalConfig.from_dict(config).label
    except ValueError:
        return "(config of another release)"


# --------------------------------------------------------------------------------------- retrain
def cmd_retrain(args) -> int:
    """``autotune retrain``: train the selection model from logs, print its LOGO regret table (CPU)."""
    from .model import regret_rows, retrain

    estimator = None
    if args.estimator == "extra_trees":
        from sklearn.ensemble import ExtraTreesClassifier

        estimator = ExtraTreesClassifier(n_estimators=args.n_estimators, random_state=args.seed)
    elif args.n_estimators != 200:
        from sklearn.ensemble import RandomForestClassifier

        estimator = RandomForestClassifier(n_estimators=args.n_estimators, random_state=args.seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = retrain(args.logs, out=args.out, estimator=estimator, device=args.device,
                        label_tolerance=args.label_tolerance, random_state=args.seed, algorithm=args.algorithm)
    _warn_to_stderr(caught)
    meta = model.metadata_
    if args.json:
        print(json.dumps({"out": args.out, "algorithm": meta.get("algorithm", "bfs"), "n_graphs": meta["n_graphs"],
                          "n_records": meta["n_records"], "device": meta["device"], "labels": meta["label_counts"],
                          "cv": meta["cv"]["regret"]}, indent=2))
        return 0
    from rich.table import Table

    t = Table(title=f"leave-one-graph-out regret ({meta.get('algorithm', 'bfs').upper()}) — {meta['n_graphs']} graphs, "
                    f"{meta['device'].get('name')} "
                    f"(time of the chosen config / time of the best; 1.000 = best)")
    for c in ("method", "geomean", "worst", "within 5% of best", "graphs", "invalid picks"):
        t.add_column(c, justify="left" if c == "method" else "right")
    for row in regret_rows(meta["cv"]):
        t.add_row(row["title"], _fmt(row["geomean"]), _fmt(row["worst"]),
                  "-" if row["within_5pct"] is None else f"{100 * row['within_5pct']:.0f}%", _fmt(row["n_graphs"]),
                  _fmt(row["n_invalid"]))
    con = _console()
    con.print(t)
    con.print(f"{len(meta['labels'])} label(s): " + ", ".join(f"{k} ×{v}" for k, v in meta["label_counts"].items()))
    if args.out:
        con.print(f"model written to {args.out} (+ metadata {str(args.out).rsplit('.', 1)[0]}.json)")
    return 0


# ------------------------------------------------------------------------------------------ wire
def _algorithm_arg(sp, help_: str) -> None:
    sp.add_argument("--algorithm", choices=["bfs", "sssp"], default="bfs", help=help_)


def _graph_args(sp, required: bool = True) -> None:
    sp.add_argument("graphs", nargs="+" if required else "*", metavar="GRAPH",
                    help="file (.txt[.gz] SNAP, .mtx[.gz], .gr), generator spec (e.g. kron:scale=20) or "
                         "shared:NAME (a file of the shared graph set)")
    sp.add_argument("--undirected", action="store_true",
                    help="symmetrize edge lists (SNAP/DIMACS files are read as directed by default)")
    sp.add_argument("--weights", default=None, metavar="DIST",
                    help="seeded weights (seed 0) for graphs without their own, e.g. int:1:255 (GAP's, the SSSP "
                         "benchmark's) or float:0.5:2; generator specs can say weights=DIST instead")


def register(subparsers) -> None:
    """Add the ``tune``, ``sweep`` and ``retrain`` subcommands to *subparsers* (argparse).

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        From ``parser.add_subparsers(...)``; each subcommand sets ``func`` to its handler, which
        takes the parsed namespace and returns the exit status.
    """
    sp = subparsers.add_parser("tune", help="pick the fastest config: model prediction (CPU ok) or --trials search (GPU)")
    _graph_args(sp)
    _algorithm_arg(sp, "the traversal to tune: bfs (default) or sssp (its own model, rule and search space)")
    sp.add_argument("--weight-column", type=int, default=None, metavar="N",
                    help="0-based column of an edge-list file holding edge weights (default: none, unweighted)")
    sp.add_argument("--trials", type=int_at_least(1), default=None, metavar="N",
                    help="run an Optuna search until the study holds N finished trials (GPU); "
                         "without it: profile + model prediction (fast path)")
    sp.add_argument("--storage", default=None, metavar="URL",
                    help="Optuna storage URL (default sqlite:///~/.cache/autotune/studies.db; postgresql://... "
                         "lets several workers share a study)")
    sp.add_argument("--study", default=None, metavar="NAME", help="study name (default: from graph and GPU)")
    sp.add_argument("--retune", action="store_true", help="search again even if this graph was tuned on this GPU")
    sp.add_argument("--timeout", type=positive_float, default=None, metavar="S",
                    help="stop the search after S seconds")
    sp.add_argument("--model", default=None, metavar="PATH", help="selection model (default: the shipped one)")
    sp.add_argument("--no-model", action="store_true",
                    help="ignore any model: the algorithm's rule (fast path; BFS: Table 2, SSSP: the Delta rule)")
    sp.add_argument("--sources", type=int_at_least(1), default=16, help="sources per trial (search)")
    sp.add_argument("--seed", type=int, default=0, help="seed of the sources and the sampler")
    sp.add_argument("--log", default=None, metavar="PATH",
                    help="benchmark log of the search (default ~/.cache/autotune/tune.jsonl)")
    sp.add_argument("--out", default=None, metavar="config.json", help="write the chosen config as JSON")
    sp.add_argument("--json", action="store_true", help="print JSON instead of a table")
    sp.set_defaults(func=cmd_tune)

    sp = subparsers.add_parser("sweep", help="measure many configs on many graphs into a benchmark log (GPU)")
    _graph_args(sp, required=False)
    sp.add_argument("--corpus", default=None, metavar="FILE",
                    help="file listing graphs, one per line, '#' comments (e.g. models/corpus.txt)")
    sp.add_argument("--configs", choices=["portfolio", "grid", "train"], default="portfolio",
                    help="portfolio: each technique's default and its one-knob changes; grid: every technique "
                         "with none / each / all of its options, push and push_pull (the crossover study); "
                         "train: the grid plus the persistent small-frontier path (the shipped model's labels); "
                         "with --algorithm sssp the same sets of SSSP configs (train: every method x delta scale on "
                         "five main technique configs)")
    _algorithm_arg(sp, "the traversal of the --configs set: bfs (default) or sssp (train: every SSSP method x delta "
                       "scale on five main technique configs, 55 configs; sweep the weighted corpus "
                       "models/corpus_sssp.txt)")
    sp.add_argument("--out", required=True, metavar="logs/NAME.jsonl", help="JSONL log, appended to (resumable)")
    sp.add_argument("--sources", type=int_at_least(1), default=16, help="sources per measurement")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--validate-sources", type=int_at_least(0), default=None, metavar="K",
                    help="validate only the first K sources of each config (default: all)")
    sp.add_argument("--retry-invalid", action="store_true", help="measure again pairs logged as invalid")
    sp.add_argument("--json", action="store_true", help="print JSON instead of a table")
    sp.set_defaults(func=cmd_sweep)

    sp = subparsers.add_parser("retrain", help="train the selection model from benchmark logs (CPU)")
    sp.add_argument("logs", nargs="+", metavar="LOGS", help="JSONL logs, globs or folders")
    sp.add_argument("--out", default=None, metavar="models/NAME.joblib",
                    help="where to save the model (+ .json metadata); not saved when omitted")
    sp.add_argument("--device", default=None, help="device name to train for (default: most records)")
    sp.add_argument("--algorithm", choices=["bfs", "sssp"], default=None,
                    help="train on the records of this traversal (one model per algorithm; default: the algorithm "
                         "of the records, refusing logs that mix them)")
    sp.add_argument("--estimator", choices=["random_forest", "extra_trees"], default="random_forest")
    sp.add_argument("--n-estimators", type=int_at_least(1), default=200)
    sp.add_argument("--label-tolerance", type=fraction, default=0.02,
                    help="configs within this fraction of a graph's best are label ties")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--json", action="store_true", help="print JSON instead of a table")
    sp.set_defaults(func=cmd_retrain)


def build_parser() -> argparse.ArgumentParser:
    """A parser with only the tuning verbs (tests, ``python -m autotune.cli_tuning``)."""
    p = argparse.ArgumentParser(prog="autotune", description="Tuning loop of autotune.")
    register(p.add_subparsers(dest="command", required=True))
    return p


def main(argv=None) -> int:
    """Run a tuning verb (same error handling as ``autotune``: :func:`autotune._cli_common.dispatch`)."""
    return dispatch(build_parser().parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
