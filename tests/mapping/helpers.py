"""Small builders shared by the mapping tests."""

from __future__ import annotations

from pathlib import Path

from analogist.signature.description import (
    Description,
    Expr,
    PredicateInfo,
    load_description,
    load_predicates,
)

PUBLISHED = Path(__file__).resolve().parent / "sme_published"


PREDS = {
    **{r: PredicateInfo(r, "relation", 2) for r in ("above", "hits", "cause", "greater", "near")},
    **{f: PredicateInfo(f, "function", 1) for f in ("mass", "heat", "size")},
    **{a: PredicateInfo(a, "attribute", 1) for a in ("red", "round")},
    "and": PredicateInfo("and", "logical", None, n_ary=True, commutative=True),
}


def desc(name: str, *facts: list, entities: tuple[str, ...] | None = None) -> Description:
    """A description from facts in JSON form; entities default to every string argument."""
    exprs = [Expr.from_json(f) for f in facts]
    if entities is None:
        found: dict[str, None] = {}
        for e in exprs:
            for sub in e.subexpressions():
                found.update((a, None) for a in sub.args if isinstance(a, str))
        entities = tuple(found)
    return Description.from_json(
        {"name": name, "entities": list(entities), "facts": [e.to_json() for e in exprs]}, PREDS
    )


def fixture_pair(folder: Path, base: str, target: str) -> tuple[Description, Description]:
    preds = load_predicates(folder / "predicates.json")
    return (
        load_description(folder / f"{base}.json", preds),
        load_description(folder / f"{target}.json", preds),
    )
