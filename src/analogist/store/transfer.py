"""Export a memory as JSONL (``analogist export``): one header line, then one line per stored
row, table by table in :data:`~analogist.store.transfer_tables.TABLES` order, each table in
``rowid`` order. The import side is :mod:`~analogist.store.transfer_import`.

The header names the format and its version, the schema (migration names) of the source, its
backend, every table's columns and row count, and a SHA-256 of all record lines, so an import
can refuse a truncated, edited or newer file before it commits anything. The file holds no
timestamp or path: exporting the same memory twice gives the same bytes, whichever backend
holds it (only the header's ``source_backend`` differs between a SQLite and a PostgreSQL copy).

Export streams: rows are read in pages inside one read snapshot (a consistent view while other
agents write) and written to a spool file while being hashed; the header is written first and
the spool copied after it, so memory use does not grow with the memory's size.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from analogist import __version__
from analogist.errors import StoreError
from analogist.store.db import applied_migrations
from analogist.store.postgres import PostgresStore, is_postgres_url, open_store
from analogist.store.store import Store
from analogist.store.transfer_tables import DERIVED, Table, encode, layout

FORMAT = "analogist-memory"
FORMAT_VERSION = 1
PAGE = 2000


@dataclass(frozen=True)
class Header:
    """The first line of an export.

    Attributes:
        schema: the source's migrations, oldest first.
        source_backend: ``sqlite`` or ``postgresql``.
        counts: (table, rows) for every exported table, in file order.
        checksum: ``sha256:<hex>`` of every record line (each with its newline).
        columns: (table, fields of its ``row``) in file order.
    """

    schema: tuple[str, ...]
    source_backend: str
    counts: tuple[tuple[str, int], ...]
    checksum: str
    columns: tuple[tuple[str, tuple[str, ...]], ...]
    written_by: str = __version__
    format_version: int = FORMAT_VERSION

    @property
    def records(self) -> int:
        return sum(n for _, n in self.counts)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "format_version": self.format_version,
            "written_by": f"analogist {self.written_by}",
            "schema": list(self.schema),
            "source_backend": self.source_backend,
            "records": self.records,
            "checksum": self.checksum,
            "tables": {
                name: {"rows": n, "columns": list(cols)}
                for (name, n), (_, cols) in zip(self.counts, self.columns, strict=True)
            },
            "derived": dict(DERIVED),
        }


@dataclass(frozen=True)
class TransferReport:
    """What an export or import did: rows per table, the checksum, bytes and seconds."""

    counts: tuple[tuple[str, int], ...]
    checksum: str
    bytes: int
    seconds: float
    where: str

    @property
    def records(self) -> int:
        return sum(n for _, n in self.counts)

    def to_json(self) -> dict[str, Any]:
        return {
            "where": self.where,
            "records": self.records,
            "tables": dict(self.counts),
            "checksum": self.checksum,
            "bytes": self.bytes,
            "seconds": round(self.seconds, 3),
        }


def backend_name(store: Store) -> str:
    return "postgresql" if isinstance(store, PostgresStore) else "sqlite"


def dump_line(obj: dict[str, Any]) -> bytes:
    """One JSONL line, compact and in a fixed key order (so equal data gives equal bytes)."""
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")


def schema_of(store: Store) -> tuple[str, ...]:
    """The migrations recorded in the store's database, oldest first."""
    if isinstance(store, PostgresStore):
        rows = store.conn.execute("SELECT name FROM schema_migrations ORDER BY name").fetchall()
        return tuple(r[0] for r in rows)
    return tuple(applied_migrations(store.conn))


def unknown_tables(store: Store) -> list[str]:
    """Tables in the database that the export neither carries nor rebuilds (a newer schema)."""
    if isinstance(store, PostgresStore):
        sql = (
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'"
        )
    else:
        sql = "SELECT name FROM sqlite_master WHERE type = 'table'"
    names = {r[0] for r in store.conn.execute(sql).fetchall()}
    known = set(layout(schema_of(store))) | set(DERIVED)
    return sorted(
        n
        for n in names
        if n not in known and not n.startswith(("sqlite_", "episodes_fts_"))  # FTS5 shadows
    )


def table_rows(store: Store, table: Table, page: int = PAGE) -> Iterator[dict[str, Any]]:
    """One table's rows as export records (``{"table", "row"}``), in key order, page by page."""
    cols = table.stored
    sql = (
        f"SELECT {', '.join(c.name for c in cols)} FROM {table.name} "
        f"WHERE {table.key} > ? ORDER BY {table.key} LIMIT ?"
    )
    last = -(2**63)
    while True:
        rows = store.conn.execute(sql, (last, page)).fetchall()
        if not rows:
            return
        for r in rows:
            yield {
                "table": table.name,
                "row": {c.name: encode(c, r[i]) for i, c in enumerate(cols)},
            }
        last = rows[-1][0]


def write_records(
    store: Store, out: IO[bytes], tables: Iterable[Table]
) -> tuple[tuple[tuple[str, int], ...], str]:
    """Write every record line of ``tables`` (the layout of the store's schema) to ``out``;
    return the rows per table and the checksum.

    Raises:
        StoreError: the database holds a table this version does not know how to export.
    """
    extra = unknown_tables(store)
    if extra:
        raise StoreError(
            f"database {store.path} has table(s) {', '.join(extra)} that this analogist cannot "
            "export (written by a newer version?); upgrade analogist and export again"
        )
    digest, counts = hashlib.sha256(), []
    for table in tables:
        n = 0
        for rec in table_rows(store, table):
            line = dump_line(rec)
            digest.update(line)
            out.write(line)
            n += 1
        counts.append((table.name, n))
    return tuple(counts), f"sha256:{digest.hexdigest()}"


def export_memory(store: Store, out: IO[bytes], spool_dir: str | None = None) -> Header:
    """Write ``store`` as an export to the binary stream ``out``; return the header written.

    The records go to a temporary spool first (in ``spool_dir``) so the header, which needs
    their counts and checksum, can lead the file without holding the rows in memory. A
    database not yet migrated (opened read-only) is exported in the layout of its schema
    (:func:`~analogist.store.transfer_tables.layout`), which an import reads as well.
    """
    with tempfile.TemporaryFile(dir=spool_dir, prefix="analogist-export-") as spool:
        with store.read_snapshot():
            schema = schema_of(store)
            tables = layout(schema).values()
            counts, checksum = write_records(store, spool, tables)
        header = Header(
            schema=schema,
            source_backend=backend_name(store),
            counts=counts,
            checksum=checksum,
            columns=tuple((t.name, t.names) for t in tables),
        )
        out.write(dump_line(header.to_json()))
        spool.seek(0)
        shutil.copyfileobj(spool, out, 1 << 20)
    return header


def export_to(db: str, path: str) -> TransferReport:
    """Export the memory at ``db`` (a SQLite path or a ``postgresql://`` URL) to ``path``
    (``-``: stdout). A file is written beside its final name and renamed into place, so an
    interrupted export never leaves a partial file under that name.

    Raises:
        StoreError: ``db`` names no existing memory, or the database cannot be read.
    """
    import time

    if not is_postgres_url(db) and (db == ":memory:" or not Path(db).expanduser().exists()):
        raise StoreError(
            f"no memory at {db}; pass --db with an existing database file or a postgresql:// URL"
        )
    start = time.perf_counter()
    store = open_store(db)
    try:
        if path == "-":
            header = export_memory(store, sys.stdout.buffer)
            sys.stdout.buffer.flush()
            size = -1
        else:
            final = Path(path).expanduser()
            if not final.parent.is_dir():
                raise StoreError(
                    f"cannot write {path}: the folder {final.parent} does not exist; create it "
                    "or give another path"
                )
            part = final.with_name(f".{final.name}.part-{os.getpid()}")
            try:
                with open(part, "wb") as f:
                    header = export_memory(store, f, spool_dir=str(final.parent))
                    f.flush()
                    os.fsync(f.fileno())
                os.replace(part, final)
            finally:
                part.unlink(missing_ok=True)
            size = final.stat().st_size
    finally:
        store.close()
    return TransferReport(
        header.counts, header.checksum, size, time.perf_counter() - start, store.path
    )
