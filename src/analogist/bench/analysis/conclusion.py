"""The report's opening paragraph in plain words, and the plain one-line definition of each arm.

:func:`conclusion` reads a results document (:mod:`analogist.bench.analysis.results`) and says what
helped (a paired comparison whose 95% interval lies on the good side of zero), what did not
(interval on the bad side, or straddling zero), how sure (items, interval method), and what was
not run and why (skipped arms, hypotheses with too few items). Both the scoreboard text and the
HTML report open with it, so there is one definition. :func:`plain` replaces citations a reader
cannot follow (spec section numbers, the internal product name) with plain names.
"""

from __future__ import annotations

import re
from typing import Any

from analogist.bench.execution.arms import ARMS

#: Plain names of the arms, used inside sentences ("structural retrieval beat its placebo").
NAMES = {
    "A0": "the bare model",
    "A1": "the bare model told to look for an analogy",
    "B": "word-similarity memory",
    "B′": "word-similarity memory given as much text as C",
    "C": "structural retrieval",
    "C′": "structural retrieval on shuffled signatures",
    "H": "word-similarity plus structural retrieval",
    "D": "structural retrieval with explicit role mapping",
    "E": "the full pipeline",
    "G": "the full pipeline handed the right source",
    "E+R": "the full pipeline with re-description",
    "ISO": "an exact shape matcher",
    "E+Bld": "the full pipeline with blending",
    "max(B,C)": "the better of B and C",
}
#: One line per arm: what it is, then the question it answers (its ``purpose`` in bench/execution/arms.py).
DEFINITIONS = {
    "A0": "the model alone: no memory, no hint (the floor)",
    "A1": "the model alone, told to look for an analogy (isolates the reminder)",
    "B": "the model with past cases found by word similarity (today's memory)",
    "B′": "B given as much retrieved text as C (controls for extra text)",
    "C": "past cases found by their cause-and-effect shape (tests structural encoding)",
    "C′": "C with signatures shuffled across cases (placebo: is the shape real signal?)",
    "H": "past cases from both word similarity and shape (are they complementary?)",
    "D": "C plus an explicit mapping of roles from source to target (tests mapping)",
    "E": "D plus checks that the carried-over fix really follows (tests verification)",
    "G": "E handed the right source (upper bound, uses the answer key)",
    "E+R": "E plus re-describing the target when nothing matches",
    "ISO": "reference: exact name-free shape match plus the source's recorded fix",
}
#: Metrics where a lower value is better.
LOWER_IS_BETTER = (
    "negative_transfer_rate",
    "false_positive_rate",
    "brier",
    "tokens_per_useful",
    "calls_per_useful",
    "wall_ms_per_useful",
)
METRIC_NAMES = {
    "nav": "net value (NAV)",
    "transfer_accuracy": "transfer accuracy",
    "dprime": "decoy rejection (d′)",
    "recall@5[far]": "far recall@5",
    "recall@5": "recall@5",
    "role_mapping_f1": "role mapping F1",
    "useful_analogy_precision": "useful-analogy precision",
    "negative_transfer_rate": "negative transfer",
    "match_sensitivity": "match sensitivity",
    "false_positive_rate": "false positives",
    "novel_useful_rate": "novel useful",
}

_CITE = re.compile(r"\s*\((?:spec\s+)?§[\d.]+[^)]*\)|\bspec\s+§[\d.]+|§[\d.]+")


def plain(text: Any) -> str:
    """``text`` without spec section numbers and with the product name replaced by plain words."""
    s = str(text)
    s = s.replace("Piper memory", "the current memory").replace("Piper", "the system")
    return re.sub(r"  +", " ", _CITE.sub("", s)).strip()


def definition(arm: str) -> str:
    """The one-line plain definition of an arm (its purpose when no plain line is written)."""
    if arm in DEFINITIONS:
        return DEFINITIONS[arm]
    return plain(ARMS[arm].purpose) if arm in ARMS else arm


def arm_tools(results: dict, arm: str) -> str:
    """Which encoder and embedder the arm used, from the run's recorded configuration."""
    cfg = _d(_d(results).get("config"))
    enc = cfg.get("encoder") or "not recorded"
    enc = "gold (the generator's own signatures)" if enc == "gold" else enc
    embedders = cfg.get("embedders")
    emb = (
        "not recorded"
        if not isinstance(embedders, dict)
        else embedders.get(arm, "– (the arm did not run)")
    )
    if emb == "none":
        emb = "none (no embedding retrieval)"
    return f"encoder {enc}; embedder {emb}"


def _d(x: Any) -> dict:
    return x if isinstance(x, dict) else {}


def _l(x: Any) -> list:
    return x if isinstance(x, list) else []


def _name(expr: str) -> str:
    return NAMES.get(expr.strip(), expr.strip())


def _metric(metric: str) -> str:
    base, _, fam = metric.partition("[")
    name = METRIC_NAMES.get(metric) or METRIC_NAMES.get(base, base.replace("_", " "))
    return f"{name} on {fam.rstrip(']')}" if fam and metric not in METRIC_NAMES else name


def _num(x: float) -> str:
    return f"{x:+.2f}"


def _finding(c: dict) -> tuple[str, str] | None:
    """("helped" | "hurt" | "unclear", sentence part) for one comparison that ran."""
    c, iv = _d(c), _d(_d(c).get("interval"))
    est, lo, hi = iv.get("estimate"), iv.get("low"), iv.get("high")
    if not (
        isinstance(est, (int, float))
        and isinstance(lo, (int, float))
        and isinstance(hi, (int, float))
    ):
        return None
    treat, _, ctrl = str(c.get("name", "")).partition(" - ")
    lower = str(c.get("metric", "")).partition("[")[0] in LOWER_IS_BETTER
    good, bad = (hi < 0, lo > 0) if lower else (lo > 0, hi < 0)
    kind = "helped" if good else "hurt" if bad else "same" if est == lo == hi == 0 else "unclear"
    verb = {"helped": "beat", "hurt": "did worse than"}.get(kind, "against")
    text = (
        f"on {_metric(str(c.get('metric', '')))}, {_name(treat)} {verb} {_name(ctrl)} "
        f"({treat.strip()} − {ctrl.strip()} {_num(est)} [{_num(lo)}, {_num(hi)}], "
        f"n={iv.get('n_items', '?')})"
    )
    return kind, text


def _join(parts: list[str], limit: int = 4) -> str:
    if len(parts) > limit:
        parts = parts[:limit] + [f"{len(parts) - limit} more in the tables below"]
    return "; ".join(parts)


def _answerer_sentences(name: str, block: dict) -> list[str]:
    found: dict[str, list[str]] = {"helped": [], "hurt": [], "unclear": [], "same": []}
    for c in _l(block.get("comparisons")):
        f = _finding(c)
        if f:
            found[f[0]].append(f[1])
    out = [
        f"With the {name} answerer, "
        + (
            f"what helped: {_join(found['helped'])}."
            if found["helped"]
            else "nothing helped clearly (no difference whose interval excludes zero)."
        )
    ]
    if found["hurt"]:
        out.append(f"What hurt: {_join(found['hurt'])}.")
    if found["unclear"]:
        out.append(
            f"Not shown either way (the interval includes zero): {_join(found['unclear'], 3)}."
        )
    if found["same"]:
        out.append(
            f"No difference on any item in {len(found['same'])} comparisons "
            "(every paired difference was zero)."
        )
    verdicts = [_d(v) for v in _l(block.get("verdicts"))]
    thin = [v for v in verdicts if v.get("status") == "insufficient data"]
    if thin:
        needs = []
        for v in thin:
            m = re.match(r"(\d+) items < (\d+) needed", str(v.get("reason", "")))
            needs.append(
                f"{v.get('hypothesis')} ({m.group(1)} of {m.group(2)} items needed)"
                if m
                else str(v.get("hypothesis"))
            )
        out.append("Too few items to decide " + ", ".join(needs) + ".")
    missing = [str(v.get("hypothesis")) for v in verdicts if v.get("status") == "not run"]
    if missing:
        out.append(
            f"Not tested: {', '.join(missing)} (each needs an arm or items this run "
            "did not have; reasons in the hypotheses table)."
        )
    decided = [
        f"{v.get('hypothesis')} {v.get('status')}"
        for v in verdicts
        if v.get("status") in ("pass", "fail")
    ]
    if decided:
        out.append("Hypotheses decided: " + ", ".join(decided) + ".")
    return out


def conclusion(results: dict) -> str:
    """The one-paragraph conclusion of a results document (see the module docstring)."""
    results = _d(results)
    bench, cfg = _d(results.get("bench")), _d(results.get("config"))
    answerers = _d(results.get("answerers"))
    items = max(
        (
            n
            for b in answerers.values()
            for a in _d(_d(b).get("arms")).values()
            if isinstance(n := _d(a).get("n_items"), int)
        ),
        default=0,
    )
    emb = sorted({str(v) for v in _d(cfg.get("embedders")).values() if v != "none"})
    enc = arm_tools(results, "").split(";")[0].removeprefix("encoder ")
    s = [
        (
            f"This run scored {items} items of the {bench.get('size', '?')} "
            f"{bench.get('split', '?')} bench (seed {bench.get('seed', '?')}); targets were "
            f"encoded by {enc} and retrieval embedded text with {', '.join(emb) or 'no embedder'}."
        )
    ]
    if not answerers:
        s.append("No arm produced scores, so nothing can be concluded.")
    for name in sorted(answerers):
        s += _answerer_sentences(str(name), _d(answerers[name]))
    skipped = _d(results.get("skipped"))
    if skipped:
        by_reason: dict[str, list[str]] = {}
        rank = {a: i for i, a in enumerate(ARMS)}
        order = sorted(
            skipped, key=lambda k: (rank.get(str(k).rpartition("/")[0], len(rank)), str(k))
        )
        for key, why in ((k, skipped[k]) for k in order):
            arm, _, who = str(key).rpartition("/")
            reason = re.sub(rf"^{re.escape(arm)} ", "it ", plain(why))
            by_reason.setdefault(reason, []).append(f"{arm} ({who} answerer)")
        s.append(
            "Not run: " + "; ".join(f"{', '.join(v)}: {k}" for k, v in by_reason.items()) + "."
        )
    s.append(
        "How sure: every figure is a paired 95% bootstrap interval over items; with "
        f"{items} items the intervals are wide, and a zero-width interval on a handful of "
        "identical items shows no effect rather than a certain one."
        if items < 100
        else "How sure: every figure is a paired 95% bootstrap interval over items."
    )
    return " ".join(s)
