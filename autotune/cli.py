"""Command-line interface: ``autotune profile|run ...``.

GRAPH arguments are file paths (SNAP ``.txt[.gz]``, Matrix Market ``.mtx[.gz]``, DIMACS ``.gr``) or
generator specs such as ``kron:scale=22,edge_factor=16`` or ``grid:rows=2048,cols=2048,drop=0.1``.
"""
from __future__ import annotations

import argparse
import json
import math
import sys

import numpy as np

from . import __version__
from ._cli_common import dispatch, err as _err, int_at_least  # noqa: F401  (dispatch: re-exported)
from ._files import read_config_file
from .errors import ConfigError


def _console():
    from rich.console import Console

    return Console(stderr=False, highlight=False)


def _load(spec: str, args):
    """The graph of a GRAPH argument, with ``--undirected``, ``--weight-column`` and ``--weights``
    (seeded weights for a graph that has none, :func:`autotune.sweep.attach_weights`)."""
    from .graph import load_graph

    directed = None
    if getattr(args, "undirected", False):
        directed = False
    g = load_graph(spec, directed=directed, weight_column=getattr(args, "weight_column", None))
    if getattr(args, "weights", None):
        from .sweep import attach_weights

        g = attach_weights(g, args.weights)
    return g


def _fmt(x, nd=3):
    if x is None:
        return "-"
    if isinstance(x, float):
        if math.isnan(x):
            return "-"
        return f"{x:,.{nd}f}"
    if isinstance(x, (int, np.integer)):
        return f"{int(x):,}"
    return str(x)


# --------------------------------------------------------------------------------------- profile
def cmd_profile(args) -> int:
    from rich.table import Table

    from .features import profile

    rows = []
    for spec in args.graphs:
        g = _load(spec, args)
        f = profile(g, n_sources=args.sources, seed=args.seed)
        rows.append((g, f))
    if args.json:
        print(json.dumps([{"graph": g.name, "spec": g.spec, "fingerprint": g.fingerprint, "features": f.to_dict()}
                          for g, f in rows], indent=2))
        return 0
    con = _console()
    for g, f in rows:
        t = Table(title=f"{g.name}  ({'directed' if g.directed else 'undirected'})")
        t.add_column("feature")
        t.add_column("value", justify="right")
        for k, v in f.to_dict().items():
            t.add_row(k, _fmt(v))
        t.add_row("self-loops removed", _fmt(g.n_self_loops_removed))
        t.add_row("duplicate edges removed", _fmt(g.n_duplicates_removed))
        if g.weights is not None:
            t.add_row("weights", f"{g.weights.dtype} (duplicates keep the minimum)")
            t.add_row("heavier duplicate weights dropped", _fmt(g.n_weight_conflicts))
        con.print(t)
    return 0


# ------------------------------------------------------------------------------------------- run
def _configs_from_args(args):
    """One config per ``--load-balance`` technique: the engine's default strategy of the algorithm
    with that technique, then every knob flag given (each ``TraversalConfig`` field has one,
    table-driven); a knob that does not apply to a technique is left out for it (and named when it
    applies to none).

    The algorithm is ``--algorithm`` (default ``bfs``; ``--sssp-method`` or ``--delta`` alone imply
    ``sssp``). BFS starts from ``autotune.engine.DEFAULT_CONFIG`` (binary search, push_pull), SSSP
    from :data:`autotune.sssp_rules.DEFAULT_SSSP_CONFIG` (Delta-stepping at delta_0, binary search).
    """
    from .config import LOAD_BALANCE_TECHNIQUES, _FIELDS
    from .engine import DEFAULT_CONFIG
    from .sssp_rules import DEFAULT_SSSP_CONFIG

    if args.config:
        return [read_config_file(args.config)]
    lbs = list(LOAD_BALANCE_TECHNIQUES) if "all" in args.load_balance else args.load_balance
    given = {name: _knob_value(name, getattr(args, name)) for name in _FIELDS
             if name != "load_balance" and getattr(args, name, None) is not None}
    algorithm = given.pop("algorithm", None)
    if algorithm is None:
        algorithm = "sssp" if ("sssp_method" in given or "delta" in given) else "bfs"
    base = DEFAULT_SSSP_CONFIG if algorithm == "sssp" else DEFAULT_CONFIG
    out, used = [], set()
    for lb in lbs:
        cfg = base.with_(load_balance=lb)
        for name, value in given.items():  # table order: a knob may make later ones apply
            try:
                cfg = cfg.with_(**{name: value})
                used.add(name)
            except ValueError as exc:
                if _FIELDS[name].conditional:
                    continue  # does not apply to this technique
                raise ConfigError(f"--{name.replace('_', '-')}: {exc}") from None
        out.append(cfg)
    unused = sorted(set(given) - used)
    if unused:
        raise ConfigError(f"--{unused[0].replace('_', '-')} applies to none of the techniques run "
                         f"({_FIELDS[unused[0]].condition})")
    return out


def _knob_value(name: str, text: str):
    from .config import _FIELDS

    for a in _FIELDS[name].allowed:
        if str(a) == text:
            return a
    raise ConfigError(f"--{name.replace('_', '-')}: invalid value {text!r}")


def sssp_summary(res) -> dict:
    """What ``autotune run --algorithm sssp`` reports of one SSSP result (JSON-ready).

    Parameters
    ----------
    res : SSSPResult
        From the SSSP engine (distances int64 with ``np.iinfo(np.int64).max`` unreached, or
        float64 with +inf for float weights).

    Returns
    -------
    dict
        ``source``, ``n_reached``, ``max_distance`` / ``mean_distance`` over the reached vertices
        (weight units), ``relaxations`` (edges relaxed), ``iterations``, ``delta`` (bucket width in
        weight units, None for Bellman-Ford), ``elapsed_ms``, ``edges_traversed``, ``gteps``.
    """
    d = np.asarray(res.distances)
    reached = np.isfinite(d) if d.dtype.kind == "f" else d != np.iinfo(np.int64).max
    vals = d[reached].astype(np.float64)
    return {"source": int(res.source), "n_reached": int(reached.sum()),
            "max_distance": float(vals.max()) if vals.size else None,
            "mean_distance": float(vals.mean()) if vals.size else None,
            "relaxations": int(res.relaxations), "iterations": len(res.iterations) or res.extra.get("iterations"),
            "delta": res.delta, "elapsed_ms": float(res.elapsed_ms), "edges_traversed": int(res.edges_traversed),
            "gteps": float(res.gteps)}


def _print_sssp_summary(con, g, runner_name: str, s: dict) -> None:
    dist = "-" if s["max_distance"] is None else f"max {_fmt(s['max_distance'], 2)}, mean {_fmt(s['mean_distance'], 2)}"
    con.print(f"{g.name}: SSSP from {s['source']} ({runner_name}): {_fmt(s['n_reached'])} of {_fmt(g.n_vertices)} "
              f"vertices reached, distances {dist}; {_fmt(s['relaxations'])} relaxations in {_fmt(s['iterations'])} "
              f"iterations" + ("" if s["delta"] is None else f", delta {_fmt(float(s['delta']), 2)}")
              + f"; {_fmt(s['elapsed_ms'])} ms, {_fmt(s['gteps'], 2)} GTEPS"
              + ("; validated against Dijkstra" if s.get("validated") else ""))


def cmd_run(args) -> int:
    from ._backend import gpu_available, _probe

    if not gpu_available():
        _err(f"'autotune run' needs an NVIDIA GPU with CuPy ({_probe()[1]}). "
             "'autotune profile' works without one.")
        return 2
    from rich.table import Table

    from .engine import get_engine
    from .measure import (
        GPURunner, ScipyDijkstraRunner, ScipyRunner, measure, select_sources, validate_against_reference,
    )

    configs = _configs_from_args(args)  # a bad --config or knob: the project's error (exit 2)
    algorithm = configs[0].algorithm
    if any(c.algorithm != algorithm for c in configs):
        raise ConfigError("autotune run: the configs mix algorithms; run BFS and SSSP separately")
    peer_cls = ScipyDijkstraRunner if algorithm == "sssp" else ScipyRunner
    results = []
    for spec in args.graphs:
        g = _load(spec, args)
        runners = [GPURunner(g, c) for c in configs]
        if args.peer == "scipy":
            runners.append(peer_cls(g))
        if args.source is not None:
            src = int(g.index_of(args.source))
            sources = np.asarray([src])
        else:
            sources = select_sources(g, args.sources, args.seed)
        ms = [measure(r, sources, validate=args.validate and not isinstance(r, peer_cls)) for r in runners]
        from .logs import weights_spec

        entry = {"graph": g.name, "spec": g.spec, "algorithm": algorithm, "weights": weights_spec(g),
                 "n_vertices": g.n_vertices, "n_edges": g.n_edges,
                 "directed": g.directed, "sources": [int(s) for s in sources], "validated": bool(args.validate),
                 "measurements": [m.to_dict() | {"config": (r.config.to_dict() if hasattr(r, "config") else None)}
                                  for r, m in zip(runners, ms)]}
        if args.trace or algorithm == "sssp":
            eng = get_engine(g, configs[0])
            res = eng.bfs(int(sources[0]), trace=True)  # an SSSPResult from the SSSP engine
            if args.validate:
                validate_against_reference(g, int(sources[0]), res.distances, res.predecessors, algorithm=algorithm)
            if args.trace:
                entry["trace"] = {"source": int(sources[0]), "config": configs[0].to_dict(),
                                  "levels": [lv.__dict__ for lv in res.levels]}
            if algorithm == "sssp":
                entry["sssp"] = sssp_summary(res) | {"validated": bool(args.validate)}
        results.append((g, runners, ms, entry))
    if args.json:
        print(json.dumps([e for *_, e in results], indent=2))
    else:
        con = _console()
        t = Table(title=f"autotune run ({algorithm.upper()}) — {len(sources)} source(s), seed {args.seed}"
                        + (", validated" if args.validate else ""))
        depth_col = "iterations" if algorithm == "sssp" else "depth"
        for c in ("graph", "vertices", "edges", "runner", "median ms", "GTEPS", depth_col, "valid", "vs scipy"):
            t.add_column(c, justify="left" if c in ("graph", "runner") else "right")
        for g, runners, ms, _ in results:
            ref = next((m for m in ms if m.name == peer_cls.name and m.valid), None)
            for m in ms:
                speed = (ref.median_ms / m.median_ms) if (ref is not None and m.valid and m.median_ms > 0) else None
                t.add_row(g.name, _fmt(g.n_vertices), _fmt(g.n_edges), m.name,
                          _fmt(m.median_ms), _fmt(m.gteps, 2), _fmt(m.depth_mean, 1),
                          "yes" if m.valid else f"NO: {m.error}", f"{speed:.1f}x" if speed else "-")
        con.print(t)
        for g, runners, ms, e in results:
            if "sssp" in e:
                _print_sssp_summary(con, g, runners[0].name, e["sssp"])
            if "trace" in e:
                unit = "iteration" if e.get("algorithm") == "sssp" else "level"
                tt = Table(title=f"per-{unit} trace: {g.name}, source {e['trace']['source']}, {runners[0].name}")
                for c in ("level", "frontier", "direction", "path", "vw", "µs"):
                    tt.add_column(c, justify="right")
                for lv in e["trace"]["levels"]:
                    tt.add_row(str(lv["level"]), _fmt(lv["frontier_size"]), lv["direction"], lv["path"],
                               _fmt(lv["virtual_warp_size"]), _fmt(lv["us"], 1))
                con.print(tt)
    bad = [m for *_, ms, _ in results for m in ms if not m.valid]
    if bad:
        for m in bad:
            _err(f"{m.name}: {m.error}")
        return 1
    return 0


# ----------------------------------------------------------------------------------------- bench
def cmd_bench(args) -> int:
    from ._backend import _probe, device_properties, gpu_available

    if not gpu_available():
        _err(f"'autotune bench' needs an NVIDIA GPU with CuPy ({_probe()[1]}).")
        return 2
    from rich.table import Table

    from .bench import PEERS_BY_ALGORITHM, bench, plot, write_json

    algorithm = args.algorithm
    if args.peers is None:  # the algorithm's peers; GAP joins (or is noted as skipped) without a folder too
        peers = list(PEERS_BY_ALGORITHM[algorithm])
    else:
        peers = [p for p in args.peers.split(",") if p and p != "none"]
        unknown = [p for p in peers if p not in PEERS_BY_ALGORITHM[algorithm]]
        if unknown:
            raise ConfigError(f"--peers: {', '.join(unknown)} is not a {algorithm} peer; "
                              f"{algorithm} peers: {', '.join(PEERS_BY_ALGORITHM[algorithm])}")
    results = []
    for spec in args.graphs:
        g = _load(spec, args)
        if args.config:
            configs = [read_config_file(path) for path in args.config]
            bad = [c.label for c in configs if c.algorithm != algorithm]
            if bad:
                raise ConfigError(f"--config: {bad[0]} is not an {algorithm} config (use --algorithm "
                                  f"{'sssp' if algorithm == 'bfs' else 'bfs'} or another config)")
        elif args.tune or algorithm == "sssp":  # SSSP: the model's pick (or the Delta rule) by default
            import warnings

            from ._cli_common import warn_to_stderr
            from .search import tune

            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                configs = [tune(g, algorithm=algorithm)]
            warn_to_stderr(caught)
        else:
            from .engine import DEFAULT_CONFIG

            configs = [DEFAULT_CONFIG]
        results.append(bench(g, configs, peers=peers, n_sources=args.sources, seed=args.seed,
                             validate=not args.no_validate, algorithm=algorithm, gap_dir=args.gap_dir,
                             gap_threads=args.gap_threads, gap_sources=args.gap_sources))
    dev = device_properties()
    if args.json:
        write_json(results, args.json, dev)
    if args.plot:
        plot(results, args.plot)
    con = _console()
    t = Table(title=f"autotune bench ({algorithm.upper()}) on {dev['name']} — {args.sources} sources, seed {args.seed}"
                    + ("" if args.no_validate else ", validated"))
    for c in ("graph", "edges", "runner", "median ms", "GTEPS", "iterations" if algorithm == "sssp" else "depth",
              "valid", "vs scipy", "vs GAP"):
        t.add_column(c, justify="left" if c in ("graph", "runner") else "right")
    for r in results:
        ref = next((m for m in r.measurements if m.name.startswith("scipy") and m.valid), None)
        gap = next((m for m in r.measurements if m.name.startswith("GAP") and m.valid), None)
        for i, m in enumerate(r.measurements):
            sp = ref.median_ms / m.median_ms if (ref and m.valid and m.median_ms > 0) else None
            vg = gap.median_ms / m.median_ms if (gap and m.valid and m.median_ms > 0) else None
            name = m.name + (f" (delta {m.extra['best_delta']})" if m.extra.get("best_delta") is not None else "")
            own = i < len(r.configs) or (algorithm == "bfs" and m.timer != "gap-trial-time")
            depth = _fmt(m.depth_mean, 1) if own else "-"  # Dijkstra and GAP report no depth
            t.add_row(r.graph, _fmt(r.n_edges), name, _fmt(m.median_ms), _fmt(m.gteps, 2), depth,
                      "yes" if m.valid else f"NO: {m.error}", f"{sp:.1f}x" if sp else "-", f"{vg:.2f}x" if vg else "-")
    con.print(t)
    for r in results:
        for tr in r.trace:
            by = {}
            for lv in tr["levels"]:
                k = f"{lv.get('direction', '?')}/{lv.get('path', '?')}"
                n, us = by.get(k, (0, 0.0))
                by[k] = (n + 1, us + (lv.get("us") or 0.0))
            unit = "iterations" if r.algorithm == "sssp" else "levels"
            extra = (f" ({_fmt(tr['relaxations'])} relaxations"
                     + ("" if tr.get("delta") is None else f", delta {_fmt(float(tr['delta']), 2)}") + ")"
                     if "relaxations" in tr else "")
            con.print(f"{r.graph}: {tr['config']}{extra} {unit} by path: "
                      + ", ".join(f"{k} {n} {unit} {us / 1e3:.3f} ms" for k, (n, us) in by.items()))
        for note in r.notes:
            con.print(f"{r.graph}: {note}")
    return 1 if any(not m.valid for r in results for m in r.measurements) else 0


# ------------------------------------------------------------------------------------------ main
def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="autotune", description="Per-graph auto-tuned BFS on NVIDIA GPUs.")
    p.add_argument("--version", action="version", version=f"autotune {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    def graph_args(sp):
        sp.add_argument("graphs", nargs="+", metavar="GRAPH",
                        help="file (.txt[.gz] SNAP, .mtx[.gz], .gr) or generator spec, e.g. kron:scale=20")
        sp.add_argument("--undirected", action="store_true",
                        help="symmetrize edge lists (SNAP/DIMACS files are read as directed by default)")
        sp.add_argument("--weight-column", type=int, default=None, metavar="N",
                        help="0-based column of an edge-list file holding edge weights, e.g. 2 (default: none, "
                             "unweighted; .mtx values and .gr lengths are always weights)")
        sp.add_argument("--weights", default=None, metavar="DIST",
                        help="seeded weights (seed 0) for graphs without their own, e.g. int:1:255 (GAP's) or "
                             "float:0.5:2; generator specs can say weights=DIST instead")

    sp = sub.add_parser("profile", help="graph features (works without a GPU)")
    graph_args(sp)
    sp.add_argument("--sources", type=int_at_least(0), default=8, help="BFS sources for the eccentricity estimate")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--json", action="store_true", help="print JSON instead of a table")
    sp.set_defaults(func=cmd_profile)

    from .config import _FIELDS, LOAD_BALANCE_TECHNIQUES

    sp = sub.add_parser("run", help="exact BFS or SSSP on the GPU with a chosen strategy, timed per the protocol")
    graph_args(sp)
    sp.add_argument("--config", help="a TraversalConfig JSON file (e.g. from 'autotune tune --out')")
    sp.add_argument("--load-balance", nargs="+", default=["binary_search"],
                    choices=list(LOAD_BALANCE_TECHNIQUES) + ["all"], help="technique(s) to run")
    for name, spec in _FIELDS.items():  # one flag per strategy field, table-driven
        if name == "load_balance":
            continue
        help_ = f"default: the engine's default strategy; applies when {spec.condition}" if spec.conditional \
            else "default: the engine's default strategy"
        if name == "algorithm":
            help_ = ("bfs (default) or sssp (shortest paths over the edge weights, unit weights when the graph has "
                     "none; --sssp-method/--delta imply it)")
        elif name == "delta":
            help_ = ("Delta-stepping / near-far bucket width as a multiple of delta_0 = 32 x mean weight / mean "
                     "out-degree (default 1); " + help_)
        sp.add_argument(f"--{name.replace('_', '-')}", dest=name, choices=[str(a) for a in spec.allowed],
                        default=None, help=help_)
    sp.add_argument("--sources", type=int_at_least(1), default=16, help="number of sources (out-degree > 0, seeded)")
    sp.add_argument("--source", type=int, default=None, help="one source, as an id of the input file")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--validate", action="store_true",
                    help="check every result against scipy.sparse.csgraph (BFS, or Dijkstra for SSSP) and the "
                         "tree rules")
    sp.add_argument("--peer", choices=["scipy", "none"], default="scipy",
                    help="also time scipy's CPU BFS (Dijkstra for SSSP) on the same sources (default)")
    sp.add_argument("--trace", action="store_true", help="print the per-level trace of the first source")
    sp.add_argument("--json", action="store_true", help="print JSON instead of a table")
    sp.set_defaults(func=cmd_run)

    sp = sub.add_parser("bench", help="autotune vs peers (scipy, cupyx SpMV, cuGraph, GAP) on the same sources")
    graph_args(sp)
    sp.add_argument("--algorithm", choices=["bfs", "sssp"], default="bfs",
                    help="bfs (default) or sssp: the tuned SSSP config (model's pick, else the Delta rule) per graph "
                         "against scipy's Dijkstra and GAP's Delta-stepping")
    sp.add_argument("--config", action="append", help="TraversalConfig JSON file (repeatable)")
    sp.add_argument("--tune", action="store_true",
                    help="use tune(graph)'s fast-path prediction per graph (always for --algorithm sssp without "
                         "--config)")
    sp.add_argument("--peers", default=None,
                    help="comma list or none; BFS: scipy,cupyx,cugraph,gap; SSSP: scipy,gap (default: all of the "
                         "algorithm's; gap is skipped with a note when no GAP folder is given or set)")
    sp.add_argument("--gap-dir", default=None, metavar="DIR",
                    help="folder of GAP's 'bfs' and 'sssp' binaries (built with 'make bfs sssp'); default "
                         "$AUTOTUNE_GAP_DIR")
    sp.add_argument("--gap-threads", type=int_at_least(1), default=16, help="OpenMP threads of GAP (default 16)")
    sp.add_argument("--gap-sources", type=int_at_least(1), default=16,
                    help="time GAP on the first N of the sources (one GAP process per source and delta; default 16)")
    sp.add_argument("--sources", type=int_at_least(1), default=64)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--no-validate", action="store_true", help="skip checking every traversal (faster)")
    sp.add_argument("--json", metavar="FILE", help="write all measurements as JSON")
    sp.add_argument("--plot", metavar="FILE.png", help="write a bar chart of median times")
    sp.set_defaults(func=cmd_bench)
    from .cli_tuning import register

    register(sub)
    return p


def main(argv=None) -> int:
    """Entry point of the ``autotune`` command.

    Returns 0 on success, 1 when a measurement was invalid, 2 with one line ``autotune: error: ...``
    for the project's errors (:class:`~autotune.errors.AutotuneError`: a bad file, spec, config or
    flag, too little memory, no GPU), 130 on Ctrl-C; any other exception is a bug and propagates
    with its traceback (see :func:`autotune._cli_common.dispatch`).
    """
    return dispatch(build_parser().parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
