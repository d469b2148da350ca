"""Structural similarity of two signatures after the best role alignment.

The structure-only reference of the shortcut audit, and a plain tool for anyone who needs the
same figure: a signature is reduced to its relation facts and causal links (commutative
relations unordered); every one-to-one assignment of the smaller role set into the larger is
tried, and the best Jaccard overlap of the renamed fact sets wins. Ties go to the first
assignment in sorted order. Exhaustive search is fine here: motifs have at most five roles.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from itertools import permutations
from typing import Any

from analogist.bench.generation.simulate import vocabulary
from analogist.signature import Term, parse_term
from analogist.signature.canonical import canonical_term


@dataclass(frozen=True)
class RoleAssignment:
    """The best role assignment ``mapping`` (a role -> b role) and its fact overlap ``score``.

    Not an :class:`analogist.verify.align.Alignment` (which sorts facts under a given mapping):
    this is the search for the mapping, scored by overlap alone.
    """

    score: float
    mapping: dict[str, str]


def _canon(t: Term, names: Mapping[str, str]) -> str:
    return canonical_term(t, vocabulary(), names)


@lru_cache(maxsize=4096)
def _parsed(text: str) -> Term:
    return parse_term(text)


def _facts(sig: Mapping[str, Any], names: Mapping[str, str]) -> set[str]:
    out = {"R:" + _canon(Term(r[0], tuple(r[1:])), names) for r in sig["relations"]}
    for cause, link, effect in sig.get("causal_chain", []):
        out.add(f"L:{_canon(_parsed(cause), names)}|{link}|{_canon(_parsed(effect), names)}")
    return out


def fact_set(sig: Mapping[str, Any], names: Mapping[str, str] | None = None) -> set[str]:
    """A signature's relation facts and causal links as strings, roles renamed by ``names``."""
    return _facts(sig, names or {})


def best_assignment(a: Mapping[str, Any], b: Mapping[str, Any]) -> RoleAssignment:
    """Best role assignment of signature JSON ``a`` onto ``b`` (roles of the smaller into the
    larger)."""
    ra, rb = sorted(a["roles"]), sorted(b["roles"])
    fb = _facts(b, {})
    best = RoleAssignment(-1.0, {})
    if len(ra) <= len(rb):
        candidates = (dict(zip(ra, p)) for p in permutations(rb, len(ra)))
    else:
        candidates = ({x: y for y, x in zip(rb, p)} for p in permutations(ra, len(rb)))
    for mapping in candidates:
        fa = _facts(a, mapping)
        union = fa | fb
        score = len(fa & fb) / len(union) if union else 1.0
        if score > best.score:
            best = RoleAssignment(score, mapping)
    return best


def collapse(sig: Mapping[str, Any], part: str, into: str) -> dict[str, Any]:
    """Read a finer-grained signature at the coarser grain: role ``part`` becomes ``into``.

    The two hops ``r(A,part), r(part,B)`` collapse to ``r(A,B)`` once ``part`` is renamed to
    ``B`` and the self-relation ``r(B,B)`` is dropped; this is the re-abstraction F8 asks for.
    """
    names = {part: into}
    rels = [[r[0], *[names.get(a, a) for a in r[1:]]] for r in sig["relations"]]
    rels = [r for r in rels if len(set(r[1:])) == len(r[1:])]
    chain = [
        [_canon(_parsed(c), names), k, _canon(_parsed(e), names)]
        for c, k, e in sig.get("causal_chain", [])
    ]
    roles = {r: d for r, d in sig["roles"].items() if r != part}
    return {**sig, "roles": roles, "relations": rels, "causal_chain": chain}
