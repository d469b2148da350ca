"""On the bundled example memory, structural channels find far twins and M finds lookalikes.

``example_memory_pairs.json`` lists structural-twin groups (one deep structure across distant
domains) and surface-lookalike pairs (shared domain words, different mechanism). Each twin is
searched by id (itself excluded). Figures at the time of writing (66 episodes, 17 groups, 60
twin targets, 12 lookalike pairs): a twin in the top 5 for S0 59/60, S1 60/60, S2.L2 55/60,
S2.L3 34/60 targets; the lookalike partner in the top 5 for M.bm25 24/24, M.emb 11/24 and
for S0/S1 0/24.
"""

from __future__ import annotations

import json
from importlib import resources

import pytest

from analogist.memory import Memory

DATA = resources.files("analogist.data")
pytestmark = pytest.mark.skipif(
    not DATA.joinpath("example_memory_pairs.json").is_file(), reason="example memory not bundled"
)


@pytest.fixture(scope="module")
def setup():
    m = Memory(":memory:")
    report = m.add(DATA.joinpath("example_memory.jsonl").read_text("utf-8").splitlines())
    assert not report.rejected, report.rejected
    pairs = json.loads(DATA.joinpath("example_memory_pairs.json").read_text("utf-8"))
    pools = {eid: m.search(eid, k=5) for eid in m.store.episode_ids()}
    yield pools, pairs
    m.store.close()


def top5(pool, channel):
    return [h.episode_id for h in pool.hits.get(channel, ())][:5]


def twin_rate(pools, groups, channels):
    hits = total = 0
    for group in groups:
        for target in group:
            total += 1
            found = {e for ch in channels for e in top5(pools[target], ch)}
            hits += bool(found & (set(group) - {target}))
    return hits / total


@pytest.mark.parametrize(
    "channels, floor",
    [
        (("S0",), 0.9),
        (("S1",), 0.9),
        (("S2.L2",), 0.85),
        (("S2.L2", "S2.L3"), 0.9),
    ],
)
def test_structural_channels_rank_a_twin_in_the_top_5(setup, channels, floor):
    pools, pairs = setup
    assert twin_rate(pools, pairs["structural_twins"], channels) >= floor


def lookalike_rate(pools, pairs, channels):
    found = 0
    for a, b in pairs:
        for target, other in ((a, b), (b, a)):
            found += any(other in top5(pools[target], ch) for ch in channels)
    return found / (2 * len(pairs))


def test_m_ranks_surface_lookalikes_high_and_s0_s1_do_not(setup):
    pools, pairs = setup
    looks = pairs["surface_lookalikes"]
    assert lookalike_rate(pools, looks, ("M.emb", "M.bm25")) >= 0.9
    assert lookalike_rate(pools, looks, ("S0", "S1")) <= 0.05


def test_a_twin_has_structural_rank_1_in_the_pool(setup):
    pools, pairs = setup
    ok = total = 0
    for group in pairs["structural_twins"]:
        for target in group:
            total += 1
            firsts = {c.episode_id for c in pools[target].candidates if c.structural_rank == 1}
            ok += bool(firsts & set(group))
    assert ok / total >= 0.95
