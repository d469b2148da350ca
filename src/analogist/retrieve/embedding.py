"""Channels S2.L2, S2.L3 and M.emb: embeddings of one abstraction level's text.

S2 embeds the abstract descriptions L2 ("derived copy treated as authoritative") and L3
("proxy mistaken for referent"), where surface entities are already gone (spec §7, channel
S2); L2 and L3 are separate sub-channels so the pool shows which level found a candidate
(the right level is an empirical question, spec §4.2). The same class on L0 text is the
embedding half of ordinary semantic memory, channel M.emb.

Search ranks the stored unit vectors of the memory's embedder by cosine, the way
:attr:`Indexes.vector_search <analogist.retrieve.indexes.Indexes.vector_search>` says: the local
index (:class:`~analogist.retrieve.dense.VectorIndex`, HNSW or exact) or the database
(:class:`~analogist.retrieve.dense.ServerVectorIndex`, pgvector).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from analogist.retrieve.base import ChannelUnavailable, Hit, Target, ranked

if TYPE_CHECKING:
    from analogist.retrieve.indexes import Indexes


@dataclass(frozen=True)
class EmbeddingChannel:
    """Cosine similarity of the target's ``level`` text to stored ``level`` vectors.

    Attributes:
        level: ``L2`` or ``L3`` for S2, ``L0`` for M.emb.
        name: channel name in the pool (``S2.L2``, ``S2.L3``, ``M.emb``).
        needs: ``signature`` for abstract levels, ``text`` for L0.
        min_score: drop hits below this cosine.
    """

    level: str = "L2"
    name: str = "S2.L2"
    needs: str = "signature"
    min_score: float = 0.05
    source: Indexes | None = field(default=None, compare=False, repr=False)

    def search(self, target: Target, k: int, exclude: frozenset[str] = frozenset()) -> list[Hit]:
        if self.source is None:
            raise ChannelUnavailable(f"{self.name} needs a memory index")
        text = target.level_text(self.level)
        if not text:
            raise ChannelUnavailable(f"the target has no {self.level} text to embed")
        index = self.source.vectors(self.level)
        if index.empty():
            raise ChannelUnavailable(no_vectors_reason(self.source, self.level))
        query = self.source.embed([text])[0]
        if not np.any(query):
            raise ChannelUnavailable(f"the target's {self.level} text embeds to a zero vector")
        found = index.search(query, k, exclude)
        return ranked(self.name, [(e, s, {}) for e, s in found if s >= self.min_score], k)


def no_vectors_reason(source: Indexes, level: str) -> str:
    """Why a vector channel has nothing to search: no vectors of the embedder in use, and
    which embedder the memory's vectors are for when that is another one."""
    name = source.embedder.name
    said = f"no {level} vectors are stored for embedder {name!r}"
    others = [e for e in source.store.newest_vector_embedders() if e != name]
    if not others:
        return f"{said} (add episodes, or Memory.reindex(embedder) after changing embedders)"
    return (
        f"{said}: this memory's vectors are for {', '.join(map(repr, others))}; open it with "
        "that embedder (--embedder or ANALOGIST_EMBEDDER), or embed it anew with "
        "Memory.reindex(embedder)"
    )


def s2_channels() -> tuple[EmbeddingChannel, EmbeddingChannel]:
    """The two S2 sub-channels with default parameters."""
    return EmbeddingChannel("L2", "S2.L2"), EmbeddingChannel("L3", "S2.L3")


def m_embedding_channel() -> EmbeddingChannel:
    """M.emb: L0 text embeddings (ordinary semantic memory); needs only text."""
    return EmbeddingChannel("L0", "M.emb", needs="text")
