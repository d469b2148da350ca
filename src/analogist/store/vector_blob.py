"""How a vector row is stored (``sig_vectors.vector``): dense float32, or sparse records.

A row of ``dim`` float32 values is stored dense (``4 * dim`` bytes, little-endian) unless at
most one value in :data:`SPARSE_DIVISOR` is non-zero; then it is stored as its non-zero entries
only, each a packed record of its position (uint16) and value (float32), 6 bytes, in position
order. The hashing embedder's rows hold 8-25 non-zero values of 384, so their 1,536 bytes
become 48-150 (a 1M bench database: 3.1 GB instead of 9.0, and an ingest writes that much
less). A dense model's rows stay dense. The length tells the two apart: a sparse row is at most
``6 * dim / 8`` bytes, always shorter than a dense one. Both decode to the same float32 values
(a -0.0 reads back as 0.0), so every reader gets the matrix it got before; a database written
before this form holds dense rows only and reads as it did.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from analogist.errors import StoreError
from analogist.work_arrays import work_array

#: A row is stored sparse when at most 1 / SPARSE_DIVISOR of its values are non-zero.
SPARSE_DIVISOR = 8
#: One sparse entry: position and value, packed little-endian (6 bytes).
RECORD = np.dtype([("i", "<u2"), ("v", "<f4")])
#: Positions are uint16: wider rows are always stored dense.
MAX_SPARSE_DIM = 1 << 16


def check_size(n_bytes: int, dim: int) -> str | None:
    """Why a blob of ``n_bytes`` cannot be a stored ``dim``-wide row (None when it can)."""
    records, rest = divmod(n_bytes, RECORD.itemsize)
    sparse = dim < MAX_SPARSE_DIM and not rest and records * SPARSE_DIVISOR <= dim
    if n_bytes == 4 * dim or sparse:
        return None
    return (
        f"vector holds {n_bytes} bytes: not 4 x dim ({4 * dim}, dense) nor 6 per non-zero "
        f"value with at most dim / {SPARSE_DIVISOR} of them (sparse)"
    )


def encode_rows(vectors: Sequence[np.ndarray]) -> list[bytes]:
    """The stored form of each row (see the module docstring), in one pass per width."""
    out = [b""] * len(vectors)
    by_dim: dict[int, list[int]] = defaultdict(list)
    for k, v in enumerate(vectors):
        by_dim[int(np.shape(v)[0])].append(k)
    for dim, where in by_dim.items():
        # (the rows are stacked into a work array: a batch's 15,000 rows are 23 MB of fresh
        # memory otherwise, paid for in page faults; see analogist.work_arrays)
        mat = work_array("encode_rows", len(where) * dim, np.float32).reshape(len(where), dim)
        mat[...] = [vectors[k] for k in where]
        nnz = np.count_nonzero(mat, axis=1)
        sparse = nnz * SPARSE_DIVISOR <= dim if dim < MAX_SPARSE_DIM else np.zeros(len(where), bool)
        for d in np.flatnonzero(~sparse).tolist():
            out[where[d]] = mat[d].tobytes()
        if not sparse.any():
            continue
        part = mat if sparse.all() else mat[sparse]  # (the usual case needs no copy)
        # (the non-zeros of a boolean mask are found ~2.5x faster than of the floats)
        mask = work_array("encode_rows_mask", part.size, np.bool_).reshape(part.shape)
        rows, cols = np.divmod(np.flatnonzero(np.not_equal(part, 0, out=mask)), dim)
        rec = np.empty(len(rows), dtype=RECORD)
        rec["i"], rec["v"] = cols, part[rows, cols]
        buf = rec.tobytes()
        ends = np.cumsum(nnz[sparse]) * RECORD.itemsize
        start = 0
        for s, end in zip(np.flatnonzero(sparse).tolist(), ends.tolist(), strict=True):
            out[where[s]] = buf[start:end]
            start = end
    return out


def encode(vector: np.ndarray) -> bytes:
    """The stored form of one row."""
    return encode_rows([vector])[0]


def decode_rows(blobs: Sequence[bytes], dim: int) -> np.ndarray:
    """The ``(len(blobs), dim)`` float32 matrix of stored rows (dense or sparse).

    Raises:
        StoreError: a blob is neither form of a ``dim``-wide row (a damaged database).
    """
    n = len(blobs)
    lengths = np.fromiter(map(len, blobs), dtype=np.int64, count=n)
    dense = lengths == 4 * dim
    if dense.all():
        return np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(n, dim)
    for k in np.flatnonzero(~dense).tolist():
        problem = check_size(int(lengths[k]), dim)
        if problem:
            raise StoreError(f"a stored vector row is damaged: {problem}; re-add the episode")
    mat = np.zeros((n, dim), dtype=np.float32)
    if dense.any():
        joined = b"".join(b for b, d in zip(blobs, dense.tolist(), strict=True) if d)
        mat[dense] = np.frombuffer(joined, dtype=np.float32).reshape(-1, dim)
    sparse = ~dense
    joined = b"".join(b for b, s in zip(blobs, sparse.tolist(), strict=True) if s)
    rec = np.frombuffer(joined, dtype=RECORD)
    if len(rec) and int(rec["i"].max()) >= dim:
        raise StoreError(f"a stored vector row is damaged: a position is not below {dim}")
    rows = np.repeat(np.flatnonzero(sparse), lengths[sparse] // RECORD.itemsize)
    mat[rows, rec["i"].astype(np.int64)] = rec["v"]
    return mat


def decode(blob: bytes, dim: int) -> np.ndarray:
    """One stored row as ``dim`` float32 values."""
    return decode_rows([blob], dim)[0]
