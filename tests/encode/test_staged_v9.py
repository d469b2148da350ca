"""staged-v9: relations chosen by likelihood (PMI against the no-episode prompt), with a scripted
model whose scores have a prior bias that the calibration must remove."""

import pytest

from analogist.encode import StagedEncoder
from analogist.encode.scored import NULL_HEAD, OTHER, binary_terms, tail
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
# what the scripted "model" finds likely after the episode: subject -> (words of the
# definition, the other party that fits)
TRUE = {
    "nightly export job": ("keeps exclusive use of resource", "orders table"),
    "orders table": ("decides whether", "checkout service"),
    "checkout service": ("cannot proceed until it obtains", "orders table"),
}
BIASED = "is a copy, summary or computation made from"  # derives_from: likely whatever the text


def scorer(messages, continuation):
    """Longer texts are less likely (in every prompt); the first-listed term is favoured for
    every subject (the prior v4 fell for); after the episode, a subject's true statement gains,
    the more so with its other party."""
    episode = messages[1]["content"] != NULL_HEAD
    subject = messages[2]["content"].removeprefix("In this episode, ")
    lp = -0.5 * len(continuation.split()) + (8.0 if BIASED in continuation else 0.0)
    words, other = TRUE.get(subject, ("\0", "\0"))
    if episode and words in continuation:
        lp += 4.0 + (2.0 if other in continuation else 0.0)
    return lp


def encoder(llm, **kw):
    """The encoder with only the roles and relations steps (the others are v4's)."""
    kw.setdefault("version", "staged-v9")
    enc = StagedEncoder(llm, clock=lambda: "2026-01-01T00:00:00Z", **kw)
    enc._chain = lambda st: None
    enc._levels = lambda st, seen: None
    return enc


def test_relations_are_the_calibrated_best_statement_per_role():
    model = ScriptedLLM([ROLES], scorer=scorer)
    r = encoder(model).encode(EP)
    sig = r.require()
    assert [x.term().canonical() for x in sig.relations] == [
        "holds(R1,R2)",
        "gates(R2,R3)",
        "waits_for(R3,R2)",
    ]
    rel = next(t for t in r.steps if t.step == "relations")
    assert rel.ok and not rel.repaired and not rel.dropped
    assert rel.notes[0].startswith("R1 (nightly export job): holds(R1,R2) score +2.7")
    # the roles step is v4's very request (its logged answers serve both versions)
    assert model.requests[0].prompt_version == "staged-v4:roles"
    # 1 roles call, then 3 roles' statements, then each role's term with each other role
    scoring = [q for q in model.requests if q.continuations]
    assert len(scoring) == 3 + 3 == rel.calls
    assert {q.prompt_version for q in scoring} == {"staged-v9:relations"}
    terms = binary_terms(default_vocabulary())
    assert "causes" not in dict(terms) and len(terms) == 27
    assert scoring[0].continuations == tuple(tail(d, "nightly export job", OTHER) for _, d in terms)
    assert scoring[0].continuations[1] == (
        " needs another part to be working or available in order to work."
    )
    # every statement follows the episode and shares its prompt up to the subject
    assert all(q.messages[1][1].startswith("Episode (failure):\n" + TEXT) for q in scoring)
    assert scoring[3].messages[2][1] == "In this episode, nightly export job"
    assert scoring[3].continuations == (
        " keeps exclusive use of resource orders table.",
        " keeps exclusive use of resource checkout service.",
    )


def test_a_fact_two_roles_choose_is_kept_once():
    def same(messages, continuation):
        """The export job and the table share a resource; the checkout service waits."""
        subject = messages[2]["content"].removeprefix("In this episode, ")
        shares = "draw on the same limited resource" in continuation
        if shares and subject in ("nightly export job", "orders table"):
            return 5.0 + (1.0 if "checkout" not in continuation else 0.0)
        if subject == "checkout service" and "cannot proceed until" in continuation:
            return 5.0
        return -1.0

    r = encoder(ScriptedLLM([ROLES], scorer=same)).encode(EP)
    rel = next(t for t in r.steps if t.step == "relations")
    assert [x.term().canonical() for x in r.require().relations] == [
        "shares_resource(R1,R2)",
        "waits_for(R3,R1)",
    ]
    assert rel.dropped == ("R2 (same fact as another role's)",)
    assert len(rel.notes) == 3


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
        ["holds(R1,R2)", "gates(R2,R3)", "waits_for(R3,R2)"]
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


def test_a_replay_of_a_v9_run_encodes_with_v9():
    from analogist.bench.execution.replay import recorded_encoder_version
    from analogist.store.calls import CallRecord

    def rec(version):
        return CallRecord("k", "local", "m", {}, prompt_version=version)

    assert recorded_encoder_version([rec("staged-v4:roles"), rec("staged-v9:relations")]) == (
        "staged-v9"
    )
    assert recorded_encoder_version([rec("staged-v4:roles")]) == "staged-v4"


def test_v10_ranks_by_pmi_against_the_same_statement_without_the_episode():
    model = ScriptedLLM([ROLES], scorer=scorer)
    r = encoder(model, version="staged-v10").encode(EP)
    assert [x.term().canonical() for x in r.require().relations] == [
        "holds(R1,R2)",
        "gates(R2,R3)",
        "waits_for(R3,R2)",
    ]
    scoring = [q for q in model.requests if q.continuations]
    assert len(scoring) == 3 + 3 + 3
    null = scoring[3:6]
    assert [q.messages[1][1] for q in null] == [NULL_HEAD] * 3
    assert null[0].messages[2][1] == "In this episode, nightly export job"
    assert null[0].continuations == scoring[0].continuations  # the same words, no episode


def test_v10_gives_no_relation_to_a_role_the_episode_says_nothing_about():
    def quiet_table(messages, continuation):
        subject = messages[2]["content"].removeprefix("In this episode, ")
        return -30.0 if subject == "orders table" else scorer(messages, continuation)

    r = encoder(ScriptedLLM([ROLES], scorer=quiet_table), version="staged-v10").encode(EP)
    rel = next(t for t in r.steps if t.step == "relations")
    assert [x.term().canonical() for x in r.require().relations] == [
        "holds(R1,R2)",
        "waits_for(R3,R2)",
    ]
    assert rel.dropped == ("R2 (no term the episode makes likelier than without it)",)
    assert rel.notes[1].startswith("R2 (orders table): none")
