"""Rendering: a motif variant in one skin becomes an L0 incident note and its role bindings.

Every random choice is drawn from ``random.Random(seed)`` in a fixed sequence that does not
depend on the variant: nonce words, the opening, one phrasing per fact, where the symptom goes
and where asides go. So a decoy rendered with the same seed as its true twin differs from it in
exactly the sentence that states the edited element — a minimal pair in wording as well as in
structure.

Notes read in a natural order: the opening (setting) comes first; the symptom either follows it
at once ("what happened, then why") or closes the note; the facts keep the motif's causal order.
Asides (:mod:`asides`) are handed in by the caller — a bench deals them so that none repeats —
and slot in between facts.

Agreement is fixed at render time with ``inflect``: a verb that follows an entity name (after an
optional adverb) takes the entity's number ("the handheld scanners now wait"), and "a"/"an"
follow the next word's sound. Nonce skins write ``{w1}``..``{w12}`` for invented words;
:func:`nonce_words` draws them from syllables that spell no English word, seeded by a
``lexicon`` so that notes meant to come from the same invented world share them.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import Any

from analogist.bench.generation.motif import Motif, Skin
from analogist.errors import BenchError

_ONSETS = (
    "b",
    "br",
    "d",
    "dr",
    "f",
    "g",
    "gl",
    "k",
    "kr",
    "m",
    "n",
    "p",
    "pl",
    "s",
    "sk",
    "t",
    "tr",
    "v",
    "vr",
    "z",
)
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ee", "oo")
_CODAS = ("k", "m", "n", "sk", "rn", "nd", "x", "lt", "rv")
_WORD = re.compile(r"[a-z0-9]+")
NONCE_SLOTS = 12
NEGATIONS = frozenset(
    {"not", "no", "never", "nothing", "nobody", "none", "without", "neither", "nor", "cannot", "t"}
)
ADVERBS = frozenset(
    {
        "now",
        "often",
        "also",
        "never",
        "only",
        "still",
        "then",
        "simply",
        "always",
        "just",
        "already",
        "soon",
        "usually",
        "rarely",
        "quietly",
        "itself",
        "themselves",
        "alone",
    }
)
PLURAL_HEADS = frozenset({"folk", "people", "staff", "police", "cattle", "crew", "livestock"})
SINGULAR_HEADS = frozenset({"news", "series", "species", "means", "data"})


@cache
def _engine() -> Any:
    """The ``inflect`` engine, made on first use: importing inflect takes about 2 s, which every
    ``analogist`` command would otherwise pay at start-up."""
    import inflect

    return inflect.engine()


def nonce_words(rng: random.Random, n: int = NONCE_SLOTS) -> dict[str, str]:
    """``{"w1": ..., "wn": ...}``: distinct invented words, each ending in a consonant."""
    out: dict[str, str] = {}
    seen: set[str] = set()
    while len(out) < n:
        w = (
            rng.choice(_ONSETS)
            + rng.choice(_VOWELS)
            + rng.choice(_ONSETS)
            + rng.choice(_VOWELS)
            + rng.choice(_CODAS)
        )
        if w not in seen:
            seen.add(w)
            out[f"w{len(out) + 1}"] = w
    return out


AMBIGUOUS_HEADS = frozenset(
    {
        "aircraft",
        "sheep",
        "fish",
        "deer",
        "series",
        "species",
        "crew",
        "staff",
        "team",
        "board",
        "committee",
        "council",
        "panel",
        "family",
        "police",
        "data",
        "media",
        "public",
        "management",
    }
)


def head_noun(name: str) -> str:
    """The head noun of an entity name: the last word before any post-modifier (a participle,
    a preposition, "already", a number), lower-cased."""
    words_ = re.findall(r"[A-Za-z0-9][A-Za-z0-9'-]*", name)
    kept: list[str] = []
    for i, w in enumerate(words_):
        lw = w.lower()
        if (
            i >= 2
            and kept
            and (
                lw in PREPOSITIONS
                or lw in ("already", "that", "which", "who")
                or lw.isdigit()
                or (lw.endswith("ed") and len(lw) > 4)
            )
        ):
            break
        kept.append(lw)
    return kept[-1] if kept else ""


@cache
def number(name: str) -> str | None:
    """ "plural", "singular", or None when the head noun can be either (aircraft, team ...)."""
    if re.search(r"\band\b", name):
        return "plural"
    head = head_noun(name)
    if not head:
        return None
    if head in AMBIGUOUS_HEADS:
        return "plural" if head in PLURAL_HEADS else None
    if head in PLURAL_HEADS:
        return "plural"
    if head in SINGULAR_HEADS or head.endswith(("ss", "us", "is", "ics")):
        return "singular"
    single = _engine().singular_noun(head)
    return "plural" if single and single != head else "singular"


def is_plural(name: str) -> bool:
    """Whether an entity name is grammatically plural (its head noun, by ``inflect``)."""
    return number(name) == "plural"


_SUBJECT_VERB = re.compile(r"\{([A-Z][A-Z0-9_]*)\}(\s+)([a-z][a-z'-]*)(?:(\s+)([a-z][a-z'-]*))?")


TO_SINGULAR = {"are": "is", "were": "was", "have": "has"}
PREPOSITIONS = frozenset(
    {
        "from",
        "of",
        "by",
        "with",
        "to",
        "for",
        "at",
        "in",
        "on",
        "than",
        "into",
        "onto",
        "over",
        "under",
        "about",
        "through",
        "behind",
    }
)
NOT_VERBS = frozenset(
    {
        "as",
        "this",
        "thus",
        "its",
        "his",
        "hers",
        "us",
        "yes",
        "always",
        "perhaps",
        "sometimes",
        "plus",
        "across",
        "towards",
        "afterwards",
        "unless",
        "less",
        "whereas",
        "besides",
        "nowadays",
        "upstairs",
    }
)


def _singular_verb(word: str) -> bool:
    """Whether ``word`` looks like a third-person singular verb form."""
    return word in ("is", "was", "has", "does") or (
        word.endswith("s")
        and not word.endswith("ss")
        and word not in NOT_VERBS
        and _engine().plural_verb(word) != word
    )


def _agree(template: str, values: dict[str, str]) -> str:
    """Make the verb after a ``{ROLE}`` placeholder (and an optional adverb) agree with the
    entity's number: third-person forms for plurals, is/was/has for singulars."""

    def fix(m: re.Match[str]) -> str:
        role, gap, first, gap2, second = m.groups()
        name = values.get(role)
        before = template[max(0, m.start() - 12) : m.start()].lower()
        last = before.split()[-1] if before.split() else ""
        num = number(name) if name is not None else None
        if (
            num is None or before.endswith(("each of ", "one of ")) or last in PREPOSITIONS
        ):  # the entity is not the subject, or either number fits
            return m.group(0)

        def conj(word: str) -> str:
            if num == "plural" and _singular_verb(word):
                return _engine().plural_verb(word)
            if num == "singular" and word in TO_SINGULAR:
                return TO_SINGULAR[word]
            return word

        if first in ADVERBS and second is not None:
            second = conj(second)
        else:
            first = conj(first)
        tail = f"{gap2}{second}" if second is not None else ""
        return f"{{{role}}}{gap}{first}{tail}"

    return _SUBJECT_VERB.sub(fix, template)


_ARTICLE = re.compile(r"\b([Aa]n?) ([A-Za-z][\w-]*)")


def articles(text: str) -> str:
    """Every "a"/"an" before a word made to match its sound (``inflect``)."""

    def fix(m: re.Match[str]) -> str:
        art = _engine().a(m.group(2)).split(" ", 1)[0]
        if m.group(1)[0].isupper():
            art = art.capitalize()
        return f"{art} {m.group(2)}"

    return _ARTICLE.sub(fix, text)


def fill(template: str, values: dict[str, str]) -> str:
    """A template filled in, with subject-verb agreement and articles fixed, capitalised
    (memoised: a skin fills the same sentences with the same names again and again)."""
    return _fill(template, tuple(sorted(values.items())))


@lru_cache(maxsize=65536)
def _fill(template: str, items: tuple[tuple[str, str], ...]) -> str:
    values = dict(items)
    try:
        text = _agree(template, values).format(**values)
    except (KeyError, IndexError) as e:
        raise BenchError(f"skin template {template!r} names an unknown placeholder {e}") from None
    # "a slow {X}" with X = "the pump": drop the second determiner ("a slow pump")
    text = re.sub(r"\b([Aa]n?) ((?:[a-z-]+ )?)the (?=[a-z])", r"\1 \2", text)
    text = articles(text)
    return text[:1].upper() + text[1:]


@dataclass(frozen=True)
class Rendering:
    """One rendered text: the L0 note, role -> entity name, the surface domain and the symptom
    sentence as written in the note."""

    text: str
    bindings: dict[str, str]
    domain: str
    symptom: str


def _roles_for(motif: Motif, variant: str) -> list[str]:
    roles = list(motif.roles)
    return roles + [motif.split.part] if variant.startswith("split") else roles


def render(
    motif: Motif,
    variant: str,
    skin: Skin,
    seed: int,
    lexicon: int | None = None,
    asides: tuple[str, ...] = (),
) -> Rendering:
    """Render ``variant`` of ``motif`` in ``skin``; the same arguments give the same text.

    ``lexicon`` seeds a nonce skin's invented words separately from everything else, so notes
    from one invented world can share its vocabulary (None: the words follow ``seed``).
    ``asides`` are aside templates (which may name nonce words) placed between facts.
    """
    rng = random.Random(f"render|{motif.name}|{skin.name}|{seed}")
    lex = random.Random(f"lexicon|{seed if lexicon is None else lexicon}")
    words_ = nonce_words(lex) if skin.kind == "nonce" else {}
    bindings = {r: skin.entities[r].format(**words_) for r in _roles_for(motif, variant)}
    values = {**words_, **bindings}
    setting_pick = rng.randrange(1000)
    symptom_pick = rng.randrange(1000)
    picks = {key: rng.randrange(1000) for key in motif.facts}
    symptom_early = rng.random() < 0.5
    slots = [rng.randrange(len(motif.facts) + 1) for _ in range(len(asides))]
    overrides: Mapping[str, tuple[str, ...]]
    if variant.startswith("split:"):  # a decoy at a finer grain: both rewrites (disjoint facts)
        overrides = {**skin.variants.get("split", {}), **skin.variants.get(variant[6:], {})}
    else:
        overrides = {} if variant == "true" else skin.variants.get(variant, {})
    # stock words that skins share for one kind of link are swapped, per rendering, for a
    # synonym from one pool (drawn apart from the main sequence, the same for every variant)
    chosen = _word_choice(random.Random(f"wording|{seed}"))
    body: list[str] = []
    for key in motif.facts:
        options = overrides.get(key) or skin.facts[key]
        body.append(wording(fill(options[picks[key] % len(options)], values), chosen))
    for aside, slot in sorted(zip(asides, slots), key=lambda x: -x[1]):
        body.insert(slot, fill(aside, values))
    setting = fill(skin.setting[setting_pick % len(skin.setting)], values)
    symptom = fill(skin.symptom[symptom_pick % len(skin.symptom)], values)
    opening = [setting]
    if skin.glossary:  # an invented world says what its words stand for, after the opening
        opening.append(fill(skin.glossary[setting_pick % len(skin.glossary)], values))
    order = [*opening, symptom, *body] if symptom_early else [*opening, *body, symptom]
    return Rendering(" ".join(order), bindings, skin.domain.format(**words_), symptom)


WORD_POOLS: tuple[tuple[str, ...], ...] = (
    ("unrelated", "irrelevant", "immaterial"),
    ("afterwards", "later on", "after that"),
    ("came first", "came before", "was there first"),
)
"""Interchangeable stock words of fact sentences: the same edit is worded with the same few
words in every skin, so a note and another skin's note of the same structure would share them.
Each rendering picks one of each pool (whole words; lower case only)."""
_POOL_RE = tuple(
    re.compile(r"\b(" + "|".join(map(re.escape, pool)) + r")\b") for pool in WORD_POOLS
)


def _word_choice(rng: random.Random) -> tuple[str, ...]:
    return tuple(pool[rng.randrange(len(pool))] for pool in WORD_POOLS)


def wording(sentence: str, chosen: tuple[str, ...]) -> str:
    """``sentence`` with every stock word of :data:`WORD_POOLS` replaced by this rendering's
    choice from its pool."""
    for pattern, word in zip(_POOL_RE, chosen):
        sentence = pattern.sub(word, sentence)
    return sentence


def negations(text: str) -> int:
    """How many negation words a text contains."""
    return sum(1 for w in _WORD.findall(text.lower()) if w in NEGATIONS)


def words(text: str) -> set[str]:
    """The lower-case word set of a text (for overlap figures)."""
    return set(_WORD.findall(text.lower()))


def jaccard(a: str, b: str) -> float:
    """Word-set Jaccard overlap of two texts."""
    wa, wb = words(a), words(b)
    return len(wa & wb) / len(wa | wb) if wa | wb else 1.0


def bigrams(text: str) -> set[str]:
    """The lower-case word-bigram set of a text (for overlap figures)."""
    toks = _WORD.findall(text.lower())
    return {f"{a} {b}" for a, b in zip(toks, toks[1:])}


def bigram_jaccard(a: str, b: str) -> float:
    """Word-bigram Jaccard overlap of two texts."""
    ba, bb = bigrams(a), bigrams(b)
    return len(ba & bb) / len(ba | bb) if ba | bb else 1.0
