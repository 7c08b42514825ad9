"""``autotune bench``: autotune and its peers timed by one harness on the same sources.

Peers (DESIGN.md measurement protocol, :mod:`autotune.measure`), per algorithm
(:data:`PEERS_BY_ALGORITHM`):

- ``scipy``: BFS ``scipy.sparse.csgraph.breadth_first_order``; SSSP
  ``scipy.sparse.csgraph.dijkstra`` on the same CSR and weights (CPU, single thread);
- ``cupyx`` (BFS): a level-synchronous BFS written with ``cupyx.scipy.sparse`` SpMV, i.e. what a
  CuPy user writes without custom kernels (one host round trip per level);
- ``cugraph`` (BFS): ``cugraph.bfs`` when RAPIDS cuGraph is installed (skipped with a note otherwise);
- ``gap``: the GAP Benchmark Suite's OpenMP ``bfs`` / ``sssp`` (Beamer et al. 2015;
  :mod:`autotune.gap`) when a folder with its binaries is given (``gap_dir`` / ``--gap-dir`` or
  ``$AUTOTUNE_GAP_DIR``; skipped with a note otherwise): the same CSR and weights written as
  ``.sg`` / ``.wsg``, 16 threads, the same sources (``-r SOURCE -n 2`` each, the second trial
  timed), SSSP at every Delta of :data:`autotune.gap.DEFAULT_DELTAS` (2, 16, 128, 1024) with the
  best one reported, as GAP's own benchmark does. GAP's times are its own per-trial kernel times (``Trial Time``, graph loading
  excluded, 10 µs resolution), not the harness's clock: see :class:`GapPeer`.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from .graph import CSRGraph
from .measure import (
    DEFAULT_BENCH_SOURCES, GPURunner, Measurement, Runner, ScipyDijkstraRunner, ScipyRunner, measure, select_sources,
)

PEERS = ("scipy", "cupyx", "cugraph", "gap")

#: Peers that exist for each traversal (the first ones, without ``gap``, are the default of
#: ``autotune bench``; ``gap`` joins when a GAP folder is given or set).
PEERS_BY_ALGORITHM = {"bfs": ("scipy", "cupyx", "cugraph", "gap"), "sssp": ("scipy", "gap")}

#: Threads GAP runs with (the issue's and DESIGN.md's protocol: 16 OpenMP threads).
GAP_THREADS = 16

#: Sources GAP is timed on by default: the first this many of the bench's sources (each is one GAP
#: process per Delta, which reads the graph file again).
GAP_MAX_SOURCES = 16


class CupyxSpMVRunner(Runner):
    """Peer: BFS by repeated sparse matrix-vector products with ``cupyx.scipy.sparse``.

    ``next = (A^T @ frontier > 0) & unvisited`` per level, with one host check per level to stop;
    distances only (no predecessors), checked against the CPU reference when validating.
    """

    name = "cupyx SpMV BFS (GPU)"
    timer = "cuda-events"

    def __init__(self, graph: CSRGraph):
        self.graph = graph

    def prepare(self) -> None:
        import cupy
        import cupyx.scipy.sparse as cps

        ro, ci = self.graph.device()
        n = self.graph.n_vertices
        a = cps.csr_matrix((cupy.ones(ci.shape[0], dtype=np.float32), ci, ro), shape=(n, n))
        self._at = a if not self.graph.directed else a.T.tocsr()
        self._deg = self.graph.out_degrees(cupy)
        self._dist = cupy.empty(n, dtype=np.int32)
        self._depth = 0

    def traverse(self, source: int) -> None:
        import cupy

        dist = self._dist
        dist.fill(-1)
        dist[source] = 0
        f = cupy.zeros(self.graph.n_vertices, dtype=np.float32)
        f[source] = 1.0
        level = 0
        while True:
            new = (self._at @ f > 0) & (dist < 0)
            if not bool(new.any()):  # host round trip per level
                break
            level += 1
            dist[new] = level
            f = new.astype(np.float32)
        self._depth = level

    def outcome(self, source: int) -> tuple[int, int]:
        import cupy

        return int(cupy.sum(cupy.where(self._dist >= 0, self._deg, 0))), self._depth

    def check(self, source: int) -> None:
        from .errors import ValidationError
        from .measure import reference_distances

        ref = reference_distances(self.graph, source)
        got = self._dist.get()
        if not np.array_equal(got, ref):
            bad = np.flatnonzero(got != ref)
            raise ValidationError(f"cupyx peer: distances differ at {bad.size} vertices (first {int(bad[0])}: "
                                  f"expected {int(ref[bad[0]])}, got {int(got[bad[0]])})")


class CuGraphRunner(Runner):
    """Peer: RAPIDS ``cugraph.bfs`` (only when cuGraph is installed)."""

    name = "cuGraph bfs (GPU)"
    timer = "cuda-events"

    def __init__(self, graph: CSRGraph):
        self.graph = graph

    def prepare(self) -> None:
        import cudf
        import cugraph

        ro, ci = self.graph.device()
        g = cugraph.Graph(directed=self.graph.directed)
        g.from_cudf_adjlist(cudf.Series(ro), cudf.Series(ci))
        self._g = g
        self._cugraph = cugraph

    def traverse(self, source: int) -> None:
        self._last = self._cugraph.bfs(self._g, start=int(source))

    def outcome(self, source: int) -> tuple[int, int]:
        d = self._last["distance"].values.get()
        v = self._last["vertex"].values.get()
        reached = v[d < np.iinfo(d.dtype).max]
        return int(self.graph.out_degrees(np)[reached].sum()), int(d[d < np.iinfo(d.dtype).max].max())


def peer_runner(name: str, graph: CSRGraph, algorithm: str = "bfs") -> Runner | None:
    """The harness-timed peer *name* of *algorithm* for *graph*, or None when it is not installed
    (cuGraph). GAP is not a :class:`Runner` (it times itself): see :class:`GapPeer`.

    Raises
    ------
    InvalidArgumentError
        On a peer unknown for *algorithm* (e.g. ``cupyx`` for SSSP) or ``gap`` (use :class:`GapPeer`).
    """
    from .errors import InvalidArgumentError

    known = PEERS_BY_ALGORITHM.get(algorithm, ())
    if name not in known or name == "gap":
        raise InvalidArgumentError(f"unknown {algorithm} peer {name!r}; known: {', '.join(known)}")
    if name == "scipy":
        return ScipyDijkstraRunner(graph) if algorithm == "sssp" else ScipyRunner(graph)
    if name == "cupyx":
        return CupyxSpMVRunner(graph)
    try:
        import cugraph  # noqa: F401
    except Exception:
        return None
    return CuGraphRunner(graph)


def _timed_trial(result, key) -> float:
    """The timed trial of a GAP run: its last ``Trial Time`` (the first is the warm-up), else its
    ``Average Time`` when it printed no trial line."""
    trials = result.trial_ms.get(key) or []
    return float(trials[-1]) if trials else float(result.times_ms[key])


class GapPeer:
    """Peer: the GAP Benchmark Suite's ``bfs`` or ``sssp`` (OpenMP) on the same CSR, weights and sources.

    The graph is written once as GAP's serialized form (:func:`autotune.gap.write_sg` /
    :func:`~autotune.gap.write_wsg`, int32 weights; unit weights when unweighted), then GAP runs
    once per source and Delta with ``-r SOURCE -n 2`` and *threads* OpenMP threads
    (:func:`autotune.gap.gap_bfs` / :func:`~autotune.gap.gap_sssp`): the first trial is GAP's
    warm-up (its allocations' first touch, as the harness's warm-up traversal is autotune's), the
    second is timed. The per-source time is that trial's ``Trial Time`` (its kernel only: graph
    loading and process start excluded, like the CUDA events around autotune's traversal; 10 µs
    resolution), so GAP is not timed by the harness's clock but is measured on the same sources. For SSSP the Delta with the smallest median over
    the sources is reported (GAP's "its best" over :data:`autotune.gap.DEFAULT_DELTAS`), every
    Delta's median in ``extra["deltas_ms"]``. ``edges_traversed(s)`` follows the protocol (the
    out-degrees of the vertices reached, from the CPU reference's reachability).

    Parameters
    ----------
    graph : CSRGraph
    algorithm : {'bfs', 'sssp'}
    gap_dir : str or os.PathLike, optional
        Folder of GAP's binaries (default ``$AUTOTUNE_GAP_DIR``).
    threads : int, default :data:`GAP_THREADS`
    deltas : sequence of int, optional
        SSSP bucket widths tried (default :data:`autotune.gap.DEFAULT_DELTAS`).
    max_sources : int, default :data:`GAP_MAX_SOURCES`
        Time GAP on the first this many of the given sources (each source is one GAP process per
        Delta).
    timeout : float, optional
        Seconds per GAP process.
    """

    timer = "gap-trial-time"

    def __init__(self, graph: CSRGraph, algorithm: str = "bfs", *, gap_dir=None, threads: int = GAP_THREADS,
                 deltas=None, max_sources: int = GAP_MAX_SOURCES, timeout: float | None = None):
        from .gap import DEFAULT_DELTAS, find_gap

        self.graph = graph
        self.algorithm = algorithm
        self.gap_dir = find_gap(gap_dir, (algorithm,))
        self.threads = int(threads)
        self.deltas = tuple(deltas) if deltas is not None else DEFAULT_DELTAS
        self.max_sources = int(max_sources)
        self.timeout = timeout
        kernel = "sssp, best delta" if algorithm == "sssp" else "bfs"
        self.name = f"GAP {kernel} ({self.threads} threads, CPU)"

    def measure(self, sources, *, validate: bool = False) -> Measurement:
        """Time GAP on the first :attr:`max_sources` of *sources* (GAP's own verifier with *validate*).

        Returns
        -------
        Measurement
            ``timer="gap-trial-time"``; invalid (with the error) when GAP is missing, fails, or the
            graph cannot be written for it (float weights).
        """
        import tempfile

        from .gap import gap_bfs, gap_sssp, write_sg, write_wsg
        from .measure import reference_distances

        srcs = [int(s) for s in np.asarray(sources).ravel()][: self.max_sources]
        m = Measurement(self.name, srcs, [], [], [], self.timer)
        try:
            per_delta: dict = {}
            with tempfile.TemporaryDirectory(prefix="autotune-gap-") as tmp:
                if self.algorithm == "sssp":
                    path = write_wsg(self.graph, f"{tmp}/graph.wsg")
                    for s in srcs:
                        r = gap_sssp(path, deltas=self.deltas, gap_dir=self.gap_dir, n_trials=2, threads=self.threads,
                                     source=s, verify=validate, timeout=self.timeout)
                        for d in r.times_ms:
                            per_delta.setdefault(d, []).append(_timed_trial(r, d))
                else:
                    path = write_sg(self.graph, f"{tmp}/graph.sg")
                    for s in srcs:
                        r = gap_bfs(path, gap_dir=self.gap_dir, n_trials=2, threads=self.threads, source=s,
                                    verify=validate, timeout=self.timeout)
                        per_delta.setdefault(None, []).append(_timed_trial(r, None))
            best = min(per_delta, key=lambda d: float(np.median(per_delta[d])))
            deg = self.graph.out_degrees(np)
            for s in srcs:
                reached = reference_distances(self.graph, s, "bfs") >= 0  # same reach for BFS and SSSP
                m.edges.append(int(deg[reached].sum()))
                m.depths.append(0)
            m.times_ms = per_delta[best]
            m.extra = {"threads": self.threads, "best_delta": best, "gap_dir": str(self.gap_dir),
                       "deltas_ms": {str(d): float(np.median(v)) for d, v in per_delta.items() if d is not None}}
        except Exception as exc:  # a failing peer is reported in the table, never a fast "best"
            m.valid = False
            m.error = f"{exc.__class__.__name__}: {exc}"
        return m


@dataclass
class BenchResult:
    """All measurements of one graph: autotune's config(s) and the peers, same sources."""

    graph: str
    spec: str | None
    n_vertices: int
    n_edges: int
    directed: bool
    measurements: list[Measurement]
    configs: list = field(default_factory=list)
    trace: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    algorithm: str = "bfs"
    weights: str | None = None

    def to_dict(self) -> dict:
        """JSON-ready dict (``algorithm``, ``weights`` as in log schema 2)."""
        return {"graph": self.graph, "spec": self.spec, "algorithm": self.algorithm, "weights": self.weights,
                "n_vertices": self.n_vertices, "n_edges": self.n_edges,
                "directed": self.directed, "configs": [c.to_dict() for c in self.configs],
                "measurements": [m.to_dict() for m in self.measurements], "trace": self.trace, "notes": self.notes}


def bench(graph: CSRGraph, configs, peers=("scipy", "cupyx"), n_sources: int = DEFAULT_BENCH_SOURCES,
          seed: int = 0, validate: bool = True, *, algorithm: str | None = None, gap_dir=None,
          gap_threads: int = GAP_THREADS, gap_sources: int = GAP_MAX_SOURCES) -> BenchResult:
    """Time autotune *configs* and *peers* on the same sources of *graph* (one harness, one process).

    Parameters
    ----------
    graph : CSRGraph
        Weighted or not (SSSP runs unit weights on an unweighted graph).
    configs : list of TraversalConfig
        All of one algorithm (BFS or SSSP).
    peers : iterable of str
        Of :data:`PEERS_BY_ALGORITHM` for the algorithm: BFS ``scipy``, ``cupyx``, ``cugraph``,
        ``gap``; SSSP ``scipy`` (Dijkstra), ``gap`` (Delta-stepping, best Delta). A peer that is not
        installed (cuGraph) is skipped with a note; so is ``gap`` when no GAP folder is given or set.
    n_sources : int
        Sources with out-degree > 0, seeded (DESIGN.md default for bench: 64).
    validate : bool
        Check every traversal against the CPU reference (not timed): BFS tree rules, or Dijkstra's
        distances and the SSSP tree check; GAP runs its own verifier.
    algorithm : {'bfs', 'sssp'}, optional
        Default: the configs' algorithm.
    gap_dir : str or os.PathLike, optional
        Folder of GAP's ``bfs`` / ``sssp`` binaries (default ``$AUTOTUNE_GAP_DIR``).
    gap_threads : int, default 16
        OpenMP threads of GAP.
    gap_sources : int, default 16
        GAP is timed on the first this many sources (one process per source and Delta).

    Returns
    -------
    BenchResult
        ``measurements`` in the order configs..., peers...; ``trace`` holds, per config, the
        per-level (per-iteration for SSSP) trace of the first source, and for SSSP its relaxations
        and bucket width.

    Raises
    ------
    InvalidArgumentError
        When the configs mix algorithms or differ from *algorithm*, or on a peer unknown for it.
    PeerError
        When ``gap`` is asked for with a *gap_dir* whose binaries are missing.
    """
    from .engine import get_engine
    from .errors import InvalidArgumentError, PeerError

    algs = {c.algorithm for c in configs}
    algorithm = algorithm or (algs.pop() if len(algs) == 1 else "bfs")
    if any(c.algorithm != algorithm for c in configs):
        raise InvalidArgumentError(f"bench runs one algorithm at a time: configs of "
                                   f"{', '.join(sorted({c.algorithm for c in configs}))} given for {algorithm}")
    sources = select_sources(graph, n_sources, seed)
    runners: list[Runner] = [GPURunner(graph, c) for c in configs]
    notes = []
    gap = None
    for p in peers:
        if p == "gap":
            if algorithm not in PEERS_BY_ALGORITHM or "gap" not in PEERS_BY_ALGORITHM[algorithm]:
                raise InvalidArgumentError(f"unknown {algorithm} peer 'gap'")
            try:
                gap = GapPeer(graph, algorithm, gap_dir=gap_dir, threads=gap_threads, max_sources=gap_sources)
            except PeerError as exc:
                if gap_dir is not None:
                    raise
                notes.append(f"peer 'gap' skipped: {exc}")
            continue
        r = peer_runner(p, graph, algorithm)
        if r is None:
            notes.append(f"peer {p!r} not installed: skipped")
        else:
            runners.append(r)
    ms = [measure(r, sources, validate=validate) for r in runners]
    if gap is not None:
        ms.append(gap.measure(sources, validate=validate))
    trace = []
    for c in configs:
        res = get_engine(graph, c).bfs(int(sources[0]), trace=True)  # SSSPResult for an SSSP engine
        entry = {"config": c.label, "source": int(sources[0]), "levels": [lv.__dict__ for lv in res.levels]}
        if algorithm == "sssp":
            entry.update(relaxations=int(res.relaxations), delta=res.delta, n_reached=int(res.n_reached))
        trace.append(entry)
    from .logs import weights_spec

    return BenchResult(graph.name, graph.spec, graph.n_vertices, graph.n_edges, graph.directed, ms, list(configs),
                       trace, notes, algorithm=algorithm, weights=weights_spec(graph))


def _series(r: BenchResult) -> list[tuple[str, Measurement]]:
    """``(series name, measurement)`` of one result: autotune's configs as ``autotune`` (numbered when
    several; per-graph tuned configs differ by graph but form one series), peers by name."""
    k = len(r.configs)
    out = []
    for i, m in enumerate(r.measurements):
        name = ("autotune" if k == 1 else f"autotune #{i + 1}") if i < k else m.name
        out.append((name, m))
    return out


def plot(results: list[BenchResult], path: str) -> None:
    """Bar chart (PNG) of median ms per graph and runner (autotune's config(s), then the peers), log scale."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = []
    for r in results:
        for nm, _m in _series(r):
            if nm not in names:
                names.append(nm)
    fig, ax = plt.subplots(figsize=(max(8, 1.6 * len(results) * max(1, len(names)) / 2), 5))
    width = 0.8 / max(1, len(names))
    x = np.arange(len(results))
    for i, nm in enumerate(names):
        vals = [next((m.median_ms for n, m in _series(r) if n == nm and m.valid), np.nan) for r in results]
        ax.bar(x + i * width, vals, width, label=nm)
    ax.set_yscale("log")
    algs = sorted({r.algorithm for r in results}) or ["bfs"]
    ax.set_ylabel(f"median time per {'/'.join(a.upper() for a in algs)} (ms, log scale)")
    ax.set_xticks(x + width * (len(names) - 1) / 2)
    ax.set_xticklabels([r.graph for r in results], rotation=20, ha="right")
    ax.legend(fontsize=8)
    ax.set_title("autotune vs peers, same sources (lower is better)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_json(results: list[BenchResult], path, device: dict | None = None, *, complete: bool = True) -> None:
    """JSON file with the device and every result: ``{"device", "complete", "results"}``.

    Written to a temporary file next to *path* and then renamed over it, so a reader (or a run
    stopped meanwhile) sees either the previous version or the new one, never half a file.
    ``autotune bench`` rewrites it after every graph with ``complete=False`` until the last one.
    """
    import os
    import tempfile

    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".bench-", suffix=".json.tmp", dir=folder)
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump({"device": device, "complete": bool(complete), "results": [r.to_dict() for r in results]},
                      fh, indent=2)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)  # mkstemp's 0600 -> what open() would have given
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
