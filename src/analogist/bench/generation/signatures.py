"""Gold signatures for motif variants, and role renaming for stored episodes.

:func:`gold_raw` writes the spec §4.1 JSON of a motif variant ("true", a decoy, the partial
variant or the F8 "split"); :func:`gold_signature` validates it with :func:`parse_signature`
against the default vocabulary, so every generated signature is one the rest of analogist
accepts. :func:`rename_roles` gives a stored episode neutral role names, so role names never
reveal which motif an episode was built from; every text field of a shown signature is
written from its structure by :func:`describe` (rename first, then describe).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analogist.bench.generation.edits import edited_structure, split_structure
from analogist.bench.generation.motif import Motif
from analogist.bench.generation.simulate import vocabulary
from analogist.signature import Signature, parse_signature, parse_term


def _structure(motif: Motif, variant: str) -> tuple[list[str], list[tuple[str, str, str]]]:
    if variant == "true":
        return edited_structure(motif, None)
    if variant == "split":
        return split_structure(motif, motif.split)
    if variant.startswith("split:"):  # F8 at a finer grain over a decoy structure
        return split_structure(motif, motif.split, motif.variant(variant[6:]).edit)
    return edited_structure(motif, motif.variant(variant).edit)


def _relation_json(text: str) -> list[str]:
    t = parse_term(text)
    return [t.functor, *[str(a) for a in t.args]]


def gold_raw(
    motif: Motif,
    variant: str = "true",
    *,
    episode_id: str = "world",
    l0: str | None = None,
    domain: str = "",
    symptom: str | None = None,
    fix: str | None = None,
) -> dict[str, Any]:
    """The gold signature JSON of one motif variant, role names as in the motif.

    Only structure and what the rendered note says are taken over: relations, causal chain,
    the variant's own fix (``fix`` overrides it), the note (L0), its domain and its symptom
    sentence. Role descriptions, the violated invariant and L1-L3 are written later from the
    structure by :func:`describe`, over whatever role names are shown, so no string copied from
    the motif (the same in every skin) ever reaches a system under test.
    """
    rels, chain = _structure(motif, variant)
    roles = list(motif.roles) + ([motif.split.part] if variant.startswith("split") else [])
    if fix is None:
        base = variant.removeprefix("split:") if variant != "split" else "true"
        fix = motif.fix if base in ("true", motif.partial.name) else motif.variant(base).fix
    raw = {
        "episode_id": episode_id,
        "kind": "failure",
        "roles": {r: r for r in roles},
        "relations": [_relation_json(r) for r in rels],
        "causal_chain": [list(link) for link in chain],
        "fix_operator": fix,
        "levels": {"L0": l0 or f"{motif.title} ({variant})"},
        "surface": {"domain": domain},
        "verified": True,
    }
    if symptom is not None:
        raw["symptom"] = symptom
    return raw


def _sinks(chain: list[list[str]]) -> list[str]:
    causes = {c for c, _, _ in chain}
    return [e for _, _, e in chain if e not in causes] or [chain[-1][2]] if chain else []


def _functor(term: str) -> str:
    return parse_term(term).functor


def describe(
    raw: Mapping[str, Any], *, symptom: str | None = None, labels: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Signature JSON with role descriptions, violated invariant and L1-L3 written from its own
    structure, over the role names it uses (or ``labels`` for L1), so the same renderer serves
    stored episodes and gold targets and nothing depends on the motif's wording.

    Role descriptions that are not placeholders (the role's own name) are kept: a gold target
    describes each role by the entity name the text gives it.
    """
    out = dict(raw)
    chain = [list(link) for link in raw.get("causal_chain", [])]
    rel_terms = [f"{r[0]}({','.join(r[1:])})" for r in raw["relations"]]
    roles = {}
    for role, desc in raw["roles"].items():
        if desc != role:
            roles[role] = desc
            continue
        mine = [t for t in rel_terms if role in parse_term(t).roles()]
        mine += sorted(
            {
                t
                for link in chain
                for t in (link[0], link[2])
                if role in parse_term(t).roles() and t not in mine
            }
        )
        roles[role] = "takes part in " + "; ".join(mine[:3]) if mine else "a party to the incident"
    out["roles"] = dict(sorted(roles.items()))
    sinks = _sinks(chain)
    if sinks:
        out["violated_invariant"] = f"{sinks[-1]} should not arise"
    if symptom is not None:
        out["symptom"] = symptom
    names = dict(labels or {})

    def lab(term: str) -> str:
        return parse_term(term).rename(names).canonical() if names else term

    levels = {"L0": raw["levels"]["L0"]}
    if chain:
        levels["L1"] = "; ".join(f"{lab(c)} {k} {lab(e)}" for c, k, e in chain)
        levels["L2"] = "; ".join(f"{_functor(c)} {k} {_functor(e)}" for c, k, e in chain)
        effects = {e for _, _, e in chain}
        roots = sorted({lab(c) for c, _, _ in chain if c not in effects})
        kinds = sorted({k for _, k, _ in chain})
        # over the role names as shown, like L1: two episodes share it only if they share both
        # the pattern and the (random) role naming, so it never marks a family of variants
        levels["L3"] = (
            f"{', '.join(roots) or 'a loop'} lead to {lab(sinks[-1])} "
            f"through {', '.join(kinds)} links"
        )
    out["levels"] = levels
    return out


def gold_signature(motif: Motif, variant: str = "true", **kw: Any) -> Signature:
    """:func:`gold_raw`, validated against the default vocabulary."""
    return parse_signature(gold_raw(motif, variant, **kw), vocabulary())


def rename_roles(raw: Mapping[str, Any], mapping: Mapping[str, str]) -> dict[str, Any]:
    """A copy of signature JSON with every role name replaced through ``mapping``, its text
    fields then written afresh from the renamed structure (:func:`describe`)."""

    def term(text: str) -> str:
        return parse_term(text).rename(dict(mapping)).canonical()

    out = dict(raw)
    # a description equal to the role's own name is a placeholder: it follows the rename
    out["roles"] = {mapping[r]: mapping[r] if d == r else d for r, d in raw["roles"].items()}
    out["relations"] = [[r[0], *[mapping[a] for a in r[1:]]] for r in raw["relations"]]
    out["causal_chain"] = [[term(c), link, term(e)] for c, link, e in raw["causal_chain"]]
    if "fix_operator" in raw:
        fx = raw["fix_operator"]
        head, _, tail = fx.partition(")")
        out["fix_operator"] = (term(head + ")") + " " + tail.strip()).strip()
    surface = dict(raw.get("surface", {}))
    if "bindings" in surface:
        surface["bindings"] = {mapping[r]: n for r, n in surface["bindings"].items()}
    out["surface"] = surface
    return describe(out, labels=None)
