"""A large ``Memory.add`` is parsed, derived, written and folded a chunk at a time inside one
transaction (``memory.ADD_CHUNK``): it stores and answers what one chunk would, holds one
chunk at a time, and a failure or an ``all_or_nothing`` rejection in a late chunk leaves the
memory and its in-process indexes as they were."""

from __future__ import annotations

import json

import pytest

from analogist.errors import StoreError
from analogist.memory import Memory
from tests.store.test_bulk_ingest import answers, lines, memory, rows, schema

PROBES = ["ep_3", "ep_150", "ep_299"]


@pytest.fixture(autouse=True)
def fixed_clock(monkeypatch):
    monkeypatch.setattr("analogist.store.episodes.utcnow", lambda: "2026-12-02T06:00:00Z")


def chunk_sizes(m: Memory, monkeypatch) -> list[int]:
    """Record how many episodes each write of ``m`` carried."""
    sizes, real = [], m.store._put_derived_many

    def spy(derived, *a, **k):
        sizes.append(len(derived))
        return real(derived, *a, **k)

    monkeypatch.setattr(m.store, "_put_derived_many", spy)
    return sizes


def test_a_chunked_add_stores_and_answers_as_one_add(tmp_path, monkeypatch):
    data = lines(300)
    whole = memory(str(tmp_path / "whole.db"))
    assert len(whole.add(data).added) == 300
    monkeypatch.setattr("analogist.memory.ADD_CHUNK", 37)
    m = memory(str(tmp_path / "chunked.db"))
    ix = m.indexes  # every index built (empty) before the add: the chunks are folded in
    ix.fingerprints(), ix.mac(), [ix.vectors(lv) for lv in ("L0", "L2", "L3")]
    sizes = chunk_sizes(m, monkeypatch)
    report = m.add(data)
    assert report.added == [f"ep_{i}" for i in range(300)] and not report.rejected
    assert sizes == [37] * 8 + [4]  # one chunk in memory at a time
    assert m.indexes._marker == m.store.change_marker()  # no catch-up pending after the commit
    assert len(m.indexes._fp) == len(m.indexes._mac) == 300
    assert rows(m) == rows(whole) and schema(m) == schema(whole)
    assert answers(m, PROBES) == answers(whole, PROBES)
    for x in (whole, m):
        x.close()


def test_rejections_in_later_chunks_are_reported_with_their_line_numbers(tmp_path, monkeypatch):
    monkeypatch.setattr("analogist.memory.ADD_CHUNK", 40)
    m = memory(str(tmp_path / "m.db"))
    m.add(lines(1, start=500))
    data = lines(100)
    data[70] = data[5]  # the id of line 6 again, in the second chunk
    data[85] = "{not json"
    data[90] = lines(1, start=500)[0]  # already stored
    report = m.add(data)
    reasons = dict(report.rejected)
    assert set(reasons) == {"line 71", "line 86", "line 91"}
    assert "repeats line 6" in reasons["line 71"] and "already stored" in reasons["line 91"]
    assert len(report.added) == 97 and m.store.count() == 98
    m.close()


def test_all_or_nothing_with_a_bad_line_in_the_last_chunk_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr("analogist.memory.ADD_CHUNK", 30)
    m = memory(str(tmp_path / "m.db"))
    m.add(lines(20, start=1000))
    before, reference = rows(m), answers(m, ["ep_1003"])
    data = lines(100)
    data[95] = json.dumps({**json.loads(data[95]), "kind": 7})
    report = m.add(data, all_or_nothing=True)
    assert [line for line, _ in report.rejected] == ["line 96"]
    assert report.added == [] and len(report.held_back) == 99
    assert rows(m) == before  # the earlier chunks' writes were rolled back
    assert answers(m, ["ep_1003"]) == reference  # and nothing folded stayed in the indexes
    assert m.add(lines(100)).added  # the same load, valid, goes in afterwards
    m.close()


def test_a_write_failure_in_a_late_chunk_stores_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr("analogist.memory.ADD_CHUNK", 25)
    m = memory(str(tmp_path / "m.db"))
    m.add(lines(10, start=1000))
    before, shape, reference = rows(m), schema(m), answers(m, ["ep_1003"])
    calls, real = [], m.store._put_derived_many

    def third_fails(*a, **k):
        calls.append(1)
        if len(calls) == 3:
            raise StoreError("disk full")
        return real(*a, **k)

    monkeypatch.setattr(m.store, "_put_derived_many", third_fails)
    with pytest.raises(StoreError, match="disk full"):
        m.add(lines(100))
    assert rows(m) == before and schema(m) == shape  # triggers and indexes restored too
    assert answers(m, ["ep_1003"]) == reference
    assert m.search("ep_1003", channels=["S2.L2"], k=50).hits["S2.L2"]
    assert all(
        not h.episode_id.startswith("ep_") or h.episode_id.startswith("ep_100")
        for h in m.search("ep_1003", channels=["S2.L2"], k=50).hits["S2.L2"]
    )
    m.close()
