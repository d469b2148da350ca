"""PARB motif library: the split, the gold structures, the decoy edits and the rendered text."""

from __future__ import annotations

import re
from itertools import combinations

import pytest

from analogist.bench.analysis.structure import best_assignment
from analogist.bench.generation.asides import EVENTS as ASIDES
from analogist.bench.generation.edits import classify_edit
from analogist.bench.generation.library import LIBRARY
from analogist.bench.generation.motif import COPIED, DECOY_EDITS, DELETE, FLIP, MEDIATOR, REVERSE
from analogist.bench.generation.motifs import (
    DEV_MOTIFS,
    HELDOUT_MOTIFS,
    all_motifs,
    motif,
    split_motifs,
)
from analogist.bench.generation.render import render, words
from analogist.bench.generation.signatures import gold_raw, gold_signature
from analogist.errors import BenchError

from .parb_helpers import named_terms

MOTIFS = all_motifs()
IDS = [m.name for m in MOTIFS]


def test_twenty_motifs_split_twelve_and_eight_disjoint():
    assert len(DEV_MOTIFS) == 12 and len(HELDOUT_MOTIFS) == 8
    assert not set(DEV_MOTIFS) & set(HELDOUT_MOTIFS)
    assert [m.name for m in split_motifs("dev")] == list(DEV_MOTIFS)
    with pytest.raises(BenchError, match="unknown split"):
        split_motifs("train")
    with pytest.raises(BenchError, match="unknown motif"):
        motif("nope")


def test_no_motif_name_hides_inside_a_vocabulary_word():
    """Signatures in inputs use vocabulary words; a motif id inside one (``deadlock`` in
    ``deadlocked``) would make substring leak checks fire on legitimate inputs."""
    from analogist.signature import default_vocabulary

    words_ = {w for t in default_vocabulary() for w in (t.term, *t.synonyms)}
    for m in MOTIFS:
        for w in words_:
            assert m.name not in w and m.name.replace("_", " ") not in w.replace("_", " "), (
                m.name,
                w,
            )


@pytest.mark.parametrize("split", ["dev", "test"])
def test_each_split_covers_all_five_decoy_edits(split):
    kinds = {d.edit.kind for m in split_motifs(split) for d in m.decoys}
    assert kinds == set(DECOY_EDITS)


@pytest.mark.parametrize("m", MOTIFS, ids=IDS)
def test_skins_three_ordinary_domains_and_one_nonce(m):
    ordinary = [s for s in m.skins if s.kind == "ordinary"]
    assert len(ordinary) >= 3 and len({s.domain for s in ordinary}) == len(ordinary)
    assert [s.kind for s in m.skins].count("nonce") >= 1
    for s in m.skins:
        assert set(m.facts) <= set(s.facts), s.name
        assert set(m.roles) | {m.split.part} <= set(s.entities), s.name


@pytest.mark.parametrize("m", MOTIFS, ids=IDS)
def test_entity_names_share_no_content_word_across_skins(m):
    """Otherwise a role could be mapped across domains by its name alone."""
    stop = {"the", "a", "an", "of", "on", "in", "at", "for", "to", "and", "s", "by", "from", "with"}

    def content(name: str) -> set[str]:
        return words(re.sub(r"\{w\d+\}", "", name)) - stop

    for a, b in combinations(m.skins, 2):
        for ra, na in a.entities.items():
            for rb, nb in b.entities.items():
                assert not content(na) & content(nb), (a.name, ra, b.name, rb)


@pytest.mark.parametrize("m", MOTIFS, ids=IDS)
def test_gold_signatures_parse_for_every_variant(m):
    for variant in ["true", "split", *(v.name for v in m.variants)]:
        sig = gold_signature(m, variant)
        assert sig.fix_operator is not None and sig.fix_operator.operator in LIBRARY
    for term in (m.fix, *m.wrong_fixes, *m.alt_fixes, *(v.fix for v in m.variants)):
        assert term.split("(")[0] in LIBRARY, term


@pytest.mark.parametrize("m", MOTIFS, ids=IDS)
def test_role_mapping_is_unambiguous(m):
    """The true structure aligns onto itself only by the identity, so a mapping key is unique."""
    raw = gold_raw(m)
    best = best_assignment(raw, raw)
    assert best.score == 1.0 and best.mapping == {r: r for r in m.roles}
    from itertools import permutations

    from analogist.bench.analysis.structure import _facts

    target = _facts(raw, {})
    for perm in permutations(sorted(m.roles)):
        mapping = dict(zip(sorted(m.roles), perm))
        if mapping != {r: r for r in m.roles}:
            assert _facts(raw, mapping) != target, mapping


@pytest.mark.parametrize("m", MOTIFS, ids=IDS)
def test_every_decoy_is_exactly_one_structural_edit(m):
    true = gold_signature(m)
    for d in m.decoys:
        assert d.edit.kind in DECOY_EDITS
        found = classify_edit(true, gold_signature(m, d.name))
        assert found is not None and found.kind == d.edit.kind, d.name


def test_classify_edit_rejects_two_edits_and_no_edit():
    m = motif("stale_copy")
    true = gold_signature(m)
    assert classify_edit(true, true) is None
    raw = gold_raw(m, "reverse_edge")
    raw["relations"] = raw["relations"][1:]
    from analogist.signature import default_vocabulary, parse_signature

    assert classify_edit(true, parse_signature(raw, default_vocabulary())) is None


@pytest.mark.parametrize("kind", [REVERSE, FLIP, DELETE, MEDIATOR, COPIED])
def test_each_edit_kind_is_recognised_somewhere(kind):
    hits = [
        m.name
        for m in MOTIFS
        for d in m.decoys
        if classify_edit(gold_signature(m), gold_signature(m, d.name)).kind == kind
    ]
    assert hits


@pytest.mark.parametrize("m", MOTIFS, ids=IDS)
def test_decoy_text_changes_only_the_edited_sentence(m):
    for d in m.decoys:
        key = m.fact_of(d.edit.element)
        for s in m.skins:
            assert key in s.variants.get(d.name, {}), (d.name, s.name)
            twin, decoy = render(m, "true", s, 5).text, render(m, d.name, s, 5).text
            assert twin != decoy


@pytest.mark.parametrize("m", MOTIFS, ids=IDS)
def test_l0_never_names_a_vocabulary_term_or_motif(m):
    for s in m.skins:
        for variant in ["true", "split", *(v.name for v in m.variants)]:
            for seed in range(4):
                text = render(m, variant, s, seed).text
                assert not named_terms(text), (s.name, variant, named_terms(text))


def test_asides_and_outcome_phrases_never_name_a_vocabulary_term():
    for lines in ASIDES.values():
        for line in lines:
            assert not named_terms(line), line
    for op in LIBRARY.values():
        for phrase in op.phrases:
            assert not named_terms(phrase), (op.name, phrase)


def test_rendering_is_deterministic_and_seed_dependent():
    m = motif("retry_amplification")
    s = m.skins[0]
    assert render(m, "true", s, 3) == render(m, "true", s, 3)
    assert render(m, "true", s, 3).text != render(m, "true", s, 4).text


def test_nonce_lexicon_is_shared_on_request():
    m = motif("circular_wait")
    nonce = next(s for s in m.skins if s.kind == "nonce")
    a, b = render(m, "true", nonce, 1, lexicon=9), render(m, "flip_polarity", nonce, 2, lexicon=9)
    assert a.bindings == b.bindings
    assert render(m, "true", nonce, 1).bindings != render(m, "true", nonce, 2).bindings
