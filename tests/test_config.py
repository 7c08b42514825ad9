"""TraversalConfig: validation, neutral values, JSON round trip, hashing, config_id, labels, with_,
and the enumeration (iter_configs / count_configs) of the 20,687,616-config table."""
from __future__ import annotations

import dataclasses
import hashlib
import itertools
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from autotune import config as config_module
from autotune.config import TraversalConfig, count_configs, default_config, iter_configs

# --------------------------------------------------------------------------- the design table
# Written out here, independently of ``autotune.config._FIELDS``: the tests compare the module
# against these literals (and test_module_constants_match_design pins the module's constants).
FIELD_ORDER = ("load_balance", "virtual_warp_size", "min_virtual_warp_size", "defer_outliers", "work_chunk",
               "warp_gathering", "block_gathering", "supplementary_queues", "chunk_size", "dc_small", "dc_middle",
               "dc_large", "block_size", "duplicate_culling", "direction", "switch_rule", "alpha", "beta", "gamma",
               "hub_degree", "hub_cache", "small_frontier", "frontier_limit")
LB = ("vertex_mapped", "scan_mapped", "binary_search", "degree_classified", "edge_mapped")
VW = (1, 2, 4, 8, 16, 32, "dynamic")
MVW = (1, 2, 4, 8, 16, 32)
DEFER = ("off", 256, 2048, 16384)
WCH = ("static", 32, 256)
WG = ("off", 32, 128)
BG = ("off", "block_size", 4096)
SQ = ("off", "half_resident", 65536)
CHUNK = ("dynamic", 2048)
DCS = (16, 32, 64)
DCM = (128, 256, 1024)
DCL = (4096, 65536)
BS = (128, 256, 512, 1024)
CULL = ("none", "hash")
DIRS = ("push", "push_pull")
RULES = ("alpha_beta", "hub_ratio")
ALPHAS = (4, 15, 60)
BETAS = (6, 18, 48)
GAMMAS = (0.1, 0.3, 0.5)
HUBS = (64, 512, 4096)
HUBC = ("off", "on")
SF = ("none", "single_block", "persistent")
FLS = (512, 2048, 8192, 32768)

#: Allowed values of every field (when it applies), in table order.
VALUES = {"load_balance": LB, "virtual_warp_size": VW, "min_virtual_warp_size": MVW, "defer_outliers": DEFER,
          "work_chunk": WCH, "warp_gathering": WG, "block_gathering": BG, "supplementary_queues": SQ,
          "chunk_size": CHUNK, "dc_small": DCS, "dc_middle": DCM, "dc_large": DCL, "block_size": BS,
          "duplicate_culling": CULL, "direction": DIRS, "switch_rule": RULES, "alpha": ALPHAS, "beta": BETAS,
          "gamma": GAMMAS, "hub_degree": HUBS, "hub_cache": HUBC, "small_frontier": SF, "frontier_limit": FLS}
SUPPORTS = ("warp_gathering", "block_gathering", "supplementary_queues")
DC = ("dc_small", "dc_middle", "dc_large")
UNCONDITIONAL = ("load_balance", "block_size", "duplicate_culling", "direction", "small_frontier")
#: When each conditional field applies (on the effective values) and what it takes then by default.
APPLIES = {
    "virtual_warp_size": lambda v: v["load_balance"] == "vertex_mapped",
    "min_virtual_warp_size": lambda v: v["virtual_warp_size"] == "dynamic",
    "defer_outliers": lambda v: v["load_balance"] == "vertex_mapped",
    "work_chunk": lambda v: v["load_balance"] == "vertex_mapped",
    "warp_gathering": lambda v: v["load_balance"] in ("vertex_mapped", "scan_mapped"),
    "block_gathering": lambda v: v["load_balance"] in ("vertex_mapped", "scan_mapped"),
    "supplementary_queues": lambda v: v["load_balance"] in ("vertex_mapped", "scan_mapped"),
    "chunk_size": lambda v: v["load_balance"] == "binary_search",
    "dc_small": lambda v: v["load_balance"] == "degree_classified",
    "dc_middle": lambda v: v["load_balance"] == "degree_classified",
    "dc_large": lambda v: v["load_balance"] == "degree_classified",
    "switch_rule": lambda v: v["direction"] == "push_pull",
    "alpha": lambda v: v["switch_rule"] == "alpha_beta",
    "beta": lambda v: v["direction"] == "push_pull",
    "gamma": lambda v: v["switch_rule"] == "hub_ratio",
    "hub_degree": lambda v: v["switch_rule"] == "hub_ratio",
    "hub_cache": lambda v: v["direction"] == "push_pull",
    "frontier_limit": lambda v: v["small_frontier"] in ("single_block", "persistent"),
}
DEPENDS_ON = {"virtual_warp_size": "load_balance", "min_virtual_warp_size": "virtual_warp_size",
              "defer_outliers": "load_balance", "work_chunk": "load_balance", "warp_gathering": "load_balance",
              "block_gathering": "load_balance", "supplementary_queues": "load_balance",
              "chunk_size": "load_balance", "dc_small": "load_balance", "dc_middle": "load_balance",
              "dc_large": "load_balance", "switch_rule": "direction", "alpha": "switch_rule", "beta": "direction",
              "gamma": "switch_rule", "hub_degree": "switch_rule", "hub_cache": "direction",
              "frontier_limit": "small_frontier"}
DEFAULTS = {"load_balance": "vertex_mapped", "virtual_warp_size": "dynamic", "min_virtual_warp_size": 4,
            "defer_outliers": "off", "work_chunk": "static", "warp_gathering": "off", "block_gathering": "off",
            "supplementary_queues": "off", "chunk_size": "dynamic", "dc_small": 32, "dc_middle": 256,
            "dc_large": 65536, "block_size": 256, "duplicate_culling": "none", "direction": "push",
            "switch_rule": "alpha_beta", "alpha": 15, "beta": 18, "gamma": 0.3, "hub_degree": 512,
            "hub_cache": "off", "small_frontier": "single_block", "frontier_limit": 2048}
#: The table size, group by group (see test_count_configs_full_table).
N_CONFIGS = 20_687_616
DEFAULT_JSON = ('{"alpha":null,"beta":null,"block_gathering":"off","block_size":256,"chunk_size":null,'
                '"dc_large":null,"dc_middle":null,"dc_small":null,"defer_outliers":"off","direction":"push",'
                '"duplicate_culling":"none","frontier_limit":2048,"gamma":null,"hub_cache":null,"hub_degree":null,'
                '"load_balance":"vertex_mapped","min_virtual_warp_size":4,"small_frontier":"single_block",'
                '"supplementary_queues":"off","switch_rule":null,"virtual_warp_size":"dynamic",'
                '"warp_gathering":"off","work_chunk":"static"}')
DEFAULT_ID = "c-3cbd572c198f"
PINNED = [
    ({}, DEFAULT_JSON, DEFAULT_ID),
    (dict(direction="push_pull"),
     '{"alpha":15,"beta":18,"block_gathering":"off","block_size":256,"chunk_size":null,"dc_large":null,'
     '"dc_middle":null,"dc_small":null,"defer_outliers":"off","direction":"push_pull",'
     '"duplicate_culling":"none","frontier_limit":2048,"gamma":null,"hub_cache":"off","hub_degree":null,'
     '"load_balance":"vertex_mapped","min_virtual_warp_size":4,"small_frontier":"single_block",'
     '"supplementary_queues":"off","switch_rule":"alpha_beta","virtual_warp_size":"dynamic",'
     '"warp_gathering":"off","work_chunk":"static"}',
     "c-73cdcdd38b83"),
    (dict(direction="push_pull", switch_rule="hub_ratio"),
     '{"alpha":null,"beta":18,"block_gathering":"off","block_size":256,"chunk_size":null,"dc_large":null,'
     '"dc_middle":null,"dc_small":null,"defer_outliers":"off","direction":"push_pull",'
     '"duplicate_culling":"none","frontier_limit":2048,"gamma":0.3,"hub_cache":"off","hub_degree":512,'
     '"load_balance":"vertex_mapped","min_virtual_warp_size":4,"small_frontier":"single_block",'
     '"supplementary_queues":"off","switch_rule":"hub_ratio","virtual_warp_size":"dynamic",'
     '"warp_gathering":"off","work_chunk":"static"}',
     "c-0b607b6da436"),
    (dict(load_balance="binary_search", small_frontier="none"),
     '{"alpha":null,"beta":null,"block_gathering":null,"block_size":256,"chunk_size":"dynamic",'
     '"dc_large":null,"dc_middle":null,"dc_small":null,"defer_outliers":null,"direction":"push",'
     '"duplicate_culling":"none","frontier_limit":null,"gamma":null,"hub_cache":null,"hub_degree":null,'
     '"load_balance":"binary_search","min_virtual_warp_size":null,"small_frontier":"none",'
     '"supplementary_queues":null,"switch_rule":null,"virtual_warp_size":null,"warp_gathering":null,'
     '"work_chunk":null}',
     "c-3313f6e7ce2d"),
    (dict(virtual_warp_size=8, block_size=1024, direction="push_pull", switch_rule="hub_ratio", gamma=0.1,
          hub_degree=4096, beta=48, frontier_limit=8192),
     '{"alpha":null,"beta":48,"block_gathering":"off","block_size":1024,"chunk_size":null,"dc_large":null,'
     '"dc_middle":null,"dc_small":null,"defer_outliers":"off","direction":"push_pull",'
     '"duplicate_culling":"none","frontier_limit":8192,"gamma":0.1,"hub_cache":"off","hub_degree":4096,'
     '"load_balance":"vertex_mapped","min_virtual_warp_size":null,"small_frontier":"single_block",'
     '"supplementary_queues":"off","switch_rule":"hub_ratio","virtual_warp_size":8,"warp_gathering":"off",'
     '"work_chunk":"static"}',
     "c-f0a7ef5260b2"),
    (dict(load_balance="scan_mapped", warp_gathering=32, block_gathering="block_size",
          supplementary_queues="half_resident", duplicate_culling="hash"),
     '{"alpha":null,"beta":null,"block_gathering":"block_size","block_size":256,"chunk_size":null,'
     '"dc_large":null,"dc_middle":null,"dc_small":null,"defer_outliers":null,"direction":"push",'
     '"duplicate_culling":"hash","frontier_limit":2048,"gamma":null,"hub_cache":null,"hub_degree":null,'
     '"load_balance":"scan_mapped","min_virtual_warp_size":null,"small_frontier":"single_block",'
     '"supplementary_queues":"half_resident","switch_rule":null,"virtual_warp_size":null,'
     '"warp_gathering":32,"work_chunk":null}',
     "c-7cbe8ff43a84"),
    (dict(load_balance="degree_classified", dc_small=16, dc_middle=1024, dc_large=4096, direction="push_pull",
          hub_cache="on"),
     '{"alpha":15,"beta":18,"block_gathering":null,"block_size":256,"chunk_size":null,"dc_large":4096,'
     '"dc_middle":1024,"dc_small":16,"defer_outliers":null,"direction":"push_pull",'
     '"duplicate_culling":"none","frontier_limit":2048,"gamma":null,"hub_cache":"on","hub_degree":null,'
     '"load_balance":"degree_classified","min_virtual_warp_size":null,"small_frontier":"single_block",'
     '"supplementary_queues":null,"switch_rule":"alpha_beta","virtual_warp_size":null,'
     '"warp_gathering":null,"work_chunk":null}',
     "c-2cab543de210"),
    (dict(load_balance="edge_mapped", small_frontier="persistent", frontier_limit=32768),
     '{"alpha":null,"beta":null,"block_gathering":null,"block_size":256,"chunk_size":null,"dc_large":null,'
     '"dc_middle":null,"dc_small":null,"defer_outliers":null,"direction":"push",'
     '"duplicate_culling":"none","frontier_limit":32768,"gamma":null,"hub_cache":null,"hub_degree":null,'
     '"load_balance":"edge_mapped","min_virtual_warp_size":null,"small_frontier":"persistent",'
     '"supplementary_queues":null,"switch_rule":null,"virtual_warp_size":null,"warp_gathering":null,'
     '"work_chunk":null}',
     "c-1bf4c22fc1b5"),
    (dict(virtual_warp_size=4, defer_outliers=2048, work_chunk=32, block_size=512),
     '{"alpha":null,"beta":null,"block_gathering":"off","block_size":512,"chunk_size":null,'
     '"dc_large":null,"dc_middle":null,"dc_small":null,"defer_outliers":2048,"direction":"push",'
     '"duplicate_culling":"none","frontier_limit":2048,"gamma":null,"hub_cache":null,"hub_degree":null,'
     '"load_balance":"vertex_mapped","min_virtual_warp_size":null,"small_frontier":"single_block",'
     '"supplementary_queues":"off","switch_rule":null,"virtual_warp_size":4,"warp_gathering":"off",'
     '"work_chunk":32}',
     "c-ee947c455f53"),
    (dict(load_balance="binary_search", chunk_size=2048),
     '{"alpha":null,"beta":null,"block_gathering":null,"block_size":256,"chunk_size":2048,"dc_large":null,'
     '"dc_middle":null,"dc_small":null,"defer_outliers":null,"direction":"push",'
     '"duplicate_culling":"none","frontier_limit":2048,"gamma":null,"hub_cache":null,"hub_degree":null,'
     '"load_balance":"binary_search","min_virtual_warp_size":null,"small_frontier":"single_block",'
     '"supplementary_queues":null,"switch_rule":null,"virtual_warp_size":null,"warp_gathering":null,'
     '"work_chunk":null}',
     "c-727d6aedb744"),
]
#: The default's canonical JSON before the strategy table grew (12 fields; its id was c-a9ecd7a1d16f,
#: the id the committed log models/bfs_h100.jsonl records for it).
PREV_DEFAULT_JSON = ('{"alpha":null,"beta":null,"block_size":256,"direction":"push","frontier_limit":2048,'
                     '"gamma":null,"hub_degree":null,"load_balance":"vertex_mapped","min_virtual_warp_size":4,'
                     '"small_frontier":"single_block","switch_rule":null,"virtual_warp_size":"dynamic"}')
PREV_DEFAULT_ID = "c-a9ecd7a1d16f"
#: Before push_pull / small_frontier existed the default's canonical JSON was this (id c-48fac1f0ac08).
OLD_DEFAULT_JSON = ('{"block_size":256,"direction":"push","load_balance":"vertex_mapped",'
                    '"min_virtual_warp_size":4,"virtual_warp_size":"dynamic"}')


def _in(value, allowed):
    """Membership with exact types (True is not 1, 4.0 is not 4)."""
    return any(type(value) is type(a) and value == a for a in allowed)


class _Invalid(Exception):
    pass


_MISSING = object()


def expected_fields(**kwargs):
    """The rule of the design table, written independently of the validation table.

    *kwargs* are field values (any subset of FIELD_ORDER; a missing field is "not given"). Returns the
    effective field values (neutral ``None`` where a field does not apply, its default where it
    applies and was not given) or ``None`` when the arguments are invalid.
    """
    unknown = set(kwargs) - set(FIELD_ORDER)
    assert not unknown, unknown
    out = {}

    def always(name):  # unconditional: given or default, never None
        v = kwargs.get(name, _MISSING)
        v = DEFAULTS[name] if v is _MISSING else v
        if not _in(v, VALUES[name]):
            raise _Invalid(name)
        out[name] = v
        return v

    def when(name, applies):  # conditional: None when it does not apply, else given or default
        v = kwargs.get(name)
        if not applies:
            if v is not None:
                raise _Invalid(name)
        else:
            v = DEFAULTS[name] if v is None else v
            if not _in(v, VALUES[name]):
                raise _Invalid(name)
        out[name] = v
        return v

    try:
        lb = always("load_balance")
        # virtual warps: vertex_mapped only; the minimum clamp only with the dynamic size
        vw = when("virtual_warp_size", lb == "vertex_mapped")
        when("min_virtual_warp_size", vw == "dynamic")
        # Hong et al. options: vertex_mapped only
        when("defer_outliers", lb == "vertex_mapped")
        when("work_chunk", lb == "vertex_mapped")
        # support strategies: vertex- and scan-based mapping only
        for name in SUPPORTS:
            when(name, lb in ("vertex_mapped", "scan_mapped"))
        when("chunk_size", lb == "binary_search")
        for name in DC:
            when(name, lb == "degree_classified")
        always("block_size")
        always("duplicate_culling")
        # direction: push has no switch knobs; push_pull has a rule, beta, the hub cache and the rule's knobs
        d = always("direction")
        sr = when("switch_rule", d == "push_pull")
        when("alpha", sr == "alpha_beta")
        when("beta", d == "push_pull")
        when("gamma", sr == "hub_ratio")
        when("hub_degree", sr == "hub_ratio")
        when("hub_cache", d == "push_pull")
        # small frontier: a limit with the single-block and the persistent kernels
        sf = always("small_frontier")
        when("frontier_limit", sf in ("single_block", "persistent"))
    except _Invalid:
        return None
    return {name: out[name] for name in FIELD_ORDER}


def expected_valid(**kwargs) -> bool:
    return expected_fields(**kwargs) is not None


def expected_label(c: TraversalConfig) -> str:
    s = c.load_balance
    if c.load_balance == "vertex_mapped":
        s += f"/vw={c.virtual_warp_size}"
        if c.virtual_warp_size == "dynamic":
            s += f"(min{c.min_virtual_warp_size})"
        if c.defer_outliers != "off":
            s += f"/defer={c.defer_outliers}"
        if c.work_chunk != "static":
            s += f"/chunk={c.work_chunk}"
    if c.load_balance in ("vertex_mapped", "scan_mapped"):
        for name, short in zip(SUPPORTS, ("wg", "bg", "sq")):
            if getattr(c, name) != "off":
                s += f"/{short}={getattr(c, name)}"
    if c.load_balance == "binary_search":
        s += f"/chunk={c.chunk_size}"
    if c.load_balance == "degree_classified":
        s += f"/dc={c.dc_small},{c.dc_middle},{c.dc_large}"
    s += f"/b{c.block_size}"
    if c.duplicate_culling == "hash":
        s += "/cull=hash"
    if c.direction == "push":
        s += "/push"
    elif c.switch_rule == "alpha_beta":
        s += f"/push_pull(a{c.alpha},b{c.beta})"
    else:
        s += f"/push_pull(g{c.gamma},t{c.hub_degree},b{c.beta})"
    if c.hub_cache == "on":
        s += "/hubcache"
    if c.small_frontier == "single_block":
        s += f"/sb{c.frontier_limit}"
    elif c.small_frontier == "persistent":
        s += f"/persist{c.frontier_limit}"
    return s


# --------------------------------------------------------------------------- enumeration, independently
def _expected_iter(V=VALUES):
    """Every valid config (as dicts) in table order, enumerated group by group from the design table
    (with allowed values *V*), lazily; not from the module."""
    none = dict.fromkeys(FIELD_ORDER)

    def technique():
        for lb in V["load_balance"]:
            if lb == "vertex_mapped":
                for vw in V["virtual_warp_size"]:
                    for m in (V["min_virtual_warp_size"] if vw == "dynamic" else (None,)):
                        for rest in itertools.product(V["defer_outliers"], V["work_chunk"],
                                                      *(V[n] for n in SUPPORTS)):
                            yield dict(zip(("load_balance", "virtual_warp_size", "min_virtual_warp_size",
                                            "defer_outliers", "work_chunk") + SUPPORTS, (lb, vw, m) + rest))
            elif lb == "scan_mapped":
                for sup in itertools.product(*(V[n] for n in SUPPORTS)):
                    yield dict(zip(("load_balance",) + SUPPORTS, (lb,) + sup))
            elif lb == "binary_search":
                for ch in V["chunk_size"]:
                    yield dict(load_balance=lb, chunk_size=ch)
            elif lb == "degree_classified":
                for dc in itertools.product(*(V[n] for n in DC)):
                    yield dict(zip(("load_balance",) + DC, (lb,) + dc))
            else:
                yield dict(load_balance=lb)

    def directions():
        for d in V["direction"]:
            if d == "push":
                yield dict(direction=d)
                continue
            for sr in V["switch_rule"]:
                if sr == "alpha_beta":  # field order: alpha, beta, hub_cache
                    for a, b, hc in itertools.product(V["alpha"], V["beta"], V["hub_cache"]):
                        yield dict(direction=d, switch_rule=sr, alpha=a, beta=b, hub_cache=hc)
                else:  # beta, gamma, hub_degree, hub_cache
                    for b, g, h, hc in itertools.product(V["beta"], V["gamma"], V["hub_degree"], V["hub_cache"]):
                        yield dict(direction=d, switch_rule=sr, beta=b, gamma=g, hub_degree=h, hub_cache=hc)

    def small_frontier():
        for sf in V["small_frontier"]:
            for fl in (V["frontier_limit"] if sf != "none" else (None,)):
                yield dict(small_frontier=sf, frontier_limit=fl)

    for t, bs, cull, d, s in itertools.product(technique(), V["block_size"], V["duplicate_culling"],
                                               list(directions()), list(small_frontier())):
        yield {**none, **t, "block_size": bs, "duplicate_culling": cull, **d, **s}


def _expected_count(V=VALUES) -> int:
    """The table size from the design table by arithmetic (groups multiply)."""
    n_vw = sum(len(V["min_virtual_warp_size"]) if v == "dynamic" else 1 for v in V["virtual_warp_size"])
    n_sup = len(V["warp_gathering"]) * len(V["block_gathering"]) * len(V["supplementary_queues"])
    per_lb = {"vertex_mapped": n_vw * len(V["defer_outliers"]) * len(V["work_chunk"]) * n_sup,
              "scan_mapped": n_sup, "binary_search": len(V["chunk_size"]),
              "degree_classified": len(V["dc_small"]) * len(V["dc_middle"]) * len(V["dc_large"]),
              "edge_mapped": 1}
    n_rule = {"alpha_beta": len(V["alpha"]) * len(V["beta"]),
              "hub_ratio": len(V["gamma"]) * len(V["hub_degree"]) * len(V["beta"])}
    n_dir = sum(1 if d == "push" else len(V["hub_cache"]) * sum(n_rule[r] for r in V["switch_rule"])
                for d in V["direction"])
    n_sf = sum(1 if s == "none" else len(V["frontier_limit"]) for s in V["small_frontier"])
    return (sum(per_lb[lb] for lb in V["load_balance"]) * len(V["block_size"]) * len(V["duplicate_culling"])
            * n_dir * n_sf)


def _walk(rng: random.Random) -> TraversalConfig:
    """A config drawn by walking the design table with random choices (each applicable field uniform)."""
    kw: dict = {}
    for name in FIELD_ORDER:
        kw[name] = rng.choice(VALUES[name]) if name not in APPLIES or APPLIES[name](kw) else None
    return TraversalConfig(**kw)


def _sample() -> tuple[TraversalConfig, ...]:
    """A deterministic sample of the table: the sweep sets (portfolio, grid), the first configs in
    table order, and 4000 seeded random walks (every technique, field and value shows up)."""
    from autotune.sweep import grid, portfolio

    rng = random.Random(20687616)
    out: dict = {}
    for c in itertools.chain(portfolio(), grid(), itertools.islice(iter_configs(), 1500),
                             (_walk(rng) for _ in range(4000))):
        out.setdefault(c, c)
    return tuple(out)


ALL = _sample()
ALL_SET = frozenset(ALL)


def _restricted(V):
    """``_FIELDS`` with the allowed values replaced by *V* (rules and defaults unchanged)."""
    return {n: dataclasses.replace(spec, allowed=tuple(V[n])) for n, spec in config_module._FIELDS.items()}


#: A small table of the same shape: every technique, direction, rule and small-frontier mode
#: (the values the rules read) with few values of the other knobs.
SMALL_V = {**VALUES, "virtual_warp_size": (4, "dynamic"), "min_virtual_warp_size": (2,),
           "defer_outliers": ("off", 2048), "work_chunk": ("static",), "warp_gathering": ("off", 32),
           "block_gathering": ("off",), "supplementary_queues": ("off", "half_resident"),
           "dc_small": (16, 32), "dc_middle": (256,), "block_size": (256,), "alpha": (15,), "beta": (6, 18),
           "gamma": (0.3,), "hub_degree": (64, 512), "frontier_limit": (512, 32768)}
#: The previous release's table (7,696 configs) as a restriction of this one: two techniques,
#: every new knob at its default, no persistent kernel, no 32768 limit.
PREV_V = {**VALUES, "load_balance": ("vertex_mapped", "binary_search"), "defer_outliers": ("off",),
          "work_chunk": ("static",), "warp_gathering": ("off",), "block_gathering": ("off",),
          "supplementary_queues": ("off",), "chunk_size": ("dynamic",), "duplicate_culling": ("none",),
          "hub_cache": ("off",), "small_frontier": ("none", "single_block"), "frontier_limit": (512, 2048, 8192)}


def _canonical_id(d: dict) -> str:
    return "c-" + hashlib.sha256(json.dumps(d, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:12]


def _repo_root():
    return Path(__file__).resolve().parents[1]


# Candidate values per field, valid ones, None, and invalid ones (wrong value or wrong type).
CAND = {
    "load_balance": LB + (None, "vertex_based", ""),
    "virtual_warp_size": VW + (None, 0, 3, 64, "static", True, 4.0, "32"),
    "min_virtual_warp_size": MVW + (None, 0, 3, 64, 4.0),
    "defer_outliers": DEFER + (None, 0, 512, "on", 2048.0, True),
    "work_chunk": WCH + (None, "dynamic", 64, 32.0),
    "warp_gathering": WG + (None, "on", True, 64, 32.0),
    "block_gathering": BG + (None, "on", 256, 4096.0),
    "supplementary_queues": SQ + (None, "on", 1024),
    "chunk_size": CHUNK + (None, 1024, "2048"),
    "dc_small": DCS + (None, 8, 32.0),
    "dc_middle": DCM + (None, 512, True),
    "dc_large": DCL + (None, 1024, "65536"),
    "block_size": BS + (None, 64, 2048, 256.0, True),
    "duplicate_culling": CULL + (None, "bloom", False),
    "direction": DIRS + (None, "pull", "PUSH"),
    "switch_rule": RULES + (None, "enterprise"),
    "alpha": ALPHAS + (None, 14, 15.0),
    "beta": BETAS + (None, 0, True),
    "gamma": GAMMAS + (None, 0.2, "0.3"),
    "hub_degree": HUBS + (None, 100, 512.0),
    "hub_cache": HUBC + (None, True, "yes"),
    "small_frontier": SF + (None, "multi_block"),
    "frontier_limit": FLS + (None, 1024, 2048.0, True),
}
TECHNIQUE_FIELDS = FIELD_ORDER[1:12]


def _check_against_rule(kwargs):
    exp = expected_fields(**kwargs)
    if exp is not None:
        c = TraversalConfig(**kwargs)
        assert c.to_dict() == exp, kwargs
        assert expected_fields(**c.to_dict()) == exp  # the result is canonical
        return c
    with pytest.raises(ValueError, match=r"TraversalConfig\.(" + "|".join(FIELD_ORDER) + r")\b"):
        TraversalConfig(**kwargs)
    return None


# --------------------------------------------------------------------------- the table itself
def test_module_constants_match_design():
    m = config_module
    assert m.LOAD_BALANCE_TECHNIQUES == LB and m.VIRTUAL_WARP_SIZES == VW and m.MIN_VIRTUAL_WARP_SIZES == MVW
    assert m.DEFER_OUTLIERS == DEFER and m.WORK_CHUNKS == WCH
    assert (m.WARP_GATHERING, m.BLOCK_GATHERING, m.SUPPLEMENTARY_QUEUES) == (WG, BG, SQ)
    assert m.CHUNK_SIZES == CHUNK and (m.DC_SMALL, m.DC_MIDDLE, m.DC_LARGE) == (DCS, DCM, DCL)
    assert m.BLOCK_SIZES == BS and m.DUPLICATE_CULLING == CULL and m.DIRECTIONS == DIRS and m.SWITCH_RULES == RULES
    assert m.ALPHAS == ALPHAS and m.BETAS == BETAS and m.GAMMAS == GAMMAS and m.HUB_DEGREES == HUBS
    assert m.HUB_CACHE == HUBC and m.SMALL_FRONTIER == SF and m.FRONTIER_LIMITS == FLS
    assert tuple(f.name for f in dataclasses.fields(TraversalConfig)) == FIELD_ORDER
    assert tuple(default_config().to_dict()) == FIELD_ORDER
    # the validation table row by row: values, defaults, which fields are conditional and on what
    assert tuple(m._FIELDS) == FIELD_ORDER
    for name, spec in m._FIELDS.items():
        assert spec.allowed == VALUES[name], name
        assert spec.default == DEFAULTS[name] and type(spec.default) is type(DEFAULTS[name]), name
        assert spec.conditional == (name in APPLIES), name
        assert spec.depends_on == ((DEPENDS_ON[name],) if name in APPLIES else ()), name


def test_applies_map_agrees_with_rule_on_sampled_configs():
    """The two independent formulations used here (APPLIES/DEFAULTS and expected_fields) agree."""
    for c in ALL:
        d = c.to_dict()
        assert expected_fields(**d) == d, c
        for name in FIELD_ORDER:
            if name in APPLIES and not APPLIES[name](d):
                assert d[name] is None, (c, name)
            else:
                assert _in(d[name], VALUES[name]), (c, name)


def test_sample_covers_every_technique_field_and_value():
    """ALL (the sample the other tests iterate) holds every allowed value of every field, for every
    technique the field applies to."""
    assert len(ALL) >= 4000 and len(ALL_SET) == len(ALL)
    for lb in LB:
        mine = [c for c in ALL if c.load_balance == lb]
        for name in FIELD_ORDER[1:]:
            seen = {repr(getattr(c, name)) for c in mine}
            if name in APPLIES and not any(APPLIES[name](c.to_dict()) for c in mine):
                assert seen == {"None"}, (lb, name)
            else:
                assert {repr(v) for v in VALUES[name]} <= seen, (lb, name, seen)


# --------------------------------------------------------------------------- defaults / enumeration
def test_default_config():
    c = default_config()
    assert c == TraversalConfig()
    assert c.to_dict() == {"load_balance": "vertex_mapped", "virtual_warp_size": "dynamic",
                           "min_virtual_warp_size": 4, "defer_outliers": "off", "work_chunk": "static",
                           "warp_gathering": "off", "block_gathering": "off", "supplementary_queues": "off",
                           "chunk_size": None, "dc_small": None, "dc_middle": None, "dc_large": None,
                           "block_size": 256, "duplicate_culling": "none", "direction": "push",
                           "switch_rule": None, "alpha": None, "beta": None, "gamma": None, "hub_degree": None,
                           "hub_cache": None, "small_frontier": "single_block", "frontier_limit": 2048}
    assert c.to_dict() == expected_fields()
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
    """A deterministic sample (every 23rd sampled config, the pinned ones, and every 97th of the first
    20,000 in table order) gets the same ids, in the same order, in fresh processes."""
    sample = [c.to_dict() for c in ALL[::23]] + [TraversalConfig(**k).to_dict() for k, _, _ in PINNED]
    code = ("import itertools, json, sys; from autotune.config import TraversalConfig, iter_configs; "
            "print(' '.join(TraversalConfig.from_dict(d).config_id for d in json.load(sys.stdin))); "
            "print(' '.join(c.config_id for c in itertools.islice(iter_configs(), 0, 20000, 97)))")
    expected = [[TraversalConfig.from_dict(d).config_id for d in sample],
                [_canonical_id(d) for d in itertools.islice(_expected_iter(), 0, 20000, 97)]]
    assert expected[0] == [_canonical_id(d) for d in sample]
    assert expected[0][-len(PINNED):] == [p[2] for p in PINNED]
    assert len(expected[0]) >= 200 and len(expected[1]) >= 200
    for seed in ("0", "1", "random"):
        out = subprocess.run([sys.executable, "-c", code], input=json.dumps(sample), capture_output=True, text=True,
                             check=True, env={**os.environ, "PYTHONHASHSEED": seed}, cwd=str(_repo_root()))
        assert [line.split() for line in out.stdout.splitlines()] == expected


def test_count_configs_full_table():
    # techniques: vertex_mapped (6 fixed warps + dynamic x 6 minimums = 12) x 4 defer x 3 work chunks
    #   x 27 supports = 3888; scan_mapped 27 supports; binary_search 2 chunk sizes;
    #   degree_classified 3 x 3 x 2 thresholds = 18; edge_mapped 1  -> 3936
    # block sizes 4 x culling 2; directions: push 1 + push_pull (alpha_beta 3 x 3 + hub_ratio 3 x 3 x 3)
    #   x hub cache 2 = 73; small frontier: none 1 + (single_block, persistent) x 4 limits = 9
    assert (12 * 4 * 3 * 27 + 27 + 2 + 18 + 1) * 4 * 2 * 73 * 9 == N_CONFIGS
    assert _expected_count() == N_CONFIGS
    assert count_configs() == N_CONFIGS
    assert count_configs() == N_CONFIGS  # memoised or not, the same answer


@pytest.mark.parametrize("V, n, has_default", [(SMALL_V, 3510, False), (PREV_V, 7696, True)],
                         ids=["small", "previous_release"])
def test_iter_and_count_configs_on_a_restricted_table(monkeypatch, V, n, has_default):
    """On a table of the same rules with fewer values, iter_configs yields exactly the design table's
    configs in table order, distinct, and count_configs counts them without enumerating."""
    assert _expected_count(V) == n
    monkeypatch.setattr(config_module, "_FIELDS", _restricted(V))
    got = list(iter_configs())
    exp = list(_expected_iter(V))
    assert len(exp) == n
    assert [c.to_dict() for c in got] == exp  # same configs, same (table) order
    assert count_configs() == len(got) == n
    assert len(set(got)) == n and len({c.config_id for c in got}) == n and len({c.label for c in got}) == n
    assert [c.config_id for c in iter_configs()] == [c.config_id for c in got]  # deterministic order
    assert (default_config() in set(got)) == has_default


def test_count_configs_follows_the_table(monkeypatch):
    """count_configs reads the table: fewer rows or values give the matching count (and iter_configs agrees)."""
    fields = config_module._FIELDS
    rows = {n: fields[n] for n in ("load_balance", "virtual_warp_size", "min_virtual_warp_size", "block_size")}
    monkeypatch.setattr(config_module, "_FIELDS", rows)
    assert count_configs() == (12 + 4) * 4 == sum(1 for _ in iter_configs())
    rows["direction"], rows["switch_rule"], rows["alpha"] = fields["direction"], fields["switch_rule"], fields["alpha"]
    # push 1 + push_pull (alpha_beta 3 alphas + hub_ratio 1)
    assert count_configs() == (12 + 4) * 4 * 5 == sum(1 for _ in iter_configs())


def test_iter_configs_is_lazy_and_in_table_order():
    it = iter_configs()
    assert iter(it) is it and not isinstance(it, (list, tuple))
    first = list(itertools.islice(iter_configs(), 3000))
    assert [c.to_dict() for c in first] == list(itertools.islice(_expected_iter(), 3000))
    assert first[0] == TraversalConfig(virtual_warp_size=1, block_size=128, small_frontier="none")
    assert len(set(first)) == len(first) and len({c.label for c in first}) == len(first)
    assert not hasattr(config_module, "all_configs")  # 2 * 10**7 configs are never materialised


# --------------------------------------------------------------------------- validation
def test_validation_warp_group_exhaustive():
    for lb, vw, mvw in itertools.product(CAND["load_balance"], CAND["virtual_warp_size"],
                                         CAND["min_virtual_warp_size"]):
        _check_against_rule(dict(load_balance=lb, virtual_warp_size=vw, min_virtual_warp_size=mvw))


def test_validation_technique_fields_pairwise():
    """Every technique with every pair of its fields' candidates (valid, None, wrong value, wrong type)."""
    seen = set()
    for lb in CAND["load_balance"]:
        for f1, f2 in itertools.combinations(TECHNIQUE_FIELDS, 2):
            for v1, v2 in itertools.product(CAND[f1], CAND[f2]):
                c = _check_against_rule({"load_balance": lb, f1: v1, f2: v2})
                if c is not None:
                    seen.add((c.load_balance, f1, v1, f2, v2))
    assert {s[0] for s in seen} == set(LB)


def test_validation_direction_group_exhaustive():
    """Every combination of direction/switch_rule/alpha/beta/gamma/hub_degree/hub_cache candidates."""
    names = ("direction", "switch_rule", "alpha", "beta", "gamma", "hub_degree", "hub_cache")
    seen = set()
    for values in itertools.product(*(CAND[n][:CAND[n].index(None) + 2] for n in names)):
        c = _check_against_rule(dict(zip(names, values)))
        if c is not None:
            seen.add(tuple(getattr(c, n) for n in names))
    assert len(seen) == 73  # push + (9 alpha_beta + 27 hub_ratio) x hub cache off/on


def test_validation_direction_group_wrong_types():
    names = ("direction", "switch_rule", "alpha", "beta", "gamma", "hub_degree", "hub_cache")
    for name in names:
        for bad in CAND[name][CAND[name].index(None) + 1:]:
            for ctx in ({}, {"direction": "push_pull"}, {"direction": "push_pull", "switch_rule": "hub_ratio"}):
                if name not in ctx:
                    assert _check_against_rule({**ctx, name: bad}) is None, (name, bad, ctx)


def test_validation_block_culling_and_small_frontier_exhaustive():
    seen = set()
    for bs, cull, sf, fl in itertools.product(CAND["block_size"], CAND["duplicate_culling"], CAND["small_frontier"],
                                              CAND["frontier_limit"]):
        c = _check_against_rule(dict(block_size=bs, duplicate_culling=cull, small_frontier=sf, frontier_limit=fl))
        if c is not None:
            seen.add((c.block_size, c.duplicate_culling, c.small_frontier, c.frontier_limit))
    assert len(seen) == 4 * 2 * (1 + 2 * 4)


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
    ("load_balance", "vertex_based", {},
     "'vertex_mapped', 'scan_mapped', 'binary_search', 'degree_classified', 'edge_mapped'"),
    ("virtual_warp_size", 3, {}, "1, 2, 4, 8, 16, 32, 'dynamic'"),
    ("virtual_warp_size", "32", {}, "1, 2, 4, 8, 16, 32, 'dynamic'"),
    ("min_virtual_warp_size", 64, {}, "1, 2, 4, 8, 16, 32"),
    ("defer_outliers", 512, {}, "'off', 256, 2048, 16384"),
    ("work_chunk", "dynamic", {}, "'static', 32, 256"),
    ("warp_gathering", "on", {}, "'off', 32, 128"),
    ("block_gathering", 256, {"load_balance": "scan_mapped"}, "'off', 'block_size', 4096"),
    ("supplementary_queues", 1024, {}, "'off', 'half_resident', 65536"),
    ("chunk_size", 1024, {"load_balance": "binary_search"}, "'dynamic', 2048"),
    ("dc_small", 8, {"load_balance": "degree_classified"}, "16, 32, 64"),
    ("dc_middle", 512, {"load_balance": "degree_classified"}, "128, 256, 1024"),
    ("dc_large", 1024, {"load_balance": "degree_classified"}, "4096, 65536"),
    ("block_size", 100, {}, "128, 256, 512, 1024"),
    ("duplicate_culling", "bloom", {}, "'none', 'hash'"),
    ("direction", "pull", {}, "'push', 'push_pull'"),
    ("switch_rule", "enterprise", {"direction": "push_pull"}, "'alpha_beta', 'hub_ratio'"),
    ("alpha", 14, {"direction": "push_pull"}, "4, 15, 60"),
    ("beta", 0, {"direction": "push_pull"}, "6, 18, 48"),
    ("beta", 20, {"direction": "push_pull", "switch_rule": "hub_ratio"}, "6, 18, 48"),
    ("gamma", 0.2, {"direction": "push_pull", "switch_rule": "hub_ratio"}, "0.1, 0.3, 0.5"),
    ("hub_degree", 100, {"direction": "push_pull", "switch_rule": "hub_ratio"}, "64, 512, 4096"),
    ("hub_cache", "yes", {"direction": "push_pull"}, "'off', 'on'"),
    ("small_frontier", "multi_block", {}, "'none', 'single_block', 'persistent'"),
    ("frontier_limit", 1024, {}, "512, 2048, 8192, 32768"),
    ("frontier_limit", 1024, {"small_frontier": "persistent"}, "512, 2048, 8192, 32768"),
])
def test_invalid_value_names_field_value_and_allowed(field, value, context, allowed):
    with pytest.raises(ValueError) as info:
        TraversalConfig(**context, **{field: value})
    msg = str(info.value)
    assert f"TraversalConfig.{field}" in msg and repr(value) in msg and allowed in msg


PP = {"direction": "push_pull"}
HUB = {"direction": "push_pull", "switch_rule": "hub_ratio"}
SCAN = {"load_balance": "scan_mapped"}
BSEARCH = {"load_balance": "binary_search"}
DCL_ = {"load_balance": "degree_classified"}


@pytest.mark.parametrize("field, value, context", [
    ("virtual_warp_size", True, {}), ("virtual_warp_size", 4.0, {}), ("block_size", 256.0, {}),
    ("block_size", True, {}), ("min_virtual_warp_size", 4.0, {}),
    ("defer_outliers", 2048.0, {}), ("defer_outliers", True, {}), ("defer_outliers", "256", {}),
    ("work_chunk", 32.0, {}), ("warp_gathering", 32.0, {}), ("warp_gathering", True, SCAN),
    ("block_gathering", 4096.0, SCAN), ("supplementary_queues", 65536.0, {}), ("chunk_size", 2048.0, BSEARCH),
    ("chunk_size", "2048", BSEARCH), ("dc_small", 32.0, DCL_), ("dc_middle", True, DCL_),
    ("dc_large", "65536", DCL_), ("duplicate_culling", False, {}), ("hub_cache", True, PP),
    ("alpha", 15.0, PP), ("alpha", True, PP), ("beta", 18.0, PP), ("beta", True, HUB),
    ("hub_degree", 512.0, HUB), ("gamma", "0.3", HUB), ("gamma", 0, HUB),
    ("frontier_limit", 2048.0, {}), ("frontier_limit", True, {}), ("frontier_limit", 32768.0, {"small_frontier": "persistent"}),
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
    c = TraversalConfig(defer_outliers=np.int64(2048), work_chunk=np.int32(32), warp_gathering=np.int16(128),
                        block_gathering=np.str_("block_size"), supplementary_queues=np.int64(65536),
                        duplicate_culling=np.str_("hash"))
    assert c.to_json() == TraversalConfig(defer_outliers=2048, work_chunk=32, warp_gathering=128,
                                          block_gathering="block_size", supplementary_queues=65536,
                                          duplicate_culling="hash").to_json()
    c = TraversalConfig(load_balance="degree_classified", dc_small=np.int8(16), dc_middle=np.int64(1024),
                        dc_large=np.uint32(4096))
    assert (type(c.dc_small), type(c.dc_middle), type(c.dc_large)) == (int, int, int)


def test_none_not_allowed_for_unconditional_fields():
    for field in UNCONDITIONAL:
        with pytest.raises(ValueError, match=f"TraversalConfig.{field}: None is not allowed"):
            TraversalConfig(**{field: None})


# --------------------------------------------------------------------------- the new techniques' fields
@pytest.mark.parametrize("lb", ["binary_search", "degree_classified", "edge_mapped"])
@pytest.mark.parametrize("field, value", [("warp_gathering", 32), ("warp_gathering", "off"),
                                          ("block_gathering", "block_size"), ("supplementary_queues", "half_resident")])
def test_support_strategy_needs_vertex_or_scan_mapping(lb, field, value):
    """A support strategy with another technique raises ValueError naming both fields."""
    with pytest.raises(ValueError) as info:
        TraversalConfig(load_balance=lb, **{field: value})
    msg = str(info.value)
    assert f"TraversalConfig.{field}={value!r} does not apply" in msg
    assert "load_balance" in msg and f"load_balance={lb!r}" in msg
    assert "scan_mapped" in msg and "vertex_mapped" in msg  # where it applies
    for ok in ("vertex_mapped", "scan_mapped"):
        c = TraversalConfig(load_balance=ok, **{field: value})
        assert getattr(c, field) == value
    assert getattr(TraversalConfig(load_balance=lb), field) is None


@pytest.mark.parametrize("field, value", [("defer_outliers", 256), ("defer_outliers", "off"), ("work_chunk", 32),
                                          ("work_chunk", "static")])
def test_hong_options_only_with_vertex_mapped(field, value):
    assert getattr(TraversalConfig(**{field: value}), field) == value
    for lb in LB[1:]:
        with pytest.raises(ValueError, match=rf"TraversalConfig\.{field}=.*does not apply.*load_balance='{lb}'"):
            TraversalConfig(load_balance=lb, **{field: value})
        assert getattr(TraversalConfig(load_balance=lb), field) is None


def test_chunk_size_only_with_binary_search():
    assert TraversalConfig(load_balance="binary_search").chunk_size == "dynamic"
    assert TraversalConfig(load_balance="binary_search", chunk_size=2048).chunk_size == 2048
    for lb in set(LB) - {"binary_search"}:
        with pytest.raises(ValueError, match=rf"TraversalConfig\.chunk_size=2048 does not apply.*load_balance='{lb}'"):
            TraversalConfig(load_balance=lb, chunk_size=2048)
        assert TraversalConfig(load_balance=lb).chunk_size is None


@pytest.mark.parametrize("field, value", [("dc_small", 16), ("dc_middle", 1024), ("dc_large", 4096)])
def test_degree_classes_only_with_degree_classified(field, value):
    c = TraversalConfig(load_balance="degree_classified")
    assert (c.dc_small, c.dc_middle, c.dc_large) == (32, 256, 65536)  # Enterprise defaults
    assert getattr(TraversalConfig(load_balance="degree_classified", **{field: value}), field) == value
    for lb in set(LB) - {"degree_classified"}:
        with pytest.raises(ValueError, match=rf"TraversalConfig\.{field}={value} does not apply.*load_balance='{lb}'"):
            TraversalConfig(load_balance=lb, **{field: value})
        assert getattr(TraversalConfig(load_balance=lb), field) is None


def test_hub_cache_only_with_push_pull():
    assert TraversalConfig().hub_cache is None
    assert TraversalConfig(direction="push_pull").hub_cache == "off"
    assert TraversalConfig(direction="push_pull", switch_rule="hub_ratio", hub_cache="on").hub_cache == "on"
    with pytest.raises(ValueError, match=r"TraversalConfig\.hub_cache='on' does not apply.*direction='push'"):
        TraversalConfig(hub_cache="on")
    with pytest.raises(ValueError, match=r"TraversalConfig\.hub_cache='off' does not apply"):
        TraversalConfig(hub_cache="off")


def test_frontier_limit_with_single_block_and_persistent():
    for sf in ("single_block", "persistent"):
        assert TraversalConfig(small_frontier=sf).frontier_limit == 2048
        for fl in FLS:
            assert TraversalConfig(small_frontier=sf, frontier_limit=fl).frontier_limit == fl
    assert TraversalConfig(small_frontier="none").frontier_limit is None
    with pytest.raises(ValueError, match=r"TraversalConfig\.frontier_limit=32768 does not apply.*small_frontier='none'"):
        TraversalConfig(small_frontier="none", frontier_limit=32768)
    p = TraversalConfig(small_frontier="persistent", frontier_limit=32768)
    assert p != TraversalConfig(frontier_limit=32768) and p.config_id != TraversalConfig(frontier_limit=32768).config_id


def test_duplicate_culling_applies_to_every_technique():
    for lb in LB:
        c = TraversalConfig(load_balance=lb, duplicate_culling="hash")
        assert c.duplicate_culling == "hash" and TraversalConfig(load_balance=lb).duplicate_culling == "none"


# --------------------------------------------------------------------------- neutral values
def test_neutral_values_filled():
    c = TraversalConfig(load_balance="vertex_mapped")
    assert c.virtual_warp_size == "dynamic" and c.min_virtual_warp_size == 4
    assert (c.defer_outliers, c.work_chunk, c.warp_gathering, c.block_gathering, c.supplementary_queues) == (
        "off", "static", "off", "off", "off")
    assert (c.chunk_size, c.dc_small, c.dc_middle, c.dc_large) == (None,) * 4
    c = TraversalConfig(virtual_warp_size=16)
    assert c.min_virtual_warp_size is None
    c = TraversalConfig(virtual_warp_size="dynamic", min_virtual_warp_size=8)
    assert c.min_virtual_warp_size == 8
    c = TraversalConfig(load_balance="binary_search")
    assert c.virtual_warp_size is None and c.min_virtual_warp_size is None
    assert (c.defer_outliers, c.work_chunk, c.warp_gathering, c.block_gathering, c.supplementary_queues) == (None,) * 5
    assert c.chunk_size == "dynamic" and c.frontier_limit == 2048
    c = TraversalConfig(load_balance="scan_mapped")
    assert (c.virtual_warp_size, c.defer_outliers, c.work_chunk, c.chunk_size) == (None,) * 4
    assert (c.warp_gathering, c.block_gathering, c.supplementary_queues) == ("off",) * 3
    c = TraversalConfig(load_balance="edge_mapped")
    assert all(getattr(c, n) is None for n in TECHNIQUE_FIELDS)


def test_neutral_values_filled_direction_and_small_frontier():
    c = TraversalConfig()
    assert (c.direction, c.switch_rule, c.alpha, c.beta, c.gamma, c.hub_degree, c.hub_cache) == (
        "push", None, None, None, None, None, None)
    assert (c.small_frontier, c.frontier_limit, c.duplicate_culling) == ("single_block", 2048, "none")
    c = TraversalConfig(direction="push_pull")
    assert (c.switch_rule, c.alpha, c.beta, c.gamma, c.hub_degree, c.hub_cache) == (
        "alpha_beta", 15, 18, None, None, "off")
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
    (dict(load_balance="binary_search"), "binary_search/chunk=dynamic/b256/push/sb2048"),
    (dict(load_balance="binary_search", small_frontier="none"), "binary_search/chunk=dynamic/b256/push"),
    (dict(load_balance="binary_search", chunk_size=2048), "binary_search/chunk=2048/b256/push/sb2048"),
    (dict(virtual_warp_size=8, block_size=1024, small_frontier="none"), "vertex_mapped/vw=8/b1024/push"),
    (dict(min_virtual_warp_size=16, frontier_limit=8192), "vertex_mapped/vw=dynamic(min16)/b256/push/sb8192"),
    (dict(direction="push_pull"), "vertex_mapped/vw=dynamic(min4)/b256/push_pull(a15,b18)/sb2048"),
    (dict(direction="push_pull", alpha=60, beta=6, frontier_limit=512),
     "vertex_mapped/vw=dynamic(min4)/b256/push_pull(a60,b6)/sb512"),
    (dict(direction="push_pull", switch_rule="hub_ratio"),
     "vertex_mapped/vw=dynamic(min4)/b256/push_pull(g0.3,t512,b18)/sb2048"),
    (dict(load_balance="binary_search", block_size=128, direction="push_pull", switch_rule="hub_ratio", gamma=0.1,
          hub_degree=4096, beta=48, small_frontier="none"),
     "binary_search/chunk=dynamic/b128/push_pull(g0.1,t4096,b48)"),
    (dict(virtual_warp_size=4, defer_outliers=2048, work_chunk=32), "vertex_mapped/vw=4/defer=2048/chunk=32/b256/push/sb2048"),
    (dict(warp_gathering=32, block_gathering="block_size", supplementary_queues="half_resident"),
     "vertex_mapped/vw=dynamic(min4)/wg=32/bg=block_size/sq=half_resident/b256/push/sb2048"),
    (dict(load_balance="scan_mapped"), "scan_mapped/b256/push/sb2048"),
    (dict(load_balance="scan_mapped", block_gathering=4096, duplicate_culling="hash"),
     "scan_mapped/bg=4096/b256/cull=hash/push/sb2048"),
    (dict(load_balance="degree_classified"), "degree_classified/dc=32,256,65536/b256/push/sb2048"),
    (dict(load_balance="edge_mapped", direction="push_pull", hub_cache="on", small_frontier="persistent",
          frontier_limit=32768), "edge_mapped/b256/push_pull(a15,b18)/hubcache/persist32768"),
])
def test_labels(kwargs, label):
    assert TraversalConfig(**kwargs).label == label


def test_labels_sampled_configs():
    for c in ALL:
        assert c.label == expected_label(c)
    assert len({c.label for c in ALL}) == len(ALL)


@pytest.mark.parametrize("kwargs, field, value, context", [
    (dict(load_balance="binary_search", virtual_warp_size=4), "virtual_warp_size", 4, "load_balance='binary_search'"),
    (dict(load_balance="binary_search", min_virtual_warp_size=4), "min_virtual_warp_size", 4, "virtual_warp_size=None"),
    (dict(virtual_warp_size=8, min_virtual_warp_size=2), "min_virtual_warp_size", 2, "virtual_warp_size=8"),
    (dict(load_balance="scan_mapped", defer_outliers=256), "defer_outliers", 256, "load_balance='scan_mapped'"),
    (dict(load_balance="binary_search", work_chunk=32), "work_chunk", 32, "load_balance='binary_search'"),
    (dict(load_balance="binary_search", warp_gathering=32), "warp_gathering", 32, "load_balance='binary_search'"),
    (dict(load_balance="edge_mapped", block_gathering="block_size"), "block_gathering", "block_size",
     "load_balance='edge_mapped'"),
    (dict(load_balance="degree_classified", supplementary_queues="half_resident"), "supplementary_queues",
     "half_resident", "load_balance='degree_classified'"),
    (dict(chunk_size=2048), "chunk_size", 2048, "load_balance='vertex_mapped'"),
    (dict(load_balance="scan_mapped", dc_small=16), "dc_small", 16, "load_balance='scan_mapped'"),
    (dict(dc_middle=256), "dc_middle", 256, "load_balance='vertex_mapped'"),
    (dict(load_balance="binary_search", dc_large=4096), "dc_large", 4096, "load_balance='binary_search'"),
    (dict(switch_rule="alpha_beta"), "switch_rule", "alpha_beta", "direction='push'"),
    (dict(switch_rule="hub_ratio"), "switch_rule", "hub_ratio", "direction='push'"),
    (dict(alpha=15), "alpha", 15, "switch_rule=None"),
    (dict(beta=18), "beta", 18, "direction='push'"),
    (dict(gamma=0.5), "gamma", 0.5, "switch_rule=None"),
    (dict(hub_degree=64), "hub_degree", 64, "switch_rule=None"),
    (dict(hub_cache="on"), "hub_cache", "on", "direction='push'"),
    (dict(direction="push_pull", switch_rule="hub_ratio", alpha=15), "alpha", 15, "switch_rule='hub_ratio'"),
    (dict(direction="push_pull", gamma=0.3), "gamma", 0.3, "switch_rule='alpha_beta'"),
    (dict(direction="push_pull", switch_rule="alpha_beta", hub_degree=512), "hub_degree", 512,
     "switch_rule='alpha_beta'"),
    (dict(small_frontier="none", frontier_limit=2048), "frontier_limit", 2048, "small_frontier='none'"),
    # a value that would be invalid anyway is reported as not applying
    (dict(small_frontier="none", frontier_limit=7), "frontier_limit", 7, "small_frontier='none'"),
    (dict(load_balance="binary_search", warp_gathering="on"), "warp_gathering", "on", "load_balance='binary_search'"),
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
                        defer_outliers="off", work_chunk="static", warp_gathering="off", block_gathering="off",
                        supplementary_queues="off", duplicate_culling="none", direction="push",
                        small_frontier="single_block", frontier_limit=2048)
    assert a == b and hash(a) == hash(b) and a.config_id == b.config_id
    assert len({a, b, TraversalConfig(virtual_warp_size=8)}) == 2
    p = TraversalConfig(direction="push_pull")
    q = TraversalConfig(direction="push_pull", switch_rule="alpha_beta", alpha=15, beta=18, hub_cache="off")
    assert p == q and hash(p) == hash(q) and p.config_id == q.config_id
    h = TraversalConfig(direction="push_pull", switch_rule="hub_ratio")
    k = TraversalConfig(direction="push_pull", switch_rule="hub_ratio", gamma=0.3, hub_degree=512, beta=18)
    assert h == k and h.config_id == k.config_id
    d = TraversalConfig(load_balance="degree_classified")
    e = TraversalConfig(load_balance="degree_classified", dc_small=32, dc_middle=256, dc_large=65536)
    assert d == e and d.config_id == e.config_id
    assert len({a, p, h, d, TraversalConfig(small_frontier="none"), TraversalConfig(small_frontier="persistent"),
                TraversalConfig(duplicate_culling="hash"), TraversalConfig(warp_gathering=32)}) == 8


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


def test_with_technique_transitions():
    v = TraversalConfig(virtual_warp_size=8, defer_outliers=2048, work_chunk=32, warp_gathering=128,
                        supplementary_queues=65536, duplicate_culling="hash")
    # vertex -> scan mapping: the supports stay (they still apply), the Hong options and warps go
    s = v.with_(load_balance="scan_mapped")
    assert s == TraversalConfig(load_balance="scan_mapped", warp_gathering=128, supplementary_queues=65536,
                                duplicate_culling="hash")
    # scan -> binary search: the supports go, the chunk size comes with its default
    b = s.with_(load_balance="binary_search")
    assert b == TraversalConfig(load_balance="binary_search", duplicate_culling="hash")
    assert b.chunk_size == "dynamic" and b.warp_gathering is None
    # -> degree classified: the class thresholds come with the Enterprise defaults
    d = b.with_(load_balance="degree_classified", dc_small=64)
    assert (d.chunk_size, d.dc_small, d.dc_middle, d.dc_large) == (None, 64, 256, 65536)
    e = d.with_(load_balance="edge_mapped")
    assert all(getattr(e, n) is None for n in TECHNIQUE_FIELDS) and e.duplicate_culling == "hash"
    # ... and back: nothing is remembered
    assert e.with_(load_balance="vertex_mapped") == TraversalConfig(duplicate_culling="hash")


def test_with_direction_transitions():
    c = default_config()
    pp = c.with_(direction="push_pull")
    assert pp == TraversalConfig(direction="push_pull")
    assert (pp.switch_rule, pp.alpha, pp.beta, pp.gamma, pp.hub_degree, pp.hub_cache) == (
        "alpha_beta", 15, 18, None, None, "off")
    # push_pull -> push drops every switch knob and the hub cache
    hub = TraversalConfig(direction="push_pull", switch_rule="hub_ratio", gamma=0.5, hub_degree=64, beta=48,
                          block_size=512, frontier_limit=8192, hub_cache="on")
    push = hub.with_(direction="push")
    assert (push.switch_rule, push.alpha, push.beta, push.gamma, push.hub_degree, push.hub_cache) == (None,) * 6
    assert push == TraversalConfig(block_size=512, frontier_limit=8192)
    ab = TraversalConfig(direction="push_pull", alpha=60, beta=6)
    assert ab.with_(direction="push") == default_config()
    # ... and back to push_pull refills defaults (nothing is remembered)
    assert ab.with_(direction="push").with_(direction="push_pull") == pp
    assert push.with_(direction="push_pull").hub_cache == "off"
    # alpha_beta -> hub_ratio drops alpha, fills gamma / hub_degree, keeps beta
    h = ab.with_(switch_rule="hub_ratio")
    assert (h.switch_rule, h.alpha, h.gamma, h.hub_degree, h.beta) == ("hub_ratio", None, 0.3, 512, 6)
    # hub_ratio -> alpha_beta drops gamma / hub_degree, fills alpha, keeps beta and the hub cache
    a = hub.with_(switch_rule="alpha_beta")
    assert (a.switch_rule, a.alpha, a.gamma, a.hub_degree, a.beta, a.hub_cache) == (
        "alpha_beta", 15, None, None, 48, "on")
    assert (a.block_size, a.frontier_limit) == (512, 8192)
    # knobs untouched while they still apply
    assert ab.with_(alpha=4) == TraversalConfig(direction="push_pull", alpha=4, beta=6)
    assert ab.with_(block_size=1024, load_balance="binary_search").alpha == 60
    assert hub.with_(beta=18).gamma == 0.5 and hub.with_(gamma=0.1).hub_degree == 64
    assert hub.with_(load_balance="scan_mapped").hub_cache == "on"
    # switching rule and giving the new rule's knobs at once
    assert ab.with_(switch_rule="hub_ratio", gamma=0.1, hub_degree=4096) == TraversalConfig(
        direction="push_pull", switch_rule="hub_ratio", gamma=0.1, hub_degree=4096, beta=6)


def test_with_small_frontier_transitions():
    c = TraversalConfig(frontier_limit=8192)
    none = c.with_(small_frontier="none")
    assert none.frontier_limit is None and none == TraversalConfig(small_frontier="none")
    assert none.with_(small_frontier="single_block").frontier_limit == 2048  # refilled default
    assert none.with_(small_frontier="persistent").frontier_limit == 2048
    assert c.with_(direction="push_pull").frontier_limit == 8192
    assert none.with_(small_frontier="single_block", frontier_limit=512).frontier_limit == 512
    # single_block <-> persistent: the limit applies to both and is kept
    p = c.with_(small_frontier="persistent")
    assert p == TraversalConfig(small_frontier="persistent", frontier_limit=8192)
    assert p.with_(small_frontier="single_block") == c


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
    with pytest.raises(ValueError, match=r"TraversalConfig\.warp_gathering=32 does not apply.*load_balance"):
        c.with_(load_balance="binary_search", warp_gathering=32)
    with pytest.raises(ValueError, match="TraversalConfig.chunk_size=2048 does not apply"):
        c.with_(chunk_size=2048)
    with pytest.raises(ValueError, match="TraversalConfig.hub_cache='on' does not apply"):
        ab.with_(direction="push", hub_cache="on")


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
    rd, ad = r.to_dict(), a.to_dict()
    assert expected_fields(**rd) == rd  # a valid, canonical config of the table
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
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.warp_gathering = 32
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


def test_json_mixed_int_and_str_fields_round_trip():
    """Threshold fields hold an int or a keyword; JSON keeps the type (2048 is not '2048')."""
    for kw in (dict(warp_gathering=32), dict(block_gathering="block_size"), dict(block_gathering=4096),
               dict(supplementary_queues="half_resident"), dict(defer_outliers=16384), dict(work_chunk=256),
               dict(load_balance="binary_search", chunk_size=2048)):
        c = TraversalConfig(**kw)
        back = TraversalConfig.from_json(c.to_json())
        assert back == c and all(type(getattr(back, k)) is type(v) for k, v in kw.items())


def test_from_json_rejects_wrong_json_types():
    d = TraversalConfig(direction="push_pull").to_dict()
    with pytest.raises(ValueError, match="TraversalConfig.alpha"):
        TraversalConfig.from_json(json.dumps({**d, "alpha": 15.0}))
    with pytest.raises(ValueError, match="TraversalConfig.frontier_limit"):
        TraversalConfig.from_json(json.dumps({**d, "frontier_limit": "2048"}))
    with pytest.raises(ValueError, match="TraversalConfig.warp_gathering"):
        TraversalConfig.from_json(json.dumps({**d, "warp_gathering": "32"}))


def test_from_dict_unknown_key_named():
    d = default_config().to_dict()
    with pytest.raises(ValueError, match="'warp_gather'"):
        TraversalConfig.from_dict({**d, "warp_gather": 32})
    with pytest.raises(ValueError, match="'pull_cache'"):
        TraversalConfig.from_dict({"pull_cache": "on"})


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


def test_previous_release_configs_load_with_new_ids():
    """Records of the 12-field table (e.g. models/bfs_h100.jsonl) load: the new fields take their
    defaults, so the strategy is the same, but the canonical JSON (and so the config_id) is new."""
    assert "c-" + hashlib.sha256(PREV_DEFAULT_JSON.encode()).hexdigest()[:12] == PREV_DEFAULT_ID
    prev = TraversalConfig.from_json(PREV_DEFAULT_JSON)
    assert prev == default_config() and prev.config_id == DEFAULT_ID != PREV_DEFAULT_ID
    old_bs = json.loads(PREV_DEFAULT_JSON) | {"load_balance": "binary_search", "virtual_warp_size": None,
                                              "min_virtual_warp_size": None}
    assert TraversalConfig.from_dict(old_bs) == TraversalConfig(load_balance="binary_search", chunk_size="dynamic")
    old_pp = json.loads(PREV_DEFAULT_JSON) | {"direction": "push_pull", "switch_rule": "alpha_beta", "alpha": 15,
                                              "beta": 18}
    assert TraversalConfig.from_dict(old_pp).hub_cache == "off"


def test_from_json_rejects_non_object():
    with pytest.raises(ValueError, match="JSON object"):
        TraversalConfig.from_json("[1, 2]")


def test_distinct_configs_distinct_ids():
    ids = {}
    for c in ALL:
        assert ids.setdefault(c.config_id, c) == c
        assert TraversalConfig.from_json(c.to_json()) == c
    assert len(ids) == len(ALL)
