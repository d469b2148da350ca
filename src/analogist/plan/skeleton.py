"""Projecting a prior plan onto a target problem (spec §14 steps 3-4).

Operators are matched by structure, never by name: two operators correspond when one's
precondition, add and delete lists become the other's under a renaming of parameters
(:func:`operator_map`). Each source step is then rewritten through the operator map and the
role map and checked against the grounded target in order, giving one :class:`ProjectedStep`
per source step:

- ``matched`` — the ground operator exists and its precondition holds where the skeleton is;
- ``unmatched precondition`` — it exists, but facts it needs do not hold yet (listed); the
  planner will be asked to establish them;
- ``missing operator`` — no target operator has the source operator's structure, a role is
  unmapped, or the ground operator does not exist in the target (a static precondition is
  false there, e.g. this key does not open that door).

The walk assumes each unmatched step is repaired (its missing facts then hold), so later steps
are judged against the state the skeleton intends.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from itertools import permutations

from analogist.plan.pddl import GroundProblem, fact_key, step_key
from analogist.signature.plan_block import OperatorSchema, PlanBlock, Step

MATCHED, UNMATCHED, MISSING = "matched", "unmatched precondition", "missing operator"


@dataclass(frozen=True)
class OperatorMatch:
    """Source operator -> target operator, with ``order[i]`` the source parameter index that
    fills the target's parameter ``i``."""

    source: str
    target: str
    order: tuple[int, ...]


def _rename(op: OperatorSchema, names: Mapping[str, str]) -> tuple[frozenset, ...]:
    def sub(facts: tuple[tuple[str, ...], ...]) -> frozenset:
        return frozenset((f[0], *(names.get(a, a) for a in f[1:])) for f in facts)

    return sub(op.pre), sub(op.add), sub(op.delete)


def _align(src: OperatorSchema, tgt: OperatorSchema) -> tuple[int, ...] | None:
    if src.arity != tgt.arity or src.shape() != tgt.shape() or src.arity > 6:
        return None
    want = _rename(src, {p: f"#{i}" for i, (p, _) in enumerate(src.params)})
    for order in permutations(range(src.arity)):
        names = {tgt.params[j][0]: f"#{order[j]}" for j in range(tgt.arity)}
        if _rename(tgt, names) == want:
            return tuple(order)
    return None


def operator_map(source: PlanBlock, target: PlanBlock) -> dict[str, OperatorMatch]:
    """Each source operator's structural counterpart in the target (first by declaration order)."""
    out = {}
    for s in source.operators:
        for t in target.operators:
            order = _align(s, t)
            if order is not None:
                out[s.name] = OperatorMatch(s.name, t.name, order)
                break
    return out


@dataclass(frozen=True)
class ProjectedStep:
    """One source step carried into the target: ``step`` is None when it could not be written."""

    index: int
    source: Step
    step: Step | None
    status: str
    missing: tuple[str, ...] = ()
    why: str = ""

    def to_json(self) -> dict:
        return {
            "index": self.index,
            "source": str(self.source),
            "step": str(self.step) if self.step else None,
            "status": self.status,
            "missing": list(self.missing),
            "why": self.why,
        }


@dataclass(frozen=True)
class Skeleton:
    """The projected skeleton of one source plan on one target."""

    source_id: str
    steps: tuple[ProjectedStep, ...]

    def count(self, status: str) -> int:
        return sum(s.status == status for s in self.steps)

    def to_json(self) -> dict:
        return {
            "source_id": self.source_id,
            "steps": [s.to_json() for s in self.steps],
            "matched": self.count(MATCHED),
            "unmatched": self.count(UNMATCHED),
            "missing": self.count(MISSING),
        }


def _write(
    s: Step, ops: Mapping[str, OperatorMatch], roles: Mapping[str, str]
) -> tuple[Step | None, str]:
    m = ops.get(s.operator)
    if m is None:
        return None, f"no target operator has the structure of {s.operator}"
    args = []
    for i in m.order:
        if s.args[i] not in roles:
            return None, f"role {s.args[i]} is not mapped"
        args.append(roles[s.args[i]])
    return Step(m.target, tuple(args)), ""


def project(
    source_id: str,
    source: PlanBlock,
    target: PlanBlock,
    role_map: Mapping[str, str],
    ground: GroundProblem,
) -> Skeleton:
    """Project ``source``'s steps onto the grounded ``target`` (see the module docstring)."""
    ops = operator_map(source, target)
    ground_ops = ground.operators
    state = set(ground.task.initial_state)
    out = []
    for i, s in enumerate(source.steps):
        step, why = _write(s, ops, role_map)
        if step is None:
            out.append(ProjectedStep(i, s, None, MISSING, why=why))
            continue
        op = ground_ops.get(step_key(step))
        if op is None:
            out.append(ProjectedStep(i, s, step, MISSING, why=_absent(step, target, ground)))
            continue
        missing = tuple(sorted(op.preconditions - state))
        out.append(ProjectedStep(i, s, step, UNMATCHED if missing else MATCHED, missing))
        state = ((state | set(missing)) - op.del_effects) | op.add_effects
    return Skeleton(source_id, tuple(out))


def _absent(step: Step, target: PlanBlock, ground: GroundProblem) -> str:
    """Why a written step has no ground operator: name the false static precondition if any."""
    schema = target.operator(step.operator)
    if schema is None:
        return "operator not in the target"
    pre, _, _ = schema.ground(step.args)
    init = {fact_key(f) for f in target.init}
    dynamic = {f for op in ground.task.operators for f in op.add_effects | op.del_effects}
    for f in sorted(pre, key=fact_key):
        if fact_key(f) not in init and fact_key(f) not in dynamic:
            return f"static precondition {fact_key(f)} is false in the target"
    return "the target's grounding has no such operator (irrelevant to its goal)"
