"""Macro-actions compiled from verified plan transfers (spec §14: "repeated verified transfers
can be compiled into macro-actions").

1. *Harvest*: the analogy log's plan runs whose repaired skeleton was used and validated
   (:func:`verified_transfers`) give operator sequences over their targets.
2. *Lift and count*: every contiguous window of 2..``max_len`` steps is lifted — operators
   replaced by their structural counterpart in a reference domain (so skins do not split
   counts), objects by parameters numbered in order of appearance — and counted across plans.
3. *Compose*: a window seen in at least ``min_support`` plans becomes one STRIPS macro
   operator: precondition ``P = pre1 ∪ (pre2 − add1) ∪ …``, net add and delete lists; a window
   whose later step needs a fact an earlier one deleted is not composable and is skipped.
4. *Use*: the macros are written in the target's operator names (structural matching again),
   added to its domain, and the planner searches with them; each macro in the plan is expanded
   back into its primitive steps and the expanded plan is validated against the original
   domain. A plan that fails validation, or a search that fails, falls back to the planner
   alone, and the expansions spent are counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from analogist.plan.pddl import GroundProblem, ground, parse_step_key, step_key
from analogist.plan.planner import Planner
from analogist.plan.repair import PlanStep, Repair, plan_alone, validate
from analogist.plan.skeleton import operator_map
from analogist.signature.model import Signature, parse_signature
from analogist.signature.plan_block import Atom, OperatorSchema, PlanBlock, Step
from analogist.signature.vocabulary import Vocabulary


@dataclass(frozen=True)
class Transfer:
    """One verified transfer: the target's plan block, roles, and the validated steps."""

    target_id: str
    block: PlanBlock
    roles: tuple[tuple[str, str | None], ...]
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class Macro:
    """A lifted operator sequence: ``parts`` are (reference operator, macro parameter indices)."""

    name: str
    parts: tuple[tuple[str, tuple[int, ...]], ...]
    support: int

    def __str__(self) -> str:
        return " ; ".join(f"{op}({', '.join(f'#{i}' for i in ix)})" for op, ix in self.parts)


def verified_transfers(runs: Sequence[dict], vocab: Vocabulary) -> list[Transfer]:
    """Plan runs from the analogy log whose skeleton was used and whose plan validated."""
    out = []
    for run in runs:
        plan = run.get("plan") or {}
        rep = plan.get("repair") or {}
        if rep.get("mode") != "skeleton" or not rep.get("valid") or not run.get("target"):
            continue
        sig: Signature = parse_signature(run["target"], vocab)
        if sig.plan is None:
            continue
        steps = tuple(parse_step_key(s["operator"]) for s in rep.get("steps", ()))
        out.append(
            Transfer(sig.episode_id, sig.plan, tuple((r.name, r.type) for r in sig.roles), steps)
        )
    return out


def _lift(window: Sequence[Step], omap: dict, ref: PlanBlock) -> tuple | None:
    numbering: dict[str, int] = {}
    parts = []
    for s in window:
        m = omap.get(s.operator)
        if m is None:
            return None
        args = [s.args[i] for i in m.order]  # in the reference operator's parameter order
        parts.append((m.target, tuple(numbering.setdefault(a, len(numbering)) for a in args)))
    return tuple(parts)


def learn_macros(
    transfers: Sequence[Transfer], *, min_support: int = 2, max_len: int = 3, top: int = 3
) -> tuple[PlanBlock | None, tuple[Macro, ...]]:
    """The ``top`` most frequent liftable windows seen in at least ``min_support`` distinct
    transfers, in the first transfer's operator names (the reference domain)."""
    if not transfers:
        return None, ()
    ref = transfers[0].block
    counts: Counter = Counter()
    for t in transfers:
        omap = operator_map(t.block, ref)
        seen = set()
        for n in range(2, max_len + 1):
            for i in range(len(t.steps) - n + 1):
                key = _lift(t.steps[i : i + n], omap, ref)
                if key is not None and _compose(key, ref, "probe") is not None:
                    seen.add(key)
        counts.update(seen)
    best = sorted(
        (k for k, c in counts.items() if c >= min_support),
        key=lambda k: (-counts[k] * (len(k) - 1), str(k)),
    )[:top]
    return ref, tuple(Macro(f"macro{i}", k, counts[k]) for i, k in enumerate(best))


def _compose(
    parts: tuple, ops: PlanBlock, name: str, rename: dict | None = None
) -> OperatorSchema | None:
    """The composite STRIPS operator of ``parts`` over ``ops`` (None if not composable)."""
    rename = rename or {}
    types: dict[int, str] = {}
    pre: set[Atom] = set()
    add: set[Atom] = set()
    dele: set[Atom] = set()
    for op_name, ix in parts:
        m = rename.get(op_name)
        op = ops.operator(m.target if m else op_name)
        if op is None:
            return None
        if m is not None:  # target parameter j takes the reference operator's parameter order[j]
            ix = tuple(ix[k] for k in m.order)
        if len(ix) != op.arity:
            return None
        for (_, t), i in zip(op.params, ix, strict=True):
            if types.setdefault(i, t) != t:
                return None
        p, a, d = op.ground([f"?m{i}" for i in ix])
        if p & dele:
            return None
        pre |= p - add
        add, dele = (add - d) | a, (dele - a) | d
    params = tuple((f"?m{i}", types[i]) for i in sorted(types))
    return OperatorSchema(name, params, tuple(sorted(pre)), tuple(sorted(add)), tuple(sorted(dele)))


def with_macros(
    target: PlanBlock, ref: PlanBlock, macros: Sequence[Macro]
) -> tuple[PlanBlock, dict[str, tuple[tuple[str, tuple[int, ...]], ...]]]:
    """The target's block with the macros added as operators (in its own operator names), and
    each added macro's parts in target operator names with target-ordered parameter indices."""
    rename = operator_map(ref, target)
    ops, parts = list(target.operators), {}
    for mac in macros:
        schema = _compose(mac.parts, target, mac.name, rename)
        if schema is None or not all(op in rename for op, _ in mac.parts):
            continue
        ops.append(schema)
        parts[mac.name] = tuple(
            (rename[op].target, tuple(ix[k] for k in rename[op].order)) for op, ix in mac.parts
        )
    return replace(target, operators=tuple(ops)), parts


def expand(plan: Sequence[str], parts: dict) -> tuple[PlanStep, ...]:
    """Ground macro steps replaced by their primitive steps (provenance ``macro``)."""
    out = []
    for name in plan:
        s = parse_step_key(name)
        if s.operator not in parts:
            out.append(PlanStep(name, "planner"))
            continue
        for op, ix in parts[s.operator]:
            out.append(PlanStep(step_key(Step(op, tuple(s.args[i] for i in ix))), "macro"))
    return tuple(out)


def plan_with_macros(
    block: PlanBlock,
    roles: dict[str, str | None],
    ref: PlanBlock | None,
    macros: Sequence[Macro],
    planner: Planner,
) -> Repair:
    """Search with the macros added; expand and validate; fall back to the planner alone."""
    primitive: GroundProblem = ground(block, roles)
    if ref is None or not macros:
        return plan_alone(primitive, planner, reason="no macros learned yet")
    augmented, parts = with_macros(block, ref, macros)
    if not parts:
        return plan_alone(primitive, planner, reason="no macro fits this domain")
    r = planner.solve(ground(augmented, roles).task)
    steps = expand(r.plan, parts)
    if r.solved and validate(primitive, tuple(s.operator for s in steps)):
        return Repair("macro", steps, r.expansions, 1, r.seconds, True)
    return plan_alone(
        primitive,
        planner,
        r.expansions,
        1,
        r.seconds,
        f"macro search {r.status}" if not r.solved else "expanded macro plan failed validation",
    )
