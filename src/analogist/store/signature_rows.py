"""The rows a signature is stored as (signatures, sig_relations) and its vocabulary usage.

Pure functions of a :class:`Signature`, apart from the SQL that writes them
(``store/episodes.py``): the ingest path calls them once per episode, so they are compiled
with the core (``analogist.compiled.INGEST``).
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable

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


def signature_row(sig: Signature) -> tuple:
    """The signatures row of ``sig`` (its JSON written back; the time columns as given)."""
    return (
        sig.episode_id,
        sig.kind,
        json.dumps(sig.to_json()),
        sig.writer_model,
        sig.written_at,
        int(sig.verified),
        sig.surface.domain,
    )
