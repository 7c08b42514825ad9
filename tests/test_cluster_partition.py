"""The cluster kernel's partition and shared-memory plan (CPU): autotune._engine.cluster_partition,
cluster_smem_bytes and cluster_fits, which kernels/cluster_graph.cu relies on (ranges starting at
multiples of 32, an owner per bitmap word, the largest range's words and edges)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import autotune._engine as E


def _check_partition(ro, n, blocks):
    bounds, owners, wmax, emax = E.cluster_partition(ro, n, blocks)
    assert bounds.dtype == np.int32 and bounds.shape == (blocks + 1,)
    assert bounds[0] == 0 and bounds[-1] == n and (np.diff(bounds) >= 0).all()
    assert (bounds[:-1][np.diff(bounds) > 0] % 32 == 0).all()  # every range starts on a bitmap word
    nw = (n + 31) // 32
    assert owners.dtype == np.uint8 and owners.shape == (nw,)
    for j in range(nw):  # word j's vertices lie in its owner's range
        r = int(owners[j])
        assert bounds[r] <= 32 * j < bounds[r + 1]
        assert min(32 * j + 31, n - 1) < bounds[r + 1]
    words = (np.diff(bounds) + 31) // 32
    assert wmax % 4 == 0 and words.max() <= wmax < words.max() + 4
    ro = np.asarray(ro, dtype=np.int64)
    assert emax == int((ro[bounds[1:]] - ro[bounds[:-1]]).max())
    return bounds


@settings(max_examples=150, deadline=None)
@given(degrees=st.lists(st.integers(0, 3000), min_size=1, max_size=3000), blocks=st.sampled_from([8, 16]))
def test_partition_properties(degrees, blocks):
    ro = np.concatenate([[0], np.cumsum(degrees)])
    _check_partition(ro, len(degrees), blocks)


def test_partition_balances_work():
    """Ranges of about equal edges + vertices: a uniform graph splits into equal ranges; a hub's range
    holds few other vertices."""
    n = 32 * 16 * 100
    b = _check_partition(np.arange(n + 1) * 10, n, 16)
    assert (np.diff(b) == n // 16).all()
    deg = np.ones(n, dtype=np.int64)
    deg[0] = 1_000_000
    b = _check_partition(np.concatenate([[0], np.cumsum(deg)]), n, 16)
    assert b[1] == 32  # the hub's word alone in the first range


def test_smem_bytes_mirror_the_kernel_layout():
    """cluster_smem_bytes adds the parts of kernels/cluster_graph.cu's layout, in 16-byte units."""
    n, wmax, emax = 10_000, 20, 5_000
    nw = (n + 31) // 32
    base = 4 * (4 * wmax + 4 * ((nw + 15) // 16) + 16 * wmax + 64 * wmax)
    assert E.cluster_smem_bytes(n, wmax) == base
    assert E.cluster_smem_bytes(n, wmax, pull=True) == base + 4 * ((nw + 3) // 4 * 4)
    staged = 4 * ((32 * wmax + 1 + 3) // 4 * 4 + (emax + 3) // 4 * 4)
    assert E.cluster_smem_bytes(n, wmax, emax, staged=True) == base + staged
    assert all(E.cluster_smem_bytes(n, w, e, p, s) % 16 == 0 for w in (4, 8) for e in (1, 7) for p in (0, 1)
               for s in (0, 1))


@pytest.mark.parametrize("cc, n, m, want", [
    ("9.0", 30_000, 300_000, True), ("8.0", 30_000, 300_000, False), ("9.0", 1000, 40_000, False),
    ("9.0", 30_000, (1 << 20) + 1, False), ("9.0", (1 << 18) + 1, 900_000, False), ("10.0", 5, 60_000, True),
    ("x", 30_000, 300_000, False)])
def test_fits(cc, n, m, want):
    """Compute capability 9.0 or more, more edges than the one-block kernel takes, within the limits."""
    assert E.cluster_fits(n, m, cc) is want
