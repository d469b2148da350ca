"""Per-dimension lists (retrieve/vector_lists.py): exact search of sparse rows. A search through
them answers what an exact scan answers (ids, scores, tie order), with rows excluded, replaced
and appended after the snapshot; extending lists equals building them over all rows; broken
files and bad settings are refused in one line."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from analogist.errors import ConfigError
from analogist.retrieve import vector_lists
from analogist.retrieve.dense import VectorIndex, top_indices
from analogist.retrieve.frozen import IdTable
from analogist.retrieve.sparse_rows import SparseRows
from analogist.retrieve.vector_lists import (
    SPARSE_MAX_DENSITY,
    VectorLists,
    density,
    top_k,
    use_lists,
    vector_index_choice,
)


def saved(tmp_path, seed: int, n: int):
    """A hashing-embedder memory of ``n`` generated episodes with its snapshot written."""
    from analogist.memory import Memory
    from analogist.models.embedding import HashingEmbedder
    from tests.scale.episodes import lines

    m = Memory(tmp_path / "m.db", embedder=HashingEmbedder())
    m.add(lines(seed, 0, n))
    folder = m.indexes.save()
    assert folder is not None
    return m, folder


def sparse_rows(rng: np.random.Generator, n: int, dim: int = 64, nnz: int = 5) -> np.ndarray:
    """Unit rows with ``nnz`` signed counts each, like the hashing embedder's; every 7th row
    repeats an earlier one, so ties at the k-th place are common."""
    rows = np.zeros((n, dim), np.float32)
    for i in range(n):
        if i % 7 == 6:
            rows[i] = rows[rng.integers(0, i)]
            continue
        cols = rng.choice(dim, nnz, replace=False)
        rows[i, cols] = rng.choice([-2, -1, 1, 1, 2], nnz)
        rows[i] /= np.linalg.norm(rows[i])
    return rows


def pair(rows: np.ndarray) -> tuple[VectorIndex, VectorIndex]:
    """The same rows as an exact index and as a snapshot base searched through lists."""
    ids = [f"e{i}" for i in range(len(rows))]
    exact = VectorIndex(rows.shape[1])
    exact.add(ids, rows)
    listed = VectorIndex(
        rows.shape[1], base=rows.copy(), ids=IdTable.build(ids), ann=VectorLists.build(rows)
    )
    return exact, listed


def same_answer(got: list, want: list, exact: VectorIndex, q: np.ndarray) -> bool:
    """The same answer up to float rounding: position by position, the id found has (within
    1e-6) the cosine of the id an exact scan put there, and that is the score reported. Rows a
    scan and a re-score round differently (1 ulp) may swap places inside such a tie."""
    truth = exact.scores(q)
    return (
        len(got) == len(want) == len({e for e, _ in got})
        and all(abs(truth[exact.ids.get(e) or 0] - s) < 1e-6 for e, s in got)
        and all(abs(g[1] - w[1]) < 1e-6 for g, w in zip(got, want, strict=True))
    )


def test_a_search_through_lists_is_an_exact_search():
    rng = np.random.default_rng(0)
    rows = sparse_rows(rng, 3000)
    exact, listed = pair(rows)
    assert listed.mode == "lists"
    queries = list(sparse_rows(rng, 40)) + [rows[5], np.zeros(64, np.float32)]
    for q in queries:
        for k in (1, 10, 57):
            assert same_answer(listed.search(q, k), exact.search(q, k), exact, q)
        banned = frozenset(e for e, _ in exact.search(q, 4))
        got = listed.search(q, 10, exclude=banned)
        assert same_answer(got, exact.search(q, 10, exclude=banned), exact, q)
        assert not banned & {e for e, _ in got}


def test_replaced_and_appended_rows_are_searched_afresh():
    rng = np.random.default_rng(1)
    rows = sparse_rows(rng, 2000)
    exact, listed = pair(rows)
    fresh = sparse_rows(rng, 30)
    # rows 0-9 of the base get new vectors (the lists still hold the old ones); 20 new rows
    changed = [f"e{i}" for i in range(10)] + [f"new{i}" for i in range(20)]
    for index in (exact, listed):
        index.add(changed, fresh)
    for q in list(fresh) + list(rows[:10]) + list(sparse_rows(rng, 10)):
        assert same_answer(listed.search(q, 10), exact.search(q, 10), exact, q)


def test_scores_are_the_dot_products():
    rng = np.random.default_rng(2)
    rows = sparse_rows(rng, 500)
    lists = VectorLists.build(rows)
    q = sparse_rows(rng, 1)[0]
    assert np.allclose(lists.scores(q), rows @ q, atol=1e-6)
    assert lists.dim == 64 and len(lists) == 500


def test_extending_lists_equals_building_them_over_every_row():
    rng = np.random.default_rng(3)
    rows = sparse_rows(rng, 900)
    grown = VectorLists.build(rows[:600]).extended([rows[600:700], rows[700:]], 300)
    whole = VectorLists.build(rows)
    assert grown.n == whole.n == 900 and len(grown.segments) == 2
    one, all_rows = grown.merged(), whole.merged()
    for a, b in ((one.offsets, all_rows.offsets), (one.docs, all_rows.docs)):
        assert np.array_equal(a, b)
    assert np.array_equal(one.vals, all_rows.vals)
    assert grown.extended([], 0) is grown  # nothing added: no empty segment


@pytest.mark.parametrize("block_rows", [7, 1 << 20])
def test_segments_score_bit_for_bit_what_one_segment_scores(monkeypatch, block_rows):
    # Each extension appends a segment; past MAX_SEGMENTS the adjacent pair with the fewest
    # rows merges. Every row gets its dimensions' products in the same order either way.
    monkeypatch.setattr(vector_lists, "MAX_SEGMENTS", 3)
    monkeypatch.setattr(vector_lists, "BLOCK_ROWS", block_rows)
    rng = np.random.default_rng(8)
    rows = sparse_rows(rng, 1000)
    whole = VectorLists.build(rows)
    grown = VectorLists.build(rows[:400])
    cuts = [400, 430, 600, 610, 611, 800, 1000]
    for a, b in zip(cuts, cuts[1:], strict=False):
        grown = grown.extended([rows[a:b]], b - a)
        assert len(grown.segments) <= 3
        assert [s.first for s in grown.segments][0] == 0 and grown.segments[-1].end == b
    assert [(s.first, s.end) for s in grown.segments] == [(0, 400), (400, 611), (611, 1000)]
    for q in list(sparse_rows(rng, 20)) + list(rows[:5]):
        assert np.array_equal(grown.scores(q), whole.scores(q))  # bit for bit
        assert np.array_equal(grown.candidates(q, 10), whole.candidates(q, 10))


def test_a_save_links_the_segments_it_did_not_change_and_writes_only_the_new_one(tmp_path):
    rng = np.random.default_rng(9)
    rows = sparse_rows(rng, 700)
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir(), second.mkdir()
    VectorLists.build(rows[:500]).save(first, "p_")
    opened = VectorLists.open(first, "p_", 500)
    opened.extended([rows[500:]], 200).save(second, "p_")
    for name in ("offsets", "docs", "vals"):
        old, new = first / f"p_lists_{name}.npy", second / f"p_lists_{name}.npy"
        assert new.stat().st_ino == old.stat().st_ino  # the same file, not a copy
        assert (second / f"p_lists1_{name}.npy").exists()
    back = VectorLists.open(second, "p_", 700)
    assert [(s.first, s.end) for s in back.segments] == [(0, 500), (500, 700)]
    for q in sparse_rows(rng, 10):
        assert np.array_equal(back.scores(q), VectorLists.build(rows).scores(q))


def test_segments_that_do_not_fit_together_are_refused(tmp_path):
    rng = np.random.default_rng(10)
    rows = sparse_rows(rng, 300)
    VectorLists.build(rows[:200]).extended([rows[200:]], 100).save(tmp_path, "p_")
    assert len(VectorLists.open(tmp_path, "p_", 300).segments) == 2
    with pytest.raises(ValueError, match=r"lists do not fit together or cover other rows"):
        VectorLists.open(tmp_path, "p_", 250)  # the second segment names rows past 250
    np.save(tmp_path / "p_lists_segments.npy", np.array([0, 150], np.int64))
    with pytest.raises(ValueError, match=r"lists do not fit together or cover other rows"):
        VectorLists.open(tmp_path, "p_", 300)  # rows 150-199 would be in both segments
    np.save(tmp_path / "p_lists_segments.npy", np.array([0, 200, 100], np.int64))
    with pytest.raises(ValueError, match=r"lists do not fit together or cover other rows"):
        VectorLists.open(tmp_path, "p_", 300)  # out of order, and no third segment's files
    (tmp_path / "p_lists_segments.npy").write_bytes(b"not npy")
    with pytest.raises(ValueError, match=r"lists do not fit together or cover other rows"):
        VectorLists.open(tmp_path, "p_", 300)


def test_saved_lists_open_memory_mapped_and_broken_ones_are_refused(tmp_path):
    rng = np.random.default_rng(4)
    rows = sparse_rows(rng, 300)
    VectorLists.build(rows).save(tmp_path, "vec_L0_x_")
    assert VectorLists.exists(tmp_path, "vec_L0_x_")
    opened = VectorLists.open(tmp_path, "vec_L0_x_", 300)
    q = rows[3]
    assert np.array_equal(opened.candidates(q, 10), VectorLists.build(rows).candidates(q, 10))
    with pytest.raises(ValueError, match=r"lists do not fit together or cover other rows"):
        VectorLists.open(tmp_path, "vec_L0_x_", 200)  # the lists name rows past 200
    np.save(tmp_path / "vec_L0_x_lists_vals.npy", np.zeros(3, np.float32))
    with pytest.raises(ValueError, match=r"lists do not fit together"):
        VectorLists.open(tmp_path, "vec_L0_x_", 300)


@pytest.mark.parametrize("n", [50, 640, 5000, 20000])
def test_top_k_is_top_indices(n):
    rng = np.random.default_rng(n)
    scores = rng.integers(0, 40, n).astype(np.float32) / 7  # many ties
    for k in (1, 10, 100):
        assert np.array_equal(top_k(scores, k), top_indices(scores, min(k, n)))


def test_which_rows_get_lists(monkeypatch):
    rng = np.random.default_rng(5)
    sparse = sparse_rows(rng, 200)
    dense = rng.standard_normal((200, 64)).astype(np.float32)
    assert density(sparse) <= SPARSE_MAX_DENSITY < density(dense)
    assert use_lists(sparse) and not use_lists(dense)
    monkeypatch.setenv("ANALOGIST_VECTOR_INDEX", "hnsw")
    assert not use_lists(sparse)
    monkeypatch.setenv("ANALOGIST_VECTOR_INDEX", "lists")
    assert use_lists(dense)
    monkeypatch.setenv("ANALOGIST_VECTOR_INDEX", "inverted")
    with pytest.raises(ConfigError, match=r"^ANALOGIST_VECTOR_INDEX='inverted' must be one of"):
        vector_index_choice()


def test_info_names_each_levels_vector_search_and_refuses_a_bad_setting(tmp_path, monkeypatch):
    from analogist.cli.main import cli
    from tests.scale.episodes import lines

    db = str(tmp_path / "m.db")
    info = ["--db", db, "--embedder", "hashing", "info"]
    src = tmp_path / "eps.jsonl"
    src.write_text("\n".join(lines(3, 0, 40)) + "\n")
    assert (
        CliRunner().invoke(cli, ["--db", db, "--embedder", "hashing", "add", str(src)]).exit_code
        == 0
    )
    from analogist.memory import Memory
    from analogist.models.embedding import HashingEmbedder

    m = Memory(db, embedder=HashingEmbedder())
    m.indexes.save()
    m.store.close()
    out = CliRunner().invoke(cli, info).output
    assert "L0 per-dimension lists (exact)" in out and "ANALOGIST_VECTOR_INDEX=auto" in out
    monkeypatch.setenv("ANALOGIST_VECTOR_INDEX", "graph")
    bad = CliRunner().invoke(cli, info)
    assert bad.exit_code == 1 and "Traceback" not in bad.output
    assert "ANALOGIST_VECTOR_INDEX='graph' must be one of auto, lists, hnsw" in bad.output


def test_a_damaged_lists_file_is_rebuilt_from_the_database_with_a_warning(tmp_path):
    from analogist.memory import Memory
    from analogist.models.embedding import HashingEmbedder

    db = tmp_path / "m.db"
    m, folder = saved(tmp_path, 5, 60)
    q = m.store.get_signature("ep_7")
    assert q is not None
    want = m.indexes.vectors("L2").search(HashingEmbedder().embed([q.level("L2")])[0], 5)
    m.store.close()
    damaged = next(folder.glob("vec_L2_*lists_docs.npy"))
    np.save(damaged, np.full(3, 10**9, np.int64))  # wrong length, rows that do not exist
    m = Memory(db, embedder=HashingEmbedder())
    with pytest.warns(RuntimeWarning, match=r"vec:L2:.*a file cannot be read: .*do not fit"):
        idx = m.indexes.vectors("L2")
    assert "vec:L2:hashing-384-bi" in m.indexes.rebuilt and len(idx) == 60
    got = idx.search(HashingEmbedder().embed([q.level("L2")])[0], 5)
    assert [e for e, _ in got] == [e for e, _ in want]
    m.store.close()


def test_candidates_are_re_scored_from_the_rows_files_and_replaced_rows_from_memory(tmp_path):
    """A snapshot's rows (sparse, beside the lists) are read with pread for re-scoring (a
    mapped row would bring the page cache's folio into the process); a row replaced since
    comes from the index itself."""
    m, _ = saved(tmp_path, 9, 50)
    idx = m.indexes.vectors("L2")
    assert isinstance(idx, VectorIndex) and isinstance(idx.base, SparseRows)
    assert idx.base.files is not None and idx.row_file is None
    at = np.array([3, 0, 49, 17])
    assert np.array_equal(idx.base_rows(at), np.asarray(idx.base)[at])
    fresh = np.zeros((1, idx.dim), np.float32)
    fresh[0, 5] = 1.0
    idx.add([idx.ids[17]], fresh)  # replaced in place: the file still holds the old row
    got = idx.base_rows(at)
    assert np.array_equal(got[3], fresh[0]) and np.array_equal(
        got[:3], np.asarray(idx.base)[at[:3]]
    )
    assert idx.search(fresh[0], 1)[0] == (idx.ids[17], 1.0)
    m.store.close()


def test_a_rows_file_cut_short_after_opening_is_one_clear_error(tmp_path):
    from analogist.errors import StoreError

    m, folder = saved(tmp_path, 2, 40)
    idx = m.indexes.vectors("L0")
    assert isinstance(idx, VectorIndex)
    with open(next(folder.glob("vec_L0_*sparse_vals.bin")), "r+b") as f:
        f.truncate(40)  # what only outside damage does
    with pytest.raises(StoreError, match=r"row \d+ is past the end of the sparse rows files"):
        idx.base_rows(np.array([30]))
    m.store.close()


def test_a_raw_rows_file_cut_short_after_opening_is_one_clear_error(tmp_path, monkeypatch):
    """The same for the raw float32 rows an HNSW level keeps."""
    from analogist.errors import StoreError

    monkeypatch.setenv("ANALOGIST_VECTOR_INDEX", "hnsw")
    m, folder = saved(tmp_path, 2, 40)
    idx = m.indexes.vectors("L0")
    assert isinstance(idx, VectorIndex) and idx.row_file is not None
    with open(next(folder.glob("vec_L0_*rows.f32")), "r+b") as f:
        f.truncate(10 * idx.dim * 4)
    with pytest.raises(StoreError, match=r"row \d+ is past the end of the rows file"):
        idx.base_rows(np.array([30]))
    m.store.close()


def test_lists_built_part_by_part_equal_lists_built_at_once(monkeypatch):
    import analogist.retrieve.vector_lists as vl

    rows = sparse_rows(np.random.default_rng(6), 500)
    whole = VectorLists.build(rows)
    monkeypatch.setattr(vl, "STEP", 7)  # many parts, each placed into the final arrays
    parts = VectorLists.build(rows)
    grown = VectorLists.build(rows[:123]).extended([rows[123:300], rows[300:]], 377)
    want = whole.merged()
    for lists in (parts.merged(), grown.merged()):
        assert np.array_equal(lists.offsets, want.offsets)
        assert np.array_equal(lists.docs, want.docs) and np.array_equal(lists.vals, want.vals)


@pytest.mark.parametrize("block", [1, 7, 256, 1000])
def test_a_search_block_by_block_scores_every_row_as_one_pass(monkeypatch, block):
    """Past ``BLOCK_ROWS`` rows the lists are added a block of rows at a time: the same sums,
    bit for bit (each row gets its dimensions in the same order), and the same top k."""
    import analogist.retrieve.vector_lists as vl

    rng = np.random.default_rng(4)
    rows = sparse_rows(rng, 2500)
    lists = VectorLists.build(rows)
    queries = list(sparse_rows(rng, 20)) + [rows[3], rows[2499], np.zeros(64, np.float32)]
    whole = [(lists.scores(q), lists.candidates(q, 10)) for q in queries]
    monkeypatch.setattr(vl, "BLOCK_ROWS", block)
    for q, (scores, top) in zip(queries, whole, strict=True):
        assert np.array_equal(lists.scores(q), scores)
        assert np.array_equal(lists.candidates(q, 10), top)
