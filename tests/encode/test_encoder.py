"""The storage-time and query-time encoders with a scripted model: validation, the one repair
re-ask that quotes the problems, explicit relation mapping, the surface-leak check, and that the
model never sees another episode."""

import json

import pytest

from analogist.encode import ENCODE_PROMPT_VERSION, ModelEncoder, split_writer_tag
from analogist.encode.encoder import EncoderSettings, GoldEncoder
from analogist.episode import Episode
from analogist.errors import SignatureError
from analogist.models import LoggedLLM, ScriptedLLM, open_llm
from analogist.store import Store
from analogist.store.calls import CallLog

from .helpers import TEXT, answer

EP = Episode("ep_1", "failure", TEXT, outcome="claim retracted")


def encoder(*responses, **kw) -> tuple[ModelEncoder, ScriptedLLM]:
    model = ScriptedLLM(responses)
    return ModelEncoder(model, clock=lambda: "2026-01-01T00:00:00Z", **kw), model


def test_a_valid_answer_becomes_a_signature_with_writer_and_prompt_version():
    enc, model = encoder(answer())
    r = enc.encode(EP)
    sig = r.require()
    assert r.ok and not r.repaired and model.calls == 1
    assert (sig.episode_id, sig.kind, sig.level("L0")) == ("ep_1", "failure", TEXT)
    assert [x.predicate for x in sig.relations][:2] == ["derives_from", "trusts_as_authoritative"]
    assert split_writer_tag(sig.writer_model) == ("scripted:scripted", ENCODE_PROMPT_VERSION)
    assert sig.written_at == "2026-01-01T00:00:00Z" and sig.verified is False


def test_synonyms_are_mapped_and_the_mapping_is_recorded():
    enc, _ = encoder(
        answer(
            relations=[["copied_from", "DER", "SRC"]],
            causal_chain=[["drifts_from(DER,SRC)", "leads_to", "wrong_claim(CON)"]],
        )
    )
    r = enc.encode(EP)
    assert [x.predicate for x in r.signature.relations] == ["derives_from"]
    assert str(r.signature.causal_chain[0].cause) == "diverges_from(DER,SRC)"
    assert {(m.name, m.term, m.how) for m in r.mappings} == {
        ("copied_from", "derives_from", "synonym"),
        ("drifts_from", "diverges_from", "synonym"),
        ("leads_to", "causes", "synonym"),
        ("wrong_claim", "false_claim", "synonym"),
    }


def test_an_unknown_relation_is_mapped_only_when_the_repair_says_so():
    first = answer(relations=[["believes", "CON", "DER"]])
    second = answer(
        relations=[["believes", "CON", "DER"]],
        relation_mapping={"believes": "trusts_as_authoritative"},
    )
    enc, model = encoder(first, second)
    r = enc.encode(EP)
    assert r.ok and r.repaired and model.calls == 2
    assert r.signature.relations[0].predicate == "trusts_as_authoritative"
    assert [(m.name, m.how) for m in r.mappings] == [("believes", "model repair")]
    quoted = model.requests[1].messages[-1][1]
    assert "'believes' is not in the vocabulary" in quoted and "relation_mapping" in quoted
    assert "believes" in json.dumps(model.requests[1].schema)


def test_an_unknown_relation_without_a_mapping_is_rejected_with_a_reason():
    bad = answer(relations=[["believes", "CON", "DER"]])
    enc, model = encoder(bad, bad)
    r = enc.encode(EP)
    assert not r.ok and model.calls == 2
    assert "still invalid after one repair" in r.reason and "'believes'" in r.reason
    with pytest.raises(SignatureError, match="believes"):
        r.require()


def test_surface_names_in_l2_trigger_a_repair():
    leaky = answer(levels={"L1": "x y z", "L2": "The Intel feed copy was trusted", "L3": "Proxy"})
    enc, model = encoder(leaky, answer())
    r = enc.encode(EP)
    assert r.ok and r.repaired
    assert any(p.startswith("levels.L2") and "Intel" in p for p in r.problems)
    assert "levels.L2" in model.requests[1].messages[-1][1]


def test_validation_errors_are_quoted_in_the_repair():
    enc, model = encoder(answer(relations=[["derives_from", "DER", "GHOST"]]), answer())
    r = enc.encode(EP)
    assert r.ok and "relations[0]" in r.problems[0] and "GHOST" in r.problems[0]
    assert "GHOST" in model.requests[1].messages[-1][1]


def test_entities_the_episode_does_not_name_are_a_problem():
    copied = answer(surface={"domain": "home heating", "entities": ["thermostat", "oven"]})
    enc, _ = encoder(copied, copied)
    r = enc.encode(EP)
    assert not r.ok and "'thermostat', 'oven'" in r.reason and "surface.entities" in r.reason


def test_duplicate_roles_are_a_problem_not_silently_merged():
    roles = answer()["roles"] + [{"name": "SRC", "description": "again"}]
    enc, _ = encoder(answer(roles=roles), answer(roles=roles))
    r = enc.encode(EP)
    assert not r.ok and "'SRC' is declared 2 times" in r.reason


def test_without_repair_the_first_problem_rejects():
    enc, model = encoder(
        answer(relations=[["believes", "CON", "DER"]]), settings=EncoderSettings(repair=False)
    )
    assert not enc.encode(EP).ok and model.calls == 1


def test_a_model_failure_is_a_rejection_with_the_reason():
    enc, _ = encoder()
    r = enc.encode(EP)
    assert not r.ok and "queue is empty" in r.reason


def test_a_replay_miss_is_raised_not_counted_as_a_rejection():
    from analogist.errors import CacheMissError

    llm = LoggedLLM(ScriptedLLM(), CallLog(Store(":memory:")), cache="replay-only")
    with pytest.raises(CacheMissError):
        ModelEncoder(llm).encode(EP)


def test_the_target_encoder_defaults_to_observation():
    enc, model = encoder(answer(surface={"domain": "ops", "entities": ["dashboard"]}))
    r = enc.encode_target("Numbers on the dashboard look fine but users complain.")
    assert r.signature.kind == "observation" and r.signature.episode_id == "target"
    assert "kind unknown" in model.requests[0].messages[-1][1]


def test_the_model_never_sees_another_episode():
    store = Store(":memory:")
    others = [
        Episode("ep_other_a", "failure", "Zebra-crossing lights stayed green for all lanes."),
        Episode("ep_other_b", "success", "Quokka backups were reconciled nightly."),
    ]
    store.add_episodes(others)
    llm = LoggedLLM(ScriptedLLM([answer()]), CallLog(store))
    ModelEncoder(llm, store.vocabulary).encode(EP)
    (rec,) = CallLog(store).all()
    sent = json.dumps(rec.request["messages"])
    assert TEXT in sent and "claim retracted" in sent
    for other in others:
        assert other.id not in sent and other.text not in sent
    assert "Zebra" not in sent and "Quokka" not in sent


def test_rerunning_the_encoder_with_the_cache_calls_the_model_once():
    store = Store(":memory:")
    model = ScriptedLLM([answer()])
    for _ in range(3):
        llm = open_llm("scripted:", store=store)
        llm.inner = model
        assert ModelEncoder(llm).encode(EP).ok
    assert model.calls == 1


def test_gold_encoder_returns_the_given_signature(spec_example, vocab):
    from analogist.signature import parse_signature

    sig = parse_signature(spec_example, vocab)
    ep = Episode(sig.episode_id, sig.kind, sig.level("L0"), signature=sig)
    assert GoldEncoder().encode(ep).signature is sig
    assert not GoldEncoder().encode(EP).ok
