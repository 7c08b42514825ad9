"""Weighted graphs: loaders that keep the weights a source carries, their errors, minimum-weight merging,
generator weight distributions, fingerprints, and the one-way imports of graph / generators / _csr."""
from __future__ import annotations

import ast
import csv
import gzip
import hashlib
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import autotune.graph
from autotune.errors import GeneratorSpecError, GPUUnavailableError, GraphFormatError, InvalidArgumentError
from autotune.generators import (
    _GENERATORS, edge_weights, generate, grid, kronecker, parse_weight_spec, rmat, uniform_random,
)
from autotune.graph import CSRGraph, from_edges, load_graph

REPO = Path(__file__).resolve().parent.parent


def load(source, **kw) -> CSRGraph:
    return load_graph(source, xp=np, **kw)


def weighted_edges(g: CSRGraph) -> dict:
    """``{(u, v): weight}`` of the stored edges (internal ids)."""
    ro, ci = g.host()
    rows = np.repeat(np.arange(g.n_vertices), np.diff(ro))
    return dict(zip(zip(rows.tolist(), ci.tolist()), g.host_weights().tolist()))


def original_weighted_edges(g: CSRGraph) -> dict:
    return {(int(g.original_id(u)), int(g.original_id(v))): w for (u, v), w in weighted_edges(g).items()}


def expect_error(source, line, *fragments, exc=GraphFormatError, **kw):
    with pytest.raises(exc) as info:
        load(source, **kw)
    err = info.value
    text = str(err)
    if isinstance(source, str):
        assert err.path == source, text
        assert err.line == line, text
        assert text.startswith(source + (f":{line}: " if line is not None else ": ")), text
    for frag in fragments:
        assert frag in text, text
    return err


def old_fingerprint(g: CSRGraph) -> str:
    """The fingerprint formula of unweighted graphs, independent of CSRGraph.fingerprint."""
    ro, ci = g.host()
    h = hashlib.sha256()
    h.update(b"directed" if g.directed else b"undirected")
    h.update(np.ascontiguousarray(ro, dtype=np.int64).tobytes())
    h.update(np.ascontiguousarray(ci, dtype=np.int32).tobytes())
    return "sha256:" + h.hexdigest()


# ============================================================================= CSRGraph
def test_unweighted_graphs_keep_their_fingerprint():
    for g in (from_edges([0, 1, 2], [1, 2, 0], xp=np), generate("kron:scale=6,edge_factor=4", xp=np),
              generate("grid:rows=5,cols=4", xp=np)):
        assert g.weights is None and not g.weighted and g.host_weights() is None
        assert g.fingerprint == old_fingerprint(g)


def test_weighted_fingerprint_includes_weights_and_dtype():
    a = from_edges([0, 1], [1, 2], weights=[3, 4], xp=np)
    b = from_edges([0, 1], [1, 2], weights=[3, 5], xp=np)
    c = from_edges([0, 1], [1, 2], weights=[3.0, 4.0], xp=np)
    plain = from_edges([0, 1], [1, 2], xp=np)
    assert a.weights.dtype == np.int32 and c.weights.dtype == np.float32
    assert len({a.fingerprint, b.fingerprint, c.fingerprint, plain.fingerprint}) == 4
    assert a.fingerprint == from_edges([1, 0], [2, 1], weights=np.array([4, 3], np.int64), xp=np).fingerprint
    assert "weights=int32" in repr(a) and "weights" not in repr(plain)


def test_csrgraph_checks_weights_and_accessors():
    ro, ci = np.array([0, 1, 2], np.int32), np.array([1, 0], np.int32)
    with pytest.raises(ValueError, match="shape"):
        CSRGraph(ro, ci, True, weights=np.ones(3, np.int32))
    with pytest.raises(ValueError, match="dtype float64"):
        CSRGraph(ro, ci, True, weights=np.ones(2, np.float64))
    g = CSRGraph(ro, ci, True, weights=np.array([2, 3], np.int32))
    assert g.host_weights() is g.weights
    m = g.to_scipy(weighted=True)
    assert m.dtype == np.int32 and m[0, 1] == 2 and m[1, 0] == 3
    assert g.to_scipy().dtype == np.int8
    from autotune._backend import gpu_available

    if not gpu_available():
        with pytest.raises(GPUUnavailableError, match="device_weights"):
            g.device_weights()


# ============================================================================ edge lists
def test_edge_list_weight_column_is_opt_in(io_write):
    path = io_write("w.txt", "# c\n0 1 5\n1 2 7\n2 0 9\n")
    plain = load(path)
    assert plain.weights is None
    assert plain.fingerprint == load(io_write("p.txt", "0 1\n1 2\n2 0\n")).fingerprint
    g = load(path, weight_column=2)
    assert g.weights.dtype == np.int32 and weighted_edges(g) == {(0, 1): 5, (1, 2): 7, (2, 0): 9}
    r = load(io_write("r.txt", "0 1 0.5\n1 2 1e-3\n"), weight_column=2)
    assert r.weights.dtype == np.float32 and weighted_edges(r) == {(0, 1): 0.5, (1, 2): np.float32(1e-3)}


def test_edge_list_other_columns_and_relabelled_ids(io_write):
    # src dst timestamp count: the weight can be any chosen column; ids are relabelled with their weights
    text = "100 200 1082040961 3\n200 300 1082155839 1\n300 100 1082414391.5 2\n"
    path = io_write("t.txt", text)
    assert load(path).weights is None
    g = load(path, weight_column=3)
    assert g.weights.dtype == np.int32
    assert original_weighted_edges(g) == {(100, 200): 3, (200, 300): 1, (300, 100): 2}
    ts = load(path, weight_column=2)  # a real value in the column: float32
    assert ts.weights.dtype == np.float32


@pytest.mark.parametrize("sep_text", [
    "7188,1,10,1407470400\n430,1,-10,1376539200\n3134,1,2,1369713600\n",
    "7188, 1, 10, 1407470400\r\n430 ,1,-10,1376539200\r\n3134,1 ,2, 1369713600\r\n",
])
@pytest.mark.parametrize("name", ["s.csv", "s.txt"])
def test_csv_edge_lists(io_write, sep_text, name):
    path = io_write(name, sep_text, "gz")
    g = load(path)
    assert g.weights is None and g.n_edges == 3
    assert set(original_weighted_edges(load(path, weight_column=3))) == {(7188, 1), (430, 1), (3134, 1)}
    # the rating column holds -10: refused as a weight, naming line 2
    expect_error(path, 2, "weight -10 is not positive", "weight_column=2", weight_column=2)


@pytest.mark.parametrize("text,line,fragment", [
    ("0,1,2\n1,,2\n", 2, "empty field"),
    ("0,1,2\n1,2,\n", 2, "empty field"),
    ("0,1,2\n1 2,3\n", 2, "holds spaces"),
    ("0,1\n1,2,3,4\n", 2, "found 4"),
    ("source,target\n0,1\n", 1, "header line"),
])
def test_csv_errors(io_write, text, line, fragment):
    expect_error(io_write("bad.csv", text), line, fragment)


def test_csv_extension_with_whitespace_fields(io_write):
    g = load(io_write("ws.csv", "0 1 3\n1 2 4\n"), weight_column=2)  # sniffed: no comma, whitespace fields
    assert weighted_edges(g) == {(0, 1): 3, (1, 2): 4}


def test_edge_list_soc_sign_like_file_loads(io_write):
    rows = [(1, 2, 4, 1.5e9), (2, 3, -1, 1.6e9), (3, 1, 10, 1.7e9)]
    text = "".join(f"{a},{b},{r},{t}\n" for a, b, r, t in rows)
    g = load(io_write("soc-sign-x.csv", text))
    assert g.directed and g.n_edges == 3 and g.weights is None


# every bad weight, on the fast vectorised path and on the line-by-line scan
BAD_WEIGHTS = [
    ("0", "weight 0 is not positive"),
    ("-3", "weight -3 is not positive"),
    ("-2.5", "weight -2.5 is not positive"),
    ("nan", "weight nan is not a number"),
    ("inf", "weight inf is infinite"),
    ("-inf", "is not positive"),
    ("heavy", "non-numeric weight 'heavy'"),
    ("3000000000", "does not fit int32"),
    ("1e39", "beyond the float32 range"),
    ("1e-50", "rounds to 0 in float32"),
]


@pytest.mark.parametrize("bad,fragment", BAD_WEIGHTS)
@pytest.mark.parametrize("slow", [False, True])
def test_edge_list_weight_errors_name_the_line(io_write, monkeypatch, bad, fragment, slow):
    if slow:
        monkeypatch.setattr(autotune.graph, "_fromstring", lambda *a: None)  # forces the line-by-line scan
    path = io_write("bad.txt", f"# header\n0 1 4\n\n1 2 {bad}\n2 0 1\n")
    expect_error(path, 4, fragment, "weight_column=2", weight_column=2)
    assert load(path).weights is None  # without a weight column the values are not read


def test_edge_list_missing_weight_column(io_write):
    path = io_write("m.txt", "0 1 4\n1 2\n")
    assert load(path).n_edges == 2
    expect_error(path, 2, "no weight column 2", weight_column=2)
    expect_error(io_write("m3.txt", "0 1 4\n1 2 5\n"), 1, "no weight column 3", weight_column=3)


@pytest.mark.parametrize("wc", [0, 1, -1, 2.0, "2", True])
def test_weight_column_must_be_a_column_index(io_write, wc):
    with pytest.raises(InvalidArgumentError, match="weight_column"):
        load(io_write("x.txt", "0 1 1\n"), weight_column=wc)


def test_weight_column_with_weight_none_conflicts(io_write):
    with pytest.raises(InvalidArgumentError, match="weight=None"):
        load(io_write("x.txt", "0 1 1\n"), weight_column=2, weight=None)


def test_edge_list_large_weighted_fast_path(io_write, monkeypatch):
    monkeypatch.setattr(autotune.graph, "_scan_edge_list", lambda *a: pytest.fail("slow scan used"))
    rng = np.random.default_rng(3)
    e = rng.integers(0, 5000, size=(50_000, 2))
    w = rng.integers(1, 256, size=50_000)
    text = "".join(f"{a} {b} {c} {x}\n" for (a, b), c, x in zip(e, w, rng.random(50_000)))
    g = load(io_write("big.txt", text, "gz"), weight_column=2)
    want = {}
    for (a, b), c in zip(e.tolist(), w.tolist()):
        if a != b:
            want[(a, b)] = min(c, want.get((a, b), 1 << 30))
    assert original_weighted_edges(g) == want


# ========================================================================== Matrix Market
def test_mtx_fields(io_write):
    body = "3 3 3\n1 2 4\n2 3 7\n3 1 2\n"
    g = load(io_write("i.mtx", "%%MatrixMarket matrix coordinate integer general\n" + body))
    assert g.weights.dtype == np.int32 and weighted_edges(g) == {(0, 1): 4, (1, 2): 7, (2, 0): 2}
    r = load(io_write("r.mtx", "%%MatrixMarket matrix coordinate real general\n" + body.replace(" 7", " 0.25")))
    assert r.weights.dtype == np.float32 and weighted_edges(r)[(1, 2)] == 0.25
    p = load(io_write("p.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3\n"))
    assert p.weights is None
    assert load(io_write("i2.mtx", "%%MatrixMarket matrix coordinate integer general\n" + body),
                weight=None).weights is None


def test_mtx_symmetric_weights_both_directions(io_write):
    text = "%%MatrixMarket matrix coordinate real symmetric\n3 3 2\n2 1 1.5\n3 2 2.5\n"
    g = load(io_write("s.mtx", text))
    assert not g.directed and weighted_edges(g) == {(0, 1): 1.5, (1, 0): 1.5, (1, 2): 2.5, (2, 1): 2.5}
    d = load(io_write("s2.mtx", text), directed=True)
    assert d.directed and weighted_edges(d) == weighted_edges(g)


@pytest.mark.parametrize("field,bad,fragment", [
    ("integer", "0", "weight 0 is not positive"),
    ("integer", "-4", "weight -4 is not positive"),
    ("integer", "3000000000", "does not fit int32"),
    ("real", "nan", "weight nan is not a number"),
    ("real", "inf", "weight inf is infinite"),
    ("real", "-0.5", "weight -0.5 is not positive"),
    ("real", "1e39", "beyond the float32 range"),
])
@pytest.mark.parametrize("symmetry", ["general", "symmetric"])
def test_mtx_weight_errors_name_the_line(io_write, field, bad, fragment, symmetry):
    text = (f"%%MatrixMarket matrix coordinate {field} {symmetry}\n% comment\n4 4 3\n2 1 1\n3 1 {bad}\n"
            "4 3 2\n")
    path = io_write("bad.mtx", text)
    expect_error(path, 5, fragment, "weight=None")
    assert load(path, weight=None).weights is None


# ================================================================================= DIMACS
def test_dimacs_lengths_are_int32_weights(io_write):
    text = "c x\np sp 3 4\na 1 2 7\na 2 3 1\na 3 1 2\na 1 2 3\n"
    g = load(io_write("r.gr", text))
    assert g.weights.dtype == np.int32 and weighted_edges(g) == {(0, 1): 3, (1, 2): 1, (2, 0): 2}
    assert g.n_duplicates_removed == 1 and g.n_weight_conflicts == 1
    assert load(io_write("r2.gr", text), weight=None).weights is None


@pytest.mark.parametrize("text,line,fragment", [
    ("p sp 3 2\na 1 2 5\na 2 3 0\n", 3, "weight 0 is not positive"),
    ("p sp 3 2\na 1 2 -5\na 2 3 1\n", 2, "weight -5 is not positive"),
    ("p sp 3 2\na 1 2 5\na 2 3 4000000000\n", 3, "does not fit int32"),
    ("p sp 3 2\na 1 2 5\na 2 3 x\n", 3, "non-numeric arc length 'x'"),
    ("p sp 3 2\na 1 2 5\na 2 3\n", 3, "has no length but the first arc (line 2) has one"),
    ("p sp 3 2\na 1 2\na 2 3 4\n", 3, "has a length but the first arc (line 2) has none"),
    ("c\np sp 3 2\nc mid\na 1 2 5\na 2 3 nan\n", 5, "nan"),
])
def test_dimacs_weight_errors(io_write, text, line, fragment):
    expect_error(io_write("bad.gr", text), line, fragment)


# ========================================================================= in-memory input
@pytest.mark.parametrize("fmt", ["csr_matrix", "coo_matrix", "csr_array"])
def test_sparse_data_are_weights(fmt):
    a = sp.coo_matrix((np.array([2, 2, 3, 3]), ([0, 1, 1, 2], [1, 0, 2, 1])), shape=(3, 3))
    g = load(getattr(sp, fmt)(a))
    assert not g.directed and g.weights.dtype == np.int32 and g.n_duplicates_removed == 0
    assert weighted_edges(g) == {(0, 1): 2, (1, 0): 2, (1, 2): 3, (2, 1): 3}
    f = load(getattr(sp, fmt)(a.astype(np.float64)))
    assert f.weights.dtype == np.float32
    b = load(getattr(sp, fmt)(a.astype(bool)))
    assert b.weights is None and not b.directed


def test_sparse_asymmetric_values_are_directed_unless_asked():
    a = sp.coo_matrix((np.array([2.0, 5.0]), ([0, 1], [1, 0])), shape=(2, 2))
    g = load(a)
    assert g.directed and weighted_edges(g) == {(0, 1): 2.0, (1, 0): 5.0}
    assert not load(a, weight=None).directed  # the pattern alone is symmetric
    u = load(a, directed=False)
    assert not u.directed and weighted_edges(u) == {(0, 1): 2.0, (1, 0): 2.0} and u.n_weight_conflicts == 1
    s = sp.coo_matrix((np.array([4.0, 4.0]), ([0, 1], [1, 0])), shape=(2, 2))
    assert not load(s).directed


def test_sparse_bad_data_names_the_entry():
    a = sp.csr_matrix((np.array([1.0, -2.0]), np.array([1, 0]), np.array([0, 1, 2])), shape=(2, 2))
    with pytest.raises(GraphFormatError, match=r"data\[1\] \(entry \(1, 0\)\): weight -2.0 is not positive"):
        load(a)
    assert load(a, weight=None).n_edges == 2


def test_tuples_with_weights():
    g = load((np.array([0, 1, 0]), np.array([1, 2, 1]), np.array([4, 2, 3])))
    assert g.weights.dtype == np.int32 and weighted_edges(g) == {(0, 1): 3, (1, 2): 2}
    assert g.n_duplicates_removed == 1 and g.n_weight_conflicts == 1
    f = load(([0, 1], [1, 2], [0.5, 1.5]), directed=False)
    assert f.weights.dtype == np.float32 and weighted_edges(f) == {(0, 1): 0.5, (1, 0): 0.5, (1, 2): 1.5, (2, 1): 1.5}
    assert load(([0, 1], [1, 2], [0, 1]), weight=None).weights is None


@pytest.mark.parametrize("w,fragment", [
    ([1, 0, 2], "weights[1]: weight 0 is not positive"),
    ([1, -1, 2], "weights[1]: weight -1 is not positive"),
    ([1.0, np.nan, 2.0], "weights[1]: weight nan is not a number"),
    ([np.inf, 1.0, 2.0], "weights[0]: weight inf is infinite"),
    ([1, 2, 2**31], "weights[2]: weight 2147483648 does not fit int32"),
    ([1, 2, 2**70], "weights[2]: weight 4611686018427387904 does not fit int32"),
    (["1", "2", "3"], "weights[0]: weight '1' is not a number"),
    ([1, "x", 3], "weights[1]: weight 'x' is not a number"),
    ([True, True, True], "got dtype bool"),
    ([1, 2], "weights has 2 entries for 3 edges"),
])
def test_tuple_weight_errors_name_the_index(w, fragment):
    with pytest.raises(GraphFormatError) as info:
        load(([0, 1, 2], [1, 2, 0], w))
    assert fragment in str(info.value)


# ============================================================================== networkx
def test_networkx_weight_attribute():
    nx = pytest.importorskip("networkx")
    G = nx.DiGraph()
    G.add_edge(0, 1, weight=3)
    G.add_edge(1, 2)  # no attribute: weighs 1 (NetworkX's convention)
    G.add_edge(2, 0, weight=7, cost=0.5)
    g = load(G)
    assert g.weights.dtype == np.int32 and weighted_edges(g) == {(0, 1): 3, (1, 2): 1, (2, 0): 7}
    c = load(G, weight="cost")
    assert c.weights.dtype == np.float32 and weighted_edges(c) == {(0, 1): 1.0, (1, 2): 1.0, (2, 0): 0.5}
    assert load(G, weight="nothing").weights is None  # no edge has it: unweighted
    assert load(G, weight=None).weights is None
    assert load(nx.path_graph(4)).weights is None


def test_networkx_labels_multigraph_and_symmetrizing_keep_minimum():
    nx = pytest.importorskip("networkx")
    M = nx.MultiGraph()
    M.add_edge("a", "b", weight=5)
    M.add_edge("a", "b", weight=2)
    M.add_edge("b", "c", weight=4)
    g = load(M)
    labels = g._cache["node_labels"]
    named = {(labels[u], labels[v]): w for (u, v), w in weighted_edges(g).items()}
    assert named == {("a", "b"): 2, ("b", "a"): 2, ("b", "c"): 4, ("c", "b"): 4}
    assert g.n_duplicates_removed == 1 and g.n_weight_conflicts == 1
    D = nx.DiGraph()
    D.add_edge(10, 20, weight=9.0)
    D.add_edge(20, 10, weight=4.0)
    u = load(D, directed=False)
    assert not u.directed and original_weighted_edges(u) == {(10, 20): 4.0, (20, 10): 4.0}
    assert u.n_duplicates_removed == 1 and u.n_weight_conflicts == 1


@pytest.mark.parametrize("value,fragment", [
    (0, "weight 0 is not positive"),
    (-1.5, "weight -1.5 is not positive"),
    (float("nan"), "weight nan is not a number"),
    (float("inf"), "weight inf is infinite"),
    ("heavy", "weight 'heavy' is not a number"),
    (True, "weight True is not a number"),
    (2**40, "does not fit int32"),
])
def test_networkx_bad_weight_names_the_edge(value, fragment):
    nx = pytest.importorskip("networkx")
    G = nx.Graph()
    G.add_edge("x", "y", weight=1)
    G.add_edge("y", "z", weight=value)
    with pytest.raises(GraphFormatError) as info:
        load(G)
    text = str(info.value)
    assert "edge ('y', 'z'), attribute 'weight'" in text and fragment in text, text
    assert load(G, weight=None).n_edges == 4


# ================================================================ minimum-weight merging
@settings(max_examples=150, deadline=None)
@given(data=st.integers(2, 12).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1), st.integers(1, 9)), min_size=1,
                         max_size=60))),
    directed=st.booleans(), floats=st.booleans())
def test_merging_keeps_the_minimum_weight(data, directed, floats):
    n, triples = data
    src = np.array([t[0] for t in triples])
    dst = np.array([t[1] for t in triples])
    w = np.array([t[2] for t in triples], dtype=np.float64 if floats else np.int64)
    want, count = {}, {}
    for u, v, x in triples:
        if u == v:
            continue
        key = (u, v) if directed else (min(u, v), max(u, v))
        want[key] = min(x, want.get(key, 99))
        count.setdefault(key, []).append(x)
    if not want:
        return
    g = from_edges(src, dst, n, weights=w, directed=directed, xp=np)
    got = weighted_edges(g)
    expect = dict(want) if directed else {**want, **{(v, u): x for (u, v), x in want.items()}}
    assert got == expect
    assert g.weights.dtype == (np.float32 if floats else np.int32)
    conflicts = sum(sum(1 for x in xs if x > min(xs)) for xs in count.values())
    assert g.n_weight_conflicts == conflicts
    assert g.n_duplicates_removed == sum(len(xs) - 1 for xs in count.values())
    kept = from_edges(src, dst, n, weights=w, directed=directed, remove_duplicates=False, xp=np)
    assert kept.n_weight_conflicts == 0 and kept.weights.min() == g.weights.min()


def test_edge_list_symmetrized_keeps_minimum(io_write):
    path = io_write("s.txt", "0 1 5\n1 0 3\n1 2 4\n1 2 8\n")
    g = load(path, weight_column=2, directed=False)
    assert weighted_edges(g) == {(0, 1): 3, (1, 0): 3, (1, 2): 4, (2, 1): 4}
    assert g.n_duplicates_removed == 2 and g.n_weight_conflicts == 2
    d = load(path, weight_column=2)
    assert weighted_edges(d) == {(0, 1): 5, (1, 0): 3, (1, 2): 4} and d.n_weight_conflicts == 1


def test_marking_directed_keeps_weights():
    g = generate("grid:rows=3,cols=3,weights=int:1:9", xp=np, directed=True)
    assert g.directed and g.weights is not None
    e = weighted_edges(g)
    assert all(e[(v, u)] == w for (u, v), w in e.items())


# ============================================================================ generators
ALL_SPECS = ["kron:scale=7,edge_factor=4", "uniform:n=300,avg_degree=4", "grid:rows=9,cols=11,drop=0.1",
             "rmat:scale=7,edge_factor=4", "geometric:n=300,radius=0.1", "powerlaw:n=300,avg_degree=4",
             "smallworld:n=300,k=4", "cliques:n_cliques=5,clique_size=6", "bipartite:n_left=50,n_right=80",
             "kron:scale=7,edge_factor=4,directed=true", "powerlaw:n=300,directed=true", "bowtie:n=300"]


def test_every_generator_accepts_weights():
    assert set(_GENERATORS) == {s.split(":")[0] for s in ALL_SPECS}
    for name, gen in _GENERATORS.items():
        assert gen.param("weights") is not None, name
        import inspect

        assert "weights" in inspect.signature(gen.func).parameters, name


@pytest.mark.parametrize("spec", ALL_SPECS)
def test_generator_weight_distributions(spec):
    plain = generate(spec, xp=np)
    gi = generate(spec + ",weights=int:1:255", xp=np)
    assert gi.spec == plain.spec + ",weights=int:1:255"
    assert gi.weights.dtype == np.int32 and gi.weights.min() >= 1 and gi.weights.max() <= 255
    np.testing.assert_array_equal(gi.host()[1], plain.host()[1])  # the structure does not change
    assert plain.weights is None and plain.fingerprint == old_fingerprint(plain)
    gf = generate(spec + ",weights=float:0.5:2.0", xp=np)
    assert gf.weights.dtype == np.float32 and gf.weights.min() >= 0.5 and gf.weights.max() <= 2.0
    assert gf.spec.endswith(",weights=float:0.5:2")
    # deterministic per seed; another seed, other weights
    again = generate(spec + ",weights=int:1:255", xp=np)
    assert again.fingerprint == gi.fingerprint
    other = generate(spec + ",seed=5,weights=int:1:255", xp=np)
    if other.n_edges == gi.n_edges and np.array_equal(other.host()[1], gi.host()[1]):
        assert not np.array_equal(other.weights, gi.weights)
    if not gi.directed:  # both directions of an undirected edge weigh the same
        e = weighted_edges(gi)
        assert all(e[(v, u)] == w for (u, v), w in e.items())


def test_generator_functions_match_specs_and_shorthand():
    a = kronecker(7, 4, seed=3, weights="int", xp=np)
    b = generate("kron:scale=7,edge_factor=4,seed=3,weights=int:1:255", xp=np)
    assert a.spec == b.spec and a.fingerprint == b.fingerprint
    c = uniform_random(200, 6, seed=1, weights="float:0.25:4", xp=np)
    assert c.spec == "uniform:n=200,avg_degree=6,seed=1,weights=float:0.25:4"
    assert c.fingerprint == generate(c.spec, xp=np).fingerprint
    g = grid(4, 4, weights="int:7:7", xp=np)
    assert set(g.weights.tolist()) == {7}
    assert rmat(6, 4, weights=None, xp=np).weights is None


def test_int_weights_cover_the_range_uniformly():
    g = kronecker(14, 16, weights="int:1:255", xp=np)
    counts = np.bincount(g.weights, minlength=256)[1:]
    assert counts.min() > 0 and abs(float(g.weights.mean()) - 128) < 1.5
    expected = g.n_edges / 255
    assert np.all(np.abs(counts - expected) < 6 * np.sqrt(expected))


def test_edge_weights_depend_on_edge_and_seed_only():
    g = generate("grid:rows=20,cols=20", xp=np)
    w1 = edge_weights(g, "int:1:100", seed=1)
    d = generate("grid:rows=20,cols=20", xp=np, directed=True)
    np.testing.assert_array_equal(edge_weights(d, "int:1:100", seed=1) >= 1, True)
    # a subgraph (fewer edges): the surviving edges keep their weights
    dropped = generate("grid:rows=20,cols=20,drop=0.3", xp=np)
    full = dict(zip(map(tuple, np.c_[np.repeat(np.arange(400), np.diff(g.host()[0])), g.host()[1]].tolist()),
                    w1.tolist()))
    wd = edge_weights(dropped, "int:1:100", seed=1)
    rows = np.repeat(np.arange(400), np.diff(dropped.host()[0]))
    assert all(full[(u, v)] == w for u, v, w in zip(rows.tolist(), dropped.host()[1].tolist(), wd.tolist()))
    assert not np.array_equal(edge_weights(g, "int:1:100", seed=2), w1)


@pytest.mark.parametrize("text,fragment", [
    ("int:0:5", "1 <= LO <= HI"),
    ("int:5:4", "1 <= LO <= HI"),
    ("int:1:3000000000", "1 <= LO <= HI"),
    ("int:1.5:3", "must be integers"),
    ("float:0:1", "0 < LO <= HI"),
    ("float:2:1", "0 < LO <= HI"),
    ("float:1:inf", "0 < LO <= HI"),
    ("float:nan:1", "0 < LO <= HI"),
    ("float:a:b", "must be numbers"),
    ("float", "unknown weight distribution"),
    ("normal:0:1", "unknown weight distribution"),
    ("int:1", "unknown weight distribution"),
])
def test_bad_weight_distributions_name_the_field(text, fragment):
    spec = f"kron:scale=5,weights={text}"
    with pytest.raises(GeneratorSpecError) as info:
        generate(spec, xp=np)
    msg = str(info.value)
    assert "parameter 'weights'" in msg and spec in msg and fragment in msg, msg
    assert isinstance(info.value, ValueError)
    with pytest.raises(GeneratorSpecError, match="parameter 'weights'"):
        kronecker(5, weights=text, xp=np)
    with pytest.raises(GeneratorSpecError, match="weights"):
        generate("kron:scale=5,weights=7", xp=np)


def test_parse_weight_spec_canonical():
    assert parse_weight_spec("INT").spec == "int:1:255"
    assert parse_weight_spec(" float:0.50:2.0 ").spec == "float:0.5:2"
    assert parse_weight_spec(None) is None


def test_spec_with_weights_and_weight_none_conflict():
    with pytest.raises(InvalidArgumentError, match="weight=None"):
        load_graph("kron:scale=4,weights=int", xp=np, weight=None)
    assert load_graph("kron:scale=4,weights=int", xp=np, weight_column=2).weights is not None  # ignored


# ============================================================================ imports, CLI
def _relative_imports(path: Path) -> set:
    tree = ast.parse(path.read_text())
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                out.add(node.module)
            else:
                out.update(a.name for a in node.names)
    return out


def test_imports_run_one_way():
    pkg = REPO / "autotune"
    assert "graph" not in _relative_imports(pkg / "generators.py")
    assert "graph" not in _relative_imports(pkg / "_csr.py") and "generators" not in _relative_imports(pkg / "_csr.py")
    assert "generators" in _relative_imports(pkg / "graph.py")


def test_cli_weight_column(io_write, capsys):
    from autotune.cli import main

    path = io_write("w.txt", "0 1 5\n1 2 7\n")
    assert main(["profile", path, "--weight-column", "2", "--json", "--sources", "1"]) == 0
    assert main(["profile", path, "--json", "--sources", "1"]) == 0
    out = capsys.readouterr().out
    assert out.count('"fingerprint"') == 2
    assert main(["profile", io_write("b.txt", "0 1 0\n"), "--weight-column", "2", "--sources", "1"]) == 2
    assert "b.txt:1: weight 0 is not positive" in capsys.readouterr().err


# ============================================================================= real graphs
def _corpus_manifest(d):
    p = d / "MANIFEST-corpus.tsv"
    if not p.is_file():
        pytest.skip("MANIFEST-corpus.tsv not found")
    with open(p, newline="") as fh:
        return {r["file"]: r for r in csv.DictReader(fh, delimiter="\t")}


def test_real_csv_and_weighted_edge_lists(io_graphs_dir):
    rows = _corpus_manifest(io_graphs_dir)
    for name in ("soc-sign-bitcoinalpha.csv.gz", "soc-sign-bitcoinotc.csv.gz"):
        if name not in rows or not (io_graphs_dir / name).is_file():
            continue
        path = str(io_graphs_dir / name)
        g = load(path)
        assert g.directed and g.weights is None
        assert g.n_edges + g.n_self_loops_removed + g.n_duplicates_removed == int(rows[name]["edges"])
        with gzip.open(path, "rt") as fh:
            ratings = np.array([int(line.split(",")[2]) for line in fh])
        first_bad = int(np.flatnonzero(ratings <= 0)[0]) + 1
        expect_error(path, first_bad, "is not positive", weight_column=2)
        assert load(path, weight_column=3).weights.dtype in (np.int32, np.float32)
    name = "higgs-mention_network.edgelist.gz"
    if name in rows and (io_graphs_dir / name).is_file():
        g = load(str(io_graphs_dir / name), weight_column=2)
        assert g.weights.dtype == np.int32 and g.weights.min() >= 1
        assert g.n_edges + g.n_self_loops_removed + g.n_duplicates_removed == int(rows[name]["edges"])


# ===================================================================================== GPU
@pytest.mark.gpu
def test_weights_on_the_gpu():
    import cupy

    for spec in ("grid:rows=30,cols=40,weights=float:0.5:2.0", "rmat:scale=9,edge_factor=8,weights=int:1:255",
                 "powerlaw:n=500,directed=true,weights=int:1:1000"):
        host = generate(spec, xp=np)
        dev = generate(spec, xp=cupy)
        assert dev.on_device and isinstance(dev.weights, cupy.ndarray)
        assert dev.fingerprint == host.fingerprint  # same graph, bit-identical weights
    g = from_edges([0, 1, 0], [1, 2, 1], weights=[5, 2, 3], xp=np)
    dw = g.device_weights()
    assert isinstance(dw, cupy.ndarray) and g.device_weights() is dw and dw.tolist() == [3, 2]
    d = from_edges(cupy.array([0, 1, 0]), cupy.array([1, 2, 1]), weights=cupy.array([5.0, 2.0, 3.0]), xp=cupy,
                   directed=False)
    assert d.on_device and d.weights.dtype == np.float32 and d.n_weight_conflicts == 1
    assert d.host_weights().tolist() == [3.0, 3.0, 2.0, 2.0] and d.device_weights() is d.weights
    with pytest.raises(GraphFormatError, match=r"weights\[1\]: weight 0"):
        from_edges(cupy.array([0, 1]), cupy.array([1, 2]), weights=cupy.array([1, 0]), xp=cupy)
    import cupyx.scipy.sparse as cusp

    a = sp.coo_matrix((np.array([2.0, 5.0]), ([0, 1], [1, 0])), shape=(2, 2))
    gc = load_graph(cusp.csr_matrix(sp.csr_matrix(a)))
    assert gc.on_device and gc.directed and gc.weights.dtype == np.float32
