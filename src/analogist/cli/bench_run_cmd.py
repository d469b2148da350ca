"""``analogist bench run | report | runs``: run arms on a benchmark, report from stored rows."""

from __future__ import annotations

import json
import sys

import click

from analogist.cli.common import echo_json, handle_errors, open_bench, open_store, parse_seeds


def _progress():
    """A one-line progress display on a terminal; silent otherwise."""
    if not sys.stderr.isatty():
        return None

    def show(done: int, total: int, what: str) -> None:
        click.echo(f"\r  {done}/{total}  {what:<14}", nl=done == total, err=True)

    return show


@click.command("run")
@click.option(
    "--bench",
    "bench_dir",
    type=click.Path(file_okay=False, exists=True),
    help="A generated bench directory (else one is generated from --seed/--size).",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Generator seed.")
@click.option("--split", type=click.Choice(["dev", "test"]), default="dev", show_default=True)
@click.option("--size", default="mvp", show_default=True, help="small | mvp | full.")
@click.option("--arms", help="Comma-separated arms (default: all of spec §20), e.g. B,C,D,E.")
@click.option("--answerers", default="engine,model", show_default=True)
@click.option("--seeds", default="0", show_default=True, help="Run seeds, e.g. 0,1,2.")
@click.option("--model", help="provider:name for the model answerer (or ANALOGIST_MODEL).")
@click.option("--n-boot", type=int, default=2000, show_default=True)
@click.option("--no-contamination", is_flag=True, help="Skip source-dependence and lesion runs.")
@click.option(
    "--encoder",
    type=click.Choice(["gold", "model"]),
    default="gold",
    show_default=True,
    help="gold: the generator's signatures (labelled); model: the model encodes each "
    "target and, at storage time, each episode from its own record.",
)
@click.option(
    "--encoder-model",
    metavar="PROVIDER:NAME",
    help="With --encoder model: the model that writes the signatures (default: --model). "
    "Swap only the answerer with --model while the encodings, and their cached calls, stay; "
    "replay:PROVIDER:NAME takes every encoding from the call log and never calls the model.",
)
@click.option(
    "--concurrency",
    type=int,
    help="Model calls at a time (default: 1 for local:/llama: models, whose prompt "
    "cache needs calls in order; else 4).",
)
@click.option(
    "--stop-after",
    type=float,
    metavar="SECONDS",
    help="Start no new job after SECONDS; the run is left 'stopped' and the same "
    "command resumes it (model calls already made come from the call log).",
)
@click.option(
    "--record",
    "record_file",
    type=click.Path(dir_okay=False),
    help="After the run, write its model calls to FILE (.jsonl.gz) for --replay.",
)
@click.option(
    "--replay",
    "replay_file",
    type=click.Path(exists=True, dir_okay=False),
    help="Re-score the run recorded in FILE with zero model calls (other run options "
    "come from the file).",
)
@click.option(
    "--calls-from",
    "calls_from",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False),
    help="Before the run, add the model calls recorded in FILE (a --record file; "
    "repeatable) to the database's call log: a run begun elsewhere resumes here and "
    "only work the file does not hold calls the model.",
)
@click.option(
    "--noise",
    default="",
    help="Encoder-noise rates to rerun ISO, C, D and E at "
    "(engine answers; the gold encoder's output corrupted), e.g. 0.1,0.2,0.3.",
)
@click.option("--out", type=click.Path(file_okay=False), required=True, help="Report directory.")
@click.option(
    "--suite",
    type=click.Choice(["parb", "planning", "learning", "blending"]),
    default="parb",
    show_default=True,
    help="planning: the planning bench (docs/planning.md; uses --seed, --size, "
    "--n-boot, --out and --json only). learning: the PARB learning phase "
    "(docs/consolidation.md; --seed, --split, --size, --n-boot, --out, --json). "
    "blending: arm E+Bld and H6 (docs/blending.md; same options as learning).",
)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def run_cmd(
    ctx: click.Context,
    bench_dir,
    seed,
    split,
    size,
    arms,
    answerers,
    seeds,
    model,
    n_boot,
    no_contamination,
    encoder,
    encoder_model,
    concurrency,
    stop_after,
    record_file,
    replay_file,
    out,
    as_json,
    calls_from=(),
    noise="",
    suite="parb",
) -> None:
    """Run the arms on a benchmark, store every result, write the report, print the scoreboard.

    Resumable: the same bench and options continue a stopped run and re-do nothing.
    """
    if suite == "learning":  # PARB learning phase (docs/consolidation.md)
        from analogist.cli.bench_learning_cmd import run_learning_suite

        return run_learning_suite(ctx, seed, split, size, n_boot, out, as_json)
    if suite == "blending":  # PARB blending suite, E+Bld and H6 (docs/blending.md)
        from analogist.cli.bench_blending_cmd import run_blending_suite

        return run_blending_suite(ctx, seed, split, size, n_boot, out, as_json)
    if suite == "planning":
        from analogist.bench.suites.planning.report import run_suite

        res = run_suite(seed, size, out, n_boot=n_boot, progress=_progress())
        if as_json:
            echo_json({k: v for k, v in res.items() if k != "text"})
        else:
            click.echo(res["text"] + f"report in {res['dir']} (planning.json, planning.txt)")
        return
    from analogist.bench import generate_bench
    from analogist.bench.analysis.report import write_report
    from analogist.bench.execution.arms import ARMS
    from analogist.bench.execution.noise import parse_rates
    from analogist.bench.execution.runner import RunConfig, Runner

    extra: dict = {}
    if replay_file and calls_from:
        from analogist.errors import BenchError

        raise BenchError(
            "--calls-from seeds a live run's call log; --replay reads only its own file: "
            "give one of them"
        )
    if replay_file:
        from analogist.bench.execution.replay import replay_run

        store, run_id, header, runner = replay_run(replay_file)
        extra["replayed"] = {
            "file": replay_file,
            "model": header["model"],
            **({"encoder_model": header["encoder_model"]} if "encoder_model" in header else {}),
            "calls_in_file": header["calls"],
            "model_calls_made": sum(m.stats.calls for m in runner.model_llms()),
        }
    else:
        store = open_store(ctx)
        if calls_from:
            from analogist.bench.execution.replay import seed_calls

            for f in calls_from:
                added, skipped = seed_calls(store, f)
                click.echo(f"calls from {f}: {added} added, {skipped} already in the log", err=True)
        answer_with = [a.strip() for a in answerers.split(",")]
        llm, enc_llm = _models(store, model, answer_with, encoder, encoder_model)
        bench = open_bench(bench_dir) if bench_dir else generate_bench(seed, split, size)
        config = RunConfig(
            arms=tuple(a.strip().replace("'", "′") for a in arms.split(","))
            if arms
            else tuple(ARMS),
            answerers=tuple(a.strip() for a in answerers.split(",")),
            seeds=parse_seeds(seeds),
            model=f"{llm.provider}:{llm.model}" if llm is not None else model,
            encoder=encoder,
            encoder_model=f"{enc_llm.provider}:{enc_llm.model}" if enc_llm is not None else None,
            contamination=not no_contamination,
            noise=parse_rates(noise),
            concurrency=concurrency
            or (1 if any(m.provider in ("local", "llama") for m in (llm, enc_llm) if m) else 4),
        )
        runner = Runner(
            store,
            bench,
            config,
            llm=llm,
            progress=_progress(),
            stop_after_s=stop_after,
            encoder_llm=enc_llm,
            stop_when_unencoded=bool(encoder_model) and encoder_model.startswith("replay:"),
        )
        if bench_dir:  # the sidecar of `analogist bench audit`, shown in the report
            from analogist.bench.analysis.audit_set import read_sidecar

            runner.adversarial_audit = read_sidecar(bench_dir, bench.manifest.get("bench_id"))
        run_id = runner.run()
        if record_file:
            from analogist.bench.execution.replay import record_run

            n = record_run(store, bench, config, config.model or "", record_file, run_id)
            extra["recorded"] = {"file": record_file, "calls": n}
    paths = write_report(store, run_id, out, n_boot=n_boot)
    if runner.encoding is not None:
        runner.encoding.deadline = None
        ran = {k[2] for k in store.bench_done_keys(run_id)}
        fid = runner.encoding.fidelity([it for it in runner.bench.items if it.item_id in ran])
        path = f"{paths['dir']}/encoder_fidelity.json"
        with open(path, "w", encoding="utf-8") as f:
            json.dump(fid, f, indent=2)
        extra["encoder_fidelity"] = path
        extra["fidelity"] = fid
    if as_json:
        echo_json(
            {
                "run_id": run_id,
                **{k: v for k, v in paths.items() if k != "scoreboard_text"},
                **{k: v for k, v in extra.items() if k != "fidelity"},
            }
        )
        return
    click.echo(paths["scoreboard_text"])
    if "fidelity" in extra:
        for name in ("targets", "episodes"):
            f = extra["fidelity"][name]
            click.echo(
                f"encoder fidelity ({name}, {extra['fidelity']['writer']}): "
                f"n {f['n']}, rejected {f['rejected']}, relation micro F1 "
                f"{f['micro_f1']:.3f}, role accuracy {f['role_accuracy']:.3f} (chance: F1 "
                f"{f['chance']['micro_f1']:.3f}, role accuracy {f['chance']['role_accuracy']:.3f})"
            )
    if runner.stopped:
        click.echo(f"run stopped: {runner.stop_reason}; the same command resumes it")
    if "replayed" in extra:
        r = extra["replayed"]
        who = r["model"] + (f", encodings {r['encoder_model']}" if "encoder_model" in r else "")
        click.echo(f"replayed {r['file']} ({who}): {r['model_calls_made']} model calls made")
    if "recorded" in extra:
        click.echo(f"recorded {extra['recorded']['calls']} calls in {extra['recorded']['file']}")
    click.echo(
        f"run {run_id}; report in {paths['dir']} (report.html, results.json, scoreboard.txt)"
    )


def _models(store, spec, answerers, encoder, encoder_spec):
    """(the model that answers, the model that encodes when it is another one, else None).

    Raises:
        BenchError / ConfigError: --encoder-model without --encoder model, or a model spec
            that cannot be opened (named by its option).
    """
    from analogist.errors import BenchError, ConfigError
    from analogist.models.registry import open_llm

    if not encoder_spec:
        wants_model = "model" in answerers or encoder == "model"
        return (_model(store, spec) if wants_model else None), None
    if encoder != "model":
        raise BenchError(
            f"--encoder-model {encoder_spec} names the model that writes the signatures, but "
            "--encoder gold uses no model: add --encoder model (or drop --encoder-model)"
        )
    try:
        enc = open_llm(encoder_spec, store=store)
    except ConfigError as e:
        raise ConfigError(f"--encoder-model {encoder_spec}: {e}") from None
    if encoder_spec.startswith("replay:"):  # encodings only from the log, failures included
        from analogist.bench.execution.replay import TrackedLLM

        enc = TrackedLLM(enc)
    if "model" not in answerers:  # no model answers: the encoder is the run's only model
        if spec and _model(store, spec).name != enc.name:
            raise BenchError(
                f"no model answers in this run (--answerers {','.join(answerers)}), so --model "
                f"{spec} would be unused: give only --encoder-model (or --model)"
            )
        return enc, None
    llm = _model(store, spec)
    if llm is None:
        raise ConfigError(
            f"--encoder-model {encoder_spec} encodes, but no model answers: pass --model "
            "(or set ANALOGIST_MODEL) for the model answerer, or use --answerers engine"
        )
    if llm.name == enc.name:
        return llm, None  # one model does both: the same run as without --encoder-model
    return llm, enc


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
    from analogist.bench.analysis.report import write_report

    paths = write_report(open_store(ctx), run_id, out, n_boot=n_boot)
    click.echo(paths["scoreboard_text"])
    click.echo(f"report in {paths['dir']}")


@click.command("runs")
@click.pass_context
@handle_errors
def runs_cmd(ctx: click.Context) -> None:
    """List stored benchmark runs."""
    for r in open_store(ctx).list_bench_runs():
        click.echo(
            f"{r['run_id']}  {r['status']:<8} {r['created_at']}  bench {r['bench_hash'][:12]}"
        )
