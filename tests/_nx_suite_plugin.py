"""pytest plugin loaded by ``tests/run_networkx_suite.py`` into the run of NetworkX's test modules.

At the end of the session it writes, to the JSON file named by ``$AUTOTUNE_NX_SUITE_REPORT``, the
outcome counts (passed, failed, error, skipped, xfailed, xpassed), the ids of the tests that failed,
and :func:`autotune.nx_backend.dispatch_stats` (how many calls the backend ran, on the GPU or with
the host reference, and why it declined the others): the proof that the backend was exercised; and
the file of the ``autotune.nx_backend`` that ran. It stops the run at once when NetworkX does not
list the backend (neither installed nor registered by the runner).
"""
from __future__ import annotations

import json
import os
import sys

import pytest

_COUNTS = {"passed": 0, "failed": 0, "error": 0, "skipped": 0, "xfailed": 0, "xpassed": 0}
_FAILED: list = []


def pytest_configure(config):
    """Fail at once, and say why, when NetworkX does not list the backend (the run would test nothing)."""
    import networkx as nx

    if os.environ.get("NETWORKX_TEST_BACKEND") == "autotune" and "autotune" not in nx.utils.backends.backends:
        raise pytest.UsageError("NetworkX does not list the backend 'autotune': install the package "
                                "(pip install -e .) or run tests/run_networkx_suite.py, which registers a source copy")


def pytest_runtest_logreport(report):
    if report.when == "call" or (report.when == "setup" and not report.passed):
        if hasattr(report, "wasxfail"):
            _COUNTS["xfailed" if report.skipped else "xpassed"] += 1
        elif report.when == "setup" and report.failed:
            _COUNTS["error"] += 1
            _FAILED.append(report.nodeid)
        elif report.passed:
            _COUNTS["passed"] += 1
        elif report.failed:
            _COUNTS["failed"] += 1
            _FAILED.append(report.nodeid)
        elif report.skipped:
            _COUNTS["skipped"] += 1
    elif report.when == "teardown" and report.failed:
        _COUNTS["error"] += 1
        _FAILED.append(report.nodeid + " (teardown)")


def pytest_sessionfinish(session, exitstatus):
    path = os.environ.get("AUTOTUNE_NX_SUITE_REPORT")
    if not path:
        return
    try:
        from autotune.nx_backend import dispatch_stats

        stats = dispatch_stats()
    except Exception as exc:  # the report still says what ran
        stats = {"error": f"{type(exc).__name__}: {exc}"}
    module = sys.modules.get("autotune.nx_backend")  # which copy of the backend ran (PYTHONPATH decides)
    with open(path, "w") as fh:
        json.dump({"counts": _COUNTS, "failed": _FAILED, "exitstatus": int(exitstatus), "dispatch": stats,
                   "backend_module": getattr(module, "__file__", None)}, fh, indent=1)
