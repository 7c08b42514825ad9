"""CPU tests of the batched BFS's host side: its knobs, source validation, the closeness formula
(against NetworkX, from the CPU reference BFS) and the locality order."""
from __future__ import annotations

import numpy as np
import pytest

from autotune.batched import (BATCH_WIDTHS, BatchConfig, _as_sources, closeness_from_reductions, default_batch_config,
                              locality_order)
from autotune.errors import ConfigError, VertexError
from autotune.graph import from_edges
from autotune.reference import bfs_reference


def _graph(directed):
    rng = np.random.default_rng(4)
    a, b = rng.integers(0, 60, 150), rng.integers(0, 60, 150)
    return from_edges(a, b, 70, directed=directed, name="g", xp=np)  # 60..69 isolated


@pytest.mark.parametrize("field, bad", [("width", 100), ("width", 4096), ("direction", "pull"), ("alpha", 3.0),
                                        ("block_size", 1024)])
def test_batch_config_rejects_bad_values(field, bad):
    with pytest.raises(ConfigError, match=f"BatchConfig.{field}: invalid value"):
        BatchConfig(**{field: bad})


def test_batch_config_ids_and_words():
    ids = {BatchConfig(width=w).config_id for w in BATCH_WIDTHS}
    assert len(ids) == len(BATCH_WIDTHS)
    assert BatchConfig(width=1024).words == 16
    g = _graph(False)
    assert default_batch_config(g, 1).width == 64 and default_batch_config(g, 300).width == 512
    assert default_batch_config(g, 100_000).width == 512


@pytest.mark.parametrize("sources, msg", [([], "empty"), ([[1, 2], [3, 4]], "1-D"), ([0, 70], r"sources\[1\] = 70"),
                                          ([-2], r"sources\[0\] = -2"), (["a"], "integer"), ([0.5], "integer")])
def test_sources_validation(sources, msg):
    with pytest.raises(VertexError, match=msg):
        _as_sources(_graph(True), sources)


def test_sources_accepts_integer_like():
    assert _as_sources(_graph(True), np.array([1.0, 2.0])).tolist() == [1, 2]
    assert _as_sources(_graph(True), 5).tolist() == [5]


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("wf", [True, False])
def test_closeness_formula_matches_networkx(directed, wf):
    import networkx as nx

    g = _graph(directed)
    G = nx.DiGraph() if directed else nx.Graph()
    G.add_nodes_from(range(g.n_vertices))
    src = np.repeat(np.arange(g.n_vertices), np.diff(g.row_offsets))
    G.add_edges_from(zip(src.tolist(), g.column_indices.tolist()))
    rev = from_edges(g.column_indices, src, g.n_vertices, directed=True, name="rev", xp=np) if directed else g
    reached, sums = [], []
    for v in range(g.n_vertices):
        d = bfs_reference(rev, v)[0]
        reached.append(int((d >= 0).sum()))
        sums.append(int(d[d >= 0].sum()))
    got = closeness_from_reductions(g.n_vertices, reached, sums, wf)
    want = nx.closeness_centrality(G, wf_improved=wf)
    np.testing.assert_allclose(got, [want[v] for v in range(g.n_vertices)], rtol=1e-12)


def test_locality_order_is_a_permutation():
    g = _graph(True)
    order = locality_order(g)
    assert sorted(order.tolist()) == list(range(g.n_vertices))


def test_cli_batched_verbs_without_gpu_exit_2(capsys, monkeypatch):
    import autotune._backend as backend
    from autotune.cli import build_parser, main

    monkeypatch.setattr(backend, "gpu_available", lambda: False)
    assert main(["closeness", "kron:scale=6"]) == 2
    assert "needs an NVIDIA GPU" in capsys.readouterr().err
    assert main(["run", "kron:scale=6", "--sources", "10", "--batch"]) == 2
    args = build_parser().parse_args(["closeness", "g.mtx", "--sources", "5", "--width", "1024", "--out", "x.csv",
                                      "--no-wf-improved"])
    assert (args.sources, args.width, args.out, args.no_wf_improved) == (5, 1024, "x.csv", True)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["closeness", "g.mtx", "--width", "100"])


def test_pull_work_items_cover_every_in_edge_once():
    """The pull level's work items (kernels/msbfs.cu: a vertex's own item scans its first 64 in-edges,
    each listed chunk k the next 64): every in-edge of every vertex is in exactly one item."""
    from autotune.batched import MS_PULL_CHUNK, BatchBFSEngine

    rng = np.random.default_rng(4)
    indeg = np.r_[rng.integers(0, 3, 50), [64, 65, 128, 129, 1000, 0, 7000]]
    rng.shuffle(indeg)
    offsets = np.r_[0, np.cumsum(indeg)].astype(np.int32)
    items = BatchBFSEngine._pull_chunks(offsets, indeg.size, xp=np)
    assert items.dtype == np.uint64
    owner = (items & np.uint64(0xFFFFFFFF)).astype(np.int64)
    k = (items >> np.uint64(32)).astype(np.int64)
    covered = np.zeros(int(offsets[-1]), dtype=np.int64)
    for w in range(indeg.size):  # the vertex's own item
        covered[offsets[w]:min(offsets[w + 1], offsets[w] + MS_PULL_CHUNK)] += 1
    for w, c in zip(owner, k):
        assert c >= 1
        lo = offsets[w] + c * MS_PULL_CHUNK
        assert lo < offsets[w + 1]
        covered[lo:min(offsets[w + 1], lo + MS_PULL_CHUNK)] += 1
    np.testing.assert_array_equal(covered, 1)
    assert BatchBFSEngine._pull_chunks(np.zeros(4, np.int32), 3, xp=np).size == 0


def test_state_bytes_counts_the_work_items():
    from autotune.batched import BatchBFSEngine, push_chunk_edges

    base = BatchBFSEngine.state_bytes(1000, 4)
    more = BatchBFSEngine.state_bytes(1000, 4, 10**6)
    assert more - base == 8 * (10**6 // push_chunk_edges(4) + 10**6 // 64)
