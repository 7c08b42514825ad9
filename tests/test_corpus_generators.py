"""Corpus generators (rmat, geometric, powerlaw, smallworld, cliques, bipartite) on the CPU."""
from __future__ import annotations

import numpy as np
import pytest

from autotune.features import profile
from autotune.generators import bipartite, bowtie, cliques, generate, geometric, powerlaw, rmat, smallworld
from autotune.reference import bfs_reference

SPECS = [
    "rmat:scale=10,edge_factor=8,a=0.6",
    "geometric:n=3000,radius=0.04",
    "powerlaw:n=3000,avg_degree=6,exponent=2.2",
    "powerlaw:n=3000,avg_degree=6,exponent=2.5,directed=true",
    "smallworld:n=3000,k=6,p=0.05",
    "cliques:n_cliques=20,clique_size=9",
    "bipartite:n_left=300,n_right=2000,avg_degree=5",
    "bowtie:n=3000,avg_degree=5",
    "bowtie:n=3000,avg_degree=3,core=0.1,in_share=0.1,out_share=0.6,reciprocity=0",
    "rmat:scale=10,edge_factor=8,directed=true,sinks=0.3,reciprocity=0.2",
    "powerlaw:n=3000,avg_degree=4,exponent=2.2,directed=true,sources=0.5",
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
    ("powerlaw:n=100,avg_degree=5,exponent=1.2", "exponent must be in (1.5, 10.0]"),
    ("powerlaw:n=100,avg_degree=500", "avg_degree must be in"),
    ("smallworld:n=100,k=5,p=0.1", "k must be even"),
    ("smallworld:n=10,k=10,p=0.1", "k must be even and < n"),
    ("smallworld:n=100,k=4,p=1.5", "p must be in [0.0, 1.0]"),
    ("cliques:n_cliques=0,clique_size=5", "n_cliques must be >= 1"),
    ("cliques:n_cliques=3,clique_size=1", "clique_size must be >= 2"),
    ("bipartite:n_left=0,n_right=10", "n_left must be >= 1"),
    ("bipartite:n_left=5,n_right=10,extra=1", "unknown parameter 'extra'"),
    ("rmat:scale=8,sinks=0.3", "add directed=true"),
    ("powerlaw:n=100,avg_degree=5,reciprocity=0.5", "add directed=true"),
    ("powerlaw:n=100,avg_degree=5,directed=true,sinks=0.6,sources=0.5", "sinks + sources must be < 1"),
    ("rmat:scale=8,directed=true,reciprocity=1.5", "reciprocity must be in [0.0, 1.0]"),
    ("bowtie:n=100,core=0.5,in_share=0.4,out_share=0.4", "core + in_share + out_share must be <= 1"),
    ("bowtie:n=100,core=0", "core must be in (0.0, 1.0]"),
    ("bowtie:n=4", "n must be between 8"),
])
def test_errors_name_the_parameter(spec, fragment):
    with pytest.raises(ValueError) as info:
        generate(spec, xp=np)
    assert fragment in str(info.value)


def test_past_int32_edges_only_memory_refuses(monkeypatch):
    """More than 2**31 - 1 stored edges is no longer an error of its own (the CSR gets int64 row
    offsets): what does not fit in host memory is refused before anything is drawn, in well under a
    second, naming the spec and the bytes needed vs available; the direct call checks it too."""
    import time

    from autotune.errors import HostMemoryError

    monkeypatch.setenv("AUTOTUNE_HOST_MEMORY", str(16 * 2 ** 30))
    t0 = time.perf_counter()
    with pytest.raises(HostMemoryError) as info:
        generate("geometric:n=2000000000,radius=0.5", xp=np)
    assert time.perf_counter() - t0 < 1.0
    assert str(info.value).startswith("geometric:n=2000000000,radius=0.5: needs ")
    assert "17,179,869,184 bytes (16.00 GiB) are available" in str(info.value)
    t0 = time.perf_counter()
    with pytest.raises(HostMemoryError, match=r"^geometric:n=2000000000,radius=0\.5: needs [\d,]+ bytes .* stored edges "
                       r"drawn on the host"):
        geometric(2_000_000_000, 0.5, xp=np)
    with pytest.raises(HostMemoryError, match=r"^rmat:scale=28,edge_factor=16: needs 34,359,738,368 bytes"):
        rmat(28, 16, xp=np)  # 2**33 stored edges: past int32, and 32 GiB of endpoints
    assert time.perf_counter() - t0 < 1.0


# --------------------------------------------------------------------------- directed corpus graphs
def test_directed_shape_defaults_leave_the_graphs_unchanged():
    """sinks/sources/reciprocity default to 0 and then draw nothing: the specs of earlier releases
    (and the logged fingerprints) give the same graphs as before these parameters existed."""
    before = {  # fingerprints computed with the release before these parameters
        "rmat:scale=10,edge_factor=8,a=0.6,directed=true":
            "sha256:9d28d224758d24eaeb01febaed420aafcea048911f46adc2af6bfe3d4722377c",
        "powerlaw:n=3000,avg_degree=6,exponent=2.5,directed=true":
            "sha256:20c1742f9bc2aae2779f88a7119bbabff48b6f28848fa9d183fc72ba3b453b33",
        "rmat:scale=10,edge_factor=8,a=0.6": "sha256:33378f3ceb738c247b4cb78a75fdef0b96752607bb08724df6dc1012a142b97e",
        "powerlaw:n=3000,avg_degree=6,exponent=2.2":
            "sha256:d80a01555d53577020c94c07ae83927c968f229bdcdc7b03ca8b0ab50bd2f48a",
    }
    for spec, fp in before.items():
        assert generate(spec, xp=np).fingerprint == fp, spec
        assert generate(spec + ",sinks=0,reciprocity=0", xp=np).spec == spec


def test_sinks_sources_and_reciprocity_shape_directed_graphs():
    n = 4000
    base = powerlaw(n, 4, 2.3, seed=2, directed=True, xp=np)
    sinky = powerlaw(n, 4, 2.3, seed=2, directed=True, sinks=0.5, xp=np)
    sourcy = powerlaw(n, 4, 2.3, seed=2, directed=True, sources=0.5, xp=np)
    recip = powerlaw(n, 4, 2.3, seed=2, directed=True, reciprocity=0.6, xp=np)
    fb, fs, fo, fr = (profile(g, xp=np) for g in (base, sinky, sourcy, recip))
    assert fs.sink_fraction >= 0.5 > fb.sink_fraction
    assert fo.in_zero_fraction >= 0.5 > fb.in_zero_fraction
    assert fb.reciprocity < 0.1 and fr.reciprocity == pytest.approx(0.6 / 1.6 * 2, abs=0.08)  # pairs: 1.2 m of 1.6 m
    # edges out of a sink are turned around; only those between two sinks (about a quarter) are lost
    assert 0.7 * base.n_edges < sinky.n_edges < base.n_edges
    r = rmat(11, 8, directed=True, sinks=0.2, sources=0.2, seed=4, xp=np)
    src, dst = _edges(r)
    out0 = np.bincount(src, minlength=r.n_vertices) == 0
    in0 = np.bincount(dst, minlength=r.n_vertices) == 0
    assert out0.mean() >= 0.2 and in0.mean() >= 0.2
    assert generate(r.spec, xp=np).fingerprint == r.fingerprint and "sinks=0.2,sources=0.2" in r.spec


def test_bowtie_structure():
    """Core strongly connected; IN reaches the core but is not reached from it; the core reaches OUT
    but not back; the disconnected part reaches nothing outside itself."""
    import scipy.sparse.csgraph as csg

    n = 4000
    g = bowtie(n, avg_degree=4, core=0.3, in_share=0.2, out_share=0.3, seed=5, xp=np)
    assert g.directed and g.spec == "bowtie:n=4000,avg_degree=4,out_share=0.3,seed=5"
    rank = np.random.default_rng(5).permutation(n)  # the generator's first draw: vertex -> rank
    n_core, n_in, n_out = 1200, 800, 1200
    core = np.flatnonzero(rank < n_core)
    ins = np.flatnonzero((rank >= n_core) & (rank < n_core + n_in))
    outs = np.flatnonzero((rank >= n_core + n_in) & (rank < n_core + n_in + n_out))
    disc = np.flatnonzero(rank >= n_core + n_in + n_out + (n - n_core - n_in - n_out) // 2)
    m = g.to_scipy()
    ncomp, labels = csg.connected_components(m, directed=True, connection="strong")
    assert len(set(labels[core].tolist())) == 1  # one strongly connected core
    core_label = labels[core[0]]
    assert np.count_nonzero(labels == core_label) == core.size  # and nothing else in it
    from_core = np.asarray(csg.breadth_first_order(m, int(core[0]), directed=True, return_predecessors=False))
    reached = np.zeros(n, dtype=bool)
    reached[from_core] = True
    assert reached[outs].all() and not reached[ins].any() and not reached[disc].any()
    one_in = np.asarray(csg.breadth_first_order(m, int(ins[0]), directed=True, return_predecessors=False))
    assert np.isin(core, one_in).all()
    f = profile(g, xp=np)
    assert f.sink_fraction > 0.15 and f.reciprocity < 0.3 and f.reach_mean < 0.8
    assert generate(g.spec, xp=np).fingerprint == g.fingerprint
