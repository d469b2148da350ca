"""Scoring given continuations (log-probabilities) instead of generating.

The first group needs no model: the request and its cache key, the call log, replay, the refusal
of a backend that cannot score. The second runs SmolLM2 through llama.cpp (gated like
``test_local.py``): the log-probabilities obey the chain rule, a repeated request scores the
same, and generation is unaffected by scoring.
"""

import pytest

from analogist.errors import CacheMissError, ModelError
from analogist.models import LoggedLLM, ModelSettings, ScriptedLLM, open_llm
from analogist.models.llm import Request, build_request
from analogist.models.local import SMALLEST_MODEL
from analogist.models.openai_compat import OpenAICompatServerLLM
from analogist.models.scoring import Score, ScoringUnsupported, can_score
from analogist.models.scripted import ReplayLLM
from analogist.store import Store
from analogist.store.calls import CallLog

from .local_runtime import require

MSGS = [
    {"role": "user", "content": "The cache expired and every request hit the database."},
    {"role": "assistant", "content": "In this incident, the requests"},
]
CONTS = [" overloaded the database.", " were copied from the database."]


def words_scorer(messages, continuation):
    """A toy model: each word of the continuation that the prompt already has costs less."""
    seen = set(" ".join(m["content"] for m in messages).lower().split())
    return -sum(0.5 if w in seen else 2.0 for w in continuation.lower().split())


def test_a_scoring_request_names_its_continuations_and_completions_keep_their_keys():
    llm = ScriptedLLM(scorer=words_scorer)
    plain = build_request(llm, MSGS[:1])
    assert "continuations" not in plain.to_json()  # recorded completions keep their cache keys
    got = llm.score(MSGS, CONTS, prompt_version="t:1")
    req = llm.requests[-1]
    assert req.continuations == tuple(CONTS) and req.max_tokens == 0 and req.seed is None
    assert Request.from_json(req.to_json()) == req
    assert req.cache_key != build_request(llm, MSGS, max_tokens=0, seed=None).cache_key
    assert [s.text for s in got.scores] == CONTS
    assert got.scores[0].logprob == words_scorer(MSGS, CONTS[0])
    assert got.scores[0].tokens == 3 and got.scores[0].mean == got.scores[0].logprob / 3


def test_scores_go_through_the_call_log_and_replay_without_the_model(tmp_path):
    store = Store(tmp_path / "s.db")
    live = LoggedLLM(ScriptedLLM(scorer=words_scorer), CallLog(store))
    first = live.score(MSGS, CONTS, prompt_version="t:1")
    again = live.score(MSGS, CONTS, prompt_version="t:1")
    assert live.inner.calls == 1 and again.cached and again.scores == first.scores
    assert live.stats.calls == 1 and live.stats.cache_hits == 1
    rec = CallLog(store).lookup(first.cache_key)
    assert rec is not None and rec.output_tokens == first.scored_tokens
    assert rec.request["continuations"] == CONTS
    replay = LoggedLLM(ReplayLLM(live.inner), CallLog(store), cache="replay-only")
    assert replay.can_score and replay.score(MSGS, CONTS, prompt_version="t:1").scores == (
        first.scores
    )
    with pytest.raises(CacheMissError, match="no logged scores"):
        replay.score(MSGS, CONTS[:1], prompt_version="t:1")


def test_bad_continuations_and_a_scorerless_scripted_model_say_what_to_do():
    with pytest.raises(ModelError, match="at least one continuation"):
        ScriptedLLM(scorer=words_scorer).score(MSGS, [])
    with pytest.raises(ModelError, match=r"continuations\[1\]: give a non-empty string"):
        ScriptedLLM(scorer=words_scorer).score(MSGS, ["a", ""])
    with pytest.raises(ModelError, match="ScriptedLLM\\(scorer="):
        ScriptedLLM().score(MSGS, CONTS)


def test_an_openai_compatible_backend_refuses_to_score_naming_the_limitation(tmp_path):
    backend = OpenAICompatServerLLM(
        "qwen2.5", ModelSettings(base_url="http://127.0.0.1:9/v1", api_key="x")
    )
    assert not can_score(backend) and not LoggedLLM(backend).can_score
    for llm in (backend, LoggedLLM(backend, CallLog(Store(tmp_path / "o.db")))):
        with pytest.raises(ScoringUnsupported, match="returns log-probabilities only of the text"):
            llm.score(MSGS, CONTS)


def test_score_json_round_trip():
    s = Score(" x y.", -3.5, 2)
    assert Score.from_json(s.to_json()) == s and s.mean == -1.75


real = require(("llama_cpp",), "llama-cpp-python", "LOCAL MODEL TESTS")


@pytest.fixture(scope="module")
def smol():
    yield open_llm(f"local:{SMALLEST_MODEL}", settings=ModelSettings(n_ctx=2048, prompt_cache_mb=0))


@real
def test_llama_scores_obey_the_chain_rule_and_repeat_exactly(smol):
    whole, first_word = smol.score(MSGS, [" overloaded the database.", " overloaded"]).scores
    rest = smol.score(
        [MSGS[0], {"role": "assistant", "content": MSGS[1]["content"] + " overloaded"}],
        [" the database."],
    ).scores[0]
    assert whole.logprob < 0 and whole.tokens == first_word.tokens + rest.tokens
    # log p(a b) = log p(a) + log p(b | a), up to the rounding of differently shaped batches
    assert whole.logprob == pytest.approx(first_word.logprob + rest.logprob, abs=0.3)
    once = smol.inner.score(MSGS, [" overloaded the database."])
    again = smol.inner.score(MSGS, [" overloaded the database."])
    assert again.scores == once.scores  # the same prompt again: its stored last logits
    assert again.timings["prompt_eval_tokens"] == 0 < once.timings["prompt_eval_tokens"]


@real
def test_llama_prefers_the_text_the_prompt_supports_and_leaves_generation_alone(smol):
    ask = [{"role": "user", "content": "Say the word: apple."}]
    before = smol.inner.complete(ask, max_tokens=6, seed=0).text
    got = smol.score(
        [
            {"role": "user", "content": "Repeat exactly: the red fox jumps."},
            {"role": "assistant", "content": "The red"},
        ],
        [" fox jumps.", " table sings."],
    ).scores
    assert got[0].logprob > got[1].logprob
    assert smol.inner.complete(ask, max_tokens=6, seed=0).text == before
