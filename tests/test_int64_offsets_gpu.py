"""GPU tests of the kernels built for int64 row offsets (``-DAT_EID64``, graphs past 2**31 - 1
edges): every technique, its support strategies, both small-frontier drivers, both directions, BFS,
SSSP and the batched BFS, forced onto the zoo (``offsets="int64"``) and exact against the CPU
reference exactly as the int32 kernels are."""
from __future__ import annotations

import numpy as np
import pytest

from autotune.config import SSSP_METHODS, TraversalConfig
from autotune.techniques import TECHNIQUES

from .test_engine_gpu import ZOO, _check
from .test_sssp_gpu import TECHNIQUE_VARIANTS
from .test_sssp_gpu import ZOO as SSSP_ZOO
from .test_sssp_gpu import check as sssp_check

pytestmark = pytest.mark.gpu

_SMALLS = [dict(small_frontier="none"), dict(small_frontier="single_block", frontier_limit=512),
           dict(small_frontier="persistent", frontier_limit=2048)]
_DIRECTIONS = [dict(direction="push"),
               dict(direction="push_pull", switch_rule="alpha_beta", alpha=4, beta=6, hub_cache="on")]


def bfs_configs():
    """Every technique variant (with its support strategies) x small-frontier driver x direction."""
    out = []
    for t in TECHNIQUE_VARIANTS:
        for sm in _SMALLS:
            for d in _DIRECTIONS:
                c = TraversalConfig(**t, **sm, **d)
                if c not in out:
                    out.append(c)
    out.append(TraversalConfig(load_balance="binary_search", duplicate_culling="hash", chunk_size="dynamic"))
    out.append(TraversalConfig(load_balance="scan_mapped", duplicate_culling="hash", supplementary_queues=65536))
    out.append(TraversalConfig(load_balance="vertex_mapped", direction="push_pull", switch_rule="hub_ratio", gamma=0.1,
                               hub_degree=64, beta=48))
    return out


BFS_CONFIGS = bfs_configs()


def test_every_technique_is_covered():
    assert {c.load_balance for c in BFS_CONFIGS} == set(TECHNIQUES)


@pytest.mark.parametrize("cfg", BFS_CONFIGS, ids=lambda c: c.label)
def test_bfs_int64_offsets_exact(cfg):
    from autotune.engine import BFSEngine

    refs = {}
    for name, (g, sources) in ZOO.items():
        eng = BFSEngine(g, cfg, offsets="int64")
        assert eng.eid64 and eng.row_offsets.dtype == np.int64 and int(eng.params_host["eid_bytes"]) == 8
        for s in sources:
            _check(g, s, eng.bfs(s, trace=True), refs)
        _check(g, sources[0], eng.bfs(sources[0], trace=False), refs)


@pytest.mark.parametrize("method", SSSP_METHODS)
@pytest.mark.parametrize("lb", sorted(TECHNIQUES))
@pytest.mark.parametrize("small", ["none", "persistent"])
def test_sssp_int64_offsets_exact(method, lb, small):
    from autotune.engine import SSSPEngine

    sm = dict(small_frontier="persistent", frontier_limit=2048) if small == "persistent" else {}
    cfg = TraversalConfig(algorithm="sssp", sssp_method=method, load_balance=lb, **sm)
    for name, (g, sources) in SSSP_ZOO.items():
        eng = SSSPEngine(g, cfg, offsets="int64")
        assert eng.eid64
        for s in sources:
            sssp_check(g, s, eng.sssp(s, trace=False))


def test_batched_int64_offsets_exact():
    from autotune.batched import BatchBFSEngine, BatchConfig
    from autotune.reference import bfs_reference

    for name in ("directed", "kron13", "grid", "disconnected"):
        g, base = ZOO[name]
        src = np.r_[np.asarray(base), np.arange(0, g.n_vertices, max(1, g.n_vertices // 40))].astype(np.int64)
        ref = np.stack([bfs_reference(g, int(s))[0] for s in src])
        for direction in ("push", "push_pull"):
            eng = BatchBFSEngine(g, BatchConfig(width=64, direction=direction), offsets="int64")
            assert eng.eid64
            res = eng.run(src, predecessors=True)
            np.testing.assert_array_equal(np.asarray(res.distances).astype(np.int64), ref, err_msg=name)
            p = np.asarray(res.predecessors)
            reached = ref > 0
            rows, cols = np.nonzero(reached)
            assert np.all(ref[rows, p[rows, cols]] == ref[rows, cols] - 1)
