"""Helpers shared by CLI modules: opening the store, printing JSON, turning errors into exits."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any

import click

from analogist.errors import AnalogistError
from analogist.store import Store


def open_store(ctx: click.Context) -> Store:
    """The store named by --db / ANALOGIST_DB / config / default (kept open on ctx.obj)."""
    obj = ctx.ensure_object(dict)
    if obj.get("store") is None:
        obj["store"] = Store(obj["db"])
        ctx.call_on_close(obj["store"].close)
    return obj["store"]


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def handle_errors(fn: Callable) -> Callable:
    """Print an AnalogistError as one clear line on stderr and exit 1, not a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except AnalogistError as e:
            click.echo(f"error: {e}", err=True)
            sys.exit(1)

    return wrapper
