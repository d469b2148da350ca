"""Exact dense-vector search over float32 rows (channels S2.L2, S2.L3 and M.emb).

Vectors are unit length, so cosine similarity is one matrix-vector product per block of rows;
at 100k x 384 a query is a ~40 MFLOP product plus an O(n) partial selection.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np


def top_indices(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest scores, best first (stable for ties: lower index first)."""
    n = len(scores)
    if k <= 0 or n == 0:
        return np.zeros(0, dtype=np.int64)
    if k < n:
        part = np.argpartition(-scores, k - 1)[:k]
    else:
        part = np.arange(n)
    return part[np.lexsort((part, -scores[part]))]


class VectorIndex:
    """Episode ids and their vectors for one (level, embedder) pair.

    Rows live in fixed-size float32 blocks, so growing never copies the corpus and never
    over-allocates by more than one block (at 1M x 384 the index is 1.5 GB, not a doubled
    buffer's 3 GB peak).

    Args:
        dim: vector dimension (fixed by the embedder).
        block: rows per block.
    """

    def __init__(self, dim: int, block: int = 32768):
        self.dim = dim
        self.block = block
        self.ids: list[str] = []
        self.position: dict[str, int] = {}
        self._blocks: list[np.ndarray] = []

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def matrix(self) -> np.ndarray:
        """All rows as one (n, dim) array (a copy; for inspection and tests)."""
        if not self.ids:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.concatenate(self._blocks)[: len(self.ids)]

    def _row(self, i: int) -> tuple[np.ndarray, int]:
        return self._blocks[i // self.block], i % self.block

    def add(self, ids: Sequence[str], vectors: np.ndarray) -> None:
        """Append rows; an id already present has its row replaced."""
        vectors = np.asarray(vectors, dtype=np.float32).reshape(len(ids), self.dim)
        known = [i for i, eid in enumerate(ids) if eid in self.position]
        for i in known:
            blk, r = self._row(self.position[ids[i]])
            blk[r] = vectors[i]
        fresh = np.delete(np.arange(len(ids)), known) if known else np.arange(len(ids))
        done = 0
        while done < len(fresh):
            at = len(self.ids)
            if at // self.block == len(self._blocks):
                self._blocks.append(np.zeros((self.block, self.dim), dtype=np.float32))
            blk, r = self._row(at)
            take = fresh[done:done + self.block - r]
            blk[r:r + len(take)] = vectors[take]
            for i in take:
                self.position[ids[i]] = len(self.ids)
                self.ids.append(ids[i])
            done += len(take)

    def add_chunks(self, chunks: Iterable[tuple[list[str], np.ndarray]]) -> None:
        """Append many (ids, matrix) chunks, e.g. streamed from the store."""
        for ids, mat in chunks:
            self.add(ids, mat)

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Cosine of ``query`` with every stored row, in insertion order."""
        q = np.asarray(query, dtype=np.float32).reshape(self.dim)
        n, out = len(self.ids), []
        for b, blk in enumerate(self._blocks):
            rows = min(self.block, n - b * self.block)
            out.append(blk[:rows] @ q)
        return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)

    def search(
        self, query: np.ndarray, k: int, exclude: frozenset[str] = frozenset()
    ) -> list[tuple[str, float]]:
        """The ``k`` most similar ids (cosine), best first, skipping ``exclude``."""
        if not self.ids:
            return []
        scores = self.scores(query)
        banned = [self.position[e] for e in exclude if e in self.position]
        if banned:
            scores[banned] = -np.inf
        top = top_indices(scores, min(k, len(self.ids) - len(banned)))
        return [(self.ids[i], float(scores[i])) for i in top]
