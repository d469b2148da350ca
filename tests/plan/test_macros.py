"""Macro-actions from verified transfers: lifting, counting, composition, search, fallback."""

from __future__ import annotations

from analogist.bench.suites.planning.world import SKINS, operators
from analogist.plan.macros import (
    Macro,
    Transfer,
    expand,
    learn_macros,
    plan_with_macros,
    with_macros,
)
from analogist.plan.planner import Planner
from analogist.signature.plan_block import PlanBlock, Step
from tests.plan.helpers import pair


def transfer(tid: str, skin: int, steps: list[list[str]]) -> Transfer:
    block = PlanBlock((("at", 2),), operators(SKINS[skin]), (), ())
    return Transfer(tid, block, (), tuple(Step(s[0], tuple(s[1:])) for s in steps))


def test_windows_are_counted_across_skins_by_structure_and_composed():
    a = transfer(
        "t1", 0, [["drive", "x", "p", "q"], ["load", "x", "i", "q"], ["drive", "x", "q", "r"]]
    )
    b = transfer(
        "t2", 1, [["hop", "y", "m", "n"], ["fetch", "y", "j", "n"], ["deploy", "y", "j", "n"]]
    )
    ref, macros = learn_macros([a, b], min_support=2)
    assert ref is a.block
    assert [m.parts for m in macros] == [(("drive", (0, 1, 2)), ("load", (0, 3, 2)))]
    assert macros[0].support == 2
    block, parts = with_macros(b.block, ref, macros)
    macro = block.operator("macro0")
    assert macro is not None and parts["macro0"] == (("hop", (0, 1, 2)), ("fetch", (0, 3, 2)))
    pre = {f[0] for f in macro.pre}
    assert pre == {"at", "link", "open", "lies"} and ("carries", "?m0", "?m3") in macro.add
    assert ("at", "?m0", "?m1") in macro.delete and ("at", "?m0", "?m2") in macro.add


def test_a_window_that_needs_a_deleted_fact_is_not_a_macro():
    # unload then unload the same item again: the second needs carries(), which the first deleted
    t = transfer("t", 0, [["unload", "x", "i", "p"], ["unload", "x", "i", "p"]])
    _, macros = learn_macros([t, t], min_support=1)
    assert macros == ()


def test_search_with_macros_gives_a_valid_primitive_plan():
    target, _, _, _ = pair()
    ref = PlanBlock(target.block.predicates, operators(SKINS[1]), (), ())
    go, take = operators(SKINS[1])[0].name, operators(SKINS[1])[1].name
    macros = (Macro("macro0", ((go, (0, 1, 2)), (take, (0, 3, 2))), 2),)
    rep = plan_with_macros(target.block, dict(target.roles), ref, macros, Planner("bfs"))
    assert rep.valid and rep.mode in ("macro", "fallback")
    assert all(not s.operator.startswith("(macro") for s in rep.steps)


def test_expand_replaces_each_macro_by_its_parts():
    steps = expand(
        ["(macro0 a p q i)", "(put a i q)"], {"macro0": (("go", (0, 1, 2)), ("take", (0, 3, 2)))}
    )
    assert [s.operator for s in steps] == ["(go a p q)", "(take a i q)", "(put a i q)"]
    assert [s.provenance for s in steps] == ["macro", "macro", "planner"]


def test_without_macros_the_planner_runs_alone_and_says_so():
    target, _, _, _ = pair()
    rep = plan_with_macros(target.block, dict(target.roles), None, (), Planner("bfs"))
    assert rep.mode == "fallback" and rep.valid and "no macros" in rep.reason
