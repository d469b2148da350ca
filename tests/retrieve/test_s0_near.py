"""S0 near matching's top-k search returns exactly what scoring every document returns.

Checked against brute force (weighted Jaccard of every document, best ``k`` at or above the
threshold, ties to the earlier document) on generated memories with several seeds: in memory,
from a persisted snapshot with dense columns, with documents added after the snapshot, with
exclusions, repeated documents (ties), labels the memory lacks and an empty query.
"""

from __future__ import annotations

import random
from collections import Counter
from itertools import islice

import numpy as np
import pytest

from analogist.retrieve import frozen
from analogist.retrieve.persist import load_fingerprints, save_fingerprints
from analogist.retrieve.postings import Postings
from analogist.retrieve.wl import FingerprintChannel, FingerprintIndex
from analogist.retrieve.wl_near import near_top
from analogist.signature.fingerprint import ROLE_FEATURE, near_features


def generated(n: int, seed: int) -> list[Counter]:
    """Documents over a skewed vocabulary: a few labels in most documents (some counted
    twice or more), a middle band, many rare ones, and some documents repeated (ties)."""
    rng = random.Random(seed)
    common = [f"c{i}" for i in range(6)]
    middle = [f"m{i}" for i in range(25)]
    rare = [f"r{i}" for i in range(300)]
    docs: list[Counter] = []
    for _ in range(n):
        if docs and rng.random() < 0.1:
            docs.append(Counter(rng.choice(docs)))
            continue
        d = Counter({f: rng.choice([1, 1, 1, 2, 3]) for f in rng.sample(common, rng.randint(2, 5))})
        d.update({f: 1 for f in rng.sample(middle, rng.randint(1, 6))})
        d.update({f: rng.randint(1, 2) for f in rng.sample(rare, rng.randint(0, 8))})
        docs.append(d)
    return docs


def brute(docs, q, threshold, k, banned=()):
    """The reference: every document scored, best k, ties to the lower document number."""
    qsum = float(sum(q.values()))
    scored = []
    for i, d in enumerate(docs):
        num = float(sum(min(w, d.get(f, 0)) for f, w in q.items()))
        jac = num / max(qsum + float(sum(d.values())) - num, 1e-9)
        if jac >= threshold - 1e-9 and i not in banned:
            scored.append((-jac, i))
    scored.sort()
    return [i for _, i in scored[:k]], [-s for s, _ in scored[:k]]


def queries(docs, seed):
    rng = random.Random(seed + 100)
    picked = [Counter(docs[rng.randrange(len(docs))]) for _ in range(6)]
    for q in picked[:3]:  # changed a little: a label dropped, one the memory lacks added
        q.pop(next(iter(q)))
        q["absent_label"] = 2
    return picked + [Counter({"c0": 1, "c1": 2}), Counter({"absent": 1, "r3": 1})]


def check(postings, docs, seed, thresholds=(0.15, 0.4, 0.8), ks=(1, 10, 50)):
    rng = random.Random(seed)
    for q in queries(docs, seed):
        for t in thresholds:
            for k in ks:
                banned = sorted(rng.sample(range(len(docs)), 5))
                want_d, want_j = brute(docs, q, t, k, set(banned))
                got_d, got_j = near_top(postings, q, t, k, np.array(banned))
                assert got_d.tolist() == want_d, (q, t, k)
                assert np.allclose(got_j, want_j)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_in_memory_index_matches_brute_force(seed):
    docs = generated(600, seed)
    idx = FingerprintIndex("v")
    idx.postings.min_dense_docs = 100  # the in-memory dense columns exist too
    for i, d in enumerate(docs):
        idx.add(f"e{i}", f"h{i}", d)
    check(idx.postings, docs, seed)


@pytest.mark.parametrize("seed", [3, 4])
def test_snapshot_with_dense_columns_and_a_tail_matches_brute_force(seed, tmp_path, monkeypatch):
    monkeypatch.setattr(frozen, "HOT_MIN_DOCS", 50)  # the common labels get dense columns
    docs = generated(800, seed)
    idx = FingerprintIndex("v")
    for i, d in enumerate(docs[:600]):
        idx.add(f"e{i}", f"h{i}", d)
    save_fingerprints(tmp_path, idx)
    opened = load_fingerprints(tmp_path, "v")
    assert len(opened.postings.base.hot_slots) > 0
    check(opened.postings, docs[:600], seed)
    for i, d in enumerate(docs[600:], start=600):  # added after the snapshot: the tail
        opened.add(f"e{i}", f"h{i}", d)
    check(opened.postings, docs, seed)


@pytest.mark.parametrize("seed", [5, 6])
def test_snapshot_with_a_delta_layer_and_a_tail_matches_brute_force(seed, tmp_path, monkeypatch):
    monkeypatch.setattr(frozen, "HOT_MIN_DOCS", 30)  # dense columns in the base and the delta
    docs = generated(800, seed)
    idx = FingerprintIndex("v")
    for i, d in enumerate(docs[:600]):
        idx.add(f"e{i}", f"h{i}", d)
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir(), second.mkdir()
    save_fingerprints(first, idx)
    opened = load_fingerprints(first, "v")
    for i, d in enumerate(docs[600:670], start=600):
        opened.add(f"e{i}", f"h{i}", d)
    assert save_fingerprints(second, opened, base_from=first)["postings_base_kept"]
    layered = load_fingerprints(second, "v")
    assert layered.postings.delta.n_docs == 70 and len(layered.postings.delta.hot_slots) > 0
    check(layered.postings, docs[:670], seed)
    for i, d in enumerate(docs[670:], start=670):
        layered.add(f"e{i}", f"h{i}", d)
    check(layered.postings, docs, seed)


def test_fractional_weights_and_heavy_queries_use_a_float_sum(tmp_path, monkeypatch):
    monkeypatch.setattr(frozen, "HOT_MIN_DOCS", 50)
    rng = random.Random(9)
    docs = [
        Counter({f"c{i}": rng.choice([1, 2, 4]) for i in range(4)} | {f"r{rng.randrange(40)}": 1})
        for _ in range(300)
    ]
    idx = FingerprintIndex("v")
    for i, d in enumerate(docs):
        idx.add(f"e{i}", f"h{i}", d)
    save_fingerprints(tmp_path, idx)
    p = load_fingerprints(tmp_path, "v").postings
    for q in (Counter({"c0": 1.5, "c1": 3, "r1": 1}), Counter({"c0": 200, "c2": 100, "r2": 2})):
        for t in (0.1, 0.3):
            assert near_top(p, q, t, 10)[0].tolist() == brute(docs, q, t, 10)[0]


def test_edge_cases():
    docs = generated(200, 5)
    idx = FingerprintIndex("v")
    for i, d in enumerate(docs):
        idx.add(f"e{i}", f"h{i}", d)
    p = idx.postings
    assert near_top(p, {}, 0.15, 10)[0].tolist() == []
    assert near_top(p, {"nowhere": 3}, 0.15, 10)[0].tolist() == []
    assert near_top(p, docs[0], 0.15, 0)[0].tolist() == []
    everyone = list(range(len(docs)))
    assert near_top(p, docs[0], 0.15, 10, np.array(everyone))[0].tolist() == []
    with pytest.raises(ValueError, match="positive threshold"):
        near_top(p, docs[0], 0.0, 10)
    assert FingerprintIndex("v").near_top(docs[0], 0.15, 10, [])[0].tolist() == []


@pytest.mark.parametrize("threshold", [0.0, 0.15, 0.5])
def test_channel_returns_the_same_hits_with_either_path(threshold):
    docs = generated(500, 7)
    idx = FingerprintIndex("v")
    for i, d in enumerate(docs):
        idx.add(f"e{i}", f"h{i % 50}", d)
    scan = FingerprintChannel(near_threshold=threshold, near_scan=True)
    top = FingerprintChannel(near_threshold=threshold)
    for qi in (0, 17, 260, 499):
        exact = list(islice(idx.exact(f"h{qi % 50}"), 4))
        for k in (3, 10):
            a = scan._near(idx, docs[qi], k, set(exact))
            b = top._near(idx, docs[qi], k, set(exact))
            assert a == b and (len(a) == k or threshold > 0)


def test_the_index_posts_the_near_features_of_what_it_is_given():
    """``0:role`` (in every fingerprint) is left out as it is added: the postings are those of
    ``near_features``, and a query with or without it scores the same."""
    docs = generated(300, 9)
    full = [Counter({**d, ROLE_FEATURE: 1 + i % 4}) for i, d in enumerate(docs)]
    given, near = FingerprintIndex("v"), Postings()
    for i, d in enumerate(full):
        given.add(f"e{i}", f"h{i}", d)
        near.add(near_features(d))
    assert given.postings.df(ROLE_FEATURE) == 0
    assert np.array_equal(given.postings.sums, near.sums)
    assert np.array_equal(given.postings.norms, near.norms)
    for q in (full[0], full[123], docs[5]):
        for how in ("dot", "min"):
            assert np.array_equal(given.postings.accumulate(q, how), near.accumulate(q, how))
        got, want = given.near_top(q, 0.2, 10, []), near_top(near, near_features(q), 0.2, 10)
        assert [x.tolist() for x in got] == [x.tolist() for x in want] and len(got[0])
