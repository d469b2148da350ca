"""Cases: one rendered instance of a motif variant, and how it is shown to a system under test.

A :class:`Case` is a motif variant rendered in one skin with one seed: its L0 text, its role
bindings and its gold signature. It is shown in one of two ways:

- as a stored **episode** (:func:`episode`): the example-memory format ``{id, kind, text,
  outcome, time, provenance, signature}``. The signature keeps only structure and what the
  note itself says: roles are renamed ``R1``.. in a seeded order, role descriptions, invariant
  and L1-L3 are written from the structure (:func:`~analogist.bench.generation.signatures.describe`), the
  symptom is the note's own symptom sentence, and no entity name appears outside the text. The
  recorded fix carries a free-text qualifier half the time, drawn from one pool for every
  variant, and the outcome reports the case's own fix in words, in one of several forms;
- as a **target** (:func:`target`): text plus an entity table ``{entity id: name}`` and nothing
  else; its signature and role bindings stay on the key side.

Every id is seeded random hex, so ids say nothing about motifs, roles or decoys.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from analogist.bench.generation.library import operator
from analogist.bench.generation.motif import Motif, Skin
from analogist.bench.generation.render import Rendering, fill, jaccard, render
from analogist.bench.generation.signatures import describe, gold_raw, rename_roles
from analogist.signature import parse_term

PROVENANCE = "parb:synthetic"
_EPOCH = datetime(2024, 1, 1, tzinfo=UTC)
QUALIFIERS = (
    "at once",
    "from then on",
    "before each use",
    "as a standing rule",
    "on every shift",
    "for a trial month",
    "until further notice",
    "with a weekly review",
    "after sign-off",
    "in the next window",
)
OUTCOMES = (
    "Resolved: {p}.",
    "What worked in the end: {p}.",
    "Closed: {p}.",
    "The fix: {p}.",
    "Since the review, {p}.",
)


def new_id(rng: random.Random, prefix: str, taken: set[str] | None = None) -> str:
    """A fresh ``prefix_<12 hex>`` id, unique within ``taken`` (which it updates)."""
    while True:
        value = f"{prefix}_{rng.getrandbits(48):012x}"
        if taken is None or value not in taken:
            if taken is not None:
                taken.add(value)
            return value


@dataclass(frozen=True)
class Extra:
    """An irrelevant mechanism added to a note: one fact borrowed from another motif's skin
    in the same domain, its roles renamed ``X1``.., its relations and its sentence."""

    roles: dict[str, str]
    relations: tuple[str, ...]
    sentence: str


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
    asides: tuple[str, ...] = ()
    extra: Extra | None = field(default=None)

    @property
    def text(self) -> str:
        return self.rendering.text

    @property
    def bindings(self) -> dict[str, str]:
        return {**self.rendering.bindings, **(self.extra.roles if self.extra else {})}

    @property
    def domain(self) -> str:
        return self.rendering.domain

    @property
    def fix(self) -> str:
        """The fix this case records: an operator term over gold roles that resolves its world
        (the variant's own fix unless another resolving fix was chosen)."""
        if self.recorded_fix is not None:
            return self.recorded_fix
        base = "true" if self.variant == "split" else self.variant.removeprefix("split:")
        if base in ("true", self.motif.partial.name):
            return self.motif.fix
        return self.motif.variant(base).fix

    def raw_signature(self, episode_id: str) -> dict[str, Any]:
        """Gold signature JSON with the motif's role names (role descriptions are placeholders)."""
        raw = gold_raw(
            self.motif,
            self.variant,
            episode_id=episode_id,
            l0=self.text,
            domain=self.domain,
            symptom=self.rendering.symptom,
            fix=self.fix,
        )
        if self.extra is not None:
            raw["roles"] = {**raw["roles"], **{r: r for r in self.extra.roles}}
            raw["relations"] = raw["relations"] + [
                [parse_term(r).functor, *[str(a) for a in parse_term(r).args]]
                for r in self.extra.relations
            ]
        return raw

    def twin(self) -> Case:
        """The true variant in the same skin and seed: the decoy's minimal-pair partner."""
        return make_case(self.motif, "true", self.skin, self.seed, self.lexicon)


def twin_overlap(case: Case) -> float:
    """Word overlap (Jaccard) of a variant's text with its true twin's: how minimal the pair is
    (asides left out, since a bench never repeats one)."""
    bare = make_case(case.motif, case.variant, case.skin, case.seed, case.lexicon)
    return round(jaccard(bare.text, case.twin().text), 4)


def make_case(
    motif: Motif,
    variant: str,
    skin: Skin,
    seed: int,
    lexicon: int | None = None,
    fix: str | None = None,
    asides: tuple[str, ...] = (),
    extra: Extra | None = None,
) -> Case:
    """Render a case; ``lexicon`` (default: ``seed``) seeds a nonce skin's invented words,
    ``fix`` overrides the fix the case records and ``asides`` go between its facts."""
    lex = seed if lexicon is None else lexicon
    placed = asides + ((extra.sentence,) if extra else ())
    return Case(
        motif,
        variant,
        skin,
        seed,
        lex,
        render(motif, variant, skin, seed, lex, placed),
        fix,
        asides,
        extra,
    )


def outcome_text(case: Case, rng: random.Random) -> str:
    """What was done and that it worked, in plain words over entity names.

    The wording is chosen from the operator's phrasings, several opening forms and optional
    closing remarks to land near a length drawn from one range for every case, so an outcome's
    length says nothing about which fix (or which structure) it reports.
    """
    term = parse_term(case.fix)
    op = operator(term.functor)
    values = {f"A{i}": case.bindings[str(a)] for i, a in enumerate(term.args)}
    want = rng.uniform(*OUTCOME_LENGTH)
    options = []
    for phrase in op.phrases:
        for i in range(len(term.args)):
            phrase = phrase.replace(f"{{{i}}}", f"{{A{i}}}")
        text = fill(phrase, values)
        if not text.startswith(tuple(values.values())) or text.startswith("The "):
            text = text[:1].lower() + text[1:]
        for form in OUTCOMES:
            for tail in TAILS:
                options.append(fill(form.replace("{p}", "{P}"), {"P": text}) + tail)
    rng.shuffle(options)
    return min(options, key=lambda o: abs(len(o) - want))


TAILS = (
    "",
    " Nothing else needed changing.",
    " It was written into the standing orders.",
    " The change was checked again a week later and had held.",
    " Nobody has seen it since.",
    " The same check now runs every week, and it has not come back since then.",
)
OUTCOME_LENGTH = (70.0, 190.0)


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


def _shown_strings(sig: dict[str, Any]) -> set[str]:
    """The role-named strings of a shown signature (invariant, L1, L3, role descriptions)."""
    levels = sig.get("levels") or {}
    out = {
        str(sig.get("violated_invariant", "")),
        str(levels.get("L1", "")),
        str(levels.get("L3", "")),
    }
    return (out | {str(d) for d in (sig.get("roles") or {}).values()}) - {""}


RENAME_TRIES = 24


def episode(
    case: Case, rng: random.Random, taken: set[str], shown: set[str] | None = None
) -> Shown:
    """``case`` as a stored episode with a role-renamed, re-described gold signature.

    ``shown`` holds the role-named strings of the episodes already in the same snapshot (it is
    updated): the role order is drawn again, up to :data:`RENAME_TRIES` times, until none of
    them repeats, so two episodes of one motif share no invariant or role description by
    the chance of numbering their roles alike, as episodes of different motifs rarely do.
    """
    eid = new_id(rng, "ep", taken)
    raw = case.raw_signature(eid)
    best: tuple[int, dict[str, str], dict[str, Any]] | None = None
    for _ in range(RENAME_TRIES if shown is not None else 1):
        order = list(raw["roles"])
        rng.shuffle(order)
        mapping = {role: f"R{i + 1}" for i, role in enumerate(order)}
        sig = rename_roles(raw, mapping)
        clash = len(_shown_strings(sig) & shown) if shown is not None else 0
        if best is None or clash < best[0]:
            best = (clash, mapping, sig)
        if clash == 0:
            break
    assert best is not None
    _, mapping, sig = best
    if shown is not None:
        shown |= _shown_strings(sig)
    if rng.random() < 0.5:
        sig["fix_operator"] = f"{sig['fix_operator']} {QUALIFIERS[rng.randrange(len(QUALIFIERS))]}"
    record = {
        "id": eid,
        "kind": "failure",
        "text": case.text,
        "outcome": outcome_text(case, rng),
        "time": _time(rng),
        "provenance": PROVENANCE,
        "signature": sig,
    }
    return Shown(case, record, mapping)


def target(case: Case, rng: random.Random, taken: set[str]) -> Shown:
    """``case`` as a target: text and an entity table, roles kept for the key."""
    roles = {role: new_id(rng, "e", taken) for role in case.bindings}
    entities = {roles[r]: case.bindings[r] for r in case.bindings}
    record = {"text": case.text, "entities": dict(sorted(entities.items()))}
    return Shown(case, record, roles)


def target_raw(case: Case) -> dict[str, Any]:
    """The key's gold target signature: motif role names, each role described by the entity
    name the note gives it, the note's own symptom; no fix (the system must find it)."""
    raw = case.raw_signature("target")
    raw["roles"] = {r: case.bindings[r] for r in raw["roles"]}
    raw.pop("fix_operator", None)
    return describe(raw)
