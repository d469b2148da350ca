"""The hashing embedder's buckets and the snapshot's 64-bit keys are BLAKE2b of the text, the
same in every process and every version: stored vectors and snapshot files depend on them."""

from __future__ import annotations

import hashlib

import numpy as np

from analogist.models.embedding import HashingEmbedder, normalise_rows
from analogist.models.hashing_codes import bucket, token_codes
from analogist.retrieve.frozen import key64

GOLDEN = "e54b4330c23a2813"  # computed before this file, at b69928e
TOKENS = ["retry", "storm_w2955", "ünïcode", "42", "", "a" * 300]


def reference_bucket(token: str, dim: int) -> int:
    v = int.from_bytes(hashlib.blake2b(token.encode(), digest_size=8).digest(), "little")
    return v % dim + 1 if v >> 63 else -(v % dim + 1)


def test_buckets_and_keys_are_blake2b_of_the_text():
    for t in TOKENS:
        assert bucket(t, 384) == reference_bucket(t, 384)
        assert bucket(t, 7) == reference_bucket(t, 7)
        want = int.from_bytes(hashlib.blake2b(t.encode(), digest_size=8).digest(), "little")
        assert key64(t) == want


def test_words_and_word_pairs_get_their_own_buckets_whether_remembered_or_not():
    known: dict[str, int] = {}
    texts = ["Retry storm, retry storm!", "one", ""]
    first = token_codes(texts, 384, True, known)
    assert token_codes(texts, 384, True, known) == first  # words now from `known`
    words = ["retry", "storm", "retry", "storm"]
    pairs = ["retry_storm", "storm_retry", "retry_storm"]
    assert first[0][:7] == [reference_bucket(t, 384) for t in words + pairs]
    assert first[1] == [7, 1, 0]
    assert set(known) == {"retry", "storm", "one"}


def test_the_embedding_of_known_texts_is_unchanged():
    # A changed digest means every stored hashing vector changed: give the embedder a new name.
    texts = ["Retry storm: w2955 w511 amplify load", "positive feedback on failure", "", "x_y 42"]
    m = HashingEmbedder().embed(texts)
    assert hashlib.sha256(m.tobytes()).hexdigest()[:16] == GOLDEN
    assert not m[2].any() and np.allclose(np.linalg.norm(m[[0, 1, 3]], axis=1), 1.0)


def test_normalise_rows_in_place_or_not_gives_the_plain_quotient():
    rng = np.random.default_rng(3)
    m = rng.standard_normal((50, 17)).astype(np.float32)
    m[[4, 9]] = 0.0  # all-zero rows stay zero
    plain = np.zeros_like(m)
    nz = np.linalg.norm(m, axis=1) > 0
    plain[nz] = (m[nz] / np.linalg.norm(m[nz], axis=1, keepdims=True)).astype(np.float32)
    copy = normalise_rows(m)
    assert copy is not m and copy.dtype == np.float32 and copy.tobytes() == plain.tobytes()
    again = m.copy()
    assert normalise_rows(again, in_place=True) is again and again.tobytes() == plain.tobytes()
    ints = normalise_rows(np.array([[3, 4], [0, 0]]))  # integers are scaled as floats
    assert ints.dtype == np.float32 and ints.tolist() == [
        [0.6000000238418579, 0.800000011920929],
        [0, 0],
    ]


def test_a_batch_embeds_as_its_counts_one_text_at_a_time():
    # The batch adds every token's signed bucket into one matrix; the plain definition counts
    # each text's tokens on its own, in float64, then normalises.
    rng = np.random.default_rng(5)
    words = [f"w{i}" for i in range(40)] + ["retry", "storm", "ünïcode"]
    texts = [" ".join(rng.choice(words, rng.integers(0, 30))) for _ in range(300)]
    emb = HashingEmbedder(dim=64)
    got = emb.embed(texts)
    for k, text in enumerate(texts):
        codes, _ = token_codes([text], 64, True, {})
        want = np.zeros(64)
        for c in codes:
            want[abs(c) - 1] += 1 if c > 0 else -1
        norm = np.linalg.norm(want)
        want = want / norm if norm else want
        assert np.allclose(got[k], want, atol=1e-6), text
