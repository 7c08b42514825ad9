#!/usr/bin/env python
"""Run NetworkX's own test modules for the functions of the ``autotune`` backend, with the backend.

NetworkX's documented way to test a backend: its test-suite, run with ``NETWORKX_TEST_BACKEND``
set to the backend's name, converts every graph to the backend and dispatches every call the
backend implements to it; with ``NETWORKX_FALLBACK_TO_NX=True`` the calls the backend declines
(``can_run`` false) run NetworkX's own implementation instead of being marked xfail.

    python tests/run_networkx_suite.py                   # on a GPU machine: the GPU answers
    python tests/run_networkx_suite.py --host-reference  # anywhere: scipy stands in for the GPU
    python tests/run_networkx_suite.py --no-fallback     # declines become xfail, not NetworkX runs

The backend is found through its entry points (pyproject.toml) when the package is installed
(``pip install -e .``). From a source copy that is not installed (``PYTHONPATH=<copy>``, as on a GPU
machine), NetworkX's registry has no ``autotune``: the runner then registers it for the run by
putting a temporary ``*.dist-info`` with the same two entry points on the test process's path, so
NetworkX finds it exactly as it finds an installed backend (``import networkx`` reads the entry
points; nothing of NetworkX is patched). The copy of ``autotune`` that runs is the one under this
file's repository (it is put first on ``PYTHONPATH``); the summary names it.

It prints pytest's output, then the outcome counts (passed / failed / error / skipped / xfailed /
xpassed) and how the calls that reached the backend ended (ran on the GPU, with the host
reference, trivially, or declined and why), and exits non-zero when a test failed. On a machine
without a GPU (and without ``--host-reference``) the backend declines every call and NetworkX
runs it: that proves the wiring, not the GPU path.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

#: NetworkX's test modules covering the backend's functions.
MODULES = (
    "networkx.algorithms.traversal.tests.test_bfs",
    "networkx.algorithms.shortest_paths.tests.test_unweighted",
    "networkx.algorithms.shortest_paths.tests.test_generic",
    "networkx.algorithms.shortest_paths.tests.test_weighted",
    "networkx.algorithms.centrality.tests.test_closeness_centrality",
)

#: The backend's entry points, as pyproject.toml declares them (a test checks that they agree):
#: ``{group: (name, "module:attribute")}``.
ENTRY_POINTS = {
    "networkx.backends": ("autotune", "autotune.nx_backend:BackendInterface"),
    "networkx.backend_info": ("autotune", "_autotune_nx:get_info"),
}

REPO = Path(__file__).resolve().parent.parent


def _check_networkx() -> str | None:
    """Why NetworkX's test-suite cannot run here, or None."""
    try:
        import networkx  # noqa: F401
        import pytest  # noqa: F401
    except ImportError as exc:
        return f"{exc.name} is not installed (it is in the [test] extra)"
    return None


def registered() -> bool:
    """Whether NetworkX's registry (read from the installed entry points) has the backend ``autotune``."""
    import networkx

    return "autotune" in networkx.utils.backends.backends and "autotune" in networkx.utils.backends.backend_info


def write_entry_points(folder) -> Path:
    """Write a minimal distribution holding only the backend's entry points (:data:`ENTRY_POINTS`)
    under *folder*, for a test process that has *folder* on its path; return the ``.dist-info``."""
    info = Path(folder) / "autotune_nx_source_backend-0.0.dist-info"
    info.mkdir(parents=True, exist_ok=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: autotune-nx-source-backend\nVersion: 0.0\n"
                                   "Summary: entry points of the autotune NetworkX backend for a run from a "
                                   "source copy (tests/run_networkx_suite.py)\n")
    (info / "entry_points.txt").write_text("".join(f"[{group}]\n{name} = {value}\n\n"
                                                   for group, (name, value) in ENTRY_POINTS.items()))
    return info


def run_suite(modules=MODULES, *, host_reference: bool = False, fallback: bool = True, extra_args=(),
              quiet: bool = False) -> dict:
    """Run *modules* with ``NETWORKX_TEST_BACKEND=autotune``; return the report.

    Parameters
    ----------
    modules : sequence of str
        Dotted names of NetworkX test modules.
    host_reference : bool
        Run the backend's traversals with scipy on the host (``AUTOTUNE_NX_HOST_REFERENCE=1``).
    fallback : bool
        ``NETWORKX_FALLBACK_TO_NX=True``: declined calls run NetworkX's implementation.
    extra_args : sequence of str
        More pytest arguments.
    quiet : bool
        Capture pytest's output instead of streaming it (it is in the report's ``output``).

    Returns
    -------
    dict
        ``counts`` (passed, failed, error, skipped, xfailed, xpassed), ``failed`` (test ids),
        ``dispatch`` (:func:`autotune.nx_backend.dispatch_stats` of the run), ``returncode``,
        ``command``, ``env`` (the variables set), ``output`` (when *quiet*).
    """
    problem = _check_networkx()
    if problem:
        raise SystemExit(f"run_networkx_suite: {problem}")
    import networkx

    installed = registered()

    nx_parent = str(Path(networkx.__file__).resolve().parent.parent)
    env = dict(os.environ)
    for key in ("NETWORKX_BACKEND_PRIORITY", "NETWORKX_AUTOMATIC_BACKENDS", "AUTOTUNE_NX_HOST_REFERENCE"):
        env.pop(key, None)
    set_env = {"NETWORKX_TEST_BACKEND": "autotune"}
    if fallback:
        set_env["NETWORKX_FALLBACK_TO_NX"] = "True"
    else:
        env.pop("NETWORKX_FALLBACK_TO_NX", None)
    if host_reference:
        set_env["AUTOTUNE_NX_HOST_REFERENCE"] = "1"
    env.update(set_env)
    with tempfile.TemporaryDirectory(prefix="autotune-nx-suite-") as tmp:
        # this repository's autotune first; the plugin module is importable from its root (tests/ is a package)
        path = [str(REPO)]
        if not installed:  # a source copy: NetworkX finds the backend through these entry points instead
            write_entry_points(os.path.join(tmp, "entry_points"))
            path.append(os.path.join(tmp, "entry_points"))
        env["PYTHONPATH"] = os.pathsep.join(path + [p for p in [env.get("PYTHONPATH")] if p])
        report_path = os.path.join(tmp, "report.json")
        env["AUTOTUNE_NX_SUITE_REPORT"] = report_path
        # --confcutdir: NetworkX's conftest.py (which reads NETWORKX_TEST_BACKEND) sits in the installed
        # package, wherever site-packages is; -p no:cacheprovider: write nothing there.
        cmd = [sys.executable, "-m", "pytest", "--pyargs", *modules, "-p", "tests._nx_suite_plugin",
               "-p", "no:cacheprovider", f"--confcutdir={nx_parent}", "-q", "-rfE", *extra_args]
        proc = subprocess.run(cmd, cwd=str(REPO), env=env, text=True,
                              capture_output=quiet, stdin=subprocess.DEVNULL)
        try:
            with open(report_path) as fh:
                report = json.load(fh)
        except (OSError, ValueError):
            report = {"counts": {}, "failed": [], "dispatch": {}, "exitstatus": None}
    report.update(returncode=proc.returncode, command=cmd, env=set_env,
                  registration="installed entry points" if installed else
                  "entry points of this source copy (not installed: a temporary dist-info on PYTHONPATH)")
    if quiet:
        report["output"] = (proc.stdout or "") + (proc.stderr or "")
    return report


def summarize(report: dict) -> str:
    """The report as a few readable lines."""
    c = report.get("counts", {})
    lines = ["NetworkX test modules with NETWORKX_TEST_BACKEND=autotune ("
             + ", ".join(f"{k}={v}" for k, v in report.get("env", {}).items()) + "):",
             "  " + "  ".join(f"{k} {c.get(k, 0)}" for k in ("passed", "failed", "error", "skipped", "xfailed",
                                                              "xpassed"))]
    if report.get("registration"):
        lines.append(f"  backend: {report.get('backend_module') or 'not loaded'} "
                     f"(found through the {report['registration']})")
    for tid in report.get("failed", []):
        lines.append(f"  FAILED {tid}")
    disp = report.get("dispatch", {})
    if disp:
        lines.append("calls that reached the backend (function: outcome x count):")
        for name, outcomes in disp.items():
            parts = "; ".join(f"{o} x{n}" for o, n in outcomes.items()) if isinstance(outcomes, dict) else outcomes
            lines.append(f"  {name}: {parts}")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--host-reference", action="store_true",
                   help="run the backend's traversals with scipy on the host (no GPU needed)")
    p.add_argument("--no-fallback", action="store_true",
                   help="do not set NETWORKX_FALLBACK_TO_NX: declined calls become xfail")
    p.add_argument("--json", metavar="PATH", help="also write the report (counts, failures, dispatch) as JSON")
    p.add_argument("--modules", nargs="+", default=list(MODULES), help="NetworkX test modules (dotted)")
    p.add_argument("pytest_args", nargs="*", help="more pytest arguments (after --)")
    a = p.parse_args(argv)
    report = run_suite(a.modules, host_reference=a.host_reference, fallback=not a.no_fallback,
                       extra_args=a.pytest_args)
    print()
    print(summarize(report))
    if a.json:
        with open(a.json, "w") as fh:
            json.dump(report, fh, indent=1)
    c = report.get("counts", {})
    return 1 if report["returncode"] not in (0, 5) or c.get("failed") or c.get("error") else 0


if __name__ == "__main__":
    sys.exit(main())
