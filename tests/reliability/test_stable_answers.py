"""Stored bench answers are comparable row by row across reruns: the analogy run inside each
engine answer has an id derived from what was asked, not a random one (issue 14 item 5); and
the per-answer memory is closed."""

from __future__ import annotations

import json

from analogist.bench import generate_bench
from analogist.bench.execution.answer import target_signature
from analogist.bench.execution.arms import ARMS
from analogist.bench.execution.engine_answer import EngineAnswerer
from analogist.bench.execution.runner import RunConfig, run_bench
from analogist.memory import Memory
from analogist.signature import default_vocabulary
from analogist.store import Store


def answer_run_ids(store: Store, run_id: str) -> dict:
    rows = store.conn.execute(
        "SELECT arm, item_id, seed, condition, answer_json FROM bench_results WHERE run_id = ?",
        (run_id,),
    ).fetchall()
    return {tuple(r[:4]): (json.loads(r[4]).get("run") or {}).get("run_id") for r in rows}


def test_rerun_stores_the_same_analogy_run_ids():
    bench = generate_bench(0, "dev", "small")
    config = RunConfig(arms=("E",), answerers=("engine",), seeds=(0, 1))
    first, second = Store(":memory:"), Store(":memory:")
    a = answer_run_ids(first, run_bench(first, bench, config))
    b = answer_run_ids(second, run_bench(second, bench, config))
    assert a == b and len(a) > 10
    assert all(v and v.startswith("run_") for v in a.values())
    assert len(set(a.values())) == len(a)  # distinct questions, distinct ids


def test_engine_answer_closes_its_memory(monkeypatch):
    closed = []
    real_close = Memory.close
    monkeypatch.setattr(Memory, "close", lambda self: (closed.append(self), real_close(self)))
    item = generate_bench(0, "dev", "small").items[0]
    EngineAnswerer(ARMS["E"]).answer(
        item.family, item.inputs, target_signature(item.key, default_vocabulary())
    )
    assert len(closed) == 1
