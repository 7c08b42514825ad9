"""GAP peer: the .sg/.wsg layout (read back by an independent reader), the runner's parsing and errors
(with stand-in binaries), and -- when GAP is available -- real GAP runs that verify their own results.

The real runs need ``$AUTOTUNE_GAP_DIR`` (a folder with GAP's ``bfs`` and ``sssp``) or
``$AUTOTUNE_GAP_SRC`` (a GAP source checkout: it is copied to a temporary folder and built there with
``make bfs sssp``); otherwise they skip.
"""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import numpy as np
import pytest

from autotune.errors import InvalidArgumentError, PeerError
from autotune.gap import DEFAULT_DELTAS, find_gap, gap_bfs, gap_sssp, write_sg, write_wsg
from autotune.generators import generate
from autotune.graph import from_edges


# ----------------------------------------------------------------------- independent reader
def read_gap(path: Path, weighted: bool) -> dict:
    """Parse GAP's serialized layout: bool directed; int64 m; int64 n; int64 offsets[n+1];
    neighbours[m] (int32, or int32 pairs (v, w)); then the same for the in-edges when directed."""
    raw = Path(path).read_bytes()
    pos = 0

    def take(dtype, count):
        nonlocal pos
        a = np.frombuffer(raw, dtype=dtype, count=count, offset=pos)
        pos += a.nbytes
        return a

    directed = bool(take(np.uint8, 1)[0])
    m, n = (int(x) for x in take(np.int64, 2))
    out = {"directed": directed, "m": m, "n": n}
    for part in ("out", "in") if directed else ("out",):
        off = take(np.int64, n + 1)
        nb = take(np.int32, 2 * m if weighted else m)
        out[part] = (off, nb[0::2], nb[1::2]) if weighted else (off, nb, None)
    assert pos == len(raw), f"{len(raw) - pos} trailing bytes"
    return out


def triples(off, nb, w, transpose=False):
    rows = np.repeat(np.arange(off.size - 1), np.diff(off))
    ws = [1] * rows.size if w is None else w.tolist()
    return {((v, u) if transpose else (u, v)): x for u, v, x in zip(rows.tolist(), nb.tolist(), ws)}


@pytest.mark.parametrize("spec", ["kron:scale=6,edge_factor=4,weights=int:1:255",
                                  "kron:scale=6,edge_factor=4,directed=true,weights=int:1:255",
                                  "grid:rows=5,cols=7", "powerlaw:n=200,directed=true"])
def test_sg_and_wsg_layout(tmp_path, spec):
    g = generate(spec, xp=np)
    ro, ci = g.host()
    rows = np.repeat(np.arange(g.n_vertices), np.diff(ro))
    w = g.host_weights()
    want = dict(zip(zip(rows.tolist(), ci.tolist()), (w.tolist() if w is not None else [1] * g.n_edges)))
    for weighted, write in ((False, write_sg), (True, write_wsg)):
        path = write(g, tmp_path / ("g.wsg" if weighted else "g.sg"))
        per_csr = 8 * (g.n_vertices + 1) + (8 if weighted else 4) * g.n_edges
        assert path.stat().st_size == 17 + (1 + g.directed) * per_csr
        f = read_gap(path, weighted)
        assert f["directed"] == g.directed and f["n"] == g.n_vertices and f["m"] == g.n_edges
        off, nb, ww = f["out"]
        assert off[0] == 0 and off[-1] == g.n_edges
        np.testing.assert_array_equal(off, ro.astype(np.int64))
        np.testing.assert_array_equal(nb, ci)
        got = triples(off, nb, ww)
        assert got == (want if weighted else {k: 1 for k in want})
        if g.directed:
            ioff, inb, iw = f["in"]
            assert ioff[-1] == g.n_edges
            # in-lists sorted by source, and the same edges (with their weights) transposed
            for u in range(g.n_vertices):
                assert np.all(np.diff(inb[ioff[u]:ioff[u + 1]]) > 0)
            assert triples(ioff, inb, iw, transpose=True) == got


def test_wsg_unit_weights_and_float_refused(tmp_path):
    g = from_edges([0, 1], [1, 2], xp=np)
    f = read_gap(write_wsg(g, tmp_path / "u.wsg"), True)
    assert f["out"][2].tolist() == [1, 1]
    fl = from_edges([0, 1], [1, 2], weights=[0.5, 1.5], xp=np)
    with pytest.raises(InvalidArgumentError, match="int32 weights.*float32"):
        write_wsg(fl, tmp_path / "f.wsg")
    write_sg(fl, tmp_path / "f.sg")  # the structure alone is fine


# ------------------------------------------------------------------- runner, stand-in binaries
def fake_gap(folder: Path, script: str, kernels=("bfs", "sssp")) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for k in kernels:
        p = folder / k
        p.write_text("#!/bin/sh\n" + script)
        p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return folder


def test_find_gap_errors(tmp_path, monkeypatch):
    monkeypatch.delenv("AUTOTUNE_GAP_DIR", raising=False)
    with pytest.raises(PeerError, match="AUTOTUNE_GAP_DIR"):
        find_gap()
    with pytest.raises(PeerError, match="does not exist"):
        find_gap(tmp_path / "nope")
    fake_gap(tmp_path / "half", "exit 0\n", kernels=("bfs",))
    with pytest.raises(PeerError, match="sssp.*missing or not executable.*make bfs sssp"):
        find_gap(tmp_path / "half")
    monkeypatch.setenv("AUTOTUNE_GAP_DIR", str(tmp_path / "half"))
    assert find_gap(kernels=("bfs",)) == tmp_path / "half"


def test_runner_parses_times_and_picks_the_best_delta(tmp_path):
    # prints the arguments it got, and a time that depends on -d: 2 -> 0.004 s, 16 -> 0.001 s, ...
    script = ('echo "args: $*"\necho "OMP=$OMP_NUM_THREADS"\n'
              'd=1; while [ $# -gt 0 ]; do if [ "$1" = "-d" ]; then d=$2; fi; shift; done\n'
              'case $d in 2) t=0.00400;; 16) t=0.00100;; 128) t=0.00200;; *) t=0.00300;; esac\n'
              'echo "Trial Time:          $t"\necho "Trial Time:          $t"\necho "Average Time:        $t"\n')
    gd = fake_gap(tmp_path / "gap", script)
    g = generate("kron:scale=5,edge_factor=4,weights=int:1:255", xp=np)
    r = gap_sssp(g, gap_dir=gd, n_trials=2, threads=3, source=4)
    assert r.kernel == "sssp" and r.times_ms == {2: 4.0, 16: 1.0, 128: 2.0, 1024: 3.0}
    assert r.best_ms == 1.0 and r.best_delta == 16 and r.trial_ms[16] == [1.0, 1.0]
    assert r.threads == 3 and r.n_trials == 2 and r.source == 4 and len(r.commands) == len(DEFAULT_DELTAS)
    assert r.commands[0][1:3] == ["-f", r.commands[0][2]] and r.commands[0][2].endswith(".wsg")
    assert ["-n", "2", "-d", "2", "-r", "4"] == r.commands[0][3:]
    b = gap_bfs(g, gap_dir=gd, n_trials=5, threads=1)
    assert b.kernel == "bfs" and b.times_ms == {None: 3.0} and b.best_ms == 3.0 and b.best_delta is None
    assert b.commands[0][2].endswith(".sg") and b.commands[0][3:] == ["-n", "5"]
    # an existing .wsg file is used as is
    path = write_wsg(g, tmp_path / "x.wsg")
    assert gap_sssp(path, gap_dir=gd, deltas=(128,)).commands[0][2] == str(path)
    with pytest.raises(InvalidArgumentError, match=r"\.sg file"):
        gap_bfs(path, gap_dir=gd)


def test_runner_errors(tmp_path):
    g = generate("kron:scale=5,edge_factor=4,weights=int:1:255", xp=np)
    bad = fake_gap(tmp_path / "bad", 'echo "Couldn\'t open file"\necho "oops on stderr" >&2\nexit 250\n')
    with pytest.raises(PeerError) as info:
        gap_bfs(g, gap_dir=bad)
    assert "exit status 250" in str(info.value) and "oops on stderr" in str(info.value)
    assert "Couldn't open file" in str(info.value)
    silent = fake_gap(tmp_path / "silent", 'echo "Trial Time: 0.1"\n')
    with pytest.raises(PeerError, match="no 'Average Time'"):
        gap_sssp(g, gap_dir=silent, deltas=(2,))
    failing = fake_gap(tmp_path / "fail", 'echo "Verification:           FAIL"\necho "Average Time: 0.1"\n')
    with pytest.raises(PeerError, match="verification failed"):
        gap_bfs(g, gap_dir=failing, verify=True)
    slow = fake_gap(tmp_path / "slow", "sleep 5\n")
    with pytest.raises(PeerError, match="timed out"):
        gap_bfs(g, gap_dir=slow, timeout=0.5)
    for kw in ({"n_trials": 0}, {"threads": 0}, {"source": -1}):
        with pytest.raises(InvalidArgumentError):
            gap_bfs(g, gap_dir=slow, **kw)
    for deltas in ((), (0,), (1.5,)):
        with pytest.raises(InvalidArgumentError, match="deltas"):
            gap_sssp(g, gap_dir=slow, deltas=deltas)
    fl = generate("kron:scale=5,edge_factor=4,weights=float:0.5:2", xp=np)
    with pytest.raises(InvalidArgumentError, match="int32 weights"):
        gap_sssp(fl, gap_dir=fake_gap(tmp_path / "ok", 'echo "Average Time: 0.1"\n'))


# ---------------------------------------------------------------------------- real GAP
@pytest.fixture(scope="module")
def real_gap_dir(tmp_path_factory):
    given = os.environ.get("AUTOTUNE_GAP_DIR")
    if given:
        return find_gap(given)
    src = os.environ.get("AUTOTUNE_GAP_SRC")
    if not src:
        pytest.skip("real GAP: set AUTOTUNE_GAP_DIR (built bfs + sssp) or AUTOTUNE_GAP_SRC (a GAP source checkout)")
    if shutil.which("make") is None or shutil.which(os.environ.get("CXX", "g++")) is None:
        pytest.skip("real GAP: make or a C++ compiler is missing")
    build = tmp_path_factory.mktemp("gapbs") / "gapbs"
    shutil.copytree(src, build, ignore=shutil.ignore_patterns(".git", "bfs", "sssp", "*.o"))
    r = subprocess.run(["make", "-C", str(build), "bfs", "sssp"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    return find_gap(build)


@pytest.mark.parametrize("spec", ["kron:scale=12,edge_factor=8,weights=int:1:255",
                                  "kron:scale=11,edge_factor=8,directed=true,weights=int:1:255",
                                  "grid:rows=40,cols=50,weights=int:1:1000"])
def test_real_gap_reads_our_files_and_verifies(real_gap_dir, spec):
    g = generate(spec, xp=np)
    s = int(np.argmax(g.out_degrees()))
    b = gap_bfs(g, gap_dir=real_gap_dir, n_trials=2, threads=2, verify=True)
    assert b.best_ms >= 0 and len(b.trial_ms[None]) == 2
    r = gap_sssp(g, gap_dir=real_gap_dir, n_trials=2, threads=2, source=s, verify=True, deltas=(2, 64))
    assert set(r.times_ms) == {2, 64} and r.best_delta in (2, 64) and r.best_ms == min(r.times_ms.values())
