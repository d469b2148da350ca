"""The ingest floor for ``bench/ingest.py``: what SQLite alone needs to take a memory's rows.

It copies the rows an ingest stored (episodes, signatures with their relation rows,
fingerprints, vectors) into bare tables of a new database — same columns, no FTS, no secondary
index, no trigger, no key — with one ``executemany`` per table per batch and one transaction per
batch, WAL and ``synchronous = NORMAL`` as the store uses. Everything the ingest path does
beyond that (parsing, deriving, indexes, triggers, Python row building) is overhead above this
floor. SQL lives in ``store/``, so the bench calls this instead of opening the database itself.
"""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

TABLES = ("episodes", "signatures", "sig_fingerprint", "sig_vectors")


def table_tops(source: str | Path) -> dict[str, int]:
    """The largest rowid of each of :data:`TABLES` in ``source`` (0 when empty): where the rows
    an ingest into an existing memory appends begin."""
    src = sqlite3.connect(str(source))
    try:
        return {
            t: int(src.execute(f"SELECT COALESCE(MAX(rowid), 0) FROM {t}").fetchone()[0])
            for t in TABLES
        }
    finally:
        src.close()


def raw_insert_floor(
    source: str | Path, target: str | Path, batch: int, after: dict[str, int] | None = None
) -> dict[str, float]:
    """Insert ``source``'s index-source rows past ``after`` (each table's rowid before the
    ingest, :func:`table_tops`; all rows without it) into bare tables at ``target`` (a new
    file) in batches of ``batch`` episodes; return the CPU and wall seconds of the inserts
    alone (the rows are read from ``source`` batch by batch, untimed, so memory stays bounded).

    The rows must have been appended (rowids ``after + 1 ..``, as an ingest leaves them)."""
    after = after or {}
    src = sqlite3.connect(str(source))
    dst = sqlite3.connect(str(target), isolation_level=None)
    try:
        dst.execute("PRAGMA journal_mode = WAL")
        dst.execute("PRAGMA synchronous = NORMAL")
        plan = {}
        for t in TABLES:
            cols = [r[1] for r in src.execute(f"PRAGMA table_info({t})")]
            dst.execute(f"CREATE TABLE {t} ({', '.join(cols)})")
            base = after.get(t, 0)
            total = src.execute(f"SELECT COUNT(*) FROM {t} WHERE rowid > ?", (base,)).fetchone()[0]
            read = (
                f"SELECT {', '.join(cols)} FROM {t} WHERE rowid > ? AND rowid <= ? ORDER BY rowid"
            )
            insert = f"INSERT INTO {t} VALUES ({', '.join('?' * len(cols))})"
            plan[t] = (read, insert, total, base)
        n = plan["episodes"][2]
        cpu = wall = 0.0
        for a in range(0, n, batch):
            b = min(n, a + batch)
            rows = {}
            for t, (read, _, total, base) in plan.items():
                lo, hi = base + round(a * total / n), base + round(b * total / n)
                rows[t] = src.execute(read, (lo, hi)).fetchall()
            c0, t0 = time.process_time(), time.perf_counter()
            dst.execute("BEGIN")
            for t, (_, insert, _, _) in plan.items():
                dst.executemany(insert, rows[t])
            dst.execute("COMMIT")
            cpu += time.process_time() - c0
            wall += time.perf_counter() - t0
        return {"cpu": cpu, "wall": wall}
    finally:
        src.close()
        dst.close()
