"""Corpus generators (rmat, geometric, powerlaw, smallworld, cliques, bipartite) on the CPU."""
from __future__ import annotations

import numpy as np
import pytest

from autotune.features import profile
from autotune.generators import bipartite, cliques, generate, geometric, powerlaw, rmat, smallworld
from autotune.reference import bfs_reference

SPECS = [
    "rmat:scale=10,edge_factor=8,a=0.6",
    "geometric:n=3000,radius=0.04",
    "powerlaw:n=3000,avg_degree=6,exponent=2.2",
    "powerlaw:n=3000,avg_degree=6,exponent=2.5,directed=true",
    "smallworld:n=3000,k=6,p=0.05",
    "cliques:n_cliques=20,clique_size=9",
    "bipartite:n_left=300,n_right=2000,avg_degree=5",
]


def _edges(g):
    ro, ci = g.host()
    return np.repeat(np.arange(g.n_vertices), np.diff(ro)), ci


@pytest.mark.parametrize("spec", SPECS)
def test_spec_round_trip_seeded_and_valid_csr(spec):
    g = generate(spec, xp=np)
    assert g.spec == spec and g.name == spec
    assert generate(g.spec, xp=np).fingerprint == g.fingerprint  # deterministic
    ro, ci = g.host()
    assert ro[0] == 0 and ro[-1] == g.n_edges and np.all(np.diff(ro) >= 0)
    src, dst = _edges(g)
    assert np.all(src != dst)  # no self-loops
    keys = src.astype(np.int64) * g.n_vertices + dst
    assert np.unique(keys).size == keys.size  # no duplicates
    if not g.directed:  # symmetric
        back = dst.astype(np.int64) * g.n_vertices + src
        assert np.array_equal(np.sort(keys), np.sort(back))
    if not spec.startswith("cliques"):
        other = generate(spec + ",seed=7", xp=np)
        assert other.fingerprint != g.fingerprint and "seed=7" in other.spec


def test_host_drawn_graphs_do_not_depend_on_the_backend():
    """The corpus generators draw on the host: the same spec gives the same graph whatever xp builds
    the CSR (so GPU logs can be matched on the CPU)."""
    import autotune.generators as gen

    for spec in SPECS:
        name, params = gen.parse_spec(spec)
        g = generate(spec, xp=np)
        g2 = gen._GENERATORS[name].call({**{p.name: p.default for p in gen._GENERATORS[name].params
                                            if p.default is not None}, **params}, np)
        assert g2.fingerprint == g.fingerprint


def test_geometric_matches_brute_force():
    n, r = 1500, 0.06
    g = geometric(n, r, seed=4, xp=np)
    pts = np.random.default_rng(4).random((n, 2))
    d2 = ((pts[:, None, :] - pts[None, :, :]) ** 2).sum(-1)
    want = (d2 <= r * r) & ~np.eye(n, dtype=bool)
    got = np.zeros_like(want)
    src, dst = _edges(g)
    got[src, dst] = True
    assert np.array_equal(got, want)
    # mean degree about n * pi * r^2 (a bit less near the border)
    assert 0.8 * n * np.pi * r * r < g.n_edges / n < 1.01 * n * np.pi * r * r


def test_geometric_chunking_gives_the_same_graph(monkeypatch):
    import autotune.generators as gen

    g = geometric(4000, 0.03, seed=1, xp=np)
    monkeypatch.setattr(gen, "_PAIR_CHUNK", 257)  # many small chunks
    assert geometric(4000, 0.03, seed=1, xp=np).fingerprint == g.fingerprint


def test_smallworld_ring_and_rewiring():
    ring = smallworld(1000, k=4, p=0.0, xp=np)
    deg = ring.out_degrees(np)
    assert np.all(deg == 4) and ring.n_edges == 4000
    dist = bfs_reference(ring, 0)[0]
    assert dist.max() == 1000 // 4  # ring lattice: n / k levels
    rewired = smallworld(1000, k=4, p=0.3, seed=2, xp=np)
    assert bfs_reference(rewired, 0)[0].max() < 25  # small world
    f = profile(rewired, xp=np)
    assert f.degree_mean == pytest.approx(4.0, rel=0.02) and f.degree_gini < 0.2


def test_cliques_exact_structure():
    g = cliques(6, 5, xp=np)
    assert g.n_vertices == 30 and g.n_edges == 6 * 5 * 4 + 2 * 5
    dist = bfs_reference(g, 0)[0]
    assert dist.max() == 2 * 6 - 1  # across each clique, then over each bridge
    deg = g.out_degrees(np)
    assert set(deg.tolist()) == {4, 5}
    assert generate("cliques:n_cliques=6,clique_size=5", xp=np).fingerprint == g.fingerprint


def test_bipartite_has_no_edge_inside_a_side():
    g = bipartite(200, 3000, avg_degree=10, seed=3, xp=np)
    src, dst = _edges(g)
    assert np.all((src < 200) != (dst < 200))
    deg = g.out_degrees(np)
    assert deg[:200].mean() > 10 * deg[200:].mean()  # the small side holds the high degrees
    assert g.n_edges / g.n_vertices == pytest.approx(10, rel=0.05)


def test_powerlaw_exponent_controls_skew():
    ginis = [profile(powerlaw(20000, 8, e, seed=1, xp=np), xp=np).degree_gini for e in (2.1, 2.5, 3.5)]
    assert ginis[0] > ginis[1] > ginis[2]
    g = powerlaw(20000, 8, 3.0, seed=1, xp=np)
    assert g.n_edges / g.n_vertices == pytest.approx(8, rel=0.1)
    d = powerlaw(5000, 6, 2.5, directed=True, xp=np)
    assert d.directed and d.n_edges == pytest.approx(5000 * 6, rel=0.1)


def test_rmat_skew_and_noise():
    skewed = profile(rmat(12, 8, a=0.65, b=0.15, c=0.15, xp=np), xp=np)
    flat = profile(rmat(12, 8, a=0.25, b=0.25, c=0.25, noise=0.0, xp=np), xp=np)
    assert skewed.degree_gini > 0.6 > 0.3 > flat.degree_gini
    assert rmat(8, 4, noise=0.0, xp=np).fingerprint != rmat(8, 4, noise=0.1, xp=np).fingerprint
    assert rmat(8, 4, directed=True, xp=np).directed


@pytest.mark.parametrize("spec, fragment", [
    ("rmat:scale=8,noise=0.2", "noise must be <= min(b, c, (a + d) / 2)"),
    ("rmat:scale=8,a=0.7,b=0.2,c=0.2", "a + b + c must be <= 1"),
    ("rmat:scale=31", "scale must be between 1 and 30"),
    ("geometric:n=1000,radius=0", "radius must be in (0.0, 1.5]"),
    ("geometric:n=1,radius=0.1", "n must be between 2"),
    ("geometric:n=2000000000,radius=0.5", "int32 offsets"),
    ("powerlaw:n=100,avg_degree=5,exponent=1.2", "exponent must be in (1.5, 10.0]"),
    ("powerlaw:n=100,avg_degree=500", "avg_degree must be in"),
    ("smallworld:n=100,k=5,p=0.1", "k must be even"),
    ("smallworld:n=10,k=10,p=0.1", "k must be even and < n"),
    ("smallworld:n=100,k=4,p=1.5", "p must be in [0.0, 1.0]"),
    ("cliques:n_cliques=0,clique_size=5", "n_cliques must be >= 1"),
    ("cliques:n_cliques=3,clique_size=1", "clique_size must be >= 2"),
    ("bipartite:n_left=0,n_right=10", "n_left must be >= 1"),
    ("bipartite:n_left=5,n_right=10,extra=1", "unknown parameter 'extra'"),
])
def test_errors_name_the_parameter(spec, fragment):
    with pytest.raises(ValueError) as info:
        generate(spec, xp=np)
    assert fragment in str(info.value)
