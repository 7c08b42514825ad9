"""``tune(graph)``: pick the fastest BFS (or SSSP) strategy for a graph — instantly from a model, or by a search.

Everything below is per algorithm (``tune(graph, algorithm="sssp")``): one selection model, one
rule, one search space and one study per traversal. For SSSP the model is
``models/sssp_h200.joblib``, the rule is paper 003's Delta rule
(:func:`autotune.sssp_rules.delta_rule`; the documented default SSSP config while no SSSP model is
shipped), and the search samples the SSSP rows of the table (``sssp_method``, then ``delta`` when
the method has buckets, then the technique's knobs; ``push`` only, no hash culling).

Fast path (``n_trials=None``)
    Profile the graph (:func:`autotune.features.profile`, on the GPU when there is one, else on the
    CPU) and let the selection model (:mod:`autotune.model`; by default the shipped model of this
    GPU, ``models/bfs_h200.joblib`` on an H200) predict the config. With no model, or a model file that is corrupt
    or does not fit this release (:class:`~autotune.errors.ModelError`), it falls back to the rules
    of paper 000's Table 2 (:func:`table2_rule`) and says so (a :class:`UserWarning` naming the
    file, the reason and how to rebuild it). On a GPU
    machine, a config already found by a search for this graph on this GPU model (in the default
    or the given storage) is returned instead.

Search (``n_trials=N``)
    An Optuna study, define-by-run over the rows of the config table
    (:data:`autotune.config._FIELDS`; conditional fields are only suggested when they apply, so new
    techniques and knobs are searched without code changes), seeded ``TPESampler``. The model's
    prediction, the Table-2 config and the model's next best-ranked configs (``n_ranked``) are
    enqueued as the first trials. Every trial is timed by the
    shared harness (:func:`autotune.measure.measure`) with validation, first on a quarter of the
    sources: a trial whose partial median is ``prune_factor`` times slower than the best complete
    trial's on the same sources is pruned (:class:`SlowTrialPruner`). An invalid or failing config
    is a failed trial with its error, never a best. Every measurement is appended to a benchmark
    log (:mod:`autotune.logs`, origin command ``tune`` with study and trial).

Storage
    Any Optuna storage URL; default ``sqlite:///~/.cache/autotune/studies.db`` (``$AUTOTUNE_STORAGE``
    or ``$AUTOTUNE_CACHE_DIR`` override it). Several workers (GPUs or machines) can share one study
    through ``postgresql://...``: each calls ``tune`` with the same ``study_name``, storage,
    ``n_sources`` and ``seed`` (the sources; a worker with others is refused), the study is loaded if
    it exists, and ``n_trials`` is the study's total. A study records the graph
    fingerprint and the GPU model in its user attributes; once a search has finished, the same graph
    on the same GPU model gets its stored best at once unless ``retune=True``.

Resume
    An interrupted study (killed, Ctrl-C, ``timeout``) resumes where it stopped and loses nothing:
    finished trials are kept; a trial the interruption left ``RUNNING`` or ``FAIL`` is re-queued
    first with Optuna's ``RetryHeartbeatStaleTrialCallback`` (this host's trials whose process has
    ended at once, see :func:`_recover_interrupted`; other workers' through Optuna's heartbeat); the
    seed trials are queued again unless measured, queued or running, so each is measured when
    ``n_trials`` allows; a config proposed again is answered from the study (``duplicate_of``) and does not
    count toward ``n_trials``, which counts measured trials only (:func:`_counted`).
"""
from __future__ import annotations

import functools
import math
import operator
import os
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Mapping

# TuneResult and cache_dir live in small modules that the fast path of 'autotune tune' imports
# without this one; re-exported here
from ._files import cache_dir  # noqa: F401
from ._tune_result import DEFAULT_N_RANKED, TuneResult  # noqa: F401
from .config import TraversalConfig, _FIELDS
from .errors import AutotuneError, InvalidArgumentError, ModelError
from .features import GraphFeatures
# paper 000's Table 2 lives in autotune.table2 (imported by this module and by autotune.model, so
# that neither imports the other); re-exported here
from .table2 import (  # noqa: F401
    _DEFAULT_RESIDENT_THREADS, IRREGULAR_DEGREE_CV, TABLE2_SUPPORT_RULES, WARP_SIZE, _as_features, _resident_threads,
    _switch_value, table2_rule,
)

__all__ = [
    "tune", "tune_detailed", "TuneResult", "table2_rule", "TABLE2_SUPPORT_RULES", "IRREGULAR_DEGREE_CV",
    "suggest_config", "config_params", "SlowTrialPruner", "SearchError", "stored_best", "default_storage",
    "cache_dir", "default_log_path", "study_name_for", "DEFAULT_N_RANKED",
]

# ============================================================================ search space
def _choices(name: str, values: Mapping[str, Any], algorithm: str) -> tuple:
    """The values field *name* can take in *algorithm*'s space given the earlier fields' *values*:
    the algorithm itself for ``algorithm``; ``(None,)`` when the field does not apply; else its
    allowed values less those the algorithm excludes (``allowed_here``: no ``push_pull`` and no
    hash culling for SSSP)."""
    spec = _FIELDS[name]
    if name == "algorithm":
        return (algorithm,)
    if not spec.applies(values):
        return (None,)
    return spec.allowed_here(values)


#: The rule each algorithm falls back to without a model (messages).
_RULE_TEXT = {"bfs": "the Table-2 rules of Busato & Bombieri",
              "sssp": "the documented default SSSP config (paper 003's Delta rule: Delta-stepping with "
                      "delta = delta_0 = 32 x mean weight / mean out-degree, on the binary search)"}

#: How to get the missing model of each algorithm (messages).
_TRAIN_HINT = {"bfs": "train one with 'autotune sweep --corpus models/corpus.txt --out logs/corpus.jsonl' then "
                      "'autotune retrain logs/corpus.jsonl --out models/bfs_h100.joblib'",
               "sssp": "train one on a GPU with 'autotune sweep --algorithm sssp "
                       "--configs train --corpus models/corpus_sssp.txt --out logs/sssp.jsonl' then 'autotune "
                       "retrain logs/sssp.jsonl --algorithm sssp --out models/sssp_h200.joblib'"}


def _check_algorithm(algorithm: str) -> str:
    from .config import ALGORITHMS

    if algorithm not in ALGORITHMS:
        raise InvalidArgumentError(f"unknown algorithm {algorithm!r}; expected one of {', '.join(ALGORITHMS)}")
    return algorithm


@functools.lru_cache(maxsize=4)
def _n_configs(algorithm: str = "bfs") -> int:
    """Number of distinct configs of *algorithm* in the table (the search stops once all were
    tried): :func:`autotune.config.count_configs` restricted to one algorithm."""
    from .config import count_configs

    return count_configs(algorithm)


def suggest_config(trial, algorithm: str = "bfs") -> TraversalConfig:
    """Suggest a :class:`TraversalConfig` of *algorithm* on an Optuna trial, define-by-run over the
    config table.

    Walks :data:`autotune.config._FIELDS` in order; ``algorithm`` is fixed (one study per
    algorithm, never suggested); another field is suggested (``trial.suggest_categorical(name,
    choices)``) only when it applies given the values chosen so far (e.g. ``virtual_warp_size``
    only for ``vertex_mapped``, ``min_virtual_warp_size`` only for dynamic warps, ``delta`` only
    for the SSSP methods with buckets), over the values the algorithm allows (SSSP: ``push``
    only, no hash culling), else it takes its neutral ``None``. A BFS study's parameters are
    exactly those of the studies made before SSSP existed.

    Parameters
    ----------
    trial : optuna.trial.Trial
    algorithm : {'bfs', 'sssp'}, default 'bfs'

    Returns
    -------
    TraversalConfig
    """
    values: dict[str, Any] = {}
    for name in _FIELDS:
        choices = _choices(name, values, algorithm)
        if name == "algorithm" or choices == (None,):
            values[name] = choices[0]
        else:
            values[name] = trial.suggest_categorical(name, list(choices))
    return TraversalConfig(**values)


def config_params(config: TraversalConfig) -> dict:
    """Optuna parameters of *config* (its applicable fields but ``algorithm``, which a study fixes),
    for ``study.enqueue_trial``."""
    return {k: v for k, v in config.to_dict().items() if v is not None and k != "algorithm"}


# ============================================================================ pruning
class SlowTrialPruner:
    """Prune trials that are clearly slower than the best complete one on the same sources.

    At the step a trial reports (the number of sources timed so far), it is pruned when its median
    time is more than ``factor`` times the smallest median that complete trials reported at that
    same step (same sources, so the comparison is fair), once ``n_min_complete`` trials have
    completed.

    Parameters
    ----------
    factor : float, default 1.5
        How much slower than the best counts as clearly slow (> 1).
    n_min_complete : int, default 1
        Complete trials needed before anything is pruned.
    """

    def __init__(self, factor: float = 1.5, n_min_complete: int = 1):
        if not factor > 1.0:
            raise ValueError(f"prune factor must be > 1, got {factor!r}")
        self.factor = float(factor)
        self.n_min_complete = int(n_min_complete)

    def prune(self, study, trial) -> bool:
        """Optuna pruner protocol: True to prune *trial* at its last reported step."""
        from optuna.trial import TrialState

        step = trial.last_step
        if step is None:
            return False
        value = trial.intermediate_values[step]
        refs = [t.intermediate_values[step] for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,))
                if step in t.intermediate_values]
        if len(refs) < self.n_min_complete:
            return False
        return value > self.factor * min(refs)


def _optuna_pruner(pruner: SlowTrialPruner):
    """Wrap :class:`SlowTrialPruner` as an ``optuna.pruners.BasePruner``."""
    import optuna

    class _Pruner(optuna.pruners.BasePruner):
        def prune(self, study, trial) -> bool:
            return pruner.prune(study, trial)

    return _Pruner()


def _trial_seeded_tpe(seed: int | None):
    """A ``TPESampler`` whose random draws are seeded anew for each trial from (*seed*, trial number).

    A TPE sampler seeded once replays one random stream in every process that uses it: workers
    sharing a study (they must share the seed, which also picks the sources) would propose the same
    configs, and a resumed study would propose its first configs again. Seeding per trial number
    keeps a single worker's search deterministic and gives every trial of a shared or resumed study
    its own draws.
    """
    import numpy as np
    import optuna

    if seed is None:
        return optuna.samplers.TPESampler()

    class _TrialSeededTPE(optuna.samplers.BaseSampler):
        def __init__(self):
            self._tpe = optuna.samplers.TPESampler(seed=seed)

        def before_trial(self, study, trial):
            state = np.random.SeedSequence([int(seed) % 2**63, trial.number]).generate_state(1)[0]
            self._tpe = optuna.samplers.TPESampler(seed=int(state))
            self._tpe.before_trial(study, trial)

        def infer_relative_search_space(self, study, trial):
            return self._tpe.infer_relative_search_space(study, trial)

        def sample_relative(self, study, trial, search_space):
            return self._tpe.sample_relative(study, trial, search_space)

        def sample_independent(self, study, trial, param_name, param_distribution):
            return self._tpe.sample_independent(study, trial, param_name, param_distribution)

        def after_trial(self, study, trial, state, values):
            self._tpe.after_trial(study, trial, state, values)

        def reseed_rng(self):
            self._tpe.reseed_rng()

    return _TrialSeededTPE()


# ============================================================================ storage
class SearchError(AutotuneError, RuntimeError):
    """A search could not produce a valid config (every trial failed), or a study mismatch."""


def default_storage() -> str:
    """``$AUTOTUNE_STORAGE``, else ``sqlite:///<cache_dir()>/studies.db``."""
    return os.environ.get("AUTOTUNE_STORAGE") or f"sqlite:///{cache_dir() / 'studies.db'}"


def default_log_path() -> Path:
    """Benchmark log of searches when none is given: ``<cache_dir()>/tune.jsonl``."""
    return cache_dir() / "tune.jsonl"


def _sqlite_file(url: str) -> Path | None:
    if url.startswith("sqlite:///"):
        rest = url[len("sqlite:///"):]
        if rest and rest != ":memory:":
            return Path(rest).expanduser()
    return None


def _storage(url: str, *, create: bool):
    """An ``RDBStorage`` for *url* with heartbeats (stale RUNNING trials of killed workers are failed
    and retried), creating the SQLite folder when *create*."""
    import inspect

    import optuna
    from optuna import storages

    path = _sqlite_file(url)
    if path is not None:
        if create:
            path.parent.mkdir(parents=True, exist_ok=True)
        url = "sqlite:///" + str(path)
    if not url.startswith(("sqlite:", "postgresql", "mysql", "oracle", "mssql")):
        return url  # let Optuna interpret other storage strings (e.g. journal storages)
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    with warnings.catch_warnings():  # heartbeats are "experimental" in Optuna; they are what we want
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        warnings.simplefilter("ignore", FutureWarning)
        kw: dict[str, Any] = dict(heartbeat_interval=60, grace_period=180)
        params = inspect.signature(storages.RDBStorage).parameters
        if "heartbeat_stale_trial_callback" in params and hasattr(storages, "RetryHeartbeatStaleTrialCallback"):
            kw["heartbeat_stale_trial_callback"] = _retry_callback()
        else:  # Optuna < 4.9
            kw["failed_trial_callback"] = _retry_callback()
        from sqlalchemy.exc import IntegrityError, ProgrammingError

        for attempt in range(5):
            try:
                return storages.RDBStorage(url, **kw)
            except (IntegrityError, ProgrammingError):
                # Workers started together on a fresh database race to create Optuna's schema
                # (CREATE TYPE/TABLE, the alembic stamp); the losers fail with "already exists" or a
                # unique violation. Once the winner has committed, a retry finds the schema in place.
                if attempt == 4:
                    raise
                time.sleep(0.1 * 2 ** attempt)


def _storage_exists(url: str) -> bool:
    path = _sqlite_file(url)
    return path.is_file() if path is not None else True


def study_name_for(graph, device_name: str, algorithm: str = "bfs") -> str:
    """Default study name: ``<algorithm>:<graph name>:<12 hex of the fingerprint>:<device name>``
    (``bfs:...`` as before SSSP existed, ``sssp:...`` for an SSSP search)."""
    fp = graph.fingerprint.split(":", 1)[-1][:12]
    return f"{algorithm}:{graph.name}:{fp}:{device_name}"


def _study_attrs(summary_or_study) -> dict:
    return dict(getattr(summary_or_study, "user_attrs", {}) or {}).get("autotune", {}) or {}


def _counted(trials) -> list:
    """Finished trials that count toward ``n_trials``: measured configs that completed, were pruned,
    or failed with an error (invalid config). Trials failed by an interruption do not count (they
    are re-run, see :func:`_recover_interrupted`), nor do repeated configs answered from the study
    (user attribute ``duplicate_of``): they spent no measurement."""
    return [t for t in trials if _is_counted(t)]


def _is_counted(t) -> bool:
    """:func:`_counted` for one trial."""
    from optuna.trial import TrialState

    return "duplicate_of" not in t.user_attrs and (
        t.state in (TrialState.COMPLETE, TrialState.PRUNED) or (t.state == TrialState.FAIL and "error" in t.user_attrs))


# ============================================================================ interruptions
#: Times an interrupted trial is re-run (Optuna's ``retry_history``) before it is given up.
_MAX_RETRY = 3

#: User attributes an interrupted trial passes on to its re-run: only the seed mark ("model" or
#: "table2"); the rest (config, worker, partial timings) belongs to the interrupted attempt.
_RETRY_KEEP = ("enqueued",)

#: Repeated configs in a row after which a search stops early (the sampler is stuck on measured
#: configs; the study stays resumable).
_MAX_DUPLICATES_IN_A_ROW = 200


def _retry_callback():
    """Optuna's stale-trial retry (``RetryHeartbeatStaleTrialCallback``, ``max_retry`` =
    :data:`_MAX_RETRY`), re-queueing an interrupted trial's parameters as a ``WAITING`` trial that
    keeps of its user attributes only :data:`_RETRY_KEEP`.

    Used both by the storage's heartbeat (trials of workers that stopped beating) and by
    :func:`_recover_interrupted` (this worker's own interrupted trials, re-run at once).
    """
    import copy

    import optuna
    from optuna import storages

    base = getattr(storages, "RetryHeartbeatStaleTrialCallback", None) or storages.RetryFailedTrialCallback

    class _RetryInterrupted(base):
        def __call__(self, study, trial):
            t = copy.deepcopy(trial)
            t.user_attrs = {k: v for k, v in trial.user_attrs.items() if k in _RETRY_KEEP}
            super().__call__(study, t)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
        warnings.simplefilter("ignore", FutureWarning)
        return _RetryInterrupted(max_retry=_MAX_RETRY)


def _proc_start(pid: int) -> str | None:
    """``<boot id>:<start time>`` of process *pid* (Linux ``/proc``): tells a pid's process from a
    later one that reuses the pid. None where ``/proc`` is not available."""
    try:
        with open(f"/proc/{int(pid)}/stat", "rb") as fh:
            data = fh.read()
        with open("/proc/sys/kernel/random/boot_id") as fh:
            boot = fh.read().strip()
        fields = data[data.rindex(b")") + 2:].split()  # after "pid (comm) ": state is field 3
        return f"{boot}:{int(fields[19])}"              # starttime is field 22
    except (OSError, ValueError, IndexError):
        return None


def _proc_state(pid: int) -> bytes | None:
    try:
        with open(f"/proc/{int(pid)}/stat", "rb") as fh:
            data = fh.read()
        return data[data.rindex(b")") + 2:].split()[0]
    except (OSError, ValueError, IndexError):
        return None


def _worker_identity() -> dict:
    """This process as a search worker: host name, pid and (on Linux) boot id and start time."""
    import socket

    return {"host": socket.gethostname(), "pid": os.getpid(), "start": _proc_start(os.getpid())}


def _worker_is_gone(worker) -> bool:
    """Whether the worker that ran a trial is known to have stopped: it ran on this host and its
    process has ended (or is this very process, which runs one trial at a time and is not running
    one now). Workers on other hosts, and live processes here, are left to Optuna's heartbeat."""
    import socket

    if not isinstance(worker, Mapping) or worker.get("host") != socket.gethostname():
        return False
    pid, start = worker.get("pid"), worker.get("start")
    if not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0:
        return False
    mine = _proc_start(os.getpid())
    if isinstance(start, str) and mine is not None and start.split(":")[0] != mine.split(":")[0]:
        return False  # another boot id: another machine with this host name, or before a reboot
    now = _proc_start(pid)
    if pid == os.getpid():
        return start is None or now is None or start == now
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's process
        return start is not None and now is not None and start != now
    except OSError:
        return False
    if _proc_state(pid) in (b"Z", b"X"):  # killed, not yet reaped
        return True
    return start is not None and now is not None and start != now  # the pid now names another process


def _is_interrupted(trial) -> bool:
    """A trial that failed without a finished measurement: interrupted (Ctrl-C, a kill, a crash)."""
    from optuna.trial import TrialState

    return (trial.state == TrialState.FAIL and "error" not in trial.user_attrs
            and "duplicate_of" not in trial.user_attrs)


def _recover_interrupted(study) -> list[int]:
    """Re-queue, at once, the trials of *study* that an interruption left unfinished.

    A ``RUNNING`` trial whose worker is gone (:func:`_worker_is_gone`: this host, process ended) is
    failed now instead of after Optuna's heartbeat grace period; it and every ``FAIL`` trial that
    an interruption left (:func:`_is_interrupted`) and that was not re-queued yet is re-queued by
    :func:`_retry_callback` (same parameters, its seed mark kept, at most :data:`_MAX_RETRY`
    times). ``RUNNING`` trials of live workers keep running; those of other hosts that stopped are
    failed and re-queued by Optuna's heartbeat.

    Returns
    -------
    list of int
        Numbers of the re-queued trials' originals.
    """
    from optuna.trial import TrialState

    trials = study.get_trials(deepcopy=False)
    retried = {n for t in trials for n in t.system_attrs.get("retry_history", ())}
    stale = [t.number for t in trials if t.state == TrialState.RUNNING and _worker_is_gone(t.user_attrs.get("worker"))]
    for number in stale:
        study.tell(number, state=TrialState.FAIL, skip_if_finished=True)
    if stale:
        trials = study.get_trials(deepcopy=False)
    callback = _retry_callback()
    out = []
    for t in trials:
        if _is_interrupted(t) and t.number not in retried:
            callback(study, t)
            out.append(t.number)
    return out


def _config_pending_or_done(trials, cfg: TraversalConfig) -> bool:
    """Whether *cfg* was measured in the study (counted trial) or is queued or running."""
    from optuna.trial import TrialState

    cid, params = cfg.config_id, config_params(cfg)
    for t in trials:
        if t.state in (TrialState.WAITING, TrialState.RUNNING):
            if t.user_attrs.get("config_id") == cid or {**t.params, **t.system_attrs.get("fixed_params", {})} == params:
                return True
        elif _is_counted(t) and t.user_attrs.get("config_id") == cid:
            return True
    return False


def _best_of(study) -> tuple[TraversalConfig, float, int] | None:
    """(config, median ms, trial number) of the study's best complete trial, or None."""
    from optuna.trial import TrialState

    best = None
    for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
        if t.value is None or not math.isfinite(t.value) or "config" not in t.user_attrs:
            continue
        if best is None or t.value < best.value:
            best = t
    if best is None:
        return None
    return TraversalConfig.from_dict(best.user_attrs["config"]), float(best.value), best.number


def stored_best(graph_or_fingerprint, device_name: str, storage: str | None = None, *,
                study_name: str | None = None, algorithm: str = "bfs"):
    """The best config a finished search of *algorithm* found for this graph on this GPU model, if any.

    Parameters
    ----------
    graph_or_fingerprint : CSRGraph or str
        The graph, or its fingerprint (``sha256:…``).
    device_name : str
        GPU model, e.g. ``"NVIDIA H100 80GB HBM3"``.
    storage : str, optional
        Optuna storage URL (default :func:`default_storage`).
    study_name : str, optional
        Only consider this study.
    algorithm : {'bfs', 'sssp'}, default 'bfs'
        Only consider searches of this traversal (studies made before SSSP existed are BFS).

    Returns
    -------
    (TraversalConfig, float, str) or None
        Config, its median time (ms) and the study name; the most recently started finished
        study wins. None when there is none (or the storage does not exist, or Optuna is not
        installed: then no study can have been stored, and the fast path must still work).
    """
    url = storage or default_storage()
    if not _storage_exists(url):
        return None
    try:
        import optuna
    except ImportError:
        return None
    fp = graph_or_fingerprint if isinstance(graph_or_fingerprint, str) else graph_or_fingerprint.fingerprint
    st = _storage(url, create=False)
    found = []
    for s in optuna.get_all_study_summaries(st, include_best_trial=False):
        a = _study_attrs(s)
        if a.get("fingerprint") != fp or a.get("device") != device_name or not a.get("complete"):
            continue
        if a.get("algorithm", "bfs") != algorithm:
            continue
        if study_name is not None and s.study_name != study_name:
            continue
        found.append((s.datetime_start or 0, s.study_name))
    for _start, name in sorted(found, key=lambda x: str(x[0]), reverse=True):
        study = optuna.load_study(study_name=name, storage=st)
        try:
            best = _best_of(study)
        except ValueError as exc:  # config table changed since: the stored config no longer exists
            warnings.warn(f"study {name!r}: stored best is not a valid config of this release ({exc}); ignored",
                          UserWarning, stacklevel=2)
            continue
        if best is not None:
            return best[0], best[1], name
    return None


# ============================================================================ tune
def _resolve_model(model, device_name: str | None = None, algorithm: str = "bfs"):
    """(SelectionModel or None, description). ``model``: None = the shipped default of *algorithm*
    (:func:`autotune.model.default_model_path`), False = none, path, or model. Loading warns when
    the model was trained for another GPU model than *device_name*; a model of another algorithm
    raises :class:`~autotune.errors.InvalidArgumentError` (one model per algorithm: a BFS model
    cannot pick an SSSP config), which the fast path does not turn into a fallback."""
    from . import model as model_mod

    if model is False:
        return None, "disabled"
    if model is None:
        path = model_mod.default_model_path(algorithm)
        if path is None:
            return None, f"no {algorithm} model at {model_mod.DEFAULT_MODEL_RELPATHS[algorithm]}"
        mdl, where = model_mod.load_model(path, device_name=device_name), str(path)
    elif isinstance(model, (str, os.PathLike)):
        mdl, where = model_mod.load_model(model, device_name=device_name), os.fspath(model)
    elif hasattr(model, "predict_config"):
        mdl, where = model, "given"
    else:
        raise TypeError(f"model must be None, False, a path or a SelectionModel, got {type(model).__name__}")
    if model_mod.model_algorithm(mdl) not in (None, algorithm):
        raise InvalidArgumentError(f"the selection model ({where}) selects {model_mod.model_algorithm(mdl)} configs, "
                                   f"not {algorithm} ones (one model per algorithm); give an {algorithm} model, e.g. "
                                   f"{model_mod.DEFAULT_MODEL_RELPATHS[algorithm]}, or none")
    return mdl, where


def _predict(model, features, where: str = "given", rule: str = "the Table-2 rules") -> TraversalConfig | None:
    """The model's config for *features*, or None (with a warning naming the model and the reason)
    when the model cannot predict: a label config this release cannot build, or a model whose
    estimator or features do not fit this release (an incompatible pickle). *rule* names the
    fallback in the warning (the Delta rule for SSSP)."""
    try:
        return model.predict_config(features)
    except ValueError as exc:  # label config not valid in this release
        warnings.warn(f"the selection model ({where}) predicted a config this release cannot build ({exc}); "
                      f"falling back to {rule}; retrain it with 'autotune retrain LOGS --out PATH'",
                      UserWarning, stacklevel=3)
    except (TypeError, KeyError, AttributeError, IndexError) as exc:  # an incompatible model object
        warnings.warn(f"the selection model ({where}) does not fit this release "
                      f"({exc.__class__.__name__}: {exc}); falling back to {rule}; retrain it with "
                      f"'autotune retrain LOGS --out PATH' or pass --no-model", UserWarning, stacklevel=3)
    return None


def _predict_for(model, features, where: str, algorithm: str) -> TraversalConfig | None:
    """:func:`_predict` for *algorithm* (the rule of that algorithm named in warnings).

    Raises
    ------
    InvalidArgumentError
        When the model predicts a config of another algorithm (a model that did not say which it
        selects for, see :func:`autotune.model.model_algorithm`).
    """
    cfg = _predict(model, features, where, _RULE_TEXT[algorithm])
    if cfg is not None and cfg.algorithm != algorithm:
        raise InvalidArgumentError(f"the selection model ({where}) predicted a {cfg.algorithm} config ({cfg.label}) "
                                   f"for an {algorithm} tuning (one model per algorithm)")
    return cfg


def _ranked_for(model, features, where: str, algorithm: str, k: int) -> list:
    """The model's *k* most promising configs of *algorithm* (its prediction first), for a search's
    first trials: ``model.predict_configs`` when the model ranks (:class:`~autotune.model.SelectionModel`),
    else its one prediction (:func:`_predict_for`); [] when it cannot predict (the warning says why).

    Raises
    ------
    InvalidArgumentError
        When the model ranks configs of another algorithm.
    """
    if k > 1 and hasattr(model, "predict_configs"):
        try:
            ranked = list(model.predict_configs(features, k))
        except (ValueError, TypeError, KeyError, AttributeError, IndexError):
            ranked = None  # _predict_for says why in its warning
        if ranked:
            wrong = [c for c in ranked if c.algorithm != algorithm]
            if wrong:
                raise InvalidArgumentError(f"the selection model ({where}) ranked a {wrong[0].algorithm} config "
                                           f"({wrong[0].label}) for an {algorithm} tuning (one model per algorithm)")
            return ranked
    cfg = _predict_for(model, features, where, algorithm)
    return [] if cfg is None else [cfg]


def _device(device, runner_factory) -> dict | None:
    from ._backend import device_properties, gpu_available

    if device is not None:
        return dict(device)
    if gpu_available():
        return device_properties()
    if runner_factory is not None:
        from .sweep import host_device

        return host_device()
    return None


def tune(graph, n_trials: int | None = None, *, storage: str | None = None, study_name: str | None = None,
         timeout: float | None = None, retune: bool = False, model=None, n_sources: int = 16, seed: int = 0,
         log=None, runner_factory: Callable | None = None, progress: bool = True, device: dict | None = None,
         prune_factor: float = 1.5, algorithm: str = "bfs", n_ranked: int = DEFAULT_N_RANKED) -> TraversalConfig:
    """The fastest config of *algorithm* (BFS or SSSP) for *graph*: model prediction (fast path) or
    an Optuna search.

    Parameters
    ----------
    graph : CSRGraph or anything :func:`autotune.load_graph` accepts
    n_trials : int, optional
        None: fast path (profile + model prediction, or without a model the algorithm's rule: paper
        000's Table 2 for BFS, paper 003's Delta rule for SSSP). An integer: search until the study
        holds this many finished trials (complete, pruned or invalid; trials of an interrupted run
        that did not finish are not counted), or until every config of the algorithm's space was
        tried.
    storage : str, optional
        Optuna storage URL; default :func:`default_storage` (SQLite under ``~/.cache/autotune``).
        ``postgresql://user:pw@host/db`` lets several workers share one study.
    study_name : str, optional
        Default :func:`study_name_for` (graph name, fingerprint, GPU model).
    timeout : float, optional
        Stop the search after this many seconds (the study stays resumable).
    retune : bool, default False
        Search again even when a finished search exists for this graph on this GPU model (in a new
        study ``<name>-retune<i>`` when the name is taken).
    model : SelectionModel, path, None or False
        None: the shipped model when present (:func:`autotune.model.default_model_path`); False: no
        model (Table-2 rules).
    n_sources : int, default 16
        Sources per trial (the measurement protocol's search default).
    seed : int, default 0
        Seed of the sources and of the TPE sampler.
    log : str, os.PathLike or LogWriter, optional
        Benchmark log of the search's measurements (default :func:`default_log_path`).
    runner_factory : callable ``(graph, config) -> Runner``, optional
        What trials time (default: GPU runners validated against the CPU reference). Tests inject
        replayed timings.
    progress : bool, default True
        Progress bar with the best so far (search).
    device : dict, optional
        Device dict to log and to key stored results by (default: the current GPU's properties).
    prune_factor : float, default 1.5
        A trial whose median on the first quarter of the sources exceeds this factor times the best
        complete trial's is pruned.
    n_ranked : int, default DEFAULT_N_RANKED (4)
        Search only: how many of the model's most promising configs
        (:meth:`autotune.model.SelectionModel.predict_configs`) are measured first — its pick, then
        the algorithm's rule (Table 2, or the Delta rule for SSSP), then the model's next
        ``n_ranked - 1`` — before the sampler proposes (as many of them as ``n_trials`` allows), so
        ``tune(g, n_trials=5)`` measures the model's four best-ranked configs and the rule and keeps
        the fastest. Replayed from the H200 log it beats the prediction alone on graphs of families
        the model never saw; measured on an H200 it matched it (README, "A short search seeded by
        the model").
    algorithm : {'bfs', 'sssp'}, default 'bfs'
        The traversal to tune (one selection model and one study per algorithm). ``"sssp"``: the
        fast path loads the SSSP model (``models/sssp_h200.joblib``, or ``$AUTOTUNE_SSSP_MODEL``);
        while none is shipped it returns :data:`autotune.sssp_rules.DEFAULT_SSSP_CONFIG`
        (Delta-stepping at delta = delta_0 on the binary search, paper 003's rule) with a
        :class:`UserWarning` saying so. The search samples the SSSP space (method, then delta
        when the method has buckets, then the technique's knobs; ``push`` only) and enqueues the
        model's pick and the Delta rule as its first trials; unweighted graphs run with unit weights.

    Returns
    -------
    TraversalConfig
        With ``config.algorithm == algorithm``.

    Raises
    ------
    GPUUnavailableError
        Search without a GPU (and without a *runner_factory*).
    InvalidArgumentError
        On an unknown *algorithm*, or an *n_ranked* that is not a positive integer.
    ModelError
        When *model* (a path or an object) selects configs of another algorithm.
    SearchError
        When every trial of the search failed, or *study_name* belongs to another graph or times its
        trials on other sources (another *n_sources* or *seed*).

    Examples
    --------
    >>> cfg = tune("roadNet-CA.txt.gz")                               # doctest: +SKIP
    >>> cfg = tune(g, n_trials=60, storage="postgresql://u:p@db/autotune")   # doctest: +SKIP
    >>> cfg = tune("kron:scale=16,weights=int:1:255", algorithm="sssp")      # doctest: +SKIP
    """
    return tune_detailed(graph, n_trials, storage=storage, study_name=study_name, timeout=timeout, retune=retune,
                         model=model, n_sources=n_sources, seed=seed, log=log, runner_factory=runner_factory,
                         progress=progress, device=device, prune_factor=prune_factor, algorithm=algorithm,
                         n_ranked=n_ranked).config


def tune_detailed(graph, n_trials: int | None = None, *, storage: str | None = None, study_name: str | None = None,
                  timeout: float | None = None, retune: bool = False, model=None, n_sources: int = 16, seed: int = 0,
                  log=None, runner_factory: Callable | None = None, progress: bool = True, device: dict | None = None,
                  prune_factor: float = 1.5, algorithm: str = "bfs", n_ranked: int = DEFAULT_N_RANKED) -> TuneResult:
    """:func:`tune`, returning a :class:`TuneResult` (how the config was chosen, timings, study).

    Parameters and raised errors are those of :func:`tune`.
    """
    from .features import profile
    from .graph import CSRGraph, load_graph

    _check_algorithm(algorithm)
    if n_trials is not None and (isinstance(n_trials, bool) or int(n_trials) < 1):
        raise InvalidArgumentError(f"n_trials must be a positive integer or None, got {n_trials!r}")
    try:
        ok = not isinstance(n_ranked, bool) and operator.index(n_ranked) >= 1
    except TypeError:
        ok = False
    if not ok:
        raise InvalidArgumentError(f"n_ranked must be a positive integer, got {n_ranked!r}")
    g = graph if isinstance(graph, CSRGraph) else load_graph(graph)
    if n_trials is not None and runner_factory is None:
        from ._backend import require_gpu

        require_gpu("autotune tune --trials (search)")
    dev = _device(device, runner_factory)
    t0 = time.perf_counter()
    feats = profile(g)
    profile_ms = (time.perf_counter() - t0) * 1e3
    base = dict(graph=g.name, fingerprint=g.fingerprint, features=feats, device=dev["name"] if dev else None,
                profile_ms=profile_ms)
    url = storage or default_storage()

    if n_trials is None:
        t1 = time.perf_counter()
        if dev is not None and not retune:
            hit = stored_best(g, dev["name"], url, algorithm=algorithm)
            if hit is not None:
                cfg, ms, name = hit
                return TuneResult(cfg, "stored", best_ms=ms, study=name, storage=url,
                                  select_ms=(time.perf_counter() - t1) * 1e3,
                                  message=f"best of the finished search {name!r} for this graph on {dev['name']}",
                                  **base)
        from .sssp_rules import BASELINE_NAMES, baseline_rule

        rule_text = _RULE_TEXT[algorithm]
        broken = None
        try:
            mdl, where = _resolve_model(model, dev["name"] if dev else None, algorithm)
        except ModelError as exc:  # corrupt or incompatible model file: the rules still answer
            mdl, where, broken = None, getattr(exc, "path", None) or "model", exc
        cfg = _predict_for(mdl, feats, where, algorithm) if mdl is not None else None
        if cfg is not None:
            return TuneResult(cfg, "model", select_ms=(time.perf_counter() - t1) * 1e3,
                              message=f"predicted by the selection model ({where})", **base)
        cfg = baseline_rule(algorithm, feats, dev)
        if broken is not None:
            msg = f"selection model not used: {broken}; using {rule_text} instead"
        elif mdl is not None:
            msg = f"the selection model ({where}) could not predict a config of this release; using {rule_text} instead"
        else:
            msg = f"no selection model ({where}): using {rule_text}; " + _TRAIN_HINT[algorithm]
        if broken is not None or mdl is None:
            warnings.warn(msg, UserWarning, stacklevel=3)
        return TuneResult(cfg, BASELINE_NAMES[algorithm], select_ms=(time.perf_counter() - t1) * 1e3, message=msg,
                          **base)

    return _search(g, feats, int(n_trials), base=base, url=url, study_name=study_name, timeout=timeout,
                   retune=retune, model=model, n_sources=n_sources, seed=seed, log=log,
                   runner_factory=runner_factory, progress=progress, device=dev, prune_factor=prune_factor,
                   algorithm=algorithm, n_ranked=int(n_ranked))


class _InvalidConfig(Exception):
    """Raised inside an objective: the config failed or gave a wrong result (a failed trial)."""


def _merge(m1, m2):
    from .measure import Measurement

    if m2 is None:
        return m1
    return Measurement(m1.name, m1.sources + m2.sources, m1.times_ms + m2.times_ms, m1.edges + m2.edges,
                       m1.depths + m2.depths, m1.timer, valid=m1.valid and m2.valid, error=m1.error or m2.error,
                       extra={**m1.extra, **m2.extra})


def _search(g, feats, n_trials, *, base, url, study_name, timeout, retune, model, n_sources, seed, log,
            runner_factory, progress, device, prune_factor, algorithm="bfs", n_ranked=DEFAULT_N_RANKED) -> TuneResult:
    try:
        import optuna
    except ImportError as exc:  # pragma: no cover - optuna is in the 'search' and 'test' extras
        raise ImportError("the search (tune with n_trials) needs Optuna: pip install 'autotune-bfs[search]'") from exc
    from optuna.trial import TrialState

    from .logs import LogWriter, make_record
    from .measure import Measurement, measure, select_sources
    from .sweep import ValidatedGPURunner

    t_start = time.perf_counter()
    dev_name = device["name"]
    st = _storage(url, create=True)
    optuna.logging.set_verbosity(optuna.logging.WARNING)

    # 1. a finished search for this graph on this GPU model answers at once
    if not retune:
        hit = stored_best(g, dev_name, url, study_name=study_name, algorithm=algorithm)
        if hit is not None:
            cfg, ms, name = hit
            study = optuna.load_study(study_name=name, storage=st)
            if study_name is None or len(_counted(study.get_trials(deepcopy=False))) >= n_trials:
                return TuneResult(cfg, "stored", best_ms=ms, study=name, storage=url, n_trials=len(
                    _counted(study.get_trials(deepcopy=False))), select_ms=(time.perf_counter() - t_start) * 1e3,
                    message=f"best of the finished search {name!r} (use retune=True to search again)", **base)

    # 2. the study to run (created, resumed, or a fresh one for a re-tune)
    name = study_name or study_name_for(g, dev_name, algorithm)
    existing = set(optuna.get_all_study_names(st))
    if retune and name in existing:
        i = 1
        while f"{name}-retune{i}" in existing:
            i += 1
        name = f"{name}-retune{i}"
    sampler = _trial_seeded_tpe(seed)
    study = optuna.create_study(storage=st, study_name=name, direction="minimize", sampler=sampler,
                                pruner=_optuna_pruner(SlowTrialPruner(prune_factor)), load_if_exists=True)
    attrs = _study_attrs(study)
    if attrs and (attrs.get("fingerprint") != g.fingerprint or attrs.get("device") != dev_name):
        raise SearchError(f"study {name!r} belongs to graph {attrs.get('graph')!r} ({attrs.get('fingerprint')}) on "
                          f"{attrs.get('device')!r}, not to {g.name!r} ({g.fingerprint}) on {dev_name!r}; "
                          f"choose another study name")
    if attrs and attrs.get("algorithm", "bfs") != algorithm:
        raise SearchError(f"study {name!r} searches {attrs.get('algorithm', 'bfs')} configs, not {algorithm} ones "
                          f"(one study per algorithm); choose another study name")
    if attrs and (attrs.get("n_sources", n_sources), attrs.get("seed", seed)) != (n_sources, seed):
        # every trial of a study is timed on the same sources, or the pruner and the best compare apples to pears
        raise SearchError(f"study {name!r} times its trials on n_sources={attrs.get('n_sources')} sources of "
                          f"seed={attrs.get('seed')}, not n_sources={n_sources}, seed={seed}: run every worker of "
                          f"a study with the same n_sources and seed")
    if not attrs:
        from . import __version__

        study.set_user_attr("autotune", {"fingerprint": g.fingerprint, "graph": g.name, "spec": g.spec,
                                         "device": dev_name, "version": __version__, "complete": False,
                                         "n_trials": n_trials, "n_sources": n_sources, "seed": seed,
                                         "algorithm": algorithm})

    # 3. first trials: the model's prediction and the algorithm's rule (Table 2 for BFS, paper 003's
    #    Delta rule for SSSP)
    from .sssp_rules import BASELINE_NAMES, baseline_rule

    candidates = []
    try:
        mdl, _where = _resolve_model(model, dev_name, algorithm)
    except InvalidArgumentError:  # a model of another algorithm: the caller's mistake, not a broken file
        raise
    except AutotuneError as exc:  # a missing or broken model file must not stop a search
        warnings.warn(f"selection model not used for the first trial: {exc}", UserWarning, stacklevel=3)
        mdl, _where = None, None
    ranked = _ranked_for(mdl, feats, _where, algorithm, n_ranked) if mdl is not None else []
    # trials an interruption left unfinished run first (before the seeds: they were proposed first)
    _recover_interrupted(study)
    seeds = [("model", ranked[0] if ranked else None), (BASELINE_NAMES[algorithm], baseline_rule(algorithm, feats, device))]
    seeds += [(f"model-{i}", cfg) for i, cfg in enumerate(ranked[1:], start=2)]
    for source, cfg in seeds:
        if cfg is None or any(c["config_id"] == cfg.config_id for c in candidates):
            continue
        if len(candidates) >= n_trials:  # a seed that could not run within n_trials is not queued
            break
        candidates.append({"source": source, "config_id": cfg.config_id, "label": cfg.label})
        # a seed is always measured when n_trials allows: queued unless measured already, queued, or
        # running (an interrupted seed was re-queued above)
        if not _config_pending_or_done(study.get_trials(deepcopy=False), cfg):
            study.enqueue_trial(config_params(cfg), user_attrs={"enqueued": source})

    sources = select_sources(g, n_sources, seed)
    k = max(1, len(sources) // 4)
    factory = runner_factory or ValidatedGPURunner(g)
    own_writer = not isinstance(log, LogWriter)
    writer = LogWriter(log if log is not None else default_log_path()) if own_writer else log
    # without an argument for BFS: tests substitute count_configs() for a restricted BFS-only table
    n_configs = _n_configs() if algorithm == "bfs" else _n_configs(algorithm)

    def record(cfg, m, trial, pruned=False):
        origin = {"command": "tune", "study": name, "trial": trial.number}
        if pruned:
            origin["pruned"] = True
        writer.write(make_record(g, feats, cfg, m, device, origin, n_sources=n_sources, seed=seed,
                                 spec=g.spec or g.name))

    worker = _worker_identity()
    duplicates_in_a_row = [0]

    def objective(trial):
        trial.set_user_attr("worker", worker)  # first: an interruption from here on is this worker's
        # BFS as before SSSP existed: tests wrap suggest_config(trial) to record what a worker proposed
        cfg = suggest_config(trial) if algorithm == "bfs" else suggest_config(trial, algorithm)
        trial.set_user_attr("config", cfg.to_dict())
        trial.set_user_attr("config_id", cfg.config_id)
        # a config already measured in this study (by any worker) is answered from the study: the
        # trial is marked duplicate_of and does not count toward n_trials
        for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL)):
            if t.number == trial.number or t.user_attrs.get("config_id") != cfg.config_id:
                continue
            if t.state == TrialState.COMPLETE and t.value is not None:
                trial.set_user_attr("duplicate_of", t.number)
                duplicates_in_a_row[0] += 1
                return float(t.value)
            if t.state == TrialState.PRUNED:
                trial.set_user_attr("duplicate_of", t.number)
                duplicates_in_a_row[0] += 1
                raise optuna.TrialPruned(f"same config as pruned trial {t.number}")
            if "error" in t.user_attrs:
                trial.set_user_attr("duplicate_of", t.number)
                trial.set_user_attr("error", t.user_attrs["error"])
                duplicates_in_a_row[0] += 1
                raise _InvalidConfig(t.user_attrs["error"])
        duplicates_in_a_row[0] = 0
        try:
            runner = factory(g, cfg)
        except Exception as exc:
            m = Measurement(cfg.label, [int(s) for s in sources], [], [], [], "none", valid=False,
                            error=f"{exc.__class__.__name__}: {exc}")
        else:
            m = measure(runner, sources[:k], validate=True)
            if m.valid:
                trial.report(m.median_ms, step=len(m.times_ms))
                if len(sources) > k and trial.should_prune():
                    trial.set_user_attr("median_ms_partial", m.median_ms)
                    record(cfg, m, trial, pruned=True)
                    raise optuna.TrialPruned(f"median {m.median_ms:.4g} ms on {k} sources: clearly slower than "
                                             f"the best")
                if len(sources) > k:
                    m = _merge(m, measure(runner, sources[k:], warmup=0, validate=True))
        record(cfg, m, trial)
        if not m.valid:
            trial.set_user_attr("error", m.error or "invalid result")
            raise _InvalidConfig(m.error)
        trial.set_user_attr("median_ms", m.median_ms)
        trial.set_user_attr("gteps", m.gteps)
        trial.report(m.median_ms, step=len(m.times_ms))
        return float(m.median_ms)

    def counted_now():
        return _counted(study.get_trials(deepcopy=False))

    def stop_when_done(study_, _trial):
        done = counted_now()
        if (len(done) >= n_trials or len({t.user_attrs.get("config_id") for t in done}) >= n_configs
                or duplicates_in_a_row[0] >= _MAX_DUPLICATES_IN_A_ROW):
            study_.stop()

    if n_trials > int(_study_attrs(study).get("n_trials") or 0):
        study.set_user_attr("autotune", {**_study_attrs(study), "n_trials": n_trials})
    remaining = n_trials - len(counted_now())
    tried = {t.user_attrs.get("config_id") for t in counted_now()}
    bar = _SearchProgress(progress, max(remaining, 0), g.name)
    try:
        if remaining > 0 and len(tried) < n_configs:
            with bar:
                study.optimize(objective, n_trials=None, timeout=timeout, catch=(_InvalidConfig,),
                               callbacks=[stop_when_done, bar.callback])
    finally:
        if own_writer:
            writer.close()
    done = counted_now()
    finished = len(done) >= n_trials or len({t.user_attrs.get("config_id") for t in done}) >= n_configs
    best = _best_of(study)
    if finished:
        a = dict(_study_attrs(study))
        a["complete"] = best is not None
        study.set_user_attr("autotune", a)
    if best is None:
        errors = sorted({t.user_attrs["error"] for t in done if "error" in t.user_attrs})
        if not done:
            raise SearchError(f"no trial finished in study {name!r}"
                              + (f" within the timeout of {timeout} s" if timeout is not None else "")
                              + "; run again to resume")
        raise SearchError(f"no valid config found in study {name!r} ({len(done)} trials); errors: "
                          + ("; ".join(errors[:5]) if errors else "none recorded (all pruned?)"))
    cfg, ms, number = best
    return TuneResult(cfg, "search", best_ms=ms, study=name, storage=url, n_trials=len(done), candidates=candidates,
                      select_ms=(time.perf_counter() - t_start) * 1e3,
                      message=f"best of {len(done)} trials (trial {number}) in study {name!r}"
                              + ("" if finished else
                                 " — stopped early: the sampler proposed only configs measured already; run again "
                                 "to resume" if duplicates_in_a_row[0] >= _MAX_DUPLICATES_IN_A_ROW else
                                 " — stopped early; run again to resume"), **base)


class _SearchProgress:
    """rich progress bar over trials, its description showing the best so far."""

    def __init__(self, enabled: bool, total: int, graph_name: str):
        self.enabled = bool(enabled) and total > 0
        self.total = total
        self.graph_name = graph_name
        self._p = None
        self._task = None

    def __enter__(self):
        if self.enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._p = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
            self._p.__enter__()
            self._task = self._p.add_task(f"tune {self.graph_name}", total=self.total)
        return self

    def __exit__(self, *exc):
        if self._p is not None:
            self._p.__exit__(*exc)

    def callback(self, study, trial) -> None:
        if self._p is None:
            return
        best = _best_of(study)
        desc = f"tune {self.graph_name}"
        if best is not None:
            desc += f" | best {best[1]:.4g} ms {best[0].label}"
        counted = _is_counted(trial)  # a repeated config answered from the study spends no trial
        self._p.update(self._task, advance=1 if counted else 0, description=desc)
