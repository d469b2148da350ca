"""The paired comparisons of spec §21 and the pre-registered hypotheses H1–H6 of spec §22.

:func:`evaluate` takes every arm's scores for one answerer and returns each §21 comparison (on
the metrics listed in :data:`COMPARISONS`), every arm against A1 on NAV (used by Result E of
§26), and a :class:`Verdict` per hypothesis. All differences are paired bootstraps over items
(:mod:`analogist.bench.analysis.stats`); "X − max(Y, Z)" takes the better control on each resample.
Comparisons are named in ASCII with the spec's primes, e.g. ``"C - B′"``, ``"H - max(B,C)"``.

Decision rules (thresholds in :class:`Thresholds`, fixed before any run):

- *beats* / *rises*: the paired interval lies above zero; a rise "by ≥ t" also needs the point
  estimate ≥ t (the spec puts the threshold on the effect, the interval guards against noise).
- H1: C − B′ recall@5 on far items ≥ 15 points and beats zero, and C − C′ recall@5 (far) beats
  zero. d′ and NAV differences are reported, not decisive.
- H2: D − C rises on d′ by ≥ 0.3 or on transfer accuracy by ≥ 10 points; when one of the two
  is unmeasurable (e.g. no decoy items), the other decides and the reason says so.
- H3: E − D NAV beats zero.
- H4: E − A1 NAV beats zero on private items and on nonce synthetic items; the §22
  interpretation is attached whichever way the two sources fall.
- H5: E+R − E recovery on F8 (match sensitivity) rises by ≥ 15 points, and the F6 false-positive
  rate rises by no more than 5 points (point estimate; "meaningful" = more than 5 points).
- H6: E+Bld − E novel useful rate beats zero, and NAV does not decline (its paired interval does
  not lie entirely below zero).

A hypothesis is "not run" when an arm it needs has no scores, or a statistic it needs is
undefined or rests on fewer than two items; the reason says which.

**Insufficient data.** A verdict needs enough items to have a fair chance of seeing the effect it
names. The minimum (:data:`MIN_ITEMS`) is a power calculation for a paired comparison: with
two-sided α = 0.05 and power 0.8, ``n ≥ ((z₀.₉₇₅ + z₀.₈) · σ / δ)²`` where δ is the effect the
hypothesis must detect and σ the planning standard deviation of one item's paired difference:
σ = 0.5 for a difference of two yes/no outcomes (recall, transfer, recovery, novelty: two arms
that disagree on a quarter to half of the items) and σ = 1.0 for NAV (an item scores 1, 0, −1
or −2, so paired NAV differences spread about twice as far). δ is the pre-registered threshold
where §22 gives one (H1 0.15, H2 0.10 transfer, H5 0.15) and otherwise the smallest effect worth
keeping machinery for (H3 and H4: 0.2 NAV; H6: 0.1 novel useful rate). Below the minimum, or
when a decisive interval has zero width (a bootstrap over a handful of identical items gives
[1, 1] or [0, 0], which says nothing), the verdict is "insufficient data" — never pass or fail
— and the reason gives n, the minimum and the per-family item counts. Each comparison carries
``family_counts`` (items per family the metric read in the treatment arm).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from statistics import NormalDist

from analogist.bench.analysis import metrics as m
from analogist.bench.analysis.score_record import ANSWERERS, Score
from analogist.bench.analysis.stats import Interval, paired_contrast
from analogist.errors import BenchError

ARMS = ("A0", "A1", "B", "B′", "C", "C′", "H", "D", "E", "G", "E+R", "E+Bld", "ISO")
RECALL5_FAR = m.recall_at_k(5).on(lambda s: s.far, "far")
NAV_PRIVATE = m.nav().on(lambda s: s.item_source == "private", "private")
NAV_NONCE = m.nav().on(lambda s: s.item_source == "synthetic" and s.nonce, "nonce synthetic")
F8_RECOVERY = m.match_sensitivity.on(lambda s: s.family == "F8", "F8")
F6_FALSE_POSITIVES = m.false_positive_rate.on(lambda s: s.family == "F6", "F6")

#: (treatment, controls, question, metrics) for each row of spec §21.
COMPARISONS: tuple[tuple[str, tuple[str, ...], str, tuple[m.Metric, ...]], ...] = (
    (
        "A1",
        ("A0",),
        "Does merely reminding the model to think analogically help?",
        (m.nav(), m.transfer_accuracy),
    ),
    ("B", ("A1",), "Does Piper memory help at all?", (m.nav(), m.transfer_accuracy)),
    (
        "C",
        ("B′",),
        "Does structural encoding beat semantic retrieval at equal context?",
        (RECALL5_FAR, m.dprime, m.nav()),
    ),
    ("C", ("C′",), "Is the structural content real signal or placebo?", (RECALL5_FAR, m.dprime)),
    (
        "H",
        ("B", "C"),
        "Are semantic and structural retrieval complementary?",
        (m.recall_at_k(5), m.nav()),
    ),
    (
        "D",
        ("C",),
        "Does forced mapping improve transfer/decoy rejection?",
        (m.dprime, m.transfer_accuracy, m.role_mapping_f1),
    ),
    (
        "E",
        ("D",),
        "Does verification increase net value?",
        (m.nav(), m.useful_analogy_precision, m.negative_transfer_rate),
    ),
    (
        "G",
        ("E",),
        "How much remaining error is retrieval versus mapping/transfer?",
        (m.nav(), m.transfer_accuracy),
    ),
    (
        "E+R",
        ("E",),
        "Does re-representation recover misses without inflating false positives?",
        (F8_RECOVERY, F6_FALSE_POSITIVES),
    ),
    (
        "E+Bld",
        ("E",),
        "Does blending create verified novelty rather than noise?",
        (m.novel_useful_rate, m.nav()),
    ),
)

#: Comparisons outside §21 that the Result A–F rules fall back on (spec §26).
SUPPLEMENTARY: tuple[tuple[str, tuple[str, ...], str, tuple[m.Metric, ...]], ...] = (
    (
        "C",
        ("B",),
        "Fallback for C - B′ when B′ is not run (retrieved context not size-matched)",
        (RECALL5_FAR,),
    ),
    (
        "E",
        ("ISO",),
        "Does E do more than exact name-free isomorphism plus the source's fix?",
        (m.nav(), m.transfer_accuracy, m.dprime),
    ),
    ("D", ("ISO",), "Does structure mapping do more than exact isomorphism?", (m.nav(),)),
)


def min_items(delta: float, sigma: float, alpha: float = 0.05, power: float = 0.8) -> int:
    """Items a paired comparison needs to detect ``delta`` (see the module docstring)."""
    z = NormalDist().inv_cdf
    return math.ceil(((z(1 - alpha / 2) + z(power)) * sigma / delta) ** 2)


#: Minimum items behind a verdict's decisive comparisons (power 0.8, α 0.05).
MIN_ITEMS = {
    "H1": min_items(0.15, 0.5),
    "H2": min_items(0.10, 0.5),
    "H3": min_items(0.2, 1.0),
    "H4": min_items(0.2, 1.0),
    "H5": min_items(0.15, 0.5),
    "H6": min_items(0.1, 0.5),
}


@dataclass(frozen=True)
class Thresholds:
    """The pre-registered thresholds of spec §22 (fractions, not percentage points)."""

    h1_recall_gain: float = 0.15
    h2_dprime_gain: float = 0.3
    h2_transfer_gain: float = 0.10
    h5_recovery_gain: float = 0.15
    h5_max_false_positive_increase: float = 0.05
    min_items: Mapping[str, int] = field(default_factory=lambda: dict(MIN_ITEMS))


PREREGISTERED = Thresholds()


def canonical_arm(name: str) -> str:
    """The spec's arm name; accepts ASCII primes ("B'" → "B′")."""
    arm = name.strip().replace("'", "′")
    if arm not in ARMS:
        raise BenchError(f"unknown arm {name!r}; arms are {', '.join(ARMS)}")
    return arm


def comparison_name(treatment: str, controls: Sequence[str]) -> str:
    """E.g. "C - B′" or "H - max(B,C)"."""
    right = controls[0] if len(controls) == 1 else f"max({','.join(controls)})"
    return f"{treatment} - {right}"


@dataclass(frozen=True)
class Comparison:
    """One paired comparison on one metric; ``interval`` is None when an arm was not run."""

    name: str
    metric: str
    question: str
    interval: Interval | None
    not_run: str = ""
    family_counts: Mapping[str, int] = field(default_factory=dict)

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Verdict:
    """The outcome of one pre-registered hypothesis.

    Attributes:
        hypothesis: "H1".."H6".
        status: "pass", "fail", "insufficient data" (fewer items than ``min_items``, or a
            zero-width decisive interval) or "not run".
        reason: which rule decided, or why it could not be tested.
        threshold: the pre-registered rule in words.
        numbers: the comparisons the verdict read (decisive and supporting).
        interpretation: the spec's reading of the outcome, where it gives one (H4).
        min_items: the power-calculated minimum (:data:`MIN_ITEMS`).
        family_counts: items per family behind the decisive comparisons.
    """

    hypothesis: str
    status: str
    reason: str
    threshold: str
    numbers: tuple[Comparison, ...] = ()
    interpretation: str = ""
    min_items: int = 0
    family_counts: Mapping[str, int] = field(default_factory=dict)

    def to_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class HypothesisReport:
    """Everything :func:`evaluate` found for one answerer."""

    answerer: str
    arms_run: tuple[str, ...]
    comparisons: tuple[Comparison, ...]
    baselines: tuple[Comparison, ...]
    verdicts: tuple[Verdict, ...]
    thresholds: Thresholds = field(default=PREREGISTERED)

    def comparison(self, name: str, metric: str) -> Comparison | None:
        """The comparison named e.g. "C - B′" on a metric, from either list."""
        return next(
            (c for c in self.comparisons + self.baselines if c.name == name and c.metric == metric),
            None,
        )

    def verdict(self, hypothesis: str) -> Verdict:
        """The verdict of "H1".."H6"."""
        for v in self.verdicts:
            if v.hypothesis == hypothesis:
                return v
        raise BenchError(f"no hypothesis {hypothesis!r}; there are H1..H6")

    def to_json(self) -> dict:
        """Plain data (tuples stay tuples; ``json.dumps`` writes them as lists)."""
        return asdict(self)


def evaluate(
    results: Mapping[tuple[str, str], Sequence[Score]],
    answerer: str,
    *,
    n_boot: int = 2000,
    seed: int = 0,
    confidence: float = 0.95,
    thresholds: Thresholds = PREREGISTERED,
    not_run: Mapping[str, str] | None = None,
) -> HypothesisReport:
    """All §21 comparisons, every arm against A1 on NAV, and H1–H6, for one answerer.

    Args:
        results: scores keyed by (arm, answerer); other answerers are ignored.
        answerer: "model" or "engine".
        n_boot, seed, confidence: bootstrap settings (:func:`stats.paired_contrast`).
        thresholds: the pre-registered thresholds.
        not_run: optional reasons an arm was not run, e.g. {"B′": "needs a model"}.
    """
    if answerer not in ANSWERERS:
        raise BenchError(f"answerer {answerer!r} is not one of {', '.join(ANSWERERS)}")
    arms: dict[str, Sequence[Score]] = {}
    for (arm, who), scores in results.items():
        if who == answerer and scores:
            if canonical_arm(arm) in arms:
                raise BenchError(f"arm {arm!r} given twice for answerer {answerer!r}")
            arms[canonical_arm(arm)] = scores
    why = {canonical_arm(a): r for a, r in (not_run or {}).items()}

    def compare(
        treatment: str, controls: tuple[str, ...], metric: m.Metric, question: str = ""
    ) -> Comparison:
        name = comparison_name(treatment, controls)
        missing = [a for a in (treatment, *controls) if a not in arms]
        if missing:
            reason = "; ".join(
                f"arm {a} not run for answerer '{answerer}'" + (f": {why[a]}" if a in why else "")
                for a in missing
            )
            return Comparison(name, metric.name, question, None, reason)
        interval = paired_contrast(
            metric,
            [arms[a] for a in (treatment, *controls)],
            _versus_best(metric.higher_is_better),
            n_boot=n_boot,
            seed=seed,
            confidence=confidence,
        )
        return Comparison(
            name,
            metric.name,
            question,
            interval,
            family_counts=family_counts(metric, arms[treatment]),
        )

    comparisons = tuple(
        compare(t, c, metric, q) for t, c, q, ms in COMPARISONS + SUPPLEMENTARY for metric in ms
    )
    baselines = tuple(
        compare(a, ("A1",), m.nav(), f"Does {a} beat the hinted bare LLM?")
        for a in ARMS
        if a in arms and a not in ("A0", "A1")
    )
    lookup = {(c.name, c.metric): c for c in comparisons}

    def get(name: str, metric: m.Metric) -> Comparison:
        return lookup[(name, metric.name)]

    t = thresholds
    verdicts = (
        _h1(get("C - B′", RECALL5_FAR), get("C - C′", RECALL5_FAR), get("C - B′", m.dprime), t),
        _h2(
            get("D - C", m.dprime),
            get("D - C", m.transfer_accuracy),
            get("D - C", m.role_mapping_f1),
            t,
        ),
        _h3(
            get("E - D", m.nav()),
            get("E - D", m.useful_analogy_precision),
            get("E - D", m.negative_transfer_rate),
            t,
        ),
        _h4(compare("E", ("A1",), NAV_PRIVATE), compare("E", ("A1",), NAV_NONCE), t),
        _h5(get("E+R - E", F8_RECOVERY), get("E+R - E", F6_FALSE_POSITIVES), t),
        _h6(get("E+Bld - E", m.novel_useful_rate), get("E+Bld - E", m.nav()), t),
    )
    return HypothesisReport(
        answerer, tuple(a for a in ARMS if a in arms), comparisons, baselines, verdicts, thresholds
    )


def family_counts(metric: m.Metric, scores: Sequence[Score]) -> dict[str, int]:
    """Items per family that contribute to ``metric`` in ``scores`` (one arm): items with a
    non-zero sufficient statistic, e.g. executable items with a source for transfer accuracy."""
    family = {s.item_id: s.family for s in scores}
    seen: dict[str, int] = {}
    for item, stats in metric.item_table(scores).items():
        if stats.any():
            seen[family[item]] = seen.get(family[item], 0) + 1
    return dict(sorted(seen.items()))


def _versus_best(higher_is_better: bool) -> Callable[[Sequence[float]], float]:
    """v[0] minus the best of v[1:] (max or min by the metric's direction); nan if any is."""

    def combine(v: Sequence[float]) -> float:
        if any(math.isnan(x) for x in v):
            return math.nan
        return v[0] - (max(v[1:]) if higher_is_better else min(v[1:]))

    return combine


def unusable(c: Comparison) -> str:
    """Why a comparison cannot decide anything ('' when it can)."""
    if c.interval is None:
        return f"{c.name}: {c.not_run}"
    if c.interval.method == "none":
        return f"{c.name} {c.metric}: {c.interval.note}"
    return ""


def degenerate(c: Comparison) -> str:
    """Why a comparison's interval cannot show an effect: zero width ('' when it can)."""
    if c.interval is not None and c.interval.method != "none" and c.interval.low == c.interval.high:
        return (
            f"{c.name} {c.metric}: the interval has zero width "
            f"[{c.interval.low:+.3f}, {c.interval.high:+.3f}] on {c.interval.n_items} items, "
            "which cannot tell an effect from a handful of identical items"
        )
    return ""


def beats(c: Comparison, by: float = 0.0) -> bool | None:
    """The paired interval lies above zero and the estimate is at least ``by``; None when the
    comparison cannot decide (not run, undefined, or a zero-width interval)."""
    if unusable(c) or degenerate(c):
        return None
    i = c.interval
    assert i is not None
    return bool(i.low > 0 and i.estimate >= by)


def describe(c: Comparison) -> str:
    """E.g. "C - B′ recall@5[far] = +0.210 [+0.080, +0.330] (n=24, bca)"."""
    if unusable(c):
        return unusable(c)
    i = c.interval
    assert i is not None
    return (
        f"{c.name} {c.metric} = {i.estimate:+.3f} [{i.low:+.3f}, {i.high:+.3f}] "
        f"(n={i.n_items}, {i.method})"
    )


def _counts(decisive: Sequence[Comparison]) -> dict[str, int]:
    out: dict[str, int] = {}
    for c in decisive:
        for f, n in c.family_counts.items():
            out[f] = max(out.get(f, 0), n)
    return out


def _fmt_counts(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{f}:{n}" for f, n in sorted(counts.items())) or "none"


def _verdict(
    h: str,
    rule: str,
    decisive: Sequence[Comparison],
    numbers: tuple[Comparison, ...],
    passed: Callable[[], bool],
    t: Thresholds,
    interpretation: str = "",
    guards: Sequence[Comparison] = (),
    note: str = "",
) -> Verdict:
    """``decisive`` comparisons must show an effect; ``guards`` only bound a side effect (a
    zero-width guard at zero is a real "no change", so only the decisive ones must have width)."""
    need, counts = t.min_items.get(h, 2), _counts([*decisive, *guards])
    not_run = [unusable(c) for c in (*decisive, *guards) if unusable(c)]
    if not_run:
        return Verdict(
            h,
            "not run",
            "; ".join(dict.fromkeys(not_run)),
            rule,
            numbers,
            min_items=need,
            family_counts=counts,
        )
    missing = [degenerate(c) for c in decisive if degenerate(c)]
    n = min(c.interval.n_items for c in (*decisive, *guards) if c.interval is not None)
    if missing or n < need:
        why = list(dict.fromkeys(missing))
        if n < need:
            why.insert(
                0,
                f"{n} items < {need} needed (power 0.8 at α 0.05 for the effect the "
                f"rule names); items per family {_fmt_counts(counts)}",
            )
        return Verdict(
            h,
            "insufficient data",
            "; ".join(why + [describe_raw(c) for c in (*decisive, *guards)]),
            rule,
            numbers,
            min_items=need,
            family_counts=counts,
        )
    status = "pass" if passed() else "fail"
    return Verdict(
        h,
        status,
        "; ".join(describe(c) for c in (*decisive, *guards))
        + f"; items per family {_fmt_counts(counts)}"
        + (f"; {note}" if note else ""),
        rule,
        numbers,
        interpretation,
        min_items=need,
        family_counts=counts,
    )


def describe_raw(c: Comparison) -> str:
    """The comparison's numbers even when it cannot decide."""
    i = c.interval
    if i is None:
        return f"{c.name}: {c.not_run}"
    return (
        f"{c.name} {c.metric} = {i.estimate:+.3f} [{i.low:+.3f}, {i.high:+.3f}] "
        f"(n={i.n_items}, {i.method})"
    )


def _h1(vs_b: Comparison, vs_placebo: Comparison, dprime: Comparison, t: Thresholds) -> Verdict:
    rule = (
        f"C - B′ recall@5 on far items >= {t.h1_recall_gain:g} with interval above 0, "
        "and C - C′ recall@5 (far) interval above 0"
    )
    return _verdict(
        "H1",
        rule,
        (vs_b, vs_placebo),
        (vs_b, vs_placebo, dprime),
        lambda: bool(beats(vs_b, t.h1_recall_gain) and beats(vs_placebo)),
        t,
    )


def _h2(dprime: Comparison, transfer: Comparison, f1: Comparison, t: Thresholds) -> Verdict:
    rule = (
        f"D - C d′ >= {t.h2_dprime_gain:g} or transfer accuracy >= {t.h2_transfer_gain:g}, "
        "each with interval above 0 (decided on whichever is measurable)"
    )
    gains = ((dprime, t.h2_dprime_gain), (transfer, t.h2_transfer_gain))
    usable = [(c, gain) for c, gain in gains if not unusable(c)]
    if not usable:
        return _verdict("H2", rule, (dprime, transfer), (dprime, transfer, f1), lambda: False, t)
    # either alternative decides on its own, so each needs the minimum n and a non-zero width
    able = [
        (c, gain)
        for c, gain in usable
        if not degenerate(c)
        and c.interval is not None
        and c.interval.n_items >= t.min_items.get("H2", 2)
    ]
    chosen = able or usable
    skipped = [
        unusable(c) or degenerate(c) or describe_raw(c) + " (too few items)"
        for c, _ in gains
        if all(c is not x for x, _ in chosen)
    ]
    return _verdict(
        "H2",
        rule,
        tuple(c for c, _ in chosen),
        (dprime, transfer, f1),
        lambda: any(bool(beats(c, gain)) for c, gain in chosen),
        t,
        note="; ".join(skipped),
    )


def _h3(nav: Comparison, precision: Comparison, negative: Comparison, t: Thresholds) -> Verdict:
    return _verdict(
        "H3",
        "E - D NAV interval above 0",
        (nav,),
        (nav, precision, negative),
        lambda: bool(beats(nav)),
        t,
    )


H4_READINGS = {
    (True, True): "passes both: evidence for a genuine useful analogical subsystem",
    (True, False): "passes private, fails synthetic: primarily a memory-access improvement",
    (False, True): "passes synthetic, fails private: the structural mechanism works but is not "
    "integrated with real memory",
    (False, False): "fails both: E ≈ A1 on synthetic and private items (failure signature)",
}


def _h4(private: Comparison, nonce: Comparison, t: Thresholds) -> Verdict:
    rule = "E - A1 NAV interval above 0 on private items and on nonce synthetic items"
    reading = ""
    if not unusable(private) and not unusable(nonce):
        reading = H4_READINGS[(bool(beats(private)), bool(beats(nonce)))]
    return _verdict(
        "H4",
        rule,
        (private, nonce),
        (private, nonce),
        lambda: bool(beats(private) and beats(nonce)),
        t,
        reading,
    )


def _h5(recovery: Comparison, false_pos: Comparison, t: Thresholds) -> Verdict:
    rule = (
        f"E+R - E F8 recovery >= {t.h5_recovery_gain:g} with interval above 0, and F6 "
        f"false-positive rate up by no more than {t.h5_max_false_positive_increase:g} "
        "(point estimate)"
    )

    def passed() -> bool:
        assert false_pos.interval is not None
        return bool(
            beats(recovery, t.h5_recovery_gain)
            and false_pos.interval.estimate <= t.h5_max_false_positive_increase
        )

    return _verdict("H5", rule, (recovery,), (recovery, false_pos), passed, t, guards=(false_pos,))


def _h6(novelty: Comparison, nav: Comparison, t: Thresholds) -> Verdict:
    rule = "E+Bld - E novel useful rate interval above 0, and NAV interval not entirely below 0"

    def passed() -> bool:
        assert nav.interval is not None
        return bool(beats(novelty)) and not nav.interval.high < 0

    return _verdict("H6", rule, (novelty,), (novelty, nav), passed, t, guards=(nav,))
