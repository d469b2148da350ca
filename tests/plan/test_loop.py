"""The planning loop on the example memory: retrieval through the channels, SME roles,
projection, repair, and the analogy log and ledger."""

from __future__ import annotations

import pytest

from analogist.cli.memory_cmd import example_memory_lines
from analogist.memory import Memory
from analogist.models.embedders import get_embedder
from analogist.plan.loop import PlanLoop, plan_target
from analogist.plan.planner import Planner
from analogist.signature import parse_signature
from tests.plan.helpers import target_json


@pytest.fixture(scope="module")
def memory():
    m = Memory(":memory:", embedder=get_embedder("hashing"))
    assert not m.add(example_memory_lines()).rejected
    yield m
    m.store.close()


def test_a_runbook_target_reuses_a_staged_change_plan_and_is_logged(memory):
    target = parse_signature(target_json(), memory.store.vocabulary)
    out = plan_target(memory, target, PlanLoop(planner=Planner("bfs")))
    assert out.source_id in ("ep_ops_plan_cert_rotation", "ep_db_plan_replica_migration")
    assert out.skeleton is not None and out.skeleton.count("matched") == 4
    assert out.repair.valid and out.repair.mode == "skeleton"
    assert [s.provenance for s in out.repair.steps] == ["skeleton"] * 4
    run = memory.store.get_run(out.run_id)
    assert run["plan"]["source_id"] == out.source_id and run["verification_result"] == "valid plan"
    ledger = memory.store.ledger(out.run_id)
    assert len(ledger) == 1 and ledger[0].outcome == "resolved" and not ledger[0].negative


def test_a_plan_episode_is_found_by_the_ordinary_search(memory):
    pool = memory.search("ep_ops_plan_cert_rotation", channels="S0,S1", k=5)
    assert "ep_db_plan_replica_migration" in pool.ids()


def test_without_a_usable_source_the_planner_runs_alone_and_says_why(memory):
    raw = target_json()
    raw["relations"] = []  # nothing for the structural channels to index
    target = parse_signature(raw, memory.store.vocabulary)
    out = plan_target(memory, target, PlanLoop(), record=False)
    assert out.source_id is None and out.repair.mode == "planner" and out.repair.valid
    assert out.repair.reason
