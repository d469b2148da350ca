"""A snapshot's sparse vector rows (retrieve/sparse_rows.py): written, extended and opened,
they read back as exactly the dense rows, and every product of them is the dense product."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from analogist.errors import StoreError
from analogist.retrieve import sparse_rows
from analogist.retrieve.dense import VectorIndex
from analogist.retrieve.sparse_rows import SparseRows, col_dtype, write
from analogist.retrieve.vector_lists import VectorLists

DIM = 48


def rows(seed: int, n: int, dim: int = DIM) -> np.ndarray:
    """Unit rows with 0-6 non-zero values each (some rows empty)."""
    rng = np.random.default_rng(seed)
    out = np.zeros((n, dim), np.float32)
    for i in range(n):
        k = int(rng.integers(0, 7))
        out[i, rng.choice(dim, k, replace=False)] = rng.standard_normal(k)
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return np.divide(out, norms, out=out, where=norms > 0)


def saved(folder: Path, dense: np.ndarray, blocks: int = 3) -> SparseRows:
    write(folder, "p_", dense.shape[1], np.array_split(dense, blocks))
    return SparseRows.open(folder, "p_", len(dense), dense.shape[1])


def test_rows_read_back_as_the_dense_rows_every_way(tmp_path):
    dense = rows(1, 300)
    sr = saved(tmp_path, dense)
    assert sr.shape == (300, DIM) and sr.nnz == np.count_nonzero(dense)
    assert np.array_equal(np.asarray(sr), dense)
    at = np.array([299, 0, 17, 17, 150])
    assert np.array_equal(sr[at], dense[at])  # read with pread
    assert np.array_equal(sr.rows(at), dense[at])
    assert np.array_equal(sr[10:40], dense[10:40]) and np.array_equal(sr[5], dense[5])
    assert np.array_equal(sr[::7], dense[::7])
    mapped = SparseRows(sr.n, sr.dim, sr.indptr, sr.cols, sr.vals)  # no files: from the maps
    assert np.array_equal(mapped[at], dense[at])
    with pytest.raises(IndexError):
        sr.rows(np.array([300]))


def test_products_of_rebuilt_rows_are_the_dense_products_bit_for_bit(tmp_path, monkeypatch):
    monkeypatch.setattr(sparse_rows, "BLOCK", 37)  # many blocks
    dense = rows(2, 500)
    sr = saved(tmp_path, dense)
    q = dense[3] + dense[40]
    assert np.array_equal(np.asarray(sr) @ q, dense @ q)
    at = np.array([3, 40, 499, 0])
    assert np.array_equal(sr[at] @ q, (dense @ q)[at])


def test_a_replaced_row_is_read_from_memory_everywhere(tmp_path):
    dense = rows(3, 120)
    sr = saved(tmp_path, dense)
    new = np.zeros(DIM, np.float32)
    new[7] = 1.0
    sr[33] = new
    dense[33] = new
    at = np.array([33, 2])
    assert np.array_equal(sr[at], dense[at]) and np.array_equal(sr[30:40], dense[30:40])
    assert np.array_equal(np.asarray(sr) @ new, dense @ new)
    with pytest.raises(IndexError):
        sr[120] = new


def test_an_extended_save_links_appends_and_equals_a_full_write(tmp_path):
    dense = rows(4, 400)
    live, nxt, whole = tmp_path / "live", tmp_path / "next", tmp_path / "whole"
    for d in (live, nxt, whole):
        d.mkdir()
    base = saved(live, dense[:250])
    for part in ("indptr", "cols", "vals"):  # what a save killed while appending leaves
        with open(live / f"p_sparse_{part}.bin", "ab") as f:
            f.write(b"\x07" * 24)
    assert write(nxt, "p_", DIM, [dense[250:330], dense[330:]], (live, base))
    saved(whole, dense, blocks=5)
    for part in ("indptr", "cols", "vals"):
        got = (nxt / f"p_sparse_{part}.bin").read_bytes()
        assert got == (whole / f"p_sparse_{part}.bin").read_bytes()
        assert (nxt / f"p_sparse_{part}.bin").stat().st_nlink == 2  # shared with the live one
    assert np.array_equal(np.asarray(base), dense[:250])  # the older reader sees its own rows
    grown = SparseRows.open(nxt, "p_", 400, DIM)
    assert np.array_equal(np.asarray(grown), dense)


def test_short_or_damaged_files_are_one_clear_error(tmp_path):
    dense = rows(5, 80)
    saved(tmp_path, dense)
    with pytest.raises(StoreError, match="shorter than its manifest says"):
        SparseRows.open(tmp_path, "p_", 500, DIM)
    cols = tmp_path / "p_sparse_cols.bin"
    raw = bytearray(cols.read_bytes())
    raw[0:2] = np.array([DIM + 3], np.uint16).tobytes()
    cols.write_bytes(bytes(raw))
    sr = SparseRows.open(tmp_path, "p_", 80, DIM)
    first = int(np.flatnonzero(np.diff(np.asarray(sr.indptr)))[0])  # the first non-empty row
    with pytest.raises(StoreError, match="past the vector's dimension"):
        sr[np.array([first])]
    with pytest.raises(StoreError, match="past the vector's dimension"):
        np.asarray(sr)


def test_wide_rows_take_int32_columns(tmp_path):
    assert col_dtype(384) == np.uint16 and col_dtype(70000) == np.int32
    dense = np.zeros((3, 70000), np.float32)
    dense[1, 69999] = 1.0
    dense[2, 3] = 0.5
    sr = saved(tmp_path, dense, blocks=2)
    assert sr.cols.dtype == np.int32 and np.array_equal(np.asarray(sr), dense)


def test_a_vector_index_over_sparse_rows_searches_as_over_dense_rows(tmp_path):
    from analogist.retrieve.frozen import IdTable

    dense = rows(6, 600)
    ids = [f"e{i}" for i in range(600)]
    sr = saved(tmp_path, dense)
    table = IdTable()
    for e in ids:
        table.append(e)
    over_dense = VectorIndex(DIM, base=dense, ids=table)
    over_sparse = VectorIndex(DIM, base=sr, ids=table.merged(), ann=VectorLists.build(dense))
    extra = rows(7, 30)
    for idx in (over_dense, over_sparse):
        idx.add([f"x{i}" for i in range(30)], extra)
        idx.add(["e5"], extra[:1])  # a base row replaced
    for q in (dense[9], extra[4], dense[100] + dense[200]):
        want = over_dense.search(q, 12, exclude=frozenset({"e9"}))
        assert over_sparse.search(q, 12, exclude=frozenset({"e9"})) == want
        over_sparse.exact = True
        assert over_sparse.search(q, 12, exclude=frozenset({"e9"})) == want
        over_sparse.exact = False
    every = np.arange(630)
    assert np.array_equal(over_sparse.rows_at(every), over_dense.rows_at(every))


def test_bounded_scores_hold_the_dense_products_within_their_bounds(tmp_path, monkeypatch):
    monkeypatch.setattr(sparse_rows, "SCAN", 29)  # many steps, some rows empty
    dense = rows(8, 400)
    sr = saved(tmp_path, dense)
    sr[11] = dense[12]  # replaced rows are scored from memory
    dense[11] = dense[12]
    for q in (dense[3], 3.0 * dense[7] - dense[9]):
        score, bound = sr.bounded_scores(q)
        exact = dense.astype(np.float64) @ q.astype(np.float64)
        assert np.all(np.abs(score - exact) <= bound)
        assert np.all(np.abs(score - (dense @ q)) <= bound)
        assert np.all(bound[np.count_nonzero(dense, axis=1) == 0] == 0)


def test_an_exact_search_over_sparse_rows_keeps_ties_and_exclusions_as_the_dense_scan(tmp_path):
    from analogist.retrieve.frozen import IdTable

    dense = rows(9, 300)
    dense[100:140] = dense[7]  # forty rows tied with row 7
    sr = saved(tmp_path, dense)
    ids = IdTable()
    for i in range(300):
        ids.append(f"e{i}")
    assert ids.positions(frozenset({"e7"})) == [7]
    want_idx = VectorIndex(DIM, base=dense, ids=ids)
    got_idx = VectorIndex(DIM, base=sr, ids=ids)
    got_idx.exact = True
    ban = frozenset({"e7", "e101", "e150"})
    for k in (1, 10, 45, 299, 400):
        assert got_idx.search(dense[7], k, exclude=ban) == want_idx.search(dense[7], k, ban)
    none = frozenset(f"e{i}" for i in range(300))
    assert got_idx.search(dense[7], 5, exclude=none) == []
