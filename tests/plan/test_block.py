"""Plan signatures: the plan block is validated, simulated and round-trips through the store."""

from __future__ import annotations

import copy

import pytest

from analogist.episode import Episode
from analogist.errors import SignatureError
from analogist.signature import default_vocabulary, parse_signature
from analogist.store import Store
from tests.plan.helpers import target_json

V = default_vocabulary()


def solved() -> dict:
    raw = target_json()
    raw["plan"]["steps"] = [
        ["evict", "node3", "cachepool"],
        ["load", "key9", "node3"],
        ["probe", "node3", "key9"],
        ["readmit", "node3", "cachepool"],
    ]
    raw["plan"]["outcome"] = "succeeded"
    return raw


def test_a_plan_signature_round_trips_through_json_and_the_store():
    sig = parse_signature(solved(), V)
    assert sig.plan is not None and len(sig.plan.steps) == 4
    assert parse_signature(sig.to_json(), V) == sig
    with Store(":memory:") as store:
        store.add_episodes([Episode(sig.episode_id, "plan", sig.level("L0"), signature=sig)])
        assert store.get_episode(sig.episode_id).signature == sig


def bad(mutate) -> str:
    raw = solved()
    mutate(raw)
    with pytest.raises(SignatureError) as e:
        parse_signature(raw, V)
    return str(e.value)


def test_a_step_whose_precondition_does_not_hold_is_rejected_naming_step_and_fact():
    msg = bad(lambda r: r["plan"]["steps"].pop(0))
    assert "plan.steps[0]" in msg and "drained(node3)" in msg


def test_a_succeeded_plan_that_misses_its_goal_is_rejected():
    assert "goal fact" in bad(lambda r: r["plan"]["steps"].pop())


def test_undeclared_predicates_roles_and_operators_are_named():
    assert "predicate 'sparkly'" in bad(lambda r: r["plan"]["init"].append(["sparkly", "node3"]))
    assert "role 'node9'" in bad(lambda r: r["plan"]["goal"].append(["drained", "node9"]))
    assert "operator 'zap'" in bad(lambda r: r["plan"]["steps"].append(["zap", "node3"]))
    assert "takes a key" in bad(
        lambda r: r["plan"]["steps"].__setitem__(1, ["load", "node3", "node3"])
    )


def test_only_a_plan_kind_signature_carries_a_plan():
    raw = copy.deepcopy(solved())
    raw["kind"] = "success"
    with pytest.raises(SignatureError, match="only a signature of kind 'plan'"):
        parse_signature(raw, V)


def test_a_failed_plan_may_break_a_precondition():
    raw = solved()
    raw["plan"]["steps"].pop(0)
    raw["plan"]["outcome"] = "failed"
    assert parse_signature(raw, V).plan.outcome == "failed"
