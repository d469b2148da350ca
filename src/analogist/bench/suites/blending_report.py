"""The PARB blending suite aggregated from stored rows, as text and as a report.html section.

:func:`latest_blending` reads the newest finished blending run of a store: per condition
(``split``, ``split_decoy``, ``plain``) and pooled, arms E and E+Bld with BCa intervals and the
paired difference, what blending did (blends proposed, chosen, recorded "verified novel", items
solved only with a blend, items lost with one), and H6 decided by
:func:`analogist.bench.analysis.hypotheses.evaluate` on the pooled items.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from analogist.bench.analysis import metrics as m
from analogist.bench.analysis.html import splice_section
from analogist.bench.analysis.hypotheses import evaluate
from analogist.bench.analysis.metrics import Metric
from analogist.bench.analysis.score_record import Score
from analogist.bench.analysis.stats import bootstrap, paired_difference
from analogist.bench.analysis.svg import esc, fmt
from analogist.bench.suites.runs import newest_done_run

ARMS = ("E", "E+Bld")
CONDITIONS = ("split", "split_decoy", "plain")


def _rate(
    name: str, row: Callable[[Score], tuple[float, float]], higher: bool, description: str
) -> Metric:
    return Metric(
        name,
        ("hit", "n"),
        row,
        lambda t: float(t[0] / t[1]) if t[1] else float("nan"),
        higher,
        description=description,
    )


USEFUL = _rate("useful_rate", lambda s: (s.useful, 1.0), True, "verified-useful analogies / items")
FALSE_ACCEPT = _rate(
    "false_accept_rate", lambda s: (s.false_accept, 1.0), False, "false accepts / items"
)
WORSE = _rate(
    "harmful_rate",
    lambda s: (s.negative_transfer, 1.0),
    False,
    "applied actions that made the target worse / items",
)
LUCKY = _rate(
    "false_accept_resolved_rate",
    lambda s: (s.false_accept and s.outcome == "resolved", 1.0),
    False,
    "false accepts whose applied fix resolved the target anyway / items",
)
METRICS = (
    m.nav(),
    m.novel_useful_rate,
    USEFUL,
    FALSE_ACCEPT,
    LUCKY,
    m.negative_transfer_rate,
    WORSE,
)
LABELS = {
    "nav": "NAV",
    "novel_useful_rate": "novel useful rate (useful, source a blend)",
    "useful_rate": "useful / items",
    "false_accept_rate": "false accepts / items",
    "false_accept_resolved_rate": "false accepts whose fix resolved anyway / items",
    "negative_transfer_rate": "negative transfers / applied actions",
    "harmful_rate": "negative transfers / items",
}
CONDITION_TEXT = {
    "split": "target's structure split over two stored fragments (a useful blend exists)",
    "split_decoy": "fragments of the true structure, target a minimal-pair decoy (no valid source)",
    "plain": "ordinary F3 items (blends are noise)",
}


def _block(
    by: dict[str, list[Score]], blend_rows: list[dict], n_boot: int, seed: int
) -> dict[str, Any]:
    e = {s.item_id: s for s in by["E"]}
    b = {s.item_id: s for s in by["E+Bld"]}
    out: dict[str, Any] = {
        "n_items": len(e),
        "blends_proposed_per_item": (
            sum(r["proposed"] for r in blend_rows) / len(blend_rows) if blend_rows else 0.0
        ),
        "blend_chosen": sum(1 for r in blend_rows if r.get("chosen")),
        "verified_novel": sum(
            1 for r in blend_rows if (r.get("novelty") or {}).get("status") == "verified novel"
        ),
        "solved_only_with_blend": sum(1 for i in e if b[i].useful and not e[i].useful),
        "lost_with_blend": sum(1 for i in e if e[i].useful and not b[i].useful),
        "metrics": {},
    }
    for metric in METRICS:
        out["metrics"][metric.name] = {
            arm: bootstrap(metric, by[arm], n_boot=n_boot, seed=seed).to_json() for arm in ARMS
        }
        out["metrics"][metric.name]["E+Bld - E"] = paired_difference(
            metric, by["E+Bld"], by["E"], n_boot=n_boot, seed=seed
        ).to_json()
    return out


def latest_blending(store: Any, n_boot: int = 1000, seed: int = 0) -> dict | None:
    """The newest finished blending run of ``store`` aggregated from its rows, or None."""
    run = newest_done_run(store, "blend_")
    if run is None:
        return None
    rows = store.bench_results(run["run_id"])
    doc: dict[str, Any] = {"run_id": run["run_id"], "config": run["config"], "conditions": {}}
    pooled: dict[str, list[Score]] = {a: [] for a in ARMS}
    pooled_rows: list[dict] = []
    for cond in CONDITIONS:
        by: dict[str, list[Score]] = {a: [] for a in ARMS}
        brows = []
        for r in rows:
            if r.condition != cond or r.arm not in by:
                continue
            by[r.arm].append(Score.from_json(r.score))
            if r.arm == "E+Bld":
                brows.append(r.answer.get("blending") or {"proposed": 0})
        if by["E"]:
            doc["conditions"][cond] = _block(by, brows, n_boot, seed)
            for a in ARMS:
                pooled[a] += by[a]
            pooled_rows += brows
    if not pooled["E"]:
        return None
    doc["pooled"] = _block(pooled, pooled_rows, n_boot, seed)
    report = evaluate({(a, "engine"): pooled[a] for a in ARMS}, "engine", n_boot=n_boot, seed=seed)
    doc["h6"] = report.verdict("H6").to_json()
    return doc


def _iv(iv: dict, signed: bool = False) -> str:
    est = iv.get("estimate")
    if est is None or math.isnan(est):
        return "–"
    return (
        f"{fmt(est, signed=signed)} [{fmt(iv.get('low'), signed=signed)}, "
        f"{fmt(iv.get('high'), signed=signed)}]"
    )


HEAD = ["metric", "E", "E+Bld", "E+Bld − E (paired)"]


def _rows(c: dict) -> list[list[str]]:
    rows = [
        [LABELS.get(k, k), _iv(v["E"]), _iv(v["E+Bld"]), _iv(v["E+Bld - E"], signed=True)]
        for k, v in c["metrics"].items()
    ]
    n = c["n_items"]
    rows.append(
        ["blends proposed per item (E+Bld)", "–", f"{c['blends_proposed_per_item']:.1f}", "–"]
    )
    rows.append(
        [
            "blend chosen / verified novel (E+Bld)",
            "–",
            f"{c['blend_chosen']}/{n} / {c['verified_novel']}/{n}",
            "–",
        ]
    )
    rows.append(
        [
            "solved only with a blend / lost with one",
            "–",
            "–",
            f"{c['solved_only_with_blend']} / {c['lost_with_blend']}",
        ]
    )
    return rows


def _table_text(c: dict) -> list[str]:
    rows = [HEAD, *_rows(c)]
    w = [max(len(r[i]) for r in rows) for i in range(len(HEAD))]
    return ["  " + "  ".join(x.ljust(w[i]) for i, x in enumerate(r)).rstrip() for r in rows]


def _intro(doc: dict) -> str:
    cfg = doc["config"]
    return (
        f"seed {cfg['seed']}, split {cfg['split']}, {cfg['items']} items per condition; "
        f"engine answerer, gold target encoder, embedder {cfg.get('embedder', '?')}; "
        f"blend policy {cfg.get('policy')}."
    )


def blending_text(doc: dict) -> str:
    """Plain-text tables of one blending run and the H6 verdict."""
    lines = [f"PARB blending suite ({doc['run_id']}): " + _intro(doc), ""]
    for cond, c in [*doc["conditions"].items(), ("pooled", doc["pooled"])]:
        lines.append(f"{cond} ({c['n_items']} items): {CONDITION_TEXT.get(cond, 'all conditions')}")
        lines += _table_text(c)
        lines.append("")
    h6 = doc["h6"]
    lines.append(f"H6 (E+Bld vs E, pooled): {h6['status']} — {h6['reason']}")
    return "\n".join(lines) + "\n"


def blending_section(doc: dict | None) -> str:
    """The blending section of report.html ('' when the store holds no blending run)."""
    if not doc:
        return ""
    h6 = doc["h6"]
    parts = [
        f'<section id="blending"><h2>Blending (arm E+Bld, H6)</h2><p>{esc(_intro(doc))} '
        "E+Bld is E plus generated blends of pairs of pool sources, each mapped, gated, "
        "criticised and checked like a retrieved source; a blend is chosen only when it "
        "maps better than every stored source mapped. Intervals: BCa bootstrap over "
        "items; differences paired on the same items.</p>"
        f"<p><b>H6: {esc(h6['status'])}</b> — {esc(h6['reason'])}</p>"
    ]
    head = "".join(f"<th>{esc(h)}</th>" for h in HEAD)
    for cond, c in [*doc["conditions"].items(), ("pooled", doc["pooled"])]:
        body = "".join(
            "<tr>" + "".join(f"<td>{esc(x)}</td>" for x in r) + "</tr>" for r in _rows(c)
        )
        parts.append(
            f"<h3>{esc(cond)}: {esc(CONDITION_TEXT.get(cond, 'all conditions'))} "
            f"({c['n_items']} items)</h3>"
            f'<div class="scroll"><table><tr>{head}</tr>{body}</table></div>'
        )
    return "".join(parts) + "</section>\n"


def with_blending(html: str, doc: dict | None) -> str:
    """``html`` with the blending section (replacing an older one) before ``</main>``."""
    return splice_section(html, "blending", blending_section(doc))


def summary(doc: dict) -> dict[str, Any]:
    """The headline figures, for --json output and notes."""
    blocks = {**doc["conditions"], "pooled": doc["pooled"]}
    return {
        "h6": doc["h6"]["status"],
        "h6_reason": doc["h6"]["reason"],
        **{
            cond: {
                name: {arm: by[arm].get("estimate") for arm in by}
                for name, by in c["metrics"].items()
            }
            | {
                "solved_only_with_blend": c["solved_only_with_blend"],
                "lost_with_blend": c["lost_with_blend"],
                "verified_novel": c["verified_novel"],
            }
            for cond, c in blocks.items()
        },
    }
