"""SYNTHETIC benchmark logs — for tests and for the analysis notebook when no real log exists.

NOT MEASUREMENTS. Every record written here says so: the device is named
``SYNTHETIC (not a measurement)`` and the origin command is ``synthetic``; :func:`autotune.retrain`
warns when it sees them. Never commit a synthetic log under ``models/`` or train a shipped model on it.

The graphs are feature vectors drawn from five families (road-like, mesh, uniform random,
social/power-law, Kronecker) and the time of a config is a simple cost model — per-level launch
overhead plus edges over a throughput that depends on how the technique copes with the degree
distribution — with seeded log-normal noise:

- ``vertex_mapped`` with ``w`` lanes per vertex: lanes idle when ``w`` exceeds the mean degree,
  serial loops and imbalance when the degree spread (Gini, max degree) is large against ``w``;
  ``dynamic`` picks ``w`` near the mean degree, clamped below by its minimum, for a small overhead.
- ``binary_search``: perfect balance at a fixed overhead (two extra passes per level).
- block size: a few percent either way.
- ``push_pull`` (direction-optimizing): far fewer edges on shallow skewed graphs, a small cost elsewhere.
- ``small_frontier='single_block'``: much cheaper levels on deep graphs.

So the winner moves across feature space the way the papers describe (binary search on skewed
graphs, small virtual warps on sparse regular ones, wide warps on dense regular ones), which is
all the tests and the notebook need.

SSSP records (``algorithm="sssp"``) add weight statistics to the features (integers uniform in
[1, 255] as GAP draws them, or a float range) and multiply the technique's cost by a method term
(:func:`synthetic_sssp_factor`): Bellman-Ford re-relaxes more as the weights spread; Delta-stepping
and near-far run about ``depth x mean degree / (32 x scale)`` bucket phases (delta = scale x
delta_0, delta_0 = 32 x mean weight / mean degree) and redo more work as the scale grows, so
deep graphs favour wide buckets and shallow dense ones narrow buckets.
"""
from __future__ import annotations

import hashlib
import math
from pathlib import Path

import numpy as np

SYNTHETIC_DEVICE = {"name": "SYNTHETIC (not a measurement)", "cc": "0.0", "sm_count": 132, "max_threads_per_sm": 2048}

_FAMILIES = ("road", "mesh", "uniform", "social", "kron")


def synthetic_features(rng: np.random.Generator, family: str) -> dict:
    """A plausible :class:`~autotune.features.GraphFeatures` dict for a graph of *family*."""
    n = int(10 ** rng.uniform(5, 7))
    if family == "road":
        mean, std, gini, mx, ecc = rng.uniform(2.0, 3.0), rng.uniform(0.5, 1.0), rng.uniform(0.05, 0.25), \
            int(rng.integers(6, 14)), rng.uniform(800, 6000)
    elif family == "mesh":
        mean = rng.uniform(5, 40)
        std, gini, mx, ecc = mean * rng.uniform(0.02, 0.3), rng.uniform(0.0, 0.15), int(mean * 2.5), rng.uniform(60, 1500)
    elif family == "uniform":
        mean = 10 ** rng.uniform(0.6, 2.3)
        std, gini, mx, ecc = math.sqrt(mean), 0.56 / math.sqrt(mean), int(mean + 5 * math.sqrt(mean) + 3), \
            rng.uniform(3, 12)
    elif family == "social":
        mean = 10 ** rng.uniform(0.7, 1.8)
        gini = rng.uniform(0.45, 0.8)
        std, mx, ecc = mean * rng.uniform(1.5, 8), int(n ** rng.uniform(0.35, 0.6)), rng.uniform(6, 25)
    else:  # kron
        mean = 10 ** rng.uniform(1.0, 2.2)
        gini = rng.uniform(0.7, 0.92)
        std, mx, ecc = mean * rng.uniform(4, 12), int(n ** rng.uniform(0.5, 0.75)), rng.uniform(4, 8)
    mx = max(mx, int(math.ceil(mean)))
    return {
        "n_vertices": n, "n_edges": int(n * mean), "directed": False, "degree_mean": float(mean),
        "degree_std": float(std), "degree_gini": float(gini), "degree_max": int(mx), "degree_min": 1,
        "leaf_fraction": float(min(0.9, gini * 0.4)), "degree_p50": float(max(1.0, mean * (1 - gini))),
        "degree_p90": float(mean * (1 + gini * 2)), "degree_p99": float(min(mx, mean * (1 + gini * 8))),
        "isolated_fraction": 0.0, "eccentricity_mean": float(ecc), "eccentricity_max": int(ecc * 1.3 + 1),
        "profile_ms": 0.0,
    }


#: ``(efficiency, per-level microseconds)`` of the techniques that balance edges rather than
#: vertices (scan-based mapping, degree classes, one thread per COO edge).
_EDGE_BALANCED = {"scan_mapped": (0.6, 8.0), "degree_classified": (0.62, 14.0), "edge_mapped": (0.35, 5.0)}


def synthetic_time_ms(features: dict, config: dict) -> float:
    """Noise-free cost-model time (ms) of *config* on a graph with *features* (SYNTHETIC)."""
    mean, gini, mx = features["degree_mean"], features["degree_gini"], features["degree_max"]
    levels = max(1.0, features["eccentricity_mean"] + 1)
    edges = float(features["n_edges"])
    level_us = 6.0
    lb = config["load_balance"]
    if lb == "binary_search":
        eff, level_us = 0.55, 12.0
    elif lb in _EDGE_BALANCED:  # techniques without virtual warps: balanced edges, a fixed overhead
        eff, level_us = _EDGE_BALANCED[lb]
        eff /= 1.0 + 0.3 * gini ** 3
    else:
        vw = config.get("virtual_warp_size")
        if vw == "dynamic":
            w = 2 ** round(math.log2(max(mean, 1)))
            w = min(32, max(int(config.get("min_virtual_warp_size") or 4), w))
            overhead = 1.04
        else:
            w, overhead = int(vw), 1.0
        util = min(1.0, mean / w) ** 0.8
        imbalance = 1.0 + 3.0 * gini ** 3 * math.log2(1 + mx / w)
        if any(config.get(k) not in (None, "off") for k in ("warp_gathering", "block_gathering",
                                                             "supplementary_queues")):
            imbalance = 1.0 + (imbalance - 1.0) * 0.5  # hubs gathered by whole warps / blocks
            overhead *= 1.03
        eff = util / imbalance / overhead
    block = int(config.get("block_size", 256))
    eff /= {128: 1.03, 256: 1.0, 512: 1.01, 1024: 1.06}.get(block, 1.0)
    # direction-optimizing: pull levels skip most edges on low-diameter skewed graphs
    if config.get("direction") == "push_pull":
        shallow_skewed = gini > 0.5 and features["eccentricity_mean"] < 30
        edges *= 0.45 if shallow_skewed else 1.08
    # small frontiers on one block without host round trips: cheaper levels on deep graphs
    if config.get("small_frontier") == "single_block":
        level_us *= 0.35 if levels > 100 else 1.02
    return levels * level_us / 1e3 + edges / (25e9 * eff) * 1e3


def synthetic_weight_features(rng: np.random.Generator) -> dict:
    """Weight statistics (:data:`autotune.features.WEIGHT_FEATURE_NAMES`) of a made-up weighted
    graph: integers uniform in [1, 255] (GAP's distribution) two times in three, else floats
    uniform in [lo, hi]."""
    if rng.random() < 2 / 3:
        return {"weighted": True, "weight_integer": True, "weight_mean": 128.0, "weight_std": 73.6,
                "weight_max": 255.0, "weight_min": 1.0}
    lo = float(rng.uniform(0.01, 1.0))
    hi = lo * float(10 ** rng.uniform(0.3, 3))
    return {"weighted": True, "weight_integer": False, "weight_mean": (lo + hi) / 2,
            "weight_std": (hi - lo) / math.sqrt(12), "weight_max": hi, "weight_min": lo}


def synthetic_sssp_factor(features: dict, config: dict) -> float:
    """Cost multiplier (>= 1, SYNTHETIC) of an SSSP method over the same technique's BFS time."""
    levels = max(1.0, features["eccentricity_mean"] + 1)
    mean_deg = max(features["degree_mean"], 1.0)
    cv = features.get("weight_std", 0.0) / max(features.get("weight_mean", 1.0), 1e-12)
    method = config.get("sssp_method")
    if method == "bellman_ford":
        work = 1.0 + 1.5 * cv * math.log2(1.0 + mean_deg)     # re-relaxations
        phases = 1.0 + 0.5 * cv
        return work * (0.6 + 0.4 * phases)
    scale = float(config.get("delta") or 1)
    buckets = levels * mean_deg / (32.0 * scale)
    phase_ratio = max(1.0, buckets / levels)                  # extra synchronised phases
    work = 1.0 + 0.25 * cv * math.log2(1.0 + scale)           # wider buckets: more re-relaxations
    phase_cost = 0.8 if method == "near_far" else 1.0          # two piles, no bucket array
    return work * (0.5 + 0.5 * phase_ratio * phase_cost) + 0.1


def _fingerprint(i: int, seed: int, algorithm: str = "bfs") -> str:
    # a weighted graph is another graph: its own fingerprint (BFS ones unchanged)
    text = f"synthetic-{seed}-{i}" if algorithm == "bfs" else f"synthetic-{algorithm}-{seed}-{i}"
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def synthetic_records(n_graphs: int = 40, configs="portfolio", *, n_sources: int = 8, seed: int = 0,
                      noise: float = 0.02, algorithm: str = "bfs") -> list:
    """SYNTHETIC :class:`~autotune.logs.LogRecord` s: every config on *n_graphs* made-up graphs.

    Parameters
    ----------
    n_graphs : int
        Graphs, cycling through the five families.
    configs : {'portfolio', 'grid', 'train'} or sequence of TraversalConfig
        A named set is taken for *algorithm*.
    algorithm : {'bfs', 'sssp'}, default 'bfs'
        ``sssp``: weighted graphs (weight statistics in the features, ``graph.weights`` logged)
        timed by the technique's cost times :func:`synthetic_sssp_factor`. The BFS records are the
        same as before SSSP existed (same features and times for the same seed).
    n_sources : int
        Times per record.
    seed : int
        Seed of the features and the noise.
    noise : float
        Sigma of the log-normal noise per time.

    Returns
    -------
    list of LogRecord
        Device :data:`SYNTHETIC_DEVICE`, origin command ``synthetic``, log schema 2.
    """
    from . import __version__
    from .logs import SCHEMA_VERSION, LogRecord
    from .sweep import resolve_configs

    cfgs = resolve_configs(configs, algorithm)
    rng = np.random.default_rng(seed)
    wrng = np.random.default_rng([seed, 1])  # weights drawn apart: BFS features stay as they were
    out = []
    for i in range(n_graphs):
        fam = _FAMILIES[i % len(_FAMILIES)]
        feats = synthetic_features(rng, fam)
        weights = None
        if algorithm == "sssp":
            feats.update(synthetic_weight_features(wrng))
            weights = "int:1:255" if feats["weight_integer"] else \
                f"float:{feats['weight_min']:.6g}:{feats['weight_max']:.6g}"
        fp = _fingerprint(i, seed, algorithm)
        for cfg in cfgs:
            c = cfg.to_dict()
            base = synthetic_time_ms(feats, c)
            if c.get("algorithm") == "sssp":
                base *= synthetic_sssp_factor(feats, c)
            times = [float(base * math.exp(noise * z)) for z in rng.standard_normal(n_sources)]
            med = float(np.median(times))
            out.append(LogRecord.from_dict({
                "schema": SCHEMA_VERSION, "algorithm": cfg.algorithm, "time": "2000-01-01T00:00:00Z",
                "device": dict(SYNTHETIC_DEVICE),
                "graph": {"name": f"synthetic-{fam}-{i}", "fingerprint": fp, "spec": f"synthetic:{fam}:{i}",
                          "weights": weights, "features": feats},
                "config": cfg.to_dict(), "config_id": cfg.config_id,
                "measure": {"n_sources": n_sources, "seed": seed, "times_ms": times, "median_ms": med,
                            "gteps": feats["n_edges"] / (med * 1e-3) / 1e9, "depth_mean": feats["eccentricity_mean"],
                            "timer": "synthetic"},
                "valid": True, "error": None,
                "origin": {"command": "synthetic", "study": None, "trial": None, "version": __version__},
            }))
    return out


def write_synthetic_log(path, n_graphs: int = 40, configs="portfolio", *, n_sources: int = 8, seed: int = 0,
                        noise: float = 0.02, algorithm: str = "bfs") -> Path:
    """Write :func:`synthetic_records` to a JSONL file (overwritten) and return its path."""
    from .logs import LogWriter

    path = Path(path)
    if path.exists():
        path.unlink()
    with LogWriter(path, fsync=False) as w:
        for r in synthetic_records(n_graphs, configs, n_sources=n_sources, seed=seed, noise=noise,
                                   algorithm=algorithm):
            w.write(r)
    return path
