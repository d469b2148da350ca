"""``analogist bench external``: external benchmarks (ParallelPARC) through the pipeline and
baselines."""

from __future__ import annotations

import json
from pathlib import Path

import click

from analogist.cli.common import echo_json, handle_errors, open_store


@click.group("external")
def external() -> None:
    """External analogy benchmarks written by others (docs/external.md)."""


@external.command("parallelparc")
@click.option(
    "--csv",
    "csv_path",
    required=True,
    type=click.Path(dir_okay=False),
    help="A ParallelPARC CSV (source, target, distractor and random paragraph "
    "columns): the silver set or the human-verified set.",
)
@click.option(
    "--methods",
    default=None,
    help="Comma-separated: pipeline, cosine, bare (default: cosine, plus pipeline "
    "and bare when a model is configured).",
)
@click.option(
    "--model",
    help="provider:name for the pipeline's encoder and the bare model (or ANALOGIST_MODEL).",
)
@click.option("--limit", type=click.IntRange(1), help="Only the first N rows.")
@click.option(
    "--seed",
    type=int,
    default=0,
    show_default=True,
    help="Tie breaks, choice order, cross-fitting halves and the bootstrap.",
)
@click.option("--n-boot", type=click.IntRange(100), default=2000, show_default=True)
@click.option(
    "--out",
    type=click.Path(file_okay=False),
    help="Also write results.json (figures and every item's answers) here.",
)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def parallelparc_cmd(
    ctx: click.Context,
    csv_path: str,
    methods: str | None,
    model: str | None,
    limit: int | None,
    seed: int,
    n_boot: int,
    out: str | None,
    as_json: bool,
) -> None:
    """Binary (is this analogous to the source?) and multiple-choice (which one is?) accuracy,
    with 95% BCa intervals over items and the distractor-rejection rate."""
    import os

    from analogist.bench.suites.external.parallelparc import format_table, read_csv, run

    rows = read_csv(csv_path, limit)
    wanted = [m.strip() for m in methods.split(",") if m.strip()] if methods else None
    has_model = bool(model or os.environ.get("ANALOGIST_MODEL"))
    if wanted is None:
        wanted = ["pipeline", "cosine", "bare"] if has_model else ["cosine"]
        if not has_model:
            click.echo(
                "note: no model configured (--model or ANALOGIST_MODEL): running the "
                "cosine baseline only",
                err=True,
            )
    llm = None
    if any(m in ("pipeline", "bare") for m in wanted):
        from analogist.models.registry import open_llm

        llm = open_llm(model, store=open_store(ctx))
    embedder = None
    if "cosine" in wanted and ctx.find_root().obj.get("embedder"):
        from analogist.retrieve.embedder_choice import configured_embedder

        embedder = configured_embedder(ctx.find_root().obj["embedder"])
    results = run(
        rows,
        wanted,
        llm=llm,
        embedder=embedder,
        n_boot=n_boot,
        seed=seed,
        progress=lambda msg: click.echo(msg, err=True),
    )
    doc = {
        "dataset": "ParallelPARC",
        "csv": csv_path,
        "items": len(rows),
        "seed": seed,
        "methods": [r.to_json() for r in results],
    }
    if out:
        d = Path(out)
        d.mkdir(parents=True, exist_ok=True)
        full = {**doc, "methods": [r.to_json(with_answers=True) for r in results]}
        (d / "results.json").write_text(
            json.dumps(full, indent=1, default=str) + "\n", encoding="utf-8"
        )
    if as_json:
        echo_json(doc)
    else:
        click.echo(format_table(results, len(rows), csv_path))
