"""GPU detection and array-module selection (CuPy on a GPU, NumPy otherwise)."""
from __future__ import annotations

import functools
import os

import numpy as np

from .errors import GPUUnavailableError


@functools.lru_cache(maxsize=1)
def _probe() -> tuple[bool, str]:
    if os.environ.get("AUTOTUNE_DISABLE_GPU", "") not in ("", "0"):
        return False, "disabled by AUTOTUNE_DISABLE_GPU"
    try:
        import cupy  # noqa: F401
    except Exception as exc:  # ImportError, or a broken CUDA install
        return False, f"CuPy is not importable ({exc.__class__.__name__}: {exc}); install autotune-bfs[cuda13] or [cuda12]"
    try:
        import cupy

        n = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return False, f"no usable CUDA device ({exc})"
    if n < 1:
        return False, "no CUDA device found"
    return True, ""


def gpu_available() -> bool:
    """Return True when CuPy is importable and at least one CUDA device is usable."""
    return _probe()[0]


def require_gpu(what: str) -> None:
    """Raise :class:`GPUUnavailableError` naming *what* needs the GPU and why none is usable."""
    ok, why = _probe()
    if not ok:
        raise GPUUnavailableError(f"{what} needs an NVIDIA GPU with CuPy: {why}")


def xp_of(array):
    """Array module (``numpy`` or ``cupy``) of *array*."""
    mod = type(array).__module__
    if mod.startswith("cupy"):
        import cupy

        return cupy
    return np


def default_xp():
    """CuPy when a GPU is available, else NumPy."""
    if gpu_available():
        import cupy

        return cupy
    return np


def to_host(array) -> np.ndarray:
    """Copy *array* (NumPy or CuPy) to a NumPy array (no copy for NumPy input)."""
    if isinstance(array, np.ndarray):
        return array
    get = getattr(array, "get", None)
    if get is not None:
        return get()
    return np.asarray(array)


def device_properties() -> dict:
    """Properties of the current CUDA device used by the engine and the logs.

    Returns
    -------
    dict
        ``name``, ``cc`` ("9.0"), ``sm_count``, ``max_threads_per_sm``, ``shared_mem_per_block``
        and ``shared_mem_per_block_optin`` (bytes; the second: what a kernel may opt in to),
        ``l2_bytes``, ``cupy`` and ``cuda`` (runtime) versions.
    """
    require_gpu("device_properties")
    import cupy

    dev = cupy.cuda.Device()
    props = cupy.cuda.runtime.getDeviceProperties(dev.id)
    name = props["name"]
    if isinstance(name, bytes):
        name = name.decode()
    rt = cupy.cuda.runtime.runtimeGetVersion()
    return {
        "name": name,
        "cc": f"{props['major']}.{props['minor']}",
        "sm_count": int(props["multiProcessorCount"]),
        "max_threads_per_sm": int(props["maxThreadsPerMultiProcessor"]),
        "shared_mem_per_block": int(props["sharedMemPerBlock"]),
        "shared_mem_per_block_optin": int(props.get("sharedMemPerBlockOptin", props["sharedMemPerBlock"])),
        "l2_bytes": int(props.get("l2CacheSize", 0)),
        "cupy": cupy.__version__,
        "cuda": f"{rt // 1000}.{(rt % 1000) // 10}",
    }


@functools.lru_cache(maxsize=None)
def _reduction(kind: str):
    import cupy

    if kind == "count":
        return cupy.ReductionKernel("T x", "int64 y", "x != T(0)", "a + b", "y = a", "0", "autotune_count_nonzero")
    return cupy.ReductionKernel("bool m, T v", "int64 y", "m ? (long long)v : 0ll", "a + b", "y = a", "0",
                                "autotune_masked_sum")


def count_nonzero(a) -> int:
    """Number of nonzero (True) entries of *a* (NumPy or CuPy) as a Python int.

    On the GPU a plain :class:`cupy.ReductionKernel`: CuPy's own ``count_nonzero`` and ``sum`` go
    through CUB, whose reduction compiles for ~2 s per dtype on a machine's first call (measured on
    an H200: 7 of a first run's 16 s).
    """
    if isinstance(a, np.ndarray):
        return int(np.count_nonzero(a))
    return int(_reduction("count")(a))


def masked_sum(mask, values) -> int:
    """``sum(values[mask])`` as a Python int (int64 accumulation), NumPy or CuPy, without CUB (see
    :func:`count_nonzero`)."""
    if isinstance(values, np.ndarray):
        return int(np.sum(np.where(mask, values, 0), dtype=np.int64))
    return int(_reduction("sum")(mask, values))
