"""The PARB learning phase as text and as a report.html section (from stored rows only).

:func:`analogist.bench.suites.learning.latest_learning` aggregates the newest learning run of a store;
this module renders it: what was learned (verified runs, schemas), then per condition (learned
motifs, held-out motifs) the arms E and E+S with BCa intervals and their paired difference.
"""

from __future__ import annotations

import math
from typing import Any

from analogist.bench.analysis.html import splice_section
from analogist.bench.analysis.svg import esc, fmt

LABELS = {
    "nav": "NAV",
    "first_candidate_recall": "first mapped candidate is the source",
    "source_mapped": "source among the candidates mapped",
    "time_to_first_correct_source": "position of the source in mapping order",
    "false_accept_rate": "false accepts / items",
}


def _iv(iv: dict, signed: bool = False) -> str:
    est = iv.get("estimate")
    if est is None or math.isnan(est):
        return "–"
    return (
        f"{fmt(est, signed=signed)} [{fmt(iv.get('low'), signed=signed)}, "
        f"{fmt(iv.get('high'), signed=signed)}]"
    )


def _rows(c: dict) -> list[list[str]]:
    rows = []
    for name, by in c["metrics"].items():
        rows.append(
            [LABELS.get(name, name), _iv(by["E"]), _iv(by["E+S"]), _iv(by["E+S - E"], signed=True)]
        )
    s3 = c.get("s3_recall_at_1")
    rows.append(["S3 recall@1 (E+S)", "–", "–" if s3 is None else f"{s3:.2f} (n={c['s3_n']})", "–"])
    rows.append(
        ["items with a schema hit (E+S)", "–", f"{c.get('s3_fired', 0)}/{c['n_items']}", "–"]
    )
    return rows


def _learned(doc: dict) -> str:
    cfg = doc["config"]
    cons = cfg.get("consolidation", {})
    verdicts = ", ".join(f"{k} {v}" for k, v in sorted(cons.get("verdicts", {}).items()))
    return (
        f"seed {cfg['seed']}, split {cfg['split']}: learned motifs "
        f"{', '.join(cfg['learned_motifs'])}; held out {', '.join(cfg['heldout_motifs'])}. "
        f"Stream of {cfg['stream_items']} F3 items answered by E: {verdicts}; "
        f"{cfg['schemas']} schema(s) induced (assimilation threshold {cfg['threshold']}, "
        f"only runs whose world check passed). Embedder {cfg.get('embedder', '?')}; "
        f"'+pad' conditions: the same items with {cfg.get('pad', 0)} more structured "
        "distractors (other motifs' sources and decoys) in each memory; 'map"
        f"{cfg.get('budget', 0)}': both arms map only the first {cfg.get('budget', 0)} "
        "candidate(s)."
    )


HEAD = ["metric", "E", "E+S", "E+S − E (paired)"]


def learning_text(doc: dict) -> str:
    """Plain-text tables of one learning run."""
    lines = [f"PARB learning phase ({doc['run_id']}): " + _learned(doc), ""]
    for cond, c in doc["conditions"].items():
        lines.append(f"{cond} motifs ({c['n_items']} items):")
        rows = [HEAD, *_rows(c)]
        w = [max(len(r[i]) for r in rows) for i in range(len(HEAD))]
        lines += ["  " + "  ".join(x.ljust(w[i]) for i, x in enumerate(r)).rstrip() for r in rows]
        lines.append("")
    return "\n".join(lines)


def learning_section(doc: dict | None) -> str:
    """The learning section of report.html ('' when the store holds no learning run)."""
    if not doc:
        return ""
    intro = (
        f'<section id="learning"><h2>Learning phase (schemas from verified analogies)</h2>'
        f"<p>{esc(_learned(doc))} E+S is E with the induced schema library in every item "
        "memory; schema hits are mapped first. Intervals: BCa bootstrap over items; the "
        "difference is paired on the same items.</p>"
    )
    parts = [intro]
    for cond, c in doc["conditions"].items():
        head = "".join(f"<th>{esc(h)}</th>" for h in HEAD)
        body = "".join(
            "<tr>" + "".join(f"<td>{esc(x)}</td>" for x in r) + "</tr>" for r in _rows(c)
        )
        parts.append(
            f"<h3>{esc(cond)} motifs ({c['n_items']} items)</h3>"
            f'<div class="scroll"><table><tr>{head}</tr>{body}</table></div>'
        )
    return "".join(parts) + "</section>\n"


def with_learning(html: str, doc: dict | None) -> str:
    """``html`` with the learning section (replacing an older one) before ``</main>``."""
    return splice_section(html, "learning", learning_section(doc))


def summary(doc: dict) -> dict[str, Any]:
    """The headline figures, for --json output and notes."""
    return {
        cond: {
            name: {arm: by[arm].get("estimate") for arm in by} for name, by in c["metrics"].items()
        }
        | {"s3_recall_at_1": c["s3_recall_at_1"]}
        for cond, c in doc["conditions"].items()
    }
