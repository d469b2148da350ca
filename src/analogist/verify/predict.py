"""Prediction before implementation (spec §10.2, items 5–7).

Each analogy states one observable prediction before anything is applied: a withheld fact the
analogy implies ("expect diverges_from(CACHE, SENSOR)"), or, when only an action transfers, that
the action resolves the target's symptom. A check hook — any callable; in the benchmark, the
world simulator — runs it, and the analogy is abandoned when the prediction fails. Every applied
transfer goes to the negative-transfer ledger with its outcome against the no-action control.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from analogist.signature.model import Signature
from analogist.verify.gate import TransferDecision


@dataclass(frozen=True)
class Prediction:
    """An observable consequence of the analogy, stated before acting.

    Attributes:
        statement: the human-readable prediction.
        fact: a projected fact expected to hold in the target (None for action predictions).
        action: the transferred action whose effect is predicted (None for fact predictions).
        check: how to test it cheaply.
    """

    statement: str
    fact: str | None = None
    action: str | None = None
    check: str = ""

    def to_json(self) -> dict:
        return {
            "statement": self.statement,
            "fact": self.fact,
            "action": self.action,
            "check": self.check,
        }


@dataclass(frozen=True)
class CheckResult:
    """What a check observed.

    Attributes:
        passed: True (prediction held), False (it failed: abandon), None (could not check).
        observed: what was seen, in words.
        outcome: for an applied action, ``resolved``, ``unchanged`` or ``worse`` versus control.
        delta: symptom change versus control (negative is better), when measurable.
    """

    passed: bool | None
    observed: str
    outcome: str | None = None
    delta: float | None = None

    @property
    def label(self) -> str:
        return {True: "passed", False: "failed", None: "unchecked"}[self.passed]

    def to_json(self) -> dict:
        return {
            "passed": self.passed,
            "observed": self.observed,
            "outcome": self.outcome,
            "delta": self.delta,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CheckResult:
        return cls(d.get("passed"), d.get("observed", ""), d.get("outcome"), d.get("delta"))


def make_prediction(target: Signature, decisions: list[TransferDecision]) -> Prediction | None:
    """The one cheap prediction to test before acting, or None when nothing is predicted."""
    action = next((d for d in decisions if d.transfer and d.inference.kind == "action"), None)
    withheld = [
        d
        for d in decisions
        if not d.transfer
        and d.inference.kind == "fact"
        and not d.inference.skolems
        and d.inference.fact is not None
        and d.inference.fact.kind == "relation"
    ]
    if withheld:
        fact = withheld[0].inference.projected
        return Prediction(
            f"if the analogy holds, {fact} is true in the target",
            fact=fact,
            action=action.inference.projected if action else None,
            check=f"observe {fact} directly; abandon the analogy if it does not hold",
        )
    if action is not None:
        symptom = target.symptom or "the target's symptom"
        act = action.inference.projected
        return Prediction(
            f"applying {act} removes: {symptom}",
            action=act,
            check=f"apply {act} in a sandbox and compare the symptom with the no-action control",
        )
    return None


def no_check(prediction: Prediction, decisions: list[TransferDecision]) -> CheckResult:
    """The hook used when no check is available: the prediction stays untested, never 'passed'."""
    return CheckResult(None, "no check hook configured")


#: A check hook: anything that tests a prediction in the target (sandbox, probe, simulator).
CheckFn = Callable[[Prediction, list[TransferDecision]], CheckResult]
