"""Stored vector rows: dense float32 or sparse records, both read back to the same values."""

from __future__ import annotations

import numpy as np
import pytest

from analogist.errors import StoreError
from analogist.memory import Memory
from analogist.models.embedding import HashingEmbedder
from analogist.store import vector_blob as vb


def _sparse_row(dim: int, nnz: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = np.zeros(dim, np.float32)
    v[rng.choice(dim, nnz, replace=False)] = rng.standard_normal(nnz).astype(np.float32)
    return v


def test_dense_rows_are_their_float32_bytes() -> None:
    v = np.random.default_rng(0).standard_normal(384).astype(np.float32)
    assert vb.encode(v) == v.tobytes()
    assert np.array_equal(vb.decode(v.tobytes(), 384), v)


def test_sparse_rows_are_six_bytes_per_non_zero_value_and_read_back_exactly() -> None:
    v = _sparse_row(384, 25, 1)
    blob = vb.encode(v)
    assert len(blob) == 25 * 6
    assert np.array_equal(vb.decode(blob, 384), v)


def test_the_threshold_is_one_value_in_eight() -> None:
    assert len(vb.encode(_sparse_row(64, 8, 2))) == 8 * 6
    assert len(vb.encode(_sparse_row(64, 9, 2))) == 64 * 4


def test_a_batch_of_mixed_rows_and_widths_reads_back() -> None:
    rows = [
        _sparse_row(384, 3, 3),
        np.ones(384, np.float32),
        np.zeros(384, np.float32),
        _sparse_row(384, 48, 4),
        _sparse_row(16, 2, 5),
    ]
    blobs = vb.encode_rows(rows)
    assert [len(b) for b in blobs] == [18, 1536, 0, 288, 12]
    assert np.array_equal(vb.decode_rows(blobs[:4], 384), np.stack(rows[:4]))
    assert np.array_equal(vb.decode_rows(blobs[4:], 16), rows[4][None, :])
    assert vb.encode_rows([]) == []


def test_hashing_embeddings_are_stored_sparse_and_searched_as_before(tmp_path) -> None:
    emb = HashingEmbedder()
    texts = ["a cache served stale prices", "two writers raced on one row", "x"]
    with Memory(tmp_path / "m.db", embedder=emb) as m:
        m.add([{"id": f"e{i}", "kind": "observation", "text": t} for i, t in enumerate(texts)])
        ids, mat = m.store.vectors("L0", emb.name)
        assert ids == ["e0", "e1", "e2"]
        assert np.array_equal(mat, emb.embed(texts))
        sizes = [r[0] for r in m.store.conn.execute("SELECT length(vector) FROM sig_vectors")]
        assert sizes and max(sizes) < 384 * 4 // 8


def test_rows_stored_dense_before_still_read(tmp_path) -> None:
    emb = HashingEmbedder()
    with Memory(tmp_path / "m.db", embedder=emb) as m:
        m.add([{"id": "e0", "kind": "observation", "text": "a queue overflowed"}])
        want = emb.embed(["a queue overflowed"])
        m.store.conn.execute("UPDATE sig_vectors SET vector = ?", (want[0].tobytes(),))
        assert np.array_equal(m.store.vectors("L0", emb.name)[1], want)


@pytest.mark.parametrize(
    ("blob", "match"),
    [
        (b"\x00" * 7, "7 bytes"),
        (b"\x00" * 6 * 9, "54 bytes"),  # 9 non-zero values of 64: not sparse, not dense
        (np.array([(64, 1.0)], dtype=vb.RECORD).tobytes(), "not below 64"),
    ],
)
def test_a_damaged_row_is_a_store_error(blob: bytes, match: str) -> None:
    with pytest.raises(StoreError, match=match):
        vb.decode_rows([blob, np.ones(64, np.float32).tobytes()], 64)


def test_check_size_names_both_forms() -> None:
    assert vb.check_size(4 * 384, 384) is None and vb.check_size(6 * 48, 384) is None
    problem = vb.check_size(10, 384)
    assert problem is not None and "dense" in problem and "sparse" in problem
