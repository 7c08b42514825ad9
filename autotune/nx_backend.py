"""NetworkX dispatch backend ``autotune``: NetworkX's BFS, path-length and closeness functions on the GPU.

NetworkX finds the backend through the entry points ``networkx.backends`` (this module's
:class:`BackendInterface`) and ``networkx.backend_info`` (``_autotune_nx.get_info``, which imports
nothing heavy). A call reaches it when asked for::

    nx.single_source_shortest_path_length(G, 0, backend="autotune")   # this call only
    NETWORKX_BACKEND_PRIORITY=autotune python script.py               # every supported call

and NetworkX runs its own implementation where the backend declines (:func:`can_run`: no usable
GPU, arguments or weights whose NetworkX semantics the GPU path cannot match; :func:`should_run`:
graphs too small for the GPU to win, see :data:`SHOULD_RUN_MIN_EDGES`).

Results are exactly NetworkX's: same keys and values, and where NetworkX specifies an order (the
edges of ``bfs_edges``, the nodes of each ``bfs_layers`` layer, the trees of ``bfs_tree`` /
``bfs_predecessors`` / ``bfs_successors``) the same order. That order depends on the graph's
neighbour order (NetworkX's adjacency dicts keep insertion order), which the GPU's sorted CSR does
not keep: the GPU computes the distances, then one vectorised pass per BFS level rebuilds
NetworkX's order from them (on the GPU for large graphs): the vertices of level d+1 are the first
occurrences, in the order (rank of the parent in level d, position in the parent's neighbour
list), of the level-(d+1) neighbours of level d. The dicts of the path-length functions, whose
order NetworkX does not specify, list their keys in order of distance. ``closeness_centrality``
runs :func:`autotune.batched.closeness_centrality` (batched multi-source BFS over the in-edges, as
NetworkX reverses a directed graph) and gives NetworkX's floats bit for bit, keys in node order.

Conversion (:func:`convert_from_nx`) builds, per direction, a CSR in NetworkX's node and neighbour
order; the GPU copy (sorted rows), the tuned :class:`~autotune.config.TraversalConfig` (one
:func:`autotune.tune` fast-path call per graph and traversal) and the engine are built on first
use. All of it is cached in ``G.__networkx_cache__`` (key ``"autotune"``, besides NetworkX's own
cache of converted graphs) when ``nx.config.cache_converted_graphs`` is on, so NetworkX's cache
rules apply: a graph changed through its methods (``add_edge``, ...) drops the cache; a graph
changed by hand (``G[u][v]["weight"] = 2``) must be cleared with ``G.__networkx_cache__.clear()``.
"""
from __future__ import annotations

import collections
import dataclasses
import inspect
import itertools
import math
import numbers
import operator
import os
import warnings
from collections.abc import Iterator

import networkx as nx
import numpy as np

from ._backend import to_host
from .errors import AutotuneError

__all__ = [
    "BackendInterface", "AutotuneGraph", "BackendDeclined", "FUNCTIONS", "SHOULD_RUN_MIN_EDGES",
    "MAX_LAYER_SOURCES", "ORDER_ON_GPU_MIN_EDGES", "ORDER_ON_GPU_MIN_LEVEL_EDGES", "FLOAT32_EXACT_UNITS",
    "can_run", "should_run", "convert_from_nx", "convert_to_nx", "dispatch_stats", "reset_dispatch_stats",
]

#: Smallest graph, in stored directed edges (an undirected edge counts twice, as in the CSR),
#: that :func:`should_run` accepts, i.e. on which NetworkX uses the backend on its own
#: (``NETWORKX_BACKEND_PRIORITY=autotune``; ``backend="autotune"`` always runs it). How it was set:
#: the estimate first (one GPU BFS call ~0.1-0.3 ms on an H200 with its host side; NetworkX's
#: pure-Python BFS ~1-3 M edges/s: break-even at 100-900 edges, ~5,000 with a 5x margin for the
#: dispatcher and the output), then measured on an H200 (CuPy 14.2, NetworkX 3.6.1, random directed
#: graphs with 5 edges per node, backend calls on a cached conversion): NetworkX ran 5-7 M edges/s
#: and a backend call cost 0.4-0.6 ms, so single_source_shortest_path_length broke even near 10,000
#: edges (0.68 vs 0.60 ms; 2.2x at 30,000, 5.6x at 100,000) and bfs_edges near 20,000 (1.4x at
#: 30,000, 2.5x at 100,000). 20,000 lets every function win. ``closeness_centrality`` uses the same
#: threshold: with ``u`` it is one BFS; for every node NetworkX runs one BFS per node against one
#: batched GPU call, so it surely wins above it (where it breaks even below is not measured yet).
SHOULD_RUN_MIN_EDGES = 20_000

#: ``bfs_layers`` with more distinct sources than this (given as a list, tuple or set) is declined:
#: it costs one GPU BFS per source until the engine has a batched multi-source BFS.
MAX_LAYER_SOURCES = 64

#: Where NetworkX's BFS order is rebuilt (:func:`_bfs_order`, one vectorised pass per level): on
#: the GPU when the traversal reached at least ORDER_ON_GPU_MIN_EDGES edges and at least
#: ORDER_ON_GPU_MIN_LEVEL_EDGES per level on average, else on the host (NumPy). Measured on an H200:
#: a level costs ~0.7 ms of CuPy launches on the GPU against ~50 us + ~50 ns per edge in NumPy, so
#: wide levels (soc-Slashdot0902: ~100,000 edges a level, bfs_edges 19.5 ms against NetworkX's 456)
#: go to the GPU, and deep graphs with narrow levels stay on the host (a 300 x 300 grid, ~600 levels
#: of ~600 edges: 419 ms with the GPU pass against NetworkX's 85 ms).
ORDER_ON_GPU_MIN_EDGES = 1 << 18
ORDER_ON_GPU_MIN_LEVEL_EDGES = 16_384

#: Sources per scipy call of the host reference's closeness (bounds its distance block's memory).
_HOST_CLOSENESS_CHUNK = 256

#: Environment variable: when set (not "0"), the traversals run on the host with
#: ``scipy.sparse.csgraph`` instead of the GPU engine (``nx.config.backends.autotune.host_reference``).
#: It exists to test the backend's NetworkX semantics (conversion, orders, output) on a machine
#: without a GPU, e.g. by running NetworkX's own test-suite with it; it is never faster than NetworkX.
HOST_REFERENCE_ENV = "AUTOTUNE_NX_HOST_REFERENCE"

#: The functions implemented (NetworkX dispatches a function here only when it is listed).
FUNCTIONS = (
    "bfs_edges", "bfs_tree", "bfs_predecessors", "bfs_successors", "bfs_layers", "descendants_at_distance",
    "single_source_shortest_path_length", "single_target_shortest_path_length", "shortest_path_length",
    "single_source_dijkstra_path_length", "closeness_centrality",
)

_CACHE_KEY = "autotune"  # this backend's entry in G.__networkx_cache__
_INT32_MAX = int(np.iinfo(np.int32).max)
_INT64_MAX = int(np.iinfo(np.int64).max)
_STATS: collections.Counter = collections.Counter()


class BackendDeclined(AutotuneError, NotImplementedError):
    """The backend cannot run this call after all (e.g. the graph does not fit in device memory).

    A :class:`NotImplementedError`, which NetworkX's dispatcher treats as a decline: with
    ``NETWORKX_BACKEND_PRIORITY`` it runs the next backend (NetworkX itself); with
    ``backend="autotune"`` it raises ``NotImplementedError`` naming this error as the cause.
    """


# ============================================================================== statistics
def _record(name: str, outcome: str) -> None:
    _STATS[(name, outcome)] += 1


def dispatch_stats() -> dict:
    """How the calls that reached the backend ended, since the process started.

    Returns
    -------
    dict
        ``{function: {outcome: count}}``; outcomes are ``"gpu"`` (ran on the GPU),
        ``"host_reference"`` (ran with the host reference, see :data:`HOST_REFERENCE_ENV`),
        ``"trivial"`` (answered without a traversal: no edges, depth or cutoff 0),
        ``"declined: <reason>"`` (:func:`can_run` said no) and ``"not preferred: <reason>"``
        (:func:`should_run` said no).
    """
    out: dict = {}
    for (name, outcome), count in sorted(_STATS.items()):
        out.setdefault(name, {})[outcome] = count
    return out


def reset_dispatch_stats() -> None:
    """Forget the counts of :func:`dispatch_stats`."""
    _STATS.clear()


# ============================================================================== settings
def _setting(name: str, default):
    try:
        return getattr(nx.config.backends.autotune, name)
    except Exception:  # networkx < 3.3 (no config), or the backend_info entry point not installed
        return default


def _host_reference() -> bool:
    env = os.environ.get(HOST_REFERENCE_ENV, "") not in ("", "0")
    return bool(_setting("host_reference", False)) or env


def _device_ready():
    """True, or why neither the GPU nor the host reference can run."""
    if _host_reference():
        return True
    from ._backend import _probe

    ok, why = _probe()
    return True if ok else f"no usable NVIDIA GPU with CuPy ({why})"


def _use_cache(G) -> bool:
    """Whether conversions of *G* may be kept in ``G.__networkx_cache__`` (NetworkX's rules)."""
    if getattr(G, "__networkx_cache__", None) is None or not nx.config.cache_converted_graphs:
        return False
    if getattr(nx.utils.backends._dispatchable, "_is_testing", False):
        return False  # NetworkX's test-suite runs without its cache of converted graphs too
    # graph views (subgraph, reverse, ...) see their base graph change without their cache being cleared
    return getattr(G, "_graph", None) is None


# ============================================================================== conversion
class _Weights:
    """Edge weights of one direction in NetworkX's neighbour order, with the verdict on them."""

    __slots__ = ("kind", "reason", "values", "uniform", "scale")

    def __init__(self, kind: str | None, reason: str, values: np.ndarray | None, uniform, scale: float = 1.0):
        self.kind = kind        # "int", "float", or None when declined
        self.reason = reason    # why they are declined ("" when accepted)
        self.values = values    # int64 / float64, one per adjacency entry (self-loops included)
        self.uniform = uniform  # the int every edge has, when they all have the same int weight
        self.scale = scale      # float weights: 2**k, every weight times it is a whole number


#: Float weights: the GPU SSSP sums float32 (NetworkX float64). Both sums are exact, hence equal,
#: when every weight is a multiple of 2**-k and every distance below 2**24 * 2**-k (float32's
#: 24-bit significand): weights are checked up front, the distances after the GPU run.
FLOAT32_EXACT_UNITS = 2 ** 24


def _scan_weights(nbrs: list, name, multigraph: bool) -> _Weights:
    """Weights exactly as NetworkX's Dijkstra reads them (missing = 1, parallel edges: the least)."""
    get = operator.methodcaller("get", name, 1)
    datas = itertools.chain.from_iterable(d.values() for d in nbrs)
    if multigraph:
        groups = [list(map(get, keyed.values())) for keyed in datas]
        types = set(map(type, itertools.chain.from_iterable(groups)))
        # the least of each group only when they have one type (else declined below, as mixed types)
        values = list(map(min, groups)) if types <= {int} or types <= {float} else None
    else:
        values = list(map(get, datas))
        types = set(map(type, values))
    if not types:
        return _Weights("int", "", np.zeros(0, dtype=np.int64), None)
    if types == {int}:
        try:
            arr = np.array(values, dtype=np.int64)
        except OverflowError:
            return _Weights(None, f"weight {name!r}: an integer weight does not fit int32", None, None)
        lo, hi = int(arr.min()), int(arr.max())
        if lo < 1:
            return _Weights(None, f"weight {name!r}: zero or negative weights (the GPU SSSP takes positive "
                                  "weights)", None, None)
        if hi > _INT32_MAX:
            return _Weights(None, f"weight {name!r}: an integer weight does not fit int32", None, None)
        return _Weights("int", "", arr, lo if lo == hi else None)
    if types == {float}:
        arr = np.array(values, dtype=np.float64)
        if not np.isfinite(arr).all() or arr.min() <= 0:
            return _Weights(None, f"weight {name!r}: zero, negative or non-finite weights", None, None)
        for k in range(25):  # the least 2**k making every weight whole
            scaled = arr * float(2 ** k)
            if (scaled == np.floor(scaled)).all():
                if scaled.max() < FLOAT32_EXACT_UNITS:
                    return _Weights("float", "", arr, None, float(2 ** k))
                break
        return _Weights(None, f"weight {name!r}: float weights whose sums float32 could round (the GPU sums "
                              "float32, NetworkX float64): taken are multiples of a power of two, e.g. 0.25, "
                              "with distances below 2**24 such units", None, None)
    kinds = ", ".join(sorted(t.__name__ for t in types))
    return _Weights(None, f"weight {name!r}: values of types {kinds} (the GPU path takes all-int or "
                          "all-float weights, where NetworkX's sums have one type)", None, None)


class _Adjacency:
    """One direction of a converted graph: a CSR in NetworkX's node and neighbour order.

    ``indices[indptr[u]:indptr[u+1]]`` are ``u``'s neighbours in the order NetworkX iterates them,
    self-loops left out (they never change a BFS or a shortest path with positive weights).
    The GPU side (sorted CSR, tuned configs, engine) is built on first use.
    """

    def __init__(self, data: "_GraphData", direction: str, adj_map):
        n = data.n
        nbrs = list(map(adj_map.__getitem__, data.nodes))
        deg = np.fromiter(map(len, nbrs), dtype=np.int64, count=n)
        m_all = int(deg.sum())
        flat = itertools.chain.from_iterable(nbrs)
        index = data.index
        cols = np.fromiter(flat if index is None else map(index.__getitem__, flat), dtype=np.int64, count=m_all)
        rows = np.repeat(np.arange(n, dtype=np.int64), deg)
        keep = cols != rows
        if keep.all():
            self.keep = None
            counts = deg
        else:
            self.keep = keep
            cols = cols[keep]
            counts = np.bincount(rows[keep], minlength=n)
        self.indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(counts, out=self.indptr[1:])
        self.indices = cols.astype(np.int32)
        self.m = int(self.indices.shape[0])
        self.direction = direction
        self._gpu: dict = {}      # device arrays: "ro", "ci", "perm", "indptr64", ...
        self._csr: dict = {}      # None | weight name -> CSRGraph on the device
        self._configs: dict = {}  # "bfs" | ("sssp", weight name) -> TraversalConfig or None
        self._host_mats: dict = {}

    # ------------------------------------------------------------------ host reference (scipy)
    def host_matrix(self, n: int, weights: _Weights | None = None):
        key = None if weights is None else id(weights)
        mat = self._host_mats.get(key)
        if mat is None:
            import scipy.sparse as sp

            if weights is None:
                vals = np.ones(self.m, dtype=np.float64)
            else:
                vals = weights.values if self.keep is None else weights.values[self.keep]
                vals = vals.astype(np.float64)
            mat = sp.csr_matrix((vals, self.indices, self.indptr), shape=(n, n))
            self._host_mats[key] = mat
        return mat

    # ------------------------------------------------------------------ GPU side
    def device_arrays(self):
        """``(indptr int64, indices int32)`` in NetworkX's order, on the device (uploaded once)."""
        if "indptr64" not in self._gpu:
            import cupy

            self._gpu["indptr64"] = cupy.asarray(self.indptr)
            self._gpu["ci"] = cupy.asarray(self.indices)
        return self._gpu["indptr64"], self._gpu["ci"]

    def csr(self, data: "_GraphData", weights: _Weights | None = None, weight_name=None):
        """The graph as a device :class:`~autotune.graph.CSRGraph` (rows sorted), for the engine."""
        key = None if weights is None else ("w", weight_name)
        g = self._csr.get(key)
        if g is not None:
            return g
        import cupy

        from .graph import CSRGraph

        if self.m > _INT32_MAX:
            raise BackendDeclined(f"{self.m:,} edges: the backend's conversion indexes edges with int32 (a NetworkX "
                                  f"graph this large does not fit in host memory anyway)")
        n = data.n
        indptr, ci = self.device_arrays()
        if "perm" not in self._gpu:
            ro = indptr.astype(np.int32)
            rows = cupy.searchsorted(ro[1:], cupy.arange(self.m, dtype=np.int32), side="right")
            perm = cupy.argsort(rows.astype(np.int64) * n + ci)  # rows stay grouped: sorts each row
            self._gpu["ro"], self._gpu["perm"] = ro, perm
            self._gpu["ci_sorted"] = ci[perm]
        ro, perm, ci_sorted = self._gpu["ro"], self._gpu["perm"], self._gpu["ci_sorted"]
        label = f"{data.name}{' (reversed)' if self.direction == 'pred' else ''}"
        directed = data.directed
        if weights is None:
            g = CSRGraph(row_offsets=ro, column_indices=ci_sorted, directed=directed, name=label)
        else:
            vals = weights.values if self.keep is None else weights.values[self.keep]
            dtype = np.int32 if weights.kind == "int" else np.float32
            w = cupy.asarray(vals.astype(dtype))[perm]
            g = CSRGraph(row_offsets=ro, column_indices=ci_sorted, directed=directed, name=label, weights=w)
        self._csr[key] = g
        return g

    def config(self, key, csr, algorithm: str):
        """The graph's :class:`TraversalConfig` for *algorithm* (tuned once: :func:`autotune.tune`)."""
        if key in self._configs:
            return self._configs[key]
        from .config import TraversalConfig

        fallback = None if algorithm == "bfs" else TraversalConfig(algorithm=algorithm)
        cfg = fallback
        if _setting("tune", True):
            try:
                from .search import tune

                params = inspect.signature(tune).parameters
                kw = {"progress": False} if "progress" in params else {}
                if algorithm != "bfs":
                    kw["algorithm"] = algorithm
                if algorithm == "bfs" or "algorithm" in params:  # else: the SSSP default config
                    cfg = tune(csr, **kw)
            except Exception as exc:  # the tuner is an optimisation: run the engine's default instead
                warnings.warn(f"autotune NetworkX backend: tuning {csr.name!r} for {algorithm} failed "
                              f"({type(exc).__name__}: {exc}); running the default config", RuntimeWarning,
                              stacklevel=2)
                cfg = fallback
        self._configs[key] = cfg
        return cfg


class _GraphData:
    """Host-side conversion of one NetworkX graph, shared by every call on it.

    Built lazily (nodes, then each direction's adjacency, then weights per attribute name); kept
    in ``G.__networkx_cache__["autotune"]`` when NetworkX's caching rules allow (:func:`_use_cache`).
    Pickling or deep-copying the graph (which copies its cache) keeps only the reference to it.
    """

    def __init__(self, G):
        self.G = G
        self._reset()

    def _reset(self):
        self._nodes = None
        self._index = None
        self._labels = None
        self._adjs: dict = {}
        self._weights: dict = {}

    def __getstate__(self):
        return {"G": self.G}

    def __setstate__(self, state):
        self.G = state["G"]
        self._reset()

    # ------------------------------------------------------------------ nodes
    @property
    def nodes(self) -> list:
        if self._nodes is None:
            self._nodes = list(self.G)
        return self._nodes

    @property
    def n(self) -> int:
        return len(self.nodes)

    @property
    def directed(self) -> bool:
        return bool(self.G.is_directed())

    @property
    def multigraph(self) -> bool:
        return bool(self.G.is_multigraph())

    @property
    def name(self) -> str:
        return str(self.G.name or "networkx")

    @property
    def index(self):
        """``{node: vertex}``, or None when the nodes are exactly the ints ``0..n-1`` in order."""
        if self._index is None:
            nodes = self.nodes
            if all(type(x) is int for x in nodes) and nodes == list(range(len(nodes))):
                self._index = False
            else:
                self._index = dict(zip(nodes, range(len(nodes))))
        return self._index or None

    @property
    def labels(self) -> np.ndarray:
        """The nodes as an object array (vertex i is ``labels[i]``)."""
        if self._labels is None:
            self._labels = np.fromiter(self.nodes, dtype=object, count=self.n)
        return self._labels

    def vertex(self, node) -> int:
        """Vertex index of *node* (a node of the graph)."""
        index = self.index
        return int(node) if index is None else index[node]

    # ------------------------------------------------------------------ edges
    def _adj_map(self, direction: str):
        return self.G._pred if direction == "pred" else self.G._adj

    def adjacency(self, direction: str = "succ") -> _Adjacency:
        """The CSR of *direction* (``"succ"``: out-edges; ``"pred"``: in-edges of a directed graph)."""
        if direction == "pred" and not self.directed:
            direction = "succ"
        adj = self._adjs.get(direction)
        if adj is None:
            if self.n > _INT32_MAX:
                raise BackendDeclined(f"{self.n:,} nodes: the engine indexes vertices with int32")
            adj = self._adjs[direction] = _Adjacency(self, direction, self._adj_map(direction))
        return adj

    def weights(self, name, direction: str = "succ") -> _Weights:
        """The weights of edge attribute *name* in *direction*'s neighbour order, with their verdict."""
        if direction == "pred" and not self.directed:
            direction = "succ"
        key = (direction, name)
        w = self._weights.get(key)
        if w is None:
            adj_map = self._adj_map(direction)
            nbrs = list(map(adj_map.__getitem__, self.nodes))
            w = self._weights[key] = _scan_weights(nbrs, name, self.multigraph)
        return w

    def stored_edges(self) -> int:
        """Stored directed edges (an undirected edge twice), without converting when not converted."""
        adj = self._adjs.get("succ")
        if adj is not None:
            return adj.m
        return sum(map(len, self.G._adj.values()))


def _graph_data(G) -> _GraphData:
    """The (cached) :class:`_GraphData` of NetworkX graph or backend graph *G*."""
    if isinstance(G, AutotuneGraph):
        return G._data
    if _use_cache(G):
        cache = G.__networkx_cache__
        data = cache.get(_CACHE_KEY)
        if isinstance(data, _GraphData) and data.G is G:
            return data
        data = cache[_CACHE_KEY] = _GraphData(G)
        return data
    return _GraphData(G)


class AutotuneGraph:
    """A NetworkX graph converted for the ``autotune`` backend (what :func:`convert_from_nx` returns).

    NetworkX keeps it in ``G.__networkx_cache__`` and passes it to the backend's functions; it can
    also be passed to them directly (``nx.bfs_edges(AutotuneGraph, 0)`` dispatches here). It is a
    view of the graph it was converted from: read it, never change that graph while using it.

    Parameters
    ----------
    G : networkx.Graph
        Any NetworkX graph class (directed or not, multigraphs included).
    """

    __networkx_backend__ = "autotune"

    def __init__(self, G):
        self._data = G if isinstance(G, _GraphData) else _graph_data(G)

    @property
    def graph(self):
        """The NetworkX graph this was converted from."""
        return self._data.G

    def __contains__(self, node) -> bool:
        return node in self._data.G

    def __len__(self) -> int:
        return len(self._data.G)

    def __iter__(self):
        return iter(self._data.G)

    def is_directed(self) -> bool:
        """Whether the graph is directed."""
        return self._data.directed

    def is_multigraph(self) -> bool:
        """Whether the graph is a multigraph."""
        return self._data.multigraph

    def __getstate__(self):
        return {"G": self._data.G}

    def __setstate__(self, state):
        self._data = _GraphData(state["G"])

    def __repr__(self) -> str:
        kind = "directed" if self._data.directed else "undirected"
        return f"AutotuneGraph({self._data.name!r}, {kind}, {len(self._data.G):,} nodes)"


def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False, preserve_node_attrs=False,
                    preserve_graph_attrs=False, name=None, graph_name=None, **kwargs) -> AutotuneGraph:
    """Convert NetworkX graph *G* for the backend (called by NetworkX's dispatcher).

    The out-edges (and the weights of every attribute in *edge_attrs*) are converted now; the
    in-edges, other weights and the GPU copies on first use. Everything is cached on *G* (see the
    module's docstring).

    Parameters
    ----------
    G : networkx.Graph
    edge_attrs : dict, optional
        ``{attribute: default}`` the call needs (NetworkX passes the ``weight`` argument here).
    node_attrs, preserve_edge_attrs, preserve_node_attrs, preserve_graph_attrs, name, graph_name
        NetworkX's conversion arguments; nothing else is kept (the backend reads node labels and
        weights only).

    Returns
    -------
    AutotuneGraph
    """
    if isinstance(G, AutotuneGraph):
        return G
    data = _graph_data(G)
    data.adjacency("succ")
    for attr in (edge_attrs or {}):
        data.weights(attr)
    return AutotuneGraph(data)


def convert_to_nx(obj, *, name=None):
    """Results are NetworkX objects already; an :class:`AutotuneGraph` gives back its graph."""
    if isinstance(obj, AutotuneGraph):
        return obj.graph
    return obj


# ============================================================================== traversals
def _xp_of(a):
    return np if isinstance(a, np.ndarray) else __import__("cupy")


def _run_engine(csr, cfg, source: int):
    from .engine import run
    from .errors import DeviceMemoryError, GPUUnavailableError

    try:
        return run(csr, cfg, source=int(source), trace=False)
    except (DeviceMemoryError, GPUUnavailableError) as exc:
        raise BackendDeclined(str(exc)) from exc


def _bfs_distances(data: _GraphData, direction: str, sources) -> np.ndarray:
    """Hop distances from the nearest of *sources* (vertex ids): int32, -1 unreached (host or device)."""
    adj = data.adjacency(direction)
    n = data.n
    if adj.m == 0:
        dist = np.full(n, -1, dtype=np.int32)
        dist[list(sources)] = 0
        return dist
    if _host_reference():
        from scipy.sparse.csgraph import dijkstra

        d = dijkstra(adj.host_matrix(n), directed=True, indices=list(sources), unweighted=True, min_only=True)
        return np.where(np.isfinite(d), d, -1).astype(np.int32)
    csr = adj.csr(data)
    cfg = adj.config("bfs", csr, "bfs")
    out = None
    for s in sources:
        d = _run_engine(csr, cfg, s).distances
        if out is None:
            out = d if len(sources) == 1 else _xp_of(d).array(d, copy=True)
            continue
        xp = _xp_of(d)
        big = np.int32(_INT32_MAX)
        out = xp.minimum(xp.where(out < 0, big, out), xp.where(d < 0, big, d))
        out = xp.where(out == big, np.int32(-1), out).astype(np.int32)
    return out


def _sssp_distances(data: _GraphData, direction: str, source: int, weights: _Weights, weight_name):
    """Weighted distances from vertex *source*: (host array, reached mask); int64 or float64."""
    adj = data.adjacency(direction)
    n = data.n
    if weights.uniform is not None or adj.m == 0:  # every edge has the same int weight: a BFS, times it
        d = to_host(_bfs_distances(data, direction, [source])).astype(np.int64)
        reached = d >= 0
        return d * (weights.uniform or 1), reached
    if _host_reference():
        from scipy.sparse.csgraph import dijkstra

        d = dijkstra(adj.host_matrix(n, weights), directed=True, indices=source)
        reached = np.isfinite(d)
        if weights.kind == "int":
            d = np.where(reached, d, 0).astype(np.int64)
        return d, reached
    csr = adj.csr(data, weights, weight_name)
    cfg = adj.config(("sssp", weight_name), csr, "sssp")
    res = _run_engine(csr, cfg, source)
    if type(res).__name__ != "SSSPResult":
        raise BackendDeclined(f"the engine ran {type(res).__name__}, not SSSP, for an SSSP config")
    d = to_host(res.distances)
    if d.dtype.kind == "f":
        reached = np.isfinite(d)
        if weights.kind == "int":
            d = np.where(reached, d, 0).astype(np.int64)
        elif reached.any() and float(d[reached].max()) * weights.scale >= FLOAT32_EXACT_UNITS:
            raise BackendDeclined(f"a distance of {float(d[reached].max())} is beyond what float32 sums of "
                                  f"these weights hold exactly ({FLOAT32_EXACT_UNITS} units of {1 / weights.scale})")
    else:
        reached = (d != np.iinfo(d.dtype).max) & (d >= 0)
        d = d.astype(np.int64)
    return d, reached


def _scatter_min(xp):
    """``f(a, idx, values)``: ``a[idx] = min(a[idx], values)`` with repeated indices (NumPy or CuPy)."""
    at = getattr(xp.minimum, "at", None)  # CuPy >= 13 has ufunc.at; cupyx.scatter_min before
    if at is not None:
        return at
    import cupyx

    return cupyx.scatter_min


def _bfs_order(data: _GraphData, direction: str, roots: list, dist, max_depth):
    """NetworkX's BFS order, rebuilt from BFS distances level by level.

    Parameters
    ----------
    roots : list of int
        Level-0 vertices in NetworkX's order.
    dist : ndarray
        Hop distance of every vertex from the nearest root (-1 unreached), NumPy or CuPy.
    max_depth : int or None
        Last level to include (None: all).

    Returns
    -------
    order : ndarray of int64
        The vertices in the order NetworkX's queue visits them (roots first).
    parent : ndarray of int64
        ``parent[i]`` is the vertex that discovered ``order[i]`` (-1 for the roots).
    counts : ndarray of int64
        Vertices per level (``counts[d]`` of them at distance d).

    Notes
    -----
    NetworkX's queue takes the level-d vertices in order and, for each, its neighbours in
    adjacency order, claiming the unseen ones. So level d+1 is: the concatenation of the
    neighbour lists of level d's vertices (in level order), restricted to vertices at distance
    d+1, each kept at its first occurrence; its parent is the list it came from. One vectorised
    pass per level (no host synchronisation inside the loop: the level sizes and edge counts are
    read once, up front).
    """
    adj = data.adjacency(direction)
    n = data.n
    xp = _xp_of(dist)
    indptr = adj.device_arrays()[0] if xp is not np else adj.indptr
    reached = dist >= 0
    levels = dist[reached]
    counts = to_host(xp.bincount(levels)).astype(np.int64)
    deg = (indptr[1:] - indptr[:-1])[reached]
    level_edges = np.rint(to_host(xp.bincount(levels, weights=deg.astype(np.float64)))).astype(np.int64)
    depth = len(counts) - 1
    if max_depth is not None:
        depth = min(depth, int(max_depth))
    counts = counts[: depth + 1]
    work = int(level_edges[:depth].sum())
    use_gpu = (not _host_reference() and work >= ORDER_ON_GPU_MIN_EDGES
               and work >= ORDER_ON_GPU_MIN_LEVEL_EDGES * max(depth, 1))
    if use_gpu:
        import cupy

        xp = cupy
        indptr, indices = adj.device_arrays()
        dist = cupy.asarray(dist)
    else:
        xp = np
        indptr, indices = adj.indptr, adj.indices
        dist = to_host(dist)
    first_of = _scatter_min(xp)
    total = int(counts.sum())
    order = xp.empty(total + 1, dtype=np.int64)    # + 1: a slot for the writes that are thrown away
    parent = xp.full(total + 1, -1, dtype=np.int64)
    order[: len(roots)] = xp.asarray(np.asarray(roots, dtype=np.int64))
    sentinel = np.int32(_INT32_MAX)
    first = xp.full(n + 1, sentinel, dtype=np.int32)  # + 1: the slot of the rejected candidates
    base = 0
    for d in range(depth):
        c, c_next, n_edges = int(counts[d]), int(counts[d + 1]), int(level_edges[d])
        nxt = base + c
        if c_next == 0 or n_edges == 0:
            break
        level = order[base:nxt]
        starts = indptr[level]
        ldeg = indptr[level + 1] - starts
        ends = xp.cumsum(ldeg)
        e = xp.arange(n_edges, dtype=np.int64)
        seg = xp.searchsorted(ends, e, side="right")
        child = indices[starts[seg] + e - (ends[seg] - ldeg[seg])]
        keep = dist[child] == d + 1
        cand = xp.where(keep, child, n)
        e32 = e.astype(np.int32)
        first_of(first, cand, e32)
        is_first = keep & (first[child] == e32)
        rank = xp.cumsum(is_first) - 1
        dst = xp.where(is_first, nxt + rank, total)
        order[dst] = child
        parent[dst] = level[seg]
        first[cand] = sentinel
        base = nxt
    return to_host(order[:total]), to_host(parent[:total]), counts


def _max_levels(limit):
    """Levels NetworkX expands for a depth limit / cutoff *limit* (None: all of them).

    NetworkX's loops run ``while depth < limit`` (``bfs_edges``) and ``while cutoff > level``
    (``single_source_shortest_path_length``), both from 0: ``ceil(limit)`` levels, none for a
    negative limit or NaN.
    """
    if limit is None:
        return None
    try:
        x = float(limit)
    except OverflowError:  # an int beyond float range
        return None if limit > 0 else 0
    if math.isnan(x):
        return 0
    if math.isinf(x):
        return None if x > 0 else 0
    return max(0, math.ceil(limit))


# ============================================================================== output
def _ran(name: str) -> None:
    _record(name, "host_reference" if _host_reference() else "gpu")


def _labels_of(data: _GraphData, vertices: np.ndarray, source=None, source_vertex=None) -> list:
    """Node labels of *vertices* (one vectorised gather).

    NetworkX reports the source as the object the caller passed (``1.0`` for node ``1``); so does
    this, for *source_vertex*.
    """
    out = data.labels[vertices].tolist()
    if source_vertex is not None and data.labels[source_vertex] is not source:
        for pos in np.flatnonzero(vertices == source_vertex).tolist():
            out[pos] = source
    return out


def _length_dict(data: _GraphData, dist: np.ndarray, reached: np.ndarray, source, s: int) -> dict:
    """``{node: distance}`` over the reached vertices, keys in order of (distance, node order)."""
    idx = np.flatnonzero(reached)
    values = dist[idx]
    keys = values
    if values.dtype.kind in "iu" and values.size and int(values.max()) <= np.iinfo(np.int16).max:
        keys = values.astype(np.int16)  # NumPy's stable sort is a radix sort for 16-bit keys
    order = np.argsort(keys, kind="stable")
    idx, values = idx[order], values[order]
    keys = _labels_of(data, idx, source, s)
    vals = values.tolist()
    if vals and idx[0] == s:
        vals[0] = 0  # NetworkX's source distance is the int 0, also with float weights
    return dict(zip(keys, vals))


def _bfs_lengths(name: str, data: _GraphData, direction: str, source, cutoff) -> dict:
    s = data.vertex(source)
    levels = _max_levels(cutoff)
    if levels == 0 or data.adjacency(direction).m == 0:
        _record(name, "trivial")
        return {source: 0}
    dist = to_host(_bfs_distances(data, direction, [s]))
    reached = dist >= 0
    if levels is not None:
        reached &= dist <= levels
    _ran(name)
    return _length_dict(data, dist, reached, source, s)


def _tree(name: str, data: _GraphData, direction: str, source, depth_limit):
    """NetworkX's ``bfs_edges`` as vertex arrays ``(parents, children)`` in its order, and *source*'s vertex."""
    s = data.vertex(source)
    levels = _max_levels(depth_limit)
    if levels == 0 or data.adjacency(direction).m == 0:
        _record(name, "trivial")
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, s
    dist = _bfs_distances(data, direction, [s])
    order, parent, _ = _bfs_order(data, direction, [s], dist, levels)
    _ran(name)
    return parent[1:], order[1:], s


def _tree_labels(name: str, G, direction_of, source, depth_limit):
    data = _graph_data(G)
    parents, children, s = _tree(name, data, direction_of(data), source, depth_limit)
    return _labels_of(data, parents, source, s), _labels_of(data, children)


def _out_edges(data: _GraphData) -> str:
    return "succ"


# ============================================================================== the functions
def bfs_edges(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """NetworkX's :func:`networkx.bfs_edges` on the GPU: the same edges in the same order.

    Parameters
    ----------
    G : networkx.Graph or AutotuneGraph
    source : node
    reverse : bool
        Follow the in-edges of a directed graph.
    depth_limit : number, optional
    sort_neighbors : None
        Declined by :func:`can_run` when given (NetworkX runs the call).

    Returns
    -------
    iterator of (parent, child)
    """
    parents, children = _tree_labels("bfs_edges", G, lambda d: "pred" if reverse and d.directed else "succ",
                                     source, depth_limit)
    return zip(parents, children)


def bfs_tree(G, source, reverse=False, depth_limit=None, sort_neighbors=None):
    """NetworkX's :func:`networkx.bfs_tree` on the GPU: the same ``DiGraph`` (node and edge order).

    Parameters
    ----------
    G, source, reverse, depth_limit, sort_neighbors
        As for :func:`bfs_edges`.

    Returns
    -------
    networkx.DiGraph
    """
    parents, children = _tree_labels("bfs_tree", G, lambda d: "pred" if reverse and d.directed else "succ",
                                     source, depth_limit)
    T = nx.DiGraph()
    T.add_node(source)
    T.add_edges_from(zip(parents, children))
    return T


def bfs_predecessors(G, source, depth_limit=None, sort_neighbors=None):
    """NetworkX's :func:`networkx.bfs_predecessors` on the GPU, in NetworkX's order.

    Parameters
    ----------
    G, source, depth_limit, sort_neighbors
        As for :func:`bfs_edges`.

    Returns
    -------
    iterator of (node, predecessor)
    """
    parents, children = _tree_labels("bfs_predecessors", G, _out_edges, source, depth_limit)
    return zip(children, parents)


def bfs_successors(G, source, depth_limit=None, sort_neighbors=None):
    """NetworkX's :func:`networkx.bfs_successors` on the GPU, in NetworkX's order.

    Parameters
    ----------
    G, source, depth_limit, sort_neighbors
        As for :func:`bfs_edges`.

    Returns
    -------
    iterator of (node, list of successors)
        Like NetworkX's, ``(source, [])`` alone when no edge is traversed.
    """
    data = _graph_data(G)
    parents, children, s = _tree("bfs_successors", data, "succ", source, depth_limit)
    if parents.size == 0:
        return iter([(source, [])])
    # NetworkX groups consecutive edges by parent: one group per parent, in BFS order
    starts = np.flatnonzero(np.r_[True, parents[1:] != parents[:-1]])
    heads = _labels_of(data, parents[starts], source, s)
    kids = _labels_of(data, children)
    bounds = starts.tolist() + [len(kids)]
    return iter([(h, kids[a:b]) for h, a, b in zip(heads, bounds, bounds[1:])])


def bfs_layers(G, sources):
    """NetworkX's :func:`networkx.bfs_layers` on the GPU: each layer in NetworkX's order.

    Like NetworkX's, a generator: the sources are read and checked when iteration starts.

    Parameters
    ----------
    G : networkx.Graph or AutotuneGraph
    sources : node or iterable of nodes

    Yields
    ------
    list of nodes
    """
    return _layers(_graph_data(G), sources)


def _layers(data: _GraphData, sources):
    G = data.G
    if sources in G:
        sources = [sources]
    visited = set(sources)
    current = list(visited)  # NetworkX's first layer, in the same (set) order
    for source in current:
        if source not in G:
            raise nx.NetworkXError(f"The node {source} is not in the graph.")
    if not current:
        return
    roots = [data.vertex(x) for x in current]
    if data.adjacency("succ").m == 0:
        _record("bfs_layers", "trivial")
        yield current
        return
    dist = _bfs_distances(data, "succ", roots)
    order, _, counts = _bfs_order(data, "succ", roots, dist, None)
    _ran("bfs_layers")
    labels = data.labels[order[len(roots):]].tolist()
    yield current
    ends = np.cumsum(counts[1:]).tolist()
    for a, b in zip([0] + ends[:-1], ends):
        yield labels[a:b]


def descendants_at_distance(G, source, distance):
    """NetworkX's :func:`networkx.descendants_at_distance` on the GPU.

    Parameters
    ----------
    G : networkx.Graph or AutotuneGraph
    source : node
    distance : number
        Only a whole, non-negative number matches a layer (as in NetworkX).

    Returns
    -------
    set of nodes
    """
    data = _graph_data(G)
    try:
        d = float(distance)
    except OverflowError:  # no layer that deep
        d = math.inf
    if not (d >= 0 and d.is_integer()) or math.isinf(d):
        _record("descendants_at_distance", "trivial")
        return set()
    d = int(d)
    if d == 0:
        _record("descendants_at_distance", "trivial")
        return {source}
    if data.adjacency("succ").m == 0:
        _record("descendants_at_distance", "trivial")
        return set()
    dist = to_host(_bfs_distances(data, "succ", [data.vertex(source)]))
    _ran("descendants_at_distance")
    return set(data.labels[np.flatnonzero(dist == d)].tolist())


def single_source_shortest_path_length(G, source, cutoff=None):
    """NetworkX's :func:`networkx.single_source_shortest_path_length` on the GPU.

    Parameters
    ----------
    G : networkx.Graph or AutotuneGraph
    source : node
    cutoff : number, optional

    Returns
    -------
    dict
        ``{node: hops}``: NetworkX's keys and values (keys in order of distance).
    """
    return _bfs_lengths("single_source_shortest_path_length", _graph_data(G), "succ", source, cutoff)


def single_target_shortest_path_length(G, target, cutoff=None):
    """NetworkX's :func:`networkx.single_target_shortest_path_length` on the GPU (a BFS over in-edges).

    Parameters
    ----------
    G : networkx.Graph or AutotuneGraph
    target : node
    cutoff : number, optional

    Returns
    -------
    dict
        ``{node: hops to target}`` (keys in order of distance).
    """
    return _bfs_lengths("single_target_shortest_path_length", _graph_data(G), "pred", target, cutoff)


def _dijkstra_lengths(name: str, data: _GraphData, direction: str, source, cutoff, weight) -> dict:
    s = data.vertex(source)
    w = data.weights(weight, direction)
    if w.kind is None:  # can_run declines these; a direct call gets the same answer
        raise BackendDeclined(w.reason)
    dist, reached = _sssp_distances(data, direction, s, w, weight)
    if cutoff is not None:
        reached &= dist <= cutoff
        reached[s] = True
    _ran(name)
    return _length_dict(data, dist, reached, source, s)


def single_source_dijkstra_path_length(G, source, cutoff=None, weight="weight"):
    """NetworkX's :func:`networkx.single_source_dijkstra_path_length` with SSSP on the GPU.

    Parameters
    ----------
    G : networkx.Graph or AutotuneGraph
    source : node
    cutoff : number, optional
    weight : str
        Edge attribute (missing: 1; parallel edges: the least). Weight functions, and weights
        other than all positive ints (fitting int32) or all positive floats whose float32 sums are
        exact (multiples of a power of two, see :data:`FLOAT32_EXACT_UNITS`), are declined by
        :func:`can_run`.

    Returns
    -------
    dict
        ``{node: length}``: ints for int weights, floats for float weights (the source's 0 is an
        int, as in NetworkX); keys in order of distance.
    """
    return _dijkstra_lengths("single_source_dijkstra_path_length", _graph_data(G), "succ", source, cutoff,
                             weight)


def shortest_path_length(G, source=None, target=None, weight=None, method="dijkstra"):
    """NetworkX's :func:`networkx.shortest_path_length` on the GPU.

    Unweighted (``weight=None``): a BFS from *source*, over in-edges to *target*, or one BFS per
    node for all pairs (a generator, as NetworkX's). Weighted with ``method='dijkstra'``: SSSP
    (see :func:`single_source_dijkstra_path_length` for the weights taken).

    Parameters
    ----------
    G : networkx.Graph or AutotuneGraph
    source, target : node, optional
    weight : str, optional
    method : {'dijkstra'}
        ``'bellman-ford'`` with a weight is declined by :func:`can_run`.

    Returns
    -------
    int, number, dict or iterator of (node, dict)
        As NetworkX: the length for a source and a target (``NetworkXNoPath`` when there is no
        path), a dict for a source or a target, an iterator of ``(node, dict)`` for all pairs.
    """
    name = "shortest_path_length"
    data = _graph_data(G)
    weighted = weight is not None
    if source is None and target is None:
        if weighted:
            return ((node, _dijkstra_lengths(name, data, "succ", node, None, weight)) for node in data.G)
        return ((node, _bfs_lengths(name, data, "succ", node, None)) for node in data.G)
    if target is None:
        if weighted:
            return _dijkstra_lengths(name, data, "succ", source, None, weight)
        return _bfs_lengths(name, data, "succ", source, None)
    if source is None:
        if weighted:
            return _dijkstra_lengths(name, data, "pred", target, None, weight)
        return _bfs_lengths(name, data, "pred", target, None)
    # a source and a target: NetworkX's dijkstra_path_length / bidirectional_shortest_path
    s, t = data.vertex(source), data.vertex(target)
    if weighted:
        if source == target:
            _record(name, "trivial")
            return 0
        w = data.weights(weight)
        if w.kind is None:
            raise BackendDeclined(w.reason)
        dist, reached = _sssp_distances(data, "succ", s, w, weight)
        _ran(name)
        if not reached[t]:
            raise nx.NetworkXNoPath(f"Node {target} not reachable from {source}")
        return dist[t].item()
    if s == t:
        _record(name, "trivial")
        return 0
    if data.adjacency("succ").m == 0:
        _record(name, "trivial")
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    dist = to_host(_bfs_distances(data, "succ", [s]))
    _ran(name)
    if dist[t] < 0:
        raise nx.NetworkXNoPath(f"No path between {source} and {target}.")
    return int(dist[t])


def _host_closeness_reductions(data: _GraphData, sources):
    """The host reference (scipy) of the batched BFS's reductions, per source vertex (None: all):
    the vertices that reach it (itself included) and the sum of their hop distances to it."""
    adj = data.adjacency("pred")  # NetworkX: G.reverse() for a directed graph, then BFS from the node
    n = data.n
    from scipy.sparse.csgraph import dijkstra

    mat = adj.host_matrix(n)
    src = np.arange(n) if sources is None else np.asarray(sources, dtype=np.int64)
    reached = np.empty(len(src), dtype=np.int64)
    sums = np.empty(len(src), dtype=np.int64)
    for a in range(0, len(src), _HOST_CLOSENESS_CHUNK):
        d = dijkstra(mat, directed=True, indices=src[a:a + _HOST_CLOSENESS_CHUNK], unweighted=True)
        fin = np.isfinite(d)
        reached[a:a + len(d)] = fin.sum(axis=1)
        sums[a:a + len(d)] = np.where(fin, d, 0).sum(axis=1).astype(np.int64)
    return reached, sums


def _closeness_values(data: _GraphData, sources, wf_improved: bool) -> np.ndarray:
    """NetworkX's closeness of *sources* (vertex ids; None: every vertex, in node order), float64."""
    from .batched import closeness_centrality as batched_closeness, closeness_from_reductions

    if _host_reference():
        reached, sums = _host_closeness_reductions(data, sources)
        return closeness_from_reductions(data.n, reached, sums, wf_improved)
    from .errors import DeviceMemoryError, GPUUnavailableError

    # the out-edges' CSR: the batched engine itself runs over the in-edges of a directed graph
    csr = data.adjacency("succ").csr(data)
    try:
        c = batched_closeness(csr, None if sources is None else np.asarray(sources, dtype=np.int64),
                              wf_improved=wf_improved)
    except (DeviceMemoryError, GPUUnavailableError) as exc:
        raise BackendDeclined(str(exc)) from exc
    return to_host(c)


def closeness_centrality(G, u=None, distance=None, wf_improved=True):
    """NetworkX's :func:`networkx.closeness_centrality` from batched multi-source BFS on the GPU.

    NetworkX's definition, to the bit: ``(r - 1) / S`` for a node reached from ``r - 1`` other
    nodes at total distance ``S`` over the in-edges (NetworkX reverses a directed graph), times
    ``(r - 1) / (len(G) - 1)`` with *wf_improved*; 0.0 when ``S`` is 0 or the graph has one node.

    Parameters
    ----------
    G : networkx.Graph or AutotuneGraph
    u : node, optional
        Only this node's closeness (a float).
    distance : edge attribute, optional
        Taken only when every edge's distance is 1 (the attribute missing, as NetworkX reads it, or 1
        / 1.0 on every edge): other distances are declined by :func:`can_run` (NetworkX runs Dijkstra).
    wf_improved : bool
        Wasserman and Faust's scaling by the fraction of nodes reached.

    Returns
    -------
    dict or float
        ``{node: closeness}`` in node order, or the float of *u*.
    """
    name = "closeness_centrality"
    data = _graph_data(G)
    if distance is not None:
        c = _closeness_distance_check(data, distance)
        if c is not True:  # can_run declines it; a direct call gets the same answer
            raise BackendDeclined(c)
    sources = None if u is None else [data.vertex(u)]
    n = data.n
    if n <= 1 or data.adjacency("succ").m == 0:  # no node reaches another: NetworkX's 0.0 everywhere
        _record(name, "trivial")
        values = [0.0] * (n if u is None else 1)
    else:
        values = _closeness_values(data, sources, bool(wf_improved)).tolist()
        _ran(name)
    if u is not None:
        return values[0]
    return dict(zip(data.nodes, values))


_IMPLS = {
    "bfs_edges": bfs_edges, "bfs_tree": bfs_tree, "bfs_predecessors": bfs_predecessors,
    "bfs_successors": bfs_successors, "bfs_layers": bfs_layers, "descendants_at_distance": descendants_at_distance,
    "single_source_shortest_path_length": single_source_shortest_path_length,
    "single_target_shortest_path_length": single_target_shortest_path_length,
    "shortest_path_length": shortest_path_length,
    "single_source_dijkstra_path_length": single_source_dijkstra_path_length,
    "closeness_centrality": closeness_centrality,
}
assert tuple(_IMPLS) == FUNCTIONS
_SIGNATURES = {name: inspect.signature(func) for name, func in _IMPLS.items()}


# ============================================================================== can_run / should_run
def _is_real(x) -> bool:
    return isinstance(x, numbers.Real)


def _node_check(G, node, what="source"):
    if node not in G:  # NetworkX raises its own error (NodeNotFound / NetworkXError) for it
        return f"{what} {node!r} is not a node of the graph (NetworkX raises its error)"
    return True


def _limit_check(value, what):
    if value is None or (_is_real(value) and not (isinstance(value, float) and math.isnan(value))):
        return True
    return f"{what}={value!r} is not a number (NetworkX handles it)"


def _sssp_engine_check():
    """True when the engine runs SSSP (``TraversalConfig.algorithm``, ``CSRGraph.weights``, ``SSSPResult``)."""
    if _host_reference():
        return True
    from . import engine
    from .config import TraversalConfig
    from .graph import CSRGraph

    if "algorithm" not in {f.name for f in dataclasses.fields(TraversalConfig)}:
        return "this release's engine has no SSSP (TraversalConfig has no algorithm field)"
    if "weights" not in {f.name for f in dataclasses.fields(CSRGraph)}:
        return "this release's CSRGraph carries no weights"
    if not hasattr(engine, "SSSPResult"):
        return "this release's engine has no SSSP (no SSSPResult)"
    return True


def _weight_check(G, weight):
    if callable(weight):
        return "weight functions are declined (NetworkX calls them per edge)"
    try:
        hash(weight)
    except TypeError:
        return f"weight={weight!r} is not an attribute name"
    w = _graph_data(G).weights(weight)
    if w.kind is None:
        return w.reason
    if w.uniform is not None or len(w.values) == 0:
        return True  # every edge has the same int weight (or there is none): a BFS answers it
    return _sssp_engine_check()


def _first_failure(*checks):
    for c in checks:
        if c is not True:
            return c
    return True


def _check_bfs_tree_like(G, a):
    if a.get("sort_neighbors") is not None:
        return "sort_neighbors is declined (NetworkX runs it)"
    return _first_failure(_node_check(G, a["source"]), _limit_check(a["depth_limit"], "depth_limit"))


def _check_layers(G, a):
    sources = a["sources"]
    if sources in G or isinstance(sources, Iterator):
        return True  # one source; or an iterator, read when iteration starts (as NetworkX does)
    try:
        k = len(set(sources))
    except TypeError:
        return True  # NetworkX's TypeError, raised by the same code when iteration starts
    if k > MAX_LAYER_SOURCES:
        return f"{k} sources: more than MAX_LAYER_SOURCES={MAX_LAYER_SOURCES} (one GPU BFS per source)"
    return True  # sources that are not nodes get NetworkX's NetworkXError from the same code


def _check_descendants(G, a):
    if not _is_real(a["distance"]):
        return f"distance={a['distance']!r} is not a number (NetworkX handles it)"
    return _node_check(G, a["source"])


def _check_ssspl(G, a):
    return _first_failure(_node_check(G, a["source"]), _limit_check(a["cutoff"], "cutoff"))


def _check_stspl(G, a):
    return _first_failure(_node_check(G, a["target"], "target"), _limit_check(a["cutoff"], "cutoff"))


def _check_spl(G, a):
    method, weight, source, target = a["method"], a["weight"], a["source"], a["target"]
    if method not in ("dijkstra", "bellman-ford"):
        return f"method={method!r} (NetworkX raises its ValueError)"
    for node, what in ((source, "source"), (target, "target")):
        if node is not None:
            c = _node_check(G, node, what)
            if c is not True:
                return c
    if weight is None:
        return True
    if method != "dijkstra":
        return "method='bellman-ford' is declined (the GPU SSSP is for positive weights: use dijkstra)"
    return _weight_check(G, weight)


def _check_dijkstra(G, a):
    return _first_failure(_node_check(G, a["source"]), _limit_check(a["cutoff"], "cutoff"),
                          _weight_check(G, a["weight"]))


def _closeness_distance_check(data: _GraphData, distance):
    """True when every edge's *distance* is 1 as NetworkX's Dijkstra reads it (hop counts, then)."""
    if callable(distance):
        return "distance functions are declined (NetworkX calls them per edge)"
    try:
        hash(distance)
    except TypeError:
        return f"distance={distance!r} is not an attribute name"
    w = data.weights(distance)
    if w.kind is None:
        return f"weighted closeness is declined ({w.reason})"
    if len(w.values) and not bool((w.values == 1).all()):
        return (f"distance={distance!r}: edge distances other than 1 (weighted closeness is declined: NetworkX "
                "runs Dijkstra from every node)")
    return True


def _check_closeness(G, a):
    if a["u"] is not None:
        c = _node_check(G, a["u"], "u")
        if c is not True:
            return c
    if a["distance"] is not None:
        return _closeness_distance_check(_graph_data(G), a["distance"])
    return True


_CHECKS = {
    "bfs_edges": _check_bfs_tree_like, "bfs_tree": _check_bfs_tree_like, "bfs_predecessors": _check_bfs_tree_like,
    "bfs_successors": _check_bfs_tree_like, "bfs_layers": _check_layers, "descendants_at_distance": _check_descendants,
    "single_source_shortest_path_length": _check_ssspl, "single_target_shortest_path_length": _check_stspl,
    "shortest_path_length": _check_spl, "single_source_dijkstra_path_length": _check_dijkstra,
    "closeness_centrality": _check_closeness,
}


def _bind(name, args, kwargs):
    bound = _SIGNATURES[name].bind(*args, **kwargs)
    bound.apply_defaults()
    return bound.arguments


def can_run(name, args, kwargs):
    """Whether the backend can run NetworkX function *name* with these arguments (NetworkX's hook).

    Parameters
    ----------
    name : str
        The NetworkX function.
    args : tuple
    kwargs : dict
        The call's arguments, as given to NetworkX (graphs not converted yet).

    Returns
    -------
    True or str
        True, or why not (NetworkX logs the reason and runs its own implementation, or raises
        ``NotImplementedError`` when ``backend="autotune"`` was asked for): no usable GPU; an
        argument NetworkX treats specially (``sort_neighbors``, weight functions, Bellman-Ford,
        a node not in the graph, a non-numeric limit); weights the GPU path cannot sum like
        NetworkX (zero, negative or non-finite weights, int weights beyond int32, floats that are
        not multiples of a power of two whose float32 sums stay exact, see
        :data:`FLOAT32_EXACT_UNITS`; mixed int and float); more than :data:`MAX_LAYER_SOURCES` sources;
        a closeness ``distance`` under which some edge is not 1 (weighted closeness).
    """
    if name not in _IMPLS:
        return f"{name} is not implemented by autotune"
    try:
        verdict = _device_ready()
        if verdict is True:
            a = _bind(name, args, kwargs)
            G = a["G"]
            if not isinstance(G, (nx.Graph, AutotuneGraph)):
                verdict = f"G is a {type(G).__name__}, not a NetworkX graph"
            else:
                verdict = _CHECKS[name](G, a)
    except Exception as exc:  # a check never raises: NetworkX runs the call and reports the problem itself
        verdict = f"arguments not understood ({type(exc).__name__}: {exc})"
    if verdict is not True:
        _record(name, f"declined: {verdict}")
    return verdict


def should_run(name, args, kwargs):
    """Whether running *name* here is expected to beat NetworkX (NetworkX's hook, after :func:`can_run`).

    Consulted when the backend was picked by ``NETWORKX_BACKEND_PRIORITY`` (not for
    ``backend="autotune"``, which always runs when :func:`can_run` agrees).

    Returns
    -------
    True or str
        Why not: the graph has fewer than :data:`SHOULD_RUN_MIN_EDGES` stored edges, or the
        traversals would run with the host reference (:data:`HOST_REFERENCE_ENV`).
    """
    try:
        if _host_reference():
            verdict = "the host reference (AUTOTUNE_NX_HOST_REFERENCE) is for testing, never faster than NetworkX"
        else:
            G = _bind(name, args, kwargs)["G"]
            m = _graph_data(G).stored_edges()
            verdict = True if m >= SHOULD_RUN_MIN_EDGES else (
                f"{m:,} stored edges < SHOULD_RUN_MIN_EDGES={SHOULD_RUN_MIN_EDGES:,}: NetworkX is as fast here")
    except Exception as exc:
        verdict = f"arguments not understood ({type(exc).__name__}: {exc})"
    if verdict is not True:
        _record(name, f"not preferred: {verdict}")
    return verdict


class BackendInterface:
    """What NetworkX loads through the ``networkx.backends`` entry point ``autotune``.

    Holds the implemented functions (:data:`FUNCTIONS`) and NetworkX's hooks: :func:`can_run`,
    :func:`should_run`, :func:`convert_from_nx`, :func:`convert_to_nx`.
    """

    can_run = staticmethod(can_run)
    should_run = staticmethod(should_run)
    convert_from_nx = staticmethod(convert_from_nx)
    convert_to_nx = staticmethod(convert_to_nx)


for _name, _func in _IMPLS.items():
    setattr(BackendInterface, _name, staticmethod(_func))
del _name, _func
