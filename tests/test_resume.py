"""Lossless resume: a search killed (SIGKILL) or interrupted (SIGINT) anywhere loses nothing.

A replayed search (:mod:`tests._tuning_helpers`: recorded timings, no GPU) runs in a subprocess
that sends itself SIGKILL or SIGINT at a chosen point — inside trial 0 (the model's pick) before
and during its measurement, inside trial 1 (the Table-2 config), between writing a trial's log
line and telling Optuna, later in the search — and the search is then resumed in this process.
After the resume: every trial that had finished before the kill is unchanged, both seed configs
were measured, the study holds exactly ``n_trials`` counted trials, repeated configs spent no
trial, and the JSONL log reads back with no unreadable line and a line for every measured trial.
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from autotune.config import TraversalConfig
from autotune.features import profile
from autotune.logs import read_log
from autotune.search import _counted, _proc_start, study_name_for, table2_rule, tune_detailed

from ._tuning_helpers import FAKE_DEVICE, install_clock, model_time, replay_factory, small_graph

optuna = pytest.importorskip("optuna")
REPO = Path(__file__).resolve().parent.parent

N_TRIALS = 8
#: The selection model's pick in these tests (differs from the Table-2 config of the test graph).
PRED = TraversalConfig(load_balance="binary_search", block_size=1024)


@pytest.fixture(autouse=True)
def _isolated_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("AUTOTUNE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("AUTOTUNE_STORAGE", raising=False)
    monkeypatch.setenv("AUTOTUNE_MODEL", str(tmp_path / "no-model.joblib"))


class _ConstModel:
    def __init__(self, cfg):
        self.cfg = cfg

    def predict_config(self, features):
        return self.cfg


#: The killed run: the same search as :func:`_resume`, sending itself a signal at KILL_AT.
_CHILD = textwrap.dedent("""
    import os, signal, sys
    sys.path.insert(0, {repo!r})
    import numpy as np
    import autotune.measure
    from autotune import logs
    from autotune.config import TraversalConfig
    from autotune.features import profile
    from autotune.search import tune_detailed
    from tests._tuning_helpers import FAKE_DEVICE, VirtualClock, model_time, replay_factory, small_graph

    kind, n, k = os.environ["KILL_AT"].split(":")
    n, k = int(n), int(k)
    sig = getattr(signal, os.environ["KILL_SIG"])
    clock = VirtualClock()
    autotune.measure.time = clock
    g = small_graph(400, 6)
    feats = profile(g, xp=np).to_dict()
    inner = replay_factory(clock, lambda c: model_time(feats, c), jitter=0.02)
    built = []

    def die():
        sys.stdout.flush()
        os.kill(os.getpid(), sig)
        if sig == signal.SIGKILL:  # pragma: no cover - never reached
            os._exit(99)

    def factory(graph, cfg):
        built.append(cfg.config_id)
        if kind == "factory" and len(built) - 1 == n:
            die()
        runner = inner(graph, cfg)
        if kind == "traverse" and len(built) - 1 == n:
            traverse, calls = runner.traverse, [0]

            def counted(source):
                calls[0] += 1
                if calls[0] == k:
                    die()
                return traverse(source)

            runner.traverse = counted
        return runner

    writes = [0]
    write = logs.LogWriter.write

    def write_then_die(self, record):
        write(self, record)
        writes[0] += 1
        if kind == "logwrite" and writes[0] - 1 == n:
            die()

    logs.LogWriter.write = write_then_die

    class Const:
        def predict_config(self, features):
            return TraversalConfig(load_balance="binary_search", block_size=1024)

    tune_detailed(g, {n_trials}, storage=os.environ["STORAGE"], n_sources=8, progress=False, device=FAKE_DEVICE,
                  log=os.environ["LOG"], model=Const(), runner_factory=factory, seed=0)
    print("FINISHED WITHOUT A KILL")
""")


def _run_killed(tmp_path, kill_at: str, sig: str):
    env = dict(os.environ, KILL_AT=kill_at, KILL_SIG=sig, STORAGE=f"sqlite:///{tmp_path / 's.db'}",
               LOG=str(tmp_path / "tune.jsonl"), AUTOTUNE_DISABLE_GPU="1", PYTHONPATH=str(REPO))
    script = _CHILD.format(repo=str(REPO), n_trials=N_TRIALS)
    return subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300)


def _resume(tmp_path, monkeypatch, g, n_trials=N_TRIALS, **kw):
    clock = install_clock(monkeypatch)
    feats = profile(g, xp=np).to_dict()
    kw.setdefault("runner_factory", replay_factory(clock, lambda c: model_time(feats, c), jitter=0.02))
    return tune_detailed(g, n_trials, storage=f"sqlite:///{tmp_path / 's.db'}", n_sources=8, progress=False,
                         device=FAKE_DEVICE, log=tmp_path / "tune.jsonl", model=_ConstModel(PRED), seed=0, **kw)


def _study(tmp_path, g):
    return optuna.load_study(study_name=study_name_for(g, FAKE_DEVICE["name"]), storage=f"sqlite:///{tmp_path / 's.db'}")


def _finished(study) -> dict:
    """Trials that had finished (counted or answered from the study): number -> (state, value, config_id)."""
    from optuna.trial import TrialState

    return {t.number: (t.state.name, t.value, t.user_attrs.get("config_id")) for t in study.get_trials()
            if t.state in (TrialState.COMPLETE, TrialState.PRUNED)
            or (t.state == TrialState.FAIL and "error" in t.user_attrs)}


def _check_lossless(tmp_path, g, before: dict, res) -> None:
    from optuna.trial import TrialState

    study = _study(tmp_path, g)
    trials = study.get_trials()
    after = _finished(study)
    # 0 finished trials lost, none changed
    assert {n: after.get(n) for n in before} == before
    # exactly n_trials counted trials (interrupted and repeated ones do not count)
    counted = _counted(trials)
    assert len(counted) == N_TRIALS == res.n_trials
    assert not [t.number for t in trials if t.state == TrialState.RUNNING]
    # both seeds measured (a counted trial with their config; the seed mark survives a re-run)
    t2 = table2_rule(profile(g, xp=np))
    measured = {t.user_attrs["config_id"] for t in counted}
    assert {PRED.config_id, t2.config_id} <= measured
    marks = {t.user_attrs.get("enqueued") for t in counted}
    assert {"model", "table2"} <= marks
    # repeated configs spent no trial
    assert len(measured) == len(counted)
    # the log is intact: every line reads back, and every measured trial has its line
    log = read_log(tmp_path / "tune.jsonl", warn=False)
    assert log.n_unreadable == 0
    logged = {r.origin["trial"] for r in log.records if r.origin["study"] == res.study}
    assert {t.number for t in counted} <= logged


KILL_POINTS = [
    "factory:0:0",    # inside trial 0 (the model's pick), before its measurement
    "traverse:0:3",   # inside trial 0, during its measurement
    "factory:1:0",    # inside trial 1 (the Table-2 config)
    "logwrite:1:0",   # trial 1's log line written, Optuna not yet told
    "traverse:3:2",   # inside a later trial, during its measurement
    "logwrite:5:0",   # a later trial's log line written
]


@pytest.mark.parametrize("sig", ["SIGKILL", "SIGINT"])
@pytest.mark.parametrize("kill_at", KILL_POINTS)
def test_killed_search_resumes_losslessly(tmp_path, monkeypatch, kill_at, sig):
    g = small_graph(400, 6)
    r = _run_killed(tmp_path, kill_at, sig)
    assert "FINISHED WITHOUT A KILL" not in r.stdout, r.stderr[-2000:]
    if sig == "SIGKILL":
        assert r.returncode == -signal.SIGKILL, r.stderr[-2000:]
    else:
        assert r.returncode != 0 and "KeyboardInterrupt" in r.stderr, r.stderr[-2000:]
    before = _finished(_study(tmp_path, g))
    res = _resume(tmp_path, monkeypatch, g)
    assert res.method == "search" and "stopped early" not in res.message
    _check_lossless(tmp_path, g, before, res)


def test_killed_twice_in_the_same_trial_still_resumes(tmp_path, monkeypatch):
    """A seed killed twice (SIGKILL, then SIGINT in its re-run) is re-run again and measured."""
    g = small_graph(400, 6)
    assert _run_killed(tmp_path, "traverse:0:2", "SIGKILL").returncode == -signal.SIGKILL
    assert _run_killed(tmp_path, "traverse:0:2", "SIGINT").returncode != 0
    study = _study(tmp_path, g)
    retried = [t for t in study.get_trials() if t.system_attrs.get("retry_history")]
    assert retried and retried[-1].system_attrs["retry_history"][0] == 0  # trial 0's re-run was the one killed
    before = _finished(study)
    res = _resume(tmp_path, monkeypatch, g)
    _check_lossless(tmp_path, g, before, res)


def test_other_live_workers_trials_are_left_to_the_heartbeat(tmp_path, monkeypatch):
    """RUNNING trials of a live process on this host, or of another host, are not failed on resume
    (Optuna's heartbeat handles those); this worker's dead trials are."""
    from optuna.trial import TrialState

    g = small_graph(400, 6)
    first = _resume(tmp_path, monkeypatch, g, n_trials=2, study_name="workers")
    study = optuna.load_study(study_name=first.study, storage=first.storage)
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    try:
        alive = study.ask()
        alive.set_user_attr("worker", {"host": socket.gethostname(), "pid": live.pid, "start": _proc_start(live.pid)})
        remote = study.ask()
        remote.set_user_attr("worker", {"host": "another-host.invalid", "pid": 1, "start": None})
        dead = study.ask()  # a process of this host that has ended
        gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
        pid = int(gone.stdout)
        boot = (_proc_start(os.getpid()) or "boot:1").split(":")[0]
        dead.set_user_attr("worker", {"host": socket.gethostname(), "pid": pid, "start": f"{boot}:0"})
        other_boot = study.ask()  # same host name, another boot: another machine (or before a reboot)
        other_boot.set_user_attr("worker", {"host": socket.gethostname(), "pid": pid, "start": "another-boot:0"})
        res = _resume(tmp_path, monkeypatch, g, n_trials=5, study_name="workers")
        states = {t.number: t.state for t in study.get_trials()}
        assert states[alive.number] == TrialState.RUNNING and states[remote.number] == TrialState.RUNNING
        assert states[other_boot.number] == TrialState.RUNNING
        assert states[dead.number] == TrialState.FAIL
        assert res.n_trials == 5
    finally:
        live.kill()
        live.wait()


def test_repeated_configs_spend_no_trial(tmp_path, monkeypatch):
    """On a table of 6 configs, 6 trials measure 6 distinct configs: a repeated proposal is answered
    from the study (``duplicate_of``) and does not count toward ``n_trials``."""
    import dataclasses

    from autotune import config as config_module
    from autotune import search as search_module
    from autotune.config import _FIELDS

    small = {"load_balance": ("vertex_mapped", "binary_search"), "block_size": (128, 256, 512)}
    table = {}
    for name, spec in _FIELDS.items():
        if name in small:
            allowed = small[name]
        elif name == "algorithm":  # the traversal (one study per algorithm): kept whole
            allowed = spec.allowed
        elif spec.default is not None:
            allowed = (spec.default,)
        else:
            allowed = spec.allowed[:1]
        table[name] = dataclasses.replace(spec, allowed=tuple(allowed))
    for mod in (config_module, search_module):
        monkeypatch.setattr(mod, "_FIELDS", table)
    n = 6  # BFS configs of the restricted table: 2 techniques x 3 block sizes
    monkeypatch.setattr(search_module, "_n_configs", lambda *a, **k: n)
    g = small_graph(400, 6)
    clock = install_clock(monkeypatch)
    feats = profile(g, xp=np).to_dict()
    built = []
    res = tune_detailed(g, n, storage=f"sqlite:///{tmp_path / 'd.db'}", n_sources=8, progress=False,
                        device=FAKE_DEVICE, log=tmp_path / "d.jsonl", model=False, seed=0, prune_factor=100.0,
                        runner_factory=replay_factory(clock, lambda c: model_time(feats, c), calls=built))
    study = optuna.load_study(study_name=res.study, storage=res.storage)
    dups = [t for t in study.get_trials() if "duplicate_of" in t.user_attrs]
    assert dups, "the sampler repeats configs on a 6-config table"
    assert res.n_trials == n and len(built) == n and len(set(built)) == n  # every config measured once
    assert "stopped early" not in res.message
