"""Terms in causal chains and fix operators are parsed, never kept as opaque strings."""

import pytest

from analogist.errors import TermSyntaxError
from analogist.signature import Term, parse_fix_operator, parse_term


def test_parses_binary_term_and_keeps_spelling():
    t = parse_term("diverges_from(DER,SRC)")
    assert t == Term("diverges_from", ("DER", "SRC"))
    assert str(t) == "diverges_from(DER,SRC)"


def test_spaces_are_kept_in_spelling_but_not_in_equality():
    t = parse_term("diverges_from( DER , SRC )")
    assert t == Term("diverges_from", ("DER", "SRC"))
    assert str(t) == "diverges_from( DER , SRC )"
    assert t.canonical() == "diverges_from(DER,SRC)"


def test_nested_terms():
    t = parse_term("causes(stale(DER),false_claim(CON))")
    assert t.args == (Term("stale", ("DER",)), Term("false_claim", ("CON",)))
    assert t.roles() == ("DER", "CON")


def test_fix_operator_splits_term_and_qualifier():
    f = parse_fix_operator("reconcile(CON, DER, SRC) before assert")
    assert f.term == Term("reconcile", ("CON", "DER", "SRC"))
    assert f.qualifier == "before assert"
    assert f.operator == "reconcile"
    assert str(f) == "reconcile(CON, DER, SRC) before assert"


@pytest.mark.parametrize(
    "text",
    ["diverges_from", "diverges_from(DER,SRC", "f(A,,B)", "f(A) trailing", "(A)", "f(A B)", ""],
)
def test_malformed_terms_are_rejected_with_the_text(text):
    with pytest.raises(TermSyntaxError) as e:
        parse_term(text)
    assert repr(text) in str(e.value)
    assert "name(ARG, ARG)" in str(e.value)


def test_rename_substitutes_roles():
    t = parse_term("derives_from(DER,SRC)").rename({"DER": "cache", "SRC": "sensor"})
    assert t == Term("derives_from", ("cache", "sensor"))
