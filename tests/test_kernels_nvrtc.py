"""Every kernel compiles with NVRTC for sm_80 and sm_90 (no GPU needed: cuda-bindings' nvrtc)."""
from __future__ import annotations

import pytest

from autotune._kernels import KERNEL_SOURCES, compile_with_nvrtc, kernel_dir, read_source


@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
@pytest.mark.parametrize("technique", sorted(KERNEL_SOURCES))
def test_kernel_compiles(technique, arch):
    size = compile_with_nvrtc(technique, arch)
    assert size > 10_000


def test_one_file_per_technique():
    files = sorted(p.name for p in kernel_dir().glob("*.cu"))
    assert files == sorted(ks.filename for ks in KERNEL_SOURCES.values())
    for t in KERNEL_SOURCES:
        src = read_source(t)
        assert any(h in src for h in ("bfs_common.cuh", "vertex_expand.cuh", "supports.cuh"))
        # every kernel file cites its paper
        assert "Busato" in src or "Hong" in src or "Liu & Huang" in src


def test_broken_kernel_reports_nvrtc_log(monkeypatch):
    import autotune._kernels as k

    monkeypatch.setattr(k, "read_source", lambda t: "__global__ void broken( { }")
    with pytest.raises(RuntimeError, match="NVRTC"):
        compile_with_nvrtc("vertex_mapped", "sm_90")


def test_unknown_name_expression_is_an_error(monkeypatch):
    import autotune._kernels as k

    ks = k.KERNEL_SOURCES["binary_search"]
    bad = k.KernelSource(ks.technique, ks.filename, ks.name_expressions + ("binary_search_missing<256>",))
    monkeypatch.setitem(k.KERNEL_SOURCES, "binary_search", bad)
    with pytest.raises(RuntimeError):
        compile_with_nvrtc("binary_search", "sm_90")


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
    assert "autotune/kernels/bfs_common.cuh" in names
    # and an installed copy finds them: unpack and import from there
    dest = tmp_path / "site"
    zipfile.ZipFile(whl).extractall(dest)
    out = subprocess.run([sys.executable, "-c", "import autotune._kernels as k; print(k.kernel_dir())"],
                         cwd=tmp_path, env={"PYTHONPATH": str(dest), "PATH": "/usr/bin:/bin"},
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == str(dest / "autotune" / "kernels")
