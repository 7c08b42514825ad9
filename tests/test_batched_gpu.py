"""GPU tests of the microsecond path and the batched BFS: CUDA-graph replay exact over many sources,
batched distances equal to single-source distances on the zoo for every batch knob, duplicate /
isolated / other-component sources, directed graphs, predecessors, closeness equal to NetworkX's,
outputs typed like the input, clear errors for bad sources, and an engine still usable after an
interrupted traversal."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from autotune.graph import from_edges
from autotune.reference import bfs_reference

from .test_engine_gpu import ZOO

pytestmark = pytest.mark.gpu

BATCH_CONFIGS = None


def _batch_configs():
    from autotune.batched import BATCH_WIDTHS, BatchConfig

    out = [BatchConfig(width=w, direction=d, block_size=b)
           for w, d, b in itertools.product(BATCH_WIDTHS, ("push", "push_pull"), (256, 512))]
    out.append(BatchConfig(width=128, direction="push_pull", alpha=8.0))
    return out


def _sources(g, sources, k=150, seed=0):
    rng = np.random.default_rng(seed)
    extra = rng.integers(0, g.n_vertices, size=k)
    return np.r_[np.asarray(sources), extra, np.asarray(sources)[:1]].astype(np.int64)  # a duplicate too


def _ref_matrix(g, src):
    return np.stack([bfs_reference(g, int(s))[0] for s in src])


@pytest.mark.parametrize("name", list(ZOO))
def test_batched_equals_single_source(name):
    from autotune.batched import BatchConfig, run_batch

    g, base = ZOO[name]
    src = _sources(g, base, k=70 if g.n_vertices > 50_000 else 150)
    ref = _ref_matrix(g, src)
    for cfg in _batch_configs():
        res = run_batch(g, src, cfg, predecessors=cfg.width == 64)
        d = np.asarray(res.distances).astype(np.int64)
        np.testing.assert_array_equal(d, ref, err_msg=f"{name} {cfg.config_id}")
        np.testing.assert_array_equal(res.reached, (ref >= 0).sum(axis=1))
        np.testing.assert_array_equal(res.distance_sums, np.where(ref >= 0, ref, 0).sum(axis=1))
        np.testing.assert_array_equal(res.eccentricity, ref.max(axis=1))
        depth = int(ref.max())
        assert res.distances.dtype == (np.int8 if depth <= 127 else np.int16)
        if res.predecessors is not None:
            p = np.asarray(res.predecessors)
            ro, ci = g.row_offsets, g.column_indices
            for i in range(0, len(src), 17):
                s = int(src[i])
                assert p[i, s] == s
                reached = np.flatnonzero(ref[i] > 0)
                assert np.all(ref[i][p[i, reached]] == ref[i][reached] - 1)
                for v in reached[:50]:  # the parent is an in-neighbour
                    u = p[i, v]
                    assert v in ci[ro[u]:ro[u + 1]]
                assert np.all(p[i, ref[i] < 0] == -1)


def test_batched_reductions_only_and_many_batches():
    from autotune.batched import BatchConfig, run_batch

    g, _ = ZOO["disconnected"]
    src = np.arange(g.n_vertices)  # every vertex, incl. the isolated ones: 7 batches of 64
    ref = _ref_matrix(g, src)
    res = run_batch(g, src, BatchConfig(width=64), distances=False)
    assert res.distances is None
    np.testing.assert_array_equal(res.reached, (ref >= 0).sum(axis=1))
    np.testing.assert_array_equal(res.distance_sums, np.where(ref >= 0, ref, 0).sum(axis=1))
    assert np.all(res.reached[405:] == 1) and np.all(res.eccentricity[405:] == 0)


def test_deep_graph_int16_and_int32_distances():
    from autotune.batched import BatchConfig, run_batch

    n = 40_000  # a path deeper than int16 holds
    g = from_edges(np.arange(n - 1), np.arange(1, n), n, directed=True, name="path40k", xp=np)
    res = run_batch(g, [0, 5, n - 1], BatchConfig(width=64))
    assert res.distances.dtype == np.int32
    d = np.asarray(res.distances)
    assert d[0, n - 1] == n - 1 and d[1, 4] == -1 and d[2, n - 1] == 0 and d[2, 0] == -1
    g2 = from_edges(np.arange(299), np.arange(1, 300), 300, directed=False, name="path300", xp=np)
    r2 = run_batch(g2, [0], BatchConfig(width=64))
    assert r2.distances.dtype == np.int16 and int(np.asarray(r2.distances)[0, 299]) == 299


def test_closeness_matches_networkx():
    import networkx as nx

    from autotune.batched import closeness_centrality

    for name in ("disconnected", "directed", "grid", "loops+dups"):
        g, _ = ZOO[name]
        ro, ci = g.row_offsets, g.column_indices
        G = nx.DiGraph() if g.directed else nx.Graph()
        G.add_nodes_from(range(g.n_vertices))
        src = np.repeat(np.arange(g.n_vertices), np.diff(ro))
        G.add_edges_from(zip(src.tolist(), ci.tolist()))
        for wf in (True, False):
            want = nx.closeness_centrality(G, wf_improved=wf)
            got = closeness_centrality(g, wf_improved=wf)
            np.testing.assert_allclose(got, [want[v] for v in range(g.n_vertices)], rtol=1e-12, atol=0)
        some = [3, 1, 3, 7]
        got = closeness_centrality(g, some)
        want = nx.closeness_centrality(G)
        np.testing.assert_allclose(got, [want[v] for v in some], rtol=1e-12)


def test_outputs_follow_the_input_array_module():
    import cupy

    from autotune.engine import run
    from autotune.graph import CSRGraph

    g, _ = ZOO["grid"]
    host_res = run(g, source=0)
    assert isinstance(host_res.distances, np.ndarray) and isinstance(host_res.predecessors, np.ndarray)
    ro, ci = g.device()
    dg = CSRGraph(ro, ci, directed=False, name="grid-dev")
    assert dg.on_device
    dev_res = run(dg, source=0)
    assert isinstance(dev_res.distances, cupy.ndarray)
    np.testing.assert_array_equal(dev_res.distances.get(), host_res.distances)
    b = run(dg, sources=[0, 1, 2])
    assert isinstance(b.distances, cupy.ndarray)
    bh = run(g, sources=[0, 1, 2])
    assert isinstance(bh.distances, np.ndarray)
    np.testing.assert_array_equal(b.distances.get(), bh.distances)


def test_results_survive_the_next_traversal():
    from autotune.engine import BFSEngine

    g, (s0, s1, _s2) = ZOO["disconnected"]
    eng = BFSEngine(g)
    r0 = eng.bfs(s0)
    r1 = eng.bfs(s1)
    np.testing.assert_array_equal(r0.distances, bfs_reference(g, s0)[0])
    np.testing.assert_array_equal(r1.distances, bfs_reference(g, s1)[0])


@pytest.mark.parametrize("small", [dict(small_frontier="single_block", frontier_limit=131072),
                                   dict(small_frontier="persistent", frontier_limit=131072),
                                   dict(small_frontier="none"), dict(small_frontier="single_block")])
def test_graph_replay_many_sources_exact(small):
    """Sources whose traversals need different numbers of launch rounds (the replayed graph is sized
    by earlier ones: continuation graphs and over-long graphs both happen)."""
    from autotune.config import TraversalConfig
    from autotune.engine import BFSEngine

    for name in ("grid", "directed", "kron13", "disconnected"):
        g, _ = ZOO[name]
        eng = BFSEngine(g, TraversalConfig(load_balance="binary_search", direction="push_pull", **small))
        rng = np.random.default_rng(1)
        for s in [0, *rng.integers(0, g.n_vertices, 12).tolist(), g.n_vertices - 1]:
            res = eng.bfs(int(s))
            np.testing.assert_array_equal(res.distances, bfs_reference(g, int(s))[0], err_msg=f"{name} {s} {small}")
        assert eng.use_graphs, eng.graph_error


def test_sssp_graph_replay_exact():
    from autotune.config import TraversalConfig
    from autotune.engine import SSSPEngine
    from autotune.reference import sssp_reference

    g, _ = ZOO["grid"]
    rng = np.random.default_rng(0)
    w = rng.integers(1, 256, g.n_edges).astype(np.int32)
    from autotune.graph import CSRGraph

    gw = CSRGraph(g.row_offsets, g.column_indices, directed=False, name="grid-w", weights=w)
    for method in ("bellman_ford", "delta_stepping", "near_far"):
        eng = SSSPEngine(gw, TraversalConfig(algorithm="sssp", sssp_method=method, load_balance="binary_search"))
        for s in (0, 1234, 3599, 17):
            res = eng.sssp(s)
            np.testing.assert_array_equal(res.distances, sssp_reference(gw, s)[0])


def test_bad_sources_are_clear_errors():
    from autotune.batched import run_batch
    from autotune.engine import run
    from autotune.errors import VertexError

    g, _ = ZOO["grid"]
    with pytest.raises(VertexError, match=r"sources\[2\] = 3600 is not a vertex"):
        run_batch(g, [0, 1, 3600])
    with pytest.raises(VertexError, match=r"sources\[0\] = -1"):
        run(g, sources=[-1])
    with pytest.raises(VertexError, match="empty"):
        run_batch(g, [])
    with pytest.raises(VertexError, match="is not a vertex"):
        run(g, source=-3)
    with pytest.raises(VertexError, match="is not a vertex"):
        run(g, source=g.n_vertices)


def test_batch_out_of_memory_is_the_projects_error():
    from autotune.batched import run_batch
    from autotune.errors import DeviceMemoryError

    g, _ = ZOO["kron17+hub"]
    with pytest.raises(DeviceMemoryError, match="bytes") as ei:
        run_batch(g, np.zeros(2_000_000, dtype=np.int64))  # 2e6 x 131k int16 = 524 GB
    assert ei.value.needed_bytes > ei.value.free_bytes


def test_engine_usable_after_interrupt(monkeypatch):
    """A KeyboardInterrupt while the host waits for a traversal leaves the engine usable."""
    from autotune.engine import BFSEngine

    g, (s0, *_rest) = ZOO["kron13"]
    eng = BFSEngine(g)
    eng.bfs(s0)
    calls = {"n": 0}
    real = type(eng.stream).synchronize

    def interrupted(self):
        calls["n"] += 1
        if calls["n"] == 1:
            raise KeyboardInterrupt
        return real(self)

    monkeypatch.setattr(type(eng.stream), "synchronize", interrupted)
    with pytest.raises(KeyboardInterrupt):
        eng.bfs(s0)
    monkeypatch.undo()
    for s in (s0, 1, 2):
        np.testing.assert_array_equal(eng.bfs(s).distances, bfs_reference(g, s)[0])


def test_tune_batch_returns_a_measured_config():
    from autotune.batched import BatchConfig, tune_batch

    g, _ = ZOO["kron13"]
    best, rows = tune_batch(g, 256, configs=[BatchConfig(width=64), BatchConfig(width=256, direction="push")])
    assert best in (BatchConfig(width=64), BatchConfig(width=256, direction="push"))
    assert len(rows) == 2 and all(ms > 0 for _c, ms in rows)


def test_cli_batched_run_and_closeness(tmp_path, capsys):
    import json as _json

    from autotune.batched import closeness_centrality
    from autotune.cli import main
    from autotune.graph import load_graph

    assert main(["run", "kron:scale=10,edge_factor=8", "--sources", "300", "--batch", "--validate", "--json"]) == 0
    out = _json.loads(capsys.readouterr().out)
    assert out[0]["sources"] == 300 and out[0]["validated"]
    f = tmp_path / "c.npy"
    assert main(["closeness", "kron:scale=10,edge_factor=8", "--out", str(f)]) == 0
    want = closeness_centrality(load_graph("kron:scale=10,edge_factor=8"))
    np.testing.assert_allclose(np.load(f), want, rtol=1e-12)
    g = tmp_path / "c.csv"
    assert main(["closeness", "kron:scale=10,edge_factor=8", "--sources", "50", "--out", str(g), "--json"]) == 0
    assert len(g.read_text().splitlines()) == 51
