"""TraversalConfig: validation, neutral values, JSON round trip, hashing, config_id, labels, with_."""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autotune import config as config_module
from autotune.config import TraversalConfig, all_configs, default_config

# --------------------------------------------------------------------------- the design table
# Written out here, independently of ``autotune.config._FIELDS``: the tests compare the module
# against these literals (and test_module_constants_match_design pins the module's constants).
FIELD_ORDER = ("load_balance", "virtual_warp_size", "min_virtual_warp_size", "block_size", "direction",
               "switch_rule", "alpha", "beta", "gamma", "hub_degree", "small_frontier", "frontier_limit")
LB = ("vertex_mapped", "binary_search")
VW = (1, 2, 4, 8, 16, 32, "dynamic")
MVW = (1, 2, 4, 8, 16, 32)
BS = (128, 256, 512, 1024)
DIRS = ("push", "push_pull")
RULES = ("alpha_beta", "hub_ratio")
ALPHAS = (4, 15, 60)
BETAS = (6, 18, 48)
GAMMAS = (0.1, 0.3, 0.5)
HUBS = (64, 512, 4096)
SF = ("none", "single_block")
FLS = (512, 2048, 8192)

UNCONDITIONAL = ("load_balance", "block_size", "direction", "small_frontier")
#: When each conditional field applies (on the effective values) and what it takes then by default.
APPLIES = {
    "virtual_warp_size": lambda v: v["load_balance"] == "vertex_mapped",
    "min_virtual_warp_size": lambda v: v["virtual_warp_size"] == "dynamic",
    "switch_rule": lambda v: v["direction"] == "push_pull",
    "alpha": lambda v: v["switch_rule"] == "alpha_beta",
    "beta": lambda v: v["direction"] == "push_pull",
    "gamma": lambda v: v["switch_rule"] == "hub_ratio",
    "hub_degree": lambda v: v["switch_rule"] == "hub_ratio",
    "frontier_limit": lambda v: v["small_frontier"] == "single_block",
}
DEPENDS_ON = {"virtual_warp_size": "load_balance", "min_virtual_warp_size": "virtual_warp_size",
              "switch_rule": "direction", "alpha": "switch_rule", "beta": "direction", "gamma": "switch_rule",
              "hub_degree": "switch_rule", "frontier_limit": "small_frontier"}
DEFAULTS = {"load_balance": "vertex_mapped", "virtual_warp_size": "dynamic", "min_virtual_warp_size": 4,
            "block_size": 256, "direction": "push", "switch_rule": "alpha_beta", "alpha": 15, "beta": 18,
            "gamma": 0.3, "hub_degree": 512, "small_frontier": "single_block", "frontier_limit": 2048}

#: The canonical JSON is the contract: these ids must never change. Each id was computed once from
#: its canonical JSON (``TraversalConfig(**kwargs).config_id``) and is re-derived from the literal.
DEFAULT_JSON = ('{"alpha":null,"beta":null,"block_size":256,"direction":"push","frontier_limit":2048,'
                '"gamma":null,"hub_degree":null,"load_balance":"vertex_mapped","min_virtual_warp_size":4,'
                '"small_frontier":"single_block","switch_rule":null,"virtual_warp_size":"dynamic"}')
DEFAULT_ID = "c-a9ecd7a1d16f"
PINNED = [
    ({}, DEFAULT_JSON, DEFAULT_ID),
    (dict(direction="push_pull"),
     '{"alpha":15,"beta":18,"block_size":256,"direction":"push_pull","frontier_limit":2048,"gamma":null,'
     '"hub_degree":null,"load_balance":"vertex_mapped","min_virtual_warp_size":4,"small_frontier":"single_block",'
     '"switch_rule":"alpha_beta","virtual_warp_size":"dynamic"}', "c-704feac77952"),
    (dict(direction="push_pull", switch_rule="hub_ratio"),
     '{"alpha":null,"beta":18,"block_size":256,"direction":"push_pull","frontier_limit":2048,"gamma":0.3,'
     '"hub_degree":512,"load_balance":"vertex_mapped","min_virtual_warp_size":4,"small_frontier":"single_block",'
     '"switch_rule":"hub_ratio","virtual_warp_size":"dynamic"}', "c-90a7b7f20ed3"),
    (dict(load_balance="binary_search", small_frontier="none"),
     '{"alpha":null,"beta":null,"block_size":256,"direction":"push","frontier_limit":null,"gamma":null,'
     '"hub_degree":null,"load_balance":"binary_search","min_virtual_warp_size":null,"small_frontier":"none",'
     '"switch_rule":null,"virtual_warp_size":null}', "c-3e226bc35b58"),
    (dict(virtual_warp_size=8, block_size=1024, direction="push_pull", switch_rule="hub_ratio", gamma=0.1,
          hub_degree=4096, beta=48, frontier_limit=8192),
     '{"alpha":null,"beta":48,"block_size":1024,"direction":"push_pull","frontier_limit":8192,"gamma":0.1,'
     '"hub_degree":4096,"load_balance":"vertex_mapped","min_virtual_warp_size":null,"small_frontier":"single_block",'
     '"switch_rule":"hub_ratio","virtual_warp_size":8}', "c-38304496fb9c"),
]
#: Before push_pull / small_frontier existed the default's canonical JSON was this (id c-48fac1f0ac08).
OLD_DEFAULT_JSON = ('{"block_size":256,"direction":"push","load_balance":"vertex_mapped",'
                    '"min_virtual_warp_size":4,"virtual_warp_size":"dynamic"}')

ALL = all_configs()
ALL_SET = frozenset(ALL)
N_CONFIGS = 7696


def _in(value, allowed):
    """Membership with exact types (True is not 1, 4.0 is not 4)."""
    return any(type(value) is type(a) and value == a for a in allowed)


def expected_fields(load_balance="vertex_mapped", virtual_warp_size=None, min_virtual_warp_size=None,
                    block_size=256, direction="push", switch_rule=None, alpha=None, beta=None, gamma=None,
                    hub_degree=None, small_frontier="single_block", frontier_limit=None):
    """The rule of the design table, written independently of the validation table.

    Returns the effective field values (neutral ``None`` where a field does not apply, its default
    where it applies and was not given) or ``None`` when the arguments are invalid.
    """
    lb, vw, mvw, bs, d = load_balance, virtual_warp_size, min_virtual_warp_size, block_size, direction
    sr, a, b, g, hd, sf, fl = switch_rule, alpha, beta, gamma, hub_degree, small_frontier, frontier_limit
    if not (_in(lb, LB) and _in(bs, BS) and _in(d, DIRS) and _in(sf, SF)):
        return None
    # virtual warps: vertex_mapped only; the minimum clamp only with the dynamic size
    if lb == "binary_search":
        if vw is not None or mvw is not None:
            return None
    else:
        vw = "dynamic" if vw is None else vw
        if not _in(vw, VW):
            return None
        if vw == "dynamic":
            mvw = 4 if mvw is None else mvw
            if not _in(mvw, MVW):
                return None
        elif mvw is not None:
            return None
    # direction: push has no switch knobs; push_pull has a rule, beta, and the rule's own knobs
    if d == "push":
        if any(x is not None for x in (sr, a, b, g, hd)):
            return None
    else:
        sr = "alpha_beta" if sr is None else sr
        b = 18 if b is None else b
        if not (_in(sr, RULES) and _in(b, BETAS)):
            return None
        if sr == "alpha_beta":
            if g is not None or hd is not None:
                return None
            a = 15 if a is None else a
            if not _in(a, ALPHAS):
                return None
        else:
            if a is not None:
                return None
            g = 0.3 if g is None else g
            hd = 512 if hd is None else hd
            if not (_in(g, GAMMAS) and _in(hd, HUBS)):
                return None
    # small frontier: a limit only with the single-block kernel
    if sf == "none":
        if fl is not None:
            return None
    else:
        fl = 2048 if fl is None else fl
        if not _in(fl, FLS):
            return None
    return dict(load_balance=lb, virtual_warp_size=vw, min_virtual_warp_size=mvw, block_size=bs, direction=d,
                switch_rule=sr, alpha=a, beta=b, gamma=g, hub_degree=hd, small_frontier=sf, frontier_limit=fl)


def expected_valid(**kwargs) -> bool:
    return expected_fields(**kwargs) is not None


def expected_label(c: TraversalConfig) -> str:
    s = c.load_balance
    if c.load_balance == "vertex_mapped":
        s += f"/vw={c.virtual_warp_size}"
        if c.virtual_warp_size == "dynamic":
            s += f"(min{c.min_virtual_warp_size})"
    s += f"/b{c.block_size}"
    if c.direction == "push":
        s += "/push"
    elif c.switch_rule == "alpha_beta":
        s += f"/push_pull(a{c.alpha},b{c.beta})"
    else:
        s += f"/push_pull(g{c.gamma},t{c.hub_degree},b{c.beta})"
    if c.small_frontier == "single_block":
        s += f"/sb{c.frontier_limit}"
    return s


def _expected_all() -> list[dict]:
    """Every valid config, enumerated group by group from the design table (not from the module)."""
    warps = ([dict(load_balance="binary_search", virtual_warp_size=None, min_virtual_warp_size=None)]
             + [dict(load_balance="vertex_mapped", virtual_warp_size=v, min_virtual_warp_size=None)
                for v in VW if v != "dynamic"]
             + [dict(load_balance="vertex_mapped", virtual_warp_size="dynamic", min_virtual_warp_size=m) for m in MVW])
    none5 = dict(switch_rule=None, alpha=None, beta=None, gamma=None, hub_degree=None)
    dirs = ([dict(direction="push", **none5)]
            + [dict(none5, direction="push_pull", switch_rule="alpha_beta", alpha=a, beta=b)
               for a in ALPHAS for b in BETAS]
            + [dict(none5, direction="push_pull", switch_rule="hub_ratio", gamma=g, hub_degree=h, beta=b)
               for g in GAMMAS for h in HUBS for b in BETAS])
    sfs = [dict(small_frontier="none", frontier_limit=None)] + [
        dict(small_frontier="single_block", frontier_limit=f) for f in FLS]
    return [{**w, "block_size": bs, **d, **s} for w in warps for bs in BS for d in dirs for s in sfs]


def _canonical_id(d: dict) -> str:
    return "c-" + hashlib.sha256(json.dumps(d, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:12]


def _repo_root():
    return Path(__file__).resolve().parents[1]


# Candidate values per field, valid ones, None, and invalid ones (wrong value or wrong type).
CAND = {
    "load_balance": LB + (None, "scan_mapped", ""),
    "virtual_warp_size": VW + (None, 0, 3, 64, "static", True, 4.0, "32"),
    "min_virtual_warp_size": MVW + (None, 0, 3, 64, 4.0),
    "block_size": BS + (None, 64, 2048, 256.0, True),
    "direction": DIRS + (None, "pull", "PUSH"),
    "switch_rule": RULES + (None, "enterprise"),
    "alpha": ALPHAS + (None, 14, 15.0),
    "beta": BETAS + (None, 0, True),
    "gamma": GAMMAS + (None, 0.2, "0.3"),
    "hub_degree": HUBS + (None, 100, 512.0),
    "small_frontier": SF + (None, "multi_block"),
    "frontier_limit": FLS + (None, 1024, 2048.0, True),
}


def _check_against_rule(kwargs):
    exp = expected_fields(**kwargs)
    if exp is not None:
        c = TraversalConfig(**kwargs)
        assert c.to_dict() == exp, kwargs
        assert c in ALL_SET
        return c
    with pytest.raises(ValueError, match=r"TraversalConfig\.(" + "|".join(FIELD_ORDER) + r")\b"):
        TraversalConfig(**kwargs)
    return None


# --------------------------------------------------------------------------- the table itself
def test_module_constants_match_design():
    m = config_module
    assert m.LOAD_BALANCE_TECHNIQUES == LB and m.VIRTUAL_WARP_SIZES == VW and m.MIN_VIRTUAL_WARP_SIZES == MVW
    assert m.BLOCK_SIZES == BS and m.DIRECTIONS == DIRS and m.SWITCH_RULES == RULES
    assert m.ALPHAS == ALPHAS and m.BETAS == BETAS and m.GAMMAS == GAMMAS and m.HUB_DEGREES == HUBS
    assert m.SMALL_FRONTIER == SF and m.FRONTIER_LIMITS == FLS
    assert tuple(f.name for f in dataclasses.fields(TraversalConfig)) == FIELD_ORDER
    assert tuple(default_config().to_dict()) == FIELD_ORDER


def test_applies_map_agrees_with_rule_on_all_configs():
    """The two independent formulations used here (APPLIES/DEFAULTS and expected_fields) agree."""
    for c in ALL:
        d = c.to_dict()
        for name in FIELD_ORDER:
            if name in APPLIES and not APPLIES[name](d):
                assert d[name] is None, (c, name)
            else:
                assert _in(d[name], CAND[name][:CAND[name].index(None)]), (c, name)


# --------------------------------------------------------------------------- defaults / enumeration
def test_default_config():
    c = default_config()
    assert c == TraversalConfig()
    assert c.to_dict() == {"load_balance": "vertex_mapped", "virtual_warp_size": "dynamic",
                           "min_virtual_warp_size": 4, "block_size": 256, "direction": "push",
                           "switch_rule": None, "alpha": None, "beta": None, "gamma": None, "hub_degree": None,
                           "small_frontier": "single_block", "frontier_limit": 2048}
    assert c.label == "vertex_mapped/vw=dynamic(min4)/b256/push/sb2048"


def test_default_config_id_is_pinned():
    assert default_config().to_json() == DEFAULT_JSON
    assert default_config().config_id == DEFAULT_ID
    assert "c-" + hashlib.sha256(DEFAULT_JSON.encode()).hexdigest()[:12] == DEFAULT_ID


@pytest.mark.parametrize("kwargs, canonical, cid", PINNED, ids=[p[2] for p in PINNED])
def test_config_ids_pinned(kwargs, canonical, cid):
    c = TraversalConfig(**kwargs)
    assert c.to_json() == canonical
    assert "c-" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12] == cid
    assert c.config_id == cid
    assert TraversalConfig.from_json(canonical) == c


def test_config_id_stable_across_processes():
    """A deterministic sample (every 31st config, plus the pinned ones) gets the same ids in fresh processes."""
    code = ("from autotune.config import all_configs; "
            "print(' '.join(c.config_id for c in all_configs()[::31]))")
    expected = [c.config_id for c in ALL[::31]]
    assert len(expected) >= 200
    for seed in ("0", "1", "random"):
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONHASHSEED": seed}, cwd=str(_repo_root()))
        assert out.stdout.split() == expected


def test_all_configs_enumeration():
    # warps: binary_search 1 + vertex_mapped (6 fixed + dynamic x 6 minimums) = 13; block sizes 4;
    # directions: push 1 + alpha_beta (3 alpha x 3 beta) + hub_ratio (3 gamma x 3 hub_degree x 3 beta) = 37;
    # small frontier: none 1 + single_block x 3 limits = 4
    assert len(ALL) == 13 * 4 * 37 * 4 == N_CONFIGS
    assert len(ALL_SET) == len(ALL)
    assert len({c.config_id for c in ALL}) == len(ALL)
    assert len({c.label for c in ALL}) == len(ALL)
    assert default_config() in ALL_SET
    exp = _expected_all()
    assert len(exp) == N_CONFIGS
    assert {tuple(c.to_dict().items()) for c in ALL} == {tuple((k, d[k]) for k in FIELD_ORDER) for d in exp}
    assert all_configs() == ALL  # deterministic order


# --------------------------------------------------------------------------- validation
def test_validation_warp_group_exhaustive():
    for lb, vw, mvw in itertools.product(CAND["load_balance"], CAND["virtual_warp_size"],
                                         CAND["min_virtual_warp_size"]):
        _check_against_rule(dict(load_balance=lb, virtual_warp_size=vw, min_virtual_warp_size=mvw))


def test_validation_direction_group_exhaustive():
    """Every combination of direction/switch_rule/alpha/beta/gamma/hub_degree candidates."""
    names = ("direction", "switch_rule", "alpha", "beta", "gamma", "hub_degree")
    seen = set()
    for values in itertools.product(*(CAND[n] for n in names)):
        c = _check_against_rule(dict(zip(names, values)))
        if c is not None:
            seen.add(tuple(getattr(c, n) for n in names))
    assert len(seen) == 37  # push + 9 alpha_beta + 27 hub_ratio


def test_validation_block_and_small_frontier_exhaustive():
    seen = set()
    for bs, sf, fl in itertools.product(CAND["block_size"], CAND["small_frontier"], CAND["frontier_limit"]):
        c = _check_against_rule(dict(block_size=bs, small_frontier=sf, frontier_limit=fl))
        if c is not None:
            seen.add((c.block_size, c.small_frontier, c.frontier_limit))
    assert len(seen) == 4 * 4


@settings(max_examples=500, deadline=None)
@given(st.fixed_dictionaries({n: st.sampled_from(CAND[n]) for n in FIELD_ORDER}))
def test_validation_matches_design_rule(kwargs):
    _check_against_rule(kwargs)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ALL), st.data())
def test_validation_near_valid_configs(c, data):
    """Start from a valid config, respell some fields as None and perturb one field: the rule decides."""
    kwargs = c.to_dict()
    for name in data.draw(st.sets(st.sampled_from(FIELD_ORDER)), label="as_none"):
        kwargs[name] = None
    name = data.draw(st.sampled_from(FIELD_ORDER), label="perturbed")
    kwargs[name] = data.draw(st.sampled_from(CAND[name]), label="value")
    _check_against_rule(kwargs)


@pytest.mark.parametrize("field, value, context, allowed", [
    ("load_balance", "scan_mapped", {}, "'vertex_mapped', 'binary_search'"),
    ("virtual_warp_size", 3, {}, "1, 2, 4, 8, 16, 32, 'dynamic'"),
    ("virtual_warp_size", "32", {}, "1, 2, 4, 8, 16, 32, 'dynamic'"),
    ("min_virtual_warp_size", 64, {}, "1, 2, 4, 8, 16, 32"),
    ("block_size", 100, {}, "128, 256, 512, 1024"),
    ("direction", "pull", {}, "'push', 'push_pull'"),
    ("switch_rule", "enterprise", {"direction": "push_pull"}, "'alpha_beta', 'hub_ratio'"),
    ("alpha", 14, {"direction": "push_pull"}, "4, 15, 60"),
    ("beta", 0, {"direction": "push_pull"}, "6, 18, 48"),
    ("beta", 20, {"direction": "push_pull", "switch_rule": "hub_ratio"}, "6, 18, 48"),
    ("gamma", 0.2, {"direction": "push_pull", "switch_rule": "hub_ratio"}, "0.1, 0.3, 0.5"),
    ("hub_degree", 100, {"direction": "push_pull", "switch_rule": "hub_ratio"}, "64, 512, 4096"),
    ("small_frontier", "multi_block", {}, "'none', 'single_block'"),
    ("frontier_limit", 1024, {}, "512, 2048, 8192"),
])
def test_invalid_value_names_field_value_and_allowed(field, value, context, allowed):
    with pytest.raises(ValueError) as info:
        TraversalConfig(**context, **{field: value})
    msg = str(info.value)
    assert f"TraversalConfig.{field}" in msg and repr(value) in msg and allowed in msg


PP = {"direction": "push_pull"}
HUB = {"direction": "push_pull", "switch_rule": "hub_ratio"}


@pytest.mark.parametrize("field, value, context", [
    ("virtual_warp_size", True, {}), ("virtual_warp_size", 4.0, {}), ("block_size", 256.0, {}),
    ("block_size", True, {}), ("min_virtual_warp_size", 4.0, {}),
    ("alpha", 15.0, PP), ("alpha", True, PP), ("beta", 18.0, PP), ("beta", True, HUB),
    ("hub_degree", 512.0, HUB), ("gamma", "0.3", HUB), ("gamma", 0, HUB),
    ("frontier_limit", 2048.0, {}), ("frontier_limit", True, {}),
])
def test_exact_types_required(field, value, context):
    """4.0 or True would compare equal to a valid int but change the canonical JSON."""
    with pytest.raises(ValueError, match=f"TraversalConfig.{field}"):
        TraversalConfig(**context, **{field: value})


def test_numpy_scalars_normalised():
    c = TraversalConfig(virtual_warp_size=np.int64(8), block_size=np.int32(512), load_balance=np.str_("vertex_mapped"))
    assert type(c.virtual_warp_size) is int and type(c.block_size) is int and type(c.load_balance) is str
    assert c == TraversalConfig(virtual_warp_size=8, block_size=512)
    assert c.config_id == TraversalConfig(virtual_warp_size=8, block_size=512).config_id
    c = TraversalConfig(direction=np.str_("push_pull"), switch_rule=np.str_("alpha_beta"), alpha=np.int64(60),
                        beta=np.int16(6), frontier_limit=np.int32(512))
    assert all(type(getattr(c, n)) in (int, str) for n in ("direction", "switch_rule", "alpha", "beta",
                                                              "frontier_limit"))
    assert c.to_json() == TraversalConfig(direction="push_pull", alpha=60, beta=6, frontier_limit=512).to_json()
    c = TraversalConfig(direction="push_pull", switch_rule="hub_ratio", hub_degree=np.uint16(4096),
                        small_frontier=np.str_("none"))
    assert type(c.hub_degree) is int and type(c.small_frontier) is str
    assert c.config_id == TraversalConfig(direction="push_pull", switch_rule="hub_ratio", hub_degree=4096,
                                          small_frontier="none").config_id


def test_none_not_allowed_for_unconditional_fields():
    for field in UNCONDITIONAL:
        with pytest.raises(ValueError, match=f"TraversalConfig.{field}: None is not allowed"):
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
    assert c.frontier_limit == 2048


def test_neutral_values_filled_direction_and_small_frontier():
    c = TraversalConfig()
    assert (c.direction, c.switch_rule, c.alpha, c.beta, c.gamma, c.hub_degree) == ("push", None, None, None, None, None)
    assert (c.small_frontier, c.frontier_limit) == ("single_block", 2048)
    c = TraversalConfig(direction="push_pull")
    assert (c.switch_rule, c.alpha, c.beta, c.gamma, c.hub_degree) == ("alpha_beta", 15, 18, None, None)
    c = TraversalConfig(direction="push_pull", alpha=4)
    assert (c.switch_rule, c.alpha, c.beta) == ("alpha_beta", 4, 18)
    c = TraversalConfig(direction="push_pull", switch_rule="hub_ratio")
    assert (c.alpha, c.beta, c.gamma, c.hub_degree) == (None, 18, 0.3, 512)
    assert type(c.gamma) is float
    c = TraversalConfig(direction="push_pull", switch_rule="hub_ratio", gamma=0.5, beta=6)
    assert (c.gamma, c.hub_degree, c.beta) == (0.5, 512, 6)
    c = TraversalConfig(small_frontier="none")
    assert c.frontier_limit is None
    c = TraversalConfig(frontier_limit=512)
    assert c.small_frontier == "single_block" and c.frontier_limit == 512


@pytest.mark.parametrize("kwargs, label", [
    ({}, "vertex_mapped/vw=dynamic(min4)/b256/push/sb2048"),
    (dict(load_balance="binary_search"), "binary_search/b256/push/sb2048"),
    (dict(load_balance="binary_search", small_frontier="none"), "binary_search/b256/push"),
    (dict(virtual_warp_size=8, block_size=1024, small_frontier="none"), "vertex_mapped/vw=8/b1024/push"),
    (dict(min_virtual_warp_size=16, frontier_limit=8192), "vertex_mapped/vw=dynamic(min16)/b256/push/sb8192"),
    (dict(direction="push_pull"), "vertex_mapped/vw=dynamic(min4)/b256/push_pull(a15,b18)/sb2048"),
    (dict(direction="push_pull", alpha=60, beta=6, frontier_limit=512),
     "vertex_mapped/vw=dynamic(min4)/b256/push_pull(a60,b6)/sb512"),
    (dict(direction="push_pull", switch_rule="hub_ratio"),
     "vertex_mapped/vw=dynamic(min4)/b256/push_pull(g0.3,t512,b18)/sb2048"),
    (dict(load_balance="binary_search", block_size=128, direction="push_pull", switch_rule="hub_ratio", gamma=0.1,
          hub_degree=4096, beta=48, small_frontier="none"),
     "binary_search/b128/push_pull(g0.1,t4096,b48)"),
])
def test_labels(kwargs, label):
    assert TraversalConfig(**kwargs).label == label


def test_labels_all_configs():
    for c in ALL:
        assert c.label == expected_label(c)


@pytest.mark.parametrize("kwargs, field, value, context", [
    (dict(load_balance="binary_search", virtual_warp_size=4), "virtual_warp_size", 4, "load_balance='binary_search'"),
    (dict(load_balance="binary_search", min_virtual_warp_size=4), "min_virtual_warp_size", 4, "virtual_warp_size=None"),
    (dict(virtual_warp_size=8, min_virtual_warp_size=2), "min_virtual_warp_size", 2, "virtual_warp_size=8"),
    (dict(switch_rule="alpha_beta"), "switch_rule", "alpha_beta", "direction='push'"),
    (dict(switch_rule="hub_ratio"), "switch_rule", "hub_ratio", "direction='push'"),
    (dict(alpha=15), "alpha", 15, "switch_rule=None"),
    (dict(beta=18), "beta", 18, "direction='push'"),
    (dict(gamma=0.5), "gamma", 0.5, "switch_rule=None"),
    (dict(hub_degree=64), "hub_degree", 64, "switch_rule=None"),
    (dict(direction="push_pull", switch_rule="hub_ratio", alpha=15), "alpha", 15, "switch_rule='hub_ratio'"),
    (dict(direction="push_pull", gamma=0.3), "gamma", 0.3, "switch_rule='alpha_beta'"),
    (dict(direction="push_pull", switch_rule="alpha_beta", hub_degree=512), "hub_degree", 512,
     "switch_rule='alpha_beta'"),
    (dict(small_frontier="none", frontier_limit=2048), "frontier_limit", 2048, "small_frontier='none'"),
    # a value that would be invalid anyway is reported as not applying
    (dict(small_frontier="none", frontier_limit=7), "frontier_limit", 7, "small_frontier='none'"),
])
def test_inapplicable_field_rejected_naming_it(kwargs, field, value, context):
    with pytest.raises(ValueError) as info:
        TraversalConfig(**kwargs)
    msg = str(info.value)
    assert f"TraversalConfig.{field}={value!r} does not apply" in msg
    assert context in msg and "leave it None" in msg
    assert DEPENDS_ON[field] in msg.split("applies only when", 1)[1]


def test_equal_strategies_equal_configs():
    """Neutral values make spelling differences disappear (the classifier's labels depend on it)."""
    a = TraversalConfig()
    b = TraversalConfig(load_balance="vertex_mapped", virtual_warp_size="dynamic", min_virtual_warp_size=4,
                        direction="push", small_frontier="single_block", frontier_limit=2048)
    assert a == b and hash(a) == hash(b) and a.config_id == b.config_id
    assert len({a, b, TraversalConfig(virtual_warp_size=8)}) == 2
    p = TraversalConfig(direction="push_pull")
    q = TraversalConfig(direction="push_pull", switch_rule="alpha_beta", alpha=15, beta=18)
    assert p == q and hash(p) == hash(q) and p.config_id == q.config_id
    h = TraversalConfig(direction="push_pull", switch_rule="hub_ratio")
    k = TraversalConfig(direction="push_pull", switch_rule="hub_ratio", gamma=0.3, hub_degree=512, beta=18)
    assert h == k and h.config_id == k.config_id
    assert len({a, p, h, TraversalConfig(small_frontier="none")}) == 4


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


def test_with_direction_transitions():
    c = default_config()
    pp = c.with_(direction="push_pull")
    assert pp == TraversalConfig(direction="push_pull")
    assert (pp.switch_rule, pp.alpha, pp.beta, pp.gamma, pp.hub_degree) == ("alpha_beta", 15, 18, None, None)
    # push_pull -> push drops every switch knob
    hub = TraversalConfig(direction="push_pull", switch_rule="hub_ratio", gamma=0.5, hub_degree=64, beta=48,
                          block_size=512, frontier_limit=8192)
    push = hub.with_(direction="push")
    assert (push.switch_rule, push.alpha, push.beta, push.gamma, push.hub_degree) == (None,) * 5
    assert push == TraversalConfig(block_size=512, frontier_limit=8192)
    ab = TraversalConfig(direction="push_pull", alpha=60, beta=6)
    assert ab.with_(direction="push") == default_config()
    # ... and back to push_pull refills defaults (nothing is remembered)
    assert ab.with_(direction="push").with_(direction="push_pull") == pp
    # alpha_beta -> hub_ratio drops alpha, fills gamma / hub_degree, keeps beta
    h = ab.with_(switch_rule="hub_ratio")
    assert (h.switch_rule, h.alpha, h.gamma, h.hub_degree, h.beta) == ("hub_ratio", None, 0.3, 512, 6)
    # hub_ratio -> alpha_beta drops gamma / hub_degree, fills alpha, keeps beta
    a = hub.with_(switch_rule="alpha_beta")
    assert (a.switch_rule, a.alpha, a.gamma, a.hub_degree, a.beta) == ("alpha_beta", 15, None, None, 48)
    assert (a.block_size, a.frontier_limit) == (512, 8192)
    # knobs untouched while they still apply
    assert ab.with_(alpha=4) == TraversalConfig(direction="push_pull", alpha=4, beta=6)
    assert ab.with_(block_size=1024, load_balance="binary_search").alpha == 60
    assert hub.with_(beta=18).gamma == 0.5 and hub.with_(gamma=0.1).hub_degree == 64
    # switching rule and giving the new rule's knobs at once
    assert ab.with_(switch_rule="hub_ratio", gamma=0.1, hub_degree=4096) == TraversalConfig(
        direction="push_pull", switch_rule="hub_ratio", gamma=0.1, hub_degree=4096, beta=6)


def test_with_small_frontier_transitions():
    c = TraversalConfig(frontier_limit=8192)
    none = c.with_(small_frontier="none")
    assert none.frontier_limit is None and none == TraversalConfig(small_frontier="none")
    assert none.with_(small_frontier="single_block").frontier_limit == 2048  # refilled default
    assert c.with_(direction="push_pull").frontier_limit == 8192
    assert none.with_(small_frontier="single_block", frontier_limit=512).frontier_limit == 512


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
    with pytest.raises(ValueError, match="TraversalConfig.alpha=15 does not apply"):
        c.with_(alpha=15)
    with pytest.raises(ValueError, match="TraversalConfig.switch_rule='hub_ratio' does not apply"):
        c.with_(switch_rule="hub_ratio")
    ab = TraversalConfig(direction="push_pull", alpha=60)
    with pytest.raises(ValueError, match="TraversalConfig.alpha=60 does not apply"):
        ab.with_(switch_rule="hub_ratio", alpha=60)
    with pytest.raises(ValueError, match="TraversalConfig.beta=6 does not apply"):
        ab.with_(direction="push", beta=6)
    with pytest.raises(ValueError, match="TraversalConfig.gamma"):
        ab.with_(switch_rule="hub_ratio", gamma=0.2)
    with pytest.raises(ValueError, match="TraversalConfig.frontier_limit=512 does not apply"):
        c.with_(small_frontier="none", frontier_limit=512)
    with pytest.raises(ValueError, match="TraversalConfig.direction"):
        c.with_(direction="pull")


def _closure(fields):
    """*fields* plus every field their applicability depends on (transitively)."""
    out = set(fields)
    while True:
        more = {DEPENDS_ON[f] for f in out if f in DEPENDS_ON} - out
        if not more:
            return out
        out |= more


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ALL), st.sampled_from(ALL), st.sets(st.sampled_from(FIELD_ORDER)))
def test_with_moves_between_any_two_configs(a, b, fields):
    """Changing every field that differs reaches b; changing a dependency-closed subset gives a valid config
    that takes b's named values, keeps a's still-applicable ones, and defaults / neutralises the rest."""
    diff = {k: v for k, v in b.to_dict().items() if getattr(a, k) != v}
    assert a.with_(**diff) == b
    assert a.with_(**b.to_dict()) == b
    named = _closure(fields)
    r = a.with_(**{k: getattr(b, k) for k in named})
    assert r in ALL_SET
    rd, ad = r.to_dict(), a.to_dict()
    for k in FIELD_ORDER:
        if k in named:
            assert rd[k] == getattr(b, k), k
        elif k not in APPLIES:
            assert rd[k] == ad[k], k
        elif not APPLIES[k](rd):
            assert rd[k] is None, k
        elif APPLIES[k](ad):
            assert rd[k] == ad[k], k
        else:
            assert rd[k] == DEFAULTS[k], k


def test_frozen_and_hashable():
    c = default_config()
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.block_size = 512
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.alpha = 15
    assert {c: 1}[TraversalConfig()] == 1


# --------------------------------------------------------------------------- serialisation
@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ALL))
def test_json_round_trip(c):
    s = c.to_json()
    assert TraversalConfig.from_json(s) == c
    assert TraversalConfig.from_dict(c.to_dict()) == c
    assert TraversalConfig.from_dict(json.loads(s)) == c
    assert json.loads(s) == c.to_dict()
    assert tuple(sorted(json.loads(s))) == tuple(sorted(FIELD_ORDER))  # every field, null when neutral
    assert s == json.dumps(c.to_dict(), sort_keys=True, separators=(",", ":"))
    back = TraversalConfig.from_json(s)
    assert back.config_id == c.config_id and back.label == c.label
    assert all(type(getattr(back, n)) is type(getattr(c, n)) for n in FIELD_ORDER)
    assert c.config_id == _canonical_id(c.to_dict())
    assert c.config_id.startswith("c-") and len(c.config_id) == 14
    int(c.config_id[2:], 16)


def test_json_float_gamma_round_trip():
    for g in GAMMAS:
        c = TraversalConfig(direction="push_pull", switch_rule="hub_ratio", gamma=g)
        assert f'"gamma":{g}' in c.to_json()
        back = TraversalConfig.from_json(c.to_json())
        assert back.gamma == g and type(back.gamma) is float and back == c


def test_from_json_rejects_wrong_json_types():
    d = TraversalConfig(direction="push_pull").to_dict()
    with pytest.raises(ValueError, match="TraversalConfig.alpha"):
        TraversalConfig.from_json(json.dumps({**d, "alpha": 15.0}))
    with pytest.raises(ValueError, match="TraversalConfig.frontier_limit"):
        TraversalConfig.from_json(json.dumps({**d, "frontier_limit": "2048"}))


def test_from_dict_unknown_key_named():
    d = default_config().to_dict()
    with pytest.raises(ValueError, match="'warp_gathering'"):
        TraversalConfig.from_dict({**d, "warp_gathering": True})


def test_from_dict_partial_uses_defaults():
    assert TraversalConfig.from_dict({}) == default_config()
    assert TraversalConfig.from_dict({"load_balance": "binary_search"}).virtual_warp_size is None
    assert TraversalConfig.from_dict({"direction": "push_pull"}) == TraversalConfig(
        direction="push_pull", switch_rule="alpha_beta", alpha=15, beta=18)
    c = TraversalConfig.from_dict({"direction": "push_pull", "switch_rule": "hub_ratio"})
    assert (c.alpha, c.beta, c.gamma, c.hub_degree) == (None, 18, 0.3, 512)
    assert TraversalConfig.from_dict({"small_frontier": "none"}).frontier_limit is None
    # a config written before push_pull / small_frontier existed loads as today's default
    old = TraversalConfig.from_json(OLD_DEFAULT_JSON)
    assert old == default_config() and old.config_id == DEFAULT_ID


def test_from_json_rejects_non_object():
    with pytest.raises(ValueError, match="JSON object"):
        TraversalConfig.from_json("[1, 2]")


def test_distinct_configs_distinct_ids():
    ids = {}
    for c in ALL:
        assert ids.setdefault(c.config_id, c) == c
        assert TraversalConfig.from_json(c.to_json()) == c
    assert len(ids) == N_CONFIGS
