"""GAP Benchmark Suite as a CPU peer: its serialized graph files and its ``bfs`` / ``sssp`` binaries.

GAP (Beamer, Asanović and Patterson, *The GAP Benchmark Suite*, 2015; BSD-licensed) is the
reference multicore CPU implementation of direction-optimizing BFS and Δ-stepping SSSP. autotune
does not include or build it: point :func:`gap_bfs` / :func:`gap_sssp` at a folder holding its
``bfs`` and ``sssp`` binaries (``gap_dir=``, else ``$AUTOTUNE_GAP_DIR``), built from a GAP checkout
with ``make bfs sssp``. The graph is handed over in GAP's serialized form, written from the same
CSR arrays (:func:`write_sg`, :func:`write_wsg`), so both systems traverse exactly the same edges.

Serialized layout (native byte order, as GAP reads it)::

    bool    directed               1 byte
    int64   num_edges              stored (directed) edges m; an undirected edge counts twice
    int64   num_nodes              n
    int64   offsets[n + 1]         out-edge row offsets, offsets[0] == 0
    int32   neighbours[m]          .sg: destination ids
    (int32, int32) neighbours[m]   .wsg: (destination, weight) pairs instead
    -- only when directed: the in-edges, same form --
    int64   offsets[n + 1]
    int32 or (int32, int32) [m]    source ids (and the weight of that edge)

GAP's weights are int32 (``.wsg``): a graph with float weights is refused (scale and round its
weights to integers first, e.g. ``np.rint(w * 1000).astype(np.int32)``).

Timing: GAP prints ``Average Time`` (seconds, 5 decimals, so 10 µs resolution) over ``-n``
trials, each from a source it picks with its own fixed seed (or ``-r`` one given source); the
figure includes no graph loading. ``OMP_NUM_THREADS`` sets its thread count.
"""
from __future__ import annotations

import os
import re
import struct
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._csr import host_transpose
from .errors import InvalidArgumentError, PeerError

__all__ = ["write_sg", "write_wsg", "find_gap", "gap_bfs", "gap_sssp", "GapResult", "DEFAULT_DELTAS",
           "GAP_DIR_ENV"]

#: Environment variable naming the folder of GAP's ``bfs`` and ``sssp`` binaries.
GAP_DIR_ENV = "AUTOTUNE_GAP_DIR"
#: Δ values tried by :func:`gap_sssp` (GAP's own benchmark uses 2 for Kronecker, web and social
#: graphs with weights in [1, 255], larger values for road graphs).
DEFAULT_DELTAS = (2, 16, 128, 1024)

_AVERAGE_RE = re.compile(r"^Average Time:\s*([0-9.eE+-]+)\s*$", re.M)
_TRIAL_RE = re.compile(r"^Trial Time:\s*([0-9.eE+-]+)\s*$", re.M)
_TAIL = 2000  # characters of GAP's output quoted in an error


# ================================================================================ writing
def _write(graph, path, weighted: bool) -> Path:
    path = Path(path)
    ro, ci = graph.host()
    n, m = graph.n_vertices, graph.n_edges
    w = None
    if weighted:
        w = graph.host_weights()
        if w is None:
            w = np.ones(m, dtype=np.int32)  # an unweighted graph: unit weights
        elif w.dtype.kind != "i":
            raise InvalidArgumentError(
                f"GAP's .wsg holds int32 weights but {graph.name!r} has {w.dtype} weights; scale and round them to "
                "integers first (e.g. load_graph((src, dst, np.rint(w * 1000).astype(np.int32))))")
        w = w.astype(np.int32, copy=False)

    def neighbours(ids, wts):
        if wts is None:
            return np.ascontiguousarray(ids, dtype=np.int32)
        pairs = np.empty((ids.shape[0], 2), dtype=np.int32)  # GAP's NodeWeight<int32, int32>: (v, w)
        pairs[:, 0] = ids
        pairs[:, 1] = wts
        return pairs

    offsets = np.asarray(ro, dtype=np.int64) - int(ro[0])
    with open(path, "wb") as fh:
        fh.write(struct.pack("=?qq", bool(graph.directed), m, n))
        offsets.tofile(fh)
        neighbours(ci, w).tofile(fh)
        if graph.directed:
            in_offsets, in_src, in_w = host_transpose(offsets, ci, w)
            in_offsets.tofile(fh)
            neighbours(in_src, in_w).tofile(fh)
    return path


def write_sg(graph, path) -> Path:
    """Write *graph* as GAP's unweighted serialized graph (``.sg``); weights, if any, are left out.

    Parameters
    ----------
    graph : CSRGraph
        Host or device arrays (copied to the host once).
    path : str or os.PathLike
        Output file; GAP recognises the format by the ``.sg`` suffix.

    Returns
    -------
    pathlib.Path
        *path*. Size: ``17 + 8 (n + 1) + 4 m`` bytes, twice the arrays when directed.
    """
    return _write(graph, path, weighted=False)


def write_wsg(graph, path) -> Path:
    """Write *graph* as GAP's weighted serialized graph (``.wsg``, int32 weights).

    Parameters
    ----------
    graph : CSRGraph
        With int32 weights, or unweighted (written with unit weights).
    path : str or os.PathLike
        Output file; GAP recognises the format by the ``.wsg`` suffix.

    Returns
    -------
    pathlib.Path
        *path*. Size: ``17 + 8 (n + 1) + 8 m`` bytes, twice the arrays when directed.

    Raises
    ------
    InvalidArgumentError
        When the graph has float weights (GAP's SSSP reads int32 weights only).
    """
    return _write(graph, path, weighted=True)


# ================================================================================ running
@dataclass(frozen=True)
class GapResult:
    """Times of one GAP kernel on one graph.

    Attributes
    ----------
    kernel : str
        ``"bfs"`` or ``"sssp"``.
    times_ms : dict
        GAP's ``Average Time`` in milliseconds: keyed by Δ for SSSP, by ``None`` for BFS.
    trial_ms : dict
        Every ``Trial Time`` (ms), same keys.
    best_ms : float
        The smallest average (GAP's own best over the Δ tried).
    best_delta : int or None
        The Δ of *best_ms* (None for BFS).
    threads : int
        ``OMP_NUM_THREADS`` it ran with.
    n_trials : int
    source : int or None
        The one source given (``-r``), or None when GAP picked its own sources.
    commands : list of list of str
        The command lines run.
    """

    kernel: str
    times_ms: dict
    trial_ms: dict
    best_ms: float
    best_delta: int | None
    threads: int
    n_trials: int
    source: int | None = None
    commands: list = field(default_factory=list)


def find_gap(gap_dir=None, kernels=("bfs", "sssp")) -> Path:
    """The folder of GAP's binaries: *gap_dir*, else ``$AUTOTUNE_GAP_DIR``.

    Raises
    ------
    PeerError
        When no folder is given or set, it does not exist, or a binary of *kernels* is missing or not
        executable (naming it and how to build it).
    """
    given = gap_dir if gap_dir is not None else os.environ.get(GAP_DIR_ENV)
    build = "build them in a GAP checkout with 'make bfs sssp'"
    if not given:
        raise PeerError(f"GAP binaries not found: pass gap_dir or set ${GAP_DIR_ENV} to the folder holding GAP's "
                        f"'bfs' and 'sssp' ({build})")
    d = Path(given).expanduser()
    if not d.is_dir():
        raise PeerError(f"GAP folder {str(d)!r} does not exist ({build})")
    for k in kernels:
        b = d / k
        if not (b.is_file() and os.access(b, os.X_OK)):
            raise PeerError(f"GAP binary {str(b)!r} is missing or not executable ({build})")
    return d


def _tail(text: str) -> str:
    text = (text or "").strip()
    return text if len(text) <= _TAIL else "..." + text[-_TAIL:]


def _run(binary: Path, args: list, threads: int, timeout) -> tuple[str, list]:
    cmd = [str(binary), *map(str, args)]
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    try:
        r = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                           timeout=timeout, errors="replace")
    except subprocess.TimeoutExpired as exc:
        partial = exc.stdout.decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        raise PeerError(f"GAP timed out after {timeout} s: {' '.join(cmd)}\noutput tail:\n{_tail(partial)}") from None
    except OSError as exc:
        raise PeerError(f"cannot run GAP binary {str(binary)!r}: {exc}") from None
    out = r.stdout or ""
    if r.returncode != 0:
        raise PeerError(f"GAP failed (exit status {r.returncode}): {' '.join(cmd)}\nstderr tail:\n{_tail(r.stderr)}\n"
                        f"stdout tail:\n{_tail(out)}")
    if re.search(r"^Verification:\s*FAIL", out, re.M):
        raise PeerError(f"GAP's own verification failed: {' '.join(cmd)}\nstdout tail:\n{_tail(out)}")
    return out, cmd


def _average_ms(out: str, cmd: list) -> tuple[float, list]:
    found = _AVERAGE_RE.findall(out)
    if not found:
        raise PeerError(f"no 'Average Time' in GAP's output: {' '.join(cmd)}\nstdout tail:\n{_tail(out)}")
    return round(float(found[-1]) * 1e3, 6), [round(float(t) * 1e3, 6) for t in _TRIAL_RE.findall(out)]


def _check_common(n_trials, threads, source):
    for name, value in (("n_trials", n_trials), ("threads", threads)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
            raise InvalidArgumentError(f"{name} must be an integer >= 1, got {value!r}")
    if source is not None and (isinstance(source, bool) or not isinstance(source, (int, np.integer)) or source < 0):
        raise InvalidArgumentError(f"source must be a vertex index >= 0, got {source!r}")


def _graph_file(graph, suffix: str, tmp: str) -> Path:
    """*graph* as a GAP file: a path to an existing ``.sg``/``.wsg`` is used as is, a CSRGraph written."""
    if isinstance(graph, (str, os.PathLike)):
        p = Path(graph)
        if p.suffix != suffix:
            raise InvalidArgumentError(f"GAP needs a {suffix} file here, got {str(p)!r}")
        if not p.is_file():
            raise PeerError(f"graph file {str(p)!r} not found")
        return p
    out = Path(tmp) / f"graph{suffix}"
    return write_wsg(graph, out) if suffix == ".wsg" else write_sg(graph, out)


def gap_bfs(graph, *, gap_dir=None, n_trials: int = 16, threads: int = 16, source: int | None = None,
            verify: bool = False, timeout: float | None = None, workdir=None) -> GapResult:
    """Time GAP's direction-optimizing BFS (``bfs -f G.sg -n N``) on *graph*.

    Parameters
    ----------
    graph : CSRGraph or str or os.PathLike
        A graph (written to a temporary ``.sg`` with :func:`write_sg`) or an existing ``.sg`` file.
    gap_dir : str or os.PathLike, optional
        Folder of GAP's binaries; default ``$AUTOTUNE_GAP_DIR``.
    n_trials : int, default 16
        GAP's ``-n``: traversals timed (from sources GAP picks with its fixed seed, unless *source*).
    threads : int, default 16
        ``OMP_NUM_THREADS``.
    source : int, optional
        One source vertex (internal index) for every trial (``-r``).
    verify : bool, default False
        Also run GAP's own verifier (``-v``) and fail on ``FAIL``.
    timeout : float, optional
        Seconds before GAP is stopped (PeerError).
    workdir : str or os.PathLike, optional
        Folder for the graph file (default: a temporary folder, removed afterwards).

    Returns
    -------
    GapResult
        ``times_ms[None]`` = ``best_ms`` = GAP's ``Average Time`` in milliseconds.

    Raises
    ------
    PeerError
        When the binary is missing, GAP exits with an error (its stderr and stdout tails quoted),
        times out, fails its own verification, or prints no ``Average Time``.
    InvalidArgumentError
        On a bad *n_trials*, *threads* or *source*.
    """
    _check_common(n_trials, threads, source)
    d = find_gap(gap_dir, ("bfs",))
    with tempfile.TemporaryDirectory(prefix="autotune-gap-", dir=workdir) as tmp:
        f = _graph_file(graph, ".sg", tmp)
        args = ["-f", f, "-n", n_trials] + (["-r", source] if source is not None else []) + (["-v"] if verify else [])
        out, cmd = _run(d / "bfs", args, threads, timeout)
    ms, trials = _average_ms(out, cmd)
    return GapResult("bfs", {None: ms}, {None: trials}, ms, None, int(threads), int(n_trials),
                     None if source is None else int(source), [cmd])


def gap_sssp(graph, *, deltas=DEFAULT_DELTAS, gap_dir=None, n_trials: int = 16, threads: int = 16,
             source: int | None = None, verify: bool = False, timeout: float | None = None,
             workdir=None) -> GapResult:
    """Time GAP's Δ-stepping SSSP (``sssp -f G.wsg -n N -d DELTA``) for each Δ and keep the best.

    Parameters
    ----------
    graph : CSRGraph or str or os.PathLike
        A graph with int32 weights, or unweighted (unit weights), written to a temporary ``.wsg``
        with :func:`write_wsg`; or an existing ``.wsg`` file.
    deltas : sequence of int, default (2, 16, 128, 1024)
        Bucket widths Δ tried (GAP's weights and Δ are integers), each >= 1.
    gap_dir, n_trials, threads, source, verify, timeout, workdir
        As for :func:`gap_bfs`.

    Returns
    -------
    GapResult
        ``times_ms[delta]`` for every Δ; ``best_ms`` / ``best_delta`` the fastest.

    Raises
    ------
    PeerError
        When the binary is missing, or GAP fails for some Δ (its output tails quoted).
    InvalidArgumentError
        On float weights, an empty or non-positive *deltas*, or a bad *n_trials*, *threads*, *source*.
    """
    _check_common(n_trials, threads, source)
    deltas = tuple(deltas)
    if not deltas or any(isinstance(x, bool) or not isinstance(x, (int, np.integer)) or x < 1 for x in deltas):
        raise InvalidArgumentError(f"deltas must be integers >= 1 (GAP's weights are int32), got {deltas!r}")
    d = find_gap(gap_dir, ("sssp",))
    times, trials, cmds = {}, {}, []
    with tempfile.TemporaryDirectory(prefix="autotune-gap-", dir=workdir) as tmp:
        f = _graph_file(graph, ".wsg", tmp)
        for delta in deltas:
            args = ["-f", f, "-n", n_trials, "-d", int(delta)] + (["-r", source] if source is not None else []) + \
                (["-v"] if verify else [])
            out, cmd = _run(d / "sssp", args, threads, timeout)
            times[int(delta)], trials[int(delta)] = _average_ms(out, cmd)
            cmds.append(cmd)
    best = min(times, key=times.get)
    return GapResult("sssp", times, trials, times[best], best, int(threads), int(n_trials),
                     None if source is None else int(source), cmds)
