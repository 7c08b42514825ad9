"""The CSR graph (:class:`CSRGraph`) and the one edge-list → CSR builder (:func:`from_edges`).

This module sits below both the loaders (:mod:`autotune.graph`) and the generators
(:mod:`autotune.generators`): it imports neither, so the imports run one way
(``graph -> generators -> _csr``, ``graph -> _csr``). Import the names from :mod:`autotune.graph`
(or :mod:`autotune`), which re-exports them.

Terms follow DESIGN.md: ``row_offsets`` (n_vertices + 1) and ``column_indices`` (n_edges), int32
where they fit, optional ``weights`` (one per stored edge). Arrays live on the GPU (CuPy) when one
is present, else on the host (NumPy).
"""
from __future__ import annotations

import dataclasses
import hashlib
import numbers
from dataclasses import dataclass, field

import numpy as np

from ._backend import count_nonzero, default_xp, gpu_available, to_host, xp_of
from .errors import EmptyGraphError, GraphFormatError, VertexError

INT32_MAX = np.iinfo(np.int32).max
#: Most stored edges of a graph with int32 ``row_offsets`` (int64 past it). A module name so that
#: tests can lower it and build int64 offsets on a small graph.
_OFFSETS_INT32_MAX = INT32_MAX
#: With a GPU and edge arrays on the host, a build of at most this many sort keys (input edges, twice
#: when symmetrized) runs on the host and is uploaded: NumPy sorts 2**21 keys in ~0.2 s, while the
#: GPU build's first call compiles about ten CuPy kernels (~2 s on a fresh machine).
HOST_BUILD_MAX_KEYS = 2 ** 21
_INT64_MAX = np.iinfo(np.int64).max
_FLOAT32_MAX = float(np.finfo(np.float32).max)

#: dtypes a graph's ``weights`` may have.
WEIGHT_DTYPES = (np.dtype(np.int32), np.dtype(np.float32))
#: What every weight must satisfy (appended to weight error messages).
WEIGHT_RULE = "edge weights must be positive and finite"


@dataclass(eq=False)
class CSRGraph:
    """A graph in compressed sparse row form, optionally weighted.

    Parameters
    ----------
    row_offsets : ndarray, shape (n_vertices + 1,), int32 (int64 when n_edges > 2**31 - 1)
        ``column_indices[row_offsets[u]:row_offsets[u+1]]`` are the out-neighbours of ``u``, sorted.
        NumPy or CuPy.
    column_indices : ndarray, shape (n_edges,), int32
        Destination vertex of every directed edge. An undirected graph stores both directions.
    directed : bool
        False when every edge is stored in both directions (symmetric).
    name : str
        Short human name (file stem or generator spec).
    spec : str, optional
        How the graph was obtained: a file path or a generator spec such as ``kron:scale=20``.
    vertex_ids : ndarray, shape (n_vertices,), int64, optional
        Original (file) id of each internal vertex when ids were relabelled; None means identity.
    n_self_loops_removed, n_duplicates_removed : int
        Counts of input edges dropped while cleaning.
    weights : ndarray, shape (n_edges,), int32 or float32, optional
        Weight of every stored edge, in CSR order (``weights[k]`` belongs to the edge
        ``column_indices[k]``), strictly positive and finite; the same array module as the CSR
        arrays (NumPy or CuPy). None for an unweighted graph. An undirected graph stores the same
        weight in both directions. Where duplicate edges were merged (repeated input edges, or both
        directions of a symmetrized input) the minimum weight was kept.
    n_weight_conflicts : int
        Removed duplicate edges whose weight was larger than the (minimum) weight kept; 0 when
        unweighted. For an undirected graph each dropped undirected edge counts once.
    """

    row_offsets: object
    column_indices: object
    directed: bool
    name: str = "graph"
    spec: str | None = None
    vertex_ids: np.ndarray | None = None
    n_self_loops_removed: int = 0
    n_duplicates_removed: int = 0
    weights: object = None
    n_weight_conflicts: int = 0
    _cache: dict = field(default_factory=dict, repr=False)

    def __post_init__(self):
        w = self.weights
        if w is None:
            return
        if tuple(w.shape) != (int(self.column_indices.shape[0]),):
            raise ValueError(f"weights has shape {tuple(w.shape)}, expected ({int(self.column_indices.shape[0])},) "
                             "(one weight per stored edge)")
        if w.dtype not in WEIGHT_DTYPES:
            raise ValueError(f"weights has dtype {w.dtype}, expected int32 or float32")
        if xp_of(w) is not xp_of(self.column_indices):
            raise ValueError("weights and column_indices must live in the same array module (NumPy or CuPy)")

    # ------------------------------------------------------------------ shape
    @property
    def n_vertices(self) -> int:
        """Number of vertices."""
        return int(self.row_offsets.shape[0] - 1)

    @property
    def n_edges(self) -> int:
        """Number of stored (directed) edges; an undirected edge counts twice."""
        return int(self.column_indices.shape[0])

    @property
    def weighted(self) -> bool:
        """True when the graph carries edge ``weights``."""
        return self.weights is not None

    @property
    def on_device(self) -> bool:
        """True when the CSR arrays are CuPy arrays."""
        return xp_of(self.row_offsets) is not np

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        where = "gpu" if self.on_device else "host"
        w = f", weights={self.weights.dtype}" if self.weights is not None else ""
        return (f"CSRGraph({self.name!r}, {kind}, n_vertices={self.n_vertices:,}, n_edges={self.n_edges:,}{w}, "
                f"{where})")

    # ------------------------------------------------------------- residency
    def host(self) -> tuple[np.ndarray, np.ndarray]:
        """``(row_offsets, column_indices)`` as NumPy arrays (copied from the GPU once, then cached)."""
        if not self.on_device:
            return self.row_offsets, self.column_indices
        if "host" not in self._cache:
            self._cache["host"] = (to_host(self.row_offsets), to_host(self.column_indices))
        return self._cache["host"]

    def host_weights(self) -> np.ndarray | None:
        """``weights`` as a NumPy array (copied from the GPU once, then cached); None when unweighted.

        Returns
        -------
        ndarray, shape (n_edges,), int32 or float32, or None
        """
        if self.weights is None:
            return None
        if not self.on_device:
            return self.weights
        if "host_weights" not in self._cache:
            self._cache["host_weights"] = to_host(self.weights)
        return self._cache["host_weights"]

    def device(self):
        """``(row_offsets, column_indices)`` as CuPy arrays on the current device (uploaded once).

        Raises
        ------
        GPUUnavailableError
            When no GPU is usable.
        """
        from ._backend import require_gpu

        require_gpu("CSRGraph.device()")
        if self.on_device:
            return self.row_offsets, self.column_indices
        if "device" not in self._cache:
            import cupy

            self._cache["device"] = (cupy.asarray(self.row_offsets), cupy.asarray(self.column_indices))
        return self._cache["device"]

    def device_weights(self):
        """``weights`` as a CuPy array on the current device (uploaded once, then cached), or None.

        Returns
        -------
        cupy.ndarray, shape (n_edges,), int32 or float32, or None
            None when the graph is unweighted. The graph's own array when it already lives on the
            GPU.

        Raises
        ------
        GPUUnavailableError
            When no GPU is usable.
        """
        from ._backend import require_gpu

        require_gpu("CSRGraph.device_weights()")
        if self.weights is None:
            return None
        if self.on_device:
            return self.weights
        if "device_weights" not in self._cache:
            import cupy

            self._cache["device_weights"] = cupy.asarray(self.weights)
        return self._cache["device_weights"]

    def out_degrees(self, xp=None):
        """Out-degree of every vertex, shape (n_vertices,), int64 (``xp`` chooses NumPy or CuPy)."""
        if xp is None or xp is xp_of(self.row_offsets):
            ro = self.row_offsets
        elif xp is np:
            ro = self.host()[0]
        else:
            ro = self.device()[0]
        return (ro[1:] - ro[:-1]).astype(np.int64)

    # --------------------------------------------------------------- identity
    @property
    def fingerprint(self) -> str:
        """``"sha256:<hex>"`` of directedness, the CSR arrays and the weights (dtype and values) when
        weighted: equal graphs, equal fingerprints. Unweighted graphs hash exactly as before weights
        existed."""
        if "fingerprint" not in self._cache:
            ro, ci = self.host()
            h = hashlib.sha256()
            h.update(b"directed" if self.directed else b"undirected")
            h.update(np.ascontiguousarray(ro, dtype=np.int64).tobytes())
            h.update(np.ascontiguousarray(ci, dtype=np.int32).tobytes())
            w = self.host_weights()
            if w is not None:
                h.update(b"weights:" + w.dtype.str.encode())
                h.update(np.ascontiguousarray(w).tobytes())
            self._cache["fingerprint"] = "sha256:" + h.hexdigest()
        return self._cache["fingerprint"]

    def index_of(self, original_ids) -> np.ndarray:
        """Internal vertex index of each original (file) id.

        Parameters
        ----------
        original_ids : int or array_like of int
            Ids as they appear in the input file.

        Returns
        -------
        ndarray of int64, same shape as the input

        Raises
        ------
        VertexError
            (a ``KeyError``) Naming the first id that is not a vertex of the graph.
        """
        ids = np.atleast_1d(np.asarray(original_ids, dtype=np.int64))
        if self.vertex_ids is None:
            bad = ids[(ids < 0) | (ids >= self.n_vertices)]
            if bad.size:
                raise VertexError(f"vertex id {int(bad[0])} is not in the graph (ids are 0..{self.n_vertices - 1})")
            out = ids
        else:
            order = self._cache.get("id_order")
            if order is None:
                order = np.argsort(self.vertex_ids, kind="stable")
                self._cache["id_order"] = order
            sorted_ids = self.vertex_ids[order]
            pos = np.searchsorted(sorted_ids, ids)
            pos_c = np.minimum(pos, len(sorted_ids) - 1)
            missing = sorted_ids[pos_c] != ids
            if missing.any():
                raise VertexError(f"vertex id {int(ids[missing][0])} does not appear in {self.spec or self.name}")
            out = order[pos_c].astype(np.int64)
        return out if np.ndim(original_ids) else out[:1].reshape(())

    def original_id(self, internal):
        """Original (file) id of internal vertex index/indices *internal*."""
        internal = np.asarray(internal)
        if self.vertex_ids is None:
            return internal.astype(np.int64)
        return self.vertex_ids[internal]

    def to_scipy(self, weighted: bool = False):
        """The adjacency matrix as ``scipy.sparse.csr_matrix``, shape (n, n).

        Parameters
        ----------
        weighted : bool, default False
            False: int8 ones (the pattern). True: the graph's weights (int32 or float32), or int8
            ones when the graph is unweighted.
        """
        import scipy.sparse as sp

        ro, ci = self.host()
        w = self.host_weights() if weighted else None
        data = np.ones(ci.shape[0], dtype=np.int8) if w is None else w
        return sp.csr_matrix((data, ci, ro), shape=(self.n_vertices, self.n_vertices))

    # ------------------------------------------------------------ binary form
    def save(self, path) -> str:
        """Write the graph to *path* in autotune's binary form (``.atg``), read back by :func:`load_graph`.

        One file: a 16-byte prefix (magic bytes, format version, header length), a JSON header
        (``directed``, ``name``, ``spec``, the cleaning counts, NetworkX node labels when they are
        strings or integers, and per array its dtype, shape, byte offset and CRC-32), then the raw
        little-endian arrays ``row_offsets``, ``column_indices`` and, when present, ``weights`` and
        ``vertex_ids``, each at a 64-byte aligned offset, so that loading memory-maps them (no
        parse, no copy). The file is written beside *path* and renamed over it, so a reader never
        sees a half-written file and a graph memory-mapped from the old file stays valid.

        Parameters
        ----------
        path : str or os.PathLike
            Destination; ``.atg`` is the extension :func:`load_graph` dispatches on (a file of
            another name is recognised by its magic bytes).

        Returns
        -------
        str
            *path*.

        Raises
        ------
        FileAccessError
            When the file cannot be written (naming it and why).

        Notes
        -----
        A graph on the GPU is copied to the host first (``host()``, cached). Node labels that are
        neither strings nor integers (tuples, objects) are not saved (a ``UserWarning`` says so).
        Measured on ``kron:scale=19,edge_factor=16,weights=int:1:255`` (1.55e7 stored edges, 126
        MB, 2-core CPU machine, page cache warm): save 0.08-0.09 s (1.5 GB/s), load 0.1-0.2 ms
        memory-mapped without verification, 50-80 ms with ``verify=True`` (the default of
        :func:`load_graph`: CRC-32 of every array, about 2 GB/s), against 1.5-3.5 s to parse the
        same graph from a 105 MB text edge list.
        """
        return save_binary(self, path)

    @classmethod
    def load(cls, path, *, mmap: bool = True, verify: bool = True, xp=None) -> "CSRGraph":
        """Read a graph written by :meth:`save` (see :func:`load_binary` for the parameters)."""
        return load_binary(path, mmap=mmap, verify=verify, xp=xp)


# ================================================================================================
# Weights: validation and conversion
# ================================================================================================
def weights_problem(w, xp=None):
    """Convert edge weights to int32 / float32, or find the first bad one.

    Parameters
    ----------
    w : ndarray, shape (k,), integer or floating dtype
        NumPy or CuPy.
    xp : module, optional
        Array module of *w* (found from *w* when omitted).

    Returns
    -------
    (weights, index, reason)
        ``(converted, None, None)`` when every value is valid: integers become int32, floats
        float32. Otherwise ``(None, i, reason)`` with ``i`` the first offending position and
        *reason* a sentence such as ``"weight 0 is not positive (edge weights must be positive and
        finite)"``. Invalid: zero, negative, NaN, infinite; an integer above ``2**31 - 1``; a float
        that overflows float32 or rounds to 0 in float32; a non-numeric dtype.
    """
    if xp is None:
        xp = xp_of(w)
    kind = w.dtype.kind
    if kind in "iu":
        bad = (w <= 0) | (w > INT32_MAX)
        if bool(bad.any()):
            i = int(xp.argmax(bad))
            v = int(w[i])
            why = f"weight {v} is not positive" if v <= 0 else f"weight {v} does not fit int32 (at most {INT32_MAX:,})"
            return None, i, f"{why} ({WEIGHT_RULE})"
        return w.astype(np.int32, copy=False), None, None
    if kind == "f":
        with np.errstate(over="ignore", under="ignore", invalid="ignore"):
            w32 = w.astype(np.float32, copy=False)
            bad = ~(w > 0) | ~xp.isfinite(w) | ~xp.isfinite(w32) | (w32 == 0)
        if bool(bad.any()):
            i = int(xp.argmax(bad))
            v = float(w[i])
            if v != v:
                why = "weight nan is not a number"
            elif v <= 0:
                why = f"weight {v!r} is not positive"
            elif v == float("inf"):
                why = "weight inf is infinite"
            elif v > _FLOAT32_MAX:
                why = f"weight {v!r} is beyond the float32 range (at most {_FLOAT32_MAX:.7g})"
            else:
                why = f"weight {v!r} rounds to 0 in float32"
            return None, i, f"{why} ({WEIGHT_RULE})"
        return w32, None, None
    return None, 0, f"weights must be numbers, got dtype {w.dtype} ({WEIGHT_RULE})"


def object_weights(values) -> tuple[np.ndarray, int | None, str | None]:
    """Numbers from a Python sequence / object array (NetworkX attributes, lists of mixed types).

    Returns ``(array, None, None)`` with int64 values (all integers; huge ones clipped to
    ``±2**62`` so that they fail the int32 range check) or float64 values, else ``(None, i, reason)``
    naming the first element that is not a real number (strings and booleans are not weights).
    """
    obj = np.empty(len(values), dtype=object)
    obj[:] = list(values) if not isinstance(values, np.ndarray) else values
    is_num = np.frompyfunc(lambda x: isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_)), 1, 1)
    ok = is_num(obj).astype(bool) if obj.size else np.zeros(0, bool)
    if not ok.all():
        i = int(np.argmin(ok))
        return None, i, f"weight {obj[i]!r} is not a number ({WEIGHT_RULE})"
    is_int = np.frompyfunc(lambda x: isinstance(x, numbers.Integral), 1, 1)
    if obj.size and is_int(obj).astype(bool).all():
        clip = np.frompyfunc(lambda x: max(min(int(x), 1 << 62), -(1 << 62)), 1, 1)
        return clip(obj).astype(np.int64), None, None
    return obj.astype(np.float64), None, None


def as_weights(weights, xp, source_label=None, field: str = "weights"):
    """In-memory weights as a validated int32/float32 array of module *xp* (1-D).

    Raises
    ------
    GraphFormatError
        ``"<field>[i]: weight ... is not positive (...)"`` naming the first bad position.
    """
    on_gpu = xp_of(weights) is not np and not isinstance(weights, np.ndarray)
    if on_gpu and xp is not np:
        w = xp.asarray(weights).ravel()
        conv, i, reason = weights_problem(w, xp)
    else:
        w = np.asarray(to_host(weights)).ravel()
        if w.dtype.kind in "US" and not isinstance(weights, np.ndarray):  # a list mixing numbers and text
            w = np.empty(w.shape[0], dtype=object)
            w[:] = list(weights)
        if w.dtype.kind in "OUS":
            w, i, reason = object_weights(w)
            conv = None
            if w is not None:
                conv, i, reason = weights_problem(w, np)
        elif w.dtype.kind == "b":
            conv, i, reason = None, 0, f"weights must be numbers, got dtype bool ({WEIGHT_RULE})"
        else:
            conv, i, reason = weights_problem(w, np)
        if conv is not None and xp is not np:
            conv = xp.asarray(conv)
    if conv is None:
        raise GraphFormatError(f"{field}[{i}]: {reason}", source_label)
    return conv


def _dtype_max(dtype):
    return np.inf if np.dtype(dtype).kind == "f" else np.iinfo(dtype).max


def _merge_min(keys, w, bits: int, directed: bool, xp):
    """Merge runs of equal sorted *keys*, keeping the minimum weight of each run.

    Returns ``(unique_keys, min_weights, n_conflicts)``: *n_conflicts* counts the merged-away
    entries whose weight was larger than the minimum (each undirected edge once: only keys with
    ``row <= column`` count).
    """
    if keys.size < 2:
        return keys, w, 0
    first = xp.empty(keys.size, dtype=bool)
    first[0] = True
    xp.not_equal(keys[1:], keys[:-1], out=first[1:])
    n_groups = int(count_nonzero(first))
    if n_groups == keys.size:
        return keys, w, 0
    gid = xp.cumsum(first) - 1
    if xp is np:
        wmin = np.minimum.reduceat(w, np.flatnonzero(first))
    else:
        wmin = xp.full(n_groups, _dtype_max(w.dtype), dtype=w.dtype)
        try:
            xp.minimum.at(wmin, gid, w)  # CuPy >= 14 (cupyx.scatter_min is deprecated there)
        except (AttributeError, NotImplementedError, TypeError):
            import cupyx

            cupyx.scatter_min(wmin, gid, w)
    lost = w != wmin[gid]
    del gid
    if not directed:
        lost &= (keys >> bits) <= (keys & ((1 << bits) - 1))
    n_conflicts = int(count_nonzero(lost))
    return keys[first], wmin, n_conflicts


# ================================================================================================
# The builder
# ================================================================================================
def from_edges(src, dst, n_vertices: int | None = None, *, weights=None, directed: bool = True, name: str = "graph",
               spec: str | None = None, vertex_ids=None, remove_self_loops: bool = True,
               remove_duplicates: bool = True, xp=None, source_label: str | None = None,
               passes: int | None = None) -> CSRGraph:
    """Build a :class:`CSRGraph` from edge arrays (the one builder every loader and generator uses).

    Parameters
    ----------
    src, dst : array_like of int, shape (n_input_edges,)
        Edge endpoints, already 0-based internal ids in ``[0, n_vertices)``. NumPy or CuPy.
    n_vertices : int, optional
        Vertex count; defaults to ``max(src, dst) + 1``.
    weights : array_like of number, shape (n_input_edges,), optional
        Weight of every input edge: integers become int32, floats float32; every value must be
        positive and finite (and an integer must fit int32). None builds an unweighted graph.
    directed : bool
        When False every edge is symmetrized (both directions stored, with the same weight).
    remove_self_loops, remove_duplicates : bool
        Drop ``u -> u`` edges and repeated ``u -> v`` edges; the counts are kept on the graph. For an
        undirected graph ``n_duplicates_removed`` counts input edges beyond the first of each
        unordered pair (``u v`` and ``v u`` are the same edge). Merged duplicates keep the
        **minimum** weight (also across the two directions of a symmetrized edge);
        ``n_weight_conflicts`` counts the removed duplicates whose weight was larger.
    vertex_ids : array_like of int, optional
        Original id of each internal vertex (length ``n_vertices``), kept on the host as int64.
    xp : module, optional
        ``numpy`` or ``cupy`` to build with (default: CuPy when a GPU is present). The result's
        arrays live in that module. By default, edge arrays on the host that make at most
        :data:`HOST_BUILD_MAX_KEYS` sort keys are built with NumPy and uploaded (the result lives on
        the GPU all the same): faster than the GPU build's first call, which compiles CuPy kernels.
    source_label : str, optional
        Used in error messages (e.g. the file path).
    passes : int, optional
        Build the CSR in this many source ranges, one after the other (a test knob; the result is
        the same for every count). Default: one pass (the fastest) when its memory plan fits the
        available memory, else the fewest passes whose plan fits
        (:func:`autotune.memory.build_passes`, at most
        :data:`~autotune.memory.MAX_BUILD_PASSES`). A multi-pass build counts the stored edges
        per source bucket (one ``bincount`` pass over the edges, in chunks), splits the vertices
        into ranges holding about equal numbers of them, and per range selects its stored edges
        (both directions when undirected), sorts and de-duplicates their keys and writes its
        columns and row offsets into the output, allocated once: peak about ``17`` bytes per
        stored edge of a range instead of the whole graph's (:func:`~autotune.memory.device_build_bytes`).

    Returns
    -------
    CSRGraph
        Columns sorted within each row; ``row_offsets`` int32 when ``n_edges <= 2**31 - 1``, else
        int64; ``weights`` in CSR order (None when *weights* is None). A multi-pass build's
        ``column_indices`` (and ``weights``) are the first ``n_edges`` entries of arrays sized
        before de-duplication: shrunk in place on the host, a view on the GPU.

    Raises
    ------
    EmptyGraphError
        When there are no vertices, or no edges remain after cleaning.
    GraphFormatError
        On a negative or non-integer id, an id >= n_vertices, or more than ``2**31 - 1`` vertices;
        on a bad weight (``weights[i]: weight 0 is not positive ...``, naming the input position)
        or a weight array of another length.
    HostMemoryError, DeviceMemoryError
        When the build's peak (:func:`autotune.memory.csr_build_bytes` on the host,
        :func:`autotune.memory.device_build_bytes` on the GPU) exceeds the available memory with
        any pass count (or with the *passes* given), before the build allocates (naming
        *source_label*, or *name*; bytes needed are those of the smallest plan).
    InvalidArgumentError
        When *passes* is not a positive integer.
    """
    if xp is None:
        xp = default_xp() if gpu_available() else np
        if xp is not np and _small_host_build(src, dst, directed):
            g = from_edges(src, dst, n_vertices, weights=weights, directed=directed, name=name, spec=spec,
                           vertex_ids=vertex_ids, remove_self_loops=remove_self_loops,
                           remove_duplicates=remove_duplicates, xp=np, source_label=source_label, passes=passes)
            return _uploaded(g)
    src = _as_array(src, xp).ravel()
    dst = _as_array(dst, xp).ravel()
    if src.shape != dst.shape:
        raise GraphFormatError(f"src and dst differ in length ({src.shape[0]} vs {dst.shape[0]})", source_label)
    w = None
    if weights is not None:
        w = as_weights(weights, xp, source_label)
        if w.shape != src.shape:
            raise GraphFormatError(f"weights has {w.shape[0]} entries for {src.shape[0]} edges", source_label)
    if src.size == 0:
        raise EmptyGraphError("graph has no edges", source_label)
    src = _as_integer(src, "source", source_label, xp)
    dst = _as_integer(dst, "destination", source_label, xp)
    lo, hi = _id_range(src, dst, xp)
    if lo < 0:
        raise GraphFormatError(f"negative vertex id {lo}", source_label)
    if n_vertices is None:
        n_vertices = hi + 1
    elif hi >= n_vertices:
        raise GraphFormatError(f"vertex id {hi} out of range for {n_vertices} vertices", source_label)
    n = int(n_vertices)
    if n <= 0:
        raise EmptyGraphError("graph has no vertices", source_label)
    if n > INT32_MAX:
        raise GraphFormatError(f"{n:,} vertices exceed the int32 vertex id range", source_label)
    # the memory plan of the build, before its first allocation (autotune.memory): host memory with
    # NumPy, free device memory with CuPy (the inputs already there); the fewest passes that fit
    plan = _BuildPlan(n, int(src.size), bool(directed), src.dtype.itemsize, w is not None, xp, source_label or name)
    n_passes = plan.choose(passes)
    if n_passes > 1:
        row_offsets, cols, w, n_loops, n_dups, n_conflicts = _build_in_passes(
            src, dst, w, n, plan, n_passes, forced=passes is not None, directed=bool(directed),
            remove_self_loops=remove_self_loops, remove_duplicates=remove_duplicates, xp=xp,
            source_label=source_label)
        del src, dst
        return _finish(row_offsets, cols, w, n, directed, name, spec, vertex_ids, n_loops, n_dups, n_conflicts,
                       source_label)

    n_loops = 0
    if remove_self_loops:
        keep = src != dst
        n_loops = int(src.size - int(count_nonzero(keep)))
        if n_loops:
            src, dst = src[keep], dst[keep]
            if w is not None:
                w = w[keep]
        del keep
    n_input = int(src.size)
    if n_input == 0:
        raise EmptyGraphError("graph has no edges after removing self-loops", source_label)
    # one int64 key per stored edge, (src << bits) | dst: sorting the keys sorts by (row, column).
    # Built in place in one buffer: large temporaries cost more than the arithmetic on big graphs.
    bits = max(1, (n - 1).bit_length())
    back_w = w
    if not directed and not remove_self_loops:
        nonloop = src != dst  # a kept self-loop is stored once
        back_src, back_dst = dst[nonloop], src[nonloop]
        if w is not None:
            back_w = w[nonloop]
        del nonloop
    else:
        back_src, back_dst = dst, src
    n_keys = n_input if directed else n_input + int(back_src.size)
    keys = xp.empty(n_keys, dtype=np.int64)
    _fill_keys(keys[:n_input], src, dst, bits)
    if not directed:
        _fill_keys(keys[n_input:], back_src, back_dst, bits)
        if w is not None:
            w = xp.concatenate([w, back_w])
    del src, dst, back_src, back_dst, back_w
    n_conflicts = 0
    if w is None:
        # sort + neighbour mask; np.unique is avoided on purpose: NumPy 2.4's hash-based unique takes
        # ~60 s on 3e7 int64 keys where sort + mask takes ~1 s. Keys already in order (a file listing
        # its edges by source, then target, as SNAP's do) are not sorted again on the host: NumPy's
        # sort takes as long on sorted keys (web-NotreDame: 26 ms) as the check takes 1-2 ms
        if xp is not np or not bool((keys[1:] >= keys[:-1]).all()):
            keys.sort()
        if remove_duplicates:
            keys = _unique_sorted(keys, xp)
    else:
        # kept parallel edges stay in input order (forward edges, then the reversed ones): a stable
        # sort, CuPy's only kind, so that every backend and pass count gives the same weights
        order = xp.argsort(keys) if remove_duplicates else xp.argsort(keys, kind="stable")
        keys = keys[order]
        w = w[order]
        del order
        if remove_duplicates:
            keys, w, n_conflicts = _merge_min(keys, w, bits, bool(directed), xp)
    offset_dtype = np.int32 if keys.size <= _OFFSETS_INT32_MAX else np.int64
    row_offsets = xp.searchsorted(keys, xp.arange(n + 1, dtype=np.int64) << bits).astype(offset_dtype)
    n_loops_kept = 0
    if not directed and not remove_self_loops and remove_duplicates:
        n_loops_kept = int(count_nonzero((keys >> bits) == (keys & ((1 << bits) - 1))))
    keys &= (1 << bits) - 1
    cols = keys.astype(np.int32)
    del keys
    if not remove_duplicates:
        n_dups = 0
    elif directed:
        n_dups = n_input - int(cols.size)
    else:
        # input edges (after loop removal) minus distinct undirected edges; a non-loop edge is
        # stored twice, a kept self-loop once
        n_dups = n_input - ((int(cols.size) - n_loops_kept) // 2 + n_loops_kept)
    return _finish(row_offsets, cols, w, n, directed, name, spec, vertex_ids, n_loops, n_dups, n_conflicts,
                   source_label)


def _small_host_build(src, dst, directed) -> bool:
    """True when edge arrays on the host are few enough to build on the host (:data:`HOST_BUILD_MAX_KEYS`)."""
    if any(hasattr(a, "__cuda_array_interface__") for a in (src, dst)):
        return False
    size = getattr(src, "size", None)
    if size is None:
        size = len(src) if hasattr(src, "__len__") else HOST_BUILD_MAX_KEYS + 1
    return int(size) * (1 if directed else 2) <= HOST_BUILD_MAX_KEYS


def _uploaded(g: CSRGraph) -> CSRGraph:
    """*g* (built on the host) with its CSR arrays and weights on the GPU, the host copies kept as the
    graph's cached host arrays (``g.host()`` costs nothing)."""
    import cupy

    host = (g.row_offsets, g.column_indices)
    g.row_offsets, g.column_indices = cupy.asarray(host[0]), cupy.asarray(host[1])
    g._cache["host"] = host
    if g.weights is not None:
        g._cache["host_weights"] = g.weights
        g.weights = cupy.asarray(g.weights)
    return g


def _id_range(src, dst, xp) -> tuple[int, int]:
    """Smallest and largest id of *src* and *dst*, reduced in chunks of ``2**30`` entries (CuPy's
    reductions are not known to work on arrays of 2**31 or more elements)."""
    step = 1 << 30
    lo = hi = None
    for a in (src, dst):
        for i in range(0, int(a.shape[0]), step):
            part = a[i:i + step]
            pl, ph = int(part.min()), int(part.max())
            lo = pl if lo is None else min(lo, pl)
            hi = ph if hi is None else max(hi, ph)
    return lo, hi


def _finish(row_offsets, cols, w, n: int, directed, name, spec, vertex_ids, n_loops: int, n_dups: int,
            n_conflicts: int, source_label) -> CSRGraph:
    """The :class:`CSRGraph` of a build, with *vertex_ids* checked (length *n*) and kept as host int64."""
    if vertex_ids is not None:
        vertex_ids = np.asarray(to_host(vertex_ids)).astype(np.int64, copy=False).ravel()
        if vertex_ids.shape[0] != n:
            raise GraphFormatError(f"vertex_ids has {vertex_ids.shape[0]} entries for {n} vertices", source_label)
    return CSRGraph(row_offsets=row_offsets, column_indices=cols, directed=bool(directed), name=name, spec=spec,
                    vertex_ids=vertex_ids, n_self_loops_removed=n_loops, n_duplicates_removed=n_dups,
                    weights=w, n_weight_conflicts=n_conflicts)


def _as_array(a, xp):
    """*a* as an array of module *xp*; CuPy input asked for on the host is copied down explicitly."""
    if xp is np:
        return a if isinstance(a, np.ndarray) else np.asarray(to_host(a))
    return xp.asarray(a)


def _as_integer(a, what: str, source_label, xp):
    """Vertex ids as an integer array (dtype kept); integral floats become int64, else GraphFormatError."""
    kind = a.dtype.kind
    if kind == "u" and a.dtype.itemsize == 8:  # uint64 does not mix with the int64 keys
        if a.size and int(a.max()) > _INT64_MAX:
            raise GraphFormatError(f"{what} vertex id {int(a.max())} exceeds the 64-bit signed range", source_label)
        return a.astype(np.int64)
    if kind in "iu":
        return a
    if kind == "b":
        return a.astype(np.int8)
    if kind == "f":
        bad = ~xp.isfinite(a) | (a != xp.floor(a))
        if bool(bad.any()):
            first = a[int(xp.argmax(bad))]
            raise GraphFormatError(f"non-integer {what} vertex id {float(first)!r}", source_label)
        return a.astype(np.int64)
    raise GraphFormatError(f"{what} vertex ids must be integers, got dtype {a.dtype}", source_label)


def _fill_keys(out, src, dst, bits: int) -> None:
    """``out[:] = (src << bits) | dst`` as int64, in place (no temporaries of the edge count)."""
    out[...] = src
    out <<= bits
    out |= dst


def _unique_sorted(keys, xp):
    """Distinct values of an already sorted 1-D array (NumPy or CuPy), in order."""
    if keys.size < 2:
        return keys
    keep = xp.empty(keys.size, dtype=bool)
    keep[0] = True
    xp.not_equal(keys[1:], keys[:-1], out=keep[1:])
    return keys[keep]


# ------------------------------------------------------------------------------ multi-pass build
class _BuildPlan:
    """The memory plan of one :func:`from_edges` call, its inputs already allocated: host memory
    (:func:`autotune.memory.csr_build_bytes`) with NumPy, free device memory
    (:func:`autotune.memory.device_build_bytes`) with CuPy; refuses naming *what*."""

    def __init__(self, n: int, m: int, directed: bool, id_bytes: int, weighted: bool, xp, what: str):
        from . import memory

        self.n, self.m, self.directed, self.id_bytes, self.weighted = n, m, directed, id_bytes, weighted
        self.device = xp is not np
        self.what = str(what)
        self.available = memory.available_device_bytes() if self.device else memory.available_host_bytes()

    def bytes(self, passes: int, pass_keys: int | None = None) -> int:
        """Peak bytes of the build in *passes* ranges (the largest holding *pass_keys* stored edges)."""
        from . import memory

        plan = memory.device_build_bytes if self.device else memory.csr_build_bytes
        return plan(self.n, self.m, directed=self.directed, id_bytes=self.id_bytes, weighted=self.weighted,
                    inputs=False, passes=passes, pass_keys=pass_keys)

    def fits(self, needed: int) -> bool:
        return self.available is None or int(needed) <= self.available

    def refuse(self, needed: int, passes: int):
        """Raise :class:`HostMemoryError` / :class:`DeviceMemoryError`: bytes needed vs available."""
        from .errors import DeviceMemoryError, HostMemoryError

        detail = (f"building the CSR of {self.n:,} vertices and {self.m:,} input edges"
                  + (f" in {passes} passes" if passes > 1 else "") + (" on the GPU" if self.device else ""))
        if self.device:
            raise DeviceMemoryError(f"{self.what} ({detail})", int(needed), int(self.available))
        raise HostMemoryError(self.what, int(needed), int(self.available), detail)

    def choose(self, passes) -> int:
        """The pass count: *passes* when given (refused when its plan does not fit), else the fewest
        that fit (:func:`autotune.memory.build_passes`: 1 whenever the one pass fits)."""
        from . import memory
        from .errors import InvalidArgumentError

        if passes is not None:
            if isinstance(passes, (bool, np.bool_)) or not isinstance(passes, (int, np.integer)) or passes < 1:
                raise InvalidArgumentError(f"passes must be a positive integer, got {passes!r}")
            passes = int(passes)
            needed = self.bytes(passes)
        else:
            passes, needed = memory.build_passes(self.n, self.m, directed=self.directed, id_bytes=self.id_bytes,
                                                 weighted=self.weighted, inputs=False, available=self.available,
                                                 device=self.device)
        if not self.fits(needed):
            self.refuse(needed, passes)
        return passes


def _range_bounds(cum: np.ndarray, passes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Split the buckets into *passes* consecutive ranges holding about equal numbers of keys.

    Parameters
    ----------
    cum : ndarray, shape (n_buckets,), int64
        Cumulative keys per bucket (host).
    passes : int

    Returns
    -------
    (starts, ends, keys) : ndarrays, shape (passes,), int64
        Range ``j`` holds buckets ``starts[j]:ends[j]`` (possibly none) and ``keys[j]`` keys; it
        ends at the first bucket where the cumulative count reaches ``ceil((j + 1) total /
        passes)``, so it holds at most ``total / passes`` keys plus one bucket's.
    """
    nb = int(cum.shape[0])
    total = int(cum[-1])
    targets = (np.arange(1, passes, dtype=np.int64) * total + passes - 1) // passes
    ends = np.minimum(np.searchsorted(cum, targets, side="left") + 1, nb)
    ends = np.append(ends, nb).astype(np.int64)
    starts = np.concatenate(([0], ends[:-1])).astype(np.int64)
    cum0 = np.concatenate(([0], cum))
    return starts, ends, cum0[ends] - cum0[starts]


def _select_range(keys, wk, src, dst, w, v0: int, v1: int, bits: int, chunk: int, directed: bool,
                  remove_self_loops: bool, xp) -> int:
    """Write the int64 keys ``(row << bits) | column`` (and weights) of the stored edges whose row is
    in ``[v0, v1)`` into *keys* (*wk*), in the one-pass build's order: the input edges in input
    order (self-loops skipped when removed), then, undirected, the reversed non-loop edges in input
    order. Chunks of *chunk* input edges bound the temporaries (a mask, the selected endpoints).
    Returns the number written."""
    m = int(src.shape[0])
    pos = 0
    directions = [(src, dst, remove_self_loops)]
    if not directed:
        directions.append((dst, src, True))  # a kept self-loop is stored once
    for rows, cols, skip_loops in directions:
        for lo in range(0, m, chunk):
            r, c = rows[lo:lo + chunk], cols[lo:lo + chunk]
            sel = r >= v0
            sel &= r < v1
            if skip_loops:
                sel &= r != c
            k = int(count_nonzero(sel))
            if k:
                seg = keys[pos:pos + k]
                seg[...] = r[sel]
                seg <<= bits
                seg |= c[sel]
                if w is not None:
                    wk[pos:pos + k] = w[lo:lo + chunk][sel]
                del seg
                pos += k
            del sel
    return pos


def _count_loop_keys(keys, bits: int, chunk: int, xp) -> int:
    """Keys ``(v << bits) | v`` (self-loops) among *keys*, counted in chunks."""
    low = (1 << bits) - 1
    count = 0
    for lo in range(0, int(keys.shape[0]), chunk):
        k = keys[lo:lo + chunk]
        count += int(count_nonzero((k >> bits) == (k & low)))
    return count


def _shrink(a, size: int, xp):
    """The first *size* entries of the 1-D array *a* without copying them: NumPy shrinks the
    buffer in place (``resize``: a ``realloc``, which returns the tail to the allocator; *a* has
    no other view), CuPy returns a view (the tail stays allocated with it)."""
    if int(a.shape[0]) == size:
        return a
    if xp is np and a.flags.owndata:
        a.resize(size, refcheck=False)
        return a
    return a[:size]


def _build_in_passes(src, dst, w, n: int, plan: _BuildPlan, passes: int, *, forced: bool, directed: bool,
                     remove_self_loops: bool, remove_duplicates: bool, xp, source_label):
    """The CSR of :func:`from_edges` built in *passes* source ranges (``passes > 1``).

    1. One pass over the input edges in chunks: the number of stored edges (keys) per source
       bucket (``2**shift`` consecutive vertices, at most ``2**BUILD_BUCKET_BITS`` buckets), i.e.
       ``bincount`` of the sources (and, undirected, of the destinations) less the self-loops'
       keys the build drops, and the self-loop count.
    2. The buckets split into *passes* ranges of about equal key counts (:func:`_range_bounds`);
       when the largest range's plan does not fit, one range more, up to
       :data:`~autotune.memory.MAX_BUILD_PASSES` (refused past it, or at once when *forced*).
    3. The output allocated once at the stored count before de-duplication: int32 columns,
       weights, row offsets (int32, or int64 when that count exceeds int32).
    4. Per range: its keys (:func:`_select_range`), sorted and de-duplicated exactly as the one-pass
       build (weights: the minimum kept, conflicts counted by :func:`_merge_min`; parallel edges
       kept in input order), its row offsets (``searchsorted`` of its row starts, plus the running
       edge count) and its columns written at the running count. A row's edges all fall in one
       range, so every de-duplication and conflict is the one-pass build's.
    5. The columns and weights shrunk to the edge count (:func:`_shrink`); int64 offsets become
       int32 when the edges left fit.

    Returns
    -------
    (row_offsets, column_indices, weights, n_self_loops_removed, n_duplicates_removed, n_weight_conflicts)
        Bit-identical to the one-pass build.
    """
    from . import memory

    m = int(src.shape[0])
    chunk = max(1, int(memory.BUILD_CHUNK_EDGES))
    bits = max(1, (n - 1).bit_length())
    shift = max(0, bits - int(memory.BUILD_BUCKET_BITS))
    nb = ((n - 1) >> shift) + 1
    # 1. keys per source bucket: every input edge as a source (undirected: as a destination too),
    # less the keys of the self-loops the build drops (removed: both directions; kept: the reverse)
    per_loop = int(bool(remove_self_loops)) + int(not directed)
    hist = xp.zeros(nb, dtype=np.int64)
    n_loop_edges = 0
    for lo in range(0, m, chunk):
        s, d = src[lo:lo + chunk], dst[lo:lo + chunk]
        hist += xp.bincount(s >> shift if shift else s, minlength=nb)
        if not directed:
            hist += xp.bincount(d >> shift if shift else d, minlength=nb)
        loops = s[s == d]
        if loops.size:
            n_loop_edges += int(loops.size)
            if per_loop:
                hist -= per_loop * xp.bincount(loops >> shift if shift else loops, minlength=nb)
        del s, d, loops
    n_loops = n_loop_edges if remove_self_loops else 0
    n_input = m - n_loops
    if n_input == 0:
        raise EmptyGraphError("graph has no edges after removing self-loops", source_label)
    cum = np.cumsum(np.asarray(to_host(hist), dtype=np.int64))
    del hist
    total = int(cum[-1])
    # 2. the ranges; more of them while the largest one's plan does not fit
    while True:
        starts, ends, range_keys = _range_bounds(cum, passes)
        needed = plan.bytes(passes, int(range_keys.max()))
        if plan.fits(needed) and (not plan.device or int(range_keys.max()) <= memory.DEVICE_PASS_KEYS):
            break
        if forced or passes >= memory.MAX_BUILD_PASSES:
            plan.refuse(needed, passes)
        passes += 1
    # 3. the output, filled range by range
    offsets_dtype = np.int32 if total <= _OFFSETS_INT32_MAX else np.int64
    row_offsets = xp.empty(n + 1, dtype=offsets_dtype)
    cols = xp.empty(total, dtype=np.int32)
    w_out = None if w is None else xp.empty(total, dtype=w.dtype)
    low = (1 << bits) - 1
    count_loops = not directed and not remove_self_loops and remove_duplicates
    off = 0
    n_conflicts = 0
    n_loops_kept = 0
    for j in range(passes):
        v0, v1 = int(starts[j]) << shift, min(int(ends[j]) << shift, n)
        if v1 <= v0:
            continue
        k = int(range_keys[j])
        if k == 0:
            row_offsets[v0:v1] = off
            continue
        keys = xp.empty(k, dtype=np.int64)
        wk = None if w is None else xp.empty(k, dtype=w.dtype)
        got = _select_range(keys, wk, src, dst, w, v0, v1, bits, chunk, directed, remove_self_loops, xp)
        if got != k:
            raise RuntimeError(f"CSR build pass {j + 1} of {passes} selected {got:,} edges where the histogram "
                               f"counted {k:,}: the edge arrays changed during the build")
        # the one-pass build's sort and de-duplication, inline as there: rebinding keys / wk here
        # frees the unsorted arrays at once (a helper's caller would keep them alive: one key array
        # more at the peak, which the memory plans do not count)
        if w is None:
            keys.sort()
            if remove_duplicates:
                keys = _unique_sorted(keys, xp)
        else:
            order = xp.argsort(keys) if remove_duplicates else xp.argsort(keys, kind="stable")
            keys = keys[order]
            wk = wk[order]
            del order
            if remove_duplicates:
                keys, wk, conflicts = _merge_min(keys, wk, bits, bool(directed), xp)
                n_conflicts += conflicts
        u = int(keys.shape[0])
        row_starts = xp.arange(v0, v1, dtype=np.int64)
        row_starts <<= bits
        first = xp.searchsorted(keys, row_starts)
        del row_starts
        first += off
        row_offsets[v0:v1] = first
        del first
        if count_loops:
            n_loops_kept += _count_loop_keys(keys, bits, chunk, xp)
        keys &= low
        cols[off:off + u] = keys
        if w_out is not None:
            w_out[off:off + u] = wk
        off += u
        del keys, wk
    row_offsets[n] = off
    # 5. the edges left
    if offsets_dtype is np.int64 and off <= _OFFSETS_INT32_MAX:
        row_offsets = row_offsets.astype(np.int32)
    cols = _shrink(cols, off, xp)
    if w_out is not None:
        w_out = _shrink(w_out, off, xp)
    if not remove_duplicates:
        n_dups = 0
    elif directed:
        n_dups = n_input - off
    else:  # as the one-pass build: a non-loop edge is stored twice, a kept self-loop once
        n_dups = n_input - ((off - n_loops_kept) // 2 + n_loops_kept)
    return row_offsets, cols, w_out, n_loops, n_dups, n_conflicts


def host_transpose(row_offsets, column_indices, weights=None):
    """In-edge CSR of a host CSR: ``(in_offsets int64, in_indices int32, in_weights or None)``.

    ``in_indices[in_offsets[v]:in_offsets[v + 1]]`` are the sources of the edges into ``v``, ascending
    (a stable sort of the edges by destination keeps the CSR's source order); *weights* (one per
    stored edge) follow their edges. NumPy arrays in and out (the GPU form is
    :func:`autotune._engine.transpose_csr`).
    """
    ro = np.asarray(row_offsets, dtype=np.int64)
    ci = np.asarray(column_indices)
    n = ro.shape[0] - 1
    order = np.argsort(ci, kind="stable")
    in_indices = np.repeat(np.arange(n, dtype=np.int32), np.diff(ro))[order]
    in_offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(ci, minlength=n), out=in_offsets[1:])
    return in_offsets, in_indices, None if weights is None else np.asarray(weights)[order]


def edge_rows(row_offsets, xp=None):
    """Source vertex (row) of every stored edge, shape (n_edges,), int64, same module as *row_offsets*.

    *row_offsets* may be int32 or int64 (past ``2**31 - 1`` edges); peak ``8 + offset bytes`` per
    edge (the positions and their rows; the rows are returned without another copy).
    """
    if xp is None:
        xp = xp_of(row_offsets)
    m = int(row_offsets[-1])
    # CuPy's repeat takes no array of counts; searchsorted works in both
    return xp.searchsorted(row_offsets[1:], xp.arange(m, dtype=row_offsets.dtype),
                           side="right").astype(np.int64, copy=False)


def _with_direction(g: CSRGraph, directed: bool | None, **build) -> CSRGraph:
    """*g* with the requested direction: mark an undirected graph directed, or symmetrize a directed one
    (weights follow their edges; the two directions of a merged edge keep the minimum weight)."""
    if directed is None or bool(directed) == g.directed:
        return g
    if directed:
        cache = {k: v for k, v in g._cache.items() if k == "node_labels"}
        return dataclasses.replace(g, directed=True, _cache=cache)
    xp = build.get("xp") or xp_of(g.row_offsets)
    ro, ci = (g.row_offsets, g.column_indices) if xp is xp_of(g.row_offsets) else (
        _as_array(g.row_offsets, xp), _as_array(g.column_indices, xp))
    w = None if g.weights is None else _as_array(g.weights, xp)
    rows = edge_rows(ro, xp)
    out = from_edges(rows, ci, g.n_vertices, weights=w, directed=False, name=g.name, spec=g.spec,
                     vertex_ids=g.vertex_ids, remove_self_loops=build.get("remove_self_loops", True),
                     remove_duplicates=build.get("remove_duplicates", True), xp=xp, source_label=g.spec)
    out.n_self_loops_removed += g.n_self_loops_removed
    out.n_duplicates_removed += g.n_duplicates_removed
    out.n_weight_conflicts += g.n_weight_conflicts
    if "node_labels" in g._cache:
        out._cache["node_labels"] = g._cache["node_labels"]
    return out


# ================================================================================================
# Binary form (CSRGraph.save / load_binary): parse a text graph once, memory-map it afterwards
# ================================================================================================
#: First 8 bytes of a binary graph file (``\x93`` marks it binary, as NumPy's ``.npy`` does).
BINARY_MAGIC = b"\x93ATG-CSR"
#: Format version written by :meth:`CSRGraph.save`; :func:`load_binary` reads only this one.
BINARY_VERSION = 1
#: Extension :func:`autotune.graph.load_graph` dispatches on.
BINARY_EXTENSION = ".atg"
_BINARY_PREFIX = 16  # magic (8), version (uint32 LE), header length (uint32 LE)
_BINARY_ALIGN = 64
_BINARY_FORMAT = "autotune.CSRGraph"
#: dtypes each stored array may have (little-endian), and whether it must be present.
_BINARY_ARRAYS = {
    "row_offsets": (("<i4", "<i8"), True),
    "column_indices": (("<i4", "<i8"), True),
    "weights": (("<i4", "<f4"), False),
    "vertex_ids": (("<i8",), False),
}
_BINARY_COUNTS = ("n_self_loops_removed", "n_duplicates_removed", "n_weight_conflicts")


def _align(x: int) -> int:
    return -(-int(x) // _BINARY_ALIGN) * _BINARY_ALIGN


def _json_labels(labels):
    """NetworkX node labels as a JSON list when every label is a str or an int, else None."""
    out = []
    for x in labels:
        if isinstance(x, str):
            out.append(x)
        elif isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)):
            out.append(int(x))
        else:
            return None
    return out


def save_binary(graph: CSRGraph, path) -> str:
    """Write *graph* to *path* in the binary form of :meth:`CSRGraph.save` (which documents it)."""
    import json
    import os
    import warnings
    import zlib

    from ._files import _reason
    from .errors import FileAccessError

    path = os.fspath(path)
    ro, ci = graph.host()
    arrays = [("row_offsets", ro), ("column_indices", ci)]
    w = graph.host_weights()
    if w is not None:
        arrays.append(("weights", w))
    if graph.vertex_ids is not None:
        arrays.append(("vertex_ids", np.asarray(graph.vertex_ids, dtype=np.int64)))
    arrays = [(k, np.ascontiguousarray(a, dtype=np.dtype(a.dtype).newbyteorder("<"))) for k, a in arrays]
    labels = None
    if "node_labels" in graph._cache:
        labels = _json_labels(graph._cache["node_labels"])
        if labels is None:
            warnings.warn(f"{path}: the graph's NetworkX node labels are not all strings or integers; they are not "
                          "saved (the loaded graph numbers its vertices 0..n-1 in node order)", UserWarning,
                          stacklevel=3)
    header = {"format": _BINARY_FORMAT, "version": BINARY_VERSION, "n_vertices": graph.n_vertices,
              "n_edges": graph.n_edges, "directed": bool(graph.directed), "name": str(graph.name),
              "spec": None if graph.spec is None else str(graph.spec),
              **{k: int(getattr(graph, k)) for k in _BINARY_COUNTS}, "node_labels": labels, "arrays": {},
              "file_bytes": 0}
    crcs = {k: zlib.crc32(a) if a.nbytes else 0 for k, a in arrays}
    start = 0
    while True:  # offsets depend on the header's length, which depends on the offsets' digits
        off = _align(_BINARY_PREFIX + start)
        for k, a in arrays:
            header["arrays"][k] = {"dtype": a.dtype.str, "shape": [int(a.shape[0])], "offset": off,
                                   "nbytes": int(a.nbytes), "crc32": crcs[k]}
            off = _align(off + a.nbytes)
        header["file_bytes"] = off  # the aligned end (the last array zero-padded)
        text = json.dumps(header, separators=(",", ":")).encode()
        if _BINARY_PREFIX + len(text) <= _align(_BINARY_PREFIX + start):
            break
        start = len(text)
    head_len = _align(_BINARY_PREFIX + start) - _BINARY_PREFIX
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as fh:
            fh.write(BINARY_MAGIC + BINARY_VERSION.to_bytes(4, "little") + head_len.to_bytes(4, "little"))
            fh.write(text + b" " * (head_len - len(text)))
            for k, a in arrays:
                fh.seek(header["arrays"][k]["offset"])
                if a.nbytes:
                    fh.write(memoryview(a).cast("B"))
            fh.truncate(header["file_bytes"])
        os.replace(tmp, path)
    except OSError as exc:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        reason = "folder not found" if exc.errno == 2 else _reason(exc)
        raise FileAccessError(path, f"cannot write the graph file: {reason}", exc.errno) from None
    return path


def _binary_error(path: str, problem: str):
    return GraphFormatError(f"not a readable autotune binary graph ({BINARY_EXTENSION}, version {BINARY_VERSION}): "
                            f"{problem}", path)


def _read_whole(fh, size: int, path: str) -> bytearray:
    from .errors import GraphFileError

    buf = bytearray(size)
    view = memoryview(buf)
    got = 0
    try:
        while got < size:
            k = fh.readinto(view[got:])
            if not k:
                break
            got += k
    except OSError as exc:
        raise GraphFileError(path, f"cannot read the graph file: {exc.strerror or exc}", exc.errno) from None
    if got < size:
        raise _binary_error(path, f"truncated: the file shrank to {got:,} bytes while it was read")
    return buf


def load_binary(path, *, mmap: bool = True, verify: bool = True, xp=None, data=None) -> CSRGraph:
    """Read a graph written by :meth:`CSRGraph.save`.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.atg`` file (named in every error).
    mmap : bool, default True
        Memory-map the file: the arrays are read-only views of the page cache, loaded lazily,
        with no copy. False reads the file into memory (writable arrays).
    verify : bool, default True
        Check every array's CRC-32 and the CSR structure (row offsets non-decreasing, columns
        and vertex ids in range): one pass over the file. Without it only the header, the sizes,
        ``row_offsets[0] == 0`` and ``row_offsets[-1] == n_edges`` are checked.
    xp : module, optional
        ``numpy`` (default where no GPU is usable) or ``cupy`` (default on a GPU machine: the
        arrays are uploaded, after a device-memory check, see
        :func:`autotune.memory.check_device_plan`). ``vertex_ids`` stay on the host.
    data : bytes, optional
        The file's content when already read (e.g. decompressed); *path* only names it then.

    Returns
    -------
    CSRGraph
        As saved: arrays, ``directed``, ``name``, ``spec``, ``vertex_ids``, cleaning counts and
        NetworkX node labels (``graph._cache['node_labels']``).

    Raises
    ------
    MissingFileError, GraphFileError
        When the file does not exist or cannot be read (a directory, a FIFO, no permission).
    GraphFormatError
        Naming the file and the problem: not a binary graph (magic bytes), another format
        version, truncated (bytes declared vs present), a header that is not the expected JSON,
        an array of an unexpected dtype or shape, a failed CRC-32 or structure check.
    DeviceMemoryError
        With ``xp=cupy``, when the arrays do not fit in free device memory.
    """
    import json
    import mmap as mmap_module
    import os
    import zlib

    from ._files import open_regular
    from .errors import GraphFileError

    path = os.fspath(path)
    if data is not None:
        buf = data
        size = len(data)
    else:
        with open_regular(path, "graph file", error=GraphFileError) as fh:
            size = os.fstat(fh.fileno()).st_size
            if size < _BINARY_PREFIX:
                buf = fh.read()
            elif mmap:
                try:
                    buf = mmap_module.mmap(fh.fileno(), 0, access=mmap_module.ACCESS_READ)
                except (OSError, ValueError) as exc:
                    raise GraphFileError(path, f"cannot memory-map the graph file: {exc}",
                                         getattr(exc, "errno", None)) from None
            else:
                buf = _read_whole(fh, size, path)
    head = bytes(buf[:_BINARY_PREFIX])
    if size == 0:
        raise _binary_error(path, "the file is empty (0 bytes)")
    if head[:len(BINARY_MAGIC)] != BINARY_MAGIC and not (len(head) < len(BINARY_MAGIC)
                                                         and BINARY_MAGIC.startswith(head)):
        raise _binary_error(path, f"the file starts with {head[:8]!r}, not the magic bytes {BINARY_MAGIC!r}")
    if size < _BINARY_PREFIX:
        raise _binary_error(path, f"truncated: {size} bytes, shorter than the {_BINARY_PREFIX}-byte prefix")
    version = int.from_bytes(head[8:12], "little")
    if version != BINARY_VERSION:
        raise _binary_error(path, f"format version {version} (this release reads version {BINARY_VERSION} only); "
                            "save the graph again with this release, or load it with the release that wrote it")
    head_len = int.from_bytes(head[12:16], "little")
    if _BINARY_PREFIX + head_len > size:
        raise _binary_error(path, f"truncated: the header ends at byte {_BINARY_PREFIX + head_len:,} but the file "
                            f"has {size:,} bytes")
    try:
        header = json.loads(bytes(buf[_BINARY_PREFIX:_BINARY_PREFIX + head_len]).decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise _binary_error(path, f"corrupt header (not UTF-8 JSON: {exc})") from None

    def bad(problem):
        return _binary_error(path, f"corrupt header: {problem}")

    def field_(key, kind, optional=False):
        if not isinstance(header, dict) or key not in header:
            raise bad(f"no field {key!r}")
        v = header[key]
        if v is None and optional:
            return None
        if not isinstance(v, kind) or (isinstance(v, bool) and kind is not bool):
            raise bad(f"field {key!r} = {v!r:.60} is not of type {kind.__name__}")
        return v

    if field_("format", str) != _BINARY_FORMAT:
        raise bad(f"format {header['format']!r:.60}, expected {_BINARY_FORMAT!r}")
    if field_("version", int) != version:
        raise bad(f"header version {header['version']} differs from the prefix's {version}")
    n = field_("n_vertices", int)
    m = field_("n_edges", int)
    directed = field_("directed", bool)
    name = field_("name", str)
    spec = field_("spec", str, optional=True)
    counts = {k: field_(k, int) for k in _BINARY_COUNTS}
    labels = field_("node_labels", list, optional=True)
    file_bytes = field_("file_bytes", int)
    table = field_("arrays", dict)
    if n < 0 or m < 0 or min(counts.values()) < 0:
        raise bad(f"n_vertices = {n}, n_edges = {m}")
    if size < file_bytes:
        raise _binary_error(path, f"truncated: the header declares {file_bytes:,} bytes but the file has {size:,}")
    if size > file_bytes:
        raise _binary_error(path, f"corrupt: {size - file_bytes:,} bytes beyond the declared end (byte "
                            f"{file_bytes:,})")
    unknown = sorted(set(table) - set(_BINARY_ARRAYS))
    if unknown:
        raise bad(f"unknown array {unknown[0]!r:.60}")
    expected_len = {"row_offsets": n + 1, "column_indices": m, "weights": m, "vertex_ids": n}
    arrays = {}
    for key, (dtypes, required) in _BINARY_ARRAYS.items():
        if key not in table:
            if required:
                raise bad(f"no array {key!r}")
            continue
        e = table[key]
        if not isinstance(e, dict):
            raise bad(f"array {key!r} is described by {e!r:.60}")
        dt, shape, off, nb = e.get("dtype"), e.get("shape"), e.get("offset"), e.get("nbytes")
        if dt not in dtypes:
            raise bad(f"array {key!r} has dtype {dt!r:.40} (expected {' or '.join(dtypes)})")
        if (not isinstance(shape, list) or len(shape) != 1 or not isinstance(shape[0], int)
                or isinstance(shape[0], bool) or shape[0] != expected_len[key]):
            raise bad(f"array {key!r} has shape {shape!r:.60}, expected [{expected_len[key]}]")
        if not isinstance(off, int) or not isinstance(nb, int) or nb != shape[0] * np.dtype(dt).itemsize \
                or off < _BINARY_PREFIX + head_len or not isinstance(e.get("crc32"), int):
            raise bad(f"array {key!r} has offset {off!r:.30}, nbytes {nb!r:.30}, crc32 {e.get('crc32')!r:.30}")
        if off + nb > size:
            raise _binary_error(path, f"truncated: array {key!r} ends at byte {off + nb:,} but the file has "
                                f"{size:,} bytes")
        a = np.frombuffer(buf, dtype=np.dtype(dt), count=shape[0], offset=off) if nb else np.zeros(0, dt)
        if verify and (zlib.crc32(a) if nb else 0) != e["crc32"]:
            raise _binary_error(path, f"corrupt: array {key!r} fails its CRC-32 check (stored {e['crc32']:#010x}, "
                                f"computed {zlib.crc32(a):#010x})")
        arrays[key] = a.astype(a.dtype.newbyteorder("="), copy=False)
    ro, ci = arrays["row_offsets"], arrays["column_indices"]
    if int(ro[0]) != 0 or int(ro[-1]) != m:
        raise _binary_error(path, f"corrupt: row_offsets runs from {int(ro[0])} to {int(ro[-1])}, expected 0 to "
                            f"n_edges = {m}")
    if verify:
        if n > 1 and not bool(np.all(ro[1:] >= ro[:-1])):
            u = int(np.argmax(ro[1:] < ro[:-1]))
            raise _binary_error(path, f"corrupt: row_offsets decreases at vertex {u} ({int(ro[u])} -> "
                                f"{int(ro[u + 1])})")
        if m and (int(ci.min()) < 0 or int(ci.max()) >= n):
            raise _binary_error(path, f"corrupt: column index {int(ci.min()) if int(ci.min()) < 0 else int(ci.max())} "
                                f"is not a vertex (0..{n - 1})")
    if labels is not None and len(labels) != n:
        raise bad(f"{len(labels)} node labels for {n} vertices")
    if xp is None:
        xp = default_xp() if gpu_available() else np
    w = arrays.get("weights")
    if xp is not np:
        from .memory import check_device_plan

        check_device_plan(path, sum(a.nbytes for k, a in arrays.items() if k != "vertex_ids"),
                          detail=f"uploading {n:,} vertices and {m:,} edges")
        ro, ci = xp.asarray(ro), xp.asarray(ci)
        w = None if w is None else xp.asarray(w)
    g = CSRGraph(row_offsets=ro, column_indices=ci, directed=directed, name=name, spec=spec,
                 vertex_ids=arrays.get("vertex_ids"), weights=w, **counts)
    if labels is not None:
        g._cache["node_labels"] = labels
    return g
