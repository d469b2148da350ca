"""The planning bench: deterministic generation, no key in what the system sees, the arms and
their figures, the report section."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from analogist.bench.suites.planning.items import generate_planning, without_key
from analogist.bench.suites.planning.report import run_suite, with_planning
from analogist.bench.suites.planning.run import run_planning
from analogist.bench.suites.planning.summary import paired_interval, summarize
from analogist.plan.planner import Planner


@pytest.fixture(scope="module")
def ci_scores():
    bench = generate_planning(1, "ci")
    return bench, run_planning(bench, [Planner("bfs")])


def test_same_seed_same_bench_and_prior_ids_carry_no_hint():
    a, b = generate_planning(2, "ci"), generate_planning(2, "ci")
    assert [s.to_json() for s in a.prior_plans] == [s.to_json() for s in b.prior_plans]
    assert [i.target.to_json() for i in a.items] == [i.target.to_json() for i in b.items]
    for item in a.items:
        assert item.id not in " ".join(s.episode_id for s in a.prior_plans)
    assert all(s.plan is not None and s.plan.outcome == "succeeded" for s in a.prior_plans)


def test_the_system_sees_no_key():
    item = generate_planning(2, "ci").items[0]
    seen = without_key(item)
    assert seen.true_source is None and seen.decoy_source is None and seen.gold_map == ()
    assert seen.target.plan is not None and seen.target.plan.steps == ()


def test_every_arm_solves_every_item_and_the_oracle_bounds_the_expansions(ci_scores):
    bench, scores = ci_scores
    arms = {(s.item, s.arm): s for s in scores}
    assert all(s.solved for s in scores)
    for item in bench.items:
        if item.kind == "analogue":
            assert arms[(item.id, "oracle")].expansions <= arms[(item.id, "planner")].expansions
        else:
            assert (item.id, "decoy") not in arms and (item.id, "oracle") not in arms


def test_summary_and_criterion(ci_scores):
    _, scores = ci_scores
    s = summarize(scores, n_boot=200)
    arms = {(a.arm, a.kind) for a in s.arms}
    assert {
        ("planner", "all"),
        ("analogy", "all"),
        ("decoy", "analogue"),
        ("oracle", "analogue"),
    } <= arms
    crit = s.criterion["pyperplan bfs"]
    assert set(crit) == {
        "fewer_expansions",
        "less_time",
        "success_not_lower",
        "no_success_loss_from_decoys",
        "met",
    }


def test_paired_interval_is_a_ratio_of_sums_with_an_interval():
    import numpy as np

    a, b = np.array([1.0, 2.0, 3.0, 4.0]), np.array([2.0, 4.0, 6.0, 9.0])
    iv = paired_interval(a, b, lambda x, y: float(x.sum() / y.sum()), 500, 0)
    assert iv.estimate == pytest.approx(10 / 21) and iv.low <= iv.estimate <= iv.high


def test_suite_writes_its_files_and_its_report_section(tmp_path):
    (tmp_path / "report.html").write_text("<html><main><h1>PARB</h1></main></html>")
    res = run_suite(1, "ci", tmp_path, planners=(Planner("gbfs", "hadd"),), n_boot=100)
    doc = json.loads((tmp_path / "planning.json").read_text())
    assert doc["oracle_arms"] == ["oracle"] and doc["scores"]
    html = (tmp_path / "report.html").read_text()
    assert html.count('<section id="planning">') == 1 and "ORACLE" in html
    assert with_planning(html, tmp_path).count('<section id="planning">') == 1
    assert "criterion (pyperplan gbfs+hadd)" in res["text"]


def test_bench_run_suite_planning_cli(tmp_path):
    r = CliRunner().invoke(
        __import__("analogist.cli.main", fromlist=["cli"]).cli,
        [
            "bench",
            "run",
            "--suite",
            "planning",
            "--size",
            "ci",
            "--n-boot",
            "50",
            "--out",
            str(tmp_path),
            "--json",
        ],
    )
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["json"].endswith("planning.json")
    bad = CliRunner().invoke(
        __import__("analogist.cli.main", fromlist=["cli"]).cli,
        ["bench", "run", "--suite", "planning", "--size", "huge", "--out", str(tmp_path)],
    )
    assert bad.exit_code == 1 and "size 'huge'" in bad.output


def test_trap_decoys_lose_no_plan_dropped_or_abandoned():
    """A trap decoy's skeleton walks into the target's dead end (unless SME's role map routes it
    elsewhere). The relaxed dead-end check drops that step and the skeleton goes on; without the
    check the next subgoal is unsolvable, the skeleton is abandoned and the planner alone still
    solves the target. No trap item loses its plan either way."""
    from analogist.bench.suites.planning.run import open_memory, run_item
    from analogist.plan.loop import PlanLoop
    from analogist.plan.repair import RepairPolicy

    planner = Planner("gbfs", "hadd")
    on, off = PlanLoop(planner=planner), PlanLoop(planner, RepairPolicy(dead_end_check=False))
    checked, unchecked = [], []
    for seed in range(3):
        bench = generate_planning(seed, "ci")
        with open_memory(bench) as memory:
            for item in (i for i in bench.items if i.decoy_kind == "trap"):
                checked += run_item(memory, item, planner, on, ("decoy",))
                unchecked += run_item(memory, item, planner, off, ("decoy",))
    assert checked and all(s.solved for s in checked + unchecked)
    assert any(s.mode == "fallback" and "abandoned" in s.reason for s in unchecked)
    assert all(s.mode == "skeleton" for s in checked)
