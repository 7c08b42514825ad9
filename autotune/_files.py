"""Opening input files safely: one helper for every loader (graphs, logs, models, configs, corpora).

Every ``OSError`` becomes a :class:`~autotune.errors.FileAccessError` naming the file (a
:class:`~autotune.errors.MissingFileError` when it does not exist or vanished), never a raw
traceback. A path that is not a regular file (a directory, a FIFO, a character or block device, a
socket) is refused from its ``stat`` *before* it is opened, so a FIFO never blocks the reader;
the file is then opened non-blocking and checked again on the open descriptor, so a file swapped
for a FIFO in between is refused too.
"""
from __future__ import annotations

import errno as _errno
import os
import stat

from .errors import FileAccessError, MissingFileError

__all__ = ["check_regular_file", "open_regular", "read_bytes", "read_text", "write_text", "read_config_file",
           "SHARED_PREFIX", "shared_graphs_dirs", "resolve_graph_entry", "cache_dir"]

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def _kind(mode: int) -> str:
    for test, name in _KINDS:
        if test(mode):
            return name
    return "not a regular file"


def _reason(exc: OSError) -> str:
    """A short lower-case reason for an ``OSError`` (``"permission denied"``)."""
    if exc.errno == _errno.ENOENT:
        return "no such file"
    text = exc.strerror or exc.__class__.__name__
    return text[:1].lower() + text[1:]


def _error(path, exc: OSError, what: str, error: type) -> FileAccessError:
    if isinstance(exc, FileNotFoundError) or exc.errno == _errno.ENOENT:
        return MissingFileError(path, f"{what} not found", _errno.ENOENT)
    return error(path, f"cannot read the {what}: {_reason(exc)}", exc.errno)


def _refuse_non_regular(path, st: os.stat_result, what: str, error: type) -> None:
    if not stat.S_ISREG(st.st_mode):
        raise error(path, f"is {_kind(st.st_mode)}, not a regular file (the {what} must be one)")


def check_regular_file(path, what: str = "file", *, error: type = FileAccessError) -> os.stat_result:
    """``os.stat`` of *path*, refusing anything but an existing regular file.

    Parameters
    ----------
    path : str or os.PathLike
    what : str
        What the file is, for messages (``"graph file"``, ``"model file"``).
    error : type, default FileAccessError
        The :class:`FileAccessError` subclass to raise (a missing file always raises
        :class:`MissingFileError`).

    Returns
    -------
    os.stat_result

    Raises
    ------
    MissingFileError
        When *path* does not exist.
    FileAccessError
        When it is not a regular file or cannot be examined (naming the file).
    """
    try:
        st = os.stat(path)
    except OSError as exc:
        raise _error(path, exc, what, error) from None
    _refuse_non_regular(path, st, what, error)
    return st


def open_regular(path, what: str = "file", *, error: type = FileAccessError):
    """Open a regular file for binary reading, refusing non-regular files before opening them.

    Parameters
    ----------
    path : str or os.PathLike
    what : str
        What the file is, for messages.
    error : type, default FileAccessError

    Returns
    -------
    io.BufferedReader
        Opened ``"rb"``; the caller closes it.

    Raises
    ------
    MissingFileError, FileAccessError
        See :func:`check_regular_file`; also on a permission error at open.
    """
    check_regular_file(path, what, error=error)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise _error(path, exc, what, error) from None
    try:
        _refuse_non_regular(path, os.fstat(fd), what, error)  # swapped for a FIFO since the stat
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path, what: str = "file", *, error: type = FileAccessError) -> bytes:
    """The whole content of a regular file; every ``OSError`` (also while reading) names the file.

    Parameters
    ----------
    path : str or os.PathLike
    what : str
        What the file is, for messages.
    error : type, default FileAccessError

    Returns
    -------
    bytes
    """
    with open_regular(path, what, error=error) as fh:
        try:
            return fh.read()
        except OSError as exc:
            raise _error(path, exc, what, error) from None


def read_text(path, what: str = "file", *, error: type = FileAccessError) -> str:
    """:func:`read_bytes` decoded as UTF-8 (a decoding error names the file too).

    Raises
    ------
    FileAccessError
        Also when the file is not UTF-8 text.
    """
    data = read_bytes(path, what, error=error)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(path, f"the {what} is not UTF-8 text (byte {exc.start}: {exc.reason})") from None


def write_text(path, text: str, what: str = "output file") -> None:
    """Write *text* to *path*; an ``OSError`` becomes a :class:`FileAccessError` naming the file.

    Parameters
    ----------
    path : str or os.PathLike
    text : str
    what : str
        What the file is, for messages.
    """
    try:
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as exc:
        reason = "folder not found" if exc.errno == _errno.ENOENT else _reason(exc)
        raise FileAccessError(path, f"cannot write the {what}: {reason}", exc.errno) from None


def read_config_file(path):
    """The :class:`~autotune.config.TraversalConfig` of a JSON file (``--config``, a sweep's config list).

    Raises
    ------
    FileAccessError
        When the file cannot be read (naming it; :class:`MissingFileError` when it does not exist).
    ConfigError
        When it does not hold a valid config of this release (naming the file and the field).
    """
    from .config import TraversalConfig
    from .errors import ConfigError

    text = read_text(path, "config file")
    try:
        return TraversalConfig.from_json(text)
    except (ValueError, TypeError) as exc:  # bad JSON or an invalid field (the message names it)
        raise ConfigError(f"{os.fspath(path)}: not a valid traversal config: {exc}") from None


def cache_dir():
    """autotune's cache folder: ``$AUTOTUNE_CACHE_DIR``, else ``$XDG_CACHE_HOME/autotune``, else
    ``~/.cache/autotune`` (a :class:`pathlib.Path`; not created here). Re-exported by
    :mod:`autotune.search`."""
    from pathlib import Path

    env = os.environ.get("AUTOTUNE_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg).expanduser() if xdg else Path.home() / ".cache") / "autotune"


def model_dirs() -> list:
    """The folders holding shipped models, in the order they are searched: ``<package>/models``
    (installed wheel), ``<repo>/models`` (source checkout), then the ``autotune.models`` package
    location (editable installs), like :func:`autotune._kernels.kernel_dir`. Here, not in
    :mod:`autotune.model`, so that the CLI's fast path finds the files without importing that module."""
    from pathlib import Path

    here = Path(__file__).resolve().parent
    dirs = [here / "models", here.parent / "models"]
    try:
        import importlib.util

        spec = importlib.util.find_spec("autotune.models")
        if spec is not None and spec.submodule_search_locations:
            dirs += [Path(loc) for loc in spec.submodule_search_locations]
    except (ImportError, ValueError):
        pass
    return dirs


def model_candidates(algorithm: str, dirs) -> list:
    """The model files ``<algorithm>_<gpu>.joblib`` in *dirs*: folder by folder in the given order,
    by name within a folder, a file reached twice (the same folder listed twice) kept at its first
    place. Regular files only."""
    from pathlib import Path

    out: list = []
    seen: set = set()
    for d in dirs:
        try:
            files = sorted(Path(d).glob(f"{algorithm}_?*.joblib"))
        except OSError:
            continue
        for f in files:
            key = os.path.realpath(f)
            if key not in seen and f.is_file():
                seen.add(key)
                out.append(f)
    return out


# ------------------------------------------------------------------------------ shared graphs
# Here, not in :mod:`autotune.sweep` (which re-exports them), so that ``autotune tune shared:NAME``
# resolves the name without importing the sweep and its log machinery.

#: ``graph.spec`` prefix naming a file of the shared real-graph set.
SHARED_PREFIX = "shared:"


def shared_graphs_dirs() -> list:
    """Where ``shared:`` entries are looked up, in order: ``$AUTOTUNE_SHARED_GRAPHS``, then
    ``<repo>/.graphs`` (only folders that exist)."""
    from pathlib import Path

    cands = [os.environ.get("AUTOTUNE_SHARED_GRAPHS"), Path(__file__).resolve().parent.parent / ".graphs"]
    return [Path(c) for c in cands if c and Path(c).is_dir()]


def resolve_graph_entry(entry: str) -> list[str]:
    """Paths or specs a graph entry stands for (``shared:`` entries resolved, globs expanded).

    Parameters
    ----------
    entry : str
        A path, a generator spec, or ``shared:NAME`` (``NAME`` a file name or glob in the shared
        graph folder).

    Returns
    -------
    list of str
        One item, except for a ``shared:`` glob (every match, sorted).

    Raises
    ------
    MissingFileError
        (a ``FileNotFoundError``) When a ``shared:`` entry matches nothing, naming the folders
        searched.
    """
    import fnmatch

    entry = entry.strip()
    if not entry.startswith(SHARED_PREFIX):
        return [entry]
    name = entry[len(SHARED_PREFIX):].strip()
    dirs = shared_graphs_dirs()
    for d in dirs:
        hits = sorted(str(p) for p in d.iterdir() if p.is_file() and fnmatch.fnmatch(p.name, name)
                      and not p.name.endswith(".tsv"))
        if hits:
            return hits
    where = ", ".join(str(d) for d in dirs) or "none of them exists"
    raise MissingFileError(entry, f"shared graph {name!r} not found; looked in $AUTOTUNE_SHARED_GRAPHS "
                                  f"and <repo>/.graphs ({where})")
