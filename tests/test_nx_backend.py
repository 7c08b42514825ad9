"""The NetworkX dispatch backend ``autotune`` (autotune/nx_backend.py, _autotune_nx.py).

CPU tests prove the wiring (entry points, NetworkX's registry, clean declines without a GPU, the
cache rules) and, with the host reference (``AUTOTUNE_NX_HOST_REFERENCE``: scipy stands in for the
GPU), the backend's NetworkX semantics: orders, depth limits, reverse, labels, weights. The same
comparisons run on the GPU (``mode`` "gpu", marked ``gpu``). ``networkx_suite`` tests run NetworkX's
own test modules with the backend (tests/run_networkx_suite.py).
"""
from __future__ import annotations

import copy
import inspect
import itertools
import json
import os
import pickle
import random
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import numpy as np
import pytest

nx = pytest.importorskip("networkx")

import autotune.nx_backend as B  # noqa: E402

if not entry_points(group="networkx.backends", name="autotune"):
    # NetworkX finds backends only through installed entry points: autotune imported from a source tree
    # that was never installed (PYTHONPATH) has none, and nx.config.backends has no "autotune"
    pytest.skip("autotune is not installed, so NetworkX has no 'autotune' backend entry point "
                "(pip install -e . from the repository)", allow_module_level=True)

REPO = Path(__file__).resolve().parent.parent


# ============================================================================== helpers
@pytest.fixture(autouse=True)
def _quiet_cache_warning(monkeypatch):
    monkeypatch.setattr(nx.config, "warnings_to_ignore", set(nx.config.warnings_to_ignore) | {"cache"})


@pytest.fixture(params=["host", pytest.param("gpu", marks=pytest.mark.gpu)])
def mode(request, monkeypatch):
    """Where the backend's traversals run: the host reference (scipy) or the GPU engine."""
    if request.param == "host":
        monkeypatch.setenv(B.HOST_REFERENCE_ENV, "1")
    else:
        monkeypatch.delenv(B.HOST_REFERENCE_ENV, raising=False)
        monkeypatch.setattr(nx.config.backends.autotune, "host_reference", False)
        monkeypatch.setattr(nx.config.backends.autotune, "tune", False)  # the engine's default config: faster
        monkeypatch.setattr(B, "ORDER_ON_GPU_MIN_EDGES", 0)  # rebuild the orders with CuPy on every graph
        monkeypatch.setattr(B, "ORDER_ON_GPU_MIN_LEVEL_EDGES", 0)
    return request.param


def outcome(func, *args, materialize=None, **kwargs):
    """What a call gives: ``("ok", value)`` (iterators materialised as lists) or ``("raise", type, message)``."""
    try:
        r = func(*args, **kwargs)
        if materialize is not None:
            r = materialize(r)
        elif inspect.isgenerator(r) or isinstance(r, (zip, type(iter([])))):
            r = list(r)
        return ("ok", r)
    except Exception as exc:  # compared between NetworkX and the backend
        return ("raise", type(exc), str(exc))


def typed(value):
    """*value* with the types of its numbers, so that ``{1: 2}`` and ``{1: 2.0}`` differ."""
    if isinstance(value, dict):
        return [(k, typed(v)) for k, v in value.items()]
    if isinstance(value, (list, tuple)):
        return [typed(v) for v in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return (type(value).__name__, value)
    return value


def assert_same(func, G, *args, runs=True, ordered_dict=False, **kwargs):
    """The backend gives what NetworkX gives (values, order, types, errors); and it ran (``can_run``)."""
    name = func.__name__
    if runs:
        assert B.can_run(name, (G, *args), kwargs) is True, B.can_run(name, (G, *args), kwargs)
    ref = outcome(func, G, *args, **kwargs)
    got = outcome(func, G, *args, backend="autotune", **kwargs)
    if ref[0] == "ok" and isinstance(ref[1], dict) and not ordered_dict:
        assert got[0] == "ok", got
        assert sorted(map(repr, typed(got[1]))) == sorted(map(repr, typed(ref[1])))  # values and their types
        assert got[1] == ref[1]
    else:
        assert typed(got) == typed(ref), (name, args, kwargs)
    return got


# ============================================================================== the zoo
def _shuffled_copy(G, seed):
    """*G* rebuilt with nodes and edges inserted in a shuffled order (neighbour order != sorted order)."""
    rng = random.Random(seed)
    H = G.__class__()
    nodes = list(G.nodes(data=True))
    rng.shuffle(nodes)
    H.add_nodes_from(nodes)
    edges = list(G.edges(data=True, keys=True) if G.is_multigraph() else G.edges(data=True))
    rng.shuffle(edges)
    H.add_edges_from(edges)
    return H


def _weigh(G, seed, kind="int"):
    rng = random.Random(seed)
    edges = G.edges(keys=True, data=True) if G.is_multigraph() else G.edges(data=True)
    for *_, d in edges:
        d["weight"] = rng.randint(1, 9) if kind == "int" else rng.randint(1, 40) * 0.25
    return G


def zoo():
    """``name -> (graph, sources)``: directed/undirected, disconnected, labels of many kinds, loops, multi."""
    out = {}
    out["directed"] = _weigh(nx.gnm_random_graph(80, 240, seed=1, directed=True), 1)
    out["undirected"] = _weigh(nx.gnm_random_graph(80, 170, seed=2), 2)
    two = nx.disjoint_union(nx.gnm_random_graph(30, 60, seed=3, directed=True),
                            nx.gnm_random_graph(25, 40, seed=4, directed=True))
    two.add_nodes_from(range(55, 60))  # isolated nodes
    out["disconnected"] = _weigh(nx.relabel_nodes(two, {i: 1000 + 7 * i for i in two}), 3)
    strings = nx.relabel_nodes(nx.gnm_random_graph(60, 150, seed=5, directed=True), {i: f"v{i:03d}" for i in range(60)})
    out["strings"] = _weigh(_shuffled_copy(strings, 5), 5, "float")
    grid = nx.grid_2d_graph(6, 7)
    grid.remove_edges_from(list(grid.edges)[::5])
    out["tuples"] = _weigh(_shuffled_copy(grid, 6), 6)
    mixed = nx.gnm_random_graph(40, 90, seed=7)
    mixed = nx.relabel_nodes(mixed, {i: (i if i % 3 else f"s{i}") for i in mixed})
    out["mixed_labels"] = _weigh(_shuffled_copy(mixed, 7), 7, "float")
    multi = nx.MultiDiGraph(nx.gnm_random_graph(40, 100, seed=8, directed=True))
    multi.add_edges_from([(u, v) for u, v in list(multi.edges())[::3]])  # parallel edges
    multi.add_edges_from([(i, i) for i in range(0, 40, 4)])  # self-loops
    out["multidigraph"] = _weigh(multi, 8)
    loops = nx.gnm_random_graph(30, 60, seed=9, directed=True)
    loops.add_edges_from((i, i) for i in range(30))
    out["selfloops"] = _weigh(loops, 9)
    out["path"] = _weigh(nx.path_graph(60, create_using=nx.DiGraph), 10)
    out["no_edges"] = nx.empty_graph(6)
    return {k: (G, list(G)[:: max(1, len(G) // 4)][:4]) for k, G in out.items()}


ZOO = sorted(zoo())


@pytest.fixture(params=ZOO)
def zoo_graph(request):
    return zoo()[request.param]


# ============================================================================== wiring (CPU)
def test_entry_points_resolve_to_the_backend():
    (ep,) = entry_points(group="networkx.backends", name="autotune")
    (info_ep,) = entry_points(group="networkx.backend_info", name="autotune")
    assert ep.load() is B.BackendInterface
    info = info_ep.load()()
    assert info["backend_name"] == "autotune"
    assert set(info["functions"]) == set(B.FUNCTIONS)
    for name in B.FUNCTIONS:
        assert callable(getattr(B.BackendInterface, name))
    for hook in ("can_run", "should_run", "convert_from_nx", "convert_to_nx"):
        assert callable(getattr(B.BackendInterface, hook))


def test_networkx_lists_the_backend():
    assert "autotune" in nx.utils.backends.backends
    assert nx.utils.backends.backend_info["autotune"]["package"] == "autotune"
    assert nx.config.backends.autotune.tune is True
    # NetworkX's docstrings name the backend for the functions it implements
    assert "autotune" in nx.bfs_edges.backends


@pytest.mark.parametrize("name", B.FUNCTIONS)
def test_signatures_match_networkx(name):
    """Each function takes NetworkX's parameters (names, order, defaults)."""
    theirs = [p for p in inspect.signature(getattr(nx, name)).parameters.values()
              if p.name != "backend" and p.kind is not p.VAR_KEYWORD]
    ours = list(inspect.signature(getattr(B.BackendInterface, name)).parameters.values())
    assert [(p.name, p.default) for p in ours] == [(p.name, p.default) for p in theirs]


def test_backend_info_and_networkx_import_stay_light():
    """backend_info is read by every `import networkx`: it must not import autotune, NumPy or CuPy."""
    code = ("import sys, networkx, _autotune_nx; _autotune_nx.get_info(); "
            "print(sorted(m for m in ('autotune', 'numpy', 'cupy') if m in sys.modules))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd="/", timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_without_gpu_the_backend_declines_cleanly(monkeypatch):
    """No usable GPU: can_run says why, backend="autotune" raises NotImplementedError (NetworkX's rule),
    and with the backend in NetworkX's priority list NetworkX runs the call itself."""
    import autotune._backend

    monkeypatch.delenv(B.HOST_REFERENCE_ENV, raising=False)
    monkeypatch.setattr(nx.config.backends.autotune, "host_reference", False)
    monkeypatch.setattr(autotune._backend, "_probe", lambda: (False, "disabled for this test"))
    G = nx.gnm_random_graph(200, 4000, seed=0)
    why = B.can_run("single_source_shortest_path_length", (G, 0), {})
    assert isinstance(why, str) and "GPU" in why
    with pytest.raises(NotImplementedError, match="autotune"):
        nx.single_source_shortest_path_length(G, 0, backend="autotune")
    with pytest.raises(NotImplementedError):
        list(nx.bfs_edges(G, 0, backend="autotune"))
    monkeypatch.setattr(nx.config.backend_priority, "algos", ["autotune"])
    ref = nx.single_source_shortest_path_length(G, 0, backend="networkx")
    assert nx.single_source_shortest_path_length(G, 0) == ref
    assert list(nx.bfs_edges(G, 3)) == list(nx.bfs_edges(G, 3, backend="networkx"))
    stats = B.dispatch_stats()["single_source_shortest_path_length"]
    assert any(k.startswith("declined: no usable NVIDIA GPU") for k in stats)


def test_priority_environment_variable_falls_back_without_gpu():
    """NETWORKX_BACKEND_PRIORITY=autotune in a fresh process without a GPU: NetworkX's own result."""
    code = ("import networkx as nx; G = nx.path_graph(30000); "  # above SHOULD_RUN_MIN_EDGES
            "d = nx.single_source_shortest_path_length(G, 0); "
            "from autotune.nx_backend import dispatch_stats; "
            "print(d[29999], sorted(dispatch_stats()['single_source_shortest_path_length']))")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NETWORKX_", "AUTOTUNE_NX"))}
    env.update(NETWORKX_BACKEND_PRIORITY="autotune", AUTOTUNE_DISABLE_GPU="1")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("29999 ['declined: no usable NVIDIA GPU")


def test_should_run_threshold(monkeypatch):
    monkeypatch.delenv(B.HOST_REFERENCE_ENV, raising=False)
    monkeypatch.setattr(nx.config.backends.autotune, "host_reference", False)
    small = nx.gnm_random_graph(100, 300, seed=0)
    big = nx.gnm_random_graph(2000, B.SHOULD_RUN_MIN_EDGES, seed=0)  # undirected: twice as many stored edges
    why = B.should_run("bfs_edges", (small, 0), {})
    assert isinstance(why, str) and "SHOULD_RUN_MIN_EDGES" in why
    assert B.should_run("bfs_edges", (big, 0), {}) is True
    monkeypatch.setenv(B.HOST_REFERENCE_ENV, "1")
    assert isinstance(B.should_run("bfs_edges", (big, 0), {}), str)  # the host reference is never preferred


# ============================================================================== semantics (host reference / GPU)
def test_bfs_edges_tree_predecessors_successors(zoo_graph, mode):
    G, sources = zoo_graph
    for s, depth in itertools.product(sources, (None, 0, 1, 2, 2.5, -1, 10**400)):
        for reverse in (False, True):
            assert_same(nx.bfs_edges, G, s, reverse=reverse, depth_limit=depth)
            ref = nx.bfs_tree(G, s, reverse=reverse, depth_limit=depth)
            got = nx.bfs_tree(G, s, reverse=reverse, depth_limit=depth, backend="autotune")
            assert list(got.nodes) == list(ref.nodes) and list(got.edges) == list(ref.edges)
            assert type(got) is nx.DiGraph
        assert_same(nx.bfs_predecessors, G, s, depth_limit=depth)
        assert_same(nx.bfs_successors, G, s, depth_limit=depth)


def test_bfs_layers(zoo_graph, mode):
    G, sources = zoo_graph
    for s in sources:
        assert_same(nx.bfs_layers, G, s)
    assert_same(nx.bfs_layers, G, sources)
    assert_same(nx.bfs_layers, G, sources + sources[:1])  # duplicates, as NetworkX: one first layer
    assert_same(nx.bfs_layers, G, tuple(sources))
    # an iterator of sources (one per call): read when iteration starts
    ref = list(nx.bfs_layers(G, iter(sources[::-1])))
    assert list(nx.bfs_layers(G, iter(sources[::-1]), backend="autotune")) == ref
    # sources that are not nodes: NetworkX's error, raised when iteration starts
    assert_same(nx.bfs_layers, G, ["not a node"])
    assert_same(nx.bfs_layers, G, [])


def test_descendants_at_distance(zoo_graph, mode):
    G, sources = zoo_graph
    for s in sources:
        for d in (0, 1, 2, 3, 5, 2.0, 2.5, -1, 10**400, True):
            assert_same(nx.descendants_at_distance, G, s, d)


def test_unweighted_path_lengths(zoo_graph, mode):
    G, sources = zoo_graph
    nodes = list(G)
    for s, cutoff in itertools.product(sources, (None, 0, 1, 2.5, -1)):
        assert_same(nx.single_source_shortest_path_length, G, s, cutoff=cutoff)
        assert_same(nx.single_target_shortest_path_length, G, s, cutoff=cutoff)
    for s in sources:
        assert_same(nx.shortest_path_length, G, s)
        assert_same(nx.shortest_path_length, G, target=s)
        for t in (nodes[0], nodes[-1], nodes[len(nodes) // 2], s):
            assert_same(nx.shortest_path_length, G, s, t)  # NetworkXNoPath's message too
    if len(G) <= 60:
        ref = dict(nx.shortest_path_length(G))
        got = dict(nx.shortest_path_length(G, backend="autotune"))
        assert list(got) == list(ref) and got == ref


def _sssp_or_skip(mode):
    if mode == "gpu" and B._sssp_engine_check() is not True:
        pytest.skip(f"GPU SSSP not available: {B._sssp_engine_check()}")


def test_weighted_path_lengths(zoo_graph, mode):
    G, sources = zoo_graph
    _sssp_or_skip(mode)
    nodes = list(G)
    for s, cutoff in itertools.product(sources, (None, 0, 3, 7.5, -1)):
        assert_same(nx.single_source_dijkstra_path_length, G, s, cutoff=cutoff)
    for s in sources:
        assert_same(nx.shortest_path_length, G, s, weight="weight")
        assert_same(nx.shortest_path_length, G, target=s, weight="weight")
        for t in (nodes[0], nodes[-1], s):
            assert_same(nx.shortest_path_length, G, s, t, weight="weight")
        # an attribute no edge has: every weight is 1 (NetworkX's default), a BFS answers it
        assert_same(nx.single_source_dijkstra_path_length, G, s, weight="no such attribute")
        assert_same(nx.shortest_path_length, G, s, weight=True)


def test_weights_as_networkx_reads_them(mode):
    """Parallel edges: the least weight; a missing attribute: 1; int weights give ints, floats floats."""
    _sssp_or_skip(mode)
    M = nx.MultiGraph()
    M.add_edge("a", "b", weight=10)
    M.add_edge("a", "b", weight=3)
    M.add_edge("b", "c")  # weight 1
    M.add_edge("a", "c", weight=7)
    got = assert_same(nx.single_source_dijkstra_path_length, M, "a")
    assert got[1] == {"a": 0, "b": 3, "c": 4}
    F = nx.DiGraph()
    F.add_weighted_edges_from([(0, 1, 0.5), (1, 2, 0.25), (0, 2, 1.0)])
    got = assert_same(nx.single_source_dijkstra_path_length, F, 0)
    assert typed(got[1]) == [(0, ("int", 0)), (1, ("float", 0.5)), (2, ("float", 0.75))]


def test_source_given_as_an_equal_object(mode):
    """NetworkX reports the source as passed (1.0 for node 1): so does the backend."""
    G = nx.path_graph(8)
    assert_same(nx.single_source_shortest_path_length, G, 1.0)
    assert_same(nx.bfs_edges, G, 1.0)
    assert_same(nx.bfs_successors, G, True)


def test_views(mode):
    G = _weigh(nx.gnm_random_graph(50, 140, seed=11, directed=True), 11)
    sub = G.subgraph(list(G)[5:45])
    rev = G.reverse(copy=False)
    for H in (sub, rev):
        s = list(H)[0]
        assert_same(nx.bfs_edges, H, s)
        assert_same(nx.single_source_shortest_path_length, H, s)
        assert_same(nx.shortest_path_length, H, target=s)
        assert "autotune" not in H.__networkx_cache__  # a view's cache is not cleared with its graph's


# ============================================================================== declines
def _priority(monkeypatch):
    monkeypatch.setattr(nx.config.backend_priority, "algos", ["autotune"])


DECLINES = [
    ("sort_neighbors", lambda G: (nx.bfs_edges, (G, 0), {"sort_neighbors": sorted}), "sort_neighbors"),
    ("weight function", lambda G: (nx.single_source_dijkstra_path_length, (G, 0),
                                   {"weight": lambda u, v, d: 1}), "weight functions"),
    ("bellman-ford", lambda G: (nx.shortest_path_length, (G, 0), {"weight": "weight", "method": "bellman-ford"}),
     "bellman-ford"),
    ("bad method", lambda G: (nx.shortest_path_length, (G, 0), {"method": "SPAM"}), "SPAM"),
    ("missing source", lambda G: (nx.single_source_shortest_path_length, (G, "nope"), {}), "not a node"),
    ("missing target", lambda G: (nx.shortest_path_length, (G, 0, "nope"), {}), "not a node"),
    ("non-numeric cutoff", lambda G: (nx.single_source_shortest_path_length, (G, 0), {"cutoff": "3"}),
     "not a number"),
    ("weighted closeness", lambda G: (nx.closeness_centrality, (G,), {"distance": "weight"}),
     "edge distances other than 1"),
    ("closeness distance function", lambda G: (nx.closeness_centrality, (G,), {"distance": lambda u, v, d: 1}),
     "distance functions"),
    ("closeness u not a node", lambda G: (nx.closeness_centrality, (G, "nope"), {}), "u 'nope' is not a node"),
]


@pytest.mark.parametrize("case", DECLINES, ids=[c[0] for c in DECLINES])
def test_declined_calls_run_networkx(case, monkeypatch):
    """can_run says why; with the backend in NetworkX's priority list NetworkX gives its own answer."""
    monkeypatch.setenv(B.HOST_REFERENCE_ENV, "1")
    G = _weigh(nx.gnm_random_graph(30, 80, seed=12), 12)
    _, build, reason = case
    func, args, kwargs = build(G)
    why = B.can_run(func.__name__, args, kwargs)
    assert isinstance(why, str) and reason in why
    ref = outcome(func, *args, backend="networkx", **kwargs)
    _priority(monkeypatch)
    assert typed(outcome(func, *args, **kwargs)) == typed(ref)


@pytest.mark.parametrize("values,reason", [
    ({(0, 1): -2}, "zero or negative"), ({(0, 1): 0}, "zero or negative"),
    ({(0, 1): 2.5}, "types float, int"), ({(0, 1): 0.1, "rest": 0.5}, "float32 could round"),
    ({(0, 1): 2.0 ** 23 + 0.5, "rest": 1.0}, "float32 could round"),
    ({(0, 1): 2**31}, "does not fit int32"), ({(0, 1): float("inf"), "rest": 1.0}, "non-finite"),
    ({(0, 1): np.int64(3)}, "types int, int64"), ({(0, 1): True}, "types bool, int"),
])
def test_weights_the_gpu_cannot_sum_like_networkx_are_declined(values, reason, monkeypatch):
    monkeypatch.setenv(B.HOST_REFERENCE_ENV, "1")
    G = nx.path_graph(6, create_using=nx.DiGraph)
    rest = values.pop("rest", None)
    if rest is not None:
        nx.set_edge_attributes(G, rest, "weight")
    for (u, v), w in values.items():
        G[u][v]["weight"] = w
    why = B.can_run("single_source_dijkstra_path_length", (G, 0), {})
    assert isinstance(why, str) and reason in why, why
    ref = outcome(nx.single_source_dijkstra_path_length, G, 0, backend="networkx")
    _priority(monkeypatch)
    assert typed(outcome(nx.single_source_dijkstra_path_length, G, 0)) == typed(ref)


def test_too_many_layer_sources_declined(monkeypatch):
    monkeypatch.setenv(B.HOST_REFERENCE_ENV, "1")
    G = nx.path_graph(B.MAX_LAYER_SOURCES + 10)
    why = B.can_run("bfs_layers", (G, list(range(B.MAX_LAYER_SOURCES + 1))), {})
    assert isinstance(why, str) and "MAX_LAYER_SOURCES" in why
    assert B.can_run("bfs_layers", (G, list(range(B.MAX_LAYER_SOURCES))), {}) is True


# ============================================================================== closeness_centrality
def _same_closeness(G, **kwargs):
    """The backend's closeness is NetworkX's: same keys in the same order, the same floats (bit for bit:
    both compute (r - 1.0) / S, times (r - 1.0) / (N - 1), from the same integers)."""
    assert B.can_run("closeness_centrality", (G,), kwargs) is True, B.can_run("closeness_centrality", (G,), kwargs)
    ref = nx.closeness_centrality(G, **kwargs)
    got = nx.closeness_centrality(G, backend="autotune", **kwargs)
    if isinstance(ref, dict):
        assert list(got) == list(ref)
        assert list(got.values()) == pytest.approx(list(ref.values()), rel=1e-12, abs=0)
        assert all(type(v) is float for v in got.values())
    else:
        assert type(got) is float and got == pytest.approx(ref, rel=1e-12, abs=0)
    assert got == ref, "closeness is documented bit-exact (NetworkX's own tests compare it with ==)"
    return got


def test_closeness_centrality(zoo_graph, mode):
    """Directed (inward distances, as NetworkX's G.reverse()), disconnected, labels, multigraphs, loops."""
    G, sources = zoo_graph
    for wf in (True, False):
        _same_closeness(G, wf_improved=wf)
        for u in sources:
            _same_closeness(G, u=u, wf_improved=wf)
    # a distance attribute no edge has: every distance is 1 (NetworkX's default), hop counts answer it
    _same_closeness(G, distance="no such attribute")
    if G.number_of_edges():
        _same_closeness(G.reverse(copy=True) if G.is_directed() else G, wf_improved=False)


def test_closeness_distances_of_one_and_trivial_graphs(mode):
    G = nx.gnm_random_graph(40, 90, seed=21, directed=True)
    nx.set_edge_attributes(G, 1, "d")
    _same_closeness(G, distance="d")
    nx.set_edge_attributes(G, 1.0, "d")
    _same_closeness(G, distance="d", wf_improved=False)
    M = nx.MultiGraph(nx.path_graph(6))
    M.add_edge(0, 1, d=7)  # a parallel edge: NetworkX's Dijkstra takes the least, the missing "d" = 1
    _same_closeness(M, distance="d")
    for H in (nx.empty_graph(0), nx.empty_graph(1), nx.empty_graph(4, create_using=nx.DiGraph),
              nx.DiGraph([(0, 0)]), nx.path_graph(2)):
        _same_closeness(H)
        _same_closeness(H, wf_improved=False)
        for u in H:
            _same_closeness(H, u=u)
    # NetworkX's own examples
    W = nx.union(nx.path_graph(4), nx.path_graph([4, 5, 6]))
    assert _same_closeness(W, wf_improved=False)[5] == 1.0
    assert _same_closeness(nx.path_graph(3, create_using=nx.DiGraph))[0] == 0.0


def test_closeness_u_given_as_an_equal_object(mode):
    G = nx.path_graph(7, create_using=nx.DiGraph)
    assert _same_closeness(G, u=3.0) == nx.closeness_centrality(G, u=3)


@pytest.mark.parametrize("kwargs,reason", [
    ({"distance": "weight"}, "edge distances other than 1"),
    ({"distance": lambda u, v, d: 1}, "distance functions are declined"),
    ({"distance": ["weight"]}, "not an attribute name"),
    ({"u": "nope"}, "u 'nope' is not a node"),
    ({"u": 0, "distance": "zero"}, "zero or negative"),
])
def test_closeness_declines(kwargs, reason, monkeypatch):
    """Weighted closeness (and anything NetworkX treats itself) is declined with the reason; NetworkX answers."""
    monkeypatch.setenv(B.HOST_REFERENCE_ENV, "1")
    G = _weigh(nx.gnm_random_graph(30, 80, seed=22, directed=True), 22)
    nx.set_edge_attributes(G, 0, "zero")
    why = B.can_run("closeness_centrality", (G,), kwargs)
    assert isinstance(why, str) and reason in why, why
    ref = outcome(nx.closeness_centrality, G, backend="networkx", **kwargs)
    _priority(monkeypatch)
    assert typed(outcome(nx.closeness_centrality, G, **kwargs)) == typed(ref)
    with pytest.raises(NotImplementedError):
        nx.closeness_centrality(G, backend="autotune", **kwargs)


def test_closeness_without_gpu_declines(monkeypatch):
    import autotune._backend

    monkeypatch.delenv(B.HOST_REFERENCE_ENV, raising=False)
    monkeypatch.setattr(nx.config.backends.autotune, "host_reference", False)
    monkeypatch.setattr(autotune._backend, "_probe", lambda: (False, "disabled for this test"))
    G = nx.gnm_random_graph(100, 400, seed=23)
    why = B.can_run("closeness_centrality", (G,), {"u": 0})
    assert isinstance(why, str) and why.startswith("no usable NVIDIA GPU")
    _priority(monkeypatch)
    assert nx.closeness_centrality(G) == nx.closeness_centrality(G, backend="networkx")


def test_closeness_should_run_threshold(monkeypatch):
    """The same threshold as every function (SHOULD_RUN_MIN_EDGES stored edges), with or without u."""
    monkeypatch.delenv(B.HOST_REFERENCE_ENV, raising=False)
    monkeypatch.setattr(nx.config.backends.autotune, "host_reference", False)
    small = nx.gnm_random_graph(100, 300, seed=0)
    big = nx.gnm_random_graph(2000, B.SHOULD_RUN_MIN_EDGES, seed=0)
    for kwargs in ({}, {"u": 0}, {"wf_improved": False}):
        why = B.should_run("closeness_centrality", (small,), kwargs)
        assert isinstance(why, str) and "SHOULD_RUN_MIN_EDGES" in why
        assert B.should_run("closeness_centrality", (big,), kwargs) is True


def test_multigraph_weights_of_mixed_types_are_declined(monkeypatch):
    """Parallel edges with an int and a float weight: declined (once accepted as 'no weights', then failed)."""
    monkeypatch.setenv(B.HOST_REFERENCE_ENV, "1")
    M = nx.MultiDiGraph()
    M.add_edge(0, 1, weight=2)
    M.add_edge(0, 1, weight=2.5)
    M.add_edge(1, 2, weight=3)
    for name, args, kwargs in (("single_source_dijkstra_path_length", (M, 0), {}),
                               ("closeness_centrality", (M,), {"distance": "weight"})):
        why = B.can_run(name, args, kwargs)
        assert isinstance(why, str) and "types float, int" in why, why
    _priority(monkeypatch)
    assert nx.single_source_dijkstra_path_length(M, 0) == {0: 0, 1: 2, 2: 5}


@pytest.mark.gpu
def test_gpu_closeness_several_batches(monkeypatch):
    """More sources than one batch (2048): directed and disconnected, every node and single nodes."""
    monkeypatch.delenv(B.HOST_REFERENCE_ENV, raising=False)
    monkeypatch.setattr(nx.config.backends.autotune, "host_reference", False)
    G = nx.gnm_random_graph(2500, 3500, seed=24, directed=True)
    G = nx.relabel_nodes(G, {i: f"n{(i * 7919) % 2500}" for i in G})  # node order != label order
    for wf in (True, False):
        _same_closeness(G, wf_improved=wf)
    H = nx.gnm_random_graph(3000, 9000, seed=25)
    for u in (0, 17, 2999):
        _same_closeness(H, u=u)
    assert B.dispatch_stats()["closeness_centrality"].get("gpu", 0) >= 5


# ============================================================================== the cache
def test_conversion_is_cached_and_invalidated_as_networkx_does(monkeypatch):
    monkeypatch.setenv(B.HOST_REFERENCE_ENV, "1")
    G = nx.gnm_random_graph(40, 90, seed=13, directed=True)
    nx.single_source_shortest_path_length(G, 0, backend="autotune")
    data = G.__networkx_cache__["autotune"]
    adj = data.adjacency("succ")
    assert isinstance(G.__networkx_cache__["backends"]["autotune"][(False, False)], B.AutotuneGraph)
    list(nx.bfs_edges(G, 1, backend="autotune"))
    assert G.__networkx_cache__["autotune"] is data and data.adjacency("succ") is adj  # reused
    far = max(G) + 1
    G.add_edge(0, far)  # a method: NetworkX clears the cache
    assert "autotune" not in G.__networkx_cache__
    assert nx.single_source_shortest_path_length(G, 0, backend="autotune")[far] == 1
    # changed by hand: stale until cleared, as NetworkX documents for its own cache
    G._adj[0][far + 1] = {}
    G._node[far + 1] = {}
    G._adj[far + 1] = {}
    G._pred[far + 1] = {0: {}}
    G.__networkx_cache__.clear()
    assert nx.single_source_shortest_path_length(G, 0, backend="autotune")[far + 1] == 1


def test_no_cache_when_networkx_caching_is_off(monkeypatch):
    monkeypatch.setenv(B.HOST_REFERENCE_ENV, "1")
    monkeypatch.setattr(nx.config, "cache_converted_graphs", False)
    G = nx.gnm_random_graph(30, 60, seed=14)
    assert_same(nx.single_source_shortest_path_length, G, 0)
    assert "autotune" not in G.__networkx_cache__


def test_pickle_and_deepcopy_of_a_graph_with_a_cached_conversion(monkeypatch):
    """G's cache is pickled and deep-copied with G: the backend's entries carry only the graph."""
    monkeypatch.setenv(B.HOST_REFERENCE_ENV, "1")
    G = _weigh(nx.gnm_random_graph(40, 100, seed=15, directed=True), 15)
    ref = nx.single_source_dijkstra_path_length(G, 0, backend="autotune")
    for H in (pickle.loads(pickle.dumps(G)), copy.deepcopy(G)):
        assert nx.single_source_dijkstra_path_length(H, 0, backend="autotune") == ref
        assert list(nx.bfs_edges(H, 0, backend="autotune")) == list(nx.bfs_edges(G, 0))


def test_backend_graph_passed_directly(monkeypatch):
    monkeypatch.setenv(B.HOST_REFERENCE_ENV, "1")
    G = nx.gnm_random_graph(30, 70, seed=16, directed=True)
    AG = B.convert_from_nx(G)
    assert AG.__networkx_backend__ == "autotune" and AG.is_directed() and len(AG) == 30
    assert list(nx.bfs_edges(AG, 0)) == list(nx.bfs_edges(G, 0))
    assert B.convert_to_nx(AG) is G
    # a function the backend lacks: with fallback_to_nx, NetworkX converts back (convert_to_nx) and runs it
    monkeypatch.setattr(nx.config, "fallback_to_nx", True)
    assert nx.number_weakly_connected_components(AG) == nx.number_weakly_connected_components(G)


# ============================================================================== GPU only
@pytest.mark.gpu
def test_gpu_tuned_config_and_a_larger_graph(monkeypatch):
    """The tuned path (autotune.tune once per graph) on a graph large enough for the CuPy order pass."""
    monkeypatch.delenv(B.HOST_REFERENCE_ENV, raising=False)
    monkeypatch.setattr(nx.config.backends.autotune, "host_reference", False)
    monkeypatch.setattr(nx.config.backends.autotune, "tune", True)
    G = nx.gnm_random_graph(60_000, 150_000, seed=17, directed=True)  # 150k stored edges
    H = G.to_undirected()  # 300k stored edges in ~10 levels: the CuPy order pass (ORDER_ON_GPU_MIN_*)
    for g in (G, H):
        assert_same(nx.single_source_shortest_path_length, g, 0)
        assert_same(nx.bfs_edges, g, 0)
        assert_same(nx.bfs_layers, g, [0, 1, 2])
    stats = B.dispatch_stats()
    assert stats["bfs_edges"].get("gpu", 0) >= 2


# ============================================================================== NetworkX's own tests
def _suite(**kw):
    sys.path.insert(0, str(REPO / "tests"))
    try:
        from run_networkx_suite import run_suite, summarize
    finally:
        sys.path.pop(0)
    report = run_suite(quiet=True, **kw)
    return report, summarize(report)


def _runner():
    sys.path.insert(0, str(REPO / "tests"))
    try:
        import run_networkx_suite
    finally:
        sys.path.pop(0)
    return run_networkx_suite


def test_suite_runner_entry_points_match_pyproject(tmp_path):
    """A source copy gets the entry points pyproject.toml declares, and NetworkX's reader finds them."""
    from importlib.metadata import distributions

    runner = _runner()
    tomllib = pytest.importorskip("tomllib")
    eps = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["entry-points"]
    assert {g: (n, v) for g, d in eps.items() if g.startswith("networkx.") for n, v in d.items()} \
        == runner.ENTRY_POINTS
    runner.write_entry_points(tmp_path)
    (dist,) = distributions(path=[str(tmp_path)])
    found = {ep.group: ep for ep in dist.entry_points}
    assert found["networkx.backends"].load() is B.BackendInterface
    assert set(found["networkx.backend_info"].load()()["functions"]) == set(B.FUNCTIONS)
    assert "networkx.algorithms.centrality.tests.test_closeness_centrality" in runner.MODULES


@pytest.mark.networkx_suite
def test_networkx_suite_with_the_backend():
    """NetworkX's test modules for these functions, NETWORKX_TEST_BACKEND=autotune: no failure. Without a
    GPU every call is declined and NetworkX runs it (the wiring); on a GPU machine the GPU answers."""
    from autotune._backend import gpu_available

    report, text = _suite()
    c = report["counts"]
    assert report["returncode"] == 0 and c["failed"] == 0 and c["error"] == 0 and c["passed"] >= 100, \
        text + "\n" + report.get("output", "")[-5000:]
    outcomes = {o for per in report["dispatch"].values() for o in per}
    if gpu_available():
        assert "gpu" in outcomes, text
    else:
        assert outcomes and all(o.startswith("declined: no usable NVIDIA GPU") for o in outcomes), text


@pytest.mark.networkx_suite
def test_networkx_suite_with_the_host_reference():
    """The same modules with the host reference standing in for the GPU: the backend's own code
    (conversion, orders, outputs) answers NetworkX's tests on any machine."""
    report, text = _suite(host_reference=True)
    c = report["counts"]
    assert report["returncode"] == 0 and c["failed"] == 0 and c["error"] == 0 and c["passed"] >= 100, \
        text + "\n" + report.get("output", "")[-5000:]
    ran = sum(per.get("host_reference", 0) for per in report["dispatch"].values())
    assert ran >= 100, text
    json.dumps(report)  # serialisable, as --json writes it
