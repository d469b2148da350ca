"""Projection and repair: structural operator matching, step statuses, repair and fallback."""

from __future__ import annotations

from dataclasses import replace

from analogist.bench.suites.planning.world import SKINS, operators
from analogist.plan.planner import Planner
from analogist.plan.repair import RepairPolicy, repair, validate
from analogist.plan.skeleton import MATCHED, MISSING, UNMATCHED, operator_map, project
from analogist.signature.plan_block import OperatorSchema, PlanBlock
from tests.plan.helpers import pair


def test_operators_match_by_structure_across_skins_and_parameter_orders():
    src = PlanBlock((("at", 2),), operators(SKINS[0]), (), ())
    go = operators(SKINS[1])[0]
    flipped = OperatorSchema(
        "zz", (go.params[2], go.params[0], go.params[1]), go.pre, go.add, go.delete
    )
    tgt = PlanBlock((("at", 2),), (*operators(SKINS[1])[1:], flipped), (), ())
    m = operator_map(src, tgt)
    assert m["drive"].target == "zz" and m["drive"].order == (2, 0, 1)
    assert {m[a].target for a in ("load", "unload", "clear")} == {"fetch", "deploy", "authorize"}


def test_the_gold_skeleton_of_a_near_analogue_marks_the_subdivided_link():
    target, source, gold, gt = pair()
    sk = project("s", source, target.block, gold, gt)
    assert len(sk.steps) == len(source.steps)
    assert sk.count(MATCHED) > 0
    missing = [s for s in sk.steps if s.status == MISSING]
    assert all(s.why for s in missing)
    assert all(s.missing for s in sk.steps if s.status == UNMATCHED)


def test_repair_reaches_the_goal_with_fewer_expansions_than_the_planner_alone():
    target, source, gold, gt = pair()
    bfs = Planner("bfs")
    rep = repair(gt, project("s", source, target.block, gold, gt), bfs)
    alone = bfs.solve(gt.task)
    assert rep.mode == "skeleton" and rep.valid and validate(gt, rep.operators)
    assert rep.expansions < alone.expansions
    assert {s.provenance for s in rep.steps} <= {"skeleton", "repair"}


def test_a_skeleton_of_missing_operators_is_rejected_and_the_planner_runs_alone():
    target, source, _, gt = pair()
    sk = project("s", source, target.block, {}, gt)  # no role map: nothing can be written
    assert sk.count(MISSING) == len(sk.steps)
    rep = repair(gt, sk, Planner("bfs"))
    assert rep.mode == "fallback" and rep.valid and "rejected before search" in rep.reason


def test_a_failing_subgoal_abandons_the_skeleton_without_losing_the_plan():
    target, source, gold, gt = pair()
    sk = project("s", source, target.block, gold, gt)
    unmatched = replace(
        sk,
        steps=tuple(replace(s, status=UNMATCHED) if s.status == MATCHED else s for s in sk.steps),
    )
    tight = RepairPolicy(segment_budget=1)
    state_changes = [s for s in unmatched.steps if s.status == UNMATCHED]
    assert state_changes
    rep = repair(gt, unmatched, Planner("bfs"), tight)
    assert rep.valid and rep.mode in ("skeleton", "fallback")
    if rep.mode == "fallback":
        assert "abandoned" in rep.reason or "goal not reached" in rep.reason
