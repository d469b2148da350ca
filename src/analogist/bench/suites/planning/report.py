"""The planning suite end to end, and its report: a text table, ``planning.json``, and a
section of ``report.html``.

:func:`run_suite` generates the bench, runs every arm under each planner (the analogy arm's
runs go to the analogy log of ``planning.db`` in the report directory), summarises, and writes
``planning.json`` and ``planning.txt``. :func:`html_section` renders the section; when the
directory already holds a PARB ``report.html`` the section is put into it (replacing an older
one), and the PARB report writer does the same when it finds ``planning.json``, so the order in
which ``make run`` runs the two suites does not matter.
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from analogist.bench.analysis.html import splice_section
from analogist.bench.analysis.svg import esc
from analogist.bench.suites.planning.items import SIZES, generate_planning
from analogist.bench.suites.planning.run import ARMS, ORACLE_ARMS, run_planning
from analogist.bench.suites.planning.summary import summarize
from analogist.plan.planner import Planner

PLANNERS = (Planner("bfs"), Planner("gbfs", "hadd"))
NO_MACRO_UNDER = ("bfs",)
"""Searches the macro arm is not run under by default: under blind search a macro only widens
every node (measured at mvp, seed 0: expansion ratio 1.02 [0.73, 1.31], wall time x4.6;
docs/planning.md) and it was two thirds of the suite's time."""


def run_suite(
    seed: int,
    size: str,
    out: str | Path,
    *,
    planners: tuple[Planner, ...] = PLANNERS,
    n_boot: int = 2000,
    progress: Callable[[int, int, str], None] | None = None,
) -> dict:
    """Generate, run, summarise and write the planning report into ``out``."""
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    db = d / "planning.db"
    for p in (db, Path(f"{db}-wal"), Path(f"{db}-shm")):
        p.unlink(missing_ok=True)
    start = time.perf_counter()
    bench = generate_planning(seed, size)
    arms = {
        p: tuple(a for a in ARMS if a != "macro" or p.search not in NO_MACRO_UNDER)
        for p in planners
    }
    scores = run_planning(bench, planners, arms, db, progress)
    summary = summarize(scores, n_boot=n_boot, seed=seed)
    doc = {
        "suite": "planning",
        "seed": seed,
        "size": size,
        "shape": dict(
            zip(
                ("places", "gates", "cargo", "analogue_items", "no_analogue_items"),
                SIZES[size],
                strict=True,
            )
        ),
        "planners": [p.label for p in planners],
        "max_expansions": planners[0].max_expansions if planners else None,
        "arms": {p.label: list(a) for p, a in arms.items()},
        "oracle_arms": list(ORACLE_ARMS),
        "n_boot": n_boot,
        "wall_seconds": round(time.perf_counter() - start, 2),
        "summary": summary.to_json(),
        "scores": [s.to_json() for s in scores],
        "analogy_log": str(db),
    }
    (d / "planning.json").write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    text = render_text(doc)
    (d / "planning.txt").write_text(text, encoding="utf-8")
    html = d / "report.html"
    if html.exists():
        html.write_text(with_planning(html.read_text(encoding="utf-8"), d), encoding="utf-8")
    return {"dir": str(d), "json": str(d / "planning.json"), "text": text, "db": str(db)}


def _f(x: Any, nd: int = 2) -> str:
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{nd}f}"


def _iv(iv: dict, nd: int = 2) -> str:
    return f"{_f(iv['estimate'], nd)} [{_f(iv['low'], nd)}, {_f(iv['high'], nd)}]"


ARM_WORDS = {
    "planner": "the planner alone",
    "analogy": "retrieve a prior plan from memory, SME role map, project its skeleton, repair",
    "decoy": "the decoy prior plan's skeleton (SME role map), repaired or abandoned",
    "oracle": "ORACLE: the true prior plan with the generator's gold role map",
    "macro": "the planner with macro-actions compiled from the other items' verified transfers",
}


def _rows(doc: dict) -> list[list[str]]:
    rows = []
    for a in doc["summary"]["arms"]:
        chose = (
            ", ".join(f"{k} {v}" for k, v in sorted(a["chose"].items()))
            if a["arm"] == "analogy"
            else ""
        )
        rows.append(
            [
                a["planner"],
                a["arm"],
                a["kind"],
                str(a["n"]),
                _f(a["success"]),
                _f(a["expansions_mean"], 1),
                _f(a["expansions_median"], 1),
                _f(a["seconds_total"], 3),
                _f(a["length_mean"], 1),
                f"{a['skeleton_used']}/{a['fallbacks']}",
                "/".join(_f(x, 1) for x in a["steps"]) if a["arm"] != "planner" else "",
                chose,
            ]
        )
    return rows


HEAD = [
    "planner",
    "arm",
    "items",
    "n",
    "success",
    "expansions mean",
    "median",
    "wall s total",
    "plan length",
    "skeleton used/abandoned",
    "steps matched/unmatched/missing",
    "analogy's source",
]
PAIRED_HEAD = [
    "planner",
    "arm",
    "items",
    "expansions ratio [95% CI]",
    "wall-time ratio",
    "success difference",
    "plan-length ratio",
]


def _paired_rows(doc: dict) -> list[list[str]]:
    return [
        [
            p["planner"],
            p["arm"],
            p["kind"],
            _iv(p["expansions_ratio"], 3),
            _iv(p["seconds_ratio"]),
            _iv(p["success_diff"]),
            _iv(p["length_ratio"]),
        ]
        for p in doc["summary"]["paired"]
    ]


def render_text(doc: dict) -> str:
    """The planning figures as plain-text tables, with the criterion per planner."""

    def table(head: list[str], rows: list[list[str]]) -> list[str]:
        w = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
        return ["  ".join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip() for r in [head, *rows]]

    lines = [
        (
            f"Planning bench (spec §14): seed {doc['seed']}, size {doc['size']} {doc['shape']}, "
            f"planners {', '.join(doc['planners'])}, {doc['wall_seconds']} s"
        ),
        *(f"  {k}: {v}" for k, v in ARM_WORDS.items()),
        "",
    ]
    lines += table(HEAD, _rows(doc)) + ["", "Paired with the planner alone on the same items:"]
    lines += table(PAIRED_HEAD, _paired_rows(doc)) + [""]
    for planner, c in doc["summary"]["criterion"].items():
        parts = ", ".join(f"{k} {'yes' if v else 'no'}" for k, v in c.items() if k != "met")
        lines.append(f"criterion ({planner}): {'MET' if c.get('met') else 'NOT MET'} — {parts}")
    return "\n".join(lines) + "\n"


def html_section(doc: dict) -> str:
    """The planning section of report.html."""

    def table(head: list[str], rows: list[list[str]]) -> str:
        h = "".join(f"<th>{esc(c)}</th>" for c in head)
        body = "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in r) + "</tr>" for r in rows)
        return f'<div class="scroll"><table><tr>{h}</tr>{body}</table></div>'

    arms = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in ARM_WORDS.items())
    crit = "".join(
        f'<li>{esc(p)}: <span class="badge {"pass" if c.get("met") else "fail"}">'
        f"{'met' if c.get('met') else 'not met'}</span> "
        + esc(", ".join(f"{k} {'yes' if v else 'no'}" for k, v in c.items() if k != "met"))
        + "</li>"
        for p, c in doc["summary"]["criterion"].items()
    )
    return (
        f'<section id="planning"><h2>Planning bench</h2><p>Seed {esc(doc["seed"])}, size '
        f"{esc(doc['size'])} ({esc(doc['shape'])}); planners {esc(', '.join(doc['planners']))}; "
        f"{esc(doc['wall_seconds'])} s. Criterion: fewer expansions and less wall time than the "
        f"planner alone (interval of the ratio below 1) at equal or better success, and no "
        f"success lost to decoy prior plans.</p><dl>{arms}</dl><ul>{crit}</ul>"
        f"<h3>Arms</h3>{table(HEAD, _rows(doc))}"
        f"<h3>Paired with the planner alone</h3>{table(PAIRED_HEAD, _paired_rows(doc))}"
        "</section>\n"
    )


def with_planning(html: str, out: str | Path) -> str:
    """``html`` with the planning section of ``out/planning.json`` (if any) before ``</main>``."""
    path = Path(out) / "planning.json"
    if not path.exists():
        return html
    return splice_section(
        html, "planning", html_section(json.loads(path.read_text(encoding="utf-8")))
    )
