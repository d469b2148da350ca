"""Helpers shared by CLI modules: opening the store, printing JSON, turning errors into exits."""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any

import click

from analogist.errors import AnalogistError
from analogist.signature.model import Signature
from analogist.store import BACKEND_ERRORS, Store
from analogist.store.postgres import open_store as open_backend

#: Where the root command leaves ``map``'s resolver of stored episode ids (``ctx.obj``).
RESOLVER_KEY = "resolve_episode"


def open_store(ctx: click.Context) -> Store:
    """The store named by --db / ANALOGIST_DB / config / default (kept open on ctx.obj)."""
    obj = ctx.ensure_object(dict)
    if obj.get("store") is None:
        obj["store"] = open_backend(obj["db"])
        ctx.call_on_close(obj["store"].close)
    return obj["store"]


def open_memory(ctx: click.Context, store: Store | None = None, *, save_on_close: bool = True):
    """A Memory on the store with the embedder of ``--embedder`` / ANALOGIST_EMBEDDER / config /
    auto; when auto had to fall back to the hashing embedder, one note on stderr says so. At the
    end of the command it is closed (:func:`close_memory`), which may save the index snapshot;
    ``save_on_close=False`` for a command that only reports (``info``)."""
    import warnings

    from analogist.memory import Memory
    from analogist.retrieve.embedder_choice import choose_embedder

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        choice = choose_embedder(ctx.ensure_object(dict).get("embedder"))
    if choice.note:
        click.echo(f"note: {choice.note}", err=True)
    memory = Memory(store if store is not None else open_store(ctx), embedder=choice.embedder)
    if save_on_close:
        ctx.call_on_close(functools.partial(close_memory, memory))
    return memory


def close_memory(memory: Any) -> None:
    """End a command's memory: ``Memory.close`` writes the index snapshot when the next open
    would otherwise fold many episodes in from the database (``Indexes.save_if_worthwhile``),
    so one-shot processes — an agent's ``add`` then ``search`` — keep opening in a moment.
    What goes wrong there is a note on stderr, not a traceback: the database is unaffected."""
    import warnings

    failures: tuple[type[Exception], ...] = (AnalogistError, OSError, *BACKEND_ERRORS)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            memory.close()
        except failures as e:
            click.echo(
                f"note: the index snapshot was not saved: {' '.join(str(e).split())}", err=True
            )
    for w in caught:
        click.echo(f"note: {' '.join(str(w.message).split())}", err=True)


def echo_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def handle_errors(fn: Callable) -> Callable:
    """Print an AnalogistError as one clear line on stderr and exit 1, not a traceback.

    A file the command could not read or write (OSError) or text that is not UTF-8 is reported
    the same way, naming the path and what to do.
    """

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except AnalogistError as e:
            message = str(e)
        except UnicodeDecodeError as e:
            message = f"{not_utf8(e)}; save the file as UTF-8 text"
        except OSError as e:
            where = f" {e.filename}" if e.filename else ""
            message = f"cannot access{where}: {e.strerror or e}; check the path and permissions"
        except BACKEND_ERRORS as e:  # writes run in transactions, so a failed one changed nothing
            message = f"database error: {e}; nothing was written (check --db and free disk space)"
        click.echo(f"error: {' '.join(message.split())}", err=True)
        sys.exit(1)

    return wrapper


def not_utf8(e: UnicodeDecodeError) -> str:
    """One line for text that is not UTF-8 (binary data, another encoding)."""
    return f"not UTF-8 text (byte 0x{e.object[e.start]:02x} at offset {e.start})"


def read_text(path: str, what: str = "input") -> str:
    """A UTF-8 text file (``-``: stdin), or one-line errors for unreadable or binary input."""
    from analogist.errors import EpisodeError

    try:
        if path == "-":
            return sys.stdin.buffer.read().decode("utf-8")
        with open(path, encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError as e:
        raise EpisodeError(
            f"{what} {path} is {not_utf8(e)}; give UTF-8 JSONL, one episode per line"
        ) from None
    except OSError as e:
        raise EpisodeError(f"cannot read {what} {path}: {e.strerror or e}") from None


def parse_seeds(text: str) -> tuple[int, ...]:
    """``0,1,2`` as run seeds; a one-line error for anything else."""
    from analogist.errors import BenchError

    parts = [p.strip() for p in text.split(",")]
    bad = [p for p in parts if not p.lstrip("-").isdigit() or len(p) > 18]
    if bad or not parts:
        raise BenchError(f"--seeds {text!r}: {bad[0]!r} is not an integer; give seeds like 0,1,2")
    return tuple(int(p) for p in parts)


def open_bench(path: str):
    """Load a bench directory; files that are not UTF-8 are one line, not a traceback."""
    from analogist.bench import load_bench
    from analogist.errors import BenchError

    try:
        return load_bench(path)
    except UnicodeDecodeError as e:
        raise BenchError(
            f"bench {path}: a file is {not_utf8(e)}; it was modified after "
            "generation: regenerate it (`analogist bench generate`)"
        ) from None


def signature_lines(sig: Signature) -> list[str]:
    """A signature as indented lines (roles, relations, causal links, fix, levels L1-L3): the
    one printer used by ``show`` and ``encode``."""
    out = [f"  role {r.name:<6} {r.description}" for r in sig.roles]
    out += [f"  rel  {rel.term().canonical()}" for rel in sig.relations]
    out += [
        f"  causal {c.cause.canonical()} --{c.link}--> {c.effect.canonical()}"
        for c in sig.causal_chain
    ]
    out += [
        f"  {key}: {getattr(sig, key)}"
        for key in ("violated_invariant", "symptom", "fix_operator")
        if getattr(sig, key) is not None
    ]
    out += [f"  {lvl}: {sig.level(lvl)}" for lvl in ("L1", "L2", "L3") if sig.level(lvl)]
    return out
