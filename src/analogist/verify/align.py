"""Relation-level alignment of two signatures under a role mapping.

Given a source signature, a target signature and a source-role → target-role mapping, sort
every relation and causal link into: commonalities (same predicate over corresponding roles),
alignable differences (corresponding roles, different predicate or link), alignable absences on
each side (roles correspond, the fact is on one side only) and non-alignable differences (facts
over roles outside the mapping). This is the similarity/difference summary of Markman & Gentner
(1993) and the raw material of the likeness/difference/unknown table (spec §10.1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from analogist.signature.describe import term_expr
from analogist.signature.description import Expr
from analogist.signature.model import CausalLink, Relation, Signature
from analogist.signature.terms import Term
from analogist.signature.vocabulary import Vocabulary

RoleMap = Mapping[str, str]


@dataclass(frozen=True)
class RelationFact:
    """A relation over roles, e.g. ``derives_from(DER, SRC)``."""

    predicate: str
    args: tuple[str, ...] = ()
    kind: Literal["relation"] = "relation"

    def __str__(self) -> str:
        return f"{self.predicate}({', '.join(self.args)})"

    def roles(self) -> tuple[str, ...]:
        return self.args

    def renamed(self, m: RoleMap) -> RelationFact:
        return RelationFact(self.predicate, tuple(m.get(a, a) for a in self.args))

    def expr(self) -> Expr:
        """The fact as the mapper's Description states it (:mod:`analogist.signature.describe`)."""
        return Expr(self.predicate, self.args)

    def key(self, vocab: Vocabulary | None = None) -> tuple[object, ...]:
        """Identity ignoring the predicate: what makes two facts 'about the same things'."""
        t = vocab.resolve(self.predicate) if vocab else None
        return (
            "relation",
            tuple(sorted(self.args)) if t is not None and t.commutative else self.args,
        )


@dataclass(frozen=True)
class LinkFact:
    """A causal link between two terms, e.g. ``skips_check(CON,SRC) --enables--> false_claim(CON)``."""

    predicate: str
    cause: Term
    effect: Term
    kind: Literal["link"] = "link"

    def __str__(self) -> str:
        return f"{self.cause.canonical()} --{self.predicate}--> {self.effect.canonical()}"

    def roles(self) -> tuple[str, ...]:
        return self.cause.roles() + self.effect.roles()

    def renamed(self, m: RoleMap) -> LinkFact:
        return LinkFact(self.predicate, self.cause.rename(dict(m)), self.effect.rename(dict(m)))

    def expr(self) -> Expr:
        """The link as the mapper's Description states it: a higher-order fact."""
        return Expr(self.predicate, (term_expr(self.cause), term_expr(self.effect)))

    def key(self, vocab: Vocabulary | None = None) -> tuple[object, ...]:
        """Identity ignoring the link kind: the same cause and effect."""
        return ("link", self.cause.canonical(), self.effect.canonical())


#: A relation or a causal link, in one comparable form (``kind`` tells which).
Fact = RelationFact | LinkFact


def relation_fact(r: Relation) -> RelationFact:
    return RelationFact(r.predicate, r.args)


def link_fact(c: CausalLink) -> LinkFact:
    return LinkFact(c.link, c.cause, c.effect)


def facts(sig: Signature) -> list[Fact]:
    """Every relation and causal link of a signature."""
    return [relation_fact(r) for r in sig.relations] + [link_fact(c) for c in sig.causal_chain]


@dataclass(frozen=True)
class Alignment:
    """The similarity/difference summary of one source→target role mapping."""

    role_map: tuple[tuple[str, str], ...]
    matches: tuple[tuple[Fact, Fact], ...]
    alignable_differences: tuple[tuple[Fact, Fact], ...]
    source_only: tuple[Fact, ...]  # alignable absences in the target (unknown there)
    target_only: tuple[Fact, ...]  # alignable absences in the source (target-only factors)
    non_alignable_source: tuple[Fact, ...]
    non_alignable_target: tuple[Fact, ...]

    @property
    def mapping(self) -> dict[str, str]:
        return dict(self.role_map)


def _fully_mapped(f: Fact, m: RoleMap) -> bool:
    return all(r in m for r in f.roles())


def align(source: Signature, target: Signature, role_map: RoleMap, vocab: Vocabulary) -> Alignment:
    """Align source and target facts under ``role_map`` (source role → target role)."""
    m = dict(role_map)
    image = set(m.values())
    tgt = facts(target)
    by_key: dict[tuple, list[Fact]] = {}
    for f in tgt:
        by_key.setdefault(f.key(vocab), []).append(f)
    used: set[int] = set()
    matches, diffs, src_only, non_src = [], [], [], []
    pending: list[tuple[Fact, Fact]] = []
    for f in facts(source):  # pass 1: identical facts over corresponding roles
        if not _fully_mapped(f, m):
            non_src.append(f)
            continue
        g = f.renamed(m)
        same = [
            t
            for t in by_key.get(g.key(vocab), [])
            if id(t) not in used and t.predicate == g.predicate
        ]
        if same:
            used.add(id(same[0]))
            matches.append((f, same[0]))
        else:
            pending.append((f, g))
    for f, g in pending:  # pass 2: same roles, different predicate = alignable difference
        others = [t for t in by_key.get(g.key(vocab), []) if id(t) not in used]
        if others:
            used.add(id(others[0]))
            diffs.append((f, others[0]))
        else:
            src_only.append(f)
    tgt_only: list[Fact] = []
    non_tgt: list[Fact] = []
    for t in tgt:
        if id(t) in used:
            continue
        (tgt_only if all(r in image for r in t.roles()) else non_tgt).append(t)
    return Alignment(
        tuple(sorted(m.items())),
        tuple(matches),
        tuple(diffs),
        tuple(src_only),
        tuple(tgt_only),
        tuple(non_src),
        tuple(non_tgt),
    )
