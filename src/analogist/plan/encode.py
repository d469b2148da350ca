"""Writing a plan signature: a plan block plus the signature fields every episode has.

The ``relations`` of a plan signature are what the ordinary retrieval channels index (S0's WL
fingerprint, S1's predicate/role counts), so a plan episode is found like any other. They are
derived from the block's initial and goal facts through a ``meaning`` table — plan predicate
-> vocabulary relation of the same arity — that the author of the domain supplies (the
planning bench's motif declares one; see :data:`analogist.bench.suites.planning.world.MEANING`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analogist.signature.plan_block import PlanBlock, Step


def summary_relations(block: PlanBlock, meaning: Mapping[str, str]) -> list[list[str]]:
    """One vocabulary relation per initial or goal fact whose predicate has a meaning."""
    out: dict[tuple[str, ...], None] = {}
    for f in (*block.init, *block.goal):
        if f[0] in meaning:
            out[(meaning[f[0]], *f[1:])] = None
    return [list(r) for r in out]


def plan_signature_json(
    episode_id: str,
    block: PlanBlock,
    roles: Mapping[str, str],
    text: str,
    domain: str,
    meaning: Mapping[str, str],
    steps: tuple[Step, ...] = (),
    outcome: str | None = None,
    verified: bool = False,
    abstract: str = "",
) -> dict[str, Any]:
    """The JSON of a kind-``plan`` signature (validate it with ``parse_signature``); ``abstract``
    is its L2 text, when the author has one."""
    plan = block.to_json()
    plan["steps"] = [s.to_json() for s in steps]
    plan["outcome"] = outcome or ("succeeded" if steps else "unsolved")
    return {
        "episode_id": episode_id,
        "kind": "plan",
        "roles": {r: {"description": f"a {t}", "type": t} for r, t in roles.items()},
        "relations": summary_relations(block, meaning),
        "levels": {"L0": text, **({"L2": abstract} if abstract else {})},
        "surface": {"domain": domain, "entities": sorted(roles)},
        "verified": verified,
        "plan": plan,
    }
