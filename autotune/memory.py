"""Host memory plan: peak bytes a load or a generation will allocate, checked before allocating.

A Matrix Market or DIMACS header, or a generator spec, declares how large a graph is. From those
sizes :func:`csr_build_bytes` and friends compute the peak host bytes of the CSR build
(:func:`autotune.graph.from_edges`: the edge arrays, the int64 sort keys, the de-duplication mask
and copy, the row offsets) plus what the parser or generator holds at the same time, and
:func:`check_host_memory` refuses with :class:`~autotune.errors.HostMemoryError` — bytes needed vs
available, naming the file or spec — before NumPy allocates anything. A declared size that is
wrong (a header claiming more entries than the file has) fails later with a format error; the plan
only has to be an upper bound of what a well-formed input of that size needs.

Available memory is ``MemAvailable`` of ``/proc/meminfo`` (what the kernel can hand out without
swapping), else ``os.sysconf`` free pages; ``$AUTOTUNE_HOST_MEMORY`` (bytes, e.g. ``64e9``)
overrides it, e.g. to allow for swap. When neither is known nothing is refused.
"""
from __future__ import annotations

import os

from .errors import HostMemoryError

__all__ = ["available_host_bytes", "check_host_memory", "csr_build_bytes", "edge_file_bytes"]

#: Bytes per stored (directed) edge of the CSR build: the int64 key (8), the duplicate mask (1), the
#: de-duplicated key copy (8).
_KEY_BYTES = 17
#: Extra bytes per stored edge of a weighted build: the ``argsort`` permutation (8), the gathered
#: keys (8), the float64/int64 weights and their gathered copy (16).
_WEIGHTED_KEY_BYTES = 32
#: Bytes per vertex of the build: the int64 row boundaries and their ``searchsorted`` (16), the
#: row offsets (4).
_VERTEX_BYTES = 20


def available_host_bytes() -> int | None:
    """Host memory available to a new allocation, in bytes (None when unknown).

    ``$AUTOTUNE_HOST_MEMORY`` when set, else ``MemAvailable`` of ``/proc/meminfo``, else
    ``os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")``.
    """
    env = os.environ.get("AUTOTUNE_HOST_MEMORY")
    if env:
        try:
            return int(float(env))
        except ValueError:
            pass
    try:
        with open("/proc/meminfo", "rb") as fh:
            for line in fh:
                if line.startswith(b"MemAvailable:"):
                    parts = line.split()
                    return int(parts[1]) * (1024 if parts[2:3] == [b"kB"] else 1)
    except (OSError, ValueError, IndexError):
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES")) * int(os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def csr_build_bytes(n_vertices: int, n_input_edges: int, *, directed: bool, id_bytes: int = 8,
                    weighted: bool = False, inputs: bool = True) -> int:
    """Peak host bytes of :func:`autotune.graph.from_edges` on *n_input_edges* edges.

    Parameters
    ----------
    n_vertices : int
        Declared vertex count.
    n_input_edges : int
        Edges handed to the builder (before self-loop and duplicate removal).
    directed : bool
        False stores every edge twice.
    id_bytes : int, default 8
        Bytes per vertex id of the input arrays (8 for int64 from the parsers, 4 for the generators'
        int32).
    weighted : bool, default False
        The edges carry weights: the input weights, their symmetrized copy, and the sort by
        ``argsort`` (an int64 permutation, the gathered keys and weights).
    inputs : bool, default True
        Count the input arrays (False when they are allocated already).

    Returns
    -------
    int
        The input arrays (held by the caller), their self-loop-free copies, the sort keys with
        the de-duplication mask and copy, and the per-vertex arrays.
    """
    m = max(int(n_input_edges), 0)
    stored = m if directed else 2 * m
    held = (2 * id_bytes + (8 if weighted else 0)) * m
    return ((held if inputs else 0)     # src, dst (and weights), alive in the caller
            + (2 * id_bytes + 1 + (8 if weighted else 0)) * m   # the self-loop mask and the filtered copies
            + _KEY_BYTES * stored
            + (_WEIGHTED_KEY_BYTES * stored if weighted else 0)
            + _VERTEX_BYTES * (max(int(n_vertices), 0) + 1))


def edge_file_bytes(n_vertices: int, n_parsed: int, n_input_edges: int, *, directed: bool, file_bytes: int = 0,
                    parse_bytes_per_entry: int = 40, weighted: bool = False) -> int:
    """Peak host bytes of loading a file that declares *n_vertices* vertices.

    Parameters
    ----------
    n_vertices : int
    n_parsed : int
        Entries the parser returns (a symmetric Matrix Market file's off-diagonal entries twice).
    n_input_edges : int
        Edges handed to the CSR build.
    directed : bool
        Direction of the build.
    file_bytes : int
        Bytes of the (decompressed) file, held while parsing.
    parse_bytes_per_entry : int, default 40
        Parser bytes per entry: indices, values and their int64 copies.
    weighted : bool, default False
        The entries carry weights (see :func:`csr_build_bytes`).

    Returns
    -------
    int
        The larger of the parse and the CSR build (:func:`csr_build_bytes`).
    """
    parse = int(file_bytes) + parse_bytes_per_entry * max(int(n_parsed), 0)
    return max(parse, csr_build_bytes(n_vertices, n_input_edges, directed=directed, weighted=weighted))


def check_host_memory(what: str, needed_bytes: int, detail: str = "") -> None:
    """Refuse with :class:`HostMemoryError` when *needed_bytes* exceed the available host memory.

    Parameters
    ----------
    what : str
        The file or generator spec, named in the message.
    needed_bytes : int
        The plan's peak bytes.
    detail : str, optional
        What the plan counted (e.g. ``"2,000,000,000 vertices, 1 edge"``), shown in the message.

    Raises
    ------
    HostMemoryError
        With bytes needed vs available.
    """
    avail = available_host_bytes()
    if avail is not None and int(needed_bytes) > avail:
        raise HostMemoryError(what, int(needed_bytes), avail, detail)
