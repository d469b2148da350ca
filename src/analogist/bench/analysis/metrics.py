"""PARB metrics (spec §17–§19): each is a :class:`Metric`, callable as ``list[Score] -> float``.

Every metric is a ratio-type statistic built from a few *sufficient statistics* per row (for
claim precision: correct claims, claims made). A call groups rows by item, averages each item's
statistics over its rows (so seeds are averaged within an item first), sums over items and
applies the metric's formula. The bootstrap in :mod:`analogist.bench.analysis.stats` resamples the same
per-item vectors, so ratio metrics such as d′ and NAV are recomputed exactly on each resample.

Conventions:

- Empty input, or no row the metric applies to, or a zero denominator gives ``nan``.
- A call must hold one (arm, answerer); mixing them is an error.
- Metrics read only ordinary runs (``Score.is_main``), except the source-dependence metrics
  (which read condition runs) and ``lesion_sensitivity`` (which pairs lesion reruns with intact
  runs of the same arm and seed).
- ``families`` is the set of families a metric reads; recall and match sensitivity read only the
  families where the system must retrieve from memory (F3, F7, F8).
- U, F and N are defined once, on :class:`~analogist.bench.analysis.score_record.Score`.

References: Hautus, M. J. (1995). Corrections for extreme proportions and their biasing effects
on estimated values of d′. *Behavior Research Methods, Instruments, & Computers*, 27, 46–51.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from statistics import NormalDist

import numpy as np

from analogist.bench.analysis.score_record import FAMILIES, Score
from analogist.errors import BenchError

NAN = float("nan")
RETRIEVAL_FAMILIES = frozenset({"F3", "F7", "F8"})
_Z = NormalDist().inv_cdf


@dataclass(frozen=True)
class Metric:
    """A metric: per-row sufficient statistics and the formula over their item-level sums.

    Attributes:
        name: registry name, e.g. ``recall@5`` or ``recall@5[far]``.
        stats: names of the sufficient statistics, in the order ``row`` returns them.
        row: one row's statistics.
        value: the metric from the summed item statistics (``nan`` when undefined).
        higher_is_better: direction for reports and hypotheses.
        families: families whose rows the metric reads.
        description: one line for reports.
        reads: which runs count: "main" (ordinary), "condition" (source dependence) or "all".
        where: an extra row filter (see :meth:`on`).
        item: replaces the row average for metrics that pair rows within an item.
    """

    name: str
    stats: tuple[str, ...]
    row: Callable[[Score], Sequence[float]]
    value: Callable[[np.ndarray], float]
    higher_is_better: bool
    families: frozenset[str] = frozenset(FAMILIES)
    description: str = ""
    reads: str = "main"
    where: Callable[[Score], bool] | None = None
    item: Callable[[Sequence[Score]], Sequence[float]] | None = None

    def applies(self, s: Score) -> bool:
        """Whether the row is read by this metric."""
        kind = {
            "main": s.is_main,
            "condition": s.condition is not None and not s.lesioned,
            "all": True,
        }[self.reads]
        return kind and s.family in self.families and (self.where is None or self.where(s))

    def item_stats(self, rows: Sequence[Score]) -> np.ndarray:
        """One item's statistics: the mean over its applicable rows (zeros when none)."""
        if self.item is not None:
            return np.asarray(self.item([s for s in rows if self.applies(s)]), float)
        kept = [self.row(s) for s in rows if self.applies(s)]
        return np.mean(np.asarray(kept, float), axis=0) if kept else np.zeros(len(self.stats))

    def item_table(self, scores: Iterable[Score]) -> dict[str, np.ndarray]:
        """Per-item statistic vectors, in first-seen item order."""
        by_item: dict[str, list[Score]] = {}
        runs = set()
        for s in scores:
            by_item.setdefault(s.item_id, []).append(s)
            runs.add((s.arm, s.answerer))
        if len(runs) > 1:
            raise BenchError(
                f"metric {self.name}: scores mix arms/answerers {sorted(runs)}; "
                "pass one (arm, answerer) at a time"
            )
        return {i: self.item_stats(rows) for i, rows in by_item.items()}

    def __call__(self, scores: Iterable[Score]) -> float:
        """The metric over one arm's scores (``nan`` when empty or undefined)."""
        table = self.item_table(scores)
        if not table:
            return NAN
        return self.value(np.sum(list(table.values()), axis=0))

    def on(self, where: Callable[[Score], bool], label: str) -> Metric:
        """The same metric restricted to rows where ``where`` holds, named ``name[label]``."""
        old = self.where
        both = where if old is None else (lambda s: old(s) and where(s))
        return replace(self, name=f"{self.name}[{label}]", where=both)


def ratio(t: np.ndarray) -> float:
    """t[0] / t[1], ``nan`` when the denominator is zero."""
    return float(t[0] / t[1]) if t[1] > 0 else NAN


def _metric(
    name: str,
    stats: str,
    row: Callable[[Score], Sequence[float]],
    value: Callable[[np.ndarray], float] = ratio,
    higher: bool = True,
    **kw,
) -> Metric:
    return Metric(name, tuple(stats.split()), row, value, higher, **kw)


def recall_at_k(k: int = 5) -> Metric:
    """Share of items with a gold source whose gold source is in the top ``k`` retrieved."""
    if k < 1:
        raise BenchError(f"recall_at_k: k must be at least 1, got {k}")
    return _metric(
        f"recall@{k}",
        "hits with_gold",
        lambda s: (
            s.gold_source is not None and s.gold_source in s.retrieved[:k],
            s.gold_source is not None,
        ),
        families=RETRIEVAL_FAMILIES,
        description=f"gold source in the top {k} retrieved",
    )


def _dprime(t: np.ndarray) -> float:
    hits, n_valid, fas, n_invalid = t
    if n_valid <= 0 or n_invalid <= 0:
        return NAN
    return _Z((hits + 0.5) / (n_valid + 1)) - _Z((fas + 0.5) / (n_invalid + 1))


def _balanced(t: np.ndarray) -> float:
    tp, pos, tn, neg = t
    return 0.5 * (tp / pos + tn / neg) if pos > 0 and neg > 0 else NAN


def _f1(t: np.ndarray) -> float:
    tp, fp, fn = t
    return float(2 * tp / (2 * tp + fp + fn)) if 2 * tp + fp + fn > 0 else NAN


def _condition_row(s: Score) -> tuple[float, ...]:
    out = [0.0] * 6
    if s.task_correct is not None:
        i = ("correct_source", "no_source", "wrong_source").index(s.condition or "")
        out[2 * i], out[2 * i + 1] = float(s.task_correct), 1.0
    return tuple(out)


def _delta(other: int) -> Callable[[np.ndarray], float]:
    def value(t: np.ndarray) -> float:
        return ratio(t[0:2]) - ratio(t[2 * other : 2 * other + 2])

    return value


def _lesion_item(rows: Sequence[Score]) -> tuple[float, float]:
    """Pair each lesion rerun with the intact run of the same seed; (changed share, 1)."""
    intact = {s.seed: s.conclusion for s in rows if s.is_main}
    pairs = [
        s.conclusion != intact[s.seed]
        for s in rows
        if s.lesioned and s.condition is None and s.seed in intact
    ]
    return (float(np.mean(pairs)), 1.0) if pairs else (0.0, 0.0)


def _brier_row(s: Score) -> tuple[float, float]:
    if s.confidence is None or s.valid is None:
        return (0.0, 0.0)
    return ((s.confidence - float(s.valid)) ** 2, 1.0)


def nav(alpha: float = 1.0, beta: float = 2.0) -> Metric:
    """Net Analogical Value, (U − αF − βN) / O (spec §19).

    O, the opportunities, counts every item scored (after seed averaging), including items with
    no valid source: there the best contribution is 0, reached by declining.
    """
    name = "nav" if (alpha, beta) == (1.0, 2.0) else f"nav(a={alpha:g},b={beta:g})"
    return _metric(
        name,
        "U F N O",
        lambda s: (s.useful, s.false_accept, s.negative_transfer, 1.0),
        lambda t: float((t[0] - alpha * t[1] - beta * t[2]) / t[3]) if t[3] else NAN,
        description=f"(U - {alpha:g}F - {beta:g}N) / O",
    )


claim_precision = _metric(
    "claim_precision",
    "correct_claims claims",
    lambda s: (s.claim_correct is True, s.claimed_source is not None),
    description="claimed source is keyed as a match / claims made",
)
no_match_specificity = _metric(
    "no_match_specificity",
    "said_none no_valid_source",
    lambda s: (not s.has_valid_source and s.says_no_match, not s.has_valid_source),
    description="says no match / items without a valid source",
)
false_positive_rate = _metric(
    "false_positive_rate",
    "false_accepts no_valid_source",
    lambda s: (not s.has_valid_source and s.false_accept, not s.has_valid_source),
    higher=False,
    description="accepted or claimed a source / items without a valid source",
)
match_sensitivity = _metric(
    "match_sensitivity",
    "found with_valid_source",
    lambda s: (
        s.has_valid_source
        and (s.claim_correct is True or (s.accepted is True and s.offered_is_valid is True)),
        s.has_valid_source,
    ),
    families=RETRIEVAL_FAMILIES,
    description="names a keyed source / items with a valid source",
)
role_mapping_f1 = _metric(
    "role_mapping_f1",
    "tp fp fn",
    lambda s: (s.role_tp, s.role_fp, s.role_fn),
    _f1,
    description="micro F1 of role correspondences",
)
dprime = _metric(
    "dprime",
    "hits valid_offered false_alarms invalid_offered",
    lambda s: (
        s.accepted is True and s.offered_is_valid is True,
        s.offered_is_valid is True,
        s.accepted is True and s.offered_is_valid is False,
        s.offered_is_valid is False,
    ),
    _dprime,
    description="z(hit rate) - z(false-alarm rate), log-linear corrected (Hautus 1995)",
)
partial_transfer_balanced_accuracy = _metric(
    "partial_transfer_balanced_accuracy",
    "tp keyed_transfer tn keyed_withhold",
    lambda s: (
        sum(p.decided and p.keyed for p in s.transfer_pairs),
        sum(p.keyed for p in s.transfer_pairs),
        sum(not p.decided and not p.keyed for p in s.transfer_pairs),
        sum(not p.keyed for p in s.transfer_pairs),
    ),
    _balanced,
    description="mean of transfer TPR and withhold TNR over candidate inferences",
)
transfer_accuracy = _metric(
    "transfer_accuracy",
    "resolved executable_with_source",
    lambda s: (
        s.executable and s.has_valid_source and s.task_correct is True,
        s.executable and s.has_valid_source,
    ),
    description="applied action resolved the target / executable items with a valid source",
)
verification_survival = _metric(
    "verification_survival",
    "survived judged",
    lambda s: (
        s.proposed and s.survived_verification is True,
        s.proposed and s.survived_verification is not None,
    ),
    description="proposed analogies kept by the system's own verification",
)
negative_transfer_rate = _metric(
    "negative_transfer_rate",
    "N applied",
    lambda s: (s.negative_transfer, s.applied_action),
    higher=False,
    description="applied actions that made the target worse / applied actions",
)
source_dependence_delta = _metric(
    "source_dependence_delta",
    "ok_correct n_correct ok_none n_none ok_wrong n_wrong",
    _condition_row,
    _delta(1),
    reads="condition",
    description="accuracy(correct source) - accuracy(no source)",
)
wrong_source_delta = replace(
    source_dependence_delta,
    name="wrong_source_delta",
    value=_delta(2),
    description="accuracy(correct source) - accuracy(wrong source)",
)
brier = _metric(
    "brier",
    "squared_error rated",
    _brier_row,
    higher=False,
    description="mean (confidence - validity)^2",
)
tokens_per_useful = _metric(
    "tokens_per_useful",
    "tokens U",
    lambda s: (s.tokens, s.useful),
    higher=False,
    description="tokens / useful analogies",
)
calls_per_useful = _metric(
    "calls_per_useful",
    "calls U",
    lambda s: (s.calls, s.useful),
    higher=False,
    description="model calls / useful analogies",
)
wall_ms_per_useful = _metric(
    "wall_ms_per_useful",
    "wall_ms U",
    lambda s: (s.wall_ms, s.useful),
    higher=False,
    description="wall milliseconds / useful analogies",
)
useful_analogy_precision = _metric(
    "useful_analogy_precision",
    "U proposed",
    lambda s: (s.useful, s.proposed),
    description="U / proposed analogies",
)
yield_ = _metric(
    "yield",
    "U valid_opportunities",
    lambda s: (s.useful, s.has_valid_source),
    description="U / items with a valid source",
)
novel_useful_rate = _metric(
    "novel_useful_rate",
    "novel_U O",
    lambda s: (s.useful and s.novel, 1),
    description="useful novel analogies / O",
)
lesion_sensitivity = Metric(
    "lesion_sensitivity",
    ("changed", "pairs"),
    lambda s: (0.0, 0.0),
    ratio,
    True,
    reads="all",
    item=_lesion_item,
    description="lesion reruns whose conclusion changed / lesion reruns",
)


@dataclass(frozen=True)
class CostPerUseful:
    """Cost per useful analogy (``nan`` when none was useful)."""

    tokens: float
    calls: float
    wall_ms: float


def cost_per_useful(scores: Sequence[Score]) -> CostPerUseful:
    """Tokens, model calls and wall time divided by U."""
    return CostPerUseful(
        tokens_per_useful(scores), calls_per_useful(scores), wall_ms_per_useful(scores)
    )


def nav_sensitivity(
    scores: Sequence[Score],
    alphas: Sequence[float] = (0.5, 1.0, 2.0),
    betas: Sequence[float] = (1.0, 2.0, 4.0),
) -> dict[tuple[float, float], float]:
    """NAV at every (α, β) of the grid, so dependence on the weights is visible (spec §19)."""
    return {(a, b): nav(a, b)(scores) for a in alphas for b in betas}


METRICS: dict[str, Metric] = {
    m.name: m
    for m in (
        recall_at_k(1),
        recall_at_k(5),
        claim_precision,
        no_match_specificity,
        match_sensitivity,
        false_positive_rate,
        role_mapping_f1,
        dprime,
        partial_transfer_balanced_accuracy,
        transfer_accuracy,
        verification_survival,
        negative_transfer_rate,
        source_dependence_delta,
        wrong_source_delta,
        brier,
        tokens_per_useful,
        calls_per_useful,
        wall_ms_per_useful,
        nav(),
        useful_analogy_precision,
        yield_,
        novel_useful_rate,
        lesion_sensitivity,
    )
}
