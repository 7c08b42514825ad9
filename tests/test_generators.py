"""Generators (Kronecker, uniform, grid), generator specs, and the from_edges CSR contract."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autotune import generators as gen
from autotune.errors import EmptyGraphError, GraphFormatError
from autotune.generators import available_generators, generate, grid, kronecker, parse_spec, uniform_random
from autotune.graph import CSRGraph, from_edges


def edge_set(g: CSRGraph) -> set[tuple[int, int]]:
    ro, ci = g.host()
    rows = np.repeat(np.arange(g.n_vertices), np.diff(ro))
    return set(zip(rows.tolist(), ci.tolist()))


def check_csr(g: CSRGraph) -> None:
    """A valid CSR: offsets monotone and complete, columns strictly increasing per row, in range, no
    self-loops, int32 indices, and symmetric when undirected."""
    ro, ci = g.host()
    n = g.n_vertices
    assert ro.shape == (n + 1,) and ci.dtype == np.int32
    assert ro[0] == 0 and ro[-1] == ci.size and np.all(np.diff(ro) >= 0)
    rows = np.repeat(np.arange(n, dtype=np.int64), np.diff(ro))
    key = rows * n + ci
    assert np.all(np.diff(key) > 0)
    assert ci.size == 0 or (ci.min() >= 0 and ci.max() < n)
    assert not np.any(rows == ci)
    if not g.directed:
        back = np.sort(ci.astype(np.int64) * n + rows)
        np.testing.assert_array_equal(back, key)


# ================================================================================ Kronecker
def test_kron_counts_and_determinism():
    g1 = kronecker(10, edge_factor=8, seed=7, xp=np)
    g2 = kronecker(10, edge_factor=8, seed=7, xp=np)
    g3 = kronecker(10, edge_factor=8, seed=8, xp=np)
    assert g1.n_vertices == 1024 and not g1.directed
    assert g1.fingerprint == g2.fingerprint != g3.fingerprint
    # 8 * 1024 generated edges, stored both ways, minus self-loops and duplicates
    assert 0.5 * 2 * 8 * 1024 < g1.n_edges <= 2 * 8 * 1024
    assert g1.n_self_loops_removed > 0 and g1.n_duplicates_removed > 0
    assert g1.spec == g1.name == "kron:scale=10,edge_factor=8,seed=7"
    check_csr(g1)


def test_kron_directed():
    g = kronecker(8, seed=1, directed=True, xp=np)
    assert g.directed and g.n_edges <= 16 * 256
    assert g.spec == "kron:scale=8,edge_factor=16,seed=1,directed=true"
    check_csr(g)


def test_kron_degree_skew():
    g = kronecker(13, xp=np)
    deg = g.out_degrees()
    assert deg.max() > 20 * deg.mean()
    assert (deg == 0).sum() > 0.1 * g.n_vertices  # many isolated vertices, as in Graph500


def test_kron_single_quadrant_probabilities():
    n = 1 << 6
    # every edge in quadrant B: source bits all 0, destination bits all 1 -> one edge (p[0], p[n-1])
    g = kronecker(6, a=0.0, b=1.0, c=0.0, directed=True, xp=np)
    assert g.n_edges == 1 and g.n_duplicates_removed == 16 * n - 1
    gc = kronecker(6, a=0.0, b=0.0, c=1.0, directed=True, xp=np)
    assert gc.n_edges == 1
    (u, v), = edge_set(g)
    (uc, vc), = edge_set(gc)
    assert (uc, vc) == (v, u)  # same permutation (same seed): C is B transposed
    for a, b, c in [(1.0, 0.0, 0.0), (0.0, 0.0, 0.0)]:  # all A, or all D: only self-loops
        with pytest.raises(EmptyGraphError):
            kronecker(6, a=a, b=b, c=c, xp=np)


def test_kron_quadrant_frequencies():
    """With scale 1 every edge is one quadrant choice: loops = A + D, the two off-diagonals B and C."""
    a, b, c = 0.5, 0.3, 0.1
    m = 2 * 50_000
    src, dst = gen._kron_numpy(1, m, a, b, c, seed=3)
    loops = np.mean(src == dst)
    off = sorted([np.mean(src < dst), np.mean(src > dst)])
    assert abs(loops - (a + 1 - a - b - c)) < 0.01
    assert abs(off[0] - c) < 0.01 and abs(off[1] - b) < 0.01


def test_kron_multi_chunk(monkeypatch):
    """Chunking does not change the edge multiset's size or the determinism."""
    monkeypatch.setattr(gen, "_CHUNK", 1000)
    g1 = kronecker(9, edge_factor=5, seed=2, xp=np)
    g2 = kronecker(9, edge_factor=5, seed=2, xp=np)
    assert g1.fingerprint == g2.fingerprint
    check_csr(g1)


@pytest.mark.parametrize("kwargs,fragment", [
    (dict(scale=0), "scale must be between 1 and 30, got 0"),
    (dict(scale=31), "scale must be between 1 and 30, got 31"),
    (dict(scale=2.0), "scale must be an integer"),
    (dict(scale=5, edge_factor=0), "edge_factor must be >= 1, got 0"),
    (dict(scale=5, a=0.6, b=0.3, c=0.2), "a + b + c must be <= 1"),
    (dict(scale=5, b=-0.1), "b must be in [0.0, 1.0]"),
    (dict(scale=5, seed=-1), "seed must be >= 0"),
])
def test_kron_validation(kwargs, fragment):
    with pytest.raises(ValueError) as info:
        kronecker(xp=np, **kwargs)
    assert fragment in str(info.value)


# ================================================================================== uniform
def test_uniform_counts_and_determinism():
    g = uniform_random(2000, avg_degree=10, seed=1, xp=np)
    assert g.n_vertices == 2000 and not g.directed
    assert abs(g.n_edges / g.n_vertices - 10) < 0.5
    assert g.fingerprint == uniform_random(2000, avg_degree=10, seed=1, xp=np).fingerprint
    assert g.fingerprint != uniform_random(2000, avg_degree=10, seed=2, xp=np).fingerprint
    deg = g.out_degrees()
    assert deg.max() < 4 * deg.mean()  # no heavy tail
    check_csr(g)
    d = uniform_random(1000, avg_degree=6, directed=True, xp=np)
    assert d.directed and abs(d.n_edges / 1000 - 6) < 0.3
    assert d.spec == "uniform:n=1000,avg_degree=6,directed=true"


def test_uniform_errors():
    with pytest.raises(EmptyGraphError):
        uniform_random(1, xp=np)  # only self-loops possible
    with pytest.raises(ValueError, match="avg_degree must be in"):
        uniform_random(10, avg_degree=0, xp=np)
    with pytest.raises(ValueError, match="n_vertices must be between"):
        uniform_random(0, xp=np)


# ===================================================================================== grid
@pytest.mark.parametrize("rows,cols", [(1, 2), (1, 7), (5, 1), (4, 6), (30, 17)])
def test_grid_structure(rows, cols):
    g = grid(rows, cols, xp=np)
    assert g.n_vertices == rows * cols and not g.directed
    assert g.n_edges == 2 * (2 * rows * cols - rows - cols)
    want = set()
    for r in range(rows):
        for c in range(cols):
            v = r * cols + c
            for dr, dc in ((0, 1), (1, 0), (0, -1), (-1, 0)):
                if 0 <= r + dr < rows and 0 <= c + dc < cols:
                    want.add((v, (r + dr) * cols + c + dc))
    assert edge_set(g) == want
    check_csr(g)


def test_grid_drop():
    full = 2 * 100 * 100 - 200
    g = grid(100, 100, drop=0.3, seed=4, xp=np)
    kept = g.n_edges / 2 / full
    assert abs(kept - 0.7) < 0.02
    assert edge_set(g) <= edge_set(grid(100, 100, xp=np))
    assert g.fingerprint == grid(100, 100, drop=0.3, seed=4, xp=np).fingerprint
    assert g.fingerprint != grid(100, 100, drop=0.3, seed=5, xp=np).fingerprint
    assert g.spec == "grid:rows=100,cols=100,drop=0.3,seed=4"
    check_csr(g)


def test_grid_empty_and_validation():
    with pytest.raises(EmptyGraphError, match="1 x 1 grid"):
        grid(1, 1, xp=np)
    with pytest.raises(EmptyGraphError, match="drop=1.0"):
        grid(10, 10, drop=1.0, xp=np)
    with pytest.raises(ValueError, match="rows must be >= 1"):
        grid(0, 4, xp=np)
    with pytest.raises(ValueError, match=r"drop must be in \[0.0, 1.0\], got 1.5"):
        grid(3, 3, drop=1.5, xp=np)
    with pytest.raises(ValueError, match="rows \\* cols"):
        grid(1 << 16, 1 << 16, xp=np)


# ==================================================================================== specs
@pytest.mark.parametrize("spec,want", [
    ("kron:scale=22,edge_factor=16", ("kron", {"scale": 22, "edge_factor": 16})),
    (" kron : scale = 22 , edge_factor=16, ", ("kron", {"scale": 22, "edge_factor": 16})),
    ("kron", ("kron", {})),
    ("kron:", ("kron", {})),
    ("grid:rows=3,cols=4,drop=0.25", ("grid", {"rows": 3, "cols": 4, "drop": 0.25})),
    ("kron:directed=true,a=0.5", ("kron", {"directed": True, "a": 0.5})),
    ("uniform:n=1e6,directed=False", ("uniform", {"n": 1e6, "directed": False})),
    ("kron:scale=abc", ("kron", {"scale": "abc"})),
])
def test_parse_spec(spec, want):
    assert parse_spec(spec) == want


@pytest.mark.parametrize("spec,fragment", [
    ("kron:scale", "malformed parameter 'scale'"),
    ("kron:=3", "malformed parameter '=3'"),
    ("kron:scale=", "malformed parameter 'scale='"),
    ("kron:scale=3,scale=4", "'scale' given twice"),
    ("Kron:scale=3", "malformed generator spec"),
    (":scale=3", "malformed generator spec"),
    ("kron-2:scale=3", "malformed generator spec"),
])
def test_parse_spec_errors(spec, fragment):
    with pytest.raises(ValueError) as info:
        parse_spec(spec)
    assert fragment in str(info.value)
    with pytest.raises(TypeError):
        parse_spec(3)


@pytest.mark.parametrize("spec,canonical", [
    ("kron:scale=8", "kron:scale=8,edge_factor=16"),
    ("kron:edge_factor=4,scale=8", "kron:scale=8,edge_factor=4"),
    ("kron:scale=8,seed=0,a=0.57,directed=false", "kron:scale=8,edge_factor=16"),
    ("kron:scale=8,seed=3,c=0.2", "kron:scale=8,edge_factor=16,c=0.2,seed=3"),
    ("uniform:scale=9", "uniform:scale=9,avg_degree=16"),
    ("uniform:n=1e3,avg_degree=4.5", "uniform:n=1000,avg_degree=4.5"),
    ("uniform:avg_degree=3", "uniform:scale=16,avg_degree=3"),
    ("grid:cols=5,rows=4,seed=9", "grid:rows=4,cols=5,seed=9"),
    ("grid:rows=4,cols=5,drop=0", "grid:rows=4,cols=5"),
    ("kron:scale=8,directed=1", "kron:scale=8,edge_factor=16,directed=true"),
])
def test_generate_canonical_spec(spec, canonical):
    g = generate(spec, xp=np)
    assert g.spec == canonical and g.name == spec
    assert generate(canonical, xp=np).fingerprint == g.fingerprint


def test_generate_sizes():
    assert generate("uniform:scale=9", xp=np).n_vertices == 512
    assert generate("uniform:n=300,avg_degree=2", xp=np).n_vertices == 300
    assert generate("grid:rows=4,cols=5", xp=np).n_vertices == 20
    assert generate("kron:scale=7", xp=np).n_vertices == 128
    assert generate("kron", xp=np).n_vertices == 1 << 16
    assert generate("kron:scale=5", xp=np, name="mine").name == "mine"


@pytest.mark.parametrize("spec,fragments", [
    ("nosuch:scale=3", ["unknown generator 'nosuch'",
                        "known generators: bipartite, bowtie, cliques, geometric, grid, kron, powerlaw, rmat, "
                        "smallworld, uniform"]),
    ("kron:scale=3,foo=1", ["unknown parameter 'foo'", "accepted: scale, edge_factor, a, b, c, seed, directed"]),
    ("grid:rows=3,cols=3,directed=true", ["unknown parameter 'directed'", "accepted: rows, cols, drop, seed"]),
    ("kron:scale=abc", ["parameter 'scale'", "must be an integer", "'abc'"]),
    ("kron:scale=2.5", ["parameter 'scale'", "2.5"]),
    ("kron:scale=5,directed=maybe", ["parameter 'directed'", "true or false", "'maybe'"]),
    ("kron:scale=5,a=true", ["parameter 'a'", "must be a number", "True"]),
    ("grid:rows=3,cols=3,drop=high", ["parameter 'drop'", "'high'"]),
    ("kron:scale=99", ["kron:scale=99", "scale must be between 1 and 30, got 99"]),
    ("uniform:n=10,scale=3", ["either 'n' or 'scale'"]),
    ("uniform:scale=40", ["scale must be between 0 and 30, got 40"]),
])
def test_generate_errors(spec, fragments):
    with pytest.raises(ValueError) as info:
        generate(spec, xp=np)
    for frag in fragments:
        assert frag in str(info.value)


def test_generate_directed_override():
    g = generate("kron:scale=5", xp=np, directed=True)
    assert g.directed and g.spec.endswith("directed=true")
    assert not generate("kron:scale=5,directed=false", xp=np, directed=False).directed
    with pytest.raises(ValueError, match="directed=true"):
        generate("kron:scale=5,directed=true", xp=np, directed=False)
    marked = generate("grid:rows=2,cols=3", xp=np, directed=True)
    assert marked.directed and marked.n_edges == 14 and marked.spec == "grid:rows=2,cols=3"


def test_generate_empty_is_empty_graph_error():
    with pytest.raises(EmptyGraphError, match="grid:rows=1,cols=1"):
        generate("grid:rows=1,cols=1", xp=np)


def test_available_generators():
    av = available_generators()
    # kron/uniform/grid here; the corpus generators are tested in test_corpus_generators.py
    assert set(av) == {"kron", "uniform", "grid", "rmat", "geometric", "powerlaw", "smallworld", "cliques",
                       "bipartite", "bowtie"}
    assert "Graph500" in av["kron"] and all(isinstance(s, str) and s for s in av.values())
    assert all("\n" not in s for s in av.values())


# ================================================================ from_edges property test
edge_lists = st.integers(min_value=1, max_value=25).flatmap(
    lambda n: st.tuples(st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=80)))


@settings(max_examples=300, deadline=None)
@given(data=edge_lists, directed=st.booleans(), dtype=st.sampled_from([np.int64, np.int32, np.uint32, np.uint64]))
def test_from_edges_is_valid_csr(data, directed, dtype):
    n, pairs = data
    src = np.array([p[0] for p in pairs], dtype=dtype)
    dst = np.array([p[1] for p in pairs], dtype=dtype)
    nonloop = [(u, v) for u, v in pairs if u != v]
    want = set(nonloop) if directed else {e for u, v in nonloop for e in ((u, v), (v, u))}
    distinct = len(set(nonloop)) if directed else len({(min(u, v), max(u, v)) for u, v in nonloop})
    if not want:
        with pytest.raises(EmptyGraphError):
            from_edges(src, dst, n, directed=directed, xp=np)
        return
    g = from_edges(src, dst, n, directed=directed, xp=np)
    assert g.n_vertices == n and g.directed == directed
    check_csr(g)
    assert edge_set(g) == want
    assert g.n_self_loops_removed == len(pairs) - len(nonloop)
    assert g.n_duplicates_removed == len(nonloop) - distinct


@settings(max_examples=150, deadline=None)
@given(data=edge_lists, directed=st.booleans())
def test_from_edges_keeping_loops_and_duplicates(data, directed):
    n, pairs = data
    if not pairs:
        return
    src = np.array([p[0] for p in pairs], dtype=np.int64)
    dst = np.array([p[1] for p in pairs], dtype=np.int64)
    raw = from_edges(src, dst, n, directed=directed, remove_self_loops=False, remove_duplicates=False, xp=np)
    loops = sum(u == v for u, v in pairs)
    # every input edge stored once per direction, a self-loop once
    assert raw.n_edges == (len(pairs) if directed else 2 * len(pairs) - loops)
    assert raw.n_self_loops_removed == 0 and raw.n_duplicates_removed == 0
    ro, ci = raw.host()
    rows = np.repeat(np.arange(n), np.diff(ro))
    assert np.all(np.diff(rows * n + ci) >= 0)  # sorted, duplicates kept
    keep_loops = from_edges(src, dst, n, directed=directed, remove_self_loops=False, xp=np)
    canon = (lambda u, v: (u, v)) if directed else (lambda u, v: (min(u, v), max(u, v)))
    assert keep_loops.n_duplicates_removed == len(pairs) - len({canon(u, v) for u, v in pairs})
    assert keep_loops.n_self_loops_removed == 0


def test_from_edges_rejects_bad_ids():
    with pytest.raises(GraphFormatError, match="non-integer source vertex id 1.5"):
        from_edges(np.array([0.0, 1.5]), np.array([1.0, 2.0]), xp=np)
    assert from_edges(np.array([0.0, 1.0]), np.array([1.0, 2.0]), xp=np).n_edges == 2
    with pytest.raises(GraphFormatError, match="negative vertex id -1"):
        from_edges([0, -1], [1, 2], xp=np)
    with pytest.raises(GraphFormatError, match="out of range"):
        from_edges([0, 5], [1, 2], 4, xp=np)
    with pytest.raises(GraphFormatError, match="must be integers"):
        from_edges(np.array(["a"]), np.array(["b"]), xp=np)
    with pytest.raises(GraphFormatError, match="vertex_ids has 2 entries for 3"):
        from_edges([0, 1], [1, 2], vertex_ids=[5, 6], xp=np)


# ====================================================================================== GPU
@pytest.mark.gpu
def test_generators_on_gpu():
    import cupy

    g1 = kronecker(12, seed=4, xp=cupy)
    g2 = kronecker(12, seed=4, xp=cupy)
    assert g1.on_device and g1.fingerprint == g2.fingerprint
    assert g1.fingerprint != kronecker(12, seed=5, xp=cupy).fingerprint
    check_csr(g1)
    deg = g1.out_degrees(np)
    assert deg.max() > 20 * deg.mean()
    u = uniform_random(5000, avg_degree=8, seed=1, xp=cupy)
    assert u.on_device and abs(u.n_edges / 5000 - 8) < 0.5
    check_csr(u)
    gr = grid(50, 40, drop=0.2, seed=1, xp=cupy)
    assert gr.on_device and edge_set(gr) <= edge_set(grid(50, 40, xp=np))
    check_csr(gr)
    assert grid(20, 30, xp=cupy).fingerprint == grid(20, 30, xp=np).fingerprint
    src, dst = gen._kron_cupy(1, 100_000, 0.5, 0.3, 0.1, seed=3)
    src, dst = src.get(), dst.get()
    assert abs(np.mean(src == dst) - 0.6) < 0.01
    assert abs(sorted([np.mean(src < dst), np.mean(src > dst)])[1] - 0.3) < 0.01
