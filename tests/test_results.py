"""BFSResult's arrays (autotune.engine): given as the rows of one stacked array (what the engines pass),
the row views are made when first read and equal the rows; given separately, as before. The typing of a
host graph's result (NumPy, copied from the device once) is tested on the GPU (tests/test_engine_gpu.py)."""
from __future__ import annotations

import numpy as np
import pytest

from autotune.engine import BFSResult


def _result(**kw):
    return BFSResult(source=0, depth=2, levels=[], elapsed_ms=0.5, out_degrees=np.array([2, 1, 0, 3]), **kw)


def test_rows_are_read_when_asked():
    rows = np.array([[0, 1, 2, -1], [0, 0, 1, -1]], dtype=np.int32)
    res = _result(distances=None, predecessors=None, rows=rows)
    assert res._arrays == {}  # nothing made before a read
    assert res.n_reached == 3 and res.edges_traversed == 3
    np.testing.assert_array_equal(res.distances, rows[0])
    assert "predecessors" not in res._arrays
    np.testing.assert_array_equal(res.predecessors, rows[1])
    assert res.distances is res.distances  # made once
    assert np.shares_memory(res.distances, rows)  # views, no copy of a host array
    assert abs(res.gteps - 3 / 0.5e-3 / 1e9) < 1e-15
    assert "n_reached=3" in repr(res)


def test_separate_arrays():
    d = np.array([0, 1, -1, -1], dtype=np.int32)
    p = np.array([0, 0, -1, -1], dtype=np.int32)
    res = _result(distances=d, predecessors=p)
    assert res.distances is d and res.predecessors is p
    assert res.n_reached == 2 and res.edges_traversed == 3


@pytest.mark.gpu
def test_host_graph_rows_copied_when_read():
    """A host graph's result from the engine: the stacked device array kept as it is, each row copied to
    NumPy when first read (the other row not), exact."""
    import cupy

    from autotune.config import TraversalConfig
    from autotune.engine import BFSEngine
    from autotune.graph import from_edges

    a = np.arange(99)
    g = from_edges(a, a + 1, 100, directed=False, name="path100", xp=np)
    res = BFSEngine(g, TraversalConfig()).bfs(0)
    assert isinstance(res._rows, cupy.ndarray) and res._rows.shape == (2, 100) and res._arrays == {}
    assert res.n_reached == 100 and res.edges_traversed == 198  # on the device: nothing copied
    d = res.distances
    assert isinstance(d, np.ndarray) and "predecessors" not in res._arrays
    np.testing.assert_array_equal(d, np.arange(100))
    np.testing.assert_array_equal(res.predecessors, np.r_[0, np.arange(99)])
