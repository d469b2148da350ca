"""The analogy loop: retrieval → mapping → gate → critic → prediction → logged run."""

import copy
import json

import pytest

from analogist.errors import AnalogistError
from analogist.memory import Memory
from analogist.models.logged import LoggedLLM
from analogist.models.scripted import ScriptedLLM
from analogist.reason.analogizer import Analogizer, AnalogizerConfig
from analogist.reason.triggers import Trigger
from analogist.signature import parse_signature
from analogist.verify.predict import CheckResult

FINANCE = {
    "episode_id": "ep_fin",
    "kind": "failure",
    "roles": {"ACCT": "bank account", "COPY": "spreadsheet total", "CLERK": "clerk"},
    "relations": [
        ["derives_from", "COPY", "ACCT"],
        ["trusts_as_authoritative", "CLERK", "COPY"],
        ["skips_check", "CLERK", "ACCT"],
        ["diverges_from", "COPY", "ACCT"],
    ],
    "causal_chain": [
        ["diverges_from(COPY,ACCT)", "causes", "false_claim(CLERK)"],
        ["skips_check(CLERK,ACCT)", "enables", "false_claim(CLERK)"],
    ],
    "fix_operator": "reconcile(CLERK, COPY, ACCT) before reporting",
    "symptom": "reported balance wrong",
    "levels": {"L0": "The clerk reported the copied spreadsheet total without reconciling."},
    "surface": {"domain": "finance", "entities": ["spreadsheet"]},
}
NOISE = {
    "episode_id": "ep_noise",
    "kind": "failure",
    "roles": {"A": "pump", "B": "tank"},
    "relations": [["consumes", "A", "B"]],
    "causal_chain": [["consumes(A,B)", "causes", "exhausted(B)"]],
    "fix_operator": "limit(A) nightly",
    "levels": {"L0": "The pump drained the tank."},
}


@pytest.fixture
def memory(spec_example):
    m = Memory(":memory:")
    report = m.add([json.dumps(FINANCE), json.dumps(NOISE)])
    assert not report.rejected
    return m


def test_finds_far_source_and_transfers_the_fix(memory, spec_example, vocab):
    target = parse_signature(spec_example, vocab)
    run = Analogizer(memory).run(target)
    assert run.source == "ep_fin"
    assert run.mapping.mapping == {"ACCT": "SRC", "CLERK": "CON", "COPY": "DER"}
    assert run.transferred == ("reconcile(CON,DER,SRC) before reporting",)
    assert run.verification_result == "unchecked"
    stored = memory.store.get_run(run.run_id)
    assert stored["source"] == "ep_fin" and stored["trigger"]["tier"] == 1


def test_every_run_is_logged_even_when_nothing_transfers(memory, vocab):
    lonely = copy.deepcopy(NOISE)
    lonely["episode_id"] = "ep_other"
    lonely["relations"] = [["races_with", "A", "B"]]
    lonely["causal_chain"] = [["races_with(A,B)", "causes", "corrupted(B)"]]
    run = Analogizer(memory).run(parse_signature(lonely, vocab))
    assert run.source is None and run.transferred == ()
    row = memory.store.conn.execute(
        "SELECT trigger, candidate_ids, transferred_elements, token_cost FROM analogy_log "
        "WHERE run_id = ?",
        (run.run_id,),
    ).fetchone()
    assert row is not None and json.loads(row[2]) == []


def test_failed_prediction_abandons_the_analogy_and_ledger_records_applied_action(
    memory, spec_example, vocab
):
    target = parse_signature(spec_example, vocab)

    def failing(prediction, decisions):
        return CheckResult(False, "fix changed nothing", outcome="unchanged", delta=0.0)

    run = Analogizer(memory, check=failing).run(target)
    assert run.transferred == ()
    assert run.verification_result == "failed"
    assert all(not t.transfer for t in run.record.transfer)
    assert memory.store.ledger()[-1].outcome == "unchanged"


def test_tier0_makes_no_model_call_and_maps_nothing(memory, spec_example, vocab):
    llm = LoggedLLM(ScriptedLLM())
    run = Analogizer(memory, llm=llm).run(
        parse_signature(spec_example, vocab), trigger=Trigger.manual(0, "error logged")
    )
    assert llm.stats.calls == 0 and llm.inner.requests == []
    assert run.cost.model_calls == 0
    assert run.record is None and run.candidates
    assert run.trigger.reasons == ("error logged",)


def test_rerepresentation_stops_after_two_attempts(memory, vocab):
    deep = {
        "episode_id": "ep_deep",
        "kind": "failure",
        "roles": {"A": "a", "B": "b", "C": "c", "D": "d"},
        "relations": [["sends_to", "A", "B"], ["sends_to", "B", "C"], ["observes", "D", "C"]],
        "causal_chain": [["sends_to(A,B)", "causes", "overloaded(C)"]],
        "levels": {"L0": "x"},
    }
    run = Analogizer(memory, AnalogizerConfig(rerep_attempts=2)).run(parse_signature(deep, vocab))
    reps = [a for a in run.attempts if "rerep" in a]
    assert [a["rerep"] for a in reps] == [1, 2]
    assert len([a for a in run.attempts if "note" in a]) == 3
    assert reps[0]["signature"]["relations"] == [["sends_to", "A", "C"], ["observes", "D", "C"]]
    assert reps[1]["signature"]["relations"] == [["sends_to", "A", "C"]]


def test_model_critic_never_sees_mapper_prose(memory, spec_example, vocab):
    scripted = ScriptedLLM(
        [{"verdict": "reject", "reasons": ["path not mapped"], "confidence": 0.9}]
    )
    llm = LoggedLLM(scripted)
    run = Analogizer(memory, AnalogizerConfig(critic="model"), llm=llm).run(
        parse_signature(spec_example, vocab)
    )
    (request,) = scripted.requests
    payload = json.loads(request.messages[-1][1])
    assert set(payload) == {"source_signature", "target_signature", "mapping_table"}
    assert set(payload["mapping_table"]) == {"mapped", "checks", "transfer"}
    assert run.critic.verdict == "reject" and run.transferred == ()
    assert run.cost.model_calls == 1


def test_runs_are_listed_newest_first(memory, spec_example, vocab):
    a = Analogizer(memory)
    first = a.run(parse_signature(spec_example, vocab)).run_id
    second = a.run(parse_signature(spec_example, vocab)).run_id
    assert first != second
    assert {r["run_id"] for r in memory.store.list_runs()} >= {first, second}


def test_every_analogy_log_field_is_filled_when_nothing_transfers(memory, vocab):
    lonely = copy.deepcopy(NOISE)
    lonely["episode_id"] = "ep_alone"
    lonely["relations"] = [["races_with", "A", "B"]]
    lonely["causal_chain"] = [["races_with(A,B)", "causes", "corrupted(B)"]]
    for tier in (0, 1):
        run = Analogizer(memory).run(parse_signature(lonely, vocab), trigger=Trigger.manual(tier))
        row = memory.store.conn.execute(
            "SELECT * FROM analogy_log WHERE run_id = ?", (run.run_id,)
        ).fetchone()
        spec_fields = (
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
        )
        assert all(row[f] is not None for f in spec_fields), dict(row)
        assert "not run" in row["critic_verdict"]


def test_memory_analogize_takes_an_id_a_signature_or_json_and_logs_the_run(
    memory, spec_example, vocab
):
    by_json = memory.analogize(spec_example)
    by_sig = memory.analogize(parse_signature(spec_example, vocab), log=False)
    assert by_json.source == by_sig.source == "ep_fin"
    assert by_json.record is not None and by_json.record.transferred
    assert memory.store.get_run(by_json.run_id)["source"] == "ep_fin"
    own = memory.analogize("ep_fin")  # a stored episode is never its own source
    assert own.source != "ep_fin" and "ep_fin" not in {c.episode_id for c in own.candidates}


def test_memory_analogize_refuses_text_without_an_encoder(memory):
    with pytest.raises(AnalogistError, match="needs an encoder"):
        memory.analogize("the cache said healthy while the sensor was down")
