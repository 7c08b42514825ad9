"""TraversalConfig: validation, neutral values, JSON round trip, hashing, config_id, labels, with_,
and the enumeration (iter_configs / count_configs) of the 33,581,952-config table (31,519,488 BFS configs,
whose ungated ones keep the ids of the logs written before SSSP existed, plus 2,062,464 SSSP configs)."""
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
#: The fields of the BFS-only table (schema 1), in its order: the dataclass's first 23 fields (positional
#: construction), and the keys of a BFS config's canonical JSON.
BFS_FIELD_ORDER = ("load_balance", "virtual_warp_size", "min_virtual_warp_size", "defer_outliers", "work_chunk",
               "warp_gathering", "block_gathering", "supplementary_queues", "chunk_size", "dc_small", "dc_middle",
               "dc_large", "block_size", "duplicate_culling", "direction", "switch_rule", "alpha", "beta", "gamma",
               "hub_degree", "hub_cache", "small_frontier", "frontier_limit")
#: The fields added with the second traversal: the first rows of the table (the rules of the rest read
#: ``algorithm``), the last fields of the dataclass, left out of a BFS config's canonical JSON.
SSSP_FIELDS = ("algorithm", "sssp_method", "delta")
#: Fields added later: the last rows of the table and the last fields of the dataclass, left out of the
#: canonical JSON while neutral or 'off' (every older config keeps its id).
LATER_FIELDS = ("inline_degree", "pull_gate")
#: Table order (validation, enumeration, ``to_dict``) and dataclass order (positional construction).
FIELD_ORDER = SSSP_FIELDS + BFS_FIELD_ORDER + LATER_FIELDS
DATACLASS_ORDER = BFS_FIELD_ORDER + SSSP_FIELDS + LATER_FIELDS
ALGOS = ("bfs", "sssp")
SSSP_METHODS = ("bellman_ford", "delta_stepping", "near_far")
DELTAS = (0.25, 1, 4, 16, 64)  # exact types: 0.25 a float, the others ints (1.0 is not 1)
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
FLS = (512, 2048, 8192, 32768, 131072)
INLINE = ("off", 8, 64)
GATES = ("off", "beta")

#: Allowed values of every field (when it applies), in table order.
VALUES = {"algorithm": ALGOS, "sssp_method": SSSP_METHODS, "delta": DELTAS,
          "load_balance": LB, "virtual_warp_size": VW, "min_virtual_warp_size": MVW, "defer_outliers": DEFER,
          "work_chunk": WCH, "warp_gathering": WG, "block_gathering": BG, "supplementary_queues": SQ,
          "chunk_size": CHUNK, "dc_small": DCS, "dc_middle": DCM, "dc_large": DCL, "block_size": BS,
          "duplicate_culling": CULL, "direction": DIRS, "switch_rule": RULES, "alpha": ALPHAS, "beta": BETAS,
          "gamma": GAMMAS, "hub_degree": HUBS, "hub_cache": HUBC, "small_frontier": SF, "frontier_limit": FLS,
          "inline_degree": INLINE, "pull_gate": GATES}
SUPPORTS = ("warp_gathering", "block_gathering", "supplementary_queues")
DC = ("dc_small", "dc_middle", "dc_large")
UNCONDITIONAL = ("algorithm", "load_balance", "block_size", "duplicate_culling", "direction", "small_frontier")
#: When each conditional field applies (on the effective values) and what it takes then by default.
APPLIES = {
    "sssp_method": lambda v: v["algorithm"] == "sssp",
    "delta": lambda v: v["sssp_method"] in ("delta_stepping", "near_far"),
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
    "inline_degree": lambda v: v["sssp_method"] == "bellman_ford" and v["small_frontier"] == "persistent",
    "pull_gate": lambda v: v["switch_rule"] == "alpha_beta",
}
DEPENDS_ON = {"sssp_method": "algorithm", "delta": "sssp_method",
              "virtual_warp_size": "load_balance", "min_virtual_warp_size": "virtual_warp_size",
              "defer_outliers": "load_balance", "work_chunk": "load_balance", "warp_gathering": "load_balance",
              "block_gathering": "load_balance", "supplementary_queues": "load_balance",
              "chunk_size": "load_balance", "dc_small": "load_balance", "dc_middle": "load_balance",
              "dc_large": "load_balance", "switch_rule": "direction", "alpha": "switch_rule", "beta": "direction",
              "gamma": "switch_rule", "hub_degree": "switch_rule", "hub_cache": "direction",
              "frontier_limit": "small_frontier", "inline_degree": ("sssp_method", "small_frontier"),
              "pull_gate": "switch_rule"}
DEFAULTS = {"algorithm": "bfs", "sssp_method": "delta_stepping", "delta": 1,
            "load_balance": "vertex_mapped", "virtual_warp_size": "dynamic", "min_virtual_warp_size": 4,
            "defer_outliers": "off", "work_chunk": "static", "warp_gathering": "off", "block_gathering": "off",
            "supplementary_queues": "off", "chunk_size": "dynamic", "dc_small": 32, "dc_middle": 256,
            "dc_large": 65536, "block_size": 256, "duplicate_culling": "none", "direction": "push",
            "switch_rule": "alpha_beta", "alpha": 15, "beta": 18, "gamma": 0.3, "hub_degree": 512,
            "hub_cache": "off", "small_frontier": "single_block", "frontier_limit": 2048,
            "inline_degree": "off", "pull_gate": "off"}
#: Values invalid with another field's value, whatever else is given: (field, value) -> (field, value).
#: SSSP relaxes by push only (pull levels are BFS's any-parent operator) and without the hash culling
#: (dropping a repeated neighbour is exact only for BFS's claim-once operator).
EXCLUDED = {("direction", "push_pull"): ("algorithm", "sssp"), ("duplicate_culling", "hash"): ("algorithm", "sssp")}
#: The table size, group by group (see test_count_configs_full_table). The BFS part is the whole table of
#: the release before SSSP.
N_BFS_CONFIGS = 31_519_488
N_SSSP_CONFIGS = 2_062_464
N_CONFIGS = N_BFS_CONFIGS + N_SSSP_CONFIGS
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
#: SSSP configs: their canonical JSON holds every field, the three SSSP ones included (new ids, pinned here).
SSSP_PINNED = [
    (dict(algorithm="sssp"),
     '{"algorithm":"sssp","alpha":null,"beta":null,"block_gathering":"off","block_size":256,"chunk_size":null,'
     '"dc_large":null,"dc_middle":null,"dc_small":null,"defer_outliers":"off","delta":1,"direction":"push",'
     '"duplicate_culling":"none","frontier_limit":2048,"gamma":null,"hub_cache":null,"hub_degree":null,'
     '"load_balance":"vertex_mapped","min_virtual_warp_size":4,"small_frontier":"single_block",'
     '"sssp_method":"delta_stepping","supplementary_queues":"off","switch_rule":null,"virtual_warp_size":"dynamic",'
     '"warp_gathering":"off","work_chunk":"static"}',
     "c-16ced3b7c951"),
    (dict(algorithm="sssp", sssp_method="bellman_ford", load_balance="binary_search", block_size=512,
          small_frontier="none"),
     '{"algorithm":"sssp","alpha":null,"beta":null,"block_gathering":null,"block_size":512,"chunk_size":"dynamic",'
     '"dc_large":null,"dc_middle":null,"dc_small":null,"defer_outliers":null,"delta":null,"direction":"push",'
     '"duplicate_culling":"none","frontier_limit":null,"gamma":null,"hub_cache":null,"hub_degree":null,'
     '"load_balance":"binary_search","min_virtual_warp_size":null,"small_frontier":"none",'
     '"sssp_method":"bellman_ford","supplementary_queues":null,"switch_rule":null,"virtual_warp_size":null,'
     '"warp_gathering":null,"work_chunk":null}',
     "c-83ba9a99b562"),
    (dict(algorithm="sssp", sssp_method="near_far", delta=0.25, load_balance="degree_classified", dc_small=16,
          dc_middle=1024, small_frontier="persistent", frontier_limit=8192),
     '{"algorithm":"sssp","alpha":null,"beta":null,"block_gathering":null,"block_size":256,"chunk_size":null,'
     '"dc_large":65536,"dc_middle":1024,"dc_small":16,"defer_outliers":null,"delta":0.25,"direction":"push",'
     '"duplicate_culling":"none","frontier_limit":8192,"gamma":null,"hub_cache":null,"hub_degree":null,'
     '"load_balance":"degree_classified","min_virtual_warp_size":null,"small_frontier":"persistent",'
     '"sssp_method":"near_far","supplementary_queues":null,"switch_rule":null,"virtual_warp_size":null,'
     '"warp_gathering":null,"work_chunk":null}',
     "c-774d83af8065"),
    (dict(algorithm="sssp", delta=64, load_balance="scan_mapped", warp_gathering=32, block_gathering="block_size"),
     '{"algorithm":"sssp","alpha":null,"beta":null,"block_gathering":"block_size","block_size":256,"chunk_size":null,'
     '"dc_large":null,"dc_middle":null,"dc_small":null,"defer_outliers":null,"delta":64,"direction":"push",'
     '"duplicate_culling":"none","frontier_limit":2048,"gamma":null,"hub_cache":null,"hub_degree":null,'
     '"load_balance":"scan_mapped","min_virtual_warp_size":null,"small_frontier":"single_block",'
     '"sssp_method":"delta_stepping","supplementary_queues":"off","switch_rule":null,"virtual_warp_size":null,'
     '"warp_gathering":32,"work_chunk":null}',
     "c-92c49efa584d"),
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
        # the traversal: SSSP has a method; the bucketed methods (not Bellman-Ford) a bucket width
        alg = always("algorithm")
        m = when("sssp_method", alg == "sssp")
        when("delta", m in ("delta_stepping", "near_far"))
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
        # BFS-only values: SSSP neither culls by hash nor runs pull levels
        if always("duplicate_culling") == "hash" and alg == "sssp":
            raise _Invalid("duplicate_culling")
        # direction: push has no switch knobs; push_pull has a rule, beta, the hub cache and the rule's knobs
        d = always("direction")
        if d == "push_pull" and alg == "sssp":
            raise _Invalid("direction")
        sr = when("switch_rule", d == "push_pull")
        when("alpha", sr == "alpha_beta")
        when("beta", d == "push_pull")
        when("gamma", sr == "hub_ratio")
        when("hub_degree", sr == "hub_ratio")
        when("hub_cache", d == "push_pull")
        # small frontier: a limit with the single-block and the persistent kernels
        sf = always("small_frontier")
        when("frontier_limit", sf in ("single_block", "persistent"))
        # in-place expansion: SSSP Bellman-Ford on the persistent kernel only
        when("inline_degree", m == "bellman_ford" and sf == "persistent")
        # the gate on Beamer's push -> pull switch
        when("pull_gate", sr == "alpha_beta")
    except _Invalid:
        return None
    return {name: out[name] for name in FIELD_ORDER}


def expected_valid(**kwargs) -> bool:
    return expected_fields(**kwargs) is not None


def expected_label(c: TraversalConfig) -> str:
    s = c.load_balance
    if c.algorithm == "sssp":
        s = f"sssp:{c.sssp_method}" + ("" if c.sssp_method == "bellman_ford" else f"(dx{c.delta})") + "/" + s
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
        s += f"/push_pull(a{c.alpha},b{c.beta}" + (",gate)" if c.pull_gate == "beta" else ")")
    else:
        s += f"/push_pull(g{c.gamma},t{c.hub_degree},b{c.beta})"
    if c.hub_cache == "on":
        s += "/hubcache"
    if c.small_frontier == "single_block":
        s += f"/sb{c.frontier_limit}"
    elif c.small_frontier == "persistent":
        s += f"/persist{c.frontier_limit}"
    if c.inline_degree not in (None, "off"):
        s += f"/inline{c.inline_degree}"
    return s


# --------------------------------------------------------------------------- enumeration, independently
def _expected_iter(V=VALUES):
    """Every valid config (as dicts) in table order, enumerated group by group from the design table
    (with allowed values *V*), lazily; not from the module."""
    none = dict.fromkeys(FIELD_ORDER)

    def traversals():
        for alg in V["algorithm"]:
            if alg == "bfs":
                yield dict(algorithm=alg)
                continue
            for m in V["sssp_method"]:
                for dl in (V["delta"] if m != "bellman_ford" else (None,)):
                    yield dict(algorithm=alg, sssp_method=m, delta=dl)

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

    def directions(sssp):
        for d in V["direction"]:
            if d == "push":
                yield dict(direction=d)
                continue
            if sssp:  # pull levels are BFS-only
                continue
            for sr in V["switch_rule"]:
                if sr == "alpha_beta":  # field order: alpha, beta, hub_cache
                    for a, b, hc in itertools.product(V["alpha"], V["beta"], V["hub_cache"]):
                        yield dict(direction=d, switch_rule=sr, alpha=a, beta=b, hub_cache=hc)
                else:  # beta, gamma, hub_degree, hub_cache
                    for b, g, h, hc in itertools.product(V["beta"], V["gamma"], V["hub_degree"], V["hub_cache"]):
                        yield dict(direction=d, switch_rule=sr, beta=b, gamma=g, hub_degree=h, hub_cache=hc)

    def small_frontier(method):
        for sf in V["small_frontier"]:
            for fl in (V["frontier_limit"] if sf != "none" else (None,)):
                inline = V["inline_degree"] if (method == "bellman_ford" and sf == "persistent") else (None,)
                for inl in inline:
                    yield dict(small_frontier=sf, frontier_limit=fl, inline_degree=inl)

    for tr in traversals():
        sssp = tr["algorithm"] == "sssp"
        culls = tuple(c for c in V["duplicate_culling"] if not (sssp and c == "hash"))  # hash: BFS-only
        for t, bs, cull, d, s in itertools.product(technique(), V["block_size"], culls, list(directions(sssp)),
                                                   list(small_frontier(tr.get("sssp_method")))):
            for gate in (V["pull_gate"] if d.get("switch_rule") == "alpha_beta" else (None,)):
                yield {**none, **tr, **t, "block_size": bs, "duplicate_culling": cull, **d, **s, "pull_gate": gate}


def _expected_count(V=VALUES) -> int:
    """The table size from the design table by arithmetic (groups multiply)."""
    n_vw = sum(len(V["min_virtual_warp_size"]) if v == "dynamic" else 1 for v in V["virtual_warp_size"])
    n_sup = len(V["warp_gathering"]) * len(V["block_gathering"]) * len(V["supplementary_queues"])
    per_lb = {"vertex_mapped": n_vw * len(V["defer_outliers"]) * len(V["work_chunk"]) * n_sup,
              "scan_mapped": n_sup, "binary_search": len(V["chunk_size"]),
              "degree_classified": len(V["dc_small"]) * len(V["dc_middle"]) * len(V["dc_large"]),
              "edge_mapped": 1}
    n_rule = {"alpha_beta": len(V["alpha"]) * len(V["beta"]) * len(V["pull_gate"]),
              "hub_ratio": len(V["gamma"]) * len(V["hub_degree"]) * len(V["beta"])}
    n_pp = len(V["hub_cache"]) * sum(n_rule[r] for r in V["switch_rule"])
    # per algorithm: its traversal variants, culling modes and directions (SSSP: no hash, no push_pull)
    n_trav = {"bfs": 1, "sssp": sum(1 if m == "bellman_ford" else len(V["delta"]) for m in V["sssp_method"])}
    n_cull = {"bfs": len(V["duplicate_culling"]), "sssp": sum(c != "hash" for c in V["duplicate_culling"])}
    n_dir = {"bfs": sum(1 if d == "push" else n_pp for d in V["direction"]),
             "sssp": sum(d == "push" for d in V["direction"])}
    n_sf = sum(1 if s == "none" else len(V["frontier_limit"]) for s in V["small_frontier"])
    # Bellman-Ford's persistent kernel also takes the in-place expansion's degrees
    n_sf_bf = n_sf + ("persistent" in V["small_frontier"]) * len(V["frontier_limit"]) * (len(V["inline_degree"]) - 1)
    n_bf = ("bellman_ford" in V["sssp_method"])
    n_sf_sssp = (n_trav["sssp"] - n_bf) * n_sf + n_bf * n_sf_bf
    return (sum(per_lb[lb] for lb in V["load_balance"]) * len(V["block_size"])
            * sum((n_sf_sssp if a == "sssp" else n_sf * n_trav[a]) * n_cull[a] * n_dir[a] for a in V["algorithm"]))


def _allowed_here(name, values) -> tuple:
    """The allowed values of *name* given the earlier fields' *values* (EXCLUDED applied)."""
    return tuple(a for a in VALUES[name]
                 if not ((name, a) in EXCLUDED and values.get(EXCLUDED[name, a][0]) == EXCLUDED[name, a][1]))


def _walk(rng: random.Random, algorithm: str) -> TraversalConfig:
    """A config of *algorithm* drawn by walking the design table with random choices (each applicable field
    uniform over the values allowed with the earlier ones)."""
    kw: dict = {"algorithm": algorithm}
    for name in FIELD_ORDER[1:]:
        kw[name] = rng.choice(_allowed_here(name, kw)) if name not in APPLIES or APPLIES[name](kw) else None
    return TraversalConfig(**kw)


def _sample() -> tuple[TraversalConfig, ...]:
    """A deterministic sample of the table: the sweep sets (portfolio, grid), the first configs in
    table order, 4000 seeded random BFS walks (the same configs as before SSSP existed: a BFS walk draws
    nothing for the SSSP fields) and 2000 seeded SSSP walks (every technique, field and value shows up)."""
    from autotune.sweep import grid, portfolio

    rng, rng_sssp = random.Random(20687616), random.Random(1558656)
    out: dict = {}
    for c in itertools.chain(portfolio(), grid(), itertools.islice(iter_configs(), 1500),
                             (_walk(rng, "bfs") for _ in range(4000)), (_walk(rng_sssp, "sssp") for _ in range(2000))):
        out.setdefault(c, c)
    return tuple(out)


ALL = _sample()
ALL_SET = frozenset(ALL)
BFS_ALL = tuple(c for c in ALL if c.algorithm == "bfs")
SSSP_ALL = tuple(c for c in ALL if c.algorithm == "sssp")


def _restricted(V):
    """``_FIELDS`` with the allowed values replaced by *V* (rules, exclusions and defaults unchanged)."""
    return {n: dataclasses.replace(spec, allowed=tuple(V[n])) for n, spec in config_module._FIELDS.items()}


#: A small table of the same shape: every algorithm, SSSP method, technique, direction, rule and
#: small-frontier mode (the values the rules read) with few values of the other knobs.
SMALL_V = {**VALUES, "delta": (1, 16), "virtual_warp_size": (4, "dynamic"), "min_virtual_warp_size": (2,),
           "defer_outliers": ("off", 2048), "work_chunk": ("static",), "warp_gathering": ("off", 32),
           "block_gathering": ("off",), "supplementary_queues": ("off", "half_resident"),
           "dc_small": (16, 32), "dc_middle": (256,), "block_size": (256,), "alpha": (15,), "beta": (6, 18),
           "gamma": (0.3,), "hub_degree": (64, 512), "frontier_limit": (512, 32768)}
#: SMALL_V's BFS part: the small table before SSSP.
SMALL_BFS_V = {**SMALL_V, "algorithm": ("bfs",)}
#: SMALL_V's SSSP part.
SMALL_SSSP_V = {**SMALL_V, "algorithm": ("sssp",)}
#: The previous release's table (7,696 configs) as a restriction of this one: BFS, two techniques,
#: every new knob at its default, no persistent kernel, no 32768 limit.
PREV_V = {**VALUES, "algorithm": ("bfs",), "load_balance": ("vertex_mapped", "binary_search"),
          "defer_outliers": ("off",),
          "work_chunk": ("static",), "warp_gathering": ("off",), "block_gathering": ("off",),
          "supplementary_queues": ("off",), "chunk_size": ("dynamic",), "duplicate_culling": ("none",),
          "hub_cache": ("off",), "small_frontier": ("none", "single_block"), "frontier_limit": (512, 2048, 8192),
          "pull_gate": ("off",)}


def _canonical_json(d: dict) -> str:
    """The canonical JSON of the config whose fields are *d*: a BFS config's leaves out the SSSP fields
    (so it is the JSON, and the id, of the same strategy before SSSP existed); an SSSP config's has all."""
    if d["algorithm"] == "bfs":
        assert (d["sssp_method"], d["delta"]) == (None, None), d
        d = {k: v for k, v in d.items() if k not in SSSP_FIELDS}
    # later fields are left out while neutral or off (the configs before them keep their ids)
    d = {k: v for k, v in d.items() if not (k in LATER_FIELDS and v in (None, "off"))}
    return json.dumps(d, sort_keys=True, separators=(",", ":"))


def _canonical_id(d: dict) -> str:
    return "c-" + hashlib.sha256(_canonical_json(d).encode()).hexdigest()[:12]


def _repo_root():
    return Path(__file__).resolve().parents[1]


# Candidate values per field, valid ones, None, and invalid ones (wrong value or wrong type).
CAND = {
    "algorithm": ALGOS + (None, "dfs", "SSSP", True),
    "sssp_method": SSSP_METHODS + (None, "dijkstra", "bellman-ford", 1),
    "delta": DELTAS + (None, 0, 0.5, 2, 1.0, 4.0, "1", True),
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
    "inline_degree": INLINE + (None, "on", 16, 8.0, True),
    "pull_gate": GATES + (None, "on", "BETA", True),
}
TECHNIQUE_FIELDS = BFS_FIELD_ORDER[1:12]


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
    assert m.ALGORITHMS == ALGOS and m.SSSP_METHODS == SSSP_METHODS and m.DELTA_SCALES == DELTAS
    assert m.INLINE_DEGREES == INLINE
    assert tuple(map(type, m.DELTA_SCALES)) == (float, int, int, int, int)
    # the technique names come from the registry, in the same order
    from autotune.techniques import TECHNIQUES
    assert tuple(TECHNIQUES) == LB
    assert {n for n, t in TECHNIQUES.items() if t.virtual_warps} == {"vertex_mapped"}
    assert {n for n, t in TECHNIQUES.items() if t.gathering} == {"vertex_mapped", "scan_mapped"}
    # the new fields are the dataclass's last (positional construction unchanged) and the table's first
    assert tuple(f.name for f in dataclasses.fields(TraversalConfig)) == DATACLASS_ORDER
    assert tuple(default_config().to_dict()) == FIELD_ORDER
    # the validation table row by row: values, defaults, which fields are conditional and on what
    assert tuple(m._FIELDS) == FIELD_ORDER
    for name, spec in m._FIELDS.items():
        assert spec.allowed == VALUES[name], name
        assert tuple(map(type, spec.allowed)) == tuple(map(type, VALUES[name])), name
        assert spec.default == DEFAULTS[name] and type(spec.default) is type(DEFAULTS[name]), name
        assert spec.conditional == (name in APPLIES), name
        assert spec.depends_on == (_deps(name) if name in DEPENDS_ON else ()), name
        assert {(name, v): (f, fv) for v, (f, fv, _why) in spec.excluded_by.items()} == {
            k: e for k, e in EXCLUDED.items() if k[0] == name}, name


def test_applies_map_agrees_with_rule_on_sampled_configs():
    """The two independent formulations used here (APPLIES/DEFAULTS and expected_fields) agree."""
    for c in ALL:
        d = c.to_dict()
        assert expected_fields(**d) == d, c
        for name in FIELD_ORDER:
            if name in APPLIES and not APPLIES[name](d):
                assert d[name] is None, (c, name)
            else:
                assert _in(d[name], _allowed_here(name, d)), (c, name)


def test_sample_covers_every_technique_field_and_value():
    """ALL (the sample the other tests iterate) holds every allowed value of every field, for every
    algorithm and technique the field applies to (and with SSSP no BFS-only value)."""
    assert len(BFS_ALL) >= 4000 and len(SSSP_ALL) >= 1500 and len(ALL_SET) == len(ALL)
    for alg, lb in itertools.product(ALGOS, LB):
        mine = [c for c in ALL if c.algorithm == alg and c.load_balance == lb]
        for name in FIELD_ORDER:
            if name in ("algorithm", "load_balance"):
                continue
            seen = {repr(getattr(c, name)) for c in mine}
            if name in APPLIES and not any(APPLIES[name](c.to_dict()) for c in mine):
                assert seen == {"None"}, (alg, lb, name)
            else:
                allowed = {repr(v) for v in _allowed_here(name, {"algorithm": alg})}
                assert allowed <= seen and seen - allowed <= {"None"}, (alg, lb, name, seen)
    assert {(c.sssp_method, c.delta) for c in SSSP_ALL} == {("bellman_ford", None)} | set(
        itertools.product(("delta_stepping", "near_far"), DELTAS))


# --------------------------------------------------------------------------- defaults / enumeration
def test_default_config():
    c = default_config()
    assert c == TraversalConfig()
    assert c.to_dict() == {"algorithm": "bfs", "sssp_method": None, "delta": None,
                           "load_balance": "vertex_mapped", "virtual_warp_size": "dynamic",
                           "min_virtual_warp_size": 4, "defer_outliers": "off", "work_chunk": "static",
                           "warp_gathering": "off", "block_gathering": "off", "supplementary_queues": "off",
                           "chunk_size": None, "dc_small": None, "dc_middle": None, "dc_large": None,
                           "block_size": 256, "duplicate_culling": "none", "direction": "push",
                           "switch_rule": None, "alpha": None, "beta": None, "gamma": None, "hub_degree": None,
                           "hub_cache": None, "small_frontier": "single_block", "frontier_limit": 2048,
                           "inline_degree": None, "pull_gate": None}
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


@pytest.mark.parametrize("kwargs, canonical, cid", SSSP_PINNED, ids=[p[2] for p in SSSP_PINNED])
def test_sssp_config_ids_pinned(kwargs, canonical, cid):
    c = TraversalConfig(**kwargs)
    assert c.algorithm == "sssp"
    assert c.to_json() == canonical == _canonical_json(c.to_dict())
    # every field, the SSSP ones included (the later ones only when on)
    assert tuple(json.loads(canonical)) == tuple(sorted(set(FIELD_ORDER) - set(LATER_FIELDS)))
    assert "c-" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()[:12] == cid
    assert c.config_id == cid
    assert TraversalConfig.from_json(canonical) == c
    # the same strategy as BFS is another config, with another id
    bfs = c.with_(algorithm="bfs")
    assert bfs != c and bfs.config_id != cid and '"algorithm"' not in bfs.to_json()


def test_config_id_stable_across_processes():
    """A deterministic sample (every 23rd sampled config, the pinned ones, and every 97th of the first
    20,000 in table order) gets the same ids, in the same order, in fresh processes."""
    pinned = PINNED + SSSP_PINNED
    sample = [c.to_dict() for c in ALL[::23]] + [TraversalConfig(**k).to_dict() for k, _, _ in pinned]
    code = ("import itertools, json, sys; from autotune.config import TraversalConfig, iter_configs; "
            "print(' '.join(TraversalConfig.from_dict(d).config_id for d in json.load(sys.stdin))); "
            "print(' '.join(c.config_id for c in itertools.islice(iter_configs(), 0, 20000, 97)))")
    expected = [[TraversalConfig.from_dict(d).config_id for d in sample],
                [_canonical_id(d) for d in itertools.islice(_expected_iter(), 0, 20000, 97)]]
    assert expected[0] == [_canonical_id(d) for d in sample]
    assert expected[0][-len(pinned):] == [p[2] for p in pinned]
    assert len(expected[0]) >= 200 and len(expected[1]) >= 200
    assert sum(d["algorithm"] == "sssp" for d in sample) >= 60
    for seed in ("0", "1", "random"):
        out = subprocess.run([sys.executable, "-c", code], input=json.dumps(sample), capture_output=True, text=True,
                             check=True, env={**os.environ, "PYTHONHASHSEED": seed}, cwd=str(_repo_root()))
        assert [line.split() for line in out.stdout.splitlines()] == expected


def test_count_configs_full_table(monkeypatch):
    # techniques: vertex_mapped (6 fixed warps + dynamic x 6 minimums = 12) x 4 defer x 3 work chunks
    #   x 27 supports = 3888; scan_mapped 27 supports; binary_search 2 chunk sizes;
    #   degree_classified 3 x 3 x 2 thresholds = 18; edge_mapped 1  -> 3936
    # BFS: block sizes 4 x culling 2; directions: push 1 + push_pull (alpha_beta 3 x 3 x 2 pull gates
    #   + hub_ratio 3 x 3 x 3) x hub cache 2 = 91; small frontier: none 1 + (single_block, persistent) x 5 limits = 11
    # SSSP: methods bellman_ford 1 + (delta_stepping, near_far) x 5 deltas = 11; block sizes 4 x culling 1
    #   (no hash) x direction 1 (push only) x small frontier 11, but Bellman-Ford's persistent kernel
    #   x 3 inline degrees: 1 + 5 + 5 x 3 = 21
    assert (12 * 4 * 3 * 27 + 27 + 2 + 18 + 1) * 4 * 2 * 91 * 11 == N_BFS_CONFIGS
    assert (12 * 4 * 3 * 27 + 27 + 2 + 18 + 1) * 4 * 1 * 1 * (10 * 11 + 1 * 21) == N_SSSP_CONFIGS
    assert N_CONFIGS == 33_581_952
    assert _expected_count() == N_CONFIGS
    assert _expected_count({**VALUES, "algorithm": ("bfs",)}) == N_BFS_CONFIGS
    assert _expected_count({**VALUES, "algorithm": ("sssp",)}) == N_SSSP_CONFIGS
    assert count_configs() == N_CONFIGS
    assert count_configs() == N_CONFIGS  # memoised or not, the same answer
    # each algorithm alone (the table restricted to it)
    for alg, n in (("bfs", N_BFS_CONFIGS), ("sssp", N_SSSP_CONFIGS)):
        monkeypatch.setattr(config_module, "_FIELDS", _restricted({**VALUES, "algorithm": (alg,)}))
        assert count_configs() == n, alg


@pytest.mark.parametrize("V, n, has_default", [(SMALL_V, 4590 + 783, False), (SMALL_BFS_V, 4590, False),
                                                (SMALL_SSSP_V, 783, False), (PREV_V, 7696, True)],
                         ids=["small", "small_bfs", "small_sssp", "previous_release"])
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
    assert [c.config_id for c in got] == [_canonical_id(d) for d in exp]
    assert (expected_fields() in exp) == has_default
    # table order: every BFS config before every SSSP config (algorithm is the first row)
    algs = [c.algorithm for c in got]
    assert algs == sorted(algs, key=ALGOS.index) and set(algs) == set(V["algorithm"])


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
    assert len(seen) == 4 * 2 * (1 + 2 * 5)


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
    ("algorithm", "dfs", {}, "'bfs', 'sssp'"),
    ("algorithm", "SSSP", {}, "'bfs', 'sssp'"),
    ("sssp_method", "dijkstra", {"algorithm": "sssp"}, "'bellman_ford', 'delta_stepping', 'near_far'"),
    ("delta", 2, {"algorithm": "sssp"}, "0.25, 1, 4, 16, 64"),
    ("delta", 0.5, {"algorithm": "sssp", "sssp_method": "near_far"}, "0.25, 1, 4, 16, 64"),
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
SSSP = {"algorithm": "sssp"}
NEAR_FAR = {"algorithm": "sssp", "sssp_method": "near_far"}
HUB = {"direction": "push_pull", "switch_rule": "hub_ratio"}
SCAN = {"load_balance": "scan_mapped"}
BSEARCH = {"load_balance": "binary_search"}
DCL_ = {"load_balance": "degree_classified"}


@pytest.mark.parametrize("field, value, context", [
    ("algorithm", True, {}), ("sssp_method", 1, SSSP), ("delta", 1.0, SSSP), ("delta", 4.0, NEAR_FAR),
    ("delta", True, SSSP), ("delta", "16", NEAR_FAR), ("delta", 0, SSSP),
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
    c = TraversalConfig(algorithm=np.str_("sssp"), sssp_method=np.str_("near_far"), delta=np.int64(16))
    assert (type(c.algorithm), type(c.sssp_method), type(c.delta)) == (str, str, int)
    assert c.to_json() == TraversalConfig(algorithm="sssp", sssp_method="near_far", delta=16).to_json()


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


# --------------------------------------------------------------------------- the second traversal: SSSP
def test_sssp_defaults_and_neutral_values():
    c = TraversalConfig(algorithm="sssp")
    assert (c.algorithm, c.sssp_method, c.delta) == ("sssp", "delta_stepping", 1) and type(c.delta) is int
    # the rest of the strategy is BFS's default (push, no culling)
    assert c.to_dict() == {**default_config().to_dict(), "algorithm": "sssp", "sssp_method": "delta_stepping",
                           "delta": 1}
    assert TraversalConfig(algorithm="sssp", sssp_method="near_far").delta == 1
    assert TraversalConfig(algorithm="sssp", sssp_method="bellman_ford").delta is None
    for m, dl in itertools.product(("delta_stepping", "near_far"), DELTAS):
        c = TraversalConfig(algorithm="sssp", sssp_method=m, delta=dl)
        assert c.delta == dl and type(c.delta) is type(dl)
    bfs = TraversalConfig()
    assert (bfs.algorithm, bfs.sssp_method, bfs.delta) == ("bfs", None, None)
    # every technique, block size and small-frontier mode runs with SSSP
    for lb, bs, sf in itertools.product(LB, BS, SF):
        c = TraversalConfig(algorithm="sssp", load_balance=lb, block_size=bs, small_frontier=sf)
        assert c.to_dict() == expected_fields(algorithm="sssp", load_balance=lb, block_size=bs, small_frontier=sf)


@pytest.mark.parametrize("kwargs, field, value, condition, here", [
    (dict(sssp_method="bellman_ford"), "sssp_method", "bellman_ford", "algorithm == 'sssp'", "algorithm='bfs'"),
    (dict(sssp_method="near_far"), "sssp_method", "near_far", "algorithm == 'sssp'", "algorithm='bfs'"),
    (dict(delta=1), "delta", 1, "sssp_method in ['delta_stepping', 'near_far']", "sssp_method=None"),
    (dict(algorithm="bfs", delta=64), "delta", 64, "sssp_method in ['delta_stepping', 'near_far']",
     "sssp_method=None"),
    (dict(sssp_method="delta_stepping", delta=4), "sssp_method", "delta_stepping", "algorithm == 'sssp'",
     "algorithm='bfs'"),
])
def test_sssp_fields_rejected_for_bfs(kwargs, field, value, condition, here):
    """An SSSP knob with BFS names the field, its value, where it applies and the value that rules it out."""
    with pytest.raises(ValueError) as info:
        TraversalConfig(**kwargs)
    msg = str(info.value)
    assert f"TraversalConfig.{field}={value!r} does not apply" in msg
    assert condition in msg and here in msg and "leave it None" in msg
    as_sssp = {**kwargs, "algorithm": "sssp"}
    assert TraversalConfig(**as_sssp).to_dict() == expected_fields(**as_sssp)


@pytest.mark.parametrize("field, value", [("direction", "push_pull"), ("duplicate_culling", "hash")])
@pytest.mark.parametrize("method", SSSP_METHODS)
def test_sssp_exclusions_name_both_fields(field, value, method):
    """push_pull and hash culling are BFS-only: with SSSP they raise naming both fields, whatever else."""
    assert EXCLUDED[field, value] == ("algorithm", "sssp")
    for lb in LB:
        for extra in ({}, {"small_frontier": "none"}, {"block_size": 1024}):
            kwargs = dict(algorithm="sssp", sssp_method=method, load_balance=lb, **{field: value}, **extra)
            assert not expected_valid(**kwargs)
            with pytest.raises(ValueError) as info:
                TraversalConfig(**kwargs)
            msg = str(info.value)
            assert f"TraversalConfig.{field}={value!r} does not apply with algorithm='sssp'" in msg
            assert "BFS" in msg  # the reason
            # the same strategy as BFS is valid
            assert getattr(TraversalConfig(**{**kwargs, "algorithm": "bfs", "sssp_method": None}), field) == value
    # the push_pull knobs do not make it valid, and are not what is reported
    if field == "direction":
        with pytest.raises(ValueError, match=r"TraversalConfig\.direction='push_pull' does not apply with algorithm"):
            TraversalConfig(algorithm="sssp", direction="push_pull", switch_rule="hub_ratio", gamma=0.5, hub_cache="on")
    # both at once: the first in table order (duplicate_culling) is reported
    with pytest.raises(ValueError, match=r"TraversalConfig\.duplicate_culling='hash' does not apply with algorithm"):
        TraversalConfig(algorithm="sssp", duplicate_culling="hash", direction="push_pull")


def test_validation_traversal_group_exhaustive():
    """Every combination of algorithm/sssp_method/delta/duplicate_culling/direction/switch_rule candidates."""
    names = ("algorithm", "sssp_method", "delta", "duplicate_culling", "direction", "switch_rule")
    seen = set()
    for values in itertools.product(*(CAND[n] for n in names)):
        c = _check_against_rule(dict(zip(names, values)))
        if c is not None:
            seen.add(tuple(getattr(c, n) for n in names))
    # BFS: culling 2 x (push + push_pull x 2 rules); SSSP: (bellman_ford + 2 methods x 5 deltas), none, push
    assert len(seen) == 2 * 3 + 11
    assert {s[3:5] for s in seen if s[0] == "sssp"} == {("none", "push")}


def test_positional_construction_unchanged():
    """The new fields come last in the dataclass: the 23 positional fields of the BFS table keep their places."""
    assert TraversalConfig("binary_search") == TraversalConfig(load_balance="binary_search")
    assert TraversalConfig("vertex_mapped", 8, None, "off", "static", "off", "off", "off", None, None, None, None,
                           1024) == TraversalConfig(virtual_warp_size=8, block_size=1024)
    for c in ALL[::7]:
        assert TraversalConfig(*(getattr(c, n) for n in DATACLASS_ORDER)) == c
        if c.algorithm == "bfs" and c.pull_gate in (None, "off"):  # a later field at its neutral value
            assert TraversalConfig(*(getattr(c, n) for n in BFS_FIELD_ORDER)) == c


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
    (dict(algorithm="bfs"), "vertex_mapped/vw=dynamic(min4)/b256/push/sb2048"),
    (dict(algorithm="sssp"), "sssp:delta_stepping(dx1)/vertex_mapped/vw=dynamic(min4)/b256/push/sb2048"),
    (dict(algorithm="sssp", sssp_method="bellman_ford", load_balance="binary_search", small_frontier="none"),
     "sssp:bellman_ford/binary_search/chunk=dynamic/b256/push"),
    (dict(algorithm="sssp", sssp_method="near_far", delta=0.25, load_balance="edge_mapped", block_size=1024),
     "sssp:near_far(dx0.25)/edge_mapped/b1024/push/sb2048"),
    (dict(algorithm="sssp", delta=64, load_balance="scan_mapped", warp_gathering=128, small_frontier="persistent"),
     "sssp:delta_stepping(dx64)/scan_mapped/wg=128/b256/push/persist2048"),
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
    # the SSSP knobs with BFS, and the bucket width with Bellman-Ford
    (dict(sssp_method="bellman_ford"), "sssp_method", "bellman_ford", "algorithm='bfs'"),
    (dict(algorithm="bfs", sssp_method="delta_stepping"), "sssp_method", "delta_stepping", "algorithm='bfs'"),
    (dict(delta=4), "delta", 4, "sssp_method=None"),
    (dict(algorithm="bfs", delta=0.25), "delta", 0.25, "sssp_method=None"),
    (dict(algorithm="sssp", sssp_method="bellman_ford", delta=1), "delta", 1, "sssp_method='bellman_ford'"),
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
    assert TraversalConfig(algorithm="bfs") == a and TraversalConfig(algorithm="bfs").config_id == a.config_id
    s = TraversalConfig(algorithm="sssp")
    t = TraversalConfig(algorithm="sssp", sssp_method="delta_stepping", delta=1, direction="push",
                        duplicate_culling="none")
    assert s == t and hash(s) == hash(t) and s.config_id == t.config_id
    assert TraversalConfig(algorithm="sssp", sssp_method="bellman_ford") == TraversalConfig(
        algorithm="sssp", sssp_method="bellman_ford", delta=None)
    assert len({a, s, s.with_(sssp_method="near_far"), s.with_(sssp_method="bellman_ford"), s.with_(delta=4)}) == 5


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


NO_PULL = r"TraversalConfig\.direction='push_pull' does not apply with algorithm='sssp'"
NO_HASH = r"TraversalConfig\.duplicate_culling='hash' does not apply with algorithm='sssp'"


def test_with_algorithm_transitions():
    c = default_config()
    s = c.with_(algorithm="sssp")  # the SSSP knobs come with their defaults, the rest is kept
    assert s == TraversalConfig(algorithm="sssp") and (s.sssp_method, s.delta) == ("delta_stepping", 1)
    assert s.with_(algorithm="bfs") == c and s.with_(algorithm="bfs").config_id == DEFAULT_ID  # nothing remembered
    k = TraversalConfig(virtual_warp_size=4, defer_outliers=256, block_size=128, small_frontier="persistent",
                        frontier_limit=512)
    assert k.with_(algorithm="sssp").to_dict() == {**k.to_dict(), "algorithm": "sssp",
                                                    "sssp_method": "delta_stepping", "delta": 1}
    assert k.with_(algorithm="sssp", sssp_method="bellman_ford").delta is None
    # the method: delta kept between the bucketed methods, dropped by Bellman-Ford, refilled after it
    nf = TraversalConfig(algorithm="sssp", sssp_method="near_far", delta=16)
    assert nf.with_(sssp_method="delta_stepping").delta == 16
    bf = nf.with_(sssp_method="bellman_ford")
    assert bf.delta is None and bf == TraversalConfig(algorithm="sssp", sssp_method="bellman_ford")
    assert bf.with_(sssp_method="near_far").delta == 1
    assert nf.with_(algorithm="bfs") == default_config()
    assert nf.with_(delta=0.25).delta == 0.25 and nf.with_(load_balance="edge_mapped").delta == 16
    # BFS-only values are not reset (they are not conditional): switching to SSSP with them raises ...
    pp = TraversalConfig(direction="push_pull", switch_rule="hub_ratio", hub_cache="on")
    with pytest.raises(ValueError, match=NO_PULL):
        pp.with_(algorithm="sssp")
    with pytest.raises(ValueError, match=NO_HASH):
        TraversalConfig(duplicate_culling="hash").with_(algorithm="sssp")
    with pytest.raises(ValueError, match=NO_PULL):
        s.with_(direction="push_pull")
    # ... unless they are changed at once (the push_pull knobs then go)
    assert pp.with_(algorithm="sssp", direction="push") == TraversalConfig(algorithm="sssp")
    assert TraversalConfig(duplicate_culling="hash").with_(algorithm="sssp", duplicate_culling="none") == s
    # the SSSP knobs are validated when named
    with pytest.raises(ValueError, match=r"TraversalConfig\.sssp_method='near_far' does not apply.*algorithm='bfs'"):
        c.with_(sssp_method="near_far")
    with pytest.raises(ValueError, match=r"TraversalConfig\.delta=4 does not apply.*sssp_method"):
        c.with_(delta=4)
    with pytest.raises(ValueError, match=r"TraversalConfig\.delta=4 does not apply.*sssp_method='bellman_ford'"):
        s.with_(sssp_method="bellman_ford", delta=4)
    with pytest.raises(ValueError, match=r"TraversalConfig\.sssp_method='near_far' does not apply.*algorithm='bfs'"):
        s.with_(algorithm="bfs", sssp_method="near_far")
    with pytest.raises(ValueError, match="TraversalConfig.delta"):
        s.with_(delta=2)


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


def _deps(field) -> tuple:
    """The fields *field*'s applicability reads (DEPENDS_ON holds one name or a tuple)."""
    d = DEPENDS_ON[field]
    return (d,) if isinstance(d, str) else d


def _closure(fields):
    """*fields* plus every field their applicability depends on (transitively)."""
    out = set(fields)
    while True:
        more = {d for f in out if f in DEPENDS_ON for d in _deps(f)} - out
        if not more:
            return out
        out |= more


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ALL), st.sampled_from(ALL), st.sets(st.sampled_from(FIELD_ORDER)))
def test_with_moves_between_any_two_configs(a, b, fields):
    """Changing every field that differs reaches b; changing a dependency-closed subset takes b's named
    values, keeps a's still-applicable ones, and defaults / neutralises the rest: a valid config, or a
    ValueError when that combination is excluded (e.g. a's push_pull with b's SSSP)."""
    diff = {k: v for k, v in b.to_dict().items() if getattr(a, k) != v}
    assert a.with_(**diff) == b
    assert a.with_(**b.to_dict()) == b
    named = _closure(fields)
    ad, exp = a.to_dict(), {}
    for k in FIELD_ORDER:
        if k in named:
            exp[k] = getattr(b, k)
        elif k not in APPLIES:
            exp[k] = ad[k]
        elif not APPLIES[k](exp):
            exp[k] = None
        elif APPLIES[k](ad):
            exp[k] = ad[k]
        else:
            exp[k] = DEFAULTS[k]
    if expected_fields(**exp) is None:
        bad = sorted((k for k, (f, v) in EXCLUDED.items() if exp[k[0]] == k[1] and exp[f] == v),
                     key=lambda k: FIELD_ORDER.index(k[0]))
        assert bad, exp  # only an exclusion can make it invalid; the first in table order is reported
        with pytest.raises(ValueError, match=rf"TraversalConfig\.{bad[0][0]}=.*does not apply with algorithm='sssp'"):
            a.with_(**{k: getattr(b, k) for k in named})
        return
    r = a.with_(**{k: getattr(b, k) for k in named})
    assert r.to_dict() == exp == expected_fields(**exp)  # a valid, canonical config of the table


def test_frozen_and_hashable():
    c = default_config()
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.block_size = 512
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.alpha = 15
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.warp_gathering = 32
    with pytest.raises(dataclasses.FrozenInstanceError):
        c.algorithm = "sssp"
    assert {c: 1}[TraversalConfig()] == 1


# --------------------------------------------------------------------------- serialisation
@settings(max_examples=300, deadline=None)
@given(st.sampled_from(ALL))
def test_json_round_trip(c):
    s = c.to_json()
    assert TraversalConfig.from_json(s) == c
    assert TraversalConfig.from_dict(c.to_dict()) == c
    assert TraversalConfig.from_dict(json.loads(s)) == c
    # later fields only when on (neutral or 'off': left out, so older configs keep their ids)
    later = {k: getattr(c, k) for k in LATER_FIELDS if getattr(c, k) not in (None, "off")}
    if c.algorithm == "bfs":  # every BFS-table field, null when neutral; the SSSP fields left out
        assert json.loads(s) == {k: v for k, v in c.to_dict().items() if k in BFS_FIELD_ORDER} | later
        assert tuple(json.loads(s)) == tuple(sorted(set(BFS_FIELD_ORDER) | set(later)))
        assert set(later) <= {"pull_gate"}  # the only later field of BFS
    else:  # every field, null when neutral
        assert json.loads(s) == {k: v for k, v in c.to_dict().items() if k not in LATER_FIELDS} | later
        assert tuple(json.loads(s)) == tuple(sorted(set(SSSP_FIELDS + BFS_FIELD_ORDER) | set(later)))
    assert s == _canonical_json(c.to_dict())
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
    s = TraversalConfig(algorithm="sssp").to_dict()
    with pytest.raises(ValueError, match="TraversalConfig.delta"):
        TraversalConfig.from_json(json.dumps({**s, "delta": 1.0}))  # 1.0 is not the scale 1
    with pytest.raises(ValueError, match="TraversalConfig.delta"):
        TraversalConfig.from_json(json.dumps({**s, "delta": "0.25"}))
    with pytest.raises(ValueError, match="TraversalConfig.algorithm"):
        TraversalConfig.from_json(json.dumps({**s, "algorithm": "SSSP"}))


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


def test_sssp_json_round_trip():
    """An SSSP config's canonical JSON holds every field (the SSSP ones included) and loads back to the same
    config, the delta scale keeping its type (0.25 a float, the others ints)."""
    assert len(SSSP_ALL) >= 1500
    for c in SSSP_ALL:
        s = c.to_json()
        on = {k for k in LATER_FIELDS if getattr(c, k) not in (None, "off")}
        assert s == _canonical_json(c.to_dict())
        assert tuple(json.loads(s)) == tuple(sorted(set(SSSP_FIELDS + BFS_FIELD_ORDER) | on))
        d = json.loads(s)
        assert (d["algorithm"], d["sssp_method"], d["delta"]) == (c.algorithm, c.sssp_method, c.delta)
        assert d["direction"] == "push" and d["duplicate_culling"] == "none"
        back = TraversalConfig.from_json(s)
        assert back == c and back.config_id == c.config_id == _canonical_id(c.to_dict()) and back.label == c.label
        assert type(back.delta) is type(c.delta)
        assert TraversalConfig.from_dict(c.to_dict()) == c
    for dl in DELTAS:
        c = TraversalConfig(algorithm="sssp", sssp_method="near_far", delta=dl)
        assert f'"delta":{dl},' in c.to_json()  # 1, not 1.0
        assert TraversalConfig.from_json(c.to_json()) == c
    # a partial SSSP record takes the SSSP defaults
    assert TraversalConfig.from_dict({"algorithm": "sssp"}) == TraversalConfig(
        algorithm="sssp", sssp_method="delta_stepping", delta=1)
    assert TraversalConfig.from_json('{"algorithm":"sssp","sssp_method":"bellman_ford"}').delta is None


def test_schema1_dicts_load_as_bfs_with_same_id():
    """Records written before SSSP existed (no algorithm / sssp_method / delta keys) load as BFS configs,
    whose canonical JSON is the record's: the same config_id (the committed logs rely on it)."""
    for kwargs, canonical, cid in PINNED:
        assert not set(SSSP_FIELDS) & set(json.loads(canonical))
        c = TraversalConfig.from_json(canonical)
        assert (c.algorithm, c.sssp_method, c.delta) == ("bfs", None, None)
        assert c == TraversalConfig(**kwargs) and c.to_json() == canonical and c.config_id == cid
        # spelling the BFS fields out changes nothing
        spelled = {**json.loads(canonical), "algorithm": "bfs", "sssp_method": None, "delta": None}
        assert TraversalConfig.from_dict(spelled) == c and TraversalConfig.from_dict(spelled).config_id == cid
        assert TraversalConfig.from_dict({**json.loads(canonical), "algorithm": "bfs"}).config_id == cid
        # ... and an SSSP knob in a BFS record is rejected
        with pytest.raises(ValueError, match=r"TraversalConfig\.sssp_method='bellman_ford' does not apply"):
            TraversalConfig.from_dict({**json.loads(canonical), "sssp_method": "bellman_ford"})
    # every sampled BFS config without a later knob on: its record without the SSSP keys gives it back,
    # with the schema-1 id (a gated config, pull_gate='beta', has no schema-1 twin)
    for c in BFS_ALL:
        if c.pull_gate == "beta":
            continue
        old = {k: v for k, v in c.to_dict().items() if k in BFS_FIELD_ORDER}
        back = TraversalConfig.from_dict(old)
        assert back == c and back.config_id == c.config_id == _canonical_id(c.to_dict())
        assert back.config_id == "c-" + hashlib.sha256(
            json.dumps(old, sort_keys=True, separators=(",", ":")).encode()).hexdigest()[:12]


def test_pull_gate_applies_to_alpha_beta_only_and_keeps_older_ids():
    """pull_gate: Beamer's rule only, 'off' by default there (every older push/pull config keeps its id and
    label), 'beta' a distinct config whose JSON and label name the gate."""
    off = TraversalConfig(load_balance="binary_search", direction="push_pull")
    assert off.pull_gate == "off" and off.config_id == TraversalConfig.from_json(off.to_json()).config_id
    assert "pull_gate" not in json.loads(off.to_json()) and "gate" not in off.label
    on = off.with_(pull_gate="beta")
    assert on != off and on.config_id != off.config_id and json.loads(on.to_json())["pull_gate"] == "beta"
    assert on.label.endswith("/push_pull(a15,b18,gate)/sb2048") and TraversalConfig.from_json(on.to_json()) == on
    assert on.with_(direction="push").pull_gate is None
    assert on.with_(switch_rule="hub_ratio").pull_gate is None
    assert TraversalConfig(direction="push_pull", pull_gate="beta").config_id == \
        TraversalConfig(direction="push_pull").with_(pull_gate="beta").config_id
    with pytest.raises(ValueError, match=r"TraversalConfig\.pull_gate='beta' does not apply"):
        TraversalConfig(direction="push", pull_gate="beta")
    with pytest.raises(ValueError, match=r"TraversalConfig\.pull_gate='beta' does not apply"):
        TraversalConfig(direction="push_pull", switch_rule="hub_ratio", pull_gate="beta")
    with pytest.raises(ValueError, match=r"TraversalConfig\.pull_gate: invalid value 'on'; allowed: 'off', 'beta'"):
        TraversalConfig(direction="push_pull", pull_gate="on")


def test_from_json_rejects_non_object():
    with pytest.raises(ValueError, match="JSON object"):
        TraversalConfig.from_json("[1, 2]")


def test_distinct_configs_distinct_ids():
    ids = {}
    for c in ALL:
        assert ids.setdefault(c.config_id, c) == c
        assert TraversalConfig.from_json(c.to_json()) == c
    assert len(ids) == len(ALL)


def test_inline_degree_applies_to_bellman_ford_on_the_persistent_kernel_only():
    """inline_degree: Bellman-Ford + persistent only, 'off' by default there (leaving every older SSSP
    config its id), named in the label when on, and rejected elsewhere naming the rule."""
    base = dict(algorithm="sssp", sssp_method="bellman_ford", load_balance="binary_search",
                small_frontier="persistent", frontier_limit=32768)
    off = TraversalConfig(**base)
    assert off.inline_degree == "off" and "inline" not in off.label
    assert "inline_degree" not in json.loads(off.to_json())
    assert off.config_id == _canonical_id({k: v for k, v in off.to_dict().items()})
    on = off.with_(inline_degree=64)
    assert on.label.endswith("/persist32768/inline64") and json.loads(on.to_json())["inline_degree"] == 64
    assert on.config_id != off.config_id and TraversalConfig.from_json(on.to_json()) == on
    # leaving the persistent kernel or Bellman-Ford drops it
    assert on.with_(small_frontier="single_block").inline_degree is None
    assert on.with_(sssp_method="near_far").inline_degree is None
    for bad in (dict(base, small_frontier="single_block", inline_degree=8),
                dict(base, sssp_method="near_far", delta=4, inline_degree=8),
                dict(load_balance="binary_search", small_frontier="persistent", frontier_limit=2048, inline_degree=8)):
        with pytest.raises(ValueError, match=r"TraversalConfig\.inline_degree=8 does not apply.*sssp_method == "
                                             r"'bellman_ford' and small_frontier == 'persistent'"):
            TraversalConfig(**bad)
    with pytest.raises(ValueError, match=r"TraversalConfig\.inline_degree: invalid value 16; allowed: 'off', 8, 64"):
        TraversalConfig(**base, inline_degree=16)
