"""The ``map`` command: run the structure-mapping engine on two descriptions.

BASE and TARGET are description JSON files (the ``fixtures/sme`` format). Anything else is
handed to the episode resolver that the root group registers on ``ctx.obj["resolve_episode"]``
(a callable ``(arg, ctx) -> Description``), so stored episode ids work once the store is wired.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import click

from analogist.cli.common import RESOLVER_KEY, echo_json, handle_errors
from analogist.errors import MappingError
from analogist.mapping import SMEParams, match, render_result, to_fixture_json
from analogist.mapping.params import LISP_NAMES
from analogist.signature.description import (
    Description,
    PredicateInfo,
    load_predicates,
)


def resolve_description(
    arg: str, ctx: click.Context, predicates: Mapping[str, PredicateInfo] | None = None
) -> Description:
    """Turns a BASE/TARGET argument into a description.

    An existing file is read as description JSON (its own ``predicates`` table, if any, is
    merged over ``predicates``). Otherwise the resolver registered on
    ``ctx.obj["resolve_episode"]`` is asked; without one the argument is an error.

    Raises:
        click.UsageError: no such file and no resolver, or a file without predicate typing.
    """
    path = Path(arg)
    if path.is_file():
        from analogist.cli.common import read_text
        from analogist.signature.limits import load_json

        obj = load_json(read_text(arg, "description file"), f"description file {arg}")
        if not isinstance(obj, dict):
            raise click.UsageError(f"{arg}: a description is a JSON object with 'facts'")
        if "predicates" not in obj and predicates is None:
            raise click.UsageError(
                f"{arg} has no 'predicates' table, so its predicates are not typed: "
                "pass --vocab PREDICATES.json"
            )
        return Description.from_json(obj, predicates)
    resolver = (ctx.obj or {}).get(RESOLVER_KEY) if isinstance(ctx.obj, dict) else None
    if resolver is None:
        raise click.UsageError(f"no such file: {arg}")
    return resolver(arg, ctx)


def parse_param_value(text: str) -> Any:
    """true/false/null (also nil, none) or a number; anything else is not a parameter value."""
    lowered = text.strip().lower()
    if lowered in ("true", "t", "yes"):
        return True
    if lowered in ("false", "no"):
        return False
    if lowered in ("null", "nil", "none"):
        return None
    for kind in (int, float):
        try:
            return kind(lowered)
        except ValueError:
            pass
    raise click.BadParameter(
        f"value '{text}' is not true, false, null or a number", param_hint="--param"
    )


def parse_params(items: tuple[str, ...]) -> SMEParams:
    """SMEParams from repeated ``NAME=VALUE`` options (SME's Lisp names)."""
    defaults = SMEParams().to_fixture_dict()
    values: dict[str, Any] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        name = name.strip()
        if not sep:
            raise click.BadParameter(f"'{item}' is not NAME=VALUE", param_hint="--param")
        if name not in defaults:
            raise click.BadParameter(
                f"unknown parameter '{name}'; valid names: {', '.join(LISP_NAMES.values())}",
                param_hint="--param",
            )
        values[name] = _typed(name, parse_param_value(raw), defaults[name])
    try:
        return SMEParams.from_fixture_dict(values)
    except MappingError as e:
        raise click.BadParameter(str(e), param_hint="--param") from None


def _typed(name: str, value: Any, default: Any) -> Any:
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise click.BadParameter(f"{name} takes true or false", param_hint="--param")
        return value
    if value is None:
        if name != "max-local-score":
            raise click.BadParameter(f"{name} cannot be null", param_hint="--param")
        return None
    if isinstance(value, bool):
        raise click.BadParameter(f"{name} takes a number", param_hint="--param")
    if isinstance(default, int):
        if not float(value).is_integer():
            raise click.BadParameter(f"{name} takes a whole number", param_hint="--param")
        return int(value)
    return float(value)


@click.command("map")
@click.argument("base")
@click.argument("target")
@click.option(
    "--vocab",
    "vocab",
    type=click.Path(exists=True, dir_okay=False),
    metavar="PREDICATES.json",
    help="Predicate typing (kind, arity, n_ary, commutative) for description files "
    "that carry none.",
)
@click.option(
    "--param",
    "params",
    multiple=True,
    metavar="NAME=VALUE",
    help="An SME parameter by its Lisp name, e.g. greedy-max-#=2 or "
    "compute-reverse-inferences?=true (repeatable).",
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the result in the SME fixtures' JSON notation (with inference scores).",
)
@click.pass_context
@handle_errors
def map_cmd(
    ctx: click.Context,
    base: str,
    target: str,
    vocab: str | None,
    params: tuple[str, ...],
    as_json: bool,
) -> None:
    """Map BASE onto TARGET with the Structure-Mapping Engine and show the interpretations.

    BASE and TARGET are description JSON files or stored episode ids.
    """
    predicates = load_predicates(vocab) if vocab else None
    sme_params = parse_params(params)
    b = resolve_description(base, ctx, predicates)
    t = resolve_description(target, ctx, predicates)
    result = match(b, t, sme_params)
    if as_json:
        echo_json(to_fixture_json(result, detailed=True))
    else:
        click.echo(render_result(result))
