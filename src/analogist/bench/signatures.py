"""Gold signatures for motif variants, and role renaming for stored episodes.

:func:`gold_raw` writes the spec §4.1 JSON of a motif variant ("true", a decoy, the partial
variant or the F8 "split"); :func:`gold_signature` validates it with :func:`parse_signature`
against the default vocabulary, so every generated signature is one the rest of analogist
accepts. :func:`rename_roles` gives a stored episode neutral role names, so role names never
reveal which motif an episode was built from.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from analogist.bench.edits import edited_structure, split_structure
from analogist.bench.engine import vocabulary
from analogist.bench.motif import Motif
from analogist.signature import Signature, parse_signature, parse_term


def _structure(motif: Motif, variant: str) -> tuple[list[str], list[tuple[str, str, str]]]:
    if variant == "true":
        return edited_structure(motif, None)
    if variant == "split":
        return split_structure(motif, motif.split)
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
    bindings: Mapping[str, str] | None = None,
    domain: str = "",
) -> dict[str, Any]:
    """The gold signature JSON of one motif variant (role names as in the motif).

    Args:
        motif: the motif.
        variant: "true", "split", or the name of a decoy or the partial variant.
        episode_id: the id to write.
        l0: the rendered text (level L0); a placeholder when None.
        bindings: role -> entity name, used for L1 and the surface metadata.
        domain: the surface domain.
    """
    rels, chain = _structure(motif, variant)
    roles = dict(motif.roles)
    if variant == "split":
        roles[motif.split.part] = motif.split.description
    names = dict(bindings or {r: r for r in roles})
    levels = {"L0": l0 or f"{motif.title} ({variant})",
              "L1": motif.levels["L1"].format(**{r: names.get(r, r) for r in roles}),
              "L2": motif.levels["L2"], "L3": motif.levels["L3"]}
    fix = f"{motif.fix} {motif.qualifier}".strip()
    if variant not in ("true", "split", motif.partial.name):
        v = motif.variant(variant)
        levels["L2"], levels["L3"], fix = v.l2, v.l3, v.fix
    return {
        "episode_id": episode_id,
        "kind": "failure",
        "roles": roles,
        "relations": [_relation_json(r) for r in rels],
        "causal_chain": [list(link) for link in chain],
        "violated_invariant": motif.invariant,
        "symptom": motif.symptom,
        "fix_operator": fix,
        "levels": levels,
        "surface": {"domain": domain, "entities": sorted(names[r] for r in roles if r in names),
                    "bindings": {r: names[r] for r in roles if r in names}},
        "verified": True,
    }


def gold_signature(motif: Motif, variant: str = "true", **kw: Any) -> Signature:
    """:func:`gold_raw`, validated against the default vocabulary."""
    return parse_signature(gold_raw(motif, variant, **kw), vocabulary())


def rename_roles(raw: Mapping[str, Any], mapping: Mapping[str, str]) -> dict[str, Any]:
    """A copy of signature JSON with every role name replaced through ``mapping``."""
    def term(text: str) -> str:
        return parse_term(text).rename(dict(mapping)).canonical()

    out = dict(raw)
    out["roles"] = {mapping[r]: d for r, d in raw["roles"].items()}
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
    return out
