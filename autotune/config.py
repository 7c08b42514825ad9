"""The strategy space: :class:`TraversalConfig`, one point of it, and its validation table.

Every option cites the paper it comes from:

- Busato & Bombieri, *Efficient load balancing techniques for graph traversal applications on
  GPUs* (vertex-based mapping with warp shuffle, §3.1; device-wide binary search, §3.3).
- Hong et al., *Accelerating CUDA Graph Algorithms at Maximum Warp* (PPoPP'11): virtual warps.
- Busato & Bombieri, *BFS-4K: an Efficient Implementation of BFS for Kepler GPU Architectures*:
  dynamic virtual warps (§5.2, knob K1 = minimum virtual warp size) and block size (knob K6).
- Liu & Huang, *Enterprise: Breadth-First Graph Traversal on GPUs* (SC'15): push / pull direction.

Validation is table-driven (:data:`_FIELDS`): each field lists its allowed values, a rule saying
when it applies, the value it takes when it applies and was not given, and its neutral value
(``None``) when it does not apply. A new technique or knob is a new table row (plus a value in
an existing row); the dataclass field must be added too.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping

import numpy as np

from .errors import ConfigError
from .techniques import TECHNIQUES

__all__ = [
    "TraversalConfig", "default_config", "iter_configs", "count_configs",
    "ALGORITHMS", "SSSP_METHODS", "DELTA_SCALES",
    "LOAD_BALANCE_TECHNIQUES", "VIRTUAL_WARP_SIZES", "MIN_VIRTUAL_WARP_SIZES", "BLOCK_SIZES", "DIRECTIONS",
]

#: Traversals: ``bfs`` (breadth-first search, hop distances) and ``sssp`` (single-source shortest
#: paths over positive edge weights). Both run on the same load-balancing techniques: a technique
#: is an *advance* template, the traversal an *operator* (DESIGN.md, "Kernels: advance x operator").
ALGORITHMS: tuple[str, ...] = ("bfs", "sssp")

#: SSSP methods (Busato & Bombieri, *Graph Algorithms on GPUs*, §3): ``bellman_ford`` = frontier
#: Bellman-Ford (H-BF, §3.2: a vertex re-enters the frontier when its distance improves, distance
#: and predecessor updated by one 64-bit atomic); ``delta_stepping`` = buckets of width delta
#: processed in increasing order (Meyer & Sanders), light edges (w <= delta) relaxed inside the
#: bucket and heavy edges once when it is settled; ``near_far`` = the two-bucket form of Davidson
#: et al. (Near-Far Pile: a near frontier below a threshold, a far pile above it, the threshold
#: raised by delta when the near frontier empties).
SSSP_METHODS: tuple[str, ...] = ("bellman_ford", "delta_stepping", "near_far")

#: Bucket width delta as a multiple of the heuristic of *Graph Algorithms on GPUs* §3.1 (after
#: Davidson et al.): delta_0 = c * w / d with c = 32 (warp width), w the mean edge weight and d the
#: mean out-degree. 1 = the heuristic itself.
DELTA_SCALES: tuple = (0.25, 1, 4, 16, 64)

#: Load-balancing techniques implemented in this release: the names of the technique registry
#: (:data:`autotune.techniques.TECHNIQUES`, one record per advance template).
LOAD_BALANCE_TECHNIQUES: tuple[str, ...] = tuple(TECHNIQUES)

#: Virtual warp sizes (threads per frontier vertex, Hong et al.) or ``"dynamic"`` (BFS-4K §5.2:
#: per level ``nearest_pow2(resident_threads / frontier_size)`` clamped to [min, 32]).
VIRTUAL_WARP_SIZES: tuple = (1, 2, 4, 8, 16, 32, "dynamic")

#: Deferring outliers (Hong et al. §3.2): frontier vertices with out-degree above the threshold are
#: queued and expanded afterwards, each by the whole grid (``vertex_mapped`` only).
DEFER_OUTLIERS: tuple = ("off", 256, 2048, 16384)
#: Dynamic workload distribution (Hong et al. §3.2): warps fetch this many frontier vertices at a
#: time from a device work counter instead of a static split (``vertex_mapped`` only).
WORK_CHUNKS: tuple = ("static", 32, 256)
#: Support strategies (Busato & Bombieri §3.4), only with ``vertex_mapped`` / ``scan_mapped``:
#: the out-degree above which a vertex is gathered by a whole warp / a whole block, or queued in
#: power-of-two supplementary-queue bins. Paper defaults: warp size, block size, half the
#: resident threads.
WARP_GATHERING: tuple = ("off", 32, 128)
BLOCK_GATHERING: tuple = ("off", "block_size", 4096)
SUPPLEMENTARY_QUEUES: tuple = ("off", "half_resident", 65536)
#: binary_search chunk of edges per block round: ``dynamic`` = min(ceil(frontier edges / resident
#: threads) * block_size, shared-memory capacity) (Busato & Bombieri §3.3), or a fixed 2048.
CHUNK_SIZES: tuple = ("dynamic", 2048)
#: degree_classified thresholds (Enterprise §4.2): Small < dc_small <= Middle < dc_middle <= Large
#: <= dc_large < Extreme; Small/Middle/Large/Extreme go to thread/warp/CTA/grid expansion.
DC_SMALL: tuple[int, ...] = (16, 32, 64)
DC_MIDDLE: tuple[int, ...] = (128, 256, 1024)
DC_LARGE: tuple[int, ...] = (4096, 65536)
#: Duplicate culling before the exact claim: ``none`` or ``hash`` (a shared-memory hash table per
#: block drops neighbours already offered by the block, BFS-4K §6).
DUPLICATE_CULLING: tuple[str, ...] = ("none", "hash")
#: Hub-vertex cache in shared memory for pull levels (Enterprise §4.3).
HUB_CACHE: tuple[str, ...] = ("off", "on")

#: Lower clamp of the dynamic virtual warp size (BFS-4K knob K1).
MIN_VIRTUAL_WARP_SIZES: tuple[int, ...] = (1, 2, 4, 8, 16, 32)

#: Threads per block (BFS-4K knob K6).
BLOCK_SIZES: tuple[int, ...] = (128, 256, 512, 1024)

#: Traversal directions: ``push`` = top-down; ``push_pull`` = direction-optimizing, switching to
#: pull (bottom-up) levels by a rule (Enterprise §2.1, §4.3; Beamer's alpha/beta heuristic).
DIRECTIONS: tuple[str, ...] = ("push", "push_pull")

#: Push -> pull switch rules (only with ``push_pull``): ``alpha_beta`` (pull when the frontier's
#: edges exceed the unexplored edges / alpha; back to push when the frontier falls below
#: n_vertices / beta) or ``hub_ratio`` (Enterprise §4.3: pull when the frontier holds more than
#: gamma of all hub vertices, degree > hub_degree; back to push below n_vertices / beta).
SWITCH_RULES: tuple[str, ...] = ("alpha_beta", "hub_ratio")
ALPHAS: tuple[int, ...] = (4, 15, 60)
BETAS: tuple[int, ...] = (6, 18, 48)
GAMMAS: tuple[float, ...] = (0.1, 0.3, 0.5)
HUB_DEGREES: tuple[int, ...] = (64, 512, 4096)
#: Gate on ``alpha_beta``'s push -> pull switch: ``off`` (Beamer's rule as GAP runs it: the frontier's
#: out-edges alone decide) or ``beta`` (pull only once the frontier also holds at least
#: ``n_vertices / beta`` vertices, the size below which pull levels end; the one-block kernels' rule).
#: A small frontier of hubs has many out-edges, so Beamer's rule pulls it, and a pull level then scans
#: the in-edges of nearly every unvisited vertex without finding a parent (bow-ties, social graphs).
PULL_GATES: tuple[str, ...] = ("off", "beta")

#: How levels with a small frontier run without a host round trip: ``none`` (every level is a
#: multi-block launch), ``single_block`` (BFS-4K §5.5: one 1024-thread block iterates levels on
#: the device while the frontier holds at most ``frontier_limit`` vertices and 16x as many edges)
#: or ``persistent`` (a cooperative kernel of resident blocks iterates those levels with a grid
#: barrier between them).
SMALL_FRONTIER: tuple[str, ...] = ("none", "single_block", "persistent")
#: 131072: a graph of at most that many vertices (and 16x as many edges) runs start to finish in
#: one launch of the small-frontier kernel (its working set fits in the L2 cache of an H100/H200).
FRONTIER_LIMITS: tuple[int, ...] = (512, 2048, 8192, 32768, 131072)
#: SSSP Bellman-Ford on the persistent driver: an improved vertex of out-degree <= this is expanded
#: in place by the warp that lowered its distance (its out-edges relaxed in the same iteration)
#: instead of waiting for the next frontier; ``off`` = every improved vertex waits.
INLINE_DEGREES: tuple[int | str, ...] = ("off", 8, 64)


@dataclass(frozen=True)
class _Field:
    """One row of the validation table.

    allowed : the valid values when the field applies.
    applies : ``values -> bool`` (values = the field values decided so far, in field order); the
        field must be ``None`` (neutral) when this is False.
    default : value filled in when the field applies and ``None`` was given.
    """

    allowed: tuple
    applies: Callable[[Mapping[str, Any]], bool] = lambda values: True
    default: Any = None
    condition: str = ""  # human-readable form of ``applies``, for error messages
    depends_on: tuple[str, ...] = ()  # fields ``applies`` reads (shown in error messages)
    #: value -> (field, value that excludes it, reason): the value is invalid when that earlier
    #: field holds that value (e.g. pull levels are BFS-only).
    excluded_by: Mapping[Any, tuple[str, Any, str]] = dataclasses.field(default_factory=dict)

    def allowed_here(self, values: Mapping[str, Any]) -> tuple:
        """The allowed values given the earlier fields' *values* (``excluded_by`` applied)."""
        return tuple(a for a in self.allowed
                     if not (a in self.excluded_by and values.get(self.excluded_by[a][0]) == self.excluded_by[a][1]))

    @property
    def conditional(self) -> bool:
        """True when the field applies only to some configs (neutral value None otherwise)."""
        return bool(self.depends_on)


_VIRTUAL_WARP_TECHNIQUES = frozenset(n for n, t in TECHNIQUES.items() if t.virtual_warps)
_SUPPORT_TECHNIQUES = frozenset(n for n, t in TECHNIQUES.items() if t.gathering)
_SUPPORT_CONDITION = f"load_balance in {sorted(_SUPPORT_TECHNIQUES)}"


def _supports(v) -> bool:
    return v["load_balance"] in _SUPPORT_TECHNIQUES


def _when(field: str, value, allowed: tuple, default) -> "_Field":
    """A table row that applies only when an earlier *field* equals *value*."""
    return _Field(allowed=allowed, default=default, applies=lambda v: v[field] == value,
                  condition=f"{field} == {value!r}", depends_on=(field,))

_BFS_ONLY = "algorithm", "sssp"

_FIELDS: dict[str, _Field] = {
    "algorithm": _Field(allowed=ALGORITHMS, default="bfs"),
    "sssp_method": _when("algorithm", "sssp", SSSP_METHODS, "delta_stepping"),
    "delta": _Field(allowed=DELTA_SCALES, default=1,
                    applies=lambda v: v["sssp_method"] in ("delta_stepping", "near_far"),
                    condition="sssp_method in ['delta_stepping', 'near_far']", depends_on=("sssp_method",)),
    "load_balance": _Field(allowed=LOAD_BALANCE_TECHNIQUES, default="vertex_mapped"),
    "virtual_warp_size": _Field(
        allowed=VIRTUAL_WARP_SIZES, default="dynamic",
        applies=lambda v: v["load_balance"] in _VIRTUAL_WARP_TECHNIQUES,
        condition=f"load_balance in {sorted(_VIRTUAL_WARP_TECHNIQUES)}", depends_on=("load_balance",)),
    "min_virtual_warp_size": _Field(
        allowed=MIN_VIRTUAL_WARP_SIZES, default=4,
        applies=lambda v: v["virtual_warp_size"] == "dynamic",
        condition="virtual_warp_size == 'dynamic'", depends_on=("virtual_warp_size",)),
    "defer_outliers": _when("load_balance", "vertex_mapped", DEFER_OUTLIERS, "off"),
    "work_chunk": _when("load_balance", "vertex_mapped", WORK_CHUNKS, "static"),
    "warp_gathering": _Field(allowed=WARP_GATHERING, default="off", applies=_supports,
                             condition=_SUPPORT_CONDITION, depends_on=("load_balance",)),
    "block_gathering": _Field(allowed=BLOCK_GATHERING, default="off", applies=_supports,
                              condition=_SUPPORT_CONDITION, depends_on=("load_balance",)),
    "supplementary_queues": _Field(allowed=SUPPLEMENTARY_QUEUES, default="off", applies=_supports,
                                   condition=_SUPPORT_CONDITION, depends_on=("load_balance",)),
    "chunk_size": _when("load_balance", "binary_search", CHUNK_SIZES, "dynamic"),
    "dc_small": _when("load_balance", "degree_classified", DC_SMALL, 32),
    "dc_middle": _when("load_balance", "degree_classified", DC_MIDDLE, 256),
    "dc_large": _when("load_balance", "degree_classified", DC_LARGE, 65536),
    "block_size": _Field(allowed=BLOCK_SIZES, default=256),
    "duplicate_culling": _Field(allowed=DUPLICATE_CULLING, default="none", excluded_by={
        "hash": (*_BFS_ONLY, "the hash table drops repeated neighbours, which is exact only for BFS's claim-once "
                             "operator: an SSSP relaxation from another vertex may carry a shorter distance")}),
    "direction": _Field(allowed=DIRECTIONS, default="push", excluded_by={
        "push_pull": (*_BFS_ONLY, "pull (bottom-up) levels look for any parent in the frontier, which is BFS's "
                                  "operator; SSSP relaxes by push")}),
    "switch_rule": _when("direction", "push_pull", SWITCH_RULES, "alpha_beta"),
    "alpha": _when("switch_rule", "alpha_beta", ALPHAS, 15),
    "beta": _when("direction", "push_pull", BETAS, 18),
    "gamma": _when("switch_rule", "hub_ratio", GAMMAS, 0.3),
    "hub_degree": _when("switch_rule", "hub_ratio", HUB_DEGREES, 512),
    "hub_cache": _when("direction", "push_pull", HUB_CACHE, "off"),
    "small_frontier": _Field(allowed=SMALL_FRONTIER, default="single_block"),
    "frontier_limit": _Field(
        allowed=FRONTIER_LIMITS, default=2048, applies=lambda v: v["small_frontier"] != "none",
        condition="small_frontier in ['persistent', 'single_block']", depends_on=("small_frontier",)),
    "inline_degree": _Field(
        allowed=INLINE_DEGREES, default="off",
        applies=lambda v: v["sssp_method"] == "bellman_ford" and v["small_frontier"] == "persistent",
        condition="sssp_method == 'bellman_ford' and small_frontier == 'persistent'",
        depends_on=("sssp_method", "small_frontier")),
    "pull_gate": _when("switch_rule", "alpha_beta", PULL_GATES, "off"),
}

#: Fields added after configs were logged, with the values they leave out of the canonical JSON
#: (so every config that existed before them keeps its id).
_LATER_FIELDS = {"inline_degree": (None, "off"), "pull_gate": (None, "off")}


#: Fields added with the second traversal: left out of a BFS config's canonical JSON.
_SSSP_FIELDS = ("algorithm", "sssp_method", "delta")

#: Fields whose ``excluded_by`` reads a field, for :func:`count_configs`'s memo key.
_EXCLUSION_READS = {n: tuple(f for f, _v, _r in spec.excluded_by.values()) for n, spec in _FIELDS.items()}


def _fmt_allowed(allowed) -> str:
    return ", ".join(repr(a) for a in allowed)


def _normalize(name: str, value, spec: _Field):
    """Return *value* as the exact allowed object (int or str), or raise ValueError."""
    if isinstance(value, np.integer):
        value = int(value)
    elif isinstance(value, np.str_):
        value = str(value)
    for a in spec.allowed:
        # exact type match: True is not 1, 4.0 is not 4 (they would change the canonical JSON)
        if type(value) is type(a) and value == a:
            return a
    raise ConfigError(f"TraversalConfig.{name}: invalid value {value!r}; allowed: {_fmt_allowed(spec.allowed)}")


@dataclass(frozen=True)
class TraversalConfig:
    """One BFS strategy: load-balancing technique and its knobs. Frozen, hashable, validated.

    Fields that do not apply to the chosen technique hold their neutral value ``None`` so that two
    equal strategies are equal configs (the selector's labels are :attr:`config_id`).

    Parameters
    ----------
    load_balance : {'vertex_mapped', 'scan_mapped', 'binary_search', 'degree_classified', 'edge_mapped'}
        ``vertex_mapped``: vertex-based mapping, one (virtual) warp per frontier vertex with the
        frontier loaded by warp shuffle (Busato & Bombieri, *Efficient load balancing techniques
        for graph traversal applications on GPUs*, §3.1; Hong et al., *Accelerating CUDA Graph
        Algorithms at Maximum Warp*, PPoPP'11). ``scan_mapped``: block prefix-sum of the frontier
        degrees into shared memory, threads then take edges from it (ibid. §3.2; CTA+Warp+Scan,
        Busato & Bombieri, *Graph Algorithms on GPUs*, §5.2.2). ``binary_search``: device-wide
        binary search over the prefix-sum of the frontier degrees, one thread per edge (ibid. §3.3).
        ``degree_classified``: Small/Middle/Large/Extreme frontier queues expanded by a thread / warp
        / block / the grid per vertex (Liu & Huang, *Enterprise*, SC'15, §4.2). ``edge_mapped``: one
        thread per edge of a COO edge list (*Graph Algorithms on GPUs*, §1.3, §5.3.1).
    virtual_warp_size : {1, 2, 4, 8, 16, 32, 'dynamic'} or None
        Threads cooperating on one frontier vertex (Hong et al.). ``'dynamic'``: chosen per level
        as ``nearest_pow2(resident_threads / frontier_size)`` clamped to
        ``[min_virtual_warp_size, 32]`` (Busato & Bombieri, *BFS-4K*, §5.2). Applies only to
        ``vertex_mapped`` (``None`` there means ``'dynamic'``); must be ``None`` otherwise.
    min_virtual_warp_size : {1, 2, 4, 8, 16, 32} or None
        Lower clamp of the dynamic virtual warp size (BFS-4K knob K1). Applies only when
        ``virtual_warp_size == 'dynamic'`` (``None`` there means 4); must be ``None`` otherwise.
    defer_outliers : {'off', 256, 2048, 16384} or None
        ``vertex_mapped`` only: frontier vertices with a larger out-degree are deferred to a queue
        expanded afterwards by the whole grid (Hong et al. §3.2, deferring outliers).
    work_chunk : {'static', 32, 256} or None
        ``vertex_mapped`` only: frontier vertices a warp fetches at a time from a device work counter
        (Hong et al. §3.2, dynamic workload distribution); ``static`` = grid-stride split.
    warp_gathering, block_gathering, supplementary_queues : or None
        Support strategies of Busato & Bombieri §3.4, only with ``vertex_mapped`` / ``scan_mapped``
        (a support with another technique raises ``ValueError`` naming both fields). Each is
        ``'off'`` or the out-degree above which a vertex is expanded by the whole warp
        (``warp_gathering``: 32 = warp size, the paper's default, or 128), by the whole block
        (``block_gathering``: ``'block_size'``, the paper's default, or 4096), or put in
        power-of-two bins each expanded by a kernel sized for it (``supplementary_queues``:
        ``'half_resident'`` = half the resident threads, the paper's default, or 65536).
    chunk_size : {'dynamic', 2048} or None
        ``binary_search`` only: edges per block round; ``dynamic`` = min(ceil(frontier edges /
        resident threads) * block_size, shared-memory capacity) (Busato & Bombieri §3.3).
    dc_small, dc_middle, dc_large : int or None
        ``degree_classified`` only: class thresholds (Enterprise §4.2 defaults 32 / 256 / 65536).
    block_size : {128, 256, 512, 1024}
        Threads per block (BFS-4K knob K6).
    duplicate_culling : {'none', 'hash'}
        ``hash``: a shared-memory hash table per block drops neighbours the block has already
        offered to the claim (BFS-4K §6), in front of the exact visited-status check, which stays.
    direction : {'push', 'push_pull'}
        ``push`` = top-down only; ``push_pull`` = direction-optimizing: pull (bottom-up) levels over
        the unvisited vertices, each stopping at its first parent found in the frontier (Liu &
        Huang, *Enterprise*, SC'15, §2.1, §4.3).
    switch_rule : {'alpha_beta', 'hub_ratio'} or None
        When to switch push -> pull (only with ``push_pull``). ``alpha_beta``: when the frontier's
        edges exceed (unexplored edges) / ``alpha``. ``hub_ratio``: when the frontier holds more than
        ``gamma`` of all hub vertices (out-degree > ``hub_degree``), Enterprise §4.3. Both switch back
        to push when the frontier falls below ``n_vertices / beta``.
    alpha : {4, 15, 60} or None
        Push -> pull threshold of ``alpha_beta`` (default 15).
    beta : {6, 18, 48} or None
        Pull -> push threshold (default 18); applies with ``push_pull``.
    gamma : {0.1, 0.3, 0.5} or None
        Hub ratio threshold of ``hub_ratio`` (Enterprise: 30%).
    hub_degree : {64, 512, 4096} or None
        Hub vertex degree threshold tau of ``hub_ratio``.
    hub_cache : {'off', 'on'} or None
        ``push_pull`` only: pull levels first look parents up in a shared-memory cache of the
        frontier's hub vertices (Enterprise §4.3).
    small_frontier : {'none', 'single_block', 'persistent'}
        ``single_block``: levels whose frontier holds at most ``frontier_limit`` vertices (and 16x
        as many edges) run inside one persistent single-block kernel that iterates levels on the
        device (Busato & Bombieri, *BFS-4K*, §5.5, FrontierLimit); ``persistent``: the same levels
        run in a cooperative kernel of resident blocks with a grid barrier between levels;
        ``none``: one multi-block launch per level.
    frontier_limit : {512, 2048, 8192, 32768, 131072} or None
        Hand-over threshold (vertices) between the small-frontier path and the multi-block kernels.
    algorithm : {'bfs', 'sssp'}
        The traversal (the *operator* the technique's advance applies to every frontier edge):
        ``bfs`` claims unvisited neighbours (hop distances); ``sssp`` relaxes weighted edges
        (shortest-path distances; unweighted graphs use unit weights). ``sssp`` excludes
        ``direction='push_pull'`` and ``duplicate_culling='hash'`` (both exact only for BFS).
    sssp_method : {'bellman_ford', 'delta_stepping', 'near_far'} or None
        ``sssp`` only: frontier Bellman-Ford (H-BF), Delta-stepping, or the Near-Far pile
        (Busato & Bombieri, *Graph Algorithms on GPUs*, §3; see :data:`SSSP_METHODS`).
    delta : {0.25, 1, 4, 16, 64} or None
        ``delta_stepping`` / ``near_far`` only: the bucket width as a multiple of
        delta_0 = 32 * mean weight / mean out-degree (*Graph Algorithms on GPUs*, §3.1).
    inline_degree : {'off', 8, 64} or None
        ``sssp_method='bellman_ford'`` with ``small_frontier='persistent'`` only: a vertex whose
        distance drops and whose out-degree is at most this is expanded at once by the warp that
        lowered it (its out-edges relaxed in the same iteration, from the distance it got) instead
        of entering the next frontier, so an iteration advances shortest paths by up to two edges:
        about half the iterations (and grid barriers) on long-diameter graphs such as roads.
        Exact because frontier Bellman-Ford is label-correcting (any relaxation order converges to
        the same distances; H-BF, *Graph Algorithms on GPUs*, §3.2). Default ``'off'``.
    pull_gate : {'off', 'beta'} or None
        ``switch_rule='alpha_beta'`` only: ``'beta'`` lets a level pull only when its frontier also
        holds at least ``n_vertices / beta`` vertices (the size below which pull levels end: Beamer,
        Asanovic & Patterson, *Direction-Optimizing Breadth-First Search*, SC'12, §3, whose rule
        leaves push on the frontier's out-edges alone). A small frontier of hubs has many out-edges,
        so the ungated rule pulls it, and the pull then scans the in-edges of nearly every unvisited
        vertex without finding a parent in so young a frontier (bow-ties, social graphs); where hubs
        end most scans at once (Kronecker graphs), the gate costs a push level of hub edges instead.
        Exact either way (the direction changes only the time). Default ``'off'``.

    Raises
    ------
    ValueError
        Naming the field, the bad value and the allowed values, or the field that must be ``None``
        because it does not apply.
    """

    load_balance: str = "vertex_mapped"
    virtual_warp_size: int | str | None = None
    min_virtual_warp_size: int | None = None
    defer_outliers: int | str | None = None
    work_chunk: int | str | None = None
    warp_gathering: int | str | None = None
    block_gathering: int | str | None = None
    supplementary_queues: int | str | None = None
    chunk_size: int | str | None = None
    dc_small: int | None = None
    dc_middle: int | None = None
    dc_large: int | None = None
    block_size: int = 256
    duplicate_culling: str = "none"
    direction: str = "push"
    switch_rule: str | None = None
    alpha: int | None = None
    beta: int | None = None
    gamma: float | None = None
    hub_degree: int | None = None
    hub_cache: str | None = None
    small_frontier: str = "single_block"
    frontier_limit: int | None = None
    algorithm: str = "bfs"
    sssp_method: str | None = None
    delta: float | int | None = None
    inline_degree: int | str | None = None
    pull_gate: str | None = None

    def __post_init__(self):
        values: dict[str, Any] = {}
        for name, spec in _FIELDS.items():
            value = getattr(self, name)
            if not spec.applies(values):
                if value is not None:
                    raise ConfigError(
                        f"TraversalConfig.{name}={value!r} does not apply here (it applies only when "
                        f"{spec.condition}; here {_describe(values, spec)}); leave it None")
            elif value is None:
                if not spec.conditional:
                    raise ConfigError(f"TraversalConfig.{name}: None is not allowed (the field always applies); "
                                     f"allowed: {_fmt_allowed(spec.allowed)}")
                value = spec.default
            else:
                value = _normalize(name, value, spec)
                if value in spec.excluded_by and value not in spec.allowed_here(values):
                    other, other_value, why = spec.excluded_by[value]
                    raise ConfigError(f"TraversalConfig.{name}={value!r} does not apply with {other}={other_value!r}: "
                                     f"{why}")
            values[name] = value
            object.__setattr__(self, name, value)

    # ------------------------------------------------------------------ serialisation
    def to_dict(self) -> dict:
        """Every field as a plain ``dict`` (``None`` for neutral fields)."""
        return {name: getattr(self, name) for name in _FIELDS}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "TraversalConfig":
        """Build (and validate) a config from a ``dict``; missing fields take their defaults.

        Raises
        ------
        ValueError
            Naming an unknown key or an invalid value.
        """
        _reject_unknown(d, "TraversalConfig")
        return cls(**d)

    def to_json(self) -> str:
        """Canonical JSON: sorted keys, compact separators (the input of :attr:`config_id`).

        A BFS config leaves out the fields added with the second traversal (``algorithm='bfs'`` and
        the neutral SSSP knobs), and every config leaves out later fields while they hold their
        neutral or ``'off'`` value, so configs keep the ids of the logs written before them.
        """
        d = self.to_dict()
        if d["algorithm"] == "bfs":
            for name in _SSSP_FIELDS:
                d.pop(name)
        for name, neutral in _LATER_FIELDS.items():
            if d[name] in neutral:
                d.pop(name)
        return json.dumps(d, sort_keys=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, s: str) -> "TraversalConfig":
        """Inverse of :meth:`to_json` (accepts any JSON object of fields)."""
        d = json.loads(s)
        if not isinstance(d, dict):
            raise ConfigError(f"TraversalConfig.from_json: expected a JSON object, got {type(d).__name__}")
        return cls.from_dict(d)

    @property
    def config_id(self) -> str:
        """``"c-"`` + the first 12 hex digits of SHA-256 of :meth:`to_json` (stable across processes)."""
        return "c-" + hashlib.sha256(self.to_json().encode("utf-8")).hexdigest()[:12]

    @property
    def label(self) -> str:
        """Short human label, e.g. ``vertex_mapped/vw=dynamic(min4)/b256/push`` (SSSP configs start
        with ``sssp:METHOD(dx DELTA)``)."""
        parts = []
        if self.algorithm == "sssp":
            parts.append(f"sssp:{self.sssp_method}" + (f"(dx{self.delta})" if self.delta is not None else ""))
        parts.append(self.load_balance)
        if self.virtual_warp_size is not None:
            vw = f"vw={self.virtual_warp_size}"
            if self.min_virtual_warp_size is not None:
                vw += f"(min{self.min_virtual_warp_size})"
            parts.append(vw)
        for name, short in (("defer_outliers", "defer"), ("work_chunk", "chunk"), ("warp_gathering", "wg"),
                            ("block_gathering", "bg"), ("supplementary_queues", "sq"), ("chunk_size", "chunk")):
            value = getattr(self, name)
            if value not in (None, "off", "static"):
                parts.append(f"{short}={value}")
        if self.dc_small is not None:
            parts.append(f"dc={self.dc_small},{self.dc_middle},{self.dc_large}")
        parts.append(f"b{self.block_size}")
        if self.duplicate_culling != "none":
            parts.append(f"cull={self.duplicate_culling}")
        if self.direction == "push_pull":
            if self.switch_rule == "alpha_beta":
                gate = ",gate" if self.pull_gate == "beta" else ""
                parts.append(f"push_pull(a{self.alpha},b{self.beta}{gate})")
            else:
                parts.append(f"push_pull(g{self.gamma},t{self.hub_degree},b{self.beta})")
        else:
            parts.append(self.direction)
        if self.hub_cache == "on":
            parts.append("hubcache")
        if self.small_frontier == "single_block":
            parts.append(f"sb{self.frontier_limit}")
        elif self.small_frontier == "persistent":
            parts.append(f"persist{self.frontier_limit}")
        if self.inline_degree not in (None, "off"):
            parts.append(f"inline{self.inline_degree}")
        return "/".join(parts)

    def with_(self, **changes) -> "TraversalConfig":
        """A validated copy with *changes* applied.

        Conditional fields not named in *changes* are reset to their neutral value when they no
        longer apply, and refilled with their default when they start to apply, e.g.
        ``cfg.with_(load_balance="binary_search")`` drops ``virtual_warp_size`` and
        ``min_virtual_warp_size``. A conditional field named explicitly is validated as given.

        Raises
        ------
        ValueError
            Naming an unknown field or an invalid value.
        """
        _reject_unknown(changes, "TraversalConfig.with_")
        values: dict[str, Any] = {}
        for name, spec in _FIELDS.items():
            if name in changes:
                value = changes[name]
            else:
                value = getattr(self, name)
                if spec.conditional and not spec.applies(values):
                    value = None
            if value is None and spec.conditional and spec.applies(values):
                value = spec.default
            values[name] = value
        return dataclasses.replace(self, **values)


def _reject_unknown(keys, where: str) -> None:
    """Raise ValueError naming every key of *keys* that is not a field of the table."""
    unknown = sorted(set(keys) - set(_FIELDS))
    if unknown:
        raise ConfigError(f"{where}: unknown field(s) {', '.join(map(repr, unknown))}; known: {', '.join(_FIELDS)}")


def _describe(values: Mapping[str, Any], spec: _Field) -> str:
    """The current values of the fields *spec*'s rule reads (for error messages)."""
    return ", ".join(f"{k}={values[k]!r}" for k in spec.depends_on if k in values)


def default_config() -> TraversalConfig:
    """The default strategy: ``vertex_mapped/vw=dynamic(min4)/b256/push``."""
    return TraversalConfig()


def iter_configs() -> Iterator[TraversalConfig]:
    """Every valid :class:`TraversalConfig` of this release, lazily, in table order.

    There are :func:`count_configs` of them (about 2 * 10**7), too many to materialise: sweeps use
    :func:`autotune.sweep.portfolio` or :func:`autotune.sweep.grid`, searches sample the table.

    Yields
    ------
    TraversalConfig
        Distinct configs, enumerated field by field over the allowed values of the fields that
        apply (neutral ``None`` for the others).
    """
    names = list(_FIELDS)

    def walk(i: int, values: dict):
        if i == len(names):
            yield TraversalConfig(**values)
            return
        spec = _FIELDS[names[i]]
        for c in (spec.allowed_here(values) if spec.applies(values) else (None,)):
            values[names[i]] = c
            yield from walk(i + 1, values)
        del values[names[i]]

    yield from walk(0, {})


def count_configs(algorithm: str | None = None) -> int:
    """Number of distinct valid configs (what :func:`iter_configs` yields), computed without
    enumerating them: a count memoised on the values later rules read.

    Parameters
    ----------
    algorithm : {'bfs', 'sssp'} or None
        Count only that traversal's configs (None: all).
    """
    if algorithm is not None and algorithm not in ALGORITHMS:
        raise ConfigError(f"count_configs: unknown algorithm {algorithm!r}; allowed: {_fmt_allowed(ALGORITHMS)}")
    names = list(_FIELDS)
    read_later = [set().union(*(_FIELDS[n].depends_on + _EXCLUSION_READS[n] for n in names[i:]))
                  if i < len(names) else set()
                  for i in range(len(names) + 1)]
    memo: dict = {}

    def choices(name: str, values: dict) -> tuple:
        spec = _FIELDS[name]
        if name == "algorithm" and algorithm is not None:
            return (algorithm,)
        return spec.allowed_here(values) if spec.applies(values) else (None,)

    def count(i: int, values: dict) -> int:
        if i == len(names):
            return 1
        key = (i, tuple(sorted((k, repr(v)) for k, v in values.items() if k in read_later[i])))
        if key not in memo:
            memo[key] = sum(count(i + 1, {**values, names[i]: c}) for c in choices(names[i], values))
        return memo[key]

    return count(0, {})
