"""What persisted retrieval indexes need from the database to stay in step with it.

Migration ``0004_index_state`` adds a one-row table ``index_state(generation, rebuilds)`` and
triggers that bump it inside the very transaction that changes an index source table
(signatures, sig_fingerprint, sig_vectors, episodes): ``generation`` on every change,
``rebuilds`` on every change an index cannot fold in by appending (a delete, an update, an
``INSERT OR REPLACE`` of an existing row). A snapshot on disk records the values it was built
at (:mod:`analogist.retrieve.persist`); on open, equal values mean it is current, a different
``generation`` with the same ``rebuilds`` means only appends happened (read the rows past the
snapshot's rowids), and a different ``rebuilds`` means rebuild.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass
from typing import Any

import numpy as np

from analogist.store import vector_blob
from analogist.store.db import UsesConnection

SOURCES = ("signatures", "sig_fingerprint", "sig_vectors")
_KEYS = {
    "signatures": ("episode_id",),
    "sig_fingerprint": ("episode_id",),
    "sig_vectors": ("episode_id", "level", "embedder"),
}


def index_state_sql() -> list[str]:
    """The table and triggers of migration 0004_index_state."""
    bump = "UPDATE index_state SET generation = generation + 1"
    rebuild = "UPDATE index_state SET generation = generation + 1, rebuilds = rebuilds + 1"
    sql = [
        "CREATE TABLE index_state (id INTEGER PRIMARY KEY CHECK (id = 1), "
        "generation INTEGER NOT NULL, rebuilds INTEGER NOT NULL)",
        "INSERT INTO index_state VALUES (1, 0, 0)",
    ]
    for t in SOURCES:
        same = " AND ".join(f"{k} = NEW.{k}" for k in _KEYS[t])
        sql += [
            f"CREATE TRIGGER {t}_replace BEFORE INSERT ON {t} "
            f"WHEN EXISTS (SELECT 1 FROM {t} WHERE {same}) BEGIN {rebuild}; END",
            f"CREATE TRIGGER {t}_insert AFTER INSERT ON {t} BEGIN {bump}; END",
            f"CREATE TRIGGER {t}_update AFTER UPDATE ON {t} BEGIN {rebuild}; END",
            f"CREATE TRIGGER {t}_delete AFTER DELETE ON {t} BEGIN {rebuild}; END",
        ]
    sql.append(
        f"CREATE TRIGGER episodes_delete_state AFTER DELETE ON episodes BEGIN {rebuild}; END"
    )
    # the derivative index (retrieve/provenance.py) reads only episodes with a provenance: a
    # partial index keeps that read proportional to them, not to the whole memory
    sql.append(
        "CREATE INDEX episodes_provenance ON episodes(id, provenance) "
        "WHERE provenance IS NOT NULL AND provenance != ''"
    )
    return sql


#: The per-row triggers a bulk append of fresh rows switches off (see ``IndexSync.appending``).
INSERT_TRIGGERS = tuple(f"{t}_{w}" for t in SOURCES for w in ("replace", "insert"))
#: Page cache (``PRAGMA cache_size``, negative: KiB) while a bulk append writes, then restored.
BULK_CACHE_KIB = -65536


@dataclass(frozen=True)
class IndexState:
    """The database's index generation, rebuild count, and each source table's largest rowid."""

    generation: int
    rebuilds: int
    top_rowid: dict[str, int]


class IndexSync(UsesConnection):
    """Reads for persisted indexes (mixed into :class:`~analogist.store.Store`)."""

    def index_state(self) -> IndexState:
        """The current state; generation -1 when the database predates migration 0004 and is
        opened read-only (no snapshot can be trusted then)."""
        try:
            g, r = self.conn.execute("SELECT generation, rebuilds FROM index_state").fetchone()
        except sqlite3.OperationalError:
            g, r = -1, -1
        tops = {
            t: int(self.conn.execute(f"SELECT COALESCE(MAX(rowid), 0) FROM {t}").fetchone()[0])
            for t in SOURCES
        }
        return IndexState(int(g), int(r), tops)

    def appending(self, write: Callable[[], int], *, rebuild_indexes: bool = False) -> None:
        """Run ``write`` — plain INSERTs of *fresh* rows into the index source tables, returning
        how many it wrote — with the per-row index-state triggers off, then count those rows in
        ``index_state`` once: the same generation the triggers would have reached one row at a
        time (an INSERT of a row that exists fails on its key, so the ``replace`` trigger had
        nothing to count). ``rebuild_indexes`` (a load larger than the memory it goes into)
        changes nothing here: the appended tables have no secondary index on SQLite since
        ``0007_relations_column`` (PostgreSQL drops and rebuilds its vector graphs).

        Must run inside the caller's transaction: the trigger definitions are dropped
        and re-created from their stored SQL in it, so a failure or a kill -9 rolls everything
        back together and no other connection ever sees the schema without them.
        """
        conn = self.conn
        if not conn.in_transaction:
            raise RuntimeError("IndexSync.appending must run inside a transaction")
        del rebuild_indexes
        marks = ",".join("?" * len(INSERT_TRIGGERS))
        saved = conn.execute(
            f"SELECT type, name, sql FROM sqlite_master WHERE name IN ({marks}) ORDER BY rowid",
            INSERT_TRIGGERS,
        ).fetchall()
        for kind, name, _ in saved:
            conn.execute(f"DROP {kind.upper()} {name}")
        cache = conn.execute("PRAGMA cache_size").fetchone()[0]
        conn.execute(f"PRAGMA cache_size = {BULK_CACHE_KIB}")  # index pages of a large memory
        try:
            written = write()
        finally:
            conn.execute(f"PRAGMA cache_size = {int(cache)}")
        if saved:
            conn.execute("UPDATE index_state SET generation = generation + ?", (written,))
        for _, _, sql in saved:
            conn.execute(sql)

    @contextmanager
    def read_snapshot(self) -> Iterator[None]:
        """Every read inside sees one consistent state of the database (a read transaction)."""
        conn = self.conn
        lock = getattr(conn, "shared_lock", None)
        with lock if lock is not None else nullcontext():
            if conn.in_transaction:
                yield
                return
            conn.execute("BEGIN")
            try:
                yield
            finally:
                if conn.in_transaction:
                    conn.execute("COMMIT")

    def _after(self, sql: str, args: tuple[Any, ...], size: int) -> Iterator[list[Any]]:
        last = args[0]
        while True:
            rows = self.conn.execute(sql, (last, *args[1:], size)).fetchall()
            if not rows:
                return
            last = rows[-1][0]
            yield rows

    def fingerprints_after(
        self, rowid: int, size: int = 20000, held: Held | None = None
    ) -> Iterator[tuple[int, list[tuple[str, str, str, dict[str, int]]]]]:
        """Chunks of (last rowid read, [(episode_id, wl_hash, wl_version, features)]) past
        ``rowid``; rows of ids ``held`` says the caller has are left out unparsed."""
        sql = (
            "SELECT rowid, episode_id, wl_hash, wl_version, features_json FROM sig_fingerprint "
            "WHERE rowid > ? ORDER BY rowid LIMIT ?"
        )
        for rows in self._after(sql, (rowid,), size):
            keep = _unheld(rows, held)
            yield rows[-1][0], [(r[1], r[2], r[3], json.loads(r[4])) for r in keep]

    def signatures_after(
        self, rowid: int, size: int = 20000, held: Held | None = None
    ) -> Iterator[tuple[int, list[tuple[str, dict[str, Any]]]]]:
        """Chunks of (last rowid read, [(episode_id, signature JSON)]) past ``rowid``; rows
        of ids ``held`` says the caller has are left out unparsed."""
        sql = (
            "SELECT rowid, episode_id, signature_json FROM signatures WHERE rowid > ? "
            "ORDER BY rowid LIMIT ?"
        )
        for rows in self._after(sql, (rowid,), size):
            yield rows[-1][0], [(r[1], json.loads(r[2])) for r in _unheld(rows, held)]

    def vectors_after(
        self,
        rowid: int,
        level: str,
        embedder: str,
        size: int = 20000,
        held: Held | None = None,
    ) -> Iterator[tuple[int, list[str], np.ndarray]]:
        """Chunks of (last rowid read, ids, (n, dim) float32 matrix) past ``rowid``; rows of
        ids ``held`` says the caller has are left out undecoded."""
        sql = (
            "SELECT rowid, episode_id, dim, vector FROM sig_vectors WHERE rowid > ? AND "
            "level = ? AND embedder = ? ORDER BY rowid LIMIT ?"
        )
        for rows in self._after(sql, (rowid, level, embedder), size):
            keep = _unheld(rows, held)
            mat = vector_blob.decode_rows([r[3] for r in keep], rows[0][2])
            yield rows[-1][0], [r[1] for r in keep], mat


#: Which of a chunk's episode ids the reader already holds, one bool per id (an index's
#: ``IdTable.held``): the catch-up of a save skips the rows an index folded in as they were
#: added instead of parsing them again.
Held = Callable[[Sequence[str]], Sequence[bool]]


def _unheld(rows: list[Any], held: Held | None) -> list[Any]:
    """``rows`` (episode id second) whose id ``held`` does not claim."""
    if held is None:
        return rows
    return [r for r, h in zip(rows, held([r[1] for r in rows]), strict=True) if not h]
