"""A snapshot's sparse vector rows kept in row form: the non-zero values only, read as dense.

A level searched through per-dimension lists (:mod:`analogist.retrieve.vector_lists`) has rows
with at most 1 in 8 values non-zero (the hashing embedder's: 8-25 of 384). Stored as raw
float32 rows they were 80 % of a snapshot — 4.6 GB of the 5.8 GB at a million episodes, mostly
zeros. Here each row is its non-zero columns and values (CSR: ``indptr``, ``cols``, ``vals``),
~6 bytes per value instead of 4 per column, in three append-only raw files so that an
incremental save hard-links them from the live snapshot and appends the new rows, as it does
for ``rows.f32``; ``n`` comes from the manifest, so a reader of an older snapshot reads just its
own rows.

Whatever reads rows gets the same float32 rows as before: :meth:`SparseRows.__getitem__`
rebuilds dense rows, and a product of rebuilt rows is the product of the dense rows bit for bit
(tested), so re-scored candidates keep their scores and tie order; a scan of every row sums
the non-zero values instead (:meth:`SparseRows.bounded_scores`, with a bound on the rounding). A
row replaced after the snapshot was opened is held in memory (as the copy-on-write map of
``rows.f32`` held it) until the next full save writes it.
"""

from __future__ import annotations

import os
import weakref
from collections.abc import Iterable, Iterator
from itertools import chain
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from analogist.errors import StoreError
from analogist.retrieve.random_access import advise_random, prefetch
from analogist.work_arrays import work_array

#: Rows rebuilt per block (:meth:`SparseRows.blocks`): ~12 MB at 384 columns.
BLOCK = 8192

#: Rows per step of :meth:`SparseRows.bounded_scores` (bounds its temporary arrays).
SCAN = 65536

#: Rows read with ``pread`` at most (a search re-scores tens); more are read from the maps.
PREAD_MAX = 4096


def damaged(what: str) -> StoreError:
    """The one-line error for a snapshot file that does not hold what it must, with the fix."""
    return StoreError(
        f"{what}; the snapshot is damaged — delete the index folder beside the database and "
        "it is rebuilt from the database"
    )


_PAST_DIM = "a snapshot's sparse vector rows name a column past the vector's dimension"

#: The three files, by part: row pointers (int64), columns (:func:`col_dtype`), values (float32).
FILES = ("indptr", "cols", "vals")


def col_dtype(dim: int) -> np.dtype:
    """Column numbers' type: uint16 while every column fits, else int32."""
    return np.dtype(np.uint16 if dim <= 1 << 16 else np.int32)


def _paths(folder: Path, prefix: str) -> dict[str, Path]:
    return {part: folder / f"{prefix}sparse_{part}.bin" for part in FILES}


def exists(folder: Path, prefix: str) -> bool:
    """Does ``folder`` hold sparse rows for ``prefix``?"""
    return _paths(folder, prefix)["indptr"].exists()


def encode(rows: np.ndarray, dim: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row lengths, cols, vals) of a dense float32 block's non-zero values, row by row
    (row-major: ascending columns inside a row). The non-zeros are found through a boolean
    mask in a work array (~2.5x faster than ``np.nonzero`` of the floats)."""
    mask = work_array("sparse_encode", rows.size, np.bool_).reshape(rows.shape)
    r, c = np.divmod(np.flatnonzero(np.not_equal(rows, 0, out=mask)), dim)
    return (
        np.count_nonzero(mask, axis=1).astype(np.int64),
        c.astype(col_dtype(dim)),
        np.asarray(rows[r, c], np.float32),
    )


class SparseRows:
    """``n`` float32 rows of ``dim`` columns as CSR arrays (memory-mapped when opened).

    ``indptr[i]:indptr[i + 1]`` is row ``i``'s stretch of ``cols`` and ``vals``.
    """

    def __init__(
        self,
        n: int,
        dim: int,
        indptr: np.ndarray,
        cols: np.ndarray,
        vals: np.ndarray,
        files: dict[str, BinaryIO] | None = None,
    ):
        self.n, self.dim = n, dim
        self.indptr, self.cols, self.vals = indptr, cols, vals
        self.files = files  # the mapped files, opened for reading (see :meth:`rows`)
        if files is not None:  # closed with the rows, without an unclosed-file warning
            for f in files.values():
                weakref.finalize(self, f.close)
        self.replaced: dict[int, np.ndarray] = {}  # rows set since opening, held in memory

    def __len__(self) -> int:
        return self.n

    @property
    def shape(self) -> tuple[int, int]:
        return self.n, self.dim

    @property
    def nnz(self) -> int:
        return int(self.indptr[self.n]) if self.n else 0

    def _rebuild(self, starts: np.ndarray, ends: np.ndarray, rows: np.ndarray) -> np.ndarray:
        """Dense rows whose stretches are ``starts[i]:ends[i]``, then ``rows``' replacements."""
        lengths = ends - starts
        out = np.zeros((len(starts), self.dim), np.float32)
        total = int(lengths.sum())
        if total:
            which = np.repeat(np.arange(len(starts)), lengths)
            at = np.arange(total) - np.repeat(np.cumsum(lengths) - lengths, lengths)
            at += np.repeat(starts, lengths)
            cols = np.asarray(self.cols[at], np.int64)
            if int(cols.max()) >= self.dim:
                raise damaged(_PAST_DIM)
            out[which, cols] = self.vals[at]
        if self.replaced:
            for j, i in enumerate(rows.tolist()):
                row = self.replaced.get(i)
                if row is not None:
                    out[j] = row
        return out

    def rows(self, positions: np.ndarray) -> np.ndarray:
        """The rows at ``positions`` (any order, repeats allowed), (len, dim) float32. Read
        from the files with ``pread`` where they are open: touching the maps at a few
        scattered places brings the page cache's whole folios into this process (as for
        ``rows.f32``, see :meth:`~analogist.retrieve.dense.VectorIndex.base_rows`)."""
        positions = np.asarray(positions, np.int64).ravel()
        if len(positions) and (positions.min() < 0 or positions.max() >= self.n):
            raise IndexError(f"row positions must be in 0..{self.n - 1}")
        if self.files is not None and len(positions) <= PREAD_MAX:
            return self._pread(positions)
        indptr = np.asarray(self.indptr)
        return self._rebuild(indptr[positions], indptr[positions + 1], positions)

    def _pread(self, positions: np.ndarray) -> np.ndarray:
        assert self.files is not None
        fds = {part: f.fileno() for part, f in self.files.items()}
        width = self.cols.itemsize
        out = np.zeros((len(positions), self.dim), np.float32)
        for j, i in enumerate(positions.tolist()):
            row = self.replaced.get(i)
            if row is not None:
                out[j] = row
                continue
            ends = os.pread(fds["indptr"], 16, 8 * i)
            a, b = (int(x) for x in np.frombuffer(ends, np.int64)) if len(ends) == 16 else (0, -1)
            cols = os.pread(fds["cols"], width * (b - a), width * a) if b >= a else b""
            vals = os.pread(fds["vals"], 4 * (b - a), 4 * a) if b >= a else b""
            if b < a or len(cols) != width * (b - a) or len(vals) != 4 * (b - a):
                raise damaged(
                    f"{self.files['indptr'].name}: row {i} is past the end of the sparse rows files"
                )
            at = np.frombuffer(cols, self.cols.dtype).astype(np.int64)
            if len(at) and int(at.max()) >= self.dim:
                raise damaged(_PAST_DIM)
            out[j, at] = np.frombuffer(vals, np.float32)
        return out

    def span(self, a: int, b: int) -> np.ndarray:
        """Rows ``a`` to ``b - 1`` (clipped to the rows there are), dense."""
        a, b = max(0, a), min(self.n, b)
        if b <= a:
            return np.zeros((0, self.dim), np.float32)
        ptr = np.asarray(self.indptr[a : b + 1])
        return self._rebuild(ptr[:-1], ptr[1:], np.arange(a, b))

    def __getitem__(self, key: Any) -> np.ndarray:
        if isinstance(key, slice):
            a, b, step = key.indices(self.n)
            if step < 1:
                raise IndexError("sparse rows are sliced in ascending order only")
            rows = self.span(a, b)
            return rows if step == 1 else rows[::step]
        if isinstance(key, (int, np.integer)):
            return self.rows(np.array([int(key)]))[0]
        return self.rows(np.asarray(key))

    def __setitem__(self, i: int, row: np.ndarray) -> None:
        """Replace row ``i`` (held in memory until a full save; the files are not touched)."""
        if not 0 <= int(i) < self.n:
            raise IndexError(f"row {i} is not in 0..{self.n - 1}")
        self.replaced[int(i)] = np.array(row, np.float32).reshape(self.dim)

    def blocks(self, step: int = BLOCK) -> Iterator[np.ndarray]:
        """Every row, dense, in blocks of ``step`` rows."""
        for a in range(0, self.n, step):
            yield self.span(a, a + step)

    def bounded_scores(self, query: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Every row's dot product with ``query`` from its non-zero values only, and a bound
        on how far the float32 product of the dense row (what re-scoring computes) can be
        from it (both float64). Float32 products and sums of at
        most ``dim`` terms are each within ``dim * 2**-24`` of the true value relative to the
        sum of the terms' magnitudes, which is summed alongside; the bound takes twice both
        errors. An exact search keeps the rows whose upper bound reaches the k-th best lower
        bound and re-scores only those as dense rows
        (:meth:`~analogist.retrieve.dense.VectorIndex.search`): ~25 M products at a million
        L0 rows instead of rebuilding 384 M values."""
        q = np.asarray(query, np.float32).reshape(self.dim)
        scores, magnitude = np.zeros(self.n, np.float32), np.zeros(self.n, np.float32)
        for array in (self.indptr, self.cols, self.vals):
            prefetch(array)  # read end to end: ask for it in large reads first
        for a in range(0, self.n, SCAN):
            b = min(self.n, a + SCAN)
            ptr = np.asarray(self.indptr[a : b + 1])
            lo, hi = int(ptr[0]), int(ptr[-1])
            if hi == lo:
                continue
            cols = self.cols[lo:hi]
            if int(cols.max()) >= self.dim:
                raise damaged(_PAST_DIM)
            prod = q[cols] * self.vals[lo:hi]
            empty = ptr[1:] == ptr[:-1]
            starts = np.minimum(ptr[:-1] - lo, hi - lo - 1)  # an empty row's start is zeroed
            scores[a:b] = np.add.reduceat(prod, starts)
            magnitude[a:b] = np.add.reduceat(np.abs(prod, out=prod), starts)
            scores[a:b][empty] = 0
            magnitude[a:b][empty] = 0
        wide_scores, wide_magnitude = scores.astype(np.float64), magnitude.astype(np.float64)
        for i, row in self.replaced.items():
            prod64 = q.astype(np.float64) * row
            wide_scores[i], wide_magnitude[i] = prod64.sum(), np.abs(prod64).sum()
        return wide_scores, wide_magnitude * ((4 * self.dim + 4) * 2.0**-24)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        dense = np.concatenate(list(self.blocks())) if self.n else np.zeros((0, self.dim))
        return dense.astype(dtype or np.float32, copy=False)

    @classmethod
    def open(cls, folder: Path, prefix: str, n: int, dim: int) -> SparseRows:
        """The first ``n`` rows saved in ``folder``, memory-mapped; StoreError when the files
        are shorter than the rows they must hold."""
        paths = _paths(folder, prefix)
        sizes = {part: p.stat().st_size for part, p in paths.items()}
        width = col_dtype(dim).itemsize
        indptr = _map(paths["indptr"], np.int64, n + 1) if sizes["indptr"] >= 8 * (n + 1) else None
        nnz = int(indptr[n]) if indptr is not None else -1
        if (
            indptr is None
            or int(indptr[0]) != 0
            or nnz < 0
            or sizes["cols"] < width * nnz
            or sizes["vals"] < 4 * nnz
        ):
            raise damaged(
                f"{paths['indptr']}: the snapshot's sparse vector rows are shorter than its "
                "manifest says"
            )
        cols, vals = _map(paths["cols"], col_dtype(dim), nnz), _map(paths["vals"], np.float32, nnz)
        for array in (indptr, cols, vals):
            advise_random(array)
        files: dict[str, BinaryIO] = {}
        for part, p in paths.items():
            files[part] = open(p, "rb", buffering=0)  # noqa: SIM115 - closed with the rows
            if hasattr(os, "posix_fadvise"):
                os.posix_fadvise(files[part].fileno(), 0, 0, os.POSIX_FADV_RANDOM)
        return cls(n, dim, indptr, cols, vals, files)


def _map(path: Path, dtype: Any, count: int) -> np.ndarray:
    if count == 0:
        return np.zeros(0, dtype)
    return np.asarray(np.memmap(path, dtype=dtype, mode="r", shape=(count,)))


def write(
    folder: Path,
    prefix: str,
    dim: int,
    blocks: Iterable[np.ndarray],
    extend: tuple[Path, SparseRows] | None = None,
) -> bool:
    """Write rows to ``folder``: with ``extend`` — the live snapshot's folder and its rows, as
    opened from there — its files hard-linked and the dense ``blocks`` appended after its
    rows; else (or where the file system cannot link) every row. Each file is flushed to
    disk. True when the files were linked."""
    paths = _paths(folder, prefix)
    linked = extend is not None and _link(_paths(extend[0], prefix), paths)
    if extend is not None and not linked:
        blocks = chain(extend[1].blocks(), blocks)
    files: dict[str, BinaryIO] = {}
    top = 0
    try:
        if linked:
            assert extend is not None
            base = extend[1]
            top = base.nnz
            ends = {"indptr": 8 * (base.n + 1), "cols": base.cols.itemsize * top, "vals": 4 * top}
            for part in FILES:
                files[part] = open(paths[part], "r+b")  # noqa: SIM115 - closed below
                files[part].truncate(ends[part])  # drop what a crashed save may have appended
                files[part].seek(ends[part])
        else:
            for part in FILES:
                files[part] = open(paths[part], "wb")  # noqa: SIM115 - closed below
            np.zeros(1, np.int64).tofile(files["indptr"])
        for block in blocks:
            if not len(block):
                continue
            lengths, cols, vals = encode(np.asarray(block, np.float32), dim)
            (top + np.cumsum(lengths)).astype(np.int64).tofile(files["indptr"])
            top += int(lengths.sum())
            cols.tofile(files["cols"])
            vals.tofile(files["vals"])
        for f in files.values():
            f.flush()
            os.fsync(f.fileno())
    finally:
        for f in files.values():
            f.close()
    return linked


def _link(source: dict[str, Path], target: dict[str, Path]) -> bool:
    """Hard-link every file of ``source`` to ``target``; False (nothing left behind) where the
    file system cannot."""
    try:
        for part in FILES:
            os.link(source[part], target[part])
    except OSError:
        for part in FILES:
            target[part].unlink(missing_ok=True)
        return False
    return True
