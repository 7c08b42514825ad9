"""``autotune bench``: autotune and its peers timed by one harness on the same sources.

Peers (DESIGN.md measurement protocol, :mod:`autotune.measure`):

- ``scipy``: ``scipy.sparse.csgraph.breadth_first_order`` on the CPU (single thread);
- ``cupyx``: a level-synchronous BFS written with ``cupyx.scipy.sparse`` SpMV, i.e. what a CuPy
  user writes without custom kernels (one host round trip per level);
- ``cugraph``: ``cugraph.bfs`` when RAPIDS cuGraph is installed (skipped with a note otherwise).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field

import numpy as np

from .graph import CSRGraph
from .measure import DEFAULT_BENCH_SOURCES, GPURunner, Measurement, Runner, ScipyRunner, measure, select_sources

PEERS = ("scipy", "cupyx", "cugraph")


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


def peer_runner(name: str, graph: CSRGraph) -> Runner | None:
    """The peer *name* for *graph*, or None when it is not installed (cuGraph)."""
    if name == "scipy":
        return ScipyRunner(graph)
    if name == "cupyx":
        return CupyxSpMVRunner(graph)
    if name == "cugraph":
        try:
            import cugraph  # noqa: F401
        except Exception:
            return None
        return CuGraphRunner(graph)
    raise ValueError(f"unknown peer {name!r}; known: {', '.join(PEERS)}")


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

    def to_dict(self) -> dict:
        return {"graph": self.graph, "spec": self.spec, "n_vertices": self.n_vertices, "n_edges": self.n_edges,
                "directed": self.directed, "configs": [c.to_dict() for c in self.configs],
                "measurements": [m.to_dict() for m in self.measurements], "trace": self.trace, "notes": self.notes}


def bench(graph: CSRGraph, configs, peers=("scipy", "cupyx"), n_sources: int = DEFAULT_BENCH_SOURCES,
          seed: int = 0, validate: bool = True) -> BenchResult:
    """Time autotune *configs* and *peers* on the same sources of *graph* (one harness, one process).

    Parameters
    ----------
    graph : CSRGraph
    configs : list of TraversalConfig
    peers : iterable of {'scipy', 'cupyx', 'cugraph'}
        A peer that is not installed (cuGraph) is skipped with a note.
    n_sources : int
        Sources with out-degree > 0, seeded (DESIGN.md default for bench: 64).
    validate : bool
        Check every traversal against the CPU reference (not timed).

    Returns
    -------
    BenchResult
        ``measurements`` in the order configs..., peers...; ``trace`` holds, per config, the per-level
        trace (direction, path, frontier size, µs) of the first source.
    """
    from .engine import get_engine

    sources = select_sources(graph, n_sources, seed)
    runners: list[Runner] = [GPURunner(graph, c) for c in configs]
    notes = []
    for p in peers:
        r = peer_runner(p, graph)
        if r is None:
            notes.append(f"peer {p!r} not installed: skipped")
        else:
            runners.append(r)
    ms = [measure(r, sources, validate=validate) for r in runners]
    trace = []
    for c in configs:
        res = get_engine(graph, c).bfs(int(sources[0]), trace=True)
        trace.append({"config": c.label, "source": int(sources[0]),
                      "levels": [lv.__dict__ for lv in res.levels]})
    return BenchResult(graph.name, graph.spec, graph.n_vertices, graph.n_edges, graph.directed, ms, list(configs),
                       trace, notes)


def plot(results: list[BenchResult], path: str) -> None:
    """Bar chart (PNG) of median ms per graph and runner, log scale, speedup over scipy annotated."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = []
    for r in results:
        for m in r.measurements:
            if m.name not in names:
                names.append(m.name)
    fig, ax = plt.subplots(figsize=(max(8, 1.6 * len(results) * max(1, len(names)) / 2), 5))
    width = 0.8 / max(1, len(names))
    x = np.arange(len(results))
    for i, nm in enumerate(names):
        vals = [next((m.median_ms for m in r.measurements if m.name == nm and m.valid), np.nan) for r in results]
        ax.bar(x + i * width, vals, width, label=nm)
    ax.set_yscale("log")
    ax.set_ylabel("median time per BFS (ms, log scale)")
    ax.set_xticks(x + width * (len(names) - 1) / 2)
    ax.set_xticklabels([r.graph for r in results], rotation=20, ha="right")
    ax.legend(fontsize=8)
    ax.set_title("autotune vs peers, same sources (lower is better)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_json(results: list[BenchResult], path: str, device: dict | None = None) -> None:
    """JSON file with the device and every result."""
    with open(path, "w") as fh:
        json.dump({"device": device, "results": [r.to_dict() for r in results]}, fh, indent=2)
