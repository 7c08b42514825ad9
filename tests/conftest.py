"""Shared pytest configuration: GPU tests skip cleanly where no NVIDIA GPU with CuPy is usable."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def shared_graphs_dir() -> Path | None:
    """Folder of the real graphs: $AUTOTUNE_SHARED_GRAPHS, <repo>/.graphs (device copy), <repo>/../shared/graphs."""
    cands = [os.environ.get("AUTOTUNE_SHARED_GRAPHS"), REPO / ".graphs", REPO.parent / "shared" / "graphs"]
    for c in cands:
        if c and Path(c).is_dir() and any(Path(c).glob("*.gz")):
            return Path(c)
    return None


def pytest_collection_modifyitems(config, items):
    from autotune._backend import _probe

    ok, why = _probe()
    if ok:
        return
    skip = pytest.mark.skip(reason=f"gpu test: {why}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
