"""The ``model`` answerer: what each arm puts before the model, and how its answer is read.

These tests protect the arms' contract (spec §20): A0 sees no memory and no hint, B only
semantic episodes, C signatures, B′ at least C's context volume, D mapping tables, E the
verification record, G only the oracle source; no prompt carries key information; and a
malformed answer is "no claim", never an exception.
"""

from __future__ import annotations

import json
import re

import pytest

from analogist.bench.analysis.check import check_fix
from analogist.bench.execution.answer import Answer, target_signature
from analogist.bench.execution.arms import ARMS, ArmSettings
from analogist.bench.execution.engine_answer import EngineAnswerer
from analogist.bench.execution.model_answer import ModelAnswerer
from analogist.bench.execution.prompts import HINT, PROMPT_VERSION
from analogist.models.logged import LoggedLLM
from analogist.models.scripted import ScriptedLLM
from analogist.signature import default_vocabulary
from tests.bench.parb_helpers import bench

NO_CLAIM = {"source": None, "role_mapping": {}, "confidence": 0.5}


def items(family: str):
    return [it for it in bench(0, "dev", "small").items if it.family == family]


def probe_for(item):
    check = item.key.get("check")
    return (lambda op, args: check_fix(check, op, args).result) if check else None


def ask(arm: str, item, *responses, logged: bool = False, seed: int = 0, **kw):
    """Answer ``item`` under ``arm`` with a scripted model; return (answer, scripted model)."""
    scripted = ScriptedLLM(responses or [NO_CLAIM])
    llm = LoggedLLM(scripted, cache="off") if logged else scripted
    target = target_signature(item.key, default_vocabulary())
    kw.setdefault("oracle_source", item.key.get("gold_source"))
    answer = ModelAnswerer(ARMS[arm], llm, ArmSettings(), seed).answer(
        item.family, item.inputs, target, probe=probe_for(item), **kw
    )
    return answer, scripted


def prompt(scripted: ScriptedLLM) -> str:
    return "\n".join(content for _, content in scripted.requests[0].messages)


def memory_ids(item) -> list[str]:
    return [r["id"] for r in item.inputs.get("memory", [])]


# ------------------------------------------------------------------ parsing, per family
def test_f1_f4_role_mapping_and_fix_are_read():
    for item in items("F1") + items("F4"):
        sid = item.inputs["source"]["id"]
        eids = sorted(item.inputs["target"]["entities"])
        ans, _ = ask(
            "A1",
            item,
            {
                "source": sid,
                "role_mapping": {"R1": eids[0], "R2": eids[1]},
                "fix": {"operator": "distrust", "args": eids[:2]},
                "confidence": 0.8,
            },
        )
        assert isinstance(ans, Answer)
        assert ans.claimed_source == sid
        assert ans.role_map == {"R1": eids[0], "R2": eids[1]}
        assert ans.action == ("distrust", tuple(eids[:2]))
        assert ans.conclusion == " ".join(["distrust", *eids[:2]])
        assert ans.confidence == 0.8 and ans.retrieved == () and ans.survived is None


def test_f2_candidates_are_judged():
    for item in items("F2"):
        a, b = (c["id"] for c in item.inputs["candidates"])
        ans, _ = ask("A0", item, {"source": b, "accept": {a: False, b: True}, "confidence": 0.7})
        assert ans.judged == {a: False, b: True} and ans.claimed_source == b


def test_f3_f7_f8_claims_only_shown_episodes():
    for item in items("F3") + items("F7") + items("F8"):
        first, _ = ask("C", item)
        pick = first.retrieved[0]
        ans, _ = ask(
            "C", item, {"source": pick, "role_mapping": {}, "fix": None, "confidence": 0.6}
        )
        assert ans.claimed_source == pick
        # an episode of the memory the arm did not show cannot be claimed
        hidden = [i for i in memory_ids(item) if i not in first.retrieved]
        if hidden:
            ans, _ = ask("C", item, {"source": hidden[0], "confidence": 0.6})
            assert ans.claimed_source is None and ans.run["problems"]


def test_f5_decisions_are_read():
    for item in items("F5"):
        ids = [i["id"] for i in item.inputs["inferences"]]
        decisions = {i: ("transfer" if n % 2 else "withhold") for n, i in enumerate(ids)}
        ans, _ = ask(
            "A1",
            item,
            {"source": item.inputs["source"]["id"], "decisions": decisions, "confidence": 0.5},
        )
        assert ans.decisions == {i: n % 2 == 1 for n, i in enumerate(ids)}


def test_f6_source_id_counts_as_acceptance():
    for item in items("F6"):
        sid = item.inputs["source"]["id"]
        ans, _ = ask("A1", item, {"source": sid, "confidence": 0.9})
        assert ans.judged == {sid: True}
        ans, _ = ask("A1", item, {"source": None, "accept": {sid: False}, "confidence": 0.1})
        assert ans.judged == {sid: False} and ans.claimed_source is None


def test_parametric_analogue_is_no_claim():
    ans, _ = ask(
        "A0", items("F3")[0], {"source": "the Challenger O-ring decision", "confidence": 0.9}
    )
    assert ans.claimed_source is None
    assert any("not a shown episode id" in p for p in ans.run["problems"])


# ----------------------------------------------------------------------- what arms show
def test_a0_sees_no_memory_and_no_hint_a1_gets_the_hint():
    for item in items("F3") + items("F7") + items("F8"):
        ans, scripted = ask("A0", item)
        text = prompt(scripted)
        assert not any(i in text for i in memory_ids(item))
        assert HINT not in text and "RETRIEVED" not in text and ans.retrieved == ()
        ans, scripted = ask("A1", item)
        text = prompt(scripted)
        assert HINT in text and not any(i in text for i in memory_ids(item))


def test_b_shows_only_semantic_episodes_without_signatures():
    for item in items("F3") + items("F7"):
        ans, scripted = ask("B", item)
        text = prompt(scripted)
        target = target_signature(item.key, default_vocabulary())
        pool = EngineAnswerer(ARMS["B"]).memory(item.inputs).search(target, channels=("M",), k=5)
        semantic = set(pool.found_by("M"))
        assert ans.retrieved and set(ans.retrieved) <= semantic
        assert len(ans.retrieved) <= ArmSettings().k
        assert "signature:" not in text and "TARGET STRUCTURE" not in text
        assert not any(i in text for i in memory_ids(item) if i not in ans.retrieved)


def test_c_shows_structural_episodes_with_signatures():
    for item in items("F3") + items("F7"):
        ans, scripted = ask("C", item)
        text = prompt(scripted)
        assert "TARGET STRUCTURE" in text and "signature:" in text and "causal chain:" in text
        cands = {c["episode_id"]: c for c in ans.run["machinery"]["candidates"]}
        assert all(cands[i]["structural_rank"] is not None for i in ans.retrieved)
        assert "MAPPING TABLES" not in text and "VERIFICATION" not in text


def test_c_prime_shows_shuffled_signatures():
    item = items("F2")[0]
    _, plain = ask("C", item)
    _, placebo = ask("C′", item)
    assert prompt(plain) != prompt(placebo)
    assert "signature:" in prompt(placebo)


def test_h_is_the_union_of_b_and_c():
    for item in items("F3"):
        b, _ = ask("B", item)
        c, _ = ask("C", item)
        h, _ = ask("H", item)
        assert set(h.retrieved) == set(b.retrieved) | set(c.retrieved)


def test_b_prime_reaches_the_context_it_is_given():
    for item in items("F3") + items("F7"):
        b, _ = ask("B", item)
        want = b.run["context_chars"] + 1500
        ans, scripted = ask("B′", item, context_chars=want)
        assert ans.run["context_chars"] >= want
        assert len(scripted.requests[0].messages[-1][1]) == ans.run["context_chars"]
        assert ans.retrieved[: len(b.retrieved)] == b.retrieved


def test_b_prime_defaults_to_c_context_and_stops_when_memory_runs_out():
    item = items("F3")[0]
    c, _ = ask("C", item)
    ans, _ = ask("B′", item)
    assert ans.run["context_chars"] >= c.run["context_chars"]
    ans, _ = ask("B′", item, context_chars=10**7)
    assert set(ans.retrieved) == set(memory_ids(item))
    assert any("memory ran out" in n for n in ans.run["notes"])


def test_d_shows_mapping_tables_e_adds_verification():
    for item in items("F7") + items("F5"):
        _, d = ask("D", item)
        assert "MAPPING TABLES" in prompt(d) and "MAPPED" in prompt(d)
        assert "VERIFICATION" not in prompt(d)
        ans, e = ask("E", item)
        text = prompt(e)
        assert "VERIFICATION" in text
        record = ans.run["machinery"]["record"]
        if record is None:  # verification rejected every candidate: the prompt says why
            assert "ANALOGY   none" in text
            continue
        for head in ("FAILS", "BLOCKERS", "TRANSFER", "PREDICT", "CHECK"):
            assert head in text
        assert all(t["decision"] in text for t in record["transfer"])


def test_e_survival_comes_from_the_machinery_run():
    item = items("F7")[0]
    first, _ = ask("E", item)
    chosen = first.run["machinery"]["source"]
    ans, _ = ask("E", item, {"source": chosen, "role_mapping": {}, "fix": None, "confidence": 0.9})
    assert ans.survived is True
    other = next(i for i in first.retrieved if i != chosen)
    ans, _ = ask("E", item, {"source": other, "confidence": 0.9})
    assert ans.survived is False
    ans, _ = ask("E", item)
    assert ans.survived is None


def test_g_shows_only_the_oracle_source():
    for item in items("F3"):
        gold = item.key["gold_source"]
        ans, scripted = ask("G", item, oracle_source=gold)
        assert ans.retrieved == ((gold,) if gold else ())
        others = [i for i in memory_ids(item) if i != gold]
        assert not any(i in prompt(scripted) for i in others)
        assert ans.run["oracle"] is True


def test_source_override_replaces_the_given_source():
    item = items("F1")[0]
    ans, scripted = ask("E", item, sources=[])
    text = prompt(scripted)
    assert "(no source episode is given)" in text
    assert item.inputs["source"]["id"] not in text and ans.retrieved == ()


# ------------------------------------------------------------------------- no key leaks
def _leaks(text: str, item) -> list[str]:
    found = [
        w
        for w in ("decoy", "gold", "oracle", "same_domain", "memory_roles")
        if re.search(rf"\b{w}\b", text, re.IGNORECASE)
    ]
    if item.motif in text or item.motif.replace("_", " ") in text.lower():
        found.append(item.motif)
    rm = item.key.get("role_mapping")
    if rm and (json.dumps(rm) in text or json.dumps(rm, sort_keys=True) in text):
        found.append("role_mapping")
    return found


@pytest.mark.parametrize("arm", list(ARMS))
def test_no_prompt_carries_key_information(arm):
    for item in bench(0, "dev", "small").items:
        _, scripted = ask(arm, item)
        assert _leaks(prompt(scripted), item) == [], (arm, item.item_id)


# ---------------------------------------------------------------- robustness and calls
def test_malformed_json_is_no_claim():
    item = items("F2")[0]
    ans, _ = ask("E", item, "this is not JSON at all")
    assert ans.claimed_source is None and ans.judged == {i: False for i in ans.judged}
    assert ans.run["error"] and ans.confidence is None
    ans, _ = ask("E", item, "still not JSON", "nor this", logged=True)
    assert ans.claimed_source is None and "schema" in ans.run["error"]


def test_malformed_fields_are_no_claim_each():
    item = items("F4")[0]
    ans, _ = ask(
        "A1",
        item,
        {"source": 7, "role_mapping": ["R1"], "fix": {"operator": 3}, "confidence": "high"},
    )
    assert (ans.claimed_source, ans.role_map, ans.action, ans.confidence) == (None, {}, None, None)
    assert len(ans.run["problems"]) >= 4
    ans, _ = ask("A1", items("F5")[0], [1, 2, 3])
    assert ans.decisions == {} and ans.run["problems"]


def test_call_settings_seed_replicate_and_cost():
    item = items("F6")[0]
    sid = item.inputs["source"]["id"]
    ans, scripted = ask("A1", item, {**NO_CLAIM, "accept": {sid: True}}, seed=3, logged=True)
    req = scripted.requests[0]
    assert (req.seed, req.replicate, req.prompt_version) == (3, 3, PROMPT_VERSION)
    assert (req.temperature, req.max_tokens) == (
        ArmSettings().temperature,
        ArmSettings().max_tokens,
    )
    assert req.schema["required"][0] == "source"
    assert ans.calls == 1 and ans.tokens > 0 and ans.judged == {sid: True}
    bad = {"source": None}  # misses "accept" and "confidence": one repair re-ask
    ans, scripted = ask("A1", item, bad, {**NO_CLAIM, "accept": {sid: False}}, logged=True)
    assert len(scripted.requests) == 2 and ans.calls == 2 and ans.judged == {sid: False}


def test_prompts_are_deterministic():
    for arm in ("A0", "B′", "C′", "E"):
        item = items("F7")[0]
        _, one = ask(arm, item)
        _, two = ask(arm, item)
        assert one.requests[0].messages == two.requests[0].messages


def test_without_a_target_signature_the_semantic_channel_still_runs():
    item = items("F3")[0]
    for arm in ("B", "E"):
        scripted = ScriptedLLM([NO_CLAIM])
        ans = ModelAnswerer(ARMS[arm], scripted).answer(item.family, item.inputs, None)
        assert ans.claimed_source is None and ans.run["machinery"] is None
        assert any("no target signature" in n for n in ans.run["notes"])
    assert ans.retrieved == ()  # E's channels are all structural
    b = ModelAnswerer(ARMS["B"], ScriptedLLM([NO_CLAIM])).answer(item.family, item.inputs, None)
    assert b.retrieved


# ------------------------------------------------------- what each arm may see (issue 11)
@pytest.mark.parametrize("arm", ["A0", "A1", "B", "B′"])
def test_arms_without_structural_memory_see_no_stored_signature(arm):
    for family in ("F1", "F2", "F6"):
        item = items(family)[0]
        _, scripted = ask(arm, item)
        text = prompt(scripted)
        assert "signature:" not in text and "relations:" not in text, (arm, family)
        given = item.inputs.get("source") or item.inputs["candidates"][0]
        assert given["text"][:80] in text  # the item's own episodes are shown as text
        assert "no signature is shown, so there are no roles to map" in text


def test_structural_arms_see_the_given_episodes_signatures():
    _, scripted = ask("C", items("F1")[0])
    assert "signature:" in prompt(scripted)


# -------------------------------------------------- a constrained, calibratable answer
def test_the_schema_offers_no_source_and_names_only_what_was_shown():
    item = items("F4")[0]
    ans, scripted = ask("E", item)
    props = scripted.requests[0].schema["properties"]
    assert None in props["source"]["enum"] and set(props["source"]["enum"]) - {None} == set(
        ans.run["shown"]
    )
    assert props["confidence"] == {"enum": [0.1, 0.3, 0.5, 0.7, 0.9]}
    eids = sorted(item.inputs["target"]["entities"])
    sig_roles = (
        set(item.inputs["source"]["signature"]["roles"]) if item.inputs.get("source") else set()
    )
    assert props["role_mapping"]["additionalProperties"] is False
    assert sig_roles <= set(props["role_mapping"]["properties"])
    assert all(v == {"enum": eids} for v in props["role_mapping"]["properties"].values())
    _, bare = ask("A0", item)
    assert bare.requests[0].schema["properties"]["role_mapping"]["properties"] == {}
    fix = props["fix"]["anyOf"][1]["properties"]
    assert fix["args"]["items"] == {"enum": eids}
    if item.inputs.get("operators"):
        assert fix["operator"] == {"enum": [o["name"] for o in item.inputs["operators"]]}
    assert '"no source"' in prompt(scripted) and "0.9 every role" in prompt(scripted)


def test_a_prompt_that_would_overflow_the_context_is_cut_and_says_so():
    from analogist.bench.execution.prompts import estimate_tokens

    item = items("F3")[0]
    scripted = ScriptedLLM([NO_CLAIM, NO_CLAIM])
    target = target_signature(item.key, default_vocabulary())
    full = ModelAnswerer(ARMS["B"], scripted, ArmSettings(), 0).answer(
        item.family, item.inputs, target
    )
    size = estimate_tokens(scripted.requests[0].message_dicts())
    small = ModelAnswerer(
        ARMS["B"], scripted, ArmSettings(), 0, context_tokens=size + ArmSettings().max_tokens - 200
    ).answer(item.family, item.inputs, target)
    assert not any("cut" in n for n in full.run["notes"])
    assert any("episode texts cut to" in n for n in small.run["notes"])
    assert estimate_tokens(scripted.requests[1].message_dicts()) < size
    assert "[cut]" in scripted.requests[1].messages[-1][1]
    assert small.retrieved == full.retrieved  # nothing is dropped, only shortened
