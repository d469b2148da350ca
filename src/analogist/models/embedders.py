"""Choosing an embedder by name, and the OpenAI-compatible ``/v1/embeddings`` backend.

``--embedder`` / ``ANALOGIST_EMBEDDER`` takes ``hashing`` (``hashing:DIM`` for another size),
``minilm`` (local all-MiniLM-L6-v2, offline) or ``openai:MODEL`` (e.g.
``openai:text-embedding-3-small``, at ``ANALOGIST_BASE_URL`` / ``OPENAI_BASE_URL`` when set).
Every backend returns unit-length float32 rows, batched, behind the
:class:`~analogist.models.embedding.Embedder` protocol.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from analogist.errors import ConfigError, ModelError
from analogist.models.backend import Ping, call_with_retries
from analogist.models.embedding import Embedder, HashingEmbedder, normalise_rows
from analogist.models.settings import ModelSettings


class OpenAIEmbedder:
    """Embeddings from an OpenAI-compatible server, in batches, with bounded retries.

    Args:
        model: the served embedding model, e.g. ``text-embedding-3-small``.
        settings: base URL, key, timeout and retry policy.
        batch_size: texts per request.
        client: an ``openai.OpenAI``-like client (tests pass a fake).
    """

    def __init__(
        self,
        model: str,
        settings: ModelSettings,
        *,
        batch_size: int = 64,
        client: Any = None,
        sleep: Callable[[float], None] = time.sleep,
    ):
        from analogist.models.openai_compat import OPENAI_URL, make_client

        self.model = model
        self.base_url = (settings.base_url or OPENAI_URL).rstrip("/")
        key = settings.api_key or ("unused" if settings.base_url else None)
        if client is None and key is None:
            raise ConfigError(
                f"embedder openai:{model} needs OPENAI_API_KEY (or ANALOGIST_BASE_URL)"
            )
        self.client = client or make_client(self.base_url, key or "", settings.timeout_s)
        self.settings = settings
        self.batch_size = batch_size
        self._sleep = sleep
        self.dim = 0

    @property
    def name(self) -> str:
        return f"openai:{self.model}"

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length rows; empty texts are not sent and give zero rows."""
        rows: dict[int, np.ndarray] = {}
        todo = [i for i, t in enumerate(texts) if t.strip()]
        for s in range(0, len(todo), self.batch_size):
            idx = todo[s : s + self.batch_size]
            for i, vec in zip(idx, self._request([texts[i] for i in idx])):
                rows[i] = vec
        if rows and not self.dim:
            self.dim = len(next(iter(rows.values())))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, vec in rows.items():
            out[i] = vec
        return normalise_rows(out)

    def _request(self, batch: list[str]) -> list[np.ndarray]:
        import openai

        from analogist.models.openai_compat import classify

        what = f"embeddings openai:{self.model} at {self.base_url}"

        def once() -> Any:
            try:
                return self.client.embeddings.create(model=self.model, input=batch)
            except openai.OpenAIError as e:
                raise classify(e, what) from None

        resp = call_with_retries(once, self.settings.retry, what=what, sleep=self._sleep).value
        data = sorted(resp.data, key=lambda d: d.index)
        if len(data) != len(batch):
            raise ModelError(f"{what}: sent {len(batch)} texts, got {len(data)} vectors back")
        return [np.asarray(d.embedding, dtype=np.float32) for d in data]


def get_embedder(spec: str | None = None, settings: ModelSettings | None = None) -> Embedder:
    """The embedder named by ``spec`` (else ``ANALOGIST_EMBEDDER``, else ``hashing``).

    Raises:
        ConfigError: unknown name, or a backend that is not installed or configured.
    """
    settings = settings or ModelSettings.from_env()
    spec = spec or settings.embedder or "hashing"
    kind, _, arg = spec.partition(":")
    if kind == "hashing":
        try:
            return HashingEmbedder(dim=int(arg)) if arg else HashingEmbedder()
        except ValueError:
            raise ConfigError(f"embedder {spec!r}: write hashing or hashing:DIM") from None
    if kind == "minilm":
        from analogist.models.minilm import MiniLMEmbedder

        return MiniLMEmbedder()
    if kind == "openai":
        if not arg:
            raise ConfigError("embedder openai: give the model, e.g. openai:text-embedding-3-small")
        return OpenAIEmbedder(arg, settings)
    raise ConfigError(
        f"embedder {spec!r} is unknown; use hashing, minilm or openai:MODEL "
        "(e.g. openai:text-embedding-3-small)"
    )


def ping_embedders(settings: ModelSettings | None = None) -> list[Ping]:
    """Whether each embedder can run here: hashing always; MiniLM if its files check out;
    the OpenAI one if a server answers within the ping timeout."""
    from analogist.models.openai_compat import OpenAICompatLLM, OpenAICompatServerLLM

    settings = settings or ModelSettings.from_env()
    out = [Ping("embedder:hashing", "hashing", "ok", "deterministic, no model (tests, baseline)")]
    try:
        e = get_embedder("minilm", settings)
        out.append(
            Ping(
                "embedder:minilm",
                "minilm",
                "ok",
                f"{e.name}, loaded in {getattr(e, 'load_seconds', 0):.2f}s, offline",
            )
        )
    except (ConfigError, ModelError) as err:
        out.append(Ping("embedder:minilm", "minilm", "missing dependency", str(err)))
    if settings.api_key or settings.base_url:
        server = OpenAICompatServerLLM if settings.base_url else OpenAICompatLLM
        p = server.ping("", settings)
        out.append(Ping("embedder:openai", "openai:MODEL", p.status, p.detail))
    else:
        out.append(
            Ping(
                "embedder:openai",
                "",
                "not configured",
                "set OPENAI_API_KEY or ANALOGIST_BASE_URL for openai:MODEL embeddings",
            )
        )
    return out
