"""The pool is a union with exact provenance, never a fused score (spec §7.1)."""

from __future__ import annotations

from analogist.memory import Memory
from analogist.models.scripted import ScriptedLLM
from analogist.retrieve import Hit, Pool


def hit(eid, channel, rank, score=0.5, **detail):
    return Hit(eid, channel, score, rank, detail)


POOL = Pool(
    {"episode_id": "t", "text": "target", "has_signature": True},
    {
        "S1": (hit("a", "S1", 1, 0.9), hit("b", "S1", 2, 0.8)),
        "S2.L3": (hit("b", "S2.L3", 1, 0.7), hit("c", "S2.L3", 2)),
        "S3": (hit("c", "S3", 1, 1.0, schema_id="sch_1"),),
        "M.emb": (hit("d", "M.emb", 1), hit("b", "M.emb", 42)),
        "M.bm25": (hit("b", "M.bm25", 7),),
        "P": (hit("parametric:1", "P", 1, case="Goodhart's law", label="parametric"),),
    },
    skipped={"S0": "no fingerprints"},
    channels=("S3", "S1", "S2.L3", "M.emb", "M.bm25", "P"),
)


def test_each_candidate_records_every_channel_rank_and_score():
    b = POOL.get("b")
    assert b.found_by == ("S1", "S2.L3", "M.emb", "M.bm25")
    assert b.ranks == {"S1": 2, "S2.L3": 1, "M.emb": 42, "M.bm25": 7}
    assert b.scores["S1"] == 0.8
    assert b.structural_rank == 1 and b.semantic_rank == 7
    assert (
        b.line()
        == "candidate source=b found_by=[S1,S2.L3,M.emb,M.bm25] semantic_rank=7 structural_rank=1"
    )


def test_schema_provenance_names_the_schema():
    assert POOL.get("c").found_by == ("S2.L3", "S3:sch_1")
    assert POOL.get("c").details["S3"] == {"schema_id": "sch_1"}


def test_display_order_is_schema_hits_then_structural_then_semantic_then_id():
    # c is a schema hit (S3 is searched first, spec §7); a and b have structural rank 1 and b
    # was also found by M (rank 7); d only by M
    assert POOL.ids() == ["c", "b", "a", "d"]
    assert POOL.get("d").structural_rank is None and POOL.get("d").semantic_rank == 1


def test_parametric_proposals_stay_out_of_the_candidates():
    assert "parametric:1" not in POOL.ids()
    assert [h.detail["case"] for h in POOL.parametric] == ["Goodhart's law"]


def test_found_by_accepts_channel_or_family():
    assert POOL.found_by("S2.L3") == ["b", "c"]
    assert POOL.found_by("M") == ["d", "b"]


def test_json_shape():
    data = POOL.to_json()
    assert set(data) == {"target", "channels", "candidates", "parametric", "skipped", "excluded"}
    first = data["candidates"][0]
    assert {"episode_id", "found_by", "ranks", "scores", "semantic_rank", "structural_rank"} <= set(
        first
    )
    assert data["skipped"] == {"S0": "no fingerprints"}
    assert "skipped S0: no fingerprints" in POOL.format()


def test_memory_search_keeps_parametric_apart(memory):
    llm = ScriptedLLM().enqueue({"proposals": [{"case": "Map and territory", "why": "x"}]})
    m = Memory(memory.store, llm=llm)
    pool = m.search("proxy")
    assert pool.channels[-1] == "P"
    assert [h.episode_id for h in pool.parametric] == ["parametric:1"]
    assert all(not c.episode_id.startswith("parametric") for c in pool.candidates)
    assert all("P" not in c.ranks for c in pool.candidates)
