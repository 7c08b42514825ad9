"""Paper 000's Table 2: the config the rules of Busato & Bombieri give for a graph, without a model.

:func:`table2_rule` is the fast path's fallback when no selection model is usable, one of the two
seed trials of a search (:mod:`autotune.search`), and a baseline of the model's regret table
(:mod:`autotune.model`). It lives in its own module so that both import it one way (neither
imports the other for it).
"""
from __future__ import annotations

import math
from typing import Any, Mapping

from . import config as _config
from .config import TraversalConfig
from .features import GraphFeatures

__all__ = ["table2_rule", "TABLE2_SUPPORT_RULES", "IRREGULAR_DEGREE_CV", "WARP_SIZE"]

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
    _FIELDS = _config._FIELDS  # the table at call time
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
