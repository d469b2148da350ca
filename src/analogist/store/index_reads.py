"""Streaming reads the retrieval indexes are built from: the SQLite side of :class:`IndexReads`.

Each iterator yields rows in chunks, so building an index over a million episodes never holds
every row as Python objects at once.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

from analogist.store import episodes as ep_rows
from analogist.store import vector_blob
from analogist.store.db import UsesConnection


class IndexReads(UsesConnection):
    """Index-building reads of the store (mixed into :class:`~analogist.store.Store`)."""

    def _chunks(self, sql: str, args: tuple[Any, ...], size: int) -> Iterator[list[Any]]:
        cur = self.conn.execute(sql, args)
        while True:
            rows = cur.fetchmany(size)
            if not rows:
                return
            yield rows

    def iter_fingerprints(
        self, size: int = 20000
    ) -> Iterator[list[tuple[str, str, str, dict[str, int]]]]:
        """Chunks of (episode_id, wl_hash, wl_version, features) in insertion order."""
        sql = (
            "SELECT episode_id, wl_hash, wl_version, features_json FROM sig_fingerprint "
            "ORDER BY rowid"
        )
        for rows in self._chunks(sql, (), size):
            yield [(r[0], r[1], r[2], json.loads(r[3])) for r in rows]

    def iter_signature_json(self, size: int = 20000) -> Iterator[list[tuple[str, dict[str, Any]]]]:
        """Chunks of (episode_id, stored signature JSON) in insertion order."""
        sql = "SELECT episode_id, signature_json FROM signatures ORDER BY rowid"
        for rows in self._chunks(sql, (), size):
            yield [(r[0], json.loads(r[1])) for r in rows]

    def iter_vectors(
        self, level: str, embedder: str, size: int = 20000
    ) -> Iterator[tuple[list[str], np.ndarray]]:
        """Chunks of (ids, (n, dim) float32 matrix) for one level and embedder."""
        sql = (
            "SELECT episode_id, dim, vector FROM sig_vectors WHERE level = ? AND embedder = ? "
            "ORDER BY rowid"
        )
        for rows in self._chunks(sql, (level, embedder), size):
            yield [r[0] for r in rows], vector_blob.decode_rows([r[2] for r in rows], rows[0][1])

    def newest_vector_embedders(self) -> list[str]:
        """The embedders with vectors stored for the newest episode that has any, sorted (by
        the primary key: two index lookups at any size). Says which embedder a memory was
        built with when the one in use finds no vectors."""
        rows = self.conn.execute(
            "SELECT DISTINCT embedder FROM sig_vectors WHERE episode_id = "
            "(SELECT episode_id FROM sig_vectors ORDER BY rowid DESC LIMIT 1) ORDER BY embedder"
        ).fetchall()
        return [r[0] for r in rows]

    def iter_episode_texts(
        self, size: int = 5000
    ) -> Iterator[list[tuple[str, str, dict[str, Any] | None]]]:
        """Chunks of (episode_id, L0 text, signature JSON or None), for re-indexing.

        Each chunk is its own query (keyset pagination on rowid), so the caller may write to the
        store between chunks.
        """
        last = 0
        while True:
            rows = self.conn.execute(
                "SELECT e.rowid, e.id, e.text, s.signature_json FROM episodes e LEFT JOIN "
                "signatures s ON s.episode_id = e.id WHERE e.rowid > ? ORDER BY e.rowid LIMIT ?",
                (last, size),
            ).fetchall()
            if not rows:
                return
            last = rows[-1][0]
            yield [(r[1], r[2], json.loads(r[3]) if r[3] is not None else None) for r in rows]

    def iter_provenance(self) -> Iterator[tuple[str, str]]:
        """(episode_id, provenance) for every episode that records one."""
        cur = self.conn.execute(
            "SELECT id, provenance FROM episodes WHERE provenance IS NOT NULL AND provenance != ''"
        )
        yield from ((r[0], r[1]) for r in cur)

    def existing_ids(self, ids: Iterable[str]) -> set[str]:
        """Which of ``ids`` are stored episodes."""
        return ep_rows.existing_ids(self.conn, ids)

    def change_marker(self) -> tuple[int, int]:
        """(data_version, largest episode rowid): changes when another connection commits or an
        episode is added on this one; used to notice that cached indexes may be stale."""
        version = self.conn.execute("PRAGMA data_version").fetchone()[0]
        top = self.conn.execute("SELECT MAX(rowid) FROM episodes").fetchone()[0]
        return int(version), int(top or 0)
