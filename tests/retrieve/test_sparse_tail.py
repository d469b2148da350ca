"""A vector index keeps the sparse rows added since its base as their non-zero values
(retrieve/sparse_tail.py) and answers exactly as with the dense tail blocks it kept before."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from analogist.retrieve import dense as dense_mod
from analogist.retrieve.dense import VectorIndex
from analogist.retrieve.frozen import IdTable
from analogist.retrieve.sparse_rows import SparseRows, write
from analogist.retrieve.sparse_tail import SparseTail
from analogist.retrieve.vector_lists import VectorLists

DIM = 48


def rows(seed: int, n: int) -> np.ndarray:
    """Unit rows with 0-5 non-zero values each (some rows empty), a run of them tied."""
    rng = np.random.default_rng(seed)
    out = np.zeros((n, DIM), np.float32)
    for i in range(n):
        k = int(rng.integers(0, 6))
        out[i, rng.choice(DIM, k, replace=False)] = rng.standard_normal(k)
    if n > 20:
        out[n // 2 : n // 2 + 12] = out[3]
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return np.divide(out, norms, out=out, where=norms > 0)


def base_of(kind: str, folder: Path) -> dict:
    if kind == "none":
        return {}
    dense = rows(1, 200)
    table = IdTable()
    for i in range(200):
        table.append(f"b{i}")
    if kind == "dense":
        return {"base": dense, "ids": table}
    write(folder, "p_", DIM, np.array_split(dense, 2))
    sr = SparseRows.open(folder, "p_", 200, DIM)
    return {"base": sr, "ids": table.merged(), "ann": VectorLists.build(dense)}


def filled(kind: str, folder: Path, monkeypatch: pytest.MonkeyPatch, sparse: bool) -> VectorIndex:
    with monkeypatch.context() as m:
        if not sparse:  # the reference: the dense tail blocks every tail had before
            m.setattr(dense_mod, "sparse_enough", lambda r: False)
        idx = VectorIndex(DIM, block=64, **base_of(kind, folder))
        for b in range(5):  # several batches, more rows than a block
            idx.add([f"t{b}_{i}" for i in range(40)], rows(10 + b, 40))
        idx.add(["t1_7", "t3_0"], rows(20, 2))  # tail rows replaced
        if kind != "none":
            idx.add(["b5"], rows(21, 1))  # a base row replaced
    assert (idx._sparse is not None) == sparse
    return idx


@pytest.mark.parametrize("kind", ["none", "dense", "sparse"])
def test_a_sparse_tail_answers_as_the_dense_tail(kind, tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    want = filled(kind, tmp_path / "a", monkeypatch, sparse=False)
    got = filled(kind, tmp_path / "b", monkeypatch, sparse=True)
    n = len(want)
    assert len(got) == n and np.array_equal(got.matrix, want.matrix)
    assert np.array_equal(got.rows_at(np.arange(n)), want.rows_at(np.arange(n)))
    tails = [np.concatenate([np.asarray(b) for b in i.tail_blocks()]) for i in (got, want)]
    assert np.array_equal(tails[0], tails[1])
    queries = [rows(30, 1)[0], want.matrix[-3], want.matrix[n - 100], rows(31, 4).sum(axis=0)]
    bans = [
        frozenset(),
        frozenset({"t0_3", "t2_20", "b7"}),
        frozenset(want.ids[i] for i in range(n)),
    ]
    for q in queries:
        assert np.array_equal(got.scores(q), want.scores(q))
        best = frozenset(i for i, _ in want.search(q, 15))  # banned, they must not set the bar
        for exact in (False, True):
            got.exact = want.exact = exact
            for k in (1, 10, 45, n + 5):
                for ban in (*bans, best):
                    assert got.search(q, k, exclude=ban) == want.search(q, k, exclude=ban)


def test_a_tail_is_sparse_only_when_its_first_rows_are():
    dense_rows = np.random.default_rng(0).standard_normal((10, DIM)).astype(np.float32)
    idx = VectorIndex(DIM)
    idx.add([f"d{i}" for i in range(10)], dense_rows)
    idx.add([f"s{i}" for i in range(10)], rows(2, 10))  # still dense blocks: one form per tail
    assert idx._sparse is None and len(idx) == 20
    sparse = VectorIndex(DIM)
    sparse.add([f"s{i}" for i in range(10)], rows(2, 10))
    sparse.add([f"d{i}" for i in range(10)], dense_rows)  # dense rows join a sparse tail whole
    assert sparse._sparse is not None and not sparse._blocks
    assert np.array_equal(sparse.matrix, np.concatenate([rows(2, 10), dense_rows]))


def test_the_tail_grows_by_doubling_and_keeps_every_row():
    tail, want = SparseTail(DIM), []
    for b in range(30):  # one row at a time, as an agent adds
        r = rows(b, 1 + b % 3)
        tail.append(r)
        want.append(r)
    dense = np.concatenate(want)
    view = tail.view()
    assert len(tail) == len(dense) and np.array_equal(np.asarray(view), dense)
    assert view.nnz == np.count_nonzero(dense)
    view[4] = dense[9]  # a row set through a view is the tail's
    assert np.array_equal(tail.view().rows(np.array([4]))[0], dense[9])
