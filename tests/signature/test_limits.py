"""Input limits (issue 14 item 4): each is checked when input is parsed, and the error names it."""

from __future__ import annotations

import json

import pytest

from analogist.episode import parse_episode
from analogist.errors import AnalogistError, EpisodeError, SignatureError, TermSyntaxError
from analogist.signature import limits as L
from analogist.signature import parse_signature, parse_term


def roles(n: int) -> dict:
    return {f"R{i}": f"role {i}" for i in range(n)}


@pytest.mark.parametrize(
    "mutate, limit",
    [
        (lambda s: s.update(roles=roles(L.MAX_ROLES + 1)), "MAX_ROLES"),
        (
            lambda s: s.update(relations=[["derives_from", "DER", "SRC"]] * (L.MAX_RELATIONS + 1)),
            "MAX_RELATIONS",
        ),
        (
            lambda s: s.update(causal_chain=[s["causal_chain"][0]] * (L.MAX_CAUSAL_LINKS + 1)),
            "MAX_CAUSAL_LINKS",
        ),
        (lambda s: s.update(episode_id="e" * (L.MAX_ID_CHARS + 1)), "MAX_ID_CHARS"),
        (lambda s: s["roles"].update({"R" * (L.MAX_NAME_CHARS + 1): "x"}), "MAX_NAME_CHARS"),
        (lambda s: s["relations"].append(["p" * 100_000, "DER", "SRC"]), "MAX_NAME_CHARS"),
        (lambda s: s["levels"].update(L2="x" * (L.MAX_TEXT_CHARS + 1)), "MAX_TEXT_CHARS"),
        (lambda s: s.update(symptom="x" * (L.MAX_TEXT_CHARS + 1)), "MAX_TEXT_CHARS"),
        (
            lambda s: s.update(surface={"domain": "d", "entities": ["e"] * (L.MAX_ENTITIES + 1)}),
            "MAX_ENTITIES",
        ),
        (
            lambda s: s["causal_chain"][0].__setitem__(0, "false_claim(" + "CON," * 300 + "CON)"),
            "MAX_TERM_CHARS",
        ),
        (
            lambda s: s["causal_chain"][0].__setitem__(
                0, "false_claim(" * (L.MAX_TERM_DEPTH + 1) + "CON" + ")" * (L.MAX_TERM_DEPTH + 1)
            ),
            "MAX_TERM_DEPTH",
        ),
        (
            lambda s: s.update(surface={"domain": "d", "deep": json.loads("[" * 30 + "]" * 30)}),
            "MAX_JSON_DEPTH",
        ),
    ],
)
def test_each_signature_limit_is_named(spec_example, vocab, mutate, limit):
    mutate(spec_example)
    with pytest.raises(SignatureError) as e:
        parse_signature(spec_example, vocab)
    assert limit in str(e.value)
    assert len(str(e.value)) < 400  # one readable line, not the offending input echoed back


def test_limits_admit_signatures_at_the_limit(spec_example, vocab):
    spec_example["relations"] = [["derives_from", "DER", "SRC"]] * L.MAX_RELATIONS
    spec_example["levels"]["L2"] = "x" * L.MAX_TEXT_CHARS
    assert len(parse_signature(spec_example, vocab).relations) == L.MAX_RELATIONS


@pytest.mark.parametrize(
    "record, limit",
    [
        ({"id": "e" * (L.MAX_ID_CHARS + 1), "kind": "observation", "text": "t"}, "MAX_ID_CHARS"),
        (
            {"id": "e", "kind": "observation", "text": "t" * (L.MAX_TEXT_CHARS + 1)},
            "MAX_TEXT_CHARS",
        ),
        (
            {
                "id": "e",
                "kind": "observation",
                "text": "t",
                "outcome": "o" * (L.MAX_TEXT_CHARS + 1),
            },
            "MAX_TEXT_CHARS",
        ),
    ],
)
def test_episode_limits_are_named(vocab, record, limit):
    with pytest.raises(EpisodeError, match=limit):
        parse_episode(record, vocab)


@pytest.mark.parametrize(
    "text, limit",
    [
        ("[" * 100_000 + "]" * 100_000, "MAX_JSON_DEPTH"),
        ("[" * (L.MAX_JSON_DEPTH + 1) + "]" * (L.MAX_JSON_DEPTH + 1), "MAX_JSON_DEPTH"),
        ('{"n": ' + "9" * 5000 + "}", "MAX_NUMBER_CHARS"),
        ('{"n": 1.' + "5" * 100 + "}", "MAX_NUMBER_CHARS"),
        ('"' + "x" * (L.MAX_LINE_CHARS + 1) + '"', "MAX_LINE_CHARS"),
    ],
)
def test_json_limits_are_named(text, limit):
    with pytest.raises(EpisodeError, match=limit):
        L.load_json(text)


@pytest.mark.parametrize("text", ["NaN", '{"a": Infinity}', "{", "[1,]", "\x00"])
def test_json_that_is_not_standard_is_an_episode_error(text):
    with pytest.raises(EpisodeError):
        L.load_json(text)


def test_term_depth_limit_in_the_term_parser():
    deep = "f(" * 10_000 + "X" + ")" * 10_000
    with pytest.raises(TermSyntaxError, match="MAX_TERM_DEPTH"):
        parse_term(deep)
    ok = "f(" * L.MAX_TERM_DEPTH + "X" + ")" * L.MAX_TERM_DEPTH
    assert parse_term(ok).functor == "f"


def test_limits_are_documented():
    from tests.conftest import REPO

    doc = (REPO / "docs" / "limits.md").read_text(encoding="utf-8")
    names = [n for n in dir(L) if n.startswith("MAX_")]
    assert len(names) >= 12
    for n in names:
        assert f"`{n}`" in doc and f"{getattr(L, n):,}" in doc, n
    assert issubclass(EpisodeError, AnalogistError)
