"""Benchmark runs and their per-item results (bench_runs, bench_results): the SQLite side of
:class:`BenchRows`.

Each result row is written (and committed) as soon as it is scored, so a killed run resumes
where it stopped; the report reads only these rows and never re-runs anything.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from analogist.errors import NotFoundError
from analogist.store.db import UsesConnection, transaction, utcnow

#: A result's key within a run: (arm, answerer, item id, seed, condition).
ResultKey = tuple[str, str, str, int, str]


@dataclass(frozen=True)
class BenchResultRow:
    """One stored result: its key, the Score JSON and the Answer JSON."""

    arm: str
    answerer: str
    item_id: str
    seed: int
    condition: str
    score: dict[str, Any]
    answer: dict[str, Any]

    @property
    def key(self) -> ResultKey:
        return (self.arm, self.answerer, self.item_id, self.seed, self.condition)


class BenchRows(UsesConnection):
    """Benchmark-run operations of the store (mixed into :class:`~analogist.store.Store`)."""

    def start_bench_run(self, run_id: str, bench_hash: str, config: dict[str, Any]) -> bool:
        """Create the run row if new; True when the run already existed (resuming)."""
        row = self.conn.execute(
            "SELECT run_id FROM bench_runs WHERE run_id = ?", (run_id,)
        ).fetchone()
        if row:
            return True
        with transaction(self.conn):
            self.conn.execute(
                "INSERT INTO bench_runs (run_id, bench_hash, config_json, status, created_at) "
                "VALUES (?, ?, ?, 'running', ?)",
                (run_id, bench_hash, json.dumps(config, sort_keys=True), utcnow()),
            )
        return False

    def finish_bench_run(self, run_id: str, status: str = "done") -> None:
        with transaction(self.conn):
            self.conn.execute(
                "UPDATE bench_runs SET status = ?, finished_at = ? WHERE run_id = ?",
                (status, utcnow(), run_id),
            )

    def get_bench_run(self, run_id: str) -> dict[str, Any]:
        """The run row with its ``config`` parsed.

        Raises:
            NotFoundError: no bench run has that id.
        """
        row = self.conn.execute("SELECT * FROM bench_runs WHERE run_id = ?", (run_id,)).fetchone()
        if row is None:
            raise NotFoundError(
                f"bench run {run_id!r} is not in this database; `analogist bench runs` lists them"
            )
        d = dict(row)
        d["config"] = json.loads(d.pop("config_json"))
        return d

    def list_bench_runs(self) -> list[dict[str, Any]]:
        """Run rows newest first (without their config)."""
        return [
            dict(r)
            for r in self.conn.execute(
                "SELECT run_id, bench_hash, status, created_at, finished_at FROM bench_runs "
                "ORDER BY created_at DESC"
            )
        ]

    def bench_done_keys(self, run_id: str) -> set[ResultKey]:
        """The keys of every result the run has stored."""
        return {
            (r[0], r[1], r[2], int(r[3]), r[4])
            for r in self.conn.execute(
                "SELECT arm, answerer, item_id, seed, condition FROM bench_results WHERE run_id = ?",
                (run_id,),
            )
        }

    def put_bench_result(
        self, run_id: str, key: ResultKey, score: dict[str, Any], answer: dict[str, Any]
    ) -> None:
        """Write (or replace) one scored result, committed at once."""
        with transaction(self.conn):
            self.conn.execute(
                "INSERT OR REPLACE INTO bench_results (run_id, arm, answerer, item_id, seed, "
                "condition, score_json, answer_json, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    *key,
                    json.dumps(score, sort_keys=True),
                    json.dumps(answer, sort_keys=True, default=str),
                    utcnow(),
                ),
            )

    def bench_scores(self, run_id: str) -> list[dict[str, Any]]:
        """Every stored score of a run, as Score JSON, in key order."""
        return [
            json.loads(r[0])
            for r in self.conn.execute(
                "SELECT score_json FROM bench_results WHERE run_id = ? ORDER BY arm, answerer, "
                "item_id, seed, condition",
                (run_id,),
            )
        ]

    def bench_results(self, run_id: str) -> list[BenchResultRow]:
        """Every stored result of a run (score and answer), in key order."""
        return [
            BenchResultRow(r[0], r[1], r[2], int(r[3]), r[4], json.loads(r[5]), json.loads(r[6]))
            for r in self.conn.execute(
                "SELECT arm, answerer, item_id, seed, condition, score_json, answer_json "
                "FROM bench_results WHERE run_id = ? ORDER BY arm, answerer, item_id, seed, "
                "condition",
                (run_id,),
            )
        ]

    def bench_answer(self, run_id: str, key: ResultKey) -> dict[str, Any]:
        """The stored Answer JSON of one result.

        Raises:
            NotFoundError: the run holds no result with that key.
        """
        row = self.conn.execute(
            "SELECT answer_json FROM bench_results WHERE run_id=? AND arm=? AND answerer=? AND "
            "item_id=? AND seed=? AND condition=?",
            (run_id, *key),
        ).fetchone()
        if row is None:
            arm, answerer, item_id = key[:3]
            raise NotFoundError(f"no result for {arm}/{answerer}/{item_id} in run {run_id}")
        return dict(json.loads(row[0]))
