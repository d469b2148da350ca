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


def normalise_rows(m: np.ndarray) -> np.ndarray:
    """Scale each row to unit length; all-zero rows stay zero."""
    norms = np.linalg.norm(m, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
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
        # Every token's signed bucket is listed, then all are summed at once (a bincount over
        # row * dim + column): the same counts as adding them one by one, exactly, since they
        # are small integers. Words hashed before come from a dictionary (word pairs are hashed
        # each time: see token_codes).
        dim = self.dim
        codes, lengths = token_codes(texts, dim, self.bigrams, _buckets(dim))
        signed = np.array(codes, dtype=np.int64)
        rows = np.repeat(np.arange(len(texts), dtype=np.int64), lengths)
        flat = rows * dim + np.abs(signed) - 1
        counts = np.bincount(flat, weights=np.sign(signed), minlength=len(texts) * dim)
        return normalise_rows(counts.reshape(len(texts), dim).astype(np.float32))
