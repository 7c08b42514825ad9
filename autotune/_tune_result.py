"""The result of ``autotune tune`` (:class:`TuneResult`), in a module of its own so that the CLI's
fast path (profile and model prediction, :mod:`autotune.cli_tuning`) builds one without importing
:mod:`autotune.search` and the search machinery; :mod:`autotune.search` re-exports it."""
from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["TuneResult", "DEFAULT_N_RANKED"]

#: How many of the selection model's ranked configs a search measures first (``tune(...,
#: n_ranked=)``, ``autotune tune --trials N --ranked K``): its pick, the rule, then its next three.
DEFAULT_N_RANKED = 4


@dataclass
class TuneResult:
    """What :func:`autotune.search.tune_detailed` did.

    Attributes
    ----------
    config : TraversalConfig
        The chosen config.
    method : str
        ``"model"`` (fast path, model prediction), ``"table2"`` (BFS fast path, no model: paper
        000's rules), ``"delta_rule"`` (SSSP fast path, no model: paper 003's Delta rule),
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
        Enqueued first trials: ``{"source": "model"|"table2"|"delta_rule", "config_id", "label"}``.
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
