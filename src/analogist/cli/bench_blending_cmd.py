"""``analogist bench run --suite blending``: the PARB blending suite, arm E+Bld and H6
(docs/blending.md)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from analogist.cli.common import echo_json, open_store


def run_blending_suite(
    ctx: click.Context, seed: int, split: str, size: str, n_boot: int, out: str, as_json: bool
) -> None:
    """Run E and E+Bld on the blending items into the --db store, write blending.json /
    blending.txt / blending.html into ``out`` and print the tables and the H6 verdict (the next
    `bench report` on the same store adds the section to report.html)."""
    from analogist.bench.suites.blending import BlendingConfig, run_blending
    from analogist.bench.suites.blending_report import (
        blending_text,
        latest_blending,
        summary,
        with_blending,
    )
    from analogist.errors import BenchError

    store = open_store(ctx)
    config = BlendingConfig.sized(size, seed=seed, split=split, n_boot=n_boot)
    run_id = run_blending(store, config)
    doc = latest_blending(store, n_boot=n_boot, seed=seed)
    if doc is None or doc["run_id"] != run_id:
        raise BenchError(f"blending run {run_id} did not finish; nothing to report")
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    (d / "blending.json").write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    text = blending_text(doc)
    (d / "blending.txt").write_text(text, encoding="utf-8")
    page = (
        '<!doctype html><html><head><meta charset="utf-8"><title>PARB blending</title>'
        "</head><body><main></main></body></html>\n"
    )
    (d / "blending.html").write_text(with_blending(page, doc), encoding="utf-8")
    if as_json:
        echo_json({"run_id": run_id, "dir": str(d), "summary": summary(doc)})
        return
    click.echo(
        text + f"stored as bench run {run_id}; files in {d} (blending.json, "
        "blending.txt, blending.html); `bench report` on this --db adds the section to "
        "report.html"
    )
