"""The staged encoder with a scripted model: four constrained steps, fair checks, repairs that
change the request, the copy check, no padding, per-step fidelity."""

import copy
import json

from analogist.encode import StagedEncoder, evaluate_encoder, score_signature
from analogist.encode.checks import mentions, stem, surface_leaks
from analogist.encode.staged import copies_example
from analogist.encode.steps import EXAMPLE, STEPS, fact_sentences, relation_phrases, system_prompt
from analogist.episode import Episode
from analogist.models import ScriptedLLM
from analogist.signature import default_vocabulary, parse_signature

TEXT = (
    "The nightly export job locked the orders table for an hour while the checkout service "
    "waited on it, so checkouts timed out."
)
EP = Episode("ep_1", "failure", TEXT, outcome="the export now copies a snapshot")
ROLES = {
    "domain": "retail software",
    "roles": [
        {"entity": "nightly export job", "part": "holder of a shared resource"},
        {"entity": "orders table", "part": "resource that only one user may hold"},
        {"entity": "checkout service", "part": "user that waits for the resource"},
    ],
}
HOLDS = "nightly export job keeps exclusive use of resource orders table"
WAITS = "checkout service cannot proceed until it obtains orders table"
RELS = {"R1": HOLDS, "R2": "none", "R3": WAITS}
CHAIN = {
    "links": [
        {"cause": ["holds", "R1", "R2"], "link": "blocks", "effect": ["waits_for", "R3", "R2"]},
        {"cause": ["waits_for", "R3", "R2"], "link": "causes", "effect": ["delayed", "R3"]},
    ]
}
LEVELS = {
    "symptom": "requests time out while a long job runs",
    "violated_invariant": "a shared resource is held only briefly",
    "fix": {"operator": "shorten_hold", "args": ["R1", "R2"]},
    "L1": "A batch job held a table lock for an hour",
    "L2": "A long holder of an exclusive resource delayed every waiter",
    "L3": "Hoarding a shared resource starves those who wait",
}


def run(*answers, episode=EP, **kw):
    """The encoder on scripted answers; relations are answered in staged-v5's form (concrete
    sentences) unless a test asks for another version."""
    kw.setdefault("version", "staged-v5")
    model = ScriptedLLM(answers)
    enc = StagedEncoder(model, clock=lambda: "2026-01-01T00:00:00Z", **kw)
    return enc.encode(episode), model


def test_four_steps_build_a_signature_whose_l0_is_the_text():
    r, model = run(ROLES, RELS, CHAIN, LEVELS)
    sig = r.require()
    assert [t.step for t in r.steps] == list(STEPS) and model.calls == 4
    assert sig.role_names == ("R1", "R2", "R3") and sig.level("L0") == TEXT
    assert [x.term().canonical() for x in sig.relations] == ["holds(R1,R2)", "waits_for(R3,R2)"]
    assert str(sig.fix_operator) == "shorten_hold(R1,R2)"
    assert dict(sig.surface.extra)["bindings"]["R2"] == "orders table"
    # every step shares the system prompt and starts its user message with the episode
    assert len({req.messages[0] for req in model.requests}) == 1
    assert all(
        req.messages[1][1].startswith("Episode (failure):\n" + TEXT) for req in model.requests
    )


def test_relations_are_one_concrete_sentence_per_role_so_nothing_repeats_or_pads():
    _, model = run(ROLES, RELS, CHAIN, LEVELS)
    schema = model.requests[1].schema
    assert schema["required"] == ["R1", "R2", "R3"] and schema["additionalProperties"] is False
    r3 = schema["properties"]["R3"]["enum"]
    assert WAITS in r3 and "none" not in r3
    assert all(s.startswith("checkout service") for s in r3)
    rows = fact_sentences(
        default_vocabulary(), [(f"R{i}", r["entity"]) for i, r in enumerate(ROLES["roles"], 1)]
    )["R3"]
    assert list(rows) == r3 and all(a == "R3" and b != "R3" for _, a, b in rows.values())
    sentences = fact_sentences(default_vocabulary(), [("R1", "a"), ("R2", "b")])
    assert sentences["R1"]["a needs b to be working or available in order to work"] == [
        "depends_on",
        "R1",
        "R2",
    ]
    fix_args = model.requests[3].schema["properties"]["fix"]["properties"]["args"]["items"]
    assert fix_args == {"enum": ["R1", "R2", "R3"]}


def test_staged_v4_is_the_default_and_asks_one_placeholder_definition_per_role():
    slots = {
        "R1": {"relation": "A keeps exclusive use of resource B", "to": "R2"},
        "R2": {"relation": "none", "to": "R1"},
        "R3": {"relation": "A cannot proceed until it obtains B", "to": "R2"},
    }
    model = ScriptedLLM([ROLES, slots, CHAIN, LEVELS])
    enc = StagedEncoder(model, clock=lambda: "2026-01-01T00:00:00Z")
    assert enc.version == "staged-v4"
    r = enc.encode(EP)
    assert model.requests[1].schema["properties"]["R3"]["properties"]["to"] == {
        "enum": ["R1", "R2"]
    }
    assert relation_phrases(default_vocabulary())["A keeps exclusive use of resource B"] == "holds"
    assert {req.prompt_version for req in model.requests} == {f"staged-v4:{s}" for s in STEPS}
    assert [x.term().canonical() for x in r.require().relations] == [
        "holds(R1,R2)",
        "waits_for(R3,R2)",
    ]


def test_entities_match_by_stem_and_inside_longer_words():
    assert stem("locked") == stem("lock") and stem("queued") == stem("queues")
    assert mentions("the lock", "the row was locked") and mentions("DNS", "CoreDNS failed")
    assert not mentions("thermostat", "the row was locked")


def test_generic_words_may_appear_in_abstract_levels_but_names_may_not():
    assert surface_leaks("a cache served stale data", ["cache"], []) == []
    assert surface_leaks("the orders table was held", ["orders table"], []) == ["orders table"]
    assert surface_leaks("Redis failed", ["Redis"], []) == ["Redis"]


def test_a_repair_names_the_problem_and_changes_temperature_and_seed():
    bad = copy.deepcopy(ROLES)
    bad["roles"][2]["entity"] = "thermostat"
    r, model = run(bad, ROLES, RELS, CHAIN, LEVELS)
    assert r.ok and r.steps[0].repaired and model.calls == 5
    first, second = model.requests[0], model.requests[1]
    assert "'thermostat' does not occur in the episode" in second.messages[1][1]
    assert (first.temperature, second.temperature) == (0.0, 0.4) and second.seed == first.seed + 1


def test_a_repair_that_returns_the_same_answer_fails_and_an_episode_without_roles_is_rejected():
    bad = {
        "domain": "x",
        "roles": [{"entity": "thermostat", "part": "a"}, {"entity": "oven", "part": "b"}],
    }
    r, model = run(bad, bad)
    assert not r.ok and model.calls == 2
    assert "same answer" in r.reason and r.steps[0].step == "roles"


def test_no_relation_at_all_is_asked_again_and_unusable_slots_are_said():
    empty = {r: "none" for r in ("R1", "R2", "R3")}
    r, model = run(ROLES, empty, RELS, CHAIN, LEVELS)
    assert r.ok and r.steps[1].repaired and "no role has a fact" in model.requests[2].messages[1][1]
    assert [x.term().canonical() for x in r.signature.relations] == [
        "holds(R1,R2)",
        "waits_for(R3,R2)",
    ]
    assert r.steps[1].dropped == ("R2 (not one of its sentences)",)


def test_the_same_commutative_fact_from_two_roles_is_kept_once():
    shared = {
        "R1": "nightly export job and checkout service draw on the same limited resource "
        "or dependency",
        "R2": "none",
        "R3": "checkout service and nightly export job draw on the same limited resource "
        "or dependency",
    }
    r, _ = run(ROLES, shared, CHAIN, LEVELS)
    assert [x.term().canonical() for x in r.require().relations] == ["shares_resource(R1,R3)"]
    assert "R3 (same fact as another role's)" in r.steps[1].dropped


def test_a_copy_of_the_example_structure_is_caught_whatever_the_role_names():
    ex = EXAMPLE["relations"]["relations"]
    ren = {"R1": "R3", "R2": "R1", "R3": "R2"}
    renamed = [[p, *(ren[a] for a in args)] for p, *args in ex]
    assert copies_example(renamed) and not copies_example([["holds", "R1", "R2"]])
    sentences = fact_sentences(
        default_vocabulary(), [(f"R{i}", r["entity"]) for i, r in enumerate(ROLES["roles"], 1)]
    )
    slots = {r: "none" for r in ("R1", "R2", "R3")}
    for p, a, b in renamed:
        slots[a] = next(s for s, row in sentences[a].items() if row == [p, a, b])
    r, _ = run(ROLES, slots, slots)
    assert not r.ok and "copy the worked example" in r.reason


def test_a_level_that_still_names_the_episode_is_dropped_and_said():
    leaky = dict(LEVELS, L3="The nightly export job blocked the checkout service")
    r, _ = run(ROLES, RELS, CHAIN, leaky, leaky)
    assert r.ok and "L3" not in r.signature.levels and "L2" in r.signature.levels
    assert any("L3" in d for d in r.steps[3].dropped)


def test_a_target_with_an_entity_table_names_roles_by_entity_id():
    table = {"e_1": "the export job", "e_2": "the orders table", "e_3": "the checkout service"}
    roles = {
        "domain": "retail",
        "roles": [
            {"entity": "the export job", "part": "holder"},
            {"entity": "the orders table", "part": "resource"},
        ],
    }
    rels = {"e_1": "the export job keeps exclusive use of resource the orders table", "e_2": "none"}
    chain = {
        "links": [
            {"cause": ["holds", "e_1", "e_2"], "link": "causes", "effect": ["delayed", "e_2"]}
        ]
    }
    levels = dict(LEVELS, fix={"operator": "release", "args": ["e_1"]})
    model = ScriptedLLM([roles, rels, chain, levels])
    r = StagedEncoder(model, version="staged-v5").encode_target(TEXT, entities=table)
    assert model.requests[0].schema["properties"]["roles"]["items"]["properties"]["entity"] == {
        "enum": list(table.values())
    }
    assert "Outcome" not in model.requests[0].messages[1][1]
    assert r.require().role_names == ("e_1", "e_2")


def test_the_worked_example_is_in_the_prompt_and_matches_no_bench_motif(vocab):
    prompt = system_prompt(vocab)
    assert "platform team" in prompt and "assign_owner(R3, R1)" in prompt
    assert "skips_check(R1,R3); assumes(R2,R1)" in prompt
    assert (
        "skips_check(R1,R3): the platform team does not verify its belief against the certificate"
    ) in system_prompt(vocab, "staged-v5")
    from analogist.bench.generation.motifs import all_motifs
    from analogist.signature import parse_term

    motifs = all_motifs()
    assert len(motifs) >= 20
    for motif in motifs:
        rels = [[t.functor, *t.args] for t in map(parse_term, motif.relations)]
        assert not copies_example(rels), motif.name
        assert "assumes" not in {r[0] for r in rels} or "skips_check" not in {r[0] for r in rels}


def test_per_step_fidelity_and_process_summary(vocab):
    gold = parse_signature(
        {
            "episode_id": "ep_1",
            "kind": "failure",
            "roles": {"HLD": "holder", "RES": "resource", "WTR": "waiter"},
            "relations": [
                ["holds", "HLD", "RES"],
                ["waits_for", "WTR", "RES"],
                ["shares_resource", "HLD", "WTR"],
            ],
            "causal_chain": [["holds(HLD,RES)", "blocks", "waits_for(WTR,RES)"]],
            "fix_operator": "release(HLD,RES)",
            "levels": {"L0": TEXT},
        },
        vocab,
    )
    model = ScriptedLLM([ROLES, RELS, CHAIN, LEVELS])
    ep = Episode("ep_1", "failure", TEXT, "the export now copies a snapshot", signature=gold)
    rep = evaluate_encoder([ep], StagedEncoder(model, version="staged-v5"), vocab=vocab)
    steps = rep.summary["steps"]
    assert (
        steps["relations"]["precision"] == 1.0 and round(steps["relations"]["recall"], 3) == 0.667
    )
    assert steps["causal_chain"]["matched"] == 1 and steps["causal_chain"]["written"] == 2
    assert steps["fix"]["f1"] == 1.0 and steps["roles"]["recall"] == 1.0
    assert rep.summary["process"]["rejection_rate"] == 0.0
    assert rep.summary["process"]["steps"]["relations"]["calls"] == 1
    assert json.dumps(rep.to_json())
    assert score_signature(gold, gold, vocab).f1 == 1.0
