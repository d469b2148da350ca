"""PARB worlds: every symptom is real, every world's own fix resolves it, and every fix
transferred from a motif to its minimal-pair decoy fails (unchanged or worse)."""

from __future__ import annotations

import pytest

from analogist.bench import check_fix, world_for
from analogist.bench.generation.motifs import all_motifs, motif
from analogist.bench.generation.simulate import Dynamics, Graph, canonical, run
from analogist.bench.generation.world import PRESENT, judge
from analogist.errors import BenchError
from analogist.signature import default_vocabulary, parse_term

MOTIFS = all_motifs()
IDS = [m.name for m in MOTIFS]
SEEDS = range(4)


@pytest.mark.parametrize("m", MOTIFS, ids=IDS)
def test_every_world_shows_its_symptom_and_its_own_fix_resolves_it(m):
    for variant, fix in [
        ("true", m.fix),
        (m.partial.name, m.partial.fix),
        *((d.name, d.fix) for d in m.decoys),
    ]:
        world = world_for(m, variant)
        for seed in SEEDS:
            outcome = world.simulate(fix, seed)
            assert outcome.control >= PRESENT, (variant, seed)
            assert outcome.result == "resolved", (variant, fix, seed, outcome)


@pytest.mark.parametrize("m", MOTIFS, ids=IDS)
def test_alternative_fixes_resolve_and_wrong_fixes_do_not(m):
    world = world_for(m)
    for seed in SEEDS:
        for fix in m.alt_fixes:
            assert world.simulate(fix, seed).result == "resolved", fix
        for fix in m.wrong_fixes:
            assert world.simulate(fix, seed).result in ("unchanged", "worse"), fix


@pytest.mark.parametrize("m", MOTIFS, ids=IDS)
def test_source_fix_fails_in_every_decoy_and_transfers_to_the_partial_variant(m):
    for seed in SEEDS:
        for d in m.decoys:
            assert world_for(m, d.name).simulate(m.fix, seed).result in ("unchanged", "worse")
        assert world_for(m, m.partial.name).simulate(m.fix, seed).result == "resolved"


def test_flipped_decoys_make_the_transferred_fix_worse():
    flips = [(m, d) for m in MOTIFS for d in m.decoys if d.edit.kind == "flip_polarity"]
    assert len(flips) >= 4
    for m, d in flips:
        assert world_for(m, d.name).simulate(m.fix, 0).result == "worse", m.name


def test_simulation_is_deterministic_and_seeded():
    w = world_for("retry_amplification")
    assert w.simulate("backoff(CLI,SRV)", 3) == w.simulate("backoff(CLI,SRV)", 3)
    stale = world_for("stale_copy")
    assert stale.simulate(None, 3).control != stale.simulate(None, 4).control


def test_unknown_operator_wrong_arity_and_wrong_roles_change_nothing():
    w = world_for("stale_copy")
    for fix in ("teleport(CON)", "reconcile(CON,DER)", "reconcile(SRC,CON,DER)"):
        assert w.simulate(fix, 1).result == "unchanged", fix
    with pytest.raises(BenchError):
        w.simulate("reconcile(CON", 1)


def test_judge_thresholds():
    assert judge(0.9, 0.05) == "resolved"
    assert judge(0.9, 0.5) == "unchanged"
    assert judge(0.5, 0.9) == "worse"
    assert judge(0.1, 0.0) == "unchanged"  # no symptom to resolve


def test_feedback_loop_runs_away_and_damping_stops_it():
    w = world_for("positive_feedback")
    assert w.simulate(None, 0).control > 3.0
    assert w.severity(parse_term("rate_limit(DMP,ACT)"), 0) < 0.01


def test_engine_rejects_a_cycle_without_feedback_link():
    from analogist.bench.generation.signatures import gold_raw
    from analogist.signature import parse_signature

    raw = gold_raw(motif("retry_amplification"))
    raw["causal_chain"][2][1] = "causes"
    with pytest.raises(BenchError, match="cycle"):
        Graph(parse_signature(raw, default_vocabulary()))


def test_strength_keys_name_real_nodes():
    vocab = default_vocabulary()
    for m in MOTIFS:
        graph = world_for(m).graph
        for node in (*m.dynamics.strengths, *m.dynamics.pulses, *m.dynamics.stocks):
            assert canonical(parse_term(node), vocab) in graph.terms, (m.name, node)


def test_check_fix_reads_entity_ids_and_takes_the_worst_seed():
    check = {
        "motif": "circular_wait",
        "variant": "flip_polarity",
        "roles": {"e1": "T1", "e2": "T2", "e3": "L1", "e4": "L2"},
        "seeds": [1, 2, 3],
    }
    assert check_fix(check, "order_locks", ["e2", "e3", "e4"]).result == "worse"
    assert check_fix(check, "order_locks", ["e1", "e4", "e3"]).result == "resolved"
    assert check_fix(check, "order_locks", ["nobody", "e4", "e3"]).result == "unchanged"
    with pytest.raises(BenchError, match="check spec"):
        check_fix({"motif": "circular_wait"}, "order_locks", [])


def test_run_with_no_links_returns_standing_conditions():
    from analogist.bench.generation.signatures import gold_signature

    g = Graph(gold_signature(motif("version_skew")))
    values = run(g, Dynamics(), [], seed=0)
    assert all(v >= 0 for v in values.values())


@pytest.mark.parametrize("m", all_motifs(), ids=lambda m: m.name)
def test_f8_split_fix_is_what_the_search_finds_and_resolves_the_split_world(m):
    from analogist.bench.generation.family_rerepresentation import SPLIT_FIXES, search_split_fix

    assert SPLIT_FIXES[m.name] == search_split_fix(m.name)
    if SPLIT_FIXES[m.name] is not None:
        w = world_for(m, "split")
        assert all(w.simulate(SPLIT_FIXES[m.name], s).result == "resolved" for s in range(6))
