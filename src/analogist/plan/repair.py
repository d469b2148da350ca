"""Repairing a projected skeleton with the planner, with a fallback (spec §14 step 5).

The skeleton enters the planner as an ordered sequence of subgoals (landmarks): from the
current state, a matched step is applied directly; for an unmatched step the planner searches
for a state where its precondition holds (a short search), then the step is applied; missing
operators are skipped. After the last step the planner searches from there to the goal.
Before that, each step is checked in the delete relaxation (:func:`relaxed_reachable`, no
search): a step whose precondition cannot be reached from the current state, or after which
the goal cannot be reached (a dead end), is dropped.

A broken skeleton is detected and abandoned, so a decoy costs search but never success:

- before any search, when more than ``max_missing`` of its steps are missing operators;
- during repair, when ``max_failures`` subgoal searches fail (unsolvable or over the
  per-subgoal budget ``segment_budget``);
- at the end, when the goal cannot be reached from where the skeleton left off.

Then the planner runs alone from the initial state. Every expansion spent, including those of
an abandoned skeleton, is counted. The final plan is validated against the grounded domain by
simulation (:func:`validate`).
"""

from __future__ import annotations

from dataclasses import dataclass

from analogist.plan.pddl import GroundProblem, step_key
from analogist.plan.planner import Planner, SearchResult
from analogist.plan.skeleton import MISSING, Skeleton


@dataclass(frozen=True)
class RepairPolicy:
    """When to give up on a skeleton: the share of missing operators tolerated before search,
    the number of failed subgoal searches tolerated, the per-subgoal expansion budget, and
    whether steps that are unreachable or lead into a dead end (relaxed test) are dropped."""

    max_missing: float = 0.34
    max_failures: int = 1
    segment_budget: int = 5_000
    dead_end_check: bool = True


@dataclass(frozen=True)
class PlanStep:
    """One step of the final plan and where it came from: ``skeleton`` (a projected step applied
    as is), ``repair`` (found by the planner between skeleton steps) or ``planner``."""

    operator: str
    provenance: str
    skeleton_index: int | None = None

    def to_json(self) -> dict:
        return {
            "operator": self.operator,
            "provenance": self.provenance,
            "skeleton_index": self.skeleton_index,
        }


@dataclass(frozen=True)
class Repair:
    """The outcome: ``mode`` is skeleton (the repaired skeleton reached the goal), fallback
    (abandoned; the planner alone solved it), planner (no skeleton given) or failed."""

    mode: str
    steps: tuple[PlanStep, ...]
    expansions: int
    searches: int
    seconds: float
    valid: bool
    reason: str = ""
    dropped: tuple[tuple[int, str], ...] = ()  # skeleton steps left out: (index, why)

    @property
    def solved(self) -> bool:
        return self.valid and self.mode != "failed"

    @property
    def operators(self) -> tuple[str, ...]:
        return tuple(s.operator for s in self.steps)

    def to_json(self) -> dict:
        return {
            "mode": self.mode,
            "valid": self.valid,
            "reason": self.reason,
            "expansions": self.expansions,
            "searches": self.searches,
            "seconds": round(self.seconds, 4),
            "length": len(self.steps),
            "steps": [s.to_json() for s in self.steps],
            "dropped": [{"index": i, "why": w} for i, w in self.dropped],
        }


def validate(ground: GroundProblem, operators: tuple[str, ...]) -> bool:
    """Simulate the plan on the grounded task: every operator exists and is applicable in turn,
    and the goal holds at the end."""
    ops = ground.operators
    state = frozenset(ground.task.initial_state)
    for name in operators:
        op = ops.get(name)
        if op is None or not op.applicable(state):
            return False
        state = op.apply(state)
    return bool(ground.task.goal_reached(state))


def plan_alone(
    ground: GroundProblem,
    planner: Planner,
    spent: int = 0,
    searches: int = 0,
    seconds: float = 0.0,
    reason: str = "",
) -> Repair:
    r = planner.solve(ground.task)
    steps = tuple(PlanStep(o, "planner") for o in r.plan)
    mode = ("fallback" if reason else "planner") if r.solved else "failed"
    valid = r.solved and validate(ground, r.plan)
    return Repair(
        mode,
        steps,
        spent + r.expansions,
        searches + 1,
        seconds + r.seconds,
        valid,
        reason or ("" if r.solved else f"planner: {r.status}"),
    )


def repair(
    ground: GroundProblem,
    skeleton: Skeleton,
    planner: Planner,
    policy: RepairPolicy = RepairPolicy(),
) -> Repair:
    """Follow the skeleton as subgoals, repairing gaps with ``planner``; fall back when broken."""
    n = len(skeleton.steps)
    if n == 0 or skeleton.count(MISSING) > policy.max_missing * n:
        return plan_alone(
            ground,
            planner,
            reason=f"skeleton rejected before search: "
            f"{skeleton.count(MISSING)} of {n} steps are missing operators",
        )
    ops = ground.operators
    state = frozenset(ground.task.initial_state)
    steps: list[PlanStep] = []
    spent = searches = failures = 0
    seconds = 0.0
    dropped: list[tuple[int, str]] = []
    for ps in skeleton.steps:
        if ps.status == MISSING or ps.step is None:
            continue
        op = ops[step_key(ps.step)]
        if policy.dead_end_check and not relaxed_reachable(ground, state, op.preconditions):
            dropped.append((ps.index, "its precondition cannot be reached from here"))
            continue
        if not op.applicable(state):
            r = planner.solve(ground.task, state, op.preconditions, budget=policy.segment_budget)
            spent, searches, seconds = spent + r.expansions, searches + 1, seconds + r.seconds
            if not r.solved:
                failures += 1
                if failures >= policy.max_failures:
                    return plan_alone(
                        ground,
                        planner,
                        spent,
                        searches,
                        seconds,
                        f"skeleton abandoned at step {ps.index}: subgoal {r.status}",
                    )
                continue
            state = _apply(ground, state, r, steps, ps.index)
        after = op.apply(state)
        if policy.dead_end_check and not relaxed_reachable(ground, after, ground.task.goals):
            dropped.append((ps.index, "it leads where the goal cannot be reached (a dead end)"))
            continue
        steps.append(PlanStep(op.name, "skeleton", ps.index))
        state = after
    r = planner.solve(ground.task, state, budget=policy.segment_budget)
    spent, searches, seconds = spent + r.expansions, searches + 1, seconds + r.seconds
    if not r.solved:
        return plan_alone(
            ground,
            planner,
            spent,
            searches,
            seconds,
            f"goal not reached from the skeleton's end ({r.status})",
        )
    _apply(ground, state, r, steps, None)
    plan = tuple(s.operator for s in steps)
    if not validate(ground, plan):
        return plan_alone(
            ground, planner, spent, searches, seconds, "the repaired plan failed validation"
        )
    return Repair("skeleton", tuple(steps), spent, searches, seconds, True, dropped=tuple(dropped))


def relaxed_reachable(ground: GroundProblem, state: frozenset[str], facts: frozenset[str]) -> bool:
    """Whether ``facts`` can all be reached from ``state`` when delete effects are ignored.

    A cheap, sound test: if it fails no plan reaches them, so a skeleton step that needs them,
    or one after which the goal fails it, is broken here and is dropped without any search.
    """
    reached, pending = set(state), list(ground.task.operators)
    grew = True
    while grew and not facts <= reached:
        grew, rest = False, []
        for op in pending:
            if op.preconditions <= reached:
                grew = grew or not op.add_effects <= reached
                reached |= op.add_effects
            else:
                rest.append(op)
        pending = rest
    return facts <= reached


def _apply(
    ground: GroundProblem,
    state: frozenset[str],
    r: SearchResult,
    steps: list[PlanStep],
    index: int | None,
) -> frozenset[str]:
    ops = ground.operators
    for name in r.plan:
        steps.append(PlanStep(name, "repair", index))
        state = ops[name].apply(state)
    return state
