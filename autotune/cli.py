"""Command-line interface: ``autotune profile|run|bench|compile ...`` (``tune``, ``sweep`` and
``retrain`` live in :mod:`autotune.cli_tuning`).

GRAPH arguments are file paths (SNAP ``.txt[.gz]``, Matrix Market ``.mtx[.gz]``, DIMACS ``.gr``),
generator specs such as ``kron:scale=22,edge_factor=16`` or ``grid:rows=2048,cols=2048,drop=0.1``, or
``shared:NAME`` (a file of the shared graph set), read the same way by every verb
(:func:`autotune._cli_common.load_graph_arg`).

Heavy libraries (Rich, SciPy, scikit-learn, Optuna, Matplotlib, CuPy) are imported inside the verbs
that use them, so ``import autotune.cli`` stays light and ``autotune tune`` answers quickly.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import types

import numpy as np

from . import __version__
from ._cli_common import dispatch, err as _err, int_at_least  # noqa: F401  (dispatch: re-exported)
from ._cli_common import console as _console, expand_graphs, is_tty, load_graph_arg
from ._files import read_config_file
from .errors import ConfigError, InvalidArgumentError

#: The GRAPH argument reader of every verb (kept under its old name).
_load = load_graph_arg


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
    for spec in expand_graphs(args.graphs):
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
        t.add_column("feature", overflow="fold")
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


def _measure_multi_gpu(g, sources, devices, validate: bool, knobs: dict):
    """``autotune run --devices``: the multi-GPU BFS from every source (ranks set up once) with the
    *knobs* of :func:`autotune.distributed.bfs_multi_gpu`, as a :class:`~autotune.measure.Measurement`
    (device time of each traversal; with *validate*, every result checked against the CPU reference)."""
    from .distributed import bfs_multi_gpu_sources
    from .errors import ValidationError
    from .measure import Measurement
    from .reference import validate_bfs

    results = bfs_multi_gpu_sources(g, [int(s) for s in sources], devices, **knobs)
    deg = g.out_degrees(np)
    how = knobs["direction"] + (f"(a{knobs['alpha']:g},b{knobs['beta']:g})" if knobs["direction"] == "push_pull" else "")
    name = (f"multi-GPU BFS ({len(devices)} rank(s): devices {','.join(map(str, devices))}; {how}, "
            f"exchange={knobs['exchange']}, partition={knobs['partition']})")
    m = Measurement(name, [int(s) for s in sources], [r[2]["elapsed_ms"] for r in results],
                    [int(deg[r[0] >= 0].sum()) for r in results], [r[2]["depth"] for r in results], "cuda-events")
    if validate:
        try:
            for s, (d, p, _) in zip(sources, results):
                validate_bfs(g, int(s), d, p)
        except ValidationError as exc:
            m.valid, m.error = False, str(exc)
    return m


def _prefetch_in_background(configs, eid64: bool = False) -> None:
    """Start compiling (or loading from CuPy's disk cache) the kernels of *configs* in a daemon
    thread, so that a first run on a fresh machine compiles while it parses the graph; the engine
    later finds them memoized (or waits for the one being compiled)."""
    import threading

    from .engine import prefetch_kernels

    def work():
        for c in configs:
            try:
                prefetch_kernels(c, eid64)
            except Exception:  # any failure shows again, with its message, when the engine asks
                pass

    threading.Thread(target=work, name="autotune-prefetch", daemon=True).start()


def cmd_run(args) -> int:
    if getattr(args, "batch", False):
        from .cli_batch import cmd_run_batch

        return cmd_run_batch(args)
    from ._backend import gpu_available, _probe

    if not gpu_available():
        _err(f"'autotune run' needs an NVIDIA GPU with CuPy ({_probe()[1]}). "
             "'autotune profile' works without one.")
        return 2
    from rich.table import Table

    from .engine import get_engine
    from .measure import (
        GPURunner, ScipyDijkstraRunner, ScipyRunner, measure, select_sources,
    )

    configs = _configs_from_args(args)  # a bad --config or knob: the project's error (exit 2)
    if not args.peer_budget >= 0:
        raise InvalidArgumentError(f"--peer-budget must be a number of seconds >= 0, not {args.peer_budget}")
    algorithm = configs[0].algorithm
    if any(c.algorithm != algorithm for c in configs):
        raise ConfigError("autotune run: the configs mix algorithms; run BFS and SSSP separately")
    peer_cls = ScipyDijkstraRunner if algorithm == "sssp" else ScipyRunner
    if args.devices and algorithm != "bfs":
        raise ConfigError("autotune run --devices runs BFS only (the multi-GPU BFS of autotune.distributed)")
    if not args.devices and (args.exchange or args.partition):
        raise ConfigError("autotune run: --exchange and --partition apply only with --devices (the multi-GPU BFS)")
    multi_knobs = None
    if args.devices:
        from .distributed import knobs_from_config

        multi_knobs = dict(knobs_from_config(configs[0]), exchange=args.exchange or "auto",
                           partition=args.partition or "out_in")
    if not args.devices:
        _prefetch_in_background(configs, eid64=getattr(args, "offsets", None) == "int64")
    results = []
    for spec in expand_graphs(args.graphs):
        g = _load(spec, args)
        runners = [GPURunner(g, c, on_device=True) for c in configs]  # --validate: Graph500 checks on the GPU
        if args.peer == "scipy":
            runners.append(peer_cls(g))
        if args.source is not None:
            src = int(g.index_of(args.source))
            sources = np.asarray([src])
        else:
            sources = select_sources(g, args.sources, args.seed)
        if args.devices:  # the multi-GPU BFS instead of the configs (autotune.distributed)
            runners = [r for r in runners if isinstance(r, peer_cls)]
        ms = [measure(r, sources, validate=args.validate and not isinstance(r, peer_cls),
                      budget_s=args.peer_budget if isinstance(r, peer_cls) else None) for r in runners]
        if args.devices:
            m = _measure_multi_gpu(g, sources, args.devices, args.validate, multi_knobs)
            runners.insert(0, types.SimpleNamespace(name=m.name))
            ms.insert(0, m)
        from .logs import weights_spec

        entry = {"graph": g.name, "spec": g.spec, "algorithm": algorithm, "weights": weights_spec(g),
                 "n_vertices": g.n_vertices, "n_edges": g.n_edges,
                 "directed": g.directed, "sources": [int(s) for s in sources], "validated": bool(args.validate),
                 "measurements": [m.to_dict() | {"config": (r.config.to_dict() if hasattr(r, "config") else None)}
                                  for r, m in zip(runners, ms)]}
        if (args.trace or algorithm == "sssp") and not args.devices:
            eng = get_engine(g, configs[0])
            res = eng.bfs(int(sources[0]), trace=True)  # an SSSPResult from the SSSP engine
            if args.validate:
                from .validate_gpu import validate_on_device

                validate_on_device(g, int(sources[0]), res.distances, res.predecessors, algorithm=algorithm)
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
            t.add_column(c, justify="left" if c in ("graph", "runner") else "right",
                         overflow="fold" if c in ("graph", "runner", "valid") else "ellipsis")
        for g, runners, ms, _ in results:
            ref = next((m for m in ms if m.name == peer_cls.name and m.valid), None)
            for m in ms:
                speed = (ref.median_ms / m.median_ms) if (ref is not None and m.valid and m.median_ms > 0) else None
                label = m.name + (f" ({len(m.sources)} of {len(m.sources) + m.extra['sources_skipped']} sources)"
                                  if m.extra.get("sources_skipped") else "")
                t.add_row(g.name, _fmt(g.n_vertices), _fmt(g.n_edges), label,
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
                    tt.add_column(c, justify="right", overflow="fold")
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
def _bench_rows(r, algorithm: str) -> list[tuple]:
    """The table cells of one graph's :class:`~autotune.bench.BenchResult` (one row per runner)."""
    ref = next((m for m in r.measurements if m.name.startswith("scipy") and m.valid), None)
    gap = next((m for m in r.measurements if m.name.startswith("GAP") and m.valid), None)
    rows = []
    for i, m in enumerate(r.measurements):
        sp = ref.median_ms / m.median_ms if (ref and m.valid and m.median_ms > 0) else None
        vg = gap.median_ms / m.median_ms if (gap and m.valid and m.median_ms > 0) else None
        name = m.name + (f" (delta {m.extra['best_delta']})" if m.extra.get("best_delta") is not None else "")
        own = i < len(r.configs) or (algorithm == "bfs" and m.timer != "gap-trial-time")
        depth = _fmt(m.depth_mean, 1) if own else "-"  # Dijkstra and GAP report no depth
        rows.append((r.graph, _fmt(r.n_edges), name, _fmt(m.median_ms), _fmt(m.gteps, 2), depth,
                     "yes" if m.valid else f"NO: {m.error}", f"{sp:.1f}x" if sp else "-", f"{vg:.2f}x" if vg else "-"))
    return rows


_BENCH_COLUMNS = ("graph", "edges", "runner", "median ms", "GTEPS", "depth", "valid", "vs scipy", "vs GAP")


def _bench_table(results, algorithm: str, title: str):
    from rich.table import Table

    t = Table(title=title)
    for c in _BENCH_COLUMNS:
        if c == "depth" and algorithm == "sssp":
            c = "iterations"
        t.add_column(c, justify="left" if c in ("graph", "runner") else "right",
                     overflow="fold" if c in ("graph", "runner", "valid") else "ellipsis")
    for r in results:
        for row in _bench_rows(r, algorithm):
            t.add_row(*row)
    return t


def _bench_line(i: int, n: int, row: tuple) -> str:
    """One streamed line (off a terminal) of one runner's result."""
    graph, edges, name, ms, gteps, depth, valid, sp, vg = row
    return (f"[{i}/{n}] {graph}: {name}: {ms} ms, {gteps} GTEPS, depth {depth}, valid {valid}"
            + (f", {sp} vs scipy" if sp != "-" else "") + (f", {vg} vs GAP" if vg != "-" else ""))


def _bench_notes(con, results) -> None:
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


def cmd_bench(args) -> int:
    """``autotune bench``: each graph's rows are printed as soon as it is measured (above a progress
    bar on a terminal, one plain line per runner otherwise), ``--json FILE`` is rewritten after every
    graph (``"complete": false`` until the last one), and Ctrl-C prints the table of the graphs
    measured so far and exits 130."""
    from ._backend import _probe, device_properties, gpu_available

    if not gpu_available():
        _err(f"'autotune bench' needs an NVIDIA GPU with CuPy ({_probe()[1]}).")
        return 2
    from . import bench as bench_mod

    algorithm = args.algorithm
    if args.peers is None:  # the algorithm's peers; GAP joins (or is noted as skipped) without a folder too
        peers = list(bench_mod.PEERS_BY_ALGORITHM[algorithm])
    else:
        peers = [p for p in args.peers.split(",") if p and p != "none"]
        unknown = [p for p in peers if p not in bench_mod.PEERS_BY_ALGORITHM[algorithm]]
        if unknown:
            raise ConfigError(f"--peers: {', '.join(unknown)} is not a {algorithm} peer; "
                              f"{algorithm} peers: {', '.join(bench_mod.PEERS_BY_ALGORITHM[algorithm])}")
    fixed = None
    if args.config:  # read and checked once, before anything is measured
        fixed = [read_config_file(path) for path in args.config]
        bad = [c.label for c in fixed if c.algorithm != algorithm]
        if bad:
            raise ConfigError(f"--config: {bad[0]} is not an {algorithm} config (use --algorithm "
                              f"{'sssp' if algorithm == 'bfs' else 'bfs'} or another config)")
    for out, what in ((args.json, "--json"), (args.plot, "--plot")):
        if out:
            import os

            from .errors import FileAccessError

            if not os.path.isdir(os.path.dirname(os.path.abspath(out))):  # say so now, not after measuring
                raise FileAccessError(out, f"cannot write the {what} file: folder not found")
    specs = expand_graphs(args.graphs)
    dev = device_properties()
    title = (f"autotune bench ({algorithm.upper()}) on {dev['name']} — {args.sources} sources, seed {args.seed}"
             + ("" if args.no_validate else ", validated"))
    con = _console()
    tty = is_tty()
    results: list = []
    progress = None
    interrupted = False
    try:
        if tty:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                TimeElapsedColumn(), console=con)
            progress.start()
            task = progress.add_task("bench", total=len(specs))
        for i, spec in enumerate(specs, 1):
            if progress is not None:
                progress.update(task, description=f"bench: {spec}")
            g = _load(spec, args)
            if fixed is not None:
                configs = fixed
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
            r = bench_mod.bench(g, configs, peers=peers, n_sources=args.sources, seed=args.seed,
                                validate=not args.no_validate, algorithm=algorithm, gap_dir=args.gap_dir,
                                gap_threads=args.gap_threads, gap_sources=args.gap_sources)
            results.append(r)
            if args.json:  # what was measured survives a stopped run
                bench_mod.write_json(results, args.json, dev, complete=i == len(specs))
            rows = _bench_rows(r, algorithm)
            if progress is not None:
                progress.console.print(_bench_table([r], algorithm, f"{r.graph} ({i}/{len(specs)})"))
                progress.advance(task)
            else:
                for row in rows:
                    print(_bench_line(i, len(specs), row), flush=True)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        if progress is not None:
            progress.stop()
    if args.plot and results:
        bench_mod.plot(results, args.plot)
    if interrupted:
        title += f" — interrupted after {len(results)} of {len(specs)} graph(s)"
    con.print(_bench_table(results, algorithm, title))
    _bench_notes(con, results)
    if interrupted:
        _err(f"interrupted: {len(results)} of {len(specs)} graph(s) measured"
             + (f"; their results are in {args.json}" if args.json and results else ""))
        return 130
    return 1 if any(not m.valid for r in results for m in r.measurements) else 0


# --------------------------------------------------------------------------------------- compile
def _timed_call(fn, *args):
    """``(fn(*args), seconds)``: what a worker process of ``autotune compile`` sends back."""
    import time

    t0 = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t0


def _compile_units(only, algorithm: str) -> list[tuple[str, str]]:
    """``(kernel file key, algorithm)`` pairs of :data:`autotune._kernels.KERNEL_SOURCES` to compile,
    the files with the most instantiations first (the longest compiles start first)."""
    from ._kernels import KERNEL_SOURCES

    unknown = [t for t in (only or ()) if t not in KERNEL_SOURCES]
    if unknown:
        raise InvalidArgumentError(f"--only: unknown kernel file {unknown[0]!r}; known: {', '.join(KERNEL_SOURCES)}")
    units = [(t, alg) for t, ks in KERNEL_SOURCES.items() if not only or t in only
             for alg in ks.names if algorithm == "all" or alg == algorithm]
    if not units:
        raise InvalidArgumentError(f"no kernel of {', '.join(only or KERNEL_SOURCES)} is instantiated for {algorithm}")
    return sorted(units, key=lambda u: -len(KERNEL_SOURCES[u[0]].names[u[1]]))


def _cupy_cache_dir() -> str:
    import os

    return os.environ.get("CUPY_CACHE_DIR") or os.path.expanduser("~/.cupy/kernel_cache")


def _count_files(folder: str) -> int:
    import os

    try:
        return sum(len(files) for _, _, files in os.walk(folder))
    except OSError:
        return 0


def _cache_check(fn, fn_args) -> float:
    """Seconds *fn* takes in a new process (CuPy's in-process memo does not count): a module that
    CuPy's disk cache holds loads in a fraction of its compile time."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as ex:
        return float(ex.submit(_timed_call, fn, *fn_args).result()[1])


def cmd_compile(args) -> int:
    """``autotune compile``: every kernel instantiation for this GPU into CuPy's on-disk cache, each
    its own module as a run compiles it (once per machine, so that a first run loads binaries instead
    of compiling them), several processes at once; with ``--arch`` a check with NVRTC for that architecture instead (no GPU needed, nothing
    cached)."""
    import os
    import time
    from concurrent.futures import ProcessPoolExecutor, as_completed

    from . import _kernels
    from ._backend import _probe, gpu_available
    from .errors import AutotuneError, GPUUnavailableError

    units = _compile_units(args.only, args.algorithm)
    offset_types = {"int32": (False,), "int64": (True,), "both": (False, True)}[args.offsets]

    def _suffix(eid64: bool) -> str:
        return ", int64 offsets" if eid64 else ""

    if args.arch:
        try:
            import cuda.bindings.nvrtc  # noqa: F401
        except Exception as exc:
            raise AutotuneError(f"'autotune compile --arch' compiles with NVRTC from cuda-bindings, which is not "
                                f"importable ({exc.__class__.__name__}: {exc}); install cuda-bindings and "
                                f"nvidia-cuda-nvrtc (both in the [test] extra)") from None
        jobs = [(_kernels.compile_with_nvrtc, (t, arch, alg, e64), f"{t} ({alg}, {arch}{_suffix(e64)})")
                for e64 in offset_types for arch in args.arch for t, alg in units]
        target, device, cache = "nvrtc", None, None
    else:
        if not gpu_available():
            raise GPUUnavailableError(f"'autotune compile' needs an NVIDIA GPU with CuPy ({_probe()[1]}); "
                                      f"'autotune compile --arch sm_90' checks every kernel with NVRTC without one "
                                      f"(nothing is cached)")
        import cupy

        from ._backend import device_properties

        dev_id = cupy.cuda.Device().id
        props = device_properties()
        device = props.get("name")
        arch = "sm_" + str(props.get("cc", "")).replace(".", "")
        # one job per instantiation: a run compiles (and CuPy caches) each kernel as its own module
        jobs = [(_kernels.precompile, (t, alg, dev_id, e64, (name,)), f"{t} ({alg}{_suffix(e64)}): {name}")
                for e64 in offset_types for t, alg in units for name in _kernels.KERNEL_SOURCES[t].names[alg]]
        target, cache = "cupy", _cupy_cache_dir()
    n_procs = args.jobs or min(len(jobs), os.cpu_count() or 1)
    n_procs = max(1, min(n_procs, len(jobs)))
    files_before = _count_files(cache) if cache else 0
    con = _console()
    tty = is_tty() and not args.json
    done: list[dict] = []

    def finished(label, fn_args, result, seconds, error) -> None:
        rec = {"module": label, "kernel_file": fn_args[0], "seconds": round(seconds, 3), "ok": error is None,
               "error": error}
        if target == "nvrtc":
            rec.update(algorithm=fn_args[2], arch=fn_args[1], cubin_bytes=result, offsets="int64" if fn_args[3] else "int32")
        else:
            rec.update(algorithm=fn_args[1], offsets="int64" if fn_args[3] else "int32")
        done.append(rec)
        line = (f"[{len(done)}/{len(jobs)}] {label}: " + (f"{seconds:.1f} s" if error is None else "FAILED"))
        if progress is not None:
            progress.console.print(line)
            progress.advance(task)
        elif not args.json:
            print(line, flush=True)

    progress = None
    t0 = time.perf_counter()
    if tty:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                            console=con)
        progress.start()
        task = progress.add_task(f"compiling ({n_procs} process{'es' if n_procs > 1 else ''})", total=len(jobs))
    try:
        if n_procs == 1:
            for fn, fn_args, label in jobs:
                t1 = time.perf_counter()
                try:
                    result, error = fn(*fn_args), None
                except Exception as exc:  # a kernel that does not compile: reported, the others go on
                    result, error = None, f"{exc.__class__.__name__}: {exc}"
                finished(label, fn_args, result, time.perf_counter() - t1, error)
        else:
            import multiprocessing

            # spawn, not fork: a forked child of a process that touched CUDA cannot use it
            ex = ProcessPoolExecutor(max_workers=n_procs, mp_context=multiprocessing.get_context("spawn"))
            try:
                futures = {ex.submit(_timed_call, fn, *fn_args): (fn_args, label) for fn, fn_args, label in jobs}
                for fut in as_completed(futures):
                    fn_args, label = futures[fut]
                    try:
                        (result, seconds), error = fut.result(), None
                    except Exception as exc:
                        result, seconds, error = None, 0.0, f"{exc.__class__.__name__}: {exc}"
                    finished(label, fn_args, result, seconds, error)
            finally:
                ex.shutdown(wait=True, cancel_futures=True)
    finally:
        if progress is not None:
            progress.stop()
    wall = time.perf_counter() - t0
    bad = [d for d in done if not d["ok"]]
    new_files = (_count_files(cache) - files_before) if cache else None
    check = None
    if target == "cupy" and not bad and done and not args.no_check:
        # does CuPy load these modules from its disk cache? (only CuPy releases with cupy/cupy#9801 and
        # #10177 keep modules compiled with name expressions; older ones compile them in every process)
        slowest = max(done, key=lambda d: d["seconds"])
        fn, fn_args, label = next(j for j in jobs if j[2] == slowest["module"])
        warm = _cache_check(fn, fn_args)
        check = {"module": label, "first_s": slowest["seconds"], "new_process_s": round(warm, 3),
                 "cached": warm < 0.5 * slowest["seconds"] or warm < 0.25}
    summary = {"target": target, "device": device, "arch": list(args.arch) if args.arch else [arch],
               "modules": len(done), "failed": len(bad), "seconds": round(wall, 3), "processes": n_procs,
               "cache_dir": cache, "new_cache_files": new_files, "cache_check": check,
               "results": sorted(done, key=lambda d: d["module"])}
    if args.json:
        print(json.dumps(summary, indent=2))
    elif target == "cupy":
        con.print(f"autotune compile: {len(done) - len(bad)} of {len(done)} kernel modules for {device} ({arch}) in "
                  f"{wall:.1f} s with {n_procs} process{'es' if n_procs > 1 else ''}; CuPy cache {cache} "
                  f"({new_files} new file(s); set CUPY_CACHE_DIR to move it)"
                  + ("" if check is None or not check["cached"] else
                     f"; a new process loads {check['module']} in {check['new_process_s']:.2f} s"))
    else:
        con.print(f"autotune compile: {len(done) - len(bad)} of {len(done)} kernel modules compiled with NVRTC for "
                  f"{', '.join(args.arch)} in {wall:.1f} s with {n_procs} process{'es' if n_procs > 1 else ''} "
                  f"(a check: nothing cached; run 'autotune compile' on the GPU machine to fill CuPy's cache)")
    if check is not None and not check["cached"]:
        import cupy

        print(f"autotune: warning: CuPy {cupy.__version__} compiled {check['module']} again in a new process "
              f"({check['new_process_s']:.1f} s; {check['first_s']:.1f} s the first time): its disk cache does not "
              f"keep modules compiled with name expressions, so every run compiles its kernels; a CuPy release with "
              f"cupy/cupy#10177 keeps them", file=sys.stderr)
    for d in bad:
        _err(f"{d['module']}: {d['error']}")
    return 1 if bad else 0


# ------------------------------------------------------------------------------------------ main
def _device_ids(text: str) -> tuple[int, ...]:
    """An argparse ``type``: comma-separated CUDA device ids such as ``0,1`` (distinct, >= 0)."""
    try:
        ids = tuple(int(t) for t in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected device ids such as 0,1, not {text!r}") from None
    if not ids or min(ids) < 0 or len(set(ids)) != len(ids):
        raise argparse.ArgumentTypeError(f"expected distinct device ids >= 0 such as 0,1, not {text!r}")
    return ids


def _arch(text: str) -> str:
    """An argparse ``type``: a CUDA architecture such as ``sm_90`` (or ``compute_90``)."""
    import re

    if not re.fullmatch(r"(sm|compute)_\d{2,3}[a-z]?", text):
        raise argparse.ArgumentTypeError(f"expected an architecture such as sm_80 or sm_90, got {text!r}")
    return text


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="autotune", description="Per-graph auto-tuned BFS on NVIDIA GPUs.")
    p.add_argument("--version", action="version", version=f"autotune {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    def graph_args(sp):
        sp.add_argument("graphs", nargs="+", metavar="GRAPH",
                        help="file (.txt[.gz] SNAP, .mtx[.gz], .gr), generator spec (e.g. kron:scale=20) or "
                             "shared:NAME (a file of the shared graph set, e.g. shared:road-usroads)")
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
                    help="check every result on the GPU with Graph500's tree rules (BFS; the shortest-path-tree "
                         "rules for SSSP), which prove it exact without a reference traversal")
    sp.add_argument("--peer", choices=["scipy", "none"], default="scipy",
                    help="also time scipy's CPU BFS (Dijkstra for SSSP) on the same sources (default)")
    sp.add_argument("--peer-budget", type=float, default=5.0, metavar="SECONDS",
                    help="stop timing the CPU peer after this many seconds (at least one source; the first "
                         "sources of the same list, counted in the table); default 5")
    sp.add_argument("--trace", action="store_true", help="print the per-level trace of the first source")
    sp.add_argument("--json", action="store_true", help="print JSON instead of a table")
    sp.add_argument("--devices", type=_device_ids, default=None, metavar="0,1",
                    help="run the BFS over these GPUs of the host (autotune.distributed: 1-D partitioned, "
                         "direction-optimizing, one process per GPU, NCCL) instead of the configs; the config's "
                         "--direction, --alpha and --beta apply (default push_pull, 15, 18)")
    sp.add_argument("--exchange", choices=["auto", "queue", "bitmap"], default=None,
                    help="with --devices: push levels send the vertices found in other GPUs' ranges as ids, as "
                         "bitmap words, or the smaller (auto, default)")
    sp.add_argument("--partition", choices=["out_in", "out"], default=None,
                    help="with --devices: balance the GPUs' vertex ranges by out- plus in-edges (default) or "
                         "out-edges")
    from .cli_batch import add_batch_args

    add_batch_args(sp)
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

    sp = sub.add_parser("compile", help="compile every kernel for this GPU into CuPy's cache (once per machine), "
                                        "or check them with NVRTC for --arch")
    sp.add_argument("--arch", nargs="+", default=None, metavar="SM", type=_arch,
                    help="compile with NVRTC for these architectures instead, e.g. sm_80 sm_90: a check that needs "
                         "no GPU and caches nothing")
    sp.add_argument("--algorithm", choices=["bfs", "sssp", "all"], default="all",
                    help="the kernels of this traversal only (default: all)")
    sp.add_argument("--only", nargs="+", default=None, metavar="FILE",
                    help="only these kernel files (keys of autotune._kernels.KERNEL_SOURCES, e.g. binary_search "
                         "persistent)")
    sp.add_argument("--offsets", choices=["int32", "int64", "both"], default="int32",
                    help="the modules for int32 row offsets (default: graphs below 2**31 edges), for int64 ones "
                         "(larger graphs), or both")
    sp.add_argument("--jobs", "-j", type=int_at_least(1), default=None, metavar="N",
                    help="processes compiling at once (default: one per CPU core, at most one per module)")
    sp.add_argument("--no-check", action="store_true",
                    help="skip loading the slowest module again in a new process (the check that CuPy's disk cache "
                         "keeps these modules)")
    sp.add_argument("--json", action="store_true", help="print a JSON summary instead of progress and a line")
    sp.set_defaults(func=cmd_compile)
    from .cli_tuning import register

    register(sub)
    from .cli_batch import register as register_batch

    register_batch(sub)
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
