"""Rendering: a motif variant in one skin becomes an L0 incident note and its role bindings.

Every random choice is drawn from ``random.Random(seed)`` in a fixed sequence that does not
depend on the variant: nonce words, the opening, one phrasing per fact, the order of the fact
sentences and the layout (symptom first or last). So a decoy rendered with the same seed as its
true twin differs from it in exactly the sentence that states the edited element — a minimal
pair in wording as well as in structure.

Each note also carries one to four domain asides (:mod:`asides`). A variant other than "true"
keeps the subset of its twin's asides that best matches the twin's negation count and length, so
the edited sentence does not make decoys systematically longer or more negative than true notes.

Nonce skins write ``{w1}``..``{w12}`` for invented words; :func:`nonce_words` draws them from
syllables that spell no English word, seeded by a ``lexicon`` so that notes meant to come from
the same invented world (a target and its surface traps) share them.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from itertools import combinations

from analogist.bench.asides import MAX_ASIDES, pool
from analogist.bench.motif import Motif, Skin
from analogist.errors import BenchError

_ONSETS = ("b", "br", "d", "dr", "f", "g", "gl", "k", "kr", "m", "n", "p", "pl", "s", "sk",
           "t", "tr", "v", "vr", "z")
_VOWELS = ("a", "e", "i", "o", "u", "ai", "ee", "oo")
_CODAS = ("k", "m", "n", "sk", "rn", "nd", "x", "lt", "rv")
_WORD = re.compile(r"[a-z0-9]+")
NONCE_SLOTS = 12
NEGATIONS = frozenset({"not", "no", "never", "nothing", "nobody", "none", "without", "neither",
                       "nor", "cannot", "t"})


def nonce_words(rng: random.Random, n: int = NONCE_SLOTS) -> dict[str, str]:
    """``{"w1": ..., "wn": ...}``: distinct invented words, each ending in a consonant."""
    out: dict[str, str] = {}
    seen: set[str] = set()
    while len(out) < n:
        w = rng.choice(_ONSETS) + rng.choice(_VOWELS) + rng.choice(_ONSETS) + \
            rng.choice(_VOWELS) + rng.choice(_CODAS)
        if w not in seen:
            seen.add(w)
            out[f"w{len(out) + 1}"] = w
    return out


@dataclass(frozen=True)
class Rendering:
    """One rendered text: the L0 note, role -> entity name, and the surface domain."""

    text: str
    bindings: dict[str, str]
    domain: str


def _fill(template: str, values: dict[str, str]) -> str:
    try:
        text = template.format(**values)
    except (KeyError, IndexError) as e:
        raise BenchError(f"skin template {template!r} names an unknown placeholder {e}") from None
    return text[:1].upper() + text[1:]


def _roles_for(motif: Motif, variant: str) -> list[str]:
    roles = list(motif.roles)
    return roles + [motif.split.part] if variant == "split" else roles


@dataclass(frozen=True)
class _Parts:
    sentences: list[str]
    asides: list[int]
    bindings: dict[str, str]
    domain: str

    def text(self, keep: set[int] | None = None) -> str:
        drop = set(self.asides) - (set(self.asides) if keep is None else keep)
        return " ".join(p for i, p in enumerate(self.sentences) if i not in drop)


def _parts(motif: Motif, variant: str, skin: Skin, seed: int, lexicon: int | None) -> _Parts:
    rng = random.Random(f"render|{motif.name}|{skin.name}|{seed}")
    lex = random.Random(f"lexicon|{seed if lexicon is None else lexicon}")
    words_ = nonce_words(lex) if skin.kind == "nonce" else {}
    bindings = {r: skin.entities[r].format(**words_) for r in _roles_for(motif, variant)}
    values = {**words_, **bindings}
    setting_pick = rng.randrange(1000)
    symptom_pick = rng.randrange(1000)
    picks = {key: rng.randrange(1000) for key in motif.facts}
    keys = list(motif.facts)
    rng.shuffle(keys)
    layout = rng.randrange(3)
    asides = pool(skin.domain, skin.kind)
    chosen = rng.sample(range(len(asides)), 1 + rng.randrange(MAX_ASIDES))
    slots = [rng.randrange(len(keys) + 1) for _ in chosen]
    overrides = {} if variant == "true" else skin.variants.get(variant, {})
    body: list[tuple[str, bool]] = []
    for key in keys:
        options = overrides.get(key) or skin.facts[key]
        body.append((_fill(options[picks[key] % len(options)], values), False))
    for a, slot in sorted(zip(chosen, slots), key=lambda x: -x[1]):
        body.insert(slot, (_fill(asides[a], values), True))
    setting = (_fill(skin.setting[setting_pick % len(skin.setting)], values), False)
    symptom = (_fill(skin.symptom[symptom_pick % len(skin.symptom)], values), False)
    order = ([setting, *body, symptom], [setting, symptom, *body], [symptom, setting, *body])[layout]
    return _Parts([p for p, _ in order], [i for i, (_, a) in enumerate(order) if a], bindings,
                  skin.domain.format(**words_))


def negations(text: str) -> int:
    """How many negation words a text contains."""
    return sum(1 for w in _WORD.findall(text.lower()) if w in NEGATIONS)


def _balanced(parts: _Parts, twin: str) -> str:
    """The text with the subset of asides whose negations and length best match ``twin``."""
    best, best_cost = parts.text(), None
    for k in range(len(parts.asides), -1, -1):
        for keep in combinations(parts.asides, k):
            text = parts.text(set(keep))
            cost = 40 * abs(negations(text) - negations(twin)) + abs(len(text) - len(twin))
            if best_cost is None or cost < best_cost:
                best, best_cost = text, cost
    return best


def render(motif: Motif, variant: str, skin: Skin, seed: int,
           lexicon: int | None = None) -> Rendering:
    """Render ``variant`` of ``motif`` in ``skin``; the same arguments give the same text.

    ``lexicon`` seeds a nonce skin's invented words separately from everything else, so notes
    from one invented world can share its vocabulary (None: the words follow ``seed``).
    """
    parts = _parts(motif, variant, skin, seed, lexicon)
    if variant == "true":
        text = parts.text()
    else:
        text = _balanced(parts, _parts(motif, "true", skin, seed, lexicon).text())
    return Rendering(text, parts.bindings, parts.domain)


def words(text: str) -> set[str]:
    """The lower-case word set of a text (for overlap figures)."""
    return set(_WORD.findall(text.lower()))


def jaccard(a: str, b: str) -> float:
    """Word-set Jaccard overlap of two texts."""
    wa, wb = words(a), words(b)
    return len(wa & wb) / len(wa | wb) if wa | wb else 1.0

