"""Plan signature -> Description, and the role mapping between two plans (spec §14 step 2).

Plans are descriptions too: the roles (the plan's objects) are the entities, the initial
facts are first-order facts, and each goal fact is wrapped in a higher-order ``goal`` fact so
that SME's systematicity rewards mapping what the plans were for. Operators and steps are left
out: the role mapping must come from the situation, and operators are matched separately by
their structure (:mod:`analogist.plan.skeleton`).
"""

from __future__ import annotations

from dataclasses import dataclass

from analogist.mapping.engine import DEFAULT_PARAMS, match
from analogist.mapping.params import SMEParams
from analogist.signature.description import Description, Entity, Expr, PredicateInfo
from analogist.signature.plan_block import PlanBlock

GOAL = "goal"


def describe_plan(name: str, block: PlanBlock, roles: tuple[str, ...]) -> Description:
    """The Description of a plan's situation: initial facts and goal facts over its roles."""
    preds = {p: PredicateInfo(p, "relation", n) for p, n in block.predicates}
    preds[GOAL] = PredicateInfo(GOAL, "relation", 1)
    facts = [Expr(f[0], f[1:]) for f in block.init]
    facts += [Expr(GOAL, (Expr(f[0], f[1:]),)) for f in block.goal]
    return Description(name, tuple(Entity(r) for r in roles), tuple(dict.fromkeys(facts)), preds)


@dataclass(frozen=True)
class PlanMapping:
    """SME's best interpretation of source plan -> target plan as a role map."""

    source_id: str
    role_map: tuple[tuple[str, str], ...]
    score: float
    normalized: float

    def to_json(self) -> dict:
        return {
            "source_id": self.source_id,
            "role_map": dict(self.role_map),
            "sme_score": round(self.score, 4),
            "sme_normalized": round(self.normalized, 4),
        }


def map_plans(
    source_id: str, source: Description, target: Description, params: SMEParams = DEFAULT_PARAMS
) -> PlanMapping | None:
    """The best SME interpretation (None when SME finds no mapping)."""
    result = match(source, target, params)
    if not result.mappings:
        return None
    best = max(result.mappings, key=lambda m: m.score)
    role_map = tuple(sorted((str(h.base), str(h.target)) for h in best.entity_mhs))
    return PlanMapping(source_id, role_map, float(best.score), float(best.normalized_score))
