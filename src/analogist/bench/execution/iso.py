"""Exact name-free isomorphism: the reference every structural arm must beat (issue 11).

Two signatures are isomorphic when some one-to-one renaming of roles makes their relation
facts and causal links (commutative relations unordered) identical; role names, descriptions
and every string are ignored. :func:`name_free_form` is a canonical form (the lexicographically
least fact list over all role orders), so equal forms mean isomorphic signatures and the form
can be counted across a bench. Exhaustive search is fine: signatures have at most six roles.

The ``ISO`` reference arm (:class:`IsoAnswerer`) answers every family with nothing else: a
candidate is accepted when it is exactly isomorphic to the encoded target, its roles are mapped
through the isomorphism, and the source's recorded fix is carried over through that mapping.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations
from typing import Any

from analogist.bench.analysis.structure import fact_set
from analogist.bench.execution.answer import Answer
from analogist.signature import Signature, parse_fix_operator

Probe = Callable[[str, Sequence[str]], str]


def _structure_key(sig: Mapping[str, Any]) -> str:
    return json.dumps(
        [sorted(sig.get("roles", {})), sig.get("relations", []), sig.get("causal_chain", [])],
        sort_keys=True,
    )


@lru_cache(maxsize=65536)
def _canonical(key: str) -> tuple[str, tuple[str, ...]]:
    roles, relations, chain = json.loads(key)
    sig = {"relations": relations, "causal_chain": chain}
    marked = " ".join(fact_set(sig, {r: f"\0{i}\0" for i, r in enumerate(roles)}))
    used = [r for i, r in enumerate(roles) if f"\0{i}\0" in marked]
    best: tuple[str, ...] | None = None
    order: tuple[str, ...] = ()
    for perm in permutations(used):
        names = {r: f"x{i}" for i, r in enumerate(perm)}
        facts = tuple(sorted(fact_set(sig, names)))
        if best is None or facts < best:
            best, order = facts, perm
    form = f"{len(used)}:" + "|".join(best or ())
    return form, order


def name_free_form(sig: Mapping[str, Any]) -> str:
    """The canonical, name-free form of a signature's structure (equal iff isomorphic)."""
    return _canonical(_structure_key(sig))[0]


def isomorphism(source: Mapping[str, Any], target: Mapping[str, Any]) -> dict[str, str] | None:
    """A role mapping source role -> target role under which the two structures are identical,
    or None when they are not isomorphic."""
    form_s, order_s = _canonical(_structure_key(source))
    form_t, order_t = _canonical(_structure_key(target))
    if form_s != form_t:
        return None
    return dict(zip(order_s, order_t))


def _fix_over(fix: str, mapping: Mapping[str, str]) -> tuple[str, tuple[str, ...]] | None:
    try:
        term = parse_fix_operator(fix).term
    except Exception:  # an unparsable recorded fix transfers nothing  # noqa: BLE001
        return None
    args = tuple(mapping.get(str(a), "") for a in term.args)
    return (term.functor, args) if all(args) else None


def _records(inputs: Mapping[str, Any], family: str) -> list[dict]:
    if family == "F2":
        return list(inputs.get("candidates", []))
    if inputs.get("memory"):
        return list(inputs["memory"])
    return [inputs["source"]] if inputs.get("source") else []


@dataclass
class IsoAnswerer:
    """Answers an item by exact name-free isomorphism plus the source's recorded fix.

    Candidates are the item's offered episodes (F2), its given source (F1, F4, F5, F6) or its
    memory (F3, F7, F8), in the order shown; the first isomorphic one is claimed. ``sources``
    overrides the given source (source-dependence runs); ``oracle_source`` is ignored (ISO is
    not an oracle). Inferences (F5) transfer when the source is isomorphic, else they are
    withheld; nothing else is attempted.
    """

    seed: int = 0

    def answer(
        self,
        family: str,
        inputs: Mapping[str, Any],
        target: Signature,
        *,
        probe: Probe | None = None,
        sources: Sequence[dict] | None = None,
        oracle_source: str | None = None,
    ) -> Answer:
        tsig = target.to_json()
        records = list(sources) if sources is not None else _records(inputs, family)
        matches = [(r, isomorphism(r["signature"], tsig)) for r in records if r.get("signature")]
        hits = [(r, m) for r, m in matches if m is not None]
        claimed, mapping = (hits[0][0]["id"], hits[0][1]) if hits else (None, {})
        offered = [c["id"] for c in inputs.get("candidates", [])]
        if family == "F6" and inputs.get("source"):
            offered = [inputs["source"]["id"]]
        iso_ids = {r["id"] for r, _ in hits}
        judged = {cid: cid in iso_ids for cid in offered}
        action = None
        if claimed is not None:
            fix = hits[0][0]["signature"].get("fix_operator")
            action = _fix_over(fix, mapping) if fix else None
        decisions = {inf["id"]: claimed is not None for inf in inputs.get("inferences", [])}
        retrieved = tuple(r["id"] for r, _ in hits) + tuple(
            r["id"] for r, m in matches if m is None
        )
        return Answer(
            retrieved=retrieved,
            claimed_source=claimed,
            judged=judged,
            role_map=dict(mapping),
            decisions=decisions,
            action=action,
            confidence=1.0 if claimed else None,
            survived=None,
            conclusion=" ".join([action[0], *action[1]]) if action else None,
            run={"arm": "ISO", "isomorphic": sorted(iso_ids)},
        )
