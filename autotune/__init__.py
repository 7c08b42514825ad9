"""autotune: per-graph auto-tuned breadth-first search on NVIDIA GPUs."""
from __future__ import annotations

__version__ = "0.1.0"

from .errors import (  # noqa: F401
    AutotuneError, ConfigError, DeviceMemoryError, EmptyGraphError, FileAccessError, GeneratorSpecError,
    GPUUnavailableError, GraphFileError, GraphFormatError, HostMemoryError, InvalidArgumentError, MissingFileError,
    DeviceTimeoutError, ModelError, TrainingDataError, ValidationError, VertexError,
)
from .graph import CSRGraph, from_edges, load_graph  # noqa: F401
from .config import TraversalConfig  # noqa: F401
from .features import GraphFeatures, profile  # noqa: F401
from ._backend import gpu_available  # noqa: F401

# Tuning loop (imported lazily: scikit-learn and Optuna load only when used).
_LAZY = {"run": "engine", "BFSEngine": "engine", "BFSResult": "engine", "tune": "search", "table2_rule": "table2", "retrain": "model", "load_model": "model", "sweep": "sweep",
         "SSSPEngine": "engine", "SSSPResult": "engine", "BatchConfig": "batched", "BatchBFSResult": "batched",
         "run_batch": "batched", "closeness_centrality": "batched", "tune_batch": "batched",
         "release_resident": "_engine"}


def __getattr__(name):
    if name in _LAZY:
        import importlib

        value = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = value  # resolved once: ``at.run`` in a loop pays no import machinery per call
        return value
    raise AttributeError(f"module 'autotune' has no attribute {name!r}")
