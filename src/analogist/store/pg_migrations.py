"""The store's schema migrations written for PostgreSQL (same names and tables as
:mod:`~analogist.store.migrations`).

Differences from the SQLite schema, all invisible above the store: every table has a
``rowid`` (``BIGSERIAL``; on ``llm_calls`` and ``transfer_ledger`` it mirrors ``id``) so
insertion order and keyset reads work as on SQLite; vectors are ``BYTEA`` (the same float32
bytes); ``episodes_fts`` is a table with a generated ``tsvector`` column and a GIN index instead
of an FTS5 virtual table; the index-state triggers are PL/pgSQL; ``0005_vector_search`` (only
where the server has pgvector) adds an in-database vector column. ``0006_unused_indexes`` drops
the same two indexes as on SQLite; ``0007_relations_column`` makes ``sig_relations`` a view
of a column of ``signatures`` as on SQLite (``json_array_elements`` for ``json_each``).
Never edit a migration that has shipped; append one (and its SQLite twin) with the same name.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from analogist.store.migrations import UNUSED_INDEXES_SQL

ROWID = "rowid BIGSERIAL NOT NULL UNIQUE"
ID_ROWID = "id BIGSERIAL PRIMARY KEY, rowid BIGINT GENERATED ALWAYS AS (id) STORED"


class PgMigration(NamedTuple):
    """One schema step: its name (recorded once applied) and its statements. ``needs`` names
    a server extension the step requires: without it (not in ``pg_available_extensions``) the
    step is not applied, nor recorded, so it runs on the first open after it is installed."""

    name: str
    statements: Callable[[], list[str]]
    needs: str | None = None


def _core() -> list[str]:
    return [
        f"""CREATE TABLE episodes ({ROWID}, id TEXT PRIMARY KEY, kind TEXT NOT NULL,
            text TEXT NOT NULL, outcome TEXT, time TEXT, provenance TEXT, added_at TEXT NOT NULL)""",
        f"""CREATE TABLE episodes_fts ({ROWID}, id TEXT NOT NULL, text TEXT NOT NULL,
            tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED)""",
        "CREATE INDEX episodes_fts_tsv ON episodes_fts USING GIN (tsv)",
        "CREATE INDEX episodes_fts_id ON episodes_fts (id)",
        f"""CREATE TABLE signatures ({ROWID},
            episode_id TEXT PRIMARY KEY REFERENCES episodes(id) ON DELETE CASCADE,
            kind TEXT NOT NULL, signature_json TEXT NOT NULL, writer_model TEXT, written_at TEXT,
            verified INTEGER NOT NULL DEFAULT 0, domain TEXT NOT NULL DEFAULT '')""",
        f"""CREATE TABLE sig_relations ({ROWID},
            episode_id TEXT NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
            predicate TEXT NOT NULL, arg1_role TEXT, arg2_role TEXT, args_json TEXT NOT NULL,
            in_causal_chain INTEGER NOT NULL DEFAULT 0)""",
        "CREATE INDEX sig_relations_episode ON sig_relations(episode_id)",
        "CREATE INDEX sig_relations_predicate ON sig_relations(predicate)",
        f"""CREATE TABLE sig_vectors ({ROWID},
            episode_id TEXT NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
            level TEXT NOT NULL, embedder TEXT NOT NULL, dim INTEGER NOT NULL,
            vector BYTEA NOT NULL, PRIMARY KEY (episode_id, level, embedder))""",
        f"""CREATE TABLE sig_fingerprint ({ROWID},
            episode_id TEXT PRIMARY KEY REFERENCES episodes(id) ON DELETE CASCADE,
            wl_hash TEXT NOT NULL, wl_version TEXT NOT NULL, features_json TEXT NOT NULL)""",
        "CREATE INDEX sig_fingerprint_hash ON sig_fingerprint(wl_hash)",
        f"""CREATE TABLE schemas ({ROWID}, schema_id TEXT PRIMARY KEY, schema_json TEXT NOT NULL,
            member_episodes TEXT NOT NULL, times_used INTEGER NOT NULL DEFAULT 0,
            times_verified INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL)""",
        f"""CREATE TABLE vocab ({ROWID}, term TEXT PRIMARY KEY, definition TEXT NOT NULL,
            kind TEXT NOT NULL, arity INTEGER NOT NULL, polarity INTEGER NOT NULL DEFAULT 0,
            commutative INTEGER NOT NULL DEFAULT 0, synonyms_json TEXT NOT NULL DEFAULT '[]',
            merged_into TEXT, count INTEGER NOT NULL DEFAULT 0)""",
        f"""CREATE TABLE analogy_log ({ROWID}, run_id TEXT PRIMARY KEY, target_id TEXT,
            trigger TEXT NOT NULL, candidate_ids TEXT NOT NULL, candidate_channels TEXT NOT NULL,
            mapping_json TEXT, structural_score DOUBLE PRECISION, critic_verdict TEXT,
            transferred_elements TEXT NOT NULL, predicted_observable TEXT,
            verification_result TEXT, outcome_delta DOUBLE PRECISION,
            token_cost INTEGER NOT NULL DEFAULT 0, tier INTEGER NOT NULL DEFAULT 1,
            model_calls INTEGER NOT NULL DEFAULT 0, wall_ms DOUBLE PRECISION NOT NULL DEFAULT 0,
            run_json TEXT NOT NULL, created_at TEXT NOT NULL)""",
        f"""CREATE TABLE llm_calls ({ID_ROWID}, cache_key TEXT NOT NULL, provider TEXT NOT NULL,
            base_url TEXT, model TEXT NOT NULL, prompt_version TEXT,
            replicate INTEGER NOT NULL DEFAULT 0, request_json TEXT NOT NULL, response_text TEXT,
            parsed_json TEXT, input_tokens INTEGER, output_tokens INTEGER,
            latency_ms DOUBLE PRECISION, attempt INTEGER NOT NULL DEFAULT 1, error TEXT,
            created_at TEXT NOT NULL)""",
        "CREATE INDEX llm_calls_key ON llm_calls(cache_key)",
    ]


def _ledger_and_bench() -> list[str]:
    return [
        f"""CREATE TABLE transfer_ledger ({ID_ROWID}, run_id TEXT NOT NULL, action TEXT NOT NULL,
            outcome TEXT NOT NULL, control TEXT, delta DOUBLE PRECISION,
            negative INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL)""",
        "CREATE INDEX transfer_ledger_run ON transfer_ledger(run_id)",
        f"""CREATE TABLE bench_runs ({ROWID}, run_id TEXT PRIMARY KEY, bench_hash TEXT NOT NULL,
            config_json TEXT NOT NULL, status TEXT NOT NULL, created_at TEXT NOT NULL,
            finished_at TEXT)""",
        f"""CREATE TABLE bench_results ({ROWID},
            run_id TEXT NOT NULL REFERENCES bench_runs(run_id) ON DELETE CASCADE,
            arm TEXT NOT NULL, answerer TEXT NOT NULL, item_id TEXT NOT NULL, seed BIGINT NOT NULL,
            condition TEXT NOT NULL DEFAULT '', score_json TEXT NOT NULL,
            answer_json TEXT NOT NULL, created_at TEXT NOT NULL,
            PRIMARY KEY (run_id, arm, answerer, item_id, seed, condition))""",
    ]


def _consolidation() -> list[str]:
    return [
        f"""CREATE TABLE consolidation_runs ({ROWID}, run_id TEXT PRIMARY KEY,
            created_at TEXT NOT NULL, log_rowid BIGINT NOT NULL, ledger_id BIGINT NOT NULL,
            report_json TEXT NOT NULL, undone_at TEXT)""",
        f"""CREATE TABLE consolidation_undo ({ROWID},
            run_id TEXT NOT NULL REFERENCES consolidation_runs(run_id), seq INTEGER NOT NULL,
            target TEXT NOT NULL, key TEXT NOT NULL, before_json TEXT, PRIMARY KEY (run_id, seq))""",
        f"""CREATE TABLE learned ({ROWID}, kind TEXT NOT NULL, key TEXT NOT NULL,
            body_json TEXT NOT NULL, run_id TEXT NOT NULL, updated_at TEXT NOT NULL,
            PRIMARY KEY (kind, key))""",
    ]


def _index_state() -> list[str]:
    """index_state plus triggers: an insert bumps the generation; an update (a replace) or a
    delete of a source row, or an episode delete, is a rebuild (see :mod:`index_sync`)."""
    from analogist.store.index_sync import SOURCES

    sql = [
        "CREATE TABLE index_state (id INTEGER PRIMARY KEY CHECK (id = 1), "
        "generation BIGINT NOT NULL, rebuilds BIGINT NOT NULL)",
        "INSERT INTO index_state VALUES (1, 0, 0)",
        "CREATE FUNCTION analogist_bump() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "UPDATE index_state SET generation = generation + 1; RETURN NULL; END $$",
        "CREATE FUNCTION analogist_rebuild() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "UPDATE index_state SET generation = generation + 1, rebuilds = rebuilds + 1; "
        "RETURN NULL; END $$",
    ]
    for t in SOURCES:
        sql += [
            f"CREATE TRIGGER {t}_insert AFTER INSERT ON {t} FOR EACH ROW "
            "EXECUTE FUNCTION analogist_bump()",
            f"CREATE TRIGGER {t}_update AFTER UPDATE ON {t} FOR EACH ROW "
            "EXECUTE FUNCTION analogist_rebuild()",
            f"CREATE TRIGGER {t}_delete AFTER DELETE ON {t} FOR EACH ROW "
            "EXECUTE FUNCTION analogist_rebuild()",
        ]
    sql += [
        "CREATE TRIGGER episodes_delete_state AFTER DELETE ON episodes FOR EACH ROW "
        "EXECUTE FUNCTION analogist_rebuild()",
        "CREATE INDEX episodes_provenance ON episodes(id, provenance) "
        "WHERE provenance IS NOT NULL AND provenance != ''",
    ]
    return sql


def _relations_column() -> list[str]:
    """As SQLite's ``0007_relations_column``: the relation rows move into
    ``signatures.relations_json`` (the same compact text, built here in SQL, each episode's
    rows in their order) and ``sig_relations`` becomes a view of it; the index state is put
    back as it was (nothing an index reads has changed)."""
    return [
        "CREATE TEMP TABLE analogist_state ON COMMIT DROP AS "
        "SELECT generation, rebuilds FROM index_state",
        "ALTER TABLE signatures ADD COLUMN relations_json TEXT NOT NULL DEFAULT '[]'",
        "UPDATE signatures AS s SET relations_json = g.rows FROM (SELECT episode_id, "
        "'[' || string_agg('[' || to_json(predicate)::text || ',' || args_json || ',' || "
        "in_causal_chain || ']', ',' ORDER BY rowid) || ']' AS rows "
        "FROM sig_relations GROUP BY episode_id) AS g WHERE g.episode_id = s.episode_id",
        "DROP TABLE sig_relations",
        """CREATE VIEW sig_relations AS SELECT
            s.episode_id AS episode_id,
            r.value ->> 0 AS predicate,
            r.value -> 1 ->> 0 AS arg1_role,
            r.value -> 1 ->> 1 AS arg2_role,
            (r.value -> 1)::text AS args_json,
            (r.value ->> 2)::integer AS in_causal_chain
            FROM signatures AS s
            CROSS JOIN LATERAL json_array_elements(s.relations_json::json) AS r(value)""",
        "UPDATE index_state SET generation = a.generation, rebuilds = a.rebuilds "
        "FROM analogist_state AS a",
    ]


def _vector_search() -> list[str]:
    """pgvector: ``sig_vectors.embedding`` beside the BYTEA (see :mod:`pg_vectors`; the
    per-(level, embedder) HNSW indexes are created with their first row). A vector replaced
    without its embedding gets NULL (never a stale embedding); NULL rows are filled before
    the next search (``PostgresStore.fill_embeddings``), found through a partial index.
    Writing an embedding alone is no change to the index state (the update trigger of
    ``0004_index_state`` is narrowed to the stored columns)."""
    return [
        "CREATE EXTENSION IF NOT EXISTS vector",
        "ALTER TABLE sig_vectors ADD COLUMN embedding vector",
        "ALTER TABLE sig_vectors ADD CONSTRAINT sig_vectors_embedding_dim "
        "CHECK (embedding IS NULL OR vector_dims(embedding) = dim)",
        "CREATE INDEX sig_vectors_unembedded ON sig_vectors (rowid) WHERE embedding IS NULL",
        "CREATE FUNCTION analogist_unembed() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
        "IF NEW.embedding IS NOT DISTINCT FROM OLD.embedding THEN NEW.embedding := NULL; "
        "END IF; RETURN NEW; END $$",
        "CREATE TRIGGER sig_vectors_unembed BEFORE UPDATE OF vector ON sig_vectors "
        "FOR EACH ROW WHEN (NEW.vector IS DISTINCT FROM OLD.vector) "
        "EXECUTE FUNCTION analogist_unembed()",
        # filling an embedding changes no indexed row: only the stored columns count
        "DROP TRIGGER sig_vectors_update ON sig_vectors",
        "CREATE TRIGGER sig_vectors_update AFTER UPDATE OF episode_id, level, embedder, dim, "
        "vector ON sig_vectors FOR EACH ROW EXECUTE FUNCTION analogist_rebuild()",
    ]


PG_MIGRATIONS: list[PgMigration] = [
    PgMigration("0001_core", _core),
    PgMigration("0002_ledger_and_bench", _ledger_and_bench),
    PgMigration("0003_consolidation", _consolidation),
    PgMigration("0004_index_state", _index_state),
    PgMigration("0005_vector_search", _vector_search, needs="vector"),
    PgMigration("0006_unused_indexes", lambda: list(UNUSED_INDEXES_SQL)),
    PgMigration("0007_relations_column", _relations_column),
]
