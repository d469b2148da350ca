"""Tiered triggers fire on observable signals and always say why."""

from analogist.reason.triggers import Signals, TriggerPolicy


def test_quiet_agent_does_not_trigger():
    t = TriggerPolicy().decide(Signals())
    assert not t.fired and t.reasons == ("no impasse signal",)


def test_logged_error_is_tier0():
    t = TriggerPolicy().decide(Signals(error_logged=True))
    assert t.tier == 0 and t.reasons == ("error logged",)


def test_repeated_repairs_is_tier1_with_reason():
    t = TriggerPolicy().decide(Signals(error_logged=True, failed_repairs=2))
    assert t.tier == 1 and "failed repairs 2 >= 2" in t.reasons


def test_stall_irreversible_and_fingerprint_are_tier1():
    p = TriggerPolicy()
    assert p.decide(Signals(steps_without_progress=5)).tier == 1
    assert p.decide(Signals(irreversible_action=True)).tier == 1
    assert p.decide(Signals(fingerprint_hit=True)).tier == 1
    assert p.decide(Signals(recurring_symptom=2)).tier == 1


def test_deep_impasse_is_tier2_and_keeps_tier1_reasons():
    t = TriggerPolicy().decide(Signals(failed_repairs=4, causal_contradiction=True))
    assert t.tier == 2
    assert "causal model contradiction" in t.reasons
    assert "failed repairs 4 >= 2" in t.reasons


def test_self_reported_low_confidence_alone_does_not_fire():
    assert not TriggerPolicy().decide(Signals(low_confidence=True)).fired
