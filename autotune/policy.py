"""Per-level policy study: how much could choosing the kernel path and direction *per BFS level* gain
over the per-graph choice of one config?

GSWITCH (Meng, Li, Fan, Li, Sun, Zhang and Wen, "GSWITCH: A Pattern-based Algorithmic Autotuning
Framework for Graph Processing on GPUs", PPoPP 2019) switches strategy every iteration from
features the device computes on the fly (frontier size, edges, unvisited share). autotune picks
one config per graph. Before building such a per-level policy, this module measures an *upper
bound* on what it could gain on a benchmark corpus, from the level traces that
``autotune sweep --levels L`` logs (:func:`autotune.sweep.sweep`, ``measure.levels``):

* every config of a graph traverses once more from the same first source, so level *i* is the
  same vertex set (BFS depth *i*) for every config and its device time (``us``, from
  ``%globaltimer``) is comparable across configs;
* the per-graph choice is the config of least ``median_ms`` (what the selection model is trained
  to pick); ``T_best`` is the sum of its traced level times;
* the **oracle** total ``T_oracle`` is the sum over levels of the least level time over all
  traced configs of the graph: what a policy that switches among the swept configs at every
  level, for free and with perfect knowledge, would spend. ``gain = T_best / T_oracle >= 1``;
* the **restricted** oracle may only switch among the configs that share the per-graph best's
  ``load_balance`` technique and ``block_size`` (so per level it changes the small-frontier path,
  its limit and the direction — and, where the swept set varies them within a technique, that
  technique's other knobs, which makes it still an upper bound on a path-and-direction switch);
* ``coverage`` = ``T_best / 1000 / median_ms``: the share of the per-graph best's median time
  that its traced levels account for. The rest (launch and replay overhead, host work, the
  difference between the first source and the median source) is out of any per-level policy's
  reach. ``coverage_first`` compares with the timed traversal from the traced source itself, and
  ``traversal_gain`` takes the oracle's saving off that traversal: what the bound is worth on a
  whole traversal.

The gain splits into ``static_gain`` (the single config fastest on the traced source against the
least-median one: source mismatch and noise, no per-level switch needed) times ``level_gain`` (the
oracle against that single config: what only switching per level gives).

The oracle knows every config's time at every level (one traced traversal each, so its per-level
minimum also picks up timing noise in its favour), switches for free (no state hand-over between
kernels, no recomputed frontier layout), and its level times are of one source. A real policy needs
on-device features to decide and realises less: :func:`simulate_policy` (``per_level_oracle(...,
policy=True)``, what ``autotune retrain`` prints) trains one, a forest over :data:`POLICY_FEATURES`,
on the other families' (or graphs') traces and charges its choices on each held-out graph, still
switching for free; it is built into the kernels only if that gains :data:`KEEP_THRESHOLD` on whole
traversals.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Mapping

__all__ = ["KEEP_THRESHOLD", "GraphLevelRow", "PerLevelStudy", "per_level_oracle", "has_level_traces",
           "format_study", "simulate_policy", "POLICY_FEATURES"]

#: The restricted oracle's geometric-mean gain a per-level policy must reach before it is built.
KEEP_THRESHOLD = 1.05

#: The per-graph best's config keys the restricted oracle holds fixed.
RESTRICTED_KEYS = ("load_balance", "block_size")


@dataclass
class GraphLevelRow:
    """The oracle bound of one graph.

    Attributes
    ----------
    name, fingerprint, family, device : str
        The graph (``graph.family``, else :func:`autotune.sweep.graph_family`) and the device.
    n_configs : int
        Configs with a complete level trace.
    n_levels : int
        Levels of the traced traversal.
    best_config_id : str
        The per-graph best (least ``median_ms``).
    best_median_ms : float
        Its median time per traversal (ms).
    best_us : float
        ``T_best``: the sum of its traced level times (µs).
    static_us : float
        The least traced total of any single config (µs): what switching the whole graph to the
        config fastest *on the traced source* would spend (``T_best / static_us`` is the part of
        the gain that needs no per-level switch: the per-graph choice disagrees with the trace).
    oracle_us : float
        ``T_oracle``: the sum over levels of the least level time over all configs (µs).
    restricted_us : float
        The same over the configs sharing the best's technique and block size (µs).
    restricted_static_us : float
        The least traced total of a single config among those (µs).
    n_restricted : int
        Configs the restricted oracle chooses among (the best included).
    gain, restricted_gain, static_gain : float
        ``best_us / oracle_us``, ``best_us / restricted_us``, ``best_us / static_us`` (>= 1).
    level_gain, restricted_level_gain : float
        ``static_us / oracle_us`` and ``restricted_static_us / restricted_us``: the part of each
        oracle's gain that only a per-level switch gives (over the single config fastest on the
        traced source; ``gain = static_gain * level_gain``).
    coverage : float
        ``best_us / 1000 / best_median_ms``: share of the best's median time in its traced levels.
    coverage_first : float or None
        ``best_us / 1000 / times_ms[0]``: the same against the timed traversal from the traced
        source (the first; None when the record has no time for it). Unlike ``coverage`` it is not
        blurred by sources of other depths: the rest is per-traversal overhead outside the levels.
    traversal_gain, restricted_traversal_gain : float or None
        Each oracle's saving (``best_us - oracle_us``, ``best_us - restricted_us``) taken off that
        timed traversal: ``times_ms[0] / (times_ms[0] - saving / 1000)``, what the bound is worth
        on a whole traversal (None without that time, or when the saving exceeds it).
    oracle_configs : int
        Distinct configs the oracle uses over the levels.
    """

    name: str
    fingerprint: str
    family: str
    device: str
    n_configs: int
    n_levels: int
    best_config_id: str
    best_median_ms: float
    best_us: float
    static_us: float
    oracle_us: float
    restricted_us: float
    restricted_static_us: float
    n_restricted: int
    gain: float
    restricted_gain: float
    static_gain: float
    level_gain: float
    restricted_level_gain: float
    coverage: float
    coverage_first: float | None
    traversal_gain: float | None
    restricted_traversal_gain: float | None
    oracle_configs: int


@dataclass
class PerLevelStudy:
    """:func:`per_level_oracle`'s result: one row per studied graph and the summary.

    Attributes
    ----------
    rows : list of GraphLevelRow
        The graphs studied, in order of decreasing gain.
    excluded : list of dict
        ``{"name", "fingerprint", "family", "reason"}`` of every graph with level traces that
        could not be studied (truncated traces, missing level times, traces of different
        traversals, fewer than two traced configs, an untraced best config).
    n_untraced : int
        Graphs whose records carry no level trace at all (logs swept without ``--levels``).
    summary : dict
        ``n_graphs``, ``n_excluded``, ``n_truncated``, ``n_untraced``, ``gain`` /
        ``restricted_gain`` / ``static_gain`` / ``level_gain`` / ``restricted_level_gain`` /
        ``traversal_gain`` / ``restricted_traversal_gain`` (each ``{"geomean", "max", "n_ge_5pct"}``,
        over :class:`GraphLevelRow`'s fields of those names, where known),
        ``coverage`` and ``coverage_first`` (each ``{"median", "min", "max"}``), ``families`` (family -> ``{"n_graphs",
        "geomean_gain", "max_gain", "restricted_geomean_gain", "n_ge_5pct"}``), ``threshold``
        (:data:`KEEP_THRESHOLD`) and ``keep`` (whether the restricted oracle's geomean gain reaches
        it).
    policy : dict or None
        The simulated per-level policy (:func:`simulate_policy`), when asked for.
    """

    rows: list = field(default_factory=list)
    excluded: list = field(default_factory=list)
    n_untraced: int = 0
    summary: dict = field(default_factory=dict)
    policy: dict | None = None

    def to_dict(self) -> dict:
        """JSON-safe dict: ``summary``, ``rows`` (dicts), ``excluded``, ``n_untraced`` and, when
        simulated, ``policy`` (:func:`simulate_policy`)."""
        out = {"summary": self.summary, "rows": [asdict(r) for r in self.rows], "excluded": list(self.excluded),
               "n_untraced": self.n_untraced}
        if self.policy is not None:
            out["policy"] = self.policy
        return out


# ------------------------------------------------------------------------------------------ helpers
def _as_record(r):
    if isinstance(r, Mapping):
        from .logs import LogRecord

        return LogRecord.from_dict(r)
    return r


def _trace(r) -> tuple[list | None, Any]:
    """``(levels, n_levels)`` of a record's measure (``(None, None)`` when untraced)."""
    levels = r.measure.get("levels")
    return (levels if isinstance(levels, list) else None), r.measure.get("n_levels")


def has_level_traces(records: Iterable) -> bool:
    """Whether any valid record carries a per-level trace (``measure.levels``).

    Parameters
    ----------
    records : iterable of LogRecord (or dicts that validate as one)

    Returns
    -------
    bool
    """
    return any(r.valid and _trace(r)[0] is not None for r in map(_as_record, records))


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) and x >= 0


def _geomean(xs) -> float | None:
    xs = [x for x in xs if x is not None and x > 0 and math.isfinite(x)]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def _gain_summary(xs) -> dict:
    return {"geomean": _geomean(xs), "max": max(xs) if xs else None,
            "n_ge_5pct": sum(x >= KEEP_THRESHOLD for x in xs)}


def _median(xs) -> float | None:
    xs = sorted(xs)
    if not xs:
        return None
    m = len(xs) // 2
    return xs[m] if len(xs) % 2 else 0.5 * (xs[m - 1] + xs[m])


def _whole(first_ms, saving_us) -> float | None:
    """A traversal of *first_ms* with *saving_us* taken off: the gain, or None."""
    if first_ms is None:
        return None
    rest = first_ms - saving_us / 1000.0
    return first_ms / rest if rest > 0 else None


def _spread(xs) -> dict:
    return {"median": _median(xs), "min": min(xs, default=None), "max": max(xs, default=None)}


def _family(r) -> str:
    fam = r.graph.get("family")
    if fam:
        return str(fam)
    from .sweep import graph_family

    return graph_family(r.graph.get("name"), r.graph.get("spec"))


# ------------------------------------------------------------------------------------------ study
def per_level_oracle(records: Iterable, *, device: str | None = None, policy: bool = False,
                     random_state: int = 0) -> PerLevelStudy:
    """Bound what a per-level choice of config could gain over the per-graph choice (GSWITCH's idea).

    See the module docstring for what is measured. For each graph (and device) with at least two
    valid records carrying a complete level trace (``len(measure.levels) == measure.n_levels``):
    the per-graph best is the config of least ``median_ms`` (duplicates of a config: the median
    of their medians, the last complete trace); ``T_best`` the sum of its level times; the oracle
    ``T_oracle`` the sum over levels of the least level time over all traced configs; the gain
    ``T_best / T_oracle``. The restricted oracle switches only among the configs sharing the
    best's ``load_balance`` and ``block_size``.

    Parameters
    ----------
    records : iterable of LogRecord (or dicts that validate as one)
        Benchmark-log records, e.g. ``read_log(path).records``; invalid and pruned records are
        ignored.
    device : str, optional
        Keep only this device's records (default: all, each graph studied per device).
    policy : bool, default False
        Also simulate a realisable per-level policy on the studied graphs (:func:`simulate_policy`,
        :attr:`PerLevelStudy.policy`), held out by family and by graph.
    random_state : int, default 0
        Seed of the simulated policy's forest.

    Returns
    -------
    PerLevelStudy
        Graphs whose traces are truncated (the sweep's ``--levels`` was below their depth), have
        a missing level time, differ in level count or frontier sizes between configs (not the
        same traversal), number fewer than two, or whose best config is untraced, are listed in
        ``excluded`` with the reason and counted in the summary, never silently dropped.

    Notes
    -----
    GSWITCH: Meng et al., "GSWITCH: A Pattern-based Algorithmic Autotuning Framework for Graph
    Processing on GPUs", PPoPP 2019. The bound is optimistic: per-level minima over one traced
    run per config also select favourable timing noise, and switching is taken as free.
    """
    groups: dict[tuple, list] = {}
    for r in map(_as_record, records):
        if not r.valid or r.pruned or (device is not None and r.device_name != device):
            continue
        groups.setdefault((r.device_name, r.algorithm, r.fingerprint), []).append(r)

    study = PerLevelStudy()
    kept: list[dict] = []  # what simulate_policy needs of each studied graph
    for (dev, _alg, fp), recs in groups.items():
        if all(_trace(r)[0] is None for r in recs):
            study.n_untraced += 1
            continue
        first = recs[0]
        name, family = first.graph.get("name"), _family(first)

        def exclude(reason: str) -> None:
            study.excluded.append({"name": name, "fingerprint": fp, "family": family, "device": dev,
                                   "reason": reason})

        medians: dict[str, list] = {}
        firsts: dict[str, float] = {}
        traces: dict[str, list] = {}
        configs: dict[str, dict] = {}
        truncated = incomplete = None
        for r in recs:
            cid = r.config_id
            medians.setdefault(cid, []).append(r.median_ms)
            configs[cid] = r.config
            levels, n_levels = _trace(r)
            if levels is None:
                continue
            if not isinstance(n_levels, int) or isinstance(n_levels, bool) or len(levels) < n_levels:
                truncated = truncated or (f"truncated trace ({len(levels)} of {n_levels} levels logged; sweep "
                                          f"with a larger --levels)")
                continue
            if len(levels) != n_levels or not all(isinstance(row, list) and len(row) >= 4 and _number(row[3])
                                                  for row in levels):
                incomplete = incomplete or "incomplete trace (a level without a time)"
                continue
            traces[cid] = levels
            times = r.measure.get("times_ms") or []
            if times and _number(times[0]) and times[0] > 0:
                firsts[cid] = float(times[0])
        if truncated or incomplete:
            exclude(truncated or incomplete)
            continue
        best = min(medians, key=lambda c: (_median(medians[c]), c))
        if best not in traces:
            exclude(f"best config {best} has no level trace")
            continue
        if len(traces) < 2:
            exclude(f"fewer than 2 traced configs ({len(traces)})")
            continue
        lens = {len(t) for t in traces.values()}
        if len(lens) > 1:
            exclude(f"level counts differ between configs ({min(lens)}..{max(lens)}): not the same traversal")
            continue
        n = lens.pop()
        if any(traces[c][i][0] != traces[best][i][0] for c in traces for i in range(n)):
            exclude("frontier sizes differ between configs: not the same traversal")
            continue
        if n == 0:
            exclude("empty trace")
            continue

        bcfg = configs[best]
        restricted = [c for c in traces if all(configs[c].get(k) == bcfg.get(k) for k in RESTRICTED_KEYS)]
        ids = sorted(traces)
        best_us = float(sum(row[3] for row in traces[best]))
        totals = {c: float(sum(row[3] for row in traces[c])) for c in ids}
        static_us = min(totals.values())
        restricted_static_us = min(totals[c] for c in restricted)
        oracle_us, restricted_us, used = 0.0, 0.0, set()
        for i in range(n):
            c_min = min(ids, key=lambda c: (traces[c][i][3], c != best, c))
            oracle_us += float(traces[c_min][i][3])
            used.add(c_min)
            restricted_us += float(min(traces[c][i][3] for c in restricted))
        if restricted_us <= 0 or oracle_us <= 0 or static_us <= 0:
            exclude("level times of zero")
            continue
        med = _median(medians[best])
        study.rows.append(GraphLevelRow(
            name=name, fingerprint=fp, family=family, device=dev, n_configs=len(traces), n_levels=n,
            best_config_id=best, best_median_ms=float(med), best_us=best_us, static_us=static_us,
            oracle_us=oracle_us, restricted_us=restricted_us, restricted_static_us=restricted_static_us,
            n_restricted=len(restricted), gain=best_us / oracle_us, restricted_gain=best_us / restricted_us,
            static_gain=best_us / static_us, level_gain=static_us / oracle_us,
            restricted_level_gain=restricted_static_us / restricted_us, coverage=best_us / 1000.0 / med,
            coverage_first=best_us / 1000.0 / firsts[best] if best in firsts else None,
            traversal_gain=_whole(firsts.get(best), best_us - oracle_us),
            restricted_traversal_gain=_whole(firsts.get(best), best_us - restricted_us),
            oracle_configs=len(used)))
        kept.append({"name": name, "fingerprint": fp, "family": family, "features": first.graph.get("features") or {},
                     "traces": {c: traces[c] for c in restricted}, "best": best, "first_ms": firsts.get(best)})

    study.rows.sort(key=lambda r: (-r.gain, r.name))
    study.excluded.sort(key=lambda e: (e["family"], str(e["name"])))
    rows = study.rows
    families: dict[str, dict] = {}
    for fam in sorted({r.family for r in rows}):
        fr = [r for r in rows if r.family == fam]
        families[fam] = {"n_graphs": len(fr), "geomean_gain": _geomean([r.gain for r in fr]),
                         "max_gain": max(r.gain for r in fr),
                         "restricted_geomean_gain": _geomean([r.restricted_gain for r in fr]),
                         "n_ge_5pct": sum(r.gain >= KEEP_THRESHOLD for r in fr)}
    restricted_geo = _geomean([r.restricted_gain for r in rows])
    study.summary = {
        "n_graphs": len(rows), "n_excluded": len(study.excluded),
        "n_truncated": sum(e["reason"].startswith("truncated") for e in study.excluded),
        "n_untraced": study.n_untraced,
        "gain": _gain_summary([r.gain for r in rows]),
        "restricted_gain": _gain_summary([r.restricted_gain for r in rows]),
        "static_gain": _gain_summary([r.static_gain for r in rows]),
        "level_gain": _gain_summary([r.level_gain for r in rows]),
        "restricted_level_gain": _gain_summary([r.restricted_level_gain for r in rows]),
        "traversal_gain": _gain_summary([r.traversal_gain for r in rows if r.traversal_gain is not None]),
        "restricted_traversal_gain": _gain_summary([r.restricted_traversal_gain for r in rows
                                                    if r.restricted_traversal_gain is not None]),
        "coverage": _spread([r.coverage for r in rows]),
        "coverage_first": _spread([r.coverage_first for r in rows if r.coverage_first is not None]),
        "families": families,
        "threshold": KEEP_THRESHOLD,
        "keep": bool(restricted_geo is not None and restricted_geo >= KEEP_THRESHOLD),
    }
    if policy and kept:
        study.policy = simulate_policy(kept, random_state=random_state)
    return study


# ------------------------------------------------------------------------------------------ policy
#: The per-level inputs of the simulated policy, each known on the device when a level starts: the
#: frontier's size (log2, and as a share of the vertices), the share of vertices visited before it,
#: its growth over the previous frontier (log2), the depth (log2), and two graph constants known when
#: the engine is built (log mean out-degree, log vertices).
POLICY_FEATURES = ("log2_frontier", "frontier_share", "visited_share", "log2_growth", "log2_depth",
                   "log_degree_mean", "log_vertices")


def _policy_levels(g: Mapping) -> list:
    """Per level of one studied graph: ``(x, typical, optimistic, best_class, best_us)``.

    A level's *action* is the ``direction/path`` it ran with in a config (the restricted set: the
    per-graph best's technique and block size). ``typical[a]`` is the best config's own level time
    when it ran action *a*, else the median level time of the configs that did; ``optimistic[a]``
    the least of them (which also selects timing noise in the policy's favour)."""
    feats = g["features"]
    traces, best = g["traces"], g["best"]
    bt = traces[best]
    n = feats.get("n_vertices")
    n = float(n) if _number(n) and n > 0 else float(max(1, sum(row[0] for row in bt)))
    dm = feats.get("degree_mean")
    dm = float(dm) if _number(dm) else 0.0
    out, visited, prev = [], 0.0, 1.0
    for i, brow in enumerate(bt):
        size = float(brow[0])
        x = [math.log2(size + 1), size / n, visited / n, math.log2((size + 1) / (prev + 1)), math.log2(i + 1),
             math.log1p(dm), math.log1p(n)]
        times: dict[str, list] = {}
        for c, tr in traces.items():
            times.setdefault(f"{tr[i][1]}/{tr[i][2]}", []).append(float(tr[i][3]))
        best_class = f"{brow[1]}/{brow[2]}"
        typical = {a: float(brow[3]) if a == best_class else _median(v) for a, v in times.items()}
        optimistic = {a: min(v) for a, v in times.items()}
        out.append((x, typical, optimistic, best_class, float(brow[3])))
        visited += size
        prev = size
    return out


def simulate_policy(graphs: list, *, random_state: int = 0, n_estimators: int = 50) -> dict:
    """Simulate a realisable per-level policy (GSWITCH's) on level traces, held out by family and by graph.

    What choosing each level's direction and kernel path from on-device features would gain over
    the per-graph choice, on graphs the policy was not trained on.

    Each level of a graph may take any action (``direction/path``) that a config of the per-graph
    best's technique and block size ran that level with (the restricted oracle's set, the switch the
    kernels could make at a level's start); the per-graph best's own action is always there. A
    random forest (scikit-learn, ``n_estimators`` trees, seeded) learns from the training graphs'
    levels which action is fastest (label: the least typical level time; sample weight: the
    microseconds at stake, slowest minus fastest action), from :data:`POLICY_FEATURES`; on a held-out
    graph it takes, at each level with a choice, the action of highest predicted probability among
    those available there. Its time is the sum of the chosen actions' typical level times (the best
    config's own time for the action it took, else the median over the configs that took the
    action); ``optimistic`` charges the least time of those configs instead. Switching is free, as
    in the oracle. Gains are ``T_best / T_policy`` on the traced levels and, with the saving taken
    off the timed traversal from the traced source, on the whole traversal.

    Parameters
    ----------
    graphs : list of dict
        One per studied graph: ``name``, ``fingerprint``, ``family``, ``features`` (the logged
        profile; ``n_vertices`` and ``degree_mean`` are read), ``traces`` (config id -> complete
        level trace ``[size, direction, path, us]`` rows, the restricted configs), ``best`` (the
        per-graph best's config id) and ``first_ms`` (its timed traversal from the traced source,
        or None).
    random_state : int, default 0
        Seed of the random forest (its bootstrap samples and feature draws): the same seed and
        traces give the same picks.
    n_estimators : int, default 50
        Trees of the forest. A fold whose training levels hold a single action (or none) has
        nothing to learn: its held-out graph keeps the per-graph best's action on every level.

    Returns
    -------
    dict
        ``rows`` (per graph and fold scheme: ``name``, ``family``, ``n_levels``, ``levels_with_choice``,
        ``levels_switched``, ``best_us``, ``policy_us``, ``optimistic_us``, ``oracle_us`` (the least
        typical time per level), ``gain``, ``optimistic_gain``, ``oracle_gain``, ``traversal_gain``),
        ``summary`` (``lofo`` and ``logo``: ``{"gain", "optimistic_gain", "oracle_gain",
        "traversal_gain"}`` each ``{"geomean", "max", "min", "n_ge_5pct", "n_lose_1pct"}``, plus
        ``n_graphs`` and ``levels_switched_share``), ``features`` (:data:`POLICY_FEATURES`),
        ``threshold`` and ``keep``: whether the leave-one-family-out whole-traversal geomean gain
        reaches :data:`KEEP_THRESHOLD` (what building the policy into the kernels would have to
        beat).

    Notes
    -----
    GSWITCH: Meng et al., "GSWITCH: A Pattern-based Algorithmic Autotuning Framework for Graph
    Processing on GPUs", PPoPP 2019 (its features: frontier size and growth, unvisited share,
    depth). A level's vertex set is the same under every config (BFS depth), so level times of
    different configs compose; the state a switch hands over (pull's bitmap, the queue layout) is
    not charged.
    """
    import numpy as np
    from sklearn.ensemble import RandomForestClassifier

    levels = [_policy_levels(g) for g in graphs]
    fams = [g["family"] for g in graphs]

    def train(idx):
        X, y, w = [], [], []
        for k in idx:
            for x, typ, _opt, _bc, _bu in levels[k]:
                if len(typ) < 2:
                    continue
                a = min(sorted(typ), key=lambda c: typ[c])
                X.append(x)
                y.append(a)
                w.append(max(typ.values()) - typ[a] + 1e-3)
        if len(set(y)) < 2:
            return None
        clf = RandomForestClassifier(n_estimators=n_estimators, min_samples_leaf=2, random_state=random_state,
                                     n_jobs=1)
        clf.fit(np.asarray(X), np.asarray(y), sample_weight=np.asarray(w))
        return clf

    def play(k, clf):
        lv = levels[k]
        choice_rows = [j for j, (_x, typ, *_r) in enumerate(lv) if len(typ) > 1]
        chosen = [bc for (_x, _t, _o, bc, _b) in lv]
        if clf is not None and choice_rows:
            proba = clf.predict_proba(np.asarray([lv[j][0] for j in choice_rows]))
            classes = list(clf.classes_)
            for row, j in zip(proba, choice_rows):
                typ = lv[j][1]
                # an action never seen as a label scores 0, so a tie keeps the per-graph best's action
                known = [(row[classes.index(a)] if a in classes else 0.0, a == lv[j][3], a) for a in typ]
                chosen[j] = max(known)[2]
        best_us = sum(b for (*_r, b) in lv)
        pol = sum(lv[j][1][a] for j, a in enumerate(chosen))
        opt = sum(lv[j][2][a] for j, a in enumerate(chosen))
        orc = sum(min(t.values()) for (_x, t, *_r) in lv)
        g = graphs[k]
        return {"name": g["name"], "family": g["family"], "n_levels": len(lv), "levels_with_choice": len(choice_rows),
                "levels_switched": sum(a != lv[j][3] for j, a in enumerate(chosen)), "best_us": best_us,
                "policy_us": pol, "optimistic_us": opt, "oracle_us": orc, "gain": best_us / pol if pol > 0 else None,
                "optimistic_gain": best_us / opt if opt > 0 else None,
                "oracle_gain": best_us / orc if orc > 0 else None,
                "traversal_gain": _whole(g.get("first_ms"), best_us - pol)}

    def gains(xs):
        xs = [x for x in xs if x is not None]
        return {"geomean": _geomean(xs), "max": max(xs, default=None), "min": min(xs, default=None),
                "n_ge_5pct": sum(x >= KEEP_THRESHOLD for x in xs), "n_lose_1pct": sum(x < 0.99 for x in xs)}

    rows, summary = {}, {}
    all_idx = range(len(graphs))
    for scheme in ("lofo", "logo"):
        res = []
        cache: dict = {}
        for k in all_idx:
            key = fams[k] if scheme == "lofo" else k
            if key not in cache:
                cache[key] = train([j for j in all_idx if (fams[j] != fams[k] if scheme == "lofo" else j != k)])
            res.append(play(k, cache[key]))
        rows[scheme] = res
        n_choice = sum(r["levels_with_choice"] for r in res)
        summary[scheme] = {key: gains([r[key] for r in res])
                           for key in ("gain", "optimistic_gain", "oracle_gain", "traversal_gain")}
        summary[scheme]["n_graphs"] = len(res)
        summary[scheme]["levels_switched_share"] = (sum(r["levels_switched"] for r in res) / n_choice
                                                    if n_choice else 0.0)
    tg = summary["lofo"]["traversal_gain"]["geomean"]
    return {"rows": rows, "summary": summary, "features": list(POLICY_FEATURES), "threshold": KEEP_THRESHOLD,
            "keep": bool(tg is not None and tg >= KEEP_THRESHOLD)}


# ------------------------------------------------------------------------------------------ report
def _f(x, nd: int = 3) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        return "-" if math.isnan(x) else f"{x:.{nd}f}"
    return str(x)


def _table(header: list, rows: list) -> list[str]:
    cells = [header] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[j]) for row in cells) for j in range(len(header))]
    out = []
    for k, row in enumerate(cells):
        out.append("  ".join(c.ljust(w) if j == 0 else c.rjust(w) for j, (c, w) in enumerate(zip(row, widths))))
        if k == 0:
            out.append("  ".join("-" * w for w in widths))
    return out


def format_study(study: PerLevelStudy, *, top: int = 10) -> str:
    """Plain-text report of a :class:`PerLevelStudy`: summary, per-family table, the *top* graphs
    of largest gain, and the excluded graphs.

    Parameters
    ----------
    study : PerLevelStudy
    top : int, default 10
        Graphs listed individually (largest oracle gain first).

    Returns
    -------
    str
        Several lines, no trailing newline.
    """
    s = study.summary
    n = s["n_graphs"]
    lines = [f"per-level policy oracle (GSWITCH, PPoPP'19) — {n} graph(s) with complete level traces, "
             f"{s['n_excluded']} excluded ({s['n_truncated']} truncated), {s['n_untraced']} untraced",
             "gain = traced time of the per-graph best (least median) / the oracle's (an upper bound: free "
             "switching, perfect knowledge)"]
    if not n:
        lines.append("no graph to study")
    else:
        def row(title, key):
            d = s[key]
            return [title, _f(d["geomean"]), _f(d["max"]), f"{d['n_ge_5pct']}/{n}"]

        lines += _table(["oracle (traced levels)", "geomean gain", "max gain", "graphs >= 1.05"], [
            row("any swept config per level", "gain"),
            row("  = one config per graph, fastest on the trace", "static_gain"),
            row("  x per-level switching over that config", "level_gain"),
            row("restricted: best's technique + block size", "restricted_gain"),
            row("  per-level switching over its fastest config", "restricted_level_gain"),
            row("any, on the whole traced-source traversal", "traversal_gain"),
            row("restricted, on the whole traversal", "restricted_traversal_gain")])
        for key, what in (("coverage", "median time of the best"),
                          ("coverage_first", "its timed traversal from the traced source")):
            c = s[key]
            lines.append(f"trace coverage (traced levels / {what}): median {_f(c['median'], 2)}, "
                         f"range {_f(c['min'], 2)}..{_f(c['max'], 2)}")
        lines.append("")
        lines += _table(["family", "graphs", "geomean gain", "max gain", "restricted geomean", "graphs >= 1.05"],
                        [[fam, d["n_graphs"], _f(d["geomean_gain"]), _f(d["max_gain"]),
                          _f(d["restricted_geomean_gain"]), d["n_ge_5pct"]] for fam, d in s["families"].items()])
        if top > 0:
            lines.append("")
            lines += _table(["graph", "levels", "configs", "best ms", "coverage", "gain", "restricted", "static",
                             "per-level"],
                            [[r.name if len(r.name) <= 48 else r.name[:45] + "...", r.n_levels, r.n_configs,
                              _f(r.best_median_ms, 4), _f(r.coverage, 2), _f(r.gain), _f(r.restricted_gain),
                              _f(r.static_gain), _f(r.level_gain)] for r in study.rows[:top]])
    if study.excluded:
        lines.append("")
        lines.append(f"excluded ({len(study.excluded)}):")
        for e in study.excluded:
            lines.append(f"  {e['name']} [{e['family']}]: {e['reason']}")
    rg = s["restricted_gain"]["geomean"] if n else None
    pol = study.policy
    if pol is not None:
        lines.append("")
        lines.append("simulated per-level policy (a forest choosing each level's direction/path among the best's "
                     "technique and block size from on-device features; held out by family / by graph)")
        prow = []
        for scheme, title in (("lofo", "leave one family out"), ("logo", "leave one graph out")):
            d = pol["summary"][scheme]
            prow.append([title, _f(d["gain"]["geomean"]), _f(d["gain"]["min"]), _f(d["gain"]["max"]),
                         _f(d["optimistic_gain"]["geomean"]), _f(d["traversal_gain"]["geomean"]),
                         f"{d['gain']['n_lose_1pct']}/{d['n_graphs']}", f"{100 * d['levels_switched_share']:.0f}%"])
        lines += _table(["policy", "gain (traced)", "min", "max", "optimistic", "whole traversal", "graphs slower",
                         "levels switched"], prow)
    lines.append("")
    if pol is not None:
        tg = pol["summary"]["lofo"]["traversal_gain"]["geomean"]
        if pol["keep"]:
            lines.append(f"decision: a per-level policy is worth building into the kernels (simulated, held out by "
                         f"family: {_f(tg)} on whole traversals >= {pol['threshold']:.2f})")
        else:
            lines.append(f"decision: leave per-level switching out (simulated policy, held out by family: {_f(tg)} on "
                         f"whole traversals < {pol['threshold']:.2f}; restricted oracle {_f(rg)})")
    elif s["keep"]:
        lines.append(f"decision: per-level switching stays a candidate (restricted oracle geomean {_f(rg)} >= "
                     f"{s['threshold']:.2f}); a real policy needs on-device features, would realise less than this "
                     f"bound, and is kept only if it wins when measured")
    else:
        lines.append(f"decision: leave per-level switching out (restricted oracle geomean {_f(rg)} < "
                     f"{s['threshold']:.2f}; a real policy would realise less)")
    return "\n".join(lines)
