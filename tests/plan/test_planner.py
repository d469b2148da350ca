"""The planner wrapper: pyperplan's expansion count, the budget, and settings checks."""

from __future__ import annotations

import logging

import pytest

from analogist.plan.pddl import PlanningError, from_pddl, to_pddl
from analogist.plan.planner import Planner
from analogist.plan.repair import validate
from tests.plan.helpers import pair


@pytest.mark.parametrize("search, heuristic", [("bfs", "hff"), ("astar", "hmax"), ("gbfs", "hff")])
def test_expansions_equal_the_count_pyperplan_logs(caplog, search, heuristic):
    _, _, _, gt = pair()
    with caplog.at_level(logging.INFO):
        r = Planner(search, heuristic).solve(gt.task)
    logged = [int(m.split()[0]) for m in caplog.messages if m.endswith("Nodes expanded")]
    assert r.solved and validate(gt, r.plan)
    assert logged == [r.expansions]


def test_the_budget_stops_a_search_and_says_so():
    _, _, _, gt = pair()
    r = Planner("bfs", max_expansions=10).solve(gt.task)
    assert r.status == "budget" and r.plan == () and r.expansions == 10


def test_an_unknown_search_or_heuristic_is_one_clear_error():
    with pytest.raises(PlanningError, match="search 'dfs'"):
        Planner("dfs")
    with pytest.raises(PlanningError, match="heuristic 'magic'"):
        Planner("gbfs", "magic")


def test_pddl_round_trip_keeps_the_problem():
    target, _, _, _ = pair()
    block, roles = from_pddl(to_pddl(target.block, dict(target.roles)))
    assert set(block.init) == set(target.block.init) and set(block.goal) == set(target.block.goal)
    assert roles == dict(target.roles)
    assert {o.shape() for o in block.operators} == {o.shape() for o in target.block.operators}


def test_broken_pddl_is_a_planning_error():
    from analogist.plan.pddl import PddlText

    with pytest.raises(PlanningError, match="could not be parsed"):
        from_pddl(PddlText("(define (domain x", "(define (problem y)"))


def test_a_search_repeats_exactly_in_another_process_with_other_string_hashing():
    """pyperplan orders operators by set iteration; the wrapper sorts successors, so bfs and
    gbfs+hadd give the same plan and expansions whatever PYTHONHASHSEED is."""
    import os
    import subprocess
    import sys

    code = (
        "from tests.plan.helpers import pair\nfrom analogist.plan.planner import Planner\n"
        "_, _, _, gt = pair()\nfor p in (Planner('bfs'), Planner('gbfs', 'hadd')):\n"
        "    r = p.solve(gt.task); print(r.expansions, r.plan)\n"
    )
    outs = {
        subprocess.run(
            [sys.executable, "-W", "ignore", "-c", code],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": h},
            check=True,
        ).stdout
        for h in ("1", "2", "3")
    }
    assert len(outs) == 1 and outs.pop().strip()


def test_pddl_beyond_strips_is_one_line_naming_what_is_read():
    from analogist.plan.pddl import PddlText

    domain = (
        "(define (domain d) (:requirements :strips :negative-preconditions) "
        "(:predicates (p ?x) (q ?x)) (:action a :parameters (?x) "
        ":precondition (and (not (p ?x))) :effect (and (q ?x))))"
    )
    problem = "(define (problem t) (:domain d) (:objects o) (:init (p o)) (:goal (and (q o))))"
    with pytest.raises(PlanningError, match="STRIPS PDDL with :typing"):
        from_pddl(PddlText(domain, problem))
