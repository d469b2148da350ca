"""Uncertainty for PARB: item-level aggregation and a paired BCa bootstrap over items.

Procedure (DESIGN.md "Statistics"):

1. **Item-level aggregation.** A metric's sufficient statistics are averaged over an item's
   seeds (:meth:`Metric.item_stats`), so an item counts once however many seeds it ran.
2. **Paired resampling.** Item ids are resampled with replacement; every arm in a comparison is
   recomputed on the *same* resample (the same multiset of items), so item difficulty cancels.
   Each resample recomputes the metric's formula from its summed statistics, which keeps ratio
   metrics (d′, NAV, precision) exact rather than averaging per-item ratios.
3. **BCa interval** (Efron 1987): bias correction ``z0 = Φ⁻¹(share of replicates below the
   estimate, ties counted half)``, acceleration from the jackknife over items,
   ``a = Σ(θ̄ − θᵢ)³ / (6 (Σ(θ̄ − θᵢ)²)^{3/2})``, and adjusted percentiles
   ``Φ(z0 + (z0 + z_α) / (1 − a (z0 + z_α)))``.
4. **Fallbacks, always stated.** When BCa is undefined (all replicates equal, the estimate outside
   the bootstrap distribution, an undefined jackknife value, zero jackknife spread, or a
   non-positive adjustment denominator) the percentile interval is returned with
   ``method="percentile"`` and the reason in ``note``. Replicates where the metric is undefined
   (``nan``, e.g. a resample with no valid decoys for d′) are dropped and counted in ``note``.
   Fewer than two items give no interval (``method="none"``).

Items are paired on their ids: only items scored in every arm count (others are dropped and
counted in ``note``), and items to which the metric does not apply in any arm are left out,
so ``n_items`` is the number of items the comparison rests on.

References: Efron, B. (1987). Better bootstrap confidence intervals. *Journal of the American
Statistical Association*, 82(397), 171–185. Efron, B. & Tibshirani, R. (1993). *An Introduction
to the Bootstrap*, ch. 14.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from statistics import NormalDist

import numpy as np

from analogist.bench.analysis.metrics import Metric
from analogist.bench.analysis.score_record import Score
from analogist.errors import BenchError

NAN = float("nan")
_N = NormalDist()


@dataclass(frozen=True)
class Interval:
    """A point estimate with its bootstrap interval.

    Attributes:
        estimate: the statistic on all items.
        low, high: interval bounds (``nan`` when there is no interval).
        n_items: items the statistic rests on.
        method: "bca", "percentile" (a stated fallback) or "none".
        note: why a fallback was used, and any dropped items or replicates.
        n_boot, confidence, seed: the bootstrap's settings.
    """

    estimate: float
    low: float
    high: float
    n_items: int
    method: str
    note: str = ""
    n_boot: int = 0
    confidence: float = 0.95
    seed: int = 0

    @property
    def excludes_zero(self) -> bool:
        """The interval lies entirely above or entirely below zero."""
        return bool(self.low > 0 or self.high < 0)

    def to_json(self) -> dict:
        return asdict(self)


def bootstrap(
    metric: Metric,
    scores: Sequence[Score],
    *,
    n_boot: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Interval:
    """One arm's metric with a BCa interval over items."""
    return paired_contrast(
        metric, [scores], lambda v: v[0], n_boot=n_boot, seed=seed, confidence=confidence
    )


def paired_difference(
    metric: Metric,
    treatment: Sequence[Score],
    control: Sequence[Score],
    *,
    n_boot: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Interval:
    """metric(treatment) − metric(control), both recomputed on each paired item resample."""
    return paired_contrast(
        metric,
        [treatment, control],
        lambda v: v[0] - v[1],
        n_boot=n_boot,
        seed=seed,
        confidence=confidence,
    )


def paired_contrast(
    metric: Metric,
    groups: Sequence[Sequence[Score]],
    combine: Callable[[Sequence[float]], float],
    *,
    n_boot: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
) -> Interval:
    """Any statistic of several arms' metric values, bootstrapped with paired item resamples.

    Args:
        metric: the metric computed for every group.
        groups: one score list per arm (one arm and answerer each).
        combine: maps the groups' metric values to the statistic, e.g.
            ``lambda v: v[0] - max(v[1], v[2])`` for H − max(B, C).
        n_boot: bootstrap replicates.
        seed: seed of the numpy Generator that draws the resamples.
        confidence: two-sided coverage of the interval.
    """
    if n_boot < 1 or not 0 < confidence < 1:
        raise BenchError(
            f"bootstrap: need n_boot >= 1 and 0 < confidence < 1, "
            f"got n_boot={n_boot}, confidence={confidence}"
        )
    mats, notes = _paired_matrices(metric, groups)
    n = mats[0].shape[0]

    def stat(totals: Sequence[np.ndarray]) -> float:
        return float(combine([metric.value(t) for t in totals]))

    est = stat([m.sum(axis=0) for m in mats])
    if n < 2 or not np.isfinite(est):
        why = (
            "no item the metric applies to"
            if n == 0
            else "only 1 item"
            if n == 1
            else "statistic undefined on these items"
        )
        return Interval(
            est,
            NAN,
            NAN,
            n,
            "none",
            "; ".join([*notes, why]),
            n_boot=n_boot,
            confidence=confidence,
            seed=seed,
        )
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n, size=(n_boot, n)) + n * np.arange(n_boot)[:, None]
    weights = np.bincount(draws.ravel(), minlength=n_boot * n).reshape(n_boot, n).astype(float)
    boot_totals = [weights @ m for m in mats]
    reps = np.array([stat([t[b] for t in boot_totals]) for b in range(n_boot)])
    full = [m.sum(axis=0) for m in mats]
    jack = np.array([stat([f - m[i] for f, m in zip(full, mats)]) for i in range(n)])
    low, high, method, whys = bca_bounds(est, reps, jack, confidence)
    return Interval(
        est,
        low,
        high,
        n,
        method,
        "; ".join(notes + whys),
        n_boot=n_boot,
        confidence=confidence,
        seed=seed,
    )


def _paired_matrices(
    metric: Metric, groups: Sequence[Sequence[Score]]
) -> tuple[list[np.ndarray], list[str]]:
    """Per-group item matrices on the shared, applicable items (same row order in each)."""
    if not groups:
        raise BenchError("bootstrap: no groups of scores given")
    tables = [metric.item_table(g) for g in groups]
    shared = [i for i in tables[0] if all(i in t for t in tables[1:])]
    every = set().union(*tables)
    used = [i for i in shared if any(t[i].any() for t in tables)]
    notes = (
        [f"{len(every) - len(shared)} unpaired item(s) dropped"] if len(every) > len(shared) else []
    )
    width = len(metric.stats)
    return [np.array([t[i] for i in used], float).reshape(len(used), width) for t in tables], notes


def bca_bounds(
    est: float, reps: np.ndarray, jack: np.ndarray, confidence: float
) -> tuple[float, float, str, list[str]]:
    """BCa bounds (Efron 1987) from bootstrap replicates and leave-one-out values.

    Returns (low, high, method, notes); method is "percentile" with the reason in notes when
    BCa is undefined, "none" when no replicate is defined.
    """
    finite = reps[np.isfinite(reps)]
    notes = (
        [f"{reps.size - finite.size} of {reps.size} replicates undefined and dropped"]
        if finite.size < reps.size
        else []
    )
    if finite.size == 0:
        return NAN, NAN, "none", notes + ["no bootstrap replicate is defined"]
    alpha = (1 - confidence) / 2
    pct = np.quantile(finite, [alpha, 1 - alpha])

    def fallback(why: str) -> tuple[float, float, str, list[str]]:
        return float(pct[0]), float(pct[1]), "percentile", notes + [f"BCa undefined: {why}"]

    if np.ptp(finite) == 0:
        return fallback("all bootstrap replicates are equal")
    share = (np.sum(finite < est) + 0.5 * np.sum(finite == est)) / finite.size
    if not 0 < share < 1:
        return fallback("the estimate lies outside the bootstrap distribution")
    if not np.all(np.isfinite(jack)):
        return fallback("a leave-one-item-out value is undefined")
    d = jack.mean() - jack
    spread = np.sum(d**2)
    if spread == 0:
        return fallback("all leave-one-item-out values are equal")
    z0, a = _N.inv_cdf(float(share)), float(np.sum(d**3) / (6 * spread**1.5))
    levels = []
    for z in (_N.inv_cdf(alpha), _N.inv_cdf(1 - alpha)):
        denom = 1 - a * (z0 + z)
        if denom <= 0:
            return fallback(f"acceleration {a:.3g} too large for the adjustment")
        levels.append(_N.cdf(z0 + (z0 + z) / denom))
    low, high = np.quantile(finite, levels)
    return float(low), float(high), "bca", notes
