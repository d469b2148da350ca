"""The analogy log and the negative-transfer ledger (spec §12 ``analogy_log``,
§10.2 item 7 ``transfer_ledger``): the SQLite side of :class:`RunLog`.

A run is stored as its versioned JSON (:meth:`analogist.reason.run.AnalogyRun.to_json`) plus
the indexed columns spec §12 names; the store never interprets the JSON beyond those columns,
so the run record's schema can evolve without a migration here.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from analogist.errors import NotFoundError
from analogist.store.db import Connection, UsesConnection, transaction, utcnow


@dataclass(frozen=True)
class TransferOutcome:
    """An applied transfer to add to the ledger: the action, what happened versus the control
    (``resolved`` | ``unchanged`` | ``worse``), and the symptom change (positive is worse)."""

    action: str
    outcome: str
    control: str | None = "no action"
    delta: float | None = None

    @property
    def negative(self) -> bool:
        """Did worse than the no-action control."""
        return self.outcome == "worse" or (self.delta is not None and self.delta > 0)


@dataclass(frozen=True)
class LedgerRow:
    """One stored ledger row."""

    id: int
    run_id: str
    action: str
    outcome: str
    control: str | None
    delta: float | None
    negative: bool
    created_at: str

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "run_id": self.run_id,
            "action": self.action,
            "outcome": self.outcome,
            "control": self.control,
            "delta": self.delta,
            "negative": self.negative,
            "created_at": self.created_at,
        }


def _index_columns(run: dict[str, Any]) -> tuple[Any, ...]:
    """The analogy_log columns spec §12 names, read from a run's JSON."""
    cands = run.get("candidates") or []
    cost = run.get("cost") or {}
    critic = run.get("critic")
    return (
        run["run_id"],
        run.get("target_id"),
        json.dumps(run.get("trigger") or {}),
        json.dumps([c.get("episode_id") for c in cands]),
        json.dumps({c.get("episode_id"): c.get("found_by", []) for c in cands}),
        json.dumps(run["mapping"]) if run.get("mapping") is not None else None,
        run.get("structural_score"),
        critic.get("verdict") if isinstance(critic, dict) else None,
        json.dumps(run.get("transferred") or []),
        run.get("predicted_observable"),
        run.get("verification_result"),
        run.get("outcome_delta"),
        int(cost.get("tokens", 0)),
        int((run.get("trigger") or {}).get("tier") or 0),
        int(cost.get("model_calls", 0)),
        float(cost.get("wall_ms", 0.0)),
    )


def _write_run(conn: Connection, run: dict[str, Any]) -> None:
    run = {**run, "created_at": run.get("created_at") or utcnow()}
    conn.execute(
        "INSERT OR REPLACE INTO analogy_log (run_id, target_id, trigger, candidate_ids, "
        "candidate_channels, mapping_json, structural_score, critic_verdict, "
        "transferred_elements, predicted_observable, verification_result, outcome_delta, "
        "token_cost, tier, model_calls, wall_ms, run_json, created_at) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (*_index_columns(run), json.dumps(run, default=str), run["created_at"]),
    )


def _add_ledger(conn: Connection, run_id: str, t: TransferOutcome) -> int:
    cur = conn.execute(
        "INSERT INTO transfer_ledger (run_id, action, outcome, control, delta, negative, "
        "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        (run_id, t.action, t.outcome, t.control, t.delta, int(t.negative), utcnow()),
    )
    return int(cur.lastrowid or 0)


class RunLog(UsesConnection):
    """Analogy-log and ledger operations of the store (mixed into
    :class:`~analogist.store.Store`)."""

    def log_run(self, run: dict[str, Any], transfer: TransferOutcome | None = None) -> int | None:
        """Write (or replace) one run, and the applied transfer it reports, in one transaction.

        Returns:
            The ledger row id when ``transfer`` was given, else None.
        """
        with transaction(self.conn):
            _write_run(self.conn, run)
            return _add_ledger(self.conn, run["run_id"], transfer) if transfer else None

    def get_run(self, run_id: str) -> dict[str, Any]:
        """One run's stored JSON (read it with :meth:`analogist.reason.run.AnalogyRun.from_json`).

        Raises:
            NotFoundError: no run has that id.
        """
        row = self.conn.execute(
            "SELECT run_json FROM analogy_log WHERE run_id = ?", (run_id,)
        ).fetchone()
        if row is None:
            raise NotFoundError(
                f"analogy run {run_id!r} is not in the log; `analogist log` lists runs"
            )
        return dict(json.loads(row[0]))

    def list_runs(self, limit: int | None = None, since: str | None = None) -> list[dict[str, Any]]:
        """Runs newest first, as their stored JSON; ``since`` is an ISO UTC time."""
        q, args = "SELECT run_json FROM analogy_log", list[str | int]()
        if since:
            q, args = q + " WHERE created_at >= ?", [since]
        q += " ORDER BY created_at DESC, rowid DESC"
        if limit:
            q, args = q + " LIMIT ?", [*args, limit]
        return [json.loads(r[0]) for r in self.conn.execute(q, args)]

    def record_transfer(self, run_id: str, transfer: TransferOutcome) -> int:
        """Add one applied transfer to the ledger; return its row id."""
        with transaction(self.conn):
            return _add_ledger(self.conn, run_id, transfer)

    def ledger(self, run_id: str | None = None) -> list[LedgerRow]:
        """Ledger rows oldest first (of one run when ``run_id`` is given)."""
        q, args = "SELECT * FROM transfer_ledger", list[str]()
        if run_id is not None:
            q, args = q + " WHERE run_id = ?", [run_id]
        return [
            LedgerRow(
                r["id"],
                r["run_id"],
                r["action"],
                r["outcome"],
                r["control"],
                r["delta"],
                bool(r["negative"]),
                r["created_at"],
            )
            for r in self.conn.execute(q + " ORDER BY id", args)
        ]
