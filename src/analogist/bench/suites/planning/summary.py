"""Figures of the planning bench: per arm, and each arm paired with the planner alone.

Per arm (and item kind): success rate, expansions (mean, median), wall time, plan length, how
often the skeleton was used or abandoned, and which prior plan the analogy arm chose (true,
decoy, other — read from the key by scoring only). Paired with the planner alone on the same
items: the ratio of total expansions, the ratio of total wall time, the difference in success
and the ratio of total plan length, each with a BCa interval from a paired bootstrap over
items (:func:`analogist.bench.analysis.stats.bca_bounds`, the interval PARB uses).

The success criterion of spec §14, per planner: the analogy arm needs fewer expansions and
less wall time (intervals of the ratios below 1) at equal or better success, and the decoy arm
loses no success against the planner alone.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from analogist.bench.analysis.stats import Interval, bca_bounds
from analogist.bench.suites.planning.run import PlanScore

NAN = float("nan")


@dataclass(frozen=True)
class ArmFigures:
    planner: str
    arm: str
    kind: str
    n: int
    success: float
    expansions_mean: float
    expansions_median: float
    seconds_total: float
    length_mean: float
    skeleton_used: int
    fallbacks: int
    chose: dict[str, int]
    steps: tuple[float, float, float]  # mean skeleton steps matched, unmatched, missing

    def to_json(self) -> dict:
        return {k: (round(v, 5) if isinstance(v, float) else v) for k, v in vars(self).items()}


@dataclass(frozen=True)
class Paired:
    """``arm`` against the planner alone on the same items."""

    planner: str
    arm: str
    kind: str
    expansions_ratio: Interval
    seconds_ratio: Interval
    success_diff: Interval
    length_ratio: Interval

    def to_json(self) -> dict:
        return {
            "planner": self.planner,
            "arm": self.arm,
            "kind": self.kind,
            **{
                k: getattr(self, k).to_json()
                for k in ("expansions_ratio", "seconds_ratio", "success_diff", "length_ratio")
            },
        }


def _figures(planner: str, arm: str, kind: str, rows: Sequence[PlanScore]) -> ArmFigures:
    exp = [r.expansions for r in rows]
    chose: dict[str, int] = {}
    for r in rows:
        chose[r.source_was] = chose.get(r.source_was, 0) + 1
    return ArmFigures(
        planner,
        arm,
        kind,
        len(rows),
        sum(r.solved for r in rows) / len(rows),
        float(np.mean(exp)),
        float(statistics.median(exp)),
        sum(r.seconds for r in rows),
        float(np.mean([r.length for r in rows])),
        sum(r.mode == "skeleton" for r in rows),
        sum(r.mode == "fallback" for r in rows),
        chose,
        _mean_steps(rows),
    )


def _mean_steps(rows: Sequence[PlanScore]) -> tuple[float, float, float]:
    m, u, x = (float(np.mean([r.skeleton[j] for r in rows])) for j in range(3))
    return m, u, x


def paired_interval(
    a: np.ndarray,
    b: np.ndarray,
    stat: Callable[[np.ndarray, np.ndarray], float],
    n_boot: int,
    seed: int,
) -> Interval:
    """``stat`` of two aligned per-item columns with a paired BCa bootstrap over items."""
    n = len(a)
    est = stat(a, b)
    if n < 2:
        return Interval(est, NAN, NAN, n, "none", "fewer than 2 items", n_boot, 0.95, seed)
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, n, size=(n_boot, n))
    reps = np.array([stat(a[i], b[i]) for i in idx])
    keep = np.ones(n, dtype=bool)
    jack = []
    for i in range(n):
        keep[i] = False
        jack.append(stat(a[keep], b[keep]))
        keep[i] = True
    low, high, method, notes = bca_bounds(est, reps, np.array(jack), 0.95)
    return Interval(est, low, high, n, method, "; ".join(notes), n_boot, 0.95, seed)


def _ratio(a: np.ndarray, b: np.ndarray) -> float:
    return float(a.sum() / b.sum()) if b.sum() > 0 else NAN


def _diff(a: np.ndarray, b: np.ndarray) -> float:
    return float(a.mean() - b.mean())


def _paired(
    planner: str,
    arm: str,
    kind: str,
    rows: Sequence[PlanScore],
    base: dict[str, PlanScore],
    n_boot: int,
    seed: int,
) -> Paired:
    rows = [r for r in rows if r.item in base]
    ctl = [base[r.item] for r in rows]

    def col(xs: Sequence[PlanScore], f: Callable[[PlanScore], float]) -> np.ndarray:
        return np.array([f(x) for x in xs], dtype=float)

    def iv(
        f: Callable[[PlanScore], float], stat: Callable[[np.ndarray, np.ndarray], float]
    ) -> Interval:
        return paired_interval(col(rows, f), col(ctl, f), stat, n_boot, seed)

    solved = [r.solved and c.solved for r, c in zip(rows, ctl, strict=True)]
    both_r = [r for r, s in zip(rows, solved, strict=True) if s]
    both_c = [c for c, s in zip(ctl, solved, strict=True) if s]
    length = paired_interval(
        col(both_r, lambda x: x.length), col(both_c, lambda x: x.length), _ratio, n_boot, seed
    )
    return Paired(
        planner,
        arm,
        kind,
        iv(lambda x: x.expansions, _ratio),
        iv(lambda x: x.seconds, _ratio),
        iv(lambda x: float(x.solved), _diff),
        length,
    )


@dataclass(frozen=True)
class Summary:
    arms: tuple[ArmFigures, ...]
    paired: tuple[Paired, ...]
    criterion: dict[str, dict[str, bool | str]]

    def to_json(self) -> dict:
        return {
            "arms": [a.to_json() for a in self.arms],
            "paired": [p.to_json() for p in self.paired],
            "criterion": self.criterion,
        }


KINDS = ("all", "analogue", "no_analogue", "analogue/trap", "analogue/swap")
"""Item groups: all, by item kind, and analogue items by their decoy's kind."""


def _groups(s: PlanScore) -> tuple[str, ...]:
    return ("all", s.kind, f"{s.kind}/{s.decoy_kind}") if s.decoy_kind else ("all", s.kind)


def summarize(scores: Sequence[PlanScore], n_boot: int = 2000, seed: int = 0) -> Summary:
    """Figures per planner, arm and item kind (all / analogue / no_analogue), and the criterion."""
    arms, paired = [], []
    criterion: dict[str, dict[str, bool | str]] = {}
    for planner in dict.fromkeys(s.planner for s in scores):
        mine = [s for s in scores if s.planner == planner]
        base = {s.item: s for s in mine if s.arm == "planner"}
        for arm in dict.fromkeys(s.arm for s in mine):
            for kind in KINDS:
                rows = [s for s in mine if s.arm == arm and kind in _groups(s)]
                if not rows:
                    continue
                arms.append(_figures(planner, arm, kind, rows))
                if arm != "planner" and base:
                    paired.append(_paired(planner, arm, kind, rows, base, n_boot, seed))
        criterion[planner] = _criterion([p for p in paired if p.planner == planner])
    return Summary(tuple(arms), tuple(paired), criterion)


def _criterion(paired: Sequence[Paired]) -> dict[str, bool | str]:
    get = {(p.arm, p.kind): p for p in paired}
    ana, dec = get.get(("analogy", "all")), get.get(("decoy", "all"))
    out: dict[str, bool | str] = {}
    if ana is not None:
        out["fewer_expansions"] = bool(ana.expansions_ratio.high < 1)
        out["less_time"] = bool(ana.seconds_ratio.high < 1)
        out["success_not_lower"] = bool(ana.success_diff.estimate >= 0)
    if dec is not None:
        out["no_success_loss_from_decoys"] = bool(dec.success_diff.estimate >= 0)
    out["met"] = bool(out) and all(v for v in out.values())
    return out
