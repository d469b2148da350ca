"""Vocabulary consolidation: interchangeable use across verified mappings, definition
similarity, per-relation telemetry."""

from __future__ import annotations

from collections import Counter

from analogist.learn.vocabulary import (
    interchangeable,
    matched_predicates,
    proposals_from_definitions,
    proposals_from_use,
)
from analogist.models.embedding import HashingEmbedder
from analogist.signature import parse_signature
from analogist.signature.vocabulary import VocabTerm, Vocabulary, default_vocabulary
from tests.learn.helpers import sig

V = default_vocabulary()


def test_swapped_predicate_on_corresponding_roles_is_one_observation():
    s = parse_signature(sig("ep_a_1", ("P", "Q", "R")), V)
    raw = sig("ep_b_2", ("U", "V", "W"))
    raw["relations"][1] = ["blocks", "W", "U"]  # gates(R,P) said as blocks(W,U)
    t = parse_signature(raw, V)
    swap, together = interchangeable(s, t, (("P", "U"), ("Q", "V"), ("R", "W")))
    assert swap == Counter({("blocks", "gates"): 1})
    assert not together
    assert matched_predicates(s, t, (("P", "U"), ("Q", "V"), ("R", "W"))) == {
        "depends_on",
        "causes",
    }


def test_proposal_needs_repeated_evidence_and_no_joint_use():
    counts = {"gates": 10, "limits": 3}
    assert proposals_from_use({"gates|limits": 1}, {}, counts, V) == []
    (p,) = proposals_from_use({"gates|limits": 2}, {}, counts, V)
    assert (p.old, p.into) == ("limits", "gates")  # the less used merges into the more used
    assert p.evidence["verified_swaps"] == 2
    assert proposals_from_use({"gates|limits": 5}, {"gates|limits": 1}, counts, V) == []


def test_near_identical_definitions_are_proposed():
    vocab = Vocabulary(
        (
            VocabTerm("feeds", "structural", 2, "X supplies its output to Y"),
            VocabTerm("supplies", "structural", 2, "X supplies its output to Y"),
            VocabTerm("fails", "state", 1, "X stops working"),
        )
    )
    (p,) = proposals_from_definitions(vocab, HashingEmbedder(), {"feeds": 3})
    assert (p.old, p.into) == ("supplies", "feeds") and p.evidence["cosine"] >= 0.99


def test_a_merge_that_would_be_refused_is_not_proposed():
    """A causal link of the opposite polarity (or a link and a relation) may swap in verified
    analogies, but merging them would reverse stored chains: no proposal."""
    counts = {"causes": 9, "prevents": 2, "depends_on": 9}
    assert proposals_from_use({"causes|prevents": 3}, {}, counts, V) == []
    assert proposals_from_use({"causes|depends_on": 3}, {}, counts, V) == []
    vocab = Vocabulary(
        (
            VocabTerm("lifts", "causal", 2, "X raises Y", polarity=1),
            VocabTerm("drops", "causal", 2, "X raises Y", polarity=-1),
        )
    )
    assert proposals_from_definitions(vocab, HashingEmbedder(), {}) == []
