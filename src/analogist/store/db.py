"""SQLite connection handling: WAL, foreign keys, migrations, and one-transaction writes."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from analogist.errors import StoreError
from analogist.store.migrations import MIGRATIONS


def utcnow() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def connect(path: str | Path) -> sqlite3.Connection:
    """Open (creating if needed) a database with WAL, foreign keys and all migrations applied."""
    p = str(path)
    if p != ":memory:":
        parent = Path(p).expanduser().resolve().parent
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError(f"cannot create the database folder {parent}: {e}") from None
    try:
        conn = sqlite3.connect(p, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as e:
        raise StoreError(f"cannot open database {p}: {e}; check the path or pass --db") from None
    conn.row_factory = sqlite3.Row
    conn.execute("PRAGMA foreign_keys = ON")
    if p != ":memory:":
        conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    migrate(conn)
    return conn


def applied_migrations(conn: sqlite3.Connection) -> list[str]:
    conn.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)"
    )
    return [r[0] for r in conn.execute("SELECT name FROM schema_migrations ORDER BY name")]


def migrate(conn: sqlite3.Connection) -> list[str]:
    """Apply every migration not yet recorded, each in its own transaction; return their names."""
    done = set(applied_migrations(conn))
    ran = []
    for name, sql in MIGRATIONS:
        if name in done:
            continue
        with transaction(conn):
            for statement in sql.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute("INSERT INTO schema_migrations VALUES (?, ?)", (name, utcnow()))
        ran.append(name)
    return ran


@contextmanager
def transaction(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """BEGIN IMMEDIATE ... COMMIT, rolling back on any exception (nothing half-written)."""
    if conn.in_transaction:
        sp = f"sp_{id(conn)}"
        conn.execute(f"SAVEPOINT {sp}")
        try:
            yield conn
        except BaseException:
            conn.execute(f"ROLLBACK TO {sp}")
            conn.execute(f"RELEASE {sp}")
            raise
        conn.execute(f"RELEASE {sp}")
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
