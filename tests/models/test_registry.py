"""Choosing a backend: provider:name specs, one registry for built-ins and plugins, clear
configuration errors, and a liveness check that never hangs."""

import time

import pytest

from analogist.errors import ConfigError, ModelError
from analogist.models import ModelSettings, ScriptedLLM, open_llm, ping_backends
from analogist.models.registry import Registry, register_builtins, registry
from analogist.models.settings import CacheMode, split_spec
from analogist.store import Store

MSG = [{"role": "user", "content": "hi"}]


def test_specs_split_on_the_first_colon():
    assert split_spec("replay:openai:gpt-4o-mini") == ("replay", "openai:gpt-4o-mini")
    assert split_spec("scripted:") == ("scripted", "")
    with pytest.raises(ConfigError, match="provider:name"):
        split_spec("gpt-4o-mini")


def test_builtins_are_registered_like_plugins():
    reg = Registry()
    register_builtins(reg)
    assert set(reg.providers()) == {
        "openai",
        "openai-compat",
        "local",
        "llama",
        "scripted",
        "replay",
    }

    class Echo(ScriptedLLM):
        provider = "echo"

    reg.add(Echo)
    assert reg.get("echo") is Echo
    with pytest.raises(ConfigError, match="known providers"):
        reg.get("nope")


def test_settings_come_from_the_environment():
    s = ModelSettings.from_env(
        {
            "ANALOGIST_MODEL": "openai-compat:qwen2.5",
            "OPENAI_BASE_URL": "http://h:1/v1",
            "OPENAI_API_KEY": "sk-secret",
            "ANALOGIST_CACHE": "replay-only",
            "ANALOGIST_MAX_RETRIES": "1",
            "ANALOGIST_EMBEDDER": "minilm",
        }
    )
    assert (s.model, s.base_url, s.cache, s.retry.max_attempts, s.embedder) == (
        "openai-compat:qwen2.5",
        "http://h:1/v1",
        CacheMode.REPLAY_ONLY,
        2,
        "minilm",
    )
    assert "sk-secret" not in repr(s)
    with pytest.raises(ConfigError, match="cache mode"):
        ModelSettings.from_env({"ANALOGIST_CACHE": "sometimes"})
    with pytest.raises(ConfigError, match="not a number"):
        ModelSettings.from_env({"ANALOGIST_TIMEOUT": "soon"})


def test_no_model_chosen_says_what_to_set():
    with pytest.raises(ConfigError, match="ANALOGIST_MODEL"):
        open_llm(settings=ModelSettings())


def test_openai_compat_needs_a_base_url_and_openai_needs_a_key():
    with pytest.raises(ConfigError, match="ANALOGIST_BASE_URL"):
        open_llm("openai-compat:qwen2.5", settings=ModelSettings())
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        open_llm("openai:gpt-4o-mini", settings=ModelSettings())


def test_open_llm_logs_to_the_store_and_replay_reads_it_back():
    store = Store(":memory:")
    settings = ModelSettings(base_url="http://127.0.0.1:9/v1")
    llm = open_llm("scripted:", store=store, settings=settings)
    llm.inner.enqueue("recorded")
    llm.complete(MSG)
    replay = open_llm("replay:scripted:", store=store, settings=settings)
    assert replay.cache is CacheMode.REPLAY_ONLY
    assert replay.complete(MSG).text == "recorded"
    with pytest.raises(ModelError):
        replay.complete([{"role": "user", "content": "never asked"}])


def test_replay_uses_the_identity_of_the_named_backend():
    settings = ModelSettings(base_url="http://127.0.0.1:9/v1")
    replay = open_llm("replay:openai-compat:qwen2.5", store=Store(":memory:"), settings=settings)
    assert (replay.provider, replay.model, replay.base_url) == (
        "openai-compat",
        "qwen2.5",
        "http://127.0.0.1:9/v1",
    )


def test_scripted_file_queues_responses(tmp_path):
    f = tmp_path / "answers.json"
    f.write_text('[{"a": 1}, "plain"]')
    llm = open_llm(f"scripted:{f}", settings=ModelSettings())
    assert llm.complete(MSG).text == '{"a": 1}' and llm.complete(MSG).text == "plain"
    with pytest.raises(ModelError, match="queue is empty"):
        llm.complete(MSG)


def test_ping_of_an_unreachable_server_says_offline_quickly():
    settings = ModelSettings(base_url="http://127.0.0.1:9/v1", ping_timeout_s=1.0)
    t0 = time.perf_counter()
    pings = {p.provider: p for p in ping_backends(settings, "openai-compat:qwen2.5")}
    # every backend is checked (the local file stamp, the embedders), which takes seconds on a
    # busy 2-core machine; the bound only has to tell a 1 s ping from a 60 s request timeout
    assert time.perf_counter() - t0 < 30
    assert pings["openai-compat"].status == "offline"
    assert "127.0.0.1:9" in pings["openai-compat"].detail
    assert pings["scripted"].ok and pings["llama"].status == "not configured"


def test_registry_is_a_singleton_with_the_builtins():
    assert registry() is registry() and "llama" in registry().providers()
