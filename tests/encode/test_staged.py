"""The staged encoder with a scripted model: four constrained steps, fair checks, repairs that
change the request, the copy check, no padding, per-step fidelity."""

import copy
import json

from analogist.encode import StagedEncoder, evaluate_encoder, score_signature
from analogist.encode.checks import mentions, stem, surface_leaks
from analogist.encode.staged import copies_example
from analogist.encode.steps import EXAMPLE, STEPS, relation_phrases, system_prompt
from analogist.episode import Episode
from analogist.models import ScriptedLLM
from analogist.signature import default_vocabulary, parse_signature

TEXT = ("The nightly export job locked the orders table for an hour while the checkout service "
        "waited on it, so checkouts timed out.")
EP = Episode("ep_1", "failure", TEXT, outcome="the export now copies a snapshot")
ROLES = {"domain": "retail software", "roles": [
    {"entity": "nightly export job", "part": "holder of a shared resource"},
    {"entity": "orders table", "part": "resource that only one user may hold"},
    {"entity": "checkout service", "part": "user that waits for the resource"}]}
HOLDS = "A keeps exclusive use of resource B"
WAITS = "A cannot proceed until it obtains B"
RELS = {"R1": {"relation": HOLDS, "to": "R2"}, "R2": {"relation": "none", "to": "R1"},
        "R3": {"relation": WAITS, "to": "R2"}}
CHAIN = {"links": [{"cause": ["holds", "R1", "R2"], "link": "blocks",
                    "effect": ["waits_for", "R3", "R2"]},
                   {"cause": ["waits_for", "R3", "R2"], "link": "causes", "effect": ["delayed", "R3"]}]}
LEVELS = {"symptom": "requests time out while a long job runs",
          "violated_invariant": "a shared resource is held only briefly",
          "fix": {"operator": "shorten_hold", "args": ["R1", "R2"]},
          "L1": "A batch job held a table lock for an hour",
          "L2": "A long holder of an exclusive resource delayed every waiter",
          "L3": "Hoarding a shared resource starves those who wait"}


def run(*answers, episode=EP, **kw):
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
    assert all(req.messages[1][1].startswith("Episode (failure):\n" + TEXT) for req in model.requests)


def test_relations_are_one_slot_per_role_with_enums_so_nothing_can_be_padded():
    _, model = run(ROLES, RELS, CHAIN, LEVELS)
    schema = model.requests[1].schema
    assert schema["required"] == ["R1", "R2", "R3"] and schema["additionalProperties"] is False
    slot = schema["properties"]["R3"]["properties"]
    assert slot["to"] == {"enum": ["R1", "R2"]}  # never the role itself
    assert HOLDS in slot["relation"]["enum"] and "none" not in slot["relation"]["enum"]
    assert relation_phrases(default_vocabulary())[HOLDS] == "holds"
    fix_args = model.requests[3].schema["properties"]["fix"]["properties"]["args"]["items"]
    assert fix_args == {"enum": ["R1", "R2", "R3"]}


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
    bad = {"domain": "x", "roles": [{"entity": "thermostat", "part": "a"},
                                    {"entity": "oven", "part": "b"}]}
    r, model = run(bad, bad)
    assert not r.ok and model.calls == 2
    assert "same answer" in r.reason and r.steps[0].step == "roles"


def test_no_relation_at_all_is_asked_again_and_none_slots_are_said():
    empty = {r: {"relation": "none", "to": "R1" if r != "R1" else "R2"} for r in ("R1", "R2", "R3")}
    r, model = run(ROLES, empty, RELS, CHAIN, LEVELS)
    assert r.ok and r.steps[1].repaired and "no role has a relation" in model.requests[2].messages[1][1]
    assert [x.term().canonical() for x in r.signature.relations] == ["holds(R1,R2)",
                                                                     "waits_for(R3,R2)"]
    assert r.steps[1].dropped == ("R2 (none)",)


def test_a_copy_of_the_example_structure_is_caught_whatever_the_role_names():
    ex = EXAMPLE["relations"]["relations"]
    ren = {"R1": "R3", "R2": "R1", "R3": "R2"}
    renamed = [[p, *(ren[a] for a in args)] for p, *args in ex]
    assert copies_example(renamed) and not copies_example([["holds", "R1", "R2"]])
    slots = {r: {"relation": "none", "to": "R1" if r != "R1" else "R2"} for r in ("R1", "R2", "R3")}
    phrase = {t: p for p, t in relation_phrases(default_vocabulary()).items()}
    for p, a, b in renamed:
        slots[a] = {"relation": phrase[p], "to": b}
    r, _ = run(ROLES, slots, slots)
    assert not r.ok and "copy the worked example" in r.reason


def test_a_level_that_still_names_the_episode_is_dropped_and_said():
    leaky = dict(LEVELS, L3="The nightly export job blocked the checkout service")
    r, _ = run(ROLES, RELS, CHAIN, leaky, leaky)
    assert r.ok and "L3" not in r.signature.levels and "L2" in r.signature.levels
    assert any("L3" in d for d in r.steps[3].dropped)


def test_a_target_with_an_entity_table_names_roles_by_entity_id():
    table = {"e_1": "the export job", "e_2": "the orders table", "e_3": "the checkout service"}
    roles = {"domain": "retail", "roles": [{"entity": "the export job", "part": "holder"},
                                           {"entity": "the orders table", "part": "resource"}]}
    rels = {"e_1": {"relation": HOLDS, "to": "e_2"}, "e_2": {"relation": "none", "to": "e_1"}}
    chain = {"links": [{"cause": ["holds", "e_1", "e_2"], "link": "causes",
                        "effect": ["delayed", "e_2"]}]}
    levels = dict(LEVELS, fix={"operator": "release", "args": ["e_1"]})
    model = ScriptedLLM([roles, rels, chain, levels])
    r = StagedEncoder(model).encode_target(TEXT, entities=table)
    assert model.requests[0].schema["properties"]["roles"]["items"]["properties"]["entity"] == {
        "enum": list(table.values())}
    assert "Outcome" not in model.requests[0].messages[1][1]
    assert r.require().role_names == ("e_1", "e_2")


def test_the_worked_example_is_in_the_prompt_and_matches_no_bench_motif(vocab):
    prompt = system_prompt(vocab)
    assert "platform team" in prompt and "assign_owner(R3, R1)" in prompt
    assert "skips_check(R1,R3); assumes(R2,R1)" in prompt
    from analogist.bench.motifs import all_motifs
    from analogist.signature import parse_term

    motifs = all_motifs()
    assert len(motifs) >= 20
    for motif in motifs:
        rels = [[t.functor, *t.args] for t in map(parse_term, motif.relations)]
        assert not copies_example(rels), motif.name
        assert "assumes" not in {r[0] for r in rels} or "skips_check" not in {r[0] for r in rels}


def test_per_step_fidelity_and_process_summary(vocab):
    gold = parse_signature({
        "episode_id": "ep_1", "kind": "failure",
        "roles": {"HLD": "holder", "RES": "resource", "WTR": "waiter"},
        "relations": [["holds", "HLD", "RES"], ["waits_for", "WTR", "RES"],
                      ["shares_resource", "HLD", "WTR"]],
        "causal_chain": [["holds(HLD,RES)", "blocks", "waits_for(WTR,RES)"]],
        "fix_operator": "release(HLD,RES)", "levels": {"L0": TEXT}}, vocab)
    model = ScriptedLLM([ROLES, RELS, CHAIN, LEVELS])
    ep = Episode("ep_1", "failure", TEXT, "the export now copies a snapshot", signature=gold)
    rep = evaluate_encoder([ep], StagedEncoder(model), vocab=vocab)
    steps = rep.summary["steps"]
    assert steps["relations"]["precision"] == 1.0 and round(steps["relations"]["recall"], 3) == 0.667
    assert steps["causal_chain"]["matched"] == 1 and steps["causal_chain"]["written"] == 2
    assert steps["fix"]["f1"] == 1.0 and steps["roles"]["recall"] == 1.0
    assert rep.summary["process"]["rejection_rate"] == 0.0
    assert rep.summary["process"]["steps"]["relations"]["calls"] == 1
    assert json.dumps(rep.to_json())
    assert score_signature(gold, gold, vocab).f1 == 1.0
