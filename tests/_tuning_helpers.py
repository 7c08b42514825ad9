"""Test doubles for the tuning loop: CPU runners with replayed (virtual) timings.

The harness (:func:`autotune.measure.measure`) times CPU runners with ``time.perf_counter``. The
:class:`VirtualClock` replaces the ``time`` module *inside autotune.measure only* (pytest
``monkeypatch``), and the runners here advance it by the time a recorded or modelled measurement
took, so the harness records exactly those times: a replay of measurements, without a GPU and
without sleeping. Everything else (sources, validation, logging, Optuna) runs for real.
"""
from __future__ import annotations

import math

import numpy as np

from autotune.measure import Runner
from autotune.reference import SSSP_INT_UNREACHED, bfs_reference, sssp_reference, validate_bfs, validate_sssp


class VirtualClock:
    """Stands in for the ``time`` module of :mod:`autotune.measure` (only ``perf_counter`` is used)."""

    def __init__(self):
        self.now = 1000.0

    def perf_counter(self) -> float:
        return self.now

    def advance_ms(self, ms: float) -> None:
        self.now += ms * 1e-3


def install_clock(monkeypatch) -> VirtualClock:
    """Patch ``autotune.measure.time`` with a fresh :class:`VirtualClock` and return it."""
    import autotune.measure

    clock = VirtualClock()
    monkeypatch.setattr(autotune.measure, "time", clock)
    return clock


class ReplayRunner(Runner):
    """A runner that really traverses on the CPU (SciPy) but takes replayed time.

    Parameters
    ----------
    graph : CSRGraph
    config : TraversalConfig
    clock : VirtualClock
    times_ms : callable ``(config, source) -> ms``
        The time a traversal from *source* takes (warm-up traversals advance the clock too, but
        the harness does not time them).
    corrupt : bool
        Return wrong distances (validation must catch them).
    fail : str, optional
        Raise ``RuntimeError(fail)`` in :meth:`prepare` (a config that cannot run).
    calls : list, optional
        Appended ``config_id`` on construction (to count what was measured).
    """

    timer = "perf_counter"

    def __init__(self, graph, config, clock, times_ms, *, corrupt=False, fail=None):
        self.graph = graph
        self.config = config
        self.name = config.label
        self.clock = clock
        self.times_ms = times_ms
        self.corrupt = corrupt
        self.fail = fail
        self.n_traversals = 0
        self._last = None
        self._deg = graph.out_degrees(np)

    def prepare(self) -> None:
        if self.fail:
            raise RuntimeError(self.fail)

    def traverse(self, source: int) -> None:
        dist, pred = bfs_reference(self.graph, int(source))
        if self.corrupt:
            dist = dist.copy()
            far = np.flatnonzero(dist > 0)
            dist[far[-1] if far.size else source] += 1
        self._last = (dist, pred)
        self.clock.advance_ms(float(self.times_ms(self.config, int(source))))
        self.n_traversals += 1

    def outcome(self, source: int):
        dist = self._last[0]
        return int(self._deg[dist >= 0].sum()), int(dist.max())

    def check(self, source: int) -> None:
        validate_bfs(self.graph, int(source), *self._last)


class SSSPReplayRunner(ReplayRunner):
    """:class:`ReplayRunner` for SSSP configs: really computes shortest paths on the CPU (SciPy's
    Dijkstra, :func:`autotune.reference.sssp_reference`) and returns them in the GPU engine's
    conventions (int64 with ``SSSP_INT_UNREACHED`` for integer or unit weights, float64 with +inf
    for float weights), validated by :func:`autotune.reference.validate_sssp`; takes replayed time.
    ``outcome`` reports the tree's largest hop count as the iterations."""

    def traverse(self, source: int) -> None:
        dist, pred = sssp_reference(self.graph, int(source))
        reached = np.isfinite(dist)
        w = self.graph.weights
        if w is None or np.dtype(w.dtype).kind in "iu":
            out = np.full(dist.shape, SSSP_INT_UNREACHED, dtype=np.int64)
            out[reached] = dist[reached].astype(np.int64)
        else:
            out = dist.astype(np.float64)
        if self.corrupt:
            far = np.flatnonzero(reached & (out > 0))
            out[far[-1] if far.size else source] += 1
        self._last = (out, pred)
        self.clock.advance_ms(float(self.times_ms(self.config, int(source))))
        self.n_traversals += 1

    def outcome(self, source: int):
        dist, pred = self._last
        reached = dist != SSSP_INT_UNREACHED if dist.dtype.kind == "i" else np.isfinite(dist)
        return int(self._deg[reached].sum()), int(reached.sum())

    def check(self, source: int) -> None:
        validate_sssp(self.graph, int(source), *self._last)


def model_time(features: dict, config) -> float:
    """Cost-model time (ms) of *config* on a graph with *features* (the synthetic model; SSSP
    configs pay the method's factor on top)."""
    from autotune._synthetic import synthetic_sssp_factor, synthetic_time_ms

    c = config.to_dict()
    t = synthetic_time_ms(features, c)
    return t * synthetic_sssp_factor(features, c) if c.get("algorithm") == "sssp" else t


def replay_factory(clock, base_ms, *, corrupt=(), fail=(), calls=None, jitter=0.01):
    """A ``runner_factory`` of :class:`ReplayRunner` s.

    Parameters
    ----------
    clock : VirtualClock
    base_ms : callable ``config -> ms``
        Median time of a config; source ``s`` takes ``base * (1 + jitter * sin(s + 1))``
        (deterministic, different per source).
    corrupt, fail : collections of config_id
        Configs whose results are wrong / that raise.
    calls : list, optional
        Receives each built config's ``config_id``.
    """

    def factory(graph, config):
        if calls is not None:
            calls.append(config.config_id)
        base = float(base_ms(config))

        def times(cfg, source):
            return base * (1.0 + jitter * math.sin(source + 1))

        cls = SSSPReplayRunner if config.algorithm == "sssp" else ReplayRunner
        return cls(graph, config, clock, times, corrupt=config.config_id in corrupt,
                   fail=f"cannot run {config.label}" if config.config_id in fail else None)

    return factory


def small_graph(n=400, avg_degree=6, seed=0, weights=None):
    """A small undirected random graph on the host (*weights*: a distribution such as
    ``"int:1:255"`` or ``"float:0.5:2"``, seeded by *seed*; None: unweighted)."""
    from autotune.generators import uniform_random

    return uniform_random(n, avg_degree, seed=seed, xp=np, weights=weights)


FAKE_DEVICE = {"name": "FAKE GPU (test)", "cc": "9.0", "sm_count": 132, "max_threads_per_sm": 2048}
