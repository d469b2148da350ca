"""Rows of consolidation (spec Phase 5): runs with their watermarks, undo images, learned rows.

A consolidation run reads the analogy log and the transfer ledger past the previous run's
watermark, and writes schemas, learned rows (the fix-operator library, macro-actions, relation
telemetry, merge evidence, fitted trigger policies), vocabulary merges and the derived rows a
merge changes (relation rows and fingerprints; stored signature JSON keeps its spelling and is
read through ``merged_into``). :meth:`ConsolidationRows.apply_consolidation`
writes all of it in one transaction together with the *before image* of every row it changes, so
:meth:`ConsolidationRows.undo_consolidation` can put the store back exactly as it was. Only the newest run that is not
undone can be undone (undo walks back in order), which keeps every image valid.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from analogist.errors import NotFoundError, StoreError
from analogist.signature.fingerprint import features_json
from analogist.signature.model import Signature
from analogist.signature.vocabulary import Vocabulary
from analogist.store import episodes as ep_rows
from analogist.store.db import UsesConnection, transaction, utcnow
from analogist.store.signature_rows import relation_rows, relations_json, rows_of_json
from analogist.store.vocab import load_vocabulary


@dataclass(frozen=True)
class PutSchema:
    """Insert or replace one schema (members: stored episode ids only)."""

    schema_id: str
    schema_json: dict
    members: tuple[str, ...]
    times_verified: int = 0


@dataclass(frozen=True)
class PutLearned:
    """Insert or replace one learned row (``kind``: operator, macro, telemetry, ...)."""

    kind: str
    key: str
    body: dict


@dataclass(frozen=True)
class MergeTerm:
    """Merge vocabulary term ``old`` into ``into``: ``merged_into`` set, usage count moved."""

    old: str
    into: str


@dataclass(frozen=True)
class Reindex:
    """Rewrite a stored episode's derived rows (relation rows, WL fingerprint) from
    ``signature``, its stored JSON as read after a merge; the JSON itself is not changed."""

    signature: Signature
    fingerprint: tuple[str, str, Mapping[str, int]]
    usage: Mapping[str, int]  # term -> uses after minus before (the merge moves these counts)


Change = PutSchema | PutLearned | MergeTerm | Reindex


def _digest(signature_json: str) -> str:
    return hashlib.sha256(signature_json.encode()).hexdigest()


def _add_counts(conn: Any, usage: Mapping[str, int]) -> None:
    """Usage counts moved by an undo, unclamped: the moves of one undo add up to counts that
    are never negative, but one of them alone may pass below zero."""
    conn.executemany(
        "UPDATE vocab SET count = count + ? WHERE term = ?", [(n, t) for t, n in usage.items()]
    )


def _derived_rows(conn: Any, eid: str) -> tuple[list[list[Any]], list[Any] | None]:
    stored = conn.execute(
        "SELECT relations_json FROM signatures WHERE episode_id = ?", (eid,)
    ).fetchone()
    rels = rows_of_json(eid, stored[0]) if stored else []
    fp = conn.execute(
        "SELECT episode_id, wl_hash, wl_version, features_json FROM sig_fingerprint "
        "WHERE episode_id = ?",
        (eid,),
    ).fetchone()
    return [list(r) for r in rels], list(fp) if fp else None


def _put_derived_rows(
    conn: Any, eid: str, rels: Sequence[Sequence[Any]], fp: Sequence[Any] | None
) -> None:
    """Replace an episode's relation rows (the ``relations_json`` column of its signature
    row; ``rels`` as :func:`relation_rows` makes them, the form undo images keep) and
    fingerprint. Updating the signature row tells persisted indexes (index_state's update
    trigger) that its reading changed, so the S1 index, built from read signatures, rebuilds
    too."""
    conn.execute(
        "UPDATE signatures SET relations_json = ? WHERE episode_id = ?",
        (relations_json(rels), eid),
    )
    conn.execute("DELETE FROM sig_fingerprint WHERE episode_id = ?", (eid,))
    if fp is not None:
        conn.execute(
            "INSERT INTO sig_fingerprint (episode_id, wl_hash, wl_version, features_json) "
            "VALUES (?, ?, ?, ?)",
            tuple(fp),
        )


@dataclass(frozen=True)
class RunRow:
    """One consolidation run as stored."""

    run_id: str
    created_at: str
    log_rowid: int
    ledger_id: int
    report: dict
    undone_at: str | None


def _before(conn: Any, change: Change) -> tuple[str, str, str | None]:
    if isinstance(change, PutSchema):
        r = conn.execute(
            "SELECT schema_json, member_episodes, times_used, times_verified, "
            "created_at FROM schemas WHERE schema_id = ?",
            (change.schema_id,),
        ).fetchone()
        return "schema", change.schema_id, json.dumps(list(r)) if r else None
    if isinstance(change, PutLearned):
        key = f"{change.kind}\x1f{change.key}"
        r = conn.execute(
            "SELECT body_json, run_id, updated_at FROM learned WHERE kind = ? AND key = ?",
            (change.kind, change.key),
        ).fetchone()
        return "learned", key, json.dumps(list(r)) if r else None
    if isinstance(change, Reindex):
        eid = change.signature.episode_id
        raw = conn.execute(
            "SELECT signature_json FROM signatures WHERE episode_id = ?", (eid,)
        ).fetchone()
        if raw is None:
            raise NotFoundError(f"episode {eid!r} has no stored signature to reindex")
        rels, fp = _derived_rows(conn, eid)
        image = {
            "signature": _digest(raw[0]),
            "relations": rels,
            "fingerprint": fp,
            "usage": dict(change.usage),
        }
        return "derived", eid, json.dumps(image)
    r = conn.execute(
        "SELECT merged_into, count FROM vocab WHERE term = ?", (change.old,)
    ).fetchone()
    into = conn.execute("SELECT count FROM vocab WHERE term = ?", (change.into,)).fetchone()
    if r is None or into is None:
        raise NotFoundError(
            f"vocabulary term {change.old if r is None else change.into!r} "
            "is not stored; see `analogist vocab`"
        )
    return "vocab", change.old, json.dumps([r[0], r[1], change.into, into[0]])


def _apply(conn: Any, run_id: str, change: Change, now: str) -> None:
    if isinstance(change, PutSchema):
        conn.execute(
            "INSERT INTO schemas (schema_id, schema_json, member_episodes, times_used, "
            "times_verified, created_at) VALUES (?, ?, ?, 0, ?, ?) ON CONFLICT(schema_id) DO "
            "UPDATE SET schema_json=excluded.schema_json, member_episodes=excluded.member_episodes, "
            "times_verified=excluded.times_verified",
            (
                change.schema_id,
                json.dumps(change.schema_json),
                json.dumps(list(change.members)),
                change.times_verified,
                now,
            ),
        )
    elif isinstance(change, PutLearned):
        conn.execute(
            "INSERT OR REPLACE INTO learned (kind, key, body_json, run_id, updated_at) "
            "VALUES (?, ?, ?, ?, ?)",
            (change.kind, change.key, json.dumps(change.body, sort_keys=True), run_id, now),
        )
    elif isinstance(change, Reindex):
        sig = change.signature
        wl_hash, version, feats = change.fingerprint
        fp = (sig.episode_id, wl_hash, version, features_json(feats))
        had = conn.execute(
            "SELECT 1 FROM sig_fingerprint WHERE episode_id = ?", (sig.episode_id,)
        ).fetchone()
        _put_derived_rows(conn, sig.episode_id, relation_rows(sig), fp if had else None)
    else:
        count = conn.execute("SELECT count FROM vocab WHERE term = ?", (change.old,)).fetchone()[0]
        conn.execute(
            "UPDATE vocab SET merged_into = ?, count = 0 WHERE term = ?", (change.into, change.old)
        )
        conn.execute("UPDATE vocab SET count = count + ? WHERE term = ?", (count, change.into))


def _restore(conn: Any, target: str, key: str, before: str | None) -> None:
    if target == "schema":
        if before is None:
            conn.execute("DELETE FROM schemas WHERE schema_id = ?", (key,))
        else:
            sj, mem, used, ver, created = json.loads(before)
            conn.execute(
                "INSERT OR REPLACE INTO schemas (schema_id, schema_json, member_episodes, "
                "times_used, times_verified, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                (key, sj, mem, used, ver, created),
            )
    elif target == "learned":
        kind, k = key.split("\x1f", 1)
        if before is None:
            conn.execute("DELETE FROM learned WHERE kind = ? AND key = ?", (kind, k))
        else:
            body, rid, at = json.loads(before)
            conn.execute(
                "INSERT OR REPLACE INTO learned (kind, key, body_json, run_id, "
                "updated_at) VALUES (?, ?, ?, ?, ?)",
                (kind, k, body, rid, at),
            )
    elif target == "derived":
        # only while the signature is the one the merge read: a signature deleted or replaced
        # since then has rows of its own (written with the vocabulary of that moment)
        image = json.loads(before or "null")
        raw = conn.execute(
            "SELECT signature_json FROM signatures WHERE episode_id = ?", (key,)
        ).fetchone()
        if raw is not None and _digest(raw[0]) == image["signature"]:
            _put_derived_rows(conn, key, image["relations"], image["fingerprint"])
        else:  # its uses left with it: they stay off the terms the merge's undo moves back
            _add_counts(conn, image.get("usage", {}))
    else:
        # counts move back by what the merge moved, so uses added or removed since stay counted
        merged_into, count, into, _into_count = json.loads(before or "null")
        conn.execute(
            "UPDATE vocab SET merged_into = ?, count = count + ? WHERE term = ?",
            (merged_into, count, key),
        )
        _add_counts(conn, {into: -count})


class ConsolidationRows(UsesConnection):
    """Consolidation operations of the store (mixed into :class:`~analogist.store.Store`)."""

    vocabulary: Vocabulary

    def consolidation_watermark(self) -> tuple[int, int]:
        """(last analogy_log rowid, last ledger id) read by the newest run not undone; (0, 0)."""
        row = self.conn.execute(
            "SELECT log_rowid, ledger_id FROM consolidation_runs WHERE undone_at IS NULL "
            "ORDER BY rowid DESC LIMIT 1"
        ).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def log_rows_after(self, rowid: int) -> list[tuple[int, dict]]:
        """Analogy runs written after ``rowid`` (oldest first), as (rowid, run JSON)."""
        return [
            (r[0], json.loads(r[1]))
            for r in self.conn.execute(
                "SELECT rowid, run_json FROM analogy_log WHERE rowid > ? ORDER BY rowid", (rowid,)
            )
        ]

    def signatures_naming(self, names: Sequence[str]) -> list[tuple[str, dict]]:
        """(episode id, stored signature JSON) of every signature whose text names one of
        ``names`` as a relation, link or functor, plus a few look-alikes (callers parse to be
        sure). One scan of the signatures: used by vocabulary merges, which are rare."""
        if not names:
            return []
        likes = [p for n in names for p in (f'%"{n}"%', f"%{n}(%")]
        sql = "SELECT episode_id, signature_json FROM signatures WHERE " + " OR ".join(
            ["signature_json LIKE ?"] * len(likes)
        )
        return [(r[0], json.loads(r[1])) for r in self.conn.execute(sql + " ORDER BY rowid", likes)]

    def find_run(self, run_id: str) -> dict | None:
        """One logged analogy run as its JSON, or None when it is not in the log."""
        row = self.conn.execute(
            "SELECT run_json FROM analogy_log WHERE run_id = ?", (run_id,)
        ).fetchone()
        return json.loads(row[0]) if row else None

    def max_log_rowid(self) -> int:
        return int(
            self.conn.execute("SELECT COALESCE(MAX(rowid), 0) FROM analogy_log").fetchone()[0]
        )

    def ledger_after(self, ledger_id: int) -> list[dict]:
        """Transfer-ledger rows with id above ``ledger_id``, oldest first."""
        return [
            dict(r)
            for r in self.conn.execute(
                "SELECT * FROM transfer_ledger WHERE id > ? ORDER BY id", (ledger_id,)
            )
        ]

    def ledger_for_runs(self, run_ids: Sequence[str]) -> list[dict]:
        """Every ledger row of the given analogy runs (any age)."""
        out: list[dict] = []
        ids = list(dict.fromkeys(run_ids))
        for i in range(0, len(ids), 500):
            part = ids[i : i + 500]
            out += [
                dict(r)
                for r in self.conn.execute(
                    f"SELECT * FROM transfer_ledger WHERE run_id IN ({','.join('?' * len(part))}) "
                    "ORDER BY id",
                    part,
                )
            ]
        return out

    def learned_rows(self, kind: str) -> dict[str, dict]:
        """Learned rows of one kind, key -> body."""
        return {
            r[0]: json.loads(r[1])
            for r in self.conn.execute(
                "SELECT key, body_json FROM learned WHERE kind = ? ORDER BY rowid", (kind,)
            )
        }

    def consolidation_runs(self) -> list[RunRow]:
        """Every consolidation run, oldest first."""
        return [
            RunRow(r[0], r[1], r[2], r[3], json.loads(r[4]), r[5])
            for r in self.conn.execute(
                "SELECT run_id, created_at, log_rowid, ledger_id, report_json, undone_at "
                "FROM consolidation_runs ORDER BY rowid"
            )
        ]

    def apply_consolidation(
        self, run_id: str, changes: Sequence[Change], log_rowid: int, ledger_id: int, report: dict
    ) -> None:
        """Write a consolidation run, its changes and their before images in one transaction."""
        members = {m for c in changes if isinstance(c, PutSchema) for m in c.members}
        missing = members - ep_rows.existing_ids(self.conn, members)
        if missing:
            raise NotFoundError(
                f"consolidation {run_id}: schema member {min(missing)!r} is not a "
                "stored episode; nothing was written"
            )
        now = utcnow()
        with transaction(self.conn) as conn:
            conn.execute(
                "INSERT INTO consolidation_runs (run_id, created_at, log_rowid, ledger_id, "
                "report_json) VALUES (?, ?, ?, ?, ?)",
                (run_id, now, log_rowid, ledger_id, json.dumps(report, default=str)),
            )
            for seq, change in enumerate(changes):
                target, key, before = _before(conn, change)
                conn.execute(
                    "INSERT INTO consolidation_undo (run_id, seq, target, key, before_json) "
                    "VALUES (?, ?, ?, ?, ?)",
                    (run_id, seq, target, key, before),
                )
                _apply(conn, run_id, change, now)
        if any(isinstance(c, MergeTerm) for c in changes):
            self.vocabulary = load_vocabulary(self.conn)

    def undo_consolidation(self, run_id: str) -> int:
        """Undo a consolidation run (the newest not yet undone); return how many changes it undid.

        Raises:
            NotFoundError: no such run. StoreError: a later run must be undone first, or it is
                already undone.
        """
        runs = [r for r in self.consolidation_runs() if r.undone_at is None]
        known = {r.run_id: r for r in self.consolidation_runs()}
        if run_id not in known:
            raise NotFoundError(
                f"consolidation run {run_id!r} is not stored; "
                "`analogist consolidate --runs` lists them"
            )
        if known[run_id].undone_at is not None:
            raise StoreError(
                f"consolidation run {run_id} was already undone at {known[run_id].undone_at}"
            )
        if runs[-1].run_id != run_id:
            raise StoreError(
                f"consolidation run {run_id} has later runs; undo {runs[-1].run_id} first"
            )
        with transaction(self.conn) as conn:
            rows = conn.execute(
                "SELECT target, key, before_json FROM consolidation_undo WHERE "
                "run_id = ? ORDER BY seq DESC",
                (run_id,),
            ).fetchall()
            for target, key, before in rows:
                _restore(conn, target, key, before)
            conn.execute(
                "UPDATE consolidation_runs SET undone_at = ? WHERE run_id = ?", (utcnow(), run_id)
            )
        self.vocabulary = load_vocabulary(self.conn)
        return len(rows)
