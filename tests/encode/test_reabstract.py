"""Re-abstraction: the engine coarsens to the causal skeleton; finer needs a model; with a model
the rewrite is checked like any encoding."""

import pytest

from analogist.encode import reabstract
from analogist.models import ScriptedLLM
from analogist.signature import parse_signature

from .helpers import answer


@pytest.fixture
def sig(spec_example, vocab):
    return parse_signature(spec_example, vocab)


def test_up_keeps_the_causal_skeleton_and_shifts_the_levels(sig, vocab):
    r = reabstract(sig, "up", vocab=vocab)
    new = r.signature
    assert r.ok and "derives_from" in r.reason
    assert {x.predicate for x in new.relations} == {"skips_check", "diverges_from"}
    assert new.causal_chain == sig.causal_chain
    assert new.level("L1") == sig.level("L2") and new.level("L2") == sig.level("L3")
    assert new.level("L0") == sig.level("L0") and not new.verified
    assert new.writer_model.startswith("engine:reabstract")
    assert set(new.role_names) == {"SRC", "DER", "CON"}  # all still used by chain or fix


def test_up_twice_says_there_is_nothing_coarser(sig, vocab):
    once = reabstract(sig, "up", vocab=vocab).signature
    again = reabstract(once, "up", vocab=vocab)
    assert not again.ok and "already at the causal skeleton" in again.reason


def test_roles_nothing_mentions_any_more_are_dropped(spec_example, vocab):
    spec_example["roles"]["AUD"] = "auditor"
    spec_example["relations"].append(["observes", "AUD", "CON"])
    r = reabstract(parse_signature(spec_example, vocab), "up", vocab=vocab)
    assert "AUD" not in r.signature.role_names


def test_without_a_causal_chain_the_engine_declines(spec_example, vocab):
    spec_example["causal_chain"] = []
    r = reabstract(parse_signature(spec_example, vocab), "up", vocab=vocab)
    assert not r.ok and "no causal chain" in r.reason


def test_down_needs_a_model(sig, vocab):
    r = reabstract(sig, "down", vocab=vocab)
    assert r.signature is None and "pass a model" in r.reason


def test_with_a_model_the_rewrite_is_validated_and_keeps_l0_and_surface(sig, vocab):
    model = ScriptedLLM([answer(relations=[["diverges_from", "DER", "SRC"]])])
    r = reabstract(sig, "up", llm=model, vocab=vocab)
    assert r.ok and [x.predicate for x in r.signature.relations] == ["diverges_from"]
    assert r.signature.level("L0") == sig.level("L0") and r.signature.surface == sig.surface
    prompt = model.requests[0].messages[-1][1]
    assert "MORE abstract" in prompt and "derives_from" in prompt


def test_a_bad_direction_is_an_error(sig):
    with pytest.raises(ValueError):
        reabstract(sig, "sideways")
