"""An append-only inverted index over sparse feature counts, in numpy, without scipy.

Channels S0 (near WL matches) and S1 (MAC count vectors) score a sparse query against up to
millions of sparse documents. The matrix is stored column-wise (feature -> posting list of
doc numbers and weights, i.e. CSC), so a query touches only its own features' columns.
Posting lists are ``array.array`` buffers: an add is an O(features) append, a query reads
them zero-copy through ``np.frombuffer``, and because documents get increasing numbers every
list is sorted (:meth:`Postings.weights_of` looks documents up by binary search).

Accumulation goes into one dense float32 vector over all documents. A rare feature is
scattered into it (``acc[docs] += w``; each list holds a document once, so plain fancy
indexing is exact). A *hot* feature — in more than ``dense_fraction`` of the documents, such
as a predicate half the corpus uses — is cheaper as a dense column: a cached uint8 (or
float32) vector added whole, about 0.3 ms per million documents whatever its frequency,
against ~4 ms to scatter a column three quarters full. The cache covers the documents
present when it was built; later ones come from the posting tail, and it is rebuilt once that
tail exceeds 1/16 of the corpus. A feature seen in one document only (most deep WL labels)
is kept as one packed integer rather than two arrays until a second document has it, which
roughly halves the index's memory at a million signatures.

Two accumulations are offered: ``dot`` (sum of products, for cosine) and ``min`` (sum of
minima, the numerator of weighted Jaccard). Per-document sums and norms are kept for the
denominators.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping

import numpy as np

from analogist.work_arrays import work_array


class Postings:
    """Feature -> sorted posting list of (document number, weight), with a hot-column cache.

    Args:
        dense_fraction: a feature in at least this share of documents gets a dense column.
        min_dense_docs: below this many documents no dense columns are built.
    """

    def __init__(self, dense_fraction: float = 1 / 32, min_dense_docs: int = 8192):
        self.dense_fraction = dense_fraction
        self.min_dense_docs = min_dense_docs
        self.columns: dict[str, int] = {}
        self._single: dict[str, int | tuple[int, float]] = {}
        self._docs: list[array] = []
        self._weights: list[array] = []
        self._byte_sized: list[bool] = []
        self._sums = array("f")
        self._norms = array("f")
        self._dense: dict[int, np.ndarray] = {}
        self._dense_n = 0

    @property
    def n_docs(self) -> int:
        return len(self._sums)

    @property
    def sums(self) -> np.ndarray:
        """Each document's total weight (float32)."""
        return (
            np.frombuffer(self._sums, dtype=np.float32) if self.n_docs else np.zeros(0, np.float32)
        )

    @property
    def norms(self) -> np.ndarray:
        """Each document's Euclidean norm (1.0 for an empty document, to divide safely)."""
        return (
            np.frombuffer(self._norms, dtype=np.float32) if self.n_docs else np.zeros(0, np.float32)
        )

    def df(self, feature: str) -> int:
        """Document frequency of a feature (0 when unseen)."""
        c = self.columns.get(feature)
        if c is None:
            return 1 if feature in self._single else 0
        return len(self._docs[c])

    def _single_entry(self, feature: str) -> tuple[int, float] | None:
        v = self._single.get(feature)
        if v is None or isinstance(v, tuple):
            return v
        return v >> 9, float(v & 511)

    def _promote(self, feature: str) -> int:
        doc, w = self._single_entry(feature)  # type: ignore[misc]
        del self._single[feature]
        c = self.columns[feature] = len(self._docs)
        self._docs.append(array("i", [doc]))
        self._weights.append(array("f", [w]))
        self._byte_sized.append(0 < w <= 255 and w == int(w))
        return c

    def add(self, features: Mapping[str, float], skip: str = "") -> int:
        """Append one document; return its number (0, 1, 2, ... in order of adding). A
        feature named ``skip`` is left out (as if absent: S0 leaves out ``0:role`` without
        building a copy of each fingerprint's features)."""
        doc = len(self._sums)
        columns, single, small = self.columns, self._single, self._byte_sized
        docs, weights = self._docs, self._weights
        total = sq = 0.0
        for f, w in features.items():
            if not w or f == skip:
                continue
            total += w
            sq += w * w
            c = columns.get(f)
            if c is None:
                if f not in single:
                    byte = 0 < w <= 255 and w == int(w)
                    single[f] = (doc << 9) | int(w) if byte else (doc, float(w))
                    continue
                c = self._promote(f)
            docs[c].append(doc)
            weights[c].append(w)
            if small[c] and not (0 < w <= 255 and w == int(w)):
                small[c] = False
        self._sums.append(total)
        self._norms.append(sq**0.5 if sq else 1.0)
        return doc

    def _column(self, c: int) -> tuple[np.ndarray, np.ndarray]:
        return (
            np.frombuffer(self._docs[c], dtype=np.int32),
            np.frombuffer(self._weights[c], dtype=np.float32),
        )

    def _refresh_dense(self) -> None:
        n = self.n_docs
        if n < self.min_dense_docs:
            self._dense, self._dense_n = {}, 0
            return
        if self._dense_n and (n - self._dense_n) * 16 <= n:
            return
        limit, dense = self.dense_fraction * n, {}
        for c, docs in enumerate(self._docs):
            if len(docs) >= limit:
                d, w = self._column(c)
                col = np.zeros(n, dtype=np.uint8 if self._byte_sized[c] else np.float32)
                col[d] = w
                dense[c] = col
        self._dense, self._dense_n = dense, n

    def accumulate(self, query: Mapping[str, float], how: str = "dot") -> np.ndarray:
        """Accumulate a sparse query over every document.

        Args:
            query: feature -> query weight.
            how: ``"dot"`` sums w_q * w_d; ``"min"`` sums min(w_q, w_d).

        Returns:
            a float32 total per document, in document order.
        """
        self._refresh_dense()
        acc = np.zeros(self.n_docs, dtype=np.float32)
        for f, qw in query.items():
            c = self.columns.get(f)
            if c is None or not qw:
                one = self._single_entry(f) if qw else None
                if one is not None:
                    acc[one[0]] += min(one[1], qw) if how == "min" else one[1] * qw
                continue
            d, w = self._column(c)
            col = self._dense.get(c)
            if col is not None:
                _add_dense(acc[: len(col)], col, qw, how)
                tail = int(np.searchsorted(d, len(col)))
                d, w = d[tail:], w[tail:]
            if len(d):
                acc[d] += np.minimum(w, np.float32(qw)) if how == "min" else w * np.float32(qw)
        return acc

    def column(self, feature: str) -> tuple[np.ndarray, np.ndarray]:
        """(documents, weights) of one feature's posting list, documents increasing."""
        c = self.columns.get(feature)
        if c is not None:
            return self._column(c)
        one = self._single_entry(feature)
        if one is None:
            return np.zeros(0, np.int32), np.zeros(0, np.float32)
        return np.array([one[0]], np.int32), np.array([one[1]], np.float32)

    def weights_of(self, feature: str, docs: np.ndarray) -> np.ndarray:
        """The weight of ``feature`` in each of ``docs`` (0 where absent), by binary search."""
        out = np.zeros(len(docs), dtype=np.float32)
        c = self.columns.get(feature)
        if c is None:
            one = self._single_entry(feature)
            if one is not None:
                out[np.asarray(docs) == one[0]] = one[1]
            return out
        if len(docs) == 0:
            return out
        d, w = self._column(c)
        pos = np.searchsorted(d, docs)
        ok = pos < len(d)
        ok[ok] = d[pos[ok]] == docs[ok]
        out[ok] = w[pos[ok]]
        return out


def _add_dense(acc: np.ndarray, col: np.ndarray, qw: float, how: str) -> None:
    """acc += col * qw (dot) or min(col, qw) (min), in place, without widening ``acc``; the
    intermediate column is a reused work array (a fresh one per call cost page faults)."""
    n = len(col)
    if how == "min":
        if col.dtype == np.uint8 and qw >= 255:
            np.add(acc, col, out=acc, casting="unsafe")
        elif col.dtype == np.uint8 and qw == int(qw):
            low = np.minimum(col, np.uint8(qw), out=work_array("dense_u8", n, np.uint8))
            np.add(acc, low, out=acc, casting="unsafe")
        else:
            tmp = work_array("dense_f32", n, np.float32)
            tmp[:] = col
            acc += np.minimum(tmp, np.float32(qw), out=tmp)
    elif qw == 1:
        np.add(acc, col, out=acc, casting="unsafe")
    else:
        acc += np.multiply(col, np.float32(qw), out=work_array("dense_f32", n, np.float32))
