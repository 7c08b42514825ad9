"""Multi-GPU BFS (autotune.distributed): partition, communicators, the level loop (on the host with
NumPy, several ranks as threads), argument checks; on a GPU one rank and, with two GPUs, two ranks
(NCCL) exact against the CPU reference."""
from __future__ import annotations

import threading

import numpy as np
import pytest

import autotune
from autotune import distributed as dist_mod
from autotune._csr import host_transpose
from autotune.distributed import LocalComm, RankBFS, bfs_multi_gpu, partition_ranges
from autotune.errors import InvalidArgumentError, VertexError
from autotune.reference import bfs_reference, validate_bfs

from .conftest import csr_graph


def _zoo():
    """name -> (graph, sources): generated graphs, isolated vertices, a source cut off from the rest."""
    z = {
        "kron10": (autotune.load_graph("kron:scale=10,edge_factor=8"), None),
        "grid": (autotune.load_graph("grid:rows=40,cols=40,drop=0.1"), None),
        "kron10_directed": (autotune.load_graph("kron:scale=10,edge_factor=8,directed=true"), None),
        "uniform_directed": (autotune.load_graph("uniform:n=3000,avg_degree=2,directed=true"), None),
    }
    # two components, isolated vertices 6..9, and vertex 10 with out-edges only
    iso = csr_graph(14, [(0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (10, 11), (11, 12), (12, 13)], directed=True)
    z["isolated"] = (iso, [0, 4, 7, 10, 13])
    out = {}
    for name, (g, sources) in z.items():
        if sources is None:
            deg = g.out_degrees(np)
            sources = [int(np.argmax(deg)), int(np.flatnonzero(deg == 0)[0]) if (deg == 0).any() else 0, 1]
        out[name] = (g, sources)
    return out


ZOO = _zoo()


def _check(g, s, dist, pred):
    ref, _ = bfs_reference(g, s)
    np.testing.assert_array_equal(dist, ref)
    validate_bfs(g, s, dist, pred, reference_distances=ref)
    # predecessor of v is an in-neighbour at distance d - 1 (validate_bfs checks it too; spelled out)
    ro, ci = g.host()
    for v in np.flatnonzero(dist > 0)[:200]:
        u = pred[v]
        assert v in ci[ro[u]:ro[u + 1]] and dist[u] == dist[v] - 1


# --------------------------------------------------------------------------- partition
def _random_offsets(n, seed, hub=False):
    rng = np.random.default_rng(seed)
    deg = rng.integers(0, 20, n)
    if hub:
        deg[rng.integers(0, n)] = 10_000
    ro = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(deg, out=ro[1:])
    return ro


@pytest.mark.parametrize("n,k,seed,hub", [(1, 1, 0, False), (10, 3, 1, False), (100, 7, 2, True), (1000, 8, 3, False),
                                          (1000, 8, 4, True), (5, 5, 5, True), (64, 64, 6, False)])
@pytest.mark.parametrize("with_in", [False, True])
def test_partition_ranges_balanced(n, k, seed, hub, with_in):
    ro = _random_offsets(n, seed, hub)
    io = _random_offsets(n, seed + 100) if with_in else None
    b = partition_ranges(ro.astype(np.int32), k, io)
    assert b.dtype == np.int64 and b.shape == (k + 1,)
    assert b[0] == 0 and b[-1] == n and np.all(np.diff(b) >= 1)
    w = np.diff(ro) + (np.diff(io) if with_in else 0)
    parts = np.add.reduceat(w, b[:-1]) if n else np.zeros(0)
    assert parts.sum() == w.sum()
    assert parts.max() <= w.sum() // k + 1 + w.max()


def test_partition_ranges_edge_cases():
    assert partition_ranges(np.array([0, 3, 3, 9]), 1).tolist() == [0, 3]
    assert partition_ranges(np.array([0, 3, 3, 9]), 3).tolist() == [0, 1, 2, 3]
    assert partition_ranges(np.zeros(11, dtype=np.int32), 4).tolist() == [0, 1, 2, 3, 10]  # no edges
    # one hub holds all edges: it gets a range of its own, the others still get a vertex each
    ro = np.array([0, 0, 100, 100, 100, 100])
    b = partition_ranges(ro, 3)
    assert b[0] == 0 and b[-1] == 5 and np.all(np.diff(b) >= 1)
    # uniform degrees: equal ranges
    assert partition_ranges(np.arange(0, 101) * 4, 4).tolist() == [0, 25, 50, 75, 100]


@pytest.mark.parametrize("k", [0, -1, 4, 2.0, True, None])
def test_partition_ranges_refuses_bad_rank_counts(k):
    with pytest.raises(InvalidArgumentError):
        partition_ranges(np.array([0, 1, 2, 3]), k)


def test_partition_ranges_refuses_mismatched_in_offsets():
    with pytest.raises(InvalidArgumentError, match="in_offsets"):
        partition_ranges(np.array([0, 1, 2, 3]), 2, np.array([0, 1]))


def test_slices_rebuild_the_graph():
    g, _ = ZOO["kron10_directed"]
    ro, ci = g.host()
    b = partition_ranges(ro, 3)
    parts = [dist_mod._slice_csr(ro, ci, int(b[r]), int(b[r + 1]), eid64=r == 1) for r in range(3)]
    assert parts[0][0].dtype == np.int32 and parts[1][0].dtype == np.int64
    assert all(p[0][0] == 0 and p[0][-1] == p[1].shape[0] and p[1].dtype == np.int32 for p in parts)
    np.testing.assert_array_equal(np.concatenate([p[1] for p in parts]), ci)
    np.testing.assert_array_equal(np.concatenate([np.diff(p[0]) for p in parts]), np.diff(ro))


# --------------------------------------------------------------------------- the level loop on the host
class _ThreadComm:
    """Several ranks as threads of one process (host arrays): the semantics of the NCCL collectives
    :class:`autotune.distributed.NcclComm` issues (all-reduce, grouped broadcasts, send/recv)."""

    def __init__(self, size):
        self.size = size
        self.posted = [None] * size
        self.barrier = threading.Barrier(size, timeout=60)
        self.calls = []

    def _share(self, rank, value):
        self.posted[rank] = value
        self.barrier.wait()
        everyone = list(self.posted)
        self.barrier.wait()
        return everyone

    def rank_view(self, rank):
        comm = self

        class View:
            def __init__(self):
                self.rank, self.size = rank, comm.size

            def allreduce_sum(self, sendbuf, recvbuf):
                assert sendbuf.dtype == np.int64 and recvbuf.dtype == np.int64
                recvbuf[...] = np.sum(comm._share(rank, sendbuf.copy()), axis=0)

            def allgatherv(self, buf, displs, counts):
                parts = comm._share(rank, buf.copy())
                for r in range(comm.size):
                    d, c = int(displs[r]), int(counts[r])
                    buf[d:d + c] = parts[r][d:d + c]
                if rank == 0:
                    comm.calls.append("allgatherv")

            def alltoallv(self, sendbuf, send_displs, send_counts, recvbuf, recv_displs, recv_counts):
                assert sendbuf.dtype == recvbuf.dtype
                posted = comm._share(rank, (sendbuf.copy(), list(send_displs), list(send_counts)))
                for p in range(comm.size):
                    buf, displs, counts = posted[p]
                    c = int(counts[rank])
                    assert c == int(recv_counts[p])  # what p sends is what this rank expects from p
                    recvbuf[int(recv_displs[p]):int(recv_displs[p]) + c] = buf[int(displs[rank]):int(displs[rank]) + c]
                if rank == 0:
                    comm.calls.append("alltoallv")

            def close(self):
                pass

        return View()


def _host_ranks(g, s, k, partition="out_in", offsets=None, **knobs):
    ranges, slices = dist_mod.rank_inputs(g, k, partition=partition, offsets=offsets)
    comm = _ThreadComm(k)
    out = [None] * k
    errors = []

    def body(r):
        try:
            sro, sci, sio, sii, _ = slices[r]
            rb = RankBFS(sro, sci, int(ranges[r]), int(ranges[r + 1]), g.n_vertices, comm.rank_view(r),
                         ranges=ranges, n_edges=g.n_edges, in_offsets=None if sio is sro else sio,
                         in_indices=None if sii is sci else sii, xp=np, **knobs)
            levels, _ = rb.run(s)
            out[r] = (*rb.result(), levels, list(rb.directions))
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)
            comm.barrier.abort()

    threads = [threading.Thread(target=body, args=(r,)) for r in range(k)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not errors, errors
    assert len({o[2] for o in out}) == 1  # every rank stops at the same level
    assert all(o[3] == out[0][3] for o in out)  # and takes the same directions
    _host_ranks.last = dict(directions=out[0][3], calls=comm.calls, ranges=ranges)
    return np.concatenate([o[0] for o in out]), np.concatenate([o[1] for o in out]), out[0][2]


_KNOBS = [dict(), dict(direction="push"), dict(exchange="queue"), dict(exchange="bitmap", alpha=4, beta=48),
          dict(direction="push", exchange="bitmap", partition="out"), dict(alpha=1e9)]


@pytest.mark.parametrize("k", [1, 2, 3, 5])
@pytest.mark.parametrize("name", sorted(ZOO))
def test_level_loop_exact_on_host(name, k):
    g, sources = ZOO[name]
    tree = None
    for knobs in _KNOBS:
        for s in sources:
            d, p, levels = _host_ranks(g, s, k, **knobs)
            _check(g, s, d, p)
            assert levels == d.max() + 1
            if s == sources[0]:
                if tree is None:
                    tree = p
                # the largest-id parent: the same tree for any number of ranks and any knobs
                np.testing.assert_array_equal(p, tree)


def test_host_levels_take_both_directions_and_both_exchanges():
    """The knobs do what they say: a pull level on kron, queue and bitmap exchanges between ranks."""
    g, sources = ZOO["kron10"]
    s = sources[0]
    _host_ranks(g, s, 3)
    assert "pull" in _host_ranks.last["directions"] and _host_ranks.last["directions"][0] == "push"
    _host_ranks(g, s, 3, direction="push")
    assert set(_host_ranks.last["directions"]) == {"push"}
    assert _host_ranks.last["calls"].count("alltoallv") >= 1
    _host_ranks(g, s, 3, alpha=1e9)  # pulls from the first level on
    last = _host_ranks.last
    assert last["directions"][0] == "pull"
    # one exchange per push level (queue or bitmap words), none on pull levels
    assert last["calls"].count("alltoallv") == last["directions"].count("push")
    assert last["calls"].count("allgatherv") == len(last["directions"])
    # one rank and exchange='auto': nothing is sent; 'queue' sends to itself (the path NCCL takes too)
    _host_ranks(g, s, 1, direction="push")
    assert "alltoallv" not in _host_ranks.last["calls"]
    _host_ranks(g, s, 1, direction="push", exchange="queue")
    # queue: the count matrix is all-reduced, then ids are sent: one alltoallv per push level
    assert _host_ranks.last["calls"].count("alltoallv") == len(_host_ranks.last["directions"])


def test_rank_inputs_slices_rebuild_both_directions():
    g, _ = ZOO["kron10_directed"]
    ro, ci = g.host()
    ranges, slices = dist_mod.rank_inputs(g, 3, offsets=None)
    assert np.all(ranges[1:-1] % 32 == 0)
    np.testing.assert_array_equal(np.concatenate([sl[1] for sl in slices]), ci)
    io, ii, _ = host_transpose(ro, ci)
    np.testing.assert_array_equal(np.concatenate([sl[3] for sl in slices]), ii)
    for lo, hi, sl in zip(ranges[:-1], ranges[1:], slices):  # in-lists ascending, sources of edges into v
        sio, sii = sl[2], sl[3]
        for v in range(lo, hi, 7):
            lst = sii[sio[v - lo]:sio[v - lo + 1]]
            assert np.all(np.diff(lst) >= 0) and all(v in ci[ro[u]:ro[u + 1]] for u in lst[:5])
    # an undirected graph's in-edges are its out-edges (the same arrays)
    gu, _ = ZOO["kron10"]
    _, sl = dist_mod.rank_inputs(gu, 2)
    assert sl[0][2] is sl[0][0] and sl[0][3] is sl[0][1]
    # 'out_in' weighs the in-edges: on a graph whose in-edges sit on few vertices the ranges differ
    star = csr_graph(100, [(i, 0) for i in range(1, 100)], directed=True)
    r_out, _ = dist_mod.rank_inputs(star, 2, partition="out")
    r_in, _ = dist_mod.rank_inputs(star, 2, partition="out_in")
    assert r_out.tolist() != r_in.tolist()
    with pytest.raises(InvalidArgumentError, match="partition"):
        dist_mod.rank_inputs(gu, 2, partition="hash")


def test_partition_ranges_aligned():
    ro = _random_offsets(1000, 7)
    b = partition_ranges(ro, 5, align=32)
    assert b[0] == 0 and b[-1] == 1000 and np.all(b[1:-1] % 32 == 0) and np.all(np.diff(b) >= 0)
    w = np.diff(ro)
    parts = np.add.reduceat(w, b[:-1])
    assert parts.max() <= w.sum() // 5 + 1 + 32 * w.max()
    # fewer vertices than 32 per rank: some ranges are empty, inner boundaries stay aligned or at n
    b = partition_ranges(np.arange(15) * 2, 3, align=32)
    assert b.tolist() in ([0, 0, 14, 14], [0, 14, 14, 14], [0, 0, 0, 14])
    with pytest.raises(InvalidArgumentError, match="align"):
        partition_ranges(ro, 2, align=0)


def test_local_comm_collectives():
    c = LocalComm()
    a, out = np.array([3, -1, 7], dtype=np.int64), np.zeros(3, dtype=np.int64)
    c.allreduce_sum(a, out)
    assert out.tolist() == [3, -1, 7] and c.rank == 0 and c.size == 1
    buf = np.arange(6, dtype=np.uint32)
    c.allgatherv(buf, [0], [6])
    assert buf.tolist() == list(range(6))
    recv = np.zeros(4, dtype=np.uint32)
    c.alltoallv(buf, [2], [3], recv, [1], [3])
    assert recv.tolist() == [0, 2, 3, 4]
    c.close()


def _one_rank(ro, ci, lo, hi, n, **kw):
    ranges = kw.pop("ranges", [0, n])
    return RankBFS(ro, ci, lo, hi, n, LocalComm(), ranges=ranges, n_edges=int(ci.shape[0]), xp=np, **kw)


def test_rank_bfs_refuses_bad_slices():
    ro = np.array([0, 1, 2], dtype=np.int32)
    ci = np.array([1, 0], dtype=np.int32)
    with pytest.raises(InvalidArgumentError, match="owned range"):
        _one_rank(ro, ci, 3, 2, 4)
    with pytest.raises(InvalidArgumentError, match="ranges"):
        _one_rank(ro, ci, 0, 2, 4)  # ranges [0, 4] do not give [0, 2) to rank 0
    with pytest.raises(InvalidArgumentError, match="ranges"):
        _one_rank(ro, ci, 0, 2, 2, ranges=[0, 1, 2])  # three boundaries for one rank
    with pytest.raises(InvalidArgumentError, match="shape"):
        _one_rank(ro, ci, 0, 3, 3)
    with pytest.raises(InvalidArgumentError, match="run from 0"):
        _one_rank(ro + 1, ci, 0, 2, 2)
    with pytest.raises(InvalidArgumentError, match="in_offsets"):
        _one_rank(ro, ci, 0, 2, 2, in_offsets=np.array([0, 1], dtype=np.int32), in_indices=ci[:1])
    for bad in (dict(direction="pull"), dict(alpha=0), dict(beta=-1), dict(alpha=True), dict(exchange="mpi")):
        with pytest.raises(InvalidArgumentError, match=next(iter(bad))):
            _one_rank(ro, ci, 0, 2, 2, **bad)
    rb = _one_rank(ro, ci, 0, 2, 2)
    with pytest.raises(VertexError):
        rb.run(2)
    assert rb.run(0)[0] == 2 and rb.result()[0].tolist() == [0, 1]


# --------------------------------------------------------------------------- argument checks (no GPU needed)
@pytest.mark.parametrize("source,exc", [(-1, VertexError), (10 ** 6, VertexError), (1.0, TypeError),
                                        (True, TypeError)])
def test_bad_source(source, exc):
    g, _ = ZOO["grid"]
    with pytest.raises(exc):
        bfs_multi_gpu(g, source, (0,))


@pytest.mark.parametrize("devices,match", [((), "empty"), ((0, 0), "more than once"), ((0, -1), "not a CUDA"),
                                           (("0",), "not a CUDA"), (3, "sequence")])
def test_bad_devices(devices, match):
    g, _ = ZOO["grid"]
    with pytest.raises(InvalidArgumentError, match=match):
        bfs_multi_gpu(g, 0, devices)


def test_bad_offsets():
    g, _ = ZOO["grid"]
    with pytest.raises(InvalidArgumentError, match="offsets"):
        bfs_multi_gpu(g, 0, (0,), offsets="int16")


@pytest.mark.parametrize("knob", [dict(direction="pull"), dict(alpha=0), dict(beta="x"), dict(exchange="mpi"),
                                  dict(partition="hash")])
def test_bad_knobs_refused_before_any_rank(knob):
    g, _ = ZOO["grid"]
    with pytest.raises(InvalidArgumentError, match=next(iter(knob))):
        bfs_multi_gpu(g, 0, (0, 1), **knob)


def test_without_gpu_says_so():
    from autotune._backend import gpu_available
    from autotune.errors import GPUUnavailableError

    if gpu_available():
        pytest.skip("a GPU is usable here")
    g, _ = ZOO["grid"]
    with pytest.raises(GPUUnavailableError, match="bfs_multi_gpu"):
        bfs_multi_gpu(g, 0, (0, 1))


def test_cli_usage_errors(capsys):
    assert dist_mod.main(["grid:rows=4,cols=4", "--devices", "0,0"]) == 2
    assert "more than once" in capsys.readouterr().err
    with pytest.raises(SystemExit) as info:
        dist_mod.main(["grid:rows=4,cols=4", "--devices", "a,b"])
    assert info.value.code == 2


def test_rank_error_pickles():
    import pickle

    e = pickle.loads(pickle.dumps(dist_mod.RankError("rank 1 failed", 1, 3)))
    assert e.rank == 1 and e.device == 3 and str(e) == "rank 1 failed"


# --------------------------------------------------------------------------- GPU
def _n_gpus():
    import cupy

    return cupy.cuda.runtime.getDeviceCount()


@pytest.mark.gpu
@pytest.mark.parametrize("offsets", [None, "int64"])
@pytest.mark.parametrize("name", sorted(ZOO))
def test_one_rank_exact(name, offsets):
    g, sources = ZOO[name]
    for knobs in _KNOBS:
        for s in sources:
            d, p, info = bfs_multi_gpu(g, s, (0,), offsets=offsets, **knobs)
            _check(g, s, d, p)
            assert info["ranks"] == 1 and info["levels"] == d.max() + 1 and info["elapsed_ms"] > 0
            assert info["eid64"] == [offsets == "int64"] and len(info["directions"]) == info["levels"]
            # the GPU kernels take the host loop's directions and build its tree
            dh, ph, _ = _host_ranks(g, s, 1, offsets=offsets, **knobs)
            assert _host_ranks.last["directions"] == info["directions"]
            np.testing.assert_array_equal(p, ph)


@pytest.mark.gpu
@pytest.mark.parametrize("exchange", ["queue", "bitmap"])
def test_one_rank_nccl_communicator(exchange):
    """A one-rank NCCL group runs the same calls as several ranks (all-reduce, grouped broadcasts,
    grouped send/recv to itself): exact on the zoo, push levels exchanging with itself."""
    import cupy
    from cupy.cuda import nccl

    comm = dist_mod.NcclComm(1, nccl.get_unique_id(), 0)
    try:
        for name in ("kron10_directed", "grid", "isolated"):
            g, sources = ZOO[name]
            ranges, slices = dist_mod.rank_inputs(g, 1)
            sro, sci, sio, sii, _ = slices[0]
            for direction in ("push", "push_pull"):
                rb = RankBFS(sro, sci, 0, g.n_vertices, g.n_vertices, comm, ranges=ranges, n_edges=g.n_edges,
                             in_offsets=None if sio is sro else sio, in_indices=None if sii is sci else sii,
                             direction=direction, exchange=exchange)
                for s in sources:
                    levels, ms = rb.run(s)
                    d, p = rb.result()
                    _check(g, s, d, p)
                    assert levels == d.max() + 1 and ms > 0
        # the collectives themselves
        a = cupy.arange(3, dtype=cupy.int64)
        out = cupy.zeros(3, dtype=cupy.int64)
        comm.allreduce_sum(a, out)
        assert out.tolist() == [0, 1, 2]
        with pytest.raises(InvalidArgumentError, match="contiguous"):
            comm.allreduce_sum(cupy.zeros(3, dtype=cupy.float32), cupy.zeros(3, dtype=cupy.float32))
    finally:
        comm.close()
        comm.close()  # idempotent


@pytest.mark.gpu
def test_two_ranks_exact():
    if _n_gpus() < 2:
        pytest.skip(f"needs 2 GPUs, this host has {_n_gpus()}")
    for name in sorted(ZOO):
        g, sources = ZOO[name]
        for s in sources:
            d, p, info = bfs_multi_gpu(g, s, (0, 1))
            _check(g, s, d, p)
            assert info["ranks"] == 2 and len(info["ranges"]) == 2
            d1, p1, _ = bfs_multi_gpu(g, s, (0,))
            np.testing.assert_array_equal(p, p1)  # largest-id parents: the same tree as one rank


@pytest.mark.gpu
def test_device_that_does_not_exist():
    with pytest.raises(InvalidArgumentError, match="do not exist"):
        bfs_multi_gpu(ZOO["grid"][0], 0, (0, _n_gpus()))


@pytest.mark.gpu
def test_failing_rank_is_reported_not_hung(monkeypatch):
    if _n_gpus() < 2:
        pytest.skip(f"needs 2 GPUs, this host has {_n_gpus()}")
    # a slice that RankBFS refuses in every worker: the error comes back naming a rank
    real = dist_mod._slice_csr
    monkeypatch.setattr(dist_mod, "_slice_csr", lambda *a, **k: (real(*a, **k)[0] + 1, real(*a, **k)[1]))
    with pytest.raises(dist_mod.RankError, match=r"rank \d \(device \d\) failed: InvalidArgumentError"):
        bfs_multi_gpu(ZOO["grid"][0], 0, (0, 1), timeout_s=120)


@pytest.mark.gpu
def test_command_line_two_ranks(capsys):
    if _n_gpus() < 2:
        pytest.skip(f"needs 2 GPUs, this host has {_n_gpus()}")
    assert dist_mod.main(["kron:scale=12,edge_factor=8", "--devices", "0,1", "--validate"]) == 0
    out = capsys.readouterr().out
    assert "GTEPS=" in out and out.strip().endswith("valid")


@pytest.mark.gpu
def test_many_sources_set_up_once_equal_single_calls():
    """bfs_multi_gpu_sources: the ranks set up once, every source's result as bfs_multi_gpu gives it."""
    devs = (0, 1) if _n_gpus() >= 2 else (0,)
    g, sources = ZOO["grid"]
    many = dist_mod.bfs_multi_gpu_sources(g, list(sources) * 2, devs)
    assert len(many) == 2 * len(sources)
    for (d, p, info), s in zip(many, list(sources) * 2):
        d1, p1, _ = bfs_multi_gpu(g, s, devs)
        np.testing.assert_array_equal(d, d1)
        np.testing.assert_array_equal(p, p1)
        assert info["ranks"] == len(devs) and info["elapsed_ms"] > 0
    with pytest.raises(InvalidArgumentError, match="no sources"):
        dist_mod.bfs_multi_gpu_sources(g, [], devs)


@pytest.mark.gpu
def test_run_with_devices_gives_a_validated_bfs_result():
    import autotune as at

    devs = (0, 1) if _n_gpus() >= 2 else (0,)
    g, sources = ZOO["grid"]
    res = at.run(g, source=int(sources[0]), devices=list(devs), validate=True)
    ref = bfs_multi_gpu(g, int(sources[0]), devs)
    np.testing.assert_array_equal(res.distances, ref[0])
    assert res.extra["devices"] == list(devs) and res.depth == ref[2]["depth"] and res.elapsed_ms > 0
    with pytest.raises(ValueError, match="BFS only"):
        at.run(g, at.TraversalConfig(algorithm="sssp"), devices=[0])
    # the config's direction knobs carry over
    res = at.run(g, at.TraversalConfig(direction="push"), source=int(sources[0]), devices=list(devs))
    assert set(res.extra["directions"]) == {"push"}
    np.testing.assert_array_equal(res.distances, ref[0])


def test_cli_run_devices_flag_is_checked(capsys):
    from autotune import cli

    for bad in ("0,0", "a,1", "-1"):
        with pytest.raises(SystemExit) as info:
            cli.main(["run", "kron:scale=8", "--devices", bad])
        assert info.value.code == 2
        assert "device ids" in capsys.readouterr().err
    assert cli.build_parser().parse_args(["run", "g.txt", "--devices", "0,1"]).devices == (0, 1)


def test_knobs_from_config():
    from autotune import TraversalConfig
    from autotune.errors import ConfigError

    assert dist_mod.knobs_from_config(None) == dict(direction="push_pull", alpha=15, beta=18)
    assert dist_mod.knobs_from_config(TraversalConfig(direction="push"))["direction"] == "push"
    cfg = TraversalConfig(direction="push_pull", alpha=4, beta=48)
    assert dist_mod.knobs_from_config(cfg) == dict(direction="push_pull", alpha=4, beta=48)
    with pytest.raises(ConfigError, match="hub_ratio"):
        dist_mod.knobs_from_config(TraversalConfig(direction="push_pull", switch_rule="hub_ratio"))
    with pytest.raises(ConfigError, match="pull_gate='beta'"):  # the ranks switch by Beamer's rule alone
        dist_mod.knobs_from_config(TraversalConfig(direction="push_pull", pull_gate="beta"))
    with pytest.raises(ConfigError, match="BFS only"):
        dist_mod.knobs_from_config(TraversalConfig(algorithm="sssp"))


@pytest.mark.gpu
def test_cli_run_devices(capsys):
    import json as json_mod

    from autotune import cli

    devs = "0,1" if _n_gpus() >= 2 else "0"
    assert cli.main(["run", "kron:scale=12,edge_factor=8", "--devices", devs, "--sources", "4", "--validate",
                     "--json"]) == 0
    (entry,) = json_mod.loads(capsys.readouterr().out)
    first = entry["measurements"][0]
    assert first["name"].startswith("multi-GPU BFS") and first["valid"] and len(first["times_ms"]) == 4
    assert "push_pull(a15,b18), exchange=auto, partition=out_in" in first["name"]
    assert cli.main(["run", "kron:scale=12,edge_factor=8", "--devices", devs, "--sources", "2", "--validate",
                     "--json", "--direction", "push", "--exchange", "queue", "--partition", "out"]) == 0
    first = json_mod.loads(capsys.readouterr().out)[0]["measurements"][0]
    assert first["valid"] and "push, exchange=queue, partition=out" in first["name"]
    assert cli.main(["run", "kron:scale=8", "--exchange", "queue"]) == 2
    assert "only with --devices" in capsys.readouterr().err
    assert entry["measurements"][1]["name"].startswith("scipy")
