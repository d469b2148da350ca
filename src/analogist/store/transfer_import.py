"""Import an export (``analogist import``) into an empty memory, all or nothing.

The header is checked before the target is opened (format version, schema, tables and their
columns). Then one write transaction: the target is checked to be empty (no rows in any exported
table and no vocabulary term in use), its vocabulary is replaced by the file's, and the records
are validated line by line and written in batches; the full-text index is rebuilt from the
episodes. Only when every line was valid, the row counts match the header and the checksum of
all record lines matches does the transaction commit. Any problem is one line naming the line
number and what is wrong, and the target is left as it was (a SQLite file the import created is
removed again).

Merging into a memory that already holds data is refused: ids would clash (episodes, runs,
schemas) and ledger ids and log rowids that consolidation watermarks point at would have to be
renumbered. Import into a new database instead.
"""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO

from analogist.errors import StoreError
from analogist.store.db import BACKEND_ERRORS
from analogist.store.index_sync import SOURCES
from analogist.store.postgres import PostgresStore, is_postgres_url, open_store
from analogist.store.signature_rows import relations_json
from analogist.store.store import Store
from analogist.store.transfer import Header, TransferReport
from analogist.store.transfer_check import (
    TransferError,
    check_record,
    fail,
    json_line,
    parse_header,
)
from analogist.store.transfer_tables import LEGACY_RELATIONS, TABLES, Table, layout
from analogist.store.vocab import load_vocabulary

__all__ = ["TransferError", "import_from", "import_memory", "load_records"]

BATCH = 1000
#: One relation row of an older export appended to its signature's ``relations_json``.
_APPEND_RELATION = (
    "UPDATE signatures SET relations_json = CASE WHEN relations_json = '[]' THEN '[' || ? || ']' "
    "ELSE substr(relations_json, 1, length(relations_json) - 1) || ',' || ? || ']' END "
    "WHERE episode_id = ?"
)


def _occupied(store: Store) -> list[str]:
    """Exported tables that already hold rows (vocabulary: terms already in use)."""
    found = []
    for t in TABLES:
        where = " WHERE count != 0" if t.name == "vocab" else ""
        if store.conn.execute(f"SELECT 1 FROM {t.name}{where} LIMIT 1").fetchone():
            found.append(t.name)
    return found


def _listed(names: list[str]) -> str:
    more = f" and {len(names) - 3} more tables" if len(names) > 3 else ""
    return ", ".join(names[:3]) + more


def _append_relations(store: Store, rows: Sequence[tuple]) -> None:
    """Relation rows of an export from before ``0007_relations_column`` (``rowid``, then
    :func:`~analogist.store.signature_rows.relation_rows`' columns), each appended to its
    signature's ``relations_json`` in file order: the column a new add would have written."""
    ids = sorted({r[1] for r in rows})
    marks = ",".join("?" * len(ids))
    found = {
        r[0]
        for r in store.conn.execute(
            f"SELECT episode_id FROM signatures WHERE episode_id IN ({marks})", ids
        )
    }
    if len(found) < len(ids):
        missing = min(set(ids) - found)
        raise StoreError(f"relation row of episode {missing!r}, which has no signature row")
    for r in rows:
        try:
            roles = json.loads(r[5])
        except ValueError:
            roles = None
        if not isinstance(roles, list) or not all(isinstance(x, str) for x in roles):
            raise StoreError(f"args_json {r[5][:40]!r} is not a JSON list of role names")
    items = [relations_json([r[1:]])[1:-1] for r in rows]
    store.conn.executemany(_APPEND_RELATION, [(x, x, r[1]) for x, r in zip(items, rows)])


def _insert(store: Store, table: Table, rows: Sequence[tuple]) -> None:
    if table is LEGACY_RELATIONS:
        _append_relations(store, rows)
        return
    names = [c.name for c in table.stored]
    sql = f"INSERT INTO {table.name} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"
    store.conn.executemany(sql, rows)
    if table.name == "episodes":  # the full-text index, row for row under the same rowid
        i, t = names.index("id"), names.index("text")
        store.conn.executemany(
            "INSERT INTO episodes_fts (rowid, id, text) VALUES (?, ?, ?)",
            [(r[0], r[i], r[t]) for r in rows],
        )


def _flush(store: Store, table: Table, batch: list[tuple[int, tuple]], where: str) -> None:
    """Write one batch in a savepoint; when the database refuses it, find the line it refuses."""
    if not batch:
        return
    errors: tuple[type[Exception], ...] = (StoreError, *BACKEND_ERRORS)
    try:
        with store.transaction():
            _insert(store, table, [v for _, v in batch])
        return
    except errors:
        pass
    for n, values in batch:
        try:
            with store.transaction():
                _insert(store, table, [values])
        except errors as e:
            why = " ".join(str(e).split())
            raise fail(where, n, f"{table.name}: the database refused this row ({why})") from None
    raise fail(where, batch[0][0], f"{table.name}: the database refused this batch of rows")


def _finish(store: Store) -> None:
    """After the rows: move PostgreSQL's id sequences past the imported ids, and count a
    rebuild in the index state so a persisted snapshot left from an earlier database is
    never taken for this one."""
    if isinstance(store, PostgresStore):
        for name, key in [(t.name, t.key) for t in TABLES] + [("episodes_fts", "rowid")]:
            store.conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{name}', '{key}'), "
                f"COALESCE(MAX({key}), 1), MAX({key}) IS NOT NULL) FROM {name}"
            )
    store.conn.execute(
        "UPDATE index_state SET generation = generation + 1, rebuilds = rebuilds + 1"
    )
    if isinstance(store, PostgresStore):
        store.fill_embeddings()  # the pgvector column of the imported vectors (if in use)


def load_records(
    store: Store, header: Header, lines: Iterator[bytes], where: str
) -> tuple[Counter[str], int]:
    """Validate and write every record line after the header in one transaction.

    Returns the rows per table and the bytes read. Raises :class:`TransferError` (and writes
    nothing) on the first problem.
    """
    want, known = dict(header.counts), layout(header.schema)
    order = {name: i for i, name in enumerate(known)}
    seen: Counter[str] = Counter()
    digest, size, n = hashlib.sha256(), 0, 1

    def records() -> int:
        """Validate and write every record; return how many index-source rows were written."""
        nonlocal n, size
        current: Table | None = None
        batch: list[tuple[int, tuple]] = []
        for n, raw in enumerate(lines, start=2):
            size += len(raw)
            body = raw[:-1] if raw.endswith(b"\n") else raw
            digest.update(body + b"\n")
            table, values = check_record(json_line(body, where, n), want, where, n, known)
            if current is not None and order[table.name] < order[current.name]:
                raise fail(
                    where,
                    n,
                    f"a {table.name} record after {current.name} records "
                    "(an export lists tables in a fixed order)",
                )
            if table is not current:
                if current is not None:
                    _flush(store, current, batch, where)
                current, batch = table, []
            seen[table.name] += 1
            if seen[table.name] > want[table.name]:
                raise fail(
                    where,
                    n,
                    f"more {table.name} records than the {want[table.name]} the header announces",
                )
            batch.append((n, values))
            if len(batch) >= BATCH:
                _flush(store, table, batch, where)
                batch = []
        if current is not None:
            _flush(store, current, batch, where)
        short = [(t, k, seen[t]) for t, k in header.counts if seen[t] != k]
        if short:
            t, k, got = short[0]
            raise fail(
                where,
                None,
                f"the file ends at line {n} with {got} {t} rows of the {k} "
                "its header announces: it is truncated; export again",
            )
        got_sum = f"sha256:{digest.hexdigest()}"
        if got_sum != header.checksum:
            raise fail(
                where,
                None,
                f"checksum mismatch (the records hash to {got_sum[:19]}…, "
                f"the header says {header.checksum[:19]}…): the file was changed after "
                "export; export again",
            )
        return sum(seen[t] for t in SOURCES)

    with store.transaction():
        busy = _occupied(store)
        if busy:
            raise fail(
                store.path,
                None,
                f"the target memory is not empty (it holds {_listed(busy)}); import only "
                "into a new SQLite file or an empty PostgreSQL database (merging is not supported)",
            )
        store.conn.execute("DELETE FROM vocab")  # the file's vocabulary replaces the default one
        # the per-row index-state triggers off and the rows counted once, as a bulk add
        # (IndexSync.appending; PostgresStore.appending); SQLite builds its indexes after
        store.appending(records, rebuild_indexes=True)
        _finish(store)
    store.vocabulary = load_vocabulary(store.conn)
    return seen, size


def _report(
    header: Header, seen: Counter[str], size: int, start: float, where: str
) -> TransferReport:
    """The report of an import that wrote ``seen`` rows and read ``size`` bytes."""
    return TransferReport(
        tuple((t, seen[t]) for t, _ in header.counts),
        header.checksum,
        size,
        time.perf_counter() - start,
        where,
    )


def import_memory(store: Store, stream: IO[bytes], where: str = "import") -> TransferReport:
    """Import the export read from the binary ``stream`` into the empty ``store``."""
    start = time.perf_counter()
    lines = iter(stream)
    first = next(lines, None)
    header = parse_header(first, where)
    seen, size = load_records(store, header, lines, where)
    return _report(header, seen, size + len(first or b""), start, store.path)


def import_from(path: str, db: str) -> TransferReport:
    """Import the export at ``path`` (``-``: stdin) into the empty memory at ``db`` (a SQLite
    path, created when missing, or a ``postgresql://`` URL). The header is checked before the
    target is opened; a SQLite file created here is removed again when the import fails."""
    start = time.perf_counter()
    where = "stdin" if path == "-" else path
    created = not is_postgres_url(db) and db != ":memory:" and not Path(db).expanduser().exists()
    src = sys.stdin.buffer if path == "-" else open(path, "rb")  # noqa: SIM115
    try:
        lines = iter(src)
        first = next(lines, None)
        header = parse_header(first, where)
        store = open_store(db)
        try:
            seen, size = load_records(store, header, lines, where)
        except BaseException:
            store.close()
            if created:
                _remove_sqlite(db)
            raise
        store.close()
    finally:
        if src is not sys.stdin.buffer:
            src.close()
    return _report(header, seen, size + len(first or b""), start, store.path)


def _remove_sqlite(db: str) -> None:
    base = Path(db).expanduser()
    for p in (base, Path(f"{base}-wal"), Path(f"{base}-shm"), Path(f"{base}-journal")):
        p.unlink(missing_ok=True)
