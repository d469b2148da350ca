"""Model backends behind two small interfaces, and the call log that records them.

- :mod:`llm` — the :class:`LLM` protocol, :class:`Request` (whose sha256 is the cache key) and
  :class:`Completion`.
- :mod:`registry` — backends by provider (built-ins registered like plugins) and
  :func:`open_llm`, the way in: ``--model provider:name`` / ``ANALOGIST_MODEL``.
- :mod:`logged` — :class:`LoggedLLM`: call log, cache modes, schema validation, one repair.
- backends: :mod:`openai_compat` (OpenAI and compatible servers), :mod:`llama` (local GGUF),
  :mod:`scripted` (queued answers for tests; replay from the log).
- :mod:`embedding` — the :class:`Embedder` protocol and :class:`HashingEmbedder`;
  :mod:`minilm` — local all-MiniLM-L6-v2 (ONNX int8); :mod:`embedders` — :func:`get_embedder`
  and the OpenAI-compatible embeddings backend.
- :mod:`settings` — :class:`ModelSettings` from flags and environment; :class:`CacheMode`.
"""

from analogist.models.backend import BaseLLM, Identity, Ping
from analogist.models.embedders import OpenAIEmbedder, get_embedder, ping_embedders
from analogist.models.embedding import Embedder, HashingEmbedder, normalise_rows
from analogist.models.llm import LLM, Completion, Request, parse_json_text
from analogist.models.logged import CallStats, LoggedLLM
from analogist.models.registry import (
    Registry,
    create_llm,
    open_llm,
    ping_backends,
    registry,
)
from analogist.models.scripted import ReplayLLM, ScriptedLLM
from analogist.models.settings import CacheMode, ModelSettings, RetryPolicy

__all__ = [
    "LLM",
    "BaseLLM",
    "CacheMode",
    "CallStats",
    "Completion",
    "Embedder",
    "HashingEmbedder",
    "Identity",
    "LoggedLLM",
    "ModelSettings",
    "OpenAIEmbedder",
    "Ping",
    "Registry",
    "ReplayLLM",
    "Request",
    "RetryPolicy",
    "ScriptedLLM",
    "create_llm",
    "get_embedder",
    "normalise_rows",
    "open_llm",
    "parse_json_text",
    "ping_backends",
    "ping_embedders",
    "registry",
]
