"""staged-v12 (opt-in): v4's steps with bounded fields, short relation phrases and the chain and
levels in one call; v4's prompts, schemas and cache keys untouched."""

import hashlib
import json

import pytest

from analogist.encode import StagedEncoder
from analogist.encode import staged_v12 as V12
from analogist.encode import steps as S
from analogist.models import ScriptedLLM
from analogist.models.validate import schema_errors
from analogist.signature import default_vocabulary

from .test_staged import CHAIN, EP, LEVELS
from .test_staged import ROLES as V4_ROLES

VOCAB = default_vocabulary()
SHORT = {t: p for p, t in V12.short_phrases(VOCAB).items()}
RELS = {
    "R1": {"relation": SHORT["holds"], "to": "R2"},
    "R2": {"relation": SHORT["gates"], "to": "R3"},
    "R3": {"relation": SHORT["waits_for"], "to": "R2"},
}
ROLES = {
    "domain": "retail software",
    "roles": [
        {"entity": "nightly export job", "part": "holder of a shared resource"},
        {"entity": "orders table", "part": "resource only one user may hold"},
        {"entity": "checkout service", "part": "user that waits for it"},
    ],
}
LINKS = [[x["cause"], x["link"], x["effect"]] for x in CHAIN["links"]]
CHAIN_LEVELS = {"links": LINKS, "fix": LEVELS["fix"], "L2": LEVELS["L2"], "L3": LEVELS["L3"]}
# sha256 of v4's system prompt, step messages (first ask and repair) and schemas, as committed
# before staged-v12 existed: the reference run's replay depends on every byte of them.
V4_DIGEST = "ec84ce3f0864f8d489ec2f80474fbe7cfcb992e35aa309cb0099e409d763a3b1"


def _encode(*answers, **kw):
    model = ScriptedLLM(answers)
    enc = StagedEncoder(model, clock=lambda: "2026-01-01T00:00:00Z", version="staged-v12")
    return (enc.encode_target(EP.text, **kw) if kw else enc.encode(EP)), model


def _valid(answer, schema) -> bool:
    return not schema_errors(answer, schema)


def test_v12_is_opt_in_and_writes_a_signature_in_three_calls():
    assert S.STAGED_PROMPT_VERSION == "staged-v4" and "staged-v12" in S.PROMPT_VERSIONS
    r, model = _encode(ROLES, RELS, CHAIN_LEVELS)
    sig = r.require()
    assert model.calls == 3
    assert [x.term().canonical() for x in sig.relations] == [
        "holds(R1,R2)",
        "gates(R2,R3)",
        "waits_for(R3,R2)",
    ]
    assert [str(c) for c in sig.causal_chain] and sig.level("L2") == LEVELS["L2"]
    assert sig.level("L3") == LEVELS["L3"] and sig.level("L1") in (None, "")
    assert (
        sig.fix_operator is not None and sig.fix_operator.term.canonical() == "shorten_hold(R1,R2)"
    )
    assert [t.step for t in r.steps] == ["roles", "relations", "causal_chain", "levels"]
    assert sum(t.calls for t in r.steps) == 3
    # new prompt versions, so no cache key is shared with v4
    assert [req.prompt_version for req in model.requests] == [f"staged-v12:{s}" for s in V12.STEPS]
    for req, answer in zip(model.requests, (ROLES, RELS, CHAIN_LEVELS)):
        assert _valid(answer, dict(req.schema))  # the scripted answers are ones v12 allows
        assert req.max_tokens == V12.max_tokens_for(dict(req.schema)) < 400
    assert "symptom" not in json.dumps(model.requests[2].schema)
    assert "L1" not in model.requests[2].schema["properties"]


def all_schemas() -> list[dict]:
    """Every schema v12 sends, for four roles (whole steps and each repair half)."""
    roles = ["R1", "R2", "R3", "R4"]
    return [
        V12.roles_schema(),
        V12.roles_schema(["the export job", "the orders table"]),
        V12.relations_schema(VOCAB, roles),
        V12.chain_levels_schema(VOCAB, roles),
        V12.chain_levels_schema(VOCAB, roles, chain=False),
        V12.chain_levels_schema(VOCAB, roles, levels=False),
    ]


def test_every_bound_holds_and_max_tokens_covers_the_longest_answer():
    schemas = all_schemas()
    for schema in schemas:
        longest = V12.longest_answer(schema)
        assert _valid(longest, schema)
        assert V12.max_tokens_for(schema) >= len(json.dumps(longest)) / 2
    too_long = V12.longest_answer(schemas[3])
    too_long["L2"] += "x"
    assert not _valid(too_long, schemas[3])  # maxLength is a hard cap, not advice
    five = V12.longest_answer(schemas[0])
    five["roles"].append(five["roles"][0])
    assert not _valid(five, schemas[0])
    four_links = V12.longest_answer(schemas[3])
    four_links["links"].append(four_links["links"][0])
    assert not _valid(four_links, schemas[3])
    with pytest.raises(ValueError, match="unbounded string"):
        V12.longest_answer({"type": "string"})


def test_short_phrases_name_every_binary_term_once_and_start_its_definition():
    phrases = V12.short_phrases(VOCAB)
    binary = {t.term for t in VOCAB if t.merged_into is None and t.arity == 2}
    assert set(phrases.values()) == binary and len(phrases) == len(binary)
    assert SHORT["depends_on"] == "A needs B"
    for p in phrases:
        assert not any(o != p and o.startswith(p + " ") for o in phrases)
        assert not p.endswith(",") and len(p.split()) >= V12.MIN_PHRASE_WORDS - 1


def test_a_target_with_an_entity_table_is_written_with_r_names_and_stored_with_its_ids():
    table = {
        "e_aaaaaaaaaaaa": "nightly export job",
        "e_bbbbbbbbbbbb": "orders table",
        "e_cccccccccccc": "checkout service",
    }
    r, model = _encode(ROLES, RELS, CHAIN_LEVELS, entities=table)
    sig = r.require()
    assert sig.role_names == ("e_aaaaaaaaaaaa", "e_bbbbbbbbbbbb", "e_cccccccccccc")
    assert [x.term().canonical() for x in sig.relations] == [
        "holds(e_aaaaaaaaaaaa,e_bbbbbbbbbbbb)",
        "gates(e_bbbbbbbbbbbb,e_cccccccccccc)",
        "waits_for(e_cccccccccccc,e_bbbbbbbbbbbb)",
    ]
    assert "e_aaaa" not in json.dumps(model.requests[2].schema)  # the model saw R1.., not ids
    assert "R1 = nightly export job" in model.requests[1].messages[1][1]
    assert sig.fix_operator is not None
    assert sig.fix_operator.term.canonical() == "shorten_hold(e_aaaaaaaaaaaa,e_bbbbbbbbbbbb)"
    assert all("R1" not in str(c) and "R3" not in str(c) for c in sig.causal_chain)


def test_a_levels_repair_re_asks_only_the_levels_half_and_changes_the_request():
    leaky = {**CHAIN_LEVELS, "L2": "The nightly export job locked the orders table"}
    fixed = {"fix": LEVELS["fix"], "L2": LEVELS["L2"], "L3": LEVELS["L3"]}
    r, model = _encode(ROLES, RELS, leaky, fixed)
    sig = r.require()
    assert model.calls == 4 and sig.level("L2") == LEVELS["L2"] and sig.causal_chain
    first, repair = model.requests[2], model.requests[3]
    assert list(repair.schema["properties"]) == ["fix", "L2", "L3"]
    assert repair.temperature != first.temperature and repair.seed == first.seed + 1
    assert "Answer only: fix, L2, L3." in repair.messages[1][1]
    assert "It was rejected" in repair.messages[1][1] and '"links"' not in repair.messages[1][1]
    levels = r.steps[-1]
    assert levels.step == "levels" and levels.repaired and levels.ok
    assert not r.steps[2].repaired  # the chain was not asked again


def test_a_repair_that_returns_the_same_answer_drops_the_leaking_level():
    leaky = {**CHAIN_LEVELS, "L2": "The nightly export job locked the orders table"}
    same = {"fix": leaky["fix"], "L2": leaky["L2"], "L3": leaky["L3"]}
    r, _ = _encode(ROLES, RELS, leaky, same)
    sig = r.require()
    assert not sig.level("L2") and "L2 (names surface entities)" in r.steps[-1].dropped
    assert any("same answer" in p for p in r.steps[-1].problems)


def test_v4_prompts_schemas_and_budget_are_unchanged():
    v = VOCAB
    roles = ["R1", "R2", "R3"]
    head = S.episode_head("The job locked the table.", "failure", "fixed", target=False)
    parts = [S.system_prompt(v), S.system_prompt(v, "staged-v4")]
    for step in S.STEPS:
        parts.append(json.dumps(S.step_messages(v, step, head, ["Roles: x"], version="staged-v4")))
        parts.append(
            json.dumps(
                S.step_messages(v, step, head, ["Roles: x"], ["p"], {"a": 1}, version="staged-v4")
            )
        )
    parts += [
        json.dumps(x, sort_keys=True)
        for x in (
            S.roles_schema(),
            S.roles_schema(["a", "b"]),
            S.relation_slots_schema(v, roles),
            S.chain_schema(v, roles, S.MAX_STEP_LINKS),
            S.levels_schema(roles),
            S.relation_phrases(v),
        )
    ]
    assert hashlib.sha256("\n".join(parts).encode()).hexdigest() == V4_DIGEST
    model = ScriptedLLM(
        [
            V4_ROLES,
            {"R1": {"relation": "A keeps exclusive use of resource B", "to": "R2"}},
            CHAIN,
            LEVELS,
        ]
    )
    StagedEncoder(model, clock=lambda: "t").encode(EP).require()
    assert {req.max_tokens for req in model.requests} == {400}
    assert [req.prompt_version for req in model.requests] == [f"staged-v4:{s}" for s in S.STEPS]


def test_every_v12_schema_compiles_to_a_llama_cpp_grammar():
    llama_cpp = pytest.importorskip("llama_cpp")
    for schema in all_schemas():
        assert llama_cpp.LlamaGrammar.from_json_schema(json.dumps(schema), verbose=False)


def test_a_chain_repair_re_asks_only_the_links_and_keeps_the_levels():
    loop = [["holds", "R1", "R2"], "causes", ["holds", "R1", "R2"]]
    bad = {**CHAIN_LEVELS, "links": [loop]}
    r, model = _encode(ROLES, RELS, bad, {"links": LINKS})
    sig = r.require()
    assert model.calls == 4 and len(sig.causal_chain) == 2 and sig.level("L2") == LEVELS["L2"]
    repair = model.requests[3]
    assert list(repair.schema["properties"]) == ["links"]
    assert repair.schema["properties"]["links"]["items"]["prefixItems"]  # a list per link
    assert r.steps[2].repaired and not r.steps[3].repaired and r.steps[2].calls == 2
