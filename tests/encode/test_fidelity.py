"""Encoder fidelity metrics, checked by hand: role names do not matter, relations do."""

import pytest

from analogist.encode import best_alignment, score_signature, summarise
from analogist.encode.fidelity import chance_floor, rejected
from analogist.signature import parse_signature


def sig(vocab, roles, relations, eid="e"):
    return parse_signature(
        {
            "episode_id": eid,
            "kind": "failure",
            "roles": roles,
            "relations": relations,
            "levels": {"L0": "x"},
        },
        vocab,
    )


@pytest.fixture
def gold(vocab):
    return sig(
        vocab,
        {"SRC": "s", "DER": "d", "CON": "c"},
        [
            ["derives_from", "DER", "SRC"],
            ["trusts_as_authoritative", "CON", "DER"],
            ["skips_check", "CON", "SRC"],
            ["diverges_from", "DER", "SRC"],
        ],
    )


def test_renamed_roles_still_score_perfectly(vocab, gold):
    written = sig(
        vocab,
        {"A": "a", "B": "b", "C": "c"},
        [
            ["derives_from", "B", "A"],
            ["trusts_as_authoritative", "C", "B"],
            ["skips_check", "C", "A"],
            ["diverges_from", "B", "A"],
        ],
    )
    s = score_signature(written, gold, vocab)
    assert (s.precision, s.recall, s.f1, s.role_accuracy) == (1, 1, 1, 1)
    assert dict(s.alignment) == {"A": "SRC", "B": "DER", "C": "CON"}


def test_partial_match_by_hand(vocab, gold):
    # 3 written, 2 right (derives_from, diverges_from under A->SRC, B->DER); gold has 4.
    written = sig(
        vocab,
        {"A": "a", "B": "b"},
        [["derives_from", "B", "A"], ["diverges_from", "B", "A"], ["observes", "A", "B"]],
    )
    s = score_signature(written, gold, vocab)
    assert (s.matched, s.written, s.gold) == (2, 3, 4)
    assert s.precision == pytest.approx(2 / 3) and s.recall == pytest.approx(0.5)
    assert s.f1 == pytest.approx(2 * (2 / 3) * 0.5 / (2 / 3 + 0.5))
    assert s.role_accuracy == pytest.approx(2 / 3)  # SRC, DER backed; CON unmatched


def test_ties_prefer_keeping_role_names(vocab):
    g = sig(vocab, {"X": "x", "Y": "y"}, [["shares_resource", "X", "Y"]])
    w = sig(vocab, {"X": "x", "Y": "y"}, [["shares_resource", "Y", "X"]])
    mapping, hits = best_alignment(w, g, vocab)
    assert mapping == {"X": "X", "Y": "Y"} and sum(hits.values()) == 1  # commutative


def test_more_written_roles_than_gold(vocab, gold):
    written = sig(
        vocab,
        {"P": "p", "Q": "q", "R": "r", "S": "s"},
        [["derives_from", "Q", "P"], ["observes", "S", "R"]],
    )
    s = score_signature(written, gold, vocab)
    assert s.matched == 1 and len(s.alignment) == 3


def test_summary_micro_and_macro_by_hand(vocab, gold):
    perfect = score_signature(gold, gold, vocab)
    failed = rejected("e2", gold, "model answer unusable")
    rep = summarise([perfect, failed], "scripted:x")
    s = rep.summary
    assert (s["n"], s["rejected"]) == (2, 1)
    assert s["micro_precision"] == 1.0 and s["micro_recall"] == 0.5  # 4 of 8 gold relations
    assert s["macro_f1"] == 0.5 and s["role_accuracy"] == 0.5
    assert rep.to_json()["episodes"][1]["rejected"] == "model answer unusable"


def test_empty_input_gives_zeros():
    s = summarise([]).summary
    assert s["n"] == 0 and s["micro_f1"] == 0.0 and s["macro_f1"] == 0.0


def test_the_chance_floor_scores_each_writer_against_other_mechanisms_gold(vocab):
    g1 = sig(vocab, {"a": "a", "b": "b"}, [["derives_from", "a", "b"]], "g1")
    g2 = sig(vocab, {"c": "c", "d": "d"}, [["observes", "c", "d"], ["derives_from", "d", "c"]])
    g3 = sig(vocab, {"e": "e", "f": "f"}, [["derives_from", "f", "e"]], "g3")  # g1's predicates
    w1 = sig(vocab, {"X": "x", "Y": "y"}, [["derives_from", "X", "Y"]])
    w2 = sig(vocab, {"P": "p", "Q": "q"}, [["observes", "P", "Q"], ["derives_from", "Q", "P"]])
    floor = chance_floor([(w1, g1), (w2, g2), (w1, g3), (None, g2)], vocab)
    # each of the 3 written ones meets the 2 golds with other predicates (g2 twice for w1,
    # g1 and g3 for w2), never a gold with its own gold's predicates; the rejected 4th is left out.
    # w1 vs g2: 1 matched / 1 written / 2 gold (x4); w2 vs g1 or g3: 1 / 2 / 1 (x2)
    assert floor["pairs"] == 6
    p, r = 6 / 8, 6 / 10
    assert floor["micro_f1"] == pytest.approx(2 * p * r / (p + r))
    assert floor["role_accuracy"] == 1.0
    assert chance_floor([(w1, g1), (w2, g2)], vocab, others=0)["pairs"] == 0
