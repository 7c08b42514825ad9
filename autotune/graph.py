"""Graphs in CSR form (:class:`CSRGraph`) and the shared edge-list → CSR builder.

Terms follow DESIGN.md: ``row_offsets`` (n_vertices + 1) and ``column_indices`` (n_edges), int32
where they fit. Arrays live on the GPU (CuPy) when one is present, else on the host (NumPy).
"""
from __future__ import annotations

import dataclasses
import errno
import hashlib
import os
import re
import sys
import warnings
from dataclasses import dataclass, field

import numpy as np

from ._backend import default_xp, gpu_available, to_host, xp_of
from .errors import EmptyGraphError, GraphFormatError

INT32_MAX = np.iinfo(np.int32).max


@dataclass(eq=False)
class CSRGraph:
    """A graph in compressed sparse row form.

    Parameters
    ----------
    row_offsets : ndarray, shape (n_vertices + 1,), int32 (int64 when n_edges > 2**31 - 1)
        ``column_indices[row_offsets[u]:row_offsets[u+1]]`` are the out-neighbours of ``u``, sorted.
        NumPy or CuPy.
    column_indices : ndarray, shape (n_edges,), int32
        Destination vertex of every directed edge. An undirected graph stores both directions.
    directed : bool
        False when every edge is stored in both directions (symmetric).
    name : str
        Short human name (file stem or generator spec).
    spec : str, optional
        How the graph was obtained: a file path or a generator spec such as ``kron:scale=20``.
    vertex_ids : ndarray, shape (n_vertices,), int64, optional
        Original (file) id of each internal vertex when ids were relabelled; None means identity.
    n_self_loops_removed, n_duplicates_removed : int
        Counts of input edges dropped while cleaning.
    """

    row_offsets: object
    column_indices: object
    directed: bool
    name: str = "graph"
    spec: str | None = None
    vertex_ids: np.ndarray | None = None
    n_self_loops_removed: int = 0
    n_duplicates_removed: int = 0
    _cache: dict = field(default_factory=dict, repr=False)

    # ------------------------------------------------------------------ shape
    @property
    def n_vertices(self) -> int:
        """Number of vertices."""
        return int(self.row_offsets.shape[0] - 1)

    @property
    def n_edges(self) -> int:
        """Number of stored (directed) edges; an undirected edge counts twice."""
        return int(self.column_indices.shape[0])

    @property
    def on_device(self) -> bool:
        """True when the CSR arrays are CuPy arrays."""
        return xp_of(self.row_offsets) is not np

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        where = "gpu" if self.on_device else "host"
        return f"CSRGraph({self.name!r}, {kind}, n_vertices={self.n_vertices:,}, n_edges={self.n_edges:,}, {where})"

    # ------------------------------------------------------------- residency
    def host(self) -> tuple[np.ndarray, np.ndarray]:
        """``(row_offsets, column_indices)`` as NumPy arrays (copied from the GPU once, then cached)."""
        if not self.on_device:
            return self.row_offsets, self.column_indices
        if "host" not in self._cache:
            self._cache["host"] = (to_host(self.row_offsets), to_host(self.column_indices))
        return self._cache["host"]

    def device(self):
        """``(row_offsets, column_indices)`` as CuPy arrays on the current device (uploaded once).

        Raises
        ------
        GPUUnavailableError
            When no GPU is usable.
        """
        from ._backend import require_gpu

        require_gpu("CSRGraph.device()")
        if self.on_device:
            return self.row_offsets, self.column_indices
        if "device" not in self._cache:
            import cupy

            self._cache["device"] = (cupy.asarray(self.row_offsets), cupy.asarray(self.column_indices))
        return self._cache["device"]

    def out_degrees(self, xp=None):
        """Out-degree of every vertex, shape (n_vertices,), int64 (``xp`` chooses NumPy or CuPy)."""
        if xp is None or xp is xp_of(self.row_offsets):
            ro = self.row_offsets
        elif xp is np:
            ro = self.host()[0]
        else:
            ro = self.device()[0]
        return (ro[1:] - ro[:-1]).astype(np.int64)

    # --------------------------------------------------------------- identity
    @property
    def fingerprint(self) -> str:
        """``"sha256:<hex>"`` of directedness and the CSR arrays: equal graphs, equal fingerprints."""
        if "fingerprint" not in self._cache:
            ro, ci = self.host()
            h = hashlib.sha256()
            h.update(b"directed" if self.directed else b"undirected")
            h.update(np.ascontiguousarray(ro, dtype=np.int64).tobytes())
            h.update(np.ascontiguousarray(ci, dtype=np.int32).tobytes())
            self._cache["fingerprint"] = "sha256:" + h.hexdigest()
        return self._cache["fingerprint"]

    def index_of(self, original_ids) -> np.ndarray:
        """Internal vertex index of each original (file) id.

        Parameters
        ----------
        original_ids : int or array_like of int
            Ids as they appear in the input file.

        Returns
        -------
        ndarray of int64, same shape as the input

        Raises
        ------
        KeyError
            Naming the first id that is not a vertex of the graph.
        """
        ids = np.atleast_1d(np.asarray(original_ids, dtype=np.int64))
        if self.vertex_ids is None:
            bad = ids[(ids < 0) | (ids >= self.n_vertices)]
            if bad.size:
                raise KeyError(f"vertex id {int(bad[0])} is not in the graph (ids are 0..{self.n_vertices - 1})")
            out = ids
        else:
            order = self._cache.get("id_order")
            if order is None:
                order = np.argsort(self.vertex_ids, kind="stable")
                self._cache["id_order"] = order
            sorted_ids = self.vertex_ids[order]
            pos = np.searchsorted(sorted_ids, ids)
            pos_c = np.minimum(pos, len(sorted_ids) - 1)
            missing = sorted_ids[pos_c] != ids
            if missing.any():
                raise KeyError(f"vertex id {int(ids[missing][0])} does not appear in {self.spec or self.name}")
            out = order[pos_c].astype(np.int64)
        return out if np.ndim(original_ids) else out[:1].reshape(())

    def original_id(self, internal):
        """Original (file) id of internal vertex index/indices *internal*."""
        internal = np.asarray(internal)
        if self.vertex_ids is None:
            return internal.astype(np.int64)
        return self.vertex_ids[internal]

    def to_scipy(self):
        """The adjacency matrix as ``scipy.sparse.csr_matrix`` (int8 ones), shape (n, n)."""
        import scipy.sparse as sp

        ro, ci = self.host()
        data = np.ones(ci.shape[0], dtype=np.int8)
        return sp.csr_matrix((data, ci, ro), shape=(self.n_vertices, self.n_vertices))


def from_edges(src, dst, n_vertices: int | None = None, *, directed: bool = True, name: str = "graph",
               spec: str | None = None, vertex_ids=None, remove_self_loops: bool = True,
               remove_duplicates: bool = True, xp=None, source_label: str | None = None) -> CSRGraph:
    """Build a :class:`CSRGraph` from edge arrays (the one builder every loader and generator uses).

    Parameters
    ----------
    src, dst : array_like of int, shape (n_input_edges,)
        Edge endpoints, already 0-based internal ids in ``[0, n_vertices)``. NumPy or CuPy.
    n_vertices : int, optional
        Vertex count; defaults to ``max(src, dst) + 1``.
    directed : bool
        When False every edge is symmetrized (both directions stored).
    remove_self_loops, remove_duplicates : bool
        Drop ``u -> u`` edges and repeated ``u -> v`` edges; the counts are kept on the graph. For an
        undirected graph ``n_duplicates_removed`` counts input edges beyond the first of each
        unordered pair (``u v`` and ``v u`` are the same edge).
    vertex_ids : array_like of int, optional
        Original id of each internal vertex (length ``n_vertices``), kept on the host as int64.
    xp : module, optional
        ``numpy`` or ``cupy`` to build with (default: CuPy when a GPU is present). The result's
        arrays live in that module.
    source_label : str, optional
        Used in error messages (e.g. the file path).

    Returns
    -------
    CSRGraph
        Columns sorted within each row; ``row_offsets`` int32 when ``n_edges <= 2**31 - 1``.

    Raises
    ------
    EmptyGraphError
        When there are no vertices, or no edges remain after cleaning.
    GraphFormatError
        On a negative or non-integer id, an id >= n_vertices, or more than ``2**31 - 1`` vertices.
    """
    if xp is None:
        xp = default_xp() if gpu_available() else np
    src = _as_array(src, xp).ravel()
    dst = _as_array(dst, xp).ravel()
    if src.shape != dst.shape:
        raise GraphFormatError(f"src and dst differ in length ({src.shape[0]} vs {dst.shape[0]})", source_label)
    if src.size == 0:
        raise EmptyGraphError("graph has no edges", source_label)
    src = _as_integer(src, "source", source_label, xp)
    dst = _as_integer(dst, "destination", source_label, xp)
    lo = min(int(src.min()), int(dst.min()))
    hi = max(int(src.max()), int(dst.max()))
    if lo < 0:
        raise GraphFormatError(f"negative vertex id {lo}", source_label)
    if n_vertices is None:
        n_vertices = hi + 1
    elif hi >= n_vertices:
        raise GraphFormatError(f"vertex id {hi} out of range for {n_vertices} vertices", source_label)
    n = int(n_vertices)
    if n <= 0:
        raise EmptyGraphError("graph has no vertices", source_label)
    if n > INT32_MAX:
        raise GraphFormatError(f"{n:,} vertices exceed the int32 vertex id range", source_label)

    n_loops = 0
    if remove_self_loops:
        keep = src != dst
        n_loops = int(src.size - int(xp.count_nonzero(keep)))
        if n_loops:
            src, dst = src[keep], dst[keep]
        del keep
    n_input = int(src.size)
    if n_input == 0:
        raise EmptyGraphError("graph has no edges after removing self-loops", source_label)
    # one int64 key per stored edge, (src << bits) | dst: sorting the keys sorts by (row, column).
    # Built in place in one buffer: large temporaries cost more than the arithmetic on big graphs.
    bits = max(1, (n - 1).bit_length())
    if not directed and not remove_self_loops:
        nonloop = src != dst  # a kept self-loop is stored once
        back_src, back_dst = dst[nonloop], src[nonloop]
        del nonloop
    else:
        back_src, back_dst = dst, src
    n_keys = n_input if directed else n_input + int(back_src.size)
    keys = xp.empty(n_keys, dtype=np.int64)
    _fill_keys(keys[:n_input], src, dst, bits)
    if not directed:
        _fill_keys(keys[n_input:], back_src, back_dst, bits)
    del src, dst, back_src, back_dst
    # sort + neighbour mask; np.unique is avoided on purpose: NumPy 2.4's hash-based unique takes
    # ~60 s on 3e7 int64 keys where sort + mask takes ~1 s
    keys.sort()
    if remove_duplicates:
        keys = _unique_sorted(keys, xp)
    offset_dtype = np.int32 if keys.size <= INT32_MAX else np.int64
    row_offsets = xp.searchsorted(keys, xp.arange(n + 1, dtype=np.int64) << bits).astype(offset_dtype)
    n_loops_kept = 0
    if not directed and not remove_self_loops and remove_duplicates:
        n_loops_kept = int(xp.count_nonzero((keys >> bits) == (keys & ((1 << bits) - 1))))
    keys &= (1 << bits) - 1
    cols = keys.astype(np.int32)
    del keys
    if not remove_duplicates:
        n_dups = 0
    elif directed:
        n_dups = n_input - int(cols.size)
    else:
        # input edges (after loop removal) minus distinct undirected edges; a non-loop edge is
        # stored twice, a kept self-loop once
        n_dups = n_input - ((int(cols.size) - n_loops_kept) // 2 + n_loops_kept)
    if vertex_ids is not None:
        vertex_ids = np.asarray(to_host(vertex_ids)).astype(np.int64, copy=False).ravel()
        if vertex_ids.shape[0] != n:
            raise GraphFormatError(f"vertex_ids has {vertex_ids.shape[0]} entries for {n} vertices", source_label)
    return CSRGraph(row_offsets=row_offsets, column_indices=cols, directed=bool(directed), name=name, spec=spec,
                    vertex_ids=vertex_ids, n_self_loops_removed=n_loops, n_duplicates_removed=n_dups)


def _as_array(a, xp):
    """*a* as an array of module *xp*; CuPy input asked for on the host is copied down explicitly."""
    if xp is np:
        return a if isinstance(a, np.ndarray) else np.asarray(to_host(a))
    return xp.asarray(a)


def _as_integer(a, what: str, source_label, xp):
    """Vertex ids as an integer array (dtype kept); integral floats become int64, else GraphFormatError."""
    kind = a.dtype.kind
    if kind == "u" and a.dtype.itemsize == 8:  # uint64 does not mix with the int64 keys
        if a.size and int(a.max()) > _INT64_MAX:
            raise GraphFormatError(f"{what} vertex id {int(a.max())} exceeds the 64-bit signed range", source_label)
        return a.astype(np.int64)
    if kind in "iu":
        return a
    if kind == "b":
        return a.astype(np.int8)
    if kind == "f":
        bad = ~xp.isfinite(a) | (a != xp.floor(a))
        if bool(bad.any()):
            first = a[int(xp.argmax(bad))]
            raise GraphFormatError(f"non-integer {what} vertex id {float(first)!r}", source_label)
        return a.astype(np.int64)
    raise GraphFormatError(f"{what} vertex ids must be integers, got dtype {a.dtype}", source_label)


def _fill_keys(out, src, dst, bits: int) -> None:
    """``out[:] = (src << bits) | dst`` as int64, in place (no temporaries of the edge count)."""
    out[...] = src
    out <<= bits
    out |= dst


def _unique_sorted(keys, xp):
    """Distinct values of an already sorted 1-D array (NumPy or CuPy), in order."""
    if keys.size < 2:
        return keys
    keep = xp.empty(keys.size, dtype=bool)
    keep[0] = True
    xp.not_equal(keys[1:], keys[:-1], out=keep[1:])
    return keys[keep]


# ================================================================================================
# Loaders
# ================================================================================================

#: File extensions by format (after any compression suffix is removed); other names are sniffed.
EDGE_LIST_EXTENSIONS = (".txt", ".el", ".tsv", ".edges", ".edgelist")
MATRIX_MARKET_EXTENSIONS = (".mtx", ".mm")
DIMACS_EXTENSIONS = (".gr",)
_COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz")
_SPEC_RE = re.compile(r"^[a-z_]+:")
# a comment line of an edge list ('#' or '%' first); the newline stays so line numbers do not move
_EDGE_COMMENT_RE = re.compile(rb"(?m)^[ \t\r\f\v]*[#%][^\n]*")
_INT64_MAX = np.iinfo(np.int64).max
_FLOAT_EXACT = 2.0 ** 53  # largest magnitude up to which float64 holds every integer


def load_graph(source, *, directed: bool | None = None, name: str | None = None, remove_self_loops: bool = True,
               remove_duplicates: bool = True, xp=None) -> CSRGraph:
    """Load or build a graph from a file, a generator spec or an in-memory object.

    Parameters
    ----------
    source : str, os.PathLike, CSRGraph, scipy.sparse matrix/array, cupyx.scipy.sparse matrix, networkx graph, or tuple
        - a path: SNAP-style edge list (``.txt``, ``.el``, ``.tsv``, ``.edges``), Matrix Market
          (``.mtx``) or 9th-DIMACS shortest-path (``.gr``), each optionally compressed (``.gz``;
          ``.bz2`` and ``.xz`` too). Compression is detected from the file's magic bytes, and a
          file with another extension is sniffed from its first line.
        - a generator spec such as ``"kron:scale=22,edge_factor=16"`` or a bare generator name such
          as ``"kron"`` (a string matching ``^[a-z_]+:`` that is not an existing path), see
          :func:`autotune.generators.generate`.
        - a square ``scipy.sparse`` or ``cupyx.scipy.sparse`` matrix/array: every stored entry
          (explicit zeros included) is an edge ``row -> column``.
        - a ``networkx`` graph (``Graph``, ``DiGraph``, multigraphs); integer node labels are kept
          in ``vertex_ids`` (vertices in sorted label order), other labels in
          ``graph._cache['node_labels']`` (vertices in node order).
        - a tuple ``(src, dst)`` of NumPy or CuPy arrays of 0-based ids.
        - a :class:`CSRGraph`, returned as is.
    directed : bool, optional
        None keeps the input's own direction: edge lists, DIMACS files, general Matrix Market files
        and ``(src, dst)`` tuples are directed; symmetric Matrix Market files are undirected;
        sparse matrices are undirected when structurally symmetric; networkx graphs follow
        ``is_directed()``; generators follow their spec. False symmetrizes a directed input. True
        on an undirected input keeps both directions but marks the graph directed.
    name : str, optional
        Graph name; defaults to the file stem without compression and format extensions
        (``web-NotreDame`` for ``web-NotreDame.txt.gz``), the spec string for generators.
    remove_self_loops, remove_duplicates : bool
        Clean the edges (counts kept on the graph). Generators always clean.
    xp : module, optional
        ``numpy`` or ``cupy`` for the result's arrays (default: CuPy when a GPU is present). Files
        are parsed on the host.

    Returns
    -------
    CSRGraph
        ``spec`` is the path string for files and the canonical spec for generators.

    Raises
    ------
    FileNotFoundError
        When a path does not exist (and the string is not a generator spec).
    GraphFormatError
        On malformed input, naming the file and 1-based line.
    EmptyGraphError
        When the input has no edges (after cleaning).
    TypeError
        On an input of another type.
    ValueError
        On a malformed or unknown generator spec.

    Examples
    --------
    >>> g = load_graph("web-NotreDame.txt.gz")                # doctest: +SKIP
    >>> g = load_graph("kron:scale=20", xp=numpy)              # doctest: +SKIP
    """
    build = dict(remove_self_loops=remove_self_loops, remove_duplicates=remove_duplicates, xp=xp)
    if isinstance(source, CSRGraph):
        return source
    if isinstance(source, (str, os.PathLike)):
        text = os.fspath(source)
        if isinstance(text, bytes):
            text = os.fsdecode(text)
        if os.path.exists(text):
            return _load_file(text, directed=directed, name=name, **build)
        if isinstance(source, str) and _looks_like_spec(text):
            from . import generators

            return generators.generate(text.strip(), xp=xp, directed=directed, name=name)
        raise FileNotFoundError(errno.ENOENT, "graph file not found (nor a generator spec such as "
                                "'kron:scale=20')", text)
    if isinstance(source, tuple):
        if len(source) != 2:
            raise TypeError(f"load_graph expects a (src, dst) tuple of 2 arrays, got a tuple of {len(source)}")
        src, dst = source
        if xp is None and xp_of(src) is not np:
            build["xp"] = xp_of(src)  # CuPy arrays stay on the GPU
        return from_edges(src, dst, directed=True if directed is None else bool(directed),
                          name=name or "edges", **build)
    sp = sys.modules.get("scipy.sparse")
    if sp is not None and sp.issparse(source):
        return _from_sparse(source, sp, np, directed=directed, name=name, **build)
    cusp = sys.modules.get("cupyx.scipy.sparse")
    if cusp is not None and cusp.issparse(source):
        import cupy

        if xp is None:
            build["xp"] = cupy
        return _from_sparse(source, cusp, cupy, directed=directed, name=name, **build)
    nx = sys.modules.get("networkx")
    if nx is not None and isinstance(source, nx.Graph):
        return _from_networkx(source, directed=directed, name=name, **build)
    kind = type(source)
    raise TypeError(f"load_graph cannot read a {kind.__module__}.{kind.__qualname__}; expected a path, a generator "
                    "spec, a scipy/cupyx sparse matrix, a networkx graph, a (src, dst) tuple or a CSRGraph")


def _looks_like_spec(text: str) -> bool:
    if _SPEC_RE.match(text.strip()):
        return True
    from .generators import available_generators

    return text.strip() in available_generators()


def graph_name_from_path(path: str) -> str:
    """File stem without compression and format extension: ``a/web-NotreDame.txt.gz`` → ``web-NotreDame``."""
    base = os.path.basename(os.fspath(path))
    for suffix in _COMPRESSION_SUFFIXES:
        if base.lower().endswith(suffix):
            base = base[: -len(suffix)]
            break
    stem, _ = os.path.splitext(base)
    return stem or base


def _with_direction(g: CSRGraph, directed: bool | None, **build) -> CSRGraph:
    """*g* with the requested direction: mark an undirected graph directed, or symmetrize a directed one."""
    if directed is None or bool(directed) == g.directed:
        return g
    if directed:
        cache = {k: v for k, v in g._cache.items() if k == "node_labels"}
        return dataclasses.replace(g, directed=True, _cache=cache)
    xp = build.get("xp") or xp_of(g.row_offsets)
    ro, ci = (g.row_offsets, g.column_indices) if xp is xp_of(g.row_offsets) else (
        _as_array(g.row_offsets, xp), _as_array(g.column_indices, xp))
    # row of every stored edge (CuPy's repeat takes no array of counts, searchsorted works in both)
    rows = xp.searchsorted(ro[1:], xp.arange(g.n_edges, dtype=ro.dtype), side="right")
    out = from_edges(rows, ci, g.n_vertices, directed=False, name=g.name, spec=g.spec, vertex_ids=g.vertex_ids,
                     remove_self_loops=build.get("remove_self_loops", True),
                     remove_duplicates=build.get("remove_duplicates", True), xp=xp, source_label=g.spec)
    out.n_self_loops_removed += g.n_self_loops_removed
    out.n_duplicates_removed += g.n_duplicates_removed
    if "node_labels" in g._cache:
        out._cache["node_labels"] = g._cache["node_labels"]
    return out


# ------------------------------------------------------------------------------------ files
def _load_file(path: str, *, directed, name, remove_self_loops, remove_duplicates, xp) -> CSRGraph:
    if os.path.isdir(path):
        raise GraphFormatError("is a directory, not a graph file", path)
    data = _read_bytes(path)
    fmt = _file_format(path, data)
    vertex_ids = None
    if fmt == "mtx":
        src, dst, n, symmetric = _parse_matrix_market(data, path)
        if symmetric and not directed:  # None or False: undirected, each stored entry once
            keep = src >= dst
            src, dst = src[keep], dst[keep]
            is_directed = False
        else:  # general, or symmetric read as directed (both directions, marked directed)
            is_directed = True if directed is None else bool(directed)
    elif fmt == "dimacs":
        src, dst, n = _parse_dimacs(data, path)
        is_directed = True if directed is None else bool(directed)
    else:
        src, dst = _parse_edge_list(data, path)
        if src.size == 0:
            raise EmptyGraphError("graph has no edges (no data lines)", path)
        src, dst, vertex_ids, n = _compact_ids(src, dst)
        is_directed = True if directed is None else bool(directed)
    del data
    if src.size == 0:
        raise EmptyGraphError("graph has no edges", path)
    return from_edges(src, dst, n, directed=is_directed, name=name or graph_name_from_path(path), spec=path,
                      vertex_ids=vertex_ids, remove_self_loops=remove_self_loops,
                      remove_duplicates=remove_duplicates, xp=xp, source_label=path)


def _read_bytes(path: str) -> bytes:
    """The file's bytes, decompressed when its magic bytes say gzip, bzip2 or xz."""
    with open(path, "rb") as fh:
        raw = fh.read()
    try:
        if raw[:2] == b"\x1f\x8b":
            import gzip

            return gzip.decompress(raw)
        if raw[:3] == b"BZh":
            import bz2

            return bz2.decompress(raw)
        if raw[:6] == b"\xfd7zXZ\x00":
            import lzma

            return lzma.decompress(raw)
    except Exception as exc:  # gzip.BadGzipFile, EOFError, zlib.error, lzma.LZMAError, ...
        raise GraphFormatError(f"cannot decompress ({exc.__class__.__name__}: {exc})", path) from exc
    return raw


def _file_format(path: str, data: bytes) -> str:
    """``"mtx"``, ``"dimacs"`` or ``"edges"`` from the extension, else from the first non-blank line."""
    base = os.path.basename(path).lower()
    for suffix in _COMPRESSION_SUFFIXES:
        if base.endswith(suffix):
            base = base[: -len(suffix)]
            break
    ext = os.path.splitext(base)[1]
    if ext in MATRIX_MARKET_EXTENSIONS:
        return "mtx"
    if ext in DIMACS_EXTENSIONS:
        return "dimacs"
    if ext in EDGE_LIST_EXTENSIONS:
        return "edges"
    head = _strip_bom(data[:4096]).lstrip()
    if head[:14].lower() == b"%%matrixmarket":
        return "mtx"
    first = head.split(b"\n", 1)[0].split()
    if first and first[0] in (b"c", b"p"):
        return "dimacs"
    return "edges"


def _strip_bom(data: bytes) -> bytes:
    return data[3:] if data[:3] == b"\xef\xbb\xbf" else data


def _line_count_before(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset)


def _excerpt(line: bytes, limit: int = 60) -> str:
    text = line.rstrip(b"\r\n").decode("utf-8", "replace")
    return text if len(text) <= limit else text[:limit] + "..."


class _Tokens:
    """Whitespace-separated tokens of a byte string, located without a Python loop.

    Attributes: ``starts`` (byte offset of every token), ``first`` (token index of the first token
    of every non-blank line), ``counts`` (tokens on that line), ``lines`` (0-based line index of
    that line), ``newlines`` (offsets of the ``\\n`` bytes).
    """

    def __init__(self, body: bytes):
        b = np.frombuffer(body, dtype=np.uint8)
        self.bytes = b
        if b.size == 0:
            self.starts = self.first = self.counts = self.lines = self.newlines = np.zeros(0, np.int64)
            return
        tok = b > 32  # space, tab, CR, LF and other control bytes separate tokens
        start = np.empty(b.size, dtype=bool)
        start[0] = tok[0]
        np.greater(tok[1:], tok[:-1], out=start[1:])
        del tok
        self.starts = np.flatnonzero(start)
        del start
        self.newlines = np.flatnonzero(b == 10)
        line_of = np.searchsorted(self.newlines, self.starts)  # newlines before each token
        if line_of.size == 0:
            self.first = self.counts = self.lines = np.zeros(0, np.int64)
            return
        new_line = np.empty(line_of.size, dtype=bool)
        new_line[0] = True
        np.not_equal(line_of[1:], line_of[:-1], out=new_line[1:])
        self.first = np.flatnonzero(new_line)
        self.counts = np.diff(self.first, append=line_of.size)
        self.lines = line_of[self.first]

    def line_text(self, body: bytes, line_index: int) -> bytes:
        nl = self.newlines
        lo = 0 if line_index == 0 else int(nl[line_index - 1]) + 1
        hi = int(nl[line_index]) if line_index < nl.size else len(body)
        return body[lo:hi]


def _fromstring(text: bytes, dtype):
    """All whitespace-separated numbers of *text* (NumPy's C parser), or None when one does not parse."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return np.fromstring(text, dtype=dtype, sep=" ")
        except (ValueError, DeprecationWarning):
            return None


def _skip_leading(data: bytes, is_header) -> tuple[int, int]:
    """Offset and 1-based line number of the first line for which ``is_header(line)`` is False."""
    pos, lineno = 0, 1
    while pos < len(data):
        end = data.find(b"\n", pos)
        end = len(data) if end < 0 else end
        if not is_header(data[pos:end]):
            break
        pos, lineno = end + 1, lineno + 1
    return pos, lineno


def _is_blank_or_comment(line: bytes) -> bool:
    s = line.strip()
    return not s or s[:1] in (b"#", b"%")


# ------------------------------------------------------------------------------- edge lists
def _parse_edge_list(data: bytes, path: str) -> tuple[np.ndarray, np.ndarray]:
    """``(src, dst)`` int64 ids of a SNAP-style edge list (fast vectorised parse; slow scan on trouble)."""
    data = _strip_bom(data)
    start, _ = _skip_leading(data, _is_blank_or_comment)
    body = data[start:]
    if b"#" in body or b"%" in body:
        body = _EDGE_COMMENT_RE.sub(b"", body)
    tk = _Tokens(body)
    if tk.first.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    if bool(((tk.counts < 2) | (tk.counts > 3)).any()):
        return _scan_edge_list(data, path)  # reports the first bad line
    vals = _fromstring(body, np.int64)
    ok = vals is not None and vals.size == tk.starts.size
    if ok:
        src, dst = vals[tk.first], vals[tk.first + 1]
        ok = int(max(src.max(), dst.max())) < _INT64_MAX and int(min(src.min(), dst.min())) >= 0
    elif bool((tk.counts == 3).any()):
        # real-valued weights in the third column: parse as float64, ids must be exact integers
        vals = _fromstring(body, np.float64)
        ok = vals is not None and vals.size == tk.starts.size
        if ok:
            src_f, dst_f = vals[tk.first], vals[tk.first + 1]
            both = np.concatenate([src_f, dst_f])
            ok = bool(np.all((both >= 0) & (both < _FLOAT_EXACT) & (both == np.floor(both))))
            if ok:
                src, dst = src_f.astype(np.int64), dst_f.astype(np.int64)
    if not ok:
        return _scan_edge_list(data, path)
    return src, dst


def _parse_id(tok: bytes, path: str, lineno: int, what: str = "vertex id") -> int:
    t = tok[1:] if tok[:1] == b"+" else tok
    if t.isdigit():
        value = int(t)
        if value > _INT64_MAX:
            raise GraphFormatError(f"{what} {tok.decode(errors='replace')} exceeds the 64-bit range", path, lineno)
        return value
    if t[:1] == b"-" and t[1:].isdigit():
        raise GraphFormatError(f"negative {what} {tok.decode(errors='replace')}", path, lineno)
    raise GraphFormatError(f"non-integer {what} {tok.decode('utf-8', 'replace')!r}", path, lineno)


def _scan_edge_list(data: bytes, path: str) -> tuple[np.ndarray, np.ndarray]:
    """Line-by-line edge-list parse: raises at the first bad line, else returns the edges (slow path)."""
    src, dst = [], []
    for lineno, line in enumerate(data.split(b"\n"), start=1):
        fields = line.split()
        if not fields or fields[0][:1] in (b"#", b"%"):
            continue
        if len(fields) not in (2, 3):
            raise GraphFormatError(f"expected 2 or 3 fields (source target [weight]), found {len(fields)}: "
                                   f"{_excerpt(line)!r}", path, lineno)
        src.append(_parse_id(fields[0], path, lineno))
        dst.append(_parse_id(fields[1], path, lineno))
    return np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64)


def _compact_ids(src: np.ndarray, dst: np.ndarray):
    """Relabel sparse or huge ids to 0..k-1 (sorted by original id).

    Returns ``(src, dst, vertex_ids or None, n_vertices)``: ids are kept as they are unless
    ``max_id + 1 > 2 * distinct_ids`` or ``max_id + 1 > 2**31 - 1``.
    """
    m = src.size
    hi = int(max(src.max(), dst.max()))
    if hi + 1 > INT32_MAX or hi + 1 > 4 * m:  # at most 2m distinct ids: certainly sparse
        ids = np.concatenate([src, dst])
        ids.sort()
        ids = _unique_sorted(ids, np)
        return np.searchsorted(ids, src), np.searchsorted(ids, dst), ids, int(ids.size)
    seen = np.zeros(hi + 1, dtype=bool)
    seen[src] = True
    seen[dst] = True
    k = int(np.count_nonzero(seen))
    if hi + 1 > 2 * k:
        new_id = np.cumsum(seen, dtype=np.int32 if k <= INT32_MAX else np.int64) - 1
        return new_id[src], new_id[dst], np.flatnonzero(seen), k
    return src, dst, None, hi + 1


# ---------------------------------------------------------------------------- Matrix Market
_MTX_FIELDS = ("pattern", "integer", "real")
_MTX_SYMMETRIES = ("general", "symmetric")


def _parse_matrix_market(data: bytes, path: str):
    """``(rows, cols, n, symmetric)`` of a Matrix Market coordinate file (0-based, symmetric expanded)."""
    import io

    import scipy.io

    data = _strip_bom(data)
    end = data.find(b"\n")
    banner = data[: len(data) if end < 0 else end].strip()
    words = banner.decode("utf-8", "replace").split()
    if not words or words[0].lower() != "%%matrixmarket":
        raise GraphFormatError(f"missing '%%MatrixMarket' banner; the first line is {_excerpt(banner)!r}", path, 1)
    if len(words) != 5:
        raise GraphFormatError(f"malformed banner {_excerpt(banner)!r}: expected '%%MatrixMarket matrix "
                               "coordinate <pattern|integer|real> <general|symmetric>'", path, 1)
    obj, fmt, fld, sym = (w.lower() for w in words[1:])
    if obj != "matrix":
        raise GraphFormatError(f"unsupported Matrix Market object {obj!r} (only 'matrix')", path, 1)
    if fmt != "coordinate":
        raise GraphFormatError(f"unsupported Matrix Market format {fmt!r}: a graph needs the sparse 'coordinate' "
                               "format", path, 1)
    if fld not in _MTX_FIELDS:
        raise GraphFormatError(f"unsupported Matrix Market field {fld!r} (supported: {', '.join(_MTX_FIELDS)})",
                               path, 1)
    if sym not in _MTX_SYMMETRIES:
        raise GraphFormatError(f"unsupported Matrix Market symmetry {sym!r} (supported: "
                               f"{', '.join(_MTX_SYMMETRIES)})", path, 1)
    pos, lineno = _skip_leading(data, lambda line: not line.strip() or line.lstrip()[:1] == b"%")
    if pos >= len(data):
        raise GraphFormatError("missing size line 'rows columns entries'", path, lineno)
    end = data.find(b"\n", pos)
    size_line = data[pos: len(data) if end < 0 else end]
    fields = size_line.split()
    if len(fields) != 3 or not all(f.isdigit() for f in fields):
        raise GraphFormatError(f"malformed size line {_excerpt(size_line)!r}: expected 'rows columns entries'",
                               path, lineno)
    n_rows, n_cols, nnz = (int(f) for f in fields)
    if n_rows != n_cols:
        raise GraphFormatError(f"matrix is {n_rows} x {n_cols}; an adjacency matrix must be square", path, lineno)
    if nnz == 0 or n_rows == 0:
        raise EmptyGraphError(f"matrix has no entries ({n_rows} x {n_cols}, 0 stored), so the graph has no edges",
                              path)
    try:
        a = scipy.io.mmread(io.BytesIO(data))
    except Exception as exc:  # scipy/fast_matrix_market raise ValueError/RuntimeError with "Line N: ..."
        msg = str(exc)
        found = re.search(r"[Ll]ine (\d+)", msg)
        raise GraphFormatError(f"Matrix Market parse error: {msg}", path,
                               int(found.group(1)) if found else None) from exc
    if not hasattr(a, "tocoo"):  # pragma: no cover - dense only for 'array', excluded above
        raise GraphFormatError("expected a sparse coordinate matrix", path)
    a = a.tocoo()
    rows = np.asarray(a.row, dtype=np.int64)
    cols = np.asarray(a.col, dtype=np.int64)
    return rows, cols, n_rows, sym == "symmetric"


# ---------------------------------------------------------------------------------- DIMACS
def _parse_dimacs(data: bytes, path: str) -> tuple[np.ndarray, np.ndarray, int]:
    """``(src, dst, n)`` (0-based) of a 9th DIMACS ``.gr`` file; vectorised when the arcs are plain."""
    data = _strip_bom(data)
    # header: comment lines and the problem line, up to the first arc line
    pos, lineno = _skip_leading(data, lambda line: not line.strip() or line.lstrip()[:1] in (b"c", b"p"))
    header = data[:pos]
    p_lines = [(i, ln) for i, ln in enumerate(header.split(b"\n"), start=1) if ln.lstrip()[:1] == b"p"]
    if len(p_lines) != 1 or pos >= len(data):
        return _scan_dimacs(data, path)  # missing/duplicate problem line, arc before it, or no arcs
    p_lineno, p_line = p_lines[0]
    n, m = _dimacs_problem(p_line, path, p_lineno)
    body = data[pos:]
    tk = _Tokens(body)
    if tk.first.size == 0:
        return _scan_dimacs(data, path)
    b = tk.bytes
    lead = tk.starts[tk.first]
    after = lead + 1
    is_arc = b[lead] == ord("a")
    is_arc &= after < b.size
    is_arc[is_arc] &= b[after[is_arc]] <= 32
    n_lines = tk.first.size
    if (not bool(is_arc.all()) or bool(((tk.counts < 3) | (tk.counts > 4)).any())
            or body.count(b"a") != n_lines):
        return _scan_dimacs(data, path)
    numbers = body.translate(None, b"a")
    id_first = tk.first - np.arange(n_lines)  # each line lost its 'a' token
    vals = _fromstring(numbers, np.int64)
    ok = vals is not None and vals.size == tk.starts.size - n_lines
    if not ok:
        vals = _fromstring(numbers, np.float64)  # real-valued arc lengths
        ok = vals is not None and vals.size == tk.starts.size - n_lines
        if ok:
            uv = np.concatenate([vals[id_first], vals[id_first + 1]])
            ok = bool(np.all((np.abs(uv) < _FLOAT_EXACT) & (uv == np.floor(uv))))
            vals = vals.astype(np.int64) if ok else vals
    if not ok:
        return _scan_dimacs(data, path)
    u, v = vals[id_first], vals[id_first + 1]
    if bool(((u < 1) | (u > n) | (v < 1) | (v > n)).any()):
        return _scan_dimacs(data, path)
    if n_lines != m:
        raise GraphFormatError(f"problem line declares {m} arcs but the file has {n_lines}", path, p_lineno)
    return u - 1, v - 1, n


def _dimacs_problem(line: bytes, path: str, lineno: int) -> tuple[int, int]:
    fields = line.split()
    if len(fields) != 4:
        raise GraphFormatError(f"malformed problem line {_excerpt(line)!r}: expected 'p sp <vertices> <arcs>'",
                               path, lineno)
    if fields[1] != b"sp":
        raise GraphFormatError(f"unsupported problem type {fields[1].decode('utf-8', 'replace')!r} "
                               "(expected 'p sp <vertices> <arcs>')", path, lineno)
    n = _parse_id(fields[2], path, lineno, "vertex count")
    m = _parse_id(fields[3], path, lineno, "arc count")
    if n == 0:
        raise EmptyGraphError("problem line declares 0 vertices", path, lineno)
    return n, m


def _scan_dimacs(data: bytes, path: str) -> tuple[np.ndarray, np.ndarray, int]:
    """Line-by-line DIMACS parse: raises at the first bad line, else returns the arcs (slow path)."""
    n = m = p_lineno = None
    src, dst = [], []
    for lineno, line in enumerate(data.split(b"\n"), start=1):
        fields = line.split()
        if not fields or fields[0][:1] == b"c":
            continue
        kind = fields[0]
        if kind == b"p":
            if p_lineno is not None:
                raise GraphFormatError(f"duplicate problem line (the first is line {p_lineno})", path, lineno)
            n, m = _dimacs_problem(line, path, lineno)
            p_lineno = lineno
        elif kind == b"a":
            if p_lineno is None:
                raise GraphFormatError("arc line before the problem line 'p sp <vertices> <arcs>'", path, lineno)
            if len(fields) not in (3, 4):
                raise GraphFormatError(f"malformed arc line {_excerpt(line)!r}: expected 'a <from> <to> <length>'",
                                       path, lineno)
            u = _parse_id(fields[1], path, lineno)
            v = _parse_id(fields[2], path, lineno)
            for x in (u, v):
                if not 1 <= x <= n:
                    raise GraphFormatError(f"vertex id {x} out of range 1..{n}", path, lineno)
            src.append(u - 1)
            dst.append(v - 1)
        else:
            raise GraphFormatError(f"unexpected line {_excerpt(line)!r}: DIMACS lines start with 'c', 'p' or 'a'",
                                   path, lineno)
    if p_lineno is None:
        raise GraphFormatError("missing problem line 'p sp <vertices> <arcs>'", path)
    if len(src) != m:
        raise GraphFormatError(f"problem line declares {m} arcs but the file has {len(src)}", path, p_lineno)
    return np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), n


# --------------------------------------------------------------------------- in-memory input
def _is_symmetric(rows, cols, n: int, xp) -> bool:
    """Whether the pattern ``{(rows[i], cols[i])}`` equals its transpose."""
    fwd = rows * n + cols
    fwd.sort()
    fwd = _unique_sorted(fwd, xp)
    back = cols * n + rows
    back.sort()
    back = _unique_sorted(back, xp)
    return fwd.size == back.size and bool((fwd == back).all())


def _from_sparse(a, sp_module, mod, *, directed, name, remove_self_loops, remove_duplicates, xp) -> CSRGraph:
    if a.shape[0] != a.shape[1]:
        raise GraphFormatError(f"sparse matrix is {a.shape[0]} x {a.shape[1]}; an adjacency matrix must be square")
    n = int(a.shape[0])
    coo = a.tocoo()
    rows = mod.asarray(coo.row).astype(np.int64)
    cols = mod.asarray(coo.col).astype(np.int64)
    if rows.size == 0:
        raise EmptyGraphError("sparse matrix has no stored entries, so the graph has no edges")
    symmetric = directed is not True and _is_symmetric(rows, cols, n, mod)
    if directed is None:
        directed = not symmetric
    if not directed and symmetric:  # each undirected edge once, so that duplicates are counted right
        keep = rows >= cols
        rows, cols = rows[keep], cols[keep]
    return from_edges(rows, cols, n, directed=bool(directed), name=name or "sparse", spec=None,
                      remove_self_loops=remove_self_loops, remove_duplicates=remove_duplicates, xp=xp)


def _from_networkx(G, *, directed, name, remove_self_loops, remove_duplicates, xp) -> CSRGraph:
    import itertools

    nodes = list(G.nodes())
    n = len(nodes)
    if n == 0:
        raise EmptyGraphError("networkx graph has no nodes")
    m = G.number_of_edges()
    ends = itertools.chain.from_iterable((u, v) for u, v, *_ in G.edges())  # networkx holds edges in dicts
    integer_labels = all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) for x in nodes)
    vertex_ids = labels = None
    if integer_labels:
        try:
            ids = np.array(nodes, dtype=np.int64)
        except OverflowError:
            integer_labels = False
    if integer_labels:
        order = np.sort(ids)
        flat = np.fromiter(ends, dtype=np.int64, count=2 * m)
        if not (order[0] == 0 and order[-1] == n - 1):
            vertex_ids = order
            flat = np.searchsorted(order, flat)
    else:
        index = {node: i for i, node in enumerate(nodes)}
        flat = np.fromiter((index[x] for x in ends), dtype=np.int64, count=2 * m)
        labels = nodes
    if m == 0:
        raise EmptyGraphError("networkx graph has no edges")
    g = from_edges(flat[0::2], flat[1::2], n, directed=G.is_directed(), name=name or (G.name or "networkx"),
                   spec=None, vertex_ids=vertex_ids, remove_self_loops=remove_self_loops,
                   remove_duplicates=remove_duplicates, xp=xp)
    if labels is not None:
        g._cache["node_labels"] = labels
    return _with_direction(g, directed, remove_self_loops=remove_self_loops, remove_duplicates=remove_duplicates,
                           xp=xp)
