"""The plan block of a plan signature (spec §14): states as facts over roles, operators with
preconditions and effects, the operator sequence, and the outcome.

A plan signature is an ordinary :class:`~analogist.signature.model.Signature` of kind ``plan``
whose optional ``plan`` field holds a :class:`PlanBlock`: a STRIPS description written over the
signature's roles (roles are the plan's objects, role types their types). Validation checks
every fact against the declared predicates and roles, every operator's facts against its
parameters, and *simulates* the step sequence from the initial state: a step whose
precondition does not hold, or a ``succeeded`` plan that does not reach its goal, is rejected
with the step and fact named.

JSON form::

    {"predicates": {"at": 2, ...},
     "operators": [{"name": "go", "params": {"?a": "agent", "?p": "place", "?q": "place"},
                    "pre": [["at", "?a", "?p"], ["link", "?p", "?q"]],
                    "add": [["at", "?a", "?q"]], "del": [["at", "?a", "?p"]]}],
     "init": [["at", "truck", "depot"], ...], "goal": [["at", "truck", "dock"]],
     "steps": [["go", "truck", "depot", "dock"]], "outcome": "succeeded"}
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from analogist.errors import SignatureError

OUTCOMES = ("succeeded", "failed", "unsolved")
_NAME = re.compile(r"^[a-z][a-z0-9_\-]*$")
_VAR = re.compile(r"^\?[a-z][a-z0-9_\-]*$")
MAX_FACTS = 2000
MAX_OPERATORS = 100
MAX_STEPS = 500

Atom = tuple[str, ...]
"""A ground or lifted atom: predicate first, then arguments (roles or ``?variables``)."""


@dataclass(frozen=True)
class OperatorSchema:
    """A lifted STRIPS operator: typed parameters, precondition, add and delete lists."""

    name: str
    params: tuple[tuple[str, str], ...]
    pre: tuple[Atom, ...]
    add: tuple[Atom, ...]
    delete: tuple[Atom, ...]

    @property
    def arity(self) -> int:
        return len(self.params)

    def bind(self, args: Sequence[str]) -> dict[str, str]:
        return {p: a for (p, _), a in zip(self.params, args, strict=True)}

    def ground(
        self, args: Sequence[str]
    ) -> tuple[frozenset[Atom], frozenset[Atom], frozenset[Atom]]:
        """Precondition, add and delete sets with the parameters bound to ``args``."""
        b = self.bind(args)

        def sub(facts: tuple[Atom, ...]) -> frozenset[Atom]:
            return frozenset((f[0], *(b.get(a, a) for a in f[1:])) for f in facts)

        return sub(self.pre), sub(self.add), sub(self.delete)

    def shape(self) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
        """The operator's structure without names: the sorted predicates it needs, adds and
        deletes. Two operators of different skins with the same shape do the same thing."""
        return (
            tuple(sorted(f[0] for f in self.pre)),
            tuple(sorted(f[0] for f in self.add)),
            tuple(sorted(f[0] for f in self.delete)),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "params": dict(self.params),
            "pre": [list(f) for f in self.pre],
            "add": [list(f) for f in self.add],
            "del": [list(f) for f in self.delete],
        }


@dataclass(frozen=True)
class Step:
    """One applied operator: its name and the roles bound to its parameters."""

    operator: str
    args: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.operator}({', '.join(self.args)})"

    def to_json(self) -> list[str]:
        return [self.operator, *self.args]


@dataclass(frozen=True)
class PlanBlock:
    """A validated plan: predicates, operators, initial and goal facts, steps, outcome."""

    predicates: tuple[tuple[str, int], ...]
    operators: tuple[OperatorSchema, ...]
    init: tuple[Atom, ...]
    goal: tuple[Atom, ...]
    steps: tuple[Step, ...] = ()
    outcome: str = "unsolved"

    def operator(self, name: str) -> OperatorSchema | None:
        return next((o for o in self.operators if o.name == name), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "predicates": dict(self.predicates),
            "operators": [o.to_json() for o in self.operators],
            "init": [list(f) for f in self.init],
            "goal": [list(f) for f in self.goal],
            "steps": [s.to_json() for s in self.steps],
            "outcome": self.outcome,
        }


def fact_str(f: Atom) -> str:
    return f"{f[0]}({', '.join(f[1:])})"


class _Check:
    """Validation of one plan block; errors name the episode, the field and the fix."""

    def __init__(self, eid: str | None, roles: Mapping[str, str | None]):
        self.eid, self.roles = eid, roles
        self.preds: dict[str, int] = {}

    def err(self, where: str, problem: str) -> SignatureError:
        return SignatureError(self.eid, f"plan.{where}", problem)

    def predicates(self, raw: Any) -> None:
        if not isinstance(raw, dict) or not raw:
            raise self.err("predicates", 'give an object {"predicate": arity, ...}')
        for name, n in raw.items():
            if not isinstance(name, str) or not _NAME.match(name):
                raise self.err("predicates", f"{name!r}: use lower-case letters, digits, _ and -")
            if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= 8:
                raise self.err(f"predicates.{name}", "the arity must be an integer from 0 to 8")
            self.preds[name] = n

    def fact(self, where: str, raw: Any, names: Mapping[str, Any]) -> Atom:
        if not isinstance(raw, list) or not raw or not all(isinstance(x, str) for x in raw):
            raise self.err(where, 'write a fact as ["predicate", "arg", ...]')
        pred, args = raw[0], raw[1:]
        if pred not in self.preds:
            raise self.err(where, f"predicate {pred!r} is not declared in plan.predicates")
        if len(args) != self.preds[pred]:
            raise self.err(where, f"{pred!r} takes {self.preds[pred]} argument(s), got {len(args)}")
        for a in args:
            if a not in names:
                kind = "parameter" if a.startswith("?") else "role"
                raise self.err(where, f"{kind} {a!r} is not declared")
        return tuple(raw)

    def facts(self, where: str, raw: Any, names: Mapping[str, Any]) -> tuple[Atom, ...]:
        if not isinstance(raw, list):
            raise self.err(where, "must be a list of facts")
        if len(raw) > MAX_FACTS:
            raise self.err(where, f"has {len(raw)} facts; the limit is {MAX_FACTS}")
        return tuple(self.fact(f"{where}[{i}]", f, names) for i, f in enumerate(raw))

    def operator(self, i: int, raw: Any) -> OperatorSchema:
        where = f"operators[{i}]"
        if not isinstance(raw, dict) or not isinstance(raw.get("name"), str):
            raise self.err(where, 'give {"name", "params", "pre", "add", "del"}')
        name = raw["name"]
        if not _NAME.match(name):
            raise self.err(
                where, f"operator name {name!r}: use lower-case letters, digits, _ and -"
            )
        params = raw.get("params", {})
        if not isinstance(params, dict) or not all(
            isinstance(p, str) and _VAR.match(p) and isinstance(t, str) for p, t in params.items()
        ):
            raise self.err(f"{where}.params", 'give {"?var": "type", ...}')
        names = {**params, **self.roles}
        pre, add, dele = (
            self.facts(f"{where}.{k}", raw.get(k, []), names) for k in ("pre", "add", "del")
        )
        return OperatorSchema(name, tuple(params.items()), pre, add, dele)

    def step(self, i: int, raw: Any, ops: Mapping[str, OperatorSchema]) -> Step:
        where = f"steps[{i}]"
        if not isinstance(raw, list) or not raw or not all(isinstance(x, str) for x in raw):
            raise self.err(where, 'write a step as ["operator", "ROLE", ...]')
        op = ops.get(raw[0])
        if op is None:
            raise self.err(where, f"operator {raw[0]!r} is not declared in plan.operators")
        if len(raw) - 1 != op.arity:
            raise self.err(where, f"{op.name} takes {op.arity} argument(s), got {len(raw) - 1}")
        for (p, ptype), a in zip(op.params, raw[1:], strict=True):
            if a not in self.roles:
                raise self.err(where, f"role {a!r} is not declared")
            if self.roles[a] is not None and self.roles[a] != ptype:
                raise self.err(
                    where, f"{a} is a {self.roles[a]}, but {op.name}'s {p} takes a {ptype}"
                )
        return Step(op.name, tuple(raw[1:]))


def parse_plan_block(
    raw: Any, roles: Mapping[str, str | None], episode_id: str | None
) -> PlanBlock:
    """Validate a plan block against the signature's roles (name -> type) and simulate its steps.

    Raises:
        SignatureError: naming the field (``plan.steps[3]``) and what to fix.
    """
    c = _Check(episode_id, roles)
    if not isinstance(raw, dict):
        raise c.err("(plan)", "must be an object with predicates, operators, init, goal")
    unknown = sorted(set(raw) - {"predicates", "operators", "init", "goal", "steps", "outcome"})
    if unknown:
        raise c.err(
            unknown[0],
            "unknown field; plan fields are predicates, operators, init, goal, steps, outcome",
        )
    c.predicates(raw.get("predicates"))
    ops_raw = raw.get("operators")
    if not isinstance(ops_raw, list) or not ops_raw or len(ops_raw) > MAX_OPERATORS:
        raise c.err("operators", f"give a list of 1 to {MAX_OPERATORS} operators")
    ops = tuple(c.operator(i, o) for i, o in enumerate(ops_raw))
    by_name = {o.name: o for o in ops}
    if len(by_name) != len(ops):
        raise c.err("operators", "operator names must be unique")
    init = c.facts("init", raw.get("init", []), roles)
    goal = c.facts("goal", raw.get("goal"), roles)
    steps_raw = raw.get("steps", [])
    if not isinstance(steps_raw, list) or len(steps_raw) > MAX_STEPS:
        raise c.err("steps", f"give a list of at most {MAX_STEPS} steps")
    steps = tuple(c.step(i, s, by_name) for i, s in enumerate(steps_raw))
    outcome = raw.get("outcome", "succeeded" if steps else "unsolved")
    if outcome not in OUTCOMES:
        raise c.err("outcome", f"{outcome!r} is not one of {', '.join(OUTCOMES)}")
    block = PlanBlock(tuple(c.preds.items()), ops, init, goal, steps, outcome)
    _simulate(block, c)
    return block


def _simulate(block: PlanBlock, c: _Check) -> None:
    state = set(block.init)
    for i, s in enumerate(block.steps):
        op = block.operator(s.operator)
        assert op is not None  # checked by _Check.step
        pre, add, dele = op.ground(s.args)
        missing = sorted(pre - state)
        if missing and block.outcome == "succeeded":
            raise c.err(
                f"steps[{i}]",
                f"{s}: precondition {fact_str(missing[0])} does not hold "
                "in the state the earlier steps reach; fix the step or mark the outcome failed",
            )
        state = (state - dele) | add
    if block.outcome == "succeeded":
        unmet = sorted(set(block.goal) - state)
        if unmet:
            raise c.err(
                "goal",
                f"the steps do not reach goal fact {fact_str(unmet[0])}; "
                "add the missing steps or mark the outcome failed",
            )
