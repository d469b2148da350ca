"""The store: schema, atomic adds, duplicates, deletes and vocabulary counts."""

import sqlite3

import pytest

from analogist.episode import parse_episode
from analogist.errors import DuplicateEpisodeError, NotFoundError
from analogist.signature.model import parse_signature
from analogist.store import Store
from analogist.store import db as store_db
from analogist.store.migrations import MIGRATIONS
from analogist.store.signature_rows import (
    relation_rows,
    relations_json,
    rows_of_json,
    signature_row,
)
from analogist.store.vocab import save_vocabulary

SPEC_TABLES = {
    "signatures": [
        "episode_id",
        "kind",
        "signature_json",
        "writer_model",
        "written_at",
        "verified",
    ],
    "sig_relations": ["episode_id", "predicate", "arg1_role", "arg2_role", "in_causal_chain"],
    "sig_vectors": ["episode_id", "level"],
    "sig_fingerprint": ["episode_id", "wl_hash"],
    "schemas": ["schema_id", "schema_json", "member_episodes", "times_used", "times_verified"],
    "vocab": ["term", "definition", "kind", "count", "merged_into"],
    "analogy_log": [
        "run_id",
        "target_id",
        "trigger",
        "candidate_ids",
        "candidate_channels",
        "mapping_json",
        "structural_score",
        "critic_verdict",
        "transferred_elements",
        "predicted_observable",
        "verification_result",
        "outcome_delta",
        "token_cost",
    ],
    "episodes": ["id", "kind", "text", "outcome", "time", "provenance"],
    "llm_calls": ["cache_key", "provider", "model", "request_json", "response_text", "error"],
}


def columns(store, table):
    return [r[1] for r in store.conn.execute(f"PRAGMA table_info({table})")]


def snapshot(store):
    tables = [
        r[0]
        for r in store.conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'episodes_fts_%'"
        )
    ]
    return {
        t: store.conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall()
        for t in sorted(tables)
    }


def test_schema_has_spec_tables_with_their_columns():
    store = Store()
    for table, cols in SPEC_TABLES.items():
        assert set(cols) <= set(columns(store, table)), table
    names = [r[0] for r in store.conn.execute("SELECT name FROM schema_migrations")]
    assert names == [m[0] for m in MIGRATIONS]


def older_database(path, applied: int, signatures=()) -> None:
    """A database as an analogist with only the first ``applied`` migrations wrote it, holding
    ``signatures`` stored the way that analogist stored them (relation rows in a table)."""
    conn = store_db.connect(path, migrate_schema=False)
    store_db.migrate(conn, MIGRATIONS[:applied])
    vocab = Store().vocabulary
    with store_db.transaction(conn):
        save_vocabulary(conn, vocab)
        for raw in signatures:
            sig = parse_signature(raw, vocab)
            conn.execute(
                "INSERT INTO episodes (id, kind, text, added_at) VALUES (?, ?, 'x', 'now')",
                (sig.episode_id, sig.kind),
            )
            conn.execute(
                "INSERT INTO signatures (episode_id, kind, signature_json, writer_model, "
                "written_at, verified, domain) VALUES (?, ?, ?, ?, ?, ?, ?)",
                signature_row(sig)[:7],
            )
            conn.executemany(
                "INSERT INTO sig_relations (episode_id, predicate, arg1_role, arg2_role, "
                "args_json, in_causal_chain) VALUES (?, ?, ?, ?, ?, ?)",
                relation_rows(sig),
            )
    conn.close()


def test_an_older_database_loses_the_two_unused_indexes_and_keeps_its_rows(tmp_path, spec_example):
    path = tmp_path / "old.db"
    older_database(path, 5, [spec_example])  # 0001_core made the two indexes
    s = Store(path)
    names = {r[0] for r in s.conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert not names & {"sig_fingerprint_hash", "sig_relations_predicate"}
    assert s.signature_json(spec_example["episode_id"]) == spec_example


def test_relation_rows_move_into_their_signatures_row_in_order(tmp_path, spec_example):
    """``0007_relations_column``: the rows an older analogist stored in ``sig_relations``
    are read back through the view unchanged and in order, the column holds what a new add
    writes, and the index state is as it was (a snapshot taken before stays current)."""
    other = {**spec_example, "episode_id": "ep_other", "causal_chain": []}
    path = tmp_path / "old.db"
    older_database(path, 6, [spec_example, other])
    conn = sqlite3.connect(path)
    before = conn.execute(
        "SELECT episode_id, predicate, arg1_role, arg2_role, args_json, in_causal_chain "
        "FROM sig_relations ORDER BY rowid"
    ).fetchall()
    state = conn.execute("SELECT generation, rebuilds FROM index_state").fetchone()
    conn.close()
    assert len(before) == 10 + 4
    s = Store(path)
    kinds = dict(s.conn.execute("SELECT name, type FROM sqlite_master").fetchall())
    assert kinds["sig_relations"] == "view" and "sig_relations_episode" not in kinds
    after = s.conn.execute("SELECT * FROM sig_relations").fetchall()
    assert [tuple(r) for r in after] == before
    assert tuple(s.conn.execute("SELECT generation, rebuilds FROM index_state").fetchone()) == state
    for raw in (spec_example, other):
        sig = parse_signature(raw, s.vocabulary)
        stored = s.conn.execute(
            "SELECT relations_json FROM signatures WHERE episode_id = ?", (sig.episode_id,)
        ).fetchone()[0]
        assert stored == relations_json(relation_rows(sig))
        assert rows_of_json(sig.episode_id, stored) == relation_rows(sig)


def test_wal_and_foreign_keys(tmp_path):
    store = Store(tmp_path / "a.db")
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1


def test_a_new_file_gets_the_larger_page_and_an_existing_one_keeps_its_own(tmp_path):
    store = Store(tmp_path / "a.db")
    assert store.conn.execute("PRAGMA page_size").fetchone()[0] == store_db.PAGE_SIZE == 16384
    store.close()
    older = sqlite3.connect(tmp_path / "c.db")
    older.execute("PRAGMA page_size = 4096")
    older.execute("CREATE TABLE schema_migrations (name TEXT PRIMARY KEY, applied_at TEXT)")
    older.commit()
    older.close()
    s = Store(tmp_path / "c.db")  # an analogist file made with 4 KiB pages opens as it is
    assert s.conn.execute("PRAGMA page_size").fetchone()[0] == 4096
    assert s.count() == 0
    s.close()


def test_reopen_keeps_data_and_runs_no_migration_twice(tmp_path, spec_example):
    path = tmp_path / "a.db"
    s = Store(path)
    s.add_episodes([parse_episode(spec_example, s.vocabulary)])
    s.close()
    s2 = Store(path)
    assert s2.signature_json(spec_example["episode_id"]) == spec_example


def test_add_get_list_delete(spec_example):
    s = Store()
    ep = parse_episode(spec_example, s.vocabulary)
    s.add_episodes([ep])
    assert s.get_episode(ep.id).signature == ep.signature
    assert [e.id for e in s.list_episodes(domain="monitoring")] == [ep.id]
    assert s.list_episodes(kind="success") == []
    rel = s.conn.execute(
        "SELECT COUNT(*) FROM sig_relations WHERE episode_id=?", (ep.id,)
    ).fetchone()
    assert rel[0] == 4 + 2 * 3
    assert s.vocab_counts()["skips_check"] == 2
    s.delete_episodes([ep.id])
    assert s.count() == 0
    assert s.vocab_counts()["skips_check"] == 0
    assert s.conn.execute("SELECT COUNT(*) FROM sig_relations").fetchone()[0] == 0


def test_duplicate_id_leaves_store_unchanged(spec_example):
    s = Store()
    s.add_episodes([parse_episode(spec_example, s.vocabulary)])
    before = snapshot(s)
    other = parse_episode({"id": "ep_new", "kind": "failure", "text": "x"}, s.vocabulary)
    with pytest.raises(DuplicateEpisodeError, match="already stored"):
        s.add_episodes([other, parse_episode(spec_example, s.vocabulary)])
    assert snapshot(s) == before
    with pytest.raises(DuplicateEpisodeError, match="twice in this batch"):
        s.add_episodes([other, other])
    assert snapshot(s) == before


def test_failure_mid_write_rolls_back(spec_example, monkeypatch):
    s = Store()
    good = parse_episode({"id": "ep_a", "kind": "failure", "text": "first"}, s.vocabulary)
    sig_ep = parse_episode(spec_example, s.vocabulary)
    before = snapshot(s)
    from analogist.store import episodes as rows

    real = rows.bump_counts

    def boom(conn, usage, sign):
        real(conn, usage, sign)
        raise sqlite3.OperationalError("disk full")

    monkeypatch.setattr(rows, "bump_counts", boom)
    with pytest.raises(Exception, match="nothing was stored"):
        s.add_episodes([good, sig_ep])
    assert snapshot(s) == before


def test_delete_unknown_changes_nothing(spec_example):
    s = Store()
    s.add_episodes([parse_episode(spec_example, s.vocabulary)])
    before = snapshot(s)
    with pytest.raises(NotFoundError, match="nothing was deleted"):
        s.delete_episodes([spec_example["episode_id"], "ep_missing"])
    assert snapshot(s) == before


def test_get_unknown_says_how_to_find_ids():
    with pytest.raises(NotFoundError, match="analogist list"):
        Store().get_episode("nope")


def test_bm25_finds_words(spec_example):
    s = Store()
    s.add_episodes([parse_episode(spec_example, s.vocabulary)])
    assert s.bm25("cached summary")[0][0] == spec_example["episode_id"]
    assert s.bm25("zebra") == []


def test_the_relations_view_reads_back_what_an_add_stored(spec_example):
    s = Store()
    ep = parse_episode(spec_example, s.vocabulary)
    s.add_episodes([ep])
    got = s.conn.execute("SELECT * FROM sig_relations WHERE episode_id = ?", (ep.id,)).fetchall()
    assert [tuple(r) for r in got] == relation_rows(ep.signature)


def test_relations_json_escapes_a_name_json_would_not_take_as_is():
    rows = [("e", 'odd"name\\é', "A", None, '["A"]', 1), ("e", "plain", None, None, "[]", 0)]
    text = relations_json(rows)
    assert text == '[["odd\\"name\\\\é",["A"],1],["plain",[],0]]'
    assert rows_of_json("e", text) == rows
    conn = sqlite3.connect(":memory:")
    assert conn.execute("SELECT json_valid(?)", (text,)).fetchone()[0] == 1


def test_a_database_opened_before_its_migration_exports_in_its_own_layout(
    tmp_path, spec_example, monkeypatch
):
    """A database that cannot be migrated (opened read-only) still exports: in the layout of
    its schema (relation rows as a table), which an import folds into the column."""
    import json

    from analogist.store.transfer import export_to
    from analogist.store.transfer_import import import_from

    path = tmp_path / "old.db"
    older_database(path, 6, [spec_example])
    monkeypatch.setattr(store_db, "_writable", lambda p: "read-only for this test")
    export_to(str(path), str(tmp_path / "old.jsonl"))
    with Store(path) as old:
        assert old.conn.read_only
        rows = [tuple(r) for r in old.conn.execute("SELECT * FROM sig_relations ORDER BY rowid")]
    monkeypatch.undo()
    header = json.loads((tmp_path / "old.jsonl").read_bytes().splitlines()[0])
    assert "0007_relations_column" not in header["schema"]
    assert "relations_json" not in header["tables"]["signatures"]["columns"]
    assert header["tables"]["sig_relations"]["rows"] == len(rows) == 10
    import_from(str(tmp_path / "old.jsonl"), str(tmp_path / "new.db"))
    with Store(tmp_path / "new.db") as new:
        assert [tuple(r) for r in new.conn.execute("SELECT * FROM sig_relations")] == rows
