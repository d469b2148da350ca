"""Embedders: text -> unit-length float32 vectors.

:class:`Embedder` is the one interface every channel uses. :class:`HashingEmbedder` is the
deterministic, dependency-free backend for tests and for machines with no model installed: it
hashes word unigrams and bigrams into signed buckets (the "hashing trick"), so texts that share
words get similar vectors and nothing else does. It is a surface-similarity baseline, not a
semantic model.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import Protocol, runtime_checkable

import numpy as np

_WORD = re.compile(r"[a-z0-9]+")


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


@lru_cache(maxsize=1 << 16)
def _bucket(token: str, dim: int) -> tuple[int, float]:
    h = hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest()
    v = int.from_bytes(h, "little")
    return v % dim, (1.0 if (v >> 63) & 1 else -1.0)


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
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            words = _WORD.findall(text.lower())
            tokens = list(words)
            if self.bigrams:
                tokens += [f"{a}_{b}" for a, b in pairwise(words)]
            for tok in tokens:
                j, sign = _bucket(tok, self.dim)
                out[i, j] += sign
        return normalise_rows(out)
