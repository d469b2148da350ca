"""Memory: atomic ingestion with derived rows, search with exclusions, index upkeep."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from analogist.episode import parse_episode
from analogist.errors import ConfigError, StoreError
from analogist.memory import Memory
from analogist.models.embedding import HashingEmbedder
from analogist.signature import default_vocabulary
from analogist.store import Store
from tests.retrieve import cases


@pytest.fixture
def memory():
    m = Memory(":memory:")
    m.add(cases.lines(*cases.ALL))
    yield m
    m.store.close()


def signature_of(ep):
    return parse_episode(ep, default_vocabulary()).signature


# adding ---------------------------------------------------------------------------------
def test_add_writes_episodes_fingerprints_and_l0_l2_l3_vectors():
    m = Memory(":memory:")
    unsigned = {"id": "note", "kind": "observation", "text": "just a note"}
    report = m.add(cases.lines(cases.PROXY, unsigned))
    assert report.added == ["proxy", "note"] and report.rejected == []
    name = m.embedder.name
    for level, expect in (("L0", ["proxy", "note"]), ("L2", ["proxy"]), ("L3", ["proxy"])):
        ids, mat = m.store.vectors(level, name)
        assert ids == expect and mat.shape == (len(expect), 384)
    (fp,) = m.store.fingerprints()
    assert fp[0] == "proxy" and fp[1] == m.indexes.fingerprint(signature_of(cases.PROXY)).wl_hash


def test_a_bad_line_is_rejected_with_its_number_and_not_written():
    m = Memory(":memory:")
    bad_sig = copy.deepcopy(cases.LEDGER)
    bad_sig["signature"]["relations"][0][0] = "frobnicates"
    lines = [json.dumps(cases.PROXY), "", "{not json", json.dumps(bad_sig), json.dumps(cases.PROXY)]
    report = m.add(lines)
    assert report.added == ["proxy"]
    where = dict(report.rejected)
    assert set(where) == {"line 3", "line 4", "line 5"}
    assert "not valid JSON" in where["line 3"]
    assert "frobnicates" in where["line 4"] and "ledger" in where["line 4"]
    assert "repeats line 1" in where["line 5"]
    assert m.store.episode_ids() == ["proxy"]
    assert [f[0] for f in m.store.fingerprints()] == ["proxy"]


def test_all_or_nothing_writes_nothing_when_one_line_is_bad():
    m = Memory(":memory:")
    report = m.add(cases.lines(cases.PROXY, cases.LEDGER) + ["[1, 2]"], all_or_nothing=True)
    assert report.added == [] and report.held_back == ["proxy", "ledger"]
    assert report.rejected[0][0] == "line 3"
    assert m.store.count() == 0 and m.store.fingerprints() == []
    assert m.store.vectors("L0", m.embedder.name)[0] == []


def test_already_stored_ids_are_rejected(memory):
    report = memory.add(cases.lines(cases.PROXY))
    assert report.added == [] and "already stored" in report.rejected[0][1]


def test_a_failed_write_leaves_the_store_and_indexes_untouched(memory, monkeypatch):
    before = memory.search("proxy", channels="S0").ids()

    def boom(*a, **k):
        raise StoreError("disk full")

    monkeypatch.setattr(memory.store, "add_episodes", boom)
    new = cases.renamed_roles(cases.LEDGER, {}, "ledger_2")
    with pytest.raises(StoreError):
        memory.add([new])
    assert memory.search("proxy", channels="S0").ids() == before


def test_add_accepts_episode_objects_and_dicts():
    m = Memory(":memory:")
    ep = parse_episode(cases.PROXY, m.store.vocabulary)
    assert m.add([ep, cases.LEDGER]).added == ["proxy", "ledger"]


# searching ------------------------------------------------------------------------------
def test_an_id_target_excludes_itself_and_finds_its_far_twin(memory):
    pool = memory.search("proxy")
    assert "proxy" in pool.excluded and "proxy" not in pool.ids()
    top = pool.candidates[0]
    assert top.episode_id == "ledger" and top.structural_rank == 1
    assert set(top.found_by) == {"S0", "S1", "S2.L2", "S2.L3"} and top.semantic_rank is None
    look = pool.get("feed_lookalike")
    assert look.structural_rank is None and look.semantic_rank == 1


def test_derivatives_of_the_target_are_excluded(memory):
    copy_ep = cases.renamed_roles(cases.LEDGER, {}, "ledger_copy")
    copy_ep["provenance"] = "derived_from:proxy"
    child = cases.renamed_roles(cases.LEDGER, {}, "ledger_copy_2")
    child["provenance"] = "summary of ledger_copy"
    memory.add([copy_ep, child])
    pool = memory.search("proxy")
    assert {"proxy", "ledger_copy", "ledger_copy_2"} <= pool.excluded
    assert not {"ledger_copy", "ledger_copy_2"} & set(pool.ids())
    assert "ledger_copy" in memory.search("ledger").ids()


def test_explicit_exclusions_apply_to_every_channel(memory):
    pool = memory.search("proxy", exclude=["ledger", "feed_lookalike"])
    assert not {"ledger", "feed_lookalike"} & set(pool.ids())


def test_plain_text_uses_only_m_and_says_why(memory):
    pool = memory.search("intel feed cache believed stale")
    assert pool.channels == ("M.emb", "M.bm25")
    assert set(pool.skipped) == {"S3", "S0", "S1", "S2.L2", "S2.L3"}
    assert "encoder" in pool.skipped["S1"]
    assert pool.candidates[0].episode_id in {"proxy", "feed_lookalike"}


def test_an_encoder_makes_text_targets_structural(memory):
    sig = signature_of(cases.LEDGER).with_episode_id("query")
    pool = memory.search("some new text", encoder=lambda text: sig, channels="S0,S1")
    assert pool.skipped == {} and pool.target["has_signature"]
    exact = [h.episode_id for h in pool.hits["S0"] if h.detail["match"] == "exact"]
    assert sorted(exact) == ["ledger", "proxy"]


def test_a_signature_target_excludes_its_own_stored_episode(memory):
    pool = memory.search(signature_of(cases.LEDGER), channels=["S0"])
    assert pool.found_by("S0")[0] == "proxy" and "ledger" not in pool.ids()


def test_channel_selection_by_family_and_unknown_names(memory):
    assert memory.search("proxy", channels="S2,M").channels == ("S2.L2", "S2.L3", "M.emb", "M.bm25")
    with pytest.raises(ConfigError, match="unknown channel 'S9'"):
        memory.search("proxy", channels="S9")


def test_an_unsigned_stored_target_skips_structural_channels(memory):
    memory.add([{"id": "note", "kind": "observation", "text": "intel feed cache"}])
    pool = memory.search("note")
    assert "has no signature" in pool.skipped["S0"] and "note" in pool.excluded


# index upkeep ---------------------------------------------------------------------------
def test_indexes_follow_adds_and_match_a_fresh_load(tmp_path):
    db = tmp_path / "m.db"
    m = Memory(db)
    m.add(cases.lines(*cases.ALL[:3]))
    m.search("proxy")  # builds every index
    m.add(cases.lines(*cases.ALL[3:]))
    warm = m.search("proxy").to_json()
    cold = Memory(db).search("proxy").to_json()
    assert warm == cold and "proxy_partial" in [c["episode_id"] for c in warm["candidates"]]


def test_another_connection_writing_invalidates_the_cache(tmp_path):
    db = tmp_path / "m.db"
    a, b = Memory(db), Memory(db)
    a.add(cases.lines(cases.PROXY))
    assert b.search("proxy", channels="S0").ids() == []
    a.add(cases.lines(cases.LEDGER))
    assert b.search("proxy", channels="S0").ids() == ["ledger"]


def test_delete_drops_the_episode_from_every_channel(memory):
    memory.search("proxy")
    memory.delete(["ledger"])
    assert "ledger" not in memory.search("proxy").ids()


def test_reindex_switches_the_embedder(memory):
    small = HashingEmbedder(dim=64)
    assert memory.reindex(small) == len(cases.ALL)
    assert memory.embedder is small
    ids, mat = memory.store.vectors("L2", small.name)
    assert len(ids) == len(cases.ALL) and mat.shape[1] == 64
    pool = memory.search("proxy", channels="S2")
    assert pool.found_by("S2.L2")[0] == "ledger"


def test_vectors_are_cached_per_level_and_embedder(memory):
    memory.search("proxy")
    first = memory.indexes.vectors("L2")
    assert memory.indexes.vectors("L2") is first
    memory.indexes.embedder = HashingEmbedder(dim=32)
    assert len(memory.indexes.vectors("L2")) == 0  # nothing stored for that embedder yet
    assert ("L2", HashingEmbedder().name) in memory.indexes._vectors


def test_describe_channels_records_parameters(memory):
    params = {p["name"]: p for p in memory.describe_channels()}
    assert params["S0"]["near_threshold"] == 0.15 and "source" not in params["S0"]
    assert params["S1"]["type"] == "MacChannel"
    assert np.isfinite(params["S1"]["keep_fraction"])


def test_memory_opens_a_store_path(tmp_path):
    with Memory(tmp_path / "x.db") as m:
        assert isinstance(m.store, Store) and m.store.count() == 0
