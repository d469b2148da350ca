"""Named, append-only schema migrations (the tables of spec §12 plus episodes and llm_calls).

Each migration is a Python function that runs its statements one ``execute`` at a time (as
sqlite-utils and llm do), so a statement may contain ``;`` (a trigger body, a string). Never
edit a migration that has shipped; append a new one. ``schema_migrations`` records which ran,
so opening an old database brings it up to date, and a database that records a migration this
list does not know was written by a newer analogist (it is opened read-only).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from itertools import groupby
from typing import NamedTuple


class Migration(NamedTuple):
    """One schema step: its name (recorded once applied) and the function that applies it."""

    name: str
    apply: Callable[[sqlite3.Connection], None]


def _run(conn: sqlite3.Connection, *statements: str) -> None:
    for statement in statements:
        conn.execute(statement)


def _m0001_core(conn: sqlite3.Connection) -> None:
    _run(
        conn,
        """CREATE TABLE episodes (
            id TEXT PRIMARY KEY,
            kind TEXT NOT NULL,
            text TEXT NOT NULL,
            outcome TEXT,
            time TEXT,
            provenance TEXT,
            added_at TEXT NOT NULL
        )""",
        "CREATE VIRTUAL TABLE episodes_fts USING fts5(id UNINDEXED, text)",
        """CREATE TABLE signatures (
            episode_id TEXT PRIMARY KEY REFERENCES episodes(id) ON DELETE CASCADE,
            kind TEXT NOT NULL,
            signature_json TEXT NOT NULL,
            writer_model TEXT,
            written_at TEXT,
            verified INTEGER NOT NULL DEFAULT 0,
            domain TEXT NOT NULL DEFAULT ''
        )""",
        """CREATE TABLE sig_relations (
            episode_id TEXT NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
            predicate TEXT NOT NULL,
            arg1_role TEXT,
            arg2_role TEXT,
            args_json TEXT NOT NULL,
            in_causal_chain INTEGER NOT NULL DEFAULT 0
        )""",
        "CREATE INDEX sig_relations_episode ON sig_relations(episode_id)",
        "CREATE INDEX sig_relations_predicate ON sig_relations(predicate)",
        """CREATE TABLE sig_vectors (
            episode_id TEXT NOT NULL REFERENCES episodes(id) ON DELETE CASCADE,
            level TEXT NOT NULL,
            embedder TEXT NOT NULL,
            dim INTEGER NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (episode_id, level, embedder)
        )""",
        """CREATE TABLE sig_fingerprint (
            episode_id TEXT PRIMARY KEY REFERENCES episodes(id) ON DELETE CASCADE,
            wl_hash TEXT NOT NULL,
            wl_version TEXT NOT NULL,
            features_json TEXT NOT NULL
        )""",
        "CREATE INDEX sig_fingerprint_hash ON sig_fingerprint(wl_hash)",
        """CREATE TABLE schemas (
            schema_id TEXT PRIMARY KEY,
            schema_json TEXT NOT NULL,
            member_episodes TEXT NOT NULL,
            times_used INTEGER NOT NULL DEFAULT 0,
            times_verified INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE vocab (
            term TEXT PRIMARY KEY,
            definition TEXT NOT NULL,
            kind TEXT NOT NULL,
            arity INTEGER NOT NULL,
            polarity INTEGER NOT NULL DEFAULT 0,
            commutative INTEGER NOT NULL DEFAULT 0,
            synonyms_json TEXT NOT NULL DEFAULT '[]',
            merged_into TEXT,
            count INTEGER NOT NULL DEFAULT 0
        )""",
        """CREATE TABLE analogy_log (
            run_id TEXT PRIMARY KEY,
            target_id TEXT,
            trigger TEXT NOT NULL,
            candidate_ids TEXT NOT NULL,
            candidate_channels TEXT NOT NULL,
            mapping_json TEXT,
            structural_score REAL,
            critic_verdict TEXT,
            transferred_elements TEXT NOT NULL,
            predicted_observable TEXT,
            verification_result TEXT,
            outcome_delta REAL,
            token_cost INTEGER NOT NULL DEFAULT 0,
            tier INTEGER NOT NULL DEFAULT 1,
            model_calls INTEGER NOT NULL DEFAULT 0,
            wall_ms REAL NOT NULL DEFAULT 0,
            run_json TEXT NOT NULL,
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE llm_calls (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            cache_key TEXT NOT NULL,
            provider TEXT NOT NULL,
            base_url TEXT,
            model TEXT NOT NULL,
            prompt_version TEXT,
            replicate INTEGER NOT NULL DEFAULT 0,
            request_json TEXT NOT NULL,
            response_text TEXT,
            parsed_json TEXT,
            input_tokens INTEGER,
            output_tokens INTEGER,
            latency_ms REAL,
            attempt INTEGER NOT NULL DEFAULT 1,
            error TEXT,
            created_at TEXT NOT NULL
        )""",
        "CREATE INDEX llm_calls_key ON llm_calls(cache_key)",
    )


def _m0002_ledger_and_bench(conn: sqlite3.Connection) -> None:
    _run(
        conn,
        """CREATE TABLE transfer_ledger (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            run_id TEXT NOT NULL,
            action TEXT NOT NULL,
            outcome TEXT NOT NULL,
            control TEXT,
            delta REAL,
            negative INTEGER NOT NULL DEFAULT 0,
            created_at TEXT NOT NULL
        )""",
        "CREATE INDEX transfer_ledger_run ON transfer_ledger(run_id)",
        """CREATE TABLE bench_runs (
            run_id TEXT PRIMARY KEY,
            bench_hash TEXT NOT NULL,
            config_json TEXT NOT NULL,
            status TEXT NOT NULL,
            created_at TEXT NOT NULL,
            finished_at TEXT
        )""",
        """CREATE TABLE bench_results (
            run_id TEXT NOT NULL REFERENCES bench_runs(run_id) ON DELETE CASCADE,
            arm TEXT NOT NULL,
            answerer TEXT NOT NULL,
            item_id TEXT NOT NULL,
            seed INTEGER NOT NULL,
            condition TEXT NOT NULL DEFAULT '',
            score_json TEXT NOT NULL,
            answer_json TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (run_id, arm, answerer, item_id, seed, condition)
        )""",
    )


def _m0003_consolidation(conn: sqlite3.Connection) -> None:
    _run(
        conn,
        """CREATE TABLE consolidation_runs (
            run_id TEXT PRIMARY KEY,
            created_at TEXT NOT NULL,
            log_rowid INTEGER NOT NULL,
            ledger_id INTEGER NOT NULL,
            report_json TEXT NOT NULL,
            undone_at TEXT
        )""",
        """CREATE TABLE consolidation_undo (
            run_id TEXT NOT NULL REFERENCES consolidation_runs(run_id),
            seq INTEGER NOT NULL,
            target TEXT NOT NULL,
            key TEXT NOT NULL,
            before_json TEXT,
            PRIMARY KEY (run_id, seq)
        )""",
        """CREATE TABLE learned (
            kind TEXT NOT NULL,
            key TEXT NOT NULL,
            body_json TEXT NOT NULL,
            run_id TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            PRIMARY KEY (kind, key)
        )""",
    )


def _m0004_index_state(conn: sqlite3.Connection) -> None:
    from analogist.store.index_sync import index_state_sql

    _run(conn, *index_state_sql())


def _m0005_vector_search(conn: sqlite3.Connection) -> None:
    """Nothing on SQLite: PostgreSQL's ``0005_vector_search`` adds a pgvector column there;
    SQLite keeps vectors as BLOBs searched by the local index. The name is recorded so both
    backends list the same migrations (an export names them; an import checks them)."""
    del conn


#: Statements of ``0006_unused_indexes``, shared with PostgreSQL's step of the same name.
UNUSED_INDEXES_SQL = (
    "DROP INDEX IF EXISTS sig_relations_predicate",
    "DROP INDEX IF EXISTS sig_fingerprint_hash",
)


def _m0006_unused_indexes(conn: sqlite3.Connection) -> None:
    """Drop two secondary indexes no query reads: relation rows by predicate and fingerprints
    by WL hash are looked up through the persisted S1 and S0 indexes, never in SQL. Both were
    kept up to date on every insert, the WL hash one at a random leaf: at 1M episodes they cost
    ~29 µs of a bulk add's ~350 per episode (``docs/performance.md``, ninth session)."""
    _run(conn, *UNUSED_INDEXES_SQL)


#: ``sig_relations`` as a view of the ``relations_json`` column (``0007_relations_column``):
#: the spec's columns plus ``args_json``, one row per relation or causal-chain term.
RELATIONS_VIEW_SQL = """CREATE VIEW sig_relations AS SELECT
    s.episode_id AS episode_id,
    json_extract(r.value, '$[0]') AS predicate,
    json_extract(r.value, '$[1][0]') AS arg1_role,
    json_extract(r.value, '$[1][1]') AS arg2_role,
    json_extract(r.value, '$[1]') AS args_json,
    json_extract(r.value, '$[2]') AS in_causal_chain
    FROM signatures AS s, json_each(s.relations_json) AS r"""


def _m0007_relations_column(conn: sqlite3.Connection) -> None:
    """Move the relation rows into one column of their signature's row (``relations_json``,
    :mod:`~analogist.store.signature_rows`) and make ``sig_relations`` a view of it: a bulk
    add then writes one row per signature instead of ~11 more rows and their index entries
    (``docs/performance.md``, twelfth session). Each episode's rows keep their order. The
    index state is put back as it was: the update trigger counts each filled row as a
    rebuild, but nothing an index reads has changed, so a snapshot stays current."""
    from analogist.store.signature_rows import relations_json

    state = conn.execute("SELECT generation, rebuilds FROM index_state").fetchone()
    conn.execute("ALTER TABLE signatures ADD COLUMN relations_json TEXT NOT NULL DEFAULT '[]'")
    rows = conn.execute(
        "SELECT episode_id, predicate, arg1_role, arg2_role, args_json, in_causal_chain "
        "FROM sig_relations ORDER BY episode_id, rowid"
    )
    batch: list[tuple[str, str]] = []
    for eid, group in groupby(rows, key=lambda r: r[0]):
        batch.append((relations_json(group), eid))
        if len(batch) >= 10000:
            conn.executemany("UPDATE signatures SET relations_json = ? WHERE episode_id = ?", batch)
            batch.clear()
    conn.executemany("UPDATE signatures SET relations_json = ? WHERE episode_id = ?", batch)
    conn.execute("DROP TABLE sig_relations")
    conn.execute(RELATIONS_VIEW_SQL)
    if state is not None:
        conn.execute("UPDATE index_state SET generation = ?, rebuilds = ?", tuple(state))


MIGRATIONS: list[Migration] = [
    Migration("0001_core", _m0001_core),
    Migration("0002_ledger_and_bench", _m0002_ledger_and_bench),
    Migration("0003_consolidation", _m0003_consolidation),
    Migration("0004_index_state", _m0004_index_state),
    Migration("0005_vector_search", _m0005_vector_search),
    Migration("0006_unused_indexes", _m0006_unused_indexes),
    Migration("0007_relations_column", _m0007_relations_column),
]
