"""staged-v6 (opt-in): roles as the mechanism's actors, relations as one slot per role with a
free sentence first and a term enum shuffled per role with a fixed seed."""

from analogist.encode import StagedEncoder
from analogist.encode.steps import (
    PROMPT_VERSIONS,
    STAGED_PROMPT_VERSION,
    reasoned_slots_schema,
    relation_phrases,
    step_messages,
)
from analogist.models import ScriptedLLM
from analogist.signature import default_vocabulary

from .test_staged import CHAIN, EP, LEVELS, ROLES

HOLDS, WAITS = "A keeps exclusive use of resource B", "A cannot proceed until it obtains B"
SLOTS = {
    "R1": {"does": "locks the table for an hour", "to": "R2", "relation": HOLDS},
    "R2": {"does": "is held by the export", "to": "R1", "relation": "none"},
    "R3": {"does": "waits for the table", "to": "R2", "relation": WAITS},
}


V6_ROLES = {"mechanism": "a long job kept a shared resource while a user waited for it", **ROLES}


def _encode(*answers):
    model = ScriptedLLM(answers)
    enc = StagedEncoder(model, clock=lambda: "2026-01-01T00:00:00Z", version="staged-v6")
    return enc.encode(EP), model


def test_v6_is_opt_in_and_reads_a_term_and_a_role_after_the_free_sentence():
    assert STAGED_PROMPT_VERSION == "staged-v4" and "staged-v6" in PROMPT_VERSIONS
    r, model = _encode(V6_ROLES, SLOTS, CHAIN, LEVELS)
    assert [x.term().canonical() for x in r.require().relations] == [
        "holds(R1,R2)",
        "waits_for(R3,R2)",
    ]
    assert r.steps[1].dropped == ("R2 (none)",)  # not an option: the slot is dropped, not guessed
    slot = model.requests[1].schema["properties"]["R3"]
    assert list(slot["properties"]) == ["does", "to", "relation"] == slot["required"]
    assert slot["properties"]["to"] == {"enum": ["R1", "R2"]}
    assert {req.prompt_version for req in model.requests} == {
        f"staged-v6:{s}" for s in ("roles", "relations", "causal_chain", "levels")
    }
    assert "actors of that mechanism" in model.requests[0].messages[1][1]
    assert model.requests[0].schema["required"] == ["mechanism", "domain", "roles"]
    # the relations step sees the mechanism the roles step wrote
    assert "Mechanism: a long job kept" in model.requests[1].messages[1][1]


def test_v6_enums_are_shuffled_per_role_and_the_same_for_the_same_seed():
    vocab = default_vocabulary()
    a = reasoned_slots_schema(vocab, ["R1", "R2", "R3"], "0:ep_1")
    b = reasoned_slots_schema(vocab, ["R1", "R2", "R3"], "0:ep_1")
    c = reasoned_slots_schema(vocab, ["R1", "R2", "R3"], "0:ep_2")
    enum = [a["properties"][r]["properties"]["relation"]["enum"] for r in ("R1", "R2", "R3")]
    assert a == b and a != c
    assert all(sorted(e) == sorted(relation_phrases(vocab)) for e in enum)
    assert len({tuple(e) for e in enum}) == 3 and enum[0] != list(relation_phrases(vocab))


def test_v4_prompts_are_unchanged_by_v6():
    vocab = default_vocabulary()
    v4 = step_messages(vocab, "relations", "Episode: x", [])
    v6 = step_messages(vocab, "relations", "Episode: x", [], version="staged-v6")
    assert v4[0] == v6[0] and '("to" is B)' in v4[1]["content"]
    assert '"does"' in v6[1]["content"] and '"does"' not in v4[1]["content"]


def test_v7_asks_each_role_alone_and_drops_a_repeated_fact():
    one = {
        "R1": {"does": "locks the table", "to": "R2", "relation": HOLDS},
        "R2": {
            "does": "is locked",
            "to": "R1",
            "relation": "A and B draw on the same limited resource or dependency",
        },
        "R3": {"does": "waits for the table", "to": "R2", "relation": WAITS},
    }
    model = ScriptedLLM([V6_ROLES, one["R1"], one["R2"], one["R3"], CHAIN, LEVELS])
    r = StagedEncoder(model, clock=lambda: "2026-01-01T00:00:00Z", version="staged-v7").encode(EP)
    assert [x.term().canonical() for x in r.require().relations] == [
        "holds(R1,R2)",
        "shares_resource(R2,R1)",
        "waits_for(R3,R2)",
    ]
    rel_reqs = model.requests[1:4]
    assert [list(q.schema["properties"]["to"]["enum"]) for q in rel_reqs] == [
        ["R2", "R3"],
        ["R1", "R3"],
        ["R1", "R2"],
    ]
    assert "from role R2 (orders table)" in rel_reqs[1].messages[1][1]
    assert r.steps[1].calls == 3 and r.steps[1].ok


def test_v7_drops_a_fact_another_role_already_gave():
    same = {
        "does": "share the table",
        "to": "R1",
        "relation": "A and B draw on the same limited resource or dependency",
    }
    first = {**same, "to": "R2"}
    model = ScriptedLLM([V6_ROLES, first, same, first | {"to": "R1"}, CHAIN, LEVELS])
    r = StagedEncoder(model, clock=lambda: "2026-01-01T00:00:00Z", version="staged-v7").encode(EP)
    assert [x.term().canonical() for x in r.require().relations] == [
        "shares_resource(R1,R2)",
        "shares_resource(R3,R1)",
    ]
    assert r.steps[1].dropped == ("R2 (same fact as another role's)",)


def test_v8_offers_term_names_shuffled():
    slot = {"does": "waits for the table", "to": "R2", "relation": "waits_for"}
    model = ScriptedLLM([V6_ROLES, slot | {"to": "R3"}, slot | {"to": "R1"}, slot, CHAIN, LEVELS])
    r = StagedEncoder(model, clock=lambda: "2026-01-01T00:00:00Z", version="staged-v8").encode(EP)
    assert [x.term().canonical() for x in r.require().relations] == [
        "waits_for(R1,R3)",
        "waits_for(R2,R1)",
        "waits_for(R3,R2)",
    ]
    enum = model.requests[1].schema["properties"]["relation"]["enum"]
    assert "waits_for" in enum and "depends_on" in enum and "fails" not in enum
