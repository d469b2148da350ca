"""The run record is typed and versioned: it round-trips through the log, older (v1) rows
still load, and a run without a critic is never read as accepted."""

from dataclasses import replace

import pytest

from analogist.bench.execution.arms import ARMS
from analogist.bench.execution.engine_answer import EngineAnswerer
from analogist.errors import StoreError
from analogist.reason.analogizer import Analogizer, AnalogizerConfig
from analogist.reason.run import RUN_SCHEMA_VERSION, AnalogyRun
from analogist.signature import parse_signature
from analogist.verify.critic import CriticVerdict
from tests.reason.test_analogizer import memory  # noqa: F401  (fixture)


def _v1(stored: dict) -> dict:
    """The same run as the first log format wrote it (no version, no not_assessed)."""
    return {k: v for k, v in stored.items() if k not in ("schema_version", "not_assessed")}


def test_an_assessed_run_round_trips_through_the_log(memory, spec_example, vocab):  # noqa: F811
    run = Analogizer(memory).run(parse_signature(spec_example, vocab))
    stored = memory.store.get_run(run.run_id)
    assert stored["schema_version"] == RUN_SCHEMA_VERSION
    back = AnalogyRun.from_json(stored)
    assert back.to_json() == stored
    assert isinstance(back.critic, CriticVerdict) and back.record is not None
    assert back.record.critic == back.critic and back.mapping == run.mapping
    assert AnalogyRun.from_json(_v1(stored)).to_json() == stored


def test_a_run_that_assessed_nothing_keeps_the_v1_log_columns_but_no_sentinels(memory, vocab):  # noqa: F811
    lonely = parse_signature(
        {
            "episode_id": "ep_x",
            "kind": "failure",
            "roles": {"A": "a", "B": "b"},
            "relations": [["races_with", "A", "B"]],
            "levels": {"L0": "x"},
        },
        vocab,
    )
    run = Analogizer(memory).run(lonely)
    assert run.critic is None and run.mapping is None and run.not_assessed
    stored = memory.store.get_run(run.run_id)
    assert stored["critic"]["verdict"].startswith("not run (")
    assert stored["mapping"] == {"chosen": None, "why": run.not_assessed}
    old = AnalogyRun.from_json(_v1(stored))
    assert old.critic is None and old.not_assessed == run.not_assessed
    assert old.predicted_observable is None and old.to_json() == stored


def test_a_newer_schema_is_refused_with_one_line():
    with pytest.raises(StoreError, match="schema version 99"):
        AnalogyRun.from_json({"schema_version": 99, "run_id": "r"})


def test_a_verifying_arm_without_a_critic_verdict_does_not_survive(memory, spec_example, vocab):  # noqa: F811
    """engine_answer used to read a missing critic as ``accept``."""
    run = Analogizer(memory).run(parse_signature(spec_example, vocab))
    answerer = EngineAnswerer(ARMS["E"])
    assert run.critic is not None and answerer._answer("F1", {}, run).survived is True
    assert answerer._answer("F1", {}, replace(run, critic=None)).survived is False


def test_analogizer_config_without_critic_records_none(memory, spec_example, vocab):  # noqa: F811
    run = Analogizer(memory, AnalogizerConfig(critic=None)).run(
        parse_signature(spec_example, vocab)
    )
    assert run.record is not None and run.critic is None
    assert memory.store.get_run(run.run_id)["critic"] is None


def test_sme_support_and_extrapolation_reach_the_gate_and_the_record(memory, spec_example, vocab):  # noqa: F811
    """The source's fix is SME's ``(fix ...)`` candidate inference: its scores travel with it."""
    spec_example.pop("fix_operator")
    run = Analogizer(memory).run(parse_signature(spec_example, vocab))
    assert run.record is not None
    action = next(t for t in run.record.transfer if t.kind == "action")
    assert action.support is not None and action.support > 0
    assert action.extrapolation is not None and 0.0 < action.extrapolation <= 1.0
    (stored,) = [
        t for t in memory.store.get_run(run.run_id)["record"]["transfer"] if t["kind"] == "action"
    ]
    assert (stored["support"], stored["extrapolation"]) == (action.support, action.extrapolation)
    assert AnalogyRun.from_json(memory.store.get_run(run.run_id)).record == run.record
