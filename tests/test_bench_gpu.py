"""`autotune bench` on the GPU: peers on the same sources, validated, JSON and plot written."""
from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.gpu


def test_bench_peers_same_sources(tmp_path):
    from autotune import cli

    js, png = tmp_path / "b.json", tmp_path / "b.png"
    assert cli.main(["bench", "kron:scale=11,edge_factor=8", "grid:rows=40,cols=40", "--sources", "4",
                     "--peers", "scipy,cupyx,cugraph", "--json", str(js), "--plot", str(png)]) == 0
    data = json.loads(js.read_text())
    assert data["device"]["name"]
    for r in data["results"]:
        ms = r["measurements"]
        names = [m["name"] for m in ms]
        assert any(n.startswith("scipy") for n in names) and any(n.startswith("cupyx") for n in names)
        assert all(m["valid"] for m in ms), [m["error"] for m in ms]
        assert len({tuple(m["sources"]) for m in ms}) == 1
        assert len({tuple(m["depths"]) for m in ms}) == 1 and len({tuple(m["edges"]) for m in ms}) == 1
        assert r["trace"][0]["levels"]
    assert png.stat().st_size > 10_000


def test_cupyx_peer_detects_wrong_distances():
    import numpy as np

    from autotune.bench import CupyxSpMVRunner
    from autotune.generators import grid
    from autotune.measure import measure

    g = grid(10, 10, xp=np)
    r = CupyxSpMVRunner(g)

    class Broken(CupyxSpMVRunner):
        def traverse(self, source):
            super().traverse(source)
            self._dist[self._dist == 2] = 3

    assert measure(r, [0, 5], validate=True).valid
    m = measure(Broken(g), [0, 5], validate=True)
    assert not m.valid and "differ" in m.error
