"""The benchmark log: one JSON line per graph × config × device measurement (DESIGN.md, ``schema: 2``).

A line looks like::

    {"schema": 2, "algorithm": "sssp", "time": "2026-11-22T10:00:00Z",
     "device": {"name": "NVIDIA H100 80GB HBM3", "cc": "9.0", "sm_count": 132, "cupy": "14.2.0", "cuda": "13.0"},
     "graph": {"name": "roadNet-CA", "fingerprint": "sha256:…", "spec": "file or generator spec",
               "weights": "int:1:255", "features": {"n_vertices": 1971281, "n_edges": 5533214, ...}},
     "config": {"load_balance": "vertex_mapped", ...}, "config_id": "c-3f2a…",
     "measure": {"n_sources": 16, "seed": 0, "times_ms": [...], "median_ms": 0.41, "gteps": 13.5,
                 "depth_mean": 551.0, ...},
     "valid": true, "error": null,
     "origin": {"command": "sweep", "study": null, "trial": null, "version": "0.1.0"}}

Writing (:class:`LogWriter`) appends one line per record with a single ``write`` on a file opened
with ``O_APPEND``, then ``fsync``: a killed run loses at most the line in flight, and several
processes may append to one log. Reading (:func:`read_log`) validates every line against the
schema; a line that does not parse or does not validate is counted (``n_unreadable``), its place
is reported (``first_bad_line`` = ``file:line``) and a warning is issued — never silently dropped.

Extra keys (in any object) are allowed and kept, so that later schema versions can add fields;
the required keys and their types are checked (see :data:`SCHEMA`).

Schema 2 (written since the second traversal) adds the top-level ``algorithm`` (``"bfs"`` or
``"sssp"``, the config's) and ``graph.weights``: the weight distribution of a generator spec
(``"int:1:255"``), ``"file"`` for weights read from the input, or ``null`` for an unweighted graph
(SSSP then runs on unit weights). Schema-1 lines (the logs written before, e.g. the committed
``models/bfs_h100.jsonl``) are read as BFS records of unweighted graphs, unchanged.
"""
from __future__ import annotations

import dataclasses
import glob as _glob
import gzip
import hashlib
import json
import math
import os
import re
import warnings
import zlib
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Mapping

from .errors import AutotuneError, FileAccessError, MissingFileError

__all__ = [
    "SCHEMA_VERSION", "SCHEMA", "LogRecord", "LogWriter", "LogReadResult", "LogSchemaError",
    "make_record", "read_log", "validate_record", "expand_log_paths", "logs_sha256", "READABLE_SCHEMAS",
    "weights_spec",
]

#: Version written in every line's ``schema`` key.
SCHEMA_VERSION = 2

#: Versions :func:`read_log` accepts: 1 (BFS only, no ``algorithm`` key, read as ``"bfs"``) and 2.
READABLE_SCHEMAS = (1, 2)

#: Traversals a schema-2 line may name (``autotune.config.ALGORITHMS``).
_ALGORITHMS = ("bfs", "sssp")

_NUM = (int, float)
_OPT_STR = (str, type(None))
_OPT_INT = (int, type(None))

#: Required keys and their JSON types, per object of a line (extra keys are allowed).
SCHEMA: dict[str, dict[str, tuple]] = {
    "": {"schema": (int,), "time": (str,), "device": (dict,), "graph": (dict,), "config": (dict,),
         "config_id": (str,), "measure": (dict,), "valid": (bool,), "error": _OPT_STR, "origin": (dict,)},
    "device": {"name": (str,)},
    "graph": {"name": (str,), "fingerprint": (str,), "spec": _OPT_STR, "features": (dict,)},
    "measure": {"n_sources": (int,), "seed": (int,), "times_ms": (list,), "median_ms": _NUM + (type(None),),
                "gteps": _NUM + (type(None),), "depth_mean": _NUM + (type(None),)},
    "origin": {"command": (str,), "study": _OPT_STR, "trial": _OPT_INT, "version": (str,)},
}


class LogSchemaError(AutotuneError, ValueError):
    """A log line does not follow the benchmark-log schema (the message names the key)."""


def _type_names(types: tuple) -> str:
    names = {int: "integer", float: "number", str: "string", bool: "boolean", dict: "object", list: "array",
             type(None): "null"}
    return " or ".join(dict.fromkeys(names[t] for t in types))


def _check_type(where: str, value, types: tuple) -> None:
    # bool is an int subclass in Python but not a JSON number: reject it where a number is expected
    if isinstance(value, bool) and bool not in types:
        raise LogSchemaError(f"{where}: expected {_type_names(types)}, got boolean")
    if not isinstance(value, types):
        raise LogSchemaError(f"{where}: expected {_type_names(types)}, got {type(value).__name__}")


def validate_record(d: Mapping[str, Any]) -> None:
    """Check one decoded log line against :data:`SCHEMA`.

    Besides the key types: ``schema`` must be one of :data:`READABLE_SCHEMAS`, and a schema-2 line
    also needs ``algorithm`` (``"bfs"`` or ``"sssp"``, equal to ``config.algorithm`` when the config
    names one) and ``graph.weights`` (string or null); ``config_id`` looks like
    ``c-`` + 12 hex digits; ``graph.fingerprint`` starts with ``sha256:``; every ``times_ms`` entry
    is a non-negative number; feature values are numbers or booleans; a ``valid: true`` record has
    at least one time and a positive ``median_ms``; a ``valid: false`` record has an ``error``.

    Parameters
    ----------
    d : mapping
        The decoded JSON object.

    Raises
    ------
    LogSchemaError
        Naming the first offending key.
    """
    if not isinstance(d, Mapping):
        raise LogSchemaError(f"a log line must be a JSON object, got {type(d).__name__}")
    for obj, keys in SCHEMA.items():
        sub = d if obj == "" else d.get(obj)
        for key, types in keys.items():
            where = f"{obj + '.' if obj else ''}{key}"
            if key not in sub:
                raise LogSchemaError(f"missing key {where!r}")
            _check_type(where, sub[key], types)
    if d["schema"] not in READABLE_SCHEMAS:
        raise LogSchemaError(f"schema: version {d['schema']!r} is not supported (this reader knows "
                             f"{', '.join(map(str, READABLE_SCHEMAS))})")
    if d["schema"] >= 2:
        if "algorithm" not in d:
            raise LogSchemaError("missing key 'algorithm' (required since schema 2)")
        _check_type("algorithm", d["algorithm"], (str,))
        if d["algorithm"] not in _ALGORITHMS:
            raise LogSchemaError(f"algorithm: {d['algorithm']!r} is not one of {', '.join(_ALGORITHMS)}")
        if "weights" not in d["graph"]:
            raise LogSchemaError("missing key 'graph.weights' (required since schema 2; null when unweighted)")
        _check_type("graph.weights", d["graph"]["weights"], _OPT_STR)
    algorithm = d.get("algorithm", "bfs") if d["schema"] >= 2 else "bfs"
    cfg_alg = d["config"].get("algorithm")
    if cfg_alg is not None and cfg_alg != algorithm:
        raise LogSchemaError(f"config.algorithm: {cfg_alg!r} differs from the record's algorithm {algorithm!r}"
                             + (" (schema-1 lines are BFS)" if d["schema"] < 2 else ""))
    cid = d["config_id"]
    if not (cid.startswith("c-") and len(cid) == 14 and all(ch in "0123456789abcdef" for ch in cid[2:])):
        raise LogSchemaError(f"config_id: {cid!r} is not 'c-' followed by 12 hex digits")
    if not d["graph"]["fingerprint"].startswith("sha256:"):
        raise LogSchemaError(f"graph.fingerprint: {d['graph']['fingerprint']!r} does not start with 'sha256:'")
    for k, v in d["graph"]["features"].items():
        _check_type(f"graph.features.{k}", v, (int, float, bool))
    for i, t in enumerate(d["measure"]["times_ms"]):
        _check_type(f"measure.times_ms[{i}]", t, _NUM)
        if not t >= 0:
            raise LogSchemaError(f"measure.times_ms[{i}]: {t!r} is not a non-negative number")
    if d["valid"]:
        med = d["measure"]["median_ms"]
        if not d["measure"]["times_ms"]:
            raise LogSchemaError("measure.times_ms: a valid record needs at least one time")
        if med is None or not med > 0:
            raise LogSchemaError(f"measure.median_ms: a valid record needs a positive median, got {med!r}")
    elif not d["error"]:
        raise LogSchemaError("error: an invalid record (valid: false) must say why")


def _json_number(x):
    """A finite Python float/int, or None for NaN/inf/None (JSON has no NaN)."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def _json_scalar(v):
    """bool, int or finite float (None for NaN/inf) from a Python or NumPy scalar."""
    import numpy as np

    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    return _json_number(v)


def _utc_now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class LogRecord:
    """One line of the benchmark log.

    Attributes mirror the JSON keys of DESIGN.md's schema; :meth:`to_dict` gives the line's object
    and :meth:`from_dict` reads (and validates) one. Keys unknown to this version are kept in
    ``extra`` (top level) or inside the nested dicts, so a record round-trips unchanged.

    Attributes
    ----------
    time : str
        UTC ISO-8601 time of the measurement (``2026-11-22T10:00:00Z``).
    device : dict
        ``name`` (e.g. ``"NVIDIA H100 80GB HBM3"``) and, from the GPU, ``cc``, ``sm_count``,
        ``cupy``, ``cuda``, ...
    graph : dict
        ``name``, ``fingerprint`` (``sha256:…``), ``spec`` (path or generator spec) and
        ``features`` (:meth:`GraphFeatures.to_dict`).
    config : dict
        :meth:`TraversalConfig.to_dict`.
    config_id : str
        :attr:`TraversalConfig.config_id` (``c-`` + 12 hex digits).
    measure : dict
        ``n_sources``, ``seed``, ``times_ms`` (per source, ms), ``median_ms`` (ms), ``gteps``
        (harmonic mean, 10^9 edges/s), ``depth_mean`` (levels); writers also add ``sources``,
        ``edges``, ``depths`` and ``timer``.
    valid : bool
        False when the traversal failed or its validation failed.
    error : str or None
        Why the record is invalid.
    origin : dict
        ``command`` (``sweep``/``tune``/...), ``study``, ``trial``, ``version`` (autotune's).
    schema : int
        :data:`SCHEMA_VERSION` (2) for new records; 1 for lines written before the second traversal.
    algorithm : {'bfs', 'sssp'}
        The traversal measured (the config's ``algorithm``); ``"bfs"`` for a schema-1 line.
    extra : dict
        Top-level keys unknown to this version.
    """

    time: str
    device: dict
    graph: dict
    config: dict
    config_id: str
    measure: dict
    valid: bool
    error: str | None
    origin: dict
    schema: int = SCHEMA_VERSION
    algorithm: str = "bfs"
    extra: dict = field(default_factory=dict)

    # ---------------------------------------------------------------- access
    @property
    def fingerprint(self) -> str:
        """The graph's fingerprint (``sha256:…``)."""
        return self.graph["fingerprint"]

    @property
    def device_name(self) -> str:
        """The device's name, e.g. ``"NVIDIA H100 80GB HBM3"``."""
        return self.device["name"]

    @property
    def key(self) -> tuple[str, str, str]:
        """``(graph fingerprint, config_id, device name)``: what a resumed sweep skips on."""
        return (self.fingerprint, self.config_id, self.device_name)

    @property
    def median_ms(self) -> float:
        """Median time per traversal in ms (nan when nothing was timed)."""
        m = self.measure.get("median_ms")
        return float("nan") if m is None else float(m)

    @property
    def pruned(self) -> bool:
        """True for a search trial stopped after part of its sources (``origin.pruned``)."""
        return bool(self.origin.get("pruned", False))

    @property
    def features(self) -> dict:
        """The graph's logged profile (``graph.features``)."""
        return self.graph["features"]

    @property
    def weights(self) -> str | None:
        """The graph's weights as logged (``graph.weights``: a distribution such as ``"int:1:255"``,
        ``"file"``, or None when unweighted or for a schema-1 line)."""
        return self.graph.get("weights")

    # ---------------------------------------------------------------- (de)serialisation
    def to_dict(self) -> dict:
        """The line's JSON object (keys in schema order, then unknown keys)."""
        d = {"schema": self.schema}
        if self.schema >= 2:
            d["algorithm"] = self.algorithm
        d.update({"time": self.time, "device": self.device, "graph": self.graph, "config": self.config,
                  "config_id": self.config_id, "measure": self.measure, "valid": self.valid, "error": self.error,
                  "origin": self.origin})
        d.update(self.extra)
        return d

    def to_json(self) -> str:
        """One compact JSON line (no newline); NaN/inf are not allowed (they are written as null)."""
        return json.dumps(self.to_dict(), separators=(",", ":"), allow_nan=False)

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "LogRecord":
        """Validate (:func:`validate_record`) and wrap a decoded line.

        Raises
        ------
        LogSchemaError
            Naming the first offending key.
        """
        validate_record(d)
        known = {f.name for f in dataclasses.fields(cls)} - {"extra"}
        if d["schema"] < 2:  # a schema-1 line is BFS; an "algorithm" key there is kept as an extra key
            known.discard("algorithm")
        return cls(**{k: d[k] for k in known}, extra={k: v for k, v in d.items() if k not in known})


def make_record(graph, features, config, measurement, device: Mapping[str, Any], origin: Mapping[str, Any] | str, *,
                n_sources: int, seed: int, spec: str | None = None, time: str | None = None) -> LogRecord:
    """Build the :class:`LogRecord` of one measurement.

    Parameters
    ----------
    graph : CSRGraph
        The graph measured (its ``name``, ``fingerprint`` and ``spec`` are logged).
    features : GraphFeatures or dict
        Its profile (:func:`autotune.features.profile`).
    config : TraversalConfig
        The strategy measured.
    measurement : Measurement
        From :func:`autotune.measure.measure` (times in ms).
    device : mapping
        At least ``name``; usually :func:`autotune._backend.device_properties`.
    origin : mapping or str
        ``command`` (and optionally ``study``, ``trial``, ``pruned``, ...); a string is the command.
        ``version`` defaults to autotune's version.
    n_sources : int
        Number of sources asked for (the measurement may hold fewer when the graph has fewer
        eligible vertices, or when a pruned trial stopped early).
    seed : int
        Seed the sources were drawn with.
    spec : str, optional
        How to rebuild the graph (default ``graph.spec``, else its name).
    time : str, optional
        ISO-8601 UTC time (default now).

    Returns
    -------
    LogRecord
        Schema :data:`SCHEMA_VERSION`, ``algorithm`` = ``config.algorithm``, ``graph.weights`` =
        :func:`weights_spec`. JSON-safe: numpy scalars are converted to Python ``int``/``float``,
        NaN to ``None``.

    Raises
    ------
    LogSchemaError
        When the result would not validate (e.g. ``device`` without ``name``).
    """
    from . import __version__

    fdict = features.to_dict() if hasattr(features, "to_dict") else dict(features)
    fdict = {str(k): _json_scalar(v) for k, v in fdict.items()}
    md = measurement.to_dict()
    measure = {
        "n_sources": int(n_sources), "seed": int(seed),
        "times_ms": [float(t) for t in md["times_ms"]],
        "median_ms": _json_number(md["median_ms"]), "gteps": _json_number(md["gteps"]),
        "depth_mean": _json_number(md["depth_mean"]),
        "sources": [int(s) for s in md["sources"]], "edges": [int(e) for e in md["edges"]],
        "depths": [int(x) for x in md["depths"]], "timer": str(md["timer"]),
    }
    for k, v in (md.get("extra") or {}).items():
        measure.setdefault(k, v)
    if isinstance(origin, str):
        origin = {"command": origin}
    org = {"command": str(origin["command"]), "study": origin.get("study"),
           "trial": None if origin.get("trial") is None else int(origin["trial"]),
           "version": str(origin.get("version", __version__))}
    org.update({k: v for k, v in origin.items() if k not in org})
    dev = {str(k): (v if isinstance(v, str) or v is None else _json_scalar(v)) for k, v in dict(device).items()}
    spec = spec if spec is not None else (graph.spec or graph.name)
    rec = LogRecord(
        time=time or _utc_now(), device=dev,
        graph={"name": str(graph.name), "fingerprint": graph.fingerprint, "spec": spec,
               "weights": weights_spec(graph, spec), "features": fdict},
        config=config.to_dict(), config_id=config.config_id, measure=measure, valid=bool(measurement.valid),
        error=None if measurement.valid else (measurement.error or "invalid result"), origin=org,
        algorithm=str(getattr(config, "algorithm", "bfs")))
    validate_record(json.loads(rec.to_json()))
    return rec


_SPEC_WEIGHTS = re.compile(r"(?:^|[:,])weights=([^,]+)")


def weights_spec(graph, spec: str | None = None) -> str | None:
    """How a graph's weights were obtained, as logged in ``graph.weights`` (schema 2).

    Parameters
    ----------
    graph : CSRGraph
        Its ``weights`` (None when unweighted) and ``spec``.
    spec : str, optional
        The spec logged for it (default ``graph.spec``).

    Returns
    -------
    str or None
        The weight distribution of a generator spec (``"int:1:255"`` for
        ``kron:scale=16,weights=int:1:255``) or of seeded weights attached to an unweighted input
        (:func:`autotune.sweep.attach_weights`, e.g. ``--weights int:1:255`` on a shared graph),
        ``"file"`` for weights that came with the input (a Matrix Market value column, DIMACS arc
        lengths, arrays), or None for an unweighted graph.
    """
    if getattr(graph, "weights", None) is None:
        return None
    attached = (getattr(graph, "_cache", None) or {}).get("weights_spec")
    if attached:  # seeded weights put on an unweighted input (autotune.sweep.attach_weights)
        return str(attached)
    for text in (spec, getattr(graph, "spec", None)):
        if isinstance(text, str):
            hit = _SPEC_WEIGHTS.search(text)
            if hit:
                return hit.group(1).strip()
    return "file"


class LogWriter:
    """Append :class:`LogRecord` lines to a JSONL file, durably.

    Each :meth:`write` is one ``os.write`` of a whole line on a descriptor opened with
    ``O_APPEND`` followed by ``fsync``: a killed run loses at most the line in flight, and several
    processes (e.g. search workers) can append to the same file. When the file ends in a partial
    line (a previous run was killed mid-write), a newline is written first so that the partial
    line stays a single unreadable line instead of corrupting the next record.

    Parameters
    ----------
    path : str or os.PathLike
        The log file; parent folders are created.
    fsync : bool, default True
        ``os.fsync`` after every line (turn off only for throw-away logs).

    Examples
    --------
    >>> with LogWriter("logs/sweep.jsonl") as w:        # doctest: +SKIP
    ...     w.write(record)
    """

    def __init__(self, path, *, fsync: bool = True):
        import stat

        self.path = Path(path).expanduser()
        self._fsync = bool(fsync)
        self._fd = None
        self.n_written = 0
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            if self.path.exists() and not stat.S_ISREG(self.path.stat().st_mode):  # a FIFO would block
                raise FileAccessError(self.path, "is not a regular file; the benchmark log must be one")
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0),
                               0o644)
            size = os.fstat(self._fd).st_size
            if size:
                with open(self.path, "rb") as fh:
                    fh.seek(size - 1)
                    if fh.read(1) != b"\n":
                        os.write(self._fd, b"\n")
        except OSError as exc:
            if self._fd is not None:
                os.close(self._fd)
                self._fd = None
            if isinstance(exc, FileAccessError):
                raise
            raise FileAccessError(self.path, f"cannot write the benchmark log: {exc.strerror or exc}",
                                  exc.errno) from None

    def write(self, record: LogRecord | Mapping[str, Any]) -> None:
        """Append one record (a :class:`LogRecord` or a dict that validates) as one line.

        Raises
        ------
        LogSchemaError
            When a dict does not follow the schema (nothing is written).
        ValueError
            When the writer is closed.
        """
        if self._fd is None:
            raise ValueError(f"LogWriter({str(self.path)!r}) is closed")
        if not isinstance(record, LogRecord):
            record = LogRecord.from_dict(record)
        line = (record.to_json() + "\n").encode("utf-8")
        try:
            os.write(self._fd, line)
            if self._fsync:
                os.fsync(self._fd)
        except OSError as exc:  # disk full, I/O error
            raise FileAccessError(self.path, f"cannot write the benchmark log: {exc.strerror or exc}",
                                  exc.errno) from None
        self.n_written += 1

    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> "LogWriter":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __del__(self):  # pragma: no cover - best effort
        try:
            self.close()
        except Exception:
            pass

    def __repr__(self) -> str:
        return f"LogWriter({str(self.path)!r}, written={self.n_written})"


@dataclass
class LogReadResult:
    """What :func:`read_log` found.

    Attributes
    ----------
    records : list of LogRecord
        Every valid line, in file order (files in the order given / sorted within a glob).
    n_unreadable : int
        Lines that did not parse as JSON or did not follow the schema (blank lines excepted).
    first_bad_line : str or None
        ``"path:line"`` (1-based) of the first unreadable line.
    problems : list of (str, int, str)
        ``(path, line, reason)`` of every unreadable line.
    files : list of str
        The files read.
    locations : list of (str, int)
        ``(path, line)`` (1-based) of every record, parallel to ``records``.
    """

    records: list
    n_unreadable: int = 0
    first_bad_line: str | None = None
    problems: list = field(default_factory=list)
    files: list = field(default_factory=list)
    locations: list = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self):
        return iter(self.records)


def expand_log_paths(paths) -> list[Path]:
    """Files named by *paths*: paths, globs (``logs/*.jsonl``) or folders (their ``*.jsonl`` and
    ``*.jsonl.gz``).

    Parameters
    ----------
    paths : str, os.PathLike or iterable of them

    Returns
    -------
    list of Path
        In the order given, each glob/folder sorted, duplicates removed.

    Raises
    ------
    MissingFileError
        (a ``FileNotFoundError``) When a path does not exist or a glob/folder matches no file.
    FileAccessError
        When a path is not a regular file or a folder (e.g. a FIFO), or cannot be examined.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    out: list[Path] = []
    for p in paths:
        text = os.path.expanduser(os.fspath(p))
        if any(ch in text for ch in "*?["):
            hits = sorted(Path(h) for h in _glob.glob(text, recursive=True) if os.path.isfile(h))
            if not hits:
                raise MissingFileError(text, "no log file matches this pattern")
        elif os.path.isdir(text):
            hits = sorted([*Path(text).glob("*.jsonl"), *Path(text).glob("*.jsonl.gz")])
            if not hits:
                raise MissingFileError(text, "the folder holds no *.jsonl or *.jsonl.gz log")
        else:
            from ._files import check_regular_file

            check_regular_file(text, "log file")
            hits = [Path(text)]
        for h in hits:
            if h not in out:
                out.append(h)
    return out


def read_log(paths, *, warn: bool = True) -> LogReadResult:
    """Read and validate benchmark logs.

    Parameters
    ----------
    paths : str, os.PathLike or iterable of them
        Files, globs or folders (see :func:`expand_log_paths`); a file whose name ends in ``.gz`` is
        read through gzip (the shipped logs with per-level traces are stored so).
    warn : bool, default True
        Issue a :class:`UserWarning` naming the count and the first unreadable line when some
        lines are unreadable.

    Returns
    -------
    LogReadResult
        ``records`` (valid lines), ``n_unreadable``, ``first_bad_line`` (``file:line``).

    Raises
    ------
    MissingFileError
        (a ``FileNotFoundError``) When a path does not exist or a glob matches nothing.
    FileAccessError
        When a log cannot be read (permission, a FIFO or device, an I/O error), naming it.
    """
    from ._files import open_regular

    res = LogReadResult(records=[])
    for path in expand_log_paths(paths):
        res.files.append(str(path))
        with open_regular(path, "log file") as raw_fh:
            fh = gzip.GzipFile(fileobj=raw_fh, mode="rb") if str(path).endswith(".gz") else raw_fh
            lineno = 0
            try:
                for lineno, raw in enumerate(fh, start=1):
                    text = raw.strip()
                    if not text:
                        continue
                    try:
                        d = json.loads(text.decode("utf-8"))
                        res.records.append(LogRecord.from_dict(d))
                        res.locations.append((str(path), lineno))
                    except (UnicodeDecodeError, ValueError, TypeError, AttributeError, RecursionError) as exc:
                        # ValueError: bad JSON (JSONDecodeError) or schema (LogSchemaError); RecursionError: nesting
                        reason = f"{exc.__class__.__name__}: {exc}"
                        res.problems.append((str(path), lineno, reason))
            except (OSError, EOFError, zlib.error) as exc:  # an I/O error, or a damaged gzip stream
                if isinstance(exc, OSError) and exc.errno is not None:
                    raise FileAccessError(path, f"cannot read the log file: {exc.strerror or exc}", exc.errno) from None
                res.problems.append((str(path), lineno + 1,
                                     f"{exc.__class__.__name__}: the compressed log ends early or is damaged ({exc})"))
    res.n_unreadable = len(res.problems)
    if res.problems:
        p, ln, why = res.problems[0]
        res.first_bad_line = f"{p}:{ln}"
        if warn:
            warnings.warn(f"benchmark log: {res.n_unreadable} unreadable line(s) skipped, the first at "
                          f"{res.first_bad_line} ({why})", UserWarning, stacklevel=2)
    return res


def logs_sha256(paths: Iterable) -> str:
    """``sha256:<hex>`` over the bytes of *paths* (in order, each prefixed by its length): the logs' identity."""
    h = hashlib.sha256()
    from ._files import read_bytes

    for p in paths:
        data = read_bytes(p, "log file")
        h.update(len(data).to_bytes(8, "little"))
        h.update(data)
    return "sha256:" + h.hexdigest()
