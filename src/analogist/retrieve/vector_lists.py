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
from analogist.retrieve.random_access import advise_random, hard_link, prefetch
from analogist.retrieve.sparse_rows import SparseRows
from analogist.work_arrays import work_array

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


#: At most this many segments: an extension past it merges the adjacent pair with the fewest
#: rows. A search makes one pass per segment (as per ``BLOCK_ROWS`` block), a few numpy calls
#: per query dimension each (``bench/lists_blocks.py --segments``, L0 at 1M: 5.6-5.8 ms in 4
#: against 4.5 in one; 5.3-7.3 in 8). No segment is copied because rows came after it.
MAX_SEGMENTS = 4


class Segment:
    """The lists of one stretch of rows, ``first`` up to ``end``: ``offsets[d]:offsets[d + 1]``
    is dimension ``d``'s stretch of ``docs`` (int64 row numbers, ascending: numpy's scatter-add
    takes them without a conversion) and ``vals`` (float32). ``source`` is the snapshot file
    stem the arrays were mapped from, so a later save hard-links the files instead of copying."""

    def __init__(
        self,
        first: int,
        end: int,
        offsets: np.ndarray,
        docs: np.ndarray,
        vals: np.ndarray,
        source: Path | None = None,
    ):
        self.first, self.end = first, end
        self.offsets, self.docs, self.vals = offsets, docs, vals
        self.source = source
        self.prefetched = np.zeros(max(len(offsets) - 1, 0), np.bool_)  # per dimension

    @property
    def rows(self) -> int:
        return self.end - self.first


class VectorLists:
    """For each dimension of ``n`` rows, the rows non-zero there and their values, kept in
    segments of consecutive rows (:class:`Segment`): a snapshot built over every row has one;
    each incremental save appends one for the rows added since, so it writes only those and
    hard-links the rest (``MAX_SEGMENTS`` bounds how many pile up)."""

    def __init__(self, n: int, segments: Sequence[Segment]):
        if not segments:
            raise ValueError("lists need at least one segment")
        self.n = n
        self.segments = list(segments)

    def __len__(self) -> int:
        return self.n

    @property
    def dim(self) -> int:
        return len(self.segments[0].offsets) - 1

    @classmethod
    def build(cls, matrix: np.ndarray) -> VectorLists:
        """Lists over every row of ``matrix`` (n, dim)."""
        return cls.from_blocks([matrix], len(matrix), matrix.shape[1])

    @classmethod
    def from_blocks(cls, blocks: Sequence[Rows], n: int, dim: int) -> VectorLists:
        """Lists over ``n`` rows given as consecutive blocks (each sliced in steps; a block
        may be a snapshot's sparse rows, read back dense), in one segment."""
        return cls(n, [Segment(0, n, *_lists(blocks, 0, dim))])

    def extended(self, blocks: Sequence[Rows], added: int) -> VectorLists:
        """These lists with ``added`` rows (``blocks``) appended as rows ``n``, ``n + 1``, ...,
        in a new segment (an incremental snapshot: only the new rows are read, and no old
        segment is copied unless ``MAX_SEGMENTS`` makes two merge)."""
        if added == 0:
            return self
        segments = [
            *self.segments,
            Segment(self.n, self.n + added, *_lists(blocks, self.n, self.dim)),
        ]
        while len(segments) > MAX_SEGMENTS:
            k = min(range(len(segments) - 1), key=lambda i: segments[i].rows + segments[i + 1].rows)
            segments[k : k + 2] = [_merge(segments[k], segments[k + 1])]
        return VectorLists(self.n + added, segments)

    def merged(self) -> Segment:
        """Every segment as one (a copy when there are several)."""
        out = self.segments[0]
        for seg in self.segments[1:]:
            out = _merge(out, seg)
        return out

    def save(self, folder: Path, prefix: str) -> None:
        """Write each segment's three arrays (hard-linked from the snapshot a segment was
        mapped from, where the file system allows) and, past one segment, their first rows."""
        for k, seg in enumerate(self.segments):
            for name, array in (("offsets", seg.offsets), ("docs", seg.docs), ("vals", seg.vals)):
                path = folder / _file(prefix, k, name)
                if seg.source is None or not hard_link(_sibling(seg.source, name), path):
                    np.save(path, array)
        if len(self.segments) > 1:
            firsts = np.array([seg.first for seg in self.segments], np.int64)
            np.save(folder / f"{prefix}lists_segments.npy", firsts)

    @staticmethod
    def exists(folder: Path, prefix: str) -> bool:
        return (folder / _file(prefix, 0, "offsets")).exists()

    @classmethod
    def open(cls, folder: Path, prefix: str, n: int) -> VectorLists:
        """The lists saved in ``folder`` over its first ``n`` rows, memory-mapped; ValueError
        when the files do not fit together (a segment's arrays, or the segments' rows)."""
        bad = ValueError(
            f"{folder / (prefix + 'lists_*.npy')}: the per-dimension lists do not fit "
            "together or cover other rows"
        )
        marks = folder / f"{prefix}lists_segments.npy"
        try:
            firsts = np.load(marks).tolist() if marks.exists() else [0]
        except (OSError, ValueError):
            raise bad from None
        bounds = [*firsts, n]
        steps = zip(bounds[:-1], bounds[1:], strict=True)
        if firsts[0] != 0 or (len(firsts) > 1 and any(b <= a for a, b in steps)):
            raise bad
        segments: list[Segment] = []
        for k in range(len(firsts)):
            try:
                offsets, docs, vals = (
                    np.load(folder / _file(prefix, k, name), mmap_mode="r")
                    for name in ("offsets", "docs", "vals")
                )
            except (OSError, ValueError):
                raise bad from None
            total = int(offsets[-1]) if len(offsets) else -1
            if (
                docs.dtype != np.int64
                or vals.dtype != np.float32
                or total != len(docs)
                or total != len(vals)
                or len(offsets) < 2
                or (segments and len(offsets) != len(segments[0].offsets))
                or _last_row(offsets, docs) >= bounds[k + 1]
                or _first_row(offsets, docs, bounds[k + 1]) < bounds[k]
            ):
                raise bad
            advise_random(docs)  # a search reads the query's dimensions' stretches (prefetched)
            advise_random(vals)
            # plain ndarray views of the maps: slicing a np.memmap costs ~5 us, and ufunc.at
            # takes its fast path only for base-class arrays (2.5x faster at 1M rows)
            source = folder / _file(prefix, k, "")
            segments.append(
                Segment(
                    bounds[k],
                    bounds[k + 1],
                    np.array(offsets),
                    np.asarray(docs),
                    np.asarray(vals),
                    source,
                )
            )
        return cls(n, segments)

    def scores(self, query: np.ndarray) -> np.ndarray:
        """The dot product of ``query`` with every row (float32, exact up to rounding)."""
        return self._accumulate(query, np.zeros(self.n, np.float32))

    def _accumulate(self, query: np.ndarray, acc: np.ndarray) -> np.ndarray:
        q = np.asarray(query, dtype=np.float32).ravel()
        dims = np.flatnonzero(q[: self.dim]).tolist()
        for seg in self.segments:
            _accumulate_segment(seg, q, dims, acc)
        return acc

    def candidates(self, query: np.ndarray, k: int) -> np.ndarray:
        """Row numbers of the ``k`` rows with the largest dot product with ``query``, best
        first, ties to the lower row (exact)."""
        if self.n == 0 or k <= 0:
            return np.zeros(0, np.int64)
        acc = work_array("lists_acc", self.n, np.float32)
        acc.fill(0)
        return top_k(self._accumulate(query, acc), k)


def _accumulate_segment(seg: Segment, q: np.ndarray, dims: list[int], acc: np.ndarray) -> None:
    """Add ``q``'s products with ``seg``'s rows into ``acc`` (indexed by row number)."""
    spans = []
    for d in dims:
        a, b = int(seg.offsets[d]), int(seg.offsets[d + 1])
        if b > a:
            if not seg.prefetched[d]:  # once per dimension, not per query
                prefetch(seg.docs[a:b])
                prefetch(seg.vals[a:b])
                seg.prefetched[d] = True
            spans.append((d, a, b))
    # Past BLOCK_ROWS rows the adds of one list land all over an accumulator larger than
    # the cache; taking the rows a block at a time keeps each pass's writes inside one
    # stretch of it. Each row still gets its dimensions' products in the same order (a row
    # lies in one segment and one block), so the scores do not depend on the segments.
    edges = np.arange(seg.first + BLOCK_ROWS, seg.end, BLOCK_ROWS)  # often empty: one pass
    cuts = [(d, _cut(seg.docs, a, b, edges)) for d, a, b in spans]
    for blk in range(len(edges) + 1):
        for d, cut in cuts:
            if cut[blk + 1] > cut[blk]:
                _add(seg, acc, q[d], cut[blk], cut[blk + 1])


def _cut(docs: np.ndarray, a: int, b: int, edges: np.ndarray) -> list[int]:
    """Where entries ``a:b`` of a list (ascending rows) cross the block ``edges``, with ``a``
    and ``b`` at the ends (no search when there are no edges)."""
    if not len(edges):
        return [a, b]
    return [a, *(np.searchsorted(docs[a:b], edges) + a).tolist(), b]


def _add(seg: Segment, acc: np.ndarray, weight: np.float32, a: int, b: int) -> None:
    """Add ``weight`` times entries ``a:b`` of ``seg``'s lists to their rows in ``acc``."""
    part = np.multiply(seg.vals[a:b], weight, out=work_array("lists_part", b - a, np.float32))
    np.add.at(acc, seg.docs[a:b], part)


def _merge(left: Segment, right: Segment) -> Segment:
    """Two adjacent segments as one: per dimension, the left rows then the right (all higher)."""
    offsets = left.offsets + right.offsets
    docs = np.empty(int(offsets[-1]), np.int64)
    vals = np.empty(int(offsets[-1]), np.float32)
    for d in range(len(offsets) - 1):
        a, b, c = int(left.offsets[d]), int(left.offsets[d + 1]), int(offsets[d])
        docs[c : c + b - a], vals[c : c + b - a] = left.docs[a:b], left.vals[a:b]
        na, nb = int(right.offsets[d]), int(right.offsets[d + 1])
        docs[c + b - a : int(offsets[d + 1])] = right.docs[na:nb]
        vals[c + b - a : int(offsets[d + 1])] = right.vals[na:nb]
    return Segment(left.first, right.end, offsets, docs, vals)


def _file(prefix: str, k: int, name: str) -> str:
    """Segment ``k``'s file for array ``name`` (segment 0 keeps the one-segment names, so a
    snapshot written before segments opens as one)."""
    stem = f"{prefix}lists_" if k == 0 else f"{prefix}lists{k}_"
    return f"{stem}{name}.npy" if name else stem


def _sibling(stem: Path, name: str) -> Path:
    return stem.with_name(f"{stem.name}{name}.npy")


def _first_row(offsets: np.ndarray, docs: np.ndarray, none: int) -> int:
    """The lowest row number in the lists (``none`` when they are empty)."""
    starts = np.asarray(offsets[:-1])
    starts = starts[starts < np.asarray(offsets[1:])]
    return int(np.asarray(docs[starts]).min()) if len(starts) else none


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
