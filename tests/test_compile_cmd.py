"""``autotune compile`` without a GPU: a one-line error (exit 2), or with ``--arch`` a check of the
kernels with NVRTC; the GPU path's bookkeeping (every kernel file x algorithm, the summary, the
cache folder) with a stand-in for CuPy."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import types

import pytest

from autotune import cli

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _nvrtc_available() -> bool:
    try:
        import cuda.bindings.nvrtc  # noqa: F401
    except Exception:
        return False
    return True


def _env(**extra) -> dict:
    env = dict(os.environ, AUTOTUNE_DISABLE_GPU="1", PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.update(extra)
    return env


def test_compile_without_gpu_is_one_line_exit_2():
    r = subprocess.run([sys.executable, "-m", "autotune.cli", "compile"], capture_output=True, text=True,
                       env=_env(), timeout=120, cwd=REPO)
    assert r.returncode == 2
    assert r.stderr.startswith("autotune: error: 'autotune compile' needs an NVIDIA GPU with CuPy")
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "--arch sm_90" in r.stderr  # says what works without one
    assert r.stdout == ""


def test_compile_refuses_bad_arguments(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["compile", "--arch", "sm90"])
    assert info.value.code == 2 and "expected an architecture such as sm_80" in capsys.readouterr().err
    assert cli.main(["compile", "--arch", "sm_90", "--only", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("autotune: error: --only: unknown kernel file 'nosuch'") and "binary_search" in err
    assert cli.main(["compile", "--arch", "sm_90", "--only", "pull", "--algorithm", "sssp"]) == 2
    assert "no kernel of pull is instantiated for sssp" in capsys.readouterr().err


def test_compile_units_cover_every_kernel_file_and_algorithm():
    from autotune._kernels import KERNEL_SOURCES

    units = cli._compile_units(None, "all")
    assert sorted(units) == sorted((t, a) for t, ks in KERNEL_SOURCES.items() for a in ks.names)
    assert all(a == "sssp" for _, a in cli._compile_units(None, "sssp"))
    assert cli._compile_units(["pull"], "all") == [("pull", "bfs")]


@pytest.mark.skipif(not _nvrtc_available(), reason="cuda-bindings' NVRTC not installed")
def test_compile_arch_checks_with_nvrtc_in_process(capsys):
    assert cli.main(["compile", "--arch", "sm_90", "--only", "sssp", "--jobs", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["target"] == "nvrtc" and data["cache_dir"] is None and data["device"] is None
    assert data["modules"] == 1 and data["failed"] == 0
    (rec,) = data["results"]
    assert rec["kernel_file"] == "sssp" and rec["algorithm"] == "sssp" and rec["arch"] == "sm_90"
    assert rec["ok"] and rec["cubin_bytes"] > 1000


@pytest.mark.skipif(not _nvrtc_available(), reason="cuda-bindings' NVRTC not installed")
def test_compile_arch_in_worker_processes_plain_lines():
    """Two architectures, two processes; off a terminal one plain line per module and a summary."""
    r = subprocess.run([sys.executable, "-m", "autotune.cli", "compile", "--arch", "sm_80", "sm_90", "--only", "sssp",
                        "--jobs", "2"], capture_output=True, text=True, env=_env(), timeout=300, cwd=REPO)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    modules = sorted(line.split("] ", 1)[1].split(":")[0] for line in lines[:2])
    assert modules == ["sssp (sssp, sm_80)", "sssp (sssp, sm_90)"]
    assert lines[0].startswith("[1/2] ") and lines[1].startswith("[2/2] ")
    assert lines[-1].startswith("autotune compile: 2 of 2 kernel modules compiled with NVRTC for sm_80, sm_90")
    assert "2 processes" in lines[-1] and "nothing cached" in lines[-1]


@pytest.mark.skipif(not _nvrtc_available(), reason="cuda-bindings' NVRTC not installed")
def test_compile_arch_failure_is_reported_exit_1(monkeypatch, capsys):
    from autotune import _kernels

    def broken(technique, arch, algorithm, eid64=False):
        if technique == "pull":
            raise RuntimeError("NVRTC failed to compile pull.cu for sm_90:\nerror: boom")
        return 12345

    monkeypatch.setattr(_kernels, "compile_with_nvrtc", broken)
    assert cli.main(["compile", "--arch", "sm_90", "--only", "pull", "sssp", "--jobs", "1"]) == 1
    out, err = capsys.readouterr()
    assert "[1/2]" in out and "FAILED" in out and "1 of 2 kernel modules compiled" in out
    assert "autotune: error: pull (bfs, sm_90): RuntimeError: NVRTC failed to compile pull.cu" in err


def test_compile_gpu_path_fills_the_cache_for_every_module(monkeypatch, tmp_path, capsys):
    """With a GPU (stood in for): every (file, algorithm) goes through _kernels.precompile on the
    current device; the summary names the device, its architecture and CuPy's cache folder."""
    from autotune import _backend, _kernels

    fake = types.ModuleType("cupy")
    fake.cuda = types.SimpleNamespace(Device=lambda *a: types.SimpleNamespace(id=3))
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.setattr(_backend, "gpu_available", lambda: True)
    monkeypatch.setattr(_backend, "device_properties", lambda: {"name": "NVIDIA H200", "cc": "9.0"})
    cache = tmp_path / "cupy-cache"
    cache.mkdir()
    monkeypatch.setenv("CUPY_CACHE_DIR", str(cache))
    calls = []

    def precompile(technique, algorithm, device_id=0, eid64=False, names=None):
        (name,) = names  # one instantiation per job: a run compiles each kernel as its own module
        calls.append((technique, algorithm, device_id, name) + (("int64",) if eid64 else ()))
        (cache / f"{technique}-{algorithm}-{eid64}-{name.translate(str.maketrans('<>, ', '____'))}.cubin").write_bytes(b"x")
        return 0.01

    monkeypatch.setattr(_kernels, "precompile", precompile)
    checked = []
    monkeypatch.setattr(cli, "_cache_check", lambda fn, fn_args: checked.append(fn_args) or 0.001)
    assert cli.main(["compile", "--jobs", "1"]) == 0
    out, err = capsys.readouterr()
    units = cli._compile_units(None, "all")
    every = [(t, a, 3, name) for t, a in units for name in _kernels.KERNEL_SOURCES[t].names[a]]
    assert sorted(calls) == sorted(every) and len(every) > 100
    assert len(checked) == 1 and checked[0][2] == 3  # one module loaded again in a new process
    last = out.strip().splitlines()[-1]
    assert last.startswith(f"autotune compile: {len(every)} of {len(every)} kernel modules for NVIDIA H200 (sm_90)")
    assert str(cache) in last and f"({len(every)} new file(s)" in last and "a new process loads" in last
    assert err == ""
    assert cli.main(["compile", "--jobs", "1", "--algorithm", "sssp", "--json", "--no-check"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["target"] == "cupy" and data["arch"] == ["sm_90"] and data["cache_dir"] == str(cache)
    assert {r["algorithm"] for r in data["results"]} == {"sssp"} and data["new_cache_files"] == 0
    assert data["cache_check"] is None and len(checked) == 1
    # --offsets both: every module once more, built for int64 row offsets (graphs past 2**31 edges)
    calls.clear()
    assert cli.main(["compile", "--jobs", "1", "--offsets", "both", "--json", "--no-check"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert sorted(calls) == sorted(every + [e + ("int64",) for e in every])
    assert sorted({r["offsets"] for r in data["results"]}) == ["int32", "int64"]
    assert len(data["results"]) == 2 * len(every)


def test_compile_says_when_cupy_does_not_keep_the_modules(monkeypatch, tmp_path, capsys):
    """A CuPy whose disk cache does not keep name-expression modules compiles them again in every
    process: compile says so (a warning), the modules still compiled (exit 0)."""
    from autotune import _backend, _kernels

    fake = types.ModuleType("cupy")
    fake.__version__ = "13.0.0"
    fake.cuda = types.SimpleNamespace(Device=lambda *a: types.SimpleNamespace(id=0))
    monkeypatch.setitem(sys.modules, "cupy", fake)
    monkeypatch.setattr(_backend, "gpu_available", lambda: True)
    monkeypatch.setattr(_backend, "device_properties", lambda: {"name": "NVIDIA H200", "cc": "9.0"})
    monkeypatch.setenv("CUPY_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(_kernels, "precompile", lambda t, a, d=0, e=False, names=None: 3.0)
    monkeypatch.setattr(cli, "_cache_check", lambda fn, fn_args: 2.9)
    assert cli.main(["compile", "--jobs", "1", "--only", "sssp"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("autotune: warning: CuPy 13.0.0 compiled sssp (sssp): ")
    assert err.count("\n") == 1
