"""Command-line verbs of the batched BFS: ``autotune run GRAPH --sources N --batch`` and
``autotune closeness GRAPH [--sources N] [--out F]`` (registered by :mod:`autotune.cli`)."""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from ._cli_common import err as _err, int_at_least, is_tty, load_graph_arg

__all__ = ["add_batch_args", "cmd_run_batch", "cmd_closeness", "register"]


def add_batch_args(sp) -> None:
    """``--batch`` and ``--width`` on ``autotune run``."""
    from .batched import BATCH_WIDTHS

    sp.add_argument("--batch", action="store_true",
                    help="run all --sources in batched (bit-parallel multi-source) BFS launches instead of one by "
                         "one; prints per-source reductions and timing")
    sp.add_argument("--width", type=int, choices=list(BATCH_WIDTHS), default=None,
                    help="sources per batched traversal (default: by the number of sources, at most 512)")


class _Progress:
    """``progress(done, total)``: a Rich bar on a terminal, one plain line per 10 %% otherwise."""

    def __init__(self, what: str):
        self.what = what
        self.bar = None
        self.last = -1
        if is_tty():
            from rich.progress import Progress

            self.bar = Progress(transient=True)
            self.task = None

    def __enter__(self):
        if self.bar is not None:
            self.bar.__enter__()
        return self

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.__exit__(*exc)

    def __call__(self, done: int, total: int) -> None:
        if self.bar is not None:
            if self.task is None:
                self.task = self.bar.add_task(self.what, total=total)
            self.bar.update(self.task, completed=done)
            return
        pct = int(10 * done / max(total, 1))
        if pct != self.last:
            self.last = pct
            print(f"{self.what}: {done:,} / {total:,} sources queued", file=sys.stderr, flush=True)


def _gpu_or_exit(verb: str) -> bool:
    from ._backend import _probe, gpu_available

    if not gpu_available():
        _err(f"'autotune {verb}' needs an NVIDIA GPU with CuPy ({_probe()[1]})")
        return False
    return True


def _pick_sources(g, n: int | None, seed: int) -> np.ndarray:
    if n is None or n >= g.n_vertices:
        return np.arange(g.n_vertices, dtype=np.int64)
    return np.sort(np.random.default_rng(seed).choice(g.n_vertices, n, replace=False))


def cmd_run_batch(args) -> int:
    """``autotune run GRAPH --sources N --batch``: N sources (seeded) in batched launches."""
    if not _gpu_or_exit("run --batch"):
        return 2
    from .batched import BatchConfig, default_batch_config, run_batch

    out = []
    for spec in args.graphs:
        g = load_graph_arg(spec, args)
        if args.source is not None:
            src = np.asarray([int(g.index_of(args.source))])
        else:
            src = np.random.default_rng(args.seed).integers(0, g.n_vertices, size=args.sources)
        cfg = BatchConfig(width=args.width) if args.width else default_batch_config(g, len(src))
        t0 = time.perf_counter()
        with _Progress(f"{g.name}: batched BFS") as prog:
            res = run_batch(g, src, cfg, distances=args.validate, progress=prog)
        wall = (time.perf_counter() - t0) * 1e3
        if args.validate:
            from .reference import bfs_reference

            d = res.distances.get() if hasattr(res.distances, "get") else res.distances
            for i in np.linspace(0, len(src) - 1, min(len(src), 16)).astype(int):
                ref = bfs_reference(g, int(src[i]))[0]
                if not np.array_equal(d[i].astype(np.int64), ref):
                    from .errors import ValidationError

                    raise ValidationError(f"batched BFS from source {int(src[i])} differs from scipy's BFS")
        entry = {"graph": g.name, "n_vertices": g.n_vertices, "n_edges": g.n_edges, "sources": len(src),
                 "config": cfg.config_id, "device_ms": res.elapsed_ms, "wall_ms": wall,
                 "ms_per_source": res.elapsed_ms / len(src), "validated": bool(args.validate),
                 "mean_reached": float(res.reached.mean()), "max_eccentricity": int(res.eccentricity.max())}
        out.append(entry)
        if not args.json:
            print(f"{g.name}: {len(src):,} sources in {res.elapsed_ms:,.2f} ms on the GPU "
                  f"({entry['ms_per_source'] * 1e3:,.1f} µs per source, {cfg.config_id}); mean reached "
                  f"{entry['mean_reached']:,.1f}, max eccentricity {entry['max_eccentricity']}"
                  + ("; 16 sources validated" if args.validate else ""))
    if args.json:
        print(json.dumps(out, indent=2))
    return 0


def _write_closeness(path: str, g, c: np.ndarray, src: np.ndarray) -> None:
    from ._files import write_text

    ids = g.vertex_ids[src] if getattr(g, "vertex_ids", None) is not None else src
    if path.endswith(".npy"):
        np.save(path, c)
    elif path.endswith(".json"):
        write_text(path, json.dumps({str(int(i)): float(x) for i, x in zip(ids, c)}))
    else:
        sep = "," if path.endswith(".csv") else "\t"
        write_text(path, "vertex" + sep + "closeness\n" + "".join(
            f"{int(i)}{sep}{float(x)!r}\n" for i, x in zip(ids, c)))


def cmd_closeness(args) -> int:
    """``autotune closeness GRAPH [--sources N] [--out F]``."""
    if not _gpu_or_exit("closeness"):
        return 2
    from .batched import BatchConfig, closeness_centrality

    g = load_graph_arg(args.graph, args)
    src = None if args.sources is None else _pick_sources(g, args.sources, args.seed)
    cfg = BatchConfig(width=args.width) if args.width else None
    t0 = time.perf_counter()
    with _Progress(f"{g.name}: closeness") as prog:
        c = closeness_centrality(g, src, wf_improved=not args.no_wf_improved, config=cfg, progress=prog)
    secs = time.perf_counter() - t0
    vertices = np.arange(g.n_vertices) if src is None else src
    if args.out:
        _write_closeness(args.out, g, c, vertices)
    top = np.argsort(-c)[:10]
    summary = {"graph": g.name, "n_vertices": g.n_vertices, "sources": int(len(vertices)), "seconds": secs,
               "out": args.out, "top": [[int(vertices[i]), float(c[i])] for i in top]}
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        print(f"{g.name}: closeness of {len(vertices):,} vertices in {secs:,.2f} s"
              + (f", written to {args.out}" if args.out else ""))
        for v, x in summary["top"][:5]:
            print(f"  {v}\t{x:.6f}")
    return 0


def register(sub) -> None:
    """Add ``closeness`` to the CLI's sub-parsers."""
    from .batched import BATCH_WIDTHS

    sp = sub.add_parser("closeness", help="closeness centrality (NetworkX's definition) from batched BFS on the GPU")
    sp.add_argument("graph", metavar="GRAPH", help="file, generator spec or shared:NAME")
    sp.add_argument("--undirected", action="store_true", help="symmetrize edge lists")
    sp.add_argument("--weight-column", type=int, default=None, metavar="N", help=argparse.SUPPRESS)
    sp.add_argument("--weights", default=None, help=argparse.SUPPRESS)
    sp.add_argument("--sources", type=int_at_least(1), default=None,
                    help="only this many vertices (seeded sample; default: every vertex)")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--width", type=int, choices=list(BATCH_WIDTHS), default=None,
                    help="sources per batched traversal (default 2048, or fewer for fewer sources)")
    sp.add_argument("--no-wf-improved", action="store_true",
                    help="NetworkX's wf_improved=False (no Wasserman-Faust scaling by the reachable share)")
    sp.add_argument("--out", help="write the values: .npy, .csv, .tsv or .json (vertex ids as in the file)")
    sp.add_argument("--json", action="store_true", help="print a JSON summary")
    sp.set_defaults(func=cmd_closeness)
