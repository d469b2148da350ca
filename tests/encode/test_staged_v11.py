"""staged-v11: the roles chosen by likelihood among the text's noun phrases (then v10's scored
relations), with a scripted model whose scores carry a name prior that the calibration removes."""

import pytest

from analogist.encode import StagedEncoder
from analogist.encode.candidates import candidates, runs, same_part
from analogist.encode.scored import NULL_HEAD
from analogist.encode.scored_roles import (
    MENTION_QUESTION,
    QUESTIONS,
    SYSTEM,
    RoleScorer,
    answer,
    messages,
)
from analogist.episode import Episode
from analogist.errors import ConfigError
from analogist.models import LoggedLLM, ModelSettings, ScriptedLLM
from analogist.models.openai_compat import OpenAICompatServerLLM
from analogist.models.scripted import ReplayLLM
from analogist.store import Store
from analogist.store.calls import CallLog

TEXT = (
    "The nightly export job locked the orders table for an hour while the checkout service "
    "waited on it, so checkouts timed out."
)
EP = Episode("ep_1", "failure", TEXT, outcome="the export now copies a snapshot")
# which candidate answers which part question after the episode (question label -> bonus)
PARTS = {
    "resource": {"orders table": 4.0},
    "user": {"nightly export job": 4.0},
    "affected": {"checkout service": 4.0},
    "control": {"export job": 3.0},  # the same part as the export job: merged, not a 4th role
}
SALIENT = "checkouts"  # likely in every answer, part or not: the prior the calibration removes
# relations (as in the v9/v10 tests): subject -> (words of its true statement, the other party)
TRUE = {
    "nightly export job": ("keeps exclusive use of resource", "orders table"),
    "orders table": ("decides whether", "checkout service"),
    "checkout service": ("cannot proceed until it obtains", "orders table"),
}
BIASED = "is a copy, summary or computation made from"


def scorer(msgs, continuation):
    """Shorter answers are likelier everywhere; a roles question raises its true parts; a
    relation statement after the episode raises its subject's true statement."""
    lp = -0.5 * len(continuation.split())
    if msgs[0]["content"] == SYSTEM:  # the roles step
        name = continuation.strip().removesuffix(".")
        lp += 6.0 if name == SALIENT else 0.0
        for label, _, question in QUESTIONS:
            if question in msgs[1]["content"]:
                lp += PARTS.get(label, {}).get(name, 0.0)
        return lp
    episode = msgs[1]["content"] != NULL_HEAD
    subject = msgs[2]["content"].removeprefix("In this episode, ")
    lp += 8.0 if BIASED in continuation else 0.0
    words, other = TRUE.get(subject, ("\0", "\0"))
    if episode and words in continuation:
        lp += 4.0 + (2.0 if other in continuation else 0.0)
    return lp


def encoder(llm, **kw):
    """The encoder with only the roles and relations steps (chain and levels are v4's)."""
    enc = StagedEncoder(llm, clock=lambda: "2026-01-01T00:00:00Z", version="staged-v11", **kw)
    enc._chain = lambda st: None
    enc._levels = lambda st, seen: None
    return enc


def facts(result):
    return [x.term().canonical() for x in result.require().relations]


def test_candidates_are_the_texts_noun_phrases_heads_last():
    got = candidates(TEXT)
    assert got == [
        "job",
        "export job",
        "nightly export job",
        "table",
        "orders table",
        "service",
        "checkout service",
        "checkouts",
    ]
    # verbs, function words and times are not parts; the runs break at them
    assert runs(TEXT)[2] == ["hour"] and "hour" not in got
    assert "Redis" in candidates("The Redis key expired at 00:00 UTC in every region.")
    assert candidates("x", table=["the pool ", "the pool", "API"]) == ["the pool", "API"]


def test_same_part_is_a_shared_head_or_contained_words():
    assert same_part("Postgres primary", "primary")
    assert same_part("PgBouncer", "PgBouncer pool")
    assert same_part("export job", "nightly export job")
    assert not same_part("orders table", "checkout service")


def test_roles_are_the_calibrated_best_candidate_per_part_question():
    model = ScriptedLLM([], scorer=scorer)
    r = encoder(model).encode(EP)
    sig = r.require()
    bind = dict(sig.surface.extra)["bindings"]
    assert bind == {"R1": "orders table", "R2": "nightly export job", "R3": "checkout service"}
    assert [x.description for x in sig.roles] == [q[1] for q in QUESTIONS[:3]]
    roles = next(t for t in r.steps if t.step == "roles")
    assert roles.ok and not roles.repaired and roles.calls == 1 + len(QUESTIONS)
    assert roles.dropped == ("'export job' (same part as 'nightly export job')",)
    assert roles.notes[0].startswith("chose orders table as shared resource")
    # the roles are scored, never generated: every request is a scoring request
    assert all(q.continuations for q in model.requests)
    first = model.requests[0]
    assert first.prompt_version == "staged-v11:roles"
    assert first.continuations == tuple(answer(c) for c in candidates(TEXT))
    assert MENTION_QUESTION in first.messages[1][1]
    # v10's relations step, on the scored roles
    assert facts(r) == ["gates(R1,R3)", "holds(R2,R1)", "waits_for(R3,R1)"]
    assert {q.prompt_version for q in model.requests[6:]} == {"staged-v11:relations"}


def test_the_salient_name_would_win_without_the_mention_baseline():
    """The prior is real: by raw score the salient name answers every part question."""
    head = "Episode (failure):\n" + TEXT
    for _, _, question in QUESTIONS:
        msgs = messages(head, question, "The part is")
        raw = {c: scorer(msgs, answer(c)) for c in candidates(TEXT)}
        assert max(raw, key=raw.__getitem__) == SALIENT
    choice = RoleScorer(ScriptedLLM([], scorer=scorer), "staged-v11").choose(head, candidates(TEXT))
    assert SALIENT not in choice.names


def test_the_same_request_twice_gives_the_same_encoding():
    a, b = ScriptedLLM([], scorer=scorer), ScriptedLLM([], scorer=scorer)
    ra, rb = encoder(a).encode(EP), encoder(b).encode(EP)
    assert ra.require().to_json() == rb.require().to_json()
    assert [q.cache_key for q in a.requests] == [q.cache_key for q in b.requests]


def test_a_replay_of_the_recorded_calls_reproduces_the_encoding(tmp_path):
    store = Store(tmp_path / "m.db")
    first = LoggedLLM(ScriptedLLM([], scorer=scorer), CallLog(store))
    a = encoder(first).encode(EP)
    again = ScriptedLLM([], scorer=lambda m, c: 1 / 0)
    b = encoder(LoggedLLM(again, CallLog(store))).encode(EP)
    assert again.calls == 0  # every score came from the log
    replay = LoggedLLM(ReplayLLM(first.inner), CallLog(store), cache="replay-only")
    c = encoder(replay).encode(EP)
    assert a.require().to_json() == b.require().to_json() == c.require().to_json()


def test_with_an_entity_table_the_candidates_are_its_names_and_roles_its_ids():
    model = ScriptedLLM([], scorer=scorer)
    table = {
        "e1": "nightly export job",
        "e2": "orders table",
        "e3": "checkout service",
        "e4": "checkouts",
    }
    r = encoder(model).encode_target(TEXT, kind="failure", entities=table)
    sig = r.require()
    assert sorted(sig.role_names) == ["e1", "e2", "e3"]
    assert model.requests[0].continuations == tuple(answer(v) for v in table.values())


def test_a_text_with_fewer_than_two_candidates_is_rejected_without_a_call():
    model = ScriptedLLM([], scorer=scorer)
    r = encoder(model).encode(Episode("ep_2", "failure", "It failed at 03:00 UTC."))
    assert r.signature is None and "fewer than two candidate parts" in (r.reason or "")
    assert model.calls == 0


def test_v11_needs_a_backend_that_scores():
    llm = OpenAICompatServerLLM(
        "qwen2.5", ModelSettings(base_url="http://127.0.0.1:9/v1", api_key="x")
    )
    with pytest.raises(ConfigError, match="cannot score"):
        encoder(llm)
