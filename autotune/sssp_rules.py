"""The SSSP config chosen without a model: paper 003's Delta rule, and the per-algorithm baseline.

Busato & Bombieri, *Graph Algorithms on GPUs* (seed 003), §3.1, after Davidson et al.: run
Delta-stepping with the bucket width ``delta_0 = c * w / d`` (``c = 32``, the warp width; ``w`` the
mean edge weight; ``d`` the mean out-degree), so that a bucket holds about a warp's worth of work
per vertex. In :class:`~autotune.config.TraversalConfig` terms that is ``sssp_method=
"delta_stepping"`` with ``delta=1`` (the scale of the heuristic; the engine computes ``delta_0``
from the graph, ``autotune.engine.delta_heuristic``) on the default technique
(:data:`DEFAULT_SSSP_TECHNIQUE`), every other knob at its default: ``DEFAULT_SSSP_CONFIG``, the
documented default SSSP config (a module attribute built on access).

:func:`delta_rule` is to SSSP what :func:`autotune.table2.table2_rule` is to BFS: the fast path's
fallback while no SSSP selection model is shipped, one of the seed trials of an SSSP search, and
the rule baseline of the SSSP model's leave-one-graph-out regret table. :func:`baseline_rule`
picks the one that belongs to an algorithm. This module imports neither :mod:`autotune.search`
nor :mod:`autotune.model` (both import it).
"""
from __future__ import annotations

from typing import Any, Mapping

from .config import ALGORITHMS, TraversalConfig

__all__ = ["delta_rule", "baseline_rule", "DEFAULT_SSSP_TECHNIQUE", "DEFAULT_SSSP_CONFIG", "BASELINE_NAMES",
           "BASELINE_TITLES", "DELTA_RULE_CONSTANT"]

#: ``c`` of delta_0 = c * mean weight / mean out-degree (*Graph Algorithms on GPUs* §3.1: the warp
#: width, 32 threads).
DELTA_RULE_CONSTANT = 32

#: Load-balancing technique of the rule's config: the device-wide binary search (Busato & Bombieri,
#: *Efficient load balancing techniques for graph traversal applications on GPUs* §3.3), the
#: technique of the engine's default BFS strategy (``autotune.engine.DEFAULT_CONFIG``): it balances
#: the edges of every phase whatever the degree distribution, which is what a rule that does not
#: look at the graph needs.
DEFAULT_SSSP_TECHNIQUE = "binary_search"


def _default_sssp_config() -> TraversalConfig:
    """Delta-stepping at delta = delta_0 on the binary search (built when asked: importing this module
    builds no config, so it imports under any config table, e.g. a test's BFS-only one)."""
    return TraversalConfig(algorithm="sssp", load_balance=DEFAULT_SSSP_TECHNIQUE, sssp_method="delta_stepping",
                           delta=1)


def __getattr__(name):
    # DEFAULT_SSSP_CONFIG: the documented default SSSP config (module attribute, built on access)
    if name == "DEFAULT_SSSP_CONFIG":
        return _default_sssp_config()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

#: Name of the rule baseline of each algorithm (regret tables, search seeds, ``TuneResult.method``).
BASELINE_NAMES: dict[str, str] = {"bfs": "table2", "sssp": "delta_rule"}

#: Human titles of the rule baselines.
BASELINE_TITLES: dict[str, str] = {"table2": "Table-2 rules (paper 000)",
                                   "delta_rule": "Delta rule (paper 003: Delta-stepping, delta = delta_0)"}


def delta_rule(features=None, device: Mapping[str, Any] | None = None) -> TraversalConfig:
    """The SSSP config of paper 003's Delta rule (no model, no measurement).

    Parameters
    ----------
    features : GraphFeatures or dict, optional
        The graph's profile. Unused: the rule's delta_0 = 32 x mean weight / mean out-degree is a
        *scale* of 1 in the config, and the engine computes delta_0 from the graph itself
        (``autotune.engine.delta_heuristic``); accepted so that every rule has one signature.
    device : dict, optional
        Unused (same signature as :func:`autotune.table2.table2_rule`).

    Returns
    -------
    TraversalConfig
        ``DEFAULT_SSSP_CONFIG``: ``algorithm="sssp"``, ``sssp_method="delta_stepping"``,
        ``delta=1``, ``load_balance="binary_search"``, every other field at its default.

    Examples
    --------
    >>> delta_rule().label
    'sssp:delta_stepping(dx1)/binary_search/chunk=dynamic/b256/push/sb2048'
    """
    return _default_sssp_config()


def baseline_rule(algorithm: str, features, device: Mapping[str, Any] | None = None) -> TraversalConfig:
    """The rule-based config of *algorithm*: paper 000's Table 2 for BFS, paper 003's Delta rule for SSSP.

    Parameters
    ----------
    algorithm : {'bfs', 'sssp'}
    features : GraphFeatures or dict
        The graph's profile (:func:`autotune.features.profile`).
    device : dict, optional
        ``sm_count`` and ``max_threads_per_sm`` (Table 2's supplementary-queue threshold).

    Returns
    -------
    TraversalConfig

    Raises
    ------
    ValueError
        On an unknown algorithm.
    """
    if algorithm == "sssp":
        return delta_rule(features, device)
    if algorithm == "bfs":
        from .table2 import table2_rule

        return table2_rule(features, device)
    raise ValueError(f"unknown algorithm {algorithm!r}; expected one of {', '.join(ALGORITHMS)}")
