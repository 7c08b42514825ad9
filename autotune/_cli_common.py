"""What the CLI modules share: error and warning output, the console, GRAPH arguments, and the
dispatch of a parsed verb.

:mod:`autotune.cli` (``profile``, ``run``, ``bench``, ``compile``) and :mod:`autotune.cli_tuning`
(``tune``, ``sweep``, ``retrain``) both import this module; it imports neither, so the imports run
one way. It imports nothing heavy at module level (no Rich, scikit-learn, SciPy, Optuna): ``autotune
tune``'s fast path starts in well under a second.
"""
from __future__ import annotations

import argparse
import math
import sys

from .errors import AutotuneError

__all__ = ["dispatch", "err", "warn_to_stderr", "int_at_least", "positive_float", "fraction", "console", "is_tty",
           "expand_graphs", "load_graph_arg", "PIPE_WIDTH"]

#: Console width when the output is not a terminal (a pipe, a file): wide enough that Rich never
#: cuts a table cell ("binary…", "c-2f59…") or wraps a message line, so piped output can be grepped.
PIPE_WIDTH = 10_000


def int_at_least(lo: int):
    """An argparse ``type``: an integer ``>= lo`` (else argparse's one-line usage error, exit 2)."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < lo:
            raise argparse.ArgumentTypeError(f"must be >= {lo}, got {value}")
        return value

    parse.__name__ = f"integer >= {lo}"
    return parse


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def positive_float(text: str) -> float:
    """An argparse ``type``: a finite number > 0."""
    value = _number(text)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text!r}")
    return value


def nonnegative_float(text: str) -> float:
    """An argparse ``type``: a finite number >= 0."""
    value = _number(text)
    if not (math.isfinite(value) and value >= 0):
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {text!r}")
    return value


def fraction(text: str) -> float:
    """An argparse ``type``: a number in [0, 1)."""
    value = _number(text)
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1), got {text!r}")
    return value


def err(msg: str) -> None:
    """Print ``autotune: error: <msg>`` on stderr (one line, the message unchanged)."""
    print(f"autotune: error: {msg}", file=sys.stderr)


#: Warnings already printed by :func:`warn_to_stderr` in this command (cleared by :func:`dispatch`, so
#: once per process of the ``autotune`` script): ``(category, message)``.
_WARNED: set = set()


def warn_to_stderr(caught) -> None:
    """Print recorded warnings (``warnings.catch_warnings(record=True)``) as ``autotune: warning: ...``,
    each distinct warning once per process (a verb run over 13 graphs that loads a model trained on
    another GPU says so once, not 13 times)."""
    for w in caught:
        key = (getattr(w.category, "__name__", str(w.category)), str(w.message))
        if key in _WARNED:
            continue
        _WARNED.add(key)
        print(f"autotune: warning: {w.message}", file=sys.stderr)


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """``warnings.showwarning`` while a verb runs: a warning nobody recorded is printed as
    ``autotune: warning: ...``, once per process (:func:`warn_to_stderr`), without the source line."""
    warn_to_stderr([_Warning(message, category)])


class _Warning:
    __slots__ = ("message", "category")

    def __init__(self, message, category):
        self.message, self.category = message, category


def is_tty(stream=None) -> bool:
    """Whether *stream* (default ``sys.stdout``) is an interactive terminal."""
    stream = sys.stdout if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):  # replaced or closed stream
        return False


def console(stderr: bool = False):
    """A Rich console on stdout (or stderr): the terminal's width on a terminal; off a terminal (a
    pipe, a file) :data:`PIPE_WIDTH` columns, so tables keep their full labels (Rich's default there
    is 80 columns, which cuts cells with '…')."""
    from rich.console import Console

    stream = sys.stderr if stderr else sys.stdout
    if is_tty(stream):
        return Console(file=stream, highlight=False)
    return Console(file=stream, highlight=False, width=PIPE_WIDTH, soft_wrap=False)


# ------------------------------------------------------------------------------------- graphs
_GLOB_CHARS = set("*?[")


def _shared(entry: str) -> list[str]:
    """The files a ``shared:NAME`` entry names (:func:`autotune._files.resolve_graph_entry`: a file
    name or glob in ``$AUTOTUNE_SHARED_GRAPHS`` or ``<repo>/.graphs``). A NAME without an extension
    that names no file is matched against the file names without their extensions
    (``shared:road-usroads`` is ``road-usroads.mtx.gz``)."""
    from ._files import SHARED_PREFIX, resolve_graph_entry
    from .errors import InvalidArgumentError, MissingFileError

    try:
        return resolve_graph_entry(entry)
    except MissingFileError as exc:
        name = entry.strip()[len(SHARED_PREFIX):].strip()
        if not name or _GLOB_CHARS & set(name):
            raise
        try:
            hits = resolve_graph_entry(f"{SHARED_PREFIX}{name}.*")
        except MissingFileError:
            raise exc from None
    if len(hits) > 1:
        import os

        raise InvalidArgumentError(f"{entry!r} names {len(hits)} shared graphs "
                                   f"({', '.join(os.path.basename(h) for h in hits)}); give the file name")
    return hits


def expand_graphs(specs) -> list[str]:
    """GRAPH arguments as paths or generator specs: every ``shared:NAME`` resolved (a glob such as
    ``shared:*.mtx.gz`` to every match, sorted); other arguments unchanged (so is a corpus-style
    entry with a `` weights=DIST`` suffix, which ``autotune sweep`` reads itself).

    Raises
    ------
    MissingFileError
        When a ``shared:`` entry names no file, naming the folders searched.
    """
    out: list[str] = []
    for spec in specs:
        if isinstance(spec, str) and spec.strip().startswith("shared:") and len(spec.split()) == 1:
            out.extend(_shared(spec))
        else:
            out.append(spec)
    return out


def load_graph_arg(spec: str, args):
    """The graph of one GRAPH argument, the same way in every verb: a file, a generator spec or
    ``shared:NAME`` (one file; :func:`expand_graphs` first for globs), with ``--undirected``,
    ``--weight-column`` and ``--weights`` (seeded weights for a graph that has none,
    :func:`autotune.sweep.attach_weights`) when the verb has them."""
    from .graph import load_graph

    if isinstance(spec, str) and spec.strip().startswith("shared:"):
        paths = _shared(spec)
        if len(paths) != 1:
            from .errors import InvalidArgumentError

            raise InvalidArgumentError(f"{spec!r} names {len(paths)} shared graphs; expected one")
        spec = paths[0]
    directed = False if getattr(args, "undirected", False) else None
    g = load_graph(spec, directed=directed, weight_column=getattr(args, "weight_column", None))
    if getattr(args, "weights", None):
        from .sweep import attach_weights

        g = attach_weights(g, args.weights)
    return g


def _stdout_broken() -> bool:
    """Whether stdout's reader went away (a pipe without a reader: ``poll`` reports an error on it;
    where that cannot be asked, a broken pipe reaching the CLI is taken to be stdout's). If so, stdout
    is pointed at /dev/null, so that Python's final flush does not print a second error."""
    import os

    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):
        return False
    try:
        import select

        p = select.poll()
        p.register(fd, select.POLLOUT)
        broken = any(ev & (select.POLLERR | select.POLLHUP) for _, ev in p.poll(0))
    except (AttributeError, OSError, ValueError):
        broken = True
    if broken:
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, fd)
        except OSError:
            pass
    return broken


def dispatch(args) -> int:
    """Run the verb chosen in *args* (its ``func``) and return the exit status.

    The project's errors (:class:`~autotune.errors.AutotuneError`: bad files, specs, configs, flags,
    memory, missing GPU) print one line ``autotune: error: ...`` and return 2. Ctrl-C prints one
    line and returns 130 (an interrupted search resumes when run again). Warnings print as one line
    ``autotune: warning: ...``, each once per command. Output cut short by its
    reader (``autotune profile G --json | head``) returns 141 without a traceback. Anything else is a
    bug: it propagates with its traceback (exit status 1).
    """
    import warnings

    _WARNED.clear()  # once per command (one process of the ``autotune`` script; each main() call in a program)
    shown, warnings.showwarning = warnings.showwarning, _show_warning
    try:
        return int(args.func(args) or 0)
    except BrokenPipeError:  # stdout closed early (``autotune ... | head``): stop quietly, as a C tool would
        if not _stdout_broken():
            raise
        return 141
    except AutotuneError as exc:
        err(str(exc))
        return 2
    except KeyboardInterrupt:
        err("interrupted" + ("; run the same command again to resume the search"
                             if getattr(args, "command", None) == "tune" and getattr(args, "trials", None) else ""))
        return 130
    finally:
        warnings.showwarning = shown
