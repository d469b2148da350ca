"""Items: what a system under test sees (``inputs``) and, kept apart, how it is scored (``key``).

An :class:`Item` belongs to one family F1–F8 (spec §16.1). Its ``inputs`` hold only what the
system may see: target text and entity table, given sources or candidates as stored episodes, a
memory snapshot, an operator menu. Its ``key`` holds everything else: the correct source (or
none), the role mapping, per-inference transfer/withhold decisions, the executable check (which
world to simulate a proposed fix in), the abstraction level, gold signatures for the ``gold``
encoder, and the motif. On disk the two live in separate files.

:class:`Context` carries the seeded generator state one item is built with; the key helpers
here are shared by the family builders.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from analogist.bench.generation.asides import MAX_ASIDES, Dealer
from analogist.bench.generation.cases import Case, Extra, Shown, make_case, new_id, target_raw
from analogist.bench.generation.library import LIBRARY
from analogist.bench.generation.motif import Motif, Skin
from analogist.bench.generation.world import world_for
from analogist.signature import parse_term

FAMILIES = ("F1", "F2", "F3", "F4", "F5", "F6", "F7", "F8")
CHECK_SEEDS = 3

QUESTIONS = {
    "F1": "Map each role of the source episode's signature to the target entity that plays it, "
    "and state the source's fix as an operator over target entities.",
    "F2": "For each candidate episode, say whether it is a valid structural analogue of the target.",
    "F3": "Which stored episode, if any, is a valid structural analogue of the target?",
    "F4": "Adapt the source episode's fix to the target: choose an operator from the menu and "
    "the target entities it applies to.",
    "F5": "For each candidate inference carried over from the source, decide whether it "
    "transfers to the target or must be withheld.",
    "F6": "Is the source episode a valid structural analogue of the target?",
    "F7": "Find a valid analogue of the target in memory, map it, and propose a fix from the menu.",
    "F8": "Which stored episode is a valid structural analogue of the target, at which "
    "abstraction level does the match appear, and what fix from the menu carries over?",
}


@dataclass(frozen=True)
class Item:
    """One benchmark item. ``motif`` is key-side information."""

    item_id: str
    family: str
    split: str
    motif: str
    inputs: Mapping[str, Any]
    key: Mapping[str, Any]

    def input_record(self) -> dict[str, Any]:
        """The line of ``items.jsonl``: everything a system under test may see."""
        return {
            "item_id": self.item_id,
            "family": self.family,
            "split": self.split,
            "inputs": dict(self.inputs),
        }

    def key_record(self) -> dict[str, Any]:
        """The line of ``keys.jsonl``."""
        return {"item_id": self.item_id, "motif": self.motif, "key": dict(self.key)}


@dataclass(frozen=True)
class Slot:
    """One planned item: its family, motif, ordinal within the family, and target skin kind."""

    family: str
    motif: Motif
    ordinal: int
    nonce: bool


@dataclass
class Context:
    """Seeded state for building one item; ``pool`` is the split's motifs only."""

    rng: random.Random
    split: str
    pool: tuple[Motif, ...]
    taken: set[str] = field(default_factory=set)
    dealer: Dealer = field(default_factory=lambda: Dealer("item"))
    ranks: Counter[tuple[str, int]] = field(default_factory=Counter)
    """How often each overlap rank of the source has been used so far in the bench, per kind of
    snapshot (memory families balance it: see ``overlap_ranks.target_wording``)."""

    def case(
        self,
        motif: Motif,
        variant: str,
        skin: Skin,
        lexicon: int | None = None,
        fix: str | None = None,
        extra: Extra | None = None,
        like: tuple[str, ...] | None = None,
        least: int = 0,
        seed: int | None = None,
    ) -> Case:
        """A case with a fresh seed and fresh asides from the bench's dealer (how many does
        not depend on the variant); pass ``lexicon`` to share an invented world's words and
        ``like`` to tell the same events as those asides (a same-domain surface trap);
        ``least`` is the fewest asides to deal; ``seed`` renders a wording chosen beforehand
        (with :func:`~analogist.bench.generation.cases.make_case`, no asides dealt)."""
        seed = self.rng.randrange(10**9) if seed is None else seed
        n = max(least, self.rng.randrange(MAX_ASIDES + 1))
        if like:
            asides = tuple(self.dealer.deal_like(skin.domain, skin.kind, like))
        else:
            asides = tuple(self.dealer.deal(skin.domain, skin.kind, n))
        return make_case(motif, variant, skin, seed, lexicon, fix, asides, extra)

    def stored_fix(self, motif: Motif, variant: str) -> str | None:
        """The fix a stored episode of ``variant`` records: for a true episode, the motif's fix or
        (two times in five) one of its alternatives; a decoy records its own fix."""
        if variant != "true" or not motif.alt_fixes or self.rng.random() < 0.6:
            return None
        return motif.alt_fixes[self.rng.randrange(len(motif.alt_fixes))]

    def skin(self, motif: Motif, *, nonce: bool = False, avoid: tuple[Skin, ...] = ()) -> Skin:
        """A seeded choice of ordinary (or the nonce) skin, never one in ``avoid``."""
        kind = "nonce" if nonce else "ordinary"
        options = [s for s in motif.skins if s.kind == kind and s not in avoid]
        if not options:
            options = [s for s in motif.skins if s not in avoid]
        return options[self.rng.randrange(len(options))]

    def item(self, slot: Slot, inputs: dict[str, Any], key: dict[str, Any]) -> Item:
        """The finished item: the family's question added to the inputs, common key fields to
        the key, and a fresh random id."""
        inputs = {"question": QUESTIONS[slot.family], **inputs}
        key = {"family": slot.family, "item_source": "synthetic", **key}
        return Item(
            new_id(self.rng, "it", self.taken),
            slot.family,
            self.split,
            slot.motif.name,
            inputs,
            key,
        )


def variants(motif: Motif) -> list[str]:
    """The structures a motif's episodes take: the motif itself and each minimal-pair decoy."""
    return ["true", *(d.name for d in motif.decoys)]


def partner(motif: Motif, variant: str, ordinal: int) -> str:
    """The minimal-pair partner of ``variant``: a decoy of the true structure, or the true
    structure of a decoy. Both directions occur, so neither structure marks the invalid side."""
    if variant != "true":
        return "true"
    return motif.decoys[(ordinal // 4) % len(motif.decoys)].name


def target_variant(motif: Motif, ordinal: int, salt: int = 0) -> str:
    """The target's structure for an item: the motif itself for half the ordinals, a decoy for
    the other half (each decoy in turn), balanced against ``ordinal % 2`` layouts. A decoy is
    an honest world of its own, with its own symptom and its own fix."""
    if (ordinal // 2 + ordinal + salt) % 2 == 0:
        return "true"
    return motif.decoys[(ordinal // 4 + salt) % len(motif.decoys)].name


def check_spec(shown: Shown) -> dict[str, Any]:
    """The executable check: which world to simulate a proposed fix in, and how to read args."""
    c = shown.case
    return {
        "motif": c.motif.name,
        "variant": c.variant,
        "roles": {eid: role for role, eid in shown.roles.items()},
        "seeds": [c.seed + i for i in range(CHECK_SEEDS)],
    }


def role_mapping(source: Shown, target: Shown) -> dict[str, str]:
    """Source role name as shown -> target entity id, for every motif role."""
    return {source.roles[r]: target.roles[r] for r in source.case.motif.roles}


def fix_in_target(term_text: str, target: Shown) -> dict[str, Any]:
    """An operator term over gold roles, expressed over the target's entity ids."""
    term = parse_term(term_text)
    return {"operator": term.functor, "args": [target.roles[str(a)] for a in term.args]}


def transfer_outcome(source: Case, target: Shown) -> str:
    """What the source's own fix does in the target world: worst result over the check seeds."""
    results = {
        world_for(target.case.motif, target.case.variant).simulate(source.fix, s).result
        for s in check_spec(target)["seeds"]
    }
    for r in ("worse", "unchanged", "resolved"):
        if r in results:
            return r
    return "unchanged"


def target_key(target: Shown) -> dict[str, Any]:
    """Key facts about a target: its variant, gold signature and role of each entity."""
    c = target.case
    return {
        "target_variant": c.variant,
        "nonce": c.skin.kind == "nonce",
        "extra_mechanism": c.extra is not None,
        "target_signature": target_raw(c),
        "target_roles": {eid: role for role, eid in target.roles.items()},
    }


def operator_menu(motifs: list[Motif], rng: random.Random, extra: int = 3) -> list[dict]:
    """Operators a system may choose from: every operator any of ``motifs`` or their variants
    names, plus ``extra`` others at random; sorted by name so order says nothing."""
    names = set()
    for m in motifs:
        for term in (m.fix, *m.wrong_fixes, *(v.fix for v in m.variants)):
            names.add(parse_term(term).functor)
    others = sorted(set(LIBRARY) - names)
    names.update(rng.sample(others, min(extra, len(others))))
    return [LIBRARY[n].to_json() for n in sorted(names)]
