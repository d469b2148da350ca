"""S0 near matching as an exact top-k search over the query's rarest WL labels (issue 16).

The channel returns only the ``k`` best near matches (weighted Jaccard of WL label counts at or
above a threshold, ties to the earlier document). Scoring every document above the threshold
(:meth:`~analogist.retrieve.wl.FingerprintIndex.near`) must read the posting lists of all but
the most frequent ``threshold`` share of the query's labels, and at a million documents those
lists hold hundreds of thousands of entries. The k-th best score is usually far above the
threshold, and a higher bound lets the search skip more: this is the prefix filter of
set-similarity search (Chaudhuri et al. 2006; top-k as in Xiao et al. 2009) with the bound
raised as results come in.

With the query's labels ordered rarest first and ``suffix[p]`` the query mass of labels ``p..``,
a document that shares none of labels ``0..p-1`` has at most ``suffix[p]`` in common with the
query, so its weighted Jaccard is at most ``suffix[p] / |q|``. The search reads the labels in
that order, in steps of growing volume; after each step it scores the documents seen for the
first time — an upper bound from what was read, ``min(partial + suffix, |d|)`` over
``|q| + |d| - that``, and, for those that may still enter the top ``k``, their exact score by
looking the remaining labels up (binary search or a dense column). It stops once
``suffix[p] / |q|`` falls below the k-th best score (or the threshold while fewer than ``k``
qualify): every document not yet seen scores strictly less. The answer is therefore the same
as scoring everything; the tests check it against brute force, ties included.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping

import numpy as np

from analogist.retrieve.frozen import FrozenPostings, LayeredPostings, keys64
from analogist.retrieve.postings import Postings
from analogist.retrieve.random_access import prefetch

#: Scores are compared with this tolerance, as in ``FingerprintIndex.near``.
EPS = 1e-9
#: Posting entries read for the first bound, and how many of their documents are scored for it.
FIRST_STEP, PROBE = 2048, 64


def _empty() -> tuple[np.ndarray, np.ndarray]:
    return np.zeros(0, np.int64), np.zeros(0)


def _unique_sums(docs: np.ndarray, vals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Distinct documents (sorted) and the sum of ``vals`` per document."""
    order = np.argsort(docs, kind="stable")
    d, v = docs[order], vals[order]
    starts = np.flatnonzero(np.concatenate(([True], d[1:] != d[:-1])))
    return d[starts], np.add.reduceat(v, starts) if len(d) else v


class _Best:
    """The best ``k`` (score, document) pairs so far, ties to the lower document."""

    def __init__(self, k: int, floor: float):
        self.k, self.floor = k, floor
        self.docs, self.jac = np.zeros(0, np.int64), np.zeros(0)

    def offer(self, docs: np.ndarray, jac: np.ndarray) -> None:
        ok = jac >= self.floor
        d = np.concatenate([self.docs, docs[ok]])
        j = np.concatenate([self.jac, jac[ok]])
        keep = np.lexsort((d, -j))[: self.k]
        self.docs, self.jac = d[keep], j[keep]

    def bound(self) -> float:
        """Scores below this can no longer enter the answer."""
        if len(self.jac) < self.k:
            return self.floor
        return max(self.floor, float(self.jac[-1]) - EPS)


#: One layer's part of a label's posting list: documents (increasing, numbered within the
#: layer), weights, the layer's first document, and the layer's dense uint8 column of the label
#: (every document of the layer, 0 where absent) when it keeps one.
Part = tuple[np.ndarray, np.ndarray, int, "np.ndarray | None"]


class _Label:
    """One query label's posting list as segments of (documents, weights), documents
    increasing: the frozen base, the frozen delta and the in-memory tail are read in place,
    never concatenated; a layer's dense column, where it has one, is added whole."""

    def __init__(self, parts: list[Part]):
        self.parts = parts
        # the base's dense column: with it the label is cheap to add over every document
        self.hot = parts[0][3] if parts and parts[0][2] == 0 else None
        self.df = sum(len(d) for d, _, _, _ in parts)

    def add_to(self, acc: np.ndarray, q: float, scratch: np.ndarray) -> None:
        """acc[doc] += min(weight, q) for every document of the label (``scratch``: a uint8
        buffer at least as long as the dense column, so no fresh pages are touched)."""
        for d, w, off, hot in self.parts:
            if hot is not None:
                nb, col, span = len(hot), hot, slice(off, off + len(hot))
                if q != int(q):
                    col = np.minimum(col, np.float32(q))
                elif q == 1:  # min(w, 1) of positive counts: 1 where present (a fast compare)
                    col = np.not_equal(col, 0, out=scratch[:nb].view(bool)).view(np.uint8)
                elif q < 255:  # add whole, then take back the excess where w > q (few)
                    np.add(acc[span], col, out=acc[span], casting="unsafe")
                    over = np.flatnonzero(np.greater(col, q, out=scratch[:nb].view(bool)))
                    acc[over + off] -= (col[over] - np.uint8(q)).astype(acc.dtype)
                    continue
                np.add(acc[span], col, out=acc[span], casting="unsafe")
            elif len(d):
                at = d.astype(np.int64) + off if off else d
                acc[at] += np.minimum(w, q).astype(acc.dtype)

    def entries(self) -> tuple[np.ndarray, np.ndarray]:
        docs = [d.astype(np.int64) + off for d, _, off, _ in self.parts]
        return np.concatenate(docs), np.concatenate([w for _, w, _, _ in self.parts])

    def weights_of(self, docs: np.ndarray) -> np.ndarray:
        """The label's weight in each of ``docs`` (sorted), 0 where absent."""
        out = np.zeros(len(docs))
        for d, w, off, hot in self.parts:
            if not len(d):
                continue
            if hot is not None:
                here = (docs >= off) & (docs < off + len(hot))
                out[here] = hot[docs[here] - off]
                continue
            at = np.searchsorted(d, docs - off)
            at = np.minimum(at, len(d) - 1)
            hit = d[at] == docs - off
            out[hit] = w[at[hit]]
        return out


def _labels(p: LayeredPostings | Postings, feats: list[str]) -> list[_Label]:
    """The query labels' posting lists, the frozen base's found by one vectorised search."""
    if not isinstance(p, LayeredPostings):
        return [_Label([(*p.column(f), 0, None)]) for f in feats]
    want = keys64(feats)
    base, delta, tail = p.base, p.delta, p.tail
    found = [_frozen_columns(base, want)]
    if delta.n_docs:
        found.append(_frozen_columns(delta, want))
    out = []
    for j, f in enumerate(feats):
        parts: list[Part] = []
        for layer, (columns, rows), at in zip((base, delta), found, (0, base.n_docs)):
            column, row = columns[j], rows[j]
            if column is None:
                continue
            hot = None
            if row is not None:
                prefetch(layer.hot[row])  # a dense column: read whole
                hot = np.asarray(layer.hot[row])
            parts.append((*column, at, hot))
        if tail.n_docs:
            d, w = tail.column(f)
            if len(d):
                parts.append((d, w, p.frozen_docs, None))
        out.append(_Label(parts))
    return out


def _frozen_columns(
    layer: FrozenPostings, want: np.ndarray
) -> tuple[list[tuple[np.ndarray, np.ndarray] | None], list[int | None]]:
    """Each wanted key's (documents, weights) in ``layer`` (None where absent), found by one
    vectorised search, and its dense-column row (None where it has none)."""
    keys, offsets = np.asarray(layer.keys), np.asarray(layer.offsets)
    docs, weights = np.asarray(layer.docs), np.asarray(layer.weights)
    at = np.searchsorted(keys, want)
    ok = at < len(keys)
    ok[ok] = keys[at[ok]] == want[ok]
    columns: list[tuple[np.ndarray, np.ndarray] | None] = []
    rows: list[int | None] = []
    for i, good in zip(at.tolist(), ok.tolist()):
        if not good:
            columns.append(None)
            rows.append(None)
            continue
        a, b = int(offsets[i]), int(offsets[i + 1])
        d, w = docs[a:b], weights[a:b]
        prefetch(d), prefetch(w)  # a long list: one read, not a fault per page
        columns.append((d, w))
        rows.append(layer._hot_row.get(i))
    return columns, rows


def near_top(
    postings: LayeredPostings | Postings,
    query: Mapping[str, float],
    threshold: float,
    k: int,
    banned: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """(documents, weighted Jaccard) of the ``k`` best documents at or above ``threshold``,
    best first, ties to the lower document number, skipping the documents in ``banned``.

    ``threshold`` must be positive (at 0 every document qualifies: score them all instead).
    """
    if threshold <= EPS:
        raise ValueError("near_top needs a positive threshold; use FingerprintIndex.near")
    feats = [f for f, w in query.items() if w > 0]
    qsum = float(sum(query[f] for f in feats))
    if k <= 0 or qsum == 0:
        return _empty()
    labels = _labels(postings, feats)
    order = sorted(range(len(feats)), key=lambda i: (labels[i].df, -query[feats[i]], feats[i]))
    labels = [labels[i] for i in order]
    qw = np.array([query[feats[i]] for i in order], np.float64)
    suffix = np.append(np.cumsum(qw[::-1])[::-1], 0.0)
    reach = suffix / qsum  # the best score of a document sharing none of the labels before
    sums = postings.sums
    best = _Best(k, threshold - EPS)
    skip = np.unique(np.asarray(banned if banned is not None else [], np.int64))
    # 1: a first bound from the best-sharing documents of the rarest labels
    j = read = 0
    while j < len(labels) and read < FIRST_STEP:
        read += labels[j].df
        j += 1
    if 0 < j < int(np.argmax(reach < best.bound())):
        docs, partial = _gather(labels[:j], qw[:j], skip)
        pick = np.sort(np.lexsort((docs, -partial))[:PROBE])
        _verify(labels[j:], qw[j:], docs[pick], partial[pick], qsum, sums, best)
        skip = np.union1d(skip, docs[pick])  # scored: not again in step 2
    # 2: the labels the bound needs, and those beyond with a dense column (cheap to add), summed
    # over all documents; then exact scores where the upper bound allows, most promising first
    stop = int(np.argmax(reach < best.bound()))
    read_ix = [i for i, lab in enumerate(labels) if lab.df and (i < stop or lab.hot is not None)]
    rest_ix = [i for i, lab in enumerate(labels) if lab.df and i >= stop and lab.hot is None]
    rest_mass = float(qw[rest_ix].sum())
    floor = best.bound() * qsum - rest_mass - 1e-6 * qsum  # what a document must share here
    acc, scratch = _accumulate([labels[i] for i in read_ix], qw[read_ix], postings.n_docs)
    acc[skip] = 0
    docs = _at_least(acc, floor, scratch)
    partial = acc[docs].astype(np.float64)
    dsum = np.asarray(sums[docs], np.float64)
    top = np.minimum(partial + rest_mass, dsum)
    upper = top / np.maximum(qsum + dsum - top, EPS)
    keep = upper >= best.bound()
    docs, partial, upper = docs[keep], partial[keep], upper[keep]
    by = np.argsort(-upper, kind="stable")
    at, chunk = 0, 256
    rest = [labels[i] for i in rest_ix]
    while at < len(by) and upper[by[at]] >= best.bound():
        pick = np.sort(by[at : at + chunk])
        _verify(rest, qw[rest_ix], docs[pick], partial[pick], qsum, sums, best)
        at, chunk = at + chunk, chunk * 4
    return best.docs, best.jac


def _at_least(acc: np.ndarray, floor: float, scratch: np.ndarray) -> np.ndarray:
    """Documents whose sum is at least ``floor`` (and positive), without a float copy of a
    uint8 ``acc`` (compared with the integer ``ceil(floor)``, the same test)."""
    if acc.dtype == np.uint8:
        need = max(1, int(np.ceil(floor)))
        if need > 255:
            return np.zeros(0, np.int64)
        return np.flatnonzero(np.greater_equal(acc, np.uint8(need), out=scratch.view(bool)))
    return np.flatnonzero(acc >= floor) if floor > 0 else np.flatnonzero(acc)


def _accumulate(labels: list[_Label], qw: np.ndarray, n: int) -> tuple[np.ndarray, np.ndarray]:
    """What each document shares with the query over ``labels`` (sum of minima), in one vector:
    uint8 when every sum is a small integer (a dense column is then one byte-wise add); and a
    uint8 scratch vector of the same length."""
    small = qw.sum() <= 255 and bool(np.all(qw == np.round(qw)))
    small = small and all(
        np.all(w == np.round(w)) for lab in labels for _, w, _, hot in lab.parts if hot is None
    )
    acc, scratch = _workspace(n)
    if not small:
        acc = np.zeros(n, np.float32)
    for lab, q in zip(labels, qw):
        lab.add_to(acc, float(q), scratch)
    return acc, scratch


_local = threading.local()


def _workspace(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Two zeroed uint8 vectors of length ``n``, kept per thread: a fresh 1 MB array costs
    ~0.4 ms in page faults at a million documents, more than the additions themselves."""
    have = getattr(_local, "bufs", None)
    if have is None or len(have[0]) < n:
        have = _local.bufs = (np.zeros(n, np.uint8), np.zeros(n, np.uint8))
    acc, scratch = have[0][:n], have[1][:n]
    acc.fill(0)
    return acc, scratch


def _gather(
    labels: list[_Label], qw: np.ndarray, skip: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Distinct documents (sorted, not banned) in these labels' posting lists, and what each
    has in common with the query over them (sum of minima)."""
    docs, vals = [], []
    for lab, q in zip(labels, qw):
        if lab.df:
            d, w = lab.entries()
            docs.append(d)
            vals.append(np.minimum(w, q))
    if not docs:
        return np.zeros(0, np.int64), np.zeros(0)
    all_docs, partial = _unique_sums(np.concatenate(docs), np.concatenate(vals))
    if len(skip):
        at = np.minimum(np.searchsorted(skip, all_docs), len(skip) - 1)
        keep = skip[at] != all_docs
        all_docs, partial = all_docs[keep], partial[keep]
    return all_docs, partial


def _verify(
    rest: list[_Label],
    rest_w: np.ndarray,
    docs: np.ndarray,
    partial: np.ndarray,
    qsum: float,
    sums: np.ndarray,
    best: _Best,
) -> None:
    """Exact scores of ``docs`` (sorted; ``partial`` in common over the labels read), offered
    to ``best``: the labels not read are looked up."""
    if not len(docs):
        return
    num = partial.copy()
    for lab, w in zip(rest, rest_w):
        if lab.df:
            num += np.minimum(lab.weights_of(docs), w)
    dsum = np.asarray(sums[docs], np.float64)
    best.offer(docs, num / np.maximum(qsum + dsum - num, EPS))
