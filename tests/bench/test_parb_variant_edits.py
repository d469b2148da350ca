"""Decoy, partial and split sentences are minimal edits of the true sentences they replace.

Why: a PARB memory holds the target motif's true structure and its variants in other skins. If a
variant's changed fact is written with its own words, the true structure shares more words with
any rendering of the target than its look-alikes do, and word overlap alone finds the source
(`bench/overlap_auc.py`, the retrieval rows of `analogist bench audit`). So every variant
sentence keeps the words of the closest true phrasing of the fact it replaces and changes only
the words that carry the structural edit, and no stock phrase marks variants across motifs.
"""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from analogist.bench.generation.motif import Motif, Skin
from analogist.bench.generation.motifs import all_motifs
from analogist.bench.generation.render import words

#: Word-set Jaccard between a variant sentence and the closest true phrasing of its fact.
MIN_OVERLAP = 0.6
#: Words a variant sentence may add that no true fact phrasing of its skin uses.
MAX_NEW_WORDS = 4
#: A word trigram used by variant sentences of this many motifs, and by none of their true
#: fact phrasings, is a stock phrase that marks a variant.
STOCK_MOTIFS = 3

_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_]+)\}")
_TOKEN = re.compile(r"[a-z0-9_]+")


def _plain(sentence: str) -> str:
    """The sentence with each ``{ROLE}`` placeholder as one token."""
    return _PLACEHOLDER.sub(lambda m: f" ph_{m.group(1).lower()} ", sentence)


def _words(sentence: str) -> set[str]:
    return words(_plain(sentence))


def _trigrams(sentence: str) -> set[tuple[str, ...]]:
    toks = _TOKEN.findall(_plain(sentence).lower())
    return set(zip(toks, toks[1:], toks[2:]))


def _variant_sentences(skin: Skin) -> list[tuple[str, str, str]]:
    """(variant, fact, sentence) for every replacement phrasing of the skin."""
    return [
        (variant, fact, sentence)
        for variant, facts in skin.variants.items()
        for fact, sentences in facts.items()
        for sentence in sentences
    ]


def edit_problems(motif: Motif) -> list[str]:
    """Every variant sentence of ``motif`` that is not a minimal edit, with its figures."""
    problems = []
    for skin in motif.skins:
        vocabulary = set().union(*(_words(p) for ps in skin.facts.values() for p in ps))
        for variant, fact, sentence in _variant_sentences(skin):
            vw = _words(sentence)
            overlap = max(
                (len(vw & _words(p)) / len(vw | _words(p)) for p in skin.facts.get(fact, ())),
                default=0.0,
            )
            new = sorted(vw - vocabulary)
            if overlap < MIN_OVERLAP or len(new) > MAX_NEW_WORDS:
                problems.append(
                    f"{motif.name}/{skin.name}/{variant}/{fact}: overlap {overlap:.2f} "
                    f"(min {MIN_OVERLAP}), new words {new} (max {MAX_NEW_WORDS})"
                )
    return problems


@pytest.mark.parametrize("motif", all_motifs(), ids=lambda m: m.name)
def test_variant_sentences_are_minimal_edits(motif: Motif) -> None:
    problems = edit_problems(motif)
    assert not problems, "\n".join(problems)


def test_no_stock_phrase_marks_variants_across_motifs() -> None:
    used_by: dict[tuple[str, ...], set[str]] = defaultdict(set)
    true_grams: set[tuple[str, ...]] = set()
    for motif in all_motifs():
        for skin in motif.skins:
            for phrasings in skin.facts.values():
                for p in phrasings:
                    true_grams |= _trigrams(p)
            for _, _, sentence in _variant_sentences(skin):
                for gram in _trigrams(sentence):
                    used_by[gram].add(motif.name)
    stock = {
        " ".join(g): sorted(ms)
        for g, ms in used_by.items()
        if len(ms) >= STOCK_MOTIFS and g not in true_grams
    }
    assert not stock, f"stock phrases in variant sentences: {stock}"


def test_the_check_catches_a_rewritten_fact() -> None:
    """The measure itself: a sentence with new words fails, a one-word edit passes."""
    true = "{ALM} sounded so often that {RSP} stopped reacting to them."
    edited = "{ALM} sounded so often because {RSP} stopped reacting to them."
    rewritten = "It ran the other way: an earlier miss left {RSP} numb."
    vw, tw = _words(edited), _words(true)
    assert len(vw & tw) / len(vw | tw) >= MIN_OVERLAP
    rw = _words(rewritten)
    assert len(rw & tw) / len(rw | tw) < MIN_OVERLAP
