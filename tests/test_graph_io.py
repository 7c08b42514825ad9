"""Graph input: edge lists, Matrix Market, DIMACS, in-memory inputs, generator specs, real graphs."""
from __future__ import annotations

import csv
import gzip
import inspect
import io
import time

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from autotune.errors import EmptyGraphError, GraphFormatError
from autotune.graph import CSRGraph, from_edges, graph_name_from_path, load_graph


def edges(g: CSRGraph) -> set[tuple[int, int]]:
    """Stored directed edges of *g* as internal-id pairs."""
    ro, ci = g.host()
    rows = np.repeat(np.arange(g.n_vertices), np.diff(ro))
    return set(zip(rows.tolist(), ci.tolist()))


def original_edges(g: CSRGraph) -> set[tuple[int, int]]:
    """Stored directed edges of *g* as original-id pairs."""
    return {(int(g.original_id(u)), int(g.original_id(v))) for u, v in edges(g)}


def assert_valid_csr(g: CSRGraph) -> None:
    ro, ci = g.host()
    assert ro.dtype == np.int32 and ci.dtype == np.int32
    assert ro[0] == 0 and ro[-1] == ci.size and np.all(np.diff(ro) >= 0)
    rows = np.repeat(np.arange(g.n_vertices), np.diff(ro))
    key = rows.astype(np.int64) * g.n_vertices + ci
    assert np.all(np.diff(key) > 0), "columns sorted and unique within each row"
    assert ci.size == 0 or (ci.min() >= 0 and ci.max() < g.n_vertices)


def load(path, **kw) -> CSRGraph:
    return load_graph(path, xp=np, **kw)


def expect_format_error(path, line, *fragments, exc=GraphFormatError, **kw):
    with pytest.raises(exc) as info:
        load(path, **kw)
    err = info.value
    assert err.path == path
    assert err.line == line, str(err)
    text = str(err)
    assert text.startswith(path + (f":{line}: " if line is not None else ": ")), text
    for frag in fragments:
        assert frag in text, text
    return err


# =============================================================================== edge lists
TRIANGLE = "0 1\n1 2\n2 0\n"


@pytest.mark.parametrize("compress", [None, "gz", "bz2", "xz"])
def test_edge_list_plain_and_compressed(io_write, compress):
    path = io_write("tri.txt", TRIANGLE, compress)
    g = load(path)
    assert g.directed and g.n_vertices == 3 and g.n_edges == 3
    assert edges(g) == {(0, 1), (1, 2), (2, 0)}
    assert g.name == "tri" and g.spec == path and g.vertex_ids is None
    assert_valid_csr(g)


@pytest.mark.parametrize("ext", [".txt", ".el", ".tsv", ".edges", ".dat", ""])
def test_edge_list_extensions_and_sniffing(io_write, ext):
    g = load(io_write("g" + ext, "# c\n5 6\n6 7\n"))
    assert original_edges(g) == {(5, 6), (6, 7)} and g.name == "g" and g.vertex_ids.tolist() == [5, 6, 7]


def test_edge_list_comments_blank_lines_crlf_tabs(io_write):
    text = ("# SNAP header\r\n% another comment style\r\n\r\n"
            "0\t1\r\n  1   2  \r\n\r\n# comment in the middle\r\n   % indented comment\r\n2 \t 3\r\n3 0")  # no final newline
    g = load(io_write("messy.txt", text))
    assert edges(g) == {(0, 1), (1, 2), (2, 3), (3, 0)}


def test_edge_list_utf8_bom(io_write):
    g = load(io_write("bom.txt", b"\xef\xbb\xbf0 1\n1 2\n"))
    assert edges(g) == {(0, 1), (1, 2)}


@pytest.mark.parametrize("text", [
    "0 1 5\n1 2 7\n",  # integer weights
    "0 1 0.5\n1 2 1e-3\n",  # real weights
    "0 1\n1 2 3\n",  # 2 and 3 fields mixed
    "0 1 0.25\n1 2\n",  # mixed, real weight
    "0 1 heavy\n1 2 light\n",  # non-numeric weight: ignored (slow path)
])
def test_edge_list_third_column_ignored(io_write, text):
    assert edges(load(io_write("w.txt", text))) == {(0, 1), (1, 2)}


def test_edge_list_self_loops_and_duplicates_counted(io_write):
    g = load(io_write("ld.txt", "0 0\n0 1\n0 1\n1 2\n2 2\n0 1\n"))
    assert g.n_self_loops_removed == 2 and g.n_duplicates_removed == 2
    assert edges(g) == {(0, 1), (1, 2)}
    kept = load(io_write("ld2.txt", "0 0\n0 1\n0 1\n"), remove_self_loops=False, remove_duplicates=False)
    assert kept.n_edges == 3 and kept.n_self_loops_removed == 0 and kept.n_duplicates_removed == 0


def test_edge_list_directed_false_symmetrizes(io_write):
    path = io_write("d.txt", "0 1\n1 2\n2 1\n")
    g = load(path)
    assert g.directed and edges(g) == {(0, 1), (1, 2), (2, 1)}
    u = load(path, directed=False)
    assert not u.directed
    assert edges(u) == {(0, 1), (1, 0), (1, 2), (2, 1)}
    assert u.n_duplicates_removed == 1  # "1 2" and "2 1" are one undirected edge
    assert load(path, directed=True).directed


def test_edge_list_name_override(io_write):
    g = load(io_write("web-Foo.txt", TRIANGLE, "gz"), name="custom")
    assert g.name == "custom"
    assert graph_name_from_path("/a/b/web-NotreDame.txt.gz") == "web-NotreDame"
    assert graph_name_from_path("x/delaunay_n16.mtx") == "delaunay_n16"
    assert graph_name_from_path("road.v2.gr.bz2") == "road.v2"


def test_dense_ids_with_gaps_kept_as_is(io_write):
    # max id + 1 = 6 <= 2 * 3 distinct ids: no relabelling; ids 1, 2, 4 are isolated vertices
    g = load(io_write("gaps.txt", "0 3\n3 5\n"))
    assert g.vertex_ids is None and g.n_vertices == 6
    assert edges(g) == {(0, 3), (3, 5)}
    assert g.out_degrees().tolist() == [1, 0, 0, 1, 0, 0]


def test_relabel_threshold(io_write):
    # 3 distinct ids, max id + 1 = 6 = 2 * 3: kept; max id + 1 = 7 > 6: relabelled
    assert load(io_write("a.txt", "0 1\n1 5\n")).vertex_ids is None
    g = load(io_write("b.txt", "0 1\n1 6\n"))
    assert g.vertex_ids.tolist() == [0, 1, 6] and g.n_vertices == 3


def test_sparse_ids_relabelled_and_round_trip(io_write):
    g = load(io_write("sparse.txt", "1000 10\n10 5000\n5000 1000\n77 10\n"))
    assert g.n_vertices == 4
    assert g.vertex_ids.dtype == np.int64 and g.vertex_ids.tolist() == [10, 77, 1000, 5000]  # sorted by original id
    assert original_edges(g) == {(1000, 10), (10, 5000), (5000, 1000), (77, 10)}
    ids = np.array([5000, 10, 77, 1000])
    assert g.original_id(g.index_of(ids)).tolist() == ids.tolist()
    assert int(g.index_of(1000)) == 2
    with pytest.raises(KeyError, match="11"):
        g.index_of(11)


def test_huge_ids_relabelled(io_write):
    big = 3_000_000_000  # beyond int32
    g = load(io_write("huge.txt", f"{big} {big + 7}\n{big + 7} 5\n"))
    assert g.vertex_ids.tolist() == [5, big, big + 7]
    assert original_edges(g) == {(big, big + 7), (big + 7, 5)}
    assert g.column_indices.dtype == np.int32


def test_ids_as_large_as_int64(io_write):
    top = np.iinfo(np.int64).max - 1
    g = load(io_write("i64.txt", f"{top} 1\n1 2\n"))
    assert g.vertex_ids.tolist() == [1, 2, top]


@pytest.mark.parametrize("text,line,fragments", [
    ("0 1\n1\n", 2, ["expected 2 or 3 fields", "found 1"]),
    ("0 1\n1 2\n2 3 4 5\n", 3, ["found 4", "2 3 4 5"]),
    ("# header\n# header\n0 1\nx 2\n", 4, ["non-integer vertex id", "'x'"]),
    ("0 1\n1 2.5\n", 2, ["non-integer vertex id", "2.5"]),
    ("0 1 0.5\n1.5 2 0.5\n", 2, ["non-integer vertex id", "1.5"]),
    ("0 1\n-3 2\n", 2, ["negative vertex id -3"]),
    ("0 1\n1 -2 7\n", 2, ["negative vertex id -2"]),
    ("0 1\n99999999999999999999 1\n", 2, ["exceeds the 64-bit range"]),
    ("0 1\r\n\r\n1 2\r\n2 y\r\n", 4, ["'y'"]),
    ("0 1\n% comment\n\n1 2 # trailing\n", 4, ["found 4"]),
    ("0 1\n0x10 2\n", 2, ["non-integer"]),
])
@pytest.mark.parametrize("compress", [None, "gz"])
def test_edge_list_errors_name_the_line(io_write, text, line, fragments, compress):
    path = io_write("bad.txt", text, compress)
    expect_format_error(path, line, *fragments)


@pytest.mark.parametrize("text", ["", "\n\n", "# only\n# comments\n", "% x\n"])
def test_edge_list_empty(io_write, text):
    path = io_write("empty.txt", text)
    err = expect_format_error(path, None, "no edges", exc=EmptyGraphError)
    assert isinstance(err, GraphFormatError)


def test_edge_list_only_self_loops_is_empty(io_write):
    path = io_write("loops.txt", "1 1\n2 2\n")
    expect_format_error(path, None, "no edges", exc=EmptyGraphError)


def test_missing_file_and_directory(tmp_path):
    missing = str(tmp_path / "nope.txt.gz")
    with pytest.raises(FileNotFoundError) as info:
        load_graph(missing)
    assert missing in str(info.value)
    with pytest.raises(GraphFormatError, match="directory"):
        load_graph(str(tmp_path))


def test_corrupt_gzip(io_write):
    path = io_write("bad.txt.gz", b"\x1f\x8b\x08\x00garbage-not-deflate")
    expect_format_error(path, None, "cannot decompress")


def _gzip_cases():
    import gzip

    out = []
    for payload in (b"", b"0 1\n" * 5000, bytes(range(256)) * 300):
        g = gzip.compress(payload)
        crc, size = bytearray(g), bytearray(g)
        crc[-6] ^= 1
        size[-2] ^= 1
        out += [g, g + gzip.compress(b"1 2\n"), g + b"\x00\x00\x00", g + b"\x00" + gzip.compress(b"x"),
                g + b"junk", g[:-4], g[: len(g) // 2], bytes(crc), bytes(size)]
    named = io.BytesIO()
    with gzip.GzipFile(filename="name.txt", mode="wb", fileobj=named, mtime=0) as fh:
        fh.write(b"0 1\n" * 10)
    return out + [named.getvalue()]


@pytest.mark.parametrize("raw", _gzip_cases())
def test_gunzip_is_gzip_decompress(raw):
    """The loader's zlib decompression gives gzip.decompress's bytes, or raises its error (several
    members, zero padding, trailing junk, truncated, bad CRC or length, a file name in the header)."""
    import gzip

    from autotune.graph import _gunzip

    def run(f):
        try:
            return f(raw)
        except Exception as exc:  # the exception's type and text
            return type(exc), str(exc)

    assert run(_gunzip) == run(gzip.decompress)


def test_pathlike_accepted(io_write):
    from pathlib import Path

    g = load(Path(io_write("p.txt", TRIANGLE)))
    assert g.n_edges == 3 and isinstance(g.spec, str)


def test_edge_list_large_fast_path(io_write, monkeypatch):
    """200k lines parse vectorised (the line-by-line scan is never entered) and agree with numpy."""
    import autotune.graph

    def no_scan(*args):
        raise AssertionError("slow line-by-line scan used on a well-formed file")

    monkeypatch.setattr(autotune.graph, "_scan_edge_list", no_scan)
    rng = np.random.default_rng(5)
    e = rng.integers(0, 50_000, size=(200_000, 2))
    text = "# big\n" + "\n".join(f"{a}\t{b}" for a, b in e) + "\n"
    path = io_write("big.txt", text, "gz")
    t = time.perf_counter()
    g = load(path)
    assert time.perf_counter() - t < 10
    keep = e[:, 0] != e[:, 1]
    want = np.unique(e[keep, 0] * 50_000 + e[keep, 1])
    assert g.n_edges == want.size
    assert g.n_self_loops_removed == int((~keep).sum())
    assert g.n_duplicates_removed == int(keep.sum()) - want.size
    ro, ci = g.host()
    got = np.repeat(np.arange(g.n_vertices), np.diff(ro)) * 50_000 + ci
    np.testing.assert_array_equal(got, want)


_TABLE_TOKENS = ["0", "7", "42", "007", str(2**31), str(2**63 - 2), str(2**63 - 1), str(2**64), "-1", "+1", "1.5",
                 "1e3", "x"]


def _loadtxt_table(body: bytes):
    """What numpy.loadtxt reads from *body* as an int64 table of at least two columns, else None."""
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            a = np.loadtxt(io.BytesIO(body), dtype=np.int64, comments=None, ndmin=2, encoding="latin1")
    except (ValueError, OverflowError):
        return None
    return None if a.shape[0] == 0 or a.shape[1] < 2 or int(a.max()) >= 2**63 - 1 else a


@pytest.mark.parametrize("seed", range(4))
def test_int_table_reads_what_loadtxt_reads(seed):
    """The edge lists' fastest reader (NumPy's number parser plus a byte-level check of the line
    structure) gives numpy.loadtxt's table whenever it answers, and answers on every regular table of
    digits and whitespace (blank lines, tabs, CRLF, a missing last newline); anything else (another
    field count, signs, decimals, a lone CR, past int64) it leaves to loadtxt and the tokenizer."""
    import random

    from autotune.graph import _int_table

    rng = random.Random(seed)
    answered = 0
    for _ in range(3000):
        k = rng.choice([1, 2, 2, 3, 4])
        regular = rng.random() < 0.5
        lines = []
        for _ in range(rng.randint(1, 6)):
            kk = k if regular or rng.random() < 0.8 else rng.randint(0, 5)
            toks = [rng.choice(_TABLE_TOKENS[:6] if regular else _TABLE_TOKENS) for _ in range(kk)]
            lines.append(rng.choice(["", " ", "\t"]) + rng.choice([" ", "\t", "  "]).join(toks)
                         + rng.choice(["", " ", "\t", "\r"] if not regular else ["", " ", "\t"]))
        body = rng.choice(["\n", "\r\n", "\n\n"]).join(lines) + rng.choice(["", "\n", "\r\n", " "])
        if not regular and rng.random() < 0.05:
            body = body.replace("\n", "\r")
        data = body.encode()
        got, want = _int_table(data), _loadtxt_table(data)
        if got is not None:
            answered += 1
            assert want is not None and got.dtype == np.int64 and np.array_equal(got, want), data
        elif regular and k >= 2:
            assert want is None or "\r\n" in body or "\r" in body, data
    assert answered > 500


def test_edge_list_number_table_reader_used(io_write, monkeypatch):
    """A SNAP-style file of digits and whitespace never reaches numpy.loadtxt (the slower reader)."""
    import autotune.graph

    def no_loadtxt(*args):
        raise AssertionError("loadtxt used on a table of digits and whitespace")

    monkeypatch.setattr(autotune.graph, "_loadtxt_edge_list", no_loadtxt)
    g = load(io_write("t.txt", "# c\n0\t1\n1\t2\r\n\n2 0 \n5 1", "gz"))
    assert edges(g) == {(0, 1), (1, 2), (2, 0), (5, 1)} and g.n_vertices == 6


# ============================================================================ Matrix Market
MTX_SYM = """%%MatrixMarket matrix coordinate pattern symmetric
% a comment
%

4 4 5
2 1
3 1
4 3
3 3
4 2
"""


@pytest.mark.parametrize("compress", [None, "gz"])
def test_mtx_pattern_symmetric_is_undirected(io_write, compress):
    g = load(io_write("sym.mtx", MTX_SYM, compress))
    assert not g.directed and g.n_vertices == 4 and g.name == "sym"
    assert edges(g) == {(0, 1), (1, 0), (0, 2), (2, 0), (2, 3), (3, 2), (1, 3), (3, 1)}
    assert g.n_self_loops_removed == 1 and g.n_duplicates_removed == 0
    assert_valid_csr(g)


def test_mtx_symmetric_directed_true_keeps_both_directions(io_write):
    g = load(io_write("sym.mtx", MTX_SYM), directed=True)
    assert g.directed and g.n_edges == 8
    assert edges(g) == edges(load(io_write("sym2.mtx", MTX_SYM)))


def test_mtx_integer_general_is_directed(io_write):
    text = "%%MatrixMarket matrix coordinate integer general\n3 3 3\n1 2 4\n2 3 -1\n3 1 0\n"
    path = io_write("gen.mtx", text)
    g = load(path, weight=None)  # the values are not weights: read the pattern
    assert g.directed and edges(g) == {(0, 1), (1, 2), (2, 0)} and g.weights is None  # explicit zero is an edge
    u = load(path, directed=False, weight=None)
    assert not u.directed and u.n_edges == 6
    # as weights, -1 (line 4) is refused
    expect_format_error(path, 4, "weight -1 is not positive", "weight=None")


def test_mtx_real_and_isolated_vertices(io_write):
    text = "%%MatrixMarket matrix coordinate real general\n%\n6 6 2\n1 2 0.5\n2 1 1e-3\n"
    g = load(io_write("r.mtx", text))
    assert g.n_vertices == 6 and edges(g) == {(0, 1), (1, 0)}


def test_mtx_duplicates_counted(io_write):
    text = "%%MatrixMarket matrix coordinate pattern general\n3 3 4\n1 2\n1 2\n2 3\n1 2\n"
    g = load(io_write("dup.mtx", text))
    assert g.n_duplicates_removed == 2 and g.n_edges == 2


def test_mtx_sniffed_without_extension(io_write):
    g = load(io_write("matrix.dat", MTX_SYM))
    assert not g.directed and g.n_edges == 8


@pytest.mark.parametrize("banner,fragment", [
    ("%%MatrixMarket matrix array real general", "'array'"),
    ("%%MatrixMarket matrix coordinate complex general", "'complex'"),
    ("%%MatrixMarket matrix coordinate real hermitian", "'hermitian'"),
    ("%%MatrixMarket matrix coordinate integer skew-symmetric", "'skew-symmetric'"),
    ("%%MatrixMarket vector coordinate real general", "'vector'"),
    ("%%MatrixMarket matrix coordinate pattern", "malformed banner"),
    ("% MatrixMarket matrix coordinate pattern general", "missing '%%MatrixMarket' banner"),
    ("3 3 1", "missing '%%MatrixMarket' banner"),
])
def test_mtx_unsupported_header(io_write, banner, fragment):
    path = io_write("h.mtx", banner + "\n3 3 1\n1 2 1\n")
    expect_format_error(path, 1, fragment)


def test_mtx_non_square(io_write):
    path = io_write("rect.mtx", "%%MatrixMarket matrix coordinate pattern general\n% c\n3 4 1\n1 2\n")
    expect_format_error(path, 3, "3 x 4", "square")


def test_mtx_malformed_size_line(io_write):
    path = io_write("size.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3\n1 2\n")
    expect_format_error(path, 2, "size line")


def test_mtx_no_entries_is_empty(io_write):
    path = io_write("e.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 0\n")
    expect_format_error(path, None, "no edges", exc=EmptyGraphError)
    only_diag = io_write("d.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 1\n2 2\n")
    expect_format_error(only_diag, None, "no edges", exc=EmptyGraphError)


@pytest.mark.parametrize("body,line,fragment", [
    ("1 2\n2 x\n", 4, "Invalid integer"),
    ("1 2\n2 7\n", 4, "out of bounds"),
])
def test_mtx_parse_errors_wrapped_with_line(io_write, body, line, fragment):
    path = io_write("p.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n" + body, "gz")
    err = expect_format_error(path, line, "Matrix Market parse error", fragment)
    assert isinstance(err.__cause__, Exception)


def test_mtx_truncated(io_write):
    path = io_write("t.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n")
    expect_format_error(path, None, "Matrix Market parse error")


def _mtx_text(fld, sym, body, nnz=None):
    lines = [ln for ln in body.split("\n") if ln.strip() and not ln.lstrip().startswith("%")]
    return f"%%MatrixMarket matrix coordinate {fld} {sym}\n% c\n4 4 {len(lines) if nnz is None else nnz}\n{body}"


def _mtx_read_both(text, monkeypatch, keep_weights):
    """``_parse_matrix_market`` of *text* by the NumPy reader and by SciPy's (the NumPy one off):
    each the entries and weights as lists, or the error."""
    import autotune.graph as graph

    def read():
        try:
            r = graph._parse_matrix_market(text.encode(), "x.mtx", keep_weights)
        except GraphFormatError as exc:
            return str(exc)
        return [None if x is None else (np.asarray(x).tolist(), str(np.asarray(x).dtype)) for x in r]

    fast = read()
    with monkeypatch.context() as m:
        m.setattr(graph, "_mtx_entries", lambda *a: None)
        slow = read()
    return fast, slow


@pytest.mark.parametrize("fld,sym,body", [
    ("pattern", "general", "1 2\n2 3\n3 1\n1 2\n"),
    ("pattern", "symmetric", "2 1\n3 3\n\t4  2 \n\n1 4\n% c\n3 4"),
    ("integer", "general", "1 2 4\n2 3 -1\n3 1 07\n"),
    ("integer", "symmetric", "2 1 7\n3 3 1\n4 2 5\n1 2 9\n4 1 3\n"),
    ("real", "general", "1 2 0.5\n2 1 1e-3\n3 1 -.5E+2\n4 4 2.\n"),
    ("real", "symmetric", "2 1 7.5\n3 3 1.\n4 2 5e0\n4 1 3\n"),
])
def test_mtx_numpy_reader_gives_scipys_entries(fld, sym, body, monkeypatch):
    """Plain entry lines are read by NumPy (no SciPy import) into SciPy's entries, in SciPy's order
    (a symmetric file's mirror after the stored entries), with the same weights or weight error."""
    import autotune.graph as graph

    text = _mtx_text(fld, sym, body)
    n_lines = len([ln for ln in body.split("\n") if ln.strip() and not ln.lstrip().startswith("%")])
    entries = graph._mtx_entries(graph._MTX_COMMENT_RE.sub(b"", body.encode()), fld, n_lines, 4)
    assert entries is not None
    for keep in (True, False):
        fast, slow = _mtx_read_both(text, monkeypatch, keep)
        assert fast == slow


@pytest.mark.parametrize("fld,body,nnz", [
    ("real", "1 2 +1.5\n", None),       # SciPy refuses a leading '+'
    ("real", "1 2 1e\n", None),         # SciPy reads '1e' as 1.0, NumPy not at all
    ("integer", "1 2 5.0\n", None),     # SciPy reads 5
    ("pattern", "+1 2\n", None),
    ("pattern", "1 2\n2 5\n", None),    # id past the size line's 4
    ("pattern", "0 2\n", None),
    ("pattern", "1 2\n2 3\n", 3),       # fewer entries than declared
    ("pattern", "1 2\n2 3\r\n", None),  # CR: left to SciPy
    ("real", "1 2 1e400\n", None),      # not finite
])
def test_mtx_numpy_reader_leaves_unusual_files_to_scipy(fld, body, nnz, monkeypatch):
    import autotune.graph as graph

    n = len(body.strip().split("\n")) if nnz is None else nnz
    assert graph._mtx_entries(body.encode(), fld, n, 4) is None
    fast, slow = _mtx_read_both(_mtx_text(fld, "general", body, nnz), monkeypatch, True)
    assert fast == slow


def test_mtx_last_line_ending_in_a_blank_without_newline(io_write):
    """Read by NumPy (SciPy 1.17's reader crashes the process on this file)."""
    g = load(io_write("tb.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n2 3 "))
    assert g.directed and edges(g) == {(0, 1), (1, 2)}


# =================================================================================== DIMACS
DIMACS = """c 9th DIMACS shortest path
c graph
p sp 4 5
c arcs
a 1 2 7
a 2 3 1
a 3 4 2
a 4 1 9
a 1 2 3
"""


@pytest.mark.parametrize("compress", [None, "gz"])
def test_dimacs_basic(io_write, compress):
    g = load(io_write("road.gr", DIMACS, compress))
    assert g.directed and g.n_vertices == 4 and g.name == "road"
    assert edges(g) == {(0, 1), (1, 2), (2, 3), (3, 0)}
    assert g.n_duplicates_removed == 1
    assert not load(io_write("road2.gr", DIMACS), directed=False).directed


def test_dimacs_fast_path_used(io_write, monkeypatch):
    import autotune.graph

    def no_scan(*args):
        raise AssertionError("slow line-by-line scan used on a plain DIMACS file")

    monkeypatch.setattr(autotune.graph, "_scan_dimacs", no_scan)
    rng = np.random.default_rng(1)
    e = rng.integers(1, 1001, size=(5000, 2))
    text = "c big\np sp 1000 5000\n" + "".join(f"a {u} {v} {w}\n" for (u, v), w in zip(e, range(1, 5001)))
    g = load(io_write("big.gr", text, "gz"))
    keep = e[:, 0] != e[:, 1]
    assert g.n_edges == len({(u - 1, v - 1) for u, v in e[keep].tolist()})
    assert edges(g) == {(u - 1, v - 1) for u, v in e[keep].tolist()}


def test_dimacs_slow_path_agrees(io_write):
    """Comments between arcs (slow path), CRLF and real lengths give the same graph."""
    fast = load(io_write("f.gr", DIMACS))
    slow_text = DIMACS.replace("a 3 4 2\n", "c mid-file comment\na 3 4 2\n").replace("\n", "\r\n")
    slow = load(io_write("s.gr", slow_text))
    real = load(io_write("r.gr", DIMACS.replace(" 7\n", " 7.5\n")))
    three = load(io_write("t.gr", "p sp 4 5\na 1 2\na 2 3\na 3 4\na 4 1\na 1 2\n"))
    assert edges(fast) == edges(slow) == edges(real) == edges(three)
    assert fast.fingerprint == slow.fingerprint
    assert fast.weights.dtype == np.int32 and real.weights.dtype == np.float32 and three.weights is None
    np.testing.assert_array_equal(fast.weights, slow.weights)
    assert real.weights.tolist() == [3.0, 1.0, 2.0, 9.0]  # a 1->2 arcs 7.5 and 3: the minimum
    assert load(io_write("r2.gr", DIMACS.replace(" 7\n", " 7.5\n")), weight=None).fingerprint == three.fingerprint


def test_dimacs_isolated_vertices(io_write):
    g = load(io_write("iso.gr", "p sp 10 1\na 3 5 1\n"))
    assert g.n_vertices == 10 and edges(g) == {(2, 4)}


@pytest.mark.parametrize("text,line,fragments", [
    ("c no problem line\na 1 2 3\n", 2, ["arc line before the problem line"]),
    ("c nothing\n", None, ["missing problem line"]),
    ("p sp 3 1\np sp 3 1\na 1 2 1\n", 2, ["duplicate problem line", "line 1"]),
    ("p sp 3 2\na 1 2 1\np sp 3 2\na 2 3 1\n", 3, ["duplicate problem line"]),
    ("p sp 3 2\na 1 2 1\na 0 2 1\n", 3, ["vertex id 0 out of range 1..3"]),
    ("p sp 3 2\na 1 2 1\na 2 4 1\n", 3, ["vertex id 4 out of range 1..3"]),
    ("p sp 3 2\na 1 2 1\na 2\n", 3, ["malformed arc line"]),
    ("p sp 3 2\na 1 2 1\na 2 3 1 9\n", 3, ["malformed arc line"]),
    ("p sp 3 2\na 1 2 1\na 2 q 1\n", 3, ["non-integer vertex id", "'q'"]),
    ("p sp 3 2\na 1 2 1\na -1 2 1\n", 3, ["negative vertex id"]),
    ("c x\np sp 3 3\na 1 2 1\na 2 3 1\n", 2, ["declares 3 arcs", "has 2"]),
    ("p sp 3 1\na 1 2 1\na 2 3 1\n", 1, ["declares 1 arcs", "has 2"]),
    ("p max 3 1\na 1 2 1\n", 1, ["unsupported problem type 'max'"]),
    ("p sp 3\na 1 2 1\n", 1, ["malformed problem line"]),
    ("p sp 3 1\nx 1 2 1\n", 2, ["unexpected line"]),
    ("p sp 3 1\na 1 2 1\ne 1 2\n", 3, ["unexpected line"]),
])
def test_dimacs_errors(io_write, text, line, fragments):
    expect_format_error(io_write("bad.gr", text), line, *fragments)


def test_dimacs_empty(io_write):
    expect_format_error(io_write("e.gr", "p sp 3 0\n"), None, "no edges", exc=EmptyGraphError)
    expect_format_error(io_write("z.gr", "p sp 0 0\n"), 1, "0 vertices", exc=EmptyGraphError)


def test_dimacs_sniffed(io_write):
    assert load(io_write("road.txt.unknown", DIMACS)).n_edges == 4


# ========================================================================= in-memory inputs
def test_csrgraph_returned_as_is():
    g = from_edges([0, 1], [1, 2], xp=np)
    assert load_graph(g) is g


def test_tuple_of_arrays():
    g = load((np.array([0, 1, 1]), np.array([1, 2, 2])))
    assert g.directed and edges(g) == {(0, 1), (1, 2)} and g.n_duplicates_removed == 1
    u = load(([0, 1], [1, 2]), directed=False, name="t")
    assert not u.directed and u.n_edges == 4 and u.name == "t"
    with pytest.raises(TypeError, match="tuple of 4"):
        load_graph((np.arange(2), np.arange(2), np.arange(2), np.arange(2)))


def test_unknown_type_names_it():
    with pytest.raises(TypeError, match="numpy.ndarray"):
        load_graph(np.zeros((3, 3)))
    with pytest.raises(TypeError, match="builtins.dict"):
        load_graph({0: [1]})


@pytest.mark.parametrize("fmt", ["csr_matrix", "coo_matrix", "csr_array", "csc_array"])
def test_scipy_sparse(fmt):
    a = sp.coo_matrix((np.ones(4), ([0, 1, 1, 2], [1, 0, 2, 1])), shape=(4, 4))
    sym = load(getattr(sp, fmt)(a))
    assert not sym.directed and sym.n_vertices == 4 and sym.n_edges == 4 and sym.n_duplicates_removed == 0
    b = sp.coo_matrix((np.ones(3), ([0, 1, 2], [1, 2, 2])), shape=(3, 3))
    asym = load(getattr(sp, fmt)(b))
    assert asym.directed and edges(asym) == {(0, 1), (1, 2)} and asym.n_self_loops_removed == 1
    assert not load(getattr(sp, fmt)(b), directed=False).directed
    assert load(getattr(sp, fmt)(a), directed=True).directed


def test_scipy_explicit_zero_is_an_edge_and_errors():
    a = sp.csr_matrix((np.array([0.0, 1.0]), np.array([1, 0]), np.array([0, 1, 2])), shape=(2, 2))
    assert a.nnz == 2
    assert load(a, weight=None).n_edges == 2  # read as a pattern
    with pytest.raises(GraphFormatError, match=r"data\[0\] \(entry \(0, 1\)\): weight 0.0 is not positive"):
        load(a)  # as weights, 0 is refused
    with pytest.raises(GraphFormatError, match="2 x 3"):
        load_graph(sp.csr_matrix((2, 3)))
    with pytest.raises(EmptyGraphError):
        load_graph(sp.csr_matrix((3, 3)))


def test_networkx_integer_labels():
    nx = pytest.importorskip("networkx")
    g = load(nx.path_graph(5))
    assert not g.directed and g.vertex_ids is None and g.n_edges == 8
    d = nx.DiGraph([(10, 30), (30, 20), (20, 10)])
    d.add_node(99)
    gd = load(d)
    assert gd.directed and gd.n_vertices == 4 and gd.vertex_ids.tolist() == [10, 20, 30, 99]
    assert original_edges(gd) == {(10, 30), (30, 20), (20, 10)}
    assert int(gd.index_of(99)) == 3 and gd.out_degrees()[3] == 0


def test_networkx_other_labels_and_direction():
    nx = pytest.importorskip("networkx")
    G = nx.Graph(name="people")
    G.add_edges_from([("bob", "alice"), ("alice", "carol"), ("carol", "carol")])
    G.add_node("dave")
    g = load(G)
    labels = g._cache["node_labels"]
    assert labels == ["bob", "alice", "carol", "dave"] and g.vertex_ids is None
    named = {(labels[u], labels[v]) for u, v in edges(g)}
    assert named == {("bob", "alice"), ("alice", "bob"), ("alice", "carol"), ("carol", "alice")}
    assert g.name == "people" and g.n_self_loops_removed == 1
    marked = load(G, directed=True)
    assert marked.directed and marked.n_edges == 4 and marked._cache["node_labels"] == labels
    sym = load(nx.DiGraph([(0, 1), (1, 0), (1, 2)]), directed=False)
    assert not sym.directed and sym.n_edges == 4 and sym.n_duplicates_removed == 1


def test_networkx_multigraph_duplicates():
    nx = pytest.importorskip("networkx")
    M = nx.MultiGraph([(0, 1), (0, 1), (1, 2)])
    g = load(M)
    assert g.n_edges == 4 and g.n_duplicates_removed == 1


def test_networkx_empty():
    nx = pytest.importorskip("networkx")
    with pytest.raises(EmptyGraphError):
        load_graph(nx.Graph())
    with pytest.raises(EmptyGraphError):
        load_graph(nx.empty_graph(3))


# ======================================================================== generator specs
def test_generator_spec_dispatch():
    g = load("kron:scale=6,edge_factor=4")
    assert g.n_vertices == 64 and g.spec == "kron:scale=6,edge_factor=4" and g.name == "kron:scale=6,edge_factor=4"
    assert load("uniform:n=100,avg_degree=4", name="u").name == "u"
    d = load("kron:scale=5", directed=True)
    assert d.directed and d.spec == "kron:scale=5,edge_factor=16,directed=true"
    grid = load("grid:rows=3,cols=3", directed=True)
    assert grid.directed and grid.n_edges == 24


def test_bare_generator_name():
    g = load("grid")
    assert g.n_vertices == 256 * 256 and g.spec == "grid:rows=256,cols=256"


def test_spec_errors_through_load_graph():
    with pytest.raises(ValueError, match="unknown generator 'nosuch'.*known generators: .*grid, kron, .*uniform"):
        load_graph("nosuch:scale=3")
    with pytest.raises(FileNotFoundError):
        load_graph("kronx")  # not a generator name, not a file


def test_existing_file_wins_over_spec(tmp_path, monkeypatch):
    (tmp_path / "kron:scale=3").write_text("0 1\n")
    monkeypatch.chdir(tmp_path)
    g = load("kron:scale=3")
    assert g.n_vertices == 2 and g.name == "kron:scale=3"


# ============================================================================= real graphs
# scipy >= 1.15 warns unless the return type is chosen; older versions have no such keyword
MMREAD_KW = {"spmatrix": False} if "spmatrix" in inspect.signature(scipy.io.mmread).parameters else {}


def _manifest(d):
    with open(d / "MANIFEST.tsv", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def _snap_reference(path):
    """Independent parse: Python filters comment lines, numpy converts."""
    with gzip.open(path, "rt") as fh:
        data = [ln for ln in fh if ln.strip() and not ln.lstrip().startswith(("#", "%"))]
    e = np.loadtxt(io.StringIO("".join(data)), dtype=np.int64, usecols=(0, 1), ndmin=2)
    return e[:, 0], e[:, 1]


def test_real_graphs(io_graphs_dir):
    rows = _manifest(io_graphs_dir)
    assert rows, "MANIFEST.tsv lists no graphs"
    for row in rows:
        path = str(io_graphs_dir / row["file"])
        t = time.perf_counter()
        g = load(path)
        elapsed = time.perf_counter() - t
        assert elapsed < 30, f"{row['file']} took {elapsed:.1f} s"
        assert_valid_csr(g)
        assert g.n_vertices == int(row["vertices"]), row["file"]
        assert g.directed == (row["directed"] == "yes"), row["file"]
        if path.endswith((".mtx", ".mtx.gz")):
            a = scipy.io.mmread(path, **MMREAD_KW).tocoo()
            loops = int(np.count_nonzero(a.row == a.col))
            assert g.n_self_loops_removed == loops
            # MANIFEST counts stored (lower-triangle) entries of the symmetric file
            assert g.n_edges == 2 * int(row["edges"]) - 2 * loops, row["file"]
            pattern = sp.csr_matrix((np.ones(a.nnz, np.int8), (a.row, a.col)), shape=a.shape)
            pattern.setdiag(0)
            pattern.eliminate_zeros()
            pattern.data[:] = 1
            assert (g.to_scipy() != pattern).nnz == 0, row["file"]
        else:
            src, dst = _snap_reference(path)
            keep = src != dst
            n = g.n_vertices
            want = np.unique(src[keep] * n + dst[keep])
            assert g.n_edges == want.size, row["file"]
            assert g.n_self_loops_removed == int((~keep).sum())
            assert g.n_edges + g.n_self_loops_removed + g.n_duplicates_removed == int(row["edges"])
            ro, ci = g.host()
            got = np.repeat(np.arange(n, dtype=np.int64), np.diff(ro)) * n + ci
            np.testing.assert_array_equal(got, want)


# ======================================================================================= GPU
@pytest.mark.gpu
def test_load_to_gpu_and_cupyx_sparse(io_write):
    import cupy
    import cupyx.scipy.sparse as cusp

    path = io_write("tri.txt", TRIANGLE)
    g = load_graph(path, xp=cupy)
    assert g.on_device and edges(g) == {(0, 1), (1, 2), (2, 0)}
    assert load_graph(path, xp=np).fingerprint == g.fingerprint
    a = sp.coo_matrix((np.ones(4), ([0, 1, 1, 2], [1, 0, 2, 1])), shape=(3, 3))
    gc = load_graph(cusp.csr_matrix(sp.csr_matrix(a)))
    assert gc.on_device and not gc.directed and gc.n_edges == 4
    t = load_graph((cupy.array([0, 1]), cupy.array([1, 2])))
    assert t.on_device and t.n_edges == 2
    host = load_graph((cupy.array([0, 1]), cupy.array([1, 2])), xp=np)
    assert not host.on_device and host.fingerprint == t.fingerprint
    nx = pytest.importorskip("networkx")
    sym = load_graph(nx.DiGraph([(0, 1), (1, 2), (2, 1)]), directed=False, xp=cupy)
    assert sym.on_device and not sym.directed and edges(sym) == {(0, 1), (1, 0), (1, 2), (2, 1)}
    assert sym.n_duplicates_removed == 1


@pytest.mark.gpu
@pytest.mark.parametrize("directed", [True, False])
@pytest.mark.parametrize("weighted", [False, True])
def test_small_host_edges_are_built_on_the_host_and_live_on_the_gpu(directed, weighted, monkeypatch):
    """With a GPU, host edge arrays of at most HOST_BUILD_MAX_KEYS keys are built with NumPy (no CuPy
    kernel to compile on a first run) and uploaded: the graph lives on the GPU, equal to the GPU build,
    its host arrays cached; above the limit the build runs on the GPU as before."""
    import cupy

    from autotune import _csr

    rng = np.random.default_rng(5)
    src, dst = rng.integers(0, 300, 4000), rng.integers(0, 300, 4000)
    w = rng.integers(1, 9, 4000).astype(np.int32) if weighted else None
    calls = []
    real = _csr.from_edges

    def spy(*a, **k):
        calls.append(k.get("xp"))
        return real(*a, **k)

    monkeypatch.setattr(_csr, "from_edges", spy)
    g = real(src, dst, 300, weights=w, directed=directed)
    assert calls == [np]  # the host build, then the upload
    assert g.on_device and isinstance(g.column_indices, cupy.ndarray)
    ref = real(src, dst, 300, weights=w, directed=directed, xp=cupy)
    assert ref.on_device and g.fingerprint == ref.fingerprint and g.n_duplicates_removed == ref.n_duplicates_removed
    assert (g.row_offsets == ref.row_offsets).all() and (g.column_indices == ref.column_indices).all()
    assert g.host()[1] is g._cache["host"][1] and np.array_equal(g.host()[1], ref.host()[1])
    if weighted:
        assert isinstance(g.weights, cupy.ndarray) and np.array_equal(g.host_weights(), ref.host_weights())
    calls.clear()
    monkeypatch.setattr(_csr, "HOST_BUILD_MAX_KEYS", 100)
    big = real(src, dst, 300, weights=w, directed=directed)
    assert calls == [] and big.on_device and big.fingerprint == ref.fingerprint
    # edges already on the GPU are built there whatever their number
    on_gpu = real(cupy.asarray(src), cupy.asarray(dst), 300, directed=directed,
                  weights=None if w is None else cupy.asarray(w))
    assert calls == [] and on_gpu.fingerprint == ref.fingerprint
