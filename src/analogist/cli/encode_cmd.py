"""``analogist encode``: write a signature for a text, or score an encoder against gold."""

from __future__ import annotations

import sys

import click

from analogist.cli.common import echo_json, handle_errors, open_store, signature_lines
from analogist.config import DEFAULT_DB, setting
from analogist.encode import (
    EncodeResult,
    FidelityReport,
    ModelEncoder,
    StagedEncoder,
    evaluate_encoder,
    load_gold_episodes,
)
from analogist.models import CacheMode, open_llm
from analogist.signature.model import KINDS


def _encoder(
    ctx: click.Context, model: str | None, cache: str | None, how: str = "staged"
) -> ModelEncoder | StagedEncoder:
    ctx.ensure_object(dict).setdefault("db", setting("db", None, DEFAULT_DB))
    store = open_store(ctx)
    cls = StagedEncoder if how == "staged" else ModelEncoder
    return cls(open_llm(model, store=store, cache=cache), store.vocabulary)


def _print_result(r: EncodeResult) -> None:
    if r.signature is None:
        click.echo(f"rejected ({r.writer}): {r.reason}")
        return
    s = r.signature
    click.echo(
        f"{s.episode_id} [{s.kind}] written by {r.writer}"
        + (" after one repair" if r.repaired else "")
    )
    click.echo("\n".join(signature_lines(s)))
    for m in r.mappings:
        click.echo(f"  mapped {m.name!r} -> {m.term!r} ({m.how})")


def _print_report(rep: FidelityReport) -> None:
    s = rep.summary
    click.echo(f"encoder {rep.writer}: {s['n']} episodes, {s['rejected']} rejected")
    click.echo(
        f"  relations  micro P {s['micro_precision']:.3f}  R {s['micro_recall']:.3f}  "
        f"F1 {s['micro_f1']:.3f}   macro F1 {s['macro_f1']:.3f}"
    )
    click.echo(f"  role alignment accuracy {s['role_accuracy']:.3f}")
    for name, st in s.get("steps", {}).items():
        click.echo(
            f"  step {name:<13} P {st['precision']:.3f}  R {st['recall']:.3f}  "
            f"F1 {st['f1']:.3f}  ({st['matched']} matched / {st['written']} written / "
            f"{st['gold']} gold)"
        )
    proc = s.get("process") or {}
    if proc.get("steps"):
        click.echo(
            f"  rejection rate {proc['rejection_rate']:.3f} ({proc['rejected']}/"
            f"{proc['episodes']}), rejected at {proc['rejected_at'] or '-'}; "
            f"{proc['repaired']} episode(s) repaired"
        )
        for name, d in proc["steps"].items():
            click.echo(
                f"  step {name:<13} failed {d['failed']}/{d['runs']}  repaired "
                f"{d['repaired']}  dropped {d['dropped']}  calls {d['calls']}"
            )
    for e in rep.episodes:
        tail = f"  rejected: {e.rejected}" if e.rejected else ""
        click.echo(f"  {e.episode_id:<40} F1 {e.f1:.2f}  roles {e.role_accuracy:.2f}{tail}")


@click.command("encode")
@click.argument("text", required=False)
@click.option("--kind", type=click.Choice(KINDS), help="Episode kind (default: observation).")
@click.option("--id", "episode_id", default="text", show_default=True, help="Episode id to write.")
@click.option(
    "--target",
    is_flag=True,
    help="Use the query-time target prompt instead of the storage-time one.",
)
@click.option(
    "--eval",
    "eval_file",
    type=click.Path(exists=True, dir_okay=False),
    help="Score the encoder on FILE.jsonl (episodes with gold signatures).",
)
@click.option("--limit", type=int, help="With --eval: only the first N episodes.")
@click.option(
    "--encoder",
    "how",
    type=click.Choice(["staged", "one-call"]),
    default="staged",
    show_default=True,
    help="staged: four small constrained steps; one-call: the whole signature at once.",
)
@click.option("--model", metavar="PROVIDER:NAME", help="Model (else ANALOGIST_MODEL).")
@click.option(
    "--cache",
    type=click.Choice([m.value for m in CacheMode]),
    help="Call-log cache mode (else ANALOGIST_CACHE, default read-write).",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.pass_context
@handle_errors
def encode_cmd(
    ctx: click.Context,
    text: str | None,
    kind: str | None,
    episode_id: str,
    target: bool,
    eval_file: str | None,
    limit: int | None,
    how: str,
    model: str | None,
    cache: str | None,
    as_json: bool,
) -> None:
    """Write the structural signature of TEXT (- reads stdin), or with --eval FILE score how
    faithfully the model writes the gold signatures in FILE (relation F1, role alignment).

    Every model call is logged in the database and, with the cache on, reused on a rerun.
    """
    if eval_file:
        encoder = _encoder(ctx, model, cache, how)
        episodes = load_gold_episodes(eval_file, encoder.vocab)[:limit]
        report = evaluate_encoder(episodes, encoder, vocab=encoder.vocab)
        echo_json(report.to_json()) if as_json else _print_report(report)
        return
    if not text:
        raise click.UsageError("give TEXT to encode (or - for stdin), or --eval FILE.jsonl")
    if text == "-":
        text = sys.stdin.read()
    encoder = _encoder(ctx, model, cache, how)
    if target:
        result = encoder.encode_target(text.strip(), kind=kind, target_id=episode_id)
    else:
        result = encoder.encode_text(
            text.strip(), episode_id=episode_id, kind=kind or "observation"
        )
    echo_json(result.to_json()) if as_json else _print_result(result)
    if not result.ok:
        ctx.exit(1)
