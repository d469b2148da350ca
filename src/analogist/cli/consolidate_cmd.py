"""The ``consolidate`` and ``schemas`` commands: learn from verified analogies; read the
schema library (spec Phase 5, :mod:`analogist.learn`)."""

from __future__ import annotations

import click

from analogist.cli.common import echo_json, handle_errors, open_memory, open_store
from analogist.errors import AnalogistError


def _pair(text: str) -> tuple[str, str]:
    old, sep, into = text.partition("=")
    if not sep or not old.strip() or not into.strip():
        raise AnalogistError(
            f"--merge {text!r}: write it as OLD=INTO, e.g. --merge trusts=relies_on"
        )
    return old.strip(), into.strip()


@click.command("consolidate")
@click.option("--dry-run", is_flag=True, help="Report what would change; write nothing.")
@click.option(
    "--undo", "undo", metavar="RUN", help="Undo consolidation run RUN (the newest first)."
)
@click.option("--runs", "list_runs", is_flag=True, help="List consolidation runs.")
@click.option(
    "--merge",
    "merges",
    multiple=True,
    metavar="OLD=INTO",
    help="Accept a vocabulary merge (see `analogist vocab --proposals`); repeatable.",
)
@click.option(
    "--require-check", is_flag=True, help="Learn only from analogies whose prediction check passed."
)
@click.option(
    "--threshold",
    type=click.FloatRange(0, 1),
    default=0.7,
    show_default=True,
    help="Assimilation threshold on the normalised SME score.",
)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def consolidate_cmd(
    ctx: click.Context,
    dry_run: bool,
    undo: str | None,
    list_runs: bool,
    merges: tuple[str, ...],
    require_check: bool,
    threshold: float,
    as_json: bool,
) -> None:
    """Induce schemas from the verified analogies logged since the last run, update relation
    telemetry, merge evidence and the fix-operator library (one transaction; undoable)."""
    from analogist.learn import ConsolidationPolicy, InductionPolicy

    store = open_store(ctx)
    if undo:
        n = store.undo_consolidation(undo)
        echo_json({"undone": undo, "changes": n}) if as_json else click.echo(
            f"undid {undo}: {n} change(s) restored"
        )
        return
    if list_runs:
        runs = store.consolidation_runs()
        if as_json:
            echo_json(
                [
                    {
                        "run_id": r.run_id,
                        "created_at": r.created_at,
                        "undone_at": r.undone_at,
                        "log_rowid": r.log_rowid,
                        "ledger_id": r.ledger_id,
                    }
                    for r in runs
                ]
            )
            return
        for r in runs:
            state = f"undone {r.undone_at}" if r.undone_at else "active"
            click.echo(
                f"{r.run_id}  {r.created_at}  log<={r.log_rowid} ledger<={r.ledger_id}  "
                f"schemas={len(r.report.get('schemas', []))}  {state}"
            )
        click.echo(f"{len(runs)} run(s)")
        return
    memory = open_memory(ctx, store)
    policy = ConsolidationPolicy(
        InductionPolicy(assimilation_threshold=threshold), require_check=require_check
    )
    report = memory.consolidate(policy=policy, dry_run=dry_run, merges=[_pair(m) for m in merges])
    if as_json:
        echo_json(report.to_json())
        return
    _print(report)


def _print(report) -> None:
    head = report.run_id or ("dry run" if report.dry_run else "no run")
    click.echo(
        f"{head}: read {report.runs_read} analogy run(s), {report.ledger_read} ledger row(s); "
        + ", ".join(f"{k} {v}" for k, v in sorted(report.verdicts.items()))
    )
    for e in report.events:
        scores = " ".join(f"{m}={s:.2f}" for m, s in e.scores)
        click.echo(
            f"  {e.action:<11} {e.schema_id or '-'}  {' '.join(e.added)}  {scores}  "
            f"[{e.run_id}, {e.evidence}]"
        )
    for s in report.schemas:
        click.echo(
            f"  schema {s['schema_id']} ({s['context']}): {len(s['members'])} members, "
            f"{s['facts']} facts ({s['low']} low), verified {s['times_verified']}x"
        )
    for old, into in report.merges:
        click.echo(f"  merged {old} -> {into}")
    for p in report.proposals:
        click.echo(f"  proposal {p.old} -> {p.into} ({p.reason}: {dict(p.evidence)})")
    for op in report.operators:
        click.echo(
            f"  operator {op['key']}: " + ", ".join(f"{k} {v}" for k, v in op.items() if k != "key")
        )
    for m in report.macros:
        click.echo(f"  {'macro' if m['macro'] else 'sequence'} {m['key']}: support {m['support']}")
    if report.note:
        click.echo(report.note)


@click.command("schemas")
@click.argument("schema_id", required=False)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def schemas_cmd(ctx: click.Context, schema_id: str | None, as_json: bool) -> None:
    """List the schema library, or show one schema with its facts and provenance."""
    from analogist.errors import NotFoundError

    rows = open_store(ctx).list_schemas()
    if schema_id:
        row = next((r for r in rows if r.schema_id == schema_id), None)
        if row is None:
            raise NotFoundError(
                f"schema {schema_id!r} is not stored; `analogist schemas` lists them"
            )
        if as_json:
            echo_json(
                {
                    **row.schema_json,
                    "member_episodes": list(row.members),
                    "times_used": row.times_used,
                    "times_verified": row.times_verified,
                }
            )
            return
        _show(row)
        return
    if as_json:
        echo_json(
            [
                {
                    "schema_id": r.schema_id,
                    "members": list(r.members),
                    "times_verified": r.times_verified,
                    "induced": "induction" in r.schema_json,
                }
                for r in rows
            ]
        )
        return
    for r in rows:
        ind = r.schema_json.get("induction") or {}
        how = f"induced ({ind.get('context')})" if ind else "hand-added"
        click.echo(
            f"{r.schema_id}  {how}  members={len(ind.get('members', r.members))}  "
            f"verified={r.times_verified}  {r.schema_json.get('levels', {}).get('L3', '')}"
        )
    click.echo(f"{len(rows)} schema(s)")


def _show(row) -> None:
    sj = row.schema_json
    click.echo(f"{row.schema_id}  kind={sj.get('kind')}  verified {row.times_verified}x")
    for name, desc in sj.get("roles", {}).items():
        click.echo(f"  role {name}: {desc if isinstance(desc, str) else desc.get('description')}")
    ind = sj.get("induction")
    if not ind:
        for rel in sj.get("relations", []):
            click.echo(f"  {rel[0]}({', '.join(rel[1:])})")
        click.echo(f"  members: {', '.join(row.members)}")
        return
    for f in ind["facts"]:
        mark = "  (low: kept out of the structure)" if f["low"] else ""
        click.echo(f"  p={f['p']:.2f} {f['kind']:<8} {f['fact']}{mark}")
    click.echo(f"  context {ind['context']}; members: {', '.join(ind['members'])}")
    click.echo(f"  from runs: {', '.join(ind['runs'])}")


def print_proposals(ctx: click.Context, as_json: bool) -> None:
    """``analogist vocab --proposals``: merge proposals with evidence, and relation telemetry."""
    from analogist.learn import merge_proposals

    store = open_store(ctx)
    memory = open_memory(ctx, store)
    proposals = merge_proposals(store, memory.embedder)
    telemetry = store.learned_rows("relation_telemetry")
    counts = store.vocab_counts()
    if as_json:
        echo_json(
            {
                "proposals": [p.to_json() for p in proposals],
                "telemetry": {
                    t: {"usage": counts.get(t, 0), **telemetry.get(t, {})}
                    for t in sorted(set(counts) | set(telemetry))
                },
            }
        )
        return
    for p in proposals:
        click.echo(
            f"merge {p.old} -> {p.into}  ({p.reason}: {dict(p.evidence)})  "
            f"accept: analogist consolidate --merge {p.old}={p.into}"
        )
    if not proposals:
        click.echo("no merge proposals")
    click.echo(f"{'relation':<24} {'usage':>6} {'verified':>8} {'rejected':>8} {'negative':>8}")
    for t in sorted(set(counts) | set(telemetry), key=lambda t: (-counts.get(t, 0), t)):
        row = telemetry.get(t, {})
        click.echo(
            f"{t:<24} {counts.get(t, 0):>6} {row.get('verified', 0):>8} "
            f"{row.get('rejected', 0):>8} {row.get('negative', 0):>8}"
        )
