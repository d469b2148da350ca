"""Channel M.bm25: lexical search over the literal account (L0) with SQLite FTS5 ``bm25()``.

With M.emb this is ordinary semantic memory (spec §7, channel M): it finds near analogues
that share words and is expected to be fooled by surface lookalikes. That is the point of
keeping it a separate, labelled channel: the pool shows how far a structural candidate sat
from the top of ordinary memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from analogist.retrieve.base import ChannelUnavailable, Hit, Target, ranked

if TYPE_CHECKING:
    from analogist.retrieve.indexes import Indexes


@dataclass(frozen=True)
class BM25Channel:
    """BM25 over L0 text; the score is the negated FTS5 bm25 (higher is better).

    Attributes:
        name: channel name in the pool.
    """

    name: str = "M.bm25"
    needs: str = "text"
    source: Indexes | None = field(default=None, compare=False, repr=False)

    def search(self, target: Target, k: int, exclude: frozenset[str] = frozenset()) -> list[Hit]:
        if self.source is None:
            raise ChannelUnavailable("M.bm25 needs a memory store")
        if not target.text.strip():
            raise ChannelUnavailable("the target has no text to search for")
        rows = self.source.store.bm25(target.text, limit=k + len(exclude))
        found: list[tuple[str, float, dict[str, Any]]] = [
            (eid, score, {}) for eid, score in rows if eid not in exclude
        ]
        return ranked(self.name, found, k)
