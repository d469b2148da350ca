"""Choosing an embedder by name; the hashing embedder stays the deterministic default."""

import pytest

from analogist.errors import ConfigError
from analogist.models import HashingEmbedder, ModelSettings, get_embedder, ping_embedders


def test_hashing_is_the_default_and_takes_a_size():
    assert isinstance(get_embedder(settings=ModelSettings()), HashingEmbedder)
    assert get_embedder("hashing:64").dim == 64


def test_environment_chooses_the_embedder():
    s = ModelSettings.from_env({"ANALOGIST_EMBEDDER": "hashing:32"})
    assert get_embedder(settings=s).dim == 32


@pytest.mark.parametrize(
    "spec,match",
    [("word2vec", "unknown"), ("openai:", "give the model"), ("hashing:big", "hashing:DIM")],
)
def test_bad_names_say_what_is_allowed(spec, match):
    with pytest.raises(ConfigError, match=match):
        get_embedder(spec, ModelSettings())


def test_openai_embedder_needs_a_key_or_server():
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        get_embedder("openai:text-embedding-3-small", ModelSettings())


def test_ping_embedders_reports_each_backend():
    pings = {p.provider: p for p in ping_embedders(ModelSettings())}
    assert pings["embedder:hashing"].ok and pings["embedder:minilm"].ok
    assert pings["embedder:openai"].status == "not configured"
