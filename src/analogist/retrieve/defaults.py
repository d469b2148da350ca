"""The default channel set, in search order: the schema library first (spec §7, S3), then
the structural channels S0, S1, S2.L2, S2.L3, then ordinary memory M.emb and M.bm25, and the
model's parametric proposals P when a model is given."""

from __future__ import annotations

from typing import Any

from analogist.retrieve.base import Channel
from analogist.retrieve.embedding import m_embedding_channel, s2_channels
from analogist.retrieve.lexical import BM25Channel
from analogist.retrieve.mac import MacChannel
from analogist.retrieve.parametric import ParametricChannel
from analogist.retrieve.schemas import SchemaChannel
from analogist.retrieve.wl import FingerprintChannel


def default_channels(llm: Any = None) -> list[Channel]:
    """Fresh, unbound channels with default parameters (P only when ``llm`` is given)."""
    chans: list[Channel] = [
        SchemaChannel(),
        FingerprintChannel(),
        MacChannel(),
        *s2_channels(),
        m_embedding_channel(),
        BM25Channel(),
    ]
    if llm is not None:
        chans.append(ParametricChannel(llm))
    return chans
