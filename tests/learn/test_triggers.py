"""Trigger fitting: replaying a policy on logged outcomes (hand-computed), fitting under a
budget, storing versions, reading signals from the analogy log."""

from __future__ import annotations

from analogist.learn.triggers import (
    Outcome,
    current_policy,
    evaluate,
    fit_policy,
    fit_triggers,
    outcomes_from_log,
)
from analogist.reason.triggers import Signals, TriggerPolicy
from analogist.store import Store


def o(i: int, repairs: int, useful: bool, negative: bool = False, tokens: int = 100) -> Outcome:
    return Outcome(
        f"r{i}", Signals(error_logged=True, failed_repairs=repairs), useful, negative, tokens
    )


LOG = [o(1, 2, False, True), o(2, 2, False), o(3, 3, True), o(4, 5, True), o(5, 0, True)]


def test_evaluate_by_hand():
    v = evaluate(TriggerPolicy(), LOG)
    # default: tier 1 at >= 2 failed repairs, tier 2 at >= 4; r5 (0 repairs) does not fire
    assert (v.fired, v.useful, v.negative, v.tokens) == (4, 2, 1, 400)
    assert v.value == 2 - 2 * 1 and v.useful_rate == 0.5
    assert v.by_tier == {
        "1": {"fired": 3, "useful": 1, "negative": 1, "tokens": 300},
        "2": {"fired": 1, "useful": 1, "negative": 0, "tokens": 100},
    }


def test_fit_raises_the_repair_threshold_past_the_harmful_runs():
    fit = fit_policy(LOG)
    assert fit.policy.repeated_repairs == 3  # drops r1 (negative) and r2 (useless)
    assert (fit.fitted.fired, fit.fitted.useful, fit.fitted.value) == (2, 2, 2.0)
    assert fit.default.value == 0.0


def test_budget_is_respected_when_it_can_be():
    fit = fit_policy(LOG, budget=100)
    assert fit.fitted.tokens <= 100 and fit.fitted.useful == 1


def test_log_signals_and_versions_are_stored():
    store = Store(":memory:")
    for i, (repairs, resolved) in enumerate([(2, False), (3, True), (3, True)]):
        store.log_run(
            {
                "run_id": f"run_{i}",
                "trigger": {
                    "tier": 1,
                    "reasons": ["x"],
                    "signals": {"error_logged": True, "failed_repairs": repairs},
                },
                "transferred": ["fix(A)"],
                "verification_result": "passed" if resolved else "failed",
                "cost": {"tokens": 50},
                "candidates": [],
            }
        )
    outs = outcomes_from_log(store.list_runs(), set())
    assert sorted((x.signals.failed_repairs, x.useful) for x in outs) == [
        (2, False),
        (3, True),
        (3, True),
    ]
    fit, version = fit_triggers(store)
    assert version == 1 and fit.policy.repeated_repairs == 3
    policy, v = current_policy(store)
    assert v == 1 and policy == fit.policy
    _, version2 = fit_triggers(store, budget=50)
    assert version2 == 2 and current_policy(store)[1] == 2
    runs = store.consolidation_runs()
    store.undo_consolidation(runs[-1].run_id)  # a fitted version is undone like consolidation
    assert current_policy(store)[1] == 1


def test_memory_trigger_decides_with_the_newest_fitted_policy(tmp_path):
    """Memory.trigger uses the default thresholds until a policy is fitted, then the fitted one
    (here the fit raises the repair threshold from 2 to 3, so two failed repairs stop firing)."""
    from analogist.memory import Memory

    with Memory(tmp_path / "m.db") as mem:
        two = Signals(error_logged=True, failed_repairs=2)
        before, version = mem.trigger(two)
        assert version is None and before.tier == 1
        for i, (repairs, resolved) in enumerate([(2, False), (3, True), (3, True)]):
            mem.store.log_run(
                {
                    "run_id": f"run_{i}",
                    "trigger": {
                        "tier": 1,
                        "reasons": ["x"],
                        "signals": {"error_logged": True, "failed_repairs": repairs},
                    },
                    "transferred": ["fix(A)"],
                    "verification_result": "passed" if resolved else "failed",
                    "cost": {"tokens": 50},
                    "candidates": [],
                }
            )
        fit_triggers(mem.store)
        after, version = mem.trigger(two)
        assert version == 1 and after.tier == 0
        assert mem.trigger(Signals(error_logged=True, failed_repairs=3))[0].tier == 1
