"""``analogist models``: which model and embedder backends are configured, and do they answer."""

from __future__ import annotations

import click

from analogist.cli.common import echo_json, handle_errors
from analogist.models import ModelSettings, ping_backends, ping_embedders


@click.command("models")
@click.option(
    "--model", metavar="PROVIDER:NAME", help="Also check this model (else ANALOGIST_MODEL)."
)
@click.option(
    "--timeout",
    type=float,
    default=3.0,
    show_default=True,
    help="Seconds each liveness check may take.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
@click.pass_context
@handle_errors
def models_cmd(ctx: click.Context, model: str | None, timeout: float, as_json: bool) -> None:
    """List model backends and embedders, and whether each answers.

    Each check is cheap (a model list, a file check) and gives up after --timeout seconds, so
    an unreachable server shows as offline instead of hanging.
    """
    settings = ModelSettings.from_env().with_(ping_timeout_s=timeout)
    pings = ping_backends(settings, model) + ping_embedders(settings)
    embedder = _embedder(ctx)
    if as_json:
        echo_json(
            {
                "model": model or settings.model,
                "cache": settings.cache.value,
                "embedder": embedder,
                "backends": [p.to_json() for p in pings],
            }
        )
        return
    shown = (
        f"{embedder['name']} ({embedder['source']})" if embedder.get("name") else embedder["error"]
    )
    click.echo(
        f"model: {model or settings.model or '(none: set ANALOGIST_MODEL or pass --model)'}"
        f"   cache: {settings.cache.value}   embedder: {shown}"
    )
    if embedder.get("note"):
        click.echo(f"  note: {embedder['note']}")
    width = max(len(p.provider) for p in pings)
    for p in pings:
        spec = f" {p.spec}" if p.spec else ""
        click.echo(f"  {p.provider:<{width}}  {p.status:<18}{spec}  {p.detail}")


def _embedder(ctx: click.Context) -> dict:
    """The embedder Memory will use (the one really built), or why none can be."""
    import warnings

    from analogist.errors import ConfigError
    from analogist.retrieve.embedder_choice import choose_embedder

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return choose_embedder(ctx.ensure_object(dict).get("embedder")).to_json()
    except ConfigError as e:
        return {"name": None, "error": f"(unusable: {e})"}
