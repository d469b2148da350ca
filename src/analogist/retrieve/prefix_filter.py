"""Channel S1's best candidates without reading every posting list whole: a prefix filter.

S1 scores a query's MAC vector against every stored one (cosine of counts through the frozen
posting lists, :mod:`analogist.retrieve.frozen`) and keeps the best, those within a fraction
of it and at most ``k``. A scan adds every query feature's whole list: at 3M episodes a query
reads ~6M postings, most of them from features almost every episode has (``p:causes``,
``len:2``), and takes 32–41 ms (docs/performance.md, "3M"). Yet an episode is only kept if its
cosine reaches a threshold — the channel's floor and the k-th best score — that is usually
above 0.8.

The prefix filter of all-pairs similarity search (Bayardo, Ma & Srikant 2007, "Scaling up all
pairs similarity search", WWW) uses that: by Cauchy–Schwarz, the query features in a set ``O``
add at most ``|q_O| * |d_O| / (|q| |d|) <= |q_O| / |q|`` to a cosine. Put the commonest
features in ``O`` while ``|q_O| / |q|`` stays below the threshold; an episode that has none of
the remaining (rare) features cannot reach it, so only the rare features' lists are read.
Their products give each candidate an upper bound (``dot + |q_O| * sqrt(|d|² - Σw²)``, over
``|q| |d|``); each common feature then replaces its share of the bound by the episode's actual
weight (a gather from a dense column or a binary search, for the candidates left, not a scan),
dropping those that fall below. The threshold starts from real scores — of the episodes in the
rarest lists, then of the best upper bounds — so it never exceeds the true one and nothing that
qualifies is dropped.

The survivors are scored as the scan scores them (the same float32 operations in the same
order: :func:`cosines_of`), so the channel answers bit for bit as before (tested against the
scan). It needs nothing but the lists and norms every snapshot has. A query whose threshold
is low (its rare lists would be most of its postings) is left to the scan.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from analogist.retrieve.dense import top_indices
from analogist.retrieve.frozen import FrozenPostings, run_starts
from analogist.retrieve.postings import _add_dense
from analogist.retrieve.random_access import prefetch

#: Bounds are computed in float64 from float32 data, in another order than the exact score:
#: compare with this much room (cosines lie in [0, 1]; the rounding is ~1e-6).
SLACK = 1e-4
#: How many episodes of the rarest lists are scored to start the threshold.
SAMPLE = 512
#: How many of the best upper bounds are scored to raise it before the gathers.
REFINE = 64
#: Scan instead when the rare lists hold more than this share of the query's postings (a low
#: threshold): reading a posting costs the filter several times what it costs the scan. At 3M
#: 1/16 and 1/8 gave the same p50, 1/32 and 1/4 a worse mean (docs/performance.md).
SCAN_SHARE = 1 / 8


@dataclass(frozen=True)
class _Feature:
    """A query feature present in the lists, with what the search needs of it."""

    slot: int
    weight: float  # the query's count
    start: int  # its entries: docs[start:end]
    end: int
    hot: int | None  # its dense column, if it has one

    @property
    def df(self) -> int:
        return self.end - self.start


class _Lists:
    """A frozen index's arrays as plain ndarrays (slicing or indexing a ``np.memmap`` costs
    microseconds of subclass bookkeeping per call; the search makes hundreds)."""

    def __init__(self, p: FrozenPostings):
        self.docs, self.weights = np.asarray(p.docs), np.asarray(p.weights)
        self.norms, self.hot = np.asarray(p.norms), np.asarray(p.hot)

    def column(self, f: _Feature) -> np.ndarray:
        """``f``'s dense column, asked for whole first (as the scan reads it): gathers at
        scattered places of a cold, random-access mapping would fault in page by page."""
        col = self.hot[f.hot]
        prefetch(col)
        return col

    def entries(self, f: _Feature) -> tuple[np.ndarray, np.ndarray]:
        """``f``'s list (documents, weights), asked for whole first, as :meth:`column`."""
        docs, weights = self.docs[f.start : f.end], self.weights[f.start : f.end]
        prefetch(docs), prefetch(weights)
        return docs, weights


def _features(p: FrozenPostings, query: Mapping[str, float]) -> list[_Feature]:
    """The query's non-zero features that have a list, in the query's order."""
    out = []
    for name, qw in query.items():
        slot = p._slot(name) if qw else -1
        if slot >= 0:
            a, b = int(p.offsets[slot]), int(p.offsets[slot + 1])
            out.append(_Feature(slot, float(qw), a, b, p._hot_row.get(slot)))
    return out


def cosines_of(
    p: FrozenPostings, query: Mapping[str, float], qnorm: float, docs: np.ndarray
) -> np.ndarray:
    """The cosine of ``query`` with each of ``docs`` (ascending), bit for bit what the scan
    (``FrozenPostings.accumulate`` and ``MacIndex.cosine``) gives them: the same float32
    products added in the same order, a document's missing features adding nothing."""
    return _cosines(_Lists(p), _features(p, query), qnorm, docs)


def _cosines(lists: _Lists, feats: list[_Feature], qnorm: float, docs: np.ndarray) -> np.ndarray:
    """:func:`cosines_of` for features already looked up (in the query's order)."""
    acc = np.zeros(len(docs), np.float32)
    for f in feats:
        if f.hot is not None:
            _add_dense(acc, lists.column(f)[docs], f.weight, "dot")
        elif len(docs):
            found, at = _positions(lists, f, docs)
            acc[found] += lists.weights[at[found]] * np.float32(f.weight)
    den = np.multiply(lists.norms[docs], np.float32(qnorm))
    return acc / den


def _positions(lists: _Lists, f: _Feature, docs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which of ``docs`` are in ``f``'s list, and each one's entry (binary search)."""
    a = f.start
    listed = lists.entries(f)[0]
    pos = np.searchsorted(listed, docs)
    found = pos < len(listed)
    found[found] = listed[pos[found]] == docs[found]
    return found, a + np.where(found, pos, 0)


def threshold(scores: np.ndarray, k: int, min_score: float, keep_fraction: float) -> float:
    """A score every document S1 keeps reaches, given the true scores of some documents: the
    channel's floor (``min_score``, ``keep_fraction`` of the best, less its 1e-6 tolerance)
    and the k-th best score (the k best of a subset are no better than the k best of all)."""
    if not len(scores):
        return min_score - 1e-6
    floor = max(min_score, keep_fraction * float(scores.max())) - 1e-6
    if len(scores) < k:
        return floor
    kth = float(np.partition(scores, len(scores) - k)[len(scores) - k])
    return max(floor, kth)


def best_candidates(
    p: FrozenPostings,
    query: Mapping[str, float],
    qnorm: float,
    k: int,
    min_score: float,
    keep_fraction: float,
    banned: np.ndarray,
) -> tuple[np.ndarray, np.ndarray] | None:
    """(documents ascending, their exact cosines): every document of ``p`` not ``banned``
    whose cosine reaches what S1 keeps (:func:`threshold` of all scores), and possibly some
    below it. None when the filter does not apply — an empty query, one with a negative
    weight, or a threshold so low that the rare lists hold more than ``SCAN_SHARE`` of the
    query's postings — and the caller scans."""
    if qnorm <= 0 or not p.n_docs or any(qw < 0 for qw in query.values()):
        return None
    lists, feats = _Lists(p), _features(p, query)
    exact_docs = _sample(lists, feats, banned)
    exact = _cosines(lists, feats, qnorm, exact_docs)
    theta = threshold(exact, k, min_score, keep_fraction) - SLACK
    common, rare, common_sq = [], [], 0.0  # common: |q_common| / |q| stays below theta
    for f in sorted(feats, key=lambda f: -f.df):
        if (common_sq + f.weight**2) ** 0.5 / qnorm < theta:
            common_sq += f.weight**2
            common.append(f)
        else:
            rare.append(f)
    if sum(f.df for f in rare) > SCAN_SHARE * sum(f.df for f in feats):
        return None
    cand, dot, sq = _rare_products(lists, rare)
    if len(banned):
        keep = ~np.isin(cand, banned)
        cand, dot, sq = cand[keep], dot[keep], sq[keep]
    norms = lists.norms[cand].astype(np.float64)
    keep = _upper(dot, sq, norms, common_sq, qnorm) >= theta
    cand, dot, sq, norms = cand[keep], dot[keep], sq[keep], norms[keep]
    if len(cand) > REFINE:  # raise the threshold with the best upper bounds' true scores
        upper = _upper(dot, sq, norms, common_sq, qnorm)
        best = cand[np.argpartition(-upper, REFINE)[:REFINE]]
        fresh = np.setdiff1d(best, exact_docs)
        exact_docs = np.concatenate([exact_docs, fresh])
        exact = np.concatenate([exact, _cosines(lists, feats, qnorm, fresh)])
        theta = threshold(exact, k, min_score, keep_fraction) - SLACK
    for f in sorted(common, key=lambda f: -f.weight):  # its bound -> the actual weights
        keep = _upper(dot, sq, norms, common_sq, qnorm) >= theta
        cand, dot, sq, norms = cand[keep], dot[keep], sq[keep], norms[keep]
        if not len(cand):
            break
        w = _weights(lists, f, cand)
        dot += w * f.weight
        sq += w * w
        common_sq = max(common_sq - f.weight**2, 0.0)
    keep = _upper(dot, sq, norms, common_sq, qnorm) >= theta
    fresh = np.setdiff1d(cand[keep], exact_docs)
    docs = np.concatenate([exact_docs, fresh])
    scores = np.concatenate([exact, _cosines(lists, feats, qnorm, fresh)])
    order = np.argsort(docs, kind="stable")
    return docs[order], scores[order]


def _upper(
    dot: np.ndarray, sq: np.ndarray, norms: np.ndarray, common_sq: float, qnorm: float
) -> np.ndarray:
    """Each candidate's cosine bound: its known products plus, by Cauchy–Schwarz, the most
    the features not yet read can add (``|q_rest| * |d_rest|``)."""
    rest = np.sqrt(common_sq * np.maximum(norms * norms - sq, 0.0))
    return (dot + rest) / (qnorm * norms)


def _sample(lists: _Lists, feats: list[_Feature], banned: np.ndarray) -> np.ndarray:
    """The documents of the query's rarest lists, up to about ``SAMPLE`` (ascending)."""
    parts: list[np.ndarray] = []
    total = 0
    for f in sorted(feats, key=lambda f: f.df):
        if parts and total + f.df > SAMPLE:
            break
        parts.append(lists.docs[f.start : min(f.end, f.start + SAMPLE)])  # a few KB: no prefetch
        total += f.df
    docs = np.unique(np.concatenate(parts)).astype(np.int64) if parts else np.zeros(0, np.int64)
    return docs[~np.isin(docs, banned)] if len(banned) else docs


def _rare_products(
    lists: _Lists, rare: list[_Feature]
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The documents in the rare features' lists (ascending), each one's sum of products with
    the query over those features and its sum of their squared weights (float64)."""
    if not rare:
        return np.zeros(0, np.int64), np.zeros(0), np.zeros(0)
    parts = [lists.entries(f) for f in rare]
    docs = np.concatenate([d for d, _ in parts])
    w = np.concatenate([w for _, w in parts])
    prod = w * np.repeat(np.array([f.weight for f in rare], np.float32), [f.df for f in rare])
    w = w.astype(np.float64)
    prod, sq = prod.astype(np.float64), w * w
    if len(rare) > 1:  # ascending runs, merged; then one total per document
        order = np.argsort(docs, kind="stable")
        docs, offsets = run_starts(docs[order])
        prod, sq = _run_sums(prod[order], offsets), _run_sums(sq[order], offsets)
    return docs.astype(np.int64), prod, sq


def _run_sums(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """The sums of ``values`` over the runs ``offsets[i]:offsets[i + 1]`` (float64 running
    totals: several times faster than ``np.add.reduceat`` here, and exact enough for a bound)."""
    totals = np.cumsum(values)
    ends = offsets[1:] - 1
    out = totals[ends]
    out[1:] -= totals[ends[:-1]]
    return out


def _weights(lists: _Lists, f: _Feature, docs: np.ndarray) -> np.ndarray:
    """Feature ``f``'s weight in each of ``docs`` (0 where absent), float64."""
    if f.hot is not None:
        return lists.column(f)[docs].astype(np.float64)
    found, at = _positions(lists, f, docs)
    out = np.zeros(len(docs))
    out[found] = lists.weights[at[found]]
    return out


def select(
    docs: np.ndarray, scores: np.ndarray, k: int, min_score: float, keep_fraction: float
) -> np.ndarray:
    """Positions (into ``docs``) of what S1 keeps, best first: the best, those within
    ``keep_fraction`` of it and at least ``min_score`` (1e-6 tolerance), at most ``k``, ties
    to the lower document."""
    if not len(scores):
        return np.zeros(0, np.int64)
    best = float(scores.max())
    if best <= 0:
        return np.zeros(0, np.int64)
    floor = max(min_score, keep_fraction * best)
    kept = np.flatnonzero(scores >= np.float32(floor) - np.float32(1e-6))
    return kept[top_indices(scores[kept], k)]
