"""The ``analogist`` entry point: the root group and the registration of every command."""

from __future__ import annotations

import click

from analogist import __version__
from analogist.cli import (
    analogize_cmd,
    bench_cmd,
    bench_run_cmd,
    consolidate_cmd,
    encode_cmd,
    export_cmd,
    external_cmd,
    index_cmd,
    info_cmd,
    map_cmd,
    mcp_cmd,
    memory_cmd,
    models_cmd,
    plan_cmd,
    private_cmd,
    search_cmd,
    triggers_cmd,
)
from analogist.cli.common import handle_errors
from analogist.compiled import status as compiled_core
from analogist.config import DEFAULT_DB, config_path, configured_db, setting


class DbOption(click.Option):
    """``--db`` whose help shows the database actually configured, read when help is shown."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        self.help = (
            f"SQLite database; now {configured_db()} (from --db, else ANALOGIST_DB, "
            f'else "db" in {config_path()}, else {DEFAULT_DB}).'
        )
        return super().get_help_record(ctx)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--db", metavar="PATH", cls=DbOption)
@click.option(
    "--embedder",
    metavar="NAME",
    help="hashing[:DIM] | minilm | openai:MODEL (else ANALOGIST_EMBEDDER, else config, "
    "else MiniLM where installed, else hashing with a note).",
)
@click.version_option(
    __version__,
    prog_name="analogist",
    message=("%(prog)s, version %(version)s\n" + compiled_core().describe().replace("%", "%%")),
)
@click.pass_context
@handle_errors
def cli(ctx: click.Context, db: str | None, embedder: str | None) -> None:
    """Analogical reasoning for agents: signatures, retrieval, mapping, and the PARB benchmark."""
    obj = ctx.ensure_object(dict)
    obj["embedder"] = embedder
    if embedder:  # in force for the whole command: the benchmark's item memories use it too
        from analogist.retrieve.embedder_choice import using_embedder

        ctx.with_resource(using_embedder(embedder))
    obj["db"] = setting("db", db, DEFAULT_DB)
    obj[map_cmd.RESOLVER_KEY] = _episode_description


def _episode_description(arg: str, ctx: click.Context):
    """Resolve a stored episode id to the Description of its signature (for `map`)."""
    from analogist.cli.common import open_store
    from analogist.signature.describe import describe

    store = open_store(ctx)
    return describe(store.get_signature(arg), store.vocabulary)


for command in (
    memory_cmd.add_cmd,
    memory_cmd.show_cmd,
    memory_cmd.list_cmd,
    memory_cmd.delete_cmd,
    memory_cmd.vocab_cmd,
    memory_cmd.demo_cmd,
    map_cmd.map_cmd,
    analogize_cmd.analogize_cmd,
    analogize_cmd.log_cmd,
    models_cmd.models_cmd,
    encode_cmd.encode_cmd,
    search_cmd.search,
    bench_cmd.bench,
    mcp_cmd.mcp_cmd,
    export_cmd.export_cmd,
    export_cmd.import_cmd,
    info_cmd.info_cmd,
    index_cmd.index_cmd,
):
    cli.add_command(command)

for command in (
    consolidate_cmd.consolidate_cmd,
    consolidate_cmd.schemas_cmd,
    plan_cmd.plan_cmd,
    triggers_cmd.triggers_cmd,
):
    cli.add_command(command)

for command in (
    bench_run_cmd.run_cmd,
    bench_run_cmd.report_cmd,
    bench_run_cmd.runs_cmd,
    private_cmd.private_cmd,
    external_cmd.external,
):
    bench_cmd.bench.add_command(command)
