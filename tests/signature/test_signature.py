"""Signature validation: the spec example round-trips; each bad input names episode, field, fix."""

import json

import pytest

from analogist.errors import SignatureError
from analogist.signature import Term, parse_signature


def test_spec_example_round_trips_losslessly(spec_example, vocab):
    sig = parse_signature(spec_example, vocab)
    assert sig.to_json() == spec_example
    assert json.dumps(sig.to_json()) == json.dumps(spec_example)


def test_terms_are_parsed(spec_example, vocab):
    sig = parse_signature(spec_example, vocab)
    first = sig.causal_chain[0]
    assert first.cause == Term("diverges_from", ("DER", "SRC"))
    assert first.link == "causes"
    assert first.effect == Term("false_claim", ("CON",))
    assert sig.fix_operator.term == Term("reconcile", ("CON", "DER", "SRC"))
    assert sig.fix_operator.qualifier == "before assert"


def test_role_types_and_writer_fields_round_trip(spec_example, vocab):
    spec_example["roles"]["SRC"] = {"description": "authoritative source", "type": "store"}
    spec_example["writer_model"] = "openai:gpt-4o-mini"
    spec_example["written_at"] = "2026-09-14T02:13:00Z"
    sig = parse_signature(spec_example, vocab)
    assert sig.roles[0].type == "store"
    assert sig.to_json() == spec_example


def test_synonyms_in_relations_are_rewritten_explicitly(spec_example, vocab):
    spec_example["relations"][1][0] = "trusts"
    sig = parse_signature(spec_example, vocab)
    assert sig.relations[1].predicate == "trusts_as_authoritative"


def _error(raw, vocab):
    with pytest.raises(SignatureError) as e:
        parse_signature(raw, vocab)
    return e.value


def test_undeclared_role(spec_example, vocab):
    spec_example["relations"].append(["observes", "MON", "SRC"])
    e = _error(spec_example, vocab)
    assert (e.episode_id, e.field) == ("ep_2026_09_14_0213", "relations[4]")
    assert "role 'MON' is not declared" in str(e)


def test_undeclared_role_in_causal_term(spec_example, vocab):
    spec_example["causal_chain"][0][2] = "false_claim(XYZ)"
    e = _error(spec_example, vocab)
    assert e.field == "causal_chain[0].effect"
    assert "'XYZ'" in str(e)


def test_wrong_arity(spec_example, vocab):
    spec_example["relations"][0] = ["derives_from", "DER"]
    e = _error(spec_example, vocab)
    assert e.field == "relations[0]"
    assert "takes 2 argument(s), got 1" in str(e)


def test_relation_not_in_vocabulary_suggests_nearest(spec_example, vocab):
    spec_example["relations"][1][0] = "trusts_authoritative"
    e = _error(spec_example, vocab)
    assert "'trusts_authoritative' is not in the vocabulary" in str(e)
    assert "did you mean 'trusts_as_authoritative'" in str(e)


def test_malformed_term(spec_example, vocab):
    spec_example["causal_chain"][1][0] = "skips_check(CON,SRC"
    e = _error(spec_example, vocab)
    assert e.field == "causal_chain[1].cause"
    assert "malformed term" in str(e)


def test_malformed_fix_operator(spec_example, vocab):
    spec_example["fix_operator"] = "reconcile CON before assert"
    e = _error(spec_example, vocab)
    assert e.field == "fix_operator"


def test_non_causal_link(spec_example, vocab):
    spec_example["causal_chain"][0][1] = "derives_from"
    e = _error(spec_example, vocab)
    assert e.field == "causal_chain[0].link"
    assert "not a causal link" in str(e)


@pytest.mark.parametrize("field", ["episode_id", "kind", "roles", "relations", "levels"])
def test_missing_required_field(spec_example, vocab, field):
    del spec_example[field]
    e = _error(spec_example, vocab)
    assert e.field == field
    assert "required field is missing" in str(e)


def test_unknown_field_and_bad_kind(spec_example, vocab):
    spec_example["colour"] = "red"
    assert _error(spec_example, vocab).field == "colour"
    del spec_example["colour"]
    spec_example["kind"] = "disaster"
    assert "not one of failure" in str(_error(spec_example, vocab))


def test_levels_need_l0(spec_example, vocab):
    del spec_example["levels"]["L0"]
    assert _error(spec_example, vocab).field == "levels"


def test_synonyms_and_merged_terms_read_as_the_live_term_in_chains(spec_example, vocab):
    """A stored signature keeps reading after consolidation merges a term it uses: every name
    resolves through ``merged_into`` (docs/consolidation.md); spelling kept when nothing moves."""
    assert parse_signature(spec_example, vocab).to_json() == spec_example
    merged = vocab.merge("skips_check", "derives_from")
    sig = parse_signature(spec_example, merged)
    assert sig.relations[2].to_json() == ["derives_from", "CON", "SRC"]
    assert sig.causal_chain[1].to_json() == ["derives_from(CON,SRC)", "enables", "false_claim(CON)"]
    assert sig.causal_chain[0].to_json() == spec_example["causal_chain"][0]  # untouched
    spec_example["causal_chain"][1] = ["does_not_verify(CON, SRC)", "leads_to", "false_claim(CON)"]
    link = parse_signature(spec_example, vocab).causal_chain[1]
    assert link.to_json() == ["skips_check(CON,SRC)", "causes", "false_claim(CON)"]
