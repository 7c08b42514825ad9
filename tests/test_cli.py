"""CLI behaviour on any machine (GPU-free parts, and the plain 'needs a GPU' message)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from autotune import cli


def test_profile_generator_spec_json(capsys):
    assert cli.main(["profile", "grid:rows=20,cols=30", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data[0]["features"]["n_vertices"] == 600
    assert data[0]["fingerprint"].startswith("sha256:")


def test_profile_table(capsys, tmp_path):
    p = tmp_path / "tiny.txt"
    p.write_text("# tiny\n0 1\n1 2\n2 0\n")
    assert cli.main(["profile", str(p)]) == 0
    out = capsys.readouterr().out
    assert "degree_gini" in out and "tiny" in out


def test_missing_file_is_a_clear_error(capsys):
    assert cli.main(["profile", "/nonexistent/graph.mtx"]) == 2
    assert "/nonexistent/graph.mtx" in capsys.readouterr().err


def test_bad_file_reports_line(capsys, tmp_path):
    p = tmp_path / "bad.txt"
    p.write_text("0 1\n1 x\n")
    assert cli.main(["profile", str(p)]) == 2
    err = capsys.readouterr().err
    assert "bad.txt:2" in err


def test_run_without_gpu_says_so():
    env = dict(os.environ, AUTOTUNE_DISABLE_GPU="1")
    r = subprocess.run([sys.executable, "-m", "autotune.cli", "run", "grid:rows=4,cols=4"], env=env,
                       capture_output=True, text=True)
    assert r.returncode == 2
    assert "needs an NVIDIA GPU" in r.stderr and "profile" in r.stderr


@pytest.mark.gpu
def test_run_table_and_json(capsys):
    assert cli.main(["run", "kron:scale=10,edge_factor=8", "--load-balance", "all", "--sources", "4",
                     "--validate", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    ms = data[0]["measurements"]
    from autotune.config import LOAD_BALANCE_TECHNIQUES

    assert len(ms) == len(LOAD_BALANCE_TECHNIQUES) + 1 and all(m["valid"] for m in ms)  # + scipy
    assert ms[0]["sources"] == ms[-1]["sources"]
    assert cli.main(["run", "grid:rows=30,cols=30", "--trace", "--sources", "2"]) == 0
    out = capsys.readouterr().out
    assert "per-level trace" in out


def test_run_knob_flags_are_table_driven_and_checked():
    """Every TraversalConfig field has a `run` flag; a knob goes to the techniques it applies to, and
    one that applies to none of them is an error naming the flag."""
    from autotune.cli import _configs_from_args, build_parser
    from autotune.config import _FIELDS

    p = build_parser()
    args = p.parse_args(["run", "g.mtx", "--load-balance", "vertex_mapped", "binary_search",
                         "--warp-gathering", "32", "--chunk-size", "2048", "--small-frontier", "persistent"])
    vm, bs = _configs_from_args(args)
    assert vm.warp_gathering == 32 and vm.chunk_size is None and vm.small_frontier == "persistent"
    assert bs.chunk_size == 2048 and bs.warp_gathering is None and bs.small_frontier == "persistent"
    args = p.parse_args(["run", "g.mtx", "--load-balance", "binary_search", "--block-gathering", "4096"])
    with pytest.raises(ValueError, match="--block-gathering applies to none"):
        _configs_from_args(args)
    helptext = p.format_help() + p._subparsers._group_actions[0].choices["run"].format_help()
    for name in _FIELDS:
        assert "--" + name.replace("_", "-") in helptext
