"""The Optuna search on a real PostgreSQL server (``postgresql://`` storage): several workers on one
study, the stored best, and an interrupted worker's study resuming.

The server is a throwaway one started by the ``postgres_server`` fixture (tests/conftest.py), one
fresh database per test; the tests skip only when the PostgreSQL server binaries are not installed.
Each worker is a separate Python process running :func:`autotune.search.tune_detailed` on replayed
H100 timings from the committed sweep log (``models/bfs_h100.jsonl``), as
``test_search_replays_committed_measurements`` does: the replay runners traverse on the CPU and
advance a virtual clock by the logged median time of their config; configs the sweep did not
measure fail. Everything else (sources, validation, logging, Optuna, the storage) runs for real.
"""
from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from ._tuning_helpers import FAKE_DEVICE, small_graph

optuna = pytest.importorskip("optuna")

REPO = Path(__file__).resolve().parent.parent
COMMITTED_LOG = REPO / "models" / "bfs_h100.jsonl"
pytestmark = pytest.mark.skipif(not COMMITTED_LOG.is_file(), reason="models/bfs_h100.jsonl not committed")

N_SOURCES = 8
WORKER_TIMEOUT_S = 300


# ------------------------------------------------------------------------------ the worker process
def committed_replay():
    """(restricted config table, {config_id: logged record}) of the logged graph with the most valid
    configs (the choice of ``test_search_replays_committed_measurements``)."""
    from autotune.config import TraversalConfig
    from autotune.logs import read_log

    from .test_search import _logged_table

    by_graph: dict = {}
    for r in read_log(COMMITTED_LOG).records:
        if not r.pruned:
            cfg = TraversalConfig.from_dict(r.config)
            by_graph.setdefault(r.fingerprint, {})[cfg.config_id] = (cfg, r)
    _fp, table = max(by_graph.items(), key=lambda kv: (sum(r.valid for _, r in kv[1].values()), kv[0]))
    valid = {cid: r for cid, (_, r) in table.items() if r.valid}
    return _logged_table([cfg for cfg, _ in table.values()]), valid


def _worker(spec: dict) -> None:
    """One search worker (run in its own process by :meth:`Workers.start`).

    Appends the number of every trial it runs to ``spec["trials_file"]``; waits for the files in
    ``spec["barrier"]`` (every worker's ready file) before searching, so that the workers search at
    the same time; with ``spec["die_at"] = (k, "SIGKILL"|"SIGINT")`` it sends itself that signal while
    building the runner of its k-th measured config (in the middle of a trial). Writes the
    :class:`TuneResult` (as a dict) to ``spec["result"]``.
    """
    os.environ["AUTOTUNE_CACHE_DIR"] = spec["cache"]
    os.environ["AUTOTUNE_MODEL"] = os.path.join(spec["cache"], "no-model.joblib")
    os.environ.pop("AUTOTUNE_STORAGE", None)
    import autotune.measure
    from autotune import config as config_module
    from autotune import search as search_module
    from autotune.config import count_configs

    from ._tuning_helpers import VirtualClock, replay_factory
    from .test_search import _Missing

    space, valid = committed_replay()
    config_module._FIELDS = search_module._FIELDS = space  # the table the committed sweep measured
    search_module._n_configs = count_configs
    clock = VirtualClock()
    autotune.measure.time = clock  # the harness times replayed (virtual) durations
    replay = replay_factory(clock, lambda cfg: valid[cfg.config_id].median_ms if cfg.config_id in valid else 1.0,
                            fail=_Missing(valid), jitter=0.0)
    built = 0
    die_at, die_how = spec.get("die_at") or (None, None)

    def factory(graph, cfg):
        nonlocal built
        built += 1
        if built == die_at:
            os.kill(os.getpid(), getattr(signal, die_how))
            time.sleep(5)  # SIGINT: the KeyboardInterrupt is raised here
        time.sleep(spec.get("sleep_s", 0.0))  # real time, so that concurrent workers interleave
        return replay(graph, cfg)

    suggest = search_module.suggest_config
    with open(spec["trials_file"], "a") as trials_fh:
        def suggest_and_record(trial):
            trials_fh.write(f"{trial.number}\n")
            trials_fh.flush()
            return suggest(trial)

        search_module.suggest_config = suggest_and_record
        Path(spec["ready"]).touch()
        deadline = time.monotonic() + 120
        while not all(Path(p).exists() for p in spec.get("barrier", ())):
            if time.monotonic() > deadline:
                raise TimeoutError("the other workers did not start")
            time.sleep(0.01)
        res = search_module.tune_detailed(small_graph(400, 6), spec["n_trials"], storage=spec["storage"],
                                          study_name=spec["study"], n_sources=N_SOURCES, seed=spec.get("seed", 0),
                                          progress=False, device=FAKE_DEVICE, log=spec["log"], model=False,
                                          runner_factory=factory)
    out = {k: v for k, v in res.to_dict().items() if k != "features"}
    Path(spec["result"]).write_text(json.dumps(out))


_WORKER_CODE = "import json, sys; from tests.test_postgres_storage import _worker; _worker(json.loads(sys.argv[1]))"


class Workers:
    """Worker processes of one test; :meth:`close` kills those still running (always called)."""

    def __init__(self, tmp_path: Path, storage: str, study: str):
        self.tmp, self.storage, self.study = tmp_path, storage, study
        self.procs: list = []

    def spec(self, tag: str, n_trials: int, **kw) -> dict:
        d = self.tmp / tag
        d.mkdir()
        return dict(storage=self.storage, study=self.study, n_trials=n_trials, cache=str(d / "cache"),
                    log=str(d / "tune.jsonl"), trials_file=str(d / "trials.txt"), ready=str(d / "ready"),
                    result=str(d / "result.json"), stdout=str(d / "out.txt"), **kw)

    def start(self, spec: dict) -> subprocess.Popen:
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
        with open(spec["stdout"], "w") as out:
            p = subprocess.Popen([sys.executable, "-c", _WORKER_CODE, json.dumps(spec)], cwd=REPO, env=env,
                                 stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
        p.spec = spec
        self.procs.append(p)
        return p

    def wait(self, p: subprocess.Popen, expect_rc: int = 0) -> dict | None:
        try:
            rc = p.wait(timeout=WORKER_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            pytest.fail(f"worker timed out; output:\n{Path(p.spec['stdout']).read_text()[-4000:]}")
        assert rc == expect_rc, f"worker exit {rc}, expected {expect_rc}; output:\n" \
                                f"{Path(p.spec['stdout']).read_text()[-4000:]}"
        res = Path(p.spec["result"])
        return json.loads(res.read_text()) if res.is_file() else None

    def close(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()


def trial_numbers(spec: dict) -> list:
    path = Path(spec["trials_file"])
    return [int(x) for x in path.read_text().split()] if path.is_file() else []


def _counted(trials):
    from autotune.search import _counted as counted

    return counted(trials)


def _age_heartbeats(url: str, minutes: int) -> None:
    """Move every trial heartbeat of the storage *minutes* back (Optuna's RDB table ``trial_heartbeats``)."""
    import sqlalchemy

    engine = sqlalchemy.create_engine(url)
    try:
        with engine.begin() as conn:
            n = conn.execute(sqlalchemy.text(f"UPDATE trial_heartbeats SET heartbeat = heartbeat - "
                                             f"interval '{int(minutes)} minutes'")).rowcount
        assert n >= 1, "no trial heartbeat recorded"
    finally:
        engine.dispose()


# ------------------------------------------------------------------------------ tests
_OPEN_CODE = """
import os, sys, time
from pathlib import Path
import optuna
from autotune.search import _storage
url, me, n, go = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])
me.touch()
while len(list(me.parent.glob("ready-*"))) < n or time.time() < go:
    time.sleep(0.001)
study = optuna.create_study(storage=_storage(url, create=True), study_name="opened-together", load_if_exists=True)
study.set_user_attr(me.name, os.getpid())
"""


def test_workers_opening_a_fresh_database_together(postgres_url, tmp_path):
    """Workers started at once on a fresh database all race to create Optuna's schema in it: none may
    fail (the losers retry once the winner has committed), and all end up on one study."""
    n = 8
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]))
    go = time.time() + 4.0  # after the imports of every process
    procs = []
    try:
        for i in range(n):
            out = open(tmp_path / f"out-{i}.txt", "w")
            procs.append(subprocess.Popen([sys.executable, "-c", _OPEN_CODE, postgres_url, str(tmp_path / f"ready-{i}"),
                                           str(n), str(go)], cwd=REPO, env=env, stdin=subprocess.DEVNULL,
                                          stdout=out, stderr=subprocess.STDOUT))
            out.close()
        rcs = [p.wait(timeout=WORKER_TIMEOUT_S) for p in procs]
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    errors = [(tmp_path / f"out-{i}.txt").read_text()[-1500:] for i, rc in enumerate(rcs) if rc != 0]
    assert not errors, errors[0]
    study = optuna.load_study(study_name="opened-together", storage=postgres_url)
    assert sorted(study.user_attrs) == sorted(f"ready-{i}" for i in range(n))
    assert optuna.get_all_study_names(postgres_url) == ["opened-together"]


@pytest.fixture(scope="module")
def two_worker_study(postgres_server, tmp_path_factory):
    """Two worker processes searching one study on PostgreSQL at the same time (same study name,
    same URL, the defaults otherwise), until the study holds ``n_trials`` trials."""
    tmp = tmp_path_factory.mktemp("two-workers")
    url = postgres_server.create_database("two_workers")
    study_name = "bfs-two-workers"
    n_trials = 24
    w = Workers(tmp, url, study_name)
    try:
        specs = [w.spec(f"w{i}", n_trials, sleep_s=0.05) for i in range(2)]
        for s in specs:
            s["barrier"] = [t["ready"] for t in specs]
        procs = [w.start(s) for s in specs]
        results = [w.wait(p) for p in procs]
    finally:
        w.close()
    return dict(url=url, study=study_name, n_trials=n_trials, specs=specs, results=results)


def test_two_workers_share_one_study_nothing_lost(two_worker_study):
    from optuna.trial import TrialState

    from autotune.logs import read_log

    url, name, n_trials = two_worker_study["url"], two_worker_study["study"], two_worker_study["n_trials"]
    specs, results = two_worker_study["specs"], two_worker_study["results"]
    _space, valid = committed_replay()
    study = optuna.load_study(study_name=name, storage=url)
    trials = study.get_trials()
    numbers = [trial_numbers(s) for s in specs]
    # both workers searched, at the same time (each started a trial while the other had one going)
    assert all(numbers), numbers
    assert min(numbers[1]) < max(numbers[0]) and min(numbers[0]) < max(numbers[1]), numbers
    # every trial of the study was run by exactly one worker: the study holds the sum of both workers' trials
    assert sorted(numbers[0] + numbers[1]) == [t.number for t in trials] == list(range(len(trials)))
    # ... all finished and counted (no trial lost, none left running), the study's total reached. Two
    # workers seeding at the same instant may both enqueue a seed (Table 2, the model's pick: Optuna
    # has no atomic "enqueue unless present"); the later copy is answered from the study
    # (``duplicate_of``, the original's value) and measures nothing, so it is not counted
    counted = _counted(trials)
    dups = [t for t in trials if "duplicate_of" in t.user_attrs]
    assert counted == [t for t in trials if t not in dups] and not [t for t in trials if t.state == TrialState.RUNNING]
    for t in dups:
        orig = trials[t.user_attrs["duplicate_of"]]
        assert orig in counted and orig.user_attrs["config_id"] == t.user_attrs["config_id"]
        assert t.state == orig.state and (t.state != TrialState.COMPLETE or t.value == orig.value)
    assert len(dups) <= 2
    assert n_trials <= len(counted) <= n_trials + 1  # + the other worker's trial in flight at the end
    # a valid best: the fastest complete trial, a config the sweep measured, at its logged time
    complete = [t for t in trials if t.state == TrialState.COMPLETE]
    best = min(complete, key=lambda t: t.value)
    assert best.user_attrs["config_id"] in valid
    assert math.isclose(best.value, valid[best.user_attrs["config_id"]].median_ms, rel_tol=1e-9)
    assert all(t.user_attrs["config_id"] in valid for t in complete)
    assert all(t.user_attrs["config_id"] not in valid and "error" in t.user_attrs
               for t in trials if t.state == TrialState.FAIL)
    assert study.user_attrs["autotune"]["complete"] is True
    # the workers share the seed (so they time the same sources) yet explore different configs: the
    # sampler's draws follow the trial number, not the worker (one random stream per worker would have
    # both propose the same configs: about half the trials repeats)
    assert len({t.user_attrs["config_id"] for t in trials}) >= 0.8 * len(trials)
    # each worker returned the best of the study as it saw it when it stopped; the last one the best
    assert all(r["method"] == "search" and r["study"] == name and r["storage"] == url for r in results)
    assert min(r["best_ms"] for r in results) == best.value
    assert max(r["n_trials"] for r in results) == len(counted)
    # every measurement is in the log of the worker that made it; nothing was measured twice by one
    for s, mine in zip(specs, numbers):
        logged = [r.origin["trial"] for r in read_log(s["log"]).records]
        assert set(logged) <= set(mine) and len(logged) == len(set(logged))
        assert all(r.origin["study"] == name for r in read_log(s["log"]).records)
    measured = {r.origin["trial"] for s in specs for r in read_log(s["log"]).records}
    assert measured == {t.number for t in trials if "duplicate_of" not in t.user_attrs}


def test_stored_best_from_postgres(two_worker_study):
    from optuna.trial import TrialState

    from autotune.graph import from_edges
    from autotune.search import stored_best, tune_detailed

    url, name = two_worker_study["url"], two_worker_study["study"]
    study = optuna.load_study(study_name=name, storage=url)
    best = min((t for t in study.get_trials() if t.state == TrialState.COMPLETE), key=lambda t: t.value)
    g = small_graph(400, 6)
    hit = stored_best(g, FAKE_DEVICE["name"], url)
    assert hit is not None
    cfg, ms, found = hit
    assert (cfg.config_id, ms, found) == (best.user_attrs["config_id"], best.value, name)
    assert stored_best(g.fingerprint, FAKE_DEVICE["name"], url, study_name=name)[0] == cfg
    # the plain URL takes SQLAlchemy's default driver; both drivers of the [postgres] extra work
    for driver in ("psycopg", "psycopg2"):
        assert stored_best(g, FAKE_DEVICE["name"], url.replace("postgresql://", f"postgresql+{driver}://")) == hit
    assert stored_best(g, FAKE_DEVICE["name"], url, study_name="another-study") is None
    assert stored_best(g, "ANOTHER GPU", url) is None
    other = from_edges([0, 1, 2], [1, 2, 0], 3, directed=False, xp=np)
    assert stored_best(other, FAKE_DEVICE["name"], url) is None

    def forbidden(graph, cfg):
        raise AssertionError("a finished search must not measure again")

    # the fast path on a GPU machine, and a search asking for no more trials, both answer from it
    fast = tune_detailed(g, storage=url, device=FAKE_DEVICE, model=False)
    assert (fast.method, fast.config, fast.best_ms, fast.study) == ("stored", cfg, ms, name)
    again = tune_detailed(g, 10, storage=url, study_name=name, device=FAKE_DEVICE, model=False, progress=False,
                          runner_factory=forbidden, n_sources=N_SOURCES)
    assert (again.method, again.config, again.best_ms) == ("stored", cfg, ms)


def test_worker_timing_other_sources_is_refused(two_worker_study):
    """A worker joining the study with another seed or number of sources would time its trials on other
    sources than the rest of the study: refused before it measures anything."""
    from autotune.search import SearchError, tune_detailed

    url, name, n_trials = two_worker_study["url"], two_worker_study["study"], two_worker_study["n_trials"]

    def forbidden(graph, cfg):
        raise AssertionError("must not measure")

    n_before = len(optuna.load_study(study_name=name, storage=url).trials)
    for kw in (dict(seed=1, n_sources=N_SOURCES), dict(seed=0, n_sources=16)):
        with pytest.raises(SearchError, match="same n_sources and seed"):
            tune_detailed(small_graph(400, 6), n_trials + 10, storage=url, study_name=name, device=FAKE_DEVICE,
                          model=False, progress=False, runner_factory=forbidden, **kw)
    assert len(optuna.load_study(study_name=name, storage=url).trials) == n_before


@pytest.mark.parametrize("how", ["SIGKILL", "SIGINT"])
def test_interrupted_worker_study_resumes(postgres_url, tmp_path, how):
    """A worker killed (SIGKILL: its trial stays RUNNING) or interrupted (Ctrl-C: its trial is FAIL)
    in the middle of its 6th measured config: the finished trials stay in PostgreSQL, and a worker
    started again on the study runs only the rest; the interrupted trial does not count."""
    from optuna.trial import TrialState

    from autotune.logs import read_log
    from autotune.search import stored_best

    name, n_trials = f"bfs-resume-{how.lower()}", 16
    w = Workers(tmp_path, postgres_url, name)
    try:
        first = w.spec("first", n_trials, die_at=(6, how))
        w.wait(w.start(first), expect_rc=-getattr(signal, how))
        study = optuna.load_study(study_name=name, storage=postgres_url)
        before = study.get_trials()
        cut = before[-1]
        assert cut.state == (TrialState.RUNNING if how == "SIGKILL" else TrialState.FAIL)
        assert "error" not in cut.user_attrs and cut not in _counted(before)
        assert len(before) - 1 >= 5 and _counted(before[:-1]) == before[:-1]
        assert trial_numbers(first) == [t.number for t in before]
        assert stored_best(small_graph(400, 6), FAKE_DEVICE["name"], postgres_url) is None  # not finished
        n_log = len(read_log(first["log"]).records)
        assert n_log == 5
        if how == "SIGKILL":  # the killed trial's heartbeat stopped: make it older than the grace period
            _age_heartbeats(postgres_url, minutes=10)

        second = w.spec("second", n_trials)
        res = w.wait(w.start(second))
    finally:
        w.close()
    after = study.get_trials()
    key = lambda t: (t.number, t.state, t.value, t.user_attrs.get("config_id"))  # noqa: E731
    # nothing lost: the finished trials are unchanged, the cut one is not counted, the rest was run
    assert [key(t) for t in after[:len(before) - 1]] == [key(t) for t in before[:-1]]
    assert trial_numbers(second) == [t.number for t in after[len(before):]]
    assert len(_counted(after)) == n_trials == res["n_trials"]
    assert after[cut.number].state == TrialState.FAIL and after[cut.number] not in _counted(after)
    if how == "SIGKILL":  # Optuna's heartbeat failed the stale trial and the new worker retried its config
        retried = [t for t in after if t.system_attrs.get("failed_trial") == cut.number]
        assert [t.number for t in retried] == [len(before)]
        assert retried[0].user_attrs["config_id"] == cut.user_attrs["config_id"] and retried[0] in _counted(after)
    assert res["method"] == "search" and "stopped early" not in res["message"]
    complete = [t for t in after if t.state == TrialState.COMPLETE]
    best = min(complete, key=lambda t: t.value)
    assert res["best_ms"] == best.value and res["config_id"] == best.user_attrs["config_id"]
    assert study.user_attrs["autotune"]["complete"] is True
    assert stored_best(small_graph(400, 6), FAKE_DEVICE["name"], postgres_url)[1] == best.value
    assert {r.origin["trial"] for r in read_log(second["log"]).records} <= set(trial_numbers(second))
