"""Seeded random description pairs for the differential test against SME v4.

Descriptions are in the JSON fixture format (``{"name", "entities", "facts"}``) over one
predicate table, :data:`PREDICATES`, that exercises what SME treats specially: binary and
ternary relations, attributes, functions (also of functions and of two arguments), binary
commutative and symmetric relations, n-ary commutative connectives (``and``, ``set_of``), an
n-ary ordered relation, and higher-order relations (``cause``, ``implies``) nesting to depth 4
and more. Pair shapes: copies with edits (renamed entities, dropped, added and altered facts),
partial overlaps, unrelated pairs, self-matches, and tie-heavy shapes (rings, stars and cliques
of one symmetric or commutative relation, and repeated identical sub-structures).

Used by ``regen_sme4_gold.py`` (which asks the real SME v4 for the gold results) and, through
the committed gold file, by ``test_sme4_differential.py``. Pure standard library; the same seed
always gives the same pairs.
"""

from __future__ import annotations

import random
from typing import Any

PREDICATES: dict[str, dict[str, Any]] = {
    **{f"rel_{i}": {"kind": "relation", "arity": 2} for i in range(8)},
    **{f"tri_{i}": {"kind": "relation", "arity": 3} for i in range(2)},
    **{f"attr_{i}": {"kind": "attribute", "arity": 1} for i in range(4)},
    **{f"fn_{i}": {"kind": "function", "arity": 1} for i in range(4)},
    "fn2_0": {"kind": "function", "arity": 2},
    **{f"comm_{i}": {"kind": "relation", "arity": 2, "commutative": True} for i in range(2)},
    **{f"sym_{i}": {"kind": "relation", "arity": 2, "symmetric": True} for i in range(2)},
    "and": {"kind": "logical", "arity": None, "n_ary": True, "commutative": True},
    "set_of": {"kind": "relation", "arity": None, "n_ary": True, "commutative": True},
    "seq": {"kind": "relation", "arity": None, "n_ary": True},
    "cause": {"kind": "relation", "arity": 2},
    "implies": {"kind": "relation", "arity": 2},
    "greater": {"kind": "relation", "arity": 2},
}
for _v in PREDICATES.values():
    _v.setdefault("n_ary", False)
    _v.setdefault("commutative", False)

FIRST = [f"rel_{i}" for i in range(8)]
COMM = ["comm_0", "comm_1"]
SYM = ["sym_0", "sym_1"]
FUNCS = [f"fn_{i}" for i in range(4)]
ATTRS = [f"attr_{i}" for i in range(4)]
HIGHER = ["cause", "implies"]


def _canon(term: Any) -> Any:
    """A hashable form of a term (nested tuples)."""
    return tuple(_canon(a) for a in term) if isinstance(term, list) else term


class _Builder:
    """Random facts over a set of entities, with the predicate mix given by ``style``."""

    def __init__(self, rng: random.Random, entities: list[str], style: str):
        self.rng, self.entities, self.style = rng, entities, style
        self.facts: list[Any] = []
        self.seen: set[Any] = set()

    def add(self, fact: list) -> bool:
        key = _canon(fact)
        if key in self.seen:
            return False
        self.seen.add(key)
        self.facts.append(fact)
        return True

    def entity(self) -> str:
        return self.rng.choice(self.entities)

    def two(self) -> tuple[str, str]:
        if len(self.entities) < 2 or self.rng.random() < 0.04:
            e = self.entity()
            return e, e  # an occasional reflexive fact
        a, b = self.rng.sample(self.entities, 2)
        return a, b

    def quantity(self, depth: int = 0) -> list:
        """A function term: fn(e), fn(fn(e)) ... or fn2(q, q)."""
        r = self.rng.random()
        if depth < 2 and r < 0.3:
            return [self.rng.choice(FUNCS), self.quantity(depth + 1)]
        if depth < 1 and r < 0.4:
            return ["fn2_0", self.quantity(depth + 1), self.quantity(depth + 1)]
        return [self.rng.choice(FUNCS), self.entity()]

    def first_order(self) -> list:
        r = self.rng.random()
        weights = {
            "plain": (0.55, 0.65, 0.75, 0.85, 0.95),
            "comm": (0.3, 0.55, 0.8, 0.88, 0.95),
            "tie": (0.2, 0.5, 0.85, 0.9, 0.95),
        }[self.style]
        if r < weights[0]:
            a, b = self.two()
            return [self.rng.choice(FIRST), a, b]
        if r < weights[1]:
            a, b = self.two()
            return [self.rng.choice(COMM), a, b]
        if r < weights[2]:
            a, b = self.two()
            return [self.rng.choice(SYM), a, b]
        if r < weights[3]:
            return [self.rng.choice(ATTRS), self.entity()]
        if r < weights[4]:
            return ["greater", self.quantity(), self.quantity()]
        if self.rng.random() < 0.5:
            return [
                "tri_" + str(self.rng.randrange(2)),
                self.entity(),
                self.entity(),
                self.entity(),
            ]
        k = self.rng.randint(2, 4)
        return ["seq", *(self.entity() for _ in range(k))]

    def higher(self, pool: list[list]) -> list:
        r = self.rng.random()
        if r < 0.55 or len(pool) < 3:
            a, b = self.rng.sample(pool, 2)
            return [self.rng.choice(HIGHER), a, b]
        if r < 0.85:
            k = min(len(pool), self.rng.randint(2, 4))
            return ["and", *self.rng.sample(pool, k)]
        k = min(len(pool), self.rng.randint(2, 3))
        return ["set_of", *self.rng.sample(pool, k)]

    def build(self, n_facts: int, higher_share: float) -> list:
        n_high = int(n_facts * higher_share)
        tries = 0
        while len(self.facts) < n_facts - n_high and tries < 20 * n_facts:
            tries += 1
            self.add(self.first_order())
        pool = list(self.facts)
        if len(pool) >= 2:
            made = 0
            while made < n_high and tries < 40 * n_facts:
                tries += 1
                fact = self.higher(pool)
                if self.add(fact):
                    made += 1
                    pool.append(fact)  # higher-order facts nest: depth 4 and more
        return self.facts


def _rename(term: Any, names: dict[str, str]) -> Any:
    if isinstance(term, list):
        return [term[0], *(_rename(a, names) for a in term[1:])]
    return names.get(term, term)


def _entities_of(facts: list, out: dict[str, None]) -> dict[str, None]:
    for f in facts:
        for a in f[1:]:
            if isinstance(a, list):
                _entities_of([a], out)
            else:
                out[a] = None
    return out


def description(name: str, facts: list, extra_entities: list[str] = ()) -> dict:
    """A fixture description: its entities are those used in the facts (plus extras)."""
    ents = _entities_of(facts, {})
    for e in extra_entities:
        ents.setdefault(e, None)
    return {"name": name, "entities": [{"name": e, "type": "thing"} for e in ents], "facts": facts}


def random_description(
    rng: random.Random, name: str, n_facts: int, style: str, prefix: str = "e"
) -> dict:
    entities = [f"{prefix}{i}" for i in range(rng.randint(3, max(3, min(12, n_facts // 2 + 2))))]
    facts = _Builder(rng, entities, style).build(n_facts, rng.choice((0.15, 0.3, 0.45)))
    return description(name, facts)


def _edit(rng: random.Random, base: dict, style: str, strength: float) -> dict:
    """A renamed copy of ``base`` with some facts dropped, altered and added."""
    ents = [e["name"] for e in base["entities"]]
    shuffled = rng.sample(ents, len(ents))
    names = {e: f"t{i}" for i, e in enumerate(shuffled)}
    facts = []
    for f in base["facts"]:
        r = rng.random()
        if r < strength * 0.5:
            continue  # dropped
        g = _rename(f, names)
        if r < strength and g[0] in FIRST:
            g = [rng.choice(FIRST), *g[1:]]  # altered predicate
        facts.append(g)
    builder = _Builder(rng, list(names.values()), style)
    for f in facts:
        builder.add(f)
    extra = int(len(base["facts"]) * strength * 0.5)
    for _ in range(extra):
        builder.add(builder.first_order())
    if len(builder.facts) >= 3 and rng.random() < 0.5:
        for _ in range(max(1, extra // 3)):
            builder.add(builder.higher(list(builder.facts)))
    return description(base["name"] + "-edit", builder.facts)


def _tie_shape(rng: random.Random, name: str, prefix: str) -> dict:
    """Rings, stars and cliques of one commutative/symmetric relation, repeated sub-structure."""
    n = rng.randint(3, 6)
    ents = [f"{prefix}{i}" for i in range(n)]
    pred = rng.choice(COMM + SYM + FIRST[:2])
    shape = rng.choice(("ring", "star", "clique", "twins"))
    facts: list[list] = []
    if shape == "ring":
        facts = [[pred, ents[i], ents[(i + 1) % n]] for i in range(n)]
    elif shape == "star":
        facts = [[pred, ents[0], e] for e in ents[1:]]
    elif shape == "clique":
        facts = [[pred, a, b] for i, a in enumerate(ents) for b in ents[i + 1 :]][:10]
    else:
        facts = [[pred, ents[i], ents[i + 1]] for i in range(0, n - 1, 2)]
        facts += [[rng.choice(ATTRS), e] for e in ents[:2]]
    if rng.random() < 0.6 and len(facts) >= 2:
        pool = list(facts)
        for _ in range(rng.randint(1, 3)):
            a, b = rng.sample(pool, 2)
            f = [rng.choice(HIGHER + ["and"]), a, b]
            if _canon(f) not in {_canon(x) for x in facts}:
                facts.append(f)
                pool.append(f)
    return description(name, facts)


KINDS = ("edit", "overlap", "unrelated", "self", "tie", "edit-comm", "small")


def make_pair(rng: random.Random, index: int) -> dict:
    """One pair ``{"name", "kind", "base", "target"}`` (descriptions inline)."""
    kind = KINDS[index % len(KINDS)] if rng.random() < 0.7 else rng.choice(KINDS)
    size = rng.choice((5, 8, 10, 12, 15, 20, 30, 45, 60)) if kind != "small" else rng.randint(2, 6)
    style = rng.choice(("plain", "comm", "tie"))
    base_name = f"b{index}"
    if kind == "self":
        base = random_description(rng, base_name, size, style)
        target = dict(base, name=f"t{index}")
    elif kind in ("edit", "edit-comm", "small"):
        base = random_description(rng, base_name, size, "comm" if kind == "edit-comm" else style)
        target = _edit(rng, base, style, rng.choice((0.0, 0.1, 0.3, 0.5)))
        target["name"] = f"t{index}"
    elif kind == "overlap":
        base = random_description(rng, base_name, size, style)
        other = random_description(rng, "x", size, style, prefix="u")
        kept = _edit(rng, base, style, 0.2)["facts"]
        half = len(kept) // 2
        target = description(f"t{index}", kept[:half] + other["facts"][: len(kept) - half])
    elif kind == "unrelated":
        base = random_description(rng, base_name, size, style)
        target = random_description(
            rng, f"t{index}", rng.choice((5, 10, 20, 40)), style, prefix="u"
        )
    else:
        base = _tie_shape(rng, base_name, "e")
        target = (
            _tie_shape(rng, f"t{index}", "t")
            if rng.random() < 0.5
            else dict(_edit(rng, base, "tie", 0.1), name=f"t{index}")
        )
    if not target["facts"]:
        target = description(f"t{index}", [["attr_0", "t0"]])
    return {"name": f"p{index}", "kind": kind, "base": base, "target": target}


def make_pairs(seed: int, count: int) -> list[dict]:
    """``count`` pairs from ``seed``."""
    rng = random.Random(seed)
    return [make_pair(rng, i) for i in range(count)]
