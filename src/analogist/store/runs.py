"""SQL for the analogy_log table (spec §12): write one run, read runs back."""

from __future__ import annotations

import json
import sqlite3

from analogist.errors import NotFoundError
from analogist.store.db import transaction, utcnow


def write_run(conn: sqlite3.Connection, run: dict) -> None:
    """Insert (or replace) one AnalogyRun given as its JSON form."""
    created = run.get("created_at") or utcnow()
    run = {**run, "created_at": created}
    cands = run.get("candidates", [])
    cost = run.get("cost", {})
    with transaction(conn):
        conn.execute(
            "INSERT OR REPLACE INTO analogy_log (run_id, target_id, trigger, candidate_ids, "
            "candidate_channels, mapping_json, structural_score, critic_verdict, "
            "transferred_elements, predicted_observable, verification_result, outcome_delta, "
            "token_cost, tier, model_calls, wall_ms, run_json, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                run["run_id"], run.get("target_id"), json.dumps(run.get("trigger", {})),
                json.dumps([c.get("episode_id") for c in cands]),
                json.dumps({c.get("episode_id"): c.get("found_by", []) for c in cands}),
                json.dumps(run.get("mapping")) if run.get("mapping") is not None else None,
                run.get("structural_score"),
                (run.get("critic") or {}).get("verdict"),
                json.dumps(run.get("transferred", [])),
                run.get("predicted_observable"), run.get("verification_result"),
                run.get("outcome_delta"), int(cost.get("tokens", 0)),
                int((run.get("trigger") or {}).get("tier") or 0), int(cost.get("model_calls", 0)),
                float(cost.get("wall_ms", 0.0)), json.dumps(run, default=str), created,
            ),
        )


def get_run(conn: sqlite3.Connection, run_id: str) -> dict:
    row = conn.execute("SELECT run_json FROM analogy_log WHERE run_id = ?", (run_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"analogy run {run_id!r} is not in the log; `analogist log` lists runs")
    return json.loads(row[0])


def list_runs(conn: sqlite3.Connection, limit: int | None = None, since: str | None = None) -> list[dict]:
    """Runs newest first, as their stored JSON."""
    q, args = "SELECT run_json FROM analogy_log", []
    if since:
        q, args = q + " WHERE created_at >= ?", [since]
    q += " ORDER BY created_at DESC, rowid DESC"
    if limit:
        q, args = q + " LIMIT ?", args + [limit]
    return [json.loads(r[0]) for r in conn.execute(q, args)]


def update_outcome(conn: sqlite3.Connection, run_id: str, verification: str, delta: float | None) -> None:
    """Record a run's verification result and outcome later (the loop's last step, spec §1)."""
    run = get_run(conn, run_id)
    run["verification_result"], run["outcome_delta"] = verification, delta
    write_run(conn, run)


def record_transfer(conn: sqlite3.Connection, run_id: str, action: str, outcome: str,
                    control: str | None, delta: float | None) -> None:
    """Add one applied transfer to the negative-transfer ledger (spec §10.2 item 7).

    ``negative`` is set when the action did worse than the no-action control.
    """
    negative = outcome == "worse" or (delta is not None and delta > 0)
    with transaction(conn):
        conn.execute(
            "INSERT INTO transfer_ledger (run_id, action, outcome, control, delta, negative, "
            "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (run_id, action, outcome, control, delta, int(negative), utcnow()),
        )


def ledger(conn: sqlite3.Connection) -> list[dict]:
    return [dict(r) for r in conn.execute("SELECT * FROM transfer_ledger ORDER BY id")]
