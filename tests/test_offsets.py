"""The row-offset type of the kernels (int32 below 2**31 edges, int64 up to 2**33 - 1), chosen
without a GPU, and both kernel variants compiled with NVRTC (test_kernels_nvrtc)."""
from __future__ import annotations

import numpy as np
import pytest

from autotune._engine import PARAMS_DTYPE, common_bytes_needed, offset_dtype
from autotune._kernels import EID64_OPTION, MAX_EDGES_INT32, MAX_EDGES_INT64, _options
from autotune.config import TraversalConfig
from autotune.errors import GraphTooLargeError


def test_offset_type_follows_the_edge_count():
    assert offset_dtype(0) == np.int32 and offset_dtype(MAX_EDGES_INT32) == np.int32
    assert offset_dtype(MAX_EDGES_INT32 + 1) == np.int64 and offset_dtype(MAX_EDGES_INT64) == np.int64
    assert offset_dtype(10, "int64") == np.int64 and offset_dtype(10, "int32") == np.int32


def test_past_the_limits_is_the_projects_error():
    with pytest.raises(GraphTooLargeError, match="int32 row offsets hold at most 2,147,483,647"):
        offset_dtype(MAX_EDGES_INT32 + 1, "int32")
    with pytest.raises(GraphTooLargeError, match="8,589,934,591"):
        offset_dtype(MAX_EDGES_INT64 + 1)
    with pytest.raises(ValueError, match="offsets must be"):
        offset_dtype(10, "int16")


def test_the_64_bit_modules_are_built_with_their_define():
    assert EID64_OPTION in _options(True) and EID64_OPTION not in _options(False)
    assert "eid_bytes" in PARAMS_DTYPE.names and PARAMS_DTYPE.itemsize == 64


def test_device_plan_counts_64_bit_prefix_buffers():
    from autotune.graph import from_edges

    g = from_edges(np.arange(999), np.arange(1, 1000), 1000, xp=np)
    cfg = TraversalConfig(load_balance="binary_search")
    b32 = common_bytes_needed(g, cfg, 16)
    b64 = common_bytes_needed(g, cfg, 16, "int64")
    # prefix-sums and row starts of both frontier buffers (4 arrays) double, plus the converted offsets
    assert b64 - b32 == 4 * 4 * 1000 + 8 * 1001


def test_pull_frontier_bitmap_policy():
    """Pull levels use the frontier bitmap when the status array exceeds half the L2."""
    from autotune._engine import use_pull_bitmap

    l2 = 50 * 2 ** 20  # H200 / H100: 50 MB
    assert not use_pull_bitmap(4_194_304, l2)  # kron 22: 16 MB of status, under half the L2
    assert use_pull_bitmap(67_108_864, l2)  # kron 26: 268 MB
    assert not use_pull_bitmap(10 ** 9, 0)  # L2 size unknown: never
