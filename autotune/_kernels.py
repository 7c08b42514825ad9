"""Kernel sources, their template instantiations, and compilation.

One CUDA C++ file per load-balancing technique lives in ``kernels/`` (top level of a source checkout;
``autotune/kernels/`` inside an installed wheel). Modules are compiled by CuPy's NVRTC path
(:class:`cupy.RawModule` with ``name_expressions``) and memoized per device. The same table drives
:func:`compile_with_nvrtc`, which CI uses to compile every kernel for sm_80 and sm_90 without a GPU.
"""
from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

BLOCK_SIZES = (128, 256, 512, 1024)
VIRTUAL_WARP_SIZES = (1, 2, 4, 8, 16, 32)
COMMON_OPTIONS = ("-std=c++17",)


@dataclass(frozen=True)
class KernelSource:
    """A kernel file and every kernel instantiation the engine may launch from it.

    ``cooperative``: the module is built with ``enable_cooperative_groups`` so CuPy launches its
    kernels with ``cuLaunchCooperativeKernel`` (every block co-resident, as a grid barrier needs).
    """

    technique: str
    filename: str
    name_expressions: tuple[str, ...]
    cooperative: bool = False


def _per_block(template: str, *, init: bool = False) -> tuple[str, ...]:
    return (("bfs_init",) if init else ()) + tuple(template.format(b=b) for b in BLOCK_SIZES)


def _vm_names() -> tuple[str, ...]:
    names = ["bfs_init"]
    for b in BLOCK_SIZES:
        names += [f"vertex_mapped_push<{b}, {vw}>" for vw in (0,) + VIRTUAL_WARP_SIZES]  # 0 = dynamic
    return tuple(names)


#: Kernel files: one per load-balancing technique (push levels), plus the single-block multi-level
#: kernel for small frontiers and the pull (bottom-up) kernel of direction-optimizing BFS.
KERNEL_SOURCES: dict[str, KernelSource] = {
    "vertex_mapped": KernelSource("vertex_mapped", "vertex_mapped.cu", _vm_names()),
    "scan_mapped": KernelSource("scan_mapped", "scan_mapped.cu", _per_block("scan_mapped_push<{b}>", init=True)),
    "binary_search": KernelSource("binary_search", "binary_search.cu",
                                  _per_block("binary_search_push<{b}>", init=True)),
    "degree_classified": KernelSource("degree_classified", "degree_classified.cu",
                                      _per_block("degree_classified_push<{b}>", init=True)),
    "edge_mapped": KernelSource("edge_mapped", "edge_mapped.cu", _per_block("edge_mapped_push<{b}>", init=True)),
    # deferred outliers and supplementary-queue bins of vertex_mapped / scan_mapped
    "heavy": KernelSource("heavy", "heavy.cu", _per_block("heavy_vertices<{b}>")),
    "single_block": KernelSource(
        "single_block", "single_block.cu", ("single_block_levels<false>", "single_block_levels<true>")),
    "persistent": KernelSource(
        "persistent", "persistent.cu",
        tuple(f"persistent_levels<{b}, {p}>" for b in BLOCK_SIZES for p in ("false", "true")), cooperative=True),
    "pull": KernelSource(
        "pull", "pull.cu", tuple(f"pull_level<{b}, {p}>" for b in BLOCK_SIZES for p in ("false", "true"))),
}


@functools.lru_cache(maxsize=1)
def kernel_dir() -> Path:
    """Directory holding the ``.cu``/``.cuh`` sources (installed wheel first, then source checkout).

    Raises
    ------
    FileNotFoundError
        When neither location holds the kernel sources (a broken install).
    """
    here = Path(__file__).resolve().parent
    for cand in (here / "kernels", here.parent / "kernels"):
        if (cand / "bfs_common.cuh").is_file():
            return cand
    try:  # editable installs map the package ``autotune.kernels`` to the top-level folder
        import importlib.util

        spec = importlib.util.find_spec("autotune.kernels")
        if spec is not None and spec.submodule_search_locations:
            for loc in spec.submodule_search_locations:
                if (Path(loc) / "bfs_common.cuh").is_file():
                    return Path(loc)
    except Exception:
        pass
    raise FileNotFoundError(f"autotune kernel sources not found next to {here} (looked in {here / 'kernels'} "
                            f"and {here.parent / 'kernels'}); reinstall the package")


def read_source(technique: str) -> str:
    """CUDA C++ source of *technique*'s kernel file."""
    return (kernel_dir() / KERNEL_SOURCES[technique].filename).read_text()


def _options() -> tuple[str, ...]:
    return COMMON_OPTIONS + (f"-I{kernel_dir()}",)


@functools.lru_cache(maxsize=None)
def _module(technique: str, device_id: int):
    import cupy

    with cupy.cuda.Device(device_id):
        ks = KERNEL_SOURCES[technique]
        mod = cupy.RawModule(code=read_source(technique), options=_options(), name_expressions=ks.name_expressions,
                             enable_cooperative_groups=ks.cooperative)
        mod.compile()
        return mod


def get_kernel(technique: str, name: str):
    """Compiled kernel *name* (a name expression from :data:`KERNEL_SOURCES`) on the current device.

    Modules are compiled once per (technique, device) and memoized; CuPy also keeps its on-disk
    cache of compiled binaries.
    """
    import cupy

    return _module(technique, cupy.cuda.Device().id).get_function(name)


def compile_with_nvrtc(technique: str, arch: str = "sm_90") -> int:
    """Compile *technique*'s module with NVRTC directly (``cuda-bindings``); no GPU or driver needed.

    Parameters
    ----------
    technique : str
        A key of :data:`KERNEL_SOURCES`.
    arch : str
        Target such as ``"sm_80"`` or ``"sm_90"``.

    Returns
    -------
    int
        Size in bytes of the produced CUBIN.

    Raises
    ------
    RuntimeError
        With NVRTC's log when compilation fails or a name expression does not resolve.
    """
    from cuda.bindings import nvrtc

    def check(res, what):
        err = res[0] if isinstance(res, tuple) else res
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise RuntimeError(f"NVRTC {what} failed for {technique}: {err}")
        return res[1:] if isinstance(res, tuple) and len(res) > 1 else None

    ks = KERNEL_SOURCES[technique]
    src = read_source(technique).encode()
    # NVRTC resolves #include "..." through -I, as CuPy does.
    (prog,) = check(nvrtc.nvrtcCreateProgram(src, ks.filename.encode(), 0, [], []), "create")
    for expr in ks.name_expressions:
        check(nvrtc.nvrtcAddNameExpression(prog, expr.encode()), f"add name {expr}")
    opts = [o.encode() for o in _options()] + [f"--gpu-architecture={arch}".encode()]
    res = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if res[0] != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        _, n = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * n
        nvrtc.nvrtcGetProgramLog(prog, log)
        raise RuntimeError(f"NVRTC failed to compile {ks.filename} for {arch}:\n{log.decode(errors='replace')}")
    for expr in ks.name_expressions:
        (lowered,) = check(nvrtc.nvrtcGetLoweredName(prog, expr.encode()), f"lowered name {expr}")
        if not lowered:
            raise RuntimeError(f"{ks.filename}: name expression {expr} did not resolve")
    (size,) = check(nvrtc.nvrtcGetCUBINSize(prog), "cubin size")
    nvrtc.nvrtcDestroyProgram(prog)
    return int(size)
