"""Checking an export file line by line (:mod:`~analogist.store.transfer_import` writes what
passes): the header, and each record against its table's columns and types. Every problem is a
:class:`TransferError` of one line naming the file, the line number and what is wrong."""

from __future__ import annotations

import json
import re
from typing import Any

from analogist.errors import StoreError
from analogist.store.migrations import MIGRATIONS
from analogist.store.transfer import FORMAT, FORMAT_VERSION, Header
from analogist.store.transfer_tables import Table, decode, layout
from analogist.store.vector_blob import check_size

_CHECKSUM = re.compile(r"sha256:[0-9a-f]{64}")


class TransferError(StoreError):
    """An export file cannot be imported (malformed, truncated, changed, or newer); or the
    target is not empty. Nothing was written."""


def fail(where: str, line: int | None, problem: str) -> TransferError:
    """The one-line error: ``FILE line N: problem; nothing was imported``."""
    at = f"{where} line {line}" if line is not None else where
    return TransferError(f"{at}: {problem}; nothing was imported")


def json_line(raw: bytes, where: str, n: int) -> Any:
    """Line ``n`` (without its newline) parsed as JSON."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise fail(
            where, n, f"not UTF-8 (byte 0x{raw[e.start]:02x} at column {e.start + 1})"
        ) from None
    if not text.strip():
        raise fail(where, n, "empty line (every line is one JSON record)")
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as e:
        why = f"{e.msg}, column {e.colno}" if isinstance(e, json.JSONDecodeError) else str(e)
        raise fail(where, n, f"not valid JSON ({why}); the file is damaged or cut off") from None


def parse_header(raw: bytes | None, where: str) -> Header:
    """Line 1 as a :class:`Header`, or a one-line :class:`TransferError` saying what is wrong."""
    if raw is None:
        raise fail(where, None, "the file is empty (an export starts with its header line)")
    h = json_line(raw, where, 1)
    if not isinstance(h, dict) or h.get("format") != FORMAT:
        raise fail(where, 1, f'not an analogist export (no "format": "{FORMAT}" header)')
    version = h.get("format_version")
    if version != FORMAT_VERSION:
        raise fail(
            where,
            1,
            f"export format version {version!r} is not supported (this analogist reads "
            f"version {FORMAT_VERSION}); import it with the analogist that wrote it "
            f"({h.get('written_by', '?')})",
        )
    schema, tables = h.get("schema"), h.get("tables")
    if not isinstance(schema, list) or not all(isinstance(s, str) for s in schema):
        raise fail(where, 1, '"schema" must be a list of migration names')
    newer = [s for s in schema if s not in {m.name for m in MIGRATIONS}]
    if newer:
        raise fail(
            where,
            1,
            f"exported from a newer schema (migration {newer[0]!r} is unknown "
            "to this analogist); upgrade analogist (pip install -U analogist)",
        )
    if not isinstance(tables, dict):
        raise fail(where, 1, '"tables" must be an object of table name -> rows and columns')
    counts, columns, known = [], [], layout(schema)
    for name, spec in tables.items():
        table = known.get(name)
        if table is None:
            raise fail(where, 1, f"table {name!r} is unknown to this analogist; upgrade it")
        rows = spec.get("rows") if isinstance(spec, dict) else None
        cols = spec.get("columns") if isinstance(spec, dict) else None
        if not isinstance(rows, int) or isinstance(rows, bool) or rows < 0:
            raise fail(where, 1, f'table {name!r}: "rows" must be a count')
        if cols != list(table.names):
            raise fail(
                where,
                1,
                f"table {name!r} has columns {cols} but this analogist stores {list(table.names)}",
            )
        counts.append((name, rows))
        columns.append((name, table.names))
    if h.get("records") != sum(n for _, n in counts):
        raise fail(where, 1, '"records" is not the sum of the tables\' "rows"')
    checksum = h.get("checksum")
    if not isinstance(checksum, str) or not _CHECKSUM.fullmatch(checksum):
        raise fail(where, 1, '"checksum" must be "sha256:" and 64 hex digits')
    backend = h.get("source_backend")
    return Header(
        schema=tuple(schema),
        source_backend=backend if isinstance(backend, str) else "?",
        counts=tuple(counts),
        checksum=checksum,
        columns=tuple(columns),
        written_by=str(h.get("written_by", "?")).removeprefix("analogist "),
    )


def check_record(
    obj: Any, header_tables: dict[str, int], where: str, n: int, known: dict[str, Table]
) -> tuple[Table, tuple]:
    """A parsed record line as (table, values in ``Table.stored`` order); ``known``: the
    export's tables by name (:func:`~analogist.store.transfer_tables.layout`)."""
    if not isinstance(obj, dict) or set(obj) != {"table", "row"}:
        raise fail(where, n, 'a record must be {"table": NAME, "row": {COLUMN: VALUE, ...}}')
    table = known.get(obj["table"]) if isinstance(obj["table"], str) else None
    if table is None or table.name not in header_tables:
        raise fail(where, n, f"table {obj['table']!r} is not one the header announces")
    row = obj["row"]
    if not isinstance(row, dict):
        raise fail(where, n, f'{table.name}: "row" must be an object')
    if row.keys() != table.name_set:
        missing = [c for c in table.names if c not in row]
        extra = [c for c in row if c not in table.names]
        what = f"missing column {missing[0]!r}" if missing else f"unexpected column {extra[0]!r}"
        raise fail(where, n, f"{table.name}: {what}")
    try:
        values = tuple(decode(c, row[c.name]) for c in table.stored)
    except ValueError as e:
        raise fail(where, n, f"{table.name}: {e}") from None
    problem = check_size(len(values[-1]), values[4]) if table.name == "sig_vectors" else None
    if problem:
        raise fail(where, n, f"sig_vectors: {problem}")
    return table, values
