"""``analogist mcp``: serve the memory to an agent host over MCP (stdio by default)."""

from __future__ import annotations

import click

from analogist.cli.common import handle_errors, open_memory


@click.command("mcp")
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio for an agent host that spawns the server; http for "
    "streamable HTTP at http://HOST:PORT/mcp.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="HTTP only.")
@click.option(
    "--port", default=8765, show_default=True, type=click.IntRange(1, 65535), help="HTTP only."
)
@click.pass_context
@handle_errors
def mcp_cmd(ctx: click.Context, transport: str, host: str, port: int) -> None:
    """Serve the memory (--db) as MCP tools: add_episode, search, analogize, map, log,
    record_outcome, and the vocabulary resource. Notes go to stderr; stdout is the protocol."""
    try:
        from analogist.mcp.server import serve
    except ImportError as e:
        from analogist.errors import ConfigError

        raise ConfigError(f"the MCP SDK is not installed ({e}); run `pip install mcp`") from None
    memory = open_memory(ctx)
    click.echo(f"analogist mcp: serving {memory.store.path} over {transport}", err=True)
    serve(memory, "stdio" if transport == "stdio" else "http", host, port)
