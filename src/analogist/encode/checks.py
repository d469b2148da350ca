"""Checks on a model-written signature before it is accepted.

:func:`canonical_names` maps relation names to vocabulary terms only where the vocabulary or
the model says so explicitly (a listed synonym, a merged term, or a ``relation_mapping`` the
model wrote in its repair); anything else is reported, never guessed. :func:`surface_leaks`
finds surface names in the abstract levels L2/L3: the episode's listed entities (any case) and
the capitalised words of L0 (as written), which would let retrieval match on surface.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from analogist.signature.vocabulary import Vocabulary

_CAPITALISED = re.compile(r"\b[A-Z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)*\b")
_COMMON = frozenset(["a", "an", "the", "this", "that", "these", "those", "it", "its", "we", "i", "our", "us", "you", "your", "they", "their", "he", "she", "his", "her", "after", "before", "when", "while", "because", "during", "then", "on", "in", "at", "for", "with", "from", "to", "as", "by", "if", "but", "and", "or", "so", "no", "not", "all", "some", "every", "each", "one", "two", "three", "first", "later", "yesterday", "today", "tonight", "once", "since", "until", "although", "however", "there", "here", "what", "which", "who", "why", "how", "yes", "also", "only", "both", "either", "neither", "many", "most", "several"])


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


def surface_terms(entities: Iterable[str], l0: str, roles: Iterable[str]) -> tuple[list[str], list[str]]:
    """(entity names matched in any case, capitalised L0 words matched as written).

    Role names and common sentence-initial words are not surface names.
    """
    role_set = set(roles)
    ents = sorted({e.strip() for e in entities if len(e.strip()) > 1})
    caps = sorted({
        w for w in _CAPITALISED.findall(l0)
        if w not in role_set and w.lower() not in _COMMON and len(w) > 1
    })
    return ents, caps


def surface_leaks(text: str, entities: Iterable[str], capitalised: Iterable[str]) -> list[str]:
    """The surface names that occur in ``text`` as whole words."""
    found = []
    for e in entities:
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
    words = {w.lower() for w in re.findall(r"[A-Za-z0-9]{3,}", l0)}
    foreign = [e for e in entities
               if not {w.lower() for w in re.findall(r"[A-Za-z0-9]{3,}", e)} & words]
    if not foreign:
        return []
    names = ", ".join(repr(e) for e in foreign)
    return [(f"surface.entities: {names} do(es) not occur in the episode; "
             "list only the entities this episode names")]


def level_leak_problems(levels: Mapping[str, str], entities: Iterable[str], l0: str,
                        roles: Iterable[str]) -> list[str]:
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
