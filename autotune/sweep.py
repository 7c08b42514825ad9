"""Sweeps: measure a set of configs on many graphs and append every result to a benchmark log.

``sweep(graphs, configs="portfolio", out="logs/corpus.jsonl")`` loads each graph (a path, a generator
spec, a ``shared:NAME`` entry or a :class:`~autotune.graph.CSRGraph`), profiles it once, then for
every config builds a runner (``runner_factory(graph, config)``, default
:class:`~autotune.measure.GPURunner`) and times it with the shared harness
(:func:`autotune.measure.measure`, ``validate=True``) on the same seeded sources. Each result is
one line of the log (:mod:`autotune.logs`), written as soon as it is measured; an invalid result
(a failing traversal or one that fails validation against the CPU reference) is logged with
``valid: false`` and its error. A sweep is resumable: a graph fingerprint × config_id × device
name already in the log is skipped.

Config sets
-----------
Each set exists for both traversals (``algorithm="bfs"``, the default, or ``"sssp"``); the SSSP
sets never hold a BFS-only value (``direction='push_pull'``, ``duplicate_culling='hash'``).

``"grid"``
    The crossover grid (:func:`grid`): every load-balancing technique with none, each and all of its
    support strategies and options at the papers' defaults, with and without hash culling, each
    in ``push`` and ``push_pull``. The whole table (:func:`autotune.config.count_configs`, about
    2 * 10**7 configs) is for the search to sample, not for a sweep.
``"train"``
    What the shipped model is trained on (:func:`training_set`): the grid plus each technique's
    base config on the persistent small-frontier kernel, four 128-thread-block configs of small
    directed graphs and six 512/1024-thread-block configs of larger ones (64 configs). For SSSP (:func:`sssp_training_set`):
    every SSSP method × Delta scale on each of five main technique configs, and Bellman-Ford's
    in-place expansion on the three of them with the persistent kernel (58 configs).
``"portfolio"``
    A small, diverse subset derived from the config table (:func:`portfolio`): for every
    load-balancing technique, its default config and every *one-knob change* of it (each other
    field set to each of its allowed values, the rest at their defaults), e.g. for
    ``vertex_mapped``: every static virtual warp size and every dynamic minimum, every block size,
    ``push_pull`` with its default switch rule, each small-frontier mode and limit. New techniques
    and knobs join automatically.

Baselines are always measured
-----------------------------
With a named set (``configs="train"`` etc., ``baselines=None``) every graph also gets its rule
config measured: paper 000's Table 2 for BFS, paper 003's Delta rule for SSSP
(:func:`autotune.sssp_rules.baseline_rule`, from the graph's profile and the device), when the set
does not hold it already. The regret table's rule baseline is then a measurement on every graph,
never an estimate (:func:`autotune.model.evaluate` reports a graph without it as missing).

Graph lists and corpus files
----------------------------
A corpus file lists one graph per line (a path, a generator spec or ``shared:NAME``), optionally
followed by options (:func:`parse_graph_entry`): `` weights=DIST`` gives an unweighted file seeded
weights, `` family=NAME`` names the graph's family for leave-one-family-out validation (default
:func:`graph_family`: the generator's name, or ``real-<kind>`` for a real graph), `` directed=false``
(or ``true``) reads a file with that direction (an undirected SNAP file that lists both directions).
``#`` starts a comment (whole line, or after whitespace). ``models/corpus.txt`` is the corpus of the
shipped H100 BFS model, ``models/corpus_h200.txt`` the wider BFS corpus (directed, small and every
real graph; :data:`H200_CORPUS`), ``models/corpus_sssp.txt`` the weighted SSSP one
(:func:`default_corpus_path`). ``shared:NAME`` (``NAME`` may be a glob such as ``shared:*.mtx.gz``)
names a file of the shared real-graph set, found in ``$AUTOTUNE_SHARED_GRAPHS`` or
``<repo>/.graphs`` (first that exists). The sweep logs each graph's family as ``graph.family``.
"""
from __future__ import annotations

import os
import platform
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Sequence

import numpy as np

from ._files import SHARED_PREFIX, resolve_graph_entry, shared_graphs_dirs  # noqa: F401  (re-exported)
from .config import TraversalConfig, _FIELDS
from .errors import DeviceFaultError, InvalidArgumentError
from .logs import LogRecord, LogWriter, make_record, read_log

__all__ = [
    "sweep", "SweepResult", "portfolio", "grid", "training_set", "resolve_configs", "read_corpus", "resolve_graph_entry",
    "shared_graphs_dirs", "host_device", "ValidatedGPURunner", "default_corpus_path", "sssp_training_set",
    "CONFIG_SETS", "CORPUS_FILES", "attach_weights", "split_graph_entry", "parse_graph_entry", "GraphEntry",
    "graph_family", "REAL_GRAPH_KINDS", "H200_CORPUS", "baseline_configs",
]

#: Names of the config sets :func:`resolve_configs` knows (each for both traversals).
CONFIG_SETS = ("portfolio", "grid", "train")

#: The committed training corpus of each traversal, relative to ``models/``.
CORPUS_FILES = {"bfs": "corpus.txt", "sssp": "corpus_sssp.txt"}

#: The BFS corpus for the per-GPU models from the H200 on (relative to ``models/``): 139 graphs, 44 %
#: directed, 37 % under 2 * 10**5 edges, every real graph of the shared set, families written on
#: every line; its profile (CPU) is in ``models/corpus_h200_features.tsv``.
H200_CORPUS = "corpus_h200.txt"

#: Kind of each real graph of the shared set (its MANIFEST's category; the CAIDA router graph, which
#: the manifest files under ``other``, counts as ``internet`` with the Gnutella overlay), by file
#: name without extensions. :func:`graph_family` makes the family ``real-<kind>`` of it, so logs
#: that predate ``graph.family`` still group the real graphs by kind.
REAL_GRAPH_KINDS: dict[str, str] = {
    "web-NotreDame": "web",
    "soc-Slashdot0902": "social", "email-Eu-core": "social", "CollegeMsg": "social",
    "soc-sign-bitcoinotc": "social", "soc-sign-bitcoinalpha": "social", "higgs-mention_network": "social",
    "sx-mathoverflow": "social",
    "coAuthorsDBLP": "citation", "CA-GrQc": "citation", "cit-HepTh": "citation",
    "caidaRouterLevel": "internet", "p2p-Gnutella04": "internet",
    "delaunay_n16": "mesh", "delaunay_n17": "mesh",
    "road-usroads": "road",
}

_REPO = Path(__file__).resolve().parent.parent


# ------------------------------------------------------------------------------------ configs
def _check_algorithm(algorithm: str) -> str:
    from .config import ALGORITHMS

    if algorithm not in ALGORITHMS:
        raise InvalidArgumentError(f"unknown algorithm {algorithm!r}; expected one of {', '.join(ALGORITHMS)}")
    return algorithm


def portfolio(algorithm: str = "bfs") -> tuple[TraversalConfig, ...]:
    """A small diverse config set: each technique's default and its one-knob variations.

    For every value ``t`` of ``load_balance``: ``base = TraversalConfig(algorithm=algorithm,
    load_balance=t)`` (every other field at its default; for SSSP Delta-stepping with delta = 1 x
    the heuristic), plus ``base.with_(field=value)`` for every other field of the table that
    applies to ``t`` and every value of it allowed with this algorithm (for SSSP this varies the
    method and the Delta scale too). Derived from :data:`autotune.config._FIELDS`, so new
    techniques and knobs are included without code changes.

    Parameters
    ----------
    algorithm : {'bfs', 'sssp'}, default 'bfs'

    Returns
    -------
    tuple of TraversalConfig
        Distinct configs in a stable order (technique, then field, then value order of the table).

    Raises
    ------
    ValueError
        On an unknown algorithm.
    """
    _check_algorithm(algorithm)
    techniques = _FIELDS["load_balance"].allowed
    out: dict[str, TraversalConfig] = {}
    for t in techniques:
        base = TraversalConfig(algorithm=algorithm, load_balance=t)
        out.setdefault(base.config_id, base)
        for name, spec in _FIELDS.items():
            if name in ("load_balance", "algorithm"):
                continue
            for value in spec.allowed:
                try:
                    cfg = base.with_(**{name: value})
                except ValueError:  # the field does not apply to this technique
                    continue
                out.setdefault(cfg.config_id, cfg)
    return tuple(out.values())


#: Options of each technique at the papers' defaults (Busato & Bombieri §3.3-3.4 Table 2; Hong et
#: al. §3.2), toggled one at a time and all together by :func:`grid`.
_GRID_OPTIONS: dict[str, dict[str, object]] = {
    "vertex_mapped": {"warp_gathering": 32, "block_gathering": "block_size",
                      "supplementary_queues": "half_resident", "defer_outliers": 2048, "work_chunk": 32},
    "scan_mapped": {"warp_gathering": 32, "block_gathering": "block_size", "supplementary_queues": "half_resident"},
    "binary_search": {"chunk_size": 2048},
    "degree_classified": {},
    "edge_mapped": {},
}


def grid(algorithm: str = "bfs") -> tuple[TraversalConfig, ...]:
    """The crossover grid: each technique × {no option, each option alone, the supports together}
    × {no culling, hash culling} on its base, each in ``push`` and ``push_pull``.

    The supports together are warp + block gathering + supplementary queues (Busato & Bombieri
    Table 2 with every condition true). Every other field keeps its default. For SSSP the BFS-only
    values drop out (no hash culling, ``push`` only) and the method is the default
    (Delta-stepping, delta = 1 x the heuristic of *Graph Algorithms on GPUs* §3.1).

    Parameters
    ----------
    algorithm : {'bfs', 'sssp'}, default 'bfs'

    Returns
    -------
    tuple of TraversalConfig
        Distinct configs, technique by technique.
    """
    _check_algorithm(algorithm)
    bfs = algorithm == "bfs"
    out: dict[str, TraversalConfig] = {}
    for t in _FIELDS["load_balance"].allowed:
        base = TraversalConfig(algorithm=algorithm, load_balance=t)
        options = _GRID_OPTIONS.get(t, {})
        variants = [base, base.with_(duplicate_culling="hash")] if bfs else [base]
        variants += [base.with_(**{k: v}) for k, v in options.items()]
        supports = {k: v for k, v in options.items() if k in ("warp_gathering", "block_gathering",
                                                               "supplementary_queues")}
        if len(supports) > 1:
            variants.append(base.with_(**supports))
        for cfg in variants:
            for direction in (("push", "push_pull") if bfs else ("push",)):
                c = cfg.with_(direction=direction)
                out.setdefault(c.config_id, c)
    return tuple(out.values())


#: The main configs of the load-balancing techniques for SSSP, each crossed with every method setting
#: by :func:`sssp_training_set`. Chosen from an H200 sweep of the SSSP engine over 111 configs on 18
#: graphs: the small-frontier driver decides as much as the technique (a road network or a mesh runs
#: 1.7-2.5x faster when its long tail of small iterations stays in the persistent kernel, with
#: 1024-thread blocks and a 32768-vertex hand-over on meshes; skewed graphs prefer the single-block
#: driver), the device-wide binary search is the best balancer on most graphs, vertex-mapped with
#: the persistent kernel wins on small sparse ones, and edge-mapped on a few small skewed ones.
_SSSP_MAIN_CONFIGS: tuple[dict, ...] = (
    {"load_balance": "binary_search"},  # single-block small frontiers (limit 2048), 256 threads: the default
    {"load_balance": "binary_search", "small_frontier": "persistent", "frontier_limit": 8192},
    {"load_balance": "binary_search", "block_size": 1024, "small_frontier": "persistent", "frontier_limit": 32768},
    {"load_balance": "vertex_mapped", "small_frontier": "persistent", "frontier_limit": 8192},
    {"load_balance": "edge_mapped"},
)


def sssp_training_set() -> tuple[TraversalConfig, ...]:
    """The configs the SSSP model is trained on: every SSSP method and Delta scale on each of the
    load-balancing techniques' main configs for SSSP (:data:`_SSSP_MAIN_CONFIGS`).

    Methods (Busato & Bombieri, *Graph Algorithms on GPUs*, §3): frontier Bellman-Ford (H-BF, no
    delta), Delta-stepping and near-far, the last two at every scale of
    :data:`autotune.config.DELTA_SCALES` (0.25 .. 64 x delta_0 = 32 x mean weight / mean out-degree,
    §3.1): 1 + 2 x 5 = 11 method settings x 5 main configs = 55 configs, plus Bellman-Ford with the
    in-place expansion of degree 8 (:data:`autotune.config.INLINE_DEGREES`) on the three main
    configs with the persistent kernel: 58 configs. (Degree 64 as well made the model worse on
    held-out graphs: the two degrees are near-ties on most graphs and split the labels; H200 sweep of
    27 graphs, leave-one-graph-out geomean 1.193 with both, 1.126 with 8 alone, 1.141 with neither.
    The search still tries 64.) The method and delta decide
    how much work is redone (re-relaxations) against how many synchronised phases run; the main
    config decides how each phase's edges are spread over threads and how the small phases run.
    Paper 003's Delta rule (:func:`autotune.sssp_rules.delta_rule`) is one of them, so every graph
    has the rule baseline measured.

    Returns
    -------
    tuple of TraversalConfig
        Main config by main config, methods in table order, deltas ascending.
    """
    from .config import DELTA_SCALES, INLINE_DEGREES, SSSP_METHODS

    out: dict[str, TraversalConfig] = {}
    for main in _SSSP_MAIN_CONFIGS:
        base = TraversalConfig(algorithm="sssp", **main)
        for method in SSSP_METHODS:
            for delta in (DELTA_SCALES if method != "bellman_ford" else (None,)):
                c = base.with_(sssp_method=method, delta=delta)
                out.setdefault(c.config_id, c)
    for main in _SSSP_MAIN_CONFIGS:
        if main.get("small_frontier") == "persistent":
            base = TraversalConfig(algorithm="sssp", sssp_method="bellman_ford", **main)
            c = base.with_(inline_degree=INLINE_DEGREES[1])
            out.setdefault(c.config_id, c)
    return tuple(out.values())


#: 128-thread-block configs of small directed graphs: the picks of 60-trial searches on four real
#: directed graphs (cit-HepTh, higgs-mention, soc-Slashdot0902, web-NotreDame; H200) that no config
#: of the crossover grid matched within 5 % (README, "Fast path against a 60-trial search").
_SMALL_GRAPH_CONFIGS = (
    dict(load_balance="binary_search", block_size=128, duplicate_culling="hash", small_frontier="single_block",
         frontier_limit=512),
    dict(load_balance="binary_search", block_size=128, small_frontier="single_block", frontier_limit=2048),
    dict(load_balance="binary_search", block_size=128, duplicate_culling="hash", small_frontier="single_block",
         frontier_limit=32768),
    dict(load_balance="scan_mapped", block_size=128, small_frontier="persistent", frontier_limit=8192),
)

#: Larger-block configs (512 and 1024 threads): the shapes 60-trial searches on the H200 found best on
#: real directed graphs where the 58 configs above left the fast path 6-9 % short (edge_mapped with
#: 1024-thread blocks, binary_search with 512, hash culling, the single-block driver).
_LARGE_BLOCK_CONFIGS = (
    dict(load_balance="edge_mapped", block_size=1024, duplicate_culling="hash", small_frontier="single_block",
         frontier_limit=512),
    dict(load_balance="edge_mapped", block_size=1024, small_frontier="single_block", frontier_limit=2048),
    dict(load_balance="edge_mapped", block_size=512, duplicate_culling="hash", small_frontier="single_block",
         frontier_limit=2048),
    dict(load_balance="edge_mapped", block_size=512, duplicate_culling="hash", direction="push_pull",
         small_frontier="single_block", frontier_limit=2048),
    dict(load_balance="binary_search", block_size=512, duplicate_culling="hash", small_frontier="single_block",
         frontier_limit=512),
    dict(load_balance="binary_search", block_size=512, small_frontier="single_block", frontier_limit=2048),
)


def training_set(algorithm: str = "bfs") -> tuple[TraversalConfig, ...]:
    """The configs the shipped model is trained on: the crossover :func:`grid` plus each
    technique's base config with the persistent small-frontier kernel (limit 8192), push and
    push_pull (so the labels cover both device-resident paths), plus ``binary_search`` with
    128-thread blocks and every level up to 32768 vertices on the persistent kernel (the fastest
    measured shape for meshes and grids with thousands of levels: fewer warps per level), plus four
    128-thread-block configs that 60-trial searches found best on small directed graphs
    (:data:`_SMALL_GRAPH_CONFIGS`), plus six 512- and 1024-thread-block configs of the shapes such
    searches found best on larger real directed graphs (:data:`_LARGE_BLOCK_CONFIGS`): 64 configs.

    ``algorithm="sssp"`` gives :func:`sssp_training_set`.

    Raises
    ------
    ValueError
        On an unknown algorithm.
    """
    if _check_algorithm(algorithm) == "sssp":
        return sssp_training_set()
    out = {c.config_id: c for c in grid()}
    for t in _FIELDS["load_balance"].allowed:
        for direction in ("push", "push_pull"):
            c = TraversalConfig(load_balance=t, direction=direction).with_(small_frontier="persistent",
                                                                          frontier_limit=8192)
            out.setdefault(c.config_id, c)
    for direction in ("push", "push_pull"):
        c = TraversalConfig(load_balance="binary_search", direction=direction, block_size=128,
                            small_frontier="persistent", frontier_limit=32768)
        out.setdefault(c.config_id, c)
    for c in _SMALL_GRAPH_CONFIGS + _LARGE_BLOCK_CONFIGS:
        c = TraversalConfig(**c)
        out.setdefault(c.config_id, c)
    return tuple(out.values())


def resolve_configs(configs, algorithm: str = "bfs") -> tuple[TraversalConfig, ...]:
    """Config set from ``"portfolio"``, ``"grid"``, ``"train"``, or an iterable of configs / dicts /
    JSON files.

    Parameters
    ----------
    configs : {'portfolio', 'grid', 'train'} or iterable of (TraversalConfig, dict, str path)
    algorithm : {'bfs', 'sssp'}, default 'bfs'
        The traversal of a named set (:func:`portfolio`, :func:`grid`, :func:`training_set`);
        explicit configs keep their own ``algorithm``.

    Returns
    -------
    tuple of TraversalConfig
        Duplicates removed (by ``config_id``), order kept.

    Raises
    ------
    ValueError
        On an unknown set name or algorithm, or an invalid config.
    """
    if isinstance(configs, str):
        _check_algorithm(algorithm)
        if configs == "portfolio":
            return portfolio(algorithm)
        if configs == "grid":
            return grid(algorithm)
        if configs == "train":
            return training_set(algorithm)
        raise InvalidArgumentError(f"unknown config set {configs!r}; expected 'portfolio', 'grid', 'train' or a list of "
                                   f"configs")
    out: dict[str, TraversalConfig] = {}
    for c in configs:
        if isinstance(c, TraversalConfig):
            cfg = c
        elif isinstance(c, dict):
            cfg = TraversalConfig.from_dict(c)
        elif isinstance(c, (str, os.PathLike)):
            from ._files import read_config_file

            cfg = read_config_file(c)
        else:
            raise InvalidArgumentError(f"cannot read a config from a {type(c).__name__}")
        out.setdefault(cfg.config_id, cfg)
    if not out:
        raise InvalidArgumentError("no configs to measure")
    return tuple(out.values())


def baseline_configs(features, device, algorithm: str = "bfs") -> tuple[TraversalConfig, ...]:
    """The configs a sweep always measures on a graph so that the regret table's baselines are
    measured: the rule config of *algorithm* (:func:`autotune.sssp_rules.baseline_rule`: Table 2 for
    BFS, the Delta rule for SSSP) for the graph's *features* on *device*.

    Returns
    -------
    tuple of TraversalConfig
    """
    from .sssp_rules import baseline_rule

    return (baseline_rule(_check_algorithm(algorithm), features, device),)


# ------------------------------------------------------------------------------------ graphs
def read_corpus(path) -> list[str]:
    """The graph entries of a corpus file (one per line; ``#`` comments and blank lines skipped).

    Parameters
    ----------
    path : str or os.PathLike

    Returns
    -------
    list of str
        Entries as written (``shared:`` entries are resolved later, by :func:`resolve_graph_entry`).

    Raises
    ------
    MissingFileError
        (a ``FileNotFoundError``) When the file does not exist.
    FileAccessError
        When it cannot be read (a directory, FIFO, no permission), naming it.
    InvalidArgumentError
        (a ``ValueError``) When it lists no graph.
    """
    from ._files import read_text

    out = []
    for line in read_text(path, "corpus file").splitlines():
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        for marker in (" #", "\t#"):
            if marker in text:
                text = text[: text.index(marker)].rstrip()
        out.append(text)
    if not out:
        raise InvalidArgumentError(f"corpus file {str(path)!r} lists no graph")
    return out


def default_corpus_path(algorithm: str = "bfs") -> Path:
    """The committed training corpus of *algorithm* (:data:`CORPUS_FILES`: ``corpus.txt`` for BFS,
    ``corpus_sssp.txt``, weighted graphs, for SSSP): ``autotune/models/<file>`` in an installed
    wheel, else ``models/<file>`` of the source checkout.

    Raises
    ------
    ValueError
        On an unknown algorithm.
    """
    name = CORPUS_FILES[_check_algorithm(algorithm)]
    here = Path(__file__).resolve().parent / "models" / name
    return here if here.is_file() else _REPO / "models" / name


_ENTRY_OPTION = re.compile(r"^(?P<entry>.*\S)\s+(?P<key>weights|family|directed)=(?P<value>\S+)$")


@dataclass(frozen=True)
class GraphEntry:
    """One graph entry of a corpus file or a sweep's graph list, with its options.

    Attributes
    ----------
    entry : str
        The path, generator spec or ``shared:NAME``.
    weights : str or None
        Seeded weights to attach to an unweighted input (`` weights=DIST``).
    family : str or None
        The graph's family for leave-one-family-out validation (`` family=NAME``); None: derived
        by :func:`graph_family`.
    directed : bool or None
        Read the file with this direction (`` directed=false|true``); None: the loader's default.
    """

    entry: str
    weights: str | None = None
    family: str | None = None
    directed: bool | None = None


def parse_graph_entry(entry: str) -> GraphEntry:
    """Split a graph entry into the graph and its options (trailing ``key=value`` words after
    whitespace, in any order: ``weights``, ``family``, ``directed``).

    Examples
    --------
    >>> parse_graph_entry("shared:CA-GrQc.txt.gz directed=false family=real-citation")
    GraphEntry(entry='shared:CA-GrQc.txt.gz', weights=None, family='real-citation', directed=False)

    Raises
    ------
    InvalidArgumentError
        On an option given twice, or a ``directed`` value other than true/false.
    """
    text = entry.strip()
    opts: dict = {}
    while True:
        m = _ENTRY_OPTION.match(text)
        if m is None:
            break
        key, value = m.group("key"), m.group("value")
        if key in opts:
            raise InvalidArgumentError(f"graph entry {entry.strip()!r}: option {key!r} given twice")
        opts[key] = value
        text = m.group("entry")
    directed = opts.get("directed")
    if directed is not None:
        if directed.lower() not in ("true", "false"):
            raise InvalidArgumentError(f"graph entry {entry.strip()!r}: directed must be true or false, got "
                                       f"{directed!r}")
        directed = directed.lower() == "true"
    return GraphEntry(text, opts.get("weights"), opts.get("family"), directed)


def split_graph_entry(entry: str) -> tuple[str, str | None]:
    """Split a graph entry into the graph and the weights to attach to it.

    An entry may end in `` weights=DIST`` (after whitespace), e.g.
    ``shared:road-usroads.mtx.gz weights=int:1:255``: the file is loaded and, having no weights of
    its own, gets seeded ones (:func:`attach_weights`). A generator spec names its weights inside the
    spec instead (``kron:scale=16,weights=int:1:255``, no whitespace). Other options
    (:func:`parse_graph_entry`) are dropped.

    Returns
    -------
    (str, str or None)
        The entry without its options, and the distribution text (None without a suffix).
    """
    e = parse_graph_entry(entry)
    return e.entry, e.weights


_FILE_SUFFIXES = (".gz", ".bz2", ".xz", ".txt", ".mtx", ".csv", ".tsv", ".edgelist", ".edges", ".el", ".gr", ".sg",
                  ".wsg")


def _file_stem(text: str) -> str:
    name = Path(str(text)).name
    changed = True
    while changed:
        changed = False
        for suf in _FILE_SUFFIXES:
            if name.endswith(suf) and len(name) > len(suf):
                name, changed = name[: -len(suf)], True
    return name


def _manifest_kind(path: str) -> str | None:
    """The ``category`` a MANIFEST*.tsv next to *path* gives its file (None when there is none)."""
    try:
        folder = Path(path).parent
        if not folder.is_dir():
            return None
        for man in sorted(folder.glob("MANIFEST*.tsv")):
            lines = man.read_text().splitlines()
            if not lines:
                continue
            head = lines[0].split("\t")
            if "file" not in head or "category" not in head:
                continue
            fi, ci = head.index("file"), head.index("category")
            for ln in lines[1:]:
                cols = ln.split("\t")
                if len(cols) > max(fi, ci) and cols[fi] == Path(path).name:
                    return cols[ci]
    except OSError:
        return None
    return None


def graph_family(name: str | None = None, spec: str | None = None) -> str:
    """The family of a graph, for leave-one-family-out validation: a generated graph's generator
    (``rmat``, ``bowtie``, ...), a real graph's ``real-<kind>`` (:data:`REAL_GRAPH_KINDS`, else the
    category of a MANIFEST*.tsv beside the file, else ``real-other``); the made-up graphs of
    :mod:`autotune._synthetic` (``synthetic:<family>:<i>``) ``synthetic-<family>``.

    Parameters
    ----------
    name, spec : str, optional
        The graph's name and spec as logged (``graph.name``, ``graph.spec``): a generator spec, a
        file path or ``shared:NAME``.

    Examples
    --------
    >>> graph_family("rmat:scale=16", "rmat:scale=16,edge_factor=16")
    'rmat'
    >>> graph_family("road-usroads", "/data/graphs/road-usroads.mtx.gz")
    'real-road'
    """
    from .generators import _GENERATORS

    for text in (spec, name):
        if not text:
            continue
        text = str(text).strip()
        if text.startswith("synthetic:"):  # autotune._synthetic's made-up graphs: synthetic:<family>:<i>
            return "synthetic-" + text.split(":")[1]
        if text.startswith(SHARED_PREFIX):
            text = text[len(SHARED_PREFIX):]
        head = text.partition(":")[0]
        if ":" in text and head in _GENERATORS or text in _GENERATORS:
            return head
    for text in (spec, name):
        if not text:
            continue
        kind = REAL_GRAPH_KINDS.get(_file_stem(str(text).strip().removeprefix(SHARED_PREFIX)))
        if kind is not None:
            return f"real-{'internet' if kind == 'other' else kind}"
    if spec and os.path.sep in str(spec):
        kind = _manifest_kind(str(spec))
        if kind:
            return f"real-{'internet' if kind == 'other' else kind}"
    return "real-other"


def attach_weights(graph, weights, seed: int = 0):
    """*graph* with seeded edge weights when it has none (weighted graphs are returned as they are).

    Parameters
    ----------
    graph : CSRGraph
    weights : str or None
        A distribution of :func:`autotune.generators.parse_weight_spec`: ``"int:1:255"`` (GAP's
        integers uniform in [1, 255]), ``"float:LO:HI"``; None returns *graph* unchanged.
    seed : int, default 0
        Seed of :func:`autotune.generators.edge_weights` (a hash of the seed and each edge's
        endpoints, so both directions of an undirected edge weigh the same, on NumPy and CuPy
        alike). With seed 0 a generator graph gets the weights its spec with ``weights=`` would.

    Returns
    -------
    CSRGraph
        A new graph sharing the CSR arrays, with ``weights`` (int32 or float32), its own fingerprint,
        and the distribution recorded so that logs name it (``graph.weights`` of log schema 2);
        or *graph* itself when it is weighted already or *weights* is None.

    Raises
    ------
    GeneratorSpecError
        On a malformed distribution.
    """
    import dataclasses

    from .generators import edge_weights, parse_weight_spec

    dist = parse_weight_spec(weights)
    if dist is None or getattr(graph, "weights", None) is not None:
        return graph
    out = dataclasses.replace(graph, weights=edge_weights(graph, dist, seed), _cache={})
    for key in ("host", "device", "transpose"):  # structure caches stay valid; anything weighted does not
        if key in graph._cache:
            out._cache[key] = graph._cache[key]
    out._cache["weights_spec"] = dist.spec
    return out


def _graph_items(graphs, corpus, weights=None) -> list:
    """``(graph item, weights to attach, family, directed)`` tuples: paths/specs resolved, ``shared:``
    globs expanded, an entry's own options (:func:`parse_graph_entry`) taking precedence over
    *weights*."""
    items: list = []
    if graphs is not None:
        if isinstance(graphs, (str, os.PathLike)) or not isinstance(graphs, Iterable):
            graphs = [graphs]
        items.extend(graphs)
    if corpus is not None:
        items.extend(read_corpus(corpus))
    out: list = []
    for it in items:
        if isinstance(it, os.PathLike):
            it = os.fspath(it)
        if isinstance(it, str):
            ge = parse_graph_entry(it)
            out.extend((e, ge.weights or weights, ge.family, ge.directed) for e in resolve_graph_entry(ge.entry))
        else:
            out.append((it, weights, None, None))
    if not out:
        raise InvalidArgumentError("no graphs to sweep: give graph paths/specs or a corpus file")
    return out


# ------------------------------------------------------------------------------------ runners
class ValidatedGPURunner:
    """Factory of :class:`~autotune.measure.GPURunner` s that share the CPU reference per source.

    The harness validates every timed traversal (``measure(..., validate=True)``) against the CPU
    reference distances. A sweep measures many configs on the same sources, so the reference of
    each source is computed once per graph and algorithm and reused (``validate_bfs(...,
    reference_distances=...)``, or ``validate_sssp`` against Dijkstra's distances for SSSP configs)
    instead of once per config.

    Parameters
    ----------
    graph : CSRGraph
    validate_sources : int, optional
        Validate only the first *k* timed sources of every config (all when None).
    on_device : bool, default False
        Check each validated traversal on the GPU instead (:func:`autotune.validate_gpu.validate_on_device`:
        the Graph500 checks for BFS -- source at 0, every tree edge an edge one level down, no edge
        spanning more than one level, every out-neighbour of a reached vertex reached -- and the
        optimality conditions for SSSP), which together prove the distances exact without a CPU
        reference (no CPU BFS or Dijkstra per source, no result copied to the host).
    """

    def __init__(self, graph, validate_sources: int | None = None, on_device: bool = False):
        self.graph = graph
        self.validate_sources = validate_sources
        self.on_device = bool(on_device)
        self._ref: dict[int, np.ndarray] = {}

    def reference(self, source: int, algorithm: str = "bfs") -> np.ndarray:
        """CPU reference distances from *source* for *algorithm* (computed once): BFS hop distances,
        or Dijkstra's shortest-path distances (``autotune.reference.sssp_reference``) for SSSP."""
        key = (algorithm, int(source))
        if key not in self._ref:
            from .measure import reference_distances

            self._ref[key] = reference_distances(self.graph, int(source), algorithm)
        return self._ref[key]

    def __call__(self, graph, config):
        from .measure import GPURunner

        outer = self

        class _Runner(GPURunner):
            _checked = 0

            def check(self, source: int) -> None:
                if outer.validate_sources is not None and self._checked >= outer.validate_sources:
                    return
                from .measure import engine_result_arrays

                self._checked += 1
                if self.on_device:  # GPURunner's own check: the Graph500 / optimality checks on the GPU
                    return super().check(source)
                alg = self.config.algorithm
                dist, pred = engine_result_arrays(self.engine)
                ref = outer.reference(int(source), alg)
                if alg == "sssp":
                    from .reference import validate_sssp

                    validate_sssp(self.graph, source, dist, pred, reference_distances=ref)
                else:
                    from .reference import validate_bfs

                    validate_bfs(self.graph, source, dist, pred, reference_distances=ref)

        return _Runner(graph, config, on_device=outer.on_device)


def host_device() -> dict:
    """A ``device`` dict for records measured without a GPU (fake/replay runners in tests)."""
    return {"name": f"CPU ({platform.machine() or 'unknown'})", "cc": None}


def _default_device(runner_factory) -> dict:
    from ._backend import device_properties, gpu_available, require_gpu

    if gpu_available():
        return device_properties()
    if runner_factory is None:
        require_gpu("autotune sweep")
    return host_device()


# ------------------------------------------------------------------------------------ sweep
@dataclass
class SweepResult:
    """Outcome of :func:`sweep`.

    Attributes
    ----------
    out : str
        The log file.
    records : list of LogRecord
        Records written by this call, in order.
    n_skipped : int
        Graph × config pairs already in the log for this device (not measured again).
    n_invalid : int
        Records of this call with ``valid: false``.
    graphs : list of dict
        ``name``, ``fingerprint``, ``spec``, ``n_vertices``, ``n_edges`` per graph swept.
    """

    out: str
    records: list = field(default_factory=list)
    n_skipped: int = 0
    n_invalid: int = 0
    graphs: list = field(default_factory=list)

    @property
    def n_measured(self) -> int:
        """Records written by this call."""
        return len(self.records)


def _load(item, undirected: bool, directed: bool | None = None):
    from .graph import CSRGraph, load_graph

    if isinstance(item, CSRGraph):
        return item
    return load_graph(item, directed=False if undirected else directed)


def sweep(graphs=None, configs="portfolio", out="logs/sweep.jsonl", *, n_sources: int = 16, seed: int = 0,
          progress: bool = True, runner_factory: Callable | None = None, corpus=None, device: dict | None = None,
          validate_sources: int | None = None, retry_invalid: bool = False, undirected: bool = False,
          profile_sources: int = 8, algorithm: str = "bfs", weights: str | None = None,
          baselines: bool | None = None, levels: int = 0, validate_on_device: bool = False,
          rounds: int = 1) -> SweepResult:
    """Measure every config on every graph and append the results to a benchmark log.

    Parameters
    ----------
    graphs : str, CSRGraph or sequence of them, optional
        Graph files, generator specs (``kron:scale=20``, ``kron:scale=16,weights=int:1:255``),
        ``shared:NAME`` entries or graphs.
    configs : {'portfolio', 'grid', 'train'} or sequence of TraversalConfig/dict/path, default 'portfolio'
        See the module docstring (:func:`portfolio`, :func:`grid`, :func:`training_set`).
    algorithm : {'bfs', 'sssp'}, default 'bfs'
        The traversal of a named config set (``configs="train", algorithm="sssp"`` is
        :func:`sssp_training_set`). Every record logs its config's algorithm (log schema 2) and the
        graph's weights (``graph.weights``); SSSP configs are validated against Dijkstra.
    weights : str, optional
        Seeded weights (``"int:1:255"``, ``"float:LO:HI"``, seed 0) for every graph that has none of
        its own (:func:`attach_weights`), e.g. the shared real graphs, which are unweighted. A
        corpus line may carry its own with a `` weights=DIST`` suffix (:func:`split_graph_entry`).
    out : str or os.PathLike
        JSONL log, appended to (created with its folders when missing).
    n_sources : int, default 16
        Sources per measurement (vertices with out-degree > 0, drawn with *seed*).
    seed : int, default 0
        Seed of the sources.
    progress : bool, default True
        Show a progress bar (rich) over graph × config.
    runner_factory : callable ``(graph, config) -> Runner``, optional
        Builds what is timed; default :class:`ValidatedGPURunner` (GPU, validation reference shared
        across configs). Tests inject fake runners.
    corpus : str or os.PathLike, optional
        A corpus file whose graphs are swept after *graphs* (:func:`read_corpus`).
    device : dict, optional
        The ``device`` logged and used for resuming (default
        :func:`autotune._backend.device_properties`; :func:`host_device` without a GPU when a
        *runner_factory* is given).
    validate_sources : int, optional
        With the default runner: validate only the first *k* timed sources of each config (every
        source when None). Injected runners validate through their own ``check``.
    validate_on_device : bool, default False
        With the default runner: validate on the GPU (:class:`ValidatedGPURunner` ``on_device``)
        instead of against the CPU reference (on an H200, 6 configs of a 2*10^6-vertex power law:
        13.0 s against 14.2 s).
    retry_invalid : bool, default False
        Measure again graph × config pairs logged ``valid: false`` (otherwise they count as done).
    undirected : bool, default False
        Symmetrize directed inputs (``load_graph(..., directed=False)``).
    profile_sources : int, default 8
        BFS sources of the profile (:func:`autotune.features.profile`); keep the default so that the
        logged features match what :func:`autotune.tune` computes.
    baselines : bool, optional
        Also measure each graph's rule config (:func:`baseline_configs`: Table 2 for BFS, the Delta
        rule for SSSP) when the config set lacks it, so that every graph has its baseline measured.
        Default: on for a named set (``"train"``, ``"grid"``, ``"portfolio"``), off for an explicit
        config list.
    levels : int, default 0
        When > 0 (GPU runner only): after timing a valid config, traverse once more from the first
        source and log its per-level trace, up to *levels* levels, as ``measure.levels``: one
        ``[frontier_size, direction, path, us]`` row per level (``direction`` ``"push"``/``"pull"``,
        ``path`` ``"multi_block"``/``"single_block"``/``"persistent"``, device µs) and
        ``measure.n_levels`` (all levels of that traversal). What :func:`autotune.policy.per_level_oracle`
        reads to bound what a per-level choice of kernel path and direction could gain over the
        per-graph choice.
    rounds : int, default 1
        Passes over each graph's configs. With 1, each config is timed once on the sources, one
        config after another (the protocol of the shipped logs). With *R* > 1, the first pass is the
        same (it validates, and traces with *levels*), then *R* - 1 more passes time every config that
        was valid again, interleaved: each pass visits every config once, the order rotated by one
        config per pass, each visit building the config's engine as the first did. A source's logged
        time is its median over the *R* passes (``measure.rounds``; ``measure.round_medians_ms``
        holds each pass's median), so a drift of the GPU's state between configs' turns (clocks, L2,
        other work) lands on every config alike instead of on whichever config was timed then: in
        one-pass sweeps the same pick re-timed this way moved by up to ~10 % either way (README,
        *Retraining the model*). A graph's records are written once all its passes are done (an
        interrupted sweep measures that graph again); a config that fails in a later pass is logged
        invalid with that pass's error.

    Every record's ``graph.family`` is the entry's `` family=`` option, else :func:`graph_family`.

    Returns
    -------
    SweepResult

    Raises
    ------
    GPUUnavailableError
        Without a GPU and without a *runner_factory*.
    ValueError
        On an unknown config set or an empty graph list.
    FileNotFoundError
        On a missing graph file or ``shared:`` graph.
    InvalidArgumentError
        When *rounds* is not an integer >= 1.
    """
    from .errors import InvalidArgumentError
    from .features import profile
    from .measure import measure, select_sources

    if isinstance(rounds, bool) or not isinstance(rounds, (int, np.integer)) or rounds < 1:
        raise InvalidArgumentError(f"rounds must be an integer >= 1, got {rounds!r}")
    cfgs = resolve_configs(configs, algorithm)
    if baselines is None:
        baselines = isinstance(configs, str)
    items = _graph_items(graphs, corpus, weights)
    device = dict(device) if device is not None else _default_device(runner_factory)
    out_path = Path(out).expanduser()
    done: dict[tuple, bool] = {}
    logged_features: dict[str, dict] = {}
    if out_path.exists() and out_path.stat().st_size:
        for r in read_log(out_path).records:
            done[r.key] = done.get(r.key, False) or r.valid
            logged_features.setdefault(r.fingerprint, r.features)
    result = SweepResult(out=str(out_path))
    dev_name = device["name"]

    def pending(fp, configs_):
        return [c for c in configs_ if (fp, c.config_id, dev_name) not in done
                or (retry_invalid and not done[(fp, c.config_id, dev_name)])]

    bar = _Progress(progress, total=len(items) * (len(cfgs) + (1 if baselines else 0)))
    with LogWriter(out_path) as writer, bar:
        for item, item_weights, item_family, item_directed in items:
            label = item if isinstance(item, str) else getattr(item, "name", "graph")
            bar.describe(f"loading {label}")
            g = attach_weights(_load(item, undirected, item_directed), item_weights)
            fp = g.fingerprint
            family = item_family or graph_family(g.name, g.spec or label)
            feats = None
            graph_cfgs = list(cfgs)
            if baselines:
                known = logged_features.get(fp)
                if known is None:
                    bar.describe(f"profiling {g.name}")
                    feats = profile(g, n_sources=profile_sources, seed=0)
                    known = feats
                ids = {c.config_id for c in graph_cfgs}
                graph_cfgs += [c for c in baseline_configs(known, device, algorithm) if c.config_id not in ids]
                bar.advance(1 - (len(graph_cfgs) - len(cfgs)))  # a baseline already in the set counts as done
            todo = pending(fp, graph_cfgs)
            result.n_skipped += len(graph_cfgs) - len(todo)
            result.graphs.append({"name": g.name, "fingerprint": fp, "spec": g.spec or label,
                                  "n_vertices": g.n_vertices, "n_edges": g.n_edges, "family": family})
            bar.advance(len(graph_cfgs) - len(todo))
            if not todo:
                continue
            if feats is None:
                bar.describe(f"profiling {g.name}")
                feats = profile(g, n_sources=profile_sources, seed=0)
            sources = select_sources(g, n_sources, seed)
            factory = runner_factory or ValidatedGPURunner(g, validate_sources, on_device=validate_on_device)

            def emit(cfg, m, trace):
                rec = make_record(g, feats, cfg, m, device, {"command": "sweep"}, n_sources=n_sources, seed=seed,
                                  spec=g.spec or label)
                if isinstance(trace, dict):
                    rec.measure.update(trace)
                elif trace is not None:  # a fault here is as much the config's as one while timing
                    rec.valid, rec.error = False, f"{trace} (level trace)"
                rec.graph["family"] = family
                writer.write(rec)
                if not rec.valid and context_lost(rec.error):  # the `with` closes the log
                    raise DeviceFaultError(
                        f"the GPU faulted while measuring {g.name} with {cfg.label} ({rec.error}); the pair is "
                        f"logged invalid in {out_path} and this process cannot use the GPU any more: run the "
                        "same sweep again to resume after it")
                done[rec.key] = rec.valid
                result.records.append(rec)
                result.n_invalid += 0 if rec.valid else 1

            first: list = []  # (cfg, runner, measurement, level trace or its error) of the first pass
            for cfg in todo:
                bar.describe(f"{g.name}: {cfg.label}" + (f" (pass 1 of {rounds})" if rounds > 1 else ""))
                runner, trace = None, None
                try:
                    runner = factory(g, cfg)
                except Exception as exc:  # a config that cannot even be built is an invalid result
                    m = _failed(cfg, sources, exc)
                else:
                    m = measure(runner, sources, validate=True)
                if levels > 0 and m.valid and getattr(runner, "engine", None) is not None:
                    try:
                        trace = _level_rows(runner.engine, int(sources[0]), levels)
                    except Exception as exc:
                        trace = f"{exc.__class__.__name__}: {exc}"
                notes = _engine_notes(getattr(runner, "engine", None)) if m.valid else None
                if notes and not isinstance(trace, str):  # str: the level trace's error, logged as such
                    trace = {**(trace or {}), **notes}
                if rounds == 1 or not m.valid or isinstance(trace, str):  # str: the level trace's error
                    emit(cfg, m, trace)  # written at once; an invalid config is not timed again
                    bar.advance(1)
                else:
                    first.append((cfg, runner, m, trace))
            if first:
                _interleaved_passes(first, sources, rounds, bar, g.name)
                for cfg, _, m, trace in first:
                    emit(cfg, m, trace)
                    bar.advance(1)
            g._cache.pop("engine", None)  # free the device buffers before the next graph
    return result


def _failed(cfg, sources, exc):
    """The invalid :class:`~autotune.measure.Measurement` of a config whose runner raised *exc*."""
    from .measure import Measurement

    return Measurement(cfg.label, [int(s) for s in sources], [], [], [], "none", valid=False,
                       error=f"{exc.__class__.__name__}: {exc}")


def _interleaved_passes(first: list, sources, rounds: int, bar, graph_name: str) -> None:
    """:func:`sweep`'s passes 2..*rounds* over the configs valid in the first pass, interleaved.

    *first* holds ``(cfg, runner, measurement, trace)`` per config, in the first pass's order; pass
    ``p`` (0-based) visits them starting ``p`` configs further on. Each measurement's ``times_ms``
    becomes every source's median over the passes and its ``extra`` gets ``rounds`` and
    ``round_medians_ms``. A config that fails in a pass becomes invalid with that pass's error and
    is not visited again.
    """
    from .measure import measure

    per_pass = [[list(m.times_ms)] for _, _, m, _ in first]
    n = len(first)
    for p in range(1, rounds):
        for j in range(n):
            i = (j + p) % n
            cfg, runner, m, _ = first[i]
            if not m.valid:
                continue
            bar.describe(f"{graph_name}: {cfg.label} (pass {p + 1} of {rounds})")
            try:
                again = measure(runner, sources, validate=False)
            except Exception as exc:
                again = _failed(cfg, sources, exc)
            if not again.valid or len(again.times_ms) != len(m.times_ms):
                m.valid = False
                m.error = f"{again.error or 'fewer timings than the first pass'} (pass {p + 1} of {rounds})"
                continue
            per_pass[i].append(list(again.times_ms))
    for (_, _, m, _), times in zip(first, per_pass):
        if not m.valid:
            continue
        t = np.asarray(times, dtype=float)  # passes x sources
        m.times_ms = [float(x) for x in np.median(t, axis=0)]
        m.extra = dict(m.extra or {}, rounds=int(rounds), round_medians_ms=[float(x) for x in np.median(t, axis=1)])


_CONTEXT_LOST = re.compile(r"illegal|misaligned|launch.?fail|hardware.?stack|ECC|context is destroyed",
                           re.IGNORECASE)


def context_lost(error: str | None) -> bool:
    """Whether a measurement's *error* text is a CUDA fault after which the process's GPU context is
    unusable (illegal address or instruction, misaligned address, launch failure, ECC error)."""
    return bool(error) and "CUDA" in error.upper() and bool(_CONTEXT_LOST.search(error))


def _engine_notes(engine) -> dict | None:
    """What the engine measured on itself that decides what its config runs on this graph, for the
    log's ``measure``: ``direction_calibration`` (``{"sources", "push_pull_ms", "push_ms", "chosen"}``,
    :meth:`~autotune._engine.TraversalEngine._calibrate_direction`) when a push/pull config's engine ran
    it; with ``chosen == "push"`` the config ran its push twin's launch rounds. None when there is none."""
    cal = getattr(engine, "direction_calibration", None)
    if not cal:
        return None
    return {"direction_calibration": {"sources": [int(v) for v in cal["sources"]],
                                      "push_pull_ms": [round(float(t), 5) for t in cal["push_pull_ms"]],
                                      "push_ms": [round(float(t), 5) for t in cal["push_ms"]],
                                      "chosen": str(cal["chosen"])}}


def _level_rows(engine, source: int, max_levels: int) -> dict:
    """One more traversal from *source* on *engine*, its per-level trace as log rows."""
    n_levels = int(engine.traverse(source))
    rows = [[t.frontier_size, t.direction, t.path, None if t.us is None else round(float(t.us), 2)]
            for t in engine.level_trace(min(n_levels, max_levels))]
    return {"n_levels": n_levels, "levels": rows}


class _Progress:
    """A rich progress bar (or nothing when disabled)."""

    def __init__(self, enabled: bool, total: int, description: str = "sweep"):
        self.enabled = bool(enabled)
        self.total = total
        self._p = None
        self._task = None
        self._desc = description

    def __enter__(self):
        if self.enabled:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self._p = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                               TimeElapsedColumn(), transient=False)
            self._p.__enter__()
            self._task = self._p.add_task(self._desc, total=self.total)
        return self

    def __exit__(self, *exc):
        if self._p is not None:
            self._p.__exit__(*exc)

    def describe(self, text: str) -> None:
        if self._p is not None:
            self._p.update(self._task, description=text[:70])

    def advance(self, n: int = 1) -> None:
        if self._p is not None and n:
            self._p.advance(self._task, n)


def records_by_key(records: Sequence[LogRecord]) -> dict:
    """``{(fingerprint, config_id, device name): [records]}`` (helper for analyses)."""
    out: dict = {}
    for r in records:
        out.setdefault(r.key, []).append(r)
    return out
