"""The multi-pass CSR build (``from_edges(..., passes=)``): bit-identical to the one-pass build, its
memory plan (host, device, a planned H200), the pass count chosen from the available memory, and
int64 row offsets on the build, load, profile and validation paths (CPU, NumPy)."""
from __future__ import annotations

import contextlib
import time
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autotune import _csr, memory
from autotune.errors import DeviceMemoryError, EmptyGraphError, HostMemoryError, InvalidArgumentError
from autotune.graph import CSRGraph, from_edges, load_graph
from autotune.memory import (
    MAX_BUILD_PASSES, build_passes, check_device_plan, csr_build_bytes, device_build_bytes, spec_device_bytes,
)

GIB = 2 ** 30
H200 = 141 * 10 ** 9          # the planned H200 of tests/test_memory_plan.py
H200_FREE = 139 * GIB         # what a real one reports free


@contextlib.contextmanager
def knobs(chunk=None, bucket_bits=None, offsets_int32_max=None):
    """Set the build's chunk size, histogram bucket bits and int32-offset limit for one block."""
    saved = (memory.BUILD_CHUNK_EDGES, memory.BUILD_BUCKET_BITS, _csr._OFFSETS_INT32_MAX)
    try:
        if chunk is not None:
            memory.BUILD_CHUNK_EDGES = chunk
        if bucket_bits is not None:
            memory.BUILD_BUCKET_BITS = bucket_bits
        if offsets_int32_max is not None:
            _csr._OFFSETS_INT32_MAX = offsets_int32_max
        yield
    finally:
        memory.BUILD_CHUNK_EDGES, memory.BUILD_BUCKET_BITS, _csr._OFFSETS_INT32_MAX = saved


def assert_same(a, b):
    """Bit-identical graphs: arrays (dtype and values), weights, cleaning counts."""
    assert a.row_offsets.dtype == b.row_offsets.dtype
    np.testing.assert_array_equal(a.row_offsets, b.row_offsets)
    assert a.column_indices.dtype == b.column_indices.dtype == np.int32
    np.testing.assert_array_equal(a.column_indices, b.column_indices)
    assert (a.weights is None) == (b.weights is None)
    if a.weights is not None:
        assert a.weights.dtype == b.weights.dtype
        np.testing.assert_array_equal(a.weights, b.weights)
    for k in ("n_self_loops_removed", "n_duplicates_removed", "n_weight_conflicts", "directed"):
        assert getattr(a, k) == getattr(b, k), k
    assert a.fingerprint == b.fingerprint


def build_or_error(src, dst, n, **kw):
    try:
        return from_edges(src, dst, n, xp=np, **kw)
    except EmptyGraphError as exc:
        return exc


@st.composite
def edge_lists(draw):
    n = draw(st.integers(1, 40))
    m = draw(st.integers(1, 150))
    ids = st.lists(st.integers(0, n - 1), min_size=m, max_size=m)
    src, dst = np.array(draw(ids), dtype=np.int64), np.array(draw(ids), dtype=np.int64)
    if draw(st.booleans()):  # many duplicates and self-loops: few distinct endpoints
        k = draw(st.integers(1, n))
        src, dst = src % k, dst % k
    kind = draw(st.sampled_from([None, "int", "float"]))
    w = None
    if kind == "int":
        w = np.array(draw(st.lists(st.integers(1, 4), min_size=m, max_size=m)), dtype=np.int32)
    elif kind == "float":
        w = np.array(draw(st.lists(st.sampled_from([0.5, 1.0, 2.5]), min_size=m, max_size=m)), dtype=np.float32)
    id_dtype = draw(st.sampled_from([np.int32, np.int64, np.uint32]))
    return n, src.astype(id_dtype), dst.astype(id_dtype), w


@settings(max_examples=400, deadline=None)
@given(graph=edge_lists(), passes=st.integers(1, 7), directed=st.booleans(), remove_self_loops=st.booleans(),
       remove_duplicates=st.booleans(), chunk=st.sampled_from([1, 3, 16, 1 << 24]), bucket_bits=st.sampled_from([0, 2, 20]),
       offsets_limit=st.sampled_from([None, 0, 10, 60]))
def test_any_pass_count_builds_the_one_pass_graph(graph, passes, directed, remove_self_loops, remove_duplicates,
                                                  chunk, bucket_bits, offsets_limit):
    """P source ranges (forced), chunks of a few edges, buckets of several vertices and int64 row
    offsets (a lowered int32 limit, the same for the one-pass reference): the same graph, dtypes,
    weights and counts as the one-pass build, or the same error."""
    n, src, dst, w = graph
    kw = dict(weights=w, directed=directed, remove_self_loops=remove_self_loops, remove_duplicates=remove_duplicates)
    with knobs(offsets_int32_max=offsets_limit):
        one = build_or_error(src, dst, n, passes=1, **kw)
        with knobs(chunk=chunk, bucket_bits=bucket_bits):
            many = build_or_error(src, dst, n, passes=passes, **kw)
    if isinstance(one, Exception):
        assert type(many) is type(one) and str(many) == str(one)
        return
    assert_same(one, many)
    if offsets_limit is not None and one.n_edges > offsets_limit:
        assert many.row_offsets.dtype == np.int64
    assert many.column_indices.shape == (many.n_edges,) and many.column_indices.flags.c_contiguous


@pytest.mark.parametrize("directed", [False, True])
@pytest.mark.parametrize("weights", [None, "int:1:9"])
def test_kron_in_passes_matches_one_pass(directed, weights):
    """A Kronecker graph (hubs, duplicates, self-loops) in 2..9 passes with the default knobs."""
    from autotune.generators import _kron_numpy, edge_weights, parse_weight_spec

    n, m = 1 << 11, 16 << 11
    src, dst = _kron_numpy(11, m, 0.57, 0.19, 0.19, 3)
    w = np.random.default_rng(0).integers(1, 10, m).astype(np.int32) if weights else None
    one = from_edges(src, dst, n, weights=w, directed=directed, xp=np, passes=1)
    for p in (2, 3, 9):
        assert_same(one, from_edges(src, dst, n, weights=w, directed=directed, xp=np, passes=p))
    assert one.n_duplicates_removed > 0 and one.n_self_loops_removed > 0
    if weights:
        assert one.n_weight_conflicts > 0
        g = load_graph(f"kron:scale=9,weights={weights}", xp=np)
        assert np.array_equal(edge_weights(g, parse_weight_spec(weights)), g.weights)


def test_passes_must_be_a_positive_integer():
    for bad in (0, -2, 1.5, True, "2"):
        with pytest.raises(InvalidArgumentError, match="passes must be a positive integer"):
            from_edges([0, 1], [1, 2], 3, xp=np, passes=bad)


# ------------------------------------------------------------------------------- choosing P
def _spy_passes(monkeypatch):
    seen = []
    real = _csr._build_in_passes

    def spy(*args, **kw):
        seen.append(args[5])
        return real(*args, **kw)

    monkeypatch.setattr(_csr, "_build_in_passes", spy)
    return seen


def test_pass_count_is_the_fewest_that_fit_the_available_memory(monkeypatch):
    """One pass while it fits; else the fewest passes whose plan fits (the same graph); refused,
    naming the source and the smallest plan's bytes, when none does. Chunks of 2**12 edges (the
    default 2**24 is sized for large graphs)."""
    monkeypatch.setattr(memory, "BUILD_CHUNK_EDGES", 1 << 12)
    rng = np.random.default_rng(5)
    n, m = 1 << 12, 1 << 16
    src, dst = rng.integers(0, n, m).astype(np.int32), rng.integers(0, n, m).astype(np.int32)
    one = from_edges(src, dst, n, directed=False, xp=np)  # plenty of memory: one pass
    seen = _spy_passes(monkeypatch)
    assert from_edges(src, dst, n, directed=False, xp=np) is not None and seen == []
    one_pass = csr_build_bytes(n, m, directed=False, id_bytes=4, inputs=False)
    four = csr_build_bytes(n, m, directed=False, id_bytes=4, inputs=False, passes=4)
    three = csr_build_bytes(n, m, directed=False, id_bytes=4, inputs=False, passes=3)
    assert four < three < one_pass
    monkeypatch.setenv("AUTOTUNE_HOST_MEMORY", str(three - 1))  # 3 passes do not fit, 4 balanced ones do
    g = from_edges(src, dst, n, directed=False, xp=np)
    assert seen and seen[-1] == 4
    assert_same(one, g)
    assert build_passes(n, m, directed=False, id_bytes=4, inputs=False, available=three - 1) == (4, four)
    # nothing fits: refused before the build allocates, naming the source and the smallest plan
    least = min(csr_build_bytes(n, m, directed=False, id_bytes=4, inputs=False, passes=p)
                for p in range(1, MAX_BUILD_PASSES + 1))
    monkeypatch.setenv("AUTOTUNE_HOST_MEMORY", str(least - 1))
    seen.clear()
    with pytest.raises(HostMemoryError) as info:
        from_edges(src, dst, n, directed=False, xp=np, source_label="edges.txt")
    e = info.value
    assert seen == [] and e.what == "edges.txt" and e.needed_bytes == least and e.available_bytes == least - 1
    assert str(e).startswith(f"edges.txt: needs {least:,} bytes") and "passes)" in str(e)
    # a forced pass count that does not fit is refused too
    monkeypatch.setenv("AUTOTUNE_HOST_MEMORY", str(three - 1))
    with pytest.raises(HostMemoryError, match=r"in 3 passes\)$"):
        from_edges(src, dst, n, directed=False, xp=np, passes=3)


def test_skewed_ranges_take_more_passes_when_the_largest_does_not_fit(monkeypatch):
    """The plan assumes balanced ranges; ranges end at bucket boundaries (here 16 buckets of 256
    vertices, one of them holding a hub with 20 % of the edges), so when the histogram shows a
    larger range than planned the build splits into more ranges until the largest fits (the same
    graph), and refuses past MAX_BUILD_PASSES when the hub's bucket alone does not fit."""
    monkeypatch.setattr(memory, "BUILD_CHUNK_EDGES", 1 << 12)
    monkeypatch.setattr(memory, "BUILD_BUCKET_BITS", 4)
    n, m = 1 << 12, 1 << 16
    rng = np.random.default_rng(2)
    src = np.where(rng.random(m) < 0.2, 7, rng.integers(0, n, m)).astype(np.int32)  # vertex 7: 20 % of the edges
    dst = ((src + 1 + rng.integers(0, n - 1, m)) % n).astype(np.int32)  # no self-loops
    one = from_edges(src, dst, n, xp=np)
    cum = np.cumsum(np.bincount(src >> 8, minlength=16))  # keys per bucket of 256 vertices

    def plan(p, k=None):
        return csr_build_bytes(n, m, directed=True, id_bytes=4, inputs=False, passes=p, pass_keys=k)

    def largest(p):
        return int(_csr._range_bounds(cum, p)[2].max())

    avail = plan(4)  # 4 balanced ranges fit; the 4 ranges of the histogram do not
    final = next(p for p in range(4, MAX_BUILD_PASSES + 1) if largest(p) <= -(-m // 4))
    assert largest(4) > -(-m // 4) and final > 4
    tried = []
    real = _csr._range_bounds
    monkeypatch.setattr(_csr, "_range_bounds", lambda cum_, p: tried.append(p) or real(cum_, p))
    monkeypatch.setenv("AUTOTUNE_HOST_MEMORY", str(avail))
    assert_same(one, from_edges(src, dst, n, xp=np))
    assert tried == list(range(4, final + 1))
    # the hub's bucket alone does not fit: refused after MAX_BUILD_PASSES ranges, before the output
    hub_bucket = int(np.bincount(src >> 8)[0])
    monkeypatch.setenv("AUTOTUNE_HOST_MEMORY", str(plan(2, hub_bucket - 1)))
    tried.clear()
    with pytest.raises(HostMemoryError, match=rf"in {MAX_BUILD_PASSES} passes\)$"):
        from_edges(src, dst, n, xp=np)
    assert tried[-1] == MAX_BUILD_PASSES


# ------------------------------------------------------------------------------- memory plans
@pytest.mark.parametrize("directed, weighted", [(True, False), (False, False), (False, True), (True, True)])
def test_multi_pass_plans_bound_the_numpy_build(directed, weighted):
    """tracemalloc peak of the NumPy build in P passes <= the device plan with the measured largest
    range (inputs held by the caller, not counted) and <= the host plan; 8 passes need well under
    half of the one pass."""
    rng = np.random.default_rng(0)
    n, m = 1 << 14, 1 << 18
    src, dst = rng.integers(0, n, m).astype(np.int32), rng.integers(0, n, m).astype(np.int32)
    w = rng.integers(1, 100, m).astype(np.int32) if weighted else None
    stored = m if directed else 2 * m
    for chunk in (memory.BUILD_CHUNK_EDGES, 1 << 14):
        peaks = {}
        with knobs(chunk=chunk):
            for p in (1, 2, 8):
                tracemalloc.start()
                g = from_edges(src, dst, n, weights=w, directed=directed, xp=np, passes=p)
                _, peaks[p] = tracemalloc.get_traced_memory()
                tracemalloc.stop()
                del g
                host = csr_build_bytes(n, m, directed=directed, id_bytes=4, weighted=weighted, inputs=False,
                                       passes=p)
                assert peaks[p] <= host, (chunk, p, peaks[p], host)
                # the ranges of uniform edges are within a bucket's keys of balanced: 1 % slack
                keys = -(-stored // p) + stored // 100
                dev = device_build_bytes(n, m, directed=directed, id_bytes=4, weighted=weighted, inputs=False,
                                         passes=p, pass_keys=keys)
                assert peaks[p] <= dev, (chunk, p, peaks[p], dev)
    assert peaks[8] < peaks[1] / 2  # chunks of 2**14 edges: 8 ranges need well under half


def test_multi_pass_result_holds_no_more_than_the_graph():
    """On the host the pre-de-duplication columns are shrunk in place: what stays allocated after the
    build is the graph's arrays."""
    rng = np.random.default_rng(1)
    n, m = 1 << 8, 1 << 16  # dense: many duplicates
    src, dst = rng.integers(0, n, m).astype(np.int32), rng.integers(0, n, m).astype(np.int32)
    tracemalloc.start()
    g = from_edges(src, dst, n, directed=False, xp=np, passes=3)
    held, _ = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert g.n_duplicates_removed > 0.2 * m
    assert held <= g.row_offsets.nbytes + g.column_indices.nbytes + 4096
    assert g.column_indices.base is None and g.column_indices.flags.owndata


def test_device_plan_phases():
    """The documented phases: one pass, 17 bytes per stored edge on top of the inputs; P passes, the
    resident inputs, output and histogram plus one range's 17 (44 weighted) bytes per key."""
    n, m = 1 << 24, 1 << 28
    s = 2 * m
    one = device_build_bytes(n, m, directed=False)
    assert one == 8 * m + 17 * s  # inputs + the sort's 17 bytes per stored edge
    four = device_build_bytes(n, m, directed=False, passes=4)
    k = s // 4
    resident = 8 * m + 4 * s + 4 * (n + 1) + 8 * 2 ** 20
    assert four == resident + 17 * k
    assert device_build_bytes(n, m, directed=False, passes=4, pass_keys=k + 10) == four + 170
    # weighted: argsort's 44 bytes per key of the range
    assert device_build_bytes(n, m, directed=False, weighted=True, passes=4) == \
        8 * m + 4 * m + 8 * s + 4 * (n + 1) + 4 * m + 8 * 2 ** 20 + 44 * k
    # the fewest passes that fit, one when unknown or when one fits
    assert build_passes(n, m, directed=False, id_bytes=4, device=True) == (1, one)
    assert build_passes(n, m, directed=False, id_bytes=4, available=one, device=True) == (1, one)
    p, b = build_passes(n, m, directed=False, id_bytes=4, available=four, device=True)
    assert p == 4 and b == four


@pytest.mark.parametrize("device", [H200, H200_FREE])
def test_kron_27_and_28_fit_a_planned_h200_and_29_30_are_refused_in_under_a_second(device):
    """kron:scale=28 (2**32 input edges, ~8.6e9 stored) needs ~180 GB built in one pass but fits an
    H200 in a few passes: its uint32 endpoints (34 GB) and the output columns (34 GB) stay resident,
    the ranges' keys take the rest. kron:scale=29's endpoints and columns alone exceed the card."""
    t0 = time.perf_counter()
    for scale in (27, 28):
        spec = f"kron:scale={scale}"
        needed, detail = spec_device_bytes(spec, device_bytes=device)
        check_device_plan(spec, needed, total_device_bytes=device, detail=detail)
        n, m = 1 << scale, 16 << scale
        passes, build = build_passes(n, m, directed=False, id_bytes=4, available=device, device=True)
        assert needed >= build and needed >= 8 * m + 12 * n  # the build, and the generator's arrays
        # on the GPU every pass holds fewer than 2**31 keys (CuPy's huge-array limits): 3 and 5 at least
        assert passes == 3 if scale == 27 else passes in (5, 6)
    one_pass = device_build_bytes(1 << 28, 16 << 28, directed=False, id_bytes=4, passes=1)
    assert one_pass > 160 * 10 ** 9 > device  # in one pass kron 28 could not be built at all
    for scale in (29, 30):
        spec = f"kron:scale={scale}"
        needed, detail = spec_device_bytes(spec, device_bytes=device)
        with pytest.raises(DeviceMemoryError) as info:
            check_device_plan(spec, needed, total_device_bytes=device, detail=detail)
        e = info.value
        assert e.needed_bytes == needed > device == e.free_bytes
        assert str(e).startswith(f"{spec} ({1 << scale:,} vertices, about {16 << scale:,} generated edges stored in "
                                 f"both directions) needs {needed:,} bytes")
        m = 16 << scale
        assert needed >= 8 * m + 4 * 2 * m  # endpoints and output columns, whatever the passes
    assert time.perf_counter() - t0 < 1.0


def test_generate_on_a_planned_h200_lets_kron_28_through_and_refuses_29(monkeypatch):
    """generate() on the GPU checks spec_device_bytes against the device (here $AUTOTUNE_DEVICE_MEMORY)
    before generating: kron:scale=28 now reaches the generator, kron:scale=29 is refused at once."""
    import dataclasses

    from autotune import generators

    class _FakeCupy:  # only "not numpy" matters before generating
        pass

    called = []

    def run_it(values, xp):
        called.append(values["scale"])
        raise RuntimeError("ran")

    monkeypatch.setattr(generators, "_resolve_xp", lambda xp: _FakeCupy)
    kron = generators._GENERATORS["kron"]
    monkeypatch.setitem(generators._GENERATORS, "kron", dataclasses.replace(kron, call=run_it))
    monkeypatch.setenv("AUTOTUNE_DEVICE_MEMORY", str(H200))
    with pytest.raises(RuntimeError, match="ran"):
        generators.generate("kron:scale=28", xp=_FakeCupy)
    t0 = time.perf_counter()
    with pytest.raises(DeviceMemoryError, match=r"^kron:scale=29 \(536,870,912 vertices.* of device memory but only "
                                                 r"141,000,000,000 bytes"):
        generators.generate("kron:scale=29", xp=_FakeCupy)
    assert time.perf_counter() - t0 < 1.0 and called == [28]


def test_kron_permutes_in_place_without_edge_sized_temporaries():
    """_kron_numpy returns int32 views of its uint32 arrays, permuted chunk by chunk: its peak is the
    two edge arrays, the permutation and a chunk, not two more edge-sized copies."""
    from autotune.generators import _CHUNK, _kron_numpy

    scale, ef = 14, 16
    n, m = 1 << scale, ef << scale
    tracemalloc.start()
    src, dst = _kron_numpy(scale, m, 0.57, 0.19, 0.19, 0)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert src.dtype == dst.dtype == np.int32 and src.base is not None and src.base.dtype == np.uint32
    assert peak <= 8 * m + 12 * n + 8 * min(m, _CHUNK) + 2 ** 16
    assert 0 <= int(src.min()) and int(max(src.max(), dst.max())) < n


# ------------------------------------------------------------------------------- int64 offsets
@pytest.fixture(scope="module")
def pair():
    """The same graph with int32 row offsets and with int64 ones (built by from_edges with the int32
    limit lowered, and cast), directed and undirected."""
    out = {}
    for directed in (False, True):
        g32 = load_graph(f"kron:scale=9,directed={str(directed).lower()},weights=int:1:9", xp=np)
        ro, ci = g32.host()
        rows = np.repeat(np.arange(g32.n_vertices), np.diff(ro))
        with knobs(offsets_int32_max=100):
            built = from_edges(rows, ci, g32.n_vertices, weights=g32.weights, directed=directed, xp=np, passes=3)
        assert built.row_offsets.dtype == np.int64
        cast = CSRGraph(row_offsets=ro.astype(np.int64), column_indices=ci, directed=directed, name="g64",
                        weights=g32.weights)
        out[directed] = (g32, built, cast)
    return out


@pytest.mark.parametrize("directed", [False, True])
def test_int64_offsets_profile_like_int32(pair, directed):
    from autotune.features import profile

    g32, built, cast = pair[directed]
    np.testing.assert_array_equal(built.row_offsets, g32.row_offsets)
    ref = profile(g32, xp=np, n_sources=4)
    for g in (built, cast):
        f = profile(g, xp=np, n_sources=4)
        for k in ref.__dataclass_fields__:
            if k != "profile_ms":
                assert getattr(f, k) == getattr(ref, k), k


@pytest.mark.parametrize("directed", [False, True])
def test_int64_offsets_validate_save_load_and_helpers(pair, directed, tmp_path):
    from autotune.reference import bfs_reference, sssp_reference
    from autotune.validate_gpu import validate_bfs_gpu, validate_sssp_gpu

    g32, built, g = pair[directed]
    deg = np.diff(g32.row_offsets)
    for s in np.flatnonzero(deg > 0)[:3]:
        d, p = bfs_reference(g32, int(s))
        validate_bfs_gpu(g, int(s), d, p, chunk_edges=97)  # NumPy path, chunks across rows
        validate_bfs_gpu(built, int(s), d, p)
        d, p = sssp_reference(g32, int(s))
        validate_sssp_gpu(g, int(s), d.astype(np.float64), p, chunk_edges=101)
        bad = d.copy()
        reached = np.flatnonzero(np.isfinite(bad) & (bad > 0))
        if reached.size:
            bad[reached[0]] += 1
            with pytest.raises(AssertionError):
                validate_sssp_gpu(g, int(s), bad, p)
    # save / load keeps the int64 offsets; the fingerprint does not depend on the offset dtype
    path = g.save(tmp_path / "g64.atg")
    back = load_graph(path, xp=np)
    assert back.row_offsets.dtype == np.int64 and back.fingerprint == g.fingerprint == g32.fingerprint
    np.testing.assert_array_equal(_csr.edge_rows(g.row_offsets), _csr.edge_rows(g32.row_offsets))
    assert _csr.edge_rows(g.row_offsets).dtype == np.int64
    assert (g.to_scipy(weighted=True) != g32.to_scipy(weighted=True)).nnz == 0
    np.testing.assert_array_equal(g.out_degrees(), g32.out_degrees())
    if directed:  # symmetrizing an int64-offset graph: the same CSR as the int32 one's (counts differ:
        # the cast graph carries none of the generator's)
        a, b = _csr._with_direction(g, False), _csr._with_direction(g32, False)
        assert a.fingerprint == b.fingerprint and a.n_weight_conflicts == b.n_weight_conflicts
        assert a.row_offsets.dtype == b.row_offsets.dtype == np.int32  # the rebuilt offsets: int32 again


@pytest.mark.parametrize("directed", [True, False])
def test_edges_given_in_key_order_build_the_same_csr(directed):
    """The host build skips sorting keys that are already in (source, target) order: the same CSR,
    duplicate and self-loop counts as from the same edges in another order."""
    rng = np.random.default_rng(3)
    src, dst = rng.integers(0, 300, 5000), rng.integers(0, 300, 5000)
    order = np.lexsort((dst, src))
    a = from_edges(src[order], dst[order], 300, directed=directed, xp=np)
    b = from_edges(src, dst, 300, directed=directed, xp=np)
    np.testing.assert_array_equal(a.row_offsets, b.row_offsets)
    np.testing.assert_array_equal(a.column_indices, b.column_indices)
    assert (a.n_self_loops_removed, a.n_duplicates_removed) == (b.n_self_loops_removed, b.n_duplicates_removed)
    assert a.n_duplicates_removed > 0 and a.n_self_loops_removed > 0
