"""Small plan problems for the tests, built from the planning bench's motif."""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

from analogist.bench.suites.planning.world import SKINS, make_layout, render, subdivide
from analogist.plan.pddl import GroundProblem, ground, parse_step_key
from analogist.plan.planner import Planner
from analogist.signature.plan_block import PlanBlock

DATA = Path(__file__).parent / "data"


def target_json() -> dict:
    return json.loads((DATA / "cache_key_rotation.json").read_text("utf-8"))


def pair(seed: int = 3, places: int = 7):
    """A target world and a solved near analogue of it in another skin, with the gold role map."""
    rng = random.Random(seed)
    layout = make_layout(rng, places, 2, 1)
    target = render(layout, SKINS[0], rng)
    source = render(subdivide(layout, rng), SKINS[2], rng)
    gs = ground(source.block, dict(source.roles))
    plan = Planner("gbfs", "hadd").solve(gs.task).plan
    solved: PlanBlock = replace(
        source.block, steps=tuple(parse_step_key(s) for s in plan), outcome="succeeded"
    )
    t = dict(target.names)
    gold = {name: t[i] for i, name in source.names if i in t}
    gt: GroundProblem = ground(target.block, dict(target.roles))
    return target, solved, gold, gt
