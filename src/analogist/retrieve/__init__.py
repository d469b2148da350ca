"""Retrieval: separate, labelled channels and their union with provenance (spec §7).

Holds the shared types (:mod:`base`: :class:`Target`, :class:`Hit`, the :class:`Channel`
protocol), one module per channel — S0 WL fingerprints (:mod:`wl`), S1 MAC count vectors
(:mod:`mac`), S2/M.emb embeddings (:mod:`embedding`), S3 schemas (:mod:`schemas`), M.bm25
(:mod:`lexical`), P parametric proposals (:mod:`parametric`) — the in-memory indexes they read
(:mod:`indexes`, :mod:`postings`, :mod:`dense`), the exclusion of a target's derivatives
(:mod:`provenance`) and the :class:`Pool` (:mod:`pool`). :class:`analogist.memory.Memory`
wires them to a store.
"""

from analogist.retrieve.base import Channel, ChannelUnavailable, Hit, Target, channel_params
from analogist.retrieve.defaults import default_channels
from analogist.retrieve.embedding import EmbeddingChannel
from analogist.retrieve.lexical import BM25Channel
from analogist.retrieve.mac import MacChannel, mac_features
from analogist.retrieve.parametric import ParametricChannel
from analogist.retrieve.pool import Candidate, Pool
from analogist.retrieve.schemas import Schema, SchemaChannel, parse_schema
from analogist.retrieve.wl import FingerprintChannel

__all__ = [
    "BM25Channel",
    "Candidate",
    "Channel",
    "ChannelUnavailable",
    "EmbeddingChannel",
    "FingerprintChannel",
    "Hit",
    "MacChannel",
    "ParametricChannel",
    "Pool",
    "Schema",
    "SchemaChannel",
    "Target",
    "channel_params",
    "default_channels",
    "mac_features",
    "parse_schema",
]
