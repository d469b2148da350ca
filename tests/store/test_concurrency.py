"""Thread-safe storage (issue 14): one connection per thread, savepoints per connection,
bounded waits for the write lock with a one-line error, and migrations applied once."""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest

from analogist.errors import StoreBusyError
from analogist.store import Store
from analogist.store.calls import CallLog, CallRecord
from analogist.store.db import Connection, connect, migrate, transaction
from analogist.store.migrations import MIGRATIONS, Migration


def rec(i: int) -> CallRecord:
    return CallRecord(cache_key=f"k{i}", provider="p", model="m", request={"i": i})


def test_each_thread_gets_its_own_connection(tmp_path):
    store = Store(tmp_path / "a.db")
    seen = []
    t = threading.Thread(target=lambda: seen.append(store.conn))
    t.start()
    t.join()
    assert seen[0] is not store.conn and isinstance(seen[0], Connection)
    store.close()


def test_a_transaction_in_one_thread_does_not_capture_another_threads_writes(tmp_path):
    """Old behaviour: thread B's write became a savepoint of thread A's transaction (shared
    connection), so A's rollback silently dropped B's row."""
    store = Store(tmp_path / "a.db")
    log = CallLog(store)
    inside, release = threading.Event(), threading.Event()

    def a() -> None:
        try:
            with store.transaction():
                log.record(rec(1))
                inside.set()
                release.wait(5)
                raise RuntimeError("roll A back")
        except RuntimeError:
            pass

    ta = threading.Thread(target=a)
    ta.start()
    inside.wait(5)
    tb = threading.Thread(target=lambda: log.record(rec(2)))
    tb.start()
    release.set()
    ta.join()
    tb.join()
    assert [r.cache_key for r in log.all()] == ["k2"]
    store.close()


@pytest.mark.parametrize("path", [":memory:", "file"])
def test_many_threads_write_every_row_once(tmp_path, path):
    store = Store(tmp_path / "a.db" if path == "file" else ":memory:")
    log = CallLog(store)

    def work(base: int) -> None:
        for i in range(25):
            with store.transaction():
                log.record(rec(base + i))  # nested: a savepoint of this thread's transaction

    threads = [threading.Thread(target=work, args=(100 * n,)) for n in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    keys = [r.cache_key for r in log.all()]
    assert len(keys) == 150 == len(set(keys))
    store.close()


def test_a_writer_waits_past_sqlites_timeout_and_is_not_lost(tmp_path):
    path = tmp_path / "a.db"
    holder = Store(path)
    store = Store(path)
    held = threading.Event()

    def hold() -> None:
        with holder.transaction():
            CallLog(holder).record(rec(1))
            held.set()
            threading.Event().wait(2.5)  # longer than one busy slice of sqlite's handler

    t = threading.Thread(target=hold)
    t.start()
    held.wait(5)
    CallLog(store).record(rec(2))
    t.join()
    assert {r.cache_key for r in CallLog(store).all()} == {"k1", "k2"}
    assert max(store.write_waits()) > 1.0
    holder.close()
    store.close()


def test_the_bound_gives_one_line_and_writes_nothing(tmp_path, monkeypatch):
    path = tmp_path / "a.db"
    holder = Store(path)
    monkeypatch.setenv("ANALOGIST_DB_TIMEOUT", "0.3")
    store = Store(path)
    holder.conn.execute("BEGIN IMMEDIATE")
    with pytest.raises(StoreBusyError, match=r"stayed locked .*ANALOGIST_DB_TIMEOUT") as e:
        CallLog(store).record(rec(1))
    assert "\n" not in str(e.value)
    holder.conn.execute("ROLLBACK")
    assert CallLog(store).count() == 0
    holder.close()
    store.close()


def test_two_connections_opening_a_new_database_migrate_once(tmp_path):
    path = tmp_path / "new.db"
    errors = []

    def open_it() -> None:
        try:
            Store(path).close()
        except Exception as e:  # noqa: BLE001 - the test reports any failure
            errors.append(e)

    threads = [threading.Thread(target=open_it) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    conn = sqlite3.connect(path)
    names = [r[0] for r in conn.execute("SELECT name FROM schema_migrations")]
    assert names == [m.name for m in MIGRATIONS]


def test_migrations_are_functions_and_a_trigger_body_survives():
    assert all(callable(m.apply) for m in MIGRATIONS)
    conn = connect(":memory:")
    trigger = Migration(
        "9001_test_trigger",
        lambda c: c.execute(
            "CREATE TRIGGER count_calls AFTER INSERT ON llm_calls BEGIN "
            "UPDATE vocab SET count = count + 1 WHERE term = 'causes'; "
            "UPDATE vocab SET count = count + 1 WHERE term = 'enables'; END"
        ),
    )
    assert migrate(conn, [*MIGRATIONS, trigger]) == ["9001_test_trigger"]
    with transaction(conn):
        conn.execute(
            "INSERT INTO vocab (term, definition, kind, arity) VALUES ('causes', 'd', 'link', 2)"
        )
        CallLog(conn).record(rec(1))
    assert conn.execute("SELECT count FROM vocab WHERE term='causes'").fetchone()[0] == 1


def test_readers_are_not_blocked_by_a_writer_holding_the_lock(tmp_path):
    path = tmp_path / "a.db"
    writer, reader = Store(path), Store(path)
    CallLog(writer).record(rec(1))
    with writer.transaction():
        CallLog(writer).record(rec(2))
        t0 = time.monotonic()
        assert CallLog(reader).count() == 1  # the last committed state, at once
        assert reader.count() == 0
        assert time.monotonic() - t0 < 0.5
    assert CallLog(reader).count() == 2
    writer.close()
    reader.close()


def test_connections_of_finished_threads_are_closed(tmp_path):
    store = Store(tmp_path / "a.db")
    before = len(store.write_waits())  # migrations and the vocabulary
    for i in range(20):
        t = threading.Thread(target=lambda i=i: CallLog(store).record(rec(i)))
        t.start()
        t.join()
    assert len(store._connections._all) <= 2  # the main one and at most the last thread's
    assert len(store.write_waits()) == before + 20 and CallLog(store).count() == 20
    store.close()
