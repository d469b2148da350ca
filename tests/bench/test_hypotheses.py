"""Spec §21 comparisons, H1–H6 verdicts and the Result A–F classification of spec §26."""

from __future__ import annotations

from dataclasses import replace

import pytest

from analogist.bench.analysis.classify import classify
from analogist.bench.analysis.hypotheses import (
    ARMS,
    MIN_ITEMS,
    PREREGISTERED,
    RECALL5_FAR,
    Comparison,
    HypothesisReport,
    Verdict,
    canonical_arm,
    evaluate,
)
from analogist.bench.analysis.score_record import Score
from analogist.bench.analysis.stats import Interval
from analogist.errors import BenchError

N = 20
#: The decision rules under test with a minimum of two items (the fixture has 20 per family;
#: the power-calculated minimum is tested on its own below).
SMALL_N = replace(PREREGISTERED, min_items={h: 2 for h in MIN_ITEMS})


def arm(
    name: str,
    *,
    useful: int = 0,
    recall: int = 0,
    f8: int = 0,
    f6_fp: int = 0,
    novel: int = 0,
    answerer: str = "model",
) -> list[Score]:
    """N far F7 items (odd ids private, even nonce synthetic), N F8 items, N F6 items.

    Effects are nested (item i succeeds when i < count), so arms differ on known items.
    """
    rows = []
    for i in range(N):
        u = i < useful
        rows.append(
            Score(
                f"f7-{i}",
                "F7",
                name,
                answerer,
                far=True,
                nonce=True,
                item_source="private" if i % 2 else "synthetic",
                gold_source=f"s{i}",
                retrieved=(f"s{i}",) if i < recall else ("other",),
                claimed_source=f"s{i}" if u else None,
                proposed=u,
                executable=True,
                applied_action=u,
                outcome="resolved" if u else None,
                novel=u and i < novel,
            )
        )
        rows.append(
            Score(
                f"f8-{i}",
                "F8",
                name,
                answerer,
                gold_source=f"r{i}",
                claimed_source=f"r{i}" if i < f8 else None,
                proposed=i < f8,
            )
        )
        rows.append(
            Score(
                f"f6-{i}",
                "F6",
                name,
                answerer,
                has_valid_source=False,
                claimed_source="x" if i < f6_fp else None,
                proposed=i < f6_fp,
            )
        )
    return rows


def full_run(**overrides) -> dict[tuple[str, str], list[Score]]:
    spec = {
        "A0": {"useful": 2},
        "A1": {"useful": 3},
        "B": {"useful": 5, "recall": 6},
        "B′": {"useful": 5, "recall": 6},
        "C": {"useful": 8, "recall": 16},
        "C′": {"useful": 5, "recall": 5},
        "H": {"useful": 8, "recall": 17},
        "D": {"useful": 14, "recall": 16},
        "E": {"useful": 20, "recall": 16, "f8": 4},
        "G": {"useful": 20, "recall": 20, "f8": 20},
        "E+R": {"useful": 20, "recall": 16, "f8": 12},
        "E+Bld": {"useful": 20, "recall": 16, "f8": 4, "novel": 10},
    }
    spec.update(overrides)
    return {(a, "model"): arm(a, **kw) for a, kw in spec.items() if kw is not None}


@pytest.fixture(scope="module")
def report() -> HypothesisReport:
    return evaluate(full_run(), "model", n_boot=1000, thresholds=SMALL_N)


def test_every_section_21_comparison_is_reported(report):
    names = {c.name for c in report.comparisons}
    assert {
        "A1 - A0",
        "B - A1",
        "C - B′",
        "C - C′",
        "H - max(B,C)",
        "D - C",
        "E - D",
        "G - E",
        "E+R - E",
        "E+Bld - E",
    } <= names
    c = report.comparison("C - B′", RECALL5_FAR.name)
    assert c is not None and c.interval.estimate == pytest.approx((16 - 6) / N)
    h = report.comparison("H - max(B,C)", "recall@5")
    assert h.interval.estimate == pytest.approx(1 / (2 * N))  # 17 vs 16 of 20 F7 + 0 of 20 F8
    assert {b.name for b in report.baselines} == {f"{a} - A1" for a in ARMS[2:] if a != "ISO"}


def test_verdicts_on_a_run_where_everything_works(report):
    status = {v.hypothesis: v.status for v in report.verdicts}
    assert status == {
        "H1": "pass",
        "H2": "pass",
        "H3": "pass",
        "H4": "pass",
        "H5": "pass",
        "H6": "pass",
    }
    assert "no item the metric applies to" in report.verdict("H2").reason  # d′: no decoys
    assert "genuine useful analogical subsystem" in report.verdict("H4").interpretation
    assert report.verdict("H1").threshold.startswith("C - B′ recall@5 on far items >= 0.15")


def test_h1_needs_the_full_fifteen_points():
    r = evaluate(full_run(C={"useful": 8, "recall": 8}), "model", n_boot=1000, thresholds=SMALL_N)
    h1 = r.verdict("H1")  # +10 points, interval above zero, still short of 15
    assert h1.status == "fail" and "+0.100" in h1.reason


def test_h5_fails_on_a_meaningful_false_positive_increase():
    recovered = {"useful": 20, "recall": 16, "f8": 12}
    bumped = full_run(**{"E+R": recovered | {"f6_fp": 2}})  # +10 points of F6 false positives
    assert evaluate(bumped, "model", n_boot=500, thresholds=SMALL_N).verdict("H5").status == "fail"
    small = full_run(**{"E+R": recovered | {"f6_fp": 1}})  # +5 points: not meaningful
    assert evaluate(small, "model", n_boot=500, thresholds=SMALL_N).verdict("H5").status == "pass"


def test_missing_arms_make_hypotheses_not_run_with_the_reason():
    r = evaluate(
        full_run(**{"B′": None, "C′": None}),
        "model",
        n_boot=200,
        thresholds=SMALL_N,
        not_run={"B'": "context matching not built"},
    )
    h1 = r.verdict("H1")
    assert h1.status == "not run"
    assert "arm B′ not run for answerer 'model': context matching not built" in h1.reason
    assert "arm C′ not run" in h1.reason


def test_h4_interpretation_when_only_private_items_improve():
    run = full_run()
    run[("E", "model")] = [
        replace(s, claimed_source=None, proposed=False, applied_action=False, outcome=None)
        if s.family == "F7" and s.item_source == "synthetic"
        else s
        for s in run[("E", "model")]
    ]
    h4 = evaluate(run, "model", n_boot=500, thresholds=SMALL_N).verdict("H4")
    assert h4.status == "fail" and "memory-access improvement" in h4.interpretation
    assert classify(evaluate(run, "model", n_boot=500, thresholds=SMALL_N)).result == "F"


def test_arm_names_and_answerers():
    assert canonical_arm("B'") == "B′" and canonical_arm("E+Bld") == "E+Bld"
    with pytest.raises(BenchError, match="unknown arm"):
        canonical_arm("Z")
    both = {("B'", "model"): arm("B′"), ("B′", "model"): arm("B′")}
    with pytest.raises(BenchError, match="given twice"):
        evaluate(both, "model")
    other = evaluate(full_run(), "engine", n_boot=100, thresholds=SMALL_N)
    assert other.arms_run == () and all(v.status == "not run" for v in other.verdicts)


# --- classification ------------------------------------------------------------------------


def test_classifies_a_run_where_retrieval_and_mapping_win(report):
    c = classify(report)
    assert (c.status, c.result) == ("classified", "C")
    assert c.action == "Proceed to schemas, plan transfer, and live triggers."


def test_result_e_when_nothing_beats_a1():
    same = {a: {"useful": 3} for a in ARMS}
    c = classify(evaluate(full_run(**same), "model", n_boot=300, thresholds=SMALL_N))
    assert (c.status, c.result) == ("classified", "E")
    assert "cost without value" in c.interpretation


def test_engine_runs_without_a1_are_undetermined_not_guessed():
    run = {
        (a, "engine"): arm(a, answerer="engine", **kw)
        for a, kw in {
            "C": {"useful": 8, "recall": 16},
            "D": {"useful": 14, "recall": 16},
            "E": {"useful": 20, "recall": 16},
        }.items()
    }
    c = classify(evaluate(run, "engine", n_boot=300, thresholds=SMALL_N))
    assert c.status == "undetermined" and c.result is None and "E" in c.candidates
    assert "arm A1 not run for answerer 'engine'" in c.rule


def iv(est: float, low: float, high: float) -> Interval:
    return Interval(est, low, high, 20, "bca")


def comp(name: str, metric: str, interval: Interval | None) -> Comparison:
    return Comparison(name, metric, "", interval, "" if interval else "arm not run")


def fake(
    *,
    retrieval: Interval | None,
    h2: str,
    h3: str,
    private: Interval | None,
    synthetic: Interval | None,
    vs_a1: Interval | None,
    a1: bool = True,
) -> HypothesisReport:
    h4 = (
        comp("E - A1", "nav[private]", private),
        comp("E - A1", "nav[nonce synthetic]", synthetic),
    )
    verdicts = tuple(
        Verdict(h, s, "", "")
        for h, s in (
            ("H1", "not run"),
            ("H2", h2),
            ("H3", h3),
            ("H5", "not run"),
            ("H6", "not run"),
        )
    ) + (Verdict("H4", "fail", "", "", h4),)
    return HypothesisReport(
        "model",
        ("A1",) if a1 else (),
        (comp("C - B′", RECALL5_FAR.name, retrieval),),
        (comp("E - A1", "nav", vs_a1),),
        verdicts,
    )


UP, FLAT = iv(0.2, 0.1, 0.3), iv(0.0, -0.1, 0.1)


@pytest.mark.parametrize(
    "kw, result",
    [
        ({"retrieval": UP, "h2": "fail", "h3": "pass"}, "A"),
        ({"retrieval": FLAT, "h2": "pass", "h3": "fail"}, "B"),
        ({"retrieval": UP, "h2": "pass", "h3": "not run"}, "C"),  # H3 unknown but cannot matter
        ({"retrieval": FLAT, "h2": "fail", "h3": "pass"}, "D"),
        ({"retrieval": UP, "h2": "pass", "h3": "pass", "private": UP, "synthetic": FLAT}, "F"),
    ],
)
def test_decision_rules(kw, result):
    args = {"private": UP, "synthetic": UP, "vs_a1": UP} | kw
    c = classify(fake(**args))
    assert (c.status, c.result) == ("classified", result)


def test_unknown_fact_that_matters_is_named():
    c = classify(fake(retrieval=None, h2="fail", h3="fail", private=UP, synthetic=UP, vs_a1=UP))
    assert c.status == "undetermined" and c.candidates == ("A", "none")
    assert c.rule.startswith("could be A or none: retrieval unknown")


def test_no_class_applies_is_said_plainly():
    c = classify(fake(retrieval=FLAT, h2="fail", h3="fail", private=UP, synthetic=UP, vs_a1=UP))
    assert (c.status, c.result) == ("unclassified", None)


def test_below_the_power_calculated_minimum_a_verdict_is_insufficient_data():
    assert MIN_ITEMS == {"H1": 88, "H2": 197, "H3": 197, "H4": 197, "H5": 88, "H6": 197}
    r = evaluate(full_run(), "model", n_boot=300)
    for h in ("H1", "H2", "H3", "H5", "H6"):
        v = r.verdict(h)
        assert v.status == "insufficient data", (h, v.status, v.reason)
        assert v.min_items == MIN_ITEMS[h] and "needed" in v.reason and v.family_counts
    # per-family counts beside the verdict: H5 reads F8 recovery and F6 false positives
    assert r.verdict("H5").family_counts == {"F6": N, "F8": N}
    assert classify(r).status != "classified" or classify(r).result != "C"


def test_a_zero_width_interval_never_passes():
    """Three identical items give [1, 1]: the verdict must not read pass."""

    def rows(arm_name: str, useful: bool) -> list[Score]:
        return [
            Score(
                f"f8-{i}",
                "F8",
                arm_name,
                "model",
                gold_source=f"r{i}",
                claimed_source=f"r{i}" if useful else None,
                proposed=useful,
            )
            for i in range(3)
        ] + [Score(f"f6-{i}", "F6", arm_name, "model", has_valid_source=False) for i in range(3)]

    run = {("E", "model"): rows("E", False), ("E+R", "model"): rows("E+R", True)}
    v = evaluate(run, "model", n_boot=200, thresholds=SMALL_N).verdict("H5")
    assert v.status == "insufficient data" and "zero width" in v.reason
