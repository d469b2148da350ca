"""``analogist bench run | report | runs``: run arms on a benchmark, report from stored rows."""

from __future__ import annotations

import sys

import click

from analogist.cli.common import echo_json, handle_errors, open_store


def _progress():
    """A one-line progress display on a terminal; silent otherwise."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int, what: str) -> None:
        click.echo(f"\r  {done}/{total}  {what:<14}", nl=done == total, err=True)

    return show


@click.command("run")
@click.option("--bench", "bench_dir", type=click.Path(file_okay=False, exists=True),
              help="A generated bench directory (else one is generated from --seed/--size).")
@click.option("--seed", type=int, default=0, show_default=True, help="Generator seed.")
@click.option("--split", type=click.Choice(["dev", "test"]), default="dev", show_default=True)
@click.option("--size", default="mvp", show_default=True, help="small | mvp | full.")
@click.option("--arms", help="Comma-separated arms (default: all of spec §20), e.g. B,C,D,E.")
@click.option("--answerers", default="engine,model", show_default=True)
@click.option("--seeds", default="0", show_default=True, help="Run seeds, e.g. 0,1,2.")
@click.option("--model", help="provider:name for the model answerer (or ANALOGIST_MODEL).")
@click.option("--n-boot", type=int, default=2000, show_default=True)
@click.option("--no-contamination", is_flag=True, help="Skip source-dependence and lesion runs.")
@click.option("--out", type=click.Path(file_okay=False), required=True, help="Report directory.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def run_cmd(ctx: click.Context, bench_dir, seed, split, size, arms, answerers, seeds, model,
            n_boot, no_contamination, out, as_json) -> None:
    """Run the arms on a benchmark, store every result, write the report, print the scoreboard.

    Resumable: the same bench and options continue a stopped run and re-do nothing.
    """
    from analogist.bench import generate_bench, load_bench
    from analogist.bench.arms import ARMS
    from analogist.bench.report import write_report
    from analogist.bench.runner import RunConfig, run_bench

    store = open_store(ctx)
    bench = load_bench(bench_dir) if bench_dir else generate_bench(seed, split, size)
    config = RunConfig(
        arms=tuple(a.strip().replace("'", "′") for a in arms.split(",")) if arms else tuple(ARMS),
        answerers=tuple(a.strip() for a in answerers.split(",")),
        seeds=tuple(int(s) for s in seeds.split(",")), model=model,
        contamination=not no_contamination,
    )
    llm = _model(store, model) if "model" in config.answerers else None
    run_id = run_bench(store, bench, config, llm=llm, progress=_progress())
    paths = write_report(store, run_id, out, n_boot=n_boot)
    if as_json:
        echo_json({"run_id": run_id, **{k: v for k, v in paths.items() if k != "scoreboard_text"}})
        return
    click.echo(paths["scoreboard_text"])
    click.echo(f"run {run_id}; report in {paths['dir']} (report.html, results.json, scoreboard.txt)")


def _model(store, spec):
    """The logged model when one is configured; None (model arms skipped) otherwise."""
    from analogist.errors import ConfigError
    from analogist.models.registry import open_llm

    try:
        return open_llm(spec, store=store)
    except ConfigError:
        if spec:
            raise
        return None


@click.command("report")
@click.argument("run_id")
@click.option("--out", type=click.Path(file_okay=False), required=True)
@click.option("--n-boot", type=int, default=2000, show_default=True)
@click.pass_context
@handle_errors
def report_cmd(ctx: click.Context, run_id: str, out: str, n_boot: int) -> None:
    """Re-render a stored run's report (nothing is re-run)."""
    from analogist.bench.report import write_report

    paths = write_report(open_store(ctx), run_id, out, n_boot=n_boot)
    click.echo(paths["scoreboard_text"])
    click.echo(f"report in {paths['dir']}")


@click.command("runs")
@click.pass_context
@handle_errors
def runs_cmd(ctx: click.Context) -> None:
    """List stored benchmark runs."""
    from analogist.store.bench import list_bench_runs

    for r in list_bench_runs(open_store(ctx).conn):
        click.echo(f"{r['run_id']}  {r['status']:<8} {r['created_at']}  bench {r['bench_hash'][:12]}")
