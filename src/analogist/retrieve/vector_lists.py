"""Exact search of sparse vector rows through one list per dimension (an inverted index).

The hashing embedder's rows hold 8-25 non-zero values of 384 (L3 to L0), so the cosine of a
query with every row is a sum over the query's non-zero dimensions only: for each of them, the
rows non-zero there and their values. At a million rows that is ~1.6M multiply-adds for L0
(~4 ms with numpy's ``add.at``) instead of a 384M-value scan (~100 ms), and it is **exact** —
an HNSW graph over those near-orthogonal rows reached recall@10 0.80 at 1M in 12 ms
(``docs/performance.md``). Dense rows (MiniLM, an API embedder) would touch every list, so
they keep the HNSW graph (:mod:`analogist.retrieve.ann`). Which one a level gets is decided
when a snapshot is saved (:func:`use_lists`, ``ANALOGIST_VECTOR_INDEX``; ``Indexes.save(full=True)``
decides again) and shown by
``analogist info``.

A search returns the best rows' numbers; :class:`~analogist.retrieve.dense.VectorIndex`
re-scores them from the float32 rows, so scores and tie order are those of an exact scan.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from analogist.config import env_choice
from analogist.retrieve.dense import kth_largest, top_indices
from analogist.retrieve.random_access import advise_random, prefetch
from analogist.retrieve.sparse_rows import SparseRows
from analogist.retrieve.work_arrays import work_array

#: Rows as a build reads them: a float32 matrix or a snapshot's sparse rows (read dense).
Rows = np.ndarray | SparseRows

#: ``ANALOGIST_VECTOR_INDEX``: ``auto`` (lists for sparse rows, an HNSW graph for dense ones),
#: ``lists`` or ``hnsw`` for every level. Read when a snapshot is saved.
VECTOR_INDEX = ("auto", "lists", "hnsw")

#: Rows count as sparse when on average at most this share of their values is non-zero. The
#: work of a search is rows x nnz(query) x nnz(row) / dim: at 1/8 of 384 values (48) and 1M
#: rows about 6M multiply-adds, ~15 ms — past that an HNSW graph is the faster of the two.
SPARSE_MAX_DENSITY = 1 / 8

#: Rows read per step when the lists are built or extended (bounds the memory of a build).
STEP = 65536

#: Rows a search adds into at a time (a 4 MB stretch of its float32 accumulator): with more
#: rows, each list is taken a block of rows at a time so that its scattered adds stay in cache.
BLOCK_ROWS = 1 << 20

#: How many rows ``use_lists`` looks at to measure density.
SAMPLE_ROWS = 65536


def vector_index_choice() -> str:
    """The configured vector index (``ANALOGIST_VECTOR_INDEX``, default ``auto``)."""
    return env_choice("VECTOR_INDEX", VECTOR_INDEX)


def density(matrix: np.ndarray) -> float:
    """The share of non-zero values in (evenly spaced rows of, up to ``SAMPLE_ROWS``) ``matrix``."""
    n = len(matrix)
    if n == 0 or matrix.shape[1] == 0:
        return 0.0
    step = max(1, n // SAMPLE_ROWS)
    sample = np.asarray(matrix[::step][:SAMPLE_ROWS])
    return float(np.count_nonzero(sample)) / sample.size


def use_lists(matrix: np.ndarray) -> bool:
    """Should rows like ``matrix`` be searched through lists rather than an HNSW graph?"""
    choice = vector_index_choice()
    if choice != "auto":
        return choice == "lists"
    return density(matrix) <= SPARSE_MAX_DENSITY


def row_parts(blocks: Sequence[Rows], first: int) -> Iterator[tuple[np.ndarray, int]]:
    """``blocks`` in float32 parts of at most ``STEP`` rows, with the number of each part's
    first row (counted from ``first``)."""
    for block in blocks:
        for a in range(0, len(block), STEP):
            part = np.asarray(block[a : a + STEP], dtype=np.float32)
            yield part, first
            first += len(part)


def _lists(
    blocks: Sequence[Rows], first: int, dim: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(offsets, docs, vals) of ``blocks``' non-zero values, rows numbered from ``first``. Two
    passes: count per dimension, then place each part's entries straight into arrays of the
    final size, so a build holds the lists plus one part (a single sort of every entry needed
    ~4x the lists' size: 1.3 GB at 1M L0 rows, ~13 GB at 10M)."""
    counts = np.zeros(dim, np.int64)
    for part, _ in row_parts(blocks, first):
        counts += np.count_nonzero(part, axis=0)
    offsets = np.zeros(dim + 1, np.int64)
    np.cumsum(counts, out=offsets[1:])
    docs = np.empty(int(offsets[-1]), np.int64)
    vals = np.empty(int(offsets[-1]), np.float32)
    filled = offsets[:-1].copy()  # where each dimension's next entry goes
    for part, start in row_parts(blocks, first):
        r, c = np.nonzero(part)
        order = np.argsort(c, kind="stable")  # by dimension; rows stay ascending inside one
        r, c = r[order], c[order]
        per = np.bincount(c, minlength=dim)
        rank = np.arange(len(c)) - (np.cumsum(per) - per)[c]  # place inside its dimension
        at = filled[c] + rank
        docs[at] = r + start
        vals[at] = part[r, c]
        filled += per
    return offsets, docs, vals


class VectorLists:
    """For each dimension of ``n`` rows, the rows non-zero there (ascending) and their values.

    ``offsets[d]:offsets[d + 1]`` is dimension ``d``'s stretch of ``docs`` (int64 row numbers:
    numpy's scatter-add takes them without a conversion) and ``vals`` (float32).
    """

    def __init__(self, n: int, offsets: np.ndarray, docs: np.ndarray, vals: np.ndarray):
        self.n = n
        self.offsets = offsets
        self.docs = docs
        self.vals = vals
        self._prefetched = np.zeros(max(len(offsets) - 1, 0), np.bool_)  # per dimension

    def __len__(self) -> int:
        return self.n

    @property
    def dim(self) -> int:
        return len(self.offsets) - 1

    @classmethod
    def build(cls, matrix: np.ndarray) -> VectorLists:
        """Lists over every row of ``matrix`` (n, dim)."""
        return cls(len(matrix), *_lists([matrix], 0, matrix.shape[1]))

    @classmethod
    def from_blocks(cls, blocks: Sequence[Rows], n: int, dim: int) -> VectorLists:
        """Lists over ``n`` rows given as consecutive blocks (each sliced in steps; a block
        may be a snapshot's sparse rows, read back dense)."""
        return cls(n, *_lists(blocks, 0, dim))

    def extended(self, blocks: Sequence[np.ndarray], added: int) -> VectorLists:
        """These lists with ``added`` rows (``blocks``) appended as rows ``n``, ``n + 1``, ...
        (an incremental snapshot: the old lists are copied, only the new rows are read)."""
        new = VectorLists(self.n + added, *_lists(blocks, self.n, self.dim))
        offsets = self.offsets + new.offsets
        docs = np.empty(int(offsets[-1]), np.int64)
        vals = np.empty(int(offsets[-1]), np.float32)
        for d in range(self.dim):  # each dimension: the old rows, then the new (all higher)
            a, b, c = int(self.offsets[d]), int(self.offsets[d + 1]), int(offsets[d])
            docs[c : c + b - a], vals[c : c + b - a] = self.docs[a:b], self.vals[a:b]
            na, nb = int(new.offsets[d]), int(new.offsets[d + 1])
            docs[c + b - a : int(offsets[d + 1])] = new.docs[na:nb]
            vals[c + b - a : int(offsets[d + 1])] = new.vals[na:nb]
        return VectorLists(self.n + added, offsets, docs, vals)

    def save(self, folder: Path, prefix: str) -> None:
        for name, array in (("offsets", self.offsets), ("docs", self.docs), ("vals", self.vals)):
            np.save(folder / f"{prefix}lists_{name}.npy", array)

    @staticmethod
    def exists(folder: Path, prefix: str) -> bool:
        return (folder / f"{prefix}lists_offsets.npy").exists()

    @classmethod
    def open(cls, folder: Path, prefix: str, n: int) -> VectorLists:
        """The lists saved in ``folder`` over its first ``n`` rows, memory-mapped; ValueError
        when the three files do not fit together."""
        offsets, docs, vals = (
            np.load(folder / f"{prefix}lists_{name}.npy", mmap_mode="r")
            for name in ("offsets", "docs", "vals")
        )
        total = int(offsets[-1]) if len(offsets) else -1
        if (
            docs.dtype != np.int64
            or vals.dtype != np.float32
            or total != len(docs)
            or total != len(vals)
            or len(offsets) < 2
            or _last_row(offsets, docs) >= n
        ):
            raise ValueError(
                f"{folder / (prefix + 'lists_*.npy')}: the per-dimension lists do not fit "
                "together or cover other rows"
            )
        advise_random(docs)  # a search reads the query's dimensions' stretches (prefetched)
        advise_random(vals)
        # plain ndarray views of the maps: slicing a np.memmap costs ~5 us, and ufunc.at
        # takes its fast path only for base-class arrays (2.5x faster at 1M rows)
        return cls(n, np.array(offsets), np.asarray(docs), np.asarray(vals))

    def scores(self, query: np.ndarray) -> np.ndarray:
        """The dot product of ``query`` with every row (float32, exact up to rounding)."""
        return self._accumulate(query, np.zeros(self.n, np.float32))

    def _accumulate(self, query: np.ndarray, acc: np.ndarray) -> np.ndarray:
        q = np.asarray(query, dtype=np.float32).ravel()
        spans = []
        for d in np.flatnonzero(q[: self.dim]).tolist():
            a, b = int(self.offsets[d]), int(self.offsets[d + 1])
            if b > a:
                if not self._prefetched[d]:  # once per dimension, not per query
                    prefetch(self.docs[a:b])
                    prefetch(self.vals[a:b])
                    self._prefetched[d] = True
                spans.append((d, a, b))
        # Past BLOCK_ROWS rows the adds of one list land all over an accumulator larger than
        # the cache; taking the rows a block at a time keeps each pass's writes inside one
        # stretch of it. Each row still gets its dimensions' products in the same order.
        edges = np.arange(BLOCK_ROWS, self.n, BLOCK_ROWS)  # empty up to BLOCK_ROWS: one pass
        cuts = [
            (d, [a, *(np.searchsorted(self.docs[a:b], edges) + a).tolist(), b]) for d, a, b in spans
        ]
        for blk in range(len(edges) + 1):
            for d, cut in cuts:
                if cut[blk + 1] > cut[blk]:
                    self._add(acc, q[d], cut[blk], cut[blk + 1])
        return acc

    def _add(self, acc: np.ndarray, weight: np.float32, a: int, b: int) -> None:
        """Add ``weight`` times entries ``a:b`` of the lists to their rows in ``acc``."""
        part = np.multiply(self.vals[a:b], weight, out=work_array("lists_part", b - a, np.float32))
        np.add.at(acc, self.docs[a:b], part)

    def candidates(self, query: np.ndarray, k: int) -> np.ndarray:
        """Row numbers of the ``k`` rows with the largest dot product with ``query``, best
        first, ties to the lower row (exact)."""
        if self.n == 0 or k <= 0:
            return np.zeros(0, np.int64)
        acc = work_array("lists_acc", self.n, np.float32)
        acc.fill(0)
        return top_k(self._accumulate(query, acc), k)


def _last_row(offsets: np.ndarray, docs: np.ndarray) -> int:
    """The highest row number in the lists (each list ascends: its last entry is its largest)."""
    ends = np.asarray(offsets[1:])
    ends = ends[ends > np.asarray(offsets[:-1])]
    return int(np.asarray(docs[ends - 1]).max()) if len(ends) else -1


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest ``scores``, best first, ties to the lower index — what
    :func:`~analogist.retrieve.dense.top_indices` returns, but cheaper for k much smaller than
    the scores: the k-th best of every 16th score bounds the k-th best of all from below, so
    only the few scores above that bound are ranked (one pass instead of a full partition)."""
    n = len(scores)
    if n < 64 * max(k, 1):
        return top_indices(scores, k)
    sample = scores[::16]
    bound = kth_largest(sample, k)
    mask = np.greater_equal(scores, bound, out=work_array("top_k_mask", n, np.bool_))
    above = np.flatnonzero(mask)  # ascending; holds the k best (at least k >= bound)
    return above[top_indices(scores[above], k)]
