"""Each channel finds its own kind of match and misses what it should (spec §7)."""

from __future__ import annotations

import copy
import gc

import pytest

from analogist.models.scripted import ScriptedLLM
from analogist.retrieve import (
    BM25Channel,
    EmbeddingChannel,
    FingerprintChannel,
    MacChannel,
    ParametricChannel,
    Target,
    mac_features,
)
from analogist.retrieve.base import ChannelUnavailable
from analogist.retrieve.mac import _chain_length
from tests.retrieve import cases


def ids(hits):
    return [h.episode_id for h in hits]


def run(memory, channel, target_ep, sig, k=10, exclude=()):
    ch = memory._bind(channel)
    target = Target(target_ep["text"], sig(target_ep), None)
    return ch.search(target, k, frozenset({target_ep["id"], *exclude}))


def test_s0_exact_finds_the_far_twin_sharing_no_words(memory, sig):
    hits = run(memory, FingerprintChannel(near=False), cases.PROXY, sig)
    assert ids(hits) == ["ledger"]
    assert hits[0].score == 1.0 and hits[0].detail["match"] == "exact"
    assert not set(cases.PROXY["text"].lower().split()) & set(cases.LEDGER["text"].lower().split())


def test_s0_near_adds_the_partial_shape_after_exact_hits_and_misses_lookalikes(memory, sig):
    hits = run(memory, FingerprintChannel(), cases.PROXY, sig)
    assert ids(hits) == ["ledger", "proxy_partial"]
    assert hits[1].detail["match"] == "near" and 0.15 <= hits[1].score < 1
    assert "feed_lookalike" not in ids(hits)


def test_s1_ranks_structural_twins_and_drops_the_surface_lookalike(memory, sig):
    hits = run(memory, MacChannel(), cases.PROXY, sig)
    assert ids(hits)[:2] == ["ledger", "proxy_partial"]
    assert hits[0].score == pytest.approx(1.0)
    assert "feed_lookalike" not in ids(hits)


def test_s1_keeps_only_hits_within_the_fraction_of_the_best(memory, sig):
    assert ids(run(memory, MacChannel(keep_fraction=0.9), cases.PROXY, sig)) == ["ledger"]


def test_s2_levels_are_separate_subchannels(memory, sig):
    l2 = run(memory, EmbeddingChannel("L2", "S2.L2"), cases.PROXY, sig)
    l3 = run(memory, EmbeddingChannel("L3", "S2.L3"), cases.PROXY, sig)
    assert ids(l2)[0] == "ledger" and ids(l3)[0] == "ledger"
    assert {h.channel for h in l2} == {"S2.L2"} and {h.channel for h in l3} == {"S2.L3"}


def test_m_finds_the_surface_twin_not_the_far_twin(memory, sig):
    emb = run(memory, EmbeddingChannel("L0", "M.emb", needs="text"), cases.PROXY, sig)
    bm25 = run(memory, BM25Channel(), cases.PROXY, sig)
    assert ids(emb)[0] == "feed_lookalike" and ids(bm25)[0] == "feed_lookalike"
    assert "ledger" not in ids(emb)[:3] and "ledger" not in ids(bm25)


def test_a_target_without_the_level_text_is_unavailable_not_empty(memory, sig):
    ep = copy.deepcopy(cases.PROXY)
    del ep["signature"]["levels"]["L3"]
    with pytest.raises(ChannelUnavailable, match="no L3 text"):
        run(memory, EmbeddingChannel("L3", "S2.L3"), ep, sig)


def test_exclusion_applies_inside_every_channel(memory, sig):
    for ch in (
        FingerprintChannel(),
        MacChannel(),
        EmbeddingChannel("L2", "S2.L2"),
        EmbeddingChannel("L0", "M.emb", needs="text"),
        BM25Channel(),
    ):
        hits = run(memory, ch, cases.PROXY, sig, exclude=("ledger", "feed_lookalike"))
        assert not {"proxy", "ledger", "feed_lookalike"} & set(ids(hits)), ch.name


def test_k_caps_every_channel(memory, sig):
    for ch in (
        FingerprintChannel(),
        MacChannel(min_score=0, keep_fraction=0),
        EmbeddingChannel("L0", "M.emb", needs="text", min_score=-1),
    ):
        assert len(run(memory, ch, cases.PROXY, sig, k=1)) == 1


def test_mac_features_by_hand(sig):
    f = mac_features(sig(cases.RETRY))
    assert f["p:retries"] == 1 and f["p:overloaded"] == 1 and f["p:fails"] == 1
    assert not [k for k in f if k.startswith("a:")]
    # CL fills retries@0 and depends_on@0; SVC fills four slots -> C(4,2) pairs
    assert f["r:depends_on@0+retries@0"] == 1
    assert sum(v for k, v in f.items() if k.startswith("r:")) == 1 + 6
    assert f["c:retries>amplifies>overloaded"] == 1 and f["c:overloaded>causes>fails"] == 1
    assert f["len:2"] == 1


def test_chain_length_survives_cycles():
    assert _chain_length([("a", "b"), ("b", "c"), ("c", "a")]) == 2
    assert _chain_length([("a", "b"), ("x", "a"), ("b", "c")]) == 3
    assert _chain_length([]) == 0


def test_chain_length_makes_no_reference_cycles():
    # A bulk add pauses the garbage collector: a cycle per signature (the recursive closure
    # this once was) piled up until it ran, and made that collection slow.
    gc.collect()
    was = gc.isenabled()
    gc.disable()
    try:
        for _ in range(20):
            assert _chain_length([("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")]) == 3
        assert gc.collect() == 0
    finally:
        if was:
            gc.enable()


def test_parametric_proposals_are_labelled_and_see_only_the_target(memory, sig):
    llm = ScriptedLLM().enqueue(
        {
            "proposals": [
                {
                    "case": "Map-territory relation",
                    "domain": "philosophy",
                    "why": "chart ~ DER",
                    "confidence": 0.7,
                },
                {"case": "Goodhart's law", "why": "measure ~ proxy"},
            ]
        }
    )
    hits = run(memory, ParametricChannel(llm), cases.PROXY, sig)
    assert [h.episode_id for h in hits] == ["parametric:1", "parametric:2"]
    assert all(h.channel == "P" and h.detail["label"] == "parametric" for h in hits)
    assert hits[0].score == 0.7 and hits[1].score == 0.0
    prompt = " ".join(c for _, c in llm.requests[0].messages)
    assert "Intel feed" in prompt and "spreadsheet" not in prompt  # no store content


def test_parametric_garbage_makes_the_channel_unavailable(memory, sig):
    llm = ScriptedLLM().enqueue("I think it is like a map")
    with pytest.raises(ChannelUnavailable, match="could not be used"):
        run(memory, ParametricChannel(llm), cases.PROXY, sig)
