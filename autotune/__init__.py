"""autotune: per-graph auto-tuned breadth-first search on NVIDIA GPUs."""
from __future__ import annotations

__version__ = "0.1.0"

from .errors import (  # noqa: F401
    AutotuneError, DeviceMemoryError, EmptyGraphError, GPUUnavailableError, GraphFormatError, ValidationError,
)
from .graph import CSRGraph, from_edges  # noqa: F401
from ._backend import gpu_available  # noqa: F401
