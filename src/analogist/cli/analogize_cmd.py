"""The ``analogize`` and ``log`` commands: run the loop on one target; read the analogy log."""

from __future__ import annotations

from pathlib import Path

import click

from analogist.cli.common import echo_json, handle_errors, open_memory, open_store, read_text
from analogist.errors import ConfigError, ModelError
from analogist.reason.run import AnalogyRun


def _target(memory, arg: str, model: str | None):
    """A stored episode id, a signature JSON file, or text (encoded by the model)."""
    store = memory.store
    if store.has_episode(arg):
        return store.get_signature(arg), [arg]
    path = Path(arg)
    if path.suffix == ".json" and path.is_file():
        from analogist.signature import parse_signature
        from analogist.signature.limits import load_json

        raw = load_json(read_text(str(path), "signature file"), f"signature file {path}")
        return parse_signature(raw, store.vocabulary), []
    from analogist.encode import StagedEncoder
    from analogist.models.registry import open_llm

    try:
        llm = open_llm(model, store=store)
    except ConfigError as e:
        raise ConfigError(
            f"{arg!r} is not a stored episode id or a signature file, and text needs a model to "
            f"encode it: {e}"
        ) from None
    result = StagedEncoder(llm, store.vocabulary).encode_target(arg)
    if result.signature is None:
        raise ModelError(
            f"{llm.name} could not encode the target text ({result.reason}); "
            "pass a stored episode id or a signature .json file instead"
        )
    return result.signature, []


def run_json(run: AnalogyRun) -> dict:
    """The spec §10.1 record as the command's JSON (empty lists when nothing was assessed)."""
    rec = run.record
    return {
        "run_id": run.run_id,
        "trigger": run.trigger.to_json(),
        "source": run.source,
        "mapped": [list(p) for p in rec.mapped] if rec else [],
        "matches": list(rec.matches) if rec else [],
        "fails": list(rec.fails) if rec else [],
        "blockers": list(rec.blockers) if rec else [],
        "transfer": [
            {"inference": t.inference, "decision": t.decision, "reason": t.reason}
            for t in (rec.transfer if rec else ())
        ],
        "predict": rec.predict if rec else None,
        "check": rec.check if rec else None,
        "critic": run.to_json()["critic"],
        "candidates": [c.episode_id for c in run.candidates],
        "attempts": [dict(a) for a in run.attempts],
        "cost": run.cost.to_json(),
    }


@click.command("analogize")
@click.argument("target")
@click.option(
    "--tier",
    type=click.IntRange(0, 2),
    default=1,
    show_default=True,
    help="0: fingerprint + predicate lookup only (no model); 1: full loop; "
    "2: with re-representation.",
)
@click.option("--model", help="provider:name for encoding text targets (or ANALOGIST_MODEL).")
@click.option(
    "--why",
    default="explicit request",
    show_default=True,
    help="Why this run fired (kept in the log).",
)
@click.option(
    "--blend",
    is_flag=True,
    help="Also propose generated blends of pairs of retrieved sources; each goes "
    "through the same mapping, gate, critic and check (docs/blending.md).",
)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def analogize_cmd(
    ctx: click.Context,
    target: str,
    tier: int,
    model: str | None,
    why: str,
    as_json: bool,
    blend: bool = False,
) -> None:
    """Run the analogy loop on TARGET (episode id, signature .json file, or text) and print the
    likeness / difference / unknown record. Every run is logged (`analogist log`)."""
    from analogist.reason.analogizer import Analogizer, AnalogizerConfig
    from analogist.reason.triggers import Trigger

    memory = open_memory(ctx)
    sig, exclude = _target(memory, target, model)
    from analogist.reason.blend import BlendPolicy

    config = AnalogizerConfig(
        rerep_attempts=2 if tier == 2 else 0, blend=BlendPolicy() if blend else None
    )
    run = Analogizer(memory, config).run(sig, trigger=Trigger.manual(tier, why), exclude=exclude)
    try:
        _print_run(run, tier, why, as_json)
    finally:
        if run.log_error:  # the result above is complete; only its log row is missing
            click.echo(
                f"warning: run {run.run_id} was not written to the analogy log "
                f"({run.log_error}); the result above is complete",
                err=True,
            )


def _print_run(run: AnalogyRun, tier: int, why: str, as_json: bool) -> None:
    if as_json:
        echo_json({**run_json(run), "logged": run.log_error is None})
        return
    click.echo(f"run {run.run_id}  tier {tier}  ({why})")
    for c in [c for c in run.candidates if "BLD" not in c.found_by][:10]:
        click.echo(
            f"  candidate source={c.episode_id} found_by=[{','.join(c.found_by)}] "
            f"semantic_rank={c.semantic_rank or '-'} "
            f"structural_rank={c.structural_rank or '-'}"
        )
    for c in run.candidates:  # generated blends (analogize --blend), each with its inputs
        if "BLD" in c.found_by:
            click.echo(
                f"  candidate source={c.episode_id} found_by=[BLD] (generated blend of "
                f"{' + '.join(c.details['BLD']['inputs'])})"
            )
    for a in run.attempts:
        if "novelty" in a:
            n = a["novelty"]
            click.echo(f"BLEND     {n['blend']}: {n['status']} ({n['novel_because']})")
    if run.record is None:
        click.echo("no analogy accepted" + (" (tier 0: lookup only)" if tier == 0 else ""))
        return
    click.echo(run.record.render())


@click.command("log")
@click.argument("run_id", required=False)
@click.option("--limit", default=20, show_default=True)
@click.option("--live", is_flag=True, help="Print the live-use counts of the last 7 days.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def log_cmd(ctx: click.Context, run_id: str | None, limit: int, live: bool, as_json: bool) -> None:
    """List analogy runs, or show one run in full."""
    from analogist.reason.live import live_use

    store = open_store(ctx)
    if live:
        counts = live_use(store)
        echo_json(counts.to_json()) if as_json else click.echo(
            "\n".join(f"{k:<20} {v}" for k, v in counts.to_json().items())
        )
        return
    if run_id:
        stored = store.get_run(run_id)
        record = AnalogyRun.from_json(stored).record
        if as_json or record is None:
            echo_json(stored)
        else:
            click.echo(record.render())
        return
    runs = store.list_runs(limit=limit)
    if as_json:
        echo_json(runs)
        return
    for r in map(AnalogyRun.from_json, runs):
        why = "; ".join(r.trigger.reasons)
        click.echo(
            f"{r.run_id}  {r.created_at}  tier {r.trigger.tier}  target={r.target_id}  "
            f"source={r.source or '-'}  transferred={len(r.transferred)}  ({why})"
        )
    click.echo(f"{len(runs)} run(s)")
