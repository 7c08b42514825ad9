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


class FileAccessError(AutotuneError, OSError):
    """A file cannot be read (or written): permission, a directory, FIFO, device or socket where a
    regular file was expected, a file that vanished, an I/O error.

    Raised by every loader (graphs, benchmark logs, models, configs, corpus files) through one
    helper, :func:`autotune._files.open_regular`: a non-regular file is refused *before* it is
    opened for reading, so a FIFO never blocks.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    reason : str
        What is wrong, e.g. ``"permission denied"`` or ``"is a FIFO (named pipe), not a regular file"``.
    errno : int, optional
        The OS error number, when the problem came from the OS.

    Attributes
    ----------
    path : str
    reason : str
    line : None
        Files are refused as a whole (no line), like :class:`GraphFormatError` without a line.
    """

    def __init__(self, path, reason: str, errno: int | None = None):
        import os

        self.path = os.fsdecode(path) if isinstance(path, (str, bytes, os.PathLike)) else str(path)
        self.reason = str(reason)
        self.line = None
        OSError.__init__(self, errno, self.reason, self.path)

    def __str__(self) -> str:
        return f"{self.path}: {self.reason}"

    def __reduce__(self):
        return (type(self), (self.path, self.reason, self.errno))


class MissingFileError(FileAccessError, FileNotFoundError):
    """A file that does not exist (or vanished between listing and reading)."""


class GraphFileError(FileAccessError, GraphFormatError):
    """A graph file cannot be read (a :class:`FileAccessError` that is also a :class:`GraphFormatError`,
    so code catching malformed graph input catches it too)."""


class HostMemoryError(AutotuneError, MemoryError):
    """Not enough host memory for what an input declares, found before anything is allocated.

    Attributes
    ----------
    what : str
        The file or generator spec.
    needed_bytes : int
        Peak host bytes the load or generation would allocate (:mod:`autotune.memory`).
    available_bytes : int
        Bytes the OS reports available (``MemAvailable`` of ``/proc/meminfo``).
    """

    def __init__(self, what: str, needed_bytes: int, available_bytes: int, detail: str = ""):
        self.what = str(what)
        self.needed_bytes = int(needed_bytes)
        self.available_bytes = int(available_bytes)
        super().__init__(
            f"{what}: needs {needed_bytes:,} bytes ({needed_bytes / 2**30:.2f} GiB) of host memory "
            f"but only {available_bytes:,} bytes ({available_bytes / 2**30:.2f} GiB) are available"
            + (f" ({detail})" if detail else ""))


class GeneratorSpecError(AutotuneError, ValueError):
    """A generator spec (``kron:scale=20``) or a generator parameter is malformed or out of range."""


class GraphTooLargeError(AutotuneError, ValueError):
    """A graph is past what the kernels index (more than 2**33 - 1 edges on one GPU, or int32
    row offsets asked for a graph of 2**31 edges or more)."""


class ConfigError(AutotuneError, ValueError):
    """A traversal config (a JSON file, a CLI flag, a logged config) is not valid in this release."""


class InvalidArgumentError(AutotuneError, ValueError):
    """An argument value is out of range (e.g. ``n_sources=0``, ``n_trials=-1``, an unknown peer)."""


class VertexError(AutotuneError, KeyError, ValueError):
    """A vertex id (e.g. a BFS source) that is not a vertex of the graph.

    A :class:`KeyError` for :meth:`CSRGraph.index_of`'s callers and a :class:`ValueError` for the
    traversal's; unlike a plain ``KeyError`` its message is not quoted.
    """

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class ModelError(AutotuneError, ValueError):
    """A selection-model file is corrupt, unreadable or incompatible with this release (the message
    names the file and says how to rebuild it).

    Parameters
    ----------
    message : str
    path : str, optional
        The model (or metadata) file.
    """

    def __init__(self, message: str, path=None):
        self.path = None if path is None else str(path)
        super().__init__(message)


class TrainingDataError(AutotuneError, ValueError):
    """Benchmark logs hold nothing a selection model can be trained on (the message says why, with
    the count of lines that failed and the first ``file:line``)."""


class GPUUnavailableError(AutotuneError, RuntimeError):
    """An operation needs an NVIDIA GPU with CuPy and none is usable."""


class PeerError(AutotuneError, RuntimeError):
    """A peer system measured side by side (GAP's ``bfs``/``sssp`` binaries) is missing or failed.

    The message names the binary or folder and, when the peer ran, its exit status and the tail of
    its output."""


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


class DeviceFaultError(AutotuneError, RuntimeError):
    """The GPU context faulted (an illegal memory access, a launch failure): nothing more can run in
    this process. Raised by :func:`autotune.sweep.sweep` after it has logged the faulting graph ×
    config as invalid, so that a new process resumes the sweep past it."""


class DeviceTimeoutError(AutotuneError, TimeoutError):
    """The device did not answer a traversal in time (the resident whole-graph kernel,
    ``autotune._engine.RESIDENT``): the GPU was busy with other work for longer than
    ``autotune._engine.RESIDENT_TIMEOUT_S``. Nothing already computed is lost."""
