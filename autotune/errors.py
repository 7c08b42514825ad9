"""Exceptions raised by autotune.

Every error names the problem precisely (file and line, field, value, bytes needed vs free) so that a
user can act on it without reading a traceback.
"""
from __future__ import annotations


class AutotuneError(Exception):
    """Base class of every autotune error."""


class GraphFormatError(AutotuneError, ValueError):
    """A graph file (or in-memory input) is malformed.

    Parameters
    ----------
    message : str
        What is wrong (e.g. ``"non-integer vertex id 'x3'"``).
    path : str, optional
        The file the problem was found in.
    line : int, optional
        1-based line number inside the (decompressed) file.
    """

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        self.path = path
        self.line = line
        self.reason = message
        where = ""
        if path is not None:
            where = f"{path}"
            if line is not None:
                where += f":{line}"
            where += ": "
        super().__init__(where + message)


class EmptyGraphError(GraphFormatError):
    """The graph has no vertices or no edges after cleaning."""


class GPUUnavailableError(AutotuneError, RuntimeError):
    """An operation needs an NVIDIA GPU with CuPy and none is usable."""


class DeviceMemoryError(AutotuneError, MemoryError):
    """Not enough free device memory for the requested allocation.

    Attributes
    ----------
    needed_bytes : int
        Bytes the operation would allocate.
    free_bytes : int
        Bytes free on the device (driver free + CuPy pool free) when checked.
    """

    def __init__(self, what: str, needed_bytes: int, free_bytes: int):
        self.needed_bytes = int(needed_bytes)
        self.free_bytes = int(free_bytes)
        super().__init__(
            f"{what} needs {needed_bytes:,} bytes ({needed_bytes / 2**30:.2f} GiB) of device memory "
            f"but only {free_bytes:,} bytes ({free_bytes / 2**30:.2f} GiB) are free"
        )


class ValidationError(AutotuneError, AssertionError):
    """A BFS result failed validation against the CPU reference or the Graph500 tree checks."""
