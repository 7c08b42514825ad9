"""The selection model: graph features → the config that runs the graph fastest.

Training data come from benchmark logs (:mod:`autotune.logs`): for each graph (fingerprint) on one
GPU model, the median time of every config measured on it. The **label** of a graph is its fastest
valid config; configs within ``label_tolerance`` (default 2 %, about the run-to-run noise of a
GPU measurement) of the fastest are ties, resolved toward the config that is near-fastest on the
most training graphs (then the fastest), so that equivalent configs do not split one class into
many. **Features** are the logged profile (:data:`autotune.features.FEATURE_NAMES`, heavy-tailed
ones as ``log1p``) plus two ratios derived from it (:data:`DERIVED_FEATURES`): the mean number of
edges and of vertices per BFS level, ``log((n_edges + 1) / (eccentricity_mean + 1))`` and the same
with ``n_vertices``. They measure the work and the frontier of a typical level, which decide
whether a level fits the single-block kernel (``frontier_limit`` 2048) or needs the grid-wide paths;
a tree would need many axis-aligned splits of the separate logarithms to approximate a ratio from a
few dozen graphs, and without them the persistent-vs-single-block choice caused the worst regrets
(up to 2.8x on long chains of small cliques, 2x on road networks).

The estimator is a seeded random forest (Breiman 2001), and the **decision is cost-sensitive**:
the forest defines adaptive nearest-neighbour weights
``w_i(x) = mean over trees of [graph i is in x's leaf] / (graphs in that leaf)`` (Lin & Jeon 2006,
*JASA* 101:578; Meinshausen 2006, *JMLR* 7:983), and the predicted config is the candidate config
with the smallest weighted mean **log regret** ``log(time(config) / time(best))`` over the training
graphs, i.e. the Bayes decision for the estimated conditional expected cost (Elkan 2001, IJCAI)
with the same cost as the evaluation's geometric mean. A majority vote counts a config that is 2 %
slower on a neighbour like one that is 3x slower; the cost-weighted decision does not, which is
what matters where classes are near-ties on some graphs and far apart on others.

**The forest's splits are grown on the costs too** (the default since the H200 model of 64
configs): a multi-output regression forest is fitted to every training graph's vector of log
regrets of the candidate configs (the labels and every config measured on all training graphs),
each capped at ``log(``:data:`REGRET_TARGET_CAP```)``, so that a split separates graphs on which
*different configs are near-best*, not graphs of different label ids (two labels that are near-ties
everywhere no longer force a split, and a config that is 1.3x slower is told from one 1.02x slower).
The cap keeps the squared error of the splits from being spent on how bad the hopeless configs are
(a 10x config against a 5x one). On the H200 BFS log of the staged-append kernels (129 graphs, 64
configs, 16 families; seeds 0-2) this gives leave-one-graph-out geomean 1.046-1.055 / worst 1.50-1.72,
leave-one-family-out 1.056-1.059 / 1.546 and, on the 16 real graphs alone, 1.072-1.087,
against 1.053-1.059 / 1.538, 1.068-1.071 / 1.546 and 1.111-1.115 with classification trees grown on
the labels (``notebooks/figures/selection_variants_stage_h200.jsonl``). Without the cap (plain log
regrets) the regression forest was worse than the classifier on the previous log (leave-one-family-out
worst 2.42). A classifier given as ``estimator`` (or the default without timings) is grown on the
labels as before (the previous SSSP model's: ``autotune retrain --estimator random_forest``; the
shipped SSSP model, retrained on all 60 corpus graphs, is the regression forest too). Fitted without
timings, or with an estimator that has no ``apply`` (no leaves), the model falls back to the
estimator's own vote (``decision_ == "vote"``).

Evaluation is leave-one-graph-out **regret**: for each graph, a model trained on the other graphs
predicts its config and ``regret = time(predicted) / time(best)`` is read from that graph's logged
times (1.0 = the best). The table reports the geometric mean, the worst case and the share of
graphs within 5 % of the best, beside three baselines: the best single fixed config (chosen on the
training folds), the rules of paper 000's Table 2 (:func:`autotune.table2.table2_rule`), and a
random pick (expected regret over the configs measured on the graph). A predicted config that was
not measured on the held-out graph counts as that graph's slowest measured config (pessimistic);
one that is invalid there counts as infinite regret. A baseline is never estimated: a graph whose
rule config (or best fixed config) was not measured is reported as missing for that baseline
(``n_missing``) and left out of its summary; :func:`autotune.sweep.sweep` measures the rule config
of every graph, so new logs have none missing.

Leave-one-graph-out flatters a corpus of generator families: a neighbour from the same generator
is always in the training folds. :func:`evaluate` therefore also reports **leave-one-family-out**
regret (``cv["lofo"]``): every graph of a family (a generator, or the real graphs of one kind,
:func:`autotune.sweep.graph_family`; logged as ``graph.family`` by the sweep, derived from the
graph's spec or name for older logs) is predicted by a model trained on the other families only.
The real graphs get their own summaries (``cv["real"]``), and every summary also counts the
near-ties: a pick within ``label_tolerance`` of the best (the run-to-run noise the labels already
treat as ties) is a tie (``n_ties``; ``geomean_ties`` counts such picks as regret 1).

**Models per GPU.** Model files are named ``<algorithm>_<gpu>.joblib`` (``bfs_h100``, ``bfs_h200``,
``sssp_h200``); :func:`choose_model_file` picks the one of the GPU in use, else one of the same
architecture (H100 and H200 are both sm_90), else any, with the text of the warning to give once;
:func:`default_model_path` applies it to the shipped models for the current GPU (``$AUTOTUNE_MODEL`` /
``$AUTOTUNE_SSSP_MODEL`` override it) and gives that warning once per process (:func:`warn_once`).

**One model per algorithm and GPU family.** BFS and SSSP are separate models, each trained only on
its own records (log schema 2's ``algorithm``; schema-1 lines are BFS): ``models/bfs_<gpu>.joblib``
(the profile of :data:`autotune.features.FEATURE_NAMES`) and ``models/sssp_<gpu>.joblib`` (the same
plus the weight statistics, :data:`autotune.features.SSSP_FEATURE_NAMES`), each with its JSON
metadata naming its ``algorithm``. The labels of the two are configs of different spaces (an SSSP
config also picks the method and the Delta scale), and what is fast differs (SSSP's phases and
re-relaxations depend on the weights), so one model with the algorithm as a feature would only
learn to split on it first. For SSSP the rule baseline of the regret table is paper 003's Delta rule
(:func:`autotune.sssp_rules.delta_rule`: Delta-stepping at delta = delta_0 on the default
technique) instead of Table 2, which only knows BFS's knobs.

Models are saved with joblib plus a JSON metadata file next to them (same stem, ``.json``): feature
names, labels with their full configs, the decision rule, library versions, device, SHA-256 of the
logs, and the CV regret table. :func:`load_model` warns when the scikit-learn version or the GPU
model differ.
"""
from __future__ import annotations

import functools
import json
import math
import operator
import os
import platform
import warnings
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from ._files import model_candidates as _model_candidates, model_dirs as _model_dirs
from .features import FEATURE_ALIASES, FEATURE_NAMES, GraphFeatures

try:  # scikit-learn is a runtime dependency; the base classes give get_params/clone/score
    from sklearn.base import BaseEstimator, ClassifierMixin
except ImportError:  # pragma: no cover
    BaseEstimator, ClassifierMixin = object, object

__all__ = [
    "SelectionModel", "retrain", "load_model", "save_model", "default_model_path", "DEFAULT_MODEL_RELPATH",
    "TrainingSet", "build_training_set", "evaluate", "regret_rows", "METADATA_FORMAT", "estimator_from_metadata",
    "metadata_path", "DERIVED_FEATURES", "DECISIONS", "DEFAULT_MODEL_RELPATHS", "MODEL_ENV_VARS", "model_algorithm",
    "select_algorithm", "default_feature_names", "feature_names_v2", "choose_model_file", "gpu_tag", "gpu_arch",
    "GPU_ARCHITECTURES", "warn_once", "current_device_name", "regret_report", "CV_SECTIONS", "FOREST_MAX_FEATURES",
    "REGRET_TARGET_CAP", "CLI_ESTIMATORS", "cli_estimator", "ONE_LAUNCH_PATHS", "one_launch_path", "one_launch_summary",
    "measure_rounds", "calibrated_direction",
]

#: The shipped model, relative to the repository root (or to the installed package).
DEFAULT_MODEL_RELPATH = "models/bfs_h200.joblib"

#: The shipped model of each algorithm (one model per algorithm and GPU family), relative to the
#: repository root (or the installed package). The SSSP model is trained on an H200's sweep of
#: ``models/corpus_sssp.txt``; until it is committed, ``tune(graph, algorithm="sssp")`` falls back to
#: the Delta rule (:func:`autotune.sssp_rules.delta_rule`) with a warning.
DEFAULT_MODEL_RELPATHS: dict[str, str] = {"bfs": DEFAULT_MODEL_RELPATH, "sssp": "models/sssp_h200.joblib"}

#: Environment variable overriding the shipped model of each algorithm (a path; a missing file
#: means no model).
MODEL_ENV_VARS: dict[str, str] = {"bfs": "AUTOTUNE_MODEL", "sssp": "AUTOTUNE_SSSP_MODEL"}

#: Version of the JSON metadata layout.
METADATA_FORMAT = 1

_REPO = Path(__file__).resolve().parent.parent

#: Model inputs derived from the profile: ``name -> (numerator, denominator)``, both log-scaled
#: profile features, so the column is ``log1p(numerator) - log1p(denominator)`` (a log ratio). Mean
#: edges per BFS level (the work of a typical level) and mean vertices per level (its frontier).
DERIVED_FEATURES: dict[str, tuple[str, str]] = {
    "edges_per_level": ("n_edges", "eccentricity_mean"),
    "vertices_per_level": ("n_vertices", "eccentricity_mean"),
}

#: Share of the design columns each split of the default forest draws from (scikit-learn's default
#: for classifiers is ``"sqrt"``: 5 of the 25 BFS columns). With 5, most splits must choose among
#: columns that only separate generator families (size, degree scale), and such splits do not carry
#: over to a family the forest has not seen: leave-one-family-out on the H200 BFS log (129 graphs,
#: 16 families, seeds 0-2) gives geomean 1.052-1.058 / worst 1.50-1.53 with half of the columns
#: against 1.064-1.068 / 2.33-2.49 with ``"sqrt"`` (0.7 and all columns behave like 0.5; a third is
#: in between), leave-one-graph-out staying within seed noise (the log of the 58 configs before the six
#: large-block ones; with all 64 the two are within seed noise of each other: README, "Shipped model").
FOREST_MAX_FEATURES = 0.5

#: Regret at which the targets of the regression forest are capped (see the module docstring): the
#: splits learn which configs are within 1.2x of the best, not how slow the others are. On the H200
#: BFS log (staged-append kernels; seeds 0-2) a cap of 1.2 gives leave-one-family-out 1.056-1.059 /
#: 1.546 and real graphs 1.072-1.087, a cap of 1.5 gives 1.060-1.064 / 1.61-1.72 and 1.073-1.087; on
#: the previous log 1.2, 1.35 and 1.5 were within noise (1.045-1.047 / 1.557), 2 gave 1.055 / 1.740,
#: 3 gave 1.057 / 1.616 and no cap 1.070 / 2.420; on the shipped log (hub graphs re-swept after the
#: persistent kernel's block-balanced hub form; seeds 0-1) caps 1.1, 1.2, 1.35, 1.5 and 2 give
#: leave-one-family-out 1.055-1.061 / 2.33-2.46, all within the seeds' spread.
REGRET_TARGET_CAP = 1.2

#: Decision rules of :class:`SelectionModel`.
DECISIONS = ("regret", "vote")

#: Log regret charged for a config that was invalid on a training graph: far beyond any measured
#: regret, so such a config is chosen only when every candidate failed on the neighbouring graphs.
_INVALID_LOG_REGRET = math.log(1e3)

#: Regret methods in table order (a table holds the rule baseline of its algorithm: ``table2`` for
#: BFS, ``delta_rule`` for SSSP; see :data:`autotune.sssp_rules.BASELINE_NAMES`).
_METHODS = ("model", "best_fixed", "table2", "delta_rule", "random")
_METHOD_TITLES = {"model": "selection model", "best_fixed": "best single fixed config",
                  "table2": "Table-2 rules (paper 000)",
                  "delta_rule": "Delta rule (paper 003: Delta-stepping, delta = delta_0)",
                  "random": "random pick (expected)"}


# ============================================================================ estimator
class SelectionModel(ClassifierMixin, BaseEstimator):
    """Selector from graph features to the ``config_id`` of the fastest config.

    scikit-learn estimator contract: constructor arguments are stored unchanged; :meth:`fit` sets
    the fitted attributes (ending in ``_``); :meth:`predict` maps feature rows to labels.

    The estimator sees the feature columns plus the :data:`DERIVED_FEATURES` whose inputs are among
    them. With ``decision="regret"`` and the training graphs' timings (``times=`` in :meth:`fit`),
    :meth:`predict` returns the candidate with the smallest expected log regret under the forest's
    adaptive nearest-neighbour weights (see the module docstring for the rationale and references);
    otherwise it returns the estimator's own prediction (a vote).

    Parameters
    ----------
    estimator : sklearn classifier or regressor, optional
        Unfitted estimator to clone and fit. A classifier is fitted to the labels; a regressor (needs
        ``decision="regret"`` and ``times``) to the training graphs' log regrets of the candidate
        configs, capped at ``log(REGRET_TARGET_CAP)``. Default, with timings and the regret
        decision: ``RandomForestRegressor(n_estimators=200, min_samples_leaf=1,
        max_features=FOREST_MAX_FEATURES, random_state=random_state)``; else
        ``RandomForestClassifier`` with the same parameters. The regret decision needs its leaves
        (``apply``: a tree or a forest of trees).
    feature_names : sequence of str, default FEATURE_NAMES
        Names of the columns of ``X`` (see :meth:`GraphFeatures.vector`).
    random_state : int, default 0
        Seed of the default estimator.
    decision : {"regret", "vote"}, default "regret"
        ``"regret"``: cost-sensitive decision (needs ``times`` in :meth:`fit`); ``"vote"``: the
        estimator's ``predict``.
    risk : float, default 0.0
        Risk aversion of the regret decision (``>= 0``): a candidate's score is the forest-weighted
        mean of the neighbours' log regrets plus ``risk`` times their forest-weighted standard
        deviation, so a config that is near-best on most neighbours but far off on some ranks below one
        that is a little slower everywhere (a mean-variance choice, Markowitz, "Portfolio Selection",
        J. Finance 7(1), 1952). 0: the mean alone. :meth:`predict_regret` stays the mean.

    Attributes
    ----------
    estimator_ : sklearn classifier or regressor
        The fitted estimator.
    classes_ : ndarray of str, shape (n_classes,)
        Configs :meth:`predict` chooses from (config ids, sorted): the labels seen in training, and
        with a regression forest also every config measured (valid) on all training graphs.
    n_features_in_ : int
        Number of features.
    feature_names_in_ : ndarray of str, shape (n_features_in_,)
    design_names_ : ndarray of str, shape (n_design,)
        Columns the estimator sees: ``feature_names_in_`` then the derived features.
    decision_ : str
        The decision rule in use: ``"regret"``, or ``"vote"`` (asked for, or no timings given, or an
        estimator without leaves).
    train_leaves_ : ndarray of int, shape (n_train, n_leaf_columns)
        Leaf of every training graph in every tree (``decision_ == "regret"`` only).
    train_log_regret_ : ndarray of float, shape (n_train, n_classes)
        ``log(time(class) / time(best))`` of every class on every training graph; a class not
        measured on a graph counts as its slowest measured config, an invalid one as regret 1000
        (``decision_ == "regret"`` only).
    label_configs_ : dict of str to dict
        ``config_id -> TraversalConfig.to_dict()`` for every class (set by :func:`retrain`, or by
        the ``label_configs`` argument of :meth:`fit`).
    regressor_ : bool
        Whether ``estimator_`` is a regression forest grown on the capped log regrets.
    metadata_ : dict
        The JSON metadata (set by :func:`retrain` and :func:`load_model`).
    """

    def __init__(self, estimator=None, feature_names: Sequence[str] = FEATURE_NAMES, random_state: int = 0,
                 decision: str = "regret", risk: float = 0.0):
        self.estimator = estimator
        self.feature_names = feature_names
        self.random_state = random_state
        self.decision = decision
        self.risk = risk

    def __setstate__(self, state):
        # models saved before ``risk`` existed decide by the mean alone
        state = dict(state)
        state.setdefault("risk", 0.0)
        super().__setstate__(state)

    def _make_estimator(self, regress: bool = False):
        """A fresh estimator: a clone of ``estimator``, else the default forest (a regression forest
        when *regress*, i.e. with timings and the regret decision; else a classification forest)."""
        from sklearn.base import clone
        from sklearn.ensemble import RandomForestClassifier, RandomForestRegressor

        if self.estimator is None:
            cls = RandomForestRegressor if regress else RandomForestClassifier
            return cls(n_estimators=200, min_samples_leaf=1, max_features=FOREST_MAX_FEATURES,
                       random_state=self.random_state)
        return clone(self.estimator)

    def fit(self, X, y, label_configs: Mapping[str, Mapping] | None = None,
            times: Sequence[Mapping[str, float]] | None = None,
            invalid: Sequence[set] | None = None) -> "SelectionModel":
        """Fit on feature rows *X* and labels *y* (and the graphs' timings, for the regret decision).

        Parameters
        ----------
        X : array_like, shape (n_graphs, n_features), float64
            Feature vectors (:meth:`GraphFeatures.vector` with ``feature_names``).
        y : array_like of str, shape (n_graphs,)
            Label (``config_id``) of each graph.
        label_configs : mapping, optional
            ``config_id -> config dict`` for the labels (needed by :meth:`predict_config`).
        times : sequence of mapping, optional
            Per graph, ``config_id -> time`` (ms) of its valid measurements
            (:attr:`TrainingSet.times`). Needed by ``decision="regret"``; without it the model votes.
        invalid : sequence of set, optional
            Per graph, config ids that were invalid on it (:attr:`TrainingSet.invalid`).

        Returns
        -------
        SelectionModel
            self

        Raises
        ------
        ValueError
            On shape mismatch, fewer than one sample, non-finite features, an unknown ``decision``,
            timings that do not cover every graph, or a regressor given as ``estimator`` without
            timings, with ``decision="vote"`` or without leaves (``apply``).
        """
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y).astype(str)
        if X.ndim != 2 or X.shape[0] != y.shape[0] or X.shape[0] < 1:
            raise ValueError(f"X must be (n_graphs, n_features) with one label per row; got X {X.shape}, y {y.shape}")
        if X.shape[1] != len(self.feature_names):
            raise ValueError(f"X has {X.shape[1]} columns but {len(self.feature_names)} feature names")
        if not np.isfinite(X).all():
            raise ValueError("X holds non-finite values")
        if self.decision not in DECISIONS:
            raise ValueError(f"decision must be one of {', '.join(DECISIONS)}; got {self.decision!r}")
        if isinstance(self.risk, bool) or not isinstance(self.risk, (int, float, np.integer, np.floating)) \
                or not math.isfinite(float(self.risk)) or float(self.risk) < 0.0:
            raise ValueError(f"risk must be a finite number >= 0; got {self.risk!r}")
        if times is not None and len(times) != X.shape[0]:
            raise ValueError(f"times has {len(times)} entries for {X.shape[0]} graphs")
        self.n_features_in_ = X.shape[1]
        self.feature_names_in_ = np.asarray(self.feature_names, dtype=object)
        self.design_names_ = np.asarray(list(self.feature_names) + [d for d, (a, b) in DERIVED_FEATURES.items()
                                                                    if a in self.feature_names
                                                                    and b in self.feature_names], dtype=object)
        Xd = self._design(X)
        from sklearn.base import is_regressor

        costs = self.decision == "regret" and times is not None
        regress = is_regressor(self.estimator) if self.estimator is not None else costs
        if regress and not costs:
            raise ValueError("a regressor as estimator needs decision='regret' and the graphs' times")
        if regress and self.estimator is not None and not hasattr(self.estimator, "apply"):  # the default has it
            raise ValueError("a regressor as estimator must be a tree or a forest of trees (it needs 'apply')")
        for attr in ("train_leaves_", "train_log_regret_"):
            if hasattr(self, attr):
                delattr(self, attr)
        self.regressor_ = bool(regress)
        if regress:
            common = set.intersection(*(set(t) for t in times))
            self.classes_ = np.asarray(sorted(set(y) | common))
            log_regret = _log_regret_matrix(times, invalid, self.classes_)
            target = np.minimum(log_regret, math.log(REGRET_TARGET_CAP))
            self.estimator_ = self._make_estimator(regress=True).fit(Xd, target)
        else:
            self.estimator_ = self._make_estimator().fit(Xd, y)
            self.classes_ = np.asarray(self.estimator_.classes_)
        self.decision_ = "vote"
        if costs and hasattr(self.estimator_, "apply"):
            self.train_leaves_ = self._leaves(Xd)
            self.train_log_regret_ = log_regret if regress else _log_regret_matrix(times, invalid, self.classes_)
            self.decision_ = "regret"
        if label_configs is not None:
            self.label_configs_ = {str(k): dict(v) for k, v in label_configs.items()}
        elif not hasattr(self, "label_configs_"):
            self.label_configs_ = {}
        return self

    def _check_fitted(self):
        if not hasattr(self, "estimator_"):
            from sklearn.exceptions import NotFittedError

            raise NotFittedError("this SelectionModel is not fitted yet; call fit() or use retrain()")

    def _design(self, X: np.ndarray) -> np.ndarray:
        """The estimator's input: *X* plus the derived columns of ``design_names_``."""
        names = list(self.feature_names_in_)
        extra = [X[:, names.index(DERIVED_FEATURES[d][0])] - X[:, names.index(DERIVED_FEATURES[d][1])]
                 for d in getattr(self, "design_names_", names)[len(names):]]
        return np.column_stack([X, *extra]) if extra else X

    def _leaves(self, Xd: np.ndarray) -> np.ndarray:
        """Leaf index of every row in every tree, shape (n_rows, n_leaf_columns)."""
        leaves = np.asarray(self.estimator_.apply(Xd))
        return leaves.reshape(leaves.shape[0], -1)

    def _checked(self, X) -> np.ndarray:
        self._check_fitted()
        X = np.asarray(X, dtype=np.float64)
        if X.ndim == 1:
            X = X[None, :]
        if X.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {X.shape[1]} features, the model expects {self.n_features_in_}")
        return self._design(X)

    def _expected_log_regret(self, Xd: np.ndarray, risk: float = 0.0) -> np.ndarray:
        """Forest-weighted mean of the training graphs' log regrets, shape (n_rows, n_classes), plus
        *risk* times their forest-weighted standard deviation when *risk* > 0 (the decision score)."""
        train = self.train_leaves_
        out = np.empty((Xd.shape[0], self.classes_.size))
        for r, leaves in enumerate(self._leaves(Xd)):
            same = train == leaves[None, :]             # (n_train, n_trees): shares that tree's leaf
            size = same.sum(axis=0)
            keep = size > 0                             # a leaf always holds an in-bag graph; be safe
            w = (same[:, keep] / size[keep]).sum(axis=1)
            total = max(w.sum(), 1e-300)
            out[r] = w @ self.train_log_regret_ / total
            if risk > 0.0:
                var = w @ (self.train_log_regret_ - out[r][None, :]) ** 2 / total
                out[r] = out[r] + risk * np.sqrt(np.maximum(var, 0.0))
        return out

    def _decision_score(self, Xd: np.ndarray) -> np.ndarray:
        """What the regret decision minimizes, shape (n_rows, n_classes): the expected log regret plus
        ``risk`` times its standard deviation over the neighbours."""
        return self._expected_log_regret(Xd, float(self.risk))

    def predict(self, X) -> np.ndarray:
        """Labels (``config_id``) for feature rows.

        Parameters
        ----------
        X : array_like, shape (n_graphs, n_features_in_)

        Returns
        -------
        ndarray of str, shape (n_graphs,)
            With ``decision_ == "regret"``, the class of smallest score: the log of
            :meth:`predict_regret` plus ``risk`` times the neighbours' standard deviation of it (ties:
            the first in :attr:`classes_`); else the estimator's prediction.
        """
        Xd = self._checked(X)
        if getattr(self, "decision_", "vote") == "regret":
            return self.classes_[np.argmin(self._decision_score(Xd), axis=1)].astype(str)
        return np.asarray(self.estimator_.predict(Xd)).astype(str)

    def predict_regret(self, X) -> np.ndarray:
        """Estimated regret of every class: ``exp`` of the forest-weighted mean log regret.

        Parameters
        ----------
        X : array_like, shape (n_graphs, n_features_in_)

        Returns
        -------
        ndarray, shape (n_graphs, n_classes)
            Columns in :attr:`classes_` order; 1.0 = the class was the fastest on every neighbour.

        Raises
        ------
        ValueError
            When the model votes (``decision_ == "vote"``: no timings were given to :meth:`fit`).
        """
        Xd = self._checked(X)
        if getattr(self, "decision_", "vote") != "regret":
            raise ValueError("this model votes (fitted without timings or leaves); it has no regret estimate")
        return np.exp(self._expected_log_regret(Xd))

    def predict_proba(self, X) -> np.ndarray:
        """The estimator's class probabilities, shape (n_graphs, n_classes), columns in :attr:`classes_` order.

        Raises
        ------
        ValueError
            With a regression forest (``regressor_``): it has no class probabilities; use
            :meth:`predict_regret`.
        """
        Xd = self._checked(X)
        if getattr(self, "regressor_", False):
            raise ValueError("this model's forest regresses the configs' regrets: it has no class probabilities; "
                             "use predict_regret")
        return self.estimator_.predict_proba(Xd)

    def features_row(self, features) -> np.ndarray:
        """The model input of one graph: ``features.vector(feature_names_in_)``, shape (1, n_features_in_)."""
        self._check_fitted()
        return _feature_vector(features, tuple(self.feature_names_in_))[None, :]

    def predict_config(self, features):
        """The predicted :class:`~autotune.config.TraversalConfig` for one graph.

        Parameters
        ----------
        features : GraphFeatures or dict

        Returns
        -------
        TraversalConfig

        Raises
        ------
        ValueError
            When the predicted label's config is unknown to the model or invalid in this release.
        """
        from .config import TraversalConfig

        label = str(self.predict(self.features_row(features))[0])
        d = getattr(self, "label_configs_", {}).get(label)
        if d is None:
            raise ValueError(f"label {label!r} has no stored config (fit with label_configs=...)")
        cfg = TraversalConfig.from_dict(d)
        if cfg.config_id != label:
            # the config table changed since training: same strategy, new id; still a valid config
            warnings.warn(f"config {cfg.label} had id {label} when the model was trained and is "
                          f"{cfg.config_id} now (the config table changed); retrain the model", UserWarning,
                          stacklevel=2)
        return cfg

    def rank_labels(self, features) -> np.ndarray:
        """Every class for one graph, the most promising first.

        With ``decision_ == "regret"`` by increasing decision score (:meth:`predict`'s: the log of
        :meth:`predict_regret` plus ``risk`` standard deviations; ties: the order of
        :attr:`classes_`, so the first is :meth:`predict`'s label); else by decreasing
        :meth:`predict_proba` (the estimator's vote).

        Parameters
        ----------
        features : GraphFeatures or dict

        Returns
        -------
        ndarray of str, shape (n_classes,)
        """
        X = self.features_row(features)
        if getattr(self, "decision_", "vote") == "regret":
            order = np.argsort(self._decision_score(self._checked(X))[0], kind="stable")
        else:
            order = np.argsort(-np.asarray(self.predict_proba(X))[0], kind="stable")
        return self.classes_[order].astype(str)

    def predict_configs(self, features, k: int) -> list:
        """The *k* most promising configs for one graph, best first: what a short search measures.

        A search seeded with these (``tune(graph, n_trials, n_ranked=k)``) measures the model's
        alternatives before its sampler proposes any (README, "A short search seeded by the model":
        what that gains over the prediction alone, replayed from the log and measured on a GPU).

        Parameters
        ----------
        features : GraphFeatures or dict
        k : int
            How many configs (at least 1); fewer when the model knows fewer buildable configs.

        Returns
        -------
        list of TraversalConfig
            Distinct configs in the order of :meth:`rank_labels`; the first is
            :meth:`predict_config`'s when that one can be built. Labels whose stored config this
            release cannot build are skipped (a :class:`UserWarning` counts them).

        Raises
        ------
        ValueError
            When *k* < 1, or when no label of the first ones can be built.
        """
        from .config import TraversalConfig

        try:
            n = 0 if isinstance(k, bool) else operator.index(k)
        except TypeError:
            n = 0
        if n < 1:
            raise ValueError(f"k must be a positive integer, got {k!r}")
        out, seen, bad, changed = [], set(), [], []
        for label in self.rank_labels(features):
            d = getattr(self, "label_configs_", {}).get(str(label))
            try:
                if d is None:
                    raise ValueError("no stored config")
                cfg = TraversalConfig.from_dict(d)
            except ValueError as exc:
                bad.append(f"{label} ({exc})")
                continue
            if cfg.config_id != label:
                changed.append(label)
            if cfg.config_id in seen:
                continue
            seen.add(cfg.config_id)
            out.append(cfg)
            if len(out) == n:
                break
        if bad:
            warnings.warn(f"{len(bad)} of the model's ranked labels cannot be built in this release and were skipped "
                          f"(first: {bad[0]}); retrain the model", UserWarning, stacklevel=2)
        if changed:
            warnings.warn(f"{len(changed)} ranked configs changed ids since the model was trained (the config table "
                          f"changed; first: {changed[0]}); retrain the model", UserWarning, stacklevel=2)
        if not out:
            raise ValueError("none of the model's labels has a config this release can build")
        return out


def _log_regret_matrix(times: Sequence[Mapping[str, float]], invalid: Sequence[set] | None,
                       classes: Sequence[str]) -> np.ndarray:
    """``log(time(c) / time(best))`` per graph and class (:func:`_graph_regret`: unmeasured counts as
    the graph's slowest measured time); invalid: :data:`_INVALID_LOG_REGRET`."""
    out = np.empty((len(times), len(classes)))
    for i, t in enumerate(times):
        if not t:
            raise ValueError(f"graph {i} has no valid time")
        bad = invalid[i] if invalid is not None else ()
        for k, c in enumerate(classes):
            r, how = _graph_regret(t, bad, str(c))
            out[i, k] = _INVALID_LOG_REGRET if how == "invalid" else math.log(r)
    return out


def _known_feature_keys() -> set:
    """Keys :meth:`GraphFeatures.from_dict` reads: its fields and the old names of
    :data:`~autotune.features.FEATURE_ALIASES`."""
    import dataclasses

    return {f.name for f in dataclasses.fields(GraphFeatures)} | set(FEATURE_ALIASES)


def _as_graph_features(features) -> GraphFeatures:
    if isinstance(features, GraphFeatures):
        return features
    known = _known_feature_keys()
    return GraphFeatures.from_dict({k: v for k, v in dict(features).items() if k in known})


def _feature_vector(features, names: Sequence[str]) -> np.ndarray:
    return _as_graph_features(features).vector(names)


# ============================================================================ data
@dataclass
class TrainingSet:
    """Per-graph timings of one device, built from benchmark logs by :func:`build_training_set`.

    Attributes
    ----------
    X : ndarray, shape (n_graphs, n_features), float64
        Feature vectors (log-scaled as in :meth:`GraphFeatures.vector`).
    graphs : list of dict
        ``name``, ``fingerprint``, ``spec``, ``features`` (dict) and ``family`` (the logged
        ``graph.family``, else :func:`autotune.sweep.graph_family` of the spec and name) per graph,
        sorted by fingerprint; ``one_launch`` (``{path: configs}``) on a graph whose configs ran a
        one-launch kernel (:func:`_delivered_and_fit_times`).
    times : list of dict
        Per graph, ``config_id -> median time (ms)`` of its valid measurements (median over
        records when a pair was measured more than once): what a config delivers, the time that
        regrets charge. A config with a record of a one-launch kernel is charged that kernel's
        time, one time shared by the graph's configs that ran it (:func:`_delivered_and_fit_times`).
    invalid : list of set
        Per graph, config ids that gave an invalid result there (and never a valid one).
    configs : dict
        ``config_id -> config dict`` for every config seen.
    device : dict
        Device of the records (the first record's device dict).
    feature_names : tuple of str
    n_records : int
        Records used.
    algorithm : {'bfs', 'sssp'}
        The traversal of every record (one model per algorithm).
    fit_times : list of dict or None
        Per graph, the timings the model is fitted on where they differ from :attr:`times`: a
        config's launch-round time on a graph where the engine runs the whole-graph kernel for every
        config (:func:`_delivered_and_fit_times`). None: fitted on :attr:`times`.
    """

    X: np.ndarray
    graphs: list
    times: list
    invalid: list
    configs: dict
    device: dict
    feature_names: tuple
    n_records: int = 0
    algorithm: str = "bfs"
    fit_times: list | None = None

    def fit_view(self) -> "TrainingSet":
        """This set with :attr:`fit_times` as its :attr:`times` (itself when there are none): what
        the model and its labels are fitted on."""
        if self.fit_times is None:
            return self
        return replace(self, times=self.fit_times, fit_times=None)

    @property
    def n_graphs(self) -> int:
        """Number of graphs."""
        return len(self.graphs)

    def best(self, i: int) -> tuple[str, float]:
        """(config_id, ms) of graph *i*'s fastest valid config (ties: smallest id)."""
        t = self.times[i]
        cid = min(t, key=lambda c: (t[c], c))
        return cid, t[cid]

    def regret(self, i: int, config_id: str) -> tuple[float, str]:
        """``time(config) / time(best)`` on graph *i*, and how it was obtained.

        Returns
        -------
        (float, str)
            The regret and ``"measured"``, ``"unmeasured"`` (the graph's slowest measured time is
            used) or ``"invalid"`` (``inf``).
        """
        return _graph_regret(self.times[i], self.invalid[i], config_id)


def _graph_regret(t: Mapping[str, float], invalid, config_id: str) -> tuple[float, str]:
    """:meth:`TrainingSet.regret` of one graph from its valid times *t* (ms) and *invalid* ids."""
    best = min(t.values())
    if config_id in t:
        return t[config_id] / best, "measured"
    if config_id in invalid:
        return math.inf, "invalid"
    return max(t.values()) / best, "unmeasured"


def _buildable_records(read) -> list:
    """The records of a :class:`~autotune.logs.LogReadResult` whose config this release can build.

    A record whose ``config`` does not validate (:meth:`TraversalConfig.from_dict` raises: an
    unknown technique or field value, a field that does not apply) cannot become a label: such
    records are left out with a warning giving their count and the first ``file:line`` and reason.

    Raises
    ------
    TrainingDataError
        When nothing is left: the logs hold no line, every line is unreadable (count, first
        ``file:line`` and why), or every record's config is invalid (count, first ``file:line``).
    """
    from .config import TraversalConfig
    from .errors import TrainingDataError

    files = ", ".join(read.files)
    if not read.records:
        if read.n_unreadable:
            p, ln, why = read.problems[0]
            raise TrainingDataError(f"no usable records: all {read.n_unreadable} line(s) of {files} are unreadable; "
                                    f"the first at {p}:{ln} ({why})")
        raise TrainingDataError(f"no usable records: {files} holds no log line")
    locations = getattr(read, "locations", None) or [None] * len(read.records)
    good, bad = [], []
    checked: dict = {}
    for r, where in zip(read.records, locations):
        key = json.dumps(r.config, sort_keys=True, default=str)
        if key not in checked:
            try:
                TraversalConfig.from_dict(r.config)
                checked[key] = None
            except (ValueError, TypeError) as exc:
                checked[key] = f"{exc.__class__.__name__}: {exc}"
        if checked[key] is None:
            good.append(r)
        else:
            bad.append((where, checked[key]))
    if bad:
        where, why = bad[0]
        at = f"{where[0]}:{where[1]}" if where else "unknown line"
        text = f"{len(bad)} record(s) with a config this release cannot build, the first at {at} ({why})"
        if not good:
            raise TrainingDataError(f"no usable records: all {text}; these logs were written by another release "
                                    f"or edited by hand")
        warnings.warn(f"benchmark log: {text}; left out of training", UserWarning, stacklevel=3)
    return good


def _log_files(logs) -> list[Path]:
    from .logs import expand_log_paths

    return expand_log_paths(logs)


def default_feature_names(algorithm: str = "bfs") -> tuple[str, ...]:
    """The model inputs of *algorithm*: :data:`~autotune.features.FEATURE_NAMES` for BFS (what the
    shipped BFS models were trained on), :data:`~autotune.features.SSSP_FEATURE_NAMES` (the profile
    plus the weight statistics) for SSSP.

    Raises
    ------
    InvalidArgumentError
        On an unknown algorithm.
    """
    from .features import SSSP_FEATURE_NAMES

    if algorithm == "bfs":
        return tuple(FEATURE_NAMES)
    if algorithm == "sssp":
        return tuple(SSSP_FEATURE_NAMES)
    from .errors import InvalidArgumentError

    raise InvalidArgumentError(f"unknown algorithm {algorithm!r}; expected 'bfs' or 'sssp'")


def feature_names_v2(algorithm: str = "bfs") -> tuple[str, ...]:
    """The model inputs of *algorithm* for logs profiled by this release:
    :data:`~autotune.features.FEATURE_NAMES_V2` (the profile with ``sink_fraction`` and the
    :data:`~autotune.features.DIRECTED_FEATURE_NAMES`) for BFS, plus the weight statistics for SSSP
    (:data:`~autotune.features.SSSP_FEATURE_NAMES_V2`).

    Raises
    ------
    InvalidArgumentError
        On an unknown algorithm.
    """
    from .features import FEATURE_NAMES_V2, SSSP_FEATURE_NAMES_V2

    default_feature_names(algorithm)  # validates the name
    return tuple(FEATURE_NAMES_V2 if algorithm == "bfs" else SSSP_FEATURE_NAMES_V2)


def _has_features(features, names) -> bool:
    try:
        _feature_vector(features, names)
    except (ValueError, TypeError):
        return False
    return True


def select_algorithm(records, algorithm: str | None = None) -> tuple[str, list]:
    """The records of one traversal: one model per algorithm is trained on its own records only.

    Parameters
    ----------
    records : sequence of LogRecord
        Schema-1 records count as BFS (:attr:`LogRecord.algorithm`).
    algorithm : {'bfs', 'sssp'}, optional
        Keep these. Default: the algorithm of the records, when they all have the same one.

    Returns
    -------
    (str, list of LogRecord)
        The algorithm and its records (in order).

    Raises
    ------
    TrainingDataError
        When *algorithm* is None and the records mix algorithms (the message counts each and says
        to pass ``algorithm=`` / ``--algorithm``), or when no record is of *algorithm*.
    InvalidArgumentError
        On an unknown algorithm.
    """
    from .errors import TrainingDataError

    records = list(records)
    counts: dict[str, int] = {}
    for r in records:
        counts[r.algorithm] = counts.get(r.algorithm, 0) + 1
    found = ", ".join(f"{n} {a}" for a, n in sorted(counts.items()))
    if algorithm is None:
        if len(counts) > 1:
            raise TrainingDataError(f"the logs mix algorithms ({found} records); one model is trained per "
                                    f"algorithm: choose one with algorithm=... (--algorithm bfs|sssp)")
        algorithm = next(iter(counts), "bfs")
    default_feature_names(algorithm)  # validates the name
    kept = [r for r in records if r.algorithm == algorithm]
    if records and not kept:
        raise TrainingDataError(f"no {algorithm} record in the logs (they hold {found} records)")
    return algorithm, kept


def build_training_set(records, *, device: str | None = None, feature_names: Sequence[str] | None = None,
                       warn: bool = True, algorithm: str | None = None) -> TrainingSet:
    """Group log records by graph for one device and one algorithm.

    Parameters
    ----------
    records : sequence of LogRecord
    device : str, optional
        Device name to keep; default the device with the most valid records (a warning names the
        others when several are present).
    feature_names : sequence of str, optional
        Default: :func:`feature_names_v2` of the algorithm when every graph's logged profile holds
        them (logs of this release), else :func:`default_feature_names` (the profile of the shipped
        models; earlier logs lack the directed features), with a warning when only some graphs lack
        them.
    warn : bool
        Warn about records left out (other devices, pruned trials, graphs without a needed
        feature or without a valid measurement).
    algorithm : {'bfs', 'sssp'}, optional
        Keep the records of this traversal (:func:`select_algorithm`); default: the records'
        algorithm (mixed records are refused).

    Returns
    -------
    TrainingSet

    Raises
    ------
    ValueError
        When no graph has a valid measurement on the device.
    TrainingDataError
        When the records mix algorithms and none was chosen, or hold none of *algorithm*.
    """
    algorithm, records = select_algorithm(records, algorithm)
    from .errors import TrainingDataError
    from .sweep import graph_family

    recs = [r for r in records if not r.pruned]
    if not recs:
        raise TrainingDataError("no usable records (all pruned or none given)")
    by_dev: dict[str, int] = {}
    for r in recs:
        by_dev[r.device_name] = by_dev.get(r.device_name, 0) + int(r.valid)
    if device is None:
        device = max(sorted(by_dev), key=lambda d: by_dev[d])
        if len(by_dev) > 1 and warn:
            warnings.warn(f"logs hold several devices ({', '.join(sorted(by_dev))}); training for {device!r} "
                          f"(pass device=... to choose)", UserWarning, stacklevel=3)
    elif device not in by_dev:
        raise TrainingDataError(f"no record for device {device!r}; devices in the logs: {', '.join(sorted(by_dev))}")
    recs = [r for r in recs if r.device_name == device]
    per_graph: dict[str, dict] = {}
    configs: dict[str, dict] = {}
    for r in recs:
        g = per_graph.setdefault(r.fingerprint, {"name": r.graph["name"], "fingerprint": r.fingerprint,
                                                 "spec": r.graph.get("spec"), "features": r.features,
                                                 "family": r.graph.get("family")
                                                 or graph_family(r.graph["name"], r.graph.get("spec")),
                                                 "runs": [], "bad": set()})
        configs.setdefault(r.config_id, r.config)
        if r.valid:
            g["runs"].append((r.config_id, r.median_ms, one_launch_path(r.measure), measure_rounds(r.measure)))
            chosen = calibrated_direction(r.measure)
            if chosen is not None:
                g.setdefault("calibrated", []).append((r.config_id, measure_rounds(r.measure), chosen))
        else:
            g["bad"].add(r.config_id)
    if feature_names is None:
        v2 = feature_names_v2(algorithm)
        usable = [g for g in per_graph.values() if g["runs"]]
        lacking = sum(not _has_features(g["features"], v2) for g in usable)
        feature_names = v2 if usable and not lacking else default_feature_names(algorithm)
        if lacking and lacking < len(usable) and warn:
            warnings.warn(f"{lacking} of {len(usable)} graph(s) were profiled without the directed features "
                          f"(logged by an earlier release): training on the profile of the shipped models "
                          f"({len(feature_names)} features); re-sweep them to use all {len(v2)}", UserWarning,
                          stacklevel=3)
    X, graphs, times, invalid, fit_times, skipped = [], [], [], [], [], []
    names = tuple(feature_names)
    for fp in sorted(per_graph):
        g = per_graph[fp]
        if not g["runs"]:
            skipped.append(f"{g['name']} (no valid measurement)")
            continue
        try:
            x = _feature_vector(g["features"], names)
        except (ValueError, TypeError) as exc:
            skipped.append(f"{g['name']} (features: {exc})")
            continue
        X.append(x)
        graphs.append({k: g[k] for k in ("name", "fingerprint", "spec", "features", "family")})
        t, t_fit, one_launch = _delivered_and_fit_times(g["runs"])
        if one_launch:
            graphs[-1]["one_launch"] = one_launch
        pooled = _pool_push_twins(t, t_fit, g.get("calibrated", ()), configs)
        if pooled:
            graphs[-1]["push_twins_pooled"] = pooled
        times.append(t)
        fit_times.append(t_fit)
        invalid.append({c for c in g["bad"] if c not in t})
    if skipped and warn:
        warnings.warn(f"{len(skipped)} graph(s) left out of training: {'; '.join(skipped[:5])}", UserWarning,
                      stacklevel=3)
    if not graphs:
        raise TrainingDataError(f"no graph with a valid measurement on {device!r}")
    dev = next(r.device for r in recs)
    return TrainingSet(np.vstack(X), graphs, times, invalid, configs, dict(dev), names, len(recs), algorithm,
                       fit_times=fit_times if any(a is not b for a, b in zip(fit_times, times)) else None)


#: Level paths of the kernels that run a whole traversal in one launch and read nothing of the config
#: but its algorithm (``kernels/whole_graph.cu``, ``kernels/cluster_graph.cu``): every config whose
#: engine took one of them ran the same code on that graph.
ONE_LAUNCH_PATHS = ("whole_graph", "cluster")


def one_launch_path(measure: Mapping) -> str | None:
    """The one-launch kernel (an entry of :data:`ONE_LAUNCH_PATHS`) that ran every level of a logged
    measurement's traced traversal (``measure["levels"]``, entries ``[size, direction, path, us]``),
    or None (launch rounds, a mix, or no trace: logs swept without ``--levels``)."""
    levels = measure.get("levels") if isinstance(measure, Mapping) else None
    if not levels:
        return None
    paths = {lv[2] for lv in levels if isinstance(lv, (list, tuple)) and len(lv) > 2}
    if len(paths) == 1:
        path = next(iter(paths))
        if path in ONE_LAUNCH_PATHS:
            return path
    return None


def _delivered_and_fit_times(runs) -> tuple[dict, dict, dict]:
    """One graph's ``config_id -> ms`` timings for charging picks and for fitting the model, and
    ``{path: configs}``: how many of its configs ran each one-launch kernel.

    *runs* holds ``(config_id, median_ms, one_launch_path, rounds)`` per valid record (*rounds*:
    :func:`measure_rounds`). A config's records of the most interleaved passes supersede its others
    (:func:`_latest_protocol`: a re-sweep with ``sweep --rounds 3`` replaces one-pass timings that
    moved by up to ~10 % between passes). What a config
    *delivers*: where it has a record of a one-launch kernel (:func:`one_launch_path`), that
    kernel's time, pooled over the graph's configs that ran it (:func:`_pool_one_launch`: an engine
    that has the kernel runs it for this config); else the median of its records (launch rounds,
    the same code in every sweep). The model is fitted on the delivered times too, except for
    configs that ran the whole-graph kernel: the engine takes it for *every* config of a graph it
    fits, so their delivered times are one number and say nothing about configs; the fit reads
    their launch-round records instead where the log has some (a sweep from before the kernel).
    The cluster kernel is kept only where it beats the config's own rounds, so what a config
    delivers there is what the model should learn. Measured on the H200 log of 129 graphs (leave one
    family out, forest seeds 0-1; corpus / real graphs; before the 10 gap-fill graphs): fitted on
    delivered times alone 1.033-1.040 / 1.896-1.966 worst and 1.033-1.043 / 1.271; on launch-round
    records for every config that has them 1.034-1.036 / 1.485 and 1.053-1.067 / 1.448; this rule
    1.031-1.035 / 1.896 and 1.028-1.029 / 1.271; with the gap-fill graphs (139) this rule
    1.033-1.040 / 1.485-1.640 and 1.032 / 1.271.
    Without one-launch records both timings are the median of each config's records."""
    every: dict[str, list] = {}
    one: dict[str, list] = {}
    paths: dict[str, str] = {}
    rounds: dict[str, list] = {}
    for cid, ms, path in _latest_protocol(runs):
        every.setdefault(cid, []).append(ms)
        if path is None:
            rounds.setdefault(cid, []).append(ms)
        else:
            one.setdefault(cid, []).append(ms)
            paths[cid] = path
    if not paths:
        med = {c: float(np.median(v)) for c, v in every.items()}
        return med, med, {}
    delivered = _pool_one_launch({c: float(np.median(one[c] if c in one else every[c])) for c in every}, paths)
    fit = {c: float(np.median(rounds[c])) if c in rounds and paths.get(c) == "whole_graph" else ms
           for c, ms in delivered.items()}
    counts: dict[str, int] = {}
    for path in paths.values():
        counts[path] = counts.get(path, 0) + 1
    return delivered, fit, counts


def calibrated_direction(measure: Mapping) -> str | None:
    """The direction a logged push/pull measurement's engine chose by calibrating
    (``measure["direction_calibration"]["chosen"]``, logged by sweeps of this release:
    :data:`autotune._engine.DIRECTION_CALIBRATION`), or None (no calibration logged)."""
    cal = measure.get("direction_calibration") if isinstance(measure, Mapping) else None
    chosen = cal.get("chosen") if isinstance(cal, Mapping) else None
    return chosen if chosen in ("push", "push_pull") else None


def _pool_push_twins(t: dict, t_fit: dict, calibrated, configs: Mapping[str, Mapping]) -> int:
    """Give a push/pull config whose engine calibrated to push levels on this graph and its push twin
    (the same config with ``direction="push"``) one time, the median of theirs, in the delivered
    timings *t* and the fit timings *t_fit* (edited in place). Such a config ran its twin's launch
    rounds (:meth:`autotune._engine.TraversalEngine._set_direction`), so, as for the one-launch
    kernels (:func:`_pool_one_launch`), the spread between the two is measurement drift between their
    turns in the sweep, not a difference between configs. *calibrated* holds ``(config_id, rounds,
    chosen)`` per valid record that logged a calibration; a config counts as pushed when every record
    of its most interleaved passes chose push. Returns how many push/pull configs were pooled."""
    from .config import TraversalConfig

    top: dict[str, int] = {}
    for cid, rounds, _ in calibrated:
        top[cid] = max(top.get(cid, 1), rounds)
    choices: dict[str, set] = {}
    for cid, rounds, chosen in calibrated:
        if rounds == top[cid]:
            choices.setdefault(cid, set()).add(chosen)
    twins: dict[str, str] = {}  # config -> its push twin: the groups _pool_one_launch pools
    for cid, chosen in choices.items():
        if chosen != {"push"} or cid not in t:
            continue
        try:
            twin = TraversalConfig.from_dict(configs[cid]).with_(direction="push").config_id
        except (TypeError, ValueError, KeyError):
            continue
        if twin in t:
            twins[cid] = twins[twin] = twin
    for times in (t, t_fit) if t_fit is not t else (t,):
        _pool_one_launch(times, twins)
    return sum(1 for c, twin in twins.items() if c != twin)


def measure_rounds(measure: Mapping) -> int:
    """The interleaved passes a logged measurement's times are the per-source medians of
    (``measure["rounds"]``, written by ``sweep --rounds R``); 1 for a one-pass measurement."""
    r = measure.get("rounds") if isinstance(measure, Mapping) else None
    return int(r) if isinstance(r, (int, np.integer)) and not isinstance(r, bool) and r > 1 else 1


def _latest_protocol(runs) -> list:
    """*runs* ``(config_id, median_ms, path, rounds)`` reduced to ``(config_id, median_ms, path)``,
    keeping for each config only its records of the most interleaved passes, except that a config
    whose kept records ran the whole-graph kernel also keeps its launch-round records (``path`` None:
    what :func:`_delivered_and_fit_times` fits such a config on). One-pass logs pass unchanged.

    The rule is per config, over the *valid* records the caller passes, so two cases follow from it:
    a config whose re-sweep record failed validation (or is missing) keeps its older, fewer-pass
    time; and a re-sweep run without ``--levels`` has no trace, so its records' ``path`` is None
    even where a one-launch kernel ran (:func:`one_launch_path`): they supersede the older records
    as launch-round times, and the graph's one-launch configs are then not pooled. Re-sweep with
    ``--levels`` (as ``sweep --rounds 3 --levels 256`` in README) to keep the pooling."""
    top: dict[str, int] = {}
    for cid, _, _, r in runs:
        top[cid] = max(top.get(cid, 1), r)
    whole = {cid for cid, _, path, r in runs if r == top[cid] and path == "whole_graph"}
    return [(cid, ms, path) for cid, ms, path, r in runs
            if r == top[cid] or (path is None and cid in whole)]


def one_launch_summary(ts: "TrainingSet") -> dict:
    """How many graphs of *ts* had configs that ran a one-launch kernel, and how many configs ran
    each: ``{"graphs": int, "configs": {path: int}, "fitted_on_launch_rounds": int}`` (the graphs
    whose fit read launch-round records, :attr:`TrainingSet.fit_times`)."""
    configs: dict[str, int] = {}
    graphs = 0
    for g in ts.graphs:
        if g.get("one_launch"):
            graphs += 1
            for path, k in g["one_launch"].items():
                configs[path] = configs.get(path, 0) + k
    fitted = 0 if ts.fit_times is None else sum(a != b for a, b in zip(ts.fit_times, ts.times))
    return {"graphs": graphs, "configs": configs, "fitted_on_launch_rounds": fitted}


def _pool_one_launch(t: dict, paths: Mapping[str, str]) -> dict:
    """Graph timings *t* (``config_id -> ms``) with the configs that ran the same one-launch kernel
    (*paths*: ``config_id -> path`` from :func:`one_launch_path`; any key naming code that several
    configs ran alike, as :func:`_pool_push_twins` passes) given one time, the median of theirs.
    They ran the same code on the same graph, so their spread is measurement drift between
    the configs' turns in the sweep (on the H200 sweep's 21 graphs that every config runs with the
    whole-graph kernel, 3-45 % between the fastest and the slowest config), not a difference
    between configs; left unpooled it makes labels and regrets of noise and teaches the model
    nothing about configs."""
    groups: dict[str, list[str]] = {}
    for c, path in paths.items():
        if c in t:
            groups.setdefault(path, []).append(c)
    for members in groups.values():
        if len(members) >= 2:
            pooled = float(np.median([t[c] for c in members]))
            for c in members:
                t[c] = pooled
    return t


# ============================================================================ labels, CV
def _labels(ts: TrainingSet, idx: Sequence[int], tol: float) -> list[str]:
    """Label of each graph in *idx*: its fastest config, ties within *tol* resolved toward the
    config near-fastest on the most graphs of *idx* (then the fastest, then the smallest id)."""
    near = []
    for i in idx:
        best = ts.best(i)[1]
        near.append({c for c, t in ts.times[i].items() if t <= best * (1.0 + tol)})
    popularity: dict[str, int] = {}
    for s in near:
        for c in s:
            popularity[c] = popularity.get(c, 0) + 1
    out = []
    for i, s in zip(idx, near):
        t = ts.times[i]
        out.append(min(s, key=lambda c: (-popularity[c], t[c], c)))
    return out


def _summary(regrets: Sequence[float], within: Sequence[float] | None = None, *, tol: float = 0.0,
             n_missing: int = 0, n_unmeasured: int = 0) -> dict:
    """Geometric mean, worst and share within 5 % of *regrets* (the measured ones: a missing baseline
    is not in them and only counted, ``n_missing``), plus the near-ties: picks within *tol* of the
    best count as ties (``n_ties``; ``geomean_ties`` with them as regret 1)."""
    r = np.asarray(regrets, dtype=np.float64)
    finite = np.isfinite(r)
    geo = float(np.exp(np.mean(np.log(r)))) if finite.all() and r.size else None
    worst = float(r.max()) if finite.all() and r.size else None
    share = float(np.mean(within)) if within is not None else float(np.mean(r <= 1.05)) if r.size else None
    ties = r <= 1.0 + tol + 1e-12
    tied = np.where(ties, 1.0, r)
    geo_t = float(np.exp(np.mean(np.log(tied)))) if finite.all() and r.size else None
    return {"geomean": geo, "worst": worst, "within_5pct": share, "n_graphs": int(r.size),
            "n_invalid": int((~finite).sum()), "n_missing": int(n_missing), "n_unmeasured": int(n_unmeasured),
            "n_ties": int(ties.sum()), "geomean_ties": geo_t}


def _best_fixed(ts: TrainingSet, idx: Sequence[int]) -> str:
    """The config with the smallest geometric-mean regret over graphs *idx* (fewest invalid first)."""
    cands = sorted({c for i in idx for c in ts.times[i]})
    best_key, best_c = None, None
    for c in cands:
        r = np.array([ts.regret(i, c)[0] for i in idx])
        bad = int((~np.isfinite(r)).sum())
        geo = float(np.exp(np.mean(np.log(r[np.isfinite(r)])))) if np.isfinite(r).any() else math.inf
        key = (bad, geo, c)
        if best_key is None or key < best_key:
            best_key, best_c = key, c
    return best_c


def _table2_id(ts: TrainingSet, i: int, device: Mapping | None) -> str:
    from .table2 import table2_rule

    return table2_rule(_as_graph_features(ts.graphs[i]["features"]), device).config_id


def _rule_id(ts: TrainingSet, i: int, device: Mapping | None) -> tuple[str, str]:
    """``(baseline name, config_id)`` of the rule baseline of graph *i*: paper 000's Table 2 for a BFS
    training set, paper 003's Delta rule (:func:`autotune.sssp_rules.delta_rule`) for SSSP."""
    from .sssp_rules import BASELINE_NAMES, delta_rule

    algorithm = getattr(ts, "algorithm", "bfs")
    if algorithm == "sssp":
        return BASELINE_NAMES["sssp"], delta_rule(ts.graphs[i]["features"], device).config_id
    return BASELINE_NAMES["bfs"], _table2_id(ts, i, device)


def _graph_families(ts: TrainingSet) -> list[str]:
    """The family of every graph of *ts* (its ``family``, else derived from its spec and name)."""
    from .sweep import graph_family

    return [g.get("family") or graph_family(g.get("name"), g.get("spec")) for g in ts.graphs]


def _cross_validate(ts: TrainingSet, folds: Sequence[Sequence[int]], estimator, label_tolerance: float,
                    random_state: int, decision: str, families: Sequence[str], risk: float = 0.0) -> list[dict]:
    """Per-graph rows of one cross-validation: each fold's graphs are predicted by a model (and a best
    fixed config) fitted on the graphs of the other folds. A best fixed config not measured on a
    held-out graph is ``how: "missing"`` there (a baseline is never estimated); the model's pick is
    charged the graph's slowest time (``"unmeasured"``, pessimistic)."""
    n = ts.n_graphs
    rows: list = [None] * n
    for fold in folds:
        held = set(fold)
        train = [j for j in range(n) if j not in held]
        preds, fixed = None, None
        if train:
            fv = ts.fit_view()
            y = _labels(fv, train, label_tolerance)
            m = SelectionModel(estimator, ts.feature_names, random_state, decision, risk).fit(
                ts.X[train], y, times=[fv.times[j] for j in train], invalid=[fv.invalid[j] for j in train])
            preds = [str(p) for p in m.predict(ts.X[list(fold)])]
            fixed = _best_fixed(ts, train)
        for k, i in enumerate(fold):
            row: dict[str, Any] = {"name": ts.graphs[i]["name"], "fingerprint": ts.graphs[i]["fingerprint"],
                                   "family": families[i], "best": ts.best(i)[0], "best_ms": ts.best(i)[1]}
            if preds is not None:
                for name, cid in (("model", preds[k]), ("best_fixed", fixed)):
                    r, how = ts.regret(i, cid)
                    if how == "unmeasured" and name != "model":
                        row[name] = {"config_id": cid, "regret": None, "how": "missing"}
                    else:
                        row[name] = {"config_id": cid, "regret": _finite_or_none(r), "how": how}
            rows[i] = row
    return rows


def _rule_and_random(ts: TrainingSet, i: int, row: dict) -> None:
    """Add the rule baseline (measured, or ``how: "missing"``) and the random pick to *row*."""
    rule, rid = _rule_id(ts, i, ts.device)
    r, how = ts.regret(i, rid)
    if how == "unmeasured":  # never estimated: the graph lacks its baseline measurement
        row[rule] = {"config_id": rid, "regret": None, "how": "missing"}
    else:
        row[rule] = {"config_id": rid, "regret": _finite_or_none(r), "how": how}
    best = ts.best(i)[1]
    rs = np.array([t / best for t in ts.times[i].values()])
    row["random"] = {"regret": float(rs.mean()), "within_5pct": float(np.mean(rs <= 1.05)), "n_configs": int(rs.size)}


def _regret_of(entry) -> float:
    return math.inf if entry["regret"] is None and entry["how"] == "invalid" else entry["regret"]


def _summaries(rows: Sequence[dict], idx: Sequence[int], rule_name: str | None, n_folds_ok: bool,
               tol: float) -> dict:
    """Summary of every method over the graphs *idx* of *rows*."""
    out: dict = {}
    for name in _METHODS:
        if name in ("table2", "delta_rule") and name != rule_name:
            continue  # the other algorithm's rule
        if name in ("model", "best_fixed") and not n_folds_ok:
            out[name] = None
            continue
        if name == "random":
            out[name] = _summary([rows[i]["random"]["regret"] for i in idx],
                                 [rows[i]["random"]["within_5pct"] for i in idx], tol=tol)
            continue
        entries = [rows[i].get(name) for i in idx]
        entries = [e for e in entries if e is not None]
        measured = [e for e in entries if e["how"] != "missing"]
        out[name] = _summary([_regret_of(e) for e in measured], tol=tol, n_missing=len(entries) - len(measured),
                             n_unmeasured=sum(e["how"] == "unmeasured" for e in measured))
    return out


#: Sections of :func:`evaluate`'s result that :func:`regret_rows` reads: leave-one-graph-out on every
#: graph (``"logo"``, ``cv["regret"]``), leave-one-family-out (``"lofo"``), and both on the real
#: graphs alone (``"real_logo"``, ``"real_lofo"``).
CV_SECTIONS = ("logo", "lofo", "real_logo", "real_lofo")


def evaluate(ts: TrainingSet, estimator=None, *, label_tolerance: float = 0.02, random_state: int = 0,
             decision: str = "regret", families: bool = True, risk: float = 0.0) -> dict:
    """Leave-one-graph-out and leave-one-family-out regret of the selection model and the baselines.

    Parameters
    ----------
    ts : TrainingSet
    estimator : sklearn classifier or regressor, optional
        As for :class:`SelectionModel`.
    label_tolerance : float, default 0.02
        Tie tolerance of the labels (fraction of the best time); the summaries count picks within it
        as ties (``n_ties``, ``geomean_ties``).
    random_state : int, default 0
    decision : {"regret", "vote"}, default "regret"
        Decision rule of the model (see :class:`SelectionModel`); the model of each fold gets the
        timings of its training graphs only.
    families : bool, default True
        Also run leave-one-family-out (one model per family of :attr:`TrainingSet.graphs`).
    risk : float, default 0.0
        Risk aversion of each fold's regret decision (see :class:`SelectionModel`).

    Returns
    -------
    dict
        ``{"method": "leave-one-graph-out", "regret": {method: summary}, "per_graph": [...],
        "lofo": {"method": "leave-one-family-out", "n_families", "families": {family: n_graphs},
        "regret": {method: summary}, "per_graph": [...]}, "real": {"n_graphs", "names", "logo":
        {method: summary}, "lofo": {method: summary}}, "per_family": {family: {"n_graphs",
        "logo", "lofo"}}}`` for methods ``model``, ``best_fixed``, the rule baseline (``table2`` for
        BFS, ``delta_rule`` for SSSP, :data:`autotune.sssp_rules.BASELINE_NAMES`) and ``random``.
        A summary holds ``geomean``, ``worst``, ``within_5pct``, ``n_graphs`` (graphs measured for
        that method), ``n_invalid``, ``n_missing`` (graphs without the baseline's measurement: left
        out, never charged an estimate), ``n_unmeasured`` (model picks not measured on the graph:
        charged the graph's slowest time), ``n_ties`` and ``geomean_ties``. ``geomean``/``worst``
        are ``None`` when some regret is infinite (an invalid prediction; counted in
        ``n_invalid``). With a single graph (or a single family) there is nothing to hold out: the
        model and best-fixed columns are ``None``.
    """
    n = ts.n_graphs
    fam = _graph_families(ts)
    rule_name = _rule_id(ts, 0, ts.device)[0] if n else None
    tol = label_tolerance
    logo_rows = _cross_validate(ts, [[i] for i in range(n)], estimator, tol, random_state, decision, fam, risk)
    for i, row in enumerate(logo_rows):
        _rule_and_random(ts, i, row)
    everything = list(range(n))
    out = {"method": "leave-one-graph-out", "label_tolerance": label_tolerance, "decision": decision, "risk": risk,
           "regret": _summaries(logo_rows, everything, rule_name, n >= 2, tol),
           "algorithm": getattr(ts, "algorithm", "bfs"), "per_graph": logo_rows}
    real = [i for i in everything if fam[i].startswith("real-")]
    out["real"] = {"n_graphs": len(real), "names": [ts.graphs[i]["name"] for i in real],
                   "logo": _summaries(logo_rows, real, rule_name, n >= 2, tol) if real else None}
    if not families:
        return out
    groups: dict[str, list[int]] = {}
    for i, f in enumerate(fam):
        groups.setdefault(f, []).append(i)
    folds = [groups[f] for f in sorted(groups)]
    lofo_rows = _cross_validate(ts, folds, estimator, tol, random_state, decision, fam, risk)
    for i, row in enumerate(lofo_rows):
        for key in (rule_name, "random"):
            row[key] = logo_rows[i][key]
    several = len(groups) >= 2
    out["lofo"] = {"method": "leave-one-family-out", "n_families": len(groups),
                   "families": {f: len(groups[f]) for f in sorted(groups)},
                   "regret": _summaries(lofo_rows, everything, rule_name, several, tol),
                   "per_graph": lofo_rows}
    out["real"]["lofo"] = _summaries(lofo_rows, real, rule_name, several, tol) if real else None
    out["per_family"] = {}
    for f in sorted(groups):
        idx = groups[f]
        out["per_family"][f] = {
            "n_graphs": len(idx),
            "logo": (_summaries(logo_rows, idx, rule_name, n >= 2, tol).get("model") or {}).get("geomean"),
            "lofo": (_summaries(lofo_rows, idx, rule_name, several, tol).get("model") or {}).get("geomean")}
    return out


def _finite_or_none(x: float):
    return float(x) if math.isfinite(x) else None


def _cv_section(cv: Mapping, section: str) -> Mapping | None:
    if section == "logo":
        return cv.get("regret")
    if section == "lofo":
        return (cv.get("lofo") or {}).get("regret")
    if section in ("real_logo", "real_lofo"):
        return (cv.get("real") or {}).get(section[len("real_"):])
    raise ValueError(f"unknown section {section!r}; expected one of {', '.join(CV_SECTIONS)}")


def regret_rows(cv: Mapping, section: str = "logo") -> list[dict]:
    """Rows of a regret table, one per method: ``method``, ``title``, ``geomean``, ``worst``,
    ``within_5pct``, ``n_graphs``, ``n_invalid`` (and, from this release's :func:`evaluate`,
    ``n_missing``, ``n_unmeasured``, ``n_ties``, ``geomean_ties``) from :func:`evaluate`'s or the
    metadata's ``cv``.

    Parameters
    ----------
    cv : mapping
    section : {'logo', 'lofo', 'real_logo', 'real_lofo'}, default 'logo'
        Which table (:data:`CV_SECTIONS`): leave-one-graph-out over every graph (the metadata of
        every release has it), leave-one-family-out, or either over the real graphs alone. A
        section the *cv* does not hold (an older model's metadata) gives no rows.
    """
    table = _cv_section(cv, section)
    rows = []
    if not table:
        return rows
    for name in _METHODS:
        s = table.get(name)
        if s is None:
            continue
        rows.append({"method": name, "title": _METHOD_TITLES[name], **s})
    return rows


_SECTION_TITLES = {"logo": "leave-one-graph-out, all graphs", "lofo": "leave-one-family-out, all graphs",
                   "real_logo": "leave-one-graph-out, real graphs only",
                   "real_lofo": "leave-one-family-out, real graphs only"}


def regret_report(cv: Mapping) -> str:
    """Plain-text regret tables of every section of *cv* (:data:`CV_SECTIONS`) it holds: per method
    the geometric mean, the worst case, the share within 5 % of the best, the near-ties counted as
    ties, and the graphs measured / missing (a baseline never measured there)."""
    def fmt(x, nd=3):
        return "-" if x is None else f"{x:.{nd}f}"

    lines = []
    for section in CV_SECTIONS:
        rows = regret_rows(cv, section)
        if not rows:
            continue
        extra = ""
        if section == "lofo":
            extra = f" ({cv['lofo']['n_families']} families)"
        lines.append(f"{_SECTION_TITLES[section]}{extra}")
        lines.append(f"  {'method':<58} {'geomean':>8} {'worst':>8} {'<=5%':>5} {'ties':>5} {'geo(ties)':>9} "
                     f"{'graphs':>6} {'missing':>7}")
        for r in rows:
            within = "-" if r.get("within_5pct") is None else f"{100 * r['within_5pct']:.0f}%"
            lines.append(f"  {r['title']:<58} {fmt(r.get('geomean')):>8} {fmt(r.get('worst')):>8} {within:>5} "
                         f"{r.get('n_ties', '-'):>5} {fmt(r.get('geomean_ties')):>9} {r.get('n_graphs', '-'):>6} "
                         f"{r.get('n_missing', 0):>7}")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


# ============================================================================ retrain / persist
def _sha256_file(path: Path) -> str:
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return "sha256:" + h.hexdigest()


def _rel(p: Path) -> str:
    try:
        return Path(os.path.relpath(p.resolve(), _REPO)).as_posix() if p.resolve().is_relative_to(_REPO) else str(p)
    except (ValueError, OSError):
        return str(p)


def retrain(logs, out=None, estimator=None, *, device: str | None = None, label_tolerance: float = 0.02,
            random_state: int = 0, decision: str = "regret", algorithm: str | None = None,
            risk: float = 0.0) -> SelectionModel:
    """Train the selection model of one algorithm from benchmark logs, evaluate it, and save it.

    Parameters
    ----------
    logs : str, os.PathLike or sequence of them
        JSONL logs, globs (``"logs/*.jsonl"``) or folders.
    out : str or os.PathLike, optional
        Where to save the model (``.joblib``; the metadata goes next to it as ``.json``). Not saved
        when None.
    estimator : sklearn classifier or regressor, optional
        Default: a seeded random forest (see :class:`SelectionModel`).
    device : str, optional
        Device name to train for (default: the one with most valid records).
    label_tolerance : float, default 0.02
        Configs within this fraction of a graph's best time are label ties (see module docstring).
    random_state : int, default 0
    decision : {"regret", "vote"}, default "regret"
        Decision rule (see :class:`SelectionModel`): the cost-sensitive one, or the estimator's vote.
    algorithm : {'bfs', 'sssp'}, optional
        Train on the records of this traversal only (one model per algorithm; schema-1 lines are
        BFS). Default: the algorithm of the records; logs that mix algorithms are refused
        (:class:`~autotune.errors.TrainingDataError`) unless one is chosen. SSSP models read
        :data:`~autotune.features.SSSP_FEATURE_NAMES` and their regret table's rule baseline is
        paper 003's Delta rule.
    risk : float, default 0.0
        Risk aversion of the regret decision (:class:`SelectionModel`): the score is the mean log
        regret over the neighbours plus ``risk`` standard deviations; recorded in the metadata
        (``risk``) and in its ``retrain_command`` (``--risk``).

    Returns
    -------
    SelectionModel
        Fitted on every graph, with ``label_configs_`` and ``metadata_`` (including
        ``metadata_["algorithm"]`` and the regret tables of :func:`evaluate` under
        ``metadata_["cv"]``: leave-one-graph-out in ``cv["regret"]``, leave-one-family-out in
        ``cv["lofo"]``, the real graphs alone in ``cv["real"]``; :func:`regret_report` prints them).

    Raises
    ------
    FileNotFoundError
        When a log does not exist.
    ValueError
        When the logs hold no usable graph.

    Examples
    --------
    >>> m = retrain(["models/bfs_h100.jsonl"], out="models/bfs_h100.joblib")     # doctest: +SKIP
    >>> m.metadata_["cv"]["regret"]["model"]["geomean"]                           # doctest: +SKIP
    1.04
    """
    import sklearn

    from . import __version__
    from .logs import read_log

    if not 0.0 <= label_tolerance < 1.0:
        from .errors import InvalidArgumentError

        raise InvalidArgumentError(f"label_tolerance must be in [0, 1), got {label_tolerance!r}")
    files = _log_files(logs)
    read = read_log(files)
    records = _buildable_records(read)
    ts = build_training_set(records, device=device, algorithm=algorithm)
    cv = evaluate(ts, estimator, label_tolerance=label_tolerance, random_state=random_state, decision=decision,
                  risk=risk)
    fv = ts.fit_view()
    y = _labels(fv, range(ts.n_graphs), label_tolerance)
    model = SelectionModel(estimator, ts.feature_names, random_state, decision, risk)
    model.fit(ts.X, y, times=fv.times, invalid=fv.invalid)
    model.label_configs_ = {str(c): dict(ts.configs[str(c)]) for c in model.classes_}
    synthetic = any(r.origin.get("command") == "synthetic" for r in read.records)
    if synthetic:
        warnings.warn("these logs are SYNTHETIC (origin command 'synthetic'): the model is for tests and demos, "
                      "never ship it", UserWarning, stacklevel=2)
    counts: dict[str, int] = {}
    for lab in y:
        counts[lab] = counts.get(lab, 0) + 1
    log_args = " ".join(_rel(f) for f in files)
    out_text = _rel(Path(out)) if out is not None else DEFAULT_MODEL_RELPATHS[ts.algorithm]
    model.metadata_ = {
        "format": METADATA_FORMAT,
        "algorithm": ts.algorithm,
        "created": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "autotune_version": __version__, "sklearn_version": sklearn.__version__, "numpy_version": np.__version__,
        "python": platform.python_version(),
        "estimator": repr(model.estimator_), "random_state": random_state,
        "estimator_class": f"{type(model.estimator_).__module__}.{type(model.estimator_).__qualname__}",
        "estimator_params": _json_params(model.estimator_),
        "feature_names": list(ts.feature_names),
        "design_features": list(model.design_names_), "decision": model.decision_, "risk": float(risk),
        "labels": sorted(counts), "label_counts": counts,
        "label_configs": {c: ts.configs[c] for c in sorted(counts)},
        "candidates": [str(c) for c in model.classes_],
        "candidate_configs": {str(c): ts.configs[str(c)] for c in model.classes_ if str(c) not in counts},
        "label_tolerance": label_tolerance,
        "device": ts.device,
        "logs": [{"path": _rel(f), "sha256": _sha256_file(f)} for f in files],
        "logs_sha256": _logs_digest(files),
        "n_records": ts.n_records, "n_unreadable_lines": read.n_unreadable, "n_graphs": ts.n_graphs,
        "graphs": [{"name": g["name"], "fingerprint": g["fingerprint"], "spec": g["spec"],
                    "family": g.get("family"), "label": lab, "best": ts.best(i)[0], "best_ms": ts.best(i)[1]}
                   for i, (g, lab) in enumerate(zip(ts.graphs, y))],
        "cv": cv,
        "one_launch": one_launch_summary(ts),
        "synthetic": synthetic,
        "retrain_command": f"autotune retrain {log_args} --out {out_text}"
                           + (" --algorithm sssp" if ts.algorithm != "bfs" else "")
                           + _retrain_flags(estimator, label_tolerance, random_state, risk),
    }
    if out is not None:
        save_model(model, out)
    return model


#: ``autotune retrain --estimator`` names and the scikit-learn forest class each builds
#: (:func:`cli_estimator`); ``regret_forest`` is the default.
CLI_ESTIMATORS = {"regret_forest": "RandomForestRegressor", "random_forest": "RandomForestClassifier",
                  "extra_trees": "ExtraTreesClassifier"}


def cli_estimator(name: str = "regret_forest", n_estimators: int = 200, seed: int = 0):
    """The estimator of ``autotune retrain --estimator NAME --n-estimators N --seed S``.

    Returns
    -------
    sklearn forest or None
        None for the default (``regret_forest`` at 200 trees: :class:`SelectionModel` builds it);
        else the seeded forest of :data:`CLI_ESTIMATORS` (``extra_trees`` with scikit-learn's own
        ``max_features``, the others with :data:`FOREST_MAX_FEATURES`).
    """
    import sklearn.ensemble

    if name not in CLI_ESTIMATORS:
        raise ValueError(f"estimator must be one of {', '.join(CLI_ESTIMATORS)}; got {name!r}")
    if name == "regret_forest" and n_estimators == 200:
        return None
    cls = getattr(sklearn.ensemble, CLI_ESTIMATORS[name])
    extra = {} if name == "extra_trees" else {"max_features": FOREST_MAX_FEATURES}
    return cls(n_estimators=n_estimators, random_state=seed, **extra)


def _retrain_flags(estimator, label_tolerance: float, random_state: int, risk: float = 0.0) -> str:
    """The ``autotune retrain`` options that rebuild *estimator* (:data:`CLI_ESTIMATORS`) and the
    other non-default arguments (the metadata's ``retrain_command`` must reproduce the model, e.g.
    the SSSP model's classification forest, ``--estimator random_forest``). An estimator the CLI
    cannot build is named instead."""
    flags = []
    if estimator is not None:
        names = {cls: name for name, cls in CLI_ESTIMATORS.items()}
        name = names.get(type(estimator).__name__) if type(estimator).__module__.startswith("sklearn.") else None
        if name is not None:
            if name != "regret_forest":
                flags.append(f"--estimator {name}")
            n = estimator.get_params().get("n_estimators", 200)
            if n != 200:
                flags.append(f"--n-estimators {n}")
        else:
            flags.append(f"(estimator {type(estimator).__name__} from Python: autotune.retrain(..., estimator=...))")
    if label_tolerance != 0.02:
        flags.append(f"--label-tolerance {label_tolerance:g}")
    if random_state != 0:
        flags.append(f"--seed {random_state}")
    if risk:
        flags.append(f"--risk {risk:g}")
    return "".join(" " + f for f in flags)


def _json_params(est) -> dict:
    """The estimator's constructor parameters that JSON can hold (enough to rebuild it)."""
    out = {}
    for k, v in est.get_params(deep=False).items():
        try:
            json.dumps(v, allow_nan=False)
        except (TypeError, ValueError):
            continue
        out[k] = v
    return out


def estimator_from_metadata(meta: Mapping[str, Any]):
    """An unfitted estimator equal to the one a model's metadata describes (to retrain it identically).

    Parameters
    ----------
    meta : mapping
        A model's metadata (``estimator_class``, ``estimator_params``).

    Returns
    -------
    sklearn estimator

    Raises
    ------
    ValueError
        When the metadata does not name an importable estimator class.
    """
    import importlib

    path = meta.get("estimator_class")
    if not path or "." not in path:
        raise ValueError("the metadata has no 'estimator_class'")
    module, _, name = path.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise ValueError(f"cannot import estimator {path!r}: {exc}") from exc
    return cls(**meta.get("estimator_params", {}))


def _logs_digest(files) -> str:
    from .logs import logs_sha256

    return logs_sha256(files)


def metadata_path(model_path) -> Path:
    """The JSON metadata file of a model file: same folder and stem, ``.json``."""
    p = Path(model_path)
    return p.with_suffix(".json")


def save_model(model: SelectionModel, out) -> Path:
    """Write *model* with joblib to *out* and its ``metadata_`` to the ``.json`` next to it.

    Returns
    -------
    Path
        The model file.
    """
    import joblib

    out = Path(out).expanduser()
    out.parent.mkdir(parents=True, exist_ok=True)
    joblib.dump(model, out, compress=3)
    meta = getattr(model, "metadata_", {}) or {}
    metadata_path(out).write_text(json.dumps(meta, indent=1, sort_keys=False, allow_nan=False) + "\n")
    _load_cached.cache_clear()
    return out


#: CUDA architecture of the NVIDIA GPU models autotune knows, by the tag in their device name (and
#: in model file names: ``bfs_h200.joblib``). Hopper's H100, H200, H800, H20 and GH200 are sm_90.
GPU_ARCHITECTURES: dict[str, str] = {
    "v100": "sm_70", "t4": "sm_75",
    "a100": "sm_80", "a800": "sm_80", "a30": "sm_80",
    "a10": "sm_86", "a10g": "sm_86", "a16": "sm_86", "a40": "sm_86", "a2": "sm_86", "a6000": "sm_86",
    "rtx3090": "sm_86",
    "l4": "sm_89", "l40": "sm_89", "l40s": "sm_89", "l20": "sm_89", "rtx4090": "sm_89", "rtx6000": "sm_89",
    "h100": "sm_90", "h200": "sm_90", "h800": "sm_90", "h20": "sm_90", "gh200": "sm_90",
    "b100": "sm_100", "b200": "sm_100", "gb200": "sm_100", "b300": "sm_100", "gb300": "sm_100",
}

_GPU_TOKEN = __import__("re").compile(r"[a-z]+\d+[a-z]*")


def gpu_tag(device_name: str | None) -> str | None:
    """The short GPU model tag of a device name, as model files name it: ``"NVIDIA H100 80GB HBM3"``
    -> ``"h100"``, ``"NVIDIA H200"`` -> ``"h200"``, ``"NVIDIA GeForce RTX 4090"`` -> ``"rtx4090"``.
    The first token of the name known to :data:`GPU_ARCHITECTURES`, else the first letters+digits
    token (``"NVIDIA X9"`` -> ``"x9"``), else None."""
    if not device_name:
        return None
    text = str(device_name).lower().replace("rtx ", "rtx").replace("-", " ")
    tokens = _GPU_TOKEN.findall(text)
    for t in tokens:
        if t in GPU_ARCHITECTURES:
            return t
    return tokens[0] if tokens else None


def gpu_arch(tag: str | None) -> str | None:
    """The CUDA architecture (``"sm_90"``) of a GPU tag of :func:`gpu_tag`, None when unknown."""
    return GPU_ARCHITECTURES.get(tag) if tag else None


def _model_file_tag(path: Path, algorithm: str) -> str | None:
    stem = Path(path).stem
    prefix = f"{algorithm}_"
    return stem[len(prefix):].lower() if stem.startswith(prefix) and len(stem) > len(prefix) else None


def choose_model_file(candidates: Sequence[Path], device_name: str | None, algorithm: str, *,
                      preferred: str | None = None) -> tuple[Path | None, str | None]:
    """The model file of *algorithm* for the GPU named *device_name*, and the warning to give (once).

    Model files are named ``<algorithm>_<gpu tag>.joblib`` (``bfs_h100.joblib``, ``bfs_h200.joblib``,
    ``sssp_h200.joblib``); files of another algorithm or not named so are ignored. Pure: reads no
    file, only the names.

    Order of choice:

    1. the file of this GPU (same tag, :func:`gpu_tag`): no warning;
    2. else one of the same architecture (:data:`GPU_ARCHITECTURES`: an H100 model on an H200, both
       sm_90), with a warning naming both GPUs;
    3. else any file of the algorithm, with a warning that it was measured on another architecture;
    4. without a GPU (*device_name* None): the *preferred* file name when among the candidates (the
       shipped default), else the first; no warning (there is nothing to compare with).

    Among several files of one step, the first in *candidates* order wins (list the installed
    package's folder before the checkout's).

    Parameters
    ----------
    candidates : sequence of Path
        Model files found (e.g. ``models/*.joblib``).
    device_name : str or None
        The current GPU's name (``device_properties()["name"]``), None without a GPU.
    algorithm : {'bfs', 'sssp'}
    preferred : str, optional
        File name to take without a GPU (e.g. ``"bfs_h100.joblib"``).

    Returns
    -------
    (Path or None, str or None)
        The model file (None when no candidate is a model of *algorithm*) and the warning text
        (None when the file is this GPU's own, or there is no GPU).

    Examples
    --------
    >>> files = [Path("models/bfs_h100.joblib"), Path("models/sssp_h200.joblib")]
    >>> choose_model_file(files, "NVIDIA H100 80GB HBM3", "bfs")
    (PosixPath('models/bfs_h100.joblib'), None)
    >>> path, why = choose_model_file(files, "NVIDIA H200", "bfs")
    >>> path.name, "same architecture (sm_90)" in why
    ('bfs_h100.joblib', True)
    """
    default_feature_names(algorithm)  # validates the name
    own = [(Path(c), _model_file_tag(Path(c), algorithm)) for c in candidates
           if Path(c).suffix == ".joblib" and _model_file_tag(Path(c), algorithm)]
    if not own:
        return None, None
    if not device_name:
        for path, _tag in own:
            if preferred and path.name == preferred:
                return path, None
        return own[0][0], None
    tag = gpu_tag(device_name)
    for path, t in own:
        if t == tag:
            return path, None
    arch = gpu_arch(tag)
    corpus = "models/corpus_sssp.txt" if algorithm == "sssp" else "models/corpus_h200.txt"
    retrain = (f"sweep this GPU and retrain for a model of its own: 'autotune sweep --corpus {corpus} "
               f"--configs train --out models/{algorithm}_{tag or 'gpu'}.jsonl"
               + (" --algorithm sssp" if algorithm == "sssp" else "")
               + f"' then 'autotune retrain models/{algorithm}_{tag or 'gpu'}.jsonl --out "
                 f"models/{algorithm}_{tag or 'gpu'}.joblib"
               + (" --algorithm sssp'" if algorithm == "sssp" else "'"))
    if arch is not None:
        for path, t in own:
            if gpu_arch(t) == arch:
                return path, (f"no {algorithm} selection model for this GPU ({device_name}); using {path.name}, "
                              f"trained on the {t.upper()}, of the same architecture ({arch}): its choices were "
                              f"measured on the other GPU and may not be the fastest here; {retrain}")
    path, t = own[0]
    there = f" ({gpu_arch(t)})" if gpu_arch(t) else ""
    here = f" ({arch})" if arch else ""
    return path, (f"no {algorithm} selection model for this GPU ({device_name}{here}) nor for its architecture; "
                  f"using {path.name}, trained on the {t.upper()}{there}: its choices may be far from the fastest "
                  f"here; {retrain}")


_WARNED: set = set()

#: ``(resolved model file, device name)`` pairs for which :func:`default_model_path` chose a model of
#: another GPU and gave (once) the warning of :func:`choose_model_file`: :func:`load_model` does not
#: repeat it as its own "trained on another GPU" warning.
_CHOSEN_FOR_OTHER_GPU: set = set()


def warn_once(text: str, category=UserWarning, stacklevel: int = 3) -> bool:
    """Issue *text* as a warning the first time this process asks, never again.

    Used for the model choice of :func:`choose_model_file`, asked for at every ``tune``. A text
    asked for while warnings are filtered out (``simplefilter("ignore")``) counts as given.

    Parameters
    ----------
    text : str
        The warning's message; empty or None: nothing.
    category : type of Warning, default UserWarning
    stacklevel : int, default 3
        As :func:`warnings.warn`'s, counted from this function (3: the caller of its caller).

    Returns
    -------
    bool
        Whether it warned now (False when *text* is empty or was given before).
    """
    if not text or text in _WARNED:
        return False
    _WARNED.add(text)
    warnings.warn(text, category, stacklevel=stacklevel)
    return True


def current_device_name() -> str | None:
    """The current GPU's name (``device_properties()["name"]``), None without a usable GPU.

    Asks :func:`autotune._backend.gpu_available` first (a probe cached per process): without CuPy,
    without a CUDA device or with ``$AUTOTUNE_DISABLE_GPU`` no GPU is queried. Never raises.

    Returns
    -------
    str or None
    """
    from ._backend import gpu_available

    if not gpu_available():
        return None
    from ._backend import device_properties

    try:
        return str(device_properties()["name"])
    except Exception:  # noqa: BLE001 - a GPU that cannot be queried counts as none
        return None


#: Default of *device_name* in :func:`default_model_path`: the current GPU (None is "no GPU").
_CURRENT_GPU: Any = type("_CurrentGPU", (), {"__repr__": lambda self: "<current GPU>"})()


def _default_model_choice(algorithm: str, device_name: Any = _CURRENT_GPU
                          ) -> tuple[Path | None, str | None, str | None]:
    """:func:`default_model_path` without warning: the file, :func:`choose_model_file`'s warning
    (None with the environment override) and the device name the choice was made for."""
    default_feature_names(algorithm)  # validates the name
    env = os.environ.get(MODEL_ENV_VARS[algorithm])
    if env:  # a path that exists but is no regular file is returned: load_model names what is wrong with it
        path = Path(env).expanduser()
        return (path if os.path.lexists(path) else None), None, None
    if device_name is _CURRENT_GPU:
        device_name = current_device_name()
    path, why = choose_model_file(_model_candidates(algorithm, _model_dirs()), device_name, algorithm,
                                  preferred=Path(DEFAULT_MODEL_RELPATHS[algorithm]).name)
    return path, why, device_name


def default_model_path(algorithm: str = "bfs", device_name: Any = _CURRENT_GPU) -> Path | None:
    """The model file of *algorithm* for the GPU named *device_name*, or None when there is none.

    1. The environment variable of the algorithm (:data:`MODEL_ENV_VARS`: ``$AUTOTUNE_MODEL`` for
       BFS, ``$AUTOTUNE_SSSP_MODEL`` for SSSP), when set, wins whatever the GPU: that path, or None
       when the file does not exist.
    2. Otherwise the files ``<algorithm>_<gpu>.joblib`` of ``<package>/models`` (installed wheel),
       ``<repo>/models`` (source checkout) and the ``autotune.models`` package location (editable
       installs), in that order, go to :func:`choose_model_file`: this GPU's own model (tag of
       :func:`gpu_tag`: ``bfs_h200.joblib`` on an H200), else one of the same architecture, else
       any; without a GPU, the file named by :data:`DEFAULT_MODEL_RELPATHS` (the shipped default)
       when present, else the first found.

    A model of another GPU comes with :func:`choose_model_file`'s warning, given once per process
    (:func:`warn_once`); :func:`load_model` then does not warn again that the file was trained on
    another GPU.

    Parameters
    ----------
    algorithm : {'bfs', 'sssp'}, default 'bfs'
    device_name : str or None, optional
        The GPU the model is for (``device_properties()["name"]``); default the current GPU's name
        (:func:`current_device_name`: no CuPy import and no GPU query without a GPU), None: pick as
        without a GPU.

    Returns
    -------
    Path or None
        The model file, None when the environment variable names a missing file or no model file of
        *algorithm* was found.

    Warns
    -----
    UserWarning
        Once per process and text, when the file chosen was trained on another GPU.

    Raises
    ------
    InvalidArgumentError
        On an unknown algorithm.
    """
    path, why, device_name = _default_model_choice(algorithm, device_name)
    if why and path is not None:
        _CHOSEN_FOR_OTHER_GPU.add((os.path.realpath(path), device_name))
        warn_once(why)
    return path


def _model_fix(path) -> str:
    """How to replace a bad model file (the end of every :class:`ModelError` about one)."""
    return (f"rebuild it with 'autotune retrain LOGS --out {path}', point --model or $AUTOTUNE_MODEL at a good "
            f"model, or pass --no-model (Table-2 rules)")


@functools.lru_cache(maxsize=8)
def _load_cached(path: str, mtime_ns: int):
    """Unpickle the model at *path* (opened by :func:`autotune._files.open_regular`) and its metadata.

    Raises
    ------
    MissingFileError
        When the file vanished.
    ModelError
        When it cannot be read, does not unpickle (truncated, corrupt, another library's pickle), is
        not a :class:`SelectionModel`, or its ``.json`` metadata is not a JSON object; naming the file.
    """
    import joblib

    from ._files import open_regular, read_text
    from .errors import FileAccessError, MissingFileError, ModelError

    try:
        with open_regular(path, "model file") as fh:
            model = joblib.load(fh)
    except MissingFileError:
        raise
    except FileAccessError as exc:
        raise ModelError(f"{exc}; {_model_fix(path)}", path) from None
    except Exception as exc:  # unpickling a damaged file raises anything (ValueError, EOFError, KeyError, ...)
        raise ModelError(f"{path}: not a readable selection model ({exc.__class__.__name__}: {exc}); "
                         f"{_model_fix(path)}", path) from exc
    if not isinstance(model, SelectionModel):
        raise ModelError(f"{path}: does not hold an autotune SelectionModel (got {type(model).__name__}); "
                         f"{_model_fix(path)}", path)
    meta_file = metadata_path(path)
    meta: Any = {}
    if meta_file.is_file():
        try:
            meta = json.loads(read_text(meta_file, "model metadata file"))
        except FileAccessError as exc:
            raise ModelError(f"{exc}; {_model_fix(path)}", meta_file) from None
        except ValueError as exc:  # json.JSONDecodeError
            raise ModelError(f"{meta_file}: the model's metadata is not valid JSON ({exc}); {_model_fix(path)}",
                             meta_file) from None
        if not isinstance(meta, dict):
            raise ModelError(f"{meta_file}: the model's metadata must be a JSON object, got "
                             f"{type(meta).__name__}; {_model_fix(path)}", meta_file)
    model.metadata_ = meta
    return model


def model_algorithm(model) -> str | None:
    """The traversal a selection model picks configs for: its metadata's ``algorithm``, else the
    algorithm of its label configs (``"bfs"`` for models trained before SSSP existed, whose configs
    name none), else None (an object that does not say, e.g. a stand-in with only ``predict_config``)."""
    meta = getattr(model, "metadata_", None) or {}
    if meta.get("algorithm"):
        return str(meta["algorithm"])
    algs = {str(d.get("algorithm") or "bfs") for d in (getattr(model, "label_configs_", None) or {}).values()}
    return algs.pop() if len(algs) == 1 else None


def load_model(path=None, *, device_name: str | None = None, warn: bool = True,
               algorithm: str | None = None) -> SelectionModel:
    """Load a model saved by :func:`retrain` / :func:`save_model` (and its JSON metadata).

    Warns (:class:`UserWarning`) when the model was trained with another scikit-learn version, or
    for another GPU model than *device_name* (default: the current GPU when there is one), with the
    ``autotune retrain ...`` command that rebuilds it from its logs. Loaded models are cached per
    file (path and modification time).

    Parameters
    ----------
    path : str or os.PathLike, optional
        Default :func:`default_model_path` of *algorithm* (BFS when None) for *device_name*: the
        model of this GPU when there is one.
    device_name : str, optional
        GPU model the predictions are for (default: the current GPU's name, no check without one).
    warn : bool, default True
        Whether to give the version and device warnings below.
    algorithm : {'bfs', 'sssp'}, optional
        The traversal the model must select for (one model per algorithm); None: no check.

    Returns
    -------
    SelectionModel

    Warns
    -----
    UserWarning
        When the model has no metadata, was trained with another scikit-learn version, or on
        another GPU than *device_name*; the last not when :func:`default_model_path` chose this file
        for this GPU and already said so (once per process). With *path* None, also
        :func:`default_model_path`'s warning.

    Raises
    ------
    MissingFileError
        (a ``FileNotFoundError``) When there is no model file.
    ModelError
        When the file cannot be read (a directory, a FIFO, no permission), is corrupt or truncated,
        does not hold a :class:`SelectionModel`, or has unreadable metadata — naming the file and
        saying how to rebuild it; or when *algorithm* is given and the model selects configs of
        another algorithm (:func:`model_algorithm`).
    """
    import sklearn

    from ._files import check_regular_file
    from .errors import FileAccessError, MissingFileError, ModelError

    if path is None:
        rel = DEFAULT_MODEL_RELPATHS.get(algorithm or "bfs", DEFAULT_MODEL_RELPATH)
        path = default_model_path(algorithm or "bfs", _CURRENT_GPU if device_name is None else device_name)
        if path is None:
            raise MissingFileError(rel, "no selection model found; train one with "
                                        f"'autotune retrain LOGS --out {rel}"
                                   + (f" --algorithm {algorithm}'" if algorithm not in (None, "bfs") else "'"))
    path = Path(path).expanduser()
    try:
        mtime = check_regular_file(path, "model file").st_mtime_ns
    except MissingFileError:
        raise
    except FileAccessError as exc:
        raise ModelError(f"{exc}; {_model_fix(path)}", path) from None
    meta_file = metadata_path(path)
    try:
        mtime += meta_file.stat().st_mtime_ns if meta_file.is_file() else 0
    except OSError:  # vanished meanwhile: _load_cached reads without it
        pass
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn's own InconsistentVersionWarning: ours is clearer
        model = _load_cached(str(path.resolve()), mtime)
    meta = model.metadata_
    if warn:
        cmd = meta.get("retrain_command") or f"autotune retrain LOGS --out {path}"
        if not meta:
            warnings.warn(f"model {str(path)!r} has no metadata file ({metadata_path(path).name}); its versions and "
                          f"device cannot be checked", UserWarning, stacklevel=2)
        elif meta.get("sklearn_version") != sklearn.__version__:
            warnings.warn(f"model {str(path)!r} was trained with scikit-learn {meta.get('sklearn_version')} but "
                          f"{sklearn.__version__} is installed; predictions may differ or fail. Retrain it with: "
                          f"{cmd}", UserWarning, stacklevel=2)
        if device_name is None:
            from ._backend import gpu_available

            if gpu_available():
                from ._backend import device_properties

                device_name = device_properties()["name"]
        trained_for = (meta.get("device") or {}).get("name")
        if (device_name is not None and trained_for is not None and trained_for != device_name
                and (os.path.realpath(path), device_name) not in _CHOSEN_FOR_OTHER_GPU):
            warnings.warn(f"model {str(path)!r} was trained on {trained_for!r} but this GPU is {device_name!r}; its "
                          f"choices may not be the fastest here. Sweep this GPU and retrain: 'autotune sweep --corpus "
                          f"models/corpus.txt --out logs/this_gpu.jsonl' then 'autotune retrain logs/this_gpu.jsonl "
                          f"--out models/this_gpu.joblib' (the shipped one was built with: {cmd})",
                          UserWarning, stacklevel=2)
    if algorithm is not None and model_algorithm(model) not in (None, algorithm):
        from .errors import ModelError

        raise ModelError(f"model {str(path)!r} selects {model_algorithm(model)} configs, not {algorithm} ones (one "
                         f"model per algorithm): give an {algorithm} model, e.g. "
                         f"{DEFAULT_MODEL_RELPATHS.get(algorithm, 'models/<algorithm>_<gpu>.joblib')}")
    return model
