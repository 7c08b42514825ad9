"""Graphs in CSR form (:class:`CSRGraph`) and the shared edge-list → CSR builder.

Terms follow DESIGN.md: ``row_offsets`` (n_vertices + 1) and ``column_indices`` (n_edges), int32
where they fit. Arrays live on the GPU (CuPy) when one is present, else on the host (NumPy).
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from ._backend import default_xp, gpu_available, to_host, xp_of
from .errors import EmptyGraphError, GraphFormatError

INT32_MAX = np.iinfo(np.int32).max


@dataclass(eq=False)
class CSRGraph:
    """A graph in compressed sparse row form.

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
    """

    row_offsets: object
    column_indices: object
    directed: bool
    name: str = "graph"
    spec: str | None = None
    vertex_ids: np.ndarray | None = None
    n_self_loops_removed: int = 0
    n_duplicates_removed: int = 0
    _cache: dict = field(default_factory=dict, repr=False)

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
    def on_device(self) -> bool:
        """True when the CSR arrays are CuPy arrays."""
        return xp_of(self.row_offsets) is not np

    def __repr__(self) -> str:
        kind = "directed" if self.directed else "undirected"
        where = "gpu" if self.on_device else "host"
        return f"CSRGraph({self.name!r}, {kind}, n_vertices={self.n_vertices:,}, n_edges={self.n_edges:,}, {where})"

    # ------------------------------------------------------------- residency
    def host(self) -> tuple[np.ndarray, np.ndarray]:
        """``(row_offsets, column_indices)`` as NumPy arrays (copied from the GPU once, then cached)."""
        if not self.on_device:
            return self.row_offsets, self.column_indices
        if "host" not in self._cache:
            self._cache["host"] = (to_host(self.row_offsets), to_host(self.column_indices))
        return self._cache["host"]

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
        """``"sha256:<hex>"`` of directedness and the CSR arrays: equal graphs, equal fingerprints."""
        if "fingerprint" not in self._cache:
            ro, ci = self.host()
            h = hashlib.sha256()
            h.update(b"directed" if self.directed else b"undirected")
            h.update(np.ascontiguousarray(ro, dtype=np.int64).tobytes())
            h.update(np.ascontiguousarray(ci, dtype=np.int32).tobytes())
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
        KeyError
            Naming the first id that is not a vertex of the graph.
        """
        ids = np.atleast_1d(np.asarray(original_ids, dtype=np.int64))
        if self.vertex_ids is None:
            bad = ids[(ids < 0) | (ids >= self.n_vertices)]
            if bad.size:
                raise KeyError(f"vertex id {int(bad[0])} is not in the graph (ids are 0..{self.n_vertices - 1})")
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
                raise KeyError(f"vertex id {int(ids[missing][0])} does not appear in {self.spec or self.name}")
            out = order[pos_c].astype(np.int64)
        return out if np.ndim(original_ids) else out[:1].reshape(())

    def original_id(self, internal):
        """Original (file) id of internal vertex index/indices *internal*."""
        internal = np.asarray(internal)
        if self.vertex_ids is None:
            return internal.astype(np.int64)
        return self.vertex_ids[internal]

    def to_scipy(self):
        """The adjacency matrix as ``scipy.sparse.csr_matrix`` (int8 ones), shape (n, n)."""
        import scipy.sparse as sp

        ro, ci = self.host()
        data = np.ones(ci.shape[0], dtype=np.int8)
        return sp.csr_matrix((data, ci, ro), shape=(self.n_vertices, self.n_vertices))


def from_edges(src, dst, n_vertices: int | None = None, *, directed: bool = True, name: str = "graph",
               spec: str | None = None, vertex_ids=None, remove_self_loops: bool = True,
               remove_duplicates: bool = True, xp=None, source_label: str | None = None) -> CSRGraph:
    """Build a :class:`CSRGraph` from edge arrays (the one builder every loader and generator uses).

    Parameters
    ----------
    src, dst : array_like of int, shape (n_input_edges,)
        Edge endpoints, already 0-based internal ids in ``[0, n_vertices)``. NumPy or CuPy.
    n_vertices : int, optional
        Vertex count; defaults to ``max(src, dst) + 1``.
    directed : bool
        When False every edge is symmetrized (both directions stored).
    remove_self_loops, remove_duplicates : bool
        Drop ``u -> u`` edges and repeated ``u -> v`` edges; the counts are kept on the graph.
    xp : module, optional
        ``numpy`` or ``cupy`` to build with (default: CuPy when a GPU is present). The result's
        arrays live in that module.
    source_label : str, optional
        Used in error messages (e.g. the file path).

    Returns
    -------
    CSRGraph
        Columns sorted within each row; ``row_offsets`` int32 when ``n_edges <= 2**31 - 1``.

    Raises
    ------
    EmptyGraphError
        When there are no vertices, or no edges remain after cleaning.
    GraphFormatError
        On a negative id or an id >= n_vertices.
    """
    if xp is None:
        xp = default_xp() if gpu_available() else np
    src = xp.asarray(src).ravel()
    dst = xp.asarray(dst).ravel()
    if src.shape != dst.shape:
        raise GraphFormatError(f"src and dst differ in length ({src.shape[0]} vs {dst.shape[0]})", source_label)
    if src.size == 0:
        raise EmptyGraphError("graph has no edges", source_label)
    src = src.astype(np.int64, copy=False)
    dst = dst.astype(np.int64, copy=False)
    lo = int(min(int(src.min()), int(dst.min())))
    hi = int(max(int(src.max()), int(dst.max())))
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

    n_loops = 0
    if remove_self_loops:
        keep = src != dst
        n_loops = int(src.size - int(keep.sum()))
        if n_loops:
            src, dst = src[keep], dst[keep]
    if not directed:
        src, dst = xp.concatenate([src, dst]), xp.concatenate([dst, src])
    keys = src * n + dst
    n_before = int(keys.size)
    if remove_duplicates:
        keys = xp.unique(keys)
    else:
        keys = xp.sort(keys)
    n_dups = n_before - int(keys.size)
    if not directed:
        # each undirected duplicate shows up twice after symmetrization; report input edges
        n_dups //= 2
    if keys.size == 0:
        raise EmptyGraphError("graph has no edges after removing self-loops", source_label)
    rows = keys // n
    cols = (keys - rows * n).astype(np.int32)
    counts = xp.bincount(rows, minlength=n)
    offset_dtype = np.int32 if keys.size <= INT32_MAX else np.int64
    row_offsets = xp.zeros(n + 1, dtype=offset_dtype)
    row_offsets[1:] = xp.cumsum(counts).astype(offset_dtype)
    return CSRGraph(row_offsets=row_offsets, column_indices=cols, directed=bool(directed), name=name, spec=spec,
                    vertex_ids=None if vertex_ids is None else to_host(xp.asarray(vertex_ids)).astype(np.int64),
                    n_self_loops_removed=n_loops, n_duplicates_removed=n_dups)
