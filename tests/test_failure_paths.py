"""Failure paths: files, memory, Matrix Market line numbers, models and logs, errors and the CLI.

Each section is one item of the failure-path issue; the search's lossless resume has its own file
(``test_resume.py``) and the table of hand-made bad inputs with the loaders' fuzzing is in
``test_bad_inputs.py``.
"""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import threading
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autotune import errors
from autotune.errors import (
    AutotuneError, ConfigError, FileAccessError, GeneratorSpecError, GraphFileError, GraphFormatError, HostMemoryError,
    MissingFileError, ModelError, TrainingDataError, VertexError,
)
from autotune.graph import load_graph

REPO = Path(__file__).resolve().parent.parent
GIB = 2 ** 30
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("AUTOTUNE_STORAGE", raising=False)
    monkeypatch.delenv("AUTOTUNE_HOST_MEMORY", raising=False)
    monkeypatch.setenv("AUTOTUNE_MODEL", str(tmp_path / "no-model.joblib"))


def _no_hang(fn, timeout=10.0, unblock=None):
    """Run *fn* in a thread; fail (after unblocking it) when it does not return within *timeout* s."""
    out: dict = {}

    def target():
        try:
            out["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            out["exc"] = exc

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(timeout)
    if t.is_alive():
        if unblock is not None:
            unblock()
        t.join(5)
        pytest.fail(f"{fn} hung (a FIFO opened for reading?)")
    if "exc" in out:
        raise out["exc"]
    return out.get("value")


def _fifo(path: Path) -> Path:
    os.mkfifo(path)
    return path


def _unblock_fifo(path: Path):
    def unblock():
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        os.close(fd)
    return unblock


# ============================================================================ 2. files
LOADERS = {
    "graph": lambda p: load_graph(str(p), xp=np),
    "log": lambda p: __import__("autotune.logs", fromlist=["read_log"]).read_log(p),
    "model": lambda p: __import__("autotune.model", fromlist=["load_model"]).load_model(p),
    "config": lambda p: __import__("autotune._files", fromlist=["read_config_file"]).read_config_file(p),
    "corpus": lambda p: __import__("autotune.sweep", fromlist=["read_corpus"]).read_corpus(p),
}
#: The error a loader raises for an unreadable (not missing) file.
UNREADABLE = {"graph": GraphFileError, "log": FileAccessError, "model": ModelError, "config": FileAccessError,
              "corpus": FileAccessError}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("kind", sorted(LOADERS))
def test_fifo_is_refused_before_it_is_opened(tmp_path, kind, monkeypatch):
    path = _fifo(tmp_path / {"graph": "g.txt", "log": "l.jsonl", "model": "m.joblib", "config": "c.json",
                             "corpus": "corpus.txt"}[kind])
    opened = []
    real_open = os.open

    def spy(p, flags, *a, **k):
        if os.fspath(p) == str(path) and not flags & getattr(os, "O_NONBLOCK", 0):
            opened.append(p)
        return real_open(p, flags, *a, **k)

    monkeypatch.setattr(os, "open", spy)
    with pytest.raises(UNREADABLE[kind]) as info:
        _no_hang(lambda: LOADERS[kind](path), unblock=_unblock_fifo(path))
    assert str(path) in str(info.value) and "FIFO" in str(info.value)
    assert not opened, "a FIFO must not be opened for a blocking read"


@pytest.mark.parametrize("kind", sorted(set(LOADERS) - {"log"}))  # a folder of logs is a valid log argument
def test_directory_is_refused(tmp_path, kind):
    d = tmp_path / "a-folder"
    d.mkdir()
    with pytest.raises(UNREADABLE[kind]) as info:
        LOADERS[kind](d)
    assert str(d) in str(info.value) and "directory" in str(info.value)


@pytest.mark.parametrize("kind", sorted(LOADERS))
def test_missing_file_names_the_path(tmp_path, kind):
    p = tmp_path / "nope.txt"
    with pytest.raises(MissingFileError) as info:
        LOADERS[kind](p)
    assert isinstance(info.value, FileNotFoundError) and str(p) in str(info.value)


@pytest.mark.parametrize("kind", sorted(LOADERS))
def test_permission_error_names_the_path(tmp_path, kind, monkeypatch):
    p = tmp_path / "locked.txt"
    p.write_text("0 1\n")
    real_open = os.open

    def denied(path, flags, *a, **k):
        if os.fspath(path) == str(p):
            raise PermissionError(13, "Permission denied", str(p))
        return real_open(path, flags, *a, **k)

    monkeypatch.setattr(os, "open", denied)
    with pytest.raises(UNREADABLE[kind]) as info:
        LOADERS[kind](p)
    assert str(p) in str(info.value) and "permission denied" in str(info.value)


@pytest.mark.skipif(IS_ROOT, reason="root reads files whatever their mode")
def test_unreadable_mode_names_the_path(tmp_path):
    p = tmp_path / "g.txt"
    p.write_text("0 1\n")
    p.chmod(0)
    try:
        with pytest.raises(GraphFileError, match="permission denied"):
            load_graph(str(p), xp=np)
    finally:
        p.chmod(0o644)


@pytest.mark.parametrize("kind", sorted(LOADERS))
def test_file_that_vanishes_before_opening(tmp_path, kind, monkeypatch):
    p = tmp_path / "gone.txt"
    p.write_text("0 1\n")
    real_open = os.open

    def vanish(path, flags, *a, **k):
        if os.fspath(path) == str(p):
            os.unlink(p)
        return real_open(path, flags, *a, **k)

    monkeypatch.setattr(os, "open", vanish)
    with pytest.raises(MissingFileError) as info:
        LOADERS[kind](p)
    assert str(p) in str(info.value)


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="Linux /proc")
def test_io_error_while_reading_names_the_path():
    with pytest.raises(GraphFileError, match="/proc/self/mem: cannot read"):
        load_graph("/proc/self/mem", xp=np)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_cli_profile_on_a_fifo_and_a_folder_is_one_line_exit_2(tmp_path):
    fifo = _fifo(tmp_path / "pipe.txt")
    for target in (fifo, tmp_path):
        r = subprocess.run([sys.executable, "-m", "autotune.cli", "profile", str(target)], capture_output=True,
                           text=True, timeout=60, env=dict(os.environ, AUTOTUNE_DISABLE_GPU="1"))
        assert r.returncode == 2, r.stderr
        assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
        assert r.stderr.startswith(f"autotune: error: {target}: is a ")


def test_benchmark_log_writer_refuses_a_fifo_and_a_folder(tmp_path):
    from autotune.logs import LogWriter

    with pytest.raises(FileAccessError, match="not a regular file"):
        _no_hang(lambda: LogWriter(_fifo(tmp_path / "w.jsonl")))
    with pytest.raises(FileAccessError, match="is not a regular file"):
        LogWriter(tmp_path)
    with pytest.raises(FileAccessError, match="cannot write the benchmark log"):
        LogWriter(tmp_path / "w.jsonl" / "x.jsonl")  # a folder path through the FIFO


def test_tune_out_folder_missing_is_said_before_the_work(tmp_path, capsys):
    from autotune.cli_tuning import main

    out = tmp_path / "no" / "such" / "cfg.json"
    assert main(["tune", "grid:rows=5,cols=5", "--no-model", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{out}: cannot write the config file (--out): folder not found" in err


# ============================================================================ 3. size
MTX_2E9 = "%%MatrixMarket matrix coordinate pattern general\n2000000000 2000000000 1\n1 2\n"
DIMACS_2E9 = "c huge\np sp 2000000000 1\na 1 2 7\n"


@pytest.mark.parametrize("name, text", [("huge.mtx", MTX_2E9), ("huge.gr", DIMACS_2E9),
                                        ("huge.mtx.gz", MTX_2E9)])
def test_header_larger_than_memory_is_refused_before_allocating(tmp_path, monkeypatch, name, text):
    import gzip

    monkeypatch.setenv("AUTOTUNE_HOST_MEMORY", str(24 * GIB))
    p = tmp_path / name
    p.write_bytes(gzip.compress(text.encode()) if name.endswith(".gz") else text.encode())
    allocations = []
    real_empty = np.empty

    def spy(shape, *a, **k):
        if np.prod(shape, dtype=np.float64) > 1e8:
            allocations.append(shape)
        return real_empty(shape, *a, **k)

    monkeypatch.setattr(np, "empty", spy)
    t0 = time.perf_counter()
    with pytest.raises(HostMemoryError) as info:
        load_graph(str(p), xp=np)
    assert time.perf_counter() - t0 < 1.0
    e = info.value
    assert isinstance(e, MemoryError) and not allocations
    assert e.needed_bytes > e.available_bytes == 24 * GIB and e.what == str(p)
    msg = str(e)
    assert msg.startswith(f"{p}: needs ") and "bytes" in msg and "25,769,803,776 bytes (24.00 GiB) are available" in msg
    assert "2,000,000,000 vertices" in msg


@pytest.mark.parametrize("spec", ["kron:scale=27", "kron:scale=26,edge_factor=32", "uniform:scale=28",
                                  "rmat:scale=26,edge_factor=32", "grid:rows=40000,cols=40000",
                                  "powerlaw:n=1000000000,avg_degree=2"])
def test_generator_spec_larger_than_memory_is_refused_in_under_a_second(monkeypatch, spec):
    """Larger than 24 GiB however many passes the CSR build takes (kron:scale=26 fits since the
    build runs in passes: next test)."""
    monkeypatch.setenv("AUTOTUNE_HOST_MEMORY", str(24 * GIB))
    t0 = time.perf_counter()
    with pytest.raises(HostMemoryError) as info:
        load_graph(spec, xp=np)
    assert time.perf_counter() - t0 < 1.0
    assert str(info.value).startswith(f"{spec}: needs ") and info.value.needed_bytes > 24 * GIB


@pytest.mark.parametrize("spec, passes", [("kron:scale=26", 7), ("rmat:scale=26,edge_factor=8", 2)])
def test_generator_spec_that_fits_in_passes_is_planned_not_refused(monkeypatch, spec, passes):
    """kron:scale=26 (2**31 stored edges) needs 53 GiB built in one pass but under 24 GiB in 7 source
    ranges: the host plan (what generate() checks) picks the fewest passes that fit and lets it
    through; with less memory it is refused, naming the smallest plan."""
    from autotune import generators
    from autotune.memory import build_passes

    name, raw = generators.parse_spec(spec)
    gen = generators._GENERATORS[name]
    values = {k: generators._coerce(name, gen.param(k), v) for k, v in raw.items()}
    for p in gen.params:
        if p.default is not None:
            values.setdefault(p.name, p.default)
    n, m, directed, extra = generators._spec_size(name, values)
    assert build_passes(n, m, directed=directed, id_bytes=4, available=24 * GIB - extra)[0] == passes
    assert build_passes(n, m, directed=directed, id_bytes=4)[1] > 24 * GIB  # one pass: too large
    monkeypatch.setenv("AUTOTUNE_HOST_MEMORY", str(24 * GIB))
    generators._plan_spec(spec, name, values, False)  # not refused
    monkeypatch.setenv("AUTOTUNE_HOST_MEMORY", str(6 * GIB))  # below the edge arrays and the columns
    with pytest.raises(HostMemoryError, match=rf"^{spec}: needs "):
        generators._plan_spec(spec, name, values, False)


def test_kron_30_is_refused_on_this_machine_from_proc_meminfo():
    from autotune.memory import available_host_bytes

    avail = available_host_bytes()
    if avail is None or avail > 900 * GIB:
        pytest.skip("host memory unknown or larger than kron:scale=30 needs")
    t0 = time.perf_counter()
    with pytest.raises(HostMemoryError, match=r"^kron:scale=30: needs [\d,]+ bytes .* are available"):
        load_graph("kron:scale=30", xp=np)
    assert time.perf_counter() - t0 < 1.0


def test_available_memory_reads_proc_meminfo_and_the_override(monkeypatch):
    from autotune import memory

    monkeypatch.setenv("AUTOTUNE_HOST_MEMORY", "12e9")
    assert memory.available_host_bytes() == 12 * 10 ** 9
    monkeypatch.delenv("AUTOTUNE_HOST_MEMORY")
    got = memory.available_host_bytes()
    if Path("/proc/meminfo").is_file():
        line = next(ln for ln in Path("/proc/meminfo").read_text().splitlines() if ln.startswith("MemAvailable:"))
        assert abs(got - int(line.split()[1]) * 1024) < 2 * GIB  # read at another moment
    memory.check_host_memory("x", 1)  # fits


def test_the_plan_fits_what_a_graph_really_needs(monkeypatch):
    """Graphs that fit still load; the plan is an upper bound of the real build."""
    import tracemalloc

    from autotune.memory import csr_build_bytes

    monkeypatch.setenv("AUTOTUNE_HOST_MEMORY", str(GIB))
    tracemalloc.start()
    g = load_graph("kron:scale=12,edge_factor=8", xp=np)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert g.n_vertices == 4096
    assert peak <= 8 * 4096 * 8 + 12 * 4096 + csr_build_bytes(4096, 8 * 4096, directed=False, id_bytes=4) + 2 ** 20


def test_builder_backstop_names_the_source(monkeypatch):
    from autotune.graph import from_edges

    monkeypatch.setenv("AUTOTUNE_HOST_MEMORY", "1000")
    with pytest.raises(HostMemoryError, match=r"^edges\.txt: needs"):
        from_edges(np.arange(100), np.arange(1, 101), 200, xp=np, source_label="edges.txt")


def test_fitting_edge_list_still_loads(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOTUNE_HOST_MEMORY", str(GIB))
    p = tmp_path / "ok.txt"
    p.write_text("0 1\n1 2\n")
    assert load_graph(str(p), xp=np).n_edges == 2


# ============================================================================ 4. Matrix Market line numbers
MTX_HEAD = "%%MatrixMarket matrix coordinate pattern general\n"


def test_mtx_comment_lines_among_entries_keep_line_numbers(tmp_path):
    body = "% a comment\n4 4 4\n1 2\n% among the entries\n\n2 3\n   % indented\n3 x\n4 1\n"
    p = tmp_path / "c.mtx"
    p.write_text(MTX_HEAD + body)
    with pytest.raises(GraphFormatError) as info:
        load_graph(str(p), xp=np)
    assert info.value.line == 9 and str(info.value).startswith(f"{p}:9: ")
    p.write_text(MTX_HEAD + body.replace("3 x", "3 4"))
    g = load_graph(str(p), xp=np)
    assert g.n_edges == 4


@st.composite
def _mtx_with_comments(draw):
    n = draw(st.integers(2, 9))
    m = draw(st.integers(1, 12))
    entries = [(draw(st.integers(1, n)), draw(st.integers(1, n))) for _ in range(m)]
    lines = [MTX_HEAD.rstrip("\n")]
    lines += draw(st.lists(st.sampled_from(["% header comment", "%", "  % x"]), max_size=2))
    lines.append(f"{n} {n} {m}")
    bad_at = draw(st.one_of(st.none(), st.integers(0, m - 1)))
    bad_kind = draw(st.sampled_from(["token", "row", "col"]))
    bad_line = None
    for i, (r, c) in enumerate(entries):
        for _ in range(draw(st.integers(0, 2))):
            lines.append(draw(st.sampled_from(["% comment", "%", "", "   ", "\t% tabbed", "%% 1 2"])))
        if i == bad_at:
            bad_line = len(lines) + 1
            lines.append({"token": f"{r} z{c}", "row": f"{n + 1} {c}", "col": f"{r} {n + 3}"}[bad_kind])
        else:
            lines.append(f"{r} {c}")
    lines += draw(st.lists(st.sampled_from(["% trailing", ""]), max_size=2))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    return eol.join(lines) + eol, bad_line, entries, n


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_mtx_with_comments())
def test_mtx_line_numbers_are_right_with_interleaved_comments(tmp_path, case):
    text, bad_line, entries, n = case
    p = tmp_path / "h.mtx"
    p.write_text(text, newline="")
    if bad_line is None and all(r == c for r, c in entries):
        with pytest.raises(errors.EmptyGraphError):  # only self-loops
            load_graph(str(p), xp=np)
    elif bad_line is None:
        g = load_graph(str(p), xp=np)
        want = {(r - 1, c - 1) for r, c in entries if r != c}
        ro, ci = g.host()
        rows = np.repeat(np.arange(g.n_vertices), np.diff(ro))
        assert set(zip(rows.tolist(), ci.tolist())) == want and g.n_vertices == n
    else:
        with pytest.raises(GraphFormatError) as info:
            load_graph(str(p), xp=np)
        assert info.value.line == bad_line, str(info.value)


# ============================================================================ 5. models and logs
def _write_model(tmp_path):
    from sklearn.tree import DecisionTreeClassifier

    from autotune._synthetic import write_synthetic_log
    from autotune.model import retrain

    log = write_synthetic_log(tmp_path / "syn.jsonl", 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        retrain(log, out=tmp_path / "good.joblib", estimator=DecisionTreeClassifier(random_state=0))
    return tmp_path / "good.joblib", log


@pytest.fixture(scope="module")
def good_model(tmp_path_factory):
    return _write_model(tmp_path_factory.mktemp("model"))


def _corrupt_models(tmp_path, good: Path) -> dict:
    import joblib

    data = good.read_bytes()
    out = {}
    for name, content in {"garbage": b"garbage 123\n", "empty": b"", "truncated": data[: len(data) // 2],
                          "text": b"this is not a model at all"}.items():
        (tmp_path / f"{name}.joblib").write_bytes(content)
        out[name] = tmp_path / f"{name}.joblib"
    joblib.dump({"not": "a model"}, tmp_path / "dict.joblib")
    out["dict"] = tmp_path / "dict.joblib"
    (tmp_path / "badmeta.joblib").write_bytes(data)
    (tmp_path / "badmeta.json").write_text("{not json")
    out["badmeta"] = tmp_path / "badmeta.joblib"
    (tmp_path / "listmeta.joblib").write_bytes(data)
    (tmp_path / "listmeta.json").write_text("[1, 2]")
    out["listmeta"] = tmp_path / "listmeta.joblib"
    return out


@pytest.mark.parametrize("which", ["garbage", "empty", "truncated", "text", "dict", "badmeta", "listmeta"])
def test_corrupt_model_is_a_model_error_naming_the_file(tmp_path, good_model, which):
    from autotune.model import load_model

    bad = _corrupt_models(tmp_path, good_model[0])[which]
    with pytest.raises(ModelError) as info:
        load_model(bad)
    msg = str(info.value)
    assert str(bad.with_suffix(".json") if "meta" in which else bad) in msg
    assert "autotune retrain" in msg and "--no-model" in msg
    assert "invalid literal" not in msg.split(":")[0]


@pytest.mark.parametrize("how", ["argument", "env"])
def test_fast_path_falls_back_to_table2_on_a_corrupt_model(tmp_path, good_model, monkeypatch, how):
    from autotune.generators import grid
    from autotune.search import table2_rule, tune_detailed

    bad = _corrupt_models(tmp_path, good_model[0])["garbage"]
    g = grid(12, 12, xp=np)
    if how == "env":
        monkeypatch.setenv("AUTOTUNE_MODEL", str(bad))
    with pytest.warns(UserWarning) as rec:
        res = tune_detailed(g, model=bad if how == "argument" else None)
    assert res.method == "table2" and res.config == table2_rule(res.features)
    text = " ".join(str(w.message) for w in rec)
    assert str(bad) in text and "Table-2" in text and "autotune retrain" in text


def test_model_env_pointing_at_a_folder_warns_naming_it(tmp_path, monkeypatch):
    from autotune.generators import grid
    from autotune.search import tune_detailed

    monkeypatch.setenv("AUTOTUNE_MODEL", str(tmp_path))
    with pytest.warns(UserWarning, match=f"{tmp_path}: is a directory, not a regular file"):
        res = tune_detailed(grid(6, 6, xp=np))
    assert res.method == "table2"


def test_cli_tune_with_a_corrupt_model_warns_and_answers(tmp_path, good_model, capsys):
    from autotune.cli_tuning import main

    bad = _corrupt_models(tmp_path, good_model[0])["truncated"]
    assert main(["tune", "grid:rows=10,cols=10", "--model", str(bad), "--json"]) == 0
    out, err = capsys.readouterr()
    assert json.loads(out)[0]["method"] == "table2"
    assert f"autotune: warning: selection model not used: {bad}" in err


def test_model_that_does_not_fit_this_release_falls_back(tmp_path, good_model):
    """A model whose estimator fails at predict (an incompatible pickle) warns and falls back."""
    from autotune.generators import grid
    from autotune.model import load_model
    from autotune.search import tune_detailed

    m = load_model(good_model[0], warn=False)

    class Broken:
        def predict_config(self, features):
            return m.predict_config({"not": "features"})

    with pytest.warns(UserWarning, match="does not fit this release|cannot build"):
        res = tune_detailed(grid(8, 8, xp=np), model=Broken())
    assert res.method == "table2"


def _log_lines(log: Path) -> list[dict]:
    return [json.loads(ln) for ln in log.read_text().splitlines() if ln.strip()]


def test_retrain_rejects_records_whose_config_does_not_validate(tmp_path, good_model):
    from autotune.model import retrain

    lines = _log_lines(good_model[1])
    bad_idx = [3, 10, 11]
    for i in bad_idx:
        lines[i]["config"]["load_balance"] = "no_such_technique"
    log = tmp_path / "mixed.jsonl"
    log.write_text("".join(json.dumps(d) + "\n" for d in lines))
    with pytest.warns(UserWarning) as rec:
        model = retrain(log)
    text = [str(w.message) for w in rec if "cannot build" in str(w.message)]
    assert text and f"3 record(s) with a config this release cannot build, the first at {log}:4" in text[0]
    assert "no_such_technique" in text[0]
    assert "no_such_technique" not in json.dumps(model.label_configs_)


def test_retrain_with_only_invalid_configs_says_so(tmp_path, good_model):
    from autotune.model import retrain

    lines = _log_lines(good_model[1])
    for d in lines:
        d["config"]["block_size"] = 7
    log = tmp_path / "invalid.jsonl"
    log.write_text("".join(json.dumps(d) + "\n" for d in lines))
    with pytest.raises(TrainingDataError, match=rf"all {len(lines)} record\(s\) with a config .* first at {log}:1"):
        retrain(log)


def test_retrain_on_a_log_of_unreadable_lines_counts_them(tmp_path, capsys):
    from autotune.cli_tuning import main
    from autotune.model import retrain

    log = tmp_path / "junk.jsonl"
    log.write_text("\n" + "not json\n" * 5 + '{"schema": 1}\n')
    with pytest.warns(UserWarning):
        with pytest.raises(TrainingDataError) as info:
            retrain(log)
    msg = str(info.value)
    assert f"all 6 line(s) of {log} are unreadable; the first at {log}:2" in msg and "JSONDecodeError" in msg
    assert main(["retrain", str(log)]) == 2
    assert "all 6 line(s)" in capsys.readouterr().err
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    with pytest.raises(TrainingDataError, match="holds no log line"):
        retrain(empty)


# ============================================================================ 6. errors and the CLI
def test_every_error_derives_from_autotune_error():
    from autotune.logs import LogSchemaError
    from autotune.search import SearchError

    classes = [c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, Exception)]
    assert len(classes) >= 14
    for c in classes + [LogSchemaError, SearchError]:
        assert issubclass(c, AutotuneError), c
    assert issubclass(GeneratorSpecError, ValueError) and issubclass(ConfigError, ValueError)
    assert issubclass(MissingFileError, FileNotFoundError) and issubclass(GraphFileError, GraphFormatError)
    assert issubclass(VertexError, KeyError) and str(VertexError("vertex id 5 is not 'here'")) == \
        "vertex id 5 is not 'here'"


def test_generator_spec_errors_are_the_projects_and_keep_quotes():
    for spec, fragment in [("kron:a=1,a=2", "parameter 'a' given twice in generator spec 'kron:a=1,a=2'"),
                           ("nosuch:x=1", "unknown generator 'nosuch' in spec 'nosuch:x=1'"),
                           ("kron:scale=99", "generator spec 'kron:scale=99': scale must be between 1 and 30"),
                           ("grid:rows=x", "parameter 'rows' of generator 'grid' must be an integer, got 'x'")]:
        with pytest.raises(GeneratorSpecError) as info:
            load_graph(spec, xp=np)
        assert fragment in str(info.value)


@pytest.mark.parametrize("argv, ending", [
    (["profile", "kron:a=1,a=2"], "given twice in generator spec 'kron:a=1,a=2'"),
    (["profile", "/no/such/graph.mtx"], "/no/such/graph.mtx: graph file not found (nor a generator spec such as "
                                        "'kron:scale=20')"),
    (["tune", "grid:rows=4,cols=4", "--model", "/no/model.joblib"], "/no/model.joblib: model file not found"),
    (["retrain", "/no/logs/*.jsonl"], "/no/logs/*.jsonl: no log file matches this pattern"),
])
def test_cli_errors_keep_their_closing_quote_one_line_exit_2(argv, ending, capsys):
    from autotune import cli

    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert err.rstrip("\n").endswith(ending), err
    assert err.count("\n") == 1 and err.startswith("autotune: error: ")


def test_cli_bug_is_a_traceback_not_a_user_error(capsys):
    """A KeyError (or any non-project exception) is a bug: it propagates (exit 1 with a traceback)."""
    import argparse

    from autotune._cli_common import dispatch

    def buggy(args):
        return {}["missing"]

    with pytest.raises(KeyError):
        dispatch(argparse.Namespace(func=buggy))
    code = ("import sys, autotune.cli as c\n"
            "c.cmd_profile = lambda a: {}['boom']\n"
            "p = c.build_parser(); a = p.parse_args(['profile', 'x']); a.func = c.cmd_profile\n"
            "sys.exit(c.dispatch(a))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and "Traceback" in r.stderr and "KeyError: 'boom'" in r.stderr


def test_cli_maps_project_errors_to_2_and_interrupts_to_130(capsys):
    import argparse

    from autotune._cli_common import dispatch

    def user_error(args):
        raise ConfigError("--block-size: invalid value '7'")

    def interrupted(args):
        raise KeyboardInterrupt

    assert dispatch(argparse.Namespace(func=user_error)) == 2
    assert capsys.readouterr().err == "autotune: error: --block-size: invalid value '7'\n"
    assert dispatch(argparse.Namespace(func=interrupted, command="tune", trials=5)) == 130
    assert "run the same command again to resume" in capsys.readouterr().err


def test_cli_source_not_in_graph_is_a_vertex_error():
    from autotune.generators import grid

    g = grid(3, 3, xp=np)
    with pytest.raises(VertexError) as info:
        g.index_of(99)
    assert str(info.value) == "vertex id 99 is not in the graph (ids are 0..8)"


def _import_graph() -> dict:
    mods = {}
    for p in (REPO / "autotune").glob("*.py"):
        deps = set()
        for node in ast.walk(ast.parse(p.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                deps.update([node.module.split(".")[0]] if node.module else [a.name for a in node.names])
        mods[p.stem] = deps & {q.stem for q in (REPO / "autotune").glob("*.py")}
    return mods


@pytest.mark.parametrize("a, b", [("cli", "cli_tuning"), ("model", "search")])
def test_imports_run_one_way(a, b):
    """No module imports back a module that imports it, even inside a function (cli/cli_tuning share
    autotune._cli_common; model and search share autotune.table2)."""
    mods = _import_graph()

    def reaches(x, y, seen=()):
        return y in mods.get(x, ()) or any(reaches(z, y, seen + (x,)) for z in mods.get(x, ()) if z not in seen)

    assert not (reaches(a, b) and reaches(b, a)), (a, b)
