"""Kernel sources, their template instantiations, and compilation.

One CUDA C++ file per load-balancing technique (an advance template over an operator type, listed in
the registry :data:`autotune.techniques.TECHNIQUES`) lives in ``kernels/`` (top level of a source checkout;
``autotune/kernels/`` inside an installed wheel). Modules are compiled by CuPy's NVRTC path
(:class:`cupy.RawModule` with ``name_expressions``) and memoized per device. The same table drives
:func:`compile_with_nvrtc`, which CI uses to compile every kernel for sm_80 and sm_90 without a GPU.

Every module exists for two edge-offset types (``eid_t`` in ``kernels/traversal.cuh``): int32 row
offsets (graphs of fewer than 2**31 edges, the default) and, compiled with ``-DAT_EID64``, int64 row
offsets (up to :data:`MAX_EDGES_INT64` edges). The engines pick the module from the graph's size.
"""
from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from pathlib import Path

from .techniques import BLOCK_SIZES, OPERATORS, TECHNIQUES, VIRTUAL_WARP_SIZES

COMMON_OPTIONS = ("-std=c++17",)
ALGORITHMS = tuple(OPERATORS)
#: Edges a graph may have with int32 row offsets (the default kernels).
MAX_EDGES_INT32 = 2 ** 31 - 1
#: Edges a graph may have with the int64-offset kernels: the frontier counter packs the frontier
#: size (31 bits) and its degree sum (33 bits) in one 64-bit word (``AT_COUNT_BITS``).
MAX_EDGES_INT64 = 2 ** 33 - 1
#: The ``-D`` option that builds the int64-offset modules.
EID64_OPTION = "-DAT_EID64"


@dataclass(frozen=True)
class KernelSource:
    """A kernel file and every kernel instantiation the engine may launch from it, per operator.

    ``names[algorithm]`` lists the name expressions instantiated for that traversal's operator; a
    module is compiled per instantiation (file, algorithm, device, offset type, name), so a run
    compiles the kernels it launches and nothing else.
    ``cooperative``: the module is built with ``enable_cooperative_groups`` so CuPy launches its
    kernels with ``cuLaunchCooperativeKernel`` (every block co-resident, as a grid barrier needs).
    """

    technique: str
    filename: str
    names: dict
    cooperative: bool = False

    @property
    def name_expressions(self) -> tuple[str, ...]:
        """Every instantiation of the file, all operators."""
        return tuple(n for alg in self.names for n in self.names[alg])


def _per_op(fmt: str, **ranges) -> dict:
    """``{algorithm: names}`` from a format with ``{op}`` and the given ranges (cartesian product)."""
    import itertools

    keys = list(ranges)
    out = {}
    for alg, op in OPERATORS.items():
        out[alg] = tuple(fmt.format(op=op, **dict(zip(keys, vals))) for vals in itertools.product(*ranges.values()))
    return out


_WP = ("false", "true")
#: Steps of 32 edges a warp of the whole-graph kernel (``kernels/whole_graph.cu``) unrolls, built.
WHOLE_GRAPH_EPT = (1, 4)
#: Blocks of the cluster kernel (``kernels/cluster_graph.cu``), built: 8 (the portable cluster size)
#: and 16 (Hopper's largest, a non-portable size the engine opts in to).
CLUSTER_SIZES = (8, 16)
#: Block size of the multi-GPU BFS kernels (``kernels/distributed.cu``).
DISTRIBUTED_BLOCK = 256

#: Kernel files: one per load-balancing technique (from the registry, :mod:`autotune.techniques`),
#: the heavy-vertex kernel of the support strategies, the two small-frontier drivers, the pull
#: (bottom-up) kernel of direction-optimizing BFS (BFS's operator only) and the bucket moves of the
#: bucketed SSSP methods (SSSP only). Every file but the last two is instantiated over every operator.
KERNEL_SOURCES: dict[str, KernelSource] = {
    # the start of a traversal and the round counter, shared by every technique's launch sequence
    "traversal": KernelSource("traversal", "traversal.cu",
                              {alg: (f"traversal_init<{op}>", "traversal_tick", "traversal_state_out")
                               for alg, op in OPERATORS.items()}),
    **{name: KernelSource(name, t.filename, {alg: t.name_expressions(alg) for alg in ALGORITHMS})
       for name, t in TECHNIQUES.items()},
    # deferred outliers and supplementary-queue bins of vertex_mapped / scan_mapped
    "heavy": KernelSource("heavy", "heavy.cu", _per_op("heavy_vertices<{b}, {op}>", b=BLOCK_SIZES)),
    "single_block": KernelSource("single_block", "single_block.cu", _per_op("single_block_levels<{p}, {op}>", p=_WP)),
    # a whole BFS in one launch of one block, for graphs whose visited bitmap and frontier fit in its
    # shared memory (claim-once operators only: BFS); 1 or 4 steps of 32 edges a warp unrolls, the CSR
    # read from global memory or staged in shared memory, with or without the packed late pull levels;
    # launched per traversal (levels) or once to serve many from a mailbox in pinned host memory (resident)
    "whole_graph": KernelSource("whole_graph", "whole_graph.cu",
                                {"bfs": tuple(f"whole_graph_{form}<{e}, {st}, {pk}, BFSOp>" for form in ("levels", "resident")
                                              for e in WHOLE_GRAPH_EPT for st in _WP for pk in _WP)}),
    # a whole BFS in one launch of one thread-block cluster (sm_90: the blocks' shared memories joined),
    # for graphs past the one-block kernel; 8 or 16 blocks, each block's CSR rows read from global
    # memory or staged in its shared memory; launched per traversal (levels) or once to serve many
    # from a mailbox in pinned host memory (resident)
    "cluster_graph": KernelSource("cluster_graph", "cluster_graph.cu",
                                  {"bfs": tuple(f"cluster_{form}<{c}, {st}, BFSOp>" for form in ("levels", "resident")
                                                for c in CLUSTER_SIZES for st in _WP)}),
    # (and in its block-balanced form for graphs with hubs; SSSP also in its in-place-expansion form,
    # TraversalConfig.inline_degree)
    "persistent": KernelSource("persistent", "persistent.cu",
                               {alg: names + tuple(n[:-1] + ", false, true>" for n in names)
                                + (tuple(n[:-1] + ", true>" for n in names) if alg == "sssp" else ())
                                for alg, names in _per_op("persistent_levels<{b}, {p}, {op}>", b=BLOCK_SIZES,
                                                          p=_WP).items()}, cooperative=True),
    "pull": KernelSource("pull", "pull.cu",
                         {"bfs": tuple(f"pull_level<{b}, {p}, BFSOp>" for b in BLOCK_SIZES for p in _WP)
                          + ("pull_bitmap<BFSOp>",)}),
    # batched multi-source BFS (bit-parallel, one cooperative launch per batch); BFS only
    "msbfs": KernelSource("msbfs", "msbfs.cu", {"bfs": tuple(
        [f"msbfs_init<{w}>" for w in (1, 2, 4, 8, 16, 32)]
        + [f"msbfs_levels<{w}, {b}>" for w in (1, 2, 4, 8, 16, 32) for b in (256, 512)])}, cooperative=True),
    # the batch's predecessor pass: an ordinary (non-cooperative) launch of any grid size
    "msbfs_post": KernelSource("msbfs_post", "msbfs.cu", {"bfs": ("msbfs_predecessors<short>",
                                                                  "msbfs_predecessors<int>")}),
    # the per-rank steps of the 1-D partitioned multi-GPU BFS (autotune/distributed.py); BFS only
    "distributed": KernelSource("distributed", "distributed.cu", {"bfs": (
        *(f"distributed_push<{DISTRIBUTED_BLOCK}, {q}>" for q in _WP), "distributed_mark",
        *(f"distributed_parents<{DISTRIBUTED_BLOCK}, {p}>" for p in _WP))}),
    "sssp": KernelSource("sssp", "sssp.cu", {"sssp": ("sssp_bucket_check", "sssp_r_move<false>", "sssp_r_move<true>", "sssp_far_min",
                                                      "sssp_far_split<false>", "sssp_far_split<true>")}),
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
        if (cand / "traversal.cuh").is_file():
            return cand
    try:  # editable installs map the package ``autotune.kernels`` to the top-level folder
        import importlib.util

        spec = importlib.util.find_spec("autotune.kernels")
        if spec is not None and spec.submodule_search_locations:
            for loc in spec.submodule_search_locations:
                if (Path(loc) / "traversal.cuh").is_file():
                    return Path(loc)
    except Exception:
        pass
    raise FileNotFoundError(f"autotune kernel sources not found next to {here} (looked in {here / 'kernels'} "
                            f"and {here.parent / 'kernels'}); reinstall the package")


def read_source(technique: str) -> str:
    """CUDA C++ source of *technique*'s kernel file."""
    return (kernel_dir() / KERNEL_SOURCES[technique].filename).read_text()


def _options(eid64: bool = False) -> tuple[str, ...]:
    return COMMON_OPTIONS + (f"-I{kernel_dir()}",) + ((EID64_OPTION,) if eid64 else ())


def _expressions(technique: str, algorithm: str | None) -> tuple[str, ...]:
    ks = KERNEL_SOURCES[technique]
    if algorithm is None:
        return ks.name_expressions
    if algorithm not in ks.names:
        raise ValueError(f"{ks.filename} has no kernels for algorithm {algorithm!r} (it has: {', '.join(ks.names)})")
    return ks.names[algorithm]


_MODULES: dict = {}
_MODULE_LOCKS: dict = {}
_LOCKS_LOCK = threading.Lock()


def _module(technique: str, algorithm: str, device_id: int, eid64: bool = False, name: str | None = None):
    """The compiled module of one instantiation (memoized; one compile per key even when several
    threads ask at once, e.g. a background :func:`prefetch` and the engine)."""
    key = (technique, algorithm, int(device_id), bool(eid64), name)
    mod = _MODULES.get(key)
    if mod is not None:
        return mod
    with _LOCKS_LOCK:
        lock = _MODULE_LOCKS.setdefault(key, threading.Lock())
    with lock:
        mod = _MODULES.get(key)
        if mod is None:
            mod = _MODULES[key] = _compile_module(*key)
    return mod


def _compile_module(technique: str, algorithm: str, device_id: int, eid64: bool = False, name: str | None = None):
    """Compile the module of one instantiation *name* of *technique*'s file (:func:`_module` memoizes).

    A module holds one kernel instantiation, so a run compiles exactly the kernels it launches
    (measured with NVRTC for sm_90: ``vertex_mapped.cu`` with its 29 BFS instantiations takes 34 s
    to compile, one of them about 1.5 s). ``name=None`` compiles every instantiation of the file for
    *algorithm* in one module (NVRTC's check in CI, :func:`compile_with_nvrtc`, does the same).
    """
    import cupy

    names = _expressions(technique, algorithm) if name is None else (name,)
    if name is not None and name not in _expressions(technique, algorithm):
        raise ValueError(f"{KERNEL_SOURCES[technique].filename} has no kernel {name!r} for {algorithm}")
    with cupy.cuda.Device(device_id):
        ks = KERNEL_SOURCES[technique]
        mod = cupy.RawModule(code=read_source(technique), options=_options(eid64), name_expressions=names,
                             enable_cooperative_groups=ks.cooperative)
        mod.compile()
        return mod


def get_kernel(technique: str, name: str, algorithm: str = "bfs", eid64: bool = False):
    """Compiled kernel *name* (a name expression of ``KERNEL_SOURCES[technique].names[algorithm]``) on
    the current device; *eid64* selects the variant built for int64 row offsets.

    Each instantiation is its own module, compiled once per (file, algorithm, device, offset type,
    name) and memoized; CuPy also keeps its on-disk cache of compiled binaries
    (``$CUPY_CACHE_DIR``), which ``autotune compile`` fills ahead of time.
    """
    import cupy

    return _module(technique, algorithm, cupy.cuda.Device().id, bool(eid64), name).get_function(name)


def prefetch(kernels, algorithm: str = "bfs", eid64: bool = False, max_workers: int | None = None) -> None:
    """Compile the modules of *kernels* (``(technique, name)`` pairs) on the current device, several
    at once, so that the :func:`get_kernel` calls that follow find them memoized.

    NVRTC compiles without holding Python's GIL, so threads overlap the compiles: a first run that
    needs five instantiations waits for the slowest one instead of their sum. Modules already
    memoized, or in CuPy's disk cache, cost milliseconds. A failure surfaces at the
    :func:`get_kernel` call that needs the module (with NVRTC's log), not here.
    """
    import os
    from concurrent.futures import ThreadPoolExecutor

    import cupy

    dev = cupy.cuda.Device().id
    todo = [k for k in dict.fromkeys((t, algorithm, dev, bool(eid64), n) for t, n in kernels) if k not in _MODULES]

    def one(key):
        try:
            _module(*key)
        except Exception:  # reported by get_kernel, in the caller's thread
            pass

    if len(todo) < 2:
        for key in todo:
            one(key)
        return
    workers = max_workers or min(len(todo), os.cpu_count() or 1)

    with ThreadPoolExecutor(max_workers=workers) as ex:
        list(ex.map(one, todo))


def compile_with_nvrtc(technique: str, arch: str = "sm_90", algorithm: str | None = None, eid64: bool = False) -> int:
    """Compile *technique*'s module with NVRTC directly (``cuda-bindings``); no GPU or driver needed.

    Parameters
    ----------
    technique : str
        A key of :data:`KERNEL_SOURCES`.
    arch : str
        Target such as ``"sm_80"`` or ``"sm_90"``.
    algorithm : {'bfs', 'sssp'} or None
        Instantiate the kernels of this operator only (None: every operator the file has).
    eid64 : bool, default False
        Build the int64-offset variant (``-DAT_EID64``).

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
    exprs = _expressions(technique, algorithm)
    src = read_source(technique).encode()
    # NVRTC resolves #include "..." through -I, as CuPy does.
    (prog,) = check(nvrtc.nvrtcCreateProgram(src, ks.filename.encode(), 0, [], []), "create")
    for expr in exprs:
        check(nvrtc.nvrtcAddNameExpression(prog, expr.encode()), f"add name {expr}")
    opts = [o.encode() for o in _options(eid64)] + [f"--gpu-architecture={arch}".encode()]
    res = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if res[0] != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        _, n = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * n
        nvrtc.nvrtcGetProgramLog(prog, log)
        raise RuntimeError(f"NVRTC failed to compile {ks.filename} for {arch}:\n{log.decode(errors='replace')}")
    for expr in exprs:
        (lowered,) = check(nvrtc.nvrtcGetLoweredName(prog, expr.encode()), f"lowered name {expr}")
        if not lowered:
            raise RuntimeError(f"{ks.filename}: name expression {expr} did not resolve")
    (size,) = check(nvrtc.nvrtcGetCUBINSize(prog), "cubin size")
    nvrtc.nvrtcDestroyProgram(prog)
    return int(size)


def precompile(technique: str, algorithm: str, device_id: int = 0, eid64: bool = False,
               names: tuple[str, ...] | None = None) -> float:
    """Compile the modules of *technique* for *algorithm* on device *device_id* through CuPy, one per
    instantiation as a run compiles them (:func:`get_kernel`), so that CuPy's on-disk cache
    (``$CUPY_CACHE_DIR``, by default ``~/.cupy/kernel_cache``) holds their binaries and later
    processes load them instead of compiling.

    ``autotune compile`` runs this for every instantiation of :data:`KERNEL_SOURCES`, in several
    processes at once (one NVRTC program per thread).

    Parameters
    ----------
    names : tuple of str, optional
        Only these instantiations (default: every one of the file for *algorithm*).

    Returns
    -------
    float
        Seconds it took (a cache hit takes milliseconds).
    """
    import time

    t0 = time.perf_counter()
    for name in names or _expressions(technique, algorithm):
        _module(technique, algorithm, int(device_id), bool(eid64), name)
    return time.perf_counter() - t0
