"""Results: every stored score of a run turned into metrics, intervals, comparisons, verdicts
and a result class — read from the database only, never re-run.

The shape of ``results.json`` (version 1)::

    {"version", "run_id", "status", "bench": {manifest}, "config": {...},
     "adversarial_audit": {sidecar of `analogist bench audit`} | null,
     "skipped": {"ARM/answerer": reason},
     "answerers": {
        "engine": {
           "arms": {"E": {"n_items", "metrics": {name: Interval}, "nav_sensitivity": {"a=1,b=2": v},
                          "cost": {...}, "decoy_point": {"hit_rate", "false_alarm_rate"}}},
           "comparisons": [...], "baselines": [...], "verdicts": [...],
           "classification": {...},
           "contamination": {"source_dependence": {...}, "lesion": {...}},
           "e_minus_iso": {metric: Comparison}, "e_minus_iso_by_family": {family: Interval},
           "noise_curve": {"rates": [0, 0.1, ...], "realistic": 0.2,
                           "arms": {"E": [{"rate", "nav": Interval, "n_items"}, ...]},
                           "e_minus_iso": [{"rate", "nav": Interval}, ...]}}}}

``noise_curve`` reads the noisy-encoder reruns (:mod:`analogist.bench.execution.noise`; rate 0 is the
ordinary run) for ISO, C, D and E; it is absent when no noise rate was run.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import replace
from functools import partial
from typing import Any

from analogist.bench.analysis import metrics as m
from analogist.bench.analysis.classify import classify
from analogist.bench.analysis.hypotheses import ARMS, evaluate
from analogist.bench.analysis.score_record import Score
from analogist.bench.analysis.stats import bootstrap, paired_difference
from analogist.bench.execution.noise import NOISE_ARMS, REALISTIC
from analogist.store import Store

RESULTS_VERSION = 1
REPORTED = (
    "nav",
    "transfer_accuracy",
    "dprime",
    "recall@5",
    "recall@1",
    "claim_precision",
    "no_match_specificity",
    "match_sensitivity",
    "false_positive_rate",
    "role_mapping_f1",
    "partial_transfer_balanced_accuracy",
    "verification_survival",
    "negative_transfer_rate",
    "brier",
    "useful_analogy_precision",
    "yield",
    "novel_useful_rate",
    "tokens_per_useful",
    "calls_per_useful",
    "wall_ms_per_useful",
)
EXTRA = {"recall@5[far]": m.recall_at_k(5).on(lambda s: s.far, "far")}


def _clean(x: Any) -> Any:
    if isinstance(x, float) and (math.isnan(x) or math.isinf(x)):
        return None
    if isinstance(x, dict):
        return {str(k): _clean(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_clean(v) for v in x]
    return x


def _decoy_point(scores: list[Score]) -> dict:
    """The ROC point of decoy discrimination: hit and false-alarm rates on offered candidates."""
    offered = [s for s in scores if s.is_main and s.offered_is_valid is not None]
    sig = [s for s in offered if s.offered_is_valid]
    noise = [s for s in offered if not s.offered_is_valid]
    rate = lambda xs: sum(1 for s in xs if s.accepted) / len(xs) if xs else None
    return {
        "hit_rate": rate(sig),
        "false_alarm_rate": rate(noise),
        "n_signal": len(sig),
        "n_noise": len(noise),
    }


def _contamination(scores: list[Score]) -> dict:
    cond = [s for s in scores if s.condition is not None]
    acc: dict[str, list[bool]] = defaultdict(list)
    for s in cond:
        acc[str(s.condition)].append(bool(s.task_correct))
    lesion = [s for s in scores if s.lesioned]
    intact = {(s.item_id, s.seed): s.conclusion for s in scores if s.is_main}
    changed = [s.conclusion != intact.get((s.item_id, s.seed)) for s in lesion]
    return {
        "source_dependence": {
            "accuracy": {c: (sum(v) / len(v) if v else None) for c, v in sorted(acc.items())},
            "n_items": len({s.item_id for s in cond}),
            "delta_correct_minus_none": m.source_dependence_delta(scores) if cond else None,
            "delta_correct_minus_wrong": m.wrong_source_delta(scores) if cond else None,
        },
        "lesion": {
            "n": len(lesion),
            "conclusion_changed": sum(changed),
            "share_changed": (sum(changed) / len(changed)) if changed else None,
        },
    }


def _arm_block(scores: list[Score], n_boot: int, seed: int) -> dict:
    main = [s for s in scores if s.is_main]
    metrics = {}
    for name in REPORTED:
        metrics[name] = bootstrap(m.METRICS[name], main, n_boot=n_boot, seed=seed).to_json()
    for name, metric in EXTRA.items():
        metrics[name] = bootstrap(metric, main, n_boot=n_boot, seed=seed).to_json()
    sens = {f"a={a:g},b={b:g}": v for (a, b), v in m.nav_sensitivity(main).items()}
    cost = m.cost_per_useful(main)
    return {
        "n_items": len({s.item_id for s in main}),
        "n_scores": len(scores),
        "metrics": metrics,
        "nav_sensitivity": sens,
        "cost": {
            "tokens": sum(s.tokens for s in main),
            "calls": sum(s.calls for s in main),
            "wall_ms": round(sum(s.wall_ms for s in main), 1),
            "per_useful": {"tokens": cost.tokens, "calls": cost.calls, "wall_ms": cost.wall_ms},
        },
        "decoy_point": _decoy_point(main),
    }


def _at_rate(scores: list[Score], rate: float) -> list[Score]:
    """The ordinary-run view of one noise rate's rows (rate 0: the ordinary rows)."""
    if rate == 0:
        return [s for s in scores if s.is_main]
    return [
        replace(s, noise=0.0)
        for s in scores
        if s.noise == rate and s.condition is None and not s.lesioned
    ]


def noise_curve(
    groups: dict[tuple[str, str], list[Score]], answerer: str, n_boot: int, seed: int
) -> dict | None:
    """NAV against encoder-noise rate for ISO, C, D and E, and E − ISO at each rate."""
    rates = sorted({s.noise for (_, who), ss in groups.items() if who == answerer for s in ss})
    if rates == [0.0] or not rates:
        return None
    nav = m.nav()
    arms: dict[str, list[dict]] = {}
    for arm in NOISE_ARMS:
        scores = groups.get((arm, answerer), [])
        rows = []
        for rate in rates:
            view = _at_rate(scores, rate)
            if view:
                iv = bootstrap(nav, view, n_boot=n_boot, seed=seed)
                rows.append({"rate": rate, "nav": iv.to_json(), "n_items": iv.n_items})
        if rows:
            arms[arm] = rows
    diffs = []
    e, iso = groups.get(("E", answerer), []), groups.get(("ISO", answerer), [])
    for rate in rates:
        ev, iv_ = _at_rate(e, rate), _at_rate(iso, rate)
        if ev and iv_:
            d = paired_difference(nav, ev, iv_, n_boot=n_boot, seed=seed)
            diffs.append({"rate": rate, "nav": d.to_json()})
    return {"rates": rates, "realistic": REALISTIC, "arms": arms, "e_minus_iso": diffs}


def _in_family(family: str, s: Score) -> bool:
    """Whether a score belongs to one item family (a metric filter)."""
    return s.family == family


def _by_family(
    groups: dict[tuple[str, str], list[Score]], answerer: str, n_boot: int, seed: int
) -> dict:
    """E − ISO NAV per family (where isomorphism should fail by construction and mapping
    should not: extra mechanisms, partial analogies, re-descriptions)."""
    e, iso = groups.get(("E", answerer), []), groups.get(("ISO", answerer), [])
    if not e or not iso:
        return {}
    out = {}
    for fam in sorted({s.family for s in e}):
        metric = m.nav().on(partial(_in_family, fam), fam)
        out[fam] = paired_difference(
            metric,
            [s for s in e if s.is_main],
            [s for s in iso if s.is_main],
            n_boot=n_boot,
            seed=seed,
        ).to_json()
    return out


def aggregate(store: Store, run_id: str, *, n_boot: int = 2000, seed: int = 0) -> dict:
    """Build the results document of one stored run (see the module docstring)."""
    info = store.get_bench_run(run_id)
    scores = [Score.from_json(d) for d in store.bench_scores(run_id)]
    groups: dict[tuple[str, str], list[Score]] = defaultdict(list)
    for s in scores:
        groups[(s.arm, s.answerer)].append(s)
    skipped = info["config"].get("skipped", {})
    out: dict[str, Any] = {
        "version": RESULTS_VERSION,
        "run_id": run_id,
        "status": info["status"],
        "bench": info["config"].get("bench", {}),
        "config": {
            k: v
            for k, v in info["config"].items()
            if k not in ("bench", "skipped", "adversarial_audit")
        },
        "adversarial_audit": info["config"].get("adversarial_audit"),
        "skipped": skipped,
        "answerers": {},
    }
    for answerer in sorted({a for _, a in groups}):
        arms = {
            arm: _arm_block(groups[(arm, answerer)], n_boot, seed)
            for arm in ARMS
            if (arm, answerer) in groups
        }
        not_run = {
            arm: skipped.get(f"{arm}/{answerer}", "not requested")
            for arm in ARMS
            if (arm, answerer) not in groups
        }
        report = evaluate(groups, answerer, n_boot=n_boot, seed=seed, not_run=not_run)
        rj = report.to_json()
        control = groups.get(("E", answerer), [])
        out["answerers"][answerer] = {
            "arms": arms,
            "comparisons": rj["comparisons"],
            "baselines": rj["baselines"],
            "verdicts": rj["verdicts"],
            "classification": classify(report).to_json(),
            "contamination": _contamination(control),
            "e_minus_iso": {c["metric"]: c for c in rj["comparisons"] if c["name"] == "E - ISO"},
            "e_minus_iso_by_family": _by_family(groups, answerer, n_boot, seed),
        }
        curve = noise_curve(groups, answerer, n_boot, seed)
        if curve is not None:
            out["answerers"][answerer]["noise_curve"] = curve
    return _clean(out)
