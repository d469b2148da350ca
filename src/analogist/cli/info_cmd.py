"""``analogist info``: what a memory is and how it searches (database, size, embedder, vector
search), so a setting that is shown is the one in use."""

from __future__ import annotations

import click

from analogist.cli.common import echo_json, handle_errors, open_memory
from analogist.store.postgres import is_postgres_url


@click.command("info")
@click.option("--json", "as_json", is_flag=True, help="Print the facts as JSON.")
@click.pass_context
@handle_errors
def info_cmd(ctx: click.Context, as_json: bool) -> None:
    """Print the memory's database, episode count, embedder and the vector search S2 and
    M.emb use (pgvector HNSW in the database, the local HNSW graph, or exact), and how many
    episodes the index snapshot is behind the database (each open folds those in)."""
    memory = open_memory(ctx, save_on_close=False)  # a report: it writes nothing
    store, indexes = memory.store, memory.indexes
    behind, _ = indexes.behind()
    facts = {
        "database": store.path,
        "backend": "postgresql" if is_postgres_url(store.path) else "sqlite",
        "episodes": store.count(),
        "embedder": f"{memory.embedder.name} ({memory.embedder.dim}-d)",
        "vector_search": indexes.vector_search,
        "index_snapshots": str(indexes.root) if indexes.root is not None else None,
        "snapshot_behind": behind if indexes.root is not None else None,
        "stored_vectors": ", ".join(stored)
        if (stored := store.newest_vector_embedders())
        else None,
    }
    if as_json:
        echo_json(facts)
        return
    for key, value in facts.items():
        click.echo(f"{key.replace('_', ' ')}: {value if value is not None else 'none'}")
    if stored and memory.embedder.name not in stored:
        click.echo(
            f"note: the newest episode's vectors are for {', '.join(stored)}, not for the "
            f"embedder in use ({memory.embedder.name}): S2 and M.emb find only vectors of the "
            "embedder in use; choose it with --embedder or ANALOGIST_EMBEDDER, or re-embed "
            "with Memory.reindex"
        )
