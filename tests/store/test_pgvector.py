"""In-database vector search on PostgreSQL with pgvector (store/pg_vectors.py): the HNSW index
finds what exact search finds, the ``embedding`` column stays in step with the stored float32
rows through adds, replaces, deletes and rollbacks, and the search in use is the one shown.

Needs the session's throwaway cluster with pgvector (the ``pgserver`` wheel bundles it); skips
with the server's description otherwise."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from analogist.episode import parse_episode
from analogist.errors import AnalogistError, ConfigError
from analogist.models.embedding import HashingEmbedder
from analogist.retrieve.dense import ServerVectorIndex, VectorIndex
from analogist.store import Derived, pg_vectors
from analogist.store.postgres import PostgresStore
from tests.store.ingest_identity_cases import case_lines

LEVELS = ("L0", "L2", "L3")


@pytest.fixture
def env(monkeypatch, tmp_path):
    monkeypatch.setenv("ANALOGIST_INDEX_DIR", str(tmp_path / "idx"))
    for name in ("ANALOGIST_VECTOR_SEARCH", "ANALOGIST_EXACT_VECTORS", "ANALOGIST_HNSW_EF"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def embeddings(s: PostgresStore) -> list[tuple[str, str, str, np.ndarray | None, np.ndarray]]:
    """Every row's (episode, level, embedder, embedding or None, float32 vector)."""
    rows = s.conn.raw.execute(
        "SELECT episode_id, level, embedder, embedding::text, vector FROM sig_vectors "
        "ORDER BY episode_id, level, embedder"
    ).fetchall()
    out = []
    for eid, level, emb, text, blob in rows:
        e = None if text is None else np.array(text.strip("[]").split(","), dtype=np.float32)
        out.append((eid, level, emb, e, np.frombuffer(blob, dtype=np.float32)))
    return out


def in_step(s: PostgresStore) -> bool:
    rows = embeddings(s)
    return all(e is not None and np.array_equal(e, v) for *_, e, v in rows)


def test_pgvector_top_k_is_exact_search_top_k(pgvector_server, env):
    """300 episodes, hashing embedder: per level, the server's HNSW answer against an exact
    local scan over the same rows (tie-aware: a hit counts when its exact cosine reaches the
    exact k-th best, since near-duplicate texts tie), and the server's exact mode agrees."""
    from analogist.memory import Memory

    m = Memory(pgvector_server.url(), embedder=HashingEmbedder(dim=64))
    lines = case_lines(300)
    assert len(m.add(lines).added) == len(lines)
    k, found, wanted = 10, 0, 0
    for level in LEVELS:
        server = m.indexes.vectors(level)
        assert isinstance(server, ServerVectorIndex) and server.mode == "pgvector-hnsw"
        exact = VectorIndex(64)
        exact.add_chunks(m.store.iter_vectors(level, m.embedder.name))
        exact.exact = True
        ids, mat = m.store.vectors(level, m.embedder.name)
        for q in mat[:: len(mat) // 20][:20]:
            truth = exact.search(q, k)
            kth = truth[-1][1] - 1e-5
            got = server.search(q, k)
            assert len(got) == k
            found += sum(1 for _, score in got if score >= kth)
            wanted += k
            for eid, score in got:  # scores are the exact cosines of the stored rows
                assert score == pytest.approx(float(mat[ids.index(eid)] @ q), abs=1e-5)
            server.exact = True
            by_server = server.search(q, k, exclude=frozenset({truth[0][0]}))
            server.exact = False
            local = exact.search(q, k, frozenset({truth[0][0]}))
            assert truth[0][0] not in dict(by_server)
            assert [s for _, s in by_server] == pytest.approx([s for _, s in local], abs=1e-5)
    assert found / wanted >= 0.95
    m.close()


def test_the_search_uses_the_pairs_hnsw_index(pgvector_server, env):
    """The query's ORDER BY matches the partial expression index of its (level, embedder)."""
    s = PostgresStore(pgvector_server.url())
    ep = parse_episode({"id": "a", "kind": "observation", "text": "x"}, s.vocabulary)
    s.add_episodes([ep], {"a": Derived(vectors=(("L0", "hashing-8", np.ones(8, np.float32)),))})
    s.conn.raw.execute("SET enable_seqscan = off")  # tiny table: make the planner show its pick
    q = pg_vectors.encode(np.ones(8, np.float32))
    plan = " ".join(
        r[0]
        for r in s.conn.raw.execute(
            b"EXPLAIN " + pg_vectors.search_sql("L0", "hashing-8", 8, False).as_bytes(s.conn.raw),
            (q, q, 5),
        ).fetchall()
    )
    assert pg_vectors.index_name("L0", "hashing-8") in plan
    s.close()


def test_graphs_are_built_with_the_configured_parameters(pgvector_server, env):
    """``ANALOGIST_PG_HNSW`` sets m and ef_construction of the indexes built from then on."""
    env.setenv("ANALOGIST_PG_HNSW", "m=12,ef_construction=40")
    s = PostgresStore(pgvector_server.url())
    ep = parse_episode({"id": "a", "kind": "observation", "text": "x"}, s.vocabulary)
    s.add_episodes([ep], {"a": Derived(vectors=(("L0", "hashing-8", np.ones(8, np.float32)),))})
    (definition,) = s.conn.raw.execute(
        "SELECT indexdef FROM pg_indexes WHERE indexname = %s",
        (pg_vectors.index_name("L0", "hashing-8"),),
    ).fetchone()
    assert "m='12'" in definition and "ef_construction='40'" in definition
    s.close()
    for bad in ("m=1", "m=16,ef_construction=20", "m=x"):
        env.setenv("ANALOGIST_PG_HNSW", bad)
        with pytest.raises(ConfigError, match="ANALOGIST_PG_HNSW"):
            pg_vectors.build_params()


def test_embeddings_stay_in_step_through_add_replace_delete_and_rollback(
    pgvector_server, env, monkeypatch
):
    s = PostgresStore(pgvector_server.url())
    rng = np.random.default_rng(1)

    def ep(i: int):
        return parse_episode({"id": f"e{i}", "kind": "observation", "text": f"t {i}"}, s.vocabulary)

    def vecs(dim: int = 16) -> tuple:
        return tuple(
            (lv, name, rng.standard_normal(dim).astype(np.float32))
            for lv in LEVELS
            for name in ("hashing-16", "other")
        )

    eps = [ep(i) for i in range(70)]  # >= BULK_MIN: the bulk append path
    s.add_episodes(eps, {e.id: Derived(vectors=vecs()) for e in eps})
    s.add_episodes([ep(70)], {"e70": Derived(vectors=vecs())})  # the one-row path
    assert len(embeddings(s)) == 71 * 6 and in_step(s)
    s.put_derived({"e3": Derived(vectors=vecs())})  # a replace rewrites the embedding too
    assert in_step(s)
    s.delete_episodes(["e1", "e2"])
    assert {r[0] for r in embeddings(s)} == {f"e{i}" for i in range(71)} - {"e1", "e2"}

    before = embeddings(s)
    from analogist.store import episodes as rows

    def boom(conn, usage, sign):
        conn.execute("SELECT * FROM no_such_table")

    monkeypatch.setattr(rows, "bump_counts", boom)
    with pytest.raises(AnalogistError, match="nothing was stored"):
        s.add_episodes([ep(80)], {"e80": Derived(vectors=vecs(24))})  # a new pair and dim
    monkeypatch.undo()
    after = embeddings(s)
    assert [r[:3] for r in after] == [r[:3] for r in before] and in_step(s)
    indexes = {r[0] for r in s.conn.raw.execute("SELECT indexname FROM pg_indexes").fetchall()}
    assert pg_vectors.index_name("L0", "hashing-16") in indexes

    # a writer that replaces a vector without its embedding: marked NULL, filled before search
    s.conn.raw.execute("UPDATE sig_vectors SET vector = %s WHERE episode_id = 'e4'", (b"\0" * 64,))
    assert any(e is None for eid, *_, e, _ in embeddings(s) if eid == "e4")
    q = rng.standard_normal(16).astype(np.float32)
    s.search_vectors("L0", "hashing-16", q, 5)
    assert in_step(s)
    s.close()


def test_a_database_written_before_pgvector_is_filled_on_open(pgvector_server, env):
    """Opening a database without ``0005_vector_search`` applies it and fills every embedding
    from the stored float32 rows (with the pairs' HNSW indexes)."""
    from analogist.store import postgres

    url = pgvector_server.url()
    env.setattr(postgres, "PG_MIGRATIONS", postgres.PG_MIGRATIONS[:4])
    old = PostgresStore(url)
    assert old.pgvector is None
    e = parse_episode({"id": "a", "kind": "observation", "text": "x"}, old.vocabulary)
    old.add_episodes([e], {"a": Derived(vectors=(("L2", "h", np.arange(6, dtype=np.float32)),))})
    old.close()
    env.undo()
    new = PostgresStore(url)
    assert new.pgvector is not None and in_step(new)
    assert [i for i, _ in new.search_vectors("L2", "h", np.ones(6, np.float32), 3)] == ["a"]
    new.close()


def _info(db: str, *args: str):
    from analogist.cli.main import cli

    return CliRunner().invoke(cli, ["--db", db, "--embedder", "hashing:64", "info", *args])


def test_info_shows_the_vector_search_in_use(pgvector_server, env, tmp_path):
    url = pgvector_server.url()
    got = _info(url)
    assert got.exit_code == 0, got.output
    assert (
        "vector search: pgvector HNSW in the database (hnsw.ef_search L0 800, L2 200, L3 800; "
        "graphs built from now on: m 32, ef_construction 256)" in got.output
    )
    env.setenv("ANALOGIST_PG_HNSW", "m=16,ef_construction=64")
    assert "graphs built from now on: m 16, ef_construction 64)" in _info(url).output
    env.setenv("ANALOGIST_PG_HNSW", "m=16,ef=64")
    bad = _info(url)
    assert bad.exit_code == 1 and "ANALOGIST_PG_HNSW='m=16,ef=64' must be m=N" in bad.output
    assert "Traceback" not in bad.output
    env.delenv("ANALOGIST_PG_HNSW")
    env.setenv("ANALOGIST_EXACT_VECTORS", "1")
    assert "vector search: pgvector exact" in _info(url).output
    env.delenv("ANALOGIST_EXACT_VECTORS")
    env.setenv("ANALOGIST_VECTOR_SEARCH", "local")
    assert "vector search: local, per level: L0 " in _info(url).output
    env.setenv("ANALOGIST_VECTOR_SEARCH", "pgvector")
    sqlite = _info(str(tmp_path / "m.db"))
    assert sqlite.exit_code == 1
    assert "ANALOGIST_VECTOR_SEARCH=pgvector: SQLite has no in-database vector index" in (
        sqlite.output
    )
    env.setenv("ANALOGIST_VECTOR_SEARCH", "nearest")
    assert "must be one of auto, pgvector, local" in _info(url).output


def test_asking_for_pgvector_where_the_server_lacks_it_fails_in_one_line(pgvector_server, env):
    """A server without the extension (simulated: the migration needs one nobody offers)."""
    from analogist.memory import Memory
    from analogist.store import postgres
    from analogist.store.pg_migrations import PgMigration

    steps = [
        m._replace(needs="nope") if m.name == postgres.VECTOR_MIGRATION else m
        for m in postgres.PG_MIGRATIONS
    ]
    assert steps != postgres.PG_MIGRATIONS and all(isinstance(m, PgMigration) for m in steps)
    env.setattr(postgres, "PG_MIGRATIONS", steps)
    s = PostgresStore(pgvector_server.url())
    assert s.pgvector is None and "has no 'nope' extension" in str(s.vector_search_missing())
    m = Memory(s, embedder=HashingEmbedder(dim=64))
    assert m.indexes.vector_search.startswith("local, per level: ")
    assert "pgvector not used: the PostgreSQL server" in m.indexes.vector_search
    env.setenv("ANALOGIST_VECTOR_SEARCH", "pgvector")
    with pytest.raises(ConfigError, match=r"^ANALOGIST_VECTOR_SEARCH=pgvector: the PostgreSQL"):
        Memory(s, embedder=HashingEmbedder(dim=64))
    with pytest.raises(ConfigError, match="in-database vector search"):
        s.search_vectors("L0", "x", np.ones(4, np.float32), 1)
    s.close()
