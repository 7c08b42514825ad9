"""Honest validation (CPU): leave-one-family-out beside leave-one-graph-out, the real graphs on their
own, baselines measured (never estimated: missing is reported as missing), near-ties as ties;
graph families; the profile a retrained model reads; the sweep measuring every graph's rule config
and logging its family."""
from __future__ import annotations

import math

import numpy as np
import pytest

from autotune._synthetic import SYNTHETIC_DEVICE, synthetic_features, write_synthetic_log
from autotune.config import TraversalConfig
from autotune.features import FEATURE_NAMES, FEATURE_NAMES_V2, profile
from autotune.logs import LogRecord, read_log
from autotune.model import (
    CV_SECTIONS, TrainingSet, build_training_set, evaluate, regret_report, regret_rows, retrain,
)
from autotune.sweep import GraphEntry, REAL_GRAPH_KINDS, graph_family, parse_graph_entry, sweep
from autotune.table2 import table2_rule

from ._tuning_helpers import FAKE_DEVICE, install_clock, replay_factory, small_graph


def _fast_estimator():
    from sklearn.ensemble import RandomForestClassifier

    return RandomForestClassifier(n_estimators=25, random_state=0)


# ------------------------------------------------------------------------------ families
@pytest.mark.parametrize("name,spec,family", [
    ("rmat:scale=16", "rmat:scale=16,edge_factor=16", "rmat"),
    ("kron", "kron", "kron"),
    ("bowtie:n=5000,avg_degree=4", "bowtie:n=5000,avg_degree=4", "bowtie"),
    ("road-usroads", "/anywhere/road-usroads.mtx.gz", "real-road"),
    ("web-NotreDame", "shared:web-NotreDame.txt.gz", "real-web"),
    ("higgs-mention_network", "/x/higgs-mention_network.edgelist.gz", "real-social"),
    ("soc-sign-bitcoinotc", "/x/soc-sign-bitcoinotc.csv.gz", "real-social"),
    ("caidaRouterLevel", "/x/caidaRouterLevel.mtx.gz", "real-internet"),
    ("delaunay_n16", None, "real-mesh"),
    ("mystery", "/nowhere/mystery.txt.gz", "real-other"),
    ("synthetic-road-3", "synthetic:road:3", "synthetic-road"),
])
def test_graph_family_from_name_and_spec(name, spec, family):
    """Old logs carry no family: the generator of the spec, else the kind of the real graph."""
    assert graph_family(name, spec) == family


def test_graph_family_reads_a_manifest_beside_the_file(tmp_path):
    (tmp_path / "MANIFEST-more.tsv").write_text("file\tname\tcategory\tdirected\nnew-graph.txt.gz\tnew\tweb\tyes\n")
    assert graph_family("new-graph", str(tmp_path / "new-graph.txt.gz")) == "real-web"
    assert graph_family("other", str(tmp_path / "other.txt.gz")) == "real-other"


def test_every_real_graph_kind_is_a_manifest_category_or_internet():
    assert set(REAL_GRAPH_KINDS.values()) <= {"web", "social", "citation", "internet", "mesh", "road"}
    assert len(REAL_GRAPH_KINDS) == 16


def test_parse_graph_entry_options():
    assert parse_graph_entry("kron:scale=3") == GraphEntry("kron:scale=3")
    e = parse_graph_entry("shared:a.txt.gz  family=real-social weights=int:1:9 directed=true")
    assert e == GraphEntry("shared:a.txt.gz", "int:1:9", "real-social", True)
    assert parse_graph_entry("shared:b.txt.gz directed=False").directed is False
    with pytest.raises(ValueError, match="given twice"):
        parse_graph_entry("x.txt family=a family=b")
    with pytest.raises(ValueError, match="true or false"):
        parse_graph_entry("x.txt directed=maybe")


# ------------------------------------------------------------------------------ evaluate by hand
def _ts(times, families, X=None, features=None):
    n = len(times)
    X = np.asarray(X, dtype=float) if X is not None else np.arange(n * len(FEATURE_NAMES), dtype=float).reshape(n, -1)
    rng = np.random.default_rng(0)
    feats = features or [synthetic_features(rng, "social") for _ in range(n)]
    return TrainingSet(X=X, graphs=[{"name": f"g{i}", "fingerprint": f"sha256:{i}", "spec": None,
                                     "features": feats[i], "family": families[i]} for i in range(n)],
                       times=times, invalid=[set() for _ in range(n)], configs={}, device=dict(SYNTHETIC_DEVICE),
                       feature_names=FEATURE_NAMES)


def test_leave_one_family_out_holds_out_the_whole_family():
    """Two families, each with its own fastest config and well apart in feature space: a neighbour
    of the same family is always in the training folds of leave-one-graph-out (regret 1), never in
    those of leave-one-family-out (the other family's config: regret 2 and 3)."""
    times = [{"c-a": 1.0, "c-b": 2.0}] * 3 + [{"c-a": 3.0, "c-b": 1.0}] * 3
    X = np.zeros((6, len(FEATURE_NAMES)))
    X[3:] = 10.0
    X[:, 0] += np.arange(6) * 0.01
    cv = evaluate(_ts(times, ["fa"] * 3 + ["fb"] * 3, X), _fast_estimator(), label_tolerance=0.0)
    assert [g["model"]["regret"] for g in cv["per_graph"]] == [1.0] * 6
    lofo = cv["lofo"]
    assert lofo["method"] == "leave-one-family-out" and lofo["n_families"] == 2
    assert lofo["families"] == {"fa": 3, "fb": 3}
    assert [g["model"]["config_id"] for g in lofo["per_graph"]] == ["c-b"] * 3 + ["c-a"] * 3
    assert [g["model"]["regret"] for g in lofo["per_graph"]] == [2.0] * 3 + [3.0] * 3
    assert [g["family"] for g in lofo["per_graph"]] == ["fa"] * 3 + ["fb"] * 3
    assert lofo["regret"]["model"]["geomean"] == pytest.approx(6 ** 0.5)
    assert lofo["regret"]["model"]["worst"] == 3.0
    assert cv["regret"]["model"]["geomean"] == 1.0
    assert cv["per_family"]["fa"] == {"n_graphs": 3, "logo": 1.0, "lofo": pytest.approx(2.0)}
    # best fixed config of the training folds: the other family's
    assert [g["best_fixed"]["config_id"] for g in lofo["per_graph"]] == ["c-b"] * 3 + ["c-a"] * 3
    # one family only: nothing to train on when it is held out
    one = evaluate(_ts(times, ["f"] * 6, X), _fast_estimator())
    assert one["lofo"]["regret"]["model"] is None and one["lofo"]["n_families"] == 1
    assert one["regret"]["model"] is not None


def test_missing_baseline_is_reported_missing_not_charged_the_slowest_time():
    """A graph whose Table-2 config was never measured is left out of the Table-2 summary and
    counted as missing (the old rule charged it the graph's slowest time)."""
    rng = np.random.default_rng(3)
    feats = [synthetic_features(rng, "road") for _ in range(4)]
    t2 = [table2_rule(f, SYNTHETIC_DEVICE).config_id for f in feats]
    times = [{"c-a": 1.0, "c-b": 5.0, t2[0]: 1.5}, {"c-a": 1.0, "c-b": 5.0, t2[1]: 2.0},
             {"c-a": 1.0, "c-b": 5.0}, {"c-a": 1.0, "c-b": 5.0}]
    cv = evaluate(_ts(times, ["x", "x", "y", "y"], features=feats), _fast_estimator())
    rows = {r["method"]: r for r in regret_rows(cv)}
    assert [g["table2"]["how"] for g in cv["per_graph"]] == ["measured", "measured", "missing", "missing"]
    assert [g["table2"]["regret"] for g in cv["per_graph"]] == [1.5, 2.0, None, None]
    assert rows["table2"]["n_graphs"] == 2 and rows["table2"]["n_missing"] == 2
    assert rows["table2"]["geomean"] == pytest.approx(3 ** 0.5) and rows["table2"]["worst"] == 2.0
    assert rows["model"]["n_missing"] == 0 and rows["model"]["n_graphs"] == 4
    # the same in the family table and the per-graph rows there
    lrows = {r["method"]: r for r in regret_rows(cv, "lofo")}
    assert lrows["table2"]["n_missing"] == 2 and lrows["table2"]["geomean"] == pytest.approx(3 ** 0.5)


def test_unmeasured_best_fixed_is_missing_and_unmeasured_pick_is_pessimistic():
    times = [{"c-a": 1.0, "c-b": 2.0}, {"c-a": 1.0, "c-b": 2.0}, {"c-b": 1.0, "c-c": 4.0}]
    cv = evaluate(_ts(times, ["f0", "f0", "f1"]), _fast_estimator(), label_tolerance=0.0)
    g = cv["per_graph"][2]
    assert g["best_fixed"] == {"config_id": "c-a", "regret": None, "how": "missing"}
    assert g["model"]["how"] == "unmeasured" and g["model"]["regret"] == 4.0  # charged the slowest time
    r = cv["regret"]
    assert r["best_fixed"]["n_missing"] == 1 and r["best_fixed"]["n_graphs"] == 2
    assert r["model"]["n_unmeasured"] == 1 and r["model"]["worst"] == 4.0


def test_near_ties_count_as_ties():
    """A pick within the label tolerance (run-to-run noise) of the best is a tie: counted, and
    regret 1 in ``geomean_ties``; the plain geomean keeps the measured ratio."""
    times = [{"c-a": 1.0, "c-b": 1.01}, {"c-a": 1.0, "c-b": 1.01}, {"c-a": 1.0, "c-b": 1.01},
             {"c-a": 1.3, "c-b": 1.0}]
    cv = evaluate(_ts(times, ["f"] * 4), _fast_estimator(), label_tolerance=0.02)
    bf = cv["regret"]["best_fixed"]
    regrets = [g["best_fixed"]["regret"] for g in cv["per_graph"]]
    ties = sum(r <= 1.02 for r in regrets)
    assert bf["n_ties"] == ties >= 3
    assert bf["geomean_ties"] == pytest.approx(math.exp(np.mean([math.log(r if r > 1.02 else 1.0)
                                                                 for r in regrets])))
    assert bf["geomean"] == pytest.approx(math.exp(np.mean(np.log(regrets))))
    assert bf["geomean_ties"] <= bf["geomean"]


def test_real_graphs_reported_on_their_own():
    times = [{"c-a": 1.0, "c-b": 2.0}, {"c-a": 1.0, "c-b": 1.5}, {"c-a": 2.0, "c-b": 1.0}, {"c-a": 1.0, "c-b": 3.0}]
    cv = evaluate(_ts(times, ["real-web", "real-road", "rmat", "grid"]), _fast_estimator(), label_tolerance=0.0)
    real = cv["real"]
    assert real["n_graphs"] == 2 and real["names"] == ["g0", "g1"]
    assert real["logo"]["model"]["n_graphs"] == 2 and real["lofo"]["model"]["n_graphs"] == 2
    want = [cv["per_graph"][i]["model"]["regret"] for i in (0, 1)]
    assert real["logo"]["model"]["worst"] == max(want)
    assert [r["method"] for r in regret_rows(cv, "real_logo")] == ["model", "best_fixed", "table2", "random"]
    text = regret_report(cv)
    for title in ("leave-one-graph-out, all graphs", "leave-one-family-out, all graphs (4 families)",
                  "leave-one-graph-out, real graphs only", "leave-one-family-out, real graphs only"):
        assert title in text
    with pytest.raises(ValueError, match="unknown section"):
        regret_rows(cv, "bogus")
    assert set(CV_SECTIONS) == {"logo", "lofo", "real_logo", "real_lofo"}
    # an old model's metadata has only the leave-one-graph-out table
    assert regret_rows({"regret": cv["regret"]}, "lofo") == []


def test_evaluate_without_families():
    times = [{"c-a": 1.0, "c-b": 2.0}] * 3
    cv = evaluate(_ts(times, ["a", "b", "c"]), _fast_estimator(), families=False)
    assert "lofo" not in cv and cv["real"]["n_graphs"] == 0


# ------------------------------------------------------------------------------ training sets
def _records_with(feature_dicts, family=None):
    out = []
    for i, f in enumerate(feature_dicts):
        for cid_cfg, ms in ((TraversalConfig(), 1.0 + i), (TraversalConfig(load_balance="binary_search"), 2.0)):
            graph = {"name": f"rmat:scale={10 + i}", "fingerprint": f"sha256:{i:064x}", "spec": f"rmat:scale={10 + i}",
                     "weights": None, "features": f}
            if family:
                graph["family"] = family
            out.append(LogRecord.from_dict({
                "schema": 2, "algorithm": "bfs", "time": "2000-01-01T00:00:00Z", "device": dict(FAKE_DEVICE),
                "graph": graph, "config": cid_cfg.to_dict(), "config_id": cid_cfg.config_id,
                "measure": {"n_sources": 1, "seed": 0, "times_ms": [ms], "median_ms": ms, "gteps": 1.0,
                            "depth_mean": 1.0}, "valid": True, "error": None,
                "origin": {"command": "sweep", "study": None, "trial": None, "version": "0"}}))
    return out


def test_training_set_reads_the_directed_profile_when_every_graph_has_it():
    new = [profile(small_graph(200 + 50 * i, 4, seed=i), xp=np).to_dict() for i in range(3)]
    old = [{("isolated_fraction" if k == "sink_fraction" else k): v for k, v in f.items()
            if k in FEATURE_NAMES or k == "sink_fraction"} for f in new]
    ts = build_training_set(_records_with(new), warn=False)
    assert ts.feature_names == FEATURE_NAMES_V2 and ts.X.shape == (3, len(FEATURE_NAMES_V2))
    assert [g["family"] for g in ts.graphs] == ["rmat"] * 3  # derived from the spec
    ts_old = build_training_set(_records_with(old), warn=False)
    assert ts_old.feature_names == FEATURE_NAMES
    # same legacy columns either way (isolated_fraction read as sink_fraction)
    np.testing.assert_array_equal(ts_old.X, build_training_set(_records_with(new), feature_names=FEATURE_NAMES,
                                                               warn=False).X)
    mixed = _records_with(new[:2]) + [r for r in _records_with(old) if r.fingerprint.endswith("2")]  # graph 2 old
    with pytest.warns(UserWarning, match="1 of 3 graph.*without the directed features"):
        ts_mixed = build_training_set(mixed)
    assert ts_mixed.feature_names == FEATURE_NAMES and ts_mixed.n_graphs == 3
    # a logged family wins over the derived one
    fam = build_training_set(_records_with(new, family="bowtie"), warn=False)
    assert {g["family"] for g in fam.graphs} == {"bowtie"}


def test_retrain_on_synthetic_logs_reports_every_section(tmp_path):
    log = write_synthetic_log(tmp_path / "syn.jsonl", n_graphs=15, seed=2)
    with pytest.warns(UserWarning, match="SYNTHETIC"):
        m = retrain(log, estimator=_fast_estimator())
    cv = m.metadata_["cv"]
    assert cv["lofo"]["n_families"] == 5 and sum(cv["lofo"]["families"].values()) == 15
    assert cv["lofo"]["regret"]["model"]["n_graphs"] == 15
    assert {g["family"] for g in m.metadata_["graphs"]} == set(cv["lofo"]["families"])
    assert cv["real"]["n_graphs"] == 0 and cv["real"]["logo"] is None
    assert "leave-one-family-out" in regret_report(cv)


# ------------------------------------------------------------------------------ sweep: baselines, families
CFGS = [TraversalConfig(load_balance="binary_search"), TraversalConfig(load_balance="edge_mapped")]


def test_sweep_of_a_named_set_measures_every_graphs_table2_config_and_logs_families(tmp_path, monkeypatch):
    """A named set always gets each graph's Table-2 config measured (the baseline is measured on every
    graph); an explicit list is measured as given; each record names its graph's family."""
    import autotune.sweep as sw

    clock = install_clock(monkeypatch)
    monkeypatch.setattr(sw, "training_set", lambda algorithm="bfs": tuple(CFGS))
    g = small_graph(300, 5)
    corpus = tmp_path / "c.txt"
    corpus.write_text("grid:rows=6,cols=7  family=lattice\nsmallworld:n=60,k=4,p=0.1\n")
    calls = []
    fac = replay_factory(clock, lambda cfg: 1.0, calls=calls)
    res = sweep([g], "train", tmp_path / "s.jsonl", corpus=corpus, n_sources=2, progress=False, runner_factory=fac,
                device=FAKE_DEVICE)
    recs = read_log(tmp_path / "s.jsonl").records
    by_graph = {}
    for r in recs:
        by_graph.setdefault(r.graph["name"], []).append(r)
    assert len(by_graph) == 3
    for name, rs in by_graph.items():
        t2 = table2_rule(rs[0].features, FAKE_DEVICE).config_id
        ids = {r.config_id for r in rs}
        assert {c.config_id for c in CFGS} | {t2} == ids, name
    assert {r.graph["family"] for r in by_graph["grid:rows=6,cols=7"]} == {"lattice"}
    assert {r.graph["family"] for r in by_graph["smallworld:n=60,k=4,p=0.1"]} == {"smallworld"}
    assert {r.graph["family"] for r in by_graph[g.name]} == {"uniform"}
    assert [x["family"] for x in res.graphs] == ["uniform", "lattice", "smallworld"]
    # resumed: the baseline counts as done, nothing measured again (features read from the log)
    again = sweep([g], "train", tmp_path / "s.jsonl", corpus=corpus, n_sources=2, progress=False,
                  runner_factory=fac, device=FAKE_DEVICE)
    assert again.n_measured == 0 and again.n_skipped == len(recs)
    # an explicit config list: no baseline added (unless asked for)
    res2 = sweep([g], CFGS, tmp_path / "e.jsonl", n_sources=2, progress=False, runner_factory=fac,
                 device=FAKE_DEVICE)
    assert res2.n_measured == 2
    res3 = sweep([g], CFGS, tmp_path / "e.jsonl", n_sources=2, progress=False, runner_factory=fac,
                 device=FAKE_DEVICE, baselines=True)
    assert res3.n_measured == 1 and res3.records[0].config_id == table2_rule(res3.records[0].features,
                                                                              FAKE_DEVICE).config_id


def test_sweep_reads_a_corpus_entry_with_its_direction(tmp_path, monkeypatch):
    clock = install_clock(monkeypatch)
    edges = tmp_path / "both.txt"
    edges.write_text("0 1\n1 0\n1 2\n2 1\n2 3\n3 2\n")
    corpus = tmp_path / "c.txt"
    corpus.write_text(f"{edges} directed=false family=real-citation\n")
    res = sweep(None, CFGS[:1], tmp_path / "s.jsonl", corpus=corpus, n_sources=2, progress=False,
                runner_factory=replay_factory(clock, lambda cfg: 1.0), device=FAKE_DEVICE)
    rec = res.records[0]
    assert rec.features["directed"] is False and rec.graph["family"] == "real-citation"
    assert rec.features["reciprocity"] == 1.0
