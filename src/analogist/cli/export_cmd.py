"""Moving a memory: ``analogist export`` and ``analogist import`` (lossless JSONL; see
docs/scale.md, "Moving between backends")."""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from analogist.cli.common import echo_json, handle_errors

if TYPE_CHECKING:
    from analogist.store.transfer import TransferReport


def _db(ctx: click.Context) -> str:
    return str(ctx.ensure_object(dict)["db"])


def _say(report: TransferReport, verb: str, as_json: bool, to_stderr: bool) -> None:
    if as_json:
        if to_stderr:
            import json

            click.echo(json.dumps(report.to_json(), indent=2), err=True)
        else:
            echo_json(report.to_json())
        return
    rate = report.records / report.seconds if report.seconds > 0 else 0.0
    click.echo(
        f"{verb} {report.records} records ({dict(report.counts).get('episodes', 0)} episodes) "
        f"in {report.seconds:.2f} s ({rate:,.0f} records/s); {report.checksum[:19]}…",
        err=to_stderr,
    )


@click.command("export")
@click.argument("file", default="-", type=click.Path(allow_dash=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
@handle_errors
def export_cmd(ctx: click.Context, file: str, as_json: bool) -> None:
    """Write the memory named by --db to FILE as JSONL (- or nothing: stdout).

    Lossless: every episode with its signature, provenance, ids and timestamps, the stored
    embeddings and fingerprints, the vocabulary with its merges and counts, schemas,
    consolidation runs and learned rows (trigger policies, operators), the analogy log and
    transfer ledger, the model-call log and bench results. The full-text and persisted
    retrieval indexes are rebuilt by the import. Line 1 is a header with the format version,
    schema, source backend, row counts and a SHA-256 of the records. The file is written
    beside FILE and renamed into place when complete.

    \b
    analogist --db memory.db export memory.jsonl
    analogist --db postgresql://me@host:5432/mem export - | gzip > mem.jsonl.gz
    """
    from analogist.store.transfer import export_to

    report = export_to(_db(ctx), file)
    _say(report, f"exported to {file}:" if file != "-" else "exported", as_json, file == "-")


@click.command("import")
@click.argument("file", type=click.Path(allow_dash=True, dir_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
@handle_errors
def import_cmd(ctx: click.Context, file: str, as_json: bool) -> None:
    """Load an `analogist export` FILE (- for stdin) into the empty memory named by --db.

    All or nothing, in one transaction: each line is checked (one line naming the line number
    and what is wrong), then the row counts and checksum; on any problem nothing is written and
    a SQLite file created for the import is removed. The target must be empty (a new SQLite
    file, or an empty PostgreSQL database); merging into a memory that holds data is refused.

    \b
    analogist --db postgresql://me@host:5432/mem import memory.jsonl
    gunzip -c mem.jsonl.gz | analogist --db new.db import -
    """
    from analogist.store.transfer_import import import_from

    report = import_from(file, _db(ctx))
    _say(report, f"imported into {report.where}:", as_json, False)
