"""The call log and cache: every call is logged, a rerun with the cache makes no calls,
replay-only never calls, and a bad JSON answer gets exactly one repair re-ask."""

import json

import pytest

from analogist.errors import CacheMissError, ConfigError, ModelError
from analogist.models import LoggedLLM, ScriptedLLM
from analogist.models.backend import BaseLLM, Transient, call_with_retries
from analogist.models.settings import RetryPolicy
from analogist.store import Store
from analogist.store.calls import CallLog

MSG = [{"role": "user", "content": "describe"}]
SCHEMA = {"type": "object", "required": ["answer"], "properties": {"answer": {"type": "integer"}}}


@pytest.fixture
def store():
    with Store(":memory:") as s:
        yield s


def test_a_rerun_with_the_cache_makes_no_calls(store):
    model = ScriptedLLM([{"answer": 1}])
    llm = LoggedLLM(model, CallLog(store), cache="read-write")
    first = llm.complete(MSG, schema=SCHEMA, seed=3, prompt_version="p1")
    again = LoggedLLM(model, CallLog(store), cache="read-write").complete(
        MSG, schema=SCHEMA, seed=3, prompt_version="p1"
    )
    assert model.calls == 1
    assert first.parsed == again.parsed == {"answer": 1}
    assert again.cached and not first.cached
    assert again.cache_key == first.cache_key


def test_a_different_replicate_is_a_different_call(store):
    model = ScriptedLLM(["a", "b"])
    llm = LoggedLLM(model, CallLog(store))
    assert llm.complete(MSG, replicate=0).text == "a"
    assert llm.complete(MSG, replicate=1).text == "b"
    assert llm.complete(MSG, replicate=0).text == "a"
    assert model.calls == 2


def test_cache_off_always_calls_but_still_logs(store):
    model = ScriptedLLM(["a", "b"])
    llm = LoggedLLM(model, CallLog(store), cache="off")
    assert [llm.complete(MSG).text for _ in range(2)] == ["a", "b"]
    assert CallLog(store).count() == 2


def test_every_call_is_logged_with_request_tokens_and_output(store):
    llm = LoggedLLM(ScriptedLLM([{"answer": 7}]), CallLog(store))
    c = llm.complete(
        MSG, schema=SCHEMA, temperature=0.2, max_tokens=50, seed=9, prompt_version="p1", replicate=2
    )
    (rec,) = CallLog(store).all()
    assert rec.cache_key == c.cache_key
    assert (rec.provider, rec.model, rec.prompt_version, rec.replicate) == (
        "scripted",
        "scripted",
        "p1",
        2,
    )
    assert rec.request["messages"] == MSG and rec.request["schema"] == SCHEMA
    assert (rec.request["temperature"], rec.request["max_tokens"], rec.request["seed"]) == (
        0.2,
        50,
        9,
    )
    assert rec.parsed == {"answer": 7} and json.loads(rec.response_text) == {"answer": 7}
    assert rec.input_tokens and rec.output_tokens and rec.attempt == 1 and rec.error is None


def test_replay_only_miss_names_the_key_and_how_to_record(store):
    llm = LoggedLLM(ScriptedLLM(), CallLog(store), cache="replay-only")
    with pytest.raises(CacheMissError) as err:
        llm.complete(MSG, prompt_version="p1")
    msg = str(err.value)
    assert "ANALOGIST_CACHE=read-write" in msg and "p1" in msg
    assert len([w for w in msg.split() if len(w) == 64]) == 1


def test_replay_only_answers_from_the_log_without_calling(store):
    LoggedLLM(ScriptedLLM(["logged"]), CallLog(store)).complete(MSG)
    model = ScriptedLLM()
    assert LoggedLLM(model, CallLog(store), cache="replay-only").complete(MSG).text == "logged"
    assert model.calls == 0


def test_replay_only_needs_a_log():
    with pytest.raises(ConfigError, match="call log"):
        LoggedLLM(ScriptedLLM(), None, cache="replay-only")


def test_an_invalid_answer_gets_one_repair_that_quotes_the_error(store):
    model = ScriptedLLM([{"answer": "seven"}, {"answer": 7}])
    c = LoggedLLM(model, CallLog(store)).complete(MSG, schema=SCHEMA)
    assert c.repaired and c.parsed == {"answer": 7}
    repair = model.requests[1].messages
    assert repair[-2] == ("assistant", '{"answer": "seven"}')
    assert "$.answer" in repair[-1][1] and "'seven' is not of type 'integer'" in repair[-1][1]
    assert CallLog(store).count() == 2


def test_a_second_invalid_answer_raises_and_no_third_call_is_made(store):
    model = ScriptedLLM(["not json", {"answer": "x"}, {"answer": 1}])
    with pytest.raises(ModelError, match="even after one repair"):
        LoggedLLM(model, CallLog(store)).complete(MSG, schema=SCHEMA)
    assert model.calls == 2 and len(model.queue) == 1


def test_repair_can_be_switched_off():
    with pytest.raises(ModelError, match="repair re-ask is off"):
        LoggedLLM(ScriptedLLM(["nope"]), repair=False).complete(MSG, schema=SCHEMA)


class Flaky(BaseLLM):
    """Fails transiently ``n`` times, then answers; retries go through call_with_retries."""

    provider, model, base_url, params = "flaky", "f", None, {}

    def __init__(self, n: int, attempts: int = 4):
        self.n, self.policy = n, RetryPolicy(max_attempts=attempts, base_delay_s=0)

    def generate(self, request):
        from analogist.models.llm import completion_from_text

        def once():
            if self.n:
                self.n -= 1
                raise Transient("HTTP 503: busy", retry_after=0)
            return "ok"

        done = call_with_retries(once, self.policy, what="flaky", sleep=lambda s: None)
        return completion_from_text(
            done.value, request, attempts=done.attempts, retry_errors=done.errors
        )


def test_failed_attempts_are_logged_with_attempt_numbers(store):
    c = LoggedLLM(Flaky(2), CallLog(store)).complete(MSG)
    rows = CallLog(store).for_key(c.cache_key)
    assert [(r.attempt, r.error is None) for r in rows] == [(1, False), (2, False), (3, True)]
    assert "503" in rows[0].error


def test_giving_up_is_logged_and_raised(store):
    llm = LoggedLLM(Flaky(9, attempts=3), CallLog(store))
    with pytest.raises(ModelError, match="gave up after 3 attempt"):
        llm.complete(MSG)
    rows = CallLog(store).all()
    assert [r.attempt for r in rows] == [1, 2, 3] and all(r.error for r in rows)
    assert llm.stats.failures == 1


def test_retry_policy_honours_retry_after_with_a_cap():
    p = RetryPolicy(base_delay_s=0.5, max_delay_s=10)
    assert p.delay(1, None) == 0.5 and p.delay(3, None) == 2.0
    assert p.delay(1, 4.0) == 4.0 and p.delay(1, 99.0) == 10
