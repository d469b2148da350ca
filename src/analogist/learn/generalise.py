"""Schema induction by analogical generalisation (SAGE; spec §3.2, Phase 5).

Follows SEQL/SAGE (Kuehne, Forbus, Gentner & Quinn 2000; McLure, Friedman & Forbus 2015):
exemplars arrive one at a time into a *generalisation pool* (here one pool per trigger context,
:func:`context_of`). A new exemplar is compared by the project's own SME with every
generalisation in its pool; when the best normalised SME score reaches the *assimilation
threshold* it is merged into that generalisation, otherwise a new generalisation starts. Here an
exemplar pair arrives together: a verified analogy (source, target, role map). When neither is
assimilated, the pair seeds a new generalisation, aligned by the verified mapping itself.

A generalisation keeps, for each fact (:class:`~analogist.learn.facts.SchemaFact`), how many members
have it, so each fact carries the probability that a member shares it. Entities become role
variables: every member's roles are bound to the generalisation's variables (the seed's role
names; an unmatched role of a later member becomes a new variable). Facts whose probability is
below ``low_probability`` are kept but marked ``low`` and left out of the schema's structure, so
they neither match targets nor count in S3 coverage. The structure is an ordinary schema
(:func:`~analogist.retrieve.schemas.parse_schema`): the same validation and storage as any.

Cost: one SME comparison per (exemplar, generalisation in its pool).
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from analogist.learn.facts import KINDS, SchemaFact, signature_facts, structure_json
from analogist.retrieve.schemas import Schema, parse_schema
from analogist.signature.model import Signature
from analogist.signature.vocabulary import Vocabulary
from analogist.verify.roles import map_signatures


@dataclass(frozen=True)
class InductionPolicy:
    """The parameters of schema induction (stored with every consolidation run).

    Attributes:
        assimilation_threshold: least normalised SME score (score over the mean self-match
            score) for an exemplar to join a generalisation.
        low_probability: facts shared by fewer than this share of members are marked ``low``
            and kept out of the schema's structure.
        min_members: a generalisation becomes a stored schema only with this many members.
    """

    assimilation_threshold: float = 0.7
    low_probability: float = 0.5
    min_members: int = 2

    def to_json(self) -> dict:
        return {
            "assimilation_threshold": self.assimilation_threshold,
            "low_probability": self.low_probability,
            "min_members": self.min_members,
        }


def context_of(target: Signature, tier: int) -> str:
    """The generalisation pool of an analogy: the target's kind and the trigger tier."""
    return f"{target.kind}/t{tier}"


@dataclass
class Generalisation:
    """One generalisation being built: fact counts over role variables and its members."""

    schema_id: str
    context: str
    roles: dict[str, str]
    counts: Counter = field(default_factory=Counter)
    members: list[str] = field(default_factory=list)
    bindings: dict[str, dict[str, str]] = field(default_factory=dict)
    runs: list[str] = field(default_factory=list)
    kind: str = "observation"
    summary: str = ""
    times_verified: int = 0

    def probability(self, fact: SchemaFact) -> float:
        return self.counts[fact] / len(self.members) if self.members else 0.0

    def assimilate(self, sig: Signature, binding: Mapping[str, str], vocab: Vocabulary) -> None:
        """Add one member: its roles bound through ``binding`` (its role -> variable), unbound
        roles becoming new variables."""
        names = dict(binding)
        for role in sig.roles:
            if role.name not in names:
                var = role.name
                n = 2
                while var in self.roles:
                    var, n = f"{role.name}_{n}", n + 1
                names[role.name] = var
            self.roles.setdefault(names[role.name], role.description)
        self.counts.update(signature_facts(sig, names, vocab))
        self.members.append(sig.episode_id)
        self.bindings[sig.episode_id] = names

    def facts(self, low: float) -> list[dict]:
        """Every fact with its count, probability and ``low`` mark, most shared first."""
        order = sorted(self.counts, key=lambda f: (-self.counts[f], KINDS.index(f.kind), f.text))
        return [
            {
                "kind": f.kind,
                "fact": f.text,
                "count": self.counts[f],
                "p": round(self.probability(f), 6),
                "low": self.probability(f) < low,
            }
            for f in order
        ]

    def to_json(self, policy: InductionPolicy) -> dict:
        """The schema JSON: structure from the facts at or above ``low_probability``, and the
        whole generalisation (all facts, members, bindings, runs) under ``induction``."""
        facts = self.facts(policy.low_probability)
        kept = [SchemaFact(f["kind"], f["fact"]) for f in facts if not f["low"]]
        body = structure_json(kept)
        used = {r for f in kept for r in f.roles()} or set(self.roles)
        return {
            "schema_id": self.schema_id,
            "kind": self.kind,
            "roles": {r: d for r, d in self.roles.items() if r in used},
            **body,
            "verified": True,
            "levels": {
                "L1": f"schema induced from {len(self.members)} verified analogues",
                **({"L3": self.summary} if self.summary else {}),
            },
            "induction": {
                "context": self.context,
                "members": list(self.members),
                "bindings": {m: dict(b) for m, b in self.bindings.items()},
                "runs": list(self.runs),
                "facts": facts,
                "policy": policy.to_json(),
            },
        }

    @classmethod
    def from_json(cls, raw: Mapping) -> Generalisation:
        """Rebuild a generalisation from its stored schema JSON (to keep assimilating)."""
        ind = raw["induction"]
        g = cls(
            raw["schema_id"],
            ind["context"],
            dict(raw.get("roles", {})),
            kind=raw.get("kind", "observation"),
            summary=raw.get("levels", {}).get("L3", ""),
        )
        for b in ind["bindings"].values():
            for var in b.values():
                g.roles.setdefault(var, var)
        g.counts = Counter(
            {SchemaFact(f["kind"], f["fact"]): int(f["count"]) for f in ind["facts"]}
        )
        g.members, g.runs = list(ind["members"]), list(ind["runs"])
        g.bindings = {m: dict(b) for m, b in ind["bindings"].items()}
        return g


def schema_id_for(context: str, first: str, second: str) -> str:
    """A stable id from the pool and the seeding pair (a rerun induces the same id)."""
    return "sch_" + hashlib.sha256(f"{context}|{first}|{second}".encode()).hexdigest()[:12]


@dataclass(frozen=True)
class Comparison:
    """SME's verdict on an exemplar against one generalisation."""

    schema_id: str
    normalized: float
    binding: tuple[tuple[str, str], ...]  # exemplar role -> variable


class Pools:
    """The generalisation pools of one consolidation, keyed by context."""

    def __init__(self, vocab: Vocabulary, policy: InductionPolicy):
        self.vocab, self.policy = vocab, policy
        self.by_context: dict[str, list[Generalisation]] = {}

    def add_existing(self, g: Generalisation) -> None:
        self.by_context.setdefault(g.context, []).append(g)

    def all(self) -> list[Generalisation]:
        return [g for gs in self.by_context.values() for g in gs]

    def structure(self, g: Generalisation) -> Schema:
        raw = g.to_json(self.policy)
        return parse_schema(raw, g.members, self.vocab)

    def compare(self, g: Generalisation, sig: Signature) -> Comparison:
        """The best normalised SME score of the generalisation (base) against ``sig``."""
        base = self.structure(g).structure
        found = map_signatures(base, sig, self.vocab)
        if not found:
            return Comparison(g.schema_id, 0.0, ())
        best = max(found, key=lambda m: (m.sme_normalized or 0.0, m.score))
        inverse = tuple(sorted((t, s) for s, t in best.role_map))
        return Comparison(g.schema_id, float(best.sme_normalized or 0.0), inverse)

    def best(self, context: str, sig: Signature) -> tuple[Generalisation, Comparison] | None:
        """The closest generalisation of the pool at or above the threshold, or None."""
        scored = [(g, self.compare(g, sig)) for g in self.by_context.get(context, [])]
        scored = [(g, c) for g, c in scored if c.normalized >= self.policy.assimilation_threshold]
        if not scored:
            return None
        return max(scored, key=lambda gc: (gc[1].normalized, len(gc[0].members), gc[0].schema_id))
