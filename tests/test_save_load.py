"""CSRGraph.save / load_graph of the binary form (.atg): round trips, dispatch, and refused files."""
from __future__ import annotations

import gzip
import json
import os
import zlib

import networkx as nx
import numpy as np
import pytest

from autotune.errors import FileAccessError, GraphFileError, GraphFormatError, MissingFileError
from autotune.graph import BINARY_MAGIC, CSRGraph, from_edges, load_binary, load_graph


def same(a: CSRGraph, b: CSRGraph, *, name=True) -> None:
    ra, ca = a.host()
    rb, cb = b.host()
    assert ra.dtype == rb.dtype and ca.dtype == cb.dtype
    np.testing.assert_array_equal(ra, rb)
    np.testing.assert_array_equal(ca, cb)
    if a.weights is None:
        assert b.weights is None
    else:
        assert b.weights.dtype == a.weights.dtype
        np.testing.assert_array_equal(a.host_weights(), b.host_weights())
    if a.vertex_ids is None:
        assert b.vertex_ids is None
    else:
        np.testing.assert_array_equal(a.vertex_ids, b.vertex_ids)
    assert a.directed == b.directed and a.spec == b.spec
    if name:
        assert a.name == b.name
    for k in ("n_self_loops_removed", "n_duplicates_removed", "n_weight_conflicts"):
        assert getattr(a, k) == getattr(b, k), k
    assert a.fingerprint == b.fingerprint


@pytest.mark.parametrize("spec", ["kron:scale=10", "kron:scale=10,directed=true,weights=int:1:255",
                                  "grid:rows=20,cols=30,drop=0.1,weights=float:0.5:2.0"])
@pytest.mark.parametrize("mmap", [True, False])
def test_generated_graphs_round_trip(tmp_path, spec, mmap):
    g = load_graph(spec, xp=np)
    path = tmp_path / "g.atg"
    assert g.save(path) == str(path)
    h = load_binary(path, mmap=mmap, xp=np)
    same(g, h)
    assert isinstance(h.row_offsets, np.ndarray) and type(h.row_offsets) is np.ndarray
    assert h.row_offsets.flags.writeable is (not mmap)
    same(g, load_graph(str(path), xp=np))
    same(g, CSRGraph.load(path, verify=False, xp=np))


def test_edge_list_with_relabelled_ids_round_trips(tmp_path):
    p = tmp_path / "sparse.txt"
    p.write_text("# ids far apart\n10 2000000000\n2000000000 30\n30 10\n10 10\n10 30\n")
    g = load_graph(str(p), xp=np)
    assert g.vertex_ids is not None and g.n_self_loops_removed == 1
    g.save(tmp_path / "sparse.atg")
    h = load_graph(str(tmp_path / "sparse.atg"), xp=np)
    same(g, h)
    assert h.name == "sparse" and h.spec == str(p)
    assert int(h.index_of(2000000000)) == int(g.index_of(2000000000))


def test_networkx_labels_round_trip(tmp_path):
    G = nx.DiGraph()
    G.add_weighted_edges_from([("a", "b", 2), ("b", "c", 3), ("a", "c", 9)])
    g = load_graph(G, xp=np)
    g.save(tmp_path / "nx.atg")
    h = load_graph(str(tmp_path / "nx.atg"), xp=np)
    same(g, h)
    assert h._cache["node_labels"] == ["a", "b", "c"]


def test_unsaveable_labels_warn(tmp_path):
    g = load_graph(nx.grid_2d_graph(3, 3), xp=np)  # tuple labels
    with pytest.warns(UserWarning, match="node labels"):
        g.save(tmp_path / "grid.atg")
    h = load_graph(str(tmp_path / "grid.atg"), xp=np)
    same(g, h)
    assert "node_labels" not in h._cache


def test_load_graph_options_apply_to_a_binary_graph(tmp_path):
    g = load_graph("kron:scale=8,directed=true,weights=int:1:9", xp=np)
    path = str(tmp_path / "k.atg")
    g.save(path)
    assert load_graph(path, xp=np, name="other").name == "other"
    assert load_graph(path, xp=np, weight=None).weights is None
    sym = load_graph(path, xp=np, directed=False)
    assert not sym.directed and sym.n_edges >= g.n_edges
    from autotune._csr import _with_direction

    same(sym, _with_direction(g, False, xp=np))


def test_other_names_and_compression_are_recognised_by_the_magic_bytes(tmp_path):
    g = load_graph("kron:scale=8", xp=np)
    g.save(tmp_path / "graph.bin")
    same(g, load_graph(str(tmp_path / "graph.bin"), xp=np))
    raw = (tmp_path / "graph.bin").read_bytes()
    (tmp_path / "graph.atg.gz").write_bytes(gzip.compress(raw))
    same(g, load_graph(str(tmp_path / "graph.atg.gz"), xp=np))


def test_save_replaces_an_existing_file_atomically(tmp_path):
    path = tmp_path / "g.atg"
    a = load_graph("kron:scale=8", xp=np)
    b = load_graph("kron:scale=9", xp=np)
    a.save(path)
    held = load_binary(path, xp=np)  # memory-mapped from the old file
    b.save(path)
    same(a, held)  # the old mapping stays valid (a new file was renamed over the old one)
    same(b, load_binary(path, xp=np))
    assert [p.name for p in tmp_path.iterdir()] == ["g.atg"]


def test_a_loaded_graph_traverses_like_the_original(tmp_path):
    from autotune.features import profile
    from autotune.reference import bfs_reference

    g = load_graph("kron:scale=10", xp=np)
    g.save(tmp_path / "g.atg")
    h = load_graph(str(tmp_path / "g.atg"), xp=np)
    for a, b in zip(bfs_reference(g, 3), bfs_reference(h, 3)):
        np.testing.assert_array_equal(a, b)
    fa, fb = profile(h).to_dict(), profile(g).to_dict()
    fa.pop("profile_ms"), fb.pop("profile_ms")
    assert fa == fb


# ----------------------------------------------------------------------------------- refusals
@pytest.fixture
def saved(tmp_path):
    g = load_graph("kron:scale=9,weights=int:1:255", xp=np)
    path = tmp_path / "g.atg"
    g.save(path)
    return path


def header_of(path):
    raw = path.read_bytes()
    n = int.from_bytes(raw[12:16], "little")
    return raw, json.loads(raw[16:16 + n])


def refused(path, *fragments, exc=GraphFormatError, **kw):
    with pytest.raises(exc) as info:
        load_graph(str(path), xp=np, **kw)
    text = str(info.value)
    assert text.startswith(f"{path}: "), text
    for f in fragments:
        assert f in text, text
    return info.value


def test_another_version_is_refused(saved):
    raw = bytearray(saved.read_bytes())
    raw[8:12] = (2).to_bytes(4, "little")
    saved.write_bytes(bytes(raw))
    refused(saved, "format version 2 (this release reads version 1 only)")


@pytest.mark.parametrize("keep", [0, 5, 12, 100, -1, -5000])
def test_truncated_files_are_refused(saved, keep):
    raw = saved.read_bytes()
    saved.write_bytes(raw[:keep] if keep >= 0 else raw[:len(raw) + keep])
    err = refused(saved)
    assert "truncated" in str(err) or (keep == 0 and "the file is empty" in str(err)), str(err)
    if keep < 0:
        assert f"the file has {len(raw) + keep:,}" in str(err)


def test_a_flipped_bit_fails_the_checksum(saved):
    raw, head = header_of(saved)
    off = head["arrays"]["column_indices"]["offset"] + 1000
    data = bytearray(raw)
    data[off] ^= 0x10
    saved.write_bytes(bytes(data))
    refused(saved, "corrupt: array 'column_indices' fails its CRC-32 check")
    h = load_binary(saved, verify=False, xp=np)  # the quick path checks only the sizes
    assert h.n_edges == head["n_edges"]


def test_corrupt_header_and_structure_are_refused(saved):
    raw, head = header_of(saved)
    n = int.from_bytes(raw[12:16], "little")

    def write(h, body=None):
        text = json.dumps(h, separators=(",", ":")).encode()
        assert len(text) <= n
        saved.write_bytes(raw[:16] + text + b" " * (n - len(text)) + (raw[16 + n:] if body is None else body))

    bad = json.loads(json.dumps(head))
    bad["arrays"]["weights"]["dtype"] = "<f8"
    write(bad)
    refused(saved, "corrupt header: array 'weights' has dtype '<f8'")
    bad = json.loads(json.dumps(head))
    del bad["directed"]
    write(bad)
    refused(saved, "corrupt header: no field 'directed'")
    bad = json.loads(json.dumps(head))
    bad["n_vertices"] += 1
    write(bad)
    refused(saved, "array 'row_offsets' has shape")
    saved.write_bytes(raw[:16] + b"{not json" + raw[25:])
    refused(saved, "corrupt header (not UTF-8 JSON")
    # a well-formed file whose row offsets decrease (checksums recomputed): the structure check
    body = bytearray(raw[16 + n:])
    ro_at = head["arrays"]["row_offsets"]["offset"] - 16 - n
    ro = np.frombuffer(bytes(body[ro_at:ro_at + head["arrays"]["row_offsets"]["nbytes"]]), "<i4").copy()
    ro[5], ro[6] = ro[6], ro[5] - 1
    body[ro_at:ro_at + ro.nbytes] = ro.tobytes()
    fixed = json.loads(json.dumps(head))
    fixed["arrays"]["row_offsets"]["crc32"] = zlib.crc32(ro.tobytes())
    write(fixed, bytes(body))
    refused(saved, "corrupt: row_offsets decreases at vertex")


def test_not_a_binary_graph(tmp_path):
    p = tmp_path / "edges.atg"
    p.write_text("0 1\n1 2\n")
    refused(p, "not a readable autotune binary graph (.atg, version 1)", "not the magic bytes")
    q = tmp_path / "empty.atg"
    q.write_bytes(b"")
    refused(q, "the file is empty (0 bytes)")
    r = tmp_path / "short.atg"
    r.write_bytes(BINARY_MAGIC[:5])
    refused(r, "truncated")


def test_missing_unreadable_and_unwritable(tmp_path):
    with pytest.raises(MissingFileError):
        load_graph(str(tmp_path / "none.atg"), xp=np)
    (tmp_path / "dir.atg").mkdir()
    with pytest.raises(GraphFileError, match="is a directory"):
        load_graph(str(tmp_path / "dir.atg"), xp=np)
    g = load_graph("kron:scale=6", xp=np)
    with pytest.raises(FileAccessError, match="cannot write the graph file: folder not found"):
        g.save(tmp_path / "no" / "such" / "g.atg")
    assert not any(p.name.startswith("g.atg.tmp") for p in tmp_path.rglob("*"))


def test_save_writes_64_byte_aligned_little_endian_arrays(saved):
    raw, head = header_of(saved)
    assert raw[:8] == BINARY_MAGIC and head["version"] == 1 and head["format"] == "autotune.CSRGraph"
    assert len(raw) == head["file_bytes"]
    for name, e in head["arrays"].items():
        assert e["offset"] % 64 == 0 and e["dtype"].startswith("<"), name
    assert set(head["arrays"]) == {"row_offsets", "column_indices", "weights"}
    assert os.path.getsize(saved) == head["file_bytes"]


def test_from_edges_graph_with_int64_offsets_dtype_round_trips(tmp_path):
    g = from_edges(np.array([0, 1, 2]), np.array([1, 2, 0]), 3, xp=np)
    g = CSRGraph(row_offsets=g.row_offsets.astype(np.int64), column_indices=g.column_indices, directed=True)
    g.save(tmp_path / "w.atg")
    h = load_graph(str(tmp_path / "w.atg"), xp=np)
    assert h.row_offsets.dtype == np.int64
    same(g, h)


# ------------------------------------------------------------ text edge lists: NumPy's C reader
EDGE_TEXTS = [
    "0 1\n1 2\n2 0\n",
    "# SNAP header\n# FromNodeId\tToNodeId\n0\t1\r\n1\t2\r\n\r\n2\t0\r\n",
    "% pct comments\n5 6\n% between\n6 7\n",
    "# both kinds\n0 1\n% here\n1 2\n",
    "0 1 7\n1 2 9\n2 0 4\n",
    "0 1 7 1700000000\n1 2 9 1700000001\n",
    "0 1\n1 2 3\n",  # 2 and 3 fields: the tokenizer
    "0 1 0.5\n1 2 1.5\n",  # real weights: the tokenizer
    "\ufeff0 1\n1 2\n",  # byte-order mark: from memory
    "10 2000000000\n2000000000 30\n",  # relabelled ids
]


@pytest.mark.parametrize("text", EDGE_TEXTS)
@pytest.mark.parametrize("compress", [False, True])
def test_numpy_reader_agrees_with_the_tokenizer(tmp_path, monkeypatch, text, compress):
    import autotune.graph as graph_module

    p = tmp_path / ("e.txt.gz" if compress else "e.txt")
    p.write_bytes(gzip.compress(text.encode()) if compress else text.encode())
    data_lines = [ln for ln in text.strip("\ufeff").splitlines() if ln.strip() and ln.strip()[0] not in "#%"]
    wc = 2 if min(len(ln.split()) for ln in data_lines) >= 3 else None
    fast = load_graph(str(p), xp=np, weight_column=wc)
    monkeypatch.setattr(graph_module, "_loadtxt_edge_list", lambda *a: None)
    slow = load_graph(str(p), xp=np, weight_column=wc)
    same(fast, slow)


@pytest.mark.parametrize("text, line, fragment", [
    ("0 1\n1 2 # trailing\n", 2, "found 4"),
    ("0 1\n1 -2\n", 2, "negative vertex id -2"),
    ("0 1\n1 x\n", 2, "non-integer vertex id 'x'"),
    ("0 1 5\n1 2 0\n", 2, "weight 0 is not positive"),
])
def test_numpy_reader_leaves_bad_lines_to_the_tokenizer(tmp_path, text, line, fragment):
    p = tmp_path / "bad.txt"
    p.write_text(text)
    with pytest.raises(GraphFormatError) as info:
        load_graph(str(p), xp=np, weight_column=2 if "5" in text else None)
    assert info.value.line == line and fragment in str(info.value), str(info.value)


def test_numpy_reader_is_used_for_a_plain_file(tmp_path, monkeypatch):
    """A plain table of integers is read by NumPy's number parser (``_int_table``), without
    loadtxt; when that declines, by loadtxt on the named file (NumPy's chunked C reader), not on a
    copy in memory."""
    import autotune.graph as graph_module

    p = tmp_path / "plain.txt"
    p.write_text("# c\n0 1\n1 2\n")
    calls, tables = [], []
    real, real_table = np.loadtxt, graph_module._int_table

    def spy(fname, *a, **k):
        calls.append(fname)
        return real(fname, *a, **k)

    def spy_table(body):
        out = real_table(body)
        tables.append(out is not None)
        return out

    monkeypatch.setattr(graph_module.np, "loadtxt", spy)
    monkeypatch.setattr(graph_module, "_int_table", spy_table)
    g = load_graph(str(p), xp=np)
    assert g.n_edges == 2 and tables == [True] and calls == []
    monkeypatch.setattr(graph_module, "_int_table", lambda body: None)
    p2 = tmp_path / "plain2.txt"
    p2.write_text("# c\n0 1\n1 2\n")
    assert load_graph(str(p2), xp=np).n_edges == 2
    assert calls == [str(p2)]  # the named file, not a copy in memory
