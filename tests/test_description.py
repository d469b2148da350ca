"""Description: the predicate-calculus input of the mapper (parsing, validation, JSON)."""

from __future__ import annotations

import json

import pytest

from analogist.errors import DescriptionError
from analogist.signature.description import (
    Description,
    Entity,
    Expr,
    PredicateInfo,
    Skolem,
    load_description,
    load_predicates,
    parse_predicates,
)

PREDS = {
    "mass": PredicateInfo("mass", "function", 1),
    "greater": PredicateInfo("greater", "relation", 2),
    "attracts": PredicateInfo("attracts", "relation", 2),
    "cause": PredicateInfo("cause", "relation", 2),
    "and": PredicateInfo("and", "logical", None, n_ary=True, commutative=True),
}
SOLAR = {
    "name": "mini-solar",
    "entities": [{"name": "sun", "type": "inanimate"}, "planet"],
    "facts": [
        ["greater", ["mass", "sun"], ["mass", "planet"]],
        [
            "cause",
            [
                "and",
                ["greater", ["mass", "sun"], ["mass", "planet"]],
                ["attracts", "sun", "planet"],
            ],
            ["attracts", "sun", "planet"],
        ],
    ],
}


def test_sub_expressions_are_items_and_roots_are_unembedded_facts():
    d = Description.from_json(SOLAR, PREDS)
    assert [str(e) for e in d.expressions] == [
        "(mass sun)",
        "(mass planet)",
        "(greater (mass sun) (mass planet))",
        "(attracts sun planet)",
        "(and (greater (mass sun) (mass planet)) (attracts sun planet))",
        (
            "(cause (and (greater (mass sun) (mass planet)) (attracts sun planet)) "
            "(attracts sun planet))"
        ),
    ]
    assert [str(r) for r in d.roots] == [str(d.expressions[-1])]
    assert d.entities == (Entity("sun", "inanimate"), Entity("planet"))


def test_json_round_trip_is_self_contained():
    d = Description.from_json(SOLAR, PREDS)
    out = d.to_json()
    assert set(out["predicates"]) == {"mass", "greater", "attracts", "cause", "and"}
    again = Description.from_json(json.loads(json.dumps(out)))
    assert again == d and hash(again) == hash(d)


def test_embedded_predicates_override_the_given_table():
    obj = dict(
        SOLAR,
        predicates={
            "attracts": {"kind": "relation", "arity": 2, "n_ary": False, "commutative": True}
        },
    )
    d = Description.from_json(obj, PREDS)
    assert d.predicates["attracts"].commutative


@pytest.mark.parametrize(
    "fact, message",
    [
        (["orbits", "sun", "planet"], "unknown predicate 'orbits'; add it to the predicates file"),
        (["greater", "sun"], "'greater' takes 2 argument(s), got 1"),
        (["attracts", "sun", "moon"], "entity 'moon' is not declared"),
        (["and"], "n-ary 'and' needs arguments"),
        (["attracts", "sun", 3], "neither an entity name nor an expression"),
    ],
)
def test_invalid_facts_are_rejected_with_a_clear_message(fact, message):
    with pytest.raises(DescriptionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Description.from_json(dict(SOLAR, facts=[fact]), PREDS)


def test_skolems_are_not_allowed_in_descriptions():
    fact = Expr("attracts", ("sun", Skolem("x")))
    with pytest.raises(DescriptionError, match="only in inferences"):
        Description("d", (Entity("sun"),), (fact,), PREDS)


def test_missing_facts_and_bad_predicate_typing_are_reported():
    with pytest.raises(DescriptionError, match="no 'facts' list"):
        Description.from_json({"name": "x"}, PREDS)
    with pytest.raises(DescriptionError, match="kind 'verb'"):
        parse_predicates({"likes": {"kind": "verb", "arity": 2}})
    with pytest.raises(DescriptionError, match="needs an arity"):
        PredicateInfo("likes", "relation", None)
    with pytest.raises(DescriptionError, match="missing field"):
        parse_predicates({"likes": {"arity": 2}})


def test_expressions_hash_by_value_and_print_as_lisp():
    a = Expr.from_json(["greater", ["mass", "sun"], ["mass", "planet"]])
    b = Expr("greater", (Expr("mass", ("sun",)), Expr("mass", ("planet",))))
    assert a == b and hash(a) == hash(b) and {a: 1}[b] == 1
    assert str(a) == "(greater (mass sun) (mass planet))"
    assert Expr("p", ("x", Skolem("k"))).to_json() == ["p", "x", ["skolem", "k"]]


def test_reads_the_sme_fixture_files(sme_fixtures):
    preds = load_predicates(sme_fixtures / "predicates.json")
    assert preds["and"].n_ary and preds["and"].commutative and preds["and"].kind == "logical"
    assert "_notes" not in preds
    solar = load_description(sme_fixtures / "solar.json", preds)
    assert len(solar.facts) == 12 and len(solar.roots) == 3


def test_unreadable_files_raise_description_errors(tmp_path):
    with pytest.raises(DescriptionError, match="cannot read"):
        load_predicates(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(DescriptionError, match="not valid JSON"):
        load_description(bad, PREDS)
