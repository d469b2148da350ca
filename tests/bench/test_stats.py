"""Paired BCa bootstrap over items: known cases, the BCa formula, pairing, determinism, edges."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest

from analogist.bench.analysis import metrics as m
from analogist.bench.analysis.metrics import Metric, ratio
from analogist.bench.analysis.score_record import Score
from analogist.bench.analysis.stats import bca_bounds, bootstrap, paired_contrast, paired_difference
from analogist.errors import BenchError

MEAN = Metric("mean_wall_ms", ("wall_ms", "rows"), lambda s: (s.wall_ms, 1.0), ratio, True)
PHI = NormalDist()


def sample(values, arm: str = "A", prefix: str = "i") -> list[Score]:
    return [
        Score(f"{prefix}{i}", "F1", arm, "engine", wall_ms=float(v)) for i, v in enumerate(values)
    ]


def test_mean_of_a_normal_sample_matches_percentile_and_t_intervals():
    x = np.random.default_rng(7).normal(100.0, 15.0, 200)
    r = bootstrap(MEAN, sample(x), n_boot=4000, seed=1)
    se = x.std(ddof=1) / math.sqrt(len(x))
    t975 = 1.9720  # Student t, 199 degrees of freedom
    assert r.method == "bca" and r.n_items == 200 and r.note == ""
    assert r.estimate == pytest.approx(x.mean())
    assert r.low == pytest.approx(x.mean() - t975 * se, abs=0.15 * se)
    assert r.high == pytest.approx(x.mean() + t975 * se, abs=0.15 * se)


def test_bca_formula_on_hand_computed_cases():
    reps = (np.arange(1000) + 0.5) / 1000  # uniform quantiles on (0, 1)
    symmetric = np.array([1.0, 2.0, 3.0])  # acceleration 0
    # z0 = 0, a = 0: the percentile interval
    low, high, method, _ = bca_bounds(0.5, reps, symmetric, 0.95)
    assert method == "bca" and (low, high) == pytest.approx((0.025, 0.975), abs=1e-3)
    # z0 = Φ⁻¹(0.6), a = 0: levels Φ(2 z0 ∓ 1.96)
    z0 = PHI.inv_cdf(0.6)
    low, high, _, _ = bca_bounds(0.6, reps, symmetric, 0.95)
    assert low == pytest.approx(PHI.cdf(2 * z0 - 1.959964), abs=1e-3)
    assert high == pytest.approx(PHI.cdf(2 * z0 + 1.959964), abs=1e-3)
    # z0 = 0, jackknife (0, 0, 0, 3): d = (.75, .75, .75, -2.25), a = -10.125 / (6 * 6.75^1.5)
    a = -10.125 / (6 * 6.75**1.5)
    low, high, _, _ = bca_bounds(0.5, reps, np.array([0.0, 0.0, 0.0, 3.0]), 0.95)
    assert a == pytest.approx(-0.096225, abs=1e-6)
    assert low == pytest.approx(PHI.cdf(-1.959964 / (1 + a * 1.959964)), abs=1e-3)
    assert high == pytest.approx(PHI.cdf(1.959964 / (1 - a * 1.959964)), abs=1e-3)


def test_bca_falls_back_to_percentile_and_says_why():
    reps = np.linspace(0, 1, 101)
    assert bca_bounds(2.0, reps, np.array([1.0, 2.0]), 0.95)[2:] == (
        "percentile",
        ["BCa undefined: the estimate lies outside the bootstrap distribution"],
    )
    assert (
        "leave-one-item-out values are equal"
        in bca_bounds(0.5, reps, np.array([1.0, 1.0]), 0.95)[3][0]
    )
    assert bca_bounds(0.5, np.full(10, np.nan), np.ones(2), 0.95)[2] == "none"


def test_same_seed_same_interval_other_seed_other_interval():
    scores = sample(np.random.default_rng(3).exponential(10.0, 30))
    a, b = bootstrap(MEAN, scores, seed=5), bootstrap(MEAN, scores, seed=5)
    assert a == b
    assert bootstrap(MEAN, scores, seed=6).low != a.low


def test_identical_arms_differ_by_exactly_zero_with_zero_width():
    scores = sample(np.random.default_rng(4).normal(50, 10, 40))
    r = paired_difference(MEAN, scores, list(scores))
    assert (r.estimate, r.low, r.high) == (0.0, 0.0, 0.0)
    assert r.method == "percentile" and "all bootstrap replicates are equal" in r.note
    assert not r.excludes_zero


def test_pairing_removes_item_difficulty():
    x = np.random.default_rng(5).normal(100, 30, 50)  # items differ a lot
    control, treated = sample(x, "C"), sample(x + 2.0, "D")
    r = paired_difference(MEAN, treated, control)
    assert r.estimate == pytest.approx(2.0) and r.high - r.low < 1e-9 and r.excludes_zero


def test_ratio_metrics_are_recomputed_on_each_resample():
    def decoy(i: int, valid: bool, accepted: bool, arm: str) -> Score:
        return Score(
            f"d{i}",
            "F2",
            arm,
            "engine",
            offered_is_valid=valid,
            accepted=accepted,
            proposed=accepted,
        )

    good = [decoy(i, i < 10, i < 9, "D") for i in range(20)]
    poor = [decoy(i, i < 10, i % 2 == 0, "C") for i in range(20)]
    r = paired_difference(m.dprime, good, poor, seed=2)
    assert r.estimate == pytest.approx(m.dprime(good) - m.dprime(poor))
    assert r.low < r.estimate < r.high and r.n_items == 20
    few = [decoy(0, True, True, "D"), decoy(1, True, True, "D"), decoy(2, False, False, "D")]
    r = bootstrap(m.dprime, few, n_boot=500)  # resamples without an invalid decoy: undefined
    assert "replicates undefined and dropped" in r.note


def test_contrast_against_the_better_of_two_controls():
    h, b, c = sample([3, 3, 3, 3], "H"), sample([1, 1, 1, 1], "B"), sample([2, 2, 2, 2], "C")
    r = paired_contrast(MEAN, [h, b, c], lambda v: v[0] - max(v[1:]), n_boot=200)
    assert r.estimate == pytest.approx(1.0) and (r.low, r.high) == pytest.approx((1.0, 1.0))


def test_degenerate_inputs():
    empty = bootstrap(MEAN, [])
    assert math.isnan(empty.estimate) and empty.method == "none" and empty.n_items == 0
    one = bootstrap(MEAN, sample([4.0]))
    assert one.estimate == 4.0 and math.isnan(one.low) and one.note == "only 1 item"
    undefined = bootstrap(m.dprime, sample([1.0, 2.0, 3.0]))  # no decoy offers at all
    assert undefined.method == "none" and undefined.n_items == 0
    with pytest.raises(BenchError, match="n_boot"):
        bootstrap(MEAN, sample([1.0, 2.0]), n_boot=0)


def test_only_items_scored_in_every_arm_are_paired():
    a, b = sample([1, 2, 3, 4], "A"), sample([1, 2, 3], "B")
    r = paired_difference(MEAN, a, b, n_boot=200)
    assert r.n_items == 3 and r.note.startswith("1 unpaired item(s) dropped")
    assert r.estimate == 0.0
