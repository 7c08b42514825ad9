"""The profiler (autotune.features) against numpy / networkx / scipy, on small and real graphs."""
from __future__ import annotations

import csv
import dataclasses
import gzip
import inspect
import json
import math
import os
import sys
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
import scipy.io
import scipy.sparse.csgraph as csgraph
from hypothesis import given, settings
from hypothesis import strategies as st

import autotune.graph
from autotune._backend import gpu_available
from autotune.features import (
    DIRECTED_FEATURE_NAMES, FEATURE_ALIASES, FEATURE_NAMES, FEATURE_NAMES_V2, LOG_SCALED_FEATURES, GraphFeatures,
    _degree_statistics, profile, reciprocity, sample_sources,
)
from autotune.graph import CSRGraph, from_edges
from autotune.reference import bfs_reference

needs_gpu = pytest.mark.skipif(not gpu_available(), reason="needs an NVIDIA GPU with CuPy")


from .conftest import csr_graph  # noqa: E402


def gini_sorted(x):
    """Gini by the definition: sorted ascending, G = sum_i (2i - n - 1) x_(i) / (n sum x)."""
    x = np.sort(np.asarray(x, dtype=np.float64))
    n = x.size
    if x.sum() == 0:
        return 0.0
    i = np.arange(1, n + 1)
    return float(np.sum((2 * i - n - 1) * x) / (n * x.sum()))


def check_degree_features(f: GraphFeatures, deg: np.ndarray):
    """Every degree feature against an independent numpy computation."""
    n = deg.size
    assert f.n_vertices == n
    assert f.n_edges == int(deg.sum())
    assert f.degree_mean == pytest.approx(float(np.mean(deg)), rel=1e-12, abs=0)
    assert f.degree_std == pytest.approx(float(np.std(deg)), rel=1e-9, abs=1e-12)
    assert f.degree_gini == pytest.approx(gini_sorted(deg), rel=1e-9, abs=1e-12)
    assert f.degree_max == int(deg.max()) and f.degree_min == int(deg.min())
    assert f.leaf_fraction == np.count_nonzero(deg <= 1) / n
    assert f.sink_fraction == f.isolated_fraction == np.count_nonzero(deg == 0) / n
    for name, q in (("degree_p50", 50), ("degree_p90", 90), ("degree_p99", 99)):
        assert getattr(f, name) == float(np.percentile(deg, q, method="linear")), name


def nx_depths(n, edges, directed, sources):
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from((int(u), int(v)) for u, v in edges if u != v)
    return [max(nx.single_source_shortest_path_length(g, int(s)).values()) for s in sources]


@st.composite
def graphs(draw, max_n=40):
    n = draw(st.integers(1, max_n))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=5 * n))
    return n, edges, draw(st.booleans())


# --------------------------------------------------------------------------- small graphs
@settings(max_examples=200, deadline=None)
@given(graphs(), st.integers(0, 10), st.integers(0, 2**32 - 1))
def test_profile_matches_numpy_and_networkx(case, n_sources, seed):
    n, edges, directed = case
    g = csr_graph(n, edges, directed)
    f = profile(g, n_sources=n_sources, seed=seed, xp=np)
    deg = np.diff(g.row_offsets)
    check_degree_features(f, deg)
    assert f.directed is directed
    sources = sample_sources(g, n_sources, seed, xp=np)
    depths = nx_depths(n, edges, directed, sources)
    if depths:
        assert f.eccentricity_mean == pytest.approx(np.mean(depths), rel=1e-12)
        assert f.eccentricity_max == max(depths)
    else:
        assert f.eccentricity_mean == 0.0 and f.eccentricity_max == 0
    assert f.profile_ms > 0


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 10**6), min_size=1, max_size=300))
def test_degree_statistics_on_arbitrary_degree_sequences(deg):
    """Heavy-tailed sequences with repeated values: the histogram form equals the sorted form."""
    deg = np.asarray(deg, dtype=np.int64)
    stats = _degree_statistics(deg)
    f = GraphFeatures(n_vertices=deg.size, n_edges=int(deg.sum()), directed=True, eccentricity_mean=0.0,
                      eccentricity_max=0, **stats)
    check_degree_features(f, deg)


@pytest.mark.parametrize("n", [3, 10, 1000])
def test_gini_zero_on_regular_graphs(n):
    cycle = from_edges(np.arange(n), (np.arange(n) + 1) % n, n, directed=False, xp=np)
    f = profile(cycle, xp=np)
    assert f.degree_gini == 0.0 and f.degree_std == 0.0
    assert f.degree_min == f.degree_max == 2
    assert f.degree_p50 == f.degree_p99 == 2.0
    assert f.leaf_fraction == 0.0 and f.isolated_fraction == 0.0
    assert f.eccentricity_max == n // 2  # eccentricity of every vertex of a cycle


def test_gini_complete_graph_zero():
    n = 12
    u, v = np.triu_indices(n, 1)
    f = profile(from_edges(u, v, n, directed=False, xp=np), xp=np)
    assert f.degree_gini == 0.0 and f.degree_mean == n - 1 and f.eccentricity_max == 1


@pytest.mark.parametrize("n", [10, 1000, 100_000])
def test_gini_near_one_on_directed_star(n):
    star = from_edges(np.zeros(n - 1, dtype=np.int64), np.arange(1, n), n, directed=True, xp=np)
    f = profile(star, xp=np)
    assert f.degree_gini == pytest.approx((n - 1) / n, rel=1e-12)  # only the hub has out-edges
    assert f.isolated_fraction == f.leaf_fraction == pytest.approx((n - 1) / n)
    assert f.degree_max == n - 1 and f.degree_min == 0
    assert f.eccentricity_mean == 1.0 and f.eccentricity_max == 1  # the hub is the only source


def test_gini_undirected_star():
    n = 1001
    star = from_edges(np.zeros(n - 1, dtype=np.int64), np.arange(1, n), n, directed=False, xp=np)
    f = profile(star, xp=np)
    assert f.degree_gini == pytest.approx((n - 2) / (2 * n), rel=1e-12)  # -> 1/2: leaves hold half the ends
    assert f.leaf_fraction == pytest.approx((n - 1) / n) and f.isolated_fraction == 0.0
    assert f.eccentricity_max == 2


def test_path_eccentricity():
    n = 5000
    path = from_edges(np.arange(n - 1), np.arange(1, n), n, directed=True, xp=np)
    sources = sample_sources(path, 8, 0)
    f = profile(path, xp=np)
    assert f.eccentricity_max == n - 1 - sources[0]
    assert f.eccentricity_mean == pytest.approx(np.mean(n - 1 - sources))


def test_graph_without_edges():
    g = csr_graph(6, [])
    f = profile(g, xp=np)
    assert f.n_edges == 0 and f.degree_gini == 0.0 and f.degree_std == 0.0 and f.degree_max == 0
    assert f.isolated_fraction == 1.0 and f.eccentricity_mean == 0.0 and f.eccentricity_max == 0


def test_profile_n_sources_zero_and_negative():
    g = csr_graph(4, [(0, 1), (1, 2)])
    f = profile(g, n_sources=0, xp=np)
    assert f.eccentricity_mean == 0.0 and f.eccentricity_max == 0
    with pytest.raises(ValueError, match="n_sources"):
        profile(g, n_sources=-1, xp=np)


def test_profile_default_backend_is_numpy_without_gpu(monkeypatch):
    """Without a GPU the default path is the CPU one and never imports the engine."""
    if gpu_available():
        pytest.skip("a GPU is present: the default backend is CuPy here")
    monkeypatch.setitem(sys.modules, "autotune.engine", None)  # any import of it would raise
    g = csr_graph(4, [(0, 1), (1, 2), (2, 3)])
    assert profile(g).eccentricity_max == 3


# --------------------------------------------------------------------------- sources
def test_sample_sources_contract():
    g = csr_graph(50, [(i, i + 1) for i in range(0, 48, 2)] + [(49, 0)])
    deg = np.diff(g.row_offsets)
    s = sample_sources(g, 8, seed=3)
    assert s.dtype == np.int64 and s.size == 8
    assert np.all(np.diff(s) > 0)  # sorted, distinct
    assert np.all(deg[s] > 0)
    np.testing.assert_array_equal(s, sample_sources(g, 8, seed=3))
    assert not np.array_equal(s, sample_sources(g, 8, seed=4))
    # more sources than candidates: every candidate once
    np.testing.assert_array_equal(sample_sources(g, 1000, seed=0), np.flatnonzero(deg > 0))


def test_sample_sources_is_rng_choice_over_candidates():
    """The documented rule, so any other component can reproduce the sources."""
    g = csr_graph(30, [(i, (3 * i) % 30) for i in range(0, 30, 2)])
    cand = np.flatnonzero(np.diff(g.row_offsets) > 0)
    expected = np.sort(cand[np.random.default_rng(11).choice(cand.size, size=5, replace=False)])
    np.testing.assert_array_equal(sample_sources(g, 5, seed=11), expected)


# --------------------------------------------------------------------------- GraphFeatures API
def _features():
    g = csr_graph(6, [(0, 1), (1, 2), (2, 3), (0, 4), (0, 5)], directed=False)
    return profile(g, xp=np)


def test_features_dict_and_json_round_trip():
    f = _features()
    d = f.to_dict()
    assert list(d) == [fl.name for fl in dataclasses.fields(GraphFeatures)]
    assert GraphFeatures.from_dict(d) == f
    assert GraphFeatures.from_dict(json.loads(json.dumps(d))) == f
    assert isinstance(d["n_vertices"], int) and isinstance(d["directed"], bool)


def test_features_from_dict_unknown_and_missing_keys():
    d = _features().to_dict()
    with pytest.raises(ValueError, match="'bogus'"):
        GraphFeatures.from_dict({**d, "bogus": 1})
    d2 = dict(d)
    del d2["degree_gini"]
    with pytest.raises(ValueError, match="'degree_gini'"):
        GraphFeatures.from_dict(d2)
    d3 = dict(d)
    del d3["profile_ms"]  # optional: a cost, not a feature
    assert GraphFeatures.from_dict(d3).profile_ms == 0.0


def test_features_frozen():
    with pytest.raises(Exception):
        _features().n_vertices = 3


def test_vector():
    f = _features()
    x = f.vector()
    assert x.dtype == np.float64 and x.shape == (len(FEATURE_NAMES),)
    for name, value in zip(FEATURE_NAMES, x):
        raw = float(getattr(f, name))
        assert value == (math.log1p(raw) if name in LOG_SCALED_FEATURES else raw), name
    assert {"n_vertices", "n_edges", "degree_max", "degree_std", "degree_mean", "eccentricity_mean",
            "eccentricity_max"} <= LOG_SCALED_FEATURES
    assert not {"degree_gini", "leaf_fraction", "isolated_fraction", "directed"} & LOG_SCALED_FEATURES
    assert "profile_ms" not in FEATURE_NAMES
    sub = f.vector(["degree_gini", "n_vertices"])
    assert sub.tolist() == [f.degree_gini, math.log1p(f.n_vertices)]
    with pytest.raises(ValueError, match="'nope'"):
        f.vector(["nope"])


# --------------------------------------------------------------------------- directed features
def _brute_directed(n, edges, directed, sources):
    """Reciprocity, in-degrees, reached sets and their out-edges by plain Python / NetworkX."""
    g = nx.DiGraph() if directed else nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from((int(u), int(v)) for u, v in edges if u != v)
    dg = g if directed else g.to_directed()
    arcs = set(dg.edges())
    recip = (sum((v, u) in arcs for u, v in arcs) / len(arcs)) if arcs else (0.0 if directed else 1.0)
    indeg = np.array([dg.in_degree(v) for v in range(n)], dtype=np.int64)
    outdeg = np.array([dg.out_degree(v) for v in range(n)], dtype=np.int64)
    reach, edges_reached, depth = [], [], []
    for s in sources:
        lengths = nx.single_source_shortest_path_length(dg, int(s))
        reach.append(len(lengths))
        edges_reached.append(int(outdeg[list(lengths)].sum()))
        depth.append(max(lengths.values()))
    return recip, indeg, np.array(reach), np.array(edges_reached), np.array(depth)


@settings(max_examples=150, deadline=None)
@given(graphs(), st.integers(0, 6), st.integers(0, 2**32 - 1))
def test_directed_features_match_networkx(case, n_sources, seed):
    n, edges, directed = case
    g = csr_graph(n, edges, directed)
    f = profile(g, n_sources=n_sources, seed=seed, xp=np)
    sources = sample_sources(g, n_sources, seed, xp=np)
    recip, indeg, reach, reached_edges, depth = _brute_directed(n, edges, directed, sources)
    assert f.reciprocity == pytest.approx(recip, abs=1e-12)
    assert f.in_degree_max == int(indeg.max())
    assert f.in_degree_std == pytest.approx(float(np.std(indeg)), rel=1e-9, abs=1e-12)
    assert f.in_degree_gini == pytest.approx(gini_sorted(indeg), rel=1e-9, abs=1e-12)
    assert f.in_zero_fraction == np.count_nonzero(indeg == 0) / n
    if sources.size:
        assert f.reach_mean == pytest.approx(np.mean(reach / n), rel=1e-12)
        assert f.level_vertices_mean == pytest.approx(np.mean(reach / (depth + 1)), rel=1e-12)
        assert f.level_edges_mean == pytest.approx(np.mean(reached_edges / (depth + 1)), rel=1e-12)
    else:
        assert f.reach_mean == f.level_vertices_mean == f.level_edges_mean == 0.0
    if not directed:  # in-degree statistics are the out-degree's
        assert (f.in_degree_std, f.in_degree_gini, f.in_degree_max, f.in_zero_fraction) == \
            (f.degree_std, f.degree_gini, f.degree_max, f.sink_fraction)


@settings(max_examples=150, deadline=None)
@given(graphs(max_n=80), st.integers(1, 80), st.integers(0, 2**32 - 1))
def test_numpy_traversals_equal_scipy(case, n_sources, seed):
    """Depth, reached vertices and their out-edges of the NumPy traversals (up to 32 sources per
    bit-mask group, so 33+ sources take several groups) equal SciPy's BFS, source by source."""
    from autotune.features import _numpy_traversals, _scipy_traversals

    n, edges, directed = case
    g = csr_graph(n, edges, directed)
    deg = np.diff(g.row_offsets).astype(np.int64)
    sources = sample_sources(g, n_sources, seed, xp=np)
    if sources.size == 0:
        return
    rng = np.random.default_rng(seed)
    sources = sources[rng.permutation(sources.size)]  # any order: rows follow the sources
    got = _numpy_traversals(g, sources, deg)
    assert got.dtype == np.int64 and got.shape == (sources.size, 3)
    np.testing.assert_array_equal(got, _scipy_traversals(g, sources, deg))


@pytest.mark.parametrize("spec", ["grid:rows=60,cols=50,drop=0.1", "kron:scale=10,edge_factor=8,directed=true",
                                  "smallworld:n=3000,k=4,p=0.01", "cliques:n_cliques=30,clique_size=8"])
@pytest.mark.parametrize("n_sources", [1, 8, 9, 32, 33, 70])
def test_numpy_traversals_equal_scipy_on_generated_graphs(spec, n_sources):
    """Wide levels (masks merged in a vertex-length array) and narrow ones (sorted keys), 8/16/32-bit
    masks and several groups of sources: the same numbers as SciPy's BFS."""
    from autotune.features import _numpy_traversals, _scipy_traversals
    from autotune.generators import generate

    g = generate(spec, xp=np)
    deg = g.out_degrees(np)
    sources = sample_sources(g, n_sources, 3, xp=np)
    np.testing.assert_array_equal(_numpy_traversals(g, sources, deg), _scipy_traversals(g, sources, deg))


def test_cpu_traversals_leave_long_traversals_to_scipy(monkeypatch):
    """Past the work limit the NumPy traversals stop (None) and SciPy's answer is returned; the
    profile is the same either way."""
    import autotune.features as features
    from autotune.generators import generate

    g = generate("grid:rows=40,cols=40", xp=np)
    deg = g.out_degrees(np)
    sources = sample_sources(g, 8, 0, xp=np)
    assert features._numpy_traversals(g, sources, deg, work_limit=100) is None
    full = features._numpy_traversals(g, sources, deg)
    calls = []
    real = features._scipy_traversals
    monkeypatch.setattr(features, "_scipy_traversals", lambda *a: calls.append(1) or real(*a))
    before = profile(g, xp=np)
    assert not calls
    monkeypatch.setattr(features, "_HOST_BFS_WORK", 100)
    np.testing.assert_array_equal(features._cpu_traversals(g, sources, deg), full)
    after = profile(g, xp=np)
    assert calls == [1, 1]
    assert dataclasses.replace(after, profile_ms=0.0) == dataclasses.replace(before, profile_ms=0.0)


def test_reciprocity_sampled_on_large_graphs_and_exact_on_small():
    from autotune.generators import rmat

    g = rmat(12, 8, directed=True, reciprocity=0.5, xp=np)
    exact = reciprocity(g)
    assert exact == reciprocity(g, sample=g.n_edges)  # every edge: exact
    est = reciprocity(g, sample=4000, seed=1)
    assert est != exact and abs(est - exact) < 0.03  # 4000 draws: standard error ~0.008
    assert est == reciprocity(g, sample=4000, seed=1)  # seeded
    und = csr_graph(5, [(0, 1), (1, 2)], directed=False)
    assert reciprocity(und) == 1.0
    assert reciprocity(csr_graph(3, [], directed=True)) == 0.0
    one_way = csr_graph(4, [(0, 1), (1, 2), (2, 3)], directed=True)
    both = csr_graph(4, [(0, 1), (1, 0), (2, 3)], directed=True)
    assert reciprocity(one_way) == 0.0 and reciprocity(both) == pytest.approx(2 / 3)


@settings(max_examples=150, deadline=None)
@given(graphs(max_n=60), st.integers(0, 2**32 - 1), st.integers(1, 400))
def test_reciprocity_host_key_lookup_equals_the_binary_searches(case, seed, sample):
    """On the host a graph of at most 2**24 edges is searched as sorted row * n + column keys; the
    per-row binary searches (larger graphs, and the GPU) count the same reverses, sampled or not."""
    import autotune.features as features

    n, edges, directed = case
    g = csr_graph(n, edges, directed)
    keys = features.reciprocity(g, seed=seed, sample=sample, xp=np)
    old = features._RECIPROCITY_KEYS_MAX
    features._RECIPROCITY_KEYS_MAX = -1
    try:
        assert features.reciprocity(g, seed=seed, sample=sample, xp=np) == keys
    finally:
        features._RECIPROCITY_KEYS_MAX = old


def test_sink_fraction_and_its_old_name():
    """``isolated_fraction`` (the old, misleading name of the share of vertices without out-edges) is
    read from old dicts and keyword arguments, and stays readable; the shipped models' feature list
    keeps the old name and gets the same value."""
    f = _features()
    assert "sink_fraction" in f.to_dict() and "isolated_fraction" not in f.to_dict()
    assert f.isolated_fraction == f.sink_fraction
    old = {("isolated_fraction" if k == "sink_fraction" else k): v for k, v in f.to_dict().items()
           if k not in DIRECTED_FEATURE_NAMES}
    g = GraphFeatures.from_dict(old)
    assert g.sink_fraction == f.sink_fraction and g.reciprocity is None
    assert np.array_equal(g.vector(FEATURE_NAMES), f.vector(FEATURE_NAMES))
    i = FEATURE_NAMES.index("isolated_fraction")
    assert f.vector(["isolated_fraction"])[0] == f.vector(["sink_fraction"])[0] == f.vector()[i]
    assert FEATURE_ALIASES == {"isolated_fraction": "sink_fraction"}
    assert FEATURE_NAMES_V2[:len(FEATURE_NAMES)] == tuple(FEATURE_ALIASES.get(k, k) for k in FEATURE_NAMES)
    kw = {k: v for k, v in old.items() if k != "profile_ms"}
    assert GraphFeatures(**kw).sink_fraction == f.sink_fraction  # the old keyword still works
    with pytest.raises(ValueError, match="disagree"):
        GraphFeatures(**{**kw, "sink_fraction": 0.5, "isolated_fraction": 0.25})
    with pytest.raises(ValueError, match="sink_fraction"):
        GraphFeatures(**{k: v for k, v in kw.items() if k != "isolated_fraction"})
    # a profile from an earlier release has no directed features: V2 vectors refuse to invent them
    with pytest.raises(ValueError, match="'reciprocity'.*earlier release"):
        g.vector(FEATURE_NAMES_V2)
    assert f.vector(FEATURE_NAMES_V2).shape == (len(FEATURE_NAMES_V2),)
    for k in ("in_degree_std", "in_degree_max", "level_vertices_mean", "level_edges_mean"):
        assert k in LOG_SCALED_FEATURES
    assert not {"reciprocity", "in_degree_gini", "in_zero_fraction", "reach_mean", "sink_fraction"} \
        & LOG_SCALED_FEATURES


def test_directed_features_separate_sink_heavy_graphs():
    """A directed star out of a hub reaches everything from the hub; one into the hub reaches one
    vertex per leaf: the reach and the in-degree statistics tell them apart where the out-degree
    statistics of the shipped profile barely do."""
    n = 1000
    out_star = from_edges(np.zeros(n - 1, dtype=np.int64), np.arange(1, n), n, directed=True, xp=np)
    in_star = from_edges(np.arange(1, n), np.zeros(n - 1, dtype=np.int64), n, directed=True, xp=np)
    fo, fi = profile(out_star, xp=np), profile(in_star, xp=np)
    assert fo.reach_mean == 1.0 and fo.sink_fraction == pytest.approx((n - 1) / n)
    assert fi.reach_mean == pytest.approx(2 / n) and fi.sink_fraction == pytest.approx(1 / n)
    assert fo.in_degree_max == 1 and fi.in_degree_max == n - 1 and fi.in_zero_fraction == pytest.approx((n - 1) / n)
    assert fo.reciprocity == fi.reciprocity == 0.0
    assert fo.level_vertices_mean == pytest.approx(n / 2) and fo.level_edges_mean == pytest.approx((n - 1) / 2)


# --------------------------------------------------------------------------- real graphs
def _shared_graphs() -> Path:
    """$AUTOTUNE_SHARED_GRAPHS, else <repo>/.graphs (a copy carried to the GPU machine), else
    <repo>/../shared/graphs (the same order as conftest.shared_graphs_dir)."""
    env = os.environ.get("AUTOTUNE_SHARED_GRAPHS")
    if env:
        return Path(env)
    repo = Path(__file__).resolve().parents[1]
    for cand in (repo / ".graphs", repo.parent / "shared" / "graphs"):
        if (cand / "MANIFEST.tsv").is_file():
            return cand
    return repo.parent / "shared" / "graphs"


def _manifest():
    path = _shared_graphs() / "MANIFEST.tsv"
    if not path.is_file():
        return []
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


MANIFEST = _manifest()
_LOADED: dict[str, CSRGraph] = {}


def _read_snap(path: Path) -> np.ndarray:
    with gzip.open(path, "rb") as fh:
        data = fh.read()
    body = b"\n".join(line for line in data.split(b"\n") if not line.startswith(b"#"))
    return np.array(body.split(), dtype=np.int64).reshape(-1, 2)


def load_real(row) -> CSRGraph:
    name = row["file"]
    if name not in _LOADED:
        path = _shared_graphs() / name
        loader = getattr(autotune.graph, "load_graph", None)
        if loader is not None:  # the project's loader, once it exists
            g = loader(str(path))
        elif name.endswith((".mtx", ".mtx.gz")):
            # a symmetric file comes back with both triangles
            kw = {"spmatrix": False} if "spmatrix" in inspect.signature(scipy.io.mmread).parameters else {}
            m = scipy.io.mmread(path, **kw).tocoo()
            g = from_edges(m.row, m.col, m.shape[0], directed=row["directed"] == "yes", name=name, xp=np)
        else:
            e = _read_snap(path)
            g = from_edges(e[:, 0], e[:, 1], directed=row["directed"] == "yes", name=name, xp=np)
        _LOADED[name] = g
    return _LOADED[name]


real_graph = pytest.mark.parametrize(
    "row", MANIFEST or [pytest.param(None, marks=pytest.mark.skip(
        reason=f"no real graphs: {_shared_graphs()}/MANIFEST.tsv not found (set AUTOTUNE_SHARED_GRAPHS)"))],
    ids=lambda r: r["name"].replace("/", "_") if r else "none")


@real_graph
def test_profile_real_graph(row):
    g = load_real(row)
    assert g.n_vertices == int(row["vertices"])
    f = profile(g, xp=np)
    ro, _ = g.host()
    check_degree_features(f, np.diff(ro).astype(np.int64))
    assert f.directed == (row["directed"] == "yes")
    # eccentricity: an independent scipy traversal on the same sources
    sources = sample_sources(g, 8, 0, xp=np)
    assert sources.size == 8
    dist = csgraph.shortest_path(g.to_scipy(), method="D", directed=True, unweighted=True, indices=sources)
    depths = np.where(np.isinf(dist), -1, dist).max(axis=1)
    assert f.eccentricity_mean == pytest.approx(depths.mean(), rel=1e-12)
    assert f.eccentricity_max == int(depths.max())
    # the reference BFS distances agree with the same independent traversal
    d0, _ = bfs_reference(g, int(sources[0]))
    np.testing.assert_array_equal(d0, np.where(np.isinf(dist[0]), -1, dist[0]).astype(np.int32))


@real_graph
def test_validate_reference_on_real_graph(row):
    from autotune.reference import validate_bfs

    g = load_real(row)
    s = int(sample_sources(g, 1, 5, xp=np)[0])
    dist, pred = bfs_reference(g, s)
    validate_bfs(g, s, dist, pred, reference_distances=dist)


@real_graph
def test_numpy_traversals_equal_scipy_on_real_graph(row):
    """The host profile's traversals (NumPy, no SciPy import) give SciPy's numbers on every real graph."""
    from autotune.features import _numpy_traversals, _scipy_traversals

    g = load_real(row)
    deg = np.diff(g.host()[0]).astype(np.int64)
    sources = sample_sources(g, 8, 0, xp=np)
    np.testing.assert_array_equal(_numpy_traversals(g, sources, deg), _scipy_traversals(g, sources, deg))


# --------------------------------------------------------------------------- GPU (identical values)
def _fake_engine(monkeypatch):
    """Route the profiler's GPU traversals (depth, reached vertices, their out-edges) to the CPU
    reference (tests the GPU branch on its own: degree histograms and reciprocity with CuPy)."""
    import autotune.features as features

    def traversals(graph, sources, degrees):
        deg = np.diff(graph.host()[0]).astype(np.int64)
        out = np.zeros((len(sources), 3), dtype=np.int64)
        for i, s in enumerate(sources):
            d = bfs_reference(graph, int(s))[0]
            out[i] = (d.max(), np.count_nonzero(d >= 0), deg[d >= 0].sum())
        return out

    monkeypatch.setattr(features, "_device_traversals", traversals)


@pytest.mark.gpu
@needs_gpu
@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 10**5), min_size=1, max_size=500))
def test_degree_statistics_identical_on_cupy(deg):
    import cupy

    deg = np.asarray(deg, dtype=np.int64)
    assert _degree_statistics(cupy.asarray(deg)) == _degree_statistics(deg)


@pytest.mark.gpu
@needs_gpu
@settings(max_examples=40, deadline=None)
@given(graphs(max_n=60), st.integers(0, 2**32 - 1), st.integers(1, 400))
def test_reciprocity_and_in_degrees_identical_on_cupy(case, seed, sample):
    import cupy

    import autotune.features as features

    n, edges, directed = case
    g = csr_graph(n, edges, directed)
    assert reciprocity(g, seed=seed, sample=sample, xp=cupy) == reciprocity(g, seed=seed, sample=sample, xp=np)
    base = _degree_statistics(np.diff(g.row_offsets).astype(np.int64))
    assert features._in_degree_statistics(g, cupy, base) == features._in_degree_statistics(g, np, base)


@pytest.mark.gpu
@needs_gpu
@real_graph
def test_profile_gpu_branch_identical(row, monkeypatch):
    import cupy

    _fake_engine(monkeypatch)
    g = load_real(row)
    cpu = profile(g, xp=np).to_dict()
    dev = profile(g, xp=cupy).to_dict()
    cpu.pop("profile_ms"), dev.pop("profile_ms")
    assert dev == cpu
    np.testing.assert_array_equal(sample_sources(g, 8, 0, xp=cupy), sample_sources(g, 8, 0, xp=np))


@pytest.mark.gpu
@needs_gpu
@real_graph
def test_profile_gpu_engine_identical(row):
    """With the real engine (autotune.engine.bfs_depths): identical features on both backends."""
    import cupy

    g = load_real(row)
    cpu = profile(g, xp=np).to_dict()
    dev = profile(g, xp=cupy).to_dict()
    cpu.pop("profile_ms"), dev.pop("profile_ms")
    assert dev == cpu
