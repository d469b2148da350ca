"""The blend generator (reason/blend.py) and its place in the analogizer: proposals carry
provenance, are never stored, go through the same checks, and never displace a stored source
that maps as well."""

import json

import pytest

from analogist.memory import Memory
from analogist.reason.analogizer import Analogizer, AnalogizerConfig
from analogist.reason.blend import (
    BLD,
    WRITER,
    BlendPolicy,
    blend_pair,
    is_blend,
    parsimonious,
    propose,
)
from analogist.reason.run import AnalogyRun
from analogist.signature import parse_signature
from analogist.verify.predict import CheckResult

# the stale-copy mechanism told in two halves, in two domains; they share derives_from
FRONT = {
    "episode_id": "ep_front",
    "kind": "failure",
    "roles": {"LEDGER": "bank ledger", "SHEET": "spreadsheet copy", "CLERK": "clerk"},
    "relations": [
        ["derives_from", "SHEET", "LEDGER"],
        ["trusts_as_authoritative", "CLERK", "SHEET"],
        ["skips_check", "CLERK", "LEDGER"],
    ],
    "causal_chain": [["skips_check(CLERK,LEDGER)", "enables", "false_claim(CLERK)"]],
    "fix_operator": "reconcile(CLERK, SHEET, LEDGER) before reporting",
    "symptom": "reported balance wrong",
    "levels": {"L0": "The clerk reported the spreadsheet total without checking the ledger."},
    "surface": {"domain": "finance", "entities": []},
}
BACK = {
    "episode_id": "ep_back",
    "kind": "failure",
    "roles": {"FEED": "sensor feed", "VIEW": "dashboard view", "OPS": "operator"},
    "relations": [["derives_from", "VIEW", "FEED"], ["diverges_from", "VIEW", "FEED"]],
    "causal_chain": [["diverges_from(VIEW,FEED)", "causes", "false_claim(OPS)"]],
    "fix_operator": "refresh(VIEW)",
    "symptom": "operator announced a wrong reading",
    "levels": {"L0": "The dashboard drifted from the feed and the operator read it out."},
    "surface": {"domain": "monitoring", "entities": []},
}
UNRELATED = {
    "episode_id": "ep_pump",
    "kind": "failure",
    "roles": {"A": "pump", "B": "tank"},
    "relations": [["consumes", "A", "B"]],
    "causal_chain": [["consumes(A,B)", "causes", "exhausted(B)"]],
    "fix_operator": "limit(A) nightly",
    "levels": {"L0": "The pump drained the tank."},
}


@pytest.fixture
def memory():
    m = Memory(":memory:")
    assert not m.add([json.dumps(r) for r in (FRONT, BACK, UNRELATED)]).rejected
    yield m
    m.close()


@pytest.fixture
def target(spec_example, memory):
    raw = {k: v for k, v in spec_example.items() if k != "fix_operator"}
    return parse_signature({**raw, "episode_id": "tgt"}, memory.store.vocabulary)


def _sig(memory, raw):
    return parse_signature(raw, memory.store.vocabulary)


def test_blend_projects_selectively_with_provenance(memory):
    front, back = _sig(memory, FRONT), _sig(memory, BACK)
    b = blend_pair(front, back, memory.store.vocabulary)
    assert b is not None and is_blend(b.episode_id) and b.inputs == ("ep_front", "ep_back")
    assert "derives_from(SHEET, LEDGER)" in b.generic  # the generic space: shared structure
    sig = b.signature
    assert sig.writer_model == WRITER and not sig.verified
    assert dict(sig.surface.extra)["generated"] is True
    rels = {(r.predicate, r.args) for r in sig.relations}
    assert ("diverges_from", ("SHEET", "LEDGER")) in rels  # projected into the anchor's roles
    assert str(sig.fix_operator).startswith("reconcile(CLERK,SHEET,LEDGER)")  # anchor's fix
    assert len(sig.causal_chain) == 2 and b.candidate().found_by == (BLD,)


def test_no_generic_space_no_blend(memory):
    assert blend_pair(_sig(memory, FRONT), _sig(memory, UNRELATED), memory.store.vocabulary) is None


def test_anchor_wins_a_contradiction(memory):
    flipped = {
        **BACK,
        "episode_id": "ep_flip",
        "causal_chain": [
            ["diverges_from(VIEW,FEED)", "prevents", "false_claim(OPS)"],
            ["derives_from(VIEW,FEED)", "causes", "stale(VIEW)"],
        ],
    }
    anchor = {**BACK, "causal_chain": BACK["causal_chain"]}
    b = blend_pair(_sig(memory, anchor), _sig(memory, flipped), memory.store.vocabulary)
    assert b is not None
    links = {(str(c.cause), c.link, str(c.effect)) for c in b.signature.causal_chain}
    assert ("diverges_from(VIEW,FEED)", "causes", "false_claim(OPS)") in links
    assert not any(k == "prevents" for _, k, _ in links)


def test_propose_pairs_both_ways_and_never_reblends(memory):
    sigs = [_sig(memory, r) for r in (FRONT, BACK, UNRELATED)]
    ids = {b.episode_id for b in propose(sigs, memory.store.vocabulary)}
    assert ids == {"bld:ep_front:ep_back", "bld:ep_back:ep_front"}
    blends = propose(sigs, memory.store.vocabulary)
    assert propose([b.signature for b in blends], memory.store.vocabulary) == []
    assert propose(sigs, memory.store.vocabulary, policy=BlendPolicy(inputs=1)) == []


def _run(memory, target, check):
    config = AnalogizerConfig(blend=BlendPolicy())
    return Analogizer(memory, config, check=check).run(target, run_id="run_blend_test")


def test_blend_goes_through_the_pipeline_and_is_logged_not_stored(memory, target):
    def passes(prediction, decisions):
        return CheckResult(True, "sandbox run: resolved", "resolved", -1.0)

    run = _run(memory, target, passes)
    blends = [c for c in run.candidates if c.found_by == (BLD,)]
    assert blends and all(
        set(c.details[BLD]["inputs"]) <= {"ep_front", "ep_back", "ep_pump"} for c in blends
    )
    assert run.attempts[0]["blends"][0]["signature"]["writer_model"] == WRITER
    assert run.source is not None and is_blend(run.source)
    novelty = next(a["novelty"] for a in run.attempts if "novelty" in a)
    assert novelty["status"] == "verified novel"
    assert "no single stored episode maps as well" in novelty["novel_because"]
    assert novelty["score"] > novelty["best_stored"]["score"]
    assert run.record is not None and run.record.transferred
    assert not any(is_blend(e.id) for e in memory.store.list_episodes())  # never stored
    logged = AnalogyRun.from_json(memory.store.get_run("run_blend_test"))  # the §10.1 record
    assert logged.source == run.source
    assert any(c.found_by == (BLD,) and c.details[BLD]["inputs"] for c in logged.candidates)


def test_failed_check_abandons_a_blend_like_any_source(memory, target):
    def fails(prediction, decisions):
        return CheckResult(False, "sandbox run: worse", "worse", 1.0)

    run = _run(memory, target, fails)
    novelty = next(a["novelty"] for a in run.attempts if "novelty" in a)
    assert novelty["status"] == "generated, not verified" and novelty["check_passed"] is False
    assert run.record is not None and not run.record.transferred


def test_blending_off_changes_nothing(memory, target):
    run = Analogizer(memory, AnalogizerConfig(), log=False).run(target, run_id="r")
    assert not any(BLD in c.found_by for c in run.candidates)
    assert "blends" not in run.attempts[0]


def test_parsimony_keeps_stored_sources_that_map_as_well(memory, target):
    front = _sig(memory, FRONT)
    from analogist.verify.roles import map_signatures

    vocab = memory.store.vocabulary
    stored = map_signatures(front, target, vocab)[0]
    twin = map_signatures(front.with_episode_id("bld:x:y"), target, vocab)[0]
    assert parsimonious([stored, twin], 0.05) == [stored]
    assert parsimonious([twin], 0.05) == [twin]  # nothing stored mapped: a blend may stand
    # a stored source the critic rejected still sets the bar a blend must clear
    assert parsimonious([twin], 0.05, mapped=[stored, twin]) == []


PROPOSALS = {
    "proposals": [
        {
            "case": "A dashboard drifted from its sensor feed",
            "domain": "ops",
            "why": "a copy trusted over its source",
            "confidence": 0.6,
        }
    ]
}


def test_the_model_proposes_cross_domain_sources_each_encoded_from_its_own_text(memory, target):
    from types import SimpleNamespace

    from analogist.models import ScriptedLLM
    from analogist.reason.blend import model_sources

    seen = []

    def encode(episode):  # stands in for the staged encoder: what it was given is recorded
        seen.append(episode)
        return SimpleNamespace(
            signature=_sig(memory, {**BACK, "episode_id": episode.id}), reason=""
        )

    llm = ScriptedLLM([PROPOSALS])
    blends, note = model_sources(target, llm, memory.store.vocabulary, 2, encode)
    assert llm.calls == 1 and [e.id for e in seen] == ["bld:model:1"]
    assert seen[0].text.startswith("A dashboard drifted") and "intel feed" not in seen[0].text
    (b,) = blends
    assert b.episode_id == "bld:model:1" and b.inputs == (
        "model:scripted:scripted",
        "A dashboard drifted from its sensor feed",
    )
    assert b.signature.writer_model == WRITER and not b.signature.verified
    assert note == "model:scripted:scripted: 1 of 1 proposed case(s) encoded"


def test_a_configured_model_is_asked_and_the_record_says_what_came_of_it(memory, target):
    from analogist.models import ScriptedLLM

    llm = ScriptedLLM([PROPOSALS])  # nothing queued for the encoder: the case is not encoded
    config = AnalogizerConfig(blend=BlendPolicy(model=1))
    run = Analogizer(memory, config, llm=llm, log=False).run(target, run_id="r_model")
    note = run.attempts[0]["blend_note"]
    assert note.startswith("model:scripted:scripted: 0 of 1 proposed case(s) encoded; not encoded")
    assert llm.calls >= 1
    assert not any(is_blend(e.id) for e in memory.store.list_episodes())


def test_without_a_model_the_record_says_so(memory, target):
    run = Analogizer(memory, AnalogizerConfig(blend=BlendPolicy()), log=False).run(
        target, run_id="r_nomodel"
    )
    assert run.attempts[0]["blend_note"] == "model sources: no model configured"


def test_memory_analogize_blend_flag(memory, spec_example):
    raw = {k: v for k, v in spec_example.items() if k != "fix_operator"}
    run = memory.analogize({**raw, "episode_id": "tgt"}, blend=True, log=False)
    assert any(c.found_by == (BLD,) for c in run.candidates)
    assert run.config["blend"]["inputs"] == BlendPolicy().inputs
    plain = memory.analogize({**raw, "episode_id": "tgt"}, log=False)
    assert not any(BLD in c.found_by for c in plain.candidates)


def test_confirm_keeps_only_blends_whose_projection_the_target_shows(memory, target):
    from analogist.reason.blend import blend_stage

    vocab = memory.store.vocabulary
    front, back = _sig(memory, FRONT), _sig(memory, BACK)
    loose = blend_stage(target, [front, back], vocab)
    strict = blend_stage(target, [front, back], vocab, policy=BlendPolicy(confirm=True))
    assert {b.episode_id for b in strict.blends} <= {b.episode_id for b in loose.blends}
    # the target (the spec example) holds diverges_from, which FRONT+BACK projects: kept
    assert "bld:ep_front:ep_back" in {b.episode_id for b in strict.blends}
    half = {**spec_target_without(target, "diverges_from")}
    strict2 = blend_stage(
        _sig(memory, half), [front, back], vocab, policy=BlendPolicy(confirm=True)
    )
    assert "bld:ep_front:ep_back" not in {b.episode_id for b in strict2.blends}


def spec_target_without(target, predicate):
    raw = target.to_json()
    raw["relations"] = [r for r in raw["relations"] if r[0] != predicate]
    raw["causal_chain"] = [c for c in raw["causal_chain"] if not c[0].startswith(predicate)]
    return raw
