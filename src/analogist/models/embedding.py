"""Embedders: text -> unit-length float32 vectors.

:class:`Embedder` is the one interface every channel uses. :class:`HashingEmbedder` is the
deterministic, dependency-free backend for tests and for machines with no model installed: it
hashes word unigrams and bigrams into signed buckets (the "hashing trick"), so texts that share
words get similar vectors and nothing else does. It is a surface-similarity baseline, not a
semantic model.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

import numpy as np

from analogist.models.hashing_codes import token_codes
from analogist.work_arrays import work_array


@runtime_checkable
class Embedder(Protocol):
    """Anything with a name, a dimension and a batched ``embed``."""

    @property
    def name(self) -> str: ...
    @property
    def dim(self) -> int: ...

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Return an (n, dim) float32 array of L2-normalised rows (zero rows for empty text)."""
        ...


#: Words' buckets already hashed, per dimension; emptied when it holds ``_BUCKETS_MAX`` words.
_BUCKETS: dict[int, dict[str, int]] = {}
_BUCKETS_MAX = 1 << 18


def _buckets(dim: int) -> dict[str, int]:
    known = _BUCKETS.setdefault(dim, {})
    if len(known) >= _BUCKETS_MAX:
        known.clear()
    return known


def normalise_rows(m: np.ndarray, *, in_place: bool = False) -> np.ndarray:
    """Scale each row to unit length; all-zero rows stay zero. ``in_place``: scale ``m`` (a
    writable float32 matrix) where it is, without a second matrix. The same values as
    ``m / np.linalg.norm(m, axis=1)``; the squares are summed in a work array."""
    m = np.asarray(m)
    if m.dtype.kind != "f":  # (as np.linalg.norm does)
        m = m.astype(np.float64)
    sq = work_array("normalise_rows", m.size, m.dtype).reshape(m.shape)
    norms = np.sqrt(np.add.reduce(np.multiply(m, m, out=sq), axis=1, keepdims=True))
    norms[norms == 0] = 1.0
    if in_place:
        return np.divide(m, norms, out=m)
    return (m / norms).astype(np.float32)


@dataclass(frozen=True)
class HashingEmbedder:
    """Deterministic bag-of-words embedder (unigrams + bigrams, signed hashing)."""

    dim: int = 384
    bigrams: bool = True

    @property
    def name(self) -> str:
        return f"hashing-{self.dim}{'-bi' if self.bigrams else ''}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        # Every token's signed bucket is listed, then all are added at once into the one
        # float32 matrix that is returned (``np.add.at`` over row * dim + column): the same
        # counts as adding them one by one, exactly, since they are small integers. One
        # matrix per batch and no float64 copy: fresh memory costs page faults (see
        # analogist.work_arrays). Words hashed before come from a dictionary (word pairs are
        # hashed each time: see token_codes).
        dim = self.dim
        codes, lengths = token_codes(texts, dim, self.bigrams, _buckets(dim))
        signed = np.array(codes, dtype=np.int64)
        rows = np.repeat(np.arange(len(texts), dtype=np.int64), lengths)
        out = np.zeros((len(texts), dim), dtype=np.float32)
        np.add.at(
            out.reshape(-1), rows * dim + np.abs(signed) - 1, np.sign(signed, dtype=np.float32)
        )
        return normalise_rows(out, in_place=True)
