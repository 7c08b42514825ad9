"""The technique registry: one record per load-balancing technique.

A technique is an *advance* template (which thread handles which frontier edge) in one kernel file
of ``kernels/``; it holds no algorithm code and is instantiated over every operator (the traversal:
BFS's claim, SSSP's relax; see DESIGN.md "Kernels: advance x operator", after Gunrock's split of
advance and operator). Everything else reads this table:

- :mod:`autotune.config` takes the technique names and which knobs apply to which technique;
- :mod:`autotune._kernels` takes the kernel file and the template instantiations to compile;
- :mod:`autotune.engine` takes the push kernel's name for a config, the device bytes the technique
  needs beyond the common buffers, and the auxiliary state it fills in the ``BFSAux`` block;
- :mod:`autotune.sweep` and the search take the names through the config table.

Adding a technique is one kernel file plus one :class:`Technique` record in :data:`TECHNIQUES`
(its knobs, if it has its own, are rows of the config table that name it).

This module imports nothing from the package (config, engine and the kernel compiler import it).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

__all__ = ["Technique", "TECHNIQUES", "OPERATORS", "BLOCK_SIZES", "VIRTUAL_WARP_SIZES", "technique"]

#: Threads per block every technique is instantiated for (BFS-4K knob K6).
BLOCK_SIZES: tuple[int, ...] = (128, 256, 512, 1024)
#: Fixed virtual warp sizes of ``vertex_mapped`` (0 in a kernel name = dynamic).
VIRTUAL_WARP_SIZES: tuple[int, ...] = (1, 2, 4, 8, 16, 32)
#: Operators (traversals) by algorithm name: the C++ type every advance template is instantiated
#: over (``kernels/op_bfs.cuh``, ``kernels/op_sssp.cuh``).
OPERATORS: dict[str, str] = {"bfs": "BFSOp", "sssp": "SSSPOp"}


@dataclass(frozen=True)
class AuxContext:
    """What a technique's auxiliary-state builder gets from the engine.

    Attributes
    ----------
    config : TraversalConfig
    aux : numpy structured scalar (``AUX_DTYPE``)
        The host copy of the ``BFSAux`` block, filled in place.
    out_degrees : cupy.ndarray, shape (n_vertices,), int32
    row_offsets : cupy.ndarray, shape (n_vertices + 1,), int32
    n_vertices, n_edges : int
    ptr : callable
        ``ptr(name, cupy_array) -> int``: keeps the buffer alive with the engine, returns its address.
    """

    config: Any
    aux: Any
    out_degrees: Any
    row_offsets: Any
    n_vertices: int
    n_edges: int
    ptr: Callable[[str, Any], int]


def _no_aux(ctx: AuxContext) -> None:
    return None


def _no_bytes(n_vertices: int, n_edges: int, config) -> int:
    return 0


@dataclass(frozen=True)
class Technique:
    """One load-balancing technique (one advance template).

    Attributes
    ----------
    name : str
        The ``TraversalConfig.load_balance`` value.
    filename : str
        Its kernel file in ``kernels/``.
    push_kernel : str
        Name of its push-level kernel template; instantiated as
        ``push_kernel<{block}[, {vw}], {Op}>``.
    paper : str
        Where the technique comes from (title and section).
    virtual_warps : bool
        The kernel takes a virtual-warp-size template argument (``vertex_mapped``).
    gathering : bool
        The support strategies of Busato & Bombieri §3.4 (warp / block gathering, supplementary
        queues) apply; with them the ``heavy_vertices`` kernel may follow the push kernel.
    frontier_prefix : bool
        The technique reads the frontier's degree prefix-sums and row starts every level.
    extra_bytes : callable
        ``(n_vertices, n_edges, config) -> int``: device bytes of its own auxiliary buffers.
    build_aux : callable
        ``(AuxContext) -> None``: fills its fields of the ``BFSAux`` block and allocates its buffers.
    """

    name: str
    filename: str
    push_kernel: str
    paper: str
    virtual_warps: bool = False
    gathering: bool = False
    frontier_prefix: bool = False
    extra_bytes: Callable[[int, int, Any], int] = field(default=_no_bytes, compare=False)
    build_aux: Callable[[AuxContext], None] = field(default=_no_aux, compare=False)

    def kernel_name(self, config, algorithm: str = "bfs") -> str:
        """Name expression of the push kernel that runs *config*."""
        op = OPERATORS[algorithm]
        if self.virtual_warps:
            vw = config.virtual_warp_size
            return f"{self.push_kernel}<{config.block_size}, {0 if vw in (None, 'dynamic') else vw}, {op}>"
        return f"{self.push_kernel}<{config.block_size}, {op}>"

    def name_expressions(self, algorithm: str) -> tuple[str, ...]:
        """Every instantiation of this technique's push kernel for one operator (``traversal_init``
        and ``traversal_tick``, shared by every technique, come from ``kernels/traversal.cu``)."""
        op = OPERATORS[algorithm]
        names = []
        for b in BLOCK_SIZES:
            if self.virtual_warps:
                names += [f"{self.push_kernel}<{b}, {vw}, {op}>" for vw in (0,) + VIRTUAL_WARP_SIZES]
            else:
                names.append(f"{self.push_kernel}<{b}, {op}>")
        return tuple(names)


# ---------------------------------------------------------------------------------------------------
# per-technique auxiliary state
# ---------------------------------------------------------------------------------------------------
_AT_OFF = np.iinfo(np.int32).max


def _dc_bounds(cfg) -> list[tuple[int, int]]:
    return [(1, cfg.dc_small), (cfg.dc_small, cfg.dc_middle), (cfg.dc_middle, cfg.dc_large + 1),
            (cfg.dc_large + 1, _AT_OFF)]


def _dc_bytes(n_vertices: int, n_edges: int, cfg) -> int:
    return 2 * 4 * (n_vertices + 4) + 12 * 4  # two sets of class queues (at most n in all) + counters


def _dc_aux(ctx: AuxContext) -> None:
    """Degree-class queues (Enterprise §4.2): a class queue holds at most the graph's vertices of that class."""
    import cupy

    cfg, aux, deg = ctx.config, ctx.aux, ctx.out_degrees
    aux["dc_small"], aux["dc_middle"], aux["dc_large"] = cfg.dc_small, cfg.dc_middle, cfg.dc_large
    for c, (lo, hi) in enumerate(_dc_bounds(cfg)):
        cap = max(1, int(((deg >= lo) & (deg < hi)).sum()))
        for s in range(2):
            aux["dc_queue"][s * 4 + c] = ctx.ptr(f"dc_queue{s}{c}", cupy.empty(cap, dtype=np.int32))
    aux["dc_ctr"] = ctx.ptr("dc_ctr", cupy.zeros(12, dtype=np.int32))


def _em_bytes(n_vertices: int, n_edges: int, cfg) -> int:
    return 4 * n_edges  # COO source array


def _em_aux(ctx: AuxContext) -> None:
    """COO source of every edge, in CSR order (*Graph Algorithms on GPUs* §1.3)."""
    import cupy

    ro = ctx.row_offsets
    src = cupy.searchsorted(ro, cupy.arange(ctx.n_edges, dtype=ro.dtype), side="right") - 1
    ctx.aux["coo_src"] = ctx.ptr("coo_src", src.astype(np.int32))


def _bs_aux(ctx: AuxContext) -> None:
    ctx.aux["bs_dynamic_chunk"] = 1 if ctx.config.chunk_size == "dynamic" else 0


_B = "Busato & Bombieri, *Efficient load balancing techniques for graph traversal applications on GPUs*"

#: The registry. Order = the order of ``TraversalConfig.load_balance``'s allowed values.
TECHNIQUES: dict[str, Technique] = {t.name: t for t in (
    Technique("vertex_mapped", "vertex_mapped.cu", "vertex_mapped_push",
              f"{_B}, §3.1; Hong et al., *Accelerating CUDA Graph Algorithms at Maximum Warp* (PPoPP'11)",
              virtual_warps=True, gathering=True),
    Technique("scan_mapped", "scan_mapped.cu", "scan_mapped_push", f"{_B}, §3.2", gathering=True),
    Technique("binary_search", "binary_search.cu", "binary_search_push", f"{_B}, §3.3", frontier_prefix=True,
              build_aux=_bs_aux),
    Technique("degree_classified", "degree_classified.cu", "degree_classified_push",
              "Liu & Huang, *Enterprise: Breadth-First Graph Traversal on GPUs* (SC'15), §4.2",
              extra_bytes=_dc_bytes, build_aux=_dc_aux),
    Technique("edge_mapped", "edge_mapped.cu", "edge_mapped_push",
              "Busato & Bombieri, *Graph Algorithms on GPUs*, §1.3, §5.3.1", extra_bytes=_em_bytes,
              build_aux=_em_aux),
)}


def technique(name: str) -> Technique:
    """The registry record of *name*.

    Raises
    ------
    ValueError
        When *name* is not a technique, naming the known ones.
    """
    try:
        return TECHNIQUES[name]
    except KeyError:
        raise ValueError(f"unknown load-balancing technique {name!r}; known: {', '.join(TECHNIQUES)}") from None
