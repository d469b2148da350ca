"""The encoder's JSON schema is generated from the vocabulary: relation and link names are
enums (synonyms included), arities are enforced, and chain terms start with a listed name."""

import pytest
from jsonschema import Draft202012Validator

from analogist.encode.prompts import EXAMPLE_SIGNATURE
from analogist.encode.schema import explicit_names, signature_schema
from analogist.models.validate import schema_errors

from .helpers import answer


@pytest.fixture
def schema(vocab):
    return signature_schema(vocab)


def test_is_a_valid_2020_12_schema_that_accepts_good_answers(schema):
    Draft202012Validator.check_schema(schema)
    assert schema_errors(answer(), schema) == []
    assert schema_errors(EXAMPLE_SIGNATURE, schema) == []


def test_synonyms_are_explicit_names(vocab, schema):
    names = explicit_names(vocab)
    assert names["copied_from"] == "derives_from" and names["leads_to"] == "causes"
    assert schema_errors(answer(relations=[["copied_from", "DER", "SRC"]]), schema) == []


@pytest.mark.parametrize(
    "bad,where",
    [
        ({"relations": [["believes", "CON", "DER"]]}, "$.relations[0]"),
        ({"relations": [["derives_from", "DER"]]}, "$.relations[0]"),
        ({"relations": [["derives_from", "der", "SRC"]]}, "$.relations[0]"),
        (
            {"causal_chain": [["diverges_from(DER,SRC)", "because", "false_claim(CON)"]]},
            "$.causal_chain[0][1]",
        ),
        ({"causal_chain": [["gossip(DER)", "causes", "false_claim(CON)"]]}, "$.causal_chain[0][0]"),
        ({"levels": {"L1": "x y z", "L2": "x y z"}}, "$.levels"),
    ],
)
def test_unknown_names_and_wrong_shapes_are_invalid(schema, bad, where):
    errors = schema_errors(answer(**bad), schema)
    assert errors and errors[0].startswith(where)


def test_a_repair_schema_admits_flagged_names_only_with_a_mapping(vocab):
    s = signature_schema(vocab, unknown=["believes"])
    a = answer(
        relations=[["believes", "CON", "DER"]],
        relation_mapping={"believes": "trusts_as_authoritative"},
    )
    assert schema_errors(a, s) == []
    assert schema_errors(answer(relation_mapping={"believes": "nonsense"}), s)
    assert schema_errors(answer(relations=[["gossips", "CON", "DER"]]), s)
