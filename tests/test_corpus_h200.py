"""models/corpus_h200.txt, the BFS corpus of the per-GPU models: its counts (>= 120 graphs, >= a
third directed, >= a quarter under 2 * 10**5 edges, small graphs in every generator family, every
real graph of the shared set), a family on every line, and its companion profile table
models/corpus_h200_features.tsv — checked without generating the big graphs (the small ones are
generated and profiled again on the CPU)."""
from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np
import pytest

from autotune.features import FEATURE_NAMES_V2, profile
from autotune.generators import _GENERATORS, _spec_size, generate, parse_spec
from autotune.sweep import (
    H200_CORPUS, REAL_GRAPH_KINDS, graph_family, parse_graph_entry, read_corpus, resolve_graph_entry,
    shared_graphs_dirs,
)

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "models" / H200_CORPUS
TABLE = REPO / "models" / "corpus_h200_features.tsv"
SMALL = 200_000


def _entries():
    return [parse_graph_entry(e) for e in read_corpus(CORPUS)]


def _table() -> dict:
    with open(TABLE, newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    return {r["entry"]: r for r in rows}


def _value(text: str):
    if text in ("true", "false"):
        return text == "true"
    v = float(text)
    return int(v) if v.is_integer() and "." not in text and "e" not in text else v


def _is_directed(entry: str, table_row: dict) -> bool:
    if entry.startswith("shared:"):
        return table_row["directed"] == "true"
    name, params = parse_spec(entry)
    return bool(params.get("directed", False)) or name == "bowtie"


def test_corpus_counts_and_families():
    entries = _entries()
    table = _table()
    names = [e.entry for e in entries]
    assert len(names) == len(set(names)) >= 120
    assert set(names) == set(table)
    directed = [e.entry for e in entries if _is_directed(e.entry, table[e.entry])]
    small = [e.entry for e in entries if int(table[e.entry]["n_edges"]) < SMALL]
    assert len(directed) * 3 >= len(names), f"{len(directed)} directed of {len(names)}"
    assert len(small) * 4 >= len(names), f"{len(small)} small of {len(names)}"
    families = {}
    for e in entries:
        assert e.family, f"{e.entry}: no family= on its line"
        assert e.family == table[e.entry]["family"]
        assert e.weights is None  # a BFS corpus
        if e.entry.startswith("shared:"):
            stem = graph_family(None, e.entry)
            assert e.family == stem and e.family.startswith("real-"), e.entry
        else:
            name, params = parse_spec(e.entry)
            assert name in _GENERATORS and e.family == name, e.entry
            for k in params:
                assert _GENERATORS[name].param(k) is not None, (e.entry, k)
        families.setdefault(e.family, []).append(e.entry)
    generators = {f for f in families if not f.startswith("real-")}
    assert generators == set(_GENERATORS)  # every generator is a family of the corpus
    for fam in generators:  # small graphs (10^4 .. 2 * 10^5 edges) of every generator family
        sizes = [int(table[x]["n_edges"]) for x in families[fam]]
        assert any(10_000 <= m < SMALL for m in sizes), fam
        assert any(m >= 10 ** 6 for m in sizes) or fam in ("bipartite",), fam
    # directed graphs from several generators, sink-heavy and with low reciprocity among them
    dir_fams = {table[x]["family"] for x in directed}
    assert {"rmat", "powerlaw", "bowtie"} <= dir_fams
    sinky = [x for x in directed if float(table[x]["sink_fraction"]) >= 0.25 and float(table[x]["reciprocity"]) < 0.2]
    assert len(sinky) >= 15
    small_sinky = [x for x in sinky if int(table[x]["n_edges"]) < SMALL]
    assert len(small_sinky) >= 8
    # the held-out benchmark graphs are not trained on
    assert not any(x.startswith(("kron:scale=22,edge_factor=16", "grid:rows=2048,cols=2048")) for x in names)
    # lines sorted by edge count (an interrupted sweep covers the small graphs first)
    edges = [int(table[x]["n_edges"]) for x in names]
    assert edges == sorted(edges)


def test_header_states_the_counts_and_points_inside_the_repository():
    text = CORPUS.read_text()
    entries = _entries()
    table = _table()
    n = len(entries)
    d = sum(_is_directed(e.entry, table[e.entry]) for e in entries)
    s = sum(int(table[e.entry]["n_edges"]) < SMALL for e in entries)
    assert f"# {n} graphs:" in text and f"directed          {d} of {n}" in text and f"{s} of {n}" in text
    assert "../shared" not in text and "../shared" not in TABLE.read_text()
    assert "autotune sweep --corpus models/corpus_h200.txt --configs train" in text


def test_generator_entries_are_canonical_and_sized_as_the_table_says():
    """Without generating them: each spec is canonical (what the sweep logs as graph.spec), and the
    size its parameters promise (autotune.generators._spec_size) matches the profiled edge count."""
    from autotune.generators import _canonical

    table = _table()
    for e in _entries():
        if e.entry.startswith("shared:"):
            continue
        name, params = parse_spec(e.entry)
        gen = _GENERATORS[name]
        values = {p.name: p.default for p in gen.params if p.default is not None}
        values.update(params)
        if name == "uniform" and "n" not in params and "scale" not in params:
            values["scale"] = 16
        assert _canonical(name, values) == e.entry, e.entry
        n, m, directed, _ = _spec_size(name, values)
        row = table[e.entry]
        assert int(row["n_vertices"]) == n, e.entry
        stored = int(row["n_edges"])
        promised = m if directed else 2 * m
        # duplicates, self-loops, dropped and reoriented edges make fewer; bowtie's structure edges more
        assert 0.25 * promised <= stored <= 1.3 * promised, (e.entry, stored, promised)
        assert (row["directed"] == "true") == (directed or name == "bowtie"), e.entry


def test_small_entries_regenerate_with_the_tabled_profile():
    """The small generated graphs, built and profiled again on the CPU, give the table's fingerprint
    and every feature exactly (the table is `autotune profile` on the CPU: 8 sources, seed 0)."""
    table = _table()
    checked = 0
    for e in _entries():
        row = table[e.entry]
        if e.entry.startswith("shared:") or int(row["n_edges"]) >= SMALL:
            continue
        g = generate(e.entry, xp=np)
        assert g.fingerprint == row["fingerprint"], e.entry
        f = profile(g, xp=np, n_sources=8, seed=0).to_dict()
        for k in FEATURE_NAMES_V2:
            want = _value(row[k])
            assert f[k] == want or (isinstance(want, float) and f[k] == pytest.approx(want, rel=1e-12)), (e.entry, k)
        checked += 1
    assert checked >= 30


def test_table_covers_the_profile_the_new_models_read():
    with open(TABLE, newline="") as fh:
        head = next(csv.reader(fh, delimiter="\t"))
    assert head == ["entry", "family", "fingerprint", *FEATURE_NAMES_V2]
    table = _table()
    for entry, row in table.items():
        for k in FEATURE_NAMES_V2:
            v = _value(row[k])
            assert not isinstance(v, float) or math.isfinite(v), (entry, k)
        assert 0.0 <= float(row["reciprocity"]) <= 1.0 and 0.0 < float(row["reach_mean"]) <= 1.0
        assert row["fingerprint"].startswith("sha256:")


def test_every_real_graph_of_the_shared_set_is_in_the_corpus():
    """Every file of the shared set's MANIFEST.tsv and MANIFEST-corpus.tsv is a shared: entry (when
    the set is present), resolves, and is read with its manifest's direction."""
    entries = _entries()
    shared = {e.entry[len("shared:"):]: e for e in entries if e.entry.startswith("shared:")}
    table = _table()
    assert len(shared) == len(REAL_GRAPH_KINDS) == 16
    for name, e in shared.items():
        kind = REAL_GRAPH_KINDS[name.split(".")[0]]
        assert e.family == f"real-{kind}"
    dirs = shared_graphs_dirs()
    if not (dirs and (dirs[0] / "MANIFEST.tsv").is_file()):
        pytest.skip("the shared real-graph set is not here (set AUTOTUNE_SHARED_GRAPHS or provide <repo>/.graphs)")
    rows = []
    for man in ("MANIFEST.tsv", "MANIFEST-corpus.tsv"):
        path = dirs[0] / man
        if path.is_file():
            with open(path, newline="") as fh:
                rows += list(csv.DictReader(fh, delimiter="\t"))
    assert {r["file"] for r in rows} == set(shared)
    for r in rows:
        e = shared[r["file"]]
        assert Path(resolve_graph_entry(e.entry)[0]).is_file()
        assert (table[e.entry]["directed"] == "true") == (r["directed"] == "yes"), r["file"]
        if r["directed"] == "no" and r["file"].endswith(".txt.gz"):  # an undirected SNAP file: read so
            assert e.directed is False, r["file"]
