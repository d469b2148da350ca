"""Which stored episodes derive from which: the exclusion closure for held-out targets.

Spec §16.3 asks that a private-history target and its derivatives be removed from the memory
snapshot while it is tested. An episode *derives* from another when its ``provenance`` names
that episode's id as a token (e.g. ``"summary of ep_12"``, ``"derived_from:ep_12"``).
Derivation is followed transitively.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:\-]*")


def provenance_tokens(provenance: str) -> set[str]:
    """The id-like tokens of a provenance string, whole and split at ':'.

    >>> sorted(provenance_tokens("derived_from:ep_12, see ep_3."))
    ['derived_from', 'derived_from:ep_12', 'ep_12', 'ep_3', 'see']
    """
    out: set[str] = set()
    for m in _TOKEN.findall(provenance or ""):
        tok = m.rstrip(".:-")
        if tok:
            out.add(tok)
            out.update(p for p in tok.split(":") if p)
    return out


class DerivativeIndex:
    """Token -> episodes whose provenance names it."""

    def __init__(self, rows: Iterable[tuple[str, str]] = ()):
        self.named_by: dict[str, set[str]] = defaultdict(set)
        for eid, prov in rows:
            self.add(eid, prov)

    def add(self, episode_id: str, provenance: str | None) -> None:
        for tok in provenance_tokens(provenance or ""):
            if tok != episode_id:
                self.named_by[tok].add(episode_id)

    def closure(self, ids: Iterable[str]) -> set[str]:
        """``ids`` plus every episode deriving from them, transitively."""
        out = set(ids)
        frontier = list(out)
        while frontier:
            nxt = []
            for eid in frontier:
                for d in self.named_by.get(eid, ()):
                    if d not in out:
                        out.add(d)
                        nxt.append(d)
            frontier = nxt
        return out
