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

A CSR build that does not fit in one pass is split into source ranges built one after the other
(:func:`autotune.graph.from_edges` with ``passes``): :func:`build_passes` picks the fewest passes
whose plan fits, and :func:`csr_build_bytes` / :func:`device_build_bytes` give each pass count's
peak.

The device side: :func:`graph_device_bytes` (holding a CSR on the GPU, and building its transpose),
:func:`device_build_bytes` (building a CSR on the GPU, as the generators do) and
:func:`spec_device_bytes` (a generator spec, from its parameters alone) compute peak device bytes;
:func:`check_device_plan` refuses with :class:`~autotune.errors.DeviceMemoryError` (bytes needed vs
free). It takes the device's bytes as a parameter, so a CPU-only machine can check a plan for a
GPU it does not have (``total_device_bytes=141e9`` for an H200); otherwise the free bytes of the
current device (``$AUTOTUNE_DEVICE_MEMORY`` overrides them), and nothing is refused where neither
is known.
"""
from __future__ import annotations

import os

from .errors import DeviceMemoryError, HostMemoryError

__all__ = ["available_host_bytes", "check_host_memory", "csr_build_bytes", "edge_file_bytes",
           "available_device_bytes", "graph_device_bytes", "device_build_bytes", "spec_device_bytes",
           "check_device_plan", "build_passes", "MAX_BUILD_PASSES", "BUILD_CHUNK_EDGES",
           "DEVICE_PASS_KEYS"]

#: Bytes per stored (directed) edge of the CSR build: the int64 key (8), the duplicate mask (1), the
#: de-duplicated key copy (8).
_KEY_BYTES = 17
#: Extra bytes per stored edge of a weighted build: the ``argsort`` permutation (8), the gathered
#: keys (8), the float64/int64 weights and their gathered copy (16).
_WEIGHTED_KEY_BYTES = 32
#: Bytes per vertex of the build: the int64 row boundaries and their ``searchsorted`` (16), the
#: row offsets (4).
_VERTEX_BYTES = 20

#: Most source ranges (passes) a CSR build is split into; :func:`build_passes` picks the fewest
#: whose plan fits.
MAX_BUILD_PASSES = 64
#: Keys one pass of a CSR build on the GPU may hold: CuPy's sort, boolean-mask indexing and
#: ``searchsorted`` are not known to work on arrays of 2**31 or more elements (cupy/cupy#10290,
#: "huge array support"; measured on the H200: a one-pass build of kron scale 27, 4.3e9 keys, stops
#: with ``OverflowError: value too large to convert to int``), so larger builds take more passes.
DEVICE_PASS_KEYS = 2 ** 31 - 1
#: Input edges a multi-pass build examines at once (the histogram of the stored edges per source,
#: and each pass's selection of its edges): bounds the temporaries of the edge count.
BUILD_CHUNK_EDGES = 1 << 24
#: Bytes per chunk edge of those temporaries, at most: the selection mask and one comparison
#: (2), the selected endpoints or weights (8), NumPy's int64 copy of the ids ``bincount`` reads
#: and the bucket ids (16); rounded up.
_CHUNK_EDGE_BYTES = 32
#: log2 of the most buckets of that histogram (a bucket is ``2**shift`` consecutive vertices, so
#: the passes split the vertices at bucket boundaries).
BUILD_BUCKET_BITS = 20


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
                    weighted: bool = False, inputs: bool = True, passes: int = 1,
                    pass_keys: int | None = None) -> int:
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
    passes : int, default 1
        Source ranges the build is split into (``from_edges(..., passes=)``, chosen by
        :func:`build_passes`).
    pass_keys : int, optional
        With ``passes > 1``: stored edges (sort keys) of the largest pass; default
        ``ceil(stored / passes)``, balanced passes.

    Returns
    -------
    int
        Bytes; the phases are added up (an upper bound of the NumPy build, which frees little in
        between). One pass: the input arrays (held by the caller), their self-loop-free copies,
        the sort keys with the de-duplication mask and copy (``17`` bytes per stored edge,
        ``+ 32`` weighted), and the per-vertex arrays (``20 (n + 1)``). More passes (``s`` stored
        edges before de-duplication, ``k`` keys in the largest pass, ``c = min(m,``
        :data:`BUILD_CHUNK_EDGES` ``)``): the input arrays, no copy of them (``4 m`` for the
        converted weights), the output columns (``4 s``, ``+ 4 s`` weights) and row offsets
        (``4`` or ``8`` bytes per vertex), the histogram of the stored edges per source bucket and
        one chunk's (``16`` bytes per bucket, at most ``2**20`` buckets), the chunk temporaries
        (``32 c``), one pass's keys with their mask and copy (``17 k``, ``+ 32 k`` weighted), and
        the per-vertex arrays (``20 (n + 1)``).
    """
    m = max(int(n_input_edges), 0)
    n = max(int(n_vertices), 0)
    stored = m if directed else 2 * m
    held = (2 * id_bytes + (8 if weighted else 0)) * m
    per_key = _KEY_BYTES + (_WEIGHTED_KEY_BYTES if weighted else 0)
    if int(passes) <= 1:
        return ((held if inputs else 0)     # src, dst (and weights), alive in the caller
                + (2 * id_bytes + 1 + (8 if weighted else 0)) * m   # the self-loop mask and the filtered copies
                + per_key * stored
                + _VERTEX_BYTES * (n + 1))
    k = _pass_keys(stored, passes, pass_keys)
    out = (8 if weighted else 4) * stored + _offset_bytes(stored) * (n + 1) + (4 * m if weighted else 0)
    return ((held if inputs else 0) + out + 16 * _n_buckets(n) + _CHUNK_EDGE_BYTES * min(m, BUILD_CHUNK_EDGES)
            + per_key * k + _VERTEX_BYTES * (n + 1))


def _pass_keys(stored: int, passes: int, pass_keys: int | None) -> int:
    """Keys of the largest of *passes* passes: *pass_keys*, else ``ceil(stored / passes)``."""
    if pass_keys is not None:
        return max(int(pass_keys), 0)
    return -(-int(stored) // max(int(passes), 1))


def _n_buckets(n_vertices: int) -> int:
    """Buckets of the multi-pass build's histogram: ``2**shift`` consecutive vertices each, at most
    ``2**BUILD_BUCKET_BITS`` of them (as :func:`autotune.graph.from_edges` splits the vertices)."""
    n = max(int(n_vertices), 1)
    shift = max(0, max(1, (n - 1).bit_length()) - BUILD_BUCKET_BITS)
    return ((n - 1) >> shift) + 1


def build_passes(n_vertices: int, n_input_edges: int, *, directed: bool, id_bytes: int, weighted: bool = False,
                 inputs: bool = True, available: int | None = None, device: bool = False) -> tuple[int, int]:
    """The fewest passes whose CSR build plan fits in *available* bytes, and that plan's peak.

    Parameters
    ----------
    n_vertices, n_input_edges, directed, id_bytes, weighted, inputs
        As for :func:`csr_build_bytes` / :func:`device_build_bytes`.
    available : int, optional
        Bytes the build may use (free host or device memory, or a planned device's); None: not
        known, nothing is refused.
    device : bool, default False
        Plan the build on the GPU (:func:`device_build_bytes`) instead of the host
        (:func:`csr_build_bytes`).

    Returns
    -------
    (int, int)
        ``(1, one-pass peak)`` when *available* is None or the one pass fits (the fastest build;
        on the GPU the fewest passes of at most :data:`DEVICE_PASS_KEYS` stored edges each);
        else the smallest pass count in ``2..MAX_BUILD_PASSES`` whose plan (balanced passes) fits,
        and its peak; when none fits, the pass count of the smallest plan and that plan's bytes,
        which exceed *available* (the caller refuses, naming them). Plain arithmetic: microseconds.
    """
    plan = device_build_bytes if device else csr_build_bytes

    def peak(p: int) -> int:
        return plan(n_vertices, n_input_edges, directed=directed, id_bytes=id_bytes, weighted=weighted,
                    inputs=inputs, passes=p)

    stored = int(n_input_edges) * (1 if directed else 2)
    first = max(1, -(-stored // DEVICE_PASS_KEYS)) if device else 1  # CuPy: every pass below 2**31 keys
    best = (first, peak(first))
    if available is None or best[1] <= int(available):
        return best
    for p in range(first + 1, MAX_BUILD_PASSES + 1):
        b = peak(p)
        if b <= int(available):
            return p, b
        if b < best[1]:
            best = (p, b)
    return best


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
        The larger of the parse and the CSR build (:func:`csr_build_bytes` with the fewest passes
        that fit the available host memory, :func:`build_passes`, as the builder picks them).
    """
    parse = int(file_bytes) + parse_bytes_per_entry * max(int(n_parsed), 0)
    _, build = build_passes(n_vertices, n_input_edges, directed=directed, id_bytes=8, weighted=weighted,
                            available=available_host_bytes())
    return max(parse, build)


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


# ================================================================================================
# Device side
# ================================================================================================
_INT32_MAX = 2 ** 31 - 1


def available_device_bytes() -> int | None:
    """Device memory available to a new allocation, in bytes (None when unknown).

    ``$AUTOTUNE_DEVICE_MEMORY`` (bytes, e.g. ``141e9``) when set, else the driver's free bytes of
    the current device plus the bytes cached free in CuPy's memory pool, else None (no usable GPU).
    """
    env = os.environ.get("AUTOTUNE_DEVICE_MEMORY")
    if env:
        try:
            return int(float(env))
        except ValueError:
            pass
    from ._backend import gpu_available

    if not gpu_available():
        return None
    try:
        import cupy

        free, _total = cupy.cuda.runtime.memGetInfo()
        return int(free) + int(cupy.get_default_memory_pool().free_bytes())
    except Exception:  # pragma: no cover - a driver error: nothing known
        return None


def _offset_bytes(n_edges: int) -> int:
    """Bytes per row offset: int32 while the edges fit int32, else int64 (as the builder picks)."""
    return 4 if int(n_edges) <= _INT32_MAX else 8


def graph_device_bytes(n_vertices: int, n_edges: int, *, weighted: bool = False, transpose: bool = False,
                       index_bytes: int = 4, offset_bytes: int | None = None) -> int:
    """Peak device bytes of holding a CSR graph on the GPU, and of building its transpose.

    Parameters
    ----------
    n_vertices : int
    n_edges : int
        Stored (directed) edges; an undirected edge counts twice.
    weighted : bool, default False
        One int32/float32 weight per stored edge.
    transpose : bool, default False
        Also build the in-edges (the pull levels of a directed graph,
        :func:`autotune._engine.transpose_csr`).
    index_bytes : int, default 4
        Bytes per column index (int32).
    offset_bytes : int, optional
        Bytes per row offset; default int32 when ``n_edges <= 2**31 - 1``, else int64.

    Returns
    -------
    int
        The upload: ``offset_bytes * (n + 1) + index_bytes * m`` (``+ 4 m`` weighted; the host
        arrays are copied as they are, no device temporaries). With *transpose* the larger of the
        transpose build's transient peak and what it keeps (in-offsets and in-indices), on top:

        - the row id of every edge: ``arange`` (``offset_bytes m``) and ``searchsorted`` (int64,
          ``8 m``), its ``- 1`` (``8 m``), the int32 copy (``index_bytes m``): at most ``16 m``;
        - the stable ``argsort`` of the column indices: the row ids (``index_bytes m``), the int64
          order (``8 m``), the sort's key copy and radix double buffers (``(2 index_bytes + 8) m``):
          ``(3 index_bytes + 16) m`` = ``28 m``, the peak;
        - the gather ``rows[order]`` and its copy: ``(3 index_bytes + 8) m``;
        - the kept in-CSR: ``index_bytes m + offset_bytes (n + 1)``, with the int64 ``bincount``
          and ``cumsum`` of the in-degrees (``16 n``) while it is built.

    Notes
    -----
    An upper bound of the implementations as they are (CuPy's sort allocates its own scratch; a
    few KiB more are not counted). The traversal's own buffers (frontiers, distances, the
    technique's) come on top: :func:`autotune.engine.device_bytes_needed`.
    """
    n, m = max(int(n_vertices), 0), max(int(n_edges), 0)
    ob = _offset_bytes(m) if offset_bytes is None else int(offset_bytes)
    ib = int(index_bytes)
    resident = ob * (n + 1) + ib * m + (4 * m if weighted else 0)
    if not transpose:
        return resident
    rows = max(ob * m + 8 * m, 16 * m, 8 * m + ib * m)
    sort = (3 * ib + 16) * m
    gather = (3 * ib + 8) * m
    kept = ib * m + ob * (n + 1) + 16 * n
    return resident + max(rows, sort, gather, kept)


def device_build_bytes(n_vertices: int, n_input_edges: int, *, directed: bool, id_bytes: int = 4,
                       weighted: bool = False, inputs: bool = True, passes: int = 1,
                       pass_keys: int | None = None) -> int:
    """Peak device bytes of building a CSR on the GPU (:func:`autotune.graph.from_edges` with CuPy).

    One pass, phase by phase (``m`` input edges, ``s`` stored: ``m`` directed, ``2 m``
    undirected), on top of the input arrays the caller holds (``2 id_bytes m``, ``+ 4 m``
    weighted):

    1. self-loop removal: the mask and the filtered copies, ``(2 id_bytes + 1) m`` (``+ 4 m``);
    2. the int64 keys beside the filtered copies: ``2 id_bytes m + 8 s`` (``+ 4 m + 4 s``, the
       weights symmetrized);
    3. unweighted: the in-place sort (keys and the radix sort's double buffer, ``16 s``), then the
       de-duplication (keys, mask, compacted copy, ``17 s``); weighted: ``argsort`` (keys, weights,
       the int64 order, the sort's key copy and its double buffers for keys and indices, ``44 s``);
    4. the row offsets: the unique keys, ``arange`` and ``searchsorted`` in int64: ``8 s + 20 n``;
    5. the int32 column indices beside the keys: ``12 s``.

    The peak is the largest phase: ``17 s`` (``44 s`` weighted) for a large graph, where
    :func:`csr_build_bytes`, the host plan, adds the phases up. The result stays resident
    (:func:`graph_device_bytes`), below this peak.

    Several passes (``passes = P > 1``: the vertices split into *P* source ranges holding about
    ``k = ceil(s / P)`` stored edges each, built one after the other; ``c = min(m,``
    :data:`BUILD_CHUNK_EDGES` ``)``, ``nb <= 2**20`` histogram buckets). Resident throughout,
    beside the inputs: the output, allocated once at the stored count before de-duplication and
    filled range by range (columns ``4 s``, weights ``+ 4 s``; the row offsets ``ob (n + 1)``,
    ``ob`` 4 or 8 as the builder picks them; the weights converted to int32/float32, ``+ 4 m``),
    and the histogram (``8 nb``). On top, the largest of:

    1. the histogram of the stored edges per source bucket: a chunk's ``bincount`` (``8 nb``) and
       the chunk temporaries (``32 c``);
    2. a pass's selection: its int64 keys (``8 k``, weights ``+ 4 k``) and the chunk temporaries
       (``32 c``: the range mask, the selected endpoints and weights);
    3. its sort: ``17 k`` as above (``44 k`` weighted); the de-duplicated keys and weights;
    4. its row offsets: the de-duplicated keys (``8 k``, ``+ 4 k``), ``arange`` and
       ``searchsorted`` over its vertices (at most ``16 (n + 1)``);
    5. int64 offsets of a graph whose de-duplicated edges fit int32: the int32 copy, ``4 (n + 1)``.

    The columns and weights are written in place, at the running count of the de-duplicated
    edges; the arrays then keep their length before de-duplication (the graph's arrays are views
    of their first ``n_edges`` entries; on the host they are shrunk in place).

    Parameters
    ----------
    n_vertices, n_input_edges : int
    directed : bool
        False stores every edge twice.
    id_bytes : int, default 4
        Bytes per vertex id of the input arrays (the generators' int32).
    weighted : bool, default False
    inputs : bool, default True
        Count the input arrays (held by the caller during the build).
    passes : int, default 1
        Source ranges (:func:`build_passes` picks the fewest that fit).
    pass_keys : int, optional
        With ``passes > 1``: stored edges of the largest pass, when known (the builder measures
        them with its histogram); default ``ceil(s / passes)``.

    Returns
    -------
    int
        Peak device bytes.
    """
    n, m = max(int(n_vertices), 0), max(int(n_input_edges), 0)
    s = m if directed else 2 * m
    ob = _offset_bytes(s)
    held = (2 * id_bytes * m + (4 * m if weighted else 0)) if inputs else 0
    if int(passes) <= 1:
        loops = (2 * id_bytes + 1) * m + (4 * m if weighted else 0)
        keys = 2 * id_bytes * m + 8 * s + ((4 * m + 4 * s) if weighted else 0)
        sort = 44 * s if weighted else 17 * s
        offsets = 8 * s + 20 * (n + 1)
        cols = 12 * s + ob * (n + 1)
        return held + max(loops, keys, sort, offsets, cols)
    k = _pass_keys(s, passes, pass_keys)
    nb = _n_buckets(n)
    c = min(m, BUILD_CHUNK_EDGES)
    out = (8 if weighted else 4) * s + ob * (n + 1) + (4 * m if weighted else 0) + 8 * nb
    hist = 8 * nb + _CHUNK_EDGE_BYTES * c
    gather = (12 if weighted else 8) * k + _CHUNK_EDGE_BYTES * c
    sort = 44 * k if weighted else 17 * k
    offsets = (12 if weighted else 8) * k + 16 * (n + 1)
    final = 4 * (n + 1) if ob == 8 else 0
    return held + out + max(hist, gather, sort, offsets, final)


def spec_device_bytes(spec: str, *, transpose: bool | None = None,
                      device_bytes: int | None = None) -> tuple[int, str]:
    """Peak device bytes of generating a graph from a generator spec on the GPU and holding it.

    From the spec's parameters alone (nothing is generated), the largest phase: the generation
    (the generator's own arrays: e.g. Kronecker's uint32 endpoints, 8 bytes per generated edge,
    permuted in place, and its permutation, 12 bytes per vertex, with a chunk of draws), the CSR
    build (:func:`device_build_bytes` with the generator's edge arrays held, in the fewest passes
    that fit, :func:`build_passes`), the seeded weights when the spec asks for them, and the
    resident graph with its transpose (:func:`graph_device_bytes`; stored edges counted as
    generated, duplicates not subtracted).

    Parameters
    ----------
    spec : str
        E.g. ``"kron:scale=30"``.
    transpose : bool, optional
        Count the transpose; default: when the graph is directed.
    device_bytes : int, optional
        Device memory the build may use, which sets its pass count (e.g. ``141e9`` for a planned
        H200 from a CPU-only machine). Default :func:`available_device_bytes`; when that is
        unknown the build is planned in one pass.

    Returns
    -------
    (int, str)
        The bytes, and what was counted (``"1,073,741,824 vertices, about 17,179,869,184 generated
        edges stored in both directions"``) for a message. When no pass count fits
        *device_bytes*, the bytes of the smallest plan (more than *device_bytes*).

    Raises
    ------
    GeneratorSpecError
        On a malformed spec or an unknown generator or parameter.
    """
    from . import generators as gen_module
    from .errors import GeneratorSpecError

    text = spec.strip()
    name, raw = gen_module.parse_spec(text)
    gen = gen_module._GENERATORS.get(name)
    if gen is None:
        raise GeneratorSpecError(f"unknown generator {name!r} in spec {spec!r}")
    values = {}
    for key, value in raw.items():
        p = gen.param(key)
        if p is None:
            raise GeneratorSpecError(f"unknown parameter {key!r} for generator {name!r} (spec {spec!r})")
        values[key] = gen_module._coerce(name, p, value)
    if name == "uniform" and "n" not in values and "scale" not in values:
        values["scale"] = gen_module._UNIFORM_DEFAULT_SCALE
    for p in gen.params:
        if p.default is not None:
            values.setdefault(p.name, p.default)
    weighted = gen_module.parse_weight_spec(values.get("weights"), spec=spec) is not None
    size = gen_module._spec_size(name, values)
    if size is None:
        raise GeneratorSpecError(f"spec {spec!r}: its size is not known before generating")
    n, m, directed, extra = size
    stored = m if directed else 2 * m
    generate = extra + 8 * m  # the generator's int32 endpoints beside its own temporaries
    budget = int(device_bytes) if device_bytes is not None else available_device_bytes()
    _, build = build_passes(n, m, directed=directed, id_bytes=4, weighted=False, available=budget, device=True)
    # seeded weights are hashed from the built CSR's edges (edge_weights: int64 rows and columns,
    # their min/max, the uint64 hash): at most 32 bytes per stored edge beside the graph
    weigh = graph_device_bytes(n, stored) + 32 * stored if weighted else 0
    held = graph_device_bytes(n, stored, weighted=weighted, transpose=directed if transpose is None else transpose)
    detail = f"{n:,} vertices, about {m:,} generated edges" + ("" if directed else " stored in both directions")
    return max(generate, build, weigh, held), detail


def check_device_plan(what: str, needed_bytes: int, total_device_bytes: int | None = None, detail: str = "") -> None:
    """Refuse with :class:`DeviceMemoryError` when *needed_bytes* exceed the device's memory.

    Parameters
    ----------
    what : str
        The file or generator spec, named first in the message.
    needed_bytes : int
        The plan's peak bytes (:func:`graph_device_bytes`, :func:`spec_device_bytes`, ...).
    total_device_bytes : int, optional
        The bytes of a planned device (e.g. ``141e9`` for an H200, from a CPU-only machine).
        Default: :func:`available_device_bytes` of the current device; nothing is refused when
        that is unknown (no GPU and no ``$AUTOTUNE_DEVICE_MEMORY``).
    detail : str, optional
        What the plan counted, shown after *what*.

    Raises
    ------
    DeviceMemoryError
        ``"<what> (<detail>) needs N bytes (x GiB) of device memory but only F bytes (y GiB) are
        free"``; attributes ``needed_bytes`` and ``free_bytes``.
    """
    avail = int(total_device_bytes) if total_device_bytes is not None else available_device_bytes()
    if avail is not None and int(needed_bytes) > avail:
        raise DeviceMemoryError(f"{what} ({detail})" if detail else str(what), int(needed_bytes), avail)
