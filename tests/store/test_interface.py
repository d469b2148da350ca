"""The SQLite store implements the whole store interface, and its run-log and bench-row
operations round-trip (the seam a second backend must satisfy)."""

import inspect

import pytest

from analogist.errors import NotFoundError
from analogist.store import Store, StoreInterface, TransferOutcome


def _members(cls) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_")} | set(getattr(cls, "__annotations__", {}))


def test_sqlite_store_has_every_interface_operation_with_the_same_parameters():
    s = Store()
    assert isinstance(s, StoreInterface)
    for name in _members(StoreInterface):
        assert hasattr(s, name), name
        proto = getattr(StoreInterface, name, None)
        if inspect.isfunction(proto):
            want = list(inspect.signature(proto).parameters)
            assert list(inspect.signature(getattr(Store, name)).parameters) == want, name


def test_run_log_writes_run_and_ledger_entry_together():
    s = Store()
    run = {
        "run_id": "r1",
        "trigger": {"tier": 1},
        "candidates": [{"episode_id": "e1"}],
        "critic": {"verdict": "accept"},
        "cost": {"tokens": 3, "model_calls": 1},
    }
    ledger_id = s.log_run(run, TransferOutcome("fix(a)", "worse", delta=0.5))
    assert s.get_run("r1")["candidates"] == [{"episode_id": "e1"}]
    (row,) = s.ledger("r1")
    assert (row.id, row.action, row.negative) == (ledger_id, "fix(a)", True)
    assert s.log_run({**run, "run_id": "r2"}) is None and s.ledger("r2") == []
    assert [r["run_id"] for r in s.list_runs(limit=1)] == ["r2"]
    with pytest.raises(NotFoundError):
        s.get_run("nope")


def test_a_failed_run_write_leaves_no_ledger_row():
    s = Store()
    with pytest.raises(KeyError):
        s.log_run({"trigger": {}}, TransferOutcome("fix", "resolved"))  # no run_id
    assert s.ledger() == []


def test_bench_rows_round_trip_and_resume_keys():
    s = Store()
    assert s.start_bench_run("b1", "hash", {"a": 1}) is False
    assert s.start_bench_run("b1", "hash", {"a": 1}) is True
    key = ("E", "engine", "item1", 0, "")
    s.put_bench_result("b1", key, {"nav": 1.0}, {"claimed_source": "x"})
    assert s.bench_done_keys("b1") == {key}
    assert s.bench_scores("b1") == [{"nav": 1.0}]
    (row,) = s.bench_results("b1")
    assert row.key == key and row.answer == {"claimed_source": "x"}
    assert s.bench_answer("b1", key) == {"claimed_source": "x"}
    s.finish_bench_run("b1")
    assert s.get_bench_run("b1")["status"] == "done"
    assert [r["run_id"] for r in s.list_bench_runs()] == ["b1"]
    with pytest.raises(NotFoundError):
        s.bench_answer("b1", ("E", "engine", "other", 0, ""))
