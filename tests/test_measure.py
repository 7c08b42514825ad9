"""The measurement harness (CPU parts): sources, GTEPS as a harmonic mean, failure reporting."""
from __future__ import annotations

import numpy as np
import pytest

from autotune.graph import from_edges
from autotune.measure import Measurement, Runner, ScipyRunner, measure, select_sources


def _g():
    rng = np.random.default_rng(0)
    return from_edges(rng.integers(0, 300, 2000), rng.integers(0, 300, 2000), 320, directed=True, xp=np)


def test_sources_seeded_and_have_out_edges():
    g = _g()
    a = select_sources(g, 16, seed=3)
    b = select_sources(g, 16, seed=3)
    c = select_sources(g, 16, seed=4)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    assert len(set(a.tolist())) == 16
    assert (g.out_degrees(np)[a] > 0).all()


def test_sources_errors():
    g = _g()
    with pytest.raises(ValueError, match="n_sources"):
        select_sources(g, 0)
    assert len(select_sources(g, 10_000)) == int((g.out_degrees(np) > 0).sum())


def test_gteps_is_harmonic_mean_of_rates():
    m = Measurement("x", [0, 1], [1.0, 3.0], [2_000_000, 2_000_000], [1, 1], "perf_counter")
    rates = np.array([2e9, 2e9 / 3])
    assert m.gteps == pytest.approx(2 / np.sum(1 / rates) / 1e9)
    assert m.median_ms == pytest.approx(2.0)


def test_scipy_peer_counts_edges_of_reached_component():
    from autotune.reference import bfs_reference

    g = _g()
    src = select_sources(g, 3, seed=1)
    m = measure(ScipyRunner(g), src)
    assert m.valid and len(m.times_ms) == 3
    for s, e, d in zip(m.sources, m.edges, m.depths):
        dist = bfs_reference(g, s)[0]
        assert e == int(g.out_degrees(np)[dist >= 0].sum())
        assert d == int(dist.max())


class _Failing(Runner):
    name = "boom"

    def traverse(self, source):
        raise RuntimeError("kernel exploded")


def test_failing_runner_is_invalid_not_fast():
    m = measure(_Failing(), [1, 2])
    assert not m.valid and "kernel exploded" in m.error


class _WrongResult(Runner):
    name = "wrong"

    def traverse(self, source):
        pass

    def outcome(self, source):
        return 10, 1

    def check(self, source):
        raise AssertionError("distances differ at vertex 3")


def test_validation_failure_recorded():
    m = measure(_WrongResult(), [1, 2], validate=True)
    assert not m.valid and "vertex 3" in m.error


def test_budget_times_the_first_sources_only():
    """A slow peer stops after its time budget: the sources it timed are the first ones, counted."""
    import time

    from autotune.measure import Runner, measure

    class Slow(Runner):
        name = "slow"

        def traverse(self, source):
            time.sleep(0.05)

        def outcome(self, source):
            return 10, 1

    m = measure(Slow(), [1, 2, 3, 4, 5, 6], warmup=0, budget_s=0.08)
    assert m.sources == [1, 2] and len(m.times_ms) == 2 and m.extra["sources_skipped"] == 4
    m = measure(Slow(), [1, 2, 3], warmup=0, budget_s=0)  # at least one source
    assert m.sources == [1] and m.extra["sources_skipped"] == 2
    m = measure(Slow(), [1, 2, 3], warmup=0)
    assert m.sources == [1, 2, 3] and "sources_skipped" not in m.extra
