"""The adversarial shortcut audit: can anything that does not read structure solve PARB?

An outside auditor's attack (issue 11), run on a *set* of benches of one split. Every adversary
sees exactly what a system under test sees — ``items.jsonl`` — and keys are read only to label
the examples it learns from and to score what it predicts.

**Decisions** (one task per family; each is a choice among options or a yes/no):

- ``choice``: F2 (which candidate is valid), F3/F7/F8 (which memory episode is the gold source,
  items that have one), role mapping (which target entity plays each role of the keyed source,
  every family with a role key). Accuracy; chance is the mean of 1/|options|.
- ``binary``: F6 (is the offered source valid), F3 (does memory hold a match at all), F5
  (transfer or withhold each inference). Balanced accuracy; chance 0.5.

**Adversaries** (all fail the bench when they win):

- *learned* — scikit-learn logistic regression and gradient-boosted trees over a few hundred
  features (:mod:`analogist.bench.analysis.adversary_features`): ``surface`` features of one record
  (lengths, sentence and clause counts, field presence, arities, numbers, hashed word n-grams,
  overlap with the target) and ``transductive`` features (how often a string, sentence or
  name-free structure recurs across the bench or inside the item; strings shared with the
  same-skin episode). Each learner runs on surface, transductive and all features. Choice tasks
  also see each feature centred within its unit, so "the longer of the two" is learnable.
- *named* — the cheats found by hand (fixed scores, direction and threshold fitted on the
  training benches): longer outcome, more sentences, qualifier on the fix, fix arity, their
  combination, same-skin bindings, string identity across skins, most frequent structure,
  inferences projected through the mapping.

**Reference** (reported, never a failure): exact name-free isomorphism between the gold-encoded
target and each candidate (:mod:`analogist.bench.execution.iso`) — what a system that reads structure can
reach; a bench where it is low cannot be solved from structure either. Also reported: each
learner given the ``x:`` features too (``text-structure``: a role's number of source facts
against an entity's number of mentions in the target, a claim's predicate among the source's).
Those are structure expressed in the text, which an honest solver is meant to read.

**Protocol.** With several benches, the lower half of the seeds trains and the upper half tests
(seeds 0–9 / 10–19 for the full audit); with one bench, items are split into five folds and each
is predicted by models trained on the other four. Transductive counts are taken within the bench
an item belongs to. Intervals are 95% percentile bootstraps over items (an item's decisions move
together), widened to at least the Wilson interval on the number of items, so a tiny sample
cannot give a degenerate [1, 1]. A bench **fails** when any adversary's lower bound exceeds
chance + 0.05.
"""

from __future__ import annotations

import math
import warnings
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from analogist.bench.analysis.adversary_features import NAMED, TASKS, Example, build_examples
from analogist.bench.generation.items import Item

MARGIN = 0.05
LEARNERS = ("lr", "gbt")
GROUPS = ("surface", "transductive", "all")
FOLDS = 5


@dataclass(frozen=True)
class AdversaryResult:
    """One adversary on one task: its test accuracy with a 95% interval over items."""

    task: str
    family: str
    adversary: str
    kind: str  # "learned", "named" or "reference"
    metric: str  # "accuracy" or "balanced_accuracy"
    estimate: float
    low: float
    high: float
    chance: float
    n_items: int
    n_decisions: int

    @property
    def limit(self) -> float:
        return self.chance + MARGIN

    @property
    def fails(self) -> bool:
        """A surface or transductive adversary whose lower bound beats chance + margin."""
        return self.kind != "reference" and self.low > self.limit

    def to_json(self) -> dict:
        return {**asdict(self), "limit": round(self.limit, 4), "fails": self.fails}


@dataclass(frozen=True)
class AdversarialAudit:
    """The audit of one split: every adversary on every task, and whether the split passed."""

    split: str
    protocol: str
    train_seeds: tuple[int, ...]
    test_seeds: tuple[int, ...]
    results: tuple[AdversaryResult, ...] = field(default_factory=tuple)

    @property
    def passed(self) -> bool:
        return not any(r.fails for r in self.results)

    @property
    def failures(self) -> list[AdversaryResult]:
        return [r for r in self.results if r.fails]

    def worst(self) -> dict[tuple[str, str], AdversaryResult]:
        """Per (task, family): the attacking adversary with the highest lower bound over chance."""
        out: dict[tuple[str, str], AdversaryResult] = {}
        for r in self.results:
            if r.kind == "reference":
                continue
            k = (r.task, r.family)
            if k not in out or _margin(r) > _margin(out[k]):
                out[k] = r
        return out

    def to_json(self) -> dict:
        return {
            "split": self.split,
            "protocol": self.protocol,
            "train_seeds": list(self.train_seeds),
            "test_seeds": list(self.test_seeds),
            "margin": MARGIN,
            "passed": self.passed,
            "failures": [f"{r.task}/{r.family}: {r.adversary}" for r in self.failures],
            "results": [r.to_json() for r in self.results],
        }


def _margin(r: AdversaryResult) -> float:
    """Lower bound over chance (−inf when there is no interval)."""
    return r.low - r.chance if math.isfinite(r.low) else -math.inf


# ---------------------------------------------------------------------------- evaluation


def _unit_outcomes(ex: Example, scores: np.ndarray, rows: np.ndarray) -> dict[str, list[tuple]]:
    """Per item: list of (correct share,) for choice or (tp, pos, tn, neg) for binary."""
    out: dict[str, list[tuple]] = defaultdict(list)
    if ex.kind == "choice":
        by_unit: dict[int, list[int]] = defaultdict(list)
        for r in rows:
            by_unit[int(ex.unit[r])].append(int(r))
        for rs in by_unit.values():
            s = scores[rs]
            best = np.flatnonzero(np.isclose(s, s.max(), rtol=0, atol=1e-12))
            correct = sum(bool(ex.label[rs[b]]) for b in best) / len(best)
            out[ex.item[rs[0]]].append((correct, 1.0 / len(rs)))
    else:
        for r in rows:
            y, p = bool(ex.label[r]), bool(scores[r] > 0.5)
            out[ex.item[r]].append((float(p and y), float(y), float(not p and not y), float(not y)))
    return out


def _value(kind: str, sums: np.ndarray) -> float:
    if kind == "choice":
        return float(sums[0] / sums[2]) if sums[2] else math.nan
    tp, pos, tn, neg = sums[:4]
    if pos == 0 or neg == 0:
        return math.nan
    return 0.5 * (tp / pos + tn / neg)


def _interval(
    kind: str, per_item: Mapping[str, list[tuple]], seed: int, n_boot: int = 2000
) -> tuple[float, float, float, float, int, int]:
    """(estimate, low, high, chance, n_items, n_decisions) with a percentile item bootstrap."""
    items = sorted(per_item)
    if kind == "choice":
        mat = np.array(
            [
                [sum(c for c, _ in per_item[i]), sum(h for _, h in per_item[i]), len(per_item[i])]
                for i in items
            ],
            float,
        )
        chance = float(mat[:, 1].sum() / mat[:, 2].sum()) if len(items) else math.nan
    else:
        mat = np.array([np.sum(per_item[i], axis=0) for i in items], float).reshape(len(items), 4)
        chance = 0.5
    n_dec = int(sum(len(v) for v in per_item.values()))
    if len(items) < 2:
        est = _value(kind, mat.sum(axis=0)) if len(items) else math.nan
        return est, math.nan, math.nan, chance, len(items), n_dec
    est = _value(kind, mat.sum(axis=0))
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(items), size=(n_boot, len(items)))
    weights = np.zeros((n_boot, len(items)))
    np.add.at(weights, (np.arange(n_boot)[:, None], draws), 1.0)
    sums = weights @ mat
    reps = np.array([_value(kind, s) for s in sums])
    reps = reps[np.isfinite(reps)]
    if reps.size == 0:
        return est, math.nan, math.nan, chance, len(items), n_dec
    low, high = np.quantile(reps, [0.025, 0.975])
    w_low, w_high = wilson(est, len(items))
    return est, float(min(low, w_low)), float(max(high, w_high)), chance, len(items), n_dec


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion ``p`` observed on ``n`` items.

    The audit's interval is never narrower than this one on the number of *items*: a
    percentile bootstrap over four items that were all right is [1, 1], which says nothing,
    while Wilson gives [0.51, 1]. Counting items rather than decisions is the conservative
    design effect (an item's decisions are correlated).
    """
    if n <= 0 or not math.isfinite(p):
        return math.nan, math.nan
    p = min(1.0, max(0.0, p))
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return centre - half, centre + half


def _learner(name: str, seed: int):
    from sklearn.ensemble import GradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if name == "lr":
        return make_pipeline(
            StandardScaler(), LogisticRegression(C=0.5, max_iter=3000, class_weight="balanced")
        )
    return GradientBoostingClassifier(
        n_estimators=100,
        max_depth=3,
        learning_rate=0.1,
        subsample=0.8,
        max_features="sqrt",
        random_state=seed,
    )


def _fit_predict(
    name: str, x_train: np.ndarray, y_train: np.ndarray, x_test: np.ndarray, seed: int
) -> np.ndarray:
    """P(label) on the test rows; a constant 0.5 when training has a single class."""
    if len(set(y_train.tolist())) < 2 or len(x_test) == 0:
        return np.full(len(x_test), 0.5)
    from threadpoolctl import threadpool_limits

    model = _learner(name, seed)
    pos = y_train.mean()
    weights = np.where(y_train, 0.5 / pos, 0.5 / (1 - pos))  # balanced classes, as for lr
    with warnings.catch_warnings(), threadpool_limits(1):
        warnings.simplefilter("ignore")
        if name == "lr":
            model.fit(x_train, y_train)
        else:
            model.fit(x_train, y_train, sample_weight=weights)
        return model.predict_proba(x_test)[:, 1]


def _folds(
    ex: Example, bench_seed: Sequence[int], train_seeds: set[int]
) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train rows, test rows) pairs: by seed, or five item folds for a single bench."""
    rows = np.arange(len(ex.label))
    if train_seeds:
        is_train = np.array([bench_seed[b] in train_seeds for b in ex.bench])
        return [(rows[is_train], rows[~is_train])]
    items = sorted(set(ex.item))
    fold_of = {it: i % FOLDS for i, it in enumerate(sorted(items, key=_stable))}
    f = np.array([fold_of[i] for i in ex.item])
    return [(rows[f != k], rows[f == k]) for k in range(FOLDS) if (f == k).any()]


def _stable(item_id: str) -> str:
    import hashlib

    return hashlib.sha256(item_id.encode()).hexdigest()


def _columns(ex: Example, group: str) -> np.ndarray:
    prefixes = {
        "surface": ("s:",),
        "transductive": ("t:",),
        "all": ("s:", "t:"),
        "text-structure": ("s:", "t:", "x:"),
    }[group]
    cols = [j for j, name in enumerate(ex.names) if name.startswith(prefixes)]
    return ex.x[:, cols]


def _named_scores(ex: Example, name: str, train: np.ndarray, test: np.ndarray) -> np.ndarray:
    """A named cheat's score on the test rows; its sign (and, for yes/no tasks, its
    threshold) is fitted on the training rows."""
    raw = ex.named[name]
    if ex.kind == "choice":
        up = _choice_accuracy(ex, raw, train)
        down = _choice_accuracy(ex, -raw, train)
        return raw[test] if up >= down else -raw[test]
    best = (-1.0, 1.0, 0.0)
    ys = ex.label[train].astype(bool)
    for sign in (1.0, -1.0):
        vals = sign * raw[train]
        for thr in np.unique(vals):
            pred = vals >= thr
            pos, neg = ys.sum(), (~ys).sum()
            if pos == 0 or neg == 0:
                continue
            bal = 0.5 * ((pred & ys).sum() / pos + (~pred & ~ys).sum() / neg)
            if bal > best[0]:
                best = (bal, sign, float(thr))
    _, sign, thr = best
    return (sign * raw[test] >= thr).astype(float)


def _choice_accuracy(ex: Example, raw: np.ndarray, rows: np.ndarray) -> float:
    per = _unit_outcomes(ex, raw, rows)
    vals = [c for v in per.values() for c, _ in v]
    return float(np.mean(vals)) if vals else 0.0


Predict = Callable[[np.ndarray, np.ndarray], np.ndarray]


def _learned(learner: str, x: np.ndarray, label: np.ndarray, seed: int) -> Predict:
    return lambda tr, te: _fit_predict(learner, x[tr], label[tr], x[te], seed)


def _named(ex: Example, name: str) -> Predict:
    return lambda tr, te: _named_scores(ex, name, tr, te)


def _given(scores: np.ndarray) -> Predict:
    return lambda tr, te: scores[te]


def audit_task(
    ex: Example,
    bench_seed: Sequence[int],
    train_seeds: set[int],
    *,
    learners: Sequence[str] = LEARNERS,
    seed: int = 0,
) -> list[AdversaryResult]:
    """Every adversary on one task's examples."""
    folds = _folds(ex, bench_seed, train_seeds)
    n = len(ex.label)
    plans: list[tuple[str, str, Predict]] = []
    for learner in learners:
        for group in (*GROUPS, "text-structure"):
            x = _columns(ex, group)
            if x.shape[1] == 0 or (
                group == "text-structure" and not any(n.startswith("x:") for n in ex.names)
            ):
                continue
            plans.append(
                (
                    f"{learner}:{group}",
                    "reference" if group == "text-structure" else "learned",
                    _learned(learner, x, ex.label, seed),
                )
            )
    for name in ex.named:
        plans.append((name, "named", _named(ex, name)))
    if ex.reference is not None:
        plans.append(("iso_exact", "reference", _given(ex.reference)))
    out = []
    for adversary, kind, predict in plans:
        scores = np.zeros(n)
        tested = []
        for train, test in folds:
            if len(test) == 0:
                continue
            scores[test] = predict(train, test)
            tested.append(test)
        rows = np.concatenate(tested) if tested else np.array([], int)
        per_item = _unit_outcomes(ex, scores, rows)
        est, low, high, chance, n_items, n_dec = _interval(ex.kind, per_item, seed)
        out.append(
            AdversaryResult(
                ex.task,
                ex.family,
                adversary,
                kind,
                "accuracy" if ex.kind == "choice" else "balanced_accuracy",
                round(est, 4),
                round(low, 4),
                round(high, 4),
                round(chance, 4),
                n_items,
                n_dec,
            )
        )
    return out


def adversarial_audit(
    benches: Sequence[tuple[int, Sequence[Item]]],
    *,
    learners: Sequence[str] = LEARNERS,
    seed: int = 0,
    tasks: Sequence[str] | None = None,
) -> AdversarialAudit:
    """Audit a set of benches of one split, given as (generator seed, items) pairs.

    Raises:
        ValueError: the benches mix splits or are empty.
    """
    if not benches:
        raise ValueError("adversarial audit: no bench given")
    splits = {it.split for _, items in benches for it in items}
    if len(splits) != 1:
        raise ValueError(
            f"adversarial audit: benches mix splits {sorted(splits)}; audit one split at a time"
        )
    seeds = [s for s, _ in benches]
    ordered = sorted(set(seeds))
    if len(ordered) >= 2:
        train = set(ordered[: len(ordered) // 2])
        protocol = "train on the lower half of the seeds, test on the upper half"
    else:
        train = set()
        protocol = f"one bench: {FOLDS}-fold cross-fitting over items"
    examples = build_examples([items for _, items in benches], tasks or TASKS)
    results: list[AdversaryResult] = []
    for ex in examples:
        results += audit_task(ex, seeds, train, learners=learners, seed=seed)
    return AdversarialAudit(
        splits.pop(),
        protocol,
        tuple(sorted(train)),
        tuple(s for s in ordered if s not in train),
        tuple(results),
    )


__all__ = ["NAMED", "AdversarialAudit", "AdversaryResult", "adversarial_audit", "audit_task"]


def table(audit: AdversarialAudit) -> list[str]:
    """A compact text table: per task and family, the strongest attacker against chance, the
    structure reference, and the verdict."""
    ref = {(r.task, r.family): r for r in audit.results if r.adversary == "iso_exact"}
    head = (
        f"adversarial audit, split {audit.split} ({audit.protocol}; train seeds "
        f"{_span(audit.train_seeds)}, test seeds {_span(audit.test_seeds)})"
    )
    cols = (
        f"  {'task':<10} {'fam':<3} {'strongest attacker':<30} {'accuracy [95% CI]':<22} "
        f"{'chance':>6} {'items':>5}  {'iso ref':>7}  verdict"
    )
    lines = [head, cols]
    for (task, fam), r in sorted(audit.worst().items()):
        iso = ref.get((task, fam))
        lines.append(
            f"  {task:<10} {fam:<3} {r.adversary:<30} {_ci(r):<22} {r.chance:>6.3f} "
            f"{r.n_items:>5}  {'' if iso is None else f'{iso.estimate:.3f}':>7}  "
            f"{'FAIL' if r.fails else 'ok'}"
        )
    verdict = "passed" if audit.passed else f"FAILED ({len(audit.failures)} adversaries win)"
    lines.append(f"  audit {verdict}: fails when any adversary's lower bound > chance + {MARGIN}")
    return lines


def _ci(r: AdversaryResult) -> str:
    if math.isnan(r.estimate):
        return "undefined"
    if math.isnan(r.low):
        return f"{r.estimate:.3f} [no interval]"
    return f"{r.estimate:.3f} [{r.low:.3f}, {r.high:.3f}]"


def _span(seeds: Sequence[int]) -> str:
    if not seeds:
        return "(cross-fitted)"
    s = sorted(seeds)
    if s == list(range(s[0], s[-1] + 1)) and len(s) > 2:
        return f"{s[0]}-{s[-1]}"
    return ",".join(map(str, s))
