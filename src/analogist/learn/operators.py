"""The fix-operator library and macro-actions (spec Phase 5), read from the transfer ledger.

Each ledger row is one applied transfer: an action (``add_jitter(SCH2)`` in the target's roles)
and its outcome against the no-action control. The action is *normalised over roles*: its
arguments are carried back through the run's role map to the source's roles, then through the
source's binding in its schema to the schema's role variables (``add_jitter(SCH)``); an action of
a run whose source is in no schema keeps positional variables (``add_jitter(_1)``). Outcomes are
counted per (schema, normalised operator): success (resolved), failure (unchanged), negative
transfer (worse, or the ledger's negative flag), unknown (anything else).

A *macro-action* is a sequence of two or more normalised operators applied to the same target,
in ledger order, that ended in a success; a sequence seen succeed ``min_macro_support`` times for
one schema becomes a macro-action attached to it.
"""

from __future__ import annotations

from collections.abc import Mapping

from analogist.errors import TermSyntaxError
from analogist.signature.terms import parse_fix_operator

OUTCOMES = ("success", "failure", "negative_transfer", "unknown")
NO_SCHEMA = "-"


def outcome_of(row: Mapping) -> str:
    """The library's outcome class of one ledger row."""
    if row.get("negative") or row.get("outcome") == "worse":
        return "negative_transfer"
    return {"resolved": "success", "unchanged": "failure"}.get(str(row.get("outcome")), "unknown")


def normalise(action: str, role_map: Mapping[str, str], binding: Mapping[str, str] | None) -> str:
    """``action`` (target roles) over schema variables, or positional ones without a schema."""
    try:
        term = parse_fix_operator(action).term
    except TermSyntaxError:
        return action.strip()
    back = {t: s for s, t in role_map.items()}
    args = []
    for i, a in enumerate(term.roles(), start=1):
        src = back.get(a)
        args.append(binding[src] if binding and src is not None and src in binding else f"_{i}")
    return f"{term.functor}({','.join(args)})"


def empty_counts() -> dict:
    return {k: 0 for k in OUTCOMES}
