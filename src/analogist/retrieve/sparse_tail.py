"""The rows a vector index took since its base, kept as their non-zero values when they are
sparse (the hashing embedder's: 8-25 of 384).

A dense tail costs 4 x dim bytes per row of fresh memory: three levels x 1,536 bytes per
episode, ~4.6 GB per million episodes added between saves, and in the 1M ingest bench 20-26
µs per episode of kernel time mapping it (docs/performance.md, "Fourteenth session"). Kept as
CSR arrays that grow by doubling, the same rows take ~6 bytes per non-zero value. They are
read through :class:`~analogist.retrieve.sparse_rows.SparseRows` (a view over the arrays as
they are), so a search scores them as it scores a snapshot's sparse rows: from the non-zero
values with an error bound, the rows that can still be among the best re-scored as dense rows.
"""

from __future__ import annotations

import numpy as np

from analogist.retrieve.sparse_rows import SparseRows, col_dtype, encode

#: A batch whose non-zero values are at most 1 / SPARSE_SHARE of its values starts a sparse tail.
SPARSE_SHARE = 8


def sparse_enough(rows: np.ndarray) -> bool:
    """Are ``rows`` ((n, dim), n > 0) sparse enough to be kept as their non-zero values?"""
    return len(rows) > 0 and bool(np.count_nonzero(rows) * SPARSE_SHARE <= rows.size)


def _fit(a: np.ndarray, n: int) -> np.ndarray:
    """``a``, or a copy at least twice as long when it holds fewer than ``n`` values."""
    if len(a) >= n:
        return a
    grown = np.empty(max(n, 2 * len(a), 1024), a.dtype)
    grown[: len(a)] = a
    return grown


class SparseTail:
    """Rows appended in order, as CSR arrays with spare capacity; a replaced row is held
    whole in ``replaced`` (as :class:`SparseRows` holds it)."""

    def __init__(self, dim: int):
        self.dim = dim
        self.n = 0
        self._ptr = np.zeros(1024, np.int64)
        self._cols = np.zeros(0, col_dtype(dim))
        self._vals = np.zeros(0, np.float32)
        self.replaced: dict[int, np.ndarray] = {}

    def __len__(self) -> int:
        return self.n

    def append(self, rows: np.ndarray) -> None:
        """Append ``rows`` ((n, dim) float32) after those held."""
        rows = np.asarray(rows, np.float32).reshape(-1, self.dim)
        lengths, cols, vals = encode(rows, self.dim)
        start = int(self._ptr[self.n])
        end = start + len(cols)
        self._cols, self._vals = _fit(self._cols, end), _fit(self._vals, end)
        self._cols[start:end], self._vals[start:end] = cols, vals
        self._ptr = _fit(self._ptr, self.n + 1 + len(rows))
        ends = self._ptr[self.n + 1 : self.n + 1 + len(rows)]
        np.cumsum(lengths, out=ends)
        ends += start
        self.n += len(rows)

    def view(self) -> SparseRows:
        """The rows held now, as sparse rows over the arrays (not copied; replaced rows
        shared): valid until the next :meth:`append`."""
        nnz = int(self._ptr[self.n])
        rows = SparseRows(
            self.n, self.dim, self._ptr[: self.n + 1], self._cols[:nnz], self._vals[:nnz]
        )
        rows.replaced = self.replaced
        return rows
