"""SQL for benchmark runs and their per-item results (bench_runs, bench_results).

Each result row is written (and committed) as soon as it is scored, so a killed run resumes
where it stopped; the report reads only these rows and never re-runs anything.
"""

from __future__ import annotations

import json
import sqlite3

from analogist.errors import NotFoundError
from analogist.store.db import transaction, utcnow


def start_run(conn: sqlite3.Connection, run_id: str, bench_hash: str, config: dict) -> bool:
    """Create the run row if new; True when the run already existed (resuming)."""
    row = conn.execute("SELECT run_id FROM bench_runs WHERE run_id = ?", (run_id,)).fetchone()
    if row:
        return True
    with transaction(conn):
        conn.execute(
            "INSERT INTO bench_runs (run_id, bench_hash, config_json, status, created_at) "
            "VALUES (?, ?, ?, 'running', ?)", (run_id, bench_hash, json.dumps(config, sort_keys=True), utcnow()))
    return False


def finish_run(conn: sqlite3.Connection, run_id: str, status: str = "done") -> None:
    with transaction(conn):
        conn.execute("UPDATE bench_runs SET status = ?, finished_at = ? WHERE run_id = ?",
                     (status, utcnow(), run_id))


def get_bench_run(conn: sqlite3.Connection, run_id: str) -> dict:
    row = conn.execute("SELECT * FROM bench_runs WHERE run_id = ?", (run_id,)).fetchone()
    if row is None:
        raise NotFoundError(f"bench run {run_id!r} is not in this database; "
                            "`analogist bench runs` lists them")
    d = dict(row)
    d["config"] = json.loads(d.pop("config_json"))
    return d


def list_bench_runs(conn: sqlite3.Connection) -> list[dict]:
    return [dict(r) for r in conn.execute(
        "SELECT run_id, bench_hash, status, created_at, finished_at FROM bench_runs "
        "ORDER BY created_at DESC")]


def done_keys(conn: sqlite3.Connection, run_id: str) -> set[tuple]:
    return {tuple(r) for r in conn.execute(
        "SELECT arm, answerer, item_id, seed, condition FROM bench_results WHERE run_id = ?", (run_id,))}


def put_result(conn: sqlite3.Connection, run_id: str, arm: str, answerer: str, item_id: str,
               seed: int, condition: str, score: dict, answer: dict) -> None:
    with transaction(conn):
        conn.execute(
            "INSERT OR REPLACE INTO bench_results (run_id, arm, answerer, item_id, seed, condition, "
            "score_json, answer_json, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (run_id, arm, answerer, item_id, seed, condition, json.dumps(score, sort_keys=True),
             json.dumps(answer, sort_keys=True, default=str), utcnow()))


def results(conn: sqlite3.Connection, run_id: str) -> list[dict]:
    """Every stored score of a run, as Score JSON."""
    return [json.loads(r[0]) for r in conn.execute(
        "SELECT score_json FROM bench_results WHERE run_id = ? ORDER BY arm, answerer, item_id, "
        "seed, condition", (run_id,))]


def answer_json(conn: sqlite3.Connection, run_id: str, arm: str, answerer: str, item_id: str,
                seed: int = 0, condition: str = "") -> dict:
    row = conn.execute(
        "SELECT answer_json FROM bench_results WHERE run_id=? AND arm=? AND answerer=? AND "
        "item_id=? AND seed=? AND condition=?", (run_id, arm, answerer, item_id, seed, condition)).fetchone()
    if row is None:
        raise NotFoundError(f"no result for {arm}/{answerer}/{item_id} in run {run_id}")
    return json.loads(row[0])
