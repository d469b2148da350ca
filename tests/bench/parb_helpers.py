"""Shared helpers for the PARB generator tests: banned words and cached benches."""

from __future__ import annotations

import re
from functools import cache

from analogist.bench import generate_bench
from analogist.bench.generation.motifs import all_motifs
from analogist.signature import default_vocabulary


@cache
def bench(seed: int, split: str, size: str):
    return generate_bench(seed, split, size)


@cache
def banned_patterns() -> tuple[tuple[str, re.Pattern], ...]:
    """Every vocabulary term and synonym ('_' read as space) and every motif's names, as
    case-insensitive whole-word patterns."""
    phrases = set()
    for t in default_vocabulary():
        phrases.add(t.term.replace("_", " "))
        phrases.update(s.replace("_", " ") for s in t.synonyms)
    for m in all_motifs():
        phrases.update(a.lower() for a in m.aliases)
        phrases.update({m.name.replace("_", " "), m.title.lower()})
    return tuple(
        (p, re.compile(r"\b" + re.escape(p) + r"\b", re.IGNORECASE)) for p in sorted(phrases)
    )


def named_terms(text: str) -> list[str]:
    """The banned phrases ``text`` contains."""
    return [p for p, pat in banned_patterns() if pat.search(text)]
