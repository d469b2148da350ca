"""The row a signature is stored as (``signatures``, its relation rows in one column) and its
vocabulary usage.

Pure functions of a :class:`Signature`, apart from the SQL that writes them
(``store/episodes.py``): the ingest path calls them once per episode, so they are compiled
with the core (``analogist.compiled.INGEST``).

The relation rows (spec §12's ``sig_relations``) are stored as one JSON column of the
signature's row, ``relations_json``: a list of ``[predicate, [roles...], in_causal_chain]``,
and read as rows through the ``sig_relations`` view (migration ``0007_relations_column``).
Eleven rows per episode in a table of their own, with an index by episode, cost ~35 µs of a
bulk add's ~310 at 1M and a fifth of the database (``docs/performance.md``, twelfth session).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from analogist.signature.model import Signature


def _roles_json(roles: Iterable[str]) -> str:
    """JSON list of role names (validated identifiers, so no escaping is needed)."""
    return "[" + ",".join(f'"{r}"' for r in roles) + "]"


def relation_rows(sig: Signature) -> list[tuple]:
    """One sig_relations row per relation and per causal-chain term (flagged in_causal_chain)."""
    rows = []
    for r in sig.relations:
        a1 = r.args[0] if r.args else None
        a2 = r.args[1] if len(r.args) > 1 else None
        rows.append((sig.episode_id, r.predicate, a1, a2, _roles_json(r.args), 0))
    for link in sig.causal_chain:
        for t in (link.cause, link.effect):
            roles = list(t.roles())
            rows.append(
                (
                    sig.episode_id,
                    t.functor,
                    roles[0] if roles else None,
                    roles[1] if len(roles) > 1 else None,
                    _roles_json(roles),
                    1,
                )
            )
        rows.append((sig.episode_id, link.link, None, None, "[]", 1))
    return rows


#: JSON string literal of each predicate met so far (vocabulary terms: a few hundred).
_QUOTED: dict[str, str] = {}


def _quoted(name: str) -> str:
    """``name`` as a JSON string: vocabulary terms are plain names, so this is ``"name"``;
    anything else is escaped (as SQLite's ``json_quote`` and PostgreSQL's ``to_json`` do)."""
    q = _QUOTED.get(name)
    if q is None:
        q = _QUOTED[name] = json.dumps(name, ensure_ascii=False)
    return q


def relations_json(rows: Iterable[Sequence[Any]]) -> str:
    """The ``relations_json`` column of :func:`relation_rows`' rows: one compact JSON list,
    ``[predicate, roles, in_causal_chain]`` per row (roles as the row's ``args_json``)."""
    return "[" + ",".join(f"[{_quoted(r[1])},{r[4]},{r[5]}]" for r in rows) + "]"


def rows_of_json(episode_id: str, text: str) -> list[tuple]:
    """The rows :func:`relation_rows` made, read back from a ``relations_json`` column."""
    rows = []
    for predicate, roles, chain in json.loads(text):
        a1 = roles[0] if roles else None
        a2 = roles[1] if len(roles) > 1 else None
        rows.append((episode_id, predicate, a1, a2, _roles_json(roles), chain))
    return rows


def term_usage(sig: Signature) -> Counter:
    """How often each vocabulary term is used by one signature (relations, chain terms, links)."""
    return Counter(terms_used(sig))


def terms_used(sig: Signature) -> list[str]:
    """Every use of a vocabulary term by ``sig``, one entry per use: a batch's usage is then
    one ``Counter`` over all of them (counted in C, not a ``Counter.update`` per signature)."""
    used = [r.predicate for r in sig.relations]
    for link in sig.causal_chain:
        used.append(link.link)
        for t in (link.cause, link.effect):
            stack = [t]
            while stack:
                cur = stack.pop()
                used.append(cur.functor)
                stack.extend(a for a in cur.args if not isinstance(a, str))
    return used


#: ``json.dumps``'s output without its check for cycles (a signature's JSON is a fresh tree
#: from ``to_json``, so there are none): ~1 µs less per signature.
_ENCODER = json.JSONEncoder(check_circular=False)


def signature_row(sig: Signature) -> tuple:
    """The signatures row of ``sig`` (its JSON written back; the time columns as given; its
    relation rows as one column)."""
    return (
        sig.episode_id,
        sig.kind,
        _ENCODER.encode(sig.to_json()),
        sig.writer_model,
        sig.written_at,
        int(sig.verified),
        sig.surface.domain,
        relations_json(relation_rows(sig)),
    )
