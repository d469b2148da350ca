"""The request/completion types: the cache key covers the whole request, JSON parsing is lenient
about fences but never guesses."""

from dataclasses import replace

import pytest

from analogist.errors import ModelError
from analogist.models.llm import Request, normalise_messages, parse_json_text

BASE = Request(
    provider="openai-compat",
    model="qwen2.5",
    base_url="http://localhost:8000/v1",
    messages=(("system", "s"), ("user", "u")),
    schema={"type": "object"},
    temperature=0.0,
    max_tokens=100,
    seed=1,
    prompt_version="encode-v1",
    replicate=0,
    params={"top_p": 0.9},
)


@pytest.mark.parametrize(
    "change",
    [
        {"provider": "openai"},
        {"model": "qwen3"},
        {"base_url": "http://other/v1"},
        {"messages": (("system", "s"), ("user", "u!"))},
        {"schema": {"type": "array"}},
        {"schema": None},
        {"temperature": 0.7},
        {"max_tokens": 101},
        {"seed": 2},
        {"seed": None},
        {"prompt_version": "encode-v2"},
        {"replicate": 1},
        {"params": {"top_p": 0.8}},
    ],
)
def test_every_part_of_the_request_changes_the_cache_key(change):
    assert replace(BASE, **change).cache_key != BASE.cache_key


def test_cache_key_is_stable_and_round_trips_through_json():
    again = Request.from_json(BASE.to_json())
    assert again.cache_key == BASE.cache_key
    assert len(BASE.cache_key) == 64
    assert replace(BASE, temperature=0).cache_key == BASE.cache_key  # 0 and 0.0 are one value


def test_request_json_never_holds_an_api_key():
    assert "key" not in " ".join(BASE.to_json())


@pytest.mark.parametrize(
    "text,value",
    [
        ('{"a": 1}', {"a": 1}),
        ('```json\n{"a": 1}\n```', {"a": 1}),
        ('Here you go: {"a": [1, 2]} hope it helps', {"a": [1, 2]}),
        ("[1, 2]", [1, 2]),
    ],
)
def test_parse_json_text_accepts_fences_and_surrounding_prose(text, value):
    assert parse_json_text(text) == value


@pytest.mark.parametrize("text", ["no json here", '{"a": 1', ""])
def test_parse_json_text_refuses_what_is_not_json(text):
    with pytest.raises(ValueError):
        parse_json_text(text)


def test_messages_need_known_roles_and_text():
    with pytest.raises(ModelError, match="role"):
        normalise_messages([{"role": "robot", "content": "x"}])
    with pytest.raises(ModelError, match="no messages"):
        normalise_messages([])
