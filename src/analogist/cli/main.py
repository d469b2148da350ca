"""The ``analogist`` entry point: the root group, whose commands are imported when one runs.

An agent runs one command per process, so the root imports only what every command needs and
a command's module when that command is called (:class:`LazyGroup`): ``analogist search`` does
not pay for the benchmark's or the analogy loop's imports (~0.1 s of ~0.2 s of imports).
``analogist --help`` lists every command, so it imports them all.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import click

from analogist import __version__
from analogist.cli.common import RESOLVER_KEY, handle_errors
from analogist.compiled import status as compiled_core
from analogist.config import DEFAULT_DB, config_path, configured_db, setting


def _attr(module: str, name: str) -> Callable[[], click.Command]:
    """A loader of command ``name`` of ``analogist.cli.<module>``."""
    return lambda: getattr(importlib.import_module(f"analogist.cli.{module}"), name)


def _bench() -> click.Command:
    """The ``bench`` group with the subcommands defined in other modules."""
    group = _attr("bench_cmd", "bench")()
    assert isinstance(group, click.Group)
    for module, name in (
        ("bench_run_cmd", "run_cmd"),
        ("bench_run_cmd", "report_cmd"),
        ("bench_run_cmd", "runs_cmd"),
        ("private_cmd", "private_cmd"),
        ("external_cmd", "external"),
    ):
        group.add_command(_attr(module, name)())
    return group


#: Every command of the root group: its name and how to load it.
COMMANDS: dict[str, Callable[[], click.Command]] = {
    "add": _attr("memory_cmd", "add_cmd"),
    "show": _attr("memory_cmd", "show_cmd"),
    "list": _attr("memory_cmd", "list_cmd"),
    "delete": _attr("memory_cmd", "delete_cmd"),
    "vocab": _attr("memory_cmd", "vocab_cmd"),
    "demo": _attr("memory_cmd", "demo_cmd"),
    "map": _attr("map_cmd", "map_cmd"),
    "analogize": _attr("analogize_cmd", "analogize_cmd"),
    "log": _attr("analogize_cmd", "log_cmd"),
    "models": _attr("models_cmd", "models_cmd"),
    "encode": _attr("encode_cmd", "encode_cmd"),
    "search": _attr("search_cmd", "search"),
    "bench": _bench,
    "mcp": _attr("mcp_cmd", "mcp_cmd"),
    "export": _attr("export_cmd", "export_cmd"),
    "import": _attr("export_cmd", "import_cmd"),
    "info": _attr("info_cmd", "info_cmd"),
    "index": _attr("index_cmd", "index_cmd"),
    "consolidate": _attr("consolidate_cmd", "consolidate_cmd"),
    "schemas": _attr("consolidate_cmd", "schemas_cmd"),
    "plan": _attr("plan_cmd", "plan_cmd"),
    "triggers": _attr("triggers_cmd", "triggers_cmd"),
}


class LazyGroup(click.Group):
    """A group that imports a command's module the first time the command is looked up."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *COMMANDS})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self.add_command(COMMANDS[cmd_name](), cmd_name)
        return super().get_command(ctx, cmd_name)


class DbOption(click.Option):
    """``--db`` whose help shows the database actually configured, read when help is shown."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        self.help = (
            f"SQLite database; now {configured_db()} (from --db, else ANALOGIST_DB, "
            f'else "db" in {config_path()}, else {DEFAULT_DB}).'
        )
        return super().get_help_record(ctx)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
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
    obj[RESOLVER_KEY] = _episode_description


def _episode_description(arg: str, ctx: click.Context):
    """Resolve a stored episode id to the Description of its signature (for `map`)."""
    from analogist.cli.common import open_store
    from analogist.signature.describe import describe

    store = open_store(ctx)
    return describe(store.get_signature(arg), store.vocabulary)
