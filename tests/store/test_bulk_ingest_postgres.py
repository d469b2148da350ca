"""On PostgreSQL too, a bulk add (the per-row index-state triggers off, the rows counted once)
stores what the per-episode path stores and answers the same; a failed bulk add leaves the
triggers on. Skips, with the reason, without the server binaries or psycopg."""

from __future__ import annotations

import pytest

from analogist.errors import StoreError
from analogist.memory import Memory
from analogist.models.embedding import HashingEmbedder
from tests.store.test_bulk_ingest import answers, lines


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setattr("analogist.store.episodes.utcnow", lambda: "2026-12-02T06:00:00Z")


def seen(m: Memory) -> tuple:
    s = m.store
    vectors = {lv: s.vectors(lv, m.embedder.name) for lv in ("L0", "L2", "L3")}
    return (
        [
            (e.id, e.kind, e.text, e.signature.to_json() if e.signature else None)
            for e in s.list_episodes()
        ],
        [s.signature_json(i) for i in s.episode_ids()],
        s.vocab_counts(),
        s.fingerprints(),
        {lv: (ids, mat.tobytes()) for lv, (ids, mat) in vectors.items()},
        s.index_state().generation,
        s.index_state().rebuilds,
    )


def enabled_triggers(m: Memory) -> set[str]:
    got = m.store.conn.execute(
        "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal AND tgenabled != 'D'"
    ).fetchall()
    return {r[0] for r in got}


def test_bulk_and_per_episode_adds_store_and_answer_the_same(pg_server, tmp_path, monkeypatch):
    monkeypatch.setenv("ANALOGIST_INDEX_DIR", str(tmp_path / "idx"))
    data = lines(150)
    one = Memory(pg_server.url("one"), embedder=HashingEmbedder())
    for line in data:
        assert one.add([line]).added
    bulk = Memory(pg_server.url("bulk"), embedder=HashingEmbedder())
    during, real = [], bulk.store._put_derived_many

    def spy(*a, **k):
        during.append(enabled_triggers(bulk))
        return real(*a, **k)

    monkeypatch.setattr(bulk.store, "_put_derived_many", spy)
    assert len(bulk.add(data).added) == 150
    assert "signatures_insert" not in during[0]  # the bulk path ran with the triggers off
    assert "signatures_insert" in enabled_triggers(bulk)
    assert seen(bulk) == seen(one)
    assert enabled_triggers(bulk) == enabled_triggers(one)
    for m in (one, bulk):  # pgvector's HNSW levels are random: tied k-th places may differ
        m.indexes.exact_vectors = True
    assert answers(bulk, ["ep_3", "ep_99"]) == answers(one, ["ep_3", "ep_99"])
    one.store.close()
    bulk.store.close()


def test_a_failed_bulk_add_on_postgres_leaves_the_triggers_on(pg_server, tmp_path, monkeypatch):
    monkeypatch.setenv("ANALOGIST_INDEX_DIR", str(tmp_path / "idx"))
    m = Memory(pg_server.url("failed"), embedder=HashingEmbedder())
    m.add(lines(3))
    before, triggers = seen(m), enabled_triggers(m)

    def boom(*a, **k):
        raise StoreError("disk full")

    monkeypatch.setattr(m.store, "_put_derived_many", boom)
    with pytest.raises(StoreError):
        m.add(lines(80, start=3))
    assert seen(m) == before and enabled_triggers(m) == triggers
    m.store.close()


def test_a_chunked_load_builds_the_vector_indexes_once_after_its_last_chunk(
    pg_server, tmp_path, monkeypatch
):
    """A load of more than ``ADD_CHUNK`` lines is written a chunk at a time in one
    transaction; on an empty memory pgvector's HNSW indexes are built after the last chunk
    (not after the first, which would insert every later row into a graph one at a time)."""
    monkeypatch.setenv("ANALOGIST_INDEX_DIR", str(tmp_path / "idx"))
    monkeypatch.setattr("analogist.store.store.BULK_INDEX_MIN", 50)
    data = lines(120)
    whole = Memory(pg_server.url("whole"), embedder=HashingEmbedder())
    assert len(whole.add(data).added) == 120
    monkeypatch.setattr("analogist.memory.ADD_CHUNK", 50)
    monkeypatch.setattr("analogist.store.postgres.ANALYZE_AFTER", 50)
    m = Memory(pg_server.url("chunked"), embedder=HashingEmbedder())
    if m.store.pgvector is None:
        pytest.skip("the server has no pgvector")
    graphs, real = [], m.store._put_derived_many

    def spy(*a, **k):
        n = real(*a, **k)
        graphs.append(
            m.store.conn.execute(
                "SELECT COUNT(*) FROM pg_indexes WHERE indexname LIKE 'sig_vectors_hnsw_%'"
            ).fetchone()[0]
        )
        return n

    monkeypatch.setattr(m.store, "_put_derived_many", spy)
    assert len(m.add(data).added) == 120
    assert graphs == [0, 0, 0]  # three chunks written, no graph yet
    assert (
        m.store.conn.execute(
            "SELECT COUNT(*) FROM pg_indexes WHERE indexname LIKE 'sig_vectors_hnsw_%'"
        ).fetchone()[0]
        == 3
    )
    # statistics refreshed inside the load after 50 and 100 rows, so the id checks of later
    # chunks probe the key instead of scanning a table the planner thought empty
    assert (
        m.store.conn.execute(
            "SELECT reltuples FROM pg_class WHERE relname = 'episodes'"
        ).fetchone()[0]
        == 100
    )
    assert seen(m) == seen(whole)
    for x in (m, whole):
        x.indexes.exact_vectors = True
    assert answers(m, ["ep_3", "ep_99"]) == answers(whole, ["ep_3", "ep_99"])
    m.store.close()
    whole.store.close()
