"""Cases: one rendered instance of a motif variant, and how it is shown to a system under test.

A :class:`Case` is a motif variant rendered in one skin with one seed: its L0 text, its role
bindings and its gold signature. It is shown in one of two ways:

- as a stored **episode** (:func:`episode`): the example-memory format ``{id, kind, text,
  outcome, time, provenance, signature}``, where the signature is the gold one with neutral
  role names (``R1``.. in a seeded order) so role names never reveal the motif, and the outcome
  reports the variant's own fix in plain words;
- as a **target** (:func:`target`): text plus an entity table ``{entity id: name}`` and nothing
  else; its signature and role bindings stay on the key side.

Every id is seeded random hex, so ids say nothing about motifs, roles or decoys.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from analogist.bench.library import operator
from analogist.bench.motif import Motif, Skin
from analogist.bench.render import Rendering, jaccard, render
from analogist.bench.signatures import gold_raw, rename_roles
from analogist.signature import parse_term

PROVENANCE = "parb:synthetic"
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


def new_id(rng: random.Random, prefix: str, taken: set[str] | None = None) -> str:
    """A fresh ``prefix_<12 hex>`` id, unique within ``taken`` (which it updates)."""
    while True:
        value = f"{prefix}_{rng.getrandbits(48):012x}"
        if taken is None or value not in taken:
            if taken is not None:
                taken.add(value)
            return value


@dataclass(frozen=True)
class Case:
    """A motif variant rendered in one skin with one seed."""

    motif: Motif
    variant: str
    skin: Skin
    seed: int
    lexicon: int
    rendering: Rendering
    recorded_fix: str | None = None

    @property
    def text(self) -> str:
        return self.rendering.text

    @property
    def bindings(self) -> dict[str, str]:
        return self.rendering.bindings

    @property
    def domain(self) -> str:
        return self.rendering.domain

    @property
    def fix(self) -> str:
        """The fix this case records: an operator term over gold roles that resolves its world
        (the variant's own fix unless another resolving fix was chosen)."""
        if self.recorded_fix is not None:
            return self.recorded_fix
        if self.variant in ("true", "split", self.motif.partial.name):
            return self.motif.fix
        return self.motif.variant(self.variant).fix

    def raw_signature(self, episode_id: str) -> dict[str, Any]:
        """Gold signature JSON with the motif's role names."""
        raw = gold_raw(self.motif, self.variant, episode_id=episode_id, l0=self.text,
                       bindings=self.bindings, domain=self.domain)
        if self.recorded_fix is not None:
            raw["fix_operator"] = self.recorded_fix
        return raw

    def twin(self) -> Case:
        """The true variant in the same skin and seed: the decoy's minimal-pair partner."""
        return make_case(self.motif, "true", self.skin, self.seed, self.lexicon)


def twin_overlap(case: Case) -> float:
    """Word overlap (Jaccard) of a variant's text with its true twin's: how minimal the pair is."""
    return round(jaccard(case.text, case.twin().text), 4)


def make_case(motif: Motif, variant: str, skin: Skin, seed: int, lexicon: int | None = None,
              fix: str | None = None) -> Case:
    """Render a case; ``lexicon`` (default: ``seed``) seeds a nonce skin's invented words and
    ``fix`` overrides the fix the case records."""
    lex = seed if lexicon is None else lexicon
    return Case(motif, variant, skin, seed, lex, render(motif, variant, skin, seed, lex), fix)


def outcome_text(case: Case, rng: random.Random) -> str:
    """What was done and that it worked, in plain words over entity names."""
    term = parse_term(case.fix)
    op = operator(term.functor)
    names = [case.bindings[str(a)] for a in term.args]
    phrase = op.phrases[rng.randrange(len(op.phrases))].format(*names)
    return f"Resolved: {phrase}."


def _time(rng: random.Random) -> str:
    moment = _EPOCH + timedelta(minutes=rng.randrange(2 * 365 * 24 * 60))
    return moment.strftime("%Y-%m-%dT%H:%M:00Z")


@dataclass(frozen=True)
class Shown:
    """A case as shown: the JSON a system sees and the key-side facts about it."""

    case: Case
    record: dict[str, Any]
    roles: dict[str, str]
    """gold role -> the name it is shown under (a neutral role name or an entity id)."""


def episode(case: Case, rng: random.Random, taken: set[str]) -> Shown:
    """``case`` as a stored episode with a role-renamed gold signature."""
    eid = new_id(rng, "ep", taken)
    order = list(case.raw_signature(eid)["roles"])
    rng.shuffle(order)
    mapping = {role: f"R{i + 1}" for i, role in enumerate(order)}
    record = {
        "id": eid, "kind": "failure", "text": case.text, "outcome": outcome_text(case, rng),
        "time": _time(rng), "provenance": PROVENANCE,
        "signature": rename_roles(case.raw_signature(eid), mapping),
    }
    return Shown(case, record, mapping)


def target(case: Case, rng: random.Random, taken: set[str]) -> Shown:
    """``case`` as a target: text and an entity table, roles kept for the key."""
    roles = {role: new_id(rng, "e", taken) for role in case.bindings}
    entities = {roles[r]: case.bindings[r] for r in case.bindings}
    record = {"text": case.text, "entities": dict(sorted(entities.items()))}
    return Shown(case, record, roles)
