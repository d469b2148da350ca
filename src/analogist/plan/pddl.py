"""PDDL in and out, and grounding, through the pyperplan library.

A :class:`~analogist.signature.plan_block.PlanBlock` is a STRIPS problem written over roles; this module
writes it as a PDDL domain and problem (:func:`to_pddl`), reads PDDL back into a block with
pyperplan's parser (:func:`from_pddl`), and grounds a block into a pyperplan ``Task``
(:func:`ground`), the object pyperplan's search algorithms take. Ground facts and operators are
pyperplan's strings, ``"(at truck depot)"``; :func:`fact_key` and :func:`step_key` convert.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pyperplan import grounding
from pyperplan.pddl.errors import ParseError
from pyperplan.pddl.parser import Parser
from pyperplan.pddl.tree_visitor import SemanticError
from pyperplan.task import Task

from analogist.errors import AnalogistError
from analogist.signature.plan_block import Atom, OperatorSchema, PlanBlock, Step


class PlanningError(AnalogistError):
    """A planning problem could not be read, grounded or solved as asked."""


def fact_key(f: Atom) -> str:
    return "(" + " ".join(f) + ")"


def step_key(s: Step) -> str:
    return "(" + " ".join((s.operator, *s.args)) + ")"


def parse_step_key(name: str) -> Step:
    parts = name.strip("()").split()
    return Step(parts[0], tuple(parts[1:]))


def _atoms(facts: tuple[Atom, ...]) -> str:
    return " ".join(fact_key(f) for f in facts)


def _action(op: OperatorSchema) -> str:
    params = " ".join(f"{p} - {t}" for p, t in op.params)
    dels = " ".join(f"(not {fact_key(f)})" for f in op.delete)
    return (
        f"  (:action {op.name}\n   :parameters ({params})\n"
        f"   :precondition (and {_atoms(op.pre)})\n   :effect (and {_atoms(op.add)} {dels}))"
    )


@dataclass(frozen=True)
class PddlText:
    """A PDDL domain and problem as text."""

    domain: str
    problem: str


def to_pddl(block: PlanBlock, roles: Mapping[str, str | None], name: str = "task") -> PddlText:
    """The block as a typed STRIPS PDDL domain and problem (untyped roles become ``object``)."""
    types = sorted(
        {t or "object" for t in roles.values()} | {t for o in block.operators for _, t in o.params}
    )
    types = [t for t in types if t != "object"]
    arg_types: dict[str, list[str]] = {}
    for o in block.operators:
        ptype = dict(o.params)
        for f in (*o.pre, *o.add, *o.delete):
            arg_types.setdefault(f[0], [ptype.get(a, "object") for a in f[1:]])
    preds = " ".join(
        "("
        + " ".join([p, *(f"?x{i} - {t}" for i, t in enumerate(arg_types.get(p, ["object"] * n)))])
        + ")"
        for p, n in block.predicates
    )
    domain = (
        f"(define (domain {name})\n (:requirements :strips :typing)\n"
        f" (:types {' '.join(types)})\n (:predicates {preds})\n"
        + "\n".join(_action(o) for o in block.operators)
        + ")\n"
    )
    objs = " ".join(f"{r} - {t or 'object'}" for r, t in roles.items())
    problem = (
        f"(define (problem {name}-p) (:domain {name})\n (:objects {objs})\n"
        f" (:init {_atoms(block.init)})\n (:goal (and {_atoms(block.goal)})))\n"
    )
    return PddlText(domain, problem)


def _parse(text: PddlText):  # -> pyperplan Problem (untyped library)
    parser = Parser(None)
    try:
        parser.domInput = text.domain
        domain = parser.parse_domain(read_from_file=False)
        parser.probInput = text.problem
        return parser.parse_problem(domain, read_from_file=False)
    except (
        ParseError,
        SemanticError,
        SyntaxError,
        ValueError,
        KeyError,
        AttributeError,
        StopIteration,
    ) as e:
        raise PlanningError(
            f"the PDDL could not be parsed ({type(e).__name__}: {e}); analogist plan reads "
            "STRIPS PDDL with :typing (no negative preconditions, disjunctions, quantifiers or "
            "conditional effects)"
        ) from None


def _lifted(pred) -> Atom:
    return (pred.name, *(v for v, _ in pred.signature))


def from_pddl(text: PddlText) -> tuple[PlanBlock, dict[str, str]]:
    """Read a STRIPS PDDL domain and problem into an unsolved block and its roles (name -> type)."""
    problem = _parse(text)
    dom = problem.domain
    ops = []
    for a in dom.actions.values():
        params = tuple((v, types[0].name) for v, types in a.signature)
        ops.append(
            OperatorSchema(
                a.name,
                params,
                tuple(_lifted(p) for p in a.precondition),
                tuple(sorted(_lifted(p) for p in a.effect.addlist)),
                tuple(sorted(_lifted(p) for p in a.effect.dellist)),
            )
        )
    roles = {name: t.name for name, t in {**dom.constants, **problem.objects}.items()}
    preds = tuple((p.name, len(p.signature)) for p in dom.predicates.values())
    init = tuple(_lifted(p) for p in problem.initial_state)
    goal = tuple(_lifted(p) for p in problem.goal)
    return PlanBlock(preds, tuple(ops), init, goal), roles


@dataclass(frozen=True)
class GroundProblem:
    """A grounded problem: pyperplan's task plus the static facts grounding removed from it."""

    task: Task
    statics: frozenset[str]

    @property
    def operators(self) -> dict[str, Any]:
        """Ground operators by name (pyperplan ``Operator``: preconditions, add/del effects)."""
        return {op.name: op for op in self.task.operators}


def ground(block: PlanBlock, roles: Mapping[str, str | None]) -> GroundProblem:
    """Ground the block with pyperplan (static facts and goal-irrelevant operators pruned)."""
    problem = _parse(to_pddl(block, roles))
    try:
        task = grounding.ground(problem)
    except (KeyError, AssertionError, ValueError) as e:
        raise PlanningError(
            f"the problem could not be grounded ({type(e).__name__}: {e})"
        ) from None
    init = {fact_key(f) for f in block.init}
    return GroundProblem(task, frozenset(init - set(task.initial_state)))
