"""Graph loaders: files (edge lists, Matrix Market, DIMACS), generator specs and in-memory inputs.

:func:`load_graph` turns any supported input into a :class:`CSRGraph` (defined in
:mod:`autotune._csr` with the builder :func:`from_edges`; both are re-exported here). Weights are
kept where the input carries them: Matrix Market values, an edge list's chosen weight column, DIMACS
arc lengths, the data of a sparse matrix, a NetworkX edge attribute, a ``(src, dst, w)`` tuple.

Terms follow DESIGN.md: ``row_offsets`` (n_vertices + 1) and ``column_indices`` (n_edges), int32
where they fit, ``weights`` (int32 or float32, one per stored edge). Arrays live on the GPU (CuPy)
when one is present, else on the host (NumPy).

Imports run one way: this module imports :mod:`autotune.generators` (for generator specs, when one
is given: a file loads without it), which imports :mod:`autotune._csr`; neither imports this module.
"""
from __future__ import annotations

import errno
import os
import re
import sys
import warnings

import numpy as np

from ._backend import xp_of
from ._csr import (  # noqa: F401  (re-exported: CSRGraph and from_edges are public here)
    BINARY_EXTENSION, BINARY_MAGIC, INT32_MAX, WEIGHT_RULE, CSRGraph, _unique_sorted, _with_direction, from_edges,
    load_binary, object_weights, weights_problem,
)
from .errors import EmptyGraphError, GraphFileError, GraphFormatError, InvalidArgumentError, MissingFileError


# ================================================================================================
# Loaders
# ================================================================================================

#: File extensions by format (after any compression suffix is removed); other names are sniffed.
EDGE_LIST_EXTENSIONS = (".txt", ".el", ".tsv", ".edges", ".edgelist", ".csv")
MATRIX_MARKET_EXTENSIONS = (".mtx", ".mm")
DIMACS_EXTENSIONS = (".gr",)
_COMPRESSION_SUFFIXES = (".gz", ".bz2", ".xz")
_SPEC_RE = re.compile(r"^[a-z_]+:")
# a comment line of an edge list ('#' or '%' first); the newline stays so line numbers do not move
_EDGE_COMMENT_RE = re.compile(rb"(?m)^[ \t\r\f\v]*[#%][^\n]*")
# a comment line among Matrix Market entries; emptied (its newline kept) so the parser's line numbers stay right
_MTX_COMMENT_RE = re.compile(rb"(?m)^[ \t\r\f\v]*%[^\n]*")
# an empty field of a comma-separated line: a comma first, last, or after another comma
_CSV_EMPTY_FIELD_RE = re.compile(rb"(?m)(^[ \t]*,|,[ \t\r]*,|,[ \t\r]*$)")
_INT64_MAX = np.iinfo(np.int64).max
_FLOAT_EXACT = 2.0 ** 53  # largest magnitude up to which float64 holds every integer
_WEIGHT_HINT = "; load with weight=None to ignore the weights"


def load_graph(source, *, directed: bool | None = None, name: str | None = None, remove_self_loops: bool = True,
               remove_duplicates: bool = True, xp=None, weight_column: int | None = None,
               weight: str | None = "weight") -> CSRGraph:
    """Load or build a graph from a file, a generator spec or an in-memory object.

    Parameters
    ----------
    source : str, os.PathLike, CSRGraph, scipy.sparse matrix/array, cupyx.scipy.sparse matrix, networkx graph, or tuple
        - a path: autotune's binary form (``.atg``, written by :meth:`CSRGraph.save`: memory-mapped,
          nothing parsed; see :func:`autotune._csr.load_binary`, which also has the ``mmap`` and
          ``verify`` options), SNAP-style edge list (``.txt``, ``.el``, ``.tsv``, ``.edges``, ``.csv``), Matrix
          Market (``.mtx``) or 9th-DIMACS shortest-path (``.gr``), each optionally compressed
          (``.gz``; ``.bz2`` and ``.xz`` too). Compression is detected from the file's magic bytes,
          and a file with another extension is sniffed from its first line. Edge lists are
          whitespace-separated, or comma-separated when their first data line holds a comma. A
          data line holds 2 or 3 fields, or as many as the first data line (extra columns such as
          timestamps, ratings or counts are read only when chosen as the *weight_column*).
        - a generator spec such as ``"kron:scale=22,edge_factor=16"`` or a bare generator name such
          as ``"kron"`` (a string matching ``^[a-z_]+:`` that is not an existing path), see
          :func:`autotune.generators.generate`; ``weights=int:1:255`` in the spec makes it weighted.
        - a square ``scipy.sparse`` or ``cupyx.scipy.sparse`` matrix/array: every stored entry
          (explicit zeros included) is an edge ``row -> column``; its ``data`` are the weights
          (boolean data: unweighted).
        - a ``networkx`` graph (``Graph``, ``DiGraph``, multigraphs); integer node labels are kept
          in ``vertex_ids`` (vertices in sorted label order), other labels in
          ``graph._cache['node_labels']`` (vertices in node order).
        - a tuple ``(src, dst)`` or ``(src, dst, w)`` of NumPy or CuPy arrays of 0-based ids (and
          weights).
        - a :class:`CSRGraph`, returned as is.
    directed : bool, optional
        None keeps the input's own direction: edge lists, DIMACS files, general Matrix Market files
        and ``(src, dst)`` tuples are directed; symmetric Matrix Market files are undirected;
        sparse matrices are undirected when symmetric (structure, and values when weighted);
        networkx graphs follow ``is_directed()``; generators follow their spec. False symmetrizes
        a directed input (the two directions of an edge keep the minimum weight). True on an
        undirected input keeps both directions but marks the graph directed.
    name : str, optional
        Graph name; defaults to the file stem without compression and format extensions
        (``web-NotreDame`` for ``web-NotreDame.txt.gz``), the spec string for generators.
    remove_self_loops, remove_duplicates : bool
        Clean the edges (counts kept on the graph). Generators always clean. Merged duplicates
        keep the minimum weight; ``n_weight_conflicts`` counts the removed ones that were heavier.
    xp : module, optional
        ``numpy`` or ``cupy`` for the result's arrays (default: CuPy when a GPU is present). Files
        are parsed on the host.
    weight_column : int, optional
        Edge-list files only: the 0-based column holding the edge weights (``2`` for ``source
        target weight``). None (the default) reads an edge list unweighted, since a third column is
        not always a weight (timestamps, signed ratings, counts). Other sources carry their weights
        in a fixed place (Matrix Market values, DIMACS arc lengths, sparse data) and ignore it.
    weight : str or None, default "weight"
        The NetworkX edge attribute holding the weights (an edge without it weighs 1, NetworkX's
        convention; a graph where no edge has it is unweighted). None loads any source unweighted:
        Matrix Market values, DIMACS lengths, sparse data and a tuple's third array are ignored.

    Returns
    -------
    CSRGraph
        ``spec`` is the path string for files and the canonical spec for generators. ``weights``
        is int32 for integer inputs (Matrix Market ``integer``, integer weight columns, DIMACS
        lengths, integer arrays), float32 for real ones, None when unweighted.

    Raises
    ------
    MissingFileError
        (a ``FileNotFoundError``) When a path does not exist (and the string is not a generator spec).
    GraphFileError
        (a ``GraphFormatError`` and an ``OSError``) When a file cannot be read: a directory, FIFO,
        device or socket (refused before it is opened), no permission, an I/O error.
    HostMemoryError
        When a Matrix Market size line, a DIMACS problem line or a generator spec declares a graph
        larger than the available host memory (bytes needed vs available), before allocating it.
    GraphFormatError
        On malformed input, naming the file and 1-based line (or, for in-memory input, the array
        position / edge): among others a weight that is zero, negative, NaN, infinite,
        non-numeric, or an integer beyond int32, or a data line without the chosen weight column;
        for a binary graph (``.atg``) another format version, a truncated file (bytes declared vs
        present), a corrupt header or a failed CRC-32 / structure check.
    EmptyGraphError
        When the input has no edges (after cleaning).
    TypeError
        On an input of another type.
    GeneratorSpecError
        (a ValueError) On a malformed or unknown generator spec.
    InvalidArgumentError
        (a ValueError) On a *weight_column* that is not an integer >= 2, or given together with
        ``weight=None``; on a generator spec with ``weights=`` and ``weight=None``.

    Examples
    --------
    >>> g = load_graph("web-NotreDame.txt.gz")                # doctest: +SKIP
    >>> g = load_graph("soc-sign-bitcoinotc.csv.gz", weight_column=2)   # doctest: +SKIP
    >>> g = load_graph("kron:scale=20,weights=int:1:255", xp=numpy)     # doctest: +SKIP
    """
    weight_column = _check_weight_column(weight_column, weight)
    keep_weights = weight is not None
    build = dict(remove_self_loops=remove_self_loops, remove_duplicates=remove_duplicates, xp=xp)
    if isinstance(source, CSRGraph):
        return source
    if isinstance(source, (str, os.PathLike)):
        text = os.fspath(source)
        if isinstance(text, bytes):
            text = os.fsdecode(text)
        if os.path.lexists(text) or not (isinstance(source, str) and _looks_like_spec(text)):
            # a file (or nothing that could be one): every problem opening it names the path
            return _load_file(text, directed=directed, name=name, weight_column=weight_column,
                              keep_weights=keep_weights, **build)
        if isinstance(source, str) and _looks_like_spec(text):
            from .generators import generate

            g = generate(text.strip(), xp=xp, directed=directed, name=name)
            if not keep_weights and g.weights is not None:
                raise InvalidArgumentError(f"generator spec {text.strip()!r} asks for weights but weight=None was "
                                           "given")
            return g
        raise MissingFileError(text, "graph file not found (nor a generator spec such as 'kron:scale=20')",
                               errno.ENOENT)  # pragma: no cover - _load_file raised it
    if isinstance(source, tuple):
        if len(source) not in (2, 3):
            raise TypeError(f"load_graph expects a (src, dst) or (src, dst, weights) tuple of arrays, got a tuple "
                            f"of {len(source)}")
        src, dst = source[0], source[1]
        w = source[2] if len(source) == 3 and keep_weights else None
        if xp is None and xp_of(src) is not np:
            build["xp"] = xp_of(src)  # CuPy arrays stay on the GPU
        return from_edges(src, dst, weights=w, directed=True if directed is None else bool(directed),
                          name=name or "edges", **build)
    sp = sys.modules.get("scipy.sparse")
    if sp is not None and sp.issparse(source):
        return _from_sparse(source, sp, np, directed=directed, name=name, keep_weights=keep_weights, **build)
    cusp = sys.modules.get("cupyx.scipy.sparse")
    if cusp is not None and cusp.issparse(source):
        import cupy

        if xp is None:
            build["xp"] = cupy
        return _from_sparse(source, cusp, cupy, directed=directed, name=name, keep_weights=keep_weights, **build)
    nx = sys.modules.get("networkx")
    if nx is not None and isinstance(source, nx.Graph):
        return _from_networkx(source, directed=directed, name=name, weight=weight, **build)
    kind = type(source)
    raise TypeError(f"load_graph cannot read a {kind.__module__}.{kind.__qualname__}; expected a path, a generator "
                    "spec, a scipy/cupyx sparse matrix, a networkx graph, a (src, dst[, weights]) tuple or a CSRGraph")


def _check_weight_column(weight_column, weight):
    if weight_column is None:
        return None
    if isinstance(weight_column, (bool, np.bool_)) or not isinstance(weight_column, (int, np.integer)):
        raise InvalidArgumentError(f"weight_column must be an integer column index (0-based), got {weight_column!r}")
    wc = int(weight_column)
    if wc < 2:
        raise InvalidArgumentError(f"weight_column must be >= 2 (columns 0 and 1 are the source and target), got {wc}")
    if weight is None:
        raise InvalidArgumentError(f"weight_column={wc} asks for weights but weight=None loads the graph unweighted")
    return wc


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


# ------------------------------------------------------------------------------------ files
def _load_file(path: str, *, directed, name, remove_self_loops, remove_duplicates, xp, weight_column=None,
               keep_weights=True) -> CSRGraph:
    if os.path.basename(path).lower().endswith(BINARY_EXTENSION):  # memory-mapped, nothing parsed
        return _as_requested(load_binary(path, xp=xp), directed=directed, name=name, keep_weights=keep_weights,
                             remove_self_loops=remove_self_loops, remove_duplicates=remove_duplicates, xp=xp)
    data, compressed = _read_file(path)
    if data[:len(BINARY_MAGIC)] == BINARY_MAGIC:  # a binary graph under another name, or compressed
        return _as_requested(load_binary(path, xp=xp, data=data), directed=directed, name=name,
                             keep_weights=keep_weights, remove_self_loops=remove_self_loops,
                             remove_duplicates=remove_duplicates, xp=xp)
    fmt = _file_format(path, data)
    vertex_ids = None
    if fmt == "mtx":
        src, dst, n, symmetric, w = _parse_matrix_market(data, path, keep_weights)
        if symmetric and not directed:  # None or False: undirected, each stored entry once
            keep = src >= dst
            src, dst = src[keep], dst[keep]
            w = None if w is None else w[keep]
            is_directed = False
        else:  # general, or symmetric read as directed (both directions, marked directed)
            is_directed = True if directed is None else bool(directed)
    elif fmt == "dimacs":
        src, dst, n, w = _parse_dimacs(data, path, keep_weights)
        is_directed = True if directed is None else bool(directed)
    else:
        src, dst, w = _parse_edge_list(data, path, weight_column, plain_file=not compressed)
        if src.size == 0:
            raise EmptyGraphError("graph has no edges (no data lines)", path)
        src, dst, vertex_ids, n = _compact_ids(src, dst)
        is_directed = True if directed is None else bool(directed)
    del data
    if src.size == 0:
        raise EmptyGraphError("graph has no edges", path)
    return from_edges(src, dst, n, weights=w, directed=is_directed, name=name or graph_name_from_path(path),
                      spec=path, vertex_ids=vertex_ids, remove_self_loops=remove_self_loops,
                      remove_duplicates=remove_duplicates, xp=xp, source_label=path)


def _as_requested(g: CSRGraph, *, directed, name, keep_weights, **build) -> CSRGraph:
    """A loaded binary graph with what :func:`load_graph` was asked for: *name*, no weights
    (``weight=None``), another direction (*directed*). Saved graphs are clean already, so the
    cleaning flags apply only to a symmetrization."""
    if name is not None:
        g.name = name
    if not keep_weights and g.weights is not None:
        g.weights = None
        g.n_weight_conflicts = 0
    return _with_direction(g, directed, **build)


def _plan_file(path: str, n: int, n_entries: int, *, directed: bool, file_bytes: int, weighted: bool,
               per_entry: int, what: str) -> None:
    """Refuse a file whose header declares more than the host can hold, before parsing it.

    The peak is :func:`autotune.memory.edge_file_bytes` of the declared sizes (the parse at
    *per_entry* bytes per entry, then the CSR build; *directed* False counts a symmetrized build,
    the larger one). Raises :class:`~autotune.errors.HostMemoryError` naming *path*, with bytes
    needed vs available. A vertex count past the int32 range is left to the builder's own error.
    """
    if n > INT32_MAX:
        return
    from .memory import check_host_memory, edge_file_bytes

    needed = edge_file_bytes(n, n_entries, n_entries, directed=directed, file_bytes=file_bytes,
                             parse_bytes_per_entry=per_entry + (8 if weighted else 0), weighted=weighted)
    check_host_memory(path, needed, what)


def _extension(path: str) -> str:
    """Lower-case format extension of *path* after any compression suffix (``.txt`` for ``a.txt.gz``)."""
    base = os.path.basename(path).lower()
    for suffix in _COMPRESSION_SUFFIXES:
        if base.endswith(suffix):
            base = base[: -len(suffix)]
            break
    return os.path.splitext(base)[1]


def _file_weights(w, path: str, line_of, hint: str = _WEIGHT_HINT) -> np.ndarray:
    """Validated int32/float32 weights parsed from a file; a bad one raises naming its line.

    *line_of(i)* is the 1-based line of value ``i``; *hint* is appended to the message.
    """
    conv, i, reason = weights_problem(w, np)
    if conv is None:
        raise GraphFormatError(reason + hint, path, int(line_of(i)))
    return conv


def _read_bytes(path: str) -> bytes:
    """The file's bytes, decompressed when its magic bytes say gzip, bzip2 or xz (see
    :func:`_read_file`)."""
    return _read_file(path)[0]


def _read_file(path: str) -> tuple[bytes, bool]:
    """``(bytes, compressed)``: the file's bytes, decompressed when its magic bytes say gzip, bzip2 or xz.

    Opened by :func:`autotune._files.read_bytes`: a directory, FIFO, device or socket is refused
    before it is opened, and every ``OSError`` (permission, a file that vanished, an I/O error)
    becomes a :class:`~autotune.errors.GraphFileError` (a :class:`~autotune.errors.MissingFileError`
    when it does not exist) naming the path.
    """
    from ._files import read_bytes
    from .errors import MissingFileError

    try:
        raw = read_bytes(path, "graph file", error=GraphFileError)
    except MissingFileError:
        raise MissingFileError(path, "graph file not found (nor a generator spec such as 'kron:scale=20')",
                               errno.ENOENT) from None
    try:
        if raw[:2] == b"\x1f\x8b":
            return _gunzip(raw), True
        if raw[:3] == b"BZh":
            import bz2

            return bz2.decompress(raw), True
        if raw[:6] == b"\xfd7zXZ\x00":
            import lzma

            return lzma.decompress(raw), True
    except Exception as exc:  # gzip.BadGzipFile, EOFError, zlib.error, lzma.LZMAError, ...
        raise GraphFormatError(f"cannot decompress ({exc.__class__.__name__}: {exc})", path) from exc
    return raw, False


def _gunzip(raw: bytes) -> bytes:
    """:func:`gzip.decompress` of *raw* (one or more gzip members), about 1.5x as fast: zlib reads
    each member's header and checks its CRC-32 and length itself (``gzip.decompress`` does both in
    Python and copies the data twice more). Anything unusual (a damaged or truncated member, bytes
    after a member that start no other) goes to ``gzip.decompress``, which raises its own error."""
    import zlib

    parts = []
    rest = raw
    try:
        while True:
            member = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)  # a gzip header and trailer
            parts.append(member.decompress(rest))
            if not member.eof:
                raise zlib.error("truncated member")
            rest = member.unused_data.lstrip(b"\x00")  # as gzip.decompress: zero padding between members
            if not rest:
                break
            if rest[:2] != b"\x1f\x8b":
                raise zlib.error("not a gzip member")
    except zlib.error:
        import gzip

        return gzip.decompress(raw)
    return parts[0] if len(parts) == 1 else b"".join(parts)


def _file_format(path: str, data: bytes) -> str:
    """``"mtx"``, ``"dimacs"`` or ``"edges"`` from the extension, else from the first non-blank line."""
    ext = _extension(path)
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


#: Bytes of a body :func:`_int_table` reads: decimal digits and whitespace.
_INT_TABLE_BYTES = b"0123456789 \t\r\n"


def _int_table(body: bytes):
    """The numbers of *body*, a table of non-negative decimal integers, one row per non-blank line,
    as an int64 array of shape (rows, columns); or None when *body* is not such a table with at least
    two columns: a byte other than digits, space, tab and CR LF line ends
    (:data:`_INT_TABLE_BYTES`), lines of different numbers of fields, a number past the int64 range.

    Gives what :func:`numpy.loadtxt` gives for such a body (``dtype=np.int64, ndmin=2``), at about
    twice its speed (2-core CPU machine: soc-Slashdot0902, 11 MB, 0.07 s against 0.13 s;
    web-NotreDame, 22 MB, 0.15 s against 0.30 s): NumPy's C number parser
    (:func:`numpy.fromstring`) reads every number, and the line structure is checked on the bytes
    (every non-blank line holds as many tokens as the first).
    """
    if not body or body.translate(None, _INT_TABLE_BYTES):
        return None
    b = np.frombuffer(body, dtype=np.uint8)
    newline = b == 10
    if b"\r" in body:
        cr = b == 13
        if bool(cr[-1]) or bool(np.any(cr[:-1] > newline[1:])):
            return None  # a CR that ends no line
        del cr
    digit = b > 32  # only digits and whitespace are left
    event = np.empty(b.size, dtype=bool)  # the first digit of a token, or a newline
    event[0] = digit[0]
    np.greater(digit[1:], digit[:-1], out=event[1:])
    del digit
    event |= newline
    is_newline = newline[np.flatnonzero(event)]
    del event, newline
    if is_newline.size == 0:
        return None
    # token starts, each line's first newline (a blank line's newline goes), and a last line end
    keep = np.empty(is_newline.size, dtype=bool)
    keep[0] = not is_newline[0]
    np.logical_not(is_newline[1:] & is_newline[:-1], out=keep[1:])
    is_newline = is_newline[keep]
    if is_newline.size == 0:
        return None
    if not is_newline[-1]:
        is_newline = np.append(is_newline, True)
    k = int(np.argmax(is_newline))  # tokens of the first line
    if k < 2 or is_newline.size % (k + 1):
        return None
    n_lines = is_newline.size // (k + 1)  # each: k tokens, then the line end
    if not bool(is_newline[k::k + 1].all()) or int(np.count_nonzero(is_newline)) != n_lines:
        return None
    values = _fromstring(body, np.int64)
    if values is None or values.size != n_lines * k or int(values.max()) >= _INT64_MAX:
        return None  # NumPy's parser saturates past the int64 range
    return values.reshape(-1, k)


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
# bytes that make a number token a float literal ('.', exponent, nan, inf)
_FLOATISH = np.zeros(256, dtype=bool)
_FLOATISH[np.frombuffer(b".eEnNiI", dtype=np.uint8)] = True


def _edge_list_fields_rule(k0: int | None) -> str:
    if k0 is None or k0 <= 3:
        return "expected 2 or 3 fields (source target [weight])"
    return f"expected 2, 3 or {k0} fields (source target [more columns], as many as the first data line)"


def _parse_edge_list(data: bytes, path: str, weight_column: int | None = None, sep: str | None = None,
                     plain_file: bool = False):
    """``(src, dst, weights)`` of a SNAP-style or comma-separated edge list.

    ``src``/``dst`` are int64 ids; ``weights`` is None without *weight_column*, else int32 (every
    value of that column an integer literal) or float32, validated. Fastest: NumPy's number parser
    on a table of digits and whitespace (:func:`_int_table_edge_list`); then NumPy's C reader
    (:func:`_loadtxt_edge_list`) on a regular whitespace-separated file of integers; else a
    vectorised tokenizer; a line-by-line scan on trouble, which reports the first bad line. *sep*
    ``","`` forces comma-separated fields; None (what the loader passes) sniffs them from the
    first data line. *plain_file*: *data* is the uncompressed content of *path*, so NumPy may
    read *path* itself (its fastest mode).
    """
    data = _strip_bom(data)
    start, first_line = _skip_leading(data, _is_blank_or_comment)
    body = data[start:]
    if b"#" in body or b"%" in body:
        body = _EDGE_COMMENT_RE.sub(b"", body)
    if sep is None:
        end = body.find(b"\n")
        sep = "," if b"," in body[: len(body) if end < 0 else end] else " "

    def slow():
        return _scan_edge_list(data, path, weight_column, sep)

    if sep == " " and b"#" not in body and b"%" not in body:  # no comment left inside a data line
        fast = _int_table_edge_list(body, weight_column)
        if fast is None:
            fast = _loadtxt_edge_list(body, weight_column, _loadtxt_file(data, path, plain_file))
        if fast is not None:
            return fast
    csv = sep == ","
    body_numbers = body
    if csv:
        if _CSV_EMPTY_FIELD_RE.search(body):
            return slow()
        body_numbers = body.replace(b",", b" ")
    tk = _Tokens(body_numbers)
    if tk.first.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), None
    counts = tk.counts
    k0 = int(counts[0])
    bad = (counts < 2) | ((counts > 3) & (counts != k0))
    if weight_column is not None:
        bad |= counts <= weight_column
    if bool(bad.any()):
        return slow()  # reports the first bad line
    if csv:  # fields separated by commas only: commas per line == fields - 1
        commas = np.flatnonzero(np.frombuffer(body, dtype=np.uint8) == ord(","))
        per_line = np.bincount(np.searchsorted(tk.newlines, commas), minlength=int(tk.lines[-1]) + 1)
        if bool((per_line[tk.lines] != counts - 1).any()):
            return slow()
    vals = _fromstring(body_numbers, np.int64)
    ok = vals is not None and vals.size == tk.starts.size
    integer_weights = True
    if ok:
        src, dst = vals[tk.first], vals[tk.first + 1]
        ok = int(max(src.max(), dst.max())) < _INT64_MAX and int(min(src.min(), dst.min())) >= 0
    elif bool((counts > 2).any()):
        # real values in another column: parse as float64, ids must be exact integers
        vals = _fromstring(body_numbers, np.float64)
        ok = vals is not None and vals.size == tk.starts.size
        if ok:
            src_f, dst_f = vals[tk.first], vals[tk.first + 1]
            both = np.concatenate([src_f, dst_f])
            ok = bool(np.all((both >= 0) & (both < _FLOAT_EXACT) & (both == np.floor(both))))
            if ok:
                src, dst = src_f.astype(np.int64), dst_f.astype(np.int64)
                if weight_column is not None:
                    integer_weights = _integer_literals(tk, weight_column)
    if not ok:
        return slow()
    if weight_column is None:
        return src, dst, None
    w = vals[tk.first + weight_column]
    if w.dtype.kind == "f" and integer_weights:
        w = np.clip(w, -(2.0 ** 62), 2.0 ** 62).astype(np.int64)  # out-of-int32 values still fail below
    lines = tk.lines
    w = _file_weights(w, path, lambda i: first_line + int(lines[i]), _column_hint(weight_column))
    return src, dst, w


def _int_table_edge_list(body: bytes, weight_column: int | None):
    """:func:`_loadtxt_edge_list`'s answer from :func:`_int_table` (a body of digits and whitespace),
    or None (the caller then tries :func:`_loadtxt_edge_list`)."""
    a = _int_table(body)
    if a is None or (weight_column is not None and weight_column >= a.shape[1]):
        return None
    return _table_columns(a, weight_column)


def _table_columns(a: np.ndarray, weight_column: int | None):
    """``(src, dst, weights)`` from the columns of an integer table *a* (weights from
    *weight_column*, None without one), or None when those weights are invalid."""
    src, dst = np.ascontiguousarray(a[:, 0]), np.ascontiguousarray(a[:, 1])
    if weight_column is None:
        return src, dst, None
    w, _, _ = weights_problem(a[:, weight_column], np)
    return None if w is None else (src, dst, np.ascontiguousarray(w))


def _loadtxt_file(data: bytes, path: str, plain_file: bool):
    """``(path, comment character)`` when NumPy may read the edge list *path* itself (its C reader
    reads a named file in chunks, 2x faster than from memory, where it iterates lines in Python):
    the file is uncompressed, has no byte-order mark and its comment lines use one character.
    None otherwise."""
    if not plain_file or data[:3] == b"\xef\xbb\xbf":
        return None
    has_hash, has_pct = b"#" in data, b"%" in data
    if has_hash and has_pct:
        return None
    return path, ("#" if has_hash else "%" if has_pct else None)


def _loadtxt_edge_list(body: bytes, weight_column: int | None, file=None):
    """``(src, dst, weights)`` of a whitespace-separated edge list read by NumPy's C text reader
    (:func:`numpy.loadtxt`), or None. Measured on a 105 MB SNAP-style file (7.7e6 lines, 2-core
    CPU machine, CPU time): 85-125 MB/s from the named file, 55-70 MB/s from memory (a compressed
    file), where the tokenizer of :func:`_parse_edge_list` reaches 27-55 MB/s.

    None when a line does not fit: fields other than integers, a line with another number of
    fields than the first, a negative or too large id, no *weight_column*, an invalid weight. The
    caller's vectorised parser then handles the file and reports the first bad line (loadtxt gives
    no line numbers). *body* has no comment lines (emptied) and no ``#``/``%``; *file*, from
    :func:`_loadtxt_file`, has the same data lines (if it changed since it was read, the new
    content is what loads).
    """
    import io

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "input contained no data"
            if file is not None:
                a = np.loadtxt(file[0], dtype=np.int64, comments=file[1], ndmin=2, encoding="latin1")
            else:
                a = np.loadtxt(io.BytesIO(body), dtype=np.int64, comments=None, ndmin=2, encoding="latin1")
    except (ValueError, OverflowError, TypeError, UnicodeDecodeError, OSError):
        return None
    if a.shape[0] == 0 or a.shape[1] < 2 or (weight_column is not None and weight_column >= a.shape[1]):
        return None
    ids = a[:, :2]
    if int(ids.min()) < 0 or int(ids.max()) >= _INT64_MAX:
        return None
    return _table_columns(a, weight_column)


def _column_hint(weight_column: int) -> str:
    return f" (weight_column={weight_column}; choose another column, or none to load the graph unweighted)"


def _integer_literals(tk, column: int) -> bool:
    """Whether every token of *column* is written as an integer (no '.', exponent, nan or inf)."""
    pos = np.flatnonzero(_FLOATISH[tk.bytes])
    if pos.size == 0:
        return True
    tok = np.searchsorted(tk.starts, pos, side="right") - 1
    line = np.searchsorted(tk.first, tok, side="right") - 1
    return not bool(np.any(tok - tk.first[line] == column))


def _parse_id(tok: bytes, path: str, lineno: int, what: str = "vertex id") -> int:
    t = tok[1:] if tok[:1] == b"+" else tok
    if t.isdigit():
        value = int(t)
        if value > _INT64_MAX:
            raise GraphFormatError(f"{what} {tok.decode(errors='replace')} exceeds the 64-bit range", path, lineno)
        return value
    if t[:1] == b"-" and t[1:].isdigit():
        raise GraphFormatError(f"negative {what} {tok.decode(errors='replace')}", path, lineno)
    hint = " (a header line? comment it out with '#')" if lineno == 1 and re.search(rb"[A-Za-z]", tok) else ""
    raise GraphFormatError(f"non-integer {what} {tok.decode('utf-8', 'replace')!r}{hint}", path, lineno)


def _parse_number(tok: bytes):
    """int for an integer literal, float for a real one, None when *tok* is not a number."""
    t = tok.strip()
    try:
        return int(t)
    except ValueError:
        pass
    try:
        return float(t)
    except ValueError:
        return None


def _scan_edge_list(data: bytes, path: str, weight_column: int | None = None, sep: str = " "):
    """Line-by-line edge-list parse: raises at the first bad line, else returns ``(src, dst, weights)``
    (slow path)."""
    src, dst, wvals, wlines = [], [], [], []
    k0 = None
    csv = sep == ","
    for lineno, line in enumerate(data.split(b"\n"), start=1):
        stripped = line.strip()
        if not stripped or stripped[:1] in (b"#", b"%"):
            continue
        if csv:
            fields = [f.strip() for f in stripped.split(b",")]
            if any(not f for f in fields):
                raise GraphFormatError(f"empty field in comma-separated line {_excerpt(line)!r}", path, lineno)
            if any(len(f.split()) != 1 for f in fields):
                raise GraphFormatError(f"a field holds spaces in comma-separated line {_excerpt(line)!r}", path,
                                       lineno)
        else:
            fields = line.split()
        if k0 is None:
            k0 = len(fields)
        if len(fields) < 2 or (len(fields) > 3 and len(fields) != k0):
            raise GraphFormatError(f"{_edge_list_fields_rule(k0 if len(fields) >= 2 else None)}, found "
                                   f"{len(fields)}: {_excerpt(line)!r}", path, lineno)
        src.append(_parse_id(fields[0], path, lineno))
        dst.append(_parse_id(fields[1], path, lineno))
        if weight_column is not None:
            if len(fields) <= weight_column:
                raise GraphFormatError(f"no weight column {weight_column} (0-based) on a line of {len(fields)} "
                                       f"fields: {_excerpt(line)!r}", path, lineno)
            value = _parse_number(fields[weight_column])
            if value is None:
                raise GraphFormatError(f"non-numeric weight {fields[weight_column].decode('utf-8', 'replace')!r} "
                                       f"({WEIGHT_RULE}){_column_hint(weight_column)}", path, lineno)
            wvals.append(value)
            wlines.append(lineno)
    w = None
    if weight_column is not None and wvals:
        if all(isinstance(v, int) for v in wvals):
            w = np.array([max(min(v, 1 << 62), -(1 << 62)) for v in wvals], dtype=np.int64)
        else:
            w = np.array(wvals, dtype=np.float64)
        w = _file_weights(w, path, lambda i: wlines[i], _column_hint(weight_column))
    return np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), w


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


#: Bytes the entry lines of a Matrix Market file of each field may hold for :func:`_mtx_entries`
#: (after the comment lines were emptied); a file with any other byte is read by SciPy.
_MTX_ENTRY_BYTES = {"pattern": b"0123456789 \t\n", "integer": b"0123456789 \t\n-",
                    "real": b"0123456789 \t\n-+.eE"}


def _mtx_entries(body: bytes, fld: str, nnz: int, n: int):
    """``(rows, cols, values)`` of the entry lines *body* of a Matrix Market coordinate file, as
    SciPy's reader gives them (0-based int64 ids in file order, the symmetric mirror not added;
    ``values`` int64 for ``integer``, float64 for ``real``, None for ``pattern``), read by NumPy
    (:func:`_int_table`, else :func:`numpy.loadtxt`) without importing SciPy (about 0.2 s); or None
    when the body is not plain: a byte outside :data:`_MTX_ENTRY_BYTES`, a number with a leading
    ``+``, a token NumPy does not read (SciPy reads ``1e`` as 1), a line of another number of
    fields, not *nnz* entries, an id outside ``1..n``, a non-finite value. SciPy then reads the file
    and reports what is wrong with its line number, as without this reader.

    Parameters
    ----------
    body : bytes
        The file after its size line (comment lines emptied).
    fld : {"pattern", "integer", "real"}
        The banner's field.
    nnz : int
        Entries declared by the size line.
    n : int
        Rows (= columns) declared by the size line.
    """
    import io

    if body.translate(None, _MTX_ENTRY_BYTES[fld]):
        return None
    real = fld == "real"
    if real and (body[:1] == b"+" or b" +" in body or b"\t+" in body or b"\n+" in body):
        return None  # a leading '+': NumPy reads it, SciPy refuses it
    a = None if real or b"-" in body else _int_table(body)
    if a is None:
        dtype = np.dtype([("i", np.int64), ("j", np.int64), ("v", np.float64)]) if real else np.dtype(np.int64)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "input contained no data"
                a = np.loadtxt(io.BytesIO(body), dtype=dtype, comments=None, ndmin=1 if real else 2,
                               encoding="latin1")
        except (ValueError, OverflowError, TypeError, UnicodeDecodeError):
            return None
    if real:
        if a.shape[0] != nnz:
            return None
        rows, cols, values = a["i"], a["j"], a["v"]
        if not bool(np.isfinite(values).all()):
            return None
    else:
        if a.shape[0] != nnz or a.shape[1] != (2 if fld == "pattern" else 3):
            return None
        rows, cols = a[:, 0], a[:, 1]
        values = None if fld == "pattern" else np.ascontiguousarray(a[:, 2])
    if nnz and (int(min(rows.min(), cols.min())) < 1 or int(max(rows.max(), cols.max())) > n):
        return None
    return rows - 1, cols - 1, values


def _parse_matrix_market(data: bytes, path: str, keep_weights: bool = True):
    """``(rows, cols, n, symmetric, weights)`` of a Matrix Market coordinate file (0-based, symmetric
    expanded). ``weights`` (one per returned entry) is None for a ``pattern`` file or when
    *keep_weights* is False, int32 for an ``integer`` file, float32 for a ``real`` one.

    The entries are read by :func:`_mtx_entries` (NumPy) when they are plain, else by
    :func:`scipy.io.mmread`, which reports a bad line; both give the same entries in the same order
    (a symmetric file's mirrored entries after the stored ones)."""
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
    symmetric = sym == "symmetric"
    _plan_file(path, n_rows, nnz * (2 if symmetric else 1), directed=symmetric, file_bytes=len(data),
               weighted=keep_weights and fld != "pattern", per_entry=40,
               what=f"the size line declares {n_rows:,} vertices and {nnz:,} entries")
    parsed = data
    if end >= 0 and data.find(b"%", end) >= 0:  # comment lines among the entries: emptied, lines kept
        parsed = data[:end] + _MTX_COMMENT_RE.sub(b"", data[end:])
    entries = _mtx_entries(parsed[end + 1:] if end >= 0 else b"", fld, nnz, n_rows)
    if entries is not None:
        rows, cols, values = entries
        if symmetric:  # SciPy's order: the stored entries, then the mirror of the off-diagonal ones
            off = rows != cols
            rows, cols = np.concatenate([rows, cols[off]]), np.concatenate([cols, rows[off]])
            values = None if values is None else np.concatenate([values, values[off]])
    else:
        rows, cols, values = _mmread_entries(parsed, path)
    w = None
    if keep_weights and fld != "pattern":
        values = values.astype(np.int64 if fld == "integer" else np.float64, copy=False)
        conv, _, reason = weights_problem(values, np)
        if conv is None:  # find the offending line (error path only: the expanded entries have no line)
            line, reason = _mtx_bad_weight_line(data, pos, lineno, fld)
            raise GraphFormatError(reason + _WEIGHT_HINT, path, line)
        w = conv
    return rows, cols, n_rows, sym == "symmetric", w


def _mmread_entries(parsed: bytes, path: str):
    """``(rows, cols, values)`` (0-based int64, symmetric expanded; values as read) of a Matrix
    Market file by :func:`scipy.io.mmread`; a parse error raises :class:`GraphFormatError` with the
    line SciPy names."""
    import io

    import scipy.io

    if not parsed.endswith(b"\n"):
        # SciPy 1.17's fast_matrix_market reads past the end of a last entry line that has more fields
        # than the format's and no newline ('1 1 1 0' at the end of a real file): a segmentation
        # fault, not an error. The newline changes neither the entries nor the line numbers.
        parsed += b"\n"
    try:
        a = scipy.io.mmread(io.BytesIO(parsed))
    except Exception as exc:  # scipy/fast_matrix_market raise ValueError/RuntimeError with "Line N: ..."
        msg = str(exc)
        found = re.search(r"[Ll]ine (\d+)", msg)
        raise GraphFormatError(f"Matrix Market parse error: {msg}", path,
                               int(found.group(1)) if found else None) from exc
    if not hasattr(a, "tocoo"):  # pragma: no cover - dense only for 'array', excluded above
        raise GraphFormatError("expected a sparse coordinate matrix", path)
    a = a.tocoo()
    return np.asarray(a.row, dtype=np.int64), np.asarray(a.col, dtype=np.int64), np.asarray(a.data)


def _mtx_bad_weight_line(data: bytes, pos: int, size_lineno: int, fld: str) -> tuple[int | None, str]:
    """``(line, reason)`` of the first entry line after the size line (at offset *pos*) whose value
    is not a valid weight (slow scan, used only to report an error)."""
    first_reason = None
    for lineno, line in enumerate(data[pos:].split(b"\n")[1:], start=size_lineno + 1):
        fields = line.split()
        if len(fields) < 3 or fields[0][:1] == b"%":
            continue
        value = _parse_number(fields[2])
        if value is None:
            return lineno, f"non-numeric value {fields[2].decode('utf-8', 'replace')!r} ({WEIGHT_RULE})"
        arr = np.array([max(min(value, 1 << 62), -(1 << 62))], dtype=np.int64) if fld == "integer" else \
            np.array([float(value)], dtype=np.float64)
        conv, _, reason = weights_problem(arr, np)
        if conv is None:
            return lineno, reason
        first_reason = first_reason or reason
    return None, first_reason or f"invalid weight ({WEIGHT_RULE})"


# ---------------------------------------------------------------------------------- DIMACS
def _parse_dimacs(data: bytes, path: str, keep_weights: bool = True):
    """``(src, dst, n, weights)`` (0-based) of a 9th DIMACS ``.gr`` file; vectorised when the arcs are plain.

    ``weights`` are the arc lengths: int32 when written as integers (the format's rule), float32
    when real; None when the arcs carry no length or *keep_weights* is False.
    """
    data = _strip_bom(data)
    # header: comment lines and the problem line, up to the first arc line
    pos, lineno = _skip_leading(data, lambda line: not line.strip() or line.lstrip()[:1] in (b"c", b"p"))
    header = data[:pos]
    p_lines = [(i, ln) for i, ln in enumerate(header.split(b"\n"), start=1) if ln.lstrip()[:1] == b"p"]

    def slow():
        return _scan_dimacs(data, path, keep_weights)

    if len(p_lines) != 1 or pos >= len(data):
        return slow()  # missing/duplicate problem line, arc before it, or no arcs
    p_lineno, p_line = p_lines[0]
    n, m = _dimacs_problem(p_line, path, p_lineno)
    _plan_file(path, n, m, directed=False, file_bytes=3 * len(data), weighted=keep_weights, per_entry=150,
               what=f"the problem line declares {n:,} vertices and {m:,} arcs")
    body = data[pos:]
    tk = _Tokens(body)
    if tk.first.size == 0:
        return slow()
    b = tk.bytes
    lead = tk.starts[tk.first]
    after = lead + 1
    is_arc = b[lead] == ord("a")
    is_arc &= after < b.size
    is_arc[is_arc] &= b[after[is_arc]] <= 32
    n_lines = tk.first.size
    if (not bool(is_arc.all()) or bool(((tk.counts < 3) | (tk.counts > 4)).any())
            or body.count(b"a") != n_lines):
        return slow()
    has_length = tk.counts == 4
    if keep_weights and bool(has_length.any()) and not bool(has_length.all()):
        return slow()  # reports the first arc whose length is missing
    numbers = body.translate(None, b"a")
    id_first = tk.first - np.arange(n_lines)  # each line lost its 'a' token
    vals = _fromstring(numbers, np.int64)
    ok = vals is not None and vals.size == tk.starts.size - n_lines
    lengths = None
    if ok:
        u, v = vals[id_first], vals[id_first + 1]
        if keep_weights and bool(has_length[0]):
            lengths = vals[id_first + 2]
    else:
        vals = _fromstring(numbers, np.float64)  # real-valued arc lengths
        ok = vals is not None and vals.size == tk.starts.size - n_lines
        if ok:
            uv = np.concatenate([vals[id_first], vals[id_first + 1]])
            ok = bool(np.all((np.abs(uv) < _FLOAT_EXACT) & (uv == np.floor(uv))))
            if ok:
                u, v = vals[id_first].astype(np.int64), vals[id_first + 1].astype(np.int64)
                if keep_weights and bool(has_length[0]):
                    lengths = vals[id_first + 2]
                    if _integer_literals(tk, 3):
                        lengths = np.clip(lengths, -(2.0 ** 62), 2.0 ** 62).astype(np.int64)
    if not ok:
        return slow()
    if bool(((u < 1) | (u > n) | (v < 1) | (v > n)).any()):
        return slow()
    if n_lines != m:
        raise GraphFormatError(f"problem line declares {m} arcs but the file has {n_lines}", path, p_lineno)
    w = None
    if lengths is not None:
        lines = tk.lines
        w = _file_weights(lengths, path, lambda i: lineno + int(lines[i]))
    return u - 1, v - 1, n, w


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


def _scan_dimacs(data: bytes, path: str, keep_weights: bool = True):
    """Line-by-line DIMACS parse: raises at the first bad line, else returns ``(src, dst, n, weights)``
    (slow path)."""
    n = m = p_lineno = None
    src, dst, lengths, length_lines = [], [], [], []
    first_arc = None  # (line, has a length)
    for lineno, line in enumerate(data.split(b"\n"), start=1):
        fields = line.split()
        if not fields or fields[0][:1] == b"c":
            continue
        kind = fields[0]
        if kind == b"p":
            if p_lineno is not None:
                raise GraphFormatError(f"duplicate problem line (the first is line {p_lineno})", path, lineno)
            n, m = _dimacs_problem(line, path, lineno)
            _plan_file(path, n, m, directed=False, file_bytes=len(data), weighted=keep_weights, per_entry=250,
                       what=f"the problem line declares {n:,} vertices and {m:,} arcs")
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
            if keep_weights:
                has = len(fields) == 4
                if first_arc is None:
                    first_arc = (lineno, has)
                elif has != first_arc[1]:
                    raise GraphFormatError(
                        f"arc line {_excerpt(line)!r} " + ("has a length but" if has else "has no length but")
                        + f" the first arc (line {first_arc[0]}) " + ("has none" if has else "has one"), path, lineno)
                if has:
                    value = _parse_number(fields[3])
                    if value is None:
                        raise GraphFormatError(f"non-numeric arc length {fields[3].decode('utf-8', 'replace')!r} "
                                               f"({WEIGHT_RULE}){_WEIGHT_HINT}", path, lineno)
                    lengths.append(value)
                    length_lines.append(lineno)
        else:
            raise GraphFormatError(f"unexpected line {_excerpt(line)!r}: DIMACS lines start with 'c', 'p' or 'a'",
                                   path, lineno)
    if p_lineno is None:
        raise GraphFormatError("missing problem line 'p sp <vertices> <arcs>'", path)
    if len(src) != m:
        raise GraphFormatError(f"problem line declares {m} arcs but the file has {len(src)}", path, p_lineno)
    w = None
    if lengths:
        if all(isinstance(x, int) for x in lengths):
            w = np.array([max(min(x, 1 << 62), -(1 << 62)) for x in lengths], dtype=np.int64)
        else:
            w = np.array(lengths, dtype=np.float64)
        w = _file_weights(w, path, lambda i: length_lines[i])
    return np.array(src, dtype=np.int64), np.array(dst, dtype=np.int64), n, w


# --------------------------------------------------------------------------- in-memory input
def _is_symmetric(rows, cols, n: int, xp, w=None) -> bool:
    """Whether the pattern ``{(rows[i], cols[i])}`` equals its transpose, and with weights *w* also
    the values (duplicate entries merged to their minimum, as the builder merges them)."""
    from ._csr import _merge_min

    fwd = rows * n + cols
    back = cols * n + rows
    if w is None:
        fwd.sort()
        fwd = _unique_sorted(fwd, xp)
        back.sort()
        back = _unique_sorted(back, xp)
        return fwd.size == back.size and bool((fwd == back).all())
    of, ob = xp.argsort(fwd), xp.argsort(back)
    fwd, wf, _ = _merge_min(fwd[of], w[of], 0, True, xp)
    back, wb, _ = _merge_min(back[ob], w[ob], 0, True, xp)
    return fwd.size == back.size and bool((fwd == back).all()) and bool((wf == wb).all())


def _from_sparse(a, sp_module, mod, *, directed, name, keep_weights, remove_self_loops, remove_duplicates,
                 xp) -> CSRGraph:
    if a.shape[0] != a.shape[1]:
        raise GraphFormatError(f"sparse matrix is {a.shape[0]} x {a.shape[1]}; an adjacency matrix must be square")
    n = int(a.shape[0])
    coo = a.tocoo()
    rows = mod.asarray(coo.row).astype(np.int64)
    cols = mod.asarray(coo.col).astype(np.int64)
    if rows.size == 0:
        raise EmptyGraphError("sparse matrix has no stored entries, so the graph has no edges")
    w = None
    if keep_weights and coo.data.dtype.kind != "b":  # boolean data: a pattern, unweighted
        w, i, reason = weights_problem(mod.asarray(coo.data), mod)
        if w is None:
            raise GraphFormatError(f"sparse matrix data[{i}] (entry ({int(rows[i])}, {int(cols[i])})): {reason}"
                                   f"{_WEIGHT_HINT}")
    symmetric = directed is not True and _is_symmetric(rows, cols, n, mod, w)
    if directed is None:
        directed = not symmetric
    if not directed and symmetric:  # each undirected edge once, so that duplicates are counted right
        keep = rows >= cols
        rows, cols = rows[keep], cols[keep]
        w = None if w is None else w[keep]
    return from_edges(rows, cols, n, weights=w, directed=bool(directed), name=name or "sparse", spec=None,
                      remove_self_loops=remove_self_loops, remove_duplicates=remove_duplicates, xp=xp)


def _from_networkx(G, *, directed, name, weight, remove_self_loops, remove_duplicates, xp) -> CSRGraph:
    import itertools

    nodes = list(G.nodes())
    n = len(nodes)
    if n == 0:
        raise EmptyGraphError("networkx graph has no nodes")
    m = G.number_of_edges()
    attrs = None
    if weight is None:
        ends = itertools.chain.from_iterable((u, v) for u, v, *_ in G.edges())  # networkx holds edges in dicts
    else:
        attrs = []

        def ends_and_attrs():  # one pass over the edges: endpoints out, attribute values aside
            for u, v, d in G.edges(data=weight, default=None):
                attrs.append(d)
                yield u
                yield v

        ends = ends_and_attrs()
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
    w = _networkx_weights(G, attrs, weight) if attrs is not None else None
    g = from_edges(flat[0::2], flat[1::2], n, weights=w, directed=G.is_directed(),
                   name=name or (G.name or "networkx"), spec=None, vertex_ids=vertex_ids,
                   remove_self_loops=remove_self_loops, remove_duplicates=remove_duplicates, xp=xp)
    if labels is not None:
        g._cache["node_labels"] = labels
    return _with_direction(g, directed, remove_self_loops=remove_self_loops, remove_duplicates=remove_duplicates,
                           xp=xp)


def _networkx_weights(G, attrs: list, weight: str):
    """Weights from the attribute values of ``G.edges()`` (None = attribute missing, weighs 1);
    None when no edge carries the attribute. A bad value raises naming its edge."""
    import itertools

    obj = np.empty(len(attrs), dtype=object)
    obj[:] = attrs
    missing = np.frompyfunc(lambda x: x is None, 1, 1)(obj).astype(bool)
    if missing.all():
        return None
    obj[missing] = 1  # NetworkX's convention: an edge without the attribute weighs 1
    values, i, reason = object_weights(obj)
    if values is not None:
        values, i, reason = weights_problem(values, np)
    if values is None:
        u, v = next(itertools.islice(G.edges(), i, None))[:2]
        raise GraphFormatError(f"networkx edge ({u!r}, {v!r}), attribute {weight!r}: {reason}{_WEIGHT_HINT}")
    return values
