"""Writing a run's report directory: results.json, scoreboard.txt and report.html.

Everything is built from stored rows (:func:`analogist.bench.analysis.results.aggregate`) and the
analogy log, so ``analogist bench report RUN`` re-renders without re-running anything.
"""

from __future__ import annotations

import json
from pathlib import Path

from analogist.bench.analysis.results import aggregate
from analogist.bench.analysis.scoreboard import scoreboard
from analogist.reason.live import live_use
from analogist.store import Store


def write_report(
    store: Store, run_id: str, out: str | Path, *, n_boot: int = 2000, seed: int = 0
) -> dict:
    """Aggregate ``run_id`` and write the three files into ``out``; return the paths and text."""
    from analogist.bench.analysis.html import render_html
    from analogist.bench.suites.blending_report import latest_blending, with_blending
    from analogist.bench.suites.learning import latest_learning
    from analogist.bench.suites.learning_report import with_learning
    from analogist.bench.suites.planning.report import with_planning

    results = aggregate(store, run_id, n_boot=n_boot, seed=seed)
    live = live_use(store).to_json()
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    board = scoreboard(results, live)
    (d / "results.json").write_text(
        json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    (d / "scoreboard.txt").write_text(board, encoding="utf-8")
    html = with_planning(render_html(results), d)  # the planning suite's section, if it ran
    html = with_learning(html, latest_learning(store, n_boot=n_boot, seed=seed))  # if it ran
    html = with_blending(html, latest_blending(store, n_boot=n_boot, seed=seed))  # if it ran
    (d / "report.html").write_text(html, encoding="utf-8")
    return {
        "dir": str(d),
        "results": str(d / "results.json"),
        "scoreboard": str(d / "scoreboard.txt"),
        "html": str(d / "report.html"),
        "scoreboard_text": board,
    }
