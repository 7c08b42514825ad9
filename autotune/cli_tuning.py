"""CLI verbs of the tuning loop: ``autotune tune``, ``autotune sweep``, ``autotune retrain``.

:func:`register` adds the three subcommands to ``autotune``'s argparse subparsers (called from
:mod:`autotune.cli`). Each prints a table, or JSON with ``--json``::

    autotune tune GRAPH... [--algorithm {bfs,sssp}] [--trials N] [--storage URL] [--study NAME] [--retune]
                  [--out config.json]
    autotune sweep [GRAPH...] [--corpus FILE] [--algorithm {bfs,sssp}] --configs {portfolio,grid,train}
                   [--weights DIST] [--levels L] [--rounds R] --out logs/NAME.jsonl
    autotune retrain LOGS... [--algorithm {bfs,sssp}] --out models/NAME.joblib

Every verb works per algorithm (one model, one rule, one search space and one config set per
traversal): e.g. ``autotune sweep --algorithm sssp --configs train --corpus models/corpus_sssp.txt``
then ``autotune retrain LOGS --algorithm sssp --out models/sssp_h200.joblib``.

``sweep`` and ``tune --trials`` need an NVIDIA GPU; ``tune`` without ``--trials`` (profile + model
prediction) and ``retrain`` work on the CPU.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import warnings

from ._cli_common import dispatch, err as _err, expand_graphs, fraction, int_at_least, load_graph_arg
from ._cli_common import nonnegative_float, positive_float
from ._cli_common import console as _console
from ._cli_common import warn_to_stderr as _warn_to_stderr
from ._files import model_candidates as _model_candidates, model_dirs as _model_dirs
from ._tune_result import DEFAULT_N_RANKED

__all__ = ["register", "build_parser", "main", "cmd_tune", "cmd_sweep", "cmd_retrain"]


def _fmt(x, nd: int = 3) -> str:
    if x is None:
        return "-"
    if isinstance(x, bool):
        return "yes" if x else "no"
    if isinstance(x, float):
        return "-" if math.isnan(x) else ("inf" if math.isinf(x) else f"{x:,.{nd}f}")
    if isinstance(x, int):
        return f"{x:,}"
    return str(x)


def _needs_gpu(what: str, alternative: str) -> bool:
    """Print the plain 'needs an NVIDIA GPU' message and return True when no GPU is usable."""
    from ._backend import _probe, gpu_available

    if gpu_available():
        return False
    _err(f"'{what}' needs an NVIDIA GPU with CuPy ({_probe()[1]}). {alternative}")
    return True


# ------------------------------------------------------------------------------- tune: fast path
# ``autotune tune GRAPH`` without --trials on a machine without a GPU answers in well under a second:
# importing scikit-learn (which imports SciPy's stats) to unpickle the forest costs more than a second
# by itself, so the CLI predicts from a compact NumPy copy of the model's trees kept in autotune's
# cache folder (``<cache>/models/*.npz``; :func:`autotune._files.cache_dir`). The copy is made after
# the first prediction that loads the joblib model, and only once it has been checked to give the
# model's own leaves and choices (the shipped format stays joblib). Whatever the fast path does not
# cover exactly (a GPU: stored search results and device checks; a model without a valid copy,
# without metadata, from another scikit-learn version, of another algorithm, or a vote model) goes
# through :func:`autotune.search.tune_detailed`, as before.

#: Layout version of the compact model copies.
_COMPACT_FORMAT = 1

#: The shipped model of each algorithm (the one taken without a GPU) and its environment override,
#: as :func:`autotune.model.default_model_path` finds them (kept equal by tests/test_cli_output.py:
#: importing autotune.model imports scikit-learn, which the fast path avoids).
_MODEL_FILES = {"bfs": "bfs_h200.joblib", "sssp": "sssp_h200.joblib"}
_MODEL_ENV = {"bfs": "AUTOTUNE_MODEL", "sssp": "AUTOTUNE_SSSP_MODEL"}


def _default_model_path(algorithm: str):
    """:func:`autotune.model.default_model_path` for the fast path, which runs without a GPU: its
    choice without a GPU (the environment override, else the shipped default when present, else the
    first ``<algorithm>_*.joblib`` found), made without importing :mod:`autotune.model`. With a GPU
    present, that function answers (and warns, once per process, when the file is another GPU's)."""
    import os
    from pathlib import Path

    env = os.environ.get(_MODEL_ENV[algorithm])
    if env:
        p = Path(env).expanduser()
        return p if os.path.lexists(p) else None
    from ._backend import gpu_available

    if gpu_available():
        from .model import default_model_path

        return default_model_path(algorithm)
    found = _model_candidates(algorithm, _model_dirs())
    for f in found:
        if f.name == _MODEL_FILES[algorithm]:
            return f
    return found[0] if found else None


def _model_file(model, algorithm: str):
    """The model file the fast path would load, resolved (None when there is none), and how the
    slow path names it in its message (the default path, or the --model argument as given)."""
    import os
    from pathlib import Path

    path = _default_model_path(algorithm) if model is None else Path(os.fspath(model)).expanduser()
    if path is None:
        return None, None
    where = str(path) if model is None else os.fspath(model)
    try:
        return path.resolve(strict=True), where
    except OSError:
        return None, where


def _compact_key(path) -> list | None:
    """What a compact copy of the model at *path* must match: the layout, autotune's version, the
    model file's and its metadata's size and mtime, and those of autotune/model.py,
    autotune/features.py (a change of the selection or profile code invalidates every copy) and
    scikit-learn's ``__init__.py`` (another scikit-learn: the copy records the version it was made
    with, which the model's metadata is compared with)."""
    import os
    import stat

    from . import __version__

    here = os.path.dirname(__file__)
    try:
        import importlib.util

        sk = importlib.util.find_spec("sklearn")  # finds, does not import
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode) or sk is None or not sk.origin:
            return None
        files = [st, os.stat(path.with_suffix(".json")), os.stat(os.path.join(here, "model.py")),
                 os.stat(os.path.join(here, "features.py")), os.stat(sk.origin)]
    except (OSError, ImportError, ValueError):
        return None
    return [_COMPACT_FORMAT, __version__] + [x for f in files for x in (f.st_size, f.st_mtime_ns)]


def _compact_file(path):
    import hashlib

    from ._files import cache_dir

    digest = hashlib.sha256(str(path).encode()).hexdigest()[:16]
    return cache_dir() / "models" / f"{path.stem}-{digest}.npz"


class _CompactModel:
    """A selection model's regret decision from NumPy arrays (no scikit-learn): its trees' nodes,
    the training graphs' leaves and log regrets, the design matrix of its derived features. Made by
    :func:`_write_compact` only after it reproduced the model's leaves and choices."""

    def __init__(self, z):
        import json

        self.classes_ = z["classes"]
        self.feature_names = tuple(str(x) for x in z["feature_names"])
        self.design = z["design"]
        self.train_leaves = z["train_leaves"]
        self.train_log_regret = z["train_log_regret"]
        self.left, self.right = z["left"], z["right"]
        self.feature, self.threshold, self.offsets = z["feature"], z["threshold"], z["offsets"]
        self.label_configs_ = json.loads(str(z["label_configs"]))
        self.metadata_ = json.loads(str(z["meta"]))
        self.algorithm = str(z["algorithm"]) or None
        self.sklearn_version = str(z["sklearn_version"])
        self.risk = float(z["risk"]) if "risk" in z else 0.0

    def leaves(self, X):
        """Leaf (node index) of every row of *X* (model features) in every tree, as ``apply`` does
        (scikit-learn compares the float32 inputs with the float64 thresholds)."""
        import numpy as np

        Xd = (np.asarray(X, dtype=np.float64) @ self.design).astype(np.float32)
        n_trees = self.offsets.size - 1
        out = np.empty((Xd.shape[0], n_trees), dtype=np.int64)
        left, right, feat, thr = self.left.tolist(), self.right.tolist(), self.feature.tolist(), self.threshold.tolist()
        for r in range(Xd.shape[0]):
            row = Xd[r].tolist()
            for k in range(n_trees):
                base = int(self.offsets[k])
                node = 0
                while left[base + node] != -1:
                    node = left[base + node] if row[feat[base + node]] <= thr[base + node] else right[base + node]
                out[r, k] = node
        return out

    def expected_log_regret(self, X, risk: float = 0.0):
        """Forest-weighted mean of the training graphs' log regrets, shape (n_rows, n_classes), float64
        (plus *risk* times their forest-weighted standard deviation when *risk* > 0):
        :meth:`autotune.model.SelectionModel.predict_regret`'s logarithm and its decision score,
        computed by the same operations in the same order (bit-identical, tests/test_cli_output.py)."""
        import numpy as np

        leaves_of = self.leaves(X)
        out = np.empty((leaves_of.shape[0], self.classes_.size))
        for r, leaves in enumerate(leaves_of):
            same = self.train_leaves == leaves[None, :]
            size = same.sum(axis=0)
            keep = size > 0
            w = (same[:, keep] / size[keep]).sum(axis=1)
            total = max(w.sum(), 1e-300)
            out[r] = w @ self.train_log_regret / total
            if risk > 0.0:
                var = w @ (self.train_log_regret - out[r][None, :]) ** 2 / total
                out[r] = out[r] + risk * np.sqrt(np.maximum(var, 0.0))
        return out

    def predict(self, X):
        """The label of smallest decision score (the forest-weighted mean log regret plus ``risk`` of
        its standard deviations), per row (ties: the first class)."""
        import numpy as np

        return self.classes_[np.argmin(self.expected_log_regret(X, self.risk), axis=1)].astype(str)

    def predict_config(self, features):
        """The config of the predicted label; ValueError when it cannot be rebuilt exactly (the slow
        path then says why)."""
        import numpy as np

        from .config import TraversalConfig

        x = features.vector(self.feature_names)
        if not np.isfinite(x).all():
            raise ValueError("non-finite features")
        label = str(self.predict(x[None, :])[0])
        cfg = TraversalConfig.from_dict(self.label_configs_[label])
        if cfg.config_id != label:
            raise ValueError("the config table changed since training")
        return cfg


def _read_compact(path):
    """The compact copy of the model at *path*, or None (none, stale, unreadable or not usable): the
    one in autotune's cache folder, else the one shipped beside the model (:func:`shipped_compact_file`)."""
    key = _compact_key(path)
    if key is None:
        return None
    import json

    import numpy as np

    try:
        with np.load(_compact_file(path), allow_pickle=False) as z:
            if json.loads(str(z["key"])) == key and bool(z["ok"]):
                return _CompactModel(z)
    except Exception:  # missing, partial or foreign file: the shipped copy, else the slow path answers
        pass
    return _read_shipped_compact(path)


def shipped_compact_file(path):
    """Where the compact copy shipped with the model at *path* lives: ``<stem>.compact.npz`` beside it
    (``models/bfs_h200.compact.npz``), written by ``autotune retrain`` (:func:`write_shipped_compact`)
    so that a machine's first ``autotune tune`` without a GPU needs no scikit-learn either."""
    return path.with_name(path.stem + ".compact.npz")


def _content_key(path) -> list | None:
    """What a shipped compact copy must match: the layout and the SHA-256 of the model file and of
    its metadata (contents, not times: a checkout or an install gives the files new times). That
    the copy also matches the code reading it is what tests/test_cli_output.py checks in CI."""
    import hashlib

    try:
        digests = [hashlib.sha256(p.read_bytes()).hexdigest() for p in (path, path.with_suffix(".json"))]
    except OSError:
        return None
    return [_COMPACT_FORMAT, "content"] + digests


def _sklearn_version_unimported() -> str | None:
    """The installed scikit-learn's version from its package metadata (scikit-learn not imported), or
    None: the ``Version`` of the one ``scikit_learn-*.dist-info`` beside the ``sklearn`` package that
    would be imported, else :func:`importlib.metadata.version` (whose import, about 15 ms, the fast
    path of ``autotune tune`` spares when the first answers)."""
    try:
        import importlib.util
        from pathlib import Path

        spec = importlib.util.find_spec("sklearn")  # finds, does not import
        if spec is not None and spec.origin:
            found = list(Path(spec.origin).parent.parent.glob("scikit_learn-*.dist-info"))
            if len(found) == 1:
                with open(found[0] / "METADATA", encoding="utf-8") as fh:
                    for line in fh:
                        if line.startswith("Version:"):
                            return line[len("Version:"):].strip()
                        if not line.strip():
                            break  # end of the headers
    except (OSError, ImportError, ValueError):
        pass
    try:
        from importlib.metadata import version

        return str(version("scikit-learn"))
    except Exception:
        return None


def _read_shipped_compact(path):
    """The compact copy shipped beside the model at *path* when it is this model's (content key) and
    was made with the installed scikit-learn; else None."""
    import json

    import numpy as np

    f = shipped_compact_file(path)
    key = _content_key(path)
    if key is None or not f.is_file():
        return None
    try:
        with np.load(f, allow_pickle=False) as z:
            if json.loads(str(z["key"])) != key or not bool(z["ok"]):
                return None
            if str(z["sklearn_version"]) != _sklearn_version_unimported():
                return None  # another scikit-learn: the slow path loads the model (and warns if needed)
            return _CompactModel(z)
    except Exception:
        return None


def write_shipped_compact(path):
    """Write the compact copy of the model at *path* beside it (:func:`shipped_compact_file`),
    checked like the cached copies (the model's own leaves, choices and feature vectors); needs
    scikit-learn. Returns the file written.

    Raises
    ------
    ModelError
        When the model cannot be reproduced by a compact copy (a vote model, no metadata).
    """
    from pathlib import Path

    import numpy as np

    from .errors import ModelError

    path = Path(path)
    key = _content_key(path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        arrays, ok = _compact_arrays(path, key) if key is not None else ({}, False)
    if not ok:
        raise ModelError(f"{path}: no compact copy can reproduce this model (a regret model with metadata is needed)")
    out = shipped_compact_file(path)
    np.savez_compressed(out, **arrays)
    return out


def _write_compact(path) -> bool:
    """Write the compact copy of the model at *path* (loaded through :func:`autotune.model.load_model`,
    normally from its per-process cache) after checking on random feature rows that it gives the
    model's own leaves and predictions; a model it cannot reproduce is recorded as such (``ok``
    false) so that later runs take the slow path at once. Returns whether a usable copy was written.
    Any failure (an unwritable cache folder) is silent: the copy is an optimisation."""
    import os
    import tempfile

    import numpy as np

    key = _compact_key(path)
    if key is None:
        return False
    out = _compact_file(path)
    with warnings.catch_warnings():  # nothing of this is the user's business
        warnings.simplefilter("ignore")
        arrays, ok = _compact_arrays(path, key)
    tmp = None
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=out.stem, suffix=".npz", dir=out.parent)
        with os.fdopen(fd, "wb") as fh:
            np.savez(fh, **arrays)
        os.replace(tmp, out)
    except OSError:
        if tmp is not None and os.path.exists(tmp):
            os.unlink(tmp)
        return False
    return bool(ok)


def _compact_arrays(path, key) -> tuple[dict, bool]:
    """The arrays of the compact copy of the model at *path* and whether it reproduces the model."""
    import json

    import numpy as np

    arrays: dict = {"key": np.asarray(json.dumps(key)), "ok": np.asarray(False)}
    try:
        from .model import load_model, model_algorithm

        m = load_model(path, warn=False)
        trees = [e.tree_ for e in m.estimator_.estimators_]
        n = int(m.n_features_in_)
        design = np.asarray(m._design(np.eye(n)), dtype=np.float64)
        sizes = [t.node_count for t in trees]
        arrays.update(
            classes=np.asarray(m.classes_).astype(str), feature_names=np.asarray(m.feature_names_in_).astype(str),
            design=design, train_leaves=np.asarray(m.train_leaves_, dtype=np.int64),
            train_log_regret=np.asarray(m.train_log_regret_, dtype=np.float64),
            left=np.concatenate([t.children_left for t in trees]).astype(np.int64),
            right=np.concatenate([t.children_right for t in trees]).astype(np.int64),
            feature=np.concatenate([t.feature for t in trees]).astype(np.int64),
            threshold=np.concatenate([t.threshold for t in trees]).astype(np.float64),
            offsets=np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
            label_configs=np.asarray(json.dumps(getattr(m, "label_configs_", {}))),
            meta=np.asarray(json.dumps(getattr(m, "metadata_", {}) or {})),
            algorithm=np.asarray(model_algorithm(m) or ""), sklearn_version=np.asarray(_installed_sklearn()),
            risk=np.asarray(float(m.risk)))
        ok = (getattr(m, "decision_", "vote") == "regret" and bool(m.metadata_)
              and arrays["train_leaves"].shape[1] == len(trees))
        if ok:
            compact = _CompactModel(arrays)
            rng = np.random.default_rng(0)
            lo = np.zeros(n)
            hi = np.ones(n)
            for j in range(n):  # each feature over the range its splits cover, and beyond
                thr = compact.threshold[(compact.feature == j) & (compact.left != -1)]
                if thr.size:
                    lo[j], hi[j] = thr.min() - 1.0, thr.max() + 1.0
            X = rng.uniform(lo, hi, size=(96, n))
            ok = (np.array_equal(compact.leaves(X), np.asarray(m._leaves(m._design(X))))
                  and np.array_equal(compact.predict(X), np.asarray(m.predict(X)).astype(str))
                  and _same_inputs(m, compact))
        arrays["ok"] = np.asarray(bool(ok))
    except Exception:  # a model this code cannot copy: record it, the slow path stays
        return {"key": arrays["key"], "ok": np.asarray(False)}, False
    return arrays, bool(ok)


def _same_inputs(m, compact) -> bool:
    """Whether the model and its copy read the same feature vector from a profile (two small
    weighted graphs, one directed)."""
    import numpy as np

    from .features import profile
    from .generators import generate
    from .sweep import attach_weights

    for spec in ("grid:rows=8,cols=9,drop=0.1", "kron:scale=7,edge_factor=4,directed=true"):
        f = profile(attach_weights(generate(spec, xp=np), "int:1:255"))
        if not np.array_equal(np.asarray(m.features_row(f), dtype=np.float64)[0],
                              f.vector(compact.feature_names)):
            return False
    return True


def _remember_model(model, algorithm: str) -> None:
    """After a slow-path prediction: write the compact copy of the model used, when it has none."""
    from ._backend import gpu_available

    if model is False or gpu_available():
        return
    path, _ = _model_file(model, algorithm)
    if path is not None and _read_compact(path) is None:
        _write_compact(path)


def _fast_path(g, args, model):
    """:func:`autotune.search.tune_detailed`'s answer without a GPU and without --trials, computed
    without scikit-learn (the rules, or the compact copy of the model), or None when the slow path
    must answer (see the comment above)."""
    import time

    from ._backend import gpu_available

    if gpu_available():
        return None
    algorithm = args.algorithm
    mdl = where = None
    if model is not False:
        path, where = _model_file(model, algorithm)
        mdl = _read_compact(path) if path is not None else None
        if mdl is None or mdl.algorithm not in (None, algorithm):
            return None
        if mdl.metadata_.get("sklearn_version") != mdl.sklearn_version:
            return None  # trained with another scikit-learn than the installed one: the slow path warns
    from ._tune_result import TuneResult
    from .features import profile

    t0 = time.perf_counter()
    feats = profile(g)
    profile_ms = (time.perf_counter() - t0) * 1e3
    base = dict(graph=g.name, fingerprint=g.fingerprint, features=feats, device=None, profile_ms=profile_ms)
    t1 = time.perf_counter()
    if mdl is None:  # --no-model
        from .search import _RULE_TEXT, _TRAIN_HINT
        from .sssp_rules import BASELINE_NAMES, baseline_rule

        cfg = baseline_rule(algorithm, feats, None)
        msg = f"no selection model (disabled): using {_RULE_TEXT[algorithm]}; " + _TRAIN_HINT[algorithm]
        warnings.warn(msg, UserWarning, stacklevel=2)
        return TuneResult(cfg, BASELINE_NAMES[algorithm], select_ms=(time.perf_counter() - t1) * 1e3, message=msg,
                          **base)
    try:
        cfg = mdl.predict_config(feats)
    except Exception:  # the slow path says what is wrong
        return None
    if cfg.algorithm != algorithm:
        return None
    return TuneResult(cfg, "model", select_ms=(time.perf_counter() - t1) * 1e3,
                      message=f"predicted by the selection model ({where})", **base)


def _installed_sklearn() -> str:
    """The installed scikit-learn's version (imported: only called while making a copy)."""
    import sklearn

    return str(sklearn.__version__)


# ------------------------------------------------------------------------------------------ tune
def cmd_tune(args) -> int:
    """``autotune tune``: fast path (profile + model) or, with ``--trials``, an Optuna search."""
    if args.trials is not None and _needs_gpu("autotune tune --trials",
                                              "'autotune tune' without --trials works without one."):
        return 2
    graphs = expand_graphs(args.graphs)  # shared:NAME (and shared: globs) resolved first
    if args.out and len(graphs) > 1:
        _err("--out writes one config: give a single GRAPH")
        return 2
    if args.out:
        import os

        from .errors import FileAccessError

        folder = os.path.dirname(os.path.abspath(args.out))
        if not os.path.isdir(folder):  # say so now, not after the search
            raise FileAccessError(args.out, "cannot write the config file (--out): folder not found")

    model = False if args.no_model else (args.model or None)
    results = []
    for spec in graphs:
        g = load_graph_arg(spec, args)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            res = _fast_path(g, args, model) if args.trials is None else None
            if res is None:
                from .search import tune_detailed

                res = tune_detailed(g, args.trials, algorithm=args.algorithm, storage=args.storage,
                                    study_name=args.study, timeout=args.timeout, retune=args.retune, model=model,
                                    n_sources=args.sources, seed=args.seed, log=args.log, progress=not args.json,
                                    n_ranked=args.ranked)
                if args.trials is None and res.method == "model":
                    _remember_model(model, args.algorithm)
        _warn_to_stderr(caught)
        results.append(res)
    if args.out:
        from ._files import write_text

        write_text(args.out, results[0].config.to_json() + "\n", "config file (--out)")
    if args.json:
        print(json.dumps([r.to_dict() for r in results], indent=2))
        return 0
    from rich.table import Table

    t = Table(title="autotune tune" + (f" — search, {args.trials} trials" if args.trials else " — fast path"))
    for c in ("graph", "method", "config", "config_id", "profile ms", "select ms", "best ms", "study / trials"):
        t.add_column(c, justify="right" if "ms" in c else "left",
                     overflow="fold" if c in ("graph", "config", "config_id") else "ellipsis")
    for r in results:
        study = f"{r.study} ({r.n_trials})" if r.study else "-"
        t.add_row(r.graph, r.method, r.config.label, r.config.config_id, _fmt(r.profile_ms, 1), _fmt(r.select_ms, 1),
                  _fmt(r.best_ms, 4), study)
    con = _console()
    con.print(t)
    for r in results:
        con.print(f"{r.graph}: {r.message}")
    if args.out:
        con.print(f"config written to {args.out} (run it with: autotune run GRAPH --config {args.out})")
    return 0


# ----------------------------------------------------------------------------------------- sweep
def cmd_sweep(args) -> int:
    """``autotune sweep``: measure a config set on many graphs into a benchmark log (GPU)."""
    if not args.graphs and not args.corpus:
        _err("give GRAPH arguments and/or --corpus FILE")
        return 2
    if _needs_gpu("autotune sweep", "'autotune retrain' and 'autotune tune' (fast path) work without one."):
        return 2
    from .sweep import sweep

    res = sweep(expand_graphs(args.graphs) or None, configs=args.configs, out=args.out, n_sources=args.sources,
                seed=args.seed, progress=not args.json, corpus=args.corpus, validate_sources=args.validate_sources,
                retry_invalid=args.retry_invalid, undirected=args.undirected, algorithm=args.algorithm,
                weights=args.weights, levels=args.levels, validate_on_device=args.validate_on_device,
                rounds=args.rounds)
    summary = {"out": res.out, "n_measured": res.n_measured, "n_skipped": res.n_skipped, "n_invalid": res.n_invalid,
               "graphs": res.graphs}
    if args.json:
        print(json.dumps(summary, indent=2))
    else:
        from rich.table import Table

        best: dict = {}
        for r in res.records:
            if r.valid and (r.fingerprint not in best or r.median_ms < best[r.fingerprint].median_ms):
                best[r.fingerprint] = r
        t = Table(title=f"autotune sweep → {res.out}: {res.n_measured} measured, {res.n_skipped} already logged, "
                        f"{res.n_invalid} invalid")
        for c in ("graph", "vertices", "edges", "fastest config (this run)", "median ms", "GTEPS"):
            t.add_column(c, justify="left" if c in ("graph", "fastest config (this run)") else "right",
                         overflow="fold" if c in ("graph", "fastest config (this run)") else "ellipsis")
        for g in res.graphs:
            b = best.get(g["fingerprint"])
            t.add_row(g["name"], _fmt(g["n_vertices"]), _fmt(g["n_edges"]),
                      b.config_id + " " + _label(b.config) if b else "-",
                      _fmt(b.median_ms, 4) if b else "-", _fmt(b.measure.get("gteps"), 2) if b else "-")
        _console().print(t)
    for r in res.records:
        if not r.valid:
            _err(f"{r.graph['name']} × {r.config_id}: {r.error}")
    return 1 if res.n_invalid else 0


def _label(config: dict) -> str:
    from .config import TraversalConfig

    try:
        return TraversalConfig.from_dict(config).label
    except ValueError:
        return "(config of another release)"


# --------------------------------------------------------------------------------------- retrain
def cmd_retrain(args) -> int:
    """``autotune retrain``: train the selection model from logs, print its LOGO regret table (CPU)."""
    from .model import cli_estimator, regret_rows, retrain

    estimator = cli_estimator(args.estimator, args.n_estimators, args.seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = retrain(args.logs, out=args.out, estimator=estimator, device=args.device,
                        label_tolerance=args.label_tolerance, random_state=args.seed, algorithm=args.algorithm,
                        risk=args.risk)
    _warn_to_stderr(caught)
    if args.out:  # the compact copy beside the model: a first 'autotune tune' needs no scikit-learn
        from pathlib import Path

        from .errors import ModelError

        try:
            write_shipped_compact(Path(args.out))
        except (ModelError, OSError) as exc:
            print(f"autotune: warning: no compact copy written beside {args.out}: {exc}", file=sys.stderr)
    meta = model.metadata_
    study = _per_level_study(args.logs, meta)
    if args.json:
        out = {"out": args.out, "algorithm": meta.get("algorithm", "bfs"), "n_graphs": meta["n_graphs"],
               "n_records": meta["n_records"], "device": meta["device"], "labels": meta["label_counts"],
               "cv": meta["cv"]["regret"], "cv_lofo": meta["cv"].get("lofo"), "cv_real": meta["cv"].get("real"),
               "one_launch": meta.get("one_launch")}
        if study is not None:
            out["per_level"] = study.to_dict()
        print(json.dumps(out, indent=2, default=str))
        return 0
    from rich.table import Table

    t = Table(title=f"leave-one-graph-out regret ({meta.get('algorithm', 'bfs').upper()}) — {meta['n_graphs']} graphs, "
                    f"{meta['device'].get('name')} "
                    f"(time of the chosen config / time of the best; 1.000 = best)")
    for c in ("method", "geomean", "worst", "within 5% of best", "graphs", "invalid picks"):
        t.add_column(c, justify="left" if c == "method" else "right", overflow="fold" if c == "method" else "ellipsis")
    for row in regret_rows(meta["cv"]):
        t.add_row(row["title"], _fmt(row["geomean"]), _fmt(row["worst"]),
                  "-" if row["within_5pct"] is None else f"{100 * row['within_5pct']:.0f}%", _fmt(row["n_graphs"]),
                  _fmt(row["n_invalid"]))
    con = _console()
    con.print(t)
    from .model import regret_report

    if meta["cv"].get("lofo") or meta["cv"].get("real"):  # leave-one-family-out and the real graphs alone
        con.print(regret_report(meta["cv"]), markup=False, highlight=False)
    con.print(f"{len(meta['labels'])} label(s): " + ", ".join(f"{k} ×{v}" for k, v in meta["label_counts"].items()))
    pooled = meta.get("one_launch") or {}
    if pooled.get("graphs"):
        con.print(f"one-launch kernels: on {pooled['graphs']} graph(s) the configs that ran one are charged one "
                  f"time each ({', '.join(f'{p} {k} configs' for p, k in sorted(pooled['configs'].items()))}); "
                  f"{pooled['fitted_on_launch_rounds']} graph(s) fitted on launch-round records", markup=False,
                  highlight=False)
    if args.out:
        con.print(f"model written to {args.out} (+ metadata {str(args.out).rsplit('.', 1)[0]}.json)")
    if study is not None:
        from .policy import format_study

        con.print("")
        con.print(format_study(study), markup=False, highlight=False)
    return 0


def _per_level_study(logs, meta):
    """The per-level policy study (:func:`autotune.policy.per_level_oracle`, with the simulated policy) of the records retrain
    trained on (its algorithm and device), or None when they carry no level trace
    (``autotune sweep --levels``)."""
    from .logs import read_log
    from .policy import has_level_traces, per_level_oracle

    device = (meta.get("device") or {}).get("name")
    records = [r for r in read_log(logs, warn=False).records
               if r.algorithm == meta.get("algorithm", "bfs") and (device is None or r.device_name == device)]
    if not has_level_traces(records):
        return None
    return per_level_oracle(records, policy=True)


# ------------------------------------------------------------------------------------------ wire
def _algorithm_arg(sp, help_: str) -> None:
    sp.add_argument("--algorithm", choices=["bfs", "sssp"], default="bfs", help=help_)


def _graph_args(sp, required: bool = True) -> None:
    sp.add_argument("graphs", nargs="+" if required else "*", metavar="GRAPH",
                    help="file (.txt[.gz] SNAP, .mtx[.gz], .gr), generator spec (e.g. kron:scale=20) or "
                         "shared:NAME (a file of the shared graph set)")
    sp.add_argument("--undirected", action="store_true",
                    help="symmetrize edge lists (SNAP/DIMACS files are read as directed by default)")
    sp.add_argument("--weights", default=None, metavar="DIST",
                    help="seeded weights (seed 0) for graphs without their own, e.g. int:1:255 (GAP's, the SSSP "
                         "benchmark's) or float:0.5:2; generator specs can say weights=DIST instead")


def register(subparsers) -> None:
    """Add the ``tune``, ``sweep`` and ``retrain`` subcommands to *subparsers* (argparse).

    Parameters
    ----------
    subparsers : argparse._SubParsersAction
        From ``parser.add_subparsers(...)``; each subcommand sets ``func`` to its handler, which
        takes the parsed namespace and returns the exit status.
    """
    sp = subparsers.add_parser("tune", help="pick the fastest config: model prediction (CPU ok) or --trials search (GPU)")
    _graph_args(sp)
    _algorithm_arg(sp, "the traversal to tune: bfs (default) or sssp (its own model, rule and search space)")
    sp.add_argument("--weight-column", type=int, default=None, metavar="N",
                    help="0-based column of an edge-list file holding edge weights (default: none, unweighted)")
    sp.add_argument("--trials", type=int_at_least(1), default=None, metavar="N",
                    help="run an Optuna search until the study holds N finished trials (GPU); "
                         "without it: profile + model prediction (fast path)")
    sp.add_argument("--ranked", type=int_at_least(1), default=DEFAULT_N_RANKED, metavar="K",
                    help="search: measure the model's K best-ranked configs (its pick first, then the rule, then "
                         "the next K-1) before the sampler proposes; --trials 5 with the default 4 measures just "
                         "those and the rule (default %(default)s)")
    sp.add_argument("--storage", default=None, metavar="URL",
                    help="Optuna storage URL (default sqlite:///~/.cache/autotune/studies.db; postgresql://... "
                         "lets several workers share a study)")
    sp.add_argument("--study", default=None, metavar="NAME", help="study name (default: from graph and GPU)")
    sp.add_argument("--retune", action="store_true", help="search again even if this graph was tuned on this GPU")
    sp.add_argument("--timeout", type=positive_float, default=None, metavar="S",
                    help="stop the search after S seconds")
    sp.add_argument("--model", default=None, metavar="PATH", help="selection model (default: the shipped one)")
    sp.add_argument("--no-model", action="store_true",
                    help="ignore any model: the algorithm's rule (fast path; BFS: Table 2, SSSP: the Delta rule)")
    sp.add_argument("--sources", type=int_at_least(1), default=16, help="sources per trial (search)")
    sp.add_argument("--seed", type=int, default=0, help="seed of the sources and the sampler")
    sp.add_argument("--log", default=None, metavar="PATH",
                    help="benchmark log of the search (default ~/.cache/autotune/tune.jsonl)")
    sp.add_argument("--out", default=None, metavar="config.json", help="write the chosen config as JSON")
    sp.add_argument("--json", action="store_true", help="print JSON instead of a table")
    sp.set_defaults(func=cmd_tune)

    sp = subparsers.add_parser("sweep", help="measure many configs on many graphs into a benchmark log (GPU)")
    _graph_args(sp, required=False)
    sp.add_argument("--corpus", default=None, metavar="FILE",
                    help="file listing graphs, one per line, '#' comments (e.g. models/corpus.txt)")
    sp.add_argument("--configs", choices=["portfolio", "grid", "train"], default="portfolio",
                    help="portfolio: each technique's default and its one-knob changes; grid: every technique "
                         "with none / each / all of its options, push and push_pull (the crossover study); "
                         "train: the grid plus the persistent small-frontier path, four small-graph and six large-block configs "
                         "(the shipped model's labels, 64 configs); "
                         "with --algorithm sssp the same sets of SSSP configs (train: every method x delta scale on "
                         "five main technique configs, and Bellman-Ford's in-place expansion on the persistent ones)")
    _algorithm_arg(sp, "the traversal of the --configs set: bfs (default) or sssp (train: every SSSP method x delta "
                       "scale on five main technique configs and the in-place expansion, 58 configs; sweep the weighted corpus "
                       "models/corpus_sssp.txt)")
    sp.add_argument("--out", required=True, metavar="logs/NAME.jsonl", help="JSONL log, appended to (resumable)")
    sp.add_argument("--sources", type=int_at_least(1), default=16, help="sources per measurement")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--validate-sources", type=int_at_least(0), default=None, metavar="K",
                    help="validate only the first K sources of each config (default: all)")
    sp.add_argument("--validate-on-device", action="store_true",
                    help="check the validated traversals on the GPU (Graph500 checks for BFS, optimality "
                         "conditions for SSSP) instead of against the CPU reference: much faster on large graphs")
    sp.add_argument("--retry-invalid", action="store_true", help="measure again pairs logged as invalid")
    sp.add_argument("--levels", type=int_at_least(0), default=0, metavar="L",
                    help="also log the per-level trace (first L levels) of one traversal per config, for the "
                         "per-level policy study ('autotune retrain' reports its oracle bound)")
    sp.add_argument("--rounds", type=int_at_least(1), default=1, metavar="R",
                    help="passes over each graph's configs (default 1): with R > 1, R - 1 more passes time the "
                         "valid configs again, interleaved (order rotated each pass), and each source's logged time "
                         "is its median over the passes, so drift between configs' turns is shared by all")
    sp.add_argument("--json", action="store_true", help="print JSON instead of a table")
    sp.set_defaults(func=cmd_sweep)

    sp = subparsers.add_parser("retrain", help="train the selection model from benchmark logs (CPU)")
    sp.add_argument("logs", nargs="+", metavar="LOGS", help="JSONL logs, globs or folders")
    sp.add_argument("--out", default=None, metavar="models/NAME.joblib",
                    help="where to save the model (+ .json metadata); not saved when omitted")
    sp.add_argument("--device", default=None, help="device name to train for (default: most records)")
    sp.add_argument("--algorithm", choices=["bfs", "sssp"], default=None,
                    help="train on the records of this traversal (one model per algorithm; default: the algorithm "
                         "of the records, refusing logs that mix them)")
    sp.add_argument("--estimator", choices=["regret_forest", "random_forest", "extra_trees"], default="regret_forest",
                    help="regret_forest (default): a regression forest grown on each graph's log regrets of the "
                         "configs, capped at 1.2x; random_forest / extra_trees: classification trees grown on the "
                         "labels (the previous SSSP model's); every one decides by the leaf-weighted mean log regret "
                         "(plus --risk standard deviations)")
    sp.add_argument("--n-estimators", type=int_at_least(1), default=200)
    sp.add_argument("--label-tolerance", type=fraction, default=0.02,
                    help="configs within this fraction of a graph's best are label ties")
    sp.add_argument("--seed", type=int, default=0)
    sp.add_argument("--risk", type=nonnegative_float, default=0.0,
                    help="risk aversion of the decision: each config's score is the mean log regret over the "
                         "graph's neighbours in the forest plus RISK standard deviations of it (default 0: the "
                         "mean alone, as in the shipped models)")
    sp.add_argument("--json", action="store_true", help="print JSON instead of a table")
    sp.set_defaults(func=cmd_retrain)


def build_parser() -> argparse.ArgumentParser:
    """A parser with only the tuning verbs (tests, ``python -m autotune.cli_tuning``)."""
    p = argparse.ArgumentParser(prog="autotune", description="Tuning loop of autotune.")
    register(p.add_subparsers(dest="command", required=True))
    return p


def main(argv=None) -> int:
    """Run a tuning verb (same error handling as ``autotune``: :func:`autotune._cli_common.dispatch`)."""
    return dispatch(build_parser().parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
