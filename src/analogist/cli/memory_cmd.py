"""Memory commands: add, show, list, delete, vocab, demo."""

from __future__ import annotations

import json
from importlib import resources

import click

from analogist.cli.common import (
    echo_json,
    handle_errors,
    open_memory,
    open_store,
    read_text,
    signature_lines,
)
from analogist.errors import AnalogistError


def _read_lines(path: str) -> list[str]:
    return read_text(path, "episode file").splitlines()


def _add(ctx: click.Context, lines: list[str], all_or_nothing: bool):
    return open_memory(ctx).add(lines, all_or_nothing=all_or_nothing)


@click.command("add")
@click.argument("file", type=click.Path(allow_dash=True))
@click.option("--all-or-nothing", is_flag=True, help="Write nothing if any line is rejected.")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@click.pass_context
@handle_errors
def add_cmd(ctx: click.Context, file: str, all_or_nothing: bool, as_json: bool) -> None:
    """Add episodes from FILE.jsonl (one episode or bare signature per line; - for stdin).

    Valid lines are written together in one transaction; each rejected line is listed with its
    reason, and the exit status is 1 when anything was rejected.
    """
    report = _add(ctx, _read_lines(file), all_or_nothing)
    if as_json:
        echo_json(report.to_json())
    else:
        click.echo(f"added {len(report.added)}, rejected {len(report.rejected)}")
        for where, reason in report.rejected:
            click.echo(f"  rejected {where}: {reason}")
    if report.rejected:
        ctx.exit(1)


@click.command("show")
@click.argument("episode_id")
@click.option("--json", "as_json", is_flag=True, help="Print the signature JSON exactly as stored.")
@click.pass_context
@handle_errors
def show_cmd(ctx: click.Context, episode_id: str, as_json: bool) -> None:
    """Show one episode and its signature."""
    store = open_store(ctx)
    ep = store.get_episode(episode_id)
    if as_json:
        if ep.signature is None:
            echo_json(ep.to_json())
        else:
            echo_json(store.signature_json(episode_id))
        return
    click.echo(f"{ep.id}  [{ep.kind}]  {ep.domain or '(unsigned)'}")
    click.echo(f"  L0: {ep.text}")
    if ep.outcome:
        click.echo(f"  outcome: {ep.outcome}")
    sig = ep.signature
    if sig is None:
        return
    click.echo("\n".join(signature_lines(sig)))


@click.command("list")
@click.option("--kind", help="Only episodes of this kind.")
@click.option("--domain", help="Only episodes of this surface domain.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def list_cmd(ctx: click.Context, kind: str | None, domain: str | None, as_json: bool) -> None:
    """List stored episodes."""
    eps = open_store(ctx).list_episodes(kind=kind, domain=domain)
    if as_json:
        echo_json([{"id": e.id, "kind": e.kind, "domain": e.domain, "text": e.text} for e in eps])
        return
    for e in eps:
        text = e.text if len(e.text) <= 70 else e.text[:67] + "..."
        click.echo(f"{e.id:<28} {e.kind:<11} {e.domain or '-':<14} {text}")
    click.echo(f"{len(eps)} episode(s)")


@click.command("delete")
@click.argument("episode_ids", nargs=-1, required=True)
@click.pass_context
@handle_errors
def delete_cmd(ctx: click.Context, episode_ids: tuple[str, ...]) -> None:
    """Delete episodes with their signatures and index rows (all or none)."""
    open_store(ctx).delete_episodes(episode_ids)
    click.echo(f"deleted {len(episode_ids)}")


@click.command("vocab")
@click.option("--kind", help="Only terms of this kind (structural, epistemic, causal, state, ...).")
@click.option("--save", type=click.Path(dir_okay=False), help="Write the vocabulary to this file.")
@click.option("--proposals", is_flag=True, help="Merge proposals with evidence, and telemetry.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def vocab_cmd(
    ctx: click.Context, kind: str | None, save: str | None, proposals: bool, as_json: bool
) -> None:
    """List the controlled vocabulary with usage counts."""
    if proposals:
        from analogist.cli.consolidate_cmd import print_proposals

        return print_proposals(ctx, as_json)
    store = open_store(ctx)
    vocab, counts = store.vocabulary, store.vocab_counts()
    if save:
        vocab.save(save)
        click.echo(f"saved {len(vocab)} terms to {save}")
        return
    terms = [t for t in vocab if kind is None or t.kind == kind]
    if as_json:
        echo_json([{**t.to_json(), "count": counts.get(t.term, 0)} for t in terms])
        return
    for t in terms:
        pol = {1: "+", -1: "-"}.get(t.polarity, " ")
        merged = f" (merged into {t.merged_into})" if t.merged_into else ""
        click.echo(
            f"{t.term:<24} {t.kind:<10} /{t.arity} {pol} {counts.get(t.term, 0):>5}  "
            f"{t.definition}{merged}"
        )


def example_memory_lines() -> list[str]:
    """The bundled example memory (44+ episodes across 7+ domains), one JSON object a line."""
    text = resources.files("analogist.data").joinpath("example_memory.jsonl").read_text("utf-8")
    return [ln for ln in text.splitlines() if ln.strip()]


@click.command("demo")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def demo_cmd(ctx: click.Context, as_json: bool) -> None:
    """Load the bundled example memory (the episodes not stored yet) and print a summary.

    Running it again restores example episodes that were deleted; nothing else is touched.
    """
    store = open_store(ctx)
    missing = [ln for ln in example_memory_lines() if not store.has_episode(json.loads(ln)["id"])]
    if missing:
        report = _add(ctx, missing, True)
        if report.rejected:
            raise AnalogistError(f"example memory rejected: {report.rejected[0]}")
        if len(missing) < len(example_memory_lines()):
            click.echo(f"restored {len(missing)} example episode(s)", err=True)
    summary = store.summary()
    if as_json:
        echo_json(summary)
        return
    click.echo(f"{summary['episodes']} episodes ({summary['signed']} signed) in {store.path}")
    for row in summary["by_domain_kind"]:
        click.echo(f"  {row['domain']:<22} {row['kind']:<12} {row['count']:>3}")
    click.echo("relation usage:")
    for term, n in list(summary["relation_usage"].items())[:30]:
        click.echo(f"  {term:<26} {n:>4}")
