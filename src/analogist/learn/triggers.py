"""Fitting the trigger policy from the analogy log (spec §11.2, Phase 6).

Every logged run records the signals its trigger saw (:class:`~analogist.reason.triggers.
Signals`), the tier it ran at, what it cost, and — through its check and the transfer ledger —
whether it was *useful* (something transferred and the check passed, as in
:mod:`analogist.reason.live`) or a *negative transfer* (a ledger row marked negative). A policy's
value on the log is the sum over the runs it would fire at tier >= 1 of
``useful − beta · negative``; its cost is their tokens.

:func:`fit_policy` searches the thresholds of :class:`~analogist.reason.triggers.TriggerPolicy`
by coordinate ascent over the values the signals actually took (plus the default and "never"),
for the most value whose cost fits the token budget (ties: fewer tokens), starting from the
default policy; while over budget, a step that spends fewer tokens counts as better. Limits, stated: the log holds outcomes only for runs that fired, so a fitted
policy can fire on fewer logged situations than the policy that logged them, never on
situations that never fired; tokens are the logged ones, whichever tier a candidate policy
would assign.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from analogist.reason.triggers import Signals, TriggerPolicy

SIGNAL_OF = {  # policy threshold -> the signal it is compared with
    "repeated_repairs": "failed_repairs",
    "deep_repairs": "failed_repairs",
    "repeated_errors": "repeated_error_class",
    "stall_steps": "steps_without_progress",
    "strong_hit": "structural_hit_score",
    "recurring": "recurring_symptom",
    "explosion": "planning_expansions",
}


@dataclass(frozen=True)
class Outcome:
    """One logged run at tier >= 1: what its trigger saw, whether it helped, what it cost."""

    run_id: str
    signals: Signals
    useful: bool
    negative: bool
    tokens: int


def outcomes_from_log(runs: Iterable[Mapping[str, Any]], negative: set[str]) -> list[Outcome]:
    """Outcomes of the logged runs at tier >= 1 that recorded their signals."""
    known = {f.name for f in fields(Signals)}
    out = []
    for r in runs:
        trig = r.get("trigger") or {}
        if int(trig.get("tier") or 0) < 1 or not isinstance(trig.get("signals"), Mapping):
            continue
        sig = Signals(**{k: v for k, v in trig["signals"].items() if k in known})
        useful = bool(r.get("transferred")) and r.get("verification_result") == "passed"
        out.append(
            Outcome(
                str(r["run_id"]),
                sig,
                useful,
                str(r["run_id"]) in negative,
                int((r.get("cost") or {}).get("tokens") or 0),
            )
        )
    return out


@dataclass(frozen=True)
class PolicyValue:
    """A policy replayed on logged outcomes."""

    fired: int
    useful: int
    negative: int
    tokens: int
    value: float
    by_tier: dict[str, dict[str, int]]

    @property
    def useful_rate(self) -> float | None:
        """Fired-and-useful rate: useful runs over runs fired."""
        return self.useful / self.fired if self.fired else None

    def to_json(self) -> dict:
        return {**asdict(self), "useful_rate": self.useful_rate}


def evaluate(policy: TriggerPolicy, outcomes: Sequence[Outcome], beta: float = 2.0) -> PolicyValue:
    """The value and cost of ``policy`` on ``outcomes`` (module docstring)."""
    by_tier: dict[str, dict[str, int]] = {}
    fired = useful = negative = tokens = 0
    for o in outcomes:
        tier = policy.decide(o.signals).tier
        if tier is None or tier < 1:
            continue
        t = by_tier.setdefault(str(tier), {"fired": 0, "useful": 0, "negative": 0, "tokens": 0})
        t["fired"] += 1
        t["useful"] += o.useful
        t["negative"] += o.negative
        t["tokens"] += o.tokens
        fired, useful = fired + 1, useful + o.useful
        negative, tokens = negative + o.negative, tokens + o.tokens
    return PolicyValue(fired, useful, negative, tokens, useful - beta * negative, by_tier)


@dataclass(frozen=True)
class TriggerFit:
    """A fitted policy with the evidence: default and fitted policy on the same outcomes."""

    policy: TriggerPolicy
    default: PolicyValue
    fitted: PolicyValue
    budget: int | None
    beta: float
    n_runs: int

    def to_json(self) -> dict:
        return {
            "thresholds": asdict(self.policy),
            "default": self.default.to_json(),
            "fitted": self.fitted.to_json(),
            "budget": self.budget,
            "beta": self.beta,
            "n_runs": self.n_runs,
        }


def _candidates(name: str, default: float, outcomes: Sequence[Outcome]) -> list[float]:
    seen = {float(getattr(o.signals, SIGNAL_OF[name])) for o in outcomes}
    never = max(seen | {float(default)}) + 1
    return sorted(seen | {float(default), never})


def fit_policy(
    outcomes: Sequence[Outcome],
    budget: int | None = None,
    beta: float = 2.0,
    base: TriggerPolicy | None = None,
    passes: int = 5,
) -> TriggerFit:
    """The thresholds with the most value within ``budget`` tokens (module docstring)."""
    base = base or TriggerPolicy()

    def objective(p: TriggerPolicy) -> tuple[bool, float, float]:
        v = evaluate(p, outcomes, beta)
        if budget is None or v.tokens <= budget:
            return (True, v.value, -v.tokens)
        return (False, -v.tokens, v.value)  # over budget: first get under it

    best, score = base, objective(base)
    for _ in range(passes):
        improved = False
        for name in SIGNAL_OF:
            current = getattr(best, name)
            for value in _candidates(name, current, outcomes):
                typed = type(current)(value) if not isinstance(current, float) else value
                change: dict[str, Any] = {name: typed}
                trial = replace(best, **change)
                s = objective(trial)
                if s > score:
                    best, score, improved = trial, s, True
        if not improved:
            break
    return TriggerFit(
        best,
        evaluate(base, outcomes, beta),
        evaluate(best, outcomes, beta),
        budget,
        beta,
        len(outcomes),
    )


KIND = "trigger_policy"


def fit_triggers(
    store: Any, budget: int | None = None, beta: float = 2.0, dry_run: bool = False
) -> tuple[TriggerFit, int | None]:
    """Fit the policy on the store's whole analogy log and store it as the next version
    (undoable like a consolidation run; ``dry_run`` stores nothing). Returns the fit and its
    version (None for a dry run)."""
    from analogist.store.consolidation import PutLearned

    negative = {e.run_id for e in store.ledger() if e.negative}
    fit = fit_policy(outcomes_from_log(store.list_runs(), negative), budget, beta)
    if dry_run:
        return fit, None
    stored = store.learned_rows(KIND)
    version = int((stored.get("current") or {}).get("version", 0)) + 1
    body = {**fit.to_json(), "version": version, "log_rows": store.max_log_rowid()}
    wm = store.consolidation_watermark()
    run_id = f"trig_v{version}_{len(store.consolidation_runs())}"
    store.apply_consolidation(
        run_id,
        [PutLearned(KIND, f"v{version}", body), PutLearned(KIND, "current", {"version": version})],
        wm[0],
        wm[1],
        {"trigger_fit": body},
    )
    return fit, version


def current_policy(store: Any) -> tuple[TriggerPolicy, int | None]:
    """The newest fitted policy and its version, or the default policy and None."""
    stored = store.learned_rows(KIND)
    version = (stored.get("current") or {}).get("version")
    if version is None or f"v{version}" not in stored:
        return TriggerPolicy(), None
    return TriggerPolicy(**stored[f"v{version}"]["thresholds"]), int(version)
