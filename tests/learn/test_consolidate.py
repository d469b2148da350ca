"""Consolidation over a store: incremental, idempotent, one transaction, undoable; the example
memory's twin groups become schemas; S3 then finds a schema's instances first."""

from __future__ import annotations

import json

import pytest

from analogist.errors import NotFoundError, StoreError
from analogist.learn import ConsolidationPolicy
from analogist.store.runs import TransferOutcome
from tests.learn.helpers import analogize, memory, other, sig


def three():
    return memory(
        sig("ep_a_1", ("P", "Q", "R")),
        sig("ep_b_2", ("U", "V", "W")),
        sig("ep_c_3", ("K", "L", "M")),
        other("ep_x_9"),
    )


def state(m) -> dict:
    conn = m.store.conn
    return {
        t: sorted(tuple(r) for r in conn.execute(f"SELECT * FROM {t}"))
        for t in ("schemas", "learned", "vocab")
    }


def test_induces_from_logged_runs_and_is_idempotent():
    m = three()
    run = analogize(m, "ep_b_2", source="ep_a_1")
    assert run.source == "ep_a_1" and run.critic is not None and run.critic.verdict == "accept"
    report = m.consolidate()
    assert report.run_id and report.verdicts == {"verified": 1}
    assert [e.action for e in report.events] == ["started"]
    (row,) = m.store.list_schemas()
    assert set(row.members) == {"ep_a_1", "ep_b_2"}
    before = state(m)
    again = m.consolidate()
    assert again.run_id is None and "nothing new" in again.note
    assert state(m) == before


def test_incremental_reads_only_new_runs():
    m = three()
    analogize(m, "ep_b_2", source="ep_a_1")
    m.consolidate()
    analogize(m, "ep_c_3", source="ep_a_1")
    report = m.consolidate()
    assert report.runs_read == 1
    assert [e.action for e in report.events] == ["assimilated"]
    (row,) = m.store.list_schemas()
    assert len(row.members) == 3 and row.schema_json["induction"]["facts"][0]["count"] == 3


def test_dry_run_writes_nothing_and_reports_the_same():
    m = three()
    analogize(m, "ep_b_2", source="ep_a_1")
    before = state(m)
    dry = m.consolidate(dry_run=True)
    assert state(m) == before and dry.run_id is None and dry.schemas
    real = m.consolidate()
    assert [s["schema_id"] for s in real.schemas] == [s["schema_id"] for s in dry.schemas]


def test_undo_restores_the_store_and_the_watermark():
    m = three()
    analogize(m, "ep_b_2", source="ep_a_1")
    first = m.consolidate()
    after_first = state(m)
    analogize(m, "ep_c_3", source="ep_a_1")
    second = m.consolidate()
    with pytest.raises(StoreError, match="later runs"):
        m.store.undo_consolidation(first.run_id)
    m.store.undo_consolidation(second.run_id)
    assert state(m) == after_first
    redo = m.consolidate()  # the undone run's rows are read again
    assert redo.runs_read == 1 and redo.run_id != second.run_id
    with pytest.raises(NotFoundError):
        m.store.undo_consolidation("cons_nope")


def test_a_failed_write_changes_nothing(monkeypatch):
    m = three()
    analogize(m, "ep_b_2", source="ep_a_1")
    before = state(m)
    from analogist.store import consolidation as rows

    def boom(*a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr(rows, "_apply", boom)
    with pytest.raises(RuntimeError):
        m.consolidate()
    assert state(m) == before and m.store.consolidation_runs() == []


def test_rejected_and_negative_runs_do_not_induce():
    m = three()
    run = analogize(m, "ep_b_2", source="ep_a_1")
    m.store.record_transfer(run.run_id, TransferOutcome("add_spare(V)", "worse", delta=1.0))
    report = m.consolidate()
    assert report.verdicts == {"negative": 1} and not report.schemas
    telemetry = m.store.learned_rows("relation_telemetry")
    assert telemetry["depends_on"] == {"negative": 1}
    ops = {o["key"]: o for o in report.operators}
    assert ops["-|add_spare(_1)"]["negative_transfer"] == 1


def test_require_check_skips_unchecked_runs():
    m = three()
    analogize(m, "ep_b_2", source="ep_a_1")
    report = m.consolidate(policy=ConsolidationPolicy(require_check=True))
    assert report.verdicts == {"rejected": 1} and not report.schemas


def test_operator_library_is_normalised_over_schema_roles_and_macros_form():
    m = three()
    r1 = analogize(m, "ep_b_2", source="ep_a_1")
    m.consolidate()
    # the agent reports applied fixes on the target: two steps, then success, twice
    for outcome in ("unchanged", "resolved", "unchanged", "resolved"):
        action = "check_gate(W)" if outcome == "unchanged" else "add_spare(V)"
        m.store.record_transfer(r1.run_id, TransferOutcome(action, outcome))
    report = m.consolidate()
    sid = m.store.list_schemas()[0].schema_id
    ops = {o["key"]: o for o in report.operators}
    # V is the target's role; the run maps source Q -> V; Q is the schema variable
    assert ops[f"{sid}|add_spare(Q)"]["success"] == 2
    assert ops[f"{sid}|check_gate(R)"]["failure"] == 2
    (macro,) = report.macros
    assert macro["key"] == f"{sid}|check_gate(R) ; add_spare(Q)"
    assert macro["support"] == 2 and macro["macro"] is True


def test_accepted_merge_keeps_the_original_spelling_and_undoes():
    m = three()
    counts = m.store.vocab_counts()
    report = m.consolidate(merges=[("shares_resource", "depends_on")])
    term = m.store.vocabulary.get("shares_resource")
    assert term.merged_into == "depends_on"
    assert m.store.vocabulary.resolve("shares_resource").term == "depends_on"
    after = m.store.vocab_counts()
    assert after["depends_on"] == counts["depends_on"] + counts["shares_resource"]
    m.store.undo_consolidation(report.run_id)
    assert m.store.vocabulary.get("shares_resource").merged_into is None
    assert m.store.vocab_counts() == counts


def test_schema_hits_come_first_in_the_pool_for_a_new_instance():
    m = three()
    analogize(m, "ep_b_2", source="ep_a_1")
    m.consolidate()
    m.add(
        [
            json.dumps(
                {
                    "id": "ep_d_4",
                    "kind": "failure",
                    "text": "new",
                    "signature": sig("ep_d_4", ("E", "F", "G")),
                }
            )
        ]
    )
    pool = m.search("ep_c_3", channels="S3,S1")
    first = pool.candidates[0]
    assert "S3" in first.ranks and first.found_by[0].startswith("S3:sch_")
    # ep_d_4 is no member: S3 found it as an instance of the schema
    hit = next(h for h in pool.hits["S3"] if h.episode_id == "ep_d_4")
    assert hit.detail["via"] == "instance"
    assert "ep_x_9" not in pool.found_by("S3")  # another shape is no instance


def test_example_memory_twin_groups_become_schemas():
    """Every example episode analogized once (tier 1, engine critic, no check): each accepted
    run pairs twins, and consolidation gathers them into one schema per twin group and
    context. The groups recovered are listed in docs/consolidation.md."""
    from importlib import resources

    from analogist.memory import Memory
    from analogist.models.embedding import HashingEmbedder
    from analogist.reason.analogizer import Analogizer

    text = resources.files("analogist.data").joinpath("example_memory.jsonl").read_text("utf-8")
    pairs = json.loads(
        resources.files("analogist.data").joinpath("example_memory_pairs.json").read_text("utf-8")
    )
    twin = {e: i for i, g in enumerate(pairs["structural_twins"]) for e in g}
    m = Memory(":memory:", embedder=HashingEmbedder())
    m.add(text.splitlines())
    analogizer = Analogizer(m)
    for eid in m.store.episode_ids():
        analogizer.run(m.store.get_signature(eid), exclude=[eid])
    report = m.consolidate()
    assert report.verdicts["verified"] == 40
    groups = set()
    for s in report.schemas:
        ids = {twin.get(e) for e in s["members"]}
        assert len(ids) == 1 and None not in ids  # a schema never mixes twin groups
        groups |= ids
    assert len(groups) == 13 and len(report.schemas) == 15
