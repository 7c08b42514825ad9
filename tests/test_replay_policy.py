"""CPU tests of the engine's replay bookkeeping (which CUDA graph a traversal replays), on a bare
engine object: no GPU, no capture. The GPU side (captures really avoided, results exact) is in
test_engine_gpu.py."""
from __future__ import annotations

import autotune._engine as E


def _bare(start_k: int, cached=()):
    eng = object.__new__(E.TraversalEngine)
    eng._start_k, eng._stale = start_k, 0
    eng._graphs = dict.fromkeys(cached)
    eng._round_history, eng._rounds_needed = [], 0
    return eng


def test_start_graph_follows_a_new_prediction_only_once_it_holds():
    eng = _bare(5, cached=[(True, 5), (False, 5), (False, 10)])
    for _ in range(E.STICKY_TRAVERSALS - 1):
        assert eng._start_rounds(2) == 5  # the captured start graph, no capture
    assert eng._start_rounds(2) == 2  # held for STICKY_TRAVERSALS traversals: switch
    assert eng._start_k == 2 and eng._stale == 0


def test_start_graph_counts_consecutive_traversals_only():
    eng = _bare(5, cached=[(True, 5)])
    for _ in range(E.STICKY_TRAVERSALS - 1):
        eng._start_rounds(3)
    assert eng._start_rounds(5) == 5 and eng._stale == 0  # the prediction came back: count restarts
    for _ in range(E.STICKY_TRAVERSALS - 1):
        assert eng._start_rounds(3) == 5


def test_start_graph_switches_at_once_to_a_captured_graph():
    eng = _bare(5, cached=[(True, 5), (True, 3)])
    assert eng._start_rounds(3) == 3 and eng._start_k == 3
    eng = _bare(0)  # nothing replayed yet
    assert eng._start_rounds(7) == 7


def test_start_rounds_capped_at_the_graph_limit():
    eng = _bare(E.MAX_GRAPH_ROUNDS, cached=[(True, E.MAX_GRAPH_ROUNDS)])
    assert eng._start_rounds(10 * E.MAX_GRAPH_ROUNDS) == E.MAX_GRAPH_ROUNDS and eng._stale == 0


def test_round_prediction_is_the_median_of_the_last_traversals():
    eng = _bare(0)
    for r in (4, 1, 1, 9):
        eng._note_rounds(r)
    assert eng._round_history == [5, 2, 2, 10] and eng._rounds_needed == 2
    for _ in range(20):
        eng._note_rounds(6)
    assert len(eng._round_history) == 16 and eng._rounds_needed == 7
