"""OpenAI-compatible chat backends over HTTP, through the official ``openai`` SDK.

``openai:NAME`` talks to OpenAI (or ``OPENAI_BASE_URL``); ``openai-compat:NAME`` talks to any
server with the same API at ``ANALOGIST_BASE_URL`` — vLLM, Ollama, llama.cpp's server, LM Studio.
A schema is sent as ``response_format`` (``json_schema`` by default, or ``json_object`` / none for
servers that lack it, via ``ANALOGIST_JSON_MODE``). The SDK's own retries are off: this module
retries 408/409/429/5xx, timeouts and refused connections a bounded number of times, waiting
what the server's Retry-After asks, and a semaphore bounds the requests in flight.
"""

from __future__ import annotations

import threading
import time
from typing import Any, ClassVar

from analogist.errors import ConfigError, ModelError
from analogist.models.backend import (
    BaseLLM,
    Identity,
    Ping,
    Transient,
    call_with_retries,
    parse_retry_after,
)
from analogist.models.llm import Completion, Request, completion_from_text
from analogist.models.settings import ModelSettings

OPENAI_URL = "https://api.openai.com/v1"
_RETRY_STATUS = {408, 409, 429}


def make_client(base_url: str, api_key: str, timeout_s: float) -> Any:
    """An ``openai.OpenAI`` client with SDK retries off (we retry, and log each attempt).

    The SDK is imported here, not at module load: it takes about half a second.
    """
    import openai

    return openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout_s, max_retries=0)


def classify(e: Exception, what: str) -> Exception:
    """Turn an SDK exception into :class:`Transient` (retry) or :class:`ModelError` (stop)."""
    import openai

    if isinstance(e, (openai.APITimeoutError, openai.APIConnectionError)):
        return Transient(f"{what}: {type(e).__name__}: {e}")
    if isinstance(e, openai.APIStatusError):
        status = e.status_code
        detail = f"{what}: HTTP {status}: {getattr(e, 'message', e)}"
        if status in _RETRY_STATUS or status >= 500:
            return Transient(detail, parse_retry_after(getattr(e.response, "headers", None)))
        if status in (401, 403):
            detail += "; check OPENAI_API_KEY"
        elif status == 404:
            detail += "; check the model name and base URL (`analogist models`)"
        elif status == 400:
            detail += "; if the server rejects response_format, set ANALOGIST_JSON_MODE=json_object or none"
        return ModelError(detail)
    return ModelError(f"{what}: {type(e).__name__}: {e}")


class OpenAICompatLLM(BaseLLM):
    """Chat completions against an OpenAI-compatible server."""

    provider: ClassVar[str] = "openai"
    summary: ClassVar[str] = "OpenAI (openai:NAME; OPENAI_API_KEY, optional OPENAI_BASE_URL)"

    def __init__(self, model: str, settings: ModelSettings, *, client: Any = None,
                 sleep: Any = time.sleep):
        ident = self.identity(model, settings)
        self.model, self.base_url, self.params = ident.model, ident.base_url, dict(ident.params)
        self.settings = settings
        key = settings.api_key or ("unused" if self.provider != "openai" else None)
        if client is None and key is None:
            raise ConfigError(
                f"{self.provider}:{model} needs OPENAI_API_KEY; for a local server use "
                "openai-compat:NAME with ANALOGIST_BASE_URL=http://localhost:8000/v1"
            )
        self.client = client or make_client(self.base_url or OPENAI_URL, key or "", settings.timeout_s)
        self._slots = threading.BoundedSemaphore(settings.max_concurrency)
        self._sleep = sleep

    def _response_format(self, schema: Any) -> dict | None:
        mode = self.settings.json_mode
        if schema is None or mode == "none":
            return None
        if mode == "json_object":
            return {"type": "json_object"}
        return {"type": "json_schema",
                "json_schema": {"name": "answer", "schema": schema, "strict": False}}

    def _kwargs(self, req: Request) -> dict:
        kw: dict[str, Any] = {"model": self.model, "messages": req.message_dicts(),
                              "temperature": req.temperature}
        kw["max_completion_tokens" if self.provider == "openai" else "max_tokens"] = req.max_tokens
        if req.seed is not None:
            kw["seed"] = req.seed
        fmt = self._response_format(req.schema)
        if fmt is not None:
            kw["response_format"] = fmt
        return kw

    def generate(self, request: Request) -> Completion:
        import openai

        what = f"{self.provider}:{self.model} at {self.base_url}"
        kwargs = self._kwargs(request)

        def once() -> Any:
            try:
                return self.client.chat.completions.create(**kwargs)
            except openai.OpenAIError as e:
                raise classify(e, what) from None

        with self._slots:
            done = call_with_retries(once, self.settings.retry, what=what, sleep=self._sleep)
        resp = done.value
        if not getattr(resp, "choices", None):
            raise ModelError(f"{what}: the server returned no choices")
        text = resp.choices[0].message.content or ""
        usage = getattr(resp, "usage", None)
        return completion_from_text(
            text, request,
            input_tokens=getattr(usage, "prompt_tokens", None),
            output_tokens=getattr(usage, "completion_tokens", None),
            latency_ms=done.latency_ms, attempts=done.attempts, retry_errors=done.errors,
        )

    # registry -------------------------------------------------------------------
    @classmethod
    def identity(cls, name: str, settings: ModelSettings) -> Identity:
        if not name:
            raise ConfigError(f"{cls.provider}: give a model name, e.g. {cls.provider}:gpt-4o-mini")
        return Identity(cls.provider, name, (settings.base_url or OPENAI_URL).rstrip("/"))

    @classmethod
    def create(cls, name: str, settings: ModelSettings) -> OpenAICompatLLM:
        return cls(name, settings)

    @classmethod
    def configured(cls, settings: ModelSettings) -> str | None:
        return f"{cls.provider}:" if settings.api_key else None

    @classmethod
    def ping(cls, name: str, settings: ModelSettings) -> Ping:
        """List the server's models with a short timeout and no retries; never hangs."""
        import openai

        spec = f"{cls.provider}:{name}"
        try:
            ident = cls.identity(name or "-", settings)
            key = settings.api_key or ("unused" if cls.provider != "openai" else None)
            if key is None:
                return Ping(cls.provider, spec, "not configured", "set OPENAI_API_KEY")
            client = make_client(ident.base_url or OPENAI_URL, key, settings.ping_timeout_s)
            models = [m.id for m in client.models.list(timeout=settings.ping_timeout_s)]
        except ConfigError as e:
            return Ping(cls.provider, spec, "not configured", str(e))
        except openai.OpenAIError as e:
            err = classify(e, ident.base_url or OPENAI_URL)
            status = "offline" if isinstance(err, Transient) else "error"
            return Ping(cls.provider, spec, status,
                        f"no answer within {settings.ping_timeout_s:g}s: {err}")
        if name and name not in models:
            shown = ", ".join(models[:8]) or "none"
            return Ping(cls.provider, spec, "error",
                        f"server at {ident.base_url} answers but has no model {name!r} (has: {shown})")
        return Ping(cls.provider, spec, "ok", f"{ident.base_url} answers; {len(models)} model(s)")


class OpenAICompatServerLLM(OpenAICompatLLM):
    """Any OpenAI-compatible server (vLLM, Ollama, llama.cpp server) at ``ANALOGIST_BASE_URL``."""

    provider: ClassVar[str] = "openai-compat"
    summary: ClassVar[str] = "OpenAI-compatible server (openai-compat:NAME; ANALOGIST_BASE_URL)"

    @classmethod
    def identity(cls, name: str, settings: ModelSettings) -> Identity:
        if not settings.base_url:
            raise ConfigError(
                f"openai-compat:{name} needs the server address: set ANALOGIST_BASE_URL "
                "(e.g. http://localhost:8000/v1 for vLLM, http://localhost:11434/v1 for Ollama)"
            )
        if not name:
            raise ConfigError("openai-compat: give the served model name, e.g. openai-compat:qwen2.5")
        return Identity(cls.provider, name, settings.base_url.rstrip("/"))

    @classmethod
    def configured(cls, settings: ModelSettings) -> str | None:
        return f"{cls.provider}:" if settings.base_url else None
