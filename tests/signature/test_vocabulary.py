"""The controlled vocabulary: size, definitions, polarity, synonyms, merges, files."""

import pytest

from analogist.errors import VocabularyError
from analogist.signature import VocabTerm, Vocabulary


def test_bundled_vocabulary_covers_the_spec_list(vocab):
    spec_terms = [
        "derives_from",
        "trusts_as_authoritative",
        "skips_check",
        "masks",
        "assumes",
        "observes",
        "reports_absence",
        "retries",
        "amplifies",
        "starves",
        "races_with",
        "gates",
        "depends_on",
        "enables",
        "prevents",
        "causes",
        "invalidates",
        "blocks",
        "propagates",
        "reconciles_with",
    ]
    for term in spec_terms:
        assert vocab.resolve(term) is not None, term
    relations = [t for t in vocab if t.kind not in ("state", "causal")]
    assert 20 <= len(relations) <= 30
    assert all(t.definition for t in vocab)


def test_causal_links_carry_polarity(vocab):
    assert vocab.get("causes").polarity == 1
    assert vocab.get("enables").polarity == 1
    assert vocab.get("amplifies").polarity == 1
    assert vocab.get("prevents").polarity == -1
    assert vocab.get("blocks").polarity == -1
    assert vocab.get("masks").polarity == -1
    assert vocab.get("derives_from").polarity == 0


def test_synonyms_and_merges_resolve(vocab):
    assert vocab.resolve("trusts").term == "trusts_as_authoritative"
    assert vocab.resolve("no_such_term") is None
    merged = vocab.merge("alerts", "observes")
    assert merged.resolve("alerts").term == "observes"
    assert merged.resolve("notifies").term == "observes"
    assert merged.get("alerts").merged_into == "observes"


def test_suggest_nearest(vocab):
    assert vocab.suggest("trusts_authoritative") == "trusts_as_authoritative"
    assert vocab.suggest("derive_from") == "derives_from"


def test_save_and_load_round_trip(vocab, tmp_path):
    p = tmp_path / "v.json"
    vocab.save(p)
    assert Vocabulary.load(p) == vocab


@pytest.mark.parametrize(
    "bad, message",
    [
        (VocabTerm("x_rel", "structural", 2, ""), "definition"),
        (VocabTerm("x_rel", "weird", 2, "d"), "kind"),
        (VocabTerm("x_link", "causal", 2, "d", polarity=0), "polarity"),
        (VocabTerm("x_rel", "structural", 9, "d"), "arity"),
    ],
)
def test_bad_terms_are_refused(vocab, bad, message):
    with pytest.raises(VocabularyError, match=message):
        vocab.add(bad)


def test_a_synonym_cannot_point_at_two_terms(vocab):
    with pytest.raises(VocabularyError, match="resolve to one term"):
        vocab.add(VocabTerm("x_rel", "structural", 2, "d", synonyms=("trusts",)))


def test_merge_refuses_arity_mismatch(vocab):
    with pytest.raises(VocabularyError, match="arity"):
        vocab.merge("stale", "derives_from")


@pytest.mark.parametrize(
    "old, into, message",
    [
        ("prevents", "causes", "polarity"),  # a chain would change meaning
        ("causes", "depends_on", "causal link"),
        ("derives_from", "copied_from", "itself"),  # its own synonym
    ],
)
def test_merge_refuses_what_would_change_stored_chains(vocab, old, into, message):
    with pytest.raises(VocabularyError, match=message):
        vocab.merge(old, into)


def test_a_merged_term_is_not_merged_again(vocab):
    merged = vocab.merge("alerts", "observes")
    with pytest.raises(VocabularyError, match="already merged"):
        merged.merge("alerts", "derives_from")
    assert "notifies" in merged.names() and "alerts" in merged.names()
