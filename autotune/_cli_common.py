"""What the CLI modules share: error output and the dispatch of a parsed verb.

:mod:`autotune.cli` (``profile``, ``run``, ``bench``) and :mod:`autotune.cli_tuning` (``tune``,
``sweep``, ``retrain``) both import this module; it imports neither, so the imports run one way.
"""
from __future__ import annotations

import argparse
import math
import sys

from .errors import AutotuneError

__all__ = ["dispatch", "err", "warn_to_stderr", "int_at_least", "positive_float", "fraction"]


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


def fraction(text: str) -> float:
    """An argparse ``type``: a number in [0, 1)."""
    value = _number(text)
    if not 0.0 <= value < 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1), got {text!r}")
    return value


def err(msg: str) -> None:
    """Print ``autotune: error: <msg>`` on stderr (one line, the message unchanged)."""
    print(f"autotune: error: {msg}", file=sys.stderr)


def warn_to_stderr(caught) -> None:
    """Print recorded warnings (``warnings.catch_warnings(record=True)``) as ``autotune: warning: ...``."""
    for w in caught:
        print(f"autotune: warning: {w.message}", file=sys.stderr)


def dispatch(args) -> int:
    """Run the verb chosen in *args* (its ``func``) and return the exit status.

    The project's errors (:class:`~autotune.errors.AutotuneError`: bad files, specs, configs, flags,
    memory, missing GPU) print one line ``autotune: error: ...`` and return 2. Ctrl-C prints one
    line and returns 130 (an interrupted search resumes when run again). Anything else is a bug:
    it propagates with its traceback (exit status 1).
    """
    try:
        return int(args.func(args) or 0)
    except AutotuneError as exc:
        err(str(exc))
        return 2
    except KeyboardInterrupt:
        err("interrupted" + ("; run the same command again to resume the search"
                             if getattr(args, "command", None) == "tune" and getattr(args, "trials", None) else ""))
        return 130
