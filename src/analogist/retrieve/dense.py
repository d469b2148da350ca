"""Dense-vector search over float32 rows (channels S2.L2, S2.L3 and M.emb), exact or via HNSW:
held here (:class:`VectorIndex`) or ranked by the database (:class:`ServerVectorIndex`).

Vectors are unit length, so cosine similarity is one matrix-vector product per block of rows;
at 100k x 384 a query is a ~40 MFLOP product plus an O(n) partial selection.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, BinaryIO, Protocol

import numpy as np

from analogist.retrieve.ann import RESCORE_EXTRA, Hnsw, expansion_search
from analogist.retrieve.frozen import IdTable
from analogist.retrieve.random_access import prefetch
from analogist.retrieve.sparse_rows import SparseRows, damaged
from analogist.retrieve.sparse_tail import SparseTail, sparse_enough
from analogist.store.pg_vectors import MAX_EF_SEARCH

if TYPE_CHECKING:
    from analogist.store import Store


class Candidates(Protocol):
    """What finds a search's candidate rows among a snapshot's base rows: an HNSW graph
    (:class:`~analogist.retrieve.ann.Hnsw`, approximate) or per-dimension lists
    (:class:`~analogist.retrieve.vector_lists.VectorLists`, exact)."""

    def __len__(self) -> int: ...

    def candidates(self, query: np.ndarray, k: int) -> np.ndarray: ...


def kth_largest(values: np.ndarray, k: int) -> np.floating:
    """The ``k``-th largest of ``values`` (``1 <= k <= len(values)``): ``np.partition``'s answer.

    A sparse search scores most rows exactly 0 (they share no dimension with the query), and
    numpy's partition is ~9x slower on an array that is mostly one value (68 against 7.8 ms for
    625k float32, measured), which made it most of a lists search at 1M. So the values above
    zero are tried first, then zero itself, then those below — each an O(n) mask — and the
    partition sees only what is left.
    """
    above = values[values > 0]
    zeros = int(np.count_nonzero(values == 0))
    negative = values < 0
    if len(above) + zeros + int(np.count_nonzero(negative)) < len(values):  # NaNs: numpy
        return np.partition(values, len(values) - k)[len(values) - k]  # orders them last
    if len(above) >= k:
        return np.partition(above, len(above) - k)[len(above) - k]
    rest = k - len(above) - zeros
    if rest <= 0:
        return values.dtype.type(0)
    below = values[negative]
    return np.partition(below, len(below) - rest)[len(below) - rest]


def top_indices(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest scores, best first (stable for ties: lower index first)."""
    n = len(scores)
    if k <= 0 or n == 0:
        return np.zeros(0, dtype=np.int64)
    if k < n:  # the k-th best score, then every index above it and the first tied ones
        kth = kth_largest(scores, k)
        above = np.flatnonzero(scores > kth)
        part = np.concatenate([above, np.flatnonzero(scores == kth)[: k - len(above)]])
    else:
        part = np.arange(n)
    return part[np.lexsort((part, -scores[part]))]


class VectorIndex:
    """Episode ids and their vectors for one (level, embedder) pair.

    Rows are a base matrix (memory-mapped copy-on-write when opened from a persisted snapshot,
    see :mod:`analogist.retrieve.persist`) followed by the rows added since: fixed-size float32
    blocks, so growing never copies the corpus and never over-allocates by more than one block,
    or, when the first rows added are sparse (the hashing embedder's), their non-zero values
    (:class:`~analogist.retrieve.sparse_tail.SparseTail`, scored as a snapshot's sparse rows).
    With an HNSW graph over the base (:class:`~analogist.retrieve.ann.Hnsw`) or per-dimension
    lists (:class:`~analogist.retrieve.vector_lists.VectorLists`, sparse rows) a search asks
    them for candidates, scans the tail exactly and re-scores everything exactly;
    ``exact=True`` (or neither) scans every row.

    Args:
        dim: vector dimension (fixed by the embedder).
        block: rows per tail block.
        base: rows already persisted (n0, dim): a float32 matrix, or a snapshot's sparse rows
            (:class:`~analogist.retrieve.sparse_rows.SparseRows`, read as the same dense rows).
        ids: the ids of the base rows (an :class:`IdTable`).
        ann: an HNSW graph or per-dimension lists over the base rows, or None.
        row_file: the file ``base`` maps (raw float32 rows from offset 0), opened for reading:
            a search re-scores its candidates from it with ``pread`` (see :meth:`base_rows`).
    """

    def __init__(
        self,
        dim: int,
        block: int = 32768,
        base: np.ndarray | SparseRows | None = None,
        ids: IdTable | None = None,
        ann: Candidates | None = None,
        row_file: BinaryIO | None = None,
    ):
        self.dim = dim
        self.block = block
        self.base: np.ndarray | SparseRows = (
            base if base is not None else np.zeros((0, dim), dtype=np.float32)
        )
        self.ids = ids if ids is not None else IdTable()
        self.ann = ann
        self.row_file = row_file
        if row_file is not None:  # closed with the index, without an unclosed-file warning
            weakref.finalize(self, row_file.close)
        self.exact = False
        self.replaced: set[int] = set()
        self._blocks: list[np.ndarray] = []
        self._sparse: SparseTail | None = None  # the tail's rows, when they are kept sparse

    def __len__(self) -> int:
        return len(self.ids)

    def empty(self) -> bool:
        return not len(self.ids)

    @property
    def mode(self) -> str:
        """How a search runs: ``hnsw`` (approximate candidates, exact scores), ``lists``
        (per-dimension lists: exact candidates and scores) or ``exact`` (a scan of every row)."""
        if self.ann is None or self.exact:
            return "exact"
        return "hnsw" if isinstance(self.ann, Hnsw) else "lists"

    @property
    def matrix(self) -> np.ndarray:
        """All rows as one (n, dim) array (a copy; for snapshots and tests)."""
        _prefetch(self.base)
        parts = [np.asarray(self.base, np.float32), *map(np.asarray, self.tail_blocks())]
        return np.concatenate(parts) if len(self.ids) else np.zeros((0, self.dim), np.float32)

    def tail_blocks(self) -> list[np.ndarray | SparseRows]:
        """The rows added since the base, in order: views of the tail blocks, or a sparse
        tail as one block of sparse rows (sliced, it reads back dense: a save rebuilds its
        dense rows a part at a time, never the whole tail at once)."""
        if self._sparse is not None:
            return [self._sparse.view()] if len(self._sparse) else []
        n, out = len(self.ids) - len(self.base), list[np.ndarray | SparseRows]()
        for b, blk in enumerate(self._blocks):
            rows = min(self.block, n - b * self.block)
            if rows > 0:
                out.append(blk[:rows])
        return out

    def rows_at(self, positions: np.ndarray) -> np.ndarray:
        """The rows at ``positions`` (ascending), base or tail, (len, dim) float32."""
        positions = np.asarray(positions, np.int64)
        n0 = len(self.base)
        out = np.empty((len(positions), self.dim), np.float32)
        low = positions < n0
        out[low] = self.base_rows(positions[low])
        if self._sparse is not None:
            out[~low] = self._sparse.view().rows(positions[~low] - n0)
            return out
        blocks, rows = np.divmod(positions[~low] - n0, self.block)
        tail = out[~low]
        for b in np.unique(blocks).tolist():
            tail[blocks == b] = self._blocks[b][rows[blocks == b]]
        out[~low] = tail
        return out

    def _row(self, i: int) -> tuple[np.ndarray | SparseRows, int]:
        n0 = len(self.base)
        if i < n0:
            return self.base, i
        if self._sparse is not None:  # (a view: setting a row records it in the tail's dict)
            return self._sparse.view(), i - n0
        return self._blocks[(i - n0) // self.block], (i - n0) % self.block

    def base_rows(self, positions: np.ndarray) -> np.ndarray:
        """The base rows at ``positions``, (len, dim) float32. Read from the rows file with
        ``pread`` where there is one: touching a mapped row brings the page cache's whole
        folio into this process (measured on this kernel: ~1.2 MB of RSS per row re-scored,
        1.1 GB per level after a few thousand searches); a row replaced since the snapshot
        comes from the (copy-on-write) mapping, which holds the new vector."""
        if self.row_file is None or not len(positions):
            return np.asarray(self.base[positions], np.float32)
        width, fd = self.dim * 4, self.row_file.fileno()
        out = np.empty((len(positions), self.dim), np.float32)
        for j, at in enumerate(positions.tolist()):
            if at in self.replaced:
                out[j] = self.base[at]
                continue
            raw = os.pread(fd, width, at * width)
            if len(raw) != width:  # the snapshot names rows the file no longer holds
                raise damaged(f"{self.row_file.name}: row {at} is past the end of the rows file")
            out[j] = np.frombuffer(raw, np.float32)
        return out

    def add(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        """Append rows; an id already present has its row replaced."""
        vectors = np.asarray(vectors, dtype=np.float32).reshape(len(ids), self.dim)
        fresh = []
        for i, at in enumerate(self.ids.get_many(ids)):
            if at is None:
                fresh.append(i)
                continue
            blk, r = self._row(at)
            blk[r] = vectors[i]
            if at < len(self.base):
                self.replaced.add(at)
        if len(fresh) == len(ids):  # (all new: the usual case, no copy of rows or ids)
            rows, new_ids = vectors, list(ids)
        else:
            rows, new_ids = vectors[fresh], [ids[i] for i in fresh]
        n0, done = len(self.base), 0
        if self._sparse is None and not self._blocks and sparse_enough(rows):
            self._sparse = SparseTail(self.dim)
        if self._sparse is not None:
            self._sparse.append(rows)
            self.ids.extend(new_ids)
            return
        while done < len(new_ids):  # copy whole runs into the tail blocks
            b, r = divmod(len(self.ids) - n0, self.block)
            if b == len(self._blocks):
                self._blocks.append(np.zeros((self.block, self.dim), dtype=np.float32))
            take = min(self.block - r, len(new_ids) - done)
            self._blocks[b][r : r + take] = rows[done : done + take]
            self.ids.extend(new_ids[done : done + take])
            done += take

    def add_chunks(self, chunks: Iterable[tuple[list[str], np.ndarray]]) -> None:
        """Append many (ids, matrix) chunks, e.g. streamed from the store."""
        for ids, mat in chunks:
            self.add(ids, mat)

    def _tail_scores(self, q: np.ndarray) -> np.ndarray:
        if self._sparse is not None:
            dense = self._sparse.view().blocks(self.block)  # (the dense blocks' products)
            return np.concatenate([blk @ q for blk in dense] or [np.zeros(0, np.float32)])
        n, out = len(self.ids) - len(self.base), []
        for b, blk in enumerate(self._blocks):
            rows = min(self.block, n - b * self.block)
            out.append(blk[:rows] @ q)
        return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Cosine of ``query`` with every stored row, in insertion order (exact; a snapshot's
        sparse rows are summed from their non-zero values, within float32 rounding of the
        dense product — see ``SparseRows.bounded_scores``)."""
        q = np.asarray(query, dtype=np.float32).reshape(self.dim)
        if isinstance(self.base, SparseRows):
            base = self.base.bounded_scores(q)[0].astype(np.float32)
        else:
            _prefetch(self.base)  # mapped random-access: ask for every row in large reads first
            base = np.asarray(self.base @ q, dtype=np.float32)
        return np.concatenate([base, self._tail_scores(q)])

    def search(
        self, query: np.ndarray, k: int, exclude: frozenset[str] = frozenset()
    ) -> list[tuple[str, float]]:
        """The ``k`` most similar ids (cosine), best first, skipping ``exclude``."""
        if not len(self.ids):
            return []
        banned = self.ids.positions(exclude)
        if self.mode == "exact" and isinstance(self.base, SparseRows) and len(self.base):
            return self._exact_sparse(query, k, banned)
        if self.mode == "exact" and self._sparse is not None:  # a dense base is scanned whole
            q = np.asarray(query, dtype=np.float32).reshape(self.dim)
            _prefetch(self.base)
            base = np.asarray(self.base @ q, np.float32) if len(self.base) else None
            return self._rescored(q, np.arange(len(self.base)), k, banned, base)
        if self.mode == "exact":
            scores = self.scores(query)
            if banned:
                scores[banned] = -np.inf
            top = top_indices(scores, min(k, len(self.ids) - len(banned)))
            return [(self.ids[i], float(scores[i])) for i in top]
        assert self.ann is not None
        q = np.asarray(query, dtype=np.float32).reshape(self.dim)
        base_part = np.union1d(  # a replaced row is scored afresh, so ask for that many more
            self.ann.candidates(q, k + RESCORE_EXTRA + len(banned) + len(self.replaced)),
            np.fromiter(self.replaced, np.int64, len(self.replaced)),
        )
        return self._rescored(q, base_part, k, banned)

    def _exact_sparse(
        self, query: np.ndarray, k: int, banned: list[int]
    ) -> list[tuple[str, float]]:
        """An exact scan over sparse base rows that answers as the scan of the dense rows:
        scored from their non-zero values with an error bound, only the rows that can still
        be among the ``k`` best re-scored as dense rows (see ``SparseRows.bounded_scores``)."""
        assert isinstance(self.base, SparseRows)
        q = np.asarray(query, dtype=np.float32).reshape(self.dim)
        score, bound = self.base.bounded_scores(q)
        lower = score - bound
        out = [b for b in banned if b < len(lower)]
        lower[out] = -np.inf
        keep = min(k, len(lower) - len(out))
        if keep <= 0:
            base_part = np.zeros(0, np.int64)
        else:
            kth = kth_largest(lower, keep)
            base_part = np.flatnonzero(score + bound >= kth)
        return self._rescored(q, base_part, k, banned)

    def _rescored(
        self,
        q: np.ndarray,
        base_part: np.ndarray,
        k: int,
        banned: list[int],
        base_scores: np.ndarray | None = None,
    ) -> list[tuple[str, float]]:
        """The ``k`` best of the base rows ``base_part`` (ascending; ``base_scores``, their
        scores when already computed) and every tail row, scored exactly, skipping
        ``banned``."""
        n0 = len(self.base)
        if base_scores is None:
            base_scores = np.asarray(self.base_rows(base_part) @ q, np.float32)
        tail_part = np.arange(len(self.ids) - n0, dtype=np.int64)
        if self._sparse is not None:
            tail_part, tail_scores = self._sparse_tail_part(q, base_part, base_scores, k, banned)
        else:
            tail_scores = self._tail_scores(q)
        scores = np.concatenate([base_scores, tail_scores])
        cand = np.concatenate([base_part, tail_part + n0])
        if banned:
            keep = ~np.isin(cand, banned)
            cand, scores = cand[keep], scores[keep]
        top = top_indices(scores, k)
        return [(self.ids[int(cand[i])], float(scores[i])) for i in top]

    def _sparse_tail_part(
        self,
        q: np.ndarray,
        base_part: np.ndarray,
        base_scores: np.ndarray,
        k: int,
        banned: list[int],
    ) -> tuple[np.ndarray, np.ndarray]:
        """The sparse tail's rows that can be among the ``k`` best with the scored base rows,
        and their exact scores: each tail row is scored from its non-zero values with an error
        bound; the ``k``-th best of the base scores and the tail's lower bounds is a floor no
        row below it can reach, and only the rows whose upper bound reaches it are re-scored
        as dense rows (as ``_exact_sparse`` does for a sparse base)."""
        assert self._sparse is not None
        rows, n0 = self._sparse.view(), len(self.base)
        score, bound = rows.bounded_scores(q)
        lower = score - bound
        lower[[b - n0 for b in banned if b >= n0]] = -np.inf
        base_ok = base_scores[~np.isin(base_part, banned)] if banned else base_scores
        known = np.concatenate([base_ok.astype(np.float64), lower[lower > -np.inf]])
        if not len(known) or k <= 0:
            return np.zeros(0, np.int64), np.zeros(0, np.float32)
        floor = kth_largest(known, min(k, len(known)))
        part = np.flatnonzero(score + bound >= floor)
        return part, np.asarray(rows.rows(part) @ q, np.float32)


def _prefetch(base: np.ndarray | SparseRows) -> None:
    if isinstance(base, np.ndarray):  # sparse rows prefetch their own arrays when scanned
        prefetch(base)


class ServerVectorIndex:
    """The vectors of one (level, embedder) pair ranked inside the database (PostgreSQL with
    pgvector: :meth:`~analogist.store.StoreInterface.search_vectors`); nothing is held here.
    ``exact`` scans every row on the server instead of walking its HNSW index; ef_search is
    ``ANALOGIST_HNSW_EF``, as for the local graph."""

    def __init__(self, store: Store, level: str, embedder: str):
        self.store, self.level, self.embedder = store, level, embedder
        self.exact = False

    @property
    def mode(self) -> str:
        """``pgvector-hnsw`` or ``pgvector-exact``."""
        return "pgvector-exact" if self.exact else "pgvector-hnsw"

    def empty(self) -> bool:
        return not self.store.has_vectors(self.level, self.embedder)

    def search(
        self, query: np.ndarray, k: int, exclude: frozenset[str] = frozenset()
    ) -> list[tuple[str, float]]:
        """The ``k`` most similar ids (cosine), best first, skipping ``exclude``."""
        return self.store.search_vectors(
            self.level,
            self.embedder,
            query,
            k,
            exclude=exclude,
            exact=self.exact,
            ef_search=expansion_search(self.level, limit=MAX_EF_SEARCH),
        )
