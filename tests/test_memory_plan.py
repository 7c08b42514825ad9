"""Memory plan before allocation (autotune.memory): host refusals on this machine, and the device plan
(computed on a CPU-only machine for a planned GPU)."""
from __future__ import annotations

import time
import tracemalloc

import numpy as np
import pytest

from autotune.errors import DeviceMemoryError, HostMemoryError
from autotune.graph import from_edges, load_graph
from autotune.memory import (
    available_device_bytes, available_host_bytes, check_device_plan, csr_build_bytes, device_build_bytes,
    graph_device_bytes, spec_device_bytes,
)

GIB = 2 ** 30
H200 = 141 * 10 ** 9
MTX_2E9 = "%%MatrixMarket matrix coordinate pattern general\n2000000000 2000000000 1\n1 2\n"


# ------------------------------------------------------------------------------ host, this machine
def test_kron_30_is_refused_in_under_a_second_with_bytes_needed_vs_available(monkeypatch):
    monkeypatch.delenv("AUTOTUNE_HOST_MEMORY", raising=False)
    avail = available_host_bytes()
    if avail is None or avail > 2 ** 40:
        pytest.skip("host memory unknown or larger than kron:scale=30 needs")
    t0 = time.perf_counter()
    with pytest.raises(HostMemoryError) as info:
        load_graph("kron:scale=30", xp=np)
    assert time.perf_counter() - t0 < 1.0
    e = info.value
    assert e.what == "kron:scale=30" and e.needed_bytes > e.available_bytes > 0
    msg = str(e)
    assert msg.startswith(f"kron:scale=30: needs {e.needed_bytes:,} bytes (")
    assert f"of host memory but only {e.available_bytes:,} bytes (" in msg and "are available" in msg
    assert "1,073,741,824 vertices" in msg


@pytest.mark.parametrize("override", [None, str(24 * GIB)])
def test_matrix_market_header_of_2e9_vertices_is_refused_in_under_a_second(tmp_path, monkeypatch, override):
    if override is None:
        monkeypatch.delenv("AUTOTUNE_HOST_MEMORY", raising=False)
        avail = available_host_bytes()
        if avail is None or avail > 40 * 10 ** 9:
            pytest.skip("host memory unknown or larger than 2e9 vertices need")
    else:
        monkeypatch.setenv("AUTOTUNE_HOST_MEMORY", override)
    p = tmp_path / "huge.mtx"
    p.write_text(MTX_2E9)
    t0 = time.perf_counter()
    with pytest.raises(HostMemoryError) as info:
        load_graph(str(p), xp=np)
    assert time.perf_counter() - t0 < 1.0
    msg = str(info.value)
    assert msg.startswith(f"{p}: needs ") and "bytes" in msg and "are available" in msg
    assert "2,000,000,000 vertices" in msg
    if override:
        assert "25,769,803,776 bytes (24.00 GiB) are available" in msg


def test_default_loader_on_this_cpu_machine_refuses_kron_30_too(monkeypatch):
    """Without xp (CuPy when a GPU is usable, else NumPy) the refusal is the same on a CPU machine."""
    from autotune._backend import gpu_available

    if gpu_available():
        pytest.skip("CPU-only behaviour")
    monkeypatch.setenv("AUTOTUNE_HOST_MEMORY", str(24 * GIB))
    t0 = time.perf_counter()
    with pytest.raises(HostMemoryError, match=r"^kron:scale=30: needs [\d,]+ bytes"):
        load_graph("kron:scale=30")
    assert time.perf_counter() - t0 < 1.0


# --------------------------------------------------------------------------- device, planned GPU
def test_kron_30_device_plan_is_refused_for_an_h200_in_under_a_second():
    t0 = time.perf_counter()
    needed, detail = spec_device_bytes("kron:scale=30")
    with pytest.raises(DeviceMemoryError) as info:
        check_device_plan("kron:scale=30", needed, total_device_bytes=H200, detail=detail)
    assert time.perf_counter() - t0 < 1.0
    e = info.value
    assert e.needed_bytes == needed > H200 and e.free_bytes == H200
    msg = str(e)
    assert msg.startswith("kron:scale=30 (1,073,741,824 vertices, about 17,179,869,184 generated edges stored in "
                          "both directions) needs ")
    assert f"needs {needed:,} bytes" in msg
    assert "of device memory but only 141,000,000,000 bytes (131.32 GiB) are free" in msg
    # the column indices alone (2**35 stored edges, int32) exceed the card
    assert needed >= 4 * 2 ** 35


def test_matrix_market_2e9_device_plan_names_the_file(tmp_path):
    p = str(tmp_path / "huge.mtx")
    needed = graph_device_bytes(2 * 10 ** 9, 1)
    assert needed == 4 * (2 * 10 ** 9 + 1) + 4
    check_device_plan(p, needed, total_device_bytes=H200)  # 8 GB of row offsets fit an H200
    t0 = time.perf_counter()
    with pytest.raises(DeviceMemoryError) as info:
        check_device_plan(p, needed, total_device_bytes=4 * GIB, detail="2,000,000,000 vertices, 1 edge")
    assert time.perf_counter() - t0 < 1.0
    assert str(info.value).startswith(f"{p} (2,000,000,000 vertices, 1 edge) needs 8,000,000,008 bytes (7.45 GiB) of "
                                      f"device memory but only 4,294,967,296 bytes (4.00 GiB) are free")


def test_graph_device_bytes_is_what_the_upload_holds():
    g = load_graph("kron:scale=10,weights=int:1:9", xp=np)
    got = g.row_offsets.nbytes + g.column_indices.nbytes + g.weights.nbytes
    assert graph_device_bytes(g.n_vertices, g.n_edges, weighted=True) == got
    assert graph_device_bytes(g.n_vertices, g.n_edges) == got - g.weights.nbytes
    # int64 offsets past 2**31 - 1 edges
    assert graph_device_bytes(10, 2 ** 31) == 8 * 11 + 4 * 2 ** 31
    # the transpose: at least the kept in-CSR on top, and its 28 bytes per edge transient peak
    m, n = 10 ** 6, 10 ** 5
    base = graph_device_bytes(n, m)
    assert graph_device_bytes(n, m, transpose=True) == base + 28 * m
    # few edges: the kept in-CSR (in-indices, in-offsets) and the in-degree count dominate
    assert graph_device_bytes(n, 10, transpose=True) == graph_device_bytes(n, 10) + 4 * 10 + 4 * (n + 1) + 16 * n


def test_device_build_plan_bounds_the_numpy_build():
    """The device plan of from_edges is an upper bound of the same build on the host (NumPy sorts in
    place without the GPU's radix double buffer), measured with tracemalloc."""
    rng = np.random.default_rng(0)
    n, m = 1 << 14, 1 << 18
    for directed, weighted in ((True, False), (False, False), (False, True)):
        src = rng.integers(0, n, m).astype(np.int32)
        dst = rng.integers(0, n, m).astype(np.int32)
        w = rng.integers(1, 100, m).astype(np.int32) if weighted else None
        tracemalloc.start()
        from_edges(src, dst, n, weights=w, directed=directed, xp=np)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        plan = device_build_bytes(n, m, directed=directed, id_bytes=4, weighted=weighted, inputs=False)
        assert peak <= plan, (directed, weighted, peak, plan)
        # and tighter than the host plan, which adds the phases up
        assert plan <= csr_build_bytes(n, m, directed=directed, id_bytes=4, weighted=weighted, inputs=False) + \
            24 * m * (1 if directed else 2)


def test_spec_device_bytes_examples():
    small, detail = spec_device_bytes("kron:scale=22,edge_factor=16")
    assert detail == "4,194,304 vertices, about 67,108,864 generated edges stored in both directions"
    assert 2 * GIB < small < 4 * GIB  # 17 bytes per stored edge for the build's keys
    check_device_plan("kron:scale=22,edge_factor=16", small, total_device_bytes=80 * 10 ** 9)
    directed, _ = spec_device_bytes("kron:scale=20,directed=true")
    undirected_t, _ = spec_device_bytes("kron:scale=20", transpose=True)
    assert directed < undirected_t
    weighted, _ = spec_device_bytes("kron:scale=20,weights=int:1:255")
    assert weighted > spec_device_bytes("kron:scale=20")[0]
    assert spec_device_bytes("grid:rows=100,cols=100")[0] > 0
    from autotune.errors import GeneratorSpecError

    with pytest.raises(GeneratorSpecError):
        spec_device_bytes("kron:scale=20,bogus=1")
    with pytest.raises(GeneratorSpecError):
        spec_device_bytes("nosuch:n=3")


def test_device_memory_override_and_unknown(monkeypatch):
    from autotune._backend import gpu_available

    monkeypatch.setenv("AUTOTUNE_DEVICE_MEMORY", "2e9")
    assert available_device_bytes() == 2 * 10 ** 9
    with pytest.raises(DeviceMemoryError, match=r"^x needs 3,000,000,000 bytes"):
        check_device_plan("x", 3 * 10 ** 9)
    check_device_plan("x", 10 ** 9)
    monkeypatch.delenv("AUTOTUNE_DEVICE_MEMORY")
    if not gpu_available():
        assert available_device_bytes() is None
        check_device_plan("x", 10 ** 18)  # nothing known, nothing refused


def test_binary_graph_upload_is_planned(tmp_path, monkeypatch):
    """load_binary checks the device plan before uploading (exercised here through the planned
    bytes: with xp=numpy nothing is uploaded, so nothing is checked)."""
    g = load_graph("kron:scale=8", xp=np)
    g.save(tmp_path / "g.atg")
    monkeypatch.setenv("AUTOTUNE_DEVICE_MEMORY", "10")
    assert load_graph(str(tmp_path / "g.atg"), xp=np).n_edges == g.n_edges


def test_generate_on_the_gpu_refuses_from_the_device_plan_before_generating(monkeypatch):
    """A GPU build of a spec (``generate(spec, xp=cupy)``, what ``load_graph`` does on a GPU machine)
    is refused from :func:`spec_device_bytes` before the generator runs: < 1 s, naming the spec."""
    from autotune import generators

    class _FakeCupy:  # stands in for cupy: only "not numpy" matters before generating
        pass

    called = []
    monkeypatch.setattr(generators, "_resolve_xp", lambda xp: _FakeCupy)
    import dataclasses

    kron = generators._GENERATORS["kron"]
    monkeypatch.setitem(generators._GENERATORS, "kron", dataclasses.replace(kron, call=lambda values, xp: called.append(values)))
    monkeypatch.setenv("AUTOTUNE_DEVICE_MEMORY", str(H200))
    t0 = time.perf_counter()
    with pytest.raises(DeviceMemoryError, match=r"^kron:scale=30 \(1,073,741,824 vertices.*of device memory"):
        generators.generate("kron:scale=30", xp=_FakeCupy)
    assert time.perf_counter() - t0 < 1.0 and called == []
    # what fits is not refused by the plan: the generator runs
    def run_it(values, xp):
        called.append(values)
        raise RuntimeError("ran")

    monkeypatch.setitem(generators._GENERATORS, "kron", dataclasses.replace(kron, call=run_it))
    with pytest.raises(RuntimeError, match="ran"):
        generators.generate("kron:scale=20", xp=_FakeCupy)
    assert len(called) == 1
