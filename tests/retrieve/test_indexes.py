"""The numpy indexes agree with brute force (postings, near-S0 with skipped labels, dense)."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

from analogist.retrieve.dense import VectorIndex, kth_largest, top_indices
from analogist.retrieve.postings import Postings
from analogist.retrieve.provenance import DerivativeIndex
from analogist.retrieve.wl import FingerprintIndex
from analogist.signature.fingerprint import weighted_jaccard


def random_docs(n, seed=0):
    rng = random.Random(seed)
    common = [f"c{i}" for i in range(3)]
    rare = [f"r{i}" for i in range(60)]
    docs = []
    for _ in range(n):
        d = Counter({f: rng.randint(1, 3) for f in rng.sample(common, 2)})
        d.update({f: rng.randint(1, 2) for f in rng.sample(rare, rng.randint(1, 5))})
        docs.append(d)
    return docs


@pytest.mark.parametrize("dense", [False, True])
def test_postings_dot_and_min_match_brute_force(dense):
    docs = random_docs(300)
    p = Postings(dense_fraction=0.3, min_dense_docs=100 if dense else 10**9)
    for d in docs[:250]:
        p.add(d)
    p.accumulate({"c0": 1})  # builds the dense columns (c0-c2) over the first 250 documents
    for d in docs[250:]:  # these come from the posting tail
        p.add(d)
    assert bool(p._dense) == dense
    for qi in (7, 260):
        q = docs[qi]
        dots = p.accumulate(q, "dot")
        assert dots.tolist() == [sum(q[f] * d.get(f, 0) for f in q) for d in docs]
        mins = p.accumulate(q, "min")
        assert mins.tolist() == [sum(min(q[f], d.get(f, 0)) for f in q) for d in docs]
    assert p.weights_of("c0", np.array([0, 1, 2, 299])).tolist() == [
        float(docs[i].get("c0", 0)) for i in (0, 1, 2, 299)
    ]


def test_single_document_features_are_packed_then_promoted():
    p = Postings()
    p.add({"only": 3, "frac": 0.5, "shared": 1})
    p.add({"shared": 2, "big": 300})
    assert p.df("only") == 1 and "only" not in p.columns and p.df("shared") == 2
    assert p.accumulate({"only": 2, "frac": 1, "big": 1}, "min").tolist() == [2.5, 1.0]
    assert p.accumulate({"only": 2, "frac": 4}, "dot").tolist() == [8.0, 0.0]
    assert p.weights_of("frac", np.array([0, 1])).tolist() == [0.5, 0.0]
    p.add({"only": 1})
    assert p.df("only") == 2 and "only" in p.columns
    assert p.accumulate({"only": 1}, "dot").tolist() == [3.0, 0.0, 1.0]


def test_fractional_weights_get_a_float_dense_column():
    p = Postings(dense_fraction=0.5, min_dense_docs=1)
    p.add({"x": 0.5})
    p.add({"x": 300.0})
    dots = p.accumulate({"x": 2.0})
    assert dots.tolist() == [1.0, 600.0] and p._dense[0].dtype == np.float32


@pytest.mark.parametrize("threshold", [0.1, 0.3, 0.6])
def test_near_search_with_skipped_labels_is_exact(threshold):
    docs = random_docs(400, seed=1)
    idx = FingerprintIndex("v")
    idx.postings.min_dense_docs = 50  # exercise dense columns too
    for i, d in enumerate(docs):
        idx.add(f"e{i}", f"h{i}", d)
    for qi in (3, 50, 222):
        got_d, got_j = idx.near(docs[qi], threshold, max_df=40)  # the c* labels get skipped
        full_d, _ = idx.near(docs[qi], threshold, max_df=None)
        brute = {i: weighted_jaccard(docs[qi], d) for i, d in enumerate(docs)}
        expect = {i for i, j in brute.items() if j >= threshold}
        assert set(got_d.tolist()) == set(full_d.tolist()) == expect
        assert np.allclose(sorted(got_j), sorted(brute[i] for i in expect))


def test_vector_index_grows_replaces_and_excludes():
    rng = np.random.default_rng(0)
    idx = VectorIndex(8, block=4)
    vecs = rng.normal(size=(50, 8)).astype(np.float32)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
    idx.add([f"e{i}" for i in range(50)], vecs)
    assert len(idx) == 50 and idx.search(vecs[10], 1)[0][0] == "e10"
    assert idx.search(vecs[10], 1, frozenset({"e10"}))[0][0] != "e10"
    idx.add(["e10"], vecs[11:12])
    assert len(idx) == 50 and idx.search(vecs[11], 2)[1][1] == pytest.approx(1.0)


def test_top_indices_breaks_ties_by_position():
    assert top_indices(np.array([0.5, 0.9, 0.5, 0.9]), 3).tolist() == [1, 3, 0]
    assert top_indices(np.array([]), 3).tolist() == []


def reference_top(scores: np.ndarray, k: int) -> list[int]:
    """The k best indices by a full stable sort: score descending, then index ascending."""
    return sorted(range(len(scores)), key=lambda i: (-scores[i], i))[:k]


@pytest.mark.parametrize("zeros", [0.0, 0.5, 0.97, 1.0])
def test_kth_largest_and_top_indices_agree_with_a_full_sort(zeros):
    """The k-th largest taken above zero, at zero or below it is np.partition's, on arrays
    that are mostly zeros (a sparse search's scores), with negatives, -inf and ties."""
    rng = np.random.default_rng(int(zeros * 100))
    for n in (1, 7, 300, 2000):
        vals = rng.integers(-6, 7, n).astype(np.float32) / 3
        vals[rng.random(n) < zeros] = 0
        vals[rng.random(n) < 0.05] = -np.inf
        if n > 1:
            vals[0] = -0.0
        for k in sorted(k for k in {1, 2, 10, n // 2, n - 1, n} if 0 < k <= n):
            want = np.partition(vals, n - k)[n - k]
            got = kth_largest(vals, k)
            assert got == want and got.dtype == vals.dtype, (n, k)
            assert top_indices(vals, k).tolist() == reference_top(vals, k)


def test_kth_largest_leaves_nans_to_numpy():
    vals = np.array([np.nan, 1.0, -1.0, np.nan], np.float32)
    for k in (1, 2, 3, 4):
        got, want = kth_largest(vals, k), np.partition(vals, 4 - k)[4 - k]
        assert got == want or (np.isnan(got) and np.isnan(want))


def test_derivatives_are_followed_transitively():
    d = DerivativeIndex(
        [("sum_1", "summary of ep_1"), ("sum_2", "derived_from:sum_1"), ("other", "ep_10")]
    )
    assert d.closure({"ep_1"}) == {"ep_1", "sum_1", "sum_2"}
