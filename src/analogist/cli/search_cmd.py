"""``analogist search TEXT|ID``: the candidate pool for a target, with provenance.

The target is a stored episode when TEXT names one (its own id and its derivatives are then
excluded automatically), otherwise plain text, which only the M channels (and P) can use.
The database comes from the main group (``ctx.obj["db"]``) or this command's ``--db``.
"""

from __future__ import annotations

import click

from analogist.cli.common import echo_json, handle_errors, open_memory
from analogist.config import DEFAULT_DB, setting
from analogist.store import Store
from analogist.store.postgres import open_store


def _store(ctx: click.Context, db: str | None) -> Store:
    obj = ctx.ensure_object(dict)
    if obj.get("store") is not None and db is None:
        return obj["store"]
    path = str(db or obj.get("db") or setting("db", None, DEFAULT_DB))
    store = open_store(path)
    ctx.call_on_close(store.close)
    return store


@click.command("search")
@click.argument("target")
@click.option(
    "--channels",
    "-c",
    default=None,
    help="Comma-separated channels or families to run, e.g. S0,S1,S2 or M (default: all).",
)
@click.option(
    "-k", "k", default=10, show_default=True, type=click.IntRange(1, 1000), help="Hits per channel."
)
@click.option(
    "--exclude",
    "-x",
    multiple=True,
    metavar="ID",
    help="Keep this episode (and its derivatives) out of the pool; repeatable.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the pool as JSON.")
@click.option("--db", default=None, help="Database file (default: the main --db / ANALOGIST_DB).")
@click.pass_context
@handle_errors
def search(
    ctx: click.Context,
    target: str,
    channels: str | None,
    k: int,
    exclude: tuple[str, ...],
    as_json: bool,
    db: str | None,
) -> None:
    """Search memory for TEXT or a stored episode ID and print every channel's candidates.

    No fused score: each candidate shows the channels that found it and its best structural
    (S0-S3) and semantic (M) rank; rows are ordered by structural rank, then semantic rank.
    """
    memory = open_memory(ctx, _store(ctx, db))
    pool = memory.search(target, channels=channels, k=k, exclude=exclude)
    as_text = pool.target.get("episode_id") is None
    if as_text and not any(c.isspace() for c in target.strip()):
        click.echo(
            f"note: {target!r} is not a stored episode id; searched it as text "
            "(`analogist list` shows ids)",
            err=True,
        )
    if as_json:
        data = pool.to_json()
        echo_json(
            {
                "target": {**data["target"], "kind": "text" if as_text else "episode"},
                "candidates": [
                    {
                        key: c[key]
                        for key in (
                            "episode_id",
                            "found_by",
                            "ranks",
                            "scores",
                            "semantic_rank",
                            "structural_rank",
                        )
                    }
                    for c in data["candidates"]
                ],
                "parametric": data["parametric"],
                "skipped": data["skipped"],
                "excluded": data["excluded"],
            }
        )
        return
    shown = pool.target.get("episode_id") or f"text {pool.target['text'][:60]!r}"
    click.echo(f"target {shown}  channels ran: {', '.join(pool.channels) or 'none'}")
    if pool.excluded:
        click.echo(f"excluded: {', '.join(sorted(pool.excluded))}")
    click.echo(pool.format())
