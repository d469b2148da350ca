"""A psycopg connection that speaks the SQLite dialect the store's row code is written in.

The row mixins (:mod:`runs`, :mod:`bench`, :mod:`schemas`, :mod:`consolidation`, ...) write
portable SQL with a handful of SQLite spellings. :class:`PgConnection` rewrites exactly those,
one statement at a time, so both backends run the same row code (one definition per concept):

* ``?`` placeholders become ``%s`` (a literal ``%`` is escaped);
* ``INSERT OR REPLACE INTO t (cols)`` becomes an upsert on ``t``'s key that also takes a fresh
  ``rowid`` (SQLite's REPLACE deletes and re-inserts, so the row moves to the end);
* ``BEGIN IMMEDIATE`` becomes ``BEGIN`` plus the writer lock (:meth:`Cursor._begin_write`);
  ``MAX(0, x)`` becomes ``GREATEST(0, x)``;
  ``TOTAL(x)`` becomes ``COALESCE(SUM(x), 0)``; ``SUM(col IS NOT NULL)`` sums an integer;
* a single-row ``INSERT`` returns ``rowid`` so ``cursor.lastrowid`` works.

Every table has a ``rowid`` column (:mod:`pg_migrations`), so ``ORDER BY rowid`` keeps its
meaning: insertion order. Errors from the server become :class:`StoreError` (one line); a
failed statement inside :func:`~analogist.store.db.transaction` rolls the whole write back.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

import psycopg

from analogist.errors import StoreBusyError, StoreError
from analogist.store.db import write_timeout_s

# each table written with INSERT OR REPLACE, and its key (the conflict target)
REPLACE_KEYS: dict[str, tuple[str, ...]] = {
    "sig_vectors": ("episode_id", "level", "embedder"),
    "sig_fingerprint": ("episode_id",),
    "analogy_log": ("run_id",),
    "schemas": ("schema_id",),
    "learned": ("kind", "key"),
    "bench_results": ("run_id", "arm", "answerer", "item_id", "seed", "condition"),
}
WRITER_LOCK = 7_216_101  # pg_advisory_xact_lock key taken by every write transaction
_REPLACE = re.compile(r"INSERT OR REPLACE INTO (\w+) \(([^)]*)\)", re.S)
_REWRITES = (
    (re.compile(r"\bMAX\(0, "), "GREATEST(0, "),
    (re.compile(r"\bTOTAL\("), "COALESCE(SUM("),  # closed below by _close_total
    (re.compile(r"SUM\((\w+) IS NOT NULL\)"), r"SUM((\1 IS NOT NULL)::int)"),
)


def _close_total(sql: str) -> str:
    """Close each ``COALESCE(SUM(`` opened for TOTAL( with ``), 0)`` at its matching paren."""
    out, i = [], 0
    while (j := sql.find("COALESCE(SUM(", i)) >= 0:
        out.append(sql[i : j + len("COALESCE(SUM(")])
        depth, k = 1, j + len("COALESCE(SUM(")
        while depth:
            depth += {"(": 1, ")": -1}.get(sql[k], 0)
            k += 1
        out.append(sql[j + len("COALESCE(SUM(") : k] + ", 0)")
        i = k
    return "".join(out) + sql[i:]


def translate(sql: str) -> str:
    """The PostgreSQL spelling of one statement of the store's SQLite dialect."""
    s = sql.strip()
    if s.upper() == "BEGIN IMMEDIATE":
        return "BEGIN"
    total = "TOTAL(" in s
    for pattern, repl in _REWRITES:
        s = pattern.sub(repl, s)
    if total:
        s = _close_total(s)
    m = _REPLACE.search(s)
    if m:
        table, cols = m.group(1), [c.strip() for c in m.group(2).split(",")]
        key = REPLACE_KEYS[table]
        sets = ", ".join(f"{c} = EXCLUDED.{c}" for c in cols if c not in key)
        s = (
            s[: m.start()]
            + f"INSERT INTO {table} ({', '.join(cols)})"
            + s[m.end() :]
            + f" ON CONFLICT ({', '.join(key)}) DO UPDATE SET {sets}, rowid = DEFAULT"
        )
    return s.replace("%", "%%").replace("?", "%s")


class Row(tuple):
    """A result row readable by position and by column name (like ``sqlite3.Row``)."""

    _names: tuple[str, ...]

    def __new__(cls, names: tuple[str, ...], values: Sequence[Any]) -> Row:
        row = super().__new__(cls, values)
        row._names = names
        return row

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return tuple.__getitem__(self, self._names.index(key))
        return tuple.__getitem__(self, key)

    def keys(self) -> list[str]:
        return list(self._names)


def _params(args: Iterable[Any]) -> tuple[Any, ...]:
    return tuple(int(a) if isinstance(a, bool) else a for a in args)


class Cursor:
    """The part of ``sqlite3.Cursor`` the row code uses."""

    def __init__(self, conn: PgConnection):
        self._conn = conn
        self._cur = conn.raw.cursor()
        self.lastrowid: int | None = None
        self.row_factory: Any = None  # accepted and ignored: rows are always :class:`Row`
        self._star = False

    def execute(self, sql: str, args: Iterable[Any] = ()) -> Cursor:
        q = translate(sql)
        if q == "BEGIN" and sql.strip().upper() == "BEGIN IMMEDIATE":
            return self._begin_write()
        self._star = q.upper().startswith("SELECT *")
        returning = (
            q.upper().startswith("INSERT")
            and "RETURNING" not in q.upper()
            and not q.upper().startswith("INSERT INTO INDEX_STATE")
        )
        if returning:
            q += " RETURNING rowid"
        self._run(lambda: self._cur.execute(q, _params(args)))
        if returning:
            got = self._cur.fetchone()
            self.lastrowid = int(got[0]) if got else None
        return self

    def executemany(self, sql: str, rows: Iterable[Iterable[Any]]) -> Cursor:
        q = translate(sql)
        batch = [_params(r) for r in rows]
        if batch:
            self._run(lambda: self._cur.executemany(q, batch))
        return self

    def _begin_write(self) -> Cursor:
        """A write transaction holding the writer lock until it ends, so writes commit one at a
        time, in ``rowid`` order, as on SQLite: a reader that has seen rowid N has seen every
        row below it, which the persisted indexes' incremental sync relies on. Readers are
        never blocked (MVCC). The wait is bounded by ``ANALOGIST_DB_TIMEOUT`` (as on SQLite).

        Raises:
            StoreBusyError: another writer held the lock past the bound; nothing was written.
        """
        bound = write_timeout_s()
        self._run(lambda: self._cur.execute("BEGIN"))
        try:
            self._cur.execute(f"SET LOCAL lock_timeout = {int(bound * 1000)}")
            self._cur.execute("SELECT pg_advisory_xact_lock(%s)", (WRITER_LOCK,))
        except psycopg.errors.LockNotAvailable:
            self._conn.raw.execute("ROLLBACK")
            raise StoreBusyError(
                f"database {self._conn.where} stayed locked by another writer for {bound:g} s; "
                "nothing was written: retry, or raise ANALOGIST_DB_TIMEOUT"
            ) from None
        except psycopg.Error:
            self._conn.raw.execute("ROLLBACK")
            raise
        return self

    def _run(self, fn: Any) -> None:
        try:
            fn()
        except psycopg.Error as e:
            first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise StoreError(f"postgresql ({self._conn.where}): {first}") from None

    def _row(self, values: Sequence[Any]) -> Row:
        """A row; ``SELECT *`` leaves out the PostgreSQL-only ``rowid`` column (SQLite's
        ``SELECT *`` does not show its rowid either)."""
        names = tuple(d.name for d in (self._cur.description or ()))
        if self._star and "rowid" in names:
            keep = [i for i, n in enumerate(names) if n != "rowid"]
            return Row(tuple(names[i] for i in keep), [values[i] for i in keep])
        return Row(names, values)

    @property
    def rowcount(self) -> int:
        return int(self._cur.rowcount)

    def fetchone(self) -> Row | None:
        got = self._cur.fetchone() if self._cur.description else None
        return self._row(got) if got is not None else None

    def fetchall(self) -> list[Row]:
        if not self._cur.description:
            return []
        return [self._row(r) for r in self._cur.fetchall()]

    def fetchmany(self, size: int) -> list[Row]:
        if not self._cur.description:
            return []
        return [self._row(r) for r in self._cur.fetchmany(size)]

    def __iter__(self) -> Iterator[Row]:
        return iter(self.fetchall())


class PgConnection:
    """One thread's connection to the server, in autocommit mode: transactions are explicit
    (``BEGIN`` / ``SAVEPOINT`` from :func:`~analogist.store.db.transaction`)."""

    def __init__(self, raw: psycopg.Connection, where: str):
        self.raw, self.where = raw, where
        self.read_only: str | None = None

    @property
    def in_transaction(self) -> bool:
        return self.raw.info.transaction_status != psycopg.pq.TransactionStatus.IDLE

    def cursor(self) -> Cursor:
        return Cursor(self)

    def execute(self, sql: str, args: Iterable[Any] = ()) -> Cursor:
        return Cursor(self).execute(sql, args)

    def executemany(self, sql: str, rows: Iterable[Iterable[Any]]) -> Cursor:
        return Cursor(self).executemany(sql, rows)

    def close(self) -> None:
        self.raw.close()
