"""Every kernel compiles with NVRTC for sm_80 and sm_90 (no GPU needed: cuda-bindings' nvrtc)."""
from __future__ import annotations

import pytest

import re

import numpy as np

from autotune._kernels import KERNEL_SOURCES, compile_with_nvrtc, kernel_dir, read_source
from autotune.techniques import TECHNIQUES

_UNITS = [(t, alg) for t in sorted(KERNEL_SOURCES) for alg in sorted(KERNEL_SOURCES[t].names)]


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("technique,algorithm", _UNITS)
def test_kernel_compiles(technique, algorithm, arch):
    size = compile_with_nvrtc(technique, arch, algorithm)
    assert size > 10_000 if technique not in ("sssp", "traversal", "distributed") else size > 1_000


@pytest.mark.parametrize("technique,algorithm", _UNITS)
def test_kernel_compiles_for_int64_offsets(technique, algorithm):
    """The modules of graphs past 2**31 - 1 edges (-DAT_EID64: 64-bit row offsets, edge indices and
    degree prefix-sums) compile too (sm_90; the int32 variant above covers both architectures)."""
    size = compile_with_nvrtc(technique, "sm_90", algorithm, eid64=True)
    assert size > 10_000 if technique not in ("sssp", "traversal", "distributed") else size > 1_000


def test_one_file_per_technique():
    files = sorted(p.name for p in kernel_dir().glob("*.cu"))
    # every .cu is a registered kernel source (msbfs.cu backs two modules: cooperative and not)
    assert files == sorted({ks.filename for ks in KERNEL_SOURCES.values()})
    for t in KERNEL_SOURCES:
        src = read_source(t)
        assert any(h in src for h in ("traversal.cuh", "vertex_expand.cuh", "supports.cuh"))
        # every kernel file cites its paper
        assert "Busato" in src or "Hong" in src or "Liu & Huang" in src


def _code(text: str) -> str:
    """Source without comments."""
    return re.sub(r"//[^\n]*", "", text)


@pytest.mark.parametrize("name", sorted(TECHNIQUES))
def test_technique_files_hold_no_algorithm_code(name):
    """Advance x operator: a technique file reaches the per-vertex state only through its operator."""
    src = _code(read_source(name))
    for word in ("distances", "predecessors", "dist_pred", "atomicCAS", "atomicMin", "near_stamp", "BFSOp",
                 "SSSPOp", "weights"):
        assert word not in src, f"{name}: {word!r} is algorithm code"
    for helper in ("vertex_expand.cuh", "supports.cuh", "heavy.cu", "single_block.cu", "persistent.cu",
                   "whole_graph.cu", "block_scan.cuh"):
        src = _code((kernel_dir() / helper).read_text())
        for word in ("distances", "predecessors", "dist_pred", "near_stamp", "BFSOp", "SSSPOp"):
            assert word not in src, f"{helper}: {word!r} is algorithm code"


def test_every_technique_instantiated_for_every_operator():
    for name, t in TECHNIQUES.items():
        ks = KERNEL_SOURCES[name]
        assert set(ks.names) == {"bfs", "sssp"}
        assert any("SSSPOp" in n for n in ks.names["sssp"]) and any("BFSOp" in n for n in ks.names["bfs"])


_CTYPES = {"int": "<i4", "unsigned": "<u4", "float": "<f4", "long long": "<i8", "u64": "<u8", "vid_t": "<i4"}


def _c_struct_fields(name: str, filename: str = "traversal.cuh") -> list[tuple[str, str, int]]:
    """(field, numpy type, count) of ``struct name`` in *filename*, pointers as u64."""
    text = _code((kernel_dir() / filename).read_text())
    body = re.search(r"struct %s \{(.*?)\n\};" % name, text, re.S).group(1)
    out = []
    for decl in body.split(";"):
        decl = " ".join(decl.split())
        if not decl:
            continue
        m = re.match(r"(?:const )?(unsigned|int|float|long long|u64|vid_t|[A-Za-z_]+)(\*?) ?(\*?)(.*)", decl)
        ctype, star1, star2, names = m.groups()
        for item in names.split(","):
            item = item.strip().lstrip("*").strip()
            arr = re.match(r"([A-Za-z_0-9]+)(?:\[(.+)\])?", item)
            fname, dim = arr.group(1), arr.group(2)
            count = 1
            if dim:
                count = eval(dim.replace("AT_SQ_MAX_BINS", "16"))  # noqa: S307 - a constant from the header
            pointer = bool(star1 or star2 or "*" in item)
            out.append((fname, "<u8" if pointer else _CTYPES[ctype], count))
    return out


@pytest.mark.parametrize("struct", ["BFSState", "BFSParams", "BFSAux", "OpArgs", "SSSPState", "MSArgs"])
def test_python_mirrors_match_the_device_structs_field_by_field(struct):
    from autotune._engine import DEVICE_STRUCTS
    from autotune.batched import MSARGS_DTYPE

    dtype = MSARGS_DTYPE if struct == "MSArgs" else DEVICE_STRUCTS[struct]
    c_fields = _c_struct_fields(struct, "msbfs.cu" if struct == "MSArgs" else "traversal.cuh")
    py_fields = []
    for fname in dtype.names:
        base = dtype.fields[fname][0]
        if base.subdtype is not None:
            py_fields.append((fname, base.subdtype[0].str, int(np.prod(base.subdtype[1]))))
        else:
            py_fields.append((fname, base.str, 1))
    # C declares dc_small, dc_middle, dc_large on one line: the parser splits them
    assert [f for f, _, _ in c_fields] == [f for f, _, _ in py_fields]
    assert c_fields == py_fields


def test_broken_kernel_reports_nvrtc_log(monkeypatch):
    import autotune._kernels as k

    monkeypatch.setattr(k, "read_source", lambda t: "__global__ void broken( { }")
    with pytest.raises(RuntimeError, match="NVRTC"):
        compile_with_nvrtc("vertex_mapped", "sm_90")


def test_unknown_name_expression_is_an_error(monkeypatch):
    import autotune._kernels as k

    ks = k.KERNEL_SOURCES["binary_search"]
    bad = k.KernelSource(ks.technique, ks.filename, {"bfs": ks.names["bfs"] + ("binary_search_missing<256>",)})
    monkeypatch.setitem(k.KERNEL_SOURCES, "binary_search", bad)
    with pytest.raises(RuntimeError):
        compile_with_nvrtc("binary_search", "sm_90", "bfs")


def test_wheel_ships_kernels(tmp_path):
    """The built wheel carries kernels/*.cu(h) as autotune/kernels/ (found by kernel_dir())."""
    import subprocess
    import sys
    import zipfile
    from pathlib import Path

    repo = Path(__file__).resolve().parent.parent
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path), str(repo)], check=True)
    (whl,) = tmp_path.glob("*.whl")
    names = zipfile.ZipFile(whl).namelist()
    for ks in KERNEL_SOURCES.values():
        assert f"autotune/kernels/{ks.filename}" in names
    for header in ("traversal.cuh", "op_bfs.cuh", "op_sssp.cuh", "supports.cuh"):
        assert f"autotune/kernels/{header}" in names
    # and an installed copy finds them: unpack and import from there
    dest = tmp_path / "site"
    zipfile.ZipFile(whl).extractall(dest)
    out = subprocess.run([sys.executable, "-c", "import autotune._kernels as k; print(k.kernel_dir())"],
                         cwd=tmp_path, env={"PYTHONPATH": str(dest), "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(dest / "autotune" / "kernels")


def test_whole_graph_kernel_budget():
    """The whole-graph BFS kernel's shared memory, each part rounded to 16 bytes: a bitmap word per 32
    vertices (two bitmaps with pull levels), one 16-bit id per vertex, and staged the CSR (32-bit
    offsets, 16-bit column ids); it takes graphs of at most 2**16 vertices (16-bit ids) and
    WHOLE_GRAPH_MAX_EDGES edges whose bitmaps and queue fit the device's opt-in limit beside the
    kernel's static arrays."""
    import autotune._engine as E

    assert E.whole_graph_smem_bytes(1) == 16 + 16
    assert E.whole_graph_smem_bytes(1005) == 4 * 32 + 4 * 504
    assert E.whole_graph_smem_bytes(1005, pull=True) == 4 * 64 + 4 * 504
    # email-Eu-core staged: + 1,006 offsets (1,008 words) + 24,929 16-bit ids (12,465 -> 12,468 words)
    assert E.whole_graph_smem_bytes(1005, 24929, pull=True, staged=True) == 4 * (64 + 504 + 1008 + 12468)
    assert E.whole_graph_smem_bytes(1005, 24929, pull=True, staged=True, staged_in=True) == \
        4 * (64 + 504 + 2 * (1008 + 12468))
    assert E.whole_graph_smem_bytes(1005, 24929, pull=True, staged_in=True) == 4 * (64 + 504)  # only when staged
    assert E.whole_graph_smem_bytes(1 << 16) == (1 << 16) // 8 + (1 << 17)
    assert E.whole_graph_smem_bytes(1 << 16, pull=True) == (1 << 16) // 4 + (1 << 17)
    h200 = 232448  # cudaDevAttrMaxSharedMemoryPerBlockOptin of an H100/H200
    assert E.whole_graph_fits(1 << 16, 1000, h200) and not E.whole_graph_fits((1 << 16) + 1, 1000, h200)
    assert not E.whole_graph_fits(0, 0, h200)
    assert E.whole_graph_fits(5000, E.WHOLE_GRAPH_MAX_EDGES, h200)
    assert not E.whole_graph_fits(5000, E.WHOLE_GRAPH_MAX_EDGES + 1, h200)
    assert not E.whole_graph_fits(1 << 16, 1000, 100 * 1024)  # a device without the opt-in space
    src = _code(read_source("whole_graph"))
    assert "kClaimOnce" in src and "record_claim" in src and "extern __shared__" in src


def test_whole_graph_packed_choice(monkeypatch):
    """The packed late pull levels are compiled in only for graphs with pull levels of more than two
    rounds of the block (WHOLE_GRAPH_PACKED "auto"), for every graph with pull levels (True) or none
    (False); the kernel's runtime condition matches the engine's rule."""
    import autotune._engine as E

    assert E.WHOLE_GRAPH_PACKED == "auto"
    assert not E.whole_graph_packed(2 * E.WHOLE_GRAPH_THREADS, True)
    assert E.whole_graph_packed(2 * E.WHOLE_GRAPH_THREADS + 1, True)
    assert not E.whole_graph_packed(1 << 16, False)
    monkeypatch.setattr(E, "WHOLE_GRAPH_PACKED", True)
    assert E.whole_graph_packed(1000, True) and not E.whole_graph_packed(1000, False)
    monkeypatch.setattr(E, "WHOLE_GRAPH_PACKED", False)
    assert not E.whole_graph_packed(1 << 16, True)
    src = _code(read_source("whole_graph"))
    assert "kPacked && n > 2 * AT_WG_THREADS" in src and "#define AT_WG_THREADS 1024" in src
    assert E.WHOLE_GRAPH_THREADS == 1024
