"""The PostgreSQL backend passes the same store checks as SQLite (parametrised over both), and a
Memory searches on it end to end. One throwaway cluster per test session (tests/store/pg_server);
each test gets a fresh database. Skips, with the reason, when the server binaries or psycopg are
missing."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from analogist.episode import parse_episode
from analogist.errors import (
    AnalogistError,
    ConfigError,
    DuplicateEpisodeError,
    NotFoundError,
    StoreError,
)
from analogist.store import CallRecord, Derived, Store, StoreInterface, TransferOutcome

Opener = Callable[[], Store]


@pytest.fixture(params=["sqlite", "postgres"])
def open_db(request: pytest.FixtureRequest, tmp_path) -> Iterator[Opener]:
    """Opens (and reopens) one fresh database of the parametrised backend."""
    opened: list[Store] = []
    if request.param == "sqlite":
        target = str(tmp_path / "a.db")
    else:
        target = request.getfixturevalue("pg_server").url()

    def _open() -> Store:
        from analogist.store.postgres import open_store

        s = open_store(target)
        opened.append(s)
        return s

    yield _open
    for s in opened:
        s.close()


def state(s: Store) -> tuple:
    """Everything the interface can see, to compare before and after a refused write."""
    return (
        s.episode_ids(),
        s.vocab_counts(),
        s.fingerprints(),
        s.summary(),
        s.ledger(),
        s.index_state(),
        [r["run_id"] for r in s.list_runs()],
    )


# conformance ----------------------------------------------------------------------------
def test_postgres_store_has_every_interface_operation_with_the_same_parameters(pg_server):
    from analogist.store.postgres import PostgresStore

    s = PostgresStore(pg_server.url())
    assert isinstance(s, StoreInterface)
    for name in {n for n in dir(StoreInterface) if not n.startswith("_")}:
        assert hasattr(s, name), name
        proto = getattr(StoreInterface, name, None)
        if inspect.isfunction(proto):
            want = list(inspect.signature(proto).parameters)
            assert list(inspect.signature(getattr(PostgresStore, name)).parameters) == want, name
    s.close()


def test_reopen_keeps_data_and_runs_no_migration_twice(open_db, spec_example):
    s = open_db()
    s.add_episodes([parse_episode(spec_example, s.vocabulary)])
    s.close()
    s2 = open_db()
    assert s2.signature_json(spec_example["episode_id"]) == spec_example
    assert len(s2.vocabulary) == len(s.vocabulary)


def test_no_secondary_index_that_no_query_reads(open_db):
    from analogist.store.postgres import PostgresStore

    s = open_db()
    if isinstance(s, PostgresStore):
        rows = s.conn.raw.execute("SELECT indexname FROM pg_indexes").fetchall()
    else:
        rows = s.conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'").fetchall()
    names = {r[0] for r in rows}
    assert not names & {"sig_fingerprint_hash", "sig_relations_predicate", "sig_relations_episode"}


def test_relation_rows_of_an_older_schema_move_into_the_column(open_db, spec_example, monkeypatch):
    """``0007_relations_column`` on both backends: rows an analogist before it stored in the
    ``sig_relations`` table read back through the view unchanged and in order, the column
    holds what a new add writes, and the index state is as it was."""
    from analogist.signature.model import parse_signature
    from analogist.store import migrations, pg_migrations, postgres
    from analogist.store.signature_rows import relation_rows, relations_json, signature_row

    monkeypatch.setattr(postgres, "PG_MIGRATIONS", pg_migrations.PG_MIGRATIONS[:6])
    monkeypatch.setattr("analogist.store.db.MIGRATIONS", migrations.MIGRATIONS[:6])
    s = open_db()
    sig = parse_signature(spec_example, s.vocabulary)
    old = relation_rows(sig)
    with s.transaction():
        s.conn.execute(
            "INSERT INTO episodes (id, kind, text, added_at) VALUES (?, ?, 'x', 'now')",
            (sig.episode_id, sig.kind),
        )
        s.conn.execute(
            "INSERT INTO signatures (episode_id, kind, signature_json, writer_model, "
            "written_at, verified, domain) VALUES (?, ?, ?, ?, ?, ?, ?)",
            signature_row(sig)[:7],
        )
        s.conn.executemany(
            "INSERT INTO sig_relations (episode_id, predicate, arg1_role, arg2_role, "
            "args_json, in_causal_chain) VALUES (?, ?, ?, ?, ?, ?)",
            old,
        )
    state = s.conn.execute("SELECT generation, rebuilds FROM index_state").fetchone()
    s.close()
    monkeypatch.undo()
    s = open_db()
    got = s.conn.execute(
        "SELECT episode_id, predicate, arg1_role, arg2_role, args_json, in_causal_chain "
        "FROM sig_relations"
    ).fetchall()
    assert [tuple(r) for r in got] == old
    stored = s.conn.execute("SELECT relations_json FROM signatures").fetchone()[0]
    assert stored == relations_json(old)
    assert tuple(s.conn.execute("SELECT generation, rebuilds FROM index_state").fetchone()) == (
        tuple(state)
    )


def test_add_get_list_delete(open_db, spec_example):
    s = open_db()
    ep = parse_episode(spec_example, s.vocabulary)
    s.add_episodes([ep])
    assert s.get_episode(ep.id).signature == ep.signature
    assert s.has_episode(ep.id) and s.existing_ids([ep.id, "zz"]) == {ep.id}
    assert [e.id for e in s.list_episodes(domain="monitoring")] == [ep.id]
    assert s.list_episodes(kind="success") == []
    assert s.vocab_counts()["skips_check"] == 2
    assert s.summary()["signed"] == 1
    s.delete_episodes([ep.id])
    assert s.count() == 0 and s.vocab_counts()["skips_check"] == 0
    with pytest.raises(NotFoundError, match="analogist list"):
        s.get_episode(ep.id)


def test_duplicates_and_unknown_deletes_leave_the_store_unchanged(open_db, spec_example):
    s = open_db()
    s.add_episodes([parse_episode(spec_example, s.vocabulary)])
    before = state(s)
    other = parse_episode({"id": "ep_new", "kind": "failure", "text": "x"}, s.vocabulary)
    with pytest.raises(DuplicateEpisodeError, match="already stored"):
        s.add_episodes([other, parse_episode(spec_example, s.vocabulary)])
    with pytest.raises(DuplicateEpisodeError, match="twice in this batch"):
        s.add_episodes([other, other])
    with pytest.raises(NotFoundError, match="nothing was deleted"):
        s.delete_episodes([spec_example["episode_id"], "ep_missing"])
    assert state(s) == before


def test_failure_mid_write_rolls_back(open_db, spec_example, monkeypatch):
    s = open_db()
    good = parse_episode({"id": "ep_a", "kind": "failure", "text": "first"}, s.vocabulary)
    sig_ep = parse_episode(spec_example, s.vocabulary)
    before = state(s)
    from analogist.store import episodes as rows

    real = rows.bump_counts

    def boom(conn, usage, sign):
        real(conn, usage, sign)
        conn.execute("SELECT * FROM no_such_table")  # a server-side (or SQLite) error

    monkeypatch.setattr(rows, "bump_counts", boom)
    with pytest.raises(AnalogistError, match="nothing was stored"):
        s.add_episodes([good, sig_ep])
    assert state(s) == before


def test_lexical_search_finds_words(open_db, spec_example):
    s = open_db()
    s.add_episodes([parse_episode(spec_example, s.vocabulary)])
    s.add_episodes(
        [parse_episode({"id": "other", "kind": "failure", "text": "zebra crossing"}, s.vocabulary)]
    )
    assert s.bm25("cached summary")[0][0] == spec_example["episode_id"]
    assert [i for i, _ in s.bm25("zebra")] == ["other"]
    assert s.bm25("nothing matches this") == [] and s.bm25("?!") == []


def test_vectors_fingerprints_and_index_state_round_trip(open_db, spec_example):
    s = open_db()
    s.add_episodes([parse_episode(spec_example, s.vocabulary)])
    eid = spec_example["episode_id"]
    vec = np.arange(4, dtype=np.float32)
    g0 = s.index_state().generation
    s.put_derived({eid: Derived(vectors=(("L2", "emb", vec),), fingerprint=("h", "v1", {"a": 2}))})
    ids, mat = s.vectors("L2", "emb")
    assert ids == [eid] and mat.tolist() == [vec.tolist()]
    assert s.fingerprints() == [(eid, "h", {"a": 2})]
    st = s.index_state()
    assert st.generation == g0 + 2 and st.top_rowid["sig_vectors"] > 0
    [(last, got_ids, got)] = list(s.vectors_after(0, "L2", "emb"))
    assert got_ids == [eid] and got.shape == (1, 4)
    assert list(s.vectors_after(last, "L2", "emb")) == []
    s.put_derived({eid: Derived(vectors=(("L2", "emb", vec * 2),))})  # a replace is a rebuild
    assert s.index_state().rebuilds == st.rebuilds + 1
    assert s.vectors("L2", "emb")[1].tolist() == [(vec * 2).tolist()]
    with s.read_snapshot():
        assert s.count() == 1


def test_newest_vector_embedders_name_what_the_newest_episode_was_embedded_with(
    open_db, spec_example
):
    s = open_db()
    assert s.newest_vector_embedders() == []
    s.add_episodes([parse_episode(spec_example, s.vocabulary)])
    eid, vec = spec_example["episode_id"], np.ones(4, dtype=np.float32)
    s.put_derived({eid: Derived(vectors=(("L2", "old", vec), ("L3", "old", vec)))})
    assert s.newest_vector_embedders() == ["old"]
    s.put_derived({eid: Derived(vectors=(("L2", "new", vec),))})  # re-embedded: both there
    assert s.newest_vector_embedders() == ["new", "old"]


def test_run_log_and_ledger(open_db):
    s = open_db()
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
    assert [r for r, _ in s.log_rows_after(0)] == sorted(r for r, _ in s.log_rows_after(0))
    assert s.max_log_rowid() == s.log_rows_after(0)[-1][0]
    with pytest.raises(NotFoundError):
        s.get_run("nope")
    with pytest.raises(KeyError):
        s.log_run({"trigger": {}}, TransferOutcome("fix", "resolved"))  # no run_id
    assert len(s.ledger()) == 1


def test_bench_rows_round_trip_and_resume_keys(open_db):
    s = open_db()
    assert s.start_bench_run("b1", "hash", {"a": 1}) is False
    assert s.start_bench_run("b1", "hash", {"a": 1}) is True
    key = ("E", "engine", "item1", 0, "")
    s.put_bench_result("b1", key, {"nav": 1.0}, {"claimed_source": "x"})
    s.put_bench_result("b1", key, {"nav": 0.5}, {"claimed_source": "y"})  # replaced, not added
    assert s.bench_done_keys("b1") == {key}
    assert s.bench_scores("b1") == [{"nav": 0.5}]
    assert s.bench_answer("b1", key) == {"claimed_source": "y"}
    s.finish_bench_run("b1")
    assert s.get_bench_run("b1")["status"] == "done"
    assert [r["run_id"] for r in s.list_bench_runs()] == ["b1"]


def test_schemas_and_call_log(open_db, spec_example):
    s = open_db()
    s.add_episodes([parse_episode(spec_example, s.vocabulary)])
    eid = spec_example["episode_id"]
    s.put_schema("sc1", {"name": "x"}, [eid], times_used=2)
    (row,) = s.list_schemas()
    assert row.schema_id == "sc1" and row.times_used == 2
    state0 = s.schemas_state()
    s.delete_schema("sc1")
    assert s.list_schemas() == [] and s.schemas_state() != state0
    rec = CallRecord(
        cache_key="k",
        provider="scripted",
        model="m",
        request={"q": 1},
        response_text="a",
        input_tokens=3,
        output_tokens=4,
        latency_ms=1.5,
    )
    rid = s.calls.record(rec)
    assert rid >= 1 and s.calls.lookup("k").response_text == "a"
    assert s.calls.totals()["scripted:m"]["input_tokens"] == 3


# the URL dispatch -------------------------------------------------------------------------
def test_bad_urls_and_unreachable_servers_say_what_to_fix(pg_server):
    from analogist.store.postgres import open_store

    with pytest.raises(ConfigError, match="unknown database URL scheme"):
        open_store("mysql://x@localhost/db")
    with pytest.raises(ConfigError, match="postgresql://USER@HOST:PORT/DBNAME"):
        open_store("postgresql://u@127.0.0.1:notaport/db")
    url = pg_server.base_url("no_such_database")
    with pytest.raises(StoreError, match="cannot open PostgreSQL database .*no_such_database") as e:
        open_store(url)
    assert "\n" not in str(e.value)


def test_memory_searches_a_postgres_memory_end_to_end(pg_server, tmp_path, monkeypatch):
    from analogist.memory import Memory
    from analogist.store.postgres import PostgresStore
    from tests.retrieve import cases

    monkeypatch.setenv("ANALOGIST_INDEX_DIR", str(tmp_path / "idx"))
    url = pg_server.url()
    m = Memory(url)
    assert isinstance(m.store, PostgresStore)
    assert m.add(cases.lines(*cases.ALL)).added == [e["id"] for e in cases.ALL]
    pool = m.search("proxy")
    assert "proxy" in pool.excluded and pool.candidates[0].episode_id == "ledger"
    assert {"S0", "S1"} <= set(pool.candidates[0].found_by)
    m.close()
    again = Memory(url)  # a second process's view: same answer from the same server
    assert again.search("proxy").candidates[0].episode_id == "ledger"
    again.close()


def test_many_writers_on_one_postgres_memory(pg_server):
    """Stores opened at once on a new database (one migrates, the others wait) and writing
    from several threads: every add lands, and the persisted-index state counts each one."""
    from concurrent.futures import ThreadPoolExecutor

    from analogist.store.postgres import PostgresStore

    url = pg_server.url()
    with ThreadPoolExecutor(4) as pool:
        stores = list(pool.map(lambda _: PostgresStore(url), range(4)))

    def add(n: int) -> None:
        s = stores[n]
        for i in range(10):
            s.add_episodes(
                [
                    parse_episode(
                        {"id": f"w{n}_{i}", "kind": "observation", "text": f"writer {n} note {i}"},
                        s.vocabulary,
                    )
                ]
            )

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(add, range(4)))
    assert stores[0].count() == 40 and len(set(stores[1].episode_ids())) == 40
    assert [i for i, _ in stores[2].bm25("writer 3 note 7")][:1] == ["w3_7"]
    for s in stores:
        s.close()


def _rec(i: int) -> CallRecord:
    return CallRecord(cache_key=f"k{i}", provider="p", model="m", request={"i": i})


def test_readers_are_not_blocked_and_a_rollback_keeps_other_writers_rows(pg_server):
    """A reader sees the last committed state at once while a writer holds the lock; a writer
    in another thread waits for the lock, and a rollback of the first drops only its own row."""
    import threading
    import time

    from analogist.store.postgres import PostgresStore

    url = pg_server.url()
    writer, reader = PostgresStore(url), PostgresStore(url)
    writer.calls.record(_rec(1))
    inside, release = threading.Event(), threading.Event()

    def a() -> None:
        try:
            with writer.transaction():
                writer.calls.record(_rec(2))
                inside.set()
                release.wait(5)
                raise RuntimeError("roll A back")
        except RuntimeError:
            pass

    ta = threading.Thread(target=a)
    ta.start()
    inside.wait(5)
    t0 = time.monotonic()
    assert reader.calls.count() == 1 and time.monotonic() - t0 < 0.5
    tb = threading.Thread(target=lambda: writer.calls.record(_rec(3)))
    tb.start()
    release.set()
    ta.join()
    tb.join()
    assert [r.cache_key for r in reader.calls.all()] == ["k1", "k3"]
    writer.close()
    reader.close()


def test_the_writer_lock_wait_is_bounded_with_one_line(pg_server, monkeypatch):
    from analogist.errors import StoreBusyError
    from analogist.store.postgres import PostgresStore

    url = pg_server.url()
    holder, waiter = PostgresStore(url), PostgresStore(url)
    monkeypatch.setenv("ANALOGIST_DB_TIMEOUT", "0.3")
    with holder.transaction():
        holder.calls.record(_rec(1))
        with pytest.raises(StoreBusyError, match="stayed locked by another writer") as e:
            waiter.calls.record(_rec(2))
    assert "\n" not in str(e.value)
    assert [r.cache_key for r in waiter.calls.all()] == ["k1"]
    waiter.calls.record(_rec(3))  # the connection is usable again
    assert waiter.calls.count() == 2
    holder.close()
    waiter.close()


def test_consolidation_applies_and_undoes_exactly(open_db, spec_example):
    from analogist.store.consolidation import MergeTerm, PutLearned, PutSchema

    s = open_db()
    s.add_episodes([parse_episode(spec_example, s.vocabulary)])
    eid = spec_example["episode_id"]
    before = (s.list_schemas(), s.learned_rows("operator"), s.vocab_counts(), tuple(s.vocabulary))
    changes = [
        PutSchema("sc1", {"name": "x"}, (eid,)),
        PutLearned("operator", "op1", {"w": 1}),
        MergeTerm("skips_check", "derives_from"),
    ]
    s.apply_consolidation("c1", changes, s.max_log_rowid(), 0, {"n": 3})
    assert [r.schema_id for r in s.list_schemas()] == ["sc1"]
    assert s.learned_rows("operator") == {"op1": {"w": 1}}
    (run,) = s.consolidation_runs()
    assert run.run_id == "c1" and run.undone_at is None
    with pytest.raises(NotFoundError, match="nothing was written"):
        s.apply_consolidation("c2", [PutSchema("sc2", {}, ("ghost",))], 0, 0, {})
    assert s.undo_consolidation("c1") == 3
    after = (s.list_schemas(), s.learned_rows("operator"), s.vocab_counts(), tuple(s.vocabulary))
    assert after == before
    with pytest.raises(StoreError, match="already undone"):
        s.undo_consolidation("c1")
