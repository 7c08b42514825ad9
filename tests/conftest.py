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


# ---------------------------------------------------------------- graph input (test_graph_io.py)
@pytest.fixture
def io_write(tmp_path):
    """Write a graph file under tmp_path: ``io_write(name, text_or_bytes, compress=None|"gz"|"bz2"|"xz")``.

    Returns the path as a string; with ``compress`` the data is compressed and the suffix appended.
    """
    import bz2
    import gzip
    import lzma

    def write(name: str, data, compress: str | None = None) -> str:
        raw = data.encode() if isinstance(data, str) else bytes(data)
        if compress:
            raw = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}[compress](raw)
            name = f"{name}.{compress}"
        path = tmp_path / name
        path.write_bytes(raw)
        return str(path)

    return write


@pytest.fixture(scope="session")
def io_graphs_dir():
    """The real graphs folder (with MANIFEST.tsv), or skip naming where it was looked for."""
    d = shared_graphs_dir()
    if d is None or not (d / "MANIFEST.tsv").is_file():
        pytest.skip("real graphs not found: set AUTOTUNE_SHARED_GRAPHS or provide <repo>/../shared/graphs "
                    "(with MANIFEST.tsv); CI clones without ../shared")
    return d


def csr_graph(n, edges, directed=True):
    """CSRGraph from an edge list (self-loops and duplicates dropped); allows graphs with no edges
    (which ``from_edges`` refuses), independent of the loaders under test."""
    import numpy as np

    from autotune.graph import CSRGraph

    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    src, dst = e[:, 0], e[:, 1]
    if not directed:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    keep = src != dst
    keys = np.unique(src[keep] * n + dst[keep])
    rows, cols = keys // n, keys % n
    ro = np.zeros(n + 1, dtype=np.int32)
    ro[1:] = np.cumsum(np.bincount(rows, minlength=n))
    return CSRGraph(row_offsets=ro, column_indices=cols.astype(np.int32), directed=directed)
