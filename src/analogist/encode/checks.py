"""Checks on a model-written signature before it is accepted.

:func:`canonical_names` maps relation names to vocabulary terms only where the vocabulary or
the model says so explicitly (a listed synonym, a merged term, or a ``relation_mapping`` the
model wrote in its repair); anything else is reported, never guessed. :func:`surface_leaks`
finds surface names in the abstract levels L2/L3: the episode's listed entities (any case) and
the capitalised words of L0 (as written), which would let retrieval match on surface.

The checks are fair to a small model: an entity counts as named by the episode when its content
words match the text after light stemming (:func:`stem`: 'lock' matches "locked", 'queue'
"queued") or occur inside a longer word ('DNS' in "CoreDNS"); a single generic word in L2/L3
('cache', 'queue') is not a leak — only whole multi-word entity names and distinctive tokens
(capitalised names, acronyms, words with digits) are. :func:`copy_problems` catches an answer that
copies the prompt's worked example by structure, not only by its surface words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from analogist.signature.vocabulary import Vocabulary

_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)*\b")
_COMMON = frozenset(
    [
        "a",
        "an",
        "the",
        "this",
        "that",
        "these",
        "those",
        "it",
        "its",
        "we",
        "i",
        "our",
        "us",
        "you",
        "your",
        "they",
        "their",
        "he",
        "she",
        "his",
        "her",
        "after",
        "before",
        "when",
        "while",
        "because",
        "during",
        "then",
        "on",
        "in",
        "at",
        "for",
        "with",
        "from",
        "to",
        "as",
        "by",
        "if",
        "but",
        "and",
        "or",
        "so",
        "no",
        "not",
        "all",
        "some",
        "every",
        "each",
        "one",
        "two",
        "three",
        "first",
        "later",
        "yesterday",
        "today",
        "tonight",
        "once",
        "since",
        "until",
        "although",
        "however",
        "there",
        "here",
        "what",
        "which",
        "who",
        "why",
        "how",
        "yes",
        "also",
        "only",
        "both",
        "either",
        "neither",
        "many",
        "most",
        "several",
    ]
)


@dataclass(frozen=True)
class RelationMapping:
    """How a name the model wrote became a vocabulary term: synonym, merged or model repair."""

    name: str
    term: str
    how: str

    def to_json(self) -> dict:
        return {"name": self.name, "term": self.term, "how": self.how}


class NameResolver:
    """Resolves relation names explicitly and remembers what it mapped and what it could not."""

    def __init__(self, vocab: Vocabulary, explicit: Mapping[str, str] | None = None):
        self.vocab = vocab
        self.explicit = dict(explicit or {})
        self.mappings: list[RelationMapping] = []
        self.unknown: list[str] = []
        self.problems: list[str] = []

    def __call__(self, name: str, where: str) -> str:
        t = self.vocab.resolve(name)
        if t is not None:
            if t.term != name:
                how = "synonym" if name in t.synonyms else "merged"
                self._note(RelationMapping(name, t.term, how))
            return t.term
        target = self.explicit.get(name)
        mapped = self.vocab.resolve(target) if isinstance(target, str) else None
        if mapped is not None:
            self._note(RelationMapping(name, mapped.term, "model repair"))
            return mapped.term
        if name not in self.unknown:
            self.unknown.append(name)
        hint = self.vocab.suggest(name)
        tip = f" (did you mean {hint!r}?)" if hint else ""
        self.problems.append(
            f"{where}: relation {name!r} is not in the vocabulary{tip}; it is not mapped to a "
            "term because no listed synonym or explicit mapping says which"
        )
        return name

    def _note(self, m: RelationMapping) -> None:
        if m not in self.mappings:
            self.mappings.append(m)


def surface_terms(
    entities: Iterable[str], l0: str, roles: Iterable[str]
) -> tuple[list[str], list[str]]:
    """(entity names matched in any case, capitalised L0 words matched as written).

    Role names and common sentence-initial words are not surface names.
    """
    role_set = set(roles)
    ents = sorted({e.strip() for e in entities if len(e.strip()) > 1})
    caps = sorted(
        {
            w
            for w in _CAPITALISED.findall(l0)
            if w not in role_set and w.lower() not in _COMMON and len(w) > 1
        }
    )
    return ents, caps


_SUFFIXES = ("ations", "ation", "ings", "ing", "edly", "ed", "ies", "es", "s", "ly", "e")
_WORD = re.compile(r"[A-Za-z0-9]+")


def stem(word: str) -> str:
    """A light, deterministic suffix-stripping stem: 'locked' -> 'lock', 'queues' -> 'queu',
    'running' -> 'run', 'retries' -> 'retry'. Enough to match an entity to its text."""
    w = word.lower()
    for suf in _SUFFIXES:
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: -len(suf)] + ("y" if suf == "ies" else "")
            break
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "aeiouls":
        w = w[:-1]
    return w


def content_words(text: str) -> list[str]:
    """Words of 3+ characters that are not common function words, in order."""
    return [w for w in _WORD.findall(text) if len(w) >= 3 and w.lower() not in _COMMON]


def mentions(entity: str, text: str) -> bool:
    """Whether ``text`` names ``entity``: at least half of the entity's content words occur in
    the text, each matched by stem or as part of a longer word (case-insensitive)."""
    words = content_words(entity) or _WORD.findall(entity)
    if not words:
        return False
    low = text.lower()
    stems = {stem(w) for w in _WORD.findall(text)}
    hits = sum(1 for w in words if stem(w) in stems or w.lower() in low)
    return hits * 2 >= len(words)


def distinctive(word: str) -> bool:
    """A token that names something specific: an acronym, a capitalised name, a word with
    digits, CamelCase. Generic lowercase words ('cache', 'queue') are not distinctive."""
    return (
        any(c.isdigit() for c in word) or word[:1].isupper() or any(c.isupper() for c in word[1:])
    )


def surface_leaks(text: str, entities: Iterable[str], capitalised: Iterable[str]) -> list[str]:
    """The surface names that occur in ``text`` as whole words. A one-word entity leaks only when
    it is distinctive (see :func:`distinctive`); a generic one may appear in abstract levels."""
    found = []
    for e in entities:
        if len(content_words(e)) < 2 and not any(distinctive(w) for w in content_words(e)):
            continue
        if re.search(rf"(?<![A-Za-z0-9]){re.escape(e)}(?![A-Za-z0-9])", text, re.IGNORECASE):
            found.append(e)
    for w in capitalised:
        hit = re.search(rf"(?<![A-Za-z0-9]){re.escape(w)}(?![A-Za-z0-9])", text)
        if hit and w.lower() not in (f.lower() for f in found):
            found.append(w)
    return found


def foreign_entity_problems(entities: Iterable[str], l0: str) -> list[str]:
    """Surface entities must come from the episode: each shares a word (3+ letters) with L0.

    This catches a model that copies the prompt's example or another text instead of
    describing this episode.
    """
    foreign = [e for e in entities if not mentions(e, l0)]
    if not foreign:
        return []
    names = ", ".join(repr(e) for e in foreign)
    return [
        (
            f"surface.entities: {names} do(es) not occur in the episode; "
            "list only the entities this episode names"
        )
    ]


def level_leak_problems(
    levels: Mapping[str, str], entities: Iterable[str], l0: str, roles: Iterable[str]
) -> list[str]:
    """One problem per abstract level (L2, L3) that names a surface entity."""
    ents, caps = surface_terms(entities, l0, roles)
    out = []
    for level in ("L2", "L3"):
        leaks = surface_leaks(levels.get(level, ""), ents, caps)
        if leaks:
            out.append(
                f"levels.{level}: names surface entities {', '.join(repr(x) for x in leaks)}; "
                "rewrite it in general words or role names"
            )
    return out
