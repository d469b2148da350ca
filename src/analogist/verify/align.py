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

from analogist.signature.model import CausalLink, Relation, Signature
from analogist.signature.terms import Term
from analogist.signature.vocabulary import Vocabulary

RoleMap = Mapping[str, str]


@dataclass(frozen=True)
class Fact:
    """A relation or a causal link, in one comparable form.

    ``args`` are role names for relations; for links, ``cause`` and ``effect`` are terms.
    """

    kind: str  # "relation" | "link"
    predicate: str
    args: tuple[str, ...] = ()
    cause: Term | None = None
    effect: Term | None = None

    def __str__(self) -> str:
        if self.kind == "link":
            return f"{self.cause.canonical()} --{self.predicate}--> {self.effect.canonical()}"
        return f"{self.predicate}({', '.join(self.args)})"

    def roles(self) -> tuple[str, ...]:
        if self.kind == "link":
            return self.cause.roles() + self.effect.roles()
        return self.args

    def renamed(self, m: RoleMap) -> Fact:
        if self.kind == "link":
            return Fact("link", self.predicate, (), self.cause.rename(dict(m)), self.effect.rename(dict(m)))
        return Fact("relation", self.predicate, tuple(m.get(a, a) for a in self.args))

    def key(self, vocab: Vocabulary | None = None) -> tuple:
        """Identity ignoring the predicate: what makes two facts 'about the same things'."""
        if self.kind == "link":
            return ("link", self.cause.canonical(), self.effect.canonical())
        args = self.args
        t = vocab.resolve(self.predicate) if vocab else None
        if t is not None and t.commutative:
            args = tuple(sorted(args))
        return ("relation", args)


def relation_fact(r: Relation) -> Fact:
    return Fact("relation", r.predicate, r.args)


def link_fact(c: CausalLink) -> Fact:
    return Fact("link", c.link, (), c.cause, c.effect)


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
        same = [t for t in by_key.get(g.key(vocab), []) if id(t) not in used and t.predicate == g.predicate]
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
    tgt_only, non_tgt = [], []
    for t in tgt:
        if id(t) in used:
            continue
        (tgt_only if all(r in image for r in t.roles()) else non_tgt).append(t)
    return Alignment(
        tuple(sorted(m.items())), tuple(matches), tuple(diffs), tuple(src_only), tuple(tgt_only),
        tuple(non_src), tuple(non_tgt),
    )
