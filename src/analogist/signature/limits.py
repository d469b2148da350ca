"""Input limits, checked when input is parsed (before anything is stored or mapped).

Every limit is a module constant here and listed in ``docs/limits.md``; an input over a limit
is rejected with one line that names the limit, e.g. ``signature ep_1: relations: 300
relations; the limit is MAX_RELATIONS = 256``. The values sit far above anything the example
memory or PARB produce (at most 6 roles, 6 relations, 6 causal links, ~1,000-character texts)
and keep one comparison of two signatures inside the mapper's match-hypothesis budget
(``analogist.mapping.hypotheses.DEFAULT_MH_BUDGET``): 256 x 256 relation pairs is 65,536.

:func:`load_json` is the one way input JSON text is read: it bounds line length, nesting depth
and number size, and raises only :class:`~analogist.errors.EpisodeError`.
"""

from __future__ import annotations

import json
from typing import Any

from analogist.errors import EpisodeError

MAX_ID_CHARS = 128  # episode ids, signature episode_id
MAX_NAME_CHARS = 64  # role names, predicate names, term functors
MAX_TEXT_CHARS = 50_000  # episode text and every free-text field (levels, invariant, ...)
MAX_ROLES = 64
MAX_RELATIONS = 256
MAX_CAUSAL_LINKS = 128
MAX_ENTITIES = 256  # surface.entities
MAX_TERM_CHARS = 1_000  # one causal-chain term or fix operator, as written
MAX_TERM_DEPTH = 8  # nesting of terms inside a term: f(g(h(X))) has depth 3
MAX_JSON_DEPTH = 20  # nesting of objects and lists in one input line
MAX_NUMBER_CHARS = 32  # digits (and sign, point, exponent) of one JSON number
MAX_LINE_CHARS = 1_000_000  # one JSONL line


def over(what: str, n: int, limit_name: str) -> str:
    """The message for ``n`` items of ``what`` over the named limit."""
    return f"{n:,} {what}; the limit is {limit_name} = {globals()[limit_name]:,} (docs/limits.md)"


def _number(text: str) -> Any:
    if len(text) > MAX_NUMBER_CHARS:
        raise EpisodeError(f"a number with {over('characters', len(text), 'MAX_NUMBER_CHARS')}")
    return float(text) if any(c in text for c in ".eE") else int(text)


def _constant(name: str) -> Any:
    raise EpisodeError(f"{name} is not a JSON number; write a finite number or a string")


#: One decoder for every line: ``json.loads`` given hooks builds a decoder and its scanner at
#: each call (~3 µs of an episode's ~30 of reading). Shared like ``json``'s own default one.
_DECODER = json.JSONDecoder(parse_int=_number, parse_float=_number, parse_constant=_constant)


def json_depth(obj: Any) -> int:
    """Nesting depth of objects and lists (a scalar is 0), without recursion: one pass per
    level over the containers only (scalars are never pushed). :func:`load_json` walks only
    a text with more than MAX_JSON_DEPTH brackets: with fewer it cannot nest deeper."""
    nested = dict | list | tuple
    if not isinstance(obj, nested):
        return 0
    depth, level = 0, [obj]
    while level:
        nxt: list[Any] = []
        for cur in level:
            values = cur.values() if isinstance(cur, dict) else cur
            nxt.extend([v for v in values if isinstance(v, nested)])
        depth += 1
        if depth > MAX_JSON_DEPTH:
            return depth
        level = nxt
    return depth


def check_depth(obj: Any, what: str = "input") -> None:
    """Raise EpisodeError when ``obj`` nests deeper than MAX_JSON_DEPTH."""
    d = json_depth(obj)
    if d > MAX_JSON_DEPTH:
        raise EpisodeError(
            f"{what} nests objects and lists more than {MAX_JSON_DEPTH} deep; the "
            "limit is MAX_JSON_DEPTH (docs/limits.md)"
        )


def load_json(text: str, what: str = "line") -> Any:
    """Parse JSON text within the limits above.

    Raises:
        EpisodeError: not JSON, or over a limit (named in the message).
    """
    if not isinstance(text, str):
        raise EpisodeError(f"{what} must be text, got {type(text).__name__}")
    if len(text) > MAX_LINE_CHARS:
        raise EpisodeError(f"{what} has {over('characters', len(text), 'MAX_LINE_CHARS')}")
    try:
        obj = _DECODER.decode(text)
    except EpisodeError as e:  # a number over its limit, or NaN / Infinity
        raise EpisodeError(f"{what}: {e}") from None
    except json.JSONDecodeError as e:
        raise EpisodeError(f"{what} is not valid JSON ({e.msg} at column {e.colno})") from None
    except RecursionError:
        raise EpisodeError(
            f"{what} nests objects and lists more than {MAX_JSON_DEPTH} deep; the "
            "limit is MAX_JSON_DEPTH (docs/limits.md)"
        ) from None
    except ValueError as e:  # e.g. a number Python will not convert
        raise EpisodeError(f"{what} is not usable JSON ({e})") from None
    if text.count("[") + text.count("{") > MAX_JSON_DEPTH:  # else it cannot nest deeper
        check_depth(obj, what)
    return obj
