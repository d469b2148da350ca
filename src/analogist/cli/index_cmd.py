"""``analogist index``: write the retrieval snapshot beside the database now, so the next
process opens it without re-reading the database; ``--full`` rewrites every file and chooses
per-dimension lists or an HNSW graph for each vector level again (docs/scale.md)."""

from __future__ import annotations

import time

import click

from analogist.cli.common import echo_json, handle_errors, open_memory
from analogist.errors import ConfigError


@click.command("index")
@click.option(
    "--full",
    is_flag=True,
    help="Rewrite every file and choose lists or a graph per vector level again "
    "(ANALOGIST_VECTOR_INDEX); default: write only what is new since the last snapshot.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@click.pass_context
@handle_errors
def index_cmd(ctx: click.Context, full: bool, as_json: bool) -> None:
    """Save the memory's retrieval indexes (S0, S1 and every vector level) as a snapshot."""
    memory = open_memory(ctx)
    indexes = memory.indexes
    if indexes.root is None:
        raise ConfigError(
            "this memory keeps no index snapshot (an in-memory database, or "
            "ANALOGIST_PERSIST_INDEXES=0); nothing to write"
        )
    if memory.store.read_only:
        raise ConfigError(f"the snapshot cannot be written: {memory.store.read_only}")
    t0 = time.perf_counter()
    folder = indexes.save(full=full)
    if folder is None:
        raise ConfigError("no snapshot was written: the database holds no index state")
    facts = {
        "snapshot": str(folder),
        "full": full,
        "seconds": round(time.perf_counter() - t0, 2),
        "vector_search": indexes.vector_search,
    }
    if as_json:
        echo_json(facts)
        return
    for key, value in facts.items():
        click.echo(f"{key.replace('_', ' ')}: {value}")
