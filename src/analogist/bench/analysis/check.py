"""Scoring a proposed fix: simulate it in the item's target world (the executable check).

A key's ``check`` names the target world (motif and variant), how entity ids map to its roles,
and the seeds to simulate under. :func:`check_fix` turns a proposal over entity ids into an
operator term over roles and simulates it under every seed; the result is the worst one seen
(``worse`` over ``unchanged`` over ``resolved``), so a fix counts as useful only if it resolves
the symptom every time. Unknown operators, wrong arity and unknown entities change nothing and
come back ``unchanged``; they are the system's mistake, not the benchmark's.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from analogist.bench.generation.world import Outcome, world_for
from analogist.errors import BenchError
from analogist.signature import Term


def check_fix(check: Mapping[str, Any], operator: str, args: Sequence[str]) -> Outcome:
    """Simulate ``operator(args)`` (entity ids) in the world named by ``check``.

    Returns:
        The worst :class:`Outcome` over the check's seeds (its severities are the means).

    Raises:
        BenchError: when ``check`` is not a check spec from a PARB key.
    """
    if isinstance(check, Mapping) and check.get("kind") == "recorded_fix":
        return recorded_fix(check, operator, args)
    try:
        world = world_for(check["motif"], check["variant"])
        roles, seeds = check["roles"], list(check["seeds"])
    except (KeyError, TypeError) as e:
        raise BenchError(
            f"not a PARB check spec (missing {e}); pass key['check'] of an item"
        ) from None
    known = all(isinstance(a, str) and a in roles for a in args)
    term = Term(operator, tuple(roles[a] for a in args)) if known else None
    outcomes = [world.simulate(term, s) for s in seeds]
    order = {"worse": 0, "unchanged": 1, "resolved": 2}
    worst = min(outcomes, key=lambda o: order[o.result]).result
    n = len(outcomes)
    return Outcome(
        worst, sum(o.control for o in outcomes) / n, sum(o.treated for o in outcomes) / n
    )


def recorded_fix(check: Mapping[str, Any], operator: str, args: Sequence[str]) -> Outcome:
    """A private-history item's check (bench/suites/private.py): there is no world to simulate, only
    the record of what resolved the target. The recorded fix (same operator, same roles)
    ``resolved``; anything else is ``unchanged`` (unknown, so never credited, never worse)."""
    fix = check["fix"]
    same = operator == fix["operator"] and list(args) == list(fix["args"])
    return Outcome("resolved" if same else "unchanged", 1.0, 0.0 if same else 1.0)
