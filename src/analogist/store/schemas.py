"""Rows of the ``schemas`` table (spec §12): induced schemas and their member episodes.

A schema is stored as signature-like JSON (``schema_json``) with its member episode ids as a
JSON list (``member_episodes``). Validation of the JSON against the vocabulary belongs to
:func:`analogist.retrieve.schemas.parse_schema`; :class:`SchemaRows` only reads and writes rows,
each write in one transaction. Member ids must name stored episodes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from analogist.errors import NotFoundError
from analogist.store import episodes as ep_rows
from analogist.store.db import UsesConnection, transaction, utcnow


@dataclass(frozen=True)
class SchemaRow:
    """One stored schema, as stored."""

    schema_id: str
    schema_json: dict[str, Any]
    members: tuple[str, ...]
    times_used: int
    times_verified: int
    created_at: str


class SchemaRows(UsesConnection):
    """Schema-library operations of the store (mixed into :class:`~analogist.store.Store`)."""

    def put_schema(
        self,
        schema_id: str,
        schema_json: dict[str, Any],
        members: Sequence[str],
        *,
        times_used: int = 0,
        times_verified: int = 0,
    ) -> None:
        """Insert or replace a schema.

        Raises:
            NotFoundError: a member id is not a stored episode (nothing is written).
        """
        missing = set(members) - ep_rows.existing_ids(self.conn, members)
        if missing:
            raise NotFoundError(
                f"schema {schema_id}: member episode {min(missing)!r} is not stored; "
                "add the episode first or drop it from the members"
            )
        with transaction(self.conn):
            self.conn.execute(
                "INSERT OR REPLACE INTO schemas (schema_id, schema_json, member_episodes, "
                "times_used, times_verified, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    schema_id,
                    json.dumps(schema_json),
                    json.dumps(list(members)),
                    times_used,
                    times_verified,
                    utcnow(),
                ),
            )

    def delete_schema(self, schema_id: str) -> None:
        """Delete one schema (member episodes are untouched)."""
        with transaction(self.conn):
            cur = self.conn.execute("DELETE FROM schemas WHERE schema_id = ?", (schema_id,))
        if cur.rowcount == 0:
            raise NotFoundError(f"schema {schema_id!r} is not stored")

    def list_schemas(self) -> list[SchemaRow]:
        """All schemas, oldest first."""
        rows = self.conn.execute(
            "SELECT schema_id, schema_json, member_episodes, times_used, times_verified, "
            "created_at FROM schemas ORDER BY rowid"
        ).fetchall()
        return [
            SchemaRow(r[0], json.loads(r[1]), tuple(json.loads(r[2])), r[3], r[4], r[5])
            for r in rows
        ]

    def schemas_state(self) -> tuple[Any, ...]:
        """A cheap value that changes whenever the schemas table changes (to refresh caches)."""
        return tuple(
            self.conn.execute(
                "SELECT COUNT(*), MAX(rowid), TOTAL(length(schema_json) + length(member_episodes) "
                "+ times_used + times_verified) FROM schemas"
            ).fetchone()
        )
