"""``tune(graph)``: pick the fastest BFS strategy for a graph — instantly from a model, or by a search.

Fast path (``n_trials=None``)
    Profile the graph (:func:`autotune.features.profile`, on the GPU when there is one, else on the
    CPU) and let the selection model (:mod:`autotune.model`; by default the shipped
    ``models/bfs_h100.joblib``) predict the config. With no model it falls back to the rules of
    paper 000's Table 2 (:func:`table2_rule`) and says so (a :class:`UserWarning`). On a GPU
    machine, a config already found by a search for this graph on this GPU model (in the default
    or the given storage) is returned instead.

Search (``n_trials=N``)
    An Optuna study, define-by-run over the rows of the config table
    (:data:`autotune.config._FIELDS`; conditional fields are only suggested when they apply, so new
    techniques and knobs are searched without code changes), seeded ``TPESampler``. The model's
    prediction and the Table-2 config are enqueued as the first trials. Every trial is timed by the
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
    on the same GPU model gets its stored best at once unless ``retune=True``. An interrupted study
    (killed, Ctrl-C) resumes where it stopped: finished trials are kept and only the rest run.
"""
from __future__ import annotations

import functools
import math
import os
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

from .config import TraversalConfig, _FIELDS, count_configs
from .errors import AutotuneError
from .features import GraphFeatures

__all__ = [
    "tune", "tune_detailed", "TuneResult", "table2_rule", "TABLE2_SUPPORT_RULES", "IRREGULAR_DEGREE_CV",
    "suggest_config", "config_params", "SlowTrialPruner", "SearchError", "stored_best", "default_storage",
    "cache_dir", "default_log_path", "study_name_for",
]

# ============================================================================ paper 000, Table 2
#: Warp size of NVIDIA GPUs (threshold of warp-based gathering).
WARP_SIZE = 32

#: Degree coefficient of variation (std / mean) above which a graph counts as "very irregular"
#: and gets the device-wide binary search (Busato & Bombieri §3.3: it "provides the best load
#: balancing in case of very irregular workloads (i.e., graphs with high standard deviation)" but
#: is "not suitable in case of regular workloads").
IRREGULAR_DEGREE_CV = 1.0

#: Resident threads assumed when no device is known (NVIDIA H100 SXM: 132 SMs × 2048 threads).
_DEFAULT_RESIDENT_THREADS = 132 * 2048


def _resident_threads(device: Mapping[str, Any] | None) -> int:
    if device and device.get("sm_count") and device.get("max_threads_per_sm"):
        return int(device["sm_count"]) * int(device["max_threads_per_sm"])
    return _DEFAULT_RESIDENT_THREADS


#: Table 2 of Busato & Bombieri (*Efficient load balancing techniques for graph traversal
#: applications on GPUs*): ``(field, rule text, predicate(features, config, device))``. A support
#: strategy is switched on when its rule holds, and only if the config table has that field and it
#: applies to the chosen technique (the supports combine with vertex- and scan-based mapping, not
#: with the binary search). Fields not in this release's table are skipped, so the rules take
#: effect as soon as the supports are added to :data:`autotune.config._FIELDS`.
TABLE2_SUPPORT_RULES: tuple = (
    ("warp_gathering", "max degree > warp size",
     lambda f, cfg, dev: f.degree_max > WARP_SIZE),
    ("block_gathering", "max degree > block size",
     lambda f, cfg, dev: f.degree_max > int(getattr(cfg, "block_size", 256))),
    ("supplementary_queues", "max degree > half the device threads",
     lambda f, cfg, dev: f.degree_max > _resident_threads(dev) // 2),
)


def _as_features(features) -> GraphFeatures:
    if isinstance(features, GraphFeatures):
        return features
    if isinstance(features, Mapping):
        return GraphFeatures.from_dict(dict(features))
    raise TypeError(f"expected GraphFeatures or a dict of features, got {type(features).__name__}")


def _switch_value(allowed: tuple, on: bool):
    """The allowed value meaning on/off for a support field, else None.

    ``True``/``False`` or ``'on'``/``'off'``; for a threshold field whose values are ``'off'``
    followed by thresholds (e.g. ``('off', 32, 128)``), "on" is the first threshold, the paper's
    default (warp size, block size, half the resident threads).
    """
    for cand in ((True, "on") if on else (False, "off")):
        if any(type(a) is type(cand) and a == cand for a in allowed):
            return cand
    if on and len(allowed) > 1 and allowed[0] == "off":
        return allowed[1]
    return None


def table2_rule(features, device: Mapping[str, Any] | None = None) -> TraversalConfig:
    """The config paper 000's rules give for a graph (no model, no measurement).

    Rules (Busato & Bombieri, *Efficient load balancing techniques for graph traversal applications
    on GPUs*), applied to the fields of this release's config table:

    1. **Technique** (§3.3): ``binary_search`` when the degree distribution is very irregular —
       ``degree_std / degree_mean > IRREGULAR_DEGREE_CV`` (1.0) — else ``vertex_mapped``.
    2. **Virtual warp size** (§3.1: "the thread group size is set depending on the average degree
       of the graphs, smaller warp sizes for graphs with lower average degrees"; Hong et al.): for
       ``vertex_mapped``, the power of two nearest to the mean degree in log scale,
       ``2 ** round(log2(degree_mean))``, clamped to [1, 32].
    3. **Support strategies** (Table 2, :data:`TABLE2_SUPPORT_RULES`): warp-based gathering when
       max degree > warp size (32), block-based gathering when max degree > block size,
       supplementary queues when max degree > half the device's resident threads — each only when
       the config table has the field and it applies to the technique.
    4. Every other field keeps its default (block size 256, push).

    Parameters
    ----------
    features : GraphFeatures or dict
        The graph's profile (:func:`autotune.features.profile`).
    device : dict, optional
        ``sm_count`` and ``max_threads_per_sm`` for the supplementary-queue threshold (default: an
        H100, 132 × 2048 resident threads).

    Returns
    -------
    TraversalConfig

    Examples
    --------
    >>> from autotune.features import GraphFeatures
    >>> road = dict(n_vertices=10**6, n_edges=2_400_000, directed=False, degree_mean=2.4, degree_std=0.9,
    ...             degree_gini=0.2, degree_max=9, degree_min=1, leaf_fraction=0.1, degree_p50=2.0,
    ...             degree_p90=4.0, degree_p99=4.0, isolated_fraction=0.0, eccentricity_mean=3000.0,
    ...             eccentricity_max=3500)
    >>> cfg = table2_rule(road)
    >>> cfg.load_balance, cfg.virtual_warp_size
    ('vertex_mapped', 2)
    """
    f = _as_features(features)
    lb_allowed = _FIELDS["load_balance"].allowed
    cv = f.degree_std / f.degree_mean if f.degree_mean > 0 else 0.0
    lb = "binary_search" if cv > IRREGULAR_DEGREE_CV and "binary_search" in lb_allowed else "vertex_mapped"
    cfg = TraversalConfig(load_balance=lb)
    if "virtual_warp_size" in _FIELDS and getattr(cfg, "virtual_warp_size", None) is not None:
        vw = 2 ** int(round(math.log2(max(f.degree_mean, 1.0))))
        vw = int(min(max(vw, 1), WARP_SIZE))
        if vw in _FIELDS["virtual_warp_size"].allowed:
            cfg = cfg.with_(virtual_warp_size=vw)
    for name, _text, rule in TABLE2_SUPPORT_RULES:
        spec = _FIELDS.get(name)
        if spec is None:
            continue
        value = _switch_value(spec.allowed, bool(rule(f, cfg, device)))
        if value is None:
            continue
        try:
            cfg = cfg.with_(**{name: value})
        except ValueError:  # the support does not apply to this technique
            pass
    return cfg


# ============================================================================ search space
@functools.lru_cache(maxsize=1)
def _n_configs() -> int:
    """Number of distinct configs of the table (the search stops once all were tried)."""
    return count_configs()


def suggest_config(trial) -> TraversalConfig:
    """Suggest a :class:`TraversalConfig` on an Optuna trial, define-by-run over the config table.

    Walks :data:`autotune.config._FIELDS` in order; a field is suggested
    (``trial.suggest_categorical(name, allowed)``) only when it applies given the values chosen so
    far (e.g. ``virtual_warp_size`` only for ``vertex_mapped``, ``min_virtual_warp_size`` only for
    dynamic warps), else it takes its neutral ``None``.

    Parameters
    ----------
    trial : optuna.trial.Trial

    Returns
    -------
    TraversalConfig
    """
    values: dict[str, Any] = {}
    for name, spec in _FIELDS.items():
        values[name] = trial.suggest_categorical(name, list(spec.allowed)) if spec.applies(values) else None
    return TraversalConfig(**values)


def config_params(config: TraversalConfig) -> dict:
    """Optuna parameters of *config* (its applicable fields), for ``study.enqueue_trial``."""
    return {k: v for k, v in config.to_dict().items() if v is not None}


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


def cache_dir() -> Path:
    """autotune's cache folder: ``$AUTOTUNE_CACHE_DIR``, else ``$XDG_CACHE_HOME/autotune``, else ``~/.cache/autotune``."""
    env = os.environ.get("AUTOTUNE_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "autotune"


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
            kw["heartbeat_stale_trial_callback"] = storages.RetryHeartbeatStaleTrialCallback(max_retry=1)
        else:  # Optuna < 4.9
            kw["failed_trial_callback"] = storages.RetryFailedTrialCallback(max_retry=1)
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


def study_name_for(graph, device_name: str) -> str:
    """Default study name: ``bfs:<graph name>:<12 hex of the fingerprint>:<device name>``."""
    fp = graph.fingerprint.split(":", 1)[-1][:12]
    return f"bfs:{graph.name}:{fp}:{device_name}"


def _study_attrs(summary_or_study) -> dict:
    return dict(getattr(summary_or_study, "user_attrs", {}) or {}).get("autotune", {}) or {}


def _counted(trials) -> list:
    """Finished trials that count toward ``n_trials``: complete, pruned, or failed with an error
    (invalid config); trials failed by an interruption do not count."""
    from optuna.trial import TrialState

    return [t for t in trials if t.state in (TrialState.COMPLETE, TrialState.PRUNED)
            or (t.state == TrialState.FAIL and "error" in t.user_attrs)]


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
                study_name: str | None = None):
    """The best config a finished search found for this graph on this GPU model, if any.

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


# ============================================================================ results
@dataclass
class TuneResult:
    """What :func:`tune_detailed` did.

    Attributes
    ----------
    config : TraversalConfig
        The chosen config.
    method : str
        ``"model"`` (fast path, model prediction), ``"table2"`` (fast path, no model),
        ``"stored"`` (best of a finished search for this graph and GPU model) or ``"search"``.
    graph : str
        Graph name.
    fingerprint : str
    features : GraphFeatures
    device : str or None
        GPU model (None on a CPU-only fast path).
    profile_ms : float
        Profiling cost, ms.
    select_ms : float
        Cost of the selection after profiling (model load + predict, or the search), ms.
    best_ms : float or None
        Median time of the config (search / stored), ms.
    study : str or None
        Study name (search / stored).
    storage : str or None
    n_trials : int
        Trials counted in the study (search).
    candidates : list of dict
        Enqueued first trials: ``{"source": "model"|"table2", "config_id", "label"}``.
    message : str
        One line saying how the config was chosen.
    """

    config: TraversalConfig
    method: str
    graph: str
    fingerprint: str
    features: GraphFeatures
    device: str | None = None
    profile_ms: float = 0.0
    select_ms: float = 0.0
    best_ms: float | None = None
    study: str | None = None
    storage: str | None = None
    n_trials: int = 0
    candidates: list = field(default_factory=list)
    message: str = ""

    def to_dict(self) -> dict:
        """JSON-ready dict (config as its dict, features as their dict)."""
        return {"graph": self.graph, "fingerprint": self.fingerprint, "method": self.method,
                "config": self.config.to_dict(), "config_id": self.config.config_id, "label": self.config.label,
                "device": self.device, "profile_ms": self.profile_ms, "select_ms": self.select_ms,
                "best_ms": self.best_ms, "study": self.study, "storage": self.storage, "n_trials": self.n_trials,
                "candidates": self.candidates, "message": self.message, "features": self.features.to_dict()}


# ============================================================================ tune
def _resolve_model(model, device_name: str | None = None):
    """(SelectionModel or None, description). ``model``: None = shipped default, False = none, path, or model.
    Loading warns when the model was trained for another GPU model than *device_name*."""
    from . import model as model_mod

    if model is False:
        return None, "disabled"
    if model is None:
        path = model_mod.default_model_path()
        if path is None:
            return None, f"no model at {model_mod.DEFAULT_MODEL_RELPATH}"
        return model_mod.load_model(path, device_name=device_name), str(path)
    if isinstance(model, (str, os.PathLike)):
        return model_mod.load_model(model, device_name=device_name), os.fspath(model)
    if hasattr(model, "predict_config"):
        return model, "given"
    raise TypeError(f"model must be None, False, a path or a SelectionModel, got {type(model).__name__}")


def _predict(model, features) -> TraversalConfig | None:
    try:
        return model.predict_config(features)
    except ValueError as exc:  # label config not valid in this release
        warnings.warn(f"the selection model predicted a config this release cannot build ({exc}); "
                      f"falling back to the Table-2 rules", UserWarning, stacklevel=3)
        return None


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
         prune_factor: float = 1.5) -> TraversalConfig:
    """The fastest BFS config for *graph*: model prediction (fast path) or an Optuna search.

    Parameters
    ----------
    graph : CSRGraph or anything :func:`autotune.load_graph` accepts
    n_trials : int, optional
        None: fast path (profile + model prediction, or the Table-2 rules without a model). An
        integer: search until the study holds this many finished trials (complete, pruned or
        invalid; trials of an interrupted run that did not finish are not counted), or until every
        config of the table was tried.
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

    Returns
    -------
    TraversalConfig

    Raises
    ------
    GPUUnavailableError
        Search without a GPU (and without a *runner_factory*).
    SearchError
        When every trial of the search failed, or *study_name* belongs to another graph or times its
        trials on other sources (another *n_sources* or *seed*).

    Examples
    --------
    >>> cfg = tune("roadNet-CA.txt.gz")                               # doctest: +SKIP
    >>> cfg = tune(g, n_trials=60, storage="postgresql://u:p@db/autotune")   # doctest: +SKIP
    """
    return tune_detailed(graph, n_trials, storage=storage, study_name=study_name, timeout=timeout, retune=retune,
                         model=model, n_sources=n_sources, seed=seed, log=log, runner_factory=runner_factory,
                         progress=progress, device=device, prune_factor=prune_factor).config


def tune_detailed(graph, n_trials: int | None = None, *, storage: str | None = None, study_name: str | None = None,
                  timeout: float | None = None, retune: bool = False, model=None, n_sources: int = 16, seed: int = 0,
                  log=None, runner_factory: Callable | None = None, progress: bool = True, device: dict | None = None,
                  prune_factor: float = 1.5) -> TuneResult:
    """:func:`tune`, returning a :class:`TuneResult` (how the config was chosen, timings, study).

    Parameters and raised errors are those of :func:`tune`.
    """
    from .features import profile
    from .graph import CSRGraph, load_graph

    if n_trials is not None and (isinstance(n_trials, bool) or int(n_trials) < 1):
        raise ValueError(f"n_trials must be a positive integer or None, got {n_trials!r}")
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
            hit = stored_best(g, dev["name"], url)
            if hit is not None:
                cfg, ms, name = hit
                return TuneResult(cfg, "stored", best_ms=ms, study=name, storage=url,
                                  select_ms=(time.perf_counter() - t1) * 1e3,
                                  message=f"best of the finished search {name!r} for this graph on {dev['name']}",
                                  **base)
        mdl, where = _resolve_model(model, dev["name"] if dev else None)
        cfg = _predict(mdl, feats) if mdl is not None else None
        if cfg is not None:
            return TuneResult(cfg, "model", select_ms=(time.perf_counter() - t1) * 1e3,
                              message=f"predicted by the selection model ({where})", **base)
        cfg = table2_rule(feats, dev)
        msg = (f"no selection model ({where}): using the Table-2 rules of Busato & Bombieri; train one with "
               f"'autotune sweep --corpus models/corpus.txt --out logs/corpus.jsonl' then "
               f"'autotune retrain logs/corpus.jsonl --out models/bfs_h100.joblib'")
        warnings.warn(msg, UserWarning, stacklevel=3)
        return TuneResult(cfg, "table2", select_ms=(time.perf_counter() - t1) * 1e3, message=msg, **base)

    return _search(g, feats, int(n_trials), base=base, url=url, study_name=study_name, timeout=timeout,
                   retune=retune, model=model, n_sources=n_sources, seed=seed, log=log,
                   runner_factory=runner_factory, progress=progress, device=dev, prune_factor=prune_factor)


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
            runner_factory, progress, device, prune_factor) -> TuneResult:
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
        hit = stored_best(g, dev_name, url, study_name=study_name)
        if hit is not None:
            cfg, ms, name = hit
            study = optuna.load_study(study_name=name, storage=st)
            if study_name is None or len(_counted(study.get_trials(deepcopy=False))) >= n_trials:
                return TuneResult(cfg, "stored", best_ms=ms, study=name, storage=url, n_trials=len(
                    _counted(study.get_trials(deepcopy=False))), select_ms=(time.perf_counter() - t_start) * 1e3,
                    message=f"best of the finished search {name!r} (use retune=True to search again)", **base)

    # 2. the study to run (created, resumed, or a fresh one for a re-tune)
    name = study_name or study_name_for(g, dev_name)
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
    if attrs and (attrs.get("n_sources", n_sources), attrs.get("seed", seed)) != (n_sources, seed):
        # every trial of a study is timed on the same sources, or the pruner and the best compare apples to pears
        raise SearchError(f"study {name!r} times its trials on n_sources={attrs.get('n_sources')} sources of "
                          f"seed={attrs.get('seed')}, not n_sources={n_sources}, seed={seed}: run every worker of "
                          f"a study with the same n_sources and seed")
    if not attrs:
        from . import __version__

        study.set_user_attr("autotune", {"fingerprint": g.fingerprint, "graph": g.name, "spec": g.spec,
                                         "device": dev_name, "version": __version__, "complete": False,
                                         "n_trials": n_trials, "n_sources": n_sources, "seed": seed})

    # 3. first trials: the model's prediction and the Table-2 rule
    candidates = []
    try:
        mdl, _where = _resolve_model(model, dev_name)
    except Exception as exc:  # a broken model file must not stop a search
        warnings.warn(f"selection model not used for the first trial: {exc}", UserWarning, stacklevel=3)
        mdl = None
    pred = _predict(mdl, feats) if mdl is not None else None
    for source, cfg in (("model", pred), ("table2", table2_rule(feats, device))):
        if cfg is None or any(c["config_id"] == cfg.config_id for c in candidates):
            continue
        candidates.append({"source": source, "config_id": cfg.config_id, "label": cfg.label})
        study.enqueue_trial(config_params(cfg), user_attrs={"enqueued": source}, skip_if_exists=True)

    sources = select_sources(g, n_sources, seed)
    k = max(1, len(sources) // 4)
    factory = runner_factory or ValidatedGPURunner(g)
    own_writer = not isinstance(log, LogWriter)
    writer = LogWriter(log if log is not None else default_log_path()) if own_writer else log
    n_configs = _n_configs()

    def record(cfg, m, trial, pruned=False):
        origin = {"command": "tune", "study": name, "trial": trial.number}
        if pruned:
            origin["pruned"] = True
        writer.write(make_record(g, feats, cfg, m, device, origin, n_sources=n_sources, seed=seed,
                                 spec=g.spec or g.name))

    def objective(trial):
        cfg = suggest_config(trial)
        trial.set_user_attr("config", cfg.to_dict())
        trial.set_user_attr("config_id", cfg.config_id)
        # a config already measured in this study (by any worker) is not measured again
        for t in study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL)):
            if t.number == trial.number or t.user_attrs.get("config_id") != cfg.config_id:
                continue
            if t.state == TrialState.COMPLETE and t.value is not None:
                trial.set_user_attr("duplicate_of", t.number)
                return float(t.value)
            if t.state == TrialState.PRUNED:
                trial.set_user_attr("duplicate_of", t.number)
                raise optuna.TrialPruned(f"same config as pruned trial {t.number}")
            if "error" in t.user_attrs:
                trial.set_user_attr("duplicate_of", t.number)
                trial.set_user_attr("error", t.user_attrs["error"])
                raise _InvalidConfig(t.user_attrs["error"])
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
        if len(done) >= n_trials or len({t.user_attrs.get("config_id") for t in done}) >= n_configs:
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
                              + ("" if finished else " — stopped early; run again to resume"), **base)


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
        self._p.update(self._task, advance=1, description=desc)
