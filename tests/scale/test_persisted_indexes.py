"""Persisted S0/S1/vector indexes: reopen without rebuilding, catch up on appends, rebuild
(loudly) after deletes, survive a kill -9 between the database write and the index write."""

from __future__ import annotations

import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest

from analogist.memory import Memory
from analogist.models.embedding import HashingEmbedder
from analogist.retrieve.ann import Hnsw
from analogist.retrieve.ann import available as ann_available
from analogist.retrieve.dense import VectorIndex
from analogist.retrieve.frozen import IdTable
from tests.scale.episodes import lines
from tests.scale.killed import kill_when

CHANNELS = ("S0", "S1", "S2.L2", "S2.L3", "M.emb")


def open_memory(db: Path, persist: bool = True) -> Memory:
    m = Memory(db, embedder=HashingEmbedder())
    m.indexes.root = m.indexes.root if persist else None
    m.indexes.exact_vectors = True  # exact, so persisted and fresh answers must be identical
    return m


def answers(m: Memory, probes: list[str]) -> dict:
    out = {}
    for eid in probes:
        pool = m.search(eid, channels=list(CHANNELS), k=5)
        out[eid] = {
            ch: [(h.episode_id, round(h.score, 5)) for h in hits] for ch, hits in pool.hits.items()
        }
    return out


def fresh_answers(db: Path, probes: list[str]) -> dict:
    m = open_memory(db, persist=False)
    try:
        return answers(m, probes)
    finally:
        m.store.close()


def tails(m: Memory) -> dict[str, int]:
    ix = m.indexes
    return {
        "fp": len(ix.fingerprints().ids.tail),
        "mac": len(ix.mac().ids.tail),
        "L2": len(ix.vectors("L2").ids.tail),
    }


def test_reopen_uses_the_snapshot_and_answers_as_a_rebuild(tmp_path):
    db = tmp_path / "m.db"
    m = open_memory(db)
    m.add(lines(1, 0, 80))
    assert m.indexes.save() is not None
    m.store.close()
    m = open_memory(db)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        got = answers(m, ["ep_3", "ep_40"])
    assert tails(m) == {"fp": 0, "mac": 0, "L2": 0}  # everything came from the files
    assert got == fresh_answers(db, ["ep_3", "ep_40"])
    assert any(got["ep_3"][ch] for ch in CHANNELS)
    m.store.close()


def test_appends_behind_the_snapshot_are_caught_up(tmp_path):
    db = tmp_path / "m.db"
    m = open_memory(db)
    m.add(lines(2, 0, 60))
    m.indexes.save()
    m.add(lines(2, 60, 25))  # stored, not in the snapshot
    m.store.close()
    m = open_memory(db)
    assert tails(m) == {"fp": 25, "mac": 25, "L2": 25}
    assert answers(m, ["ep_70", "ep_5"]) == fresh_answers(db, ["ep_70", "ep_5"])
    m.store.close()


def test_a_delete_since_the_snapshot_rebuilds_loudly(tmp_path):
    db = tmp_path / "m.db"
    m = open_memory(db)
    m.add(lines(3, 0, 50))
    m.indexes.save()
    m.delete(["ep_7", "ep_8"])
    m.store.close()
    m = open_memory(db)
    with pytest.warns(RuntimeWarning, match="out of step"):
        got = answers(m, ["ep_9"])
    assert "ep_7" not in str(got)
    assert got == fresh_answers(db, ["ep_9"])
    m.store.close()


CHILD = textwrap.dedent("""
    import sys, time
    from analogist.memory import Memory
    from analogist.models.embedding import HashingEmbedder
    from tests.scale.episodes import lines
    m = Memory(sys.argv[1], embedder=HashingEmbedder())
    m.add(lines(4, 0, 60))
    m.indexes.save()
    m.add(lines(4, 60, 30))  # committed to the database; the snapshot is not rewritten
    print("written", flush=True)
    time.sleep(60)
""")


def test_kill_9_between_database_write_and_index_write(tmp_path):
    db = tmp_path / "m.db"
    kill_when(CHILD, db, "written")
    m = open_memory(db)
    assert m.store.count() == 90
    assert tails(m) == {"fp": 30, "mac": 30, "L2": 30}  # repaired from the database
    probes = ["ep_75", "ep_2"]
    assert answers(m, probes) == fresh_answers(db, probes)
    m.indexes.save()
    m.store.close()
    m = open_memory(db)
    assert tails(m) == {"fp": 0, "mac": 0, "L2": 0}
    assert answers(m, probes) == fresh_answers(db, probes)
    m.store.close()


def test_a_half_written_snapshot_is_ignored(tmp_path):
    db = tmp_path / "m.db"
    m = open_memory(db)
    m.add(lines(5, 0, 40))
    live = m.indexes.save()
    m.store.close()
    junk = db.parent / "m.db.idx" / ".tmp-999-999999"  # a writer killed mid-save
    junk.mkdir()
    (junk / "fp_ids.npy").write_bytes(b"garbage")
    m = open_memory(db)
    assert tails(m)["fp"] == 0 and answers(m, ["ep_1"]) == fresh_answers(db, ["ep_1"])
    m.indexes.save()
    assert not junk.exists() and live is not None and not live.exists()
    m.store.close()


@pytest.mark.skipif(ann_available() is not None, reason=f"HNSW unavailable: {ann_available()}")
def test_hnsw_recall_at_10_against_exact():
    rng = np.random.default_rng(0)
    centres = rng.standard_normal((40, 48)).astype(np.float32)
    rows = centres[rng.integers(0, 40, 4000)] + 0.7 * rng.standard_normal((4000, 48)).astype(
        np.float32
    )
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    ids = [f"e{i}" for i in range(len(rows))]
    exact = VectorIndex(48)
    exact.add(ids, rows)
    approx = VectorIndex(
        48, base=exact.matrix, ids=IdTable.build(ids), ann=Hnsw.build(exact.matrix)
    )
    assert approx.mode == "hnsw"
    recall = []
    for q in rows[rng.integers(0, len(rows), 50)] + 0.1:
        q = q / np.linalg.norm(q)
        want = {e for e, _ in exact.search(q, 10)}
        got = approx.search(q, 10)
        recall.append(len(want & {e for e, _ in got}) / 10)
        truth = dict(exact.search(q, len(rows)))
        assert all(abs(s - truth[e]) < 1e-5 for e, s in got)  # scores are exact cosines
    assert float(np.mean(recall)) >= 0.95


def test_exact_search_is_kept_as_an_option(tmp_path, monkeypatch):
    db = tmp_path / "m.db"
    m = open_memory(db)
    m.add(lines(6, 0, 30))
    m.indexes.save()
    m.store.close()
    m = Memory(db, embedder=HashingEmbedder())
    assert m.indexes.vectors("L2").mode == "lists"  # hashing rows are sparse: exact lists
    assert "L2 per-dimension lists (exact)" in m.indexes.vector_search
    m.store.close()
    monkeypatch.setenv("ANALOGIST_EXACT_VECTORS", "1")
    m = Memory(db, embedder=HashingEmbedder())
    assert m.indexes.vectors("L2").mode == "exact"
    assert m.indexes.vector_search.startswith("exact scan in this process")
    m.store.close()
    monkeypatch.delenv("ANALOGIST_EXACT_VECTORS")
    monkeypatch.setenv("ANALOGIST_VECTOR_INDEX", "hnsw")
    m = Memory(db, embedder=HashingEmbedder())
    m.indexes.save(full=True)  # a full save decides again: a graph now
    expected = "hnsw" if ann_available() is None else "exact"
    assert m.indexes.vectors("L2").mode == expected
    m.store.close()


def test_persistence_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv("ANALOGIST_PERSIST_INDEXES", "0")
    db = tmp_path / "m.db"
    m = Memory(db, embedder=HashingEmbedder())
    m.add(lines(7, 0, 20))
    assert m.indexes.save() is None
    m.close()
    assert not (tmp_path / "m.db.idx").exists()
