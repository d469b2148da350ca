"""PARB metrics: every metric against a hand-computed value, and empty input gives nan."""

from __future__ import annotations

import math

import pytest

from analogist.bench.analysis import metrics as m
from analogist.bench.analysis.score_record import Score
from analogist.errors import BenchError


def row(item: str, family: str = "F3", **kw) -> Score:
    return Score(item_id=item, family=family, arm=kw.pop("arm", "E"), answerer="engine", **kw)


def claim(item: str, source: str | None, **kw) -> Score:
    return row(item, claimed_source=source, proposed=source is not None, **kw)


def resolved(item: str, **kw) -> Score:
    """A useful analogy: correct claim, action applied, target resolved."""
    return claim(
        item, "s", gold_source="s", executable=True, applied_action=True, outcome="resolved", **kw
    )


# --- Score --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kw, problem",
    [
        ({"family": "F9"}, "family 'F9'"),
        ({"outcome": "resolved"}, "needs applied_action=True"),
        ({"claimed_source": "s"}, "needs proposed=True"),
        ({"gold_source": "s", "has_valid_source": False}, "gold_source is set"),
        ({"confidence": 1.5}, "not a probability"),
        ({"condition": "some_source"}, "condition 'some_source'"),
        ({"role_fn": -1}, "non-negative"),
    ],
)
def test_score_rejects_inconsistent_rows(kw, problem):
    with pytest.raises(BenchError, match=problem):
        row("i1", **{"family": "F3", **kw})


def test_score_json_round_trip_keeps_tuples():
    s = row(
        "i1",
        retrieved=["a", "b"],
        transfer_pairs=[[True, False]],
        keyed_matches=["a"],
        gold_source="b",
    )
    back = Score.from_json(s.to_json())
    assert back == s and back.transfer_pairs[0].decided is True and back.retrieved == ("a", "b")
    with pytest.raises(BenchError, match="unknown field"):
        Score.from_json({**s.to_json(), "colour": "red"})
    with pytest.raises(BenchError, match="needs item_id"):
        Score.from_json({"item_id": "x"})


def test_derived_judgements():
    assert resolved("i").useful and not resolved("i").false_accept
    wrong = claim("i", "x", gold_source="s", executable=True, applied_action=True, outcome="worse")
    assert wrong.false_accept and wrong.negative_transfer and not wrong.useful
    decoy = row("i", offered_is_valid=False, accepted=True, proposed=True)
    assert decoy.false_accept and not decoy.says_no_match
    flat = claim(
        "i", "s", gold_source="s", executable=True, applied_action=True, outcome="unchanged"
    )
    assert not flat.negative_transfer and not flat.useful  # unchanged = control, not N
    keyed = claim("i", "s", gold_source="s", transfer_pairs=[(True, True), (False, False)])
    assert keyed.task_correct is True and keyed.useful  # no executable check: the key decides
    other = claim("i", "t", gold_source="s", keyed_matches=("t",))
    assert other.claim_correct is True


# --- every metric on empty input ------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(m.METRICS))
def test_every_registered_metric_is_nan_on_empty_input(name):
    metric = m.METRICS[name]
    assert math.isnan(metric([]))
    assert isinstance(metric.higher_is_better, bool) and metric.families and metric.description


def test_mixing_arms_is_an_error():
    with pytest.raises(BenchError, match="mix arms"):
        m.nav()([row("i1"), row("i2", arm="D")])


# --- hand-computed values ----------------------------------------------------------------------


def test_recall_at_k_counts_items_with_a_gold_source_in_retrieval_families():
    scores = [
        row("a", gold_source="g", retrieved=("g", "x")),
        row("b", gold_source="g", retrieved=("x", "y", "g")),
        row("c", gold_source="g", retrieved=("x",)),
        row("d", has_valid_source=False, retrieved=("x",)),  # no gold: not counted
        row("e", "F1", gold_source="g"),
    ]  # source given: F1 skipped
    assert m.recall_at_k(1)(scores) == pytest.approx(1 / 3)
    assert m.recall_at_k(5)(scores) == pytest.approx(2 / 3)
    with pytest.raises(BenchError):
        m.recall_at_k(0)


def test_seeds_are_averaged_within_an_item_first():
    scores = [
        row("a", seed=0, gold_source="g", retrieved=("g",)),
        row("a", seed=1, gold_source="g", retrieved=("x",)),
        row("a", seed=2, gold_source="g", retrieved=("x",)),
        row("b", seed=0, gold_source="g", retrieved=("g",)),
    ]
    assert m.recall_at_k(1)(scores) == pytest.approx((1 / 3 + 1) / 2)  # not 2/4


def test_claim_precision_specificity_sensitivity_false_positives():
    valid = [
        claim("a", "g", gold_source="g"),
        claim("b", "x", gold_source="g"),
        claim("c", None, gold_source="g"),
        claim("d", "k", gold_source="g", keyed_matches=("k",)),
    ]
    none = [
        claim("e", None, has_valid_source=False),
        claim("f", "x", has_valid_source=False),
        row("h", has_valid_source=False, offered_is_valid=False, accepted=True, proposed=True),
    ]
    scores = valid + none
    assert m.claim_precision(scores) == pytest.approx(2 / 4)  # a, d right; b, f wrong
    assert m.match_sensitivity(scores) == pytest.approx(2 / 4)  # a, d of a-d
    assert m.no_match_specificity(scores) == pytest.approx(1 / 3)
    assert m.false_positive_rate(scores) == pytest.approx(2 / 3)
    assert math.isnan(m.no_match_specificity(valid))


def test_role_mapping_f1_is_micro_averaged():
    scores = [row("a", "F1", role_tp=3, role_fp=1), row("b", "F1", role_tp=1, role_fn=2)]
    assert m.role_mapping_f1(scores) == pytest.approx(2 * 4 / (2 * 4 + 1 + 2))
    assert math.isnan(m.role_mapping_f1([row("a", "F1")]))


def decoys(hits: int, n_valid: int, false_alarms: int, n_invalid: int) -> list[Score]:
    out = [
        row(f"v{i}", "F2", offered_is_valid=True, accepted=i < hits, proposed=i < hits)
        for i in range(n_valid)
    ]
    return out + [
        row(
            f"n{i}",
            "F2",
            offered_is_valid=False,
            accepted=i < false_alarms,
            proposed=i < false_alarms,
        )
        for i in range(n_invalid)
    ]


def test_dprime_uses_the_log_linear_correction():
    # Hautus (1995): H = (3 + .5)/(4 + 1) = .7, FA = (1 + .5)/(4 + 1) = .3; z(.7) = 0.5244005
    assert m.dprime(decoys(3, 4, 1, 4)) == pytest.approx(2 * 0.5244005127, abs=1e-9)
    # perfect discrimination stays finite: z(.9) - z(.1) = 2 * 1.2815516
    assert m.dprime(decoys(4, 4, 0, 4)) == pytest.approx(2 * 1.2815515655, abs=1e-9)
    assert math.isnan(m.dprime(decoys(2, 2, 0, 0)))  # no invalid offers: undefined


def test_partial_transfer_balanced_accuracy():
    t, f = True, False
    scores = [
        row("a", "F5", transfer_pairs=[(t, t), (t, t), (f, f)]),
        row("b", "F5", transfer_pairs=[(f, t), (t, f)]),
    ]
    assert m.partial_transfer_balanced_accuracy(scores) == pytest.approx((2 / 3 + 1 / 2) / 2)
    assert math.isnan(
        m.partial_transfer_balanced_accuracy([row("a", "F5", transfer_pairs=[(t, t)])])
    )


def test_transfer_accuracy_counts_executable_items_with_a_valid_source():
    scores = [
        resolved("a", family="F4"),
        claim(
            "b",
            "s",
            family="F4",
            gold_source="s",
            executable=True,
            applied_action=True,
            outcome="unchanged",
        ),
        claim("c", None, family="F4", gold_source="s", executable=True),  # no action
        claim("d", None, family="F4", has_valid_source=False, executable=True),
        claim("e", "s", family="F4", gold_source="s"),
    ]  # no check
    assert m.transfer_accuracy(scores) == pytest.approx(1 / 3)


def test_verification_survival_and_negative_transfer_rate():
    scores = [
        claim("a", "s", gold_source="s", survived_verification=True),
        claim("b", "s", gold_source="s", survived_verification=False),
        claim("c", "s", gold_source="s"),
        row("d", survived_verification=True),
    ]  # not proposed
    assert m.verification_survival(scores) == pytest.approx(1 / 2)
    acts = [
        claim(i, "s", gold_source="s", executable=True, applied_action=True, outcome=o)
        for i, o in (("a", "worse"), ("b", "resolved"), ("c", "unchanged"))
    ]
    assert m.negative_transfer_rate(acts + [claim("d", None)]) == pytest.approx(1 / 3)


def test_source_dependence_deltas_read_only_condition_runs():
    ok, bad = [(True, True)], [(False, True)]

    def run(item: str, condition: str | None, pairs) -> Score:
        return row(item, "F1", condition=condition, transfer_pairs=pairs)

    scores = [
        run("a", "correct_source", ok),
        run("a", "no_source", ok),
        run("a", "wrong_source", bad),
        run("b", "correct_source", ok),
        run("b", "no_source", bad),
        run("b", "wrong_source", bad),
        run("b", None, bad),
    ]  # ordinary run
    assert m.source_dependence_delta(scores) == pytest.approx(1.0 - 0.5)
    assert m.wrong_source_delta(scores) == pytest.approx(1.0 - 0.0)
    assert math.isnan(m.source_dependence_delta([run("a", None, ok)]))


def test_brier():
    scores = [
        row("a", confidence=0.8, valid=True),
        row("b", confidence=0.3, valid=False),
        row("c", confidence=0.5),
    ]
    assert m.brier(scores) == pytest.approx((0.04 + 0.09) / 2)


def nav_items() -> list[Score]:
    return [
        resolved("u", novel=True),  # U
        claim(
            "f", "x", gold_source="s", executable=True, applied_action=True, outcome="worse"
        ),  # F and N
        claim("z", None, has_valid_source=False),  # correct decline
        claim(
            "n", "s", gold_source="s", executable=True, applied_action=True, outcome="worse"
        ),  # N
    ]


def test_nav_and_its_companions():
    s = nav_items()  # U=1, F=1, N=2, O=4, proposed=3, valid opportunities=3
    assert m.nav()(s) == pytest.approx((1 - 1 - 2 * 2) / 4)
    assert m.nav(0.5, 1.0)(s) == pytest.approx((1 - 0.5 - 2) / 4)
    assert m.useful_analogy_precision(s) == pytest.approx(1 / 3)
    assert m.yield_(s) == pytest.approx(1 / 3)
    assert m.novel_useful_rate(s) == pytest.approx(1 / 4)
    grid = m.nav_sensitivity(s)
    assert len(grid) == 9 and grid[(1.0, 2.0)] == m.nav()(s)
    assert grid[(2.0, 4.0)] == pytest.approx((1 - 2 - 8) / 4)


def test_nav_ignores_condition_and_lesion_runs():
    s = nav_items()
    extra = [
        claim("u", "x", gold_source="s", condition="wrong_source"),
        claim("u", "x", gold_source="s", lesioned=True),
    ]
    assert m.nav()(s + extra) == m.nav()(s)


def test_cost_per_useful():
    s = [
        resolved("a", tokens=100, calls=2, wall_ms=50.0),
        claim("b", None, gold_source="s", tokens=300, calls=4, wall_ms=150.0),
    ]
    assert m.cost_per_useful(s) == m.CostPerUseful(400.0, 6.0, 200.0)
    assert math.isnan(m.tokens_per_useful(s[1:]))  # nothing useful: undefined


def test_lesion_sensitivity_pairs_reruns_with_intact_runs_of_the_same_seed():
    s = [
        row("a", seed=0, conclusion="x"),
        row("a", seed=0, lesioned=True, conclusion="x"),
        row("a", seed=1, conclusion="x"),
        row("a", seed=1, lesioned=True, conclusion="y"),
        row("b", seed=0, conclusion="z"),
        row("b", seed=0, lesioned=True, conclusion="w"),
        row("c", seed=0, lesioned=True, conclusion="w"),
    ]  # no intact run
    assert m.lesion_sensitivity(s) == pytest.approx((0.5 + 1.0) / 2)


def test_on_restricts_rows_and_names_the_restriction():
    far = m.recall_at_k(5).on(lambda s: s.far, "far")
    scores = [
        row("a", far=True, gold_source="g", retrieved=("g",)),
        row("b", gold_source="g", retrieved=("x",)),
    ]
    assert far.name == "recall@5[far]" and far(scores) == 1.0
    assert m.recall_at_k(5)(scores) == 0.5
