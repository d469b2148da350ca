"""staged-v9: relations chosen by likelihood (PMI against the no-episode prompt), with a scripted
model whose scores have a prior bias that the calibration must remove."""

import pytest

from analogist.encode import StagedEncoder
from analogist.encode.scored import NULL_HEAD, OTHER, SUBJECT, binary_terms, tail
from analogist.episode import Episode
from analogist.errors import ConfigError
from analogist.models import LoggedLLM, ModelSettings, ScriptedLLM
from analogist.models.openai_compat import OpenAICompatServerLLM
from analogist.models.scripted import ReplayLLM
from analogist.signature import default_vocabulary
from analogist.store import Store
from analogist.store.calls import CallLog

TEXT = (
    "The nightly export job locked the orders table for an hour while the checkout service "
    "waited on it, so checkouts timed out."
)
EP = Episode("ep_1", "failure", TEXT, outcome="the export now copies a snapshot")
ROLES = {
    "domain": "retail software",
    "roles": [
        {"entity": "nightly export job", "part": "holder of a shared resource"},
        {"entity": "orders table", "part": "resource that only one user may hold"},
        {"entity": "checkout service", "part": "user that waits for the resource"},
    ],
}
# what the scripted "model" finds likely after the episode: (subject, words of the definition)
TRUE = {
    "nightly export job": "keeps exclusive use of resource",
    "checkout service": "cannot proceed until it obtains",
}
BIASED = "is a copy, summary or computation made from"  # derives_from: likely whatever the text


def scorer(messages, continuation):
    """Longer texts are less likely (in both prompts); the first-listed term is favoured in both
    prompts (the prior v4 fell for); after the episode, a true statement gains, the more so
    with the orders table as its other party."""
    episode = messages[1]["content"] != NULL_HEAD
    subject = messages[2]["content"].removeprefix("In this episode, ")
    lp = -0.5 * len(continuation.split()) + (8.0 if BIASED in continuation else 0.0)
    if episode and TRUE.get(subject, "\0") in continuation:
        lp += 4.0 + (2.0 if "orders table" in continuation else 0.0)
    return lp


def encoder(llm, **kw):
    """The encoder with only the roles and relations steps (the others are v4's)."""
    kw.setdefault("version", "staged-v9")
    enc = StagedEncoder(llm, clock=lambda: "2026-01-01T00:00:00Z", **kw)
    enc._chain = lambda st: None
    enc._levels = lambda st, seen: None
    return enc


def test_relations_are_the_calibrated_best_statement_per_role_and_none_when_nothing_gains():
    model = ScriptedLLM([ROLES], scorer=scorer)
    r = encoder(model).encode(EP)
    sig = r.require()
    assert [x.term().canonical() for x in sig.relations] == [
        "holds(R1,R2)",
        "waits_for(R3,R2)",
    ]
    rel = next(t for t in r.steps if t.step == "relations")
    assert rel.ok and not rel.repaired
    # the orders table makes no definition likelier than without the episode: no relation,
    # though the biased term has the highest raw score for it
    assert len(rel.dropped) == 1 and rel.dropped[0].startswith("R2 (no relation")
    assert any(n.startswith("R1 (nightly export job): holds(R1,R2)") for n in rel.notes)
    # 1 roles call, then: the no-episode prior, 3 roles' statements, 2 partners x 2 prompts
    scoring = [q for q in model.requests if q.continuations]
    assert len(scoring) == 1 + 3 + 4 == rel.calls
    assert {q.prompt_version for q in scoring} == {"staged-v9:relations"}
    assert scoring[0].messages[1][1] == NULL_HEAD
    assert scoring[0].messages[2][1] == "In this episode, " + SUBJECT
    terms = binary_terms(default_vocabulary())
    assert scoring[0].continuations == tuple(tail(d, SUBJECT, OTHER) for _, d in terms)
    # the episode's statements come first and share their prompt up to the subject
    assert all(q.messages[1][1].startswith("Episode (failure):\n" + TEXT) for q in scoring[1:4])
    assert scoring[1].continuations[1] == (
        " needs another part to be working or available in order to work."
    )


def test_the_uncalibrated_prior_would_have_won():
    """The bias is real: without subtracting the no-episode score, the first-listed term wins
    for every role (what calibration is for)."""
    head = "Episode (failure):\n" + TEXT
    for subject in ("nightly export job", "orders table", "checkout service"):
        msgs = [
            {"role": "system", "content": ""},
            {"role": "user", "content": head},
            {"role": "assistant", "content": "In this episode, " + subject},
        ]
        raw = {
            t: scorer(msgs, tail(d, subject, OTHER)) for t, d in binary_terms(default_vocabulary())
        }
        assert max(raw, key=raw.__getitem__) == "derives_from"


def test_tail_is_the_definition_after_its_subject():
    assert tail("A uses up capacity or supply of B.", "the export", "the pool") == (
        " uses up capacity or supply of the pool."
    )
    assert tail("A's state no longer agrees with B's state.", "X", "Y") == (
        "'s state no longer agrees with Y's state."
    )
    with pytest.raises(ValueError, match="subject"):
        tail("B is fed by A.", "X", "Y")


def test_scores_are_logged_so_a_rerun_and_a_replay_need_no_model(tmp_path):
    store = Store(tmp_path / "m.db")
    first = LoggedLLM(ScriptedLLM([ROLES], scorer=scorer), CallLog(store))
    a = encoder(first).encode(EP)
    again_model = ScriptedLLM([], scorer=lambda m, c: 1 / 0)
    b = encoder(LoggedLLM(again_model, CallLog(store))).encode(EP)
    assert again_model.calls == 0  # every roles answer and score came from the log
    replay = LoggedLLM(ReplayLLM(first.inner), CallLog(store), cache="replay-only")
    c = encoder(replay).encode(EP)
    sigs = [x.require() for x in (a, b, c)]
    assert [[r.term().canonical() for r in s.relations] for s in sigs] == [
        ["holds(R1,R2)", "waits_for(R3,R2)"]
    ] * 3


def test_a_backend_that_cannot_score_is_refused_when_the_encoder_is_built():
    llm = OpenAICompatServerLLM(
        "qwen2.5", ModelSettings(base_url="http://127.0.0.1:9/v1", api_key="x")
    )
    with pytest.raises(ConfigError, match="cannot score given continuations.*staged-v4"):
        encoder(llm)
    with pytest.raises(ConfigError, match="cannot score"):
        encoder(LoggedLLM(llm))
    assert encoder(llm, version="staged-v4").version == "staged-v4"  # generation still works
