"""Fault injection against a real HTTP server on 127.0.0.1 (issue 14): timeouts, garbage,
truncated JSON, 429 with Retry-After and a connection reset mid-body. Each is retried a bounded
number of times, every attempt the server saw is in the call log, a failed call stores no answer,
and rerunning the same calls ("resume") asks the server only for what is missing."""

import json

import pytest

from analogist.errors import ModelError
from analogist.models import LoggedLLM, ModelSettings
from analogist.models.openai_compat import OpenAICompatServerLLM
from analogist.models.settings import RetryPolicy
from analogist.store import Store
from analogist.store.calls import CallLog

from .fake_openai import Fault, chat_reply

CHAT = "/v1/chat/completions"
SCHEMA = {
    "type": "object",
    "required": ["cause"],
    "additionalProperties": False,
    "properties": {"cause": {"enum": ["cache", "dns", "lock"]}},
}


def msg(i: int) -> list[dict]:
    return [{"role": "user", "content": f"incident {i}: what caused it?"}]


def backend(server, **kw) -> OpenAICompatServerLLM:
    base = {
        "base_url": server.base_url,
        "api_key": "sk-test",
        "timeout_s": 5,
        "retry": RetryPolicy(max_attempts=3, base_delay_s=0.0),
    }
    return OpenAICompatServerLLM("qwen2.5", ModelSettings(**{**base, **kw}), sleep=lambda s: None)


def logged(server, store, **kw) -> LoggedLLM:
    return LoggedLLM(backend(server, **kw), CallLog(store))


def ok(cause: str = "dns") -> dict:
    return chat_reply(json.dumps({"cause": cause}))


def test_a_connection_reset_mid_body_is_retried_and_logged(server):
    server.push(CHAT, 200, Fault("reset", ok()))
    server.push(CHAT, 200, ok())
    store = Store(":memory:")
    c = logged(server, store).complete(msg(0), schema=SCHEMA)
    assert (c.parsed, c.attempts) == ({"cause": "dns"}, 2)
    rows = CallLog(store).all()
    assert [(r.attempt, r.error is not None) for r in rows] == [(1, True), (2, False)]
    assert "Connection" in rows[0].error or "Read" in rows[0].error


def test_a_body_cut_short_is_retried(server):
    server.push(CHAT, 200, Fault("truncate", ok()))
    server.push(CHAT, 200, ok("lock"))
    c = backend(server).complete(msg(0), schema=SCHEMA)
    assert c.parsed == {"cause": "lock"} and c.attempts == 2 and len(server.requests) == 2


def test_garbage_instead_of_json_is_retried_boundedly_then_fails_with_every_attempt_logged(server):
    for _ in range(3):
        server.push(CHAT, 200, b"<html>502 Bad Gateway</html>")
    store = Store(":memory:")
    with pytest.raises(ModelError, match="gave up after 3 attempt"):
        logged(server, store).complete(msg(0), schema=SCHEMA)
    log = CallLog(store)
    assert len(server.requests) == 3 == log.count(errors=True) and log.count(errors=False) == 0


def test_truncated_json_content_gets_one_repair_re_ask_that_quotes_the_problem(server):
    cut = chat_reply('{"cause": "dn')
    cut["choices"][0]["finish_reason"] = "length"
    server.push(CHAT, 200, cut)
    server.push(CHAT, 200, ok())
    c = logged(server, Store(":memory:")).complete(msg(0), schema=SCHEMA)
    assert c.parsed == {"cause": "dns"} and c.repaired
    repair = server.requests[1][1]["messages"][-1]["content"]
    assert "not valid JSON" in repair


def test_429_waits_what_retry_after_asks(server):
    server.push(CHAT, 429, {"error": {"message": "busy"}}, {"retry-after": "7"})
    server.push(CHAT, 200, ok())
    waits: list[float] = []
    b = OpenAICompatServerLLM(
        "qwen2.5",
        ModelSettings(base_url=server.base_url, api_key="k", retry=RetryPolicy(max_attempts=3)),
        sleep=waits.append,
    )
    assert b.complete(msg(0), schema=SCHEMA).attempts == 2 and waits == [7.0]


def test_a_timeout_halves_concurrency_doubles_the_timeout_and_says_so(server, capsys):
    server.push(CHAT, 200, Fault("delay", ok(), delay_s=0.6))
    server.push(CHAT, 200, ok())
    b = backend(server, timeout_s=0.25, max_concurrency=4)
    c = b.complete(msg(0), schema=SCHEMA)
    assert c.parsed == {"cause": "dns"} and c.attempts == 2
    assert (b.max_parallel, b.timeout_s) == (2, 0.5)
    assert "now 2 in flight and a 0.5 s timeout" in capsys.readouterr().err


def test_a_server_slower_than_the_largest_timeout_fails_with_advice(server):
    for _ in range(3):
        server.push(CHAT, 200, Fault("delay", ok(), delay_s=0.5))
    b = backend(server, timeout_s=0.1, max_timeout_s=0.2, max_concurrency=2)
    with pytest.raises(ModelError, match="ANALOGIST_MAX_TIMEOUT"):
        b.complete(msg(0))
    assert (b.max_parallel, b.timeout_s) == (1, 0.2)


def test_a_failed_call_stores_no_answer_and_a_rerun_resumes_with_only_the_missing_call(server):
    store = Store(":memory:")
    server.push(CHAT, 200, ok("cache"))
    for _ in range(3):
        server.push(CHAT, 503, {"error": {"message": "overloaded"}})
    server.push(CHAT, 200, ok("lock"))
    llm = logged(server, store)
    answers = {}
    for i in range(3):
        try:
            answers[i] = llm.complete(msg(i), schema=SCHEMA).parsed["cause"]
        except ModelError:
            answers[i] = None
    assert answers == {0: "cache", 1: None, 2: "lock"}
    log = CallLog(store)
    assert (log.count(errors=False), log.count(errors=True)) == (2, 3)
    seen = len(server.requests)
    server.push(CHAT, 200, ok("dns"))  # the server recovered: resume the same three calls
    again = {i: logged(server, store).complete(msg(i), schema=SCHEMA) for i in range(3)}
    assert len(server.requests) == seen + 1  # only call 1 reached the server
    assert [again[i].cached for i in range(3)] == [True, False, True]
    assert again[1].parsed == {"cause": "dns"}
    keys = [r.cache_key for r in log.all() if r.error is None]
    assert len(keys) == len(set(keys)) == 3


def test_an_answer_cut_at_max_tokens_is_re_asked_with_more_tokens(server):
    cut = chat_reply('{"cause": "dn')
    cut["choices"][0]["finish_reason"] = "length"
    server.push(CHAT, 200, cut)
    server.push(CHAT, 200, ok())
    c = logged(server, Store(":memory:")).complete(msg(0), schema=SCHEMA, max_tokens=40)
    assert c.repaired and c.parsed == {"cause": "dns"}
    first, second = (b for _, b in server.requests)
    assert (first["max_tokens"], second["max_tokens"]) == (40, 80)
    assert "cut off at 40 tokens" in second["messages"][-1]["content"]
