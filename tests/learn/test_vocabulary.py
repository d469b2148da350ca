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
    counts = {"gates": 10, "blocks": 3}
    assert proposals_from_use({"blocks|gates": 1}, {}, counts, V) == []
    (p,) = proposals_from_use({"blocks|gates": 2}, {}, counts, V)
    assert (p.old, p.into) == ("blocks", "gates")  # the less used merges into the more used
    assert p.evidence["verified_swaps"] == 2
    assert proposals_from_use({"blocks|gates": 5}, {"blocks|gates": 1}, counts, V) == []


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
