"""What a person reads from the CLI, on any machine (no GPU): warnings once per process, full labels
when piped, ``bench`` streaming its rows and writing its JSON after every graph, ``shared:NAME`` in
every verb, and a light, fast ``autotune tune`` (no scikit-learn, SciPy or Optuna on import; the
compact model copy predicts what the model predicts)."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

from autotune import cli

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TINY_MTX = """%%MatrixMarket matrix coordinate pattern symmetric
% a small undirected test graph: a path 1-2-3-4-5 and a triangle 5-6-7
7 7 7
2 1
3 2
4 3
5 4
6 5
7 6
7 5
"""


@pytest.fixture(autouse=True)
def _isolated(tmp_path, monkeypatch):
    """Each test its own autotune cache (compact model copies, studies) and shared-graph folder, and
    a fresh once-per-process warning registry."""
    from autotune import _cli_common

    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "cache"))
    shared = tmp_path / "shared"
    shared.mkdir()
    (shared / "tiny.mtx").write_text(TINY_MTX)
    (shared / "MANIFEST.tsv").write_text("name\tfile\ntiny\ttiny.mtx\n")
    monkeypatch.setenv("AUTOTUNE_SHARED_GRAPHS", str(shared))
    monkeypatch.delenv("AUTOTUNE_MODEL", raising=False)
    monkeypatch.delenv("AUTOTUNE_SSSP_MODEL", raising=False)
    monkeypatch.setattr(_cli_common, "_WARNED", set())


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    env.update(AUTOTUNE_DISABLE_GPU="1", PYTHONPATH=REPO + os.pathsep + env.get("PYTHONPATH", ""))
    env.update(extra)
    return env


# ============================================================================ warnings once
def test_warn_to_stderr_prints_each_warning_once_per_process(capsys):
    from autotune._cli_common import warn_to_stderr

    for _ in range(3):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warnings.warn("model 'm' was trained on 'H100' but this GPU is 'H200'", UserWarning)
            warnings.warn("another thing", UserWarning)
        warn_to_stderr(caught)
    err = capsys.readouterr().err
    assert err.count("trained on 'H100'") == 1 and err.count("another thing") == 1
    assert err.startswith("autotune: warning: ")


def test_model_device_warning_once_over_several_graphs(monkeypatch, capsys):
    """A model trained on another GPU: one warning for a run over three graphs (it was once per graph)."""
    from autotune import cli_tuning, search

    monkeypatch.setattr(cli_tuning, "_fast_path", lambda *a, **k: None)  # the path that checks the device
    monkeypatch.setattr(search, "_device", lambda device, runner_factory: {
        "name": "Some Other GPU", "sm_count": 100, "max_threads_per_sm": 2048})
    argv = ["tune", "grid:rows=6,cols=6", "grid:rows=7,cols=7", "kron:scale=6", "--json"]
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    assert len(json.loads(out)) == 3
    assert err.count("this GPU is 'Some Other GPU'") == 1, err


def test_corrupt_model_warning_once_over_several_graphs(tmp_path, capsys):
    bad = tmp_path / "bad.joblib"
    bad.write_bytes(b"not a pickle at all")
    assert cli.main(["tune", "grid:rows=5,cols=5", "grid:rows=6,cols=6", "--model", str(bad), "--json"]) == 0
    out, err = capsys.readouterr()
    assert [r["method"] for r in json.loads(out)] == ["table2", "table2"]
    assert err.count("autotune: warning: selection model not used") == 1, err


# ============================================================================ piped tables
def test_piped_tune_table_keeps_full_labels():
    """Off a terminal Rich used 80 columns and cut cells ('binary…', 'c-2f59…'); now nothing is cut."""
    r = subprocess.run([sys.executable, "-m", "autotune.cli", "tune", "grid:rows=9,cols=9", "kron:scale=7",
                        "--no-model"], capture_output=True, text=True, env=_env(), timeout=120, cwd=REPO)
    assert r.returncode == 0, r.stderr
    from autotune.graph import load_graph
    from autotune.search import tune_detailed

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cfg = tune_detailed(load_graph("grid:rows=9,cols=9", xp=np), model=False).config
    assert "…" not in r.stdout
    assert cfg.label in r.stdout and cfg.config_id in r.stdout
    assert max(len(line) for line in r.stdout.splitlines()) > 80  # the table is wider than 80 columns
    assert "grid:rows=9,cols=9: no selection model (disabled)" in r.stdout  # message lines are not wrapped


def test_console_width_off_a_terminal(capsys):
    from autotune._cli_common import PIPE_WIDTH, console

    assert console().width == PIPE_WIDTH  # capsys's stdout is no terminal
    from rich.table import Table

    t = Table()
    t.add_column("config")
    t.add_row("binary_search/chunk=dynamic/b256/cull=hash/push/sb2048 " * 3)
    console().print(t)
    assert "…" not in capsys.readouterr().out


def test_broken_pipe_is_quiet():
    """``autotune ... | head``: the reader goes away; no traceback, exit 141."""
    p = subprocess.Popen([sys.executable, "-m", "autotune.cli", "profile", "grid:rows=4,cols=4", "--json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), cwd=REPO)
    p.stdout.close()
    err = p.stderr.read().decode()
    assert p.wait(timeout=120) == 141, err
    assert "Traceback" not in err


# ============================================================================ bench
@pytest.fixture
def cpu_bench(monkeypatch):
    """``autotune bench`` on the CPU: the GPU check passes, the device is a fake, and each graph is
    benchmarked with scipy's BFS only (the real harness, without autotune's GPU configs). Records
    the JSON file as it was when each graph started."""
    from autotune import _backend
    from autotune import bench as bench_mod

    real = bench_mod.bench
    state = {"calls": 0, "json_before": [], "json": None, "stop_at": None}

    def fake_bench(g, configs, peers=(), **kw):
        state["calls"] += 1
        if state["json"] is not None and os.path.exists(state["json"]):
            state["json_before"].append(json.loads(open(state["json"]).read()))
        else:
            state["json_before"].append(None)
        if state["stop_at"] == state["calls"]:
            raise KeyboardInterrupt
        kw["gap_dir"] = None
        return real(g, [], peers=["scipy"], **{k: v for k, v in kw.items() if k != "algorithm"}, algorithm="bfs")

    monkeypatch.setattr(_backend, "gpu_available", lambda: True)
    monkeypatch.setattr(_backend, "device_properties", lambda: {"name": "Fake GPU", "cc": "9.0"})
    monkeypatch.setattr(bench_mod, "bench", fake_bench)
    return state


def test_bench_streams_rows_and_writes_json_after_each_graph(cpu_bench, tmp_path, capsys):
    js = tmp_path / "b.json"
    cpu_bench["json"] = str(js)
    graphs = ["grid:rows=8,cols=8", "shared:tiny", "kron:scale=6,edge_factor=4"]
    assert cli.main(["bench", *graphs, "--sources", "3", "--peers", "scipy", "--json", str(js)]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    # a plain line per graph as it finished, before the final table
    first = [i for i, line in enumerate(lines) if line.startswith("[1/3] grid:rows=8,cols=8: scipy")]
    third = [i for i, line in enumerate(lines) if line.startswith("[3/3] kron:scale=6,edge_factor=4: scipy")]
    table = [i for i, line in enumerate(lines) if "autotune bench (BFS) on Fake GPU" in line]
    assert first and third and table and first[0] < third[0] < table[0], out
    assert any(line.startswith("[2/3] tiny: scipy") for line in lines)
    # the JSON file grew one graph at a time
    before = cpu_bench["json_before"]
    assert before[0] is None
    assert before[1]["complete"] is False and [r["graph"] for r in before[1]["results"]] == ["grid:rows=8,cols=8"]
    assert len(before[2]["results"]) == 2
    final = json.loads(js.read_text())
    assert final["complete"] is True and len(final["results"]) == 3 and final["device"]["name"] == "Fake GPU"
    assert not [p for p in os.listdir(tmp_path) if p.endswith(".tmp")]


def test_bench_interrupted_keeps_what_it_measured(cpu_bench, tmp_path, capsys):
    js = tmp_path / "b.json"
    cpu_bench["json"] = str(js)
    cpu_bench["stop_at"] = 3
    argv = ["bench", "grid:rows=8,cols=8", "grid:rows=9,cols=9", "grid:rows=10,cols=10", "--sources", "2",
            "--peers", "scipy", "--json", str(js)]
    assert cli.main(argv) == 130
    out, err = capsys.readouterr()
    assert "interrupted after 2 of 3 graph(s)" in out
    assert "grid:rows=9,cols=9" in out and "grid:rows=10,cols=10" not in out.split("interrupted after")[1]
    assert err.startswith("autotune: error: interrupted: 2 of 3 graph(s) measured") and str(js) in err
    data = json.loads(js.read_text())
    assert data["complete"] is False and [r["graph"] for r in data["results"]] == ["grid:rows=8,cols=8",
                                                                                   "grid:rows=9,cols=9"]


def test_bench_refuses_a_json_path_in_a_missing_folder_before_measuring(cpu_bench, tmp_path, capsys):
    assert cli.main(["bench", "grid:rows=8,cols=8", "--json", str(tmp_path / "no" / "b.json")]) == 2
    assert "folder not found" in capsys.readouterr().err and cpu_bench["calls"] == 0


# ============================================================================ shared:NAME
def test_shared_name_in_profile_and_tune(capsys, tmp_path):
    for spec in ("shared:tiny", "shared:tiny.mtx", "shared:tin*"):
        assert cli.main(["profile", spec, "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        assert [d["graph"] for d in data] == ["tiny"] and data[0]["features"]["n_vertices"] == 7
    assert cli.main(["tune", "shared:tiny", "--no-model", "--json"]) == 0
    out = capsys.readouterr().out
    assert json.loads(out)[0]["graph"] == "tiny"
    assert cli.main(["tune", "shared:tiny", "--no-model", "--out", str(tmp_path / "c.json")]) == 0
    assert json.loads((tmp_path / "c.json").read_text())["load_balance"]


def test_shared_name_missing_is_one_line_naming_the_folder(capsys, tmp_path):
    for verb in (["profile"], ["tune", "--no-model"]):
        assert cli.main([verb[0], "shared:nope", *verb[1:]]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "shared graph 'nope' not found" in err and str(tmp_path / "shared") in err


@pytest.mark.parametrize("verb", ["run", "bench"])
def test_shared_name_in_gpu_verbs(verb, monkeypatch, capsys):
    """``run`` and ``bench`` read GRAPH arguments through the same loader: the shared file is found
    (the GPU part is stopped right after the graph is loaded)."""
    from autotune import _backend
    from autotune.errors import AutotuneError

    monkeypatch.setattr(_backend, "gpu_available", lambda: True)
    monkeypatch.setattr(_backend, "device_properties", lambda: {"name": "Fake GPU", "cc": "9.0"})
    seen = []
    real = cli._load

    def spy(spec, args):
        g = real(spec, args)
        seen.append((spec, g.name, g.n_vertices))
        raise AutotuneError("stop after loading")

    monkeypatch.setattr(cli, "_load", spy)
    assert cli.main([verb, "shared:tiny", "--peers" if verb == "bench" else "--peer", "scipy"]) == 2
    assert "stop after loading" in capsys.readouterr().err
    assert [s[1:] for s in seen] == [("tiny", 7)]


def test_shared_name_in_sweep(monkeypatch, tmp_path):
    from autotune import cli_tuning
    from autotune import sweep as sweep_mod

    got = []

    class Stop(Exception):
        pass

    def fake_sweep(graphs, **kw):
        got.append(list(graphs))
        raise Stop

    monkeypatch.setattr(cli_tuning, "_needs_gpu", lambda *a: False)
    monkeypatch.setattr(sweep_mod, "sweep", fake_sweep)
    with pytest.raises(Stop):
        cli.main(["sweep", "shared:tiny", "grid:rows=3,cols=3", "--out", str(tmp_path / "l.jsonl")])
    assert got == [[str(tmp_path / "shared" / "tiny.mtx"), "grid:rows=3,cols=3"]]


# ============================================================================ cold start
_HEAVY = ("sklearn", "optuna", "scipy", "rich", "matplotlib", "networkx", "joblib", "cupy")


def _modules_after(code: str, env=None) -> set:
    r = subprocess.run([sys.executable, "-c", code + "\nimport sys, json\n"
                        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"],
                       capture_output=True, text=True, env=env or _env(), timeout=120, cwd=REPO)
    assert r.returncode == 0, r.stderr
    return set(json.loads(r.stdout.splitlines()[-1]))


def test_import_cli_is_light():
    mods = _modules_after("import autotune.cli, autotune.cli_tuning, autotune._cli_common\n"
                          "autotune.cli.build_parser()")
    assert not (mods & set(_HEAVY)), mods & set(_HEAVY)


def test_tune_fast_path_imports_no_sklearn(tmp_path):
    """``autotune tune`` without a GPU: the rules need no scikit-learn; the shipped model answers from
    the compact copy shipped beside it from the very first call (an empty cache folder); a model
    without one (here a copy elsewhere): the first call makes the cached copy (loading scikit-learn
    once), later processes predict from it without."""
    import shutil

    from autotune import cli_tuning

    env = _env(AUTOTUNE_CACHE_DIR=str(tmp_path / "c"))
    run = ("import autotune.cli as c, contextlib, io\n"
           "buf = io.StringIO()\n"
           "with contextlib.redirect_stdout(buf): assert c.main(['tune', 'grid:rows=12,cols=12', '--json'{x}]) == 0\n"
           "print(buf.getvalue().replace(chr(10), ' '))\n")
    mods = _modules_after(run.format(x=", '--no-model'"), env)
    assert "sklearn" not in mods and "optuna" not in mods
    src, _ = cli_tuning._model_file(None, "bfs")
    if cli_tuning._read_shipped_compact(src) is not None:  # made with the installed scikit-learn
        mods = _modules_after(run.format(x=""), env)
        assert "sklearn" not in mods and "joblib" not in mods and "optuna" not in mods
        assert not list((tmp_path / "c").glob("models/*.npz"))  # nothing to cache
    own = tmp_path / "own"
    own.mkdir()
    shutil.copy(src, own / "m.joblib")
    shutil.copy(src.with_suffix(".json"), own / "m.json")
    env = _env(AUTOTUNE_CACHE_DIR=str(tmp_path / "c"), AUTOTUNE_MODEL=str(own / "m.joblib"))
    mods = _modules_after(run.format(x=""), env)  # first call with this model: makes the copy
    assert "sklearn" in mods
    assert list((tmp_path / "c" / "models").glob("m-*.npz"))
    mods = _modules_after(run.format(x=""), env)
    assert "sklearn" not in mods and "joblib" not in mods and "optuna" not in mods


def test_tune_of_graph_files_imports_no_scipy(tmp_path):
    """``autotune tune`` of an edge list (gzip) and of a Matrix Market file without a GPU: the files
    are read and profiled with NumPy alone (no SciPy, scikit-learn, Optuna or joblib imported)."""
    import gzip

    snap = tmp_path / "g.txt.gz"
    snap.write_bytes(gzip.compress(b"# a comment\n" + b"".join(b"%d\t%d\n" % (i, (i * 7 + 1) % 50) for i in range(50))))
    mtx = tmp_path / "g.mtx"
    mtx.write_text(TINY_MTX)
    env = _env(AUTOTUNE_CACHE_DIR=str(tmp_path / "c"))
    for path in (snap, mtx):
        run = ("import autotune.cli as c, contextlib, io\n"
               "with contextlib.redirect_stdout(io.StringIO()):\n"
               f"    assert c.main(['tune', {str(path)!r}, '--json']) == 0\n")
        mods = _modules_after(run, env)
        assert not mods & {"scipy", "sklearn", "optuna", "joblib"}, (path, mods & set(_HEAVY))
    # a shared:NAME argument is resolved without the sweep module (and its log machinery), and the
    # fast path's result is built without the search module
    r = subprocess.run([sys.executable, "-c", "import autotune.cli as c, contextlib, io, sys\n"
                        "with contextlib.redirect_stdout(io.StringIO()):\n"
                        "    assert c.main(['tune', 'shared:tiny']) == 0\n"
                        "print(sorted({'autotune.sweep', 'autotune.search'} & set(sys.modules)))"],
                       capture_output=True, text=True, env=env, timeout=120, cwd=REPO)
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == "[]", r.stdout + r.stderr


def test_sklearn_version_unimported_is_the_package_metadata():
    from importlib.metadata import version

    from autotune import cli_tuning

    assert cli_tuning._sklearn_version_unimported() == version("scikit-learn")


@pytest.mark.parametrize("name", ["bfs_h200", "bfs_h100", "sssp_h200"])
def test_shipped_compact_copies_are_current(name):
    """Each shipped model's compact copy (models/<name>.compact.npz, written by 'autotune retrain') is
    that model's (content key) and equals the copy the current code makes from it: a change of the
    model, of its metadata or of the code that reads features must come with a new copy
    (python -c "from pathlib import Path; from autotune.cli_tuning import write_shipped_compact;
    write_shipped_compact(Path('models/NAME.joblib'))")."""
    from pathlib import Path

    from autotune import cli_tuning

    path = Path(cli_tuning.__file__).resolve().parent.parent / "models" / f"{name}.joblib"
    if not path.is_file():
        pytest.skip(f"{path} is not in this checkout")
    shipped = cli_tuning.shipped_compact_file(path)
    assert shipped.is_file(), f"{shipped} missing"
    with np.load(shipped, allow_pickle=False) as z:
        have = {k: z[k] for k in z.files}
    if str(have["sklearn_version"]) != cli_tuning._sklearn_version_unimported():
        pytest.skip(f"copy made with scikit-learn {have['sklearn_version']}, "
                    f"{cli_tuning._sklearn_version_unimported()} installed")
    assert cli_tuning._read_shipped_compact(path) is not None
    fresh, ok = cli_tuning._compact_arrays(path, cli_tuning._content_key(path))
    assert ok and sorted(fresh) == sorted(have)
    for k in fresh:
        assert np.array_equal(np.asarray(fresh[k]), have[k]), k


def test_default_model_path_mirror_matches_the_model_module(monkeypatch, tmp_path):
    from autotune import cli_tuning, model

    for alg in ("bfs", "sssp"):
        assert cli_tuning._default_model_path(alg) == model.default_model_path(alg)
        assert cli_tuning._MODEL_FILES[alg] == os.path.basename(model.DEFAULT_MODEL_RELPATHS[alg])
        assert cli_tuning._MODEL_ENV[alg] == model.MODEL_ENV_VARS[alg]
    monkeypatch.setenv("AUTOTUNE_MODEL", str(tmp_path / "m.joblib"))
    assert cli_tuning._default_model_path("bfs") == model.default_model_path("bfs") is None
    (tmp_path / "m.joblib").write_bytes(b"x")
    assert cli_tuning._default_model_path("bfs") == model.default_model_path("bfs") == tmp_path / "m.joblib"


def _graphs():
    from autotune.generators import generate

    specs = ["grid:rows=30,cols=30", "kron:scale=9,edge_factor=8", "uniform:scale=9,avg_degree=6",
             "grid:rows=200,cols=5,drop=0.2", "kron:scale=8,edge_factor=32,directed=true",
             "cliques:n_cliques=20,clique_size=8", "smallworld:n=2000,k=4,p=0.01", "powerlaw:n=3000,avg_degree=5"]
    out = []
    for s in specs:
        try:
            out.append(generate(s, xp=np))
        except Exception:  # a generator spec this release spells differently
            continue
    return out


@pytest.mark.parametrize("algorithm", ["bfs", "sssp"])
def test_compact_model_predicts_what_the_model_predicts(algorithm):
    from autotune import cli_tuning
    from autotune.features import profile
    from autotune.model import load_model

    path, _ = cli_tuning._model_file(None, algorithm)
    if path is None:
        pytest.skip(f"no shipped {algorithm} model")
    assert cli_tuning._write_compact(path)
    compact = cli_tuning._read_compact(path)
    assert compact is not None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = load_model(path, warn=False)
    graphs = _graphs()
    if algorithm == "sssp":
        from autotune.sweep import attach_weights

        graphs = [attach_weights(g, "int:1:255") for g in graphs]
    assert len(graphs) >= 5
    for g in graphs:
        f = profile(g)
        assert compact.predict_config(f) == m.predict_config(f), g.name
    X = np.random.default_rng(1).normal(size=(200, len(compact.feature_names))) * 3 + 5
    assert np.array_equal(compact.predict(X), np.asarray(m.predict(X)).astype(str))


@pytest.mark.parametrize("name", ["bfs_h200", "sssp_h200", "bfs_h100"])
def test_shipped_compact_copy_is_bit_identical_on_the_training_rows(name):
    """On every row of the shipped model's training features (rebuilt from the logs its metadata
    names), the NumPy copy the fast path predicts from gives the forest's own leaves, the same
    expected log regrets to the last bit, and the same labels as scikit-learn's model."""
    from pathlib import Path

    from autotune import cli_tuning
    from autotune.logs import read_log
    from autotune.model import _buildable_records, _log_files, build_training_set, load_model

    path = Path(cli_tuning.__file__).resolve().parent.parent / "models" / f"{name}.joblib"
    if not path.is_file():
        pytest.skip(f"{path} is not in this checkout")
    compact = cli_tuning._read_shipped_compact(path)
    if compact is None:
        pytest.skip("no shipped compact copy made with the installed scikit-learn")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        m = load_model(path, warn=False)
    logs = [path.parent.parent / entry["path"] for entry in m.metadata_["logs"]]
    if not all(f.is_file() for f in logs):
        pytest.skip("the model's training logs are not in this checkout")
    ts = build_training_set(_buildable_records(read_log(_log_files(logs))), algorithm=m.metadata_.get("algorithm"))
    assert [g["fingerprint"] for g in ts.graphs] == [g["fingerprint"] for g in m.metadata_["graphs"]]
    assert list(ts.feature_names) == list(m.feature_names_in_) == list(compact.feature_names)
    X = np.asarray(ts.X, dtype=np.float64)
    np.testing.assert_array_equal(compact.leaves(X), m.train_leaves_)
    np.testing.assert_array_equal(compact.leaves(X), m._leaves(m._design(X)))
    got, want = compact.expected_log_regret(X), m._expected_log_regret(m._design(X))
    assert got.dtype == want.dtype == np.float64 and got.tobytes() == want.tobytes()
    np.testing.assert_array_equal(compact.predict(X), np.asarray(m.predict(X)).astype(str))
    # the risk-averse score (retrain --risk) is the same arithmetic on both sides too
    assert compact.risk == m.risk
    got, want = compact.expected_log_regret(X, 1.0), m._expected_log_regret(m._design(X), 1.0)
    assert got.tobytes() == want.tobytes() and not np.array_equal(got, compact.expected_log_regret(X))


def test_compact_copy_goes_stale_with_the_model(tmp_path, monkeypatch):
    """A copy is keyed by the model file's and its metadata's size and mtime: a new model is not
    predicted from an old copy."""
    import shutil

    from autotune import cli_tuning

    src, _ = cli_tuning._model_file(None, "bfs")
    if src is None:
        pytest.skip("no shipped BFS model")
    dst = tmp_path / "m.joblib"
    shutil.copy(src, dst)
    shutil.copy(src.with_suffix(".json"), tmp_path / "m.json")
    assert cli_tuning._write_compact(dst) and cli_tuning._read_compact(dst) is not None
    st = os.stat(dst)
    os.utime(dst, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    assert cli_tuning._read_compact(dst) is None
    (tmp_path / "m.json").unlink()  # no metadata: never the fast path (the slow one warns)
    assert cli_tuning._write_compact(dst) is False and cli_tuning._read_compact(dst) is None


def test_bench_on_a_terminal_prints_each_graph_above_a_progress_bar(cpu_bench, monkeypatch, tmp_path):
    """On a terminal: each graph's rows as a small table as it finishes (above the bar), then the table."""
    import io

    from rich.console import Console

    buf = io.StringIO()
    con = Console(file=buf, force_terminal=True, width=160, highlight=False)
    monkeypatch.setattr(cli, "is_tty", lambda *a: True)
    monkeypatch.setattr(cli, "_console", lambda *a, **k: con)
    assert cli.main(["bench", "grid:rows=8,cols=8", "shared:tiny", "--sources", "2", "--peers", "scipy"]) == 0
    out = buf.getvalue()
    assert out.index("grid:rows=8,cols=8 (1/2)") < out.index("tiny (2/2)") < out.index("autotune bench (BFS)")
    assert "[1/2]" not in out  # no plain lines on a terminal


def test_fast_path_leaves_a_model_of_another_sklearn_to_the_slow_path(tmp_path, capsys):
    """A model trained with another scikit-learn: its warning every time, the copy never used."""
    import shutil

    from autotune import _cli_common, cli_tuning

    src, _ = cli_tuning._model_file(None, "bfs")
    if src is None:
        pytest.skip("no shipped BFS model")
    dst = tmp_path / "m.joblib"
    shutil.copy(src, dst)
    meta = json.loads(src.with_suffix(".json").read_text())
    meta["sklearn_version"] = "0.0.1"
    (tmp_path / "m.json").write_text(json.dumps(meta))
    for _ in range(2):
        _cli_common._WARNED.clear()
        assert cli.main(["tune", "grid:rows=6,cols=6", "--model", str(dst), "--json"]) == 0
        out, err = capsys.readouterr()
        assert json.loads(out)[0]["method"] == "model"
        assert "was trained with scikit-learn 0.0.1" in err
    copy = cli_tuning._read_compact(dst)
    assert copy is not None and copy.sklearn_version != "0.0.1"  # made, and declined by the fast path
    res = cli_tuning._fast_path(None, type("A", (), {"algorithm": "bfs"})(), str(dst))
    assert res is None


def test_shipped_compact_copy_is_not_used_for_another_model(tmp_path):
    """The shipped copy is keyed by the contents of the model and its metadata: copied elsewhere with
    its model it still answers; beside a changed model (or metadata) it does not."""
    import shutil

    from autotune import cli_tuning

    src, _ = cli_tuning._model_file(None, "bfs")
    if src is None or cli_tuning._read_shipped_compact(src) is None:
        pytest.skip("no usable shipped BFS copy (no model, or made with another scikit-learn)")
    dst = tmp_path / "m.joblib"
    shutil.copy(src, dst)
    shutil.copy(src.with_suffix(".json"), tmp_path / "m.json")
    shutil.copy(cli_tuning.shipped_compact_file(src), cli_tuning.shipped_compact_file(dst))
    assert cli_tuning._read_shipped_compact(dst) is not None
    meta = (tmp_path / "m.json").read_text()
    (tmp_path / "m.json").write_text(meta + " ")
    assert cli_tuning._read_shipped_compact(dst) is None
    (tmp_path / "m.json").write_text(meta)
    with open(dst, "ab") as fh:
        fh.write(b"\0")
    assert cli_tuning._read_shipped_compact(dst) is None
