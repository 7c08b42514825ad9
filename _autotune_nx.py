"""NetworkX ``backend_info`` of the ``autotune`` dispatch backend.

NetworkX calls :func:`get_info` (entry point ``networkx.backend_info``) while ``import networkx``
runs, for every installed backend, so this module is kept apart from the ``autotune`` package: it
imports nothing (no NumPy, no CuPy) and costs nothing to load. The backend itself is
``autotune.nx_backend:BackendInterface`` (entry point ``networkx.backends``), loaded only when a
call is dispatched to it.
"""
from __future__ import annotations

import os

#: Functions the backend implements (``autotune.nx_backend.FUNCTIONS`` is the same tuple; a test
#: checks that they agree) with the note NetworkX appends to each function's docstring.
FUNCTIONS = {
    "bfs_edges": "Runs the BFS on the GPU; the edges come in NetworkX's order (rebuilt level by level "
                 "from the GPU distances and the graph's neighbour order). ``sort_neighbors`` is declined.",
    "bfs_tree": "Runs the BFS on the GPU; same tree, node and edge order as NetworkX. "
                "``sort_neighbors`` is declined.",
    "bfs_predecessors": "Runs the BFS on the GPU, NetworkX's order. ``sort_neighbors`` is declined.",
    "bfs_successors": "Runs the BFS on the GPU, NetworkX's order. ``sort_neighbors`` is declined.",
    "bfs_layers": "One GPU BFS per source (at most 64 sources of a list, set or tuple); each layer in "
                  "NetworkX's order.",
    "descendants_at_distance": "Runs the BFS on the GPU.",
    "single_source_shortest_path_length": "Runs the BFS on the GPU. The dict holds NetworkX's keys and "
                                          "values; its keys are in order of distance.",
    "single_target_shortest_path_length": "Runs the BFS on the GPU over the reversed edges. The dict's keys "
                                          "are in order of distance.",
    "shortest_path_length": "Unweighted (``weight=None``): BFS on the GPU for a source, a target, both, or "
                            "all pairs (one BFS per node, lazily). Weighted with ``method='dijkstra'``: "
                            "SSSP on the GPU when the weights are all positive ints (fitting int32) or all "
                            "positive floats whose float32 sums are exact (multiples of a power of two, e.g. "
                            "0.25); ``bellman-ford``, weight functions and other weights are declined.",
    "single_source_dijkstra_path_length": "SSSP on the GPU when the weights are all positive ints "
                                          "(fitting int32) or all positive floats whose float32 sums are "
                                          "exact (multiples of a power of two, e.g. 0.25); weight functions "
                                          "and other weights are declined.",
    "closeness_centrality": "Batched multi-source BFS on the GPU over the in-edges (NetworkX's inward "
                            "distance), giving NetworkX's values; ``u`` and ``wf_improved`` as NetworkX. "
                            "``distance`` is taken only when every edge's distance is 1; weighted closeness "
                            "is declined.",
}


def get_info() -> dict:
    """Describe the ``autotune`` backend to NetworkX (entry point ``networkx.backend_info``).

    Returns
    -------
    dict
        ``backend_name``, ``project``, ``package``, ``short_summary``, ``functions`` (the note
        NetworkX adds to each implemented function's docstring) and ``default_config`` (the
        backend's settings, ``nx.config.backends.autotune``): ``tune`` (pick each graph's
        traversal config with :func:`autotune.tune`'s fast path on first use; False runs the
        engine's default config) and ``host_reference`` (True when ``AUTOTUNE_NX_HOST_REFERENCE``
        is set: the traversals run on the CPU with ``scipy.sparse.csgraph`` instead of the GPU, to
        test the backend's NetworkX semantics on a machine without a GPU; never faster than
        NetworkX).
    """
    return {
        "backend_name": "autotune",
        "project": "autotune-bfs",
        "package": "autotune",
        "short_summary": "Per-graph auto-tuned BFS, SSSP and closeness on NVIDIA GPUs (CuPy kernels).",
        "functions": {name: {"extra_docstring": doc} for name, doc in FUNCTIONS.items()},
        "default_config": {
            "tune": True,
            "host_reference": os.environ.get("AUTOTUNE_NX_HOST_REFERENCE", "") not in ("", "0"),
        },
    }
