"""TraversalConfig: validation, neutral values, JSON round trip, hashing, config_id."""
from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autotune.config import (
    BLOCK_SIZES, DIRECTIONS, LOAD_BALANCE_TECHNIQUES, MIN_VIRTUAL_WARP_SIZES, VIRTUAL_WARP_SIZES,
    TraversalConfig, all_configs, default_config,
)

#: The canonical JSON is the contract: this id must never change for the default config
#: (computed once from '{"block_size":256,"direction":"push","load_balance":"vertex_mapped",
#: "min_virtual_warp_size":4,"virtual_warp_size":"dynamic"}').
DEFAULT_ID = "c-48fac1f0ac08"

ALL = all_configs()


def _in(value, allowed):
    """Membership with exact types (True is not 1)."""
    return any(type(value) is type(a) and value == a for a in allowed)


def expected_valid(lb, vw, mvw, bs, d):
    """The rule of the design table, written independently of the validation table."""
    if not (_in(lb, LOAD_BALANCE_TECHNIQUES) and _in(bs, BLOCK_SIZES) and _in(d, DIRECTIONS)):
        return False
    if lb == "binary_search":
        return vw is None and mvw is None
    vw_eff = "dynamic" if vw is None else vw
    if not _in(vw_eff, VIRTUAL_WARP_SIZES):
        return False
    if vw_eff == "dynamic":
        return mvw is None or _in(mvw, MIN_VIRTUAL_WARP_SIZES)
    return mvw is None


# --------------------------------------------------------------------------- defaults / enumeration
def test_default_config():
    c = default_config()
    assert c == TraversalConfig()
    assert c.to_dict() == {"load_balance": "vertex_mapped", "virtual_warp_size": "dynamic",
                           "min_virtual_warp_size": 4, "block_size": 256, "direction": "push"}
    assert c.label == "vertex_mapped/vw=dynamic(min4)/b256/push"


def test_default_config_id_is_pinned():
    assert default_config().to_json() == ('{"block_size":256,"direction":"push","load_balance":"vertex_mapped",'
                                          '"min_virtual_warp_size":4,"virtual_warp_size":"dynamic"}')
    assert default_config().config_id == DEFAULT_ID


def test_config_id_stable_across_processes():
    code = ("from autotune.config import all_configs; "
            "print(' '.join(c.config_id for c in all_configs()))")
    for seed in ("0", "1", "random"):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONHASHSEED": seed}, cwd=str(_repo_root()))
        assert out.stdout.split() == [c.config_id for c in ALL]


def _repo_root():
    return Path(__file__).resolve().parents[1]


def test_all_configs_enumeration():
    # vertex_mapped: 6 fixed sizes + dynamic x 6 minimums, times 4 block sizes; binary_search: 4 block sizes
    assert len(ALL) == (6 + 6) * 4 + 4
    assert len(set(ALL)) == len(ALL)
    assert len({c.config_id for c in ALL}) == len(ALL)
    assert len({c.label for c in ALL}) == len(ALL)
    assert default_config() in ALL


# --------------------------------------------------------------------------- validation
@settings(max_examples=500, deadline=None)
@given(st.sampled_from(LOAD_BALANCE_TECHNIQUES + ("scan_mapped", "", None)),
       st.sampled_from(VIRTUAL_WARP_SIZES + (None, 0, 3, 64, "static", True)),
       st.sampled_from(MIN_VIRTUAL_WARP_SIZES + (None, 0, 64, 3, 4.0)),
       st.sampled_from(BLOCK_SIZES + (64, 2048, None, 256.0)),
       st.sampled_from(DIRECTIONS + ("pull", "push_pull")))
def test_validation_matches_design_rule(lb, vw, mvw, bs, d):
    kwargs = dict(load_balance=lb, virtual_warp_size=vw, min_virtual_warp_size=mvw, block_size=bs, direction=d)
    if expected_valid(lb, vw, mvw, bs, d):
        c = TraversalConfig(**kwargs)
        assert c in ALL
    else:
        with pytest.raises(ValueError, match=r"TraversalConfig\.\w+"):
            TraversalConfig(**kwargs)


@pytest.mark.parametrize("field, value, allowed", [
    ("load_balance", "scan_mapped", "'vertex_mapped', 'binary_search'"),
    ("virtual_warp_size", 3, "1, 2, 4, 8, 16, 32, 'dynamic'"),
    ("virtual_warp_size", "32", "1, 2, 4, 8, 16, 32, 'dynamic'"),
    ("min_virtual_warp_size", 64, "1, 2, 4, 8, 16, 32"),
    ("block_size", 100, "128, 256, 512, 1024"),
    ("direction", "pull", "'push'"),
])
def test_invalid_value_names_field_value_and_allowed(field, value, allowed):
    with pytest.raises(ValueError) as info:
        TraversalConfig(**{field: value})
    msg = str(info.value)
    assert f"TraversalConfig.{field}" in msg and repr(value) in msg and allowed in msg


@pytest.mark.parametrize("field, value", [
    ("virtual_warp_size", True), ("virtual_warp_size", 4.0), ("block_size", 256.0), ("block_size", True),
    ("min_virtual_warp_size", 4.0),
])
def test_exact_types_required(field, value):
    """4.0 or True would compare equal to a valid int but change the canonical JSON."""
    with pytest.raises(ValueError, match=f"TraversalConfig.{field}"):
        TraversalConfig(**{field: value})


def test_numpy_scalars_normalised():
    c = TraversalConfig(virtual_warp_size=np.int64(8), block_size=np.int32(512), load_balance=np.str_("vertex_mapped"))
    assert type(c.virtual_warp_size) is int and type(c.block_size) is int and type(c.load_balance) is str
    assert c == TraversalConfig(virtual_warp_size=8, block_size=512)
    assert c.config_id == TraversalConfig(virtual_warp_size=8, block_size=512).config_id


def test_none_not_allowed_for_unconditional_fields():
    for field in ("load_balance", "block_size", "direction"):
        with pytest.raises(ValueError, match=f"TraversalConfig.{field}"):
            TraversalConfig(**{field: None})


# --------------------------------------------------------------------------- neutral values
def test_neutral_values_filled():
    c = TraversalConfig(load_balance="vertex_mapped")
    assert c.virtual_warp_size == "dynamic" and c.min_virtual_warp_size == 4
    c = TraversalConfig(virtual_warp_size=16)
    assert c.min_virtual_warp_size is None
    c = TraversalConfig(virtual_warp_size="dynamic", min_virtual_warp_size=8)
    assert c.min_virtual_warp_size == 8
    c = TraversalConfig(load_balance="binary_search")
    assert c.virtual_warp_size is None and c.min_virtual_warp_size is None
    assert c.label == "binary_search/b256/push"
    assert TraversalConfig(virtual_warp_size=8, block_size=1024).label == "vertex_mapped/vw=8/b1024/push"


def test_inapplicable_field_rejected_naming_it():
    with pytest.raises(ValueError, match="TraversalConfig.virtual_warp_size=4 does not apply") as info:
        TraversalConfig(load_balance="binary_search", virtual_warp_size=4)
    assert "load_balance='binary_search'" in str(info.value)
    with pytest.raises(ValueError, match="TraversalConfig.min_virtual_warp_size=4 does not apply"):
        TraversalConfig(load_balance="binary_search", min_virtual_warp_size=4)
    with pytest.raises(ValueError, match="TraversalConfig.min_virtual_warp_size=2 does not apply") as info:
        TraversalConfig(virtual_warp_size=8, min_virtual_warp_size=2)
    assert "virtual_warp_size=8" in str(info.value)


def test_equal_strategies_equal_configs():
    """Neutral values make spelling differences disappear (the classifier's labels depend on it)."""
    a = TraversalConfig()
    b = TraversalConfig(load_balance="vertex_mapped", virtual_warp_size="dynamic", min_virtual_warp_size=4)
    assert a == b and hash(a) == hash(b) and a.config_id == b.config_id
    assert len({a, b, TraversalConfig(virtual_warp_size=8)}) == 2


# --------------------------------------------------------------------------- with_
def test_with_resets_inapplicable_fields():
    c = default_config()
    b = c.with_(load_balance="binary_search")
    assert b == TraversalConfig(load_balance="binary_search")
    back = b.with_(load_balance="vertex_mapped")
    assert back == default_config()
    fixed = c.with_(virtual_warp_size=8)
    assert fixed.min_virtual_warp_size is None
    assert fixed.with_(virtual_warp_size="dynamic").min_virtual_warp_size == 4
    assert c.with_(block_size=1024).min_virtual_warp_size == 4  # untouched when still applicable
    assert c.with_(min_virtual_warp_size=16).with_(block_size=128).min_virtual_warp_size == 16


def test_with_explicit_fields_validated():
    c = default_config()
    with pytest.raises(ValueError, match="TraversalConfig.virtual_warp_size=8 does not apply"):
        c.with_(load_balance="binary_search", virtual_warp_size=8)
    with pytest.raises(ValueError, match="TraversalConfig.min_virtual_warp_size=2 does not apply"):
        c.with_(virtual_warp_size=8, min_virtual_warp_size=2)
    with pytest.raises(ValueError, match="TraversalConfig.block_size"):
        c.with_(block_size=3)
    with pytest.raises(ValueError, match="'bogus'"):
        c.with_(bogus=1)
    assert c.with_() == c


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ALL), st.sampled_from(ALL), st.sets(st.sampled_from(
    ("load_balance", "virtual_warp_size", "min_virtual_warp_size", "block_size", "direction"))))
def test_with_moves_between_any_two_configs(a, b, fields):
    """Changing every field that differs reaches b; changing a subset gives a valid config."""
    diff = {k: v for k, v in b.to_dict().items() if getattr(a, k) != v}
    assert a.with_(**diff) == b
    partial = {k: getattr(b, k) for k in fields if k in ("load_balance", "block_size", "direction")}
    assert a.with_(**partial) in ALL


def test_frozen_and_hashable():
    c = default_config()
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.block_size = 512
    assert {c: 1}[TraversalConfig()] == 1


# --------------------------------------------------------------------------- serialisation
@settings(max_examples=200, deadline=None)
@given(st.sampled_from(ALL))
def test_json_round_trip(c):
    s = c.to_json()
    assert TraversalConfig.from_json(s) == c
    assert TraversalConfig.from_dict(c.to_dict()) == c
    assert TraversalConfig.from_dict(json.loads(s)) == c
    assert json.loads(s) == c.to_dict()
    assert s == json.dumps(c.to_dict(), sort_keys=True, separators=(",", ":"))
    assert TraversalConfig.from_json(s).config_id == c.config_id
    assert c.config_id.startswith("c-") and len(c.config_id) == 14
    int(c.config_id[2:], 16)


def test_from_dict_unknown_key_named():
    d = default_config().to_dict()
    with pytest.raises(ValueError, match="'warp_gathering'"):
        TraversalConfig.from_dict({**d, "warp_gathering": True})


def test_from_dict_partial_uses_defaults():
    assert TraversalConfig.from_dict({}) == default_config()
    assert TraversalConfig.from_dict({"load_balance": "binary_search"}).virtual_warp_size is None


def test_from_json_rejects_non_object():
    with pytest.raises(ValueError, match="JSON object"):
        TraversalConfig.from_json("[1, 2]")


def test_distinct_configs_distinct_ids():
    ids = {}
    for c in ALL:
        assert ids.setdefault(c.config_id, c) == c
