"""The OpenAI-compatible backend against a real HTTP server on 127.0.0.1: the schema is sent as
response_format, retries honour Retry-After and are logged, client errors are not retried, and
the concurrency limit holds."""

import threading

import pytest

from analogist.errors import ModelError
from analogist.models import LoggedLLM, ModelSettings, open_llm
from analogist.models.embedders import OpenAIEmbedder
from analogist.models.openai_compat import OpenAICompatServerLLM
from analogist.models.settings import RetryPolicy
from analogist.store import Store
from analogist.store.calls import CallLog

from .fake_openai import FakeOpenAI, chat_reply

MSG = [{"role": "user", "content": "hi"}]
SCHEMA = {"type": "object", "required": ["a"]}
CHAT = "/v1/chat/completions"


def settings(server, **kw) -> ModelSettings:
    base = {
        "base_url": server.base_url,
        "api_key": "sk-test",
        "timeout_s": 5,
        "retry": RetryPolicy(max_attempts=3, base_delay_s=0.01),
    }
    return ModelSettings(**{**base, **kw})


def test_chat_with_schema_sends_response_format_and_counts_tokens(server):
    server.push(CHAT, 200, chat_reply('{"a": 1}', 12, 5))
    llm = open_llm("openai-compat:qwen2.5", settings=settings(server))
    c = llm.complete(MSG, schema=SCHEMA, temperature=0.3, max_tokens=64, seed=4)
    assert (c.parsed, c.input_tokens, c.output_tokens) == ({"a": 1}, 12, 5)
    ((_, body),) = server.requests
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == SCHEMA
    assert (body["model"], body["temperature"], body["max_tokens"], body["seed"]) == (
        "qwen2.5",
        0.3,
        64,
        4,
    )


@pytest.mark.parametrize(
    "mode,expected",
    [
        ("json_object", {"type": "json_object"}),
        ("none", None),
        ("json_object_schema", {"type": "json_object", "schema": SCHEMA}),
    ],
)
def test_json_mode_for_servers_without_json_schema(server, mode, expected):
    server.push(CHAT, 200, chat_reply('{"a": 1}'))
    open_llm("openai-compat:qwen2.5", settings=settings(server, json_mode=mode)).complete(
        MSG, schema=SCHEMA
    )
    assert server.requests[0][1].get("response_format") == expected


def test_429_is_retried_after_the_servers_retry_after_and_logged(server):
    server.push(CHAT, 429, {"error": {"message": "slow down"}}, {"retry-after": "0"})
    server.push(CHAT, 200, chat_reply("fine"))
    store = Store(":memory:")
    waits = []
    backend = OpenAICompatServerLLM("qwen2.5", settings(server), sleep=waits.append)
    c = LoggedLLM(backend, CallLog(store)).complete(MSG)
    assert (c.text, c.attempts, waits) == ("fine", 2, [0.0])
    rows = CallLog(store).all()
    assert [(r.attempt, bool(r.error)) for r in rows] == [(1, True), (2, False)]
    assert "429" in rows[0].error


def test_server_errors_give_up_after_the_bounded_attempts(server):
    for _ in range(3):
        server.push(CHAT, 503, {"error": {"message": "overloaded"}})
    backend = OpenAICompatServerLLM("qwen2.5", settings(server), sleep=lambda s: None)
    with pytest.raises(ModelError, match="gave up after 3 attempt"):
        backend.complete(MSG)
    assert len(server.requests) == 3


def test_client_errors_are_not_retried_and_say_what_to_check(server):
    server.push(CHAT, 401, {"error": {"message": "bad key"}})
    backend = OpenAICompatServerLLM("qwen2.5", settings(server), sleep=lambda s: None)
    with pytest.raises(ModelError, match="OPENAI_API_KEY"):
        backend.complete(MSG)
    assert len(server.requests) == 1


def test_the_semaphore_bounds_requests_in_flight(server):
    server.delay_s = 0.1
    for _ in range(6):
        server.push(CHAT, 200, chat_reply("x"))
    backend = OpenAICompatServerLLM("qwen2.5", settings(server, max_concurrency=2))
    threads = [threading.Thread(target=backend.complete, args=(MSG,)) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(server.requests) == 6 and server.max_in_flight == 2


def test_ping_lists_the_servers_models(server):
    ok = OpenAICompatServerLLM.ping("qwen2.5", settings(server))
    missing = OpenAICompatServerLLM.ping("llama3", settings(server))
    assert ok.ok and "1 model" in ok.detail
    assert missing.status == "error" and "qwen2.5" in missing.detail


def test_embeddings_are_batched_and_normalised(server):
    emb = OpenAIEmbedder("text-embedding-3-small", settings(server), batch_size=2)
    v = emb.embed(["a", "bbb", "", "cc", "d"])
    assert v.shape == (5, 3) and emb.name == "openai:text-embedding-3-small"
    assert [len(b["input"]) for _, b in server.requests] == [2, 2]
    assert abs(float((v[1] ** 2).sum()) - 1) < 1e-6 and not v[2].any()


class LlamaServerLike(FakeOpenAI):
    """Answers like llama.cpp's Python server: HTTP 500 for a json_schema response_format,
    accepts json_object with or without a schema."""

    def next_reply(self, path, body):
        fmt = body.get("response_format") or {}
        if path == CHAT and fmt.get("type") == "json_schema":
            return (
                500,
                {},
                {
                    "error": {
                        "message": (  # the message llama_cpp.server 0.3.36 sends
                            "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', "
                            "'response_format', 'type'), 'msg': \"Input should be 'text' or 'json_object'\"}"
                        )
                    }
                },
            )
        return super().next_reply(path, body)


def test_auto_json_mode_switches_once_loudly_when_the_server_refuses_json_schema(capsys):
    with LlamaServerLike() as server:
        for _ in range(2):
            server.push(CHAT, 200, chat_reply('{"a": 1}'))
        store = Store(":memory:")
        llm = LoggedLLM(OpenAICompatServerLLM("qwen2.5", settings(server)), CallLog(store))
        first = llm.complete(MSG, schema=SCHEMA)
        llm.complete([{"role": "user", "content": "again"}], schema=SCHEMA)
    sent = [b.get("response_format") for _, b in server.requests]
    assert [f["type"] for f in sent] == ["json_schema", "json_object", "json_object"]
    assert sent[1]["schema"] == SCHEMA and first.attempts == 2
    assert "refused response_format json_schema" in capsys.readouterr().err
    assert CallLog(store).count(errors=True) == 1  # the refused request is logged as an attempt


def test_a_fixed_json_mode_never_switches(server):
    for _ in range(3):
        server.push(CHAT, 500, {"error": {"message": "boom"}})
    llm = OpenAICompatServerLLM(
        "qwen2.5", settings(server, json_mode="json_schema"), sleep=lambda s: None
    )
    with pytest.raises(ModelError, match="gave up after 3"):
        llm.complete(MSG, schema=SCHEMA)
    assert {b["response_format"]["type"] for _, b in server.requests} == {"json_schema"}


def test_a_server_that_refuses_every_format_gets_advice(server):
    for _ in range(3):
        server.push(CHAT, 400, {"error": {"message": "response_format not supported"}})
    with pytest.raises(ModelError, match="ANALOGIST_JSON_MODE=none"):
        OpenAICompatServerLLM("qwen2.5", settings(server)).complete(MSG, schema=SCHEMA)
    assert [b["response_format"]["type"] for _, b in server.requests] == [
        "json_schema",
        "json_object",
        "json_object",
    ]


def test_an_overloaded_servers_500_while_probing_is_retried_not_taken_for_a_refusal(server):
    server.push(CHAT, 500, {"error": {"message": "overloaded"}})
    server.push(CHAT, 200, chat_reply('{"a": 1}'))
    llm = OpenAICompatServerLLM("qwen2.5", settings(server), sleep=lambda s: None)
    assert llm.complete(MSG, schema=SCHEMA).parsed == {"a": 1}
    assert [b["response_format"]["type"] for _, b in server.requests] == ["json_schema"] * 2


def test_a_real_500_after_the_format_is_confirmed_is_retried_not_switched(server):
    server.push(CHAT, 200, chat_reply('{"a": 1}'))
    server.push(CHAT, 500, {"error": {"message": "oops"}})
    server.push(CHAT, 200, chat_reply('{"a": 2}'))
    llm = OpenAICompatServerLLM("qwen2.5", settings(server), sleep=lambda s: None)
    llm.complete(MSG, schema=SCHEMA)
    assert llm.complete(MSG, schema=SCHEMA).parsed == {"a": 2}
    assert {b["response_format"]["type"] for _, b in server.requests} == {"json_schema"}
