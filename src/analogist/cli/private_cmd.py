"""``analogist bench private``: build a private-history bench from a memory and a labels file."""

from __future__ import annotations

from pathlib import Path

import click

from analogist.cli.common import echo_json, handle_errors, open_bench, read_text


@click.command("private")
@click.option(
    "--db",
    "db",
    metavar="MEMORY",
    help="The memory database to build items from (default: the main --db).",
)
@click.option(
    "--labels",
    "labels_path",
    required=True,
    type=click.Path(dir_okay=False),
    metavar="LABELS",
    help="Labels JSON written before running (docs/private.md; "
    "example: analogist/data/example_private_labels.json).",
)
@click.option(
    "--with-bench",
    "with_bench",
    type=click.Path(file_okay=False, exists=True),
    help="Also include this generated bench's items, so one run scores H4's private "
    "and synthetic halves together.",
)
@click.option(
    "--out",
    required=True,
    type=click.Path(file_okay=False),
    help="Directory to write items.jsonl, keys.jsonl and manifest.json into.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the manifest as JSON.")
@click.pass_context
@handle_errors
def private_cmd(
    ctx: click.Context,
    db: str | None,
    labels_path: str,
    with_bench: str | None,
    out: str,
    as_json: bool,
) -> None:
    """Build PARB items from your own memory (spec §16.3): one retrieval item per labelled
    target, the target and its derivatives removed from each item's memory snapshot, keys
    frozen with the labels' and memory's sha256. Run it with `analogist bench run --bench OUT`."""
    from analogist.bench.suites.private import build_private_bench, combine, parse_labels
    from analogist.errors import BenchError
    from analogist.store import Store

    path = db or ctx.find_root().ensure_object(dict).get("db")
    if not path or not Path(path).is_file():
        raise BenchError(
            f"memory database {path} does not exist; pass --db MEMORY (a database "
            "written by `analogist add` or `analogist demo`)"
        )
    text = read_text(labels_path, "labels file")
    labels = parse_labels(text, f"labels file {labels_path}")
    with Store(path) as store:
        bench = build_private_bench(store, labels, text)
    if with_bench:
        bench = combine(bench, open_bench(with_bench))
    bench.write(out)
    m = bench.manifest
    if as_json:
        echo_json(m)
        return
    counts = m.get("private", m)["counts"]
    click.echo(
        f"private-history bench: {counts['total']} items ({counts['true_match']} "
        f"true-match, {counts['no_match']} no-match) from {path}"
    )
    if with_bench:
        click.echo(f"  with {len(bench.items) - counts['total']} items of {with_bench}")
    click.echo(
        f"  written to {out}  bench_id {m['bench_id'][:16]}  labels sha256 "
        f"{m.get('private', m)['labels_sha256'][:16]}"
    )
