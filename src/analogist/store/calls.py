"""The llm_calls table: the model-call log and cache (all of its SQL lives here).

Every attempt at a model call is one row: the full request (without the API key), the response
text, the parsed output, tokens, latency, the attempt number and the error, under the request's
cache key. The cache answers from the newest row of a key that has no error, so a rerun with
the cache on repeats no call, and a run can be replayed from the log alone.
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Iterable
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from analogist.store.db import Connection, transaction, utcnow

_COLUMNS = (
    "cache_key",
    "provider",
    "base_url",
    "model",
    "prompt_version",
    "replicate",
    "request_json",
    "response_text",
    "parsed_json",
    "input_tokens",
    "output_tokens",
    "latency_ms",
    "attempt",
    "error",
    "created_at",
)


@dataclass(frozen=True)
class CallRecord:
    """One llm_calls row.

    Attributes:
        request: the request as JSON (see :meth:`analogist.models.llm.Request.to_json`).
        parsed: the parsed JSON output, or None.
        error: why the attempt failed, or None for an answer.
        id: the row id once stored.
    """

    cache_key: str
    provider: str
    model: str
    request: dict
    base_url: str | None = None
    prompt_version: str | None = None
    replicate: int = 0
    response_text: str | None = None
    parsed: Any = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    latency_ms: float | None = None
    attempt: int = 1
    error: str | None = None
    created_at: str = field(default_factory=utcnow)
    id: int | None = None

    def to_json(self) -> dict:
        """The row as plain JSON (used to export recorded responses for tests)."""
        d = {c: getattr(self, c) for c in _COLUMNS if c not in ("request_json", "parsed_json")}
        d.update(id=self.id, request=self.request, parsed=self.parsed)
        return d

    @classmethod
    def from_json(cls, d: dict) -> CallRecord:
        keys = set(_COLUMNS) - {"request_json", "parsed_json"} | {"request", "parsed", "id"}
        return cls(**{k: v for k, v in d.items() if k in keys})

    def _row(self) -> tuple:
        return (
            self.cache_key,
            self.provider,
            self.base_url,
            self.model,
            self.prompt_version,
            self.replicate,
            json.dumps(self.request, ensure_ascii=False),
            self.response_text,
            None if self.parsed is None else json.dumps(self.parsed, ensure_ascii=False),
            self.input_tokens,
            self.output_tokens,
            self.latency_ms,
            self.attempt,
            self.error,
            self.created_at,
        )


def _record(row: sqlite3.Row) -> CallRecord:
    return CallRecord(
        id=row["id"],
        cache_key=row["cache_key"],
        provider=row["provider"],
        model=row["model"],
        base_url=row["base_url"],
        prompt_version=row["prompt_version"],
        replicate=row["replicate"],
        request=json.loads(row["request_json"]),
        response_text=row["response_text"],
        parsed=None if row["parsed_json"] is None else json.loads(row["parsed_json"]),
        input_tokens=row["input_tokens"],
        output_tokens=row["output_tokens"],
        latency_ms=row["latency_ms"],
        attempt=row["attempt"],
        error=row["error"],
        created_at=row["created_at"],
    )


class CallLog:
    """Reads and writes llm_calls on a :class:`~analogist.store.Store` or a connection.

    Backends may call from several threads: on a Store each thread uses its own connection
    (``conn`` is resolved per call) and :func:`~analogist.store.db.transaction` does the
    locking; a plain ``sqlite3`` connection shared by threads is serialised here with a lock.
    """

    def __init__(self, target: Any):
        self._target = target
        self._lock = threading.Lock()

    @property
    def conn(self) -> sqlite3.Connection:
        return getattr(self._target, "conn", self._target)

    def _guard(self, conn: sqlite3.Connection) -> Any:
        return nullcontext() if isinstance(conn, Connection) else self._lock

    def _rows(self, sql: str, args: Iterable[Any] = ()) -> list[sqlite3.Row]:
        cur = self.conn.cursor()
        cur.row_factory = sqlite3.Row
        return cur.execute(sql, tuple(args)).fetchall()

    def record(self, rec: CallRecord) -> int:
        """Append one row and return its id."""
        sql = f"INSERT INTO llm_calls ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})"
        conn = self.conn
        with self._guard(conn), transaction(conn):
            cur = conn.execute(sql, rec._row())
        return int(cur.lastrowid or 0)

    def record_many(self, recs: Iterable[CallRecord]) -> int:
        """Append rows in one transaction (e.g. importing recorded responses); return the count."""
        rows = [r._row() for r in recs]
        sql = f"INSERT INTO llm_calls ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})"
        conn = self.conn
        with self._guard(conn), transaction(conn):
            conn.executemany(sql, rows)
        return len(rows)

    def keys(self) -> set[str]:
        """Every cache key with at least one logged row."""
        return {r[0] for r in self._rows("SELECT DISTINCT cache_key FROM llm_calls")}

    def lookup(self, cache_key: str) -> CallRecord | None:
        """The newest successful answer for a key, or None."""
        rows = self._rows(
            "SELECT * FROM llm_calls WHERE cache_key = ? AND error IS NULL ORDER BY id DESC LIMIT 1",
            (cache_key,),
        )
        return _record(rows[0]) if rows else None

    def for_key(self, cache_key: str) -> list[CallRecord]:
        """Every attempt logged under a key, oldest first."""
        rows = self._rows("SELECT * FROM llm_calls WHERE cache_key = ? ORDER BY id", (cache_key,))
        return [_record(r) for r in rows]

    def recent(self, limit: int = 20, *, prompt_version: str | None = None) -> list[CallRecord]:
        """The newest rows first, optionally of one prompt version."""
        q, args = "SELECT * FROM llm_calls", []
        if prompt_version is not None:
            q, args = q + " WHERE prompt_version = ?", [prompt_version]
        rows = self._rows(q + " ORDER BY id DESC LIMIT ?", [*args, limit])
        return [_record(r) for r in rows]

    def all(self) -> list[CallRecord]:
        return [_record(r) for r in self._rows("SELECT * FROM llm_calls ORDER BY id")]

    def count(self, *, errors: bool | None = None) -> int:
        """Rows in the log; ``errors=True`` counts failed attempts, False answers only."""
        where = {None: "", True: " WHERE error IS NOT NULL", False: " WHERE error IS NULL"}[errors]
        return int(self.conn.execute("SELECT COUNT(*) FROM llm_calls" + where).fetchone()[0])

    def totals(self) -> dict[str, Any]:
        """Calls, failed attempts, tokens and latency over the whole log, per provider:model."""
        rows = self._rows(
            "SELECT provider, model, COUNT(*) AS calls, SUM(error IS NOT NULL) AS errors, "
            "COALESCE(SUM(input_tokens), 0) AS input_tokens, "
            "COALESCE(SUM(output_tokens), 0) AS output_tokens, "
            "COALESCE(SUM(latency_ms), 0) AS latency_ms FROM llm_calls "
            "GROUP BY provider, model ORDER BY provider, model"
        )
        return {f"{r['provider']}:{r['model']}": {k: r[k] for k in r.keys()[2:]} for r in rows}
