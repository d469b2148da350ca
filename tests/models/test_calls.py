"""llm_calls rows: written and read only through CallLog, on a Store or a bare connection."""

import sqlite3

from analogist.store import Store
from analogist.store.calls import CallLog, CallRecord
from analogist.store.db import connect


def rec(key: str, **kw) -> CallRecord:
    return CallRecord(cache_key=key, provider="p", model="m", request={"messages": []}, **kw)


def test_lookup_returns_the_newest_answer_and_skips_errors():
    log = CallLog(Store(":memory:"))
    log.record(rec("k", response_text="old"))
    log.record(rec("k", response_text="new", parsed={"x": 1}))
    log.record(rec("k", error="HTTP 500", attempt=1))
    got = log.lookup("k")
    assert got.response_text == "new" and got.parsed == {"x": 1}
    assert log.lookup("other") is None
    assert [r.response_text for r in log.for_key("k")] == ["old", "new", None]


def test_counts_and_totals():
    log = CallLog(Store(":memory:"))
    log.record(rec("a", input_tokens=10, output_tokens=3, latency_ms=5.0))
    log.record(rec("b", error="timeout"))
    assert (log.count(), log.count(errors=True), log.count(errors=False)) == (2, 1, 1)
    t = log.totals()["p:m"]
    assert (t["calls"], t["errors"], t["input_tokens"], t["output_tokens"]) == (2, 1, 10, 3)


def test_records_round_trip_through_json_for_recorded_tests():
    src = CallLog(Store(":memory:"))
    src.record(rec("a", response_text="t", parsed=[1], input_tokens=4, prompt_version="v"))
    exported = [r.to_json() for r in src.all()]
    dst = CallLog(Store(":memory:"))
    assert dst.record_many(CallRecord.from_json(d) for d in exported) == 1
    (got,) = dst.all()
    assert (got.cache_key, got.parsed, got.input_tokens, got.prompt_version) == ("a", [1], 4, "v")


def test_works_on_a_bare_connection_without_changing_its_row_factory():
    conn = connect(":memory:")
    conn.row_factory = None
    CallLog(conn).record(rec("a"))
    assert CallLog(conn).lookup("a").cache_key == "a"
    assert isinstance(conn.execute("SELECT 1").fetchone(), tuple)
    assert conn.row_factory is None or conn.row_factory is sqlite3.Row
