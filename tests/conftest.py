"""Shared pytest configuration: GPU tests skip cleanly where no NVIDIA GPU with CuPy is usable."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def shared_graphs_dir() -> Path | None:
    """Folder of the real graphs: $AUTOTUNE_SHARED_GRAPHS, <repo>/.graphs (device copy), <repo>/../shared/graphs."""
    cands = [os.environ.get("AUTOTUNE_SHARED_GRAPHS"), REPO / ".graphs", REPO.parent / "shared" / "graphs"]
    for c in cands:
        if c and Path(c).is_dir() and any(Path(c).glob("*.gz")):
            return Path(c)
    return None


def pytest_collection_modifyitems(config, items):
    from autotune._backend import _probe

    ok, why = _probe()
    if ok:
        return
    skip = pytest.mark.skip(reason=f"gpu test: {why}")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _config_kernels_unless_whole_graph(request, monkeypatch):
    """GPU tests test the configs' kernels: the whole-graph kernel, which runs every BFS of a graph
    small enough for it whatever the config (autotune._engine.WHOLE_GRAPH), is off unless a test is
    marked ``whole_graph`` (tests/test_whole_graph_gpu.py)."""
    if "gpu" in request.keywords and "whole_graph" not in request.keywords:
        import autotune._engine as E

        monkeypatch.setattr(E, "WHOLE_GRAPH", "off")


@pytest.fixture(autouse=True)
def _config_direction_unless_calibrated(request, monkeypatch):
    """GPU tests test the configs' directions: the direction calibration, which may run a push/pull
    config's launch rounds push only (autotune._engine.DIRECTION_CALIBRATION), is off unless a test
    is marked ``direction_calibration`` (tests/test_direction_calibration_gpu.py)."""
    if "gpu" in request.keywords and "direction_calibration" not in request.keywords:
        import autotune._engine as E

        monkeypatch.setattr(E, "DIRECTION_CALIBRATION", "off")


# ---------------------------------------------------------------- graph input (test_graph_io.py)
@pytest.fixture
def io_write(tmp_path):
    """Write a graph file under tmp_path: ``io_write(name, text_or_bytes, compress=None|"gz"|"bz2"|"xz")``.

    Returns the path as a string; with ``compress`` the data is compressed and the suffix appended.
    """
    import bz2
    import gzip
    import lzma

    def write(name: str, data, compress: str | None = None) -> str:
        raw = data.encode() if isinstance(data, str) else bytes(data)
        if compress:
            raw = {"gz": gzip.compress, "bz2": bz2.compress, "xz": lzma.compress}[compress](raw)
            name = f"{name}.{compress}"
        path = tmp_path / name
        path.write_bytes(raw)
        return str(path)

    return write


@pytest.fixture(scope="session")
def io_graphs_dir():
    """The real graphs folder (with MANIFEST.tsv), or skip naming where it was looked for."""
    d = shared_graphs_dir()
    if d is None or not (d / "MANIFEST.tsv").is_file():
        pytest.skip("real graphs not found: set AUTOTUNE_SHARED_GRAPHS or provide <repo>/../shared/graphs "
                    "(with MANIFEST.tsv); CI clones without ../shared")
    return d


def csr_graph(n, edges, directed=True):
    """CSRGraph from an edge list (self-loops and duplicates dropped); allows graphs with no edges
    (which ``from_edges`` refuses), independent of the loaders under test."""
    import numpy as np

    from autotune.graph import CSRGraph

    e = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
    src, dst = e[:, 0], e[:, 1]
    if not directed:
        src, dst = np.concatenate([src, dst]), np.concatenate([dst, src])
    keep = src != dst
    keys = np.unique(src[keep] * n + dst[keep])
    rows, cols = keys // n, keys % n
    ro = np.zeros(n + 1, dtype=np.int32)
    ro[1:] = np.cumsum(np.bincount(rows, minlength=n))
    return CSRGraph(row_offsets=ro, column_indices=cols.astype(np.int32), directed=directed)


# ---------------------------------------------------------------- PostgreSQL (test_postgres_storage.py)
POSTGRES_BINARIES = ("initdb", "pg_ctl", "postgres")


def hub_tree_edges(rng, n_cross: int | None = None, chain: int = 0):
    """Edges of a root whose 24 hubs hold 40-3,000 out-edges each (levels whose heaviest warp holds a
    hub), *n_cross* random edges among the hubs' leaves (default: half as many as leaves), and a
    chain of *chain* vertices hanging off the last leaf, drawn from *rng* (a NumPy Generator).
    Returns (src, dst, n_vertices, first_leaf)."""
    import numpy as np

    degs = rng.integers(40, 3000, 24)
    first_leaf = 1 + degs.size
    src, dst = [np.zeros(degs.size, dtype=np.int64)], [np.arange(1, first_leaf)]
    nxt = first_leaf
    for h, d in enumerate(degs):
        src.append(np.full(d, 1 + h))
        dst.append(np.arange(nxt, nxt + d))
        nxt += d
    n_cross = (nxt - first_leaf) // 2 if n_cross is None else n_cross
    src.append(rng.integers(first_leaf, nxt, n_cross))
    dst.append(rng.integers(first_leaf, nxt, n_cross))
    if chain:
        c = np.arange(nxt, nxt + chain)
        src.append(np.r_[nxt - 1, c[:-1]])
        dst.append(c)
        nxt += chain
    return np.concatenate(src), np.concatenate(dst), nxt, first_leaf


def postgres_bindir() -> Path | None:
    """A folder holding initdb, pg_ctl and postgres: ``$AUTOTUNE_PG_BINDIR``, the folders of those on
    PATH (symlinks resolved), then ``/usr/lib/postgresql/<newest>/bin``, ``/usr/local/pgsql/bin``."""
    import glob
    import re
    import shutil

    cands = [os.environ.get("AUTOTUNE_PG_BINDIR")]
    for b in POSTGRES_BINARIES:
        w = shutil.which(b)
        if w:
            cands += [str(Path(w).resolve().parent), str(Path(w).parent)]

    def version(p):
        m = re.search(r"/(\d+)(?:\.(\d+))?/bin$", p)
        return (int(m.group(1)), int(m.group(2) or 0)) if m else (0, 0)

    cands += sorted(glob.glob("/usr/lib/postgresql/*/bin"), key=version, reverse=True) + ["/usr/local/pgsql/bin"]
    for c in cands:
        if c and all(os.access(Path(c) / b, os.X_OK) and (Path(c) / b).is_file() for b in POSTGRES_BINARIES):
            return Path(c)
    return None


class PostgresServer:
    """A throwaway PostgreSQL server: initdb into a private temporary folder, listening only on a
    unix socket in that folder (no TCP), trust authentication, fsync off.

    PostgreSQL refuses to run as root: when the tests run as root, initdb and the server run as
    ``$AUTOTUNE_PG_USER`` (default ``nobody``), which owns the folder. :meth:`stop` stops the server
    (fast, then immediate, then SIGKILL of the postmaster) and deletes the folder; it is idempotent
    and also registered with :mod:`atexit`, so no server outlives the test session.
    """

    SUPERUSER = "autotune"

    def __init__(self, bindir: Path):
        import atexit
        import tempfile

        self.bindir = Path(bindir)
        self.proc_user = None  # (uid, gid) to run the server as, when we are root
        if os.geteuid() == 0:
            import pwd

            name = os.environ.get("AUTOTUNE_PG_USER", "nobody")
            try:
                pw = pwd.getpwnam(name)
            except KeyError:
                raise RuntimeError(f"running as root, and PostgreSQL refuses to: no user {name!r} to run it as "
                                   f"(set AUTOTUNE_PG_USER to an unprivileged user)") from None
            self.proc_user = (pw.pw_uid, pw.pw_gid)
        # a short path: the socket path (dir + "/.s.PGSQL.5432") must fit in ~107 bytes
        tmp = tempfile.gettempdir()
        base = tmp if len(tmp) < 60 else "/tmp"
        self.dir = Path(tempfile.mkdtemp(prefix="autotune-pg-", dir=base))
        self.data = self.dir / "data"
        self.logfile = self.dir / "server.log"
        self.started = False
        self._stopped = False
        atexit.register(self.stop)
        if self.proc_user:
            os.chown(self.dir, *self.proc_user)
        os.chmod(self.dir, 0o711)  # the client (root or not) reaches the socket; data/ stays 0700

    def _run(self, *args, timeout=120, check=True):
        import subprocess

        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        env.update(LC_ALL="C", LANG="C")
        kw = {}
        if self.proc_user:
            kw = dict(user=self.proc_user[0], group=self.proc_user[1], extra_groups=[])
        r = subprocess.run([str(self.bindir / args[0]), *map(str, args[1:])], cwd=self.dir, env=env,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout, **kw)
        if check and r.returncode != 0:
            log = self.logfile.read_text(errors="replace")[-3000:] if self.logfile.is_file() else ""
            raise RuntimeError(f"{args[0]} failed ({r.returncode}): {r.stdout}{r.stderr}\nserver log:\n{log}")
        return r

    def start(self) -> "PostgresServer":
        self._run("initdb", "-D", self.data, "-U", self.SUPERUSER, "--auth=trust", "-E", "UTF8", "--locale=C",
                  "--no-sync", "--no-instructions")
        with open(self.data / "postgresql.conf", "a") as fh:
            fh.write(f"\n# autotune tests: unix socket only, in the private folder; durability off\n"
                     f"listen_addresses = ''\nunix_socket_directories = '{self.dir}'\nport = 5432\n"
                     f"fsync = off\nsynchronous_commit = off\nfull_page_writes = off\nmax_connections = 100\n")
        self.started = True  # from here on stop() has a server to stop
        self._run("pg_ctl", "-D", self.data, "-l", self.logfile, "-w", "-t", "60", "-s", "start")
        return self

    def url(self, database: str) -> str:
        """SQLAlchemy/Optuna URL of *database* on this server (over the unix socket)."""
        return f"postgresql://{self.SUPERUSER}@/{database}?host={self.dir}"

    def create_database(self, name: str) -> str:
        """Create *name* (through the installed driver) and return its URL."""
        import sqlalchemy

        engine = sqlalchemy.create_engine(self.url("postgres"), isolation_level="AUTOCOMMIT")
        try:
            with engine.connect() as conn:
                conn.execute(sqlalchemy.text(f'CREATE DATABASE "{name}"'))
        finally:
            engine.dispose()
        return self.url(name)

    def _postmaster_pid(self) -> int | None:
        try:
            return int((self.data / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def stop(self) -> None:
        import shutil
        import signal
        import time

        if self._stopped:
            return
        self._stopped = True
        try:
            if self.started:
                for mode in ("fast", "immediate"):
                    try:
                        if self._run("pg_ctl", "-D", self.data, "-m", mode, "-w", "-t", "30", "-s", "stop",
                                     timeout=60, check=False).returncode == 0:
                            break
                    except Exception:  # noqa: BLE001 - fall through to the next way of stopping it
                        pass
                pid = self._postmaster_pid()
                if pid is not None:  # still there: the postmaster we started, and its children with it
                    try:
                        os.kill(pid, signal.SIGKILL)
                        time.sleep(0.5)
                    except ProcessLookupError:
                        pass
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server():
    """A running throwaway :class:`PostgresServer` for the session; skips only when the PostgreSQL
    server binaries are not installed."""
    bindir = postgres_bindir()
    if bindir is None:
        import shutil

        missing = [b for b in POSTGRES_BINARIES if shutil.which(b) is None] or list(POSTGRES_BINARIES)
        pytest.skip(f"PostgreSQL server binaries not found ({', '.join(missing)} not on PATH, nor in "
                    f"/usr/lib/postgresql/*/bin or $AUTOTUNE_PG_BINDIR)")
    server = PostgresServer(bindir)
    try:
        server.start()
        yield server
    finally:
        server.stop()


@pytest.fixture
def postgres_url(postgres_server, request):
    """URL of a fresh database on the session's PostgreSQL server, one per test."""
    import re

    name = "t_" + re.sub(r"[^a-z0-9]+", "_", request.node.name.lower())[:50] + f"_{os.getpid()}"
    return postgres_server.create_database(name)


def check_shared_corpus_entries(shared: list[str], manifests=("MANIFEST.tsv",)) -> bool:
    """When the shared real-graph set is present: the corpus's ``shared:`` entries are exactly the
    files of its *manifests* (those present) and each resolves to a file. Returns False (nothing
    checked) without the set."""
    from autotune.sweep import resolve_graph_entry, shared_graphs_dirs

    dirs = shared_graphs_dirs()
    if not (dirs and (dirs[0] / "MANIFEST.tsv").is_file()):
        return False
    manifest = [ln.split("\t")[0] for m in manifests if (dirs[0] / m).is_file()
                for ln in (dirs[0] / m).read_text().splitlines()[1:] if ln]
    assert sorted(e[len("shared:"):] for e in shared) == sorted(manifest)
    for e in shared:
        assert Path(resolve_graph_entry(e)[0]).is_file()
    return True
