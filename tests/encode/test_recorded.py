"""Real encoder calls of SmolLM2-135M (llama.cpp, grammar-constrained), recorded by
tests/recorded/record_smollm2.py and replayed here through the replay backend: the same code
path reproduces the recorded outcomes without calling any model, and the recorded requests
show that the storage-time encoder saw only its own episode."""

import json
from pathlib import Path

import pytest

from analogist.encode import ENCODE_PROMPT_VERSION, ModelEncoder, reabstract
from analogist.episode import Episode
from analogist.models import ModelSettings, open_llm
from analogist.signature import parse_signature
from analogist.store import Store
from analogist.store.calls import CallLog, CallRecord

RECORDED = Path(__file__).resolve().parents[1] / "recorded" / "smollm2_encode.json"


@pytest.fixture(scope="module")
def recorded() -> dict:
    return json.loads(RECORDED.read_text(encoding="utf-8"))


@pytest.fixture
def replay(recorded):
    store = Store(":memory:")
    CallLog(store).record_many(CallRecord.from_json(c) for c in recorded["calls"])
    llm = open_llm(f"replay:{recorded['model']}", store=store, settings=ModelSettings())
    return llm, ModelEncoder(llm, store.vocabulary)


def _outcome(result) -> dict:
    d = result.to_json()
    if d.get("signature"):
        d["signature"].pop("written_at", None)
    return d


def test_replay_reproduces_every_recorded_encoding_without_calls(recorded, replay):
    llm, encoder = replay
    results = [
        encoder.encode(Episode(e["id"], e["kind"], e["text"], e["outcome"]))
        for e in recorded["episodes"]
    ]
    results += [encoder.encode_target(t) for t in recorded["targets"]]
    assert [_outcome(r) for r in results] == recorded["results"]
    assert any(r.ok for r in results) and any(not r.ok for r in results)
    assert llm.stats.calls == 0 and llm.stats.cache_hits >= len(results)


def test_replay_reproduces_the_model_reabstraction(recorded, replay, vocab):
    llm, _ = replay
    source = parse_signature(recorded["reabstract_source"], vocab)
    got = reabstract(source, "up", llm=llm, vocab=vocab)
    assert _outcome(got) == recorded["reabstract_result"]


def test_the_storage_time_encoder_saw_only_its_own_episode(recorded):
    episodes = recorded["episodes"]
    storage = [c for c in recorded["calls"] if c["prompt_version"] == ENCODE_PROMPT_VERSION]
    assert storage
    for call in storage:
        sent = json.dumps(call["request"]["messages"])
        own = [e for e in episodes if e["text"] in sent]
        assert len(own) == 1
        for other in episodes:
            if other is not own[0]:
                assert other["id"] not in sent and other["text"][:60] not in sent
        assert not any(t in sent for t in recorded["targets"])


def test_the_recordings_hold_no_secrets_and_real_token_counts(recorded):
    text = RECORDED.read_text(encoding="utf-8")
    assert "api_key" not in text and "sk-" not in text and "Bearer" not in text
    assert all(c["provider"] == "llama" and c["input_tokens"] > 500 for c in recorded["calls"])
