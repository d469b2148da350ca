"""The ``triggers`` command: show the trigger policy in use, or fit it from the analogy log
(spec §11.2, Phase 6; :mod:`analogist.learn.triggers`)."""

from __future__ import annotations

from dataclasses import asdict

import click

from analogist.cli.common import echo_json, handle_errors, open_store


@click.command("triggers")
@click.option("--fit", is_flag=True, help="Fit the thresholds on the analogy log and store them.")
@click.option(
    "--budget",
    type=click.IntRange(min=0),
    metavar="TOKENS",
    help="Most tokens the fitted policy may spend on the logged runs.",
)
@click.option(
    "--beta",
    type=float,
    default=2.0,
    show_default=True,
    help="Weight of a negative transfer against a useful analogy.",
)
@click.option("--dry-run", is_flag=True, help="Fit and report; store nothing.")
@click.option(
    "--simulate",
    type=click.IntRange(min=4),
    metavar="ITEMS",
    help="Measure fitting on a simulated stream of ITEMS PARB items (fit on the "
    "first half, measure on the second; docs/consolidation.md).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of --simulate.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def triggers_cmd(
    ctx: click.Context,
    fit: bool,
    budget: int | None,
    beta: float,
    dry_run: bool,
    simulate: int | None,
    seed: int,
    as_json: bool,
) -> None:
    """Show the trigger policy (default or newest fitted version), or fit a new version."""
    if simulate:
        from analogist.bench.suites.trigger_sim import simulate as run_sim

        res = run_sim(seed, simulate)
        if as_json:
            echo_json(res)
            return
        click.echo(
            f"simulated stream: {res['items']} items, seed {seed}; fitted on the first "
            f"half under {res['budget']} tokens ({res['budget_fraction']:.0%} of default)"
        )
        for name, pv in res["test"].items():
            rate = pv["useful"] / pv["fired"] if pv["fired"] else None
            click.echo(
                f"  test half, {name:<8} fired {pv['fired']:>3}  useful {pv['useful']:>3}"
                f"  rate {'–' if rate is None else f'{rate:.2f}'}  negative "
                f"{pv['negative']}  tokens {pv['tokens']}"
            )
        click.echo(
            "  fitted: " + ", ".join(f"{k} {v}" for k, v in res["fitted_thresholds"].items())
        )
        return
    from analogist.learn.triggers import current_policy, fit_triggers
    from analogist.reason.triggers import TriggerPolicy

    store = open_store(ctx)
    if not fit:
        policy, version = current_policy(store)
        thresholds = asdict(policy)
        if as_json:
            echo_json({"version": version, "thresholds": thresholds})
            return
        click.echo(f"trigger policy: {'fitted v' + str(version) if version else 'default'}")
        for k, v in thresholds.items():
            click.echo(f"  {k:<18} {v}")
        return
    result, version = fit_triggers(store, budget, beta, dry_run=dry_run)
    if as_json:
        echo_json({**result.to_json(), "version": version})
        return
    click.echo(
        f"fitted on {result.n_runs} logged run(s) at tier >= 1"
        f"{f', budget {budget} tokens' if budget is not None else ''}; "
        f"{'dry run, not stored' if version is None else f'stored as v{version}'}"
    )
    for name, pv in (("default", result.default), ("fitted", result.fitted)):
        rate = "–" if pv.useful_rate is None else f"{pv.useful_rate:.2f}"
        click.echo(
            f"  {name:<8} fired {pv.fired}, useful {pv.useful} (rate {rate}), "
            f"negative {pv.negative}, tokens {pv.tokens}, value {pv.value:g}"
        )
        for tier, t in sorted(pv.by_tier.items()):
            click.echo(f"           tier {tier}: " + ", ".join(f"{k} {v}" for k, v in t.items()))
    default = asdict(TriggerPolicy())
    for k, v in asdict(result.policy).items():
        click.echo(f"  {k:<18} {v}" + (f"  (default {default[k]})" if v != default[k] else ""))
