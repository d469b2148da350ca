"""Motifs: the structural templates PARB is generated from (spec §16.2).

A :class:`Motif` is one recurring causal shape (a stale copy trusted over its source, a retry
storm, a circular wait ...). It holds the gold structure with role names, the numeric
:class:`~analogist.bench.generation.simulate.Dynamics` that make it executable, its correct fix and plausible
wrong ones, its minimal-pair decoys and partial variant (:class:`Variant`), the finer-grained
re-description used by F8 (:class:`Split`), and its surface renderings (:class:`Skin`).

Structure elements are named so that edits and text can point at them: a relation by its own
spelling (``"derives_from(DER,SRC)"``) and a causal link by its 1-based position (``"c3"``).
``facts`` groups elements into the sentences a skin renders, so a decoy that edits one element
rewrites exactly one sentence.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from analogist.bench.generation.simulate import Dynamics

REVERSE = "reverse_edge"
FLIP = "flip_polarity"
DELETE = "delete_dependency"
MEDIATOR = "mediator_to_confounder"
COPIED = "copied_to_independent"
DECOY_EDITS = (REVERSE, FLIP, DELETE, MEDIATOR, COPIED)
DROP_RELATION = "delete_relation"


@dataclass(frozen=True)
class Edit:
    """One structural edit: its kind and the element it applies to (``"c2"`` or a relation)."""

    kind: str
    element: str


@dataclass(frozen=True)
class Variant:
    """A one-edit variant of a motif: a minimal-pair decoy or the partial-transfer variant.

    Attributes:
        name: unique within the motif ("true" is reserved for the motif itself).
        edit: the single structural edit.
        fix: the variant's own fix (an operator term over roles) that resolves its symptom.
        l2, l3: the variant's own mechanism and abstract pattern (levels L2, L3).
    """

    name: str
    edit: Edit
    fix: str
    l2: str
    l3: str


@dataclass(frozen=True)
class Split:
    """F8's finer granularity: ``part`` is inserted between the two roles of ``relation``.

    The relation ``r(A,B)`` becomes ``r(A,part), r(part,B)``; the match with an unsplit source
    is visible only once the two hops are read as one (abstraction level ``level``).
    """

    relation: str
    part: str
    description: str
    level: str = "L2"


@dataclass(frozen=True)
class Skin:
    """One surface rendering of a motif: a domain, its entities and its sentences.

    Attributes:
        name: unique within the motif.
        domain: the surface domain ("medicine", "logistics" ...; a nonce word for nonce skins).
        kind: "ordinary" or "nonce". Nonce skins write ``{w1}``..``{w9}`` for invented words,
            filled afresh (seeded) every time the skin is rendered.
        entities: role -> noun phrase (also for the split part, under its role name).
        setting: opening sentences, one chosen per rendering.
        facts: fact key -> phrasings (``{ROLE}`` placeholders), one chosen per rendering.
        symptom: phrasings of what went wrong.
        variants: variant name -> fact key -> replacement phrasings.
        glossary: for nonce skins, sentences that say what the invented names stand for; one
            follows the opening of every note, so a reader can follow an invented world.
    """

    name: str
    domain: str
    kind: str
    entities: Mapping[str, str]
    setting: tuple[str, ...]
    facts: Mapping[str, tuple[str, ...]]
    symptom: tuple[str, ...]
    variants: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    glossary: tuple[str, ...] = ()


@dataclass(frozen=True)
class Motif:
    """A structural template with everything needed to build worlds, texts and keys.

    Attributes:
        name: identifier (never shown to a system under test).
        title: the human name of the pattern.
        aliases: words that name the pattern and so must never appear in L0 text.
        roles: role -> what the role is.
        relations: relation terms over roles.
        chain: causal links ``(cause, link, effect)``.
        symptom_node: the chain node whose value is the symptom severity.
        symptom, invariant: the signature's symptom and violated invariant.
        fix: the correct fix as an operator term over roles; ``qualifier`` is its free text.
        wrong_fixes: plausible operator terms that do not resolve the symptom.
        alt_fixes: other operator terms that also resolve it (a stored true episode may record
            one of these, so a fix's operator never tells a true episode from a decoy).
        levels: ``L1`` (a template over roles), ``L2`` and ``L3``.
        dynamics: the numeric parameters of the world.
        facts: fact key -> the elements its sentence states.
        decoys: minimal-pair decoys; ``partial``: the variant where the fix still transfers.
        split: the finer-grained re-description for F8.
        skins: at least three ordinary skins and one nonce skin.
    """

    name: str
    title: str
    aliases: tuple[str, ...]
    roles: Mapping[str, str]
    relations: tuple[str, ...]
    chain: tuple[tuple[str, str, str], ...]
    symptom_node: str
    symptom: str
    invariant: str
    fix: str
    qualifier: str
    wrong_fixes: tuple[str, ...]
    alt_fixes: tuple[str, ...]
    levels: Mapping[str, str]
    dynamics: Dynamics
    facts: Mapping[str, tuple[str, ...]]
    decoys: tuple[Variant, ...]
    partial: Variant
    split: Split
    skins: tuple[Skin, ...]

    @property
    def variants(self) -> tuple[Variant, ...]:
        return self.decoys + (self.partial,)

    def variant(self, name: str) -> Variant:
        for v in self.variants:
            if v.name == name:
                return v
        raise KeyError(f"motif {self.name} has no variant {name!r}")

    def skin(self, name: str) -> Skin:
        for s in self.skins:
            if s.name == name:
                return s
        raise KeyError(f"motif {self.name} has no skin {name!r}")

    def fact_of(self, element: str) -> str:
        """The fact key whose sentence states ``element``."""
        for key, elements in self.facts.items():
            if element in elements:
                return key
        raise KeyError(f"motif {self.name}: no fact states {element!r}")
