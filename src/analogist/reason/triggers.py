"""When to look for an analogy (spec §11): observable impasse signals, tiered.

Behavioural signals are preferred over self-reported confidence, which stays a weak feature
until outcome data shows it predicts useful analogies. Every decision carries the reasons it
fired, so trigger policies can later be fitted from the analogy log.

=====  =======================================================  ================================
Tier   Fires on                                                 Work
=====  =======================================================  ================================
0      every logged error                                       fingerprint + predicate lookup,
                                                                no model call
1      repeated failed repairs, repeated error class, stalls,   target signature, retrieval,
       imminent irreversible action, strong structural hit      forced mapping, causal gate
2      deeper impasse, high stakes, mapping failure, causal     + re-representation, independent
       contradiction, planning search explosion                 critic, parametric channel
=====  =======================================================  ================================
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields


@dataclass(frozen=True)
class Signals:
    """What the agent can observe about its own situation (all counts since the last success)."""

    error_logged: bool = False
    failed_repairs: int = 0
    repeated_error_class: int = 0
    steps_without_progress: int = 0
    fingerprint_hit: bool = False
    structural_hit_score: float = 0.0
    irreversible_action: bool = False
    planning_expansions: int = 0
    causal_contradiction: bool = False
    recurring_symptom: int = 0
    mapping_failed: bool = False
    high_stakes: bool = False
    low_confidence: bool = False

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Trigger:
    """A trigger decision: the tier to run (None: do not run) and why."""

    tier: int | None
    reasons: tuple[str, ...]
    signals: Signals = Signals()

    @property
    def fired(self) -> bool:
        return self.tier is not None

    def to_json(self) -> dict:
        return {"tier": self.tier, "reasons": list(self.reasons), "signals": self.signals.to_json()}

    @classmethod
    def from_json(cls, d: dict) -> Trigger:
        known = {f.name for f in fields(Signals)}
        signals = Signals(**{k: v for k, v in (d.get("signals") or {}).items() if k in known})
        return cls(d.get("tier"), tuple(d.get("reasons", ())), signals)

    @classmethod
    def manual(cls, tier: int, why: str = "explicit request") -> Trigger:
        """A trigger for an explicit call (CLI, benchmark): still records why it fired."""
        return cls(tier, (why,))


@dataclass(frozen=True)
class TriggerPolicy:
    """Thresholds of the tiered policy (stored with every run so they can be fitted later)."""

    repeated_repairs: int = 2
    repeated_errors: int = 3
    stall_steps: int = 5
    strong_hit: float = 0.8
    recurring: int = 2
    deep_repairs: int = 4
    explosion: int = 1000

    def decide(self, s: Signals) -> Trigger:
        """The highest tier whose conditions hold, with every reason that held."""
        tier2 = [
            r
            for r, ok in (
                (
                    f"failed repairs {s.failed_repairs} >= {self.deep_repairs}",
                    s.failed_repairs >= self.deep_repairs,
                ),
                (
                    "high stakes with an impasse",
                    s.high_stakes and (s.failed_repairs or s.steps_without_progress),
                ),
                ("previous mapping failed", s.mapping_failed),
                ("causal model contradiction", s.causal_contradiction),
                (
                    f"planning expansions {s.planning_expansions} >= {self.explosion}",
                    s.planning_expansions >= self.explosion,
                ),
            )
            if ok
        ]
        tier1 = [
            r
            for r, ok in (
                (
                    f"failed repairs {s.failed_repairs} >= {self.repeated_repairs}",
                    s.failed_repairs >= self.repeated_repairs,
                ),
                (
                    f"error class repeated {s.repeated_error_class}x",
                    s.repeated_error_class >= self.repeated_errors,
                ),
                (
                    f"no progress for {s.steps_without_progress} steps",
                    s.steps_without_progress >= self.stall_steps,
                ),
                ("imminent irreversible action", s.irreversible_action),
                (
                    f"strong structural hit {s.structural_hit_score:.2f}",
                    s.structural_hit_score >= self.strong_hit,
                ),
                (
                    f"symptom recurred across {s.recurring_symptom} tasks",
                    s.recurring_symptom >= self.recurring,
                ),
                ("exact fingerprint hit", s.fingerprint_hit),
            )
            if ok
        ]
        if tier2:
            return Trigger(2, tuple(tier2 + tier1), s)
        if tier1:
            return Trigger(1, tuple(tier1), s)
        if s.error_logged:
            return Trigger(0, ("error logged",), s)
        return Trigger(None, ("no impasse signal",), s)
