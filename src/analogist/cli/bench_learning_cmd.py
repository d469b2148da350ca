"""``analogist bench run --suite learning``: the PARB learning phase (docs/consolidation.md)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from analogist.cli.common import echo_json, open_store


def run_learning_suite(
    ctx: click.Context, seed: int, split: str, size: str, n_boot: int, out: str, as_json: bool
) -> None:
    """Run the learning phase into the --db store, write learning.json / learning.txt into
    ``out``, and print its tables (the next `bench report` adds its report.html section)."""
    from analogist.bench.suites.learning import LearningConfig, latest_learning, run_learning
    from analogist.bench.suites.learning_report import learning_text, summary
    from analogist.errors import BenchError

    store = open_store(ctx)
    config = LearningConfig.sized(size, seed=seed, split=split, n_boot=n_boot)
    run_id = run_learning(store, config)
    doc = latest_learning(store, n_boot=n_boot, seed=seed)
    if doc is None or doc["run_id"] != run_id:
        raise BenchError(f"learning run {run_id} did not finish; nothing to report")
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    (d / "learning.json").write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    text = learning_text(doc)
    (d / "learning.txt").write_text(text, encoding="utf-8")
    if as_json:
        echo_json({"run_id": run_id, "dir": str(d), "summary": summary(doc)})
        return
    click.echo(text + f"stored as bench run {run_id}; files in {d} (learning.json, learning.txt)")
