"""Benchmark runs with a model answerer in 4 threads share one store without losing anything.

Regression test for issue 14 item 1: with one connection shared by the runner's threads, runs
died with ``no such savepoint`` / ``cannot start a transaction within a transaction`` and a call
went unlogged. Against a flaky model (random delays, 429s, 5xx, unreadable answers) every HTTP
call must be logged exactly once and every result row stored exactly once.
"""

from __future__ import annotations

import pytest

from analogist.bench import generate_bench
from analogist.bench.execution.runner import RunConfig, Runner
from analogist.models import ModelSettings, open_llm
from analogist.models.settings import RetryPolicy
from analogist.store import Store
from analogist.store.calls import CallLog

from .stub_model import FlakyModel

SEEDS = (0, 1, 2, 3, 4, 5)


@pytest.fixture(scope="module")
def mvp():
    return generate_bench(0, "dev", "mvp")


def run_once(tmp_path, mvp, server_seed: int):
    with FlakyModel(seed=server_seed) as server:
        store = Store(tmp_path / f"run{server_seed}.db")
        settings = ModelSettings(
            base_url=server.base_url,
            api_key="sk-test",
            timeout_s=10,
            retry=RetryPolicy(max_attempts=3, base_delay_s=0.001),
            max_concurrency=4,
        )  # json_mode auto, as configured by default
        llm = open_llm("openai-compat:stub", store=store, settings=settings)
        config = RunConfig(
            arms=("A0",), answerers=("model",), seeds=SEEDS, contamination=False, concurrency=4
        )
        runner = Runner(store, mvp, config, llm=llm)
        run_id = runner.run()
        jobs = list(runner._jobs())
        return store, run_id, jobs, server


def test_four_threads_log_every_call_once_and_store_every_row_once(tmp_path, mvp):
    store, run_id, jobs, server = run_once(tmp_path, mvp, server_seed=7)
    try:
        served = sum(server.served.values())
        log = CallLog(store)
        assert served > len(jobs)  # errors and 429s were retried
        assert log.count() == served
        assert log.count(errors=True) == server.served["429"] + server.served["500"]
        assert log.count(errors=False) == server.served["ok"] + server.served["garbage"]
        keys = store.conn.execute(
            "SELECT COUNT(*), COUNT(DISTINCT cache_key || ':' || attempt) FROM llm_calls "
            "WHERE error IS NULL"
        ).fetchone()
        assert keys[0] == keys[1]  # no success row logged twice
        stored = store.conn.execute(
            "SELECT arm, answerer, item_id, seed, condition FROM bench_results WHERE run_id = ?",
            (run_id,),
        ).fetchall()
        assert len(stored) == len(jobs) == len(set(map(tuple, stored)))
        assert store.get_bench_run(run_id)["status"] == "done"
    finally:
        store.close()
