"""Benchmark log: schema, JSON-safe records, durable appends, unreadable lines reported (CPU)."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest

from autotune.config import TraversalConfig
from autotune.features import profile
from autotune.logs import (
    SCHEMA_VERSION, LogRecord, LogSchemaError, LogWriter, expand_log_paths, logs_sha256, make_record, read_log,
    validate_record,
)
from autotune.measure import Measurement

from ._tuning_helpers import FAKE_DEVICE, small_graph


@pytest.fixture(scope="module")
def graph():
    return small_graph(300, 5)


@pytest.fixture(scope="module")
def feats(graph):
    return profile(graph, xp=np)


def _measurement(valid=True):
    if not valid:
        return Measurement("x", [3, 5], [], [], [], "cuda-events", valid=False, error="ValidationError: distances")
    # numpy scalars on purpose: the record must come out JSON-safe
    return Measurement("x", [np.int64(3), np.int64(5)], [np.float64(0.5), 0.25], [np.int64(100), 80],
                       [np.int32(4), 5], "cuda-events")


def _record(graph, feats, valid=True, cfg=None, **origin):
    cfg = cfg or TraversalConfig()
    return make_record(graph, feats, cfg, _measurement(valid), {**FAKE_DEVICE, "sm_count": np.int64(132)},
                       {"command": "sweep", **origin}, n_sources=16, seed=0)


def test_record_follows_design_schema(graph, feats):
    rec = _record(graph, feats)
    d = json.loads(rec.to_json())
    assert d["schema"] == SCHEMA_VERSION == 2 and d["algorithm"] == "bfs"
    assert d["graph"]["weights"] is None  # an unweighted graph
    assert set(d) >= {"schema", "time", "device", "graph", "config", "config_id", "measure", "valid", "error",
                      "origin"}
    assert d["time"].endswith("Z") and "T" in d["time"]
    assert d["graph"]["fingerprint"] == graph.fingerprint
    assert d["graph"]["features"]["n_edges"] == graph.n_edges
    assert d["config"] == TraversalConfig().to_dict() and d["config_id"] == TraversalConfig().config_id
    m = d["measure"]
    assert m["n_sources"] == 16 and m["seed"] == 0
    assert m["times_ms"] == [0.5, 0.25] and m["median_ms"] == pytest.approx(0.375)
    assert m["gteps"] > 0 and m["depth_mean"] == 4.5
    assert m["sources"] == [3, 5] and type(m["sources"][0]) is int
    assert type(d["device"]["sm_count"]) is int
    assert d["origin"] == {"command": "sweep", "study": None, "trial": None, "version": d["origin"]["version"]}
    assert d["valid"] is True and d["error"] is None


def test_invalid_record_has_error_and_null_numbers(graph, feats):
    d = json.loads(_record(graph, feats, valid=False).to_json())
    assert d["valid"] is False and "distances" in d["error"]
    assert d["measure"]["median_ms"] is None and d["measure"]["gteps"] is None  # NaN is not JSON


def test_round_trip(tmp_path, graph, feats):
    path = tmp_path / "sub" / "log.jsonl"
    recs = [_record(graph, feats), _record(graph, feats, valid=False),
            _record(graph, feats, cfg=TraversalConfig(load_balance="binary_search"), study="s", trial=3)]
    with LogWriter(path) as w:
        for r in recs:
            w.write(r)
        assert w.n_written == 3
    res = read_log(path)
    assert res.n_unreadable == 0 and res.first_bad_line is None
    assert [r.to_dict() for r in res.records] == [r.to_dict() for r in recs]
    assert res.records[2].origin["trial"] == 3 and res.records[2].key[1] == TraversalConfig(
        load_balance="binary_search").config_id
    assert res.records[0].key == (graph.fingerprint, TraversalConfig().config_id, FAKE_DEVICE["name"])


def test_unknown_keys_are_kept(tmp_path, graph, feats):
    d = _record(graph, feats).to_dict()
    d["future_key"] = {"x": 1}
    d["measure"]["new_stat"] = 2.5
    r = LogRecord.from_dict(d)
    assert r.to_dict()["future_key"] == {"x": 1} and r.measure["new_stat"] == 2.5


def test_corrupt_lines_counted_with_first_line_number(tmp_path, graph, feats):
    good = _record(graph, feats).to_json()
    missing = _record(graph, feats).to_dict()
    del missing["origin"]
    lines = [good, good, "not json at all", good[: len(good) // 2], "", json.dumps(missing), good, "[1, 2]"]
    path = tmp_path / "log.jsonl"
    path.write_text("\n".join(lines) + "\n")
    with pytest.warns(UserWarning, match=r"4 unreadable line\(s\).*log\.jsonl:3"):
        res = read_log(path)
    assert len(res.records) == 3
    assert res.n_unreadable == 4
    assert res.first_bad_line == f"{path}:3"
    assert [ln for _, ln, _ in res.problems] == [3, 4, 6, 8]
    assert "origin" in res.problems[2][2]


def test_partial_last_line_does_not_corrupt_next_append(tmp_path, graph, feats):
    """A run killed mid-write leaves a partial line; the next writer starts a fresh line."""
    path = tmp_path / "log.jsonl"
    good = _record(graph, feats).to_json()
    path.write_text(good + "\n" + good[:40])  # killed while writing the 2nd line
    with LogWriter(path) as w:
        w.write(_record(graph, feats))
    with pytest.warns(UserWarning):
        res = read_log(path)
    assert len(res.records) == 2 and res.n_unreadable == 1 and res.first_bad_line.endswith(":2")


def test_every_line_is_fsynced(tmp_path, graph, feats, monkeypatch):
    calls = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append(fd), real(fd)))
    with LogWriter(tmp_path / "log.jsonl") as w:
        for _ in range(3):
            w.write(_record(graph, feats))
            # the line is on disk before the next measurement starts
            assert (tmp_path / "log.jsonl").read_text().count("\n") == w.n_written
    assert len(calls) == 3


def test_writer_rejects_bad_dicts_and_closed(tmp_path, graph, feats):
    w = LogWriter(tmp_path / "log.jsonl")
    bad = _record(graph, feats).to_dict()
    bad["config_id"] = "nope"
    with pytest.raises(LogSchemaError, match="config_id"):
        w.write(bad)
    w.close()
    w.close()
    with pytest.raises(ValueError, match="closed"):
        w.write(_record(graph, feats))
    assert (tmp_path / "log.jsonl").read_text() == ""


@pytest.mark.parametrize("mutate, match", [
    (lambda d: d.update(schema=3), "schema"),
    (lambda d: d.pop("algorithm"), "algorithm"),
    (lambda d: d.update(algorithm="dfs"), "algorithm"),
    (lambda d: d["graph"].pop("weights"), "graph.weights"),
    (lambda d: d["graph"].update(weights=255), "graph.weights"),
    (lambda d: d["config"].update(algorithm="sssp"), "config.algorithm"),
    (lambda d: d.update(valid=1), "valid"),
    (lambda d: d["measure"].update(n_sources=True), "n_sources"),
    (lambda d: d["measure"].update(times_ms=[1.0, "x"]), r"times_ms\[1\]"),
    (lambda d: d["measure"].update(times_ms=[-1.0]), "non-negative"),
    (lambda d: d["measure"].update(times_ms=[]), "at least one time"),
    (lambda d: d["measure"].update(median_ms=0.0), "positive median"),
    (lambda d: d["graph"].update(fingerprint="md5:1"), "fingerprint"),
    (lambda d: d["graph"]["features"].update(degree_mean="big"), "degree_mean"),
    (lambda d: d["device"].pop("name"), "device.name"),
    (lambda d: d.update(valid=False, error=None), "must say why"),
    (lambda d: d["origin"].update(trial="3"), "origin.trial"),
])
def test_schema_violations_name_the_key(graph, feats, mutate, match):
    d = json.loads(_record(graph, feats).to_json())
    mutate(d)
    with pytest.raises(LogSchemaError, match=match):
        validate_record(d)


def test_make_record_rejects_device_without_name(graph, feats):
    with pytest.raises(LogSchemaError, match="device.name"):
        make_record(graph, feats, TraversalConfig(), _measurement(), {"cc": "9.0"}, "sweep", n_sources=2, seed=0)


def test_globs_folders_and_missing(tmp_path, graph, feats):
    for name, lb in (("b.jsonl", "binary_search"), ("a.jsonl", "vertex_mapped")):
        with LogWriter(tmp_path / name) as w:
            w.write(_record(graph, feats, cfg=TraversalConfig(load_balance=lb)))
    assert [p.name for p in expand_log_paths(str(tmp_path / "*.jsonl"))] == ["a.jsonl", "b.jsonl"]
    assert [p.name for p in expand_log_paths(tmp_path)] == ["a.jsonl", "b.jsonl"]
    assert len(read_log([tmp_path / "a.jsonl", str(tmp_path / "*.jsonl")]).records) == 2  # no duplicates
    with pytest.raises(FileNotFoundError, match="no log file matches"):
        expand_log_paths(str(tmp_path / "*.nothing"))
    with pytest.raises(FileNotFoundError, match="not found"):
        read_log(tmp_path / "missing.jsonl")
    h1 = logs_sha256([tmp_path / "a.jsonl", tmp_path / "b.jsonl"])
    assert h1.startswith("sha256:") and h1 != logs_sha256([tmp_path / "b.jsonl", tmp_path / "a.jsonl"])


# ------------------------------------------------------------------------------ schema 2 (algorithm, weights)
def test_committed_schema1_logs_read_as_bfs():
    """The GPU logs committed under models/ (schema 1, written before SSSP) still read, as BFS."""
    from pathlib import Path

    models = Path(__file__).resolve().parent.parent / "models"
    logs = sorted(p for p in models.glob("*.jsonl")
                  if p.read_text().lstrip().startswith('{"schema":1'))
    assert logs, "expected the committed schema-1 logs under models/"
    for path in logs:
        res = read_log(path)
        assert res.n_unreadable == 0 and len(res.records) > 100, path.name
        assert {r.schema for r in res.records} == {1}
        assert {r.algorithm for r in res.records} == {"bfs"}
        assert {r.weights for r in res.records} == {None}
        # a schema-1 line round-trips unchanged (no algorithm key added)
        first = json.loads(path.read_text().splitlines()[0])
        assert res.records[0].to_dict() == first and "algorithm" not in res.records[0].to_dict()
        # its config ids are still those of this release's BFS configs
        r = res.records[0]
        assert TraversalConfig.from_dict(r.config).config_id == r.config_id


def test_schema1_line_naming_another_algorithm_is_unreadable(graph, feats):
    d = json.loads(_record(graph, feats).to_json())
    d["schema"] = 1
    del d["algorithm"]
    del d["graph"]["weights"]
    validate_record(d)
    assert LogRecord.from_dict(d).algorithm == "bfs"
    d["config"]["algorithm"] = "sssp"
    with pytest.raises(LogSchemaError, match="schema-1 lines are BFS"):
        validate_record(d)


def test_sssp_record_names_algorithm_and_weights(graph, feats, tmp_path):
    import types

    from autotune.logs import weights_spec

    cfg = TraversalConfig(algorithm="sssp", sssp_method="near_far", delta=4)
    weighted = types.SimpleNamespace(name="kron", fingerprint=graph.fingerprint, spec="kron:scale=8,weights=int:1:255",
                                     weights=np.ones(3, dtype=np.int32))
    rec = make_record(weighted, feats, cfg, _measurement(), FAKE_DEVICE, "sweep", n_sources=2, seed=0)
    d = json.loads(rec.to_json())
    assert d["schema"] == 2 and d["algorithm"] == "sssp" and rec.algorithm == "sssp"
    assert d["graph"]["weights"] == "int:1:255" == rec.weights
    assert d["config"]["sssp_method"] == "near_far" and d["config_id"] == cfg.config_id
    with LogWriter(tmp_path / "s.jsonl") as w:
        w.write(rec)
    back = read_log(tmp_path / "s.jsonl").records[0]
    assert back.algorithm == "sssp" and back.to_dict() == rec.to_dict()
    # weights read from a file, a float distribution, none
    assert weights_spec(types.SimpleNamespace(spec="roads.gr", weights=np.ones(2, np.int32))) == "file"
    assert weights_spec(types.SimpleNamespace(spec="grid:rows=4,cols=4,weights=float:0.5:2",
                                              weights=np.ones(2, np.float32))) == "float:0.5:2"
    assert weights_spec(types.SimpleNamespace(spec="grid:rows=4,cols=4", weights=None)) is None
    assert weights_spec(graph) is None


def test_read_log_reads_gzip_logs_and_folders_of_them(tmp_path, graph, feats):
    """Shipped logs with per-level traces are stored gzip-compressed: read_log, folders and retrain's
    globs take them like plain JSONL; a damaged stream is reported as unreadable, not a crash."""
    import gzip
    import shutil

    plain = tmp_path / "a.jsonl"
    with LogWriter(plain) as w:
        for cfg in (TraversalConfig(), TraversalConfig(load_balance="binary_search"), TraversalConfig(block_size=512)):
            w.write(_record(graph, feats, cfg=cfg))
    gz = tmp_path / "logs" / "b.jsonl.gz"
    gz.parent.mkdir()
    with open(plain, "rb") as src, gzip.open(gz, "wb") as dst:
        shutil.copyfileobj(src, dst)
    a, b = read_log(plain), read_log(gz)
    assert [r.to_json() for r in a.records] == [r.to_json() for r in b.records] and len(b.records) == 3
    assert expand_log_paths(gz.parent) == [gz]
    assert len(read_log(str(tmp_path / "logs" / "*.jsonl.gz")).records) == 3
    bad = tmp_path / "bad" / "c.jsonl.gz"
    bad.parent.mkdir()
    bad.write_bytes(gz.read_bytes()[:-20])
    with pytest.warns(UserWarning):
        res = read_log(bad)
    assert res.n_unreadable >= 1
