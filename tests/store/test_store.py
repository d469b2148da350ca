"""The store: schema, atomic adds, duplicates, deletes and vocabulary counts."""

import sqlite3

import pytest

from analogist.episode import parse_episode
from analogist.errors import DuplicateEpisodeError, NotFoundError
from analogist.store import Store
from analogist.store.migrations import MIGRATIONS

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


def test_an_older_database_loses_the_two_unused_indexes_and_keeps_its_rows(tmp_path, spec_example):
    path = tmp_path / "old.db"
    s = Store(path)  # made into an older analogist's database, its rows written, closed
    s.conn.execute("DELETE FROM schema_migrations WHERE name = '0006_unused_indexes'")
    s.conn.execute("CREATE INDEX sig_fingerprint_hash ON sig_fingerprint(wl_hash)")
    s.conn.execute("CREATE INDEX sig_relations_predicate ON sig_relations(predicate)")
    s.add_episodes([parse_episode(spec_example, s.vocabulary)])
    s.close()
    s = Store(path)
    names = {r[0] for r in s.conn.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    assert "sig_relations_episode" in names
    assert not names & {"sig_fingerprint_hash", "sig_relations_predicate"}
    assert s.signature_json(spec_example["episode_id"]) == spec_example


def test_wal_and_foreign_keys(tmp_path):
    store = Store(tmp_path / "a.db")
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1


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
