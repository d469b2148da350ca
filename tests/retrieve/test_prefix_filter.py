"""S1's prefix filter answers exactly as the scan of every posting list, and reads fewer."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from analogist.retrieve import frozen, mac, prefix_filter
from analogist.retrieve.frozen import IdTable, LayeredPostings
from analogist.retrieve.mac import MacIndex
from analogist.retrieve.postings import Postings
from analogist.retrieve.prefix_filter import best_candidates, cosines_of, select

NONE = np.zeros(0, np.int64)  # no document banned


def corpus(n: int, seed: int) -> list[Counter]:
    """Count vectors shaped like MAC vectors: a few features most documents have, some
    shared by a family of near-duplicates, a rare one or two, and exact repeats (ties)."""
    rng = np.random.default_rng(seed)
    families = [
        Counter({f"f{fam}_{j}": int(rng.integers(1, 3)) for j in range(int(rng.integers(2, 6)))})
        for fam in range(40)
    ]
    docs = []
    for i in range(n):
        doc = Counter({f"p{j}": 1 for j in range(6) if rng.random() < 0.8})
        doc["len:2" if rng.random() < 0.6 else "len:3"] = 1
        doc.update(families[int(rng.integers(0, len(families)))])
        for _ in range(int(rng.integers(0, 3))):
            doc[f"r{int(rng.integers(0, 3000))}"] += 1
        docs.append(doc if i % 9 else Counter(docs[-1]) if docs else doc)
    return docs


def index_of(docs: list[Counter], base: int, delta: int = 0) -> MacIndex:
    """The first ``base`` documents frozen (a snapshot's lists), the next ``delta`` frozen as
    its delta layer, the rest in the tail."""
    first, second = Postings(), Postings()
    for d in docs[:base]:
        first.add(d)
    for d in docs[base : base + delta]:
        second.add(d)
    postings = LayeredPostings(
        LayeredPostings(tail=first).freeze(), delta=LayeredPostings(tail=second).freeze()
    )
    ids = IdTable.build([f"e{i}" for i in range(base + delta)])
    index = MacIndex(postings, ids)
    for i, d in enumerate(docs[base + delta :], base + delta):
        index.add(f"e{i}", d)
    return index


def queries(docs: list[Counter], seed: int) -> list[Counter]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(40):  # stored documents, perturbed
        q = Counter(docs[int(rng.integers(0, len(docs)))])
        if rng.random() < 0.5:
            q[f"r{int(rng.integers(0, 3000))}"] += 1
        if rng.random() < 0.3:
            q.pop(next(iter(q)))
        out.append(q)
    return out + [Counter({"p0": 1, "len:2": 1}), Counter({"unseen": 2}), Counter()]


def answer(index: MacIndex, q: Counter, k: int, min_score: float, keep: float, exclude=()):
    docs, scores = index.candidates(q, k, min_score, keep, frozenset(exclude))
    top = select(docs, scores, k, min_score, keep)
    return [(int(docs[i]), scores[i]) for i in top]


def reference(index: MacIndex, q: Counter, k: int, min_score: float, keep: float, exclude=()):
    scores = index.cosine(q)
    docs = np.arange(len(scores), dtype=np.int64)
    banned = np.array(sorted(index.ids.positions(frozenset(exclude))), np.int64)
    ok = ~np.isin(docs, banned)
    docs, scores = docs[ok], scores[ok]
    return [(int(docs[i]), scores[i]) for i in select(docs, scores, k, min_score, keep)]


@pytest.fixture
def hot_columns(monkeypatch):
    monkeypatch.setattr(frozen, "HOT_MIN_DOCS", 100)  # dense columns at this size too


@pytest.mark.parametrize("delta,tail", [(0, 0), (0, 150), (350, 0), (350, 150)])
@pytest.mark.parametrize("sample", [4, 512])  # 4: the answer comes from the bounds, not the sample
def test_the_filter_answers_as_the_scan_bit_for_bit(monkeypatch, hot_columns, delta, tail, sample):
    monkeypatch.setattr(prefix_filter, "SAMPLE", sample)
    monkeypatch.setattr(prefix_filter, "REFINE", sample)
    docs = corpus(3000, 0)
    index = index_of(docs, len(docs) - delta - tail, delta)
    assert index.postings.delta.n_docs == delta
    assert len(index.postings.base.hot_slots) > 0
    settings = [(10, 0.2, 0.6), (3, 0.2, 0.6), (25, 0.5, 0.9), (10, 0.05, 0.0)]
    got = {}
    for use in (True, False):
        if not use:
            monkeypatch.setattr(mac, "best_candidates", lambda *a: None)
        got[use] = [
            answer(index, q, k, low, keep, exclude)
            for q in queries(docs, 1)
            for k, low, keep in settings
            for exclude in ((), ("e0", "e9", "e10", "e2999"))
        ]
    assert got[True] == got[False]  # the same documents, order and float32 scores
    scan = [  # every document scored at once, as an index without layers is
        reference(index, q, k, low, keep, exclude)
        for q in queries(docs, 1)
        for k, low, keep in settings
        for exclude in ((), ("e0", "e9", "e10", "e2999"))
    ]
    assert got[False] == scan
    assert sum(len(a) for a in got[True]) > 1000


def test_the_filter_reads_only_what_can_qualify(hot_columns):
    docs = corpus(3000, 2)
    index = index_of(docs, len(docs))
    p = index.postings.base
    found = [
        best_candidates(p, q, float(np.sqrt(sum(v * v for v in q.values()))), 10, 0.2, 0.6, NONE)
        for q in queries(docs, 3)[:40]
    ]
    pruned = [f for f in found if f is not None]
    assert len(pruned) >= 30  # most queries are near-duplicates: a high threshold
    assert np.median([len(d) for d, _ in pruned]) < len(docs) / 10


def test_cosines_of_a_subset_are_the_scans(hot_columns):
    docs = corpus(2000, 4)
    index = index_of(docs, len(docs))
    subset = np.arange(0, 2000, 3)
    for q in queries(docs, 5)[:-1]:  # the empty query has no cosine to divide by
        qnorm = float(np.sqrt(sum(v * v for v in q.values())))
        assert np.array_equal(
            cosines_of(index.postings.base, q, qnorm, subset), index.cosine(q)[subset]
        )


def test_a_negative_weight_or_empty_query_is_left_to_the_scan(hot_columns):
    docs = corpus(500, 6)
    p = index_of(docs, len(docs)).postings.base
    assert best_candidates(p, Counter({"p0": -1, "p1": 1}), 1.4, 10, 0.2, 0.6, NONE) is None
    assert best_candidates(p, Counter(), 0.0, 10, 0.2, 0.6, NONE) is None


def test_the_threshold_never_exceeds_what_the_channel_keeps():
    scores = np.array([0.9, 0.5, 0.95, 0.3], np.float32)
    assert prefix_filter.threshold(scores, 2, 0.2, 0.6) == pytest.approx(0.9)
    assert prefix_filter.threshold(scores, 10, 0.2, 0.6) == pytest.approx(0.57 - 1e-6)
    assert prefix_filter.threshold(np.zeros(0, np.float32), 10, 0.2, 0.6) == 0.2 - 1e-6
