"""An accepted vocabulary merge of a term stored signatures use: the episodes still read (the
stored JSON keeps its spelling, the reader resolves it), search finds them by the surviving
term (relation rows and fingerprints rewritten in the merge's transaction), and undo puts every
row back."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from analogist.cli.main import cli
from analogist.errors import VocabularyError
from analogist.signature import parse_signature
from tests.conftest import SPEC_EXAMPLE
from tests.learn.helpers import episode, memory, other, sig

EID = "ep_2026_09_14_0213"


def spec_memory():
    return memory(dict(SPEC_EXAMPLE), sig("ep_a_1", ("P", "Q", "R")), other("ep_x_9"))


def rows(m) -> dict:
    conn = m.store.conn
    return {
        "relations": sorted(
            tuple(r)
            for r in conn.execute("SELECT * FROM sig_relations WHERE episode_id = ?", (EID,))
        ),
        "fingerprint": tuple(
            conn.execute("SELECT * FROM sig_fingerprint WHERE episode_id = ?", (EID,)).fetchone()
        ),
    }


def target(old: str, new: str, eid: str = "ep_query") -> dict:
    """The spec example written by someone else, with ``old`` spelled ``new``."""
    raw = json.loads(json.dumps(SPEC_EXAMPLE).replace(old, new))
    return {**raw, "episode_id": eid}


def exact_s0(m, raw: dict) -> list[str]:
    pool = m.search(parse_signature(raw, m.store.vocabulary), channels="S0")
    return [h.episode_id for h in pool.hits["S0"] if h.score == 1.0]


def test_merged_term_reads_searches_and_undoes():
    m = spec_memory()
    before, counts = rows(m), m.store.vocab_counts()
    assert exact_s0(m, target("skips_check", "skips_check")) == [EID]
    rebuilds = m.store.index_state().rebuilds
    report = m.consolidate(merges=[("skips_check", "derives_from")])
    assert report.run_id and report.reindexed == 1  # ep_a_1 and ep_x_9 do not name it

    # the episode reads, with the surviving term everywhere; the stored JSON keeps its spelling
    read = m.store.get_episode(EID).signature
    assert read is not None
    assert ["derives_from", "CON", "SRC"] in [r.to_json() for r in read.relations]
    assert str(read.causal_chain[1].cause) == "derives_from(CON,SRC)"
    assert m.store.signature_json(EID) == SPEC_EXAMPLE
    assert [e.id for e in m.store.list_episodes()] == [EID, "ep_a_1", "ep_x_9"]

    # derived rows follow the reading: relation rows, the fingerprint, the index state
    after = rows(m)
    predicates = {r[1] for r in after["relations"]}
    assert "skips_check" not in predicates and "derives_from" in predicates
    assert after["fingerprint"][1] == m.indexes.wl(read, m.store.vocabulary).wl_hash
    assert after["fingerprint"][1] != before["fingerprint"][1]
    assert m.store.index_state().rebuilds > rebuilds
    # search finds it by the surviving term (S0 exact: same WL hash; S1 and the whole pool too)
    query = target("skips_check", "derives_from")
    assert exact_s0(m, query) == [EID]
    assert EID in m.search(parse_signature(query, m.store.vocabulary), channels="S1").found_by("S1")
    # an episode written later with the surviving term is the stored episode's exact twin
    assert not m.add([episode(target("skips_check", "derives_from", "ep_twin"))]).rejected
    assert [h.episode_id for h in m.search(EID, channels="S0").hits["S0"]][:1] == ["ep_twin"]
    assert m.store.vocab_counts()["skips_check"] == 0

    # undo: the vocabulary, the counts and every derived row as they were
    m.delete(["ep_twin"])
    m.undo_consolidation(report.run_id)
    assert rows(m) == before
    assert m.store.vocab_counts() == counts
    assert m.store.get_signature(EID).to_json() == SPEC_EXAMPLE
    assert exact_s0(m, target("skips_check", "skips_check")) == [EID]


def test_undo_after_the_episode_was_deleted_leaves_no_rows_behind():
    m = spec_memory()
    report = m.consolidate(merges=[("skips_check", "derives_from")])
    m.delete([EID])
    m.store.undo_consolidation(report.run_id)
    conn = m.store.conn
    for table in ("sig_relations", "sig_fingerprint"):
        assert (
            conn.execute(f"SELECT COUNT(*) FROM {table} WHERE episode_id = ?", (EID,)).fetchone()[0]
            == 0
        )
    assert m.store.vocabulary.resolve("skips_check").term == "skips_check"


def recount(m) -> dict[str, int]:
    """Usage counts as the stored signatures read now (what vocab.count should say)."""
    from collections import Counter

    from analogist.store.signature_rows import term_usage

    c: Counter = Counter()
    for e in m.store.list_episodes():
        if e.signature is not None:
            c.update(term_usage(e.signature))
    return dict(c)


def counted(m) -> dict[str, int]:
    return {t: n for t, n in m.store.vocab_counts().items() if n}


def test_usage_counts_stay_true_when_episodes_come_and_go_between_merge_and_undo():
    m = spec_memory()
    assert counted(m) == recount(m)
    run = m.consolidate(merges=[("skips_check", "derives_from")])
    assert counted(m) == recount(m)
    assert not m.add([episode(target("skips_check", "derives_from", "ep_twin"))]).rejected
    m.delete([EID])  # the episode the merge reindexed, with its two uses of skips_check
    assert counted(m) == recount(m)
    m.undo_consolidation(run.run_id)
    assert counted(m) == recount(m)  # the twin's uses stay on derives_from
    assert "skips_check" not in counted(m)


def test_merges_chain_across_runs_and_undo_in_order():
    m = spec_memory()
    before = rows(m)
    first = m.consolidate(merges=[("skips_check", "derives_from")])
    middle = rows(m)
    second = m.consolidate(merges=[("derives_from", "trusts_as_authoritative")])
    assert second.reindexed == 1
    read = m.store.get_signature(EID)
    assert {r.predicate for r in read.relations} == {"trusts_as_authoritative", "diverges_from"}
    assert "trusts_as_authoritative(CON,SRC)" in {str(c.cause) for c in read.causal_chain}
    # any spelling of the three merged names reads as the same shape
    assert exact_s0(m, target("skips_check", "trusts_as_authoritative")) == [EID]
    assert exact_s0(m, target("derives_from", "trusts_as_authoritative")) == [EID]
    m.undo_consolidation(second.run_id)
    assert rows(m) == middle
    assert exact_s0(m, target("skips_check", "derives_from")) == [EID]
    m.undo_consolidation(first.run_id)
    assert rows(m) == before
    assert exact_s0(m, target("skips_check", "skips_check")) == [EID]


def test_a_dry_run_reports_the_reindex_and_writes_nothing():
    m = spec_memory()
    before = rows(m)
    report = m.consolidate(merges=[("skips_check", "derives_from")], dry_run=True)
    assert report.run_id is None and report.reindexed == 1
    assert rows(m) == before and m.store.vocabulary.get("skips_check").merged_into is None


def test_a_merge_that_would_flip_a_causal_link_is_refused_before_anything_is_written():
    m = spec_memory()
    with pytest.raises(VocabularyError, match="polarity"):
        m.consolidate(merges=[("enables", "prevents")])
    assert m.store.consolidation_runs() == []


def test_cli_merge_show_undo(tmp_path):
    db = str(tmp_path / "m.db")
    lines = tmp_path / "eps.jsonl"
    lines.write_text(episode(dict(SPEC_EXAMPLE)) + "\n" + episode(other("ep_x_9")))
    r = CliRunner()
    base = ["--db", db, "--embedder", "hashing"]
    assert r.invoke(cli, [*base, "add", str(lines)]).exit_code == 0
    out = r.invoke(cli, [*base, "consolidate", "--merge", "skips_check=derives_from", "--json"])
    assert out.exit_code == 0, out.output
    run = json.loads(out.output)
    assert run["reindexed"] == 1
    shown = r.invoke(cli, [*base, "show", EID])
    assert shown.exit_code == 0 and "derives_from(CON,SRC)" in shown.output, shown.output
    assert json.loads(r.invoke(cli, [*base, "show", EID, "--json"]).output) == SPEC_EXAMPLE
    undo = r.invoke(cli, [*base, "consolidate", "--undo", run["run_id"]])
    assert undo.exit_code == 0, undo.output
    shown = r.invoke(cli, [*base, "show", EID])
    assert "skips_check(CON,SRC)" in shown.output


def test_a_merged_memory_exports_and_imports_and_undoes_there(tmp_path):
    from analogist.memory import Memory
    from analogist.models.embedding import HashingEmbedder
    from analogist.store import Store
    from analogist.store.transfer import export_to
    from analogist.store.transfer_import import import_from
    from tests.store.export_cases import dump

    a_db, b_db, out = tmp_path / "a.db", tmp_path / "b.db", tmp_path / "a.jsonl"
    with Memory(str(a_db), embedder=HashingEmbedder()) as a:
        assert not a.add([episode(dict(SPEC_EXAMPLE)), episode(other("ep_x_9"))]).rejected
        before = rows(a)
        run = a.consolidate(merges=[("skips_check", "derives_from")]).run_id
    export_to(str(a_db), str(out))
    import_from(str(out), str(b_db))
    with Store(a_db) as sa, Store(b_db) as sb:
        assert dump(sa) == dump(sb)
    with Memory(str(b_db), embedder=HashingEmbedder()) as b:
        assert str(b.store.get_signature(EID).causal_chain[1].cause) == "derives_from(CON,SRC)"
        assert exact_s0(b, target("skips_check", "derives_from")) == [EID]
        b.undo_consolidation(run)  # the memory's own indexes follow
        assert rows(b) == before
        assert exact_s0(b, target("skips_check", "skips_check")) == [EID]


@pytest.fixture
def pg_url(pg_server):
    return pg_server.url


def test_merge_and_undo_on_postgresql(pg_url):
    from analogist.memory import Memory
    from analogist.models.embedding import HashingEmbedder

    with Memory(pg_url(), embedder=HashingEmbedder()) as m:
        assert not m.add([episode(dict(SPEC_EXAMPLE)), episode(other("ep_x_9"))]).rejected
        fp = m.store.fingerprints()
        run = m.consolidate(merges=[("skips_check", "derives_from")])
        assert run.reindexed == 1
        assert str(m.store.get_signature(EID).causal_chain[1].cause) == "derives_from(CON,SRC)"
        assert exact_s0(m, target("skips_check", "derives_from")) == [EID]
        m.undo_consolidation(run.run_id)
        assert sorted(m.store.fingerprints()) == sorted(fp)
        assert exact_s0(m, target("skips_check", "skips_check")) == [EID]
