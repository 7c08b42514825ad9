"""CPU tests of the engine's replay bookkeeping (which CUDA graph a traversal replays), on a bare
engine object: no GPU, no capture. The GPU side (captures really avoided, costs measured, results
exact) is in test_engine_gpu.py."""
from __future__ import annotations

import math

import pytest

import autotune._engine as E


def _bare(start_k: int, cached=(), history=(), round_us=3.0, continuation_us=15.0, capture_us=250.0):
    eng = object.__new__(E.TraversalEngine)
    eng._start_k, eng._waste_us, eng._plan, eng._plan_stale = start_k, 0.0, None, False
    eng._graphs = dict.fromkeys(cached)
    eng._round_history, eng._rounds_needed = [], 0
    eng.round_us, eng.continuation_us, eng.capture_us = round_us, continuation_us, capture_us
    eng._graphs_changed()
    for r in history:
        eng._note_rounds(r)
    eng._update_plan()  # as a traversal does while the GPU runs
    return eng


def test_cost_of_a_start_graph_counts_unneeded_rounds_and_continuations():
    eng = _bare(5)
    assert eng._start_cost(10, 10) == 0
    assert eng._start_cost(16, 10) == pytest.approx(6 * 3.0)
    assert eng._start_cost(5, 10) == pytest.approx(15.0)  # 5 + 5
    assert eng._start_cost(2, 6) == pytest.approx(2 * 15.0 + 2 * 3.0)  # 2 + 2 + 4: 2 rounds too many
    assert eng._start_cost(64, 200) == pytest.approx(3 * 15.0 + 56 * 3.0)  # 64 + 3 x 64 (capped)
    eng = _bare(5, cached=[(False, 1), (False, 2)])  # no doubling continuation past 2: the longest
    assert eng._start_cost(8, 10) == pytest.approx(15.0)  # 8 + 2
    assert eng._start_cost(1, 7) == pytest.approx(4 * 15.0 + 3.0)  # 1 + 1 + 2 + 2 + 2: one too many


def test_longer_start_graph_replayed_until_its_empty_rounds_cost_a_capture():
    eng = _bare(64, cached=[(True, 64), (False, 64)], history=[10] * 4)
    per = 54 * 3.0  # 162 us of empty rounds a traversal
    n = 0
    while eng._start_rounds() == 64:  # the captured start graph, no capture
        n += 1
    assert n == math.ceil(250.0 / per) - 1  # the traversal whose cost reaches a capture captures
    assert eng._start_k == 10 and eng._waste_us == 0


def test_shorter_start_graph_replayed_until_its_continuations_cost_a_capture():
    eng = _bare(2, cached=[(True, 2), (False, 2), (False, 4)], history=[6] * 3)
    n = 0
    while eng._start_rounds() == 2:  # start 2 + continuations 2 and 4: two host waits, 2 empty rounds
        n += 1
    assert n == math.ceil(250.0 / 36.0) - 1
    assert eng._start_k == 6 and eng._waste_us == 0


def test_cheapest_neighbouring_start_graph_is_replayed():
    # 10 rounds: 16 (6 empty rounds) or 8 and a 2-round continuation; 64 is not a neighbour
    cached = [(True, 64), (True, 16), (True, 8), (False, 1), (False, 2)]
    eng = _bare(64, cached=cached, history=[10], round_us=10.0)  # 8: 15 us, 16: 60 us
    assert eng._start_rounds() == 8 and eng._start_k == 8
    eng = _bare(64, cached=cached, history=[10], round_us=2.0)  # 8: 15 us, 16: 12 us
    assert eng._start_rounds() == 16
    assert eng._waste_us == pytest.approx(12.0)


def test_target_has_the_least_expected_cost_over_the_remembered_rounds():
    kw = dict(round_us=5.0, continuation_us=10.0)
    # half need 2, half 3: one empty round beats a continuation
    assert _bare(0, history=[2] * 8 + [3] * 8, **kw)._plan == (3, 3, 0.0)
    # a deep quarter: its continuations cost less than empty rounds for the other three quarters
    assert _bare(0, history=[1] * 6 + [2] * 6 + [4, 19, 20, 21], **kw)._plan[0] == 2
    # a bow-tie: the first source deep (timed twice: warm-up and first), the next shallow; not the deep one
    kw["continuation_us"] = 11.0
    eng = _bare(64, cached=[(True, k) for k in (2, 4, 8, 16, 32, 61, 62, 63, 64)], history=[67, 67, 1, 4], **kw)
    assert eng._plan == (4, 4, 0.0) and eng._start_rounds() == 4


def test_plan_is_made_during_a_traversal_from_the_rounds_before_it():
    eng = _bare(64, cached=[(True, 64), (True, 16)], history=[10])
    assert eng._start_rounds() == 16
    plan = eng._plan
    eng._note_rounds(12)  # a traversal ended: the plan is stale, the next start graph still follows it
    assert eng._plan_stale and eng._start_rounds() == 16 and eng._plan is plan
    eng._update_plan()  # what the next traversal does while its graph runs
    assert not eng._plan_stale and eng._plan[0] in (10, 12)
    eng._graphs[(True, 12)] = None  # a capture
    eng._graphs_changed()
    assert eng._plan_stale
    eng._update_plan()
    assert eng._plan == (12, 12, 0.0)
    for _ in range(E.ROUND_HISTORY):
        eng._note_rounds(12)
    eng._update_plan()
    eng._note_rounds(12)  # 12 in, 12 out: nothing to plan again
    assert not eng._plan_stale


def test_start_graph_switches_at_once_to_a_captured_graph():
    eng = _bare(5, cached=[(True, 5), (True, 3)], history=[3])
    eng._waste_us = 100.0
    assert eng._start_rounds() == 3 and eng._start_k == 3 and eng._waste_us == 0
    eng = _bare(0)  # nothing replayed yet
    assert eng._start_rounds(7) == 7


def test_start_rounds_capped_at_the_graph_limit():
    eng = _bare(E.MAX_GRAPH_ROUNDS, cached=[(True, E.MAX_GRAPH_ROUNDS)], history=[10 * E.MAX_GRAPH_ROUNDS])
    assert eng._start_rounds() == E.MAX_GRAPH_ROUNDS and eng._waste_us == 0
    assert _bare(0)._start_rounds(10 * E.MAX_GRAPH_ROUNDS) == E.MAX_GRAPH_ROUNDS


def test_continuation_is_the_doubling_one_or_the_longest_captured_not_above():
    eng = _bare(5, cached=[(True, 5), (False, 5), (False, 10)])
    assert eng._continuation_rounds(5) == 5
    assert eng._continuation_rounds(10) == 10
    assert eng._continuation_rounds(20) == 10  # not captured: the longest captured, no capture
    assert eng._continuation_rounds(500) == 10
    assert eng._continuation_rounds(3) == 5  # none shorter: the shortest
    assert _bare(5)._continuation_rounds(500) == E.MAX_GRAPH_ROUNDS  # none captured: capture the cap
    # the primed powers of two: after 3 rounds the 2-round one, not the 64-round one (62 empty rounds)
    eng = _bare(3, cached=[(False, 1 << i) for i in range(7)])
    assert [eng._continuation_rounds(k) for k in (3, 5, 12, 40, 100)] == [2, 4, 8, 32, 64]


def test_ladder_of_primed_start_graphs():
    assert E._ladder(64) == [2, 4, 8, 16, 32]
    assert E._ladder(2) == [8]  # 3 and 4 are primed as k0 + 1, k0 + 2
    assert E._ladder(20) == [2, 4, 8, 16, 32, 64]
    for k0 in range(1, E.MAX_GRAPH_ROUNDS + 1):
        lad = E._ladder(k0)
        assert all(k < k0 - E.PRIME_FEWER_ROUNDS or k0 + E.PRIME_MORE_ROUNDS < k <= min(4 * k0, E.MAX_GRAPH_ROUNDS)
                   for k in lad)
        # with k0 - 3 .. k0 + 2 and the continuations of k0, 2 k0 and the powers of two, the primed fit
        n_primed = len(lad) + 1 + E.PRIME_FEWER_ROUNDS + E.PRIME_MORE_ROUNDS + 2 + E.MAX_GRAPH_ROUNDS.bit_length()
        assert n_primed <= E.MAX_GRAPHS


def test_round_history_holds_the_rounds_needed():
    eng = _bare(0)  # the (upper) median
    for r in (4, 1, 0, 9):
        eng._note_rounds(r)
    assert eng._round_history == [4, 1, 1, 9] and eng._rounds_needed == 4
    eng._note_rounds(1)
    assert eng._rounds_needed == 1
    for _ in range(20):
        eng._note_rounds(6)
    assert eng._round_history == [6] * E.ROUND_HISTORY and eng._rounds_needed == 6


def test_a_full_graph_cache_evicts_the_least_recently_replayed_graph():
    """Past MAX_GRAPHS captures the engine evicts the graph replayed longest ago, not the oldest
    capture: the primed start graph that every traversal replays stays."""
    keys = [(True, 10)] + [(True, k) for k in range(11, 11 + E.MAX_GRAPHS - 2)] + [(False, 8)]
    eng = _bare(10, cached=keys, history=[10])
    assert len(eng._graphs) == E.MAX_GRAPHS
    assert eng._cached_graph((True, 10)) is None  # the bare cache holds None for every key
    eng._graphs = {key: object() for key in keys}
    primed = eng._graphs[(True, 10)]
    assert eng._cached_graph((True, 10)) is primed  # a replay: now the most recent
    assert list(eng._graphs)[-1] == (True, 10)
    assert eng._cached_graph((True, 99)) is None and len(eng._graphs) == E.MAX_GRAPHS  # a miss changes nothing
    eng._plan_stale = False
    eng._store_graph((False, 16), object())
    assert len(eng._graphs) == E.MAX_GRAPHS
    assert (True, 10) in eng._graphs and (True, 11) not in eng._graphs  # the least recent went
    assert list(eng._graphs)[-1] == (False, 16) and eng._conts == [8, 16] and eng._plan_stale
    for key in list(eng._graphs)[:-1]:  # replay all but the newest: it is now the least recent
        eng._cached_graph(key)
    eng._store_graph((False, 32), object())
    assert (False, 16) not in eng._graphs and (True, 10) in eng._graphs and eng._conts == [8, 32]
