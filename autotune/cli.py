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


def _console():
    from rich.console import Console

    return Console(stderr=False, highlight=False)


def _err(msg: str) -> None:
    print(f"autotune: error: {msg}", file=sys.stderr)


def _load(spec: str, args):
    from .graph import load_graph

    directed = None
    if getattr(args, "undirected", False):
        directed = False
    return load_graph(spec, directed=directed)


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
        con.print(t)
    return 0


# ------------------------------------------------------------------------------------------- run
def _configs_from_args(args):
    """One config per ``--load-balance`` technique: the engine's default strategy with that
    technique, then every knob flag given (each ``TraversalConfig`` field has one, table-driven);
    a knob that does not apply to a technique is left out for it (and named when it applies to none)."""
    from .config import LOAD_BALANCE_TECHNIQUES, _FIELDS
    from .config import TraversalConfig
    from .engine import DEFAULT_CONFIG

    if args.config:
        with open(args.config) as fh:
            return [TraversalConfig.from_json(fh.read())]
    lbs = list(LOAD_BALANCE_TECHNIQUES) if "all" in args.load_balance else args.load_balance
    given = {name: _knob_value(name, getattr(args, name)) for name in _FIELDS
             if name != "load_balance" and getattr(args, name, None) is not None}
    out, used = [], set()
    for lb in lbs:
        cfg = DEFAULT_CONFIG.with_(load_balance=lb)
        for name, value in given.items():  # table order: a knob may make later ones apply
            try:
                cfg = cfg.with_(**{name: value})
                used.add(name)
            except ValueError:
                if _FIELDS[name].conditional:
                    continue  # does not apply to this technique
                raise
        out.append(cfg)
    unused = sorted(set(given) - used)
    if unused:
        raise ValueError(f"--{unused[0].replace('_', '-')} applies to none of the techniques run "
                         f"({_FIELDS[unused[0]].condition})")
    return out


def _knob_value(name: str, text: str):
    from .config import _FIELDS

    for a in _FIELDS[name].allowed:
        if str(a) == text:
            return a
    raise ValueError(f"--{name.replace('_', '-')}: invalid value {text!r}")


def cmd_run(args) -> int:
    from ._backend import gpu_available, _probe

    if not gpu_available():
        _err(f"'autotune run' needs an NVIDIA GPU with CuPy ({_probe()[1]}). "
             "'autotune profile' works without one.")
        return 2
    from rich.table import Table

    from .engine import get_engine
    from .measure import GPURunner, ScipyRunner, measure, select_sources, validate_against_reference

    try:
        configs = _configs_from_args(args)
    except (OSError, ValueError) as e:
        _err(f"autotune run: {e}")
        return 2
    results = []
    for spec in args.graphs:
        g = _load(spec, args)
        runners = [GPURunner(g, c) for c in configs]
        if args.peer == "scipy":
            runners.append(ScipyRunner(g))
        if args.source is not None:
            src = int(g.index_of(args.source))
            sources = np.asarray([src])
        else:
            sources = select_sources(g, args.sources, args.seed)
        ms = [measure(r, sources, validate=args.validate and not isinstance(r, ScipyRunner)) for r in runners]
        entry = {"graph": g.name, "spec": g.spec, "n_vertices": g.n_vertices, "n_edges": g.n_edges,
                 "directed": g.directed, "sources": [int(s) for s in sources], "validated": bool(args.validate),
                 "measurements": [m.to_dict() | {"config": (r.config.to_dict() if hasattr(r, "config") else None)}
                                  for r, m in zip(runners, ms)]}
        if args.trace:
            eng = get_engine(g, configs[0])
            res = eng.bfs(int(sources[0]), trace=True)
            if args.validate:
                validate_against_reference(g, int(sources[0]), res.distances, res.predecessors)
            entry["trace"] = {"source": int(sources[0]), "config": configs[0].to_dict(),
                              "levels": [lv.__dict__ for lv in res.levels]}
        results.append((g, runners, ms, entry))
    if args.json:
        print(json.dumps([e for *_, e in results], indent=2))
    else:
        con = _console()
        t = Table(title=f"autotune run — {len(sources)} source(s), seed {args.seed}"
                        + (", validated" if args.validate else ""))
        for c in ("graph", "vertices", "edges", "runner", "median ms", "GTEPS", "depth", "valid", "vs scipy"):
            t.add_column(c, justify="left" if c in ("graph", "runner") else "right")
        for g, runners, ms, _ in results:
            ref = next((m for m in ms if m.name == ScipyRunner.name and m.valid), None)
            for m in ms:
                speed = (ref.median_ms / m.median_ms) if (ref is not None and m.valid and m.median_ms > 0) else None
                t.add_row(g.name, _fmt(g.n_vertices), _fmt(g.n_edges), m.name,
                          _fmt(m.median_ms), _fmt(m.gteps, 2), _fmt(m.depth_mean, 1),
                          "yes" if m.valid else f"NO: {m.error}", f"{speed:.1f}x" if speed else "-")
        con.print(t)
        for g, runners, ms, e in results:
            if "trace" in e:
                tt = Table(title=f"per-level trace: {g.name}, source {e['trace']['source']}, {runners[0].name}")
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

    from .bench import bench, plot, write_json
    from .config import TraversalConfig

    peers = [p for p in args.peers.split(",") if p and p != "none"]
    results = []
    for spec in args.graphs:
        g = _load(spec, args)
        if args.config:
            configs = []
            for path in args.config:
                with open(path) as fh:
                    configs.append(TraversalConfig.from_json(fh.read()))
        elif args.tune:
            from .search import tune

            configs = [tune(g)]
        else:
            from .engine import DEFAULT_CONFIG

            configs = [DEFAULT_CONFIG]
        results.append(bench(g, configs, peers=peers, n_sources=args.sources, seed=args.seed,
                             validate=not args.no_validate))
    dev = device_properties()
    if args.json:
        write_json(results, args.json, dev)
    if args.plot:
        plot(results, args.plot)
    con = _console()
    t = Table(title=f"autotune bench on {dev['name']} — {args.sources} sources, seed {args.seed}"
                    + ("" if args.no_validate else ", validated"))
    for c in ("graph", "edges", "runner", "median ms", "GTEPS", "depth", "valid", "vs scipy"):
        t.add_column(c, justify="left" if c in ("graph", "runner") else "right")
    for r in results:
        ref = next((m for m in r.measurements if m.name.startswith("scipy") and m.valid), None)
        for m in r.measurements:
            sp = ref.median_ms / m.median_ms if (ref and m.valid and m.median_ms > 0) else None
            t.add_row(r.graph, _fmt(r.n_edges), m.name, _fmt(m.median_ms), _fmt(m.gteps, 2), _fmt(m.depth_mean, 1),
                      "yes" if m.valid else f"NO: {m.error}", f"{sp:.1f}x" if sp else "-")
    con.print(t)
    for r in results:
        for tr in r.trace:
            by = {}
            for lv in tr["levels"]:
                k = f"{lv['direction']}/{lv['path']}"
                n, us = by.get(k, (0, 0.0))
                by[k] = (n + 1, us + (lv["us"] or 0.0))
            con.print(f"{r.graph}: {tr['config']} levels by path: "
                      + ", ".join(f"{k} {n} levels {us / 1e3:.3f} ms" for k, (n, us) in by.items()))
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

    sp = sub.add_parser("profile", help="graph features (works without a GPU)")
    graph_args(sp)
    sp.add_argument("--sources", type=int, default=8, help="BFS sources for the eccentricity estimate")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--json", action="store_true", help="print JSON instead of a table")
    sp.set_defaults(func=cmd_profile)

    from .config import _FIELDS, LOAD_BALANCE_TECHNIQUES

    sp = sub.add_parser("run", help="exact BFS on the GPU with a chosen strategy, timed per the protocol")
    graph_args(sp)
    sp.add_argument("--config", help="a TraversalConfig JSON file (e.g. from 'autotune tune --out')")
    sp.add_argument("--load-balance", nargs="+", default=["binary_search"],
                    choices=list(LOAD_BALANCE_TECHNIQUES) + ["all"], help="technique(s) to run")
    for name, spec in _FIELDS.items():  # one flag per strategy field, table-driven
        if name == "load_balance":
            continue
        help_ = f"default: the engine's default strategy; applies when {spec.condition}" if spec.conditional \
            else "default: the engine's default strategy"
        sp.add_argument(f"--{name.replace('_', '-')}", dest=name, choices=[str(a) for a in spec.allowed],
                        default=None, help=help_)
    sp.add_argument("--sources", type=int, default=16, help="number of sources (out-degree > 0, seeded)")
    sp.add_argument("--source", type=int, default=None, help="one source, as an id of the input file")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--validate", action="store_true",
                    help="check every result against scipy.sparse.csgraph and the Graph500 tree rules")
    sp.add_argument("--peer", choices=["scipy", "none"], default="scipy",
                    help="also time scipy's CPU BFS on the same sources (default)")
    sp.add_argument("--trace", action="store_true", help="print the per-level trace of the first source")
    sp.add_argument("--json", action="store_true", help="print JSON instead of a table")
    sp.set_defaults(func=cmd_run)

    sp = sub.add_parser("bench", help="autotune vs peers (scipy, cupyx SpMV, cuGraph) on the same sources")
    graph_args(sp)
    sp.add_argument("--config", action="append", help="TraversalConfig JSON file (repeatable)")
    sp.add_argument("--tune", action="store_true", help="use tune(graph)'s fast-path prediction per graph")
    sp.add_argument("--peers", default="scipy,cupyx,cugraph", help="comma list of scipy,cupyx,cugraph or none")
    sp.add_argument("--sources", type=int, default=64)
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--no-validate", action="store_true", help="skip checking every traversal (faster)")
    sp.add_argument("--json", metavar="FILE", help="write all measurements as JSON")
    sp.add_argument("--plot", metavar="FILE.png", help="write a bar chart of median times")
    sp.set_defaults(func=cmd_bench)
    from .cli_tuning import register

    register(sub)
    return p


def main(argv=None) -> int:
    """Entry point of the ``autotune`` command."""
    return dispatch(build_parser().parse_args(argv))


def dispatch(args) -> int:
    """Run the verb chosen in *args*; known errors print ``autotune: error: ...`` and return 2."""
    try:
        return int(args.func(args) or 0)
    except (FileNotFoundError, KeyError, ValueError, MemoryError) as exc:
        _err(str(exc).strip("'\""))
        return 2
    except Exception as exc:
        from .errors import AutotuneError

        if isinstance(exc, AutotuneError):
            _err(str(exc))
            return 2
        raise


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
