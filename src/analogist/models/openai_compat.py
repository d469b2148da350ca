"""OpenAI-compatible chat backends over HTTP, through the official ``openai`` SDK.

``openai:NAME`` talks to OpenAI (or ``OPENAI_BASE_URL``); ``openai-compat:NAME`` talks to any
server with the same API at ``ANALOGIST_BASE_URL`` — vLLM, Ollama, llama.cpp's server, LM Studio.
A schema is sent as ``response_format``. Servers differ: OpenAI and vLLM take ``json_schema``;
llama.cpp's Python server answers that with HTTP 500 and wants ``{"type": "json_object",
"schema": …}``; others take only plain ``json_object``. With ``ANALOGIST_JSON_MODE=auto`` (the
default) the backend starts with ``json_schema`` and, until one schema call has succeeded, a
400/422/501 answer to it, or a 500 whose message names the format, makes it try the next form
at once; the switch is printed and kept
for the backend's life (a fixed mode never switches). The SDK's own retries are off: this module
retries 408/409/429/5xx, timeouts, dropped connections and unreadable replies a bounded number
of times, waiting what the server's Retry-After asks. Requests in flight are bounded by
``max_concurrency``; a timeout halves that bound and doubles the timeout (up to
``max_timeout_s``), printed once per change, so a slow local server that serves one request at a
time ends up with one request in flight and a timeout it can meet — or a final error that says
which setting to change.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, ClassVar, Self

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
# The forms of response_format, in the order ``auto`` tries them.
FORMATS = ("json_schema", "json_object_schema", "json_object")
# Statuses with which a server may be refusing the response_format rather than failing.
_REFUSAL_STATUS = {400, 422, 500, 501}


def refuses_format(status: int, message: str) -> bool:
    """Whether an error answer to a request with a response_format is a refusal of that format.

    A client error (400, 422, 501) is; a 500 only when its message names the format, as
    llama.cpp's server's does ("... 'response_format', 'type' ... Input should be 'text' or
    'json_object'"), so that an overloaded server's 500 is retried, not taken for a refusal.
    """
    if status not in _REFUSAL_STATUS:
        return False
    if status != 500:
        return True
    flat = message.lower().replace("_", "")
    return "responseformat" in flat or "jsonschema" in flat


def response_format(mode: str, schema: Any) -> dict | None:
    """The ``response_format`` body for a JSON ``mode`` (None: send no response_format)."""
    if schema is None or mode == "none":
        return None
    if mode == "json_object":
        return {"type": "json_object"}
    if mode == "json_object_schema":
        return {"type": "json_object", "schema": schema}
    return {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": schema, "strict": False},
    }


class FormatRefused(Exception):
    """The server answered a request carrying ``response_format`` with a refusal-like status."""

    def __init__(self, message: str):
        super().__init__(message)


class Slots:
    """A counting semaphore whose bound can shrink while requests are in flight."""

    def __init__(self, limit: int):
        self.limit = limit
        self.in_use = 0
        self._cond = threading.Condition()

    def __enter__(self) -> Self:
        with self._cond:
            while self.in_use >= self.limit:
                self._cond.wait()
            self.in_use += 1
        return self

    def __exit__(self, *exc: object) -> None:
        with self._cond:
            self.in_use -= 1
            self._cond.notify_all()

    def shrink(self) -> int:
        """Halve the bound (at least 1); returns the new bound."""
        with self._cond:
            self.limit = max(1, self.limit // 2)
            return self.limit


def warn(message: str) -> None:
    """A setting changed under the user's feet: say so on stderr, whatever the log level."""
    print(message, file=sys.stderr, flush=True)


def make_client(base_url: str, api_key: str, timeout_s: float) -> Any:
    """An ``openai.OpenAI`` client with SDK retries off (we retry, and log each attempt).

    The SDK is imported here, not at module load: it takes about half a second.
    """
    import openai

    return openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout_s, max_retries=0)


def classify(e: Exception, what: str) -> Exception:
    """Turn an SDK exception into :class:`Transient` (retry) or :class:`ModelError` (stop)."""
    import openai

    if isinstance(e, openai.APITimeoutError):
        return TimedOut(f"{what}: no answer within the timeout ({type(e).__name__})")
    if isinstance(e, openai.APIConnectionError):
        cause = f" ({type(e.__cause__).__name__}: {e.__cause__})" if e.__cause__ else ""
        return Transient(f"{what}: {type(e).__name__}: {e}{cause}")
    if isinstance(e, openai.APIStatusError):
        status = e.status_code
        detail = f"{what}: HTTP {status}: {getattr(e, 'message', e)}"
        if status in _RETRY_STATUS or status >= 500:
            return Transient(detail, parse_retry_after(getattr(e.response, "headers", None)))
        if status in (401, 403):
            detail += "; check OPENAI_API_KEY"
        elif status == 404:
            detail += "; check the model name and base URL (`analogist models`)"
        elif status in (400, 422):
            detail += (
                "; if the server rejects response_format, set ANALOGIST_JSON_MODE to "
                "json_object_schema, json_object or none"
            )
        return ModelError(detail)
    if isinstance(e, openai.APIResponseValidationError):
        return Transient(f"{what}: unreadable reply: {e}")
    return ModelError(f"{what}: {type(e).__name__}: {e}")


class TimedOut(Transient):
    """A request that got no answer within the timeout (the backend adapts to these)."""


class OpenAICompatLLM(BaseLLM):
    """Chat completions against an OpenAI-compatible server."""

    provider = "openai"
    summary: ClassVar[str] = "OpenAI (openai:NAME; OPENAI_API_KEY, optional OPENAI_BASE_URL)"

    def __init__(
        self, model: str, settings: ModelSettings, *, client: Any = None, sleep: Any = time.sleep
    ):
        ident = self.identity(model, settings)
        self.model, self.base_url, self.params = ident.model, ident.base_url, dict(ident.params)
        self.settings = settings
        key = settings.api_key or ("unused" if self.provider != "openai" else None)
        if client is None and key is None:
            raise ConfigError(
                f"{self.provider}:{model} needs OPENAI_API_KEY; for a local server use "
                "openai-compat:NAME with ANALOGIST_BASE_URL=http://localhost:8000/v1"
            )
        self.client = client or make_client(
            self.base_url or OPENAI_URL, key or "", settings.timeout_s
        )
        self._slots = Slots(settings.max_concurrency)
        self._sleep = sleep
        self._state = threading.Lock()
        self.timeout_s = settings.timeout_s
        self.json_mode = "json_schema" if settings.json_mode == "auto" else settings.json_mode
        self._mode_confirmed = settings.json_mode != "auto"

    @property
    def max_parallel(self) -> int:
        """The current bound on requests in flight (it shrinks after timeouts)."""
        return self._slots.limit

    def _response_format(self, schema: Any, mode: str | None = None) -> dict | None:
        return response_format(mode or self.json_mode, schema)

    def _switch_format(self, tried: str, why: str) -> None:
        """After ``tried`` was refused: move to the next form, or fail saying what to set."""
        with self._state:
            if self.json_mode != tried:  # another thread switched already
                return
            nxt = FORMATS.index(tried) + 1 if tried in FORMATS else len(FORMATS)
            if nxt >= len(FORMATS):
                raise ModelError(
                    f"{self.provider}:{self.model} at {self.base_url}: the server refused every "
                    f"JSON response_format ({', '.join(FORMATS)}); last: {why}; set "
                    "ANALOGIST_JSON_MODE=none to send none (answers are still validated)"
                )
            self.json_mode = FORMATS[nxt]
        warn(
            f"{self.provider}:{self.model} at {self.base_url}: the server refused response_format "
            f"{tried} ({why}); using {self.json_mode} from now on "
            f"(set ANALOGIST_JSON_MODE={self.json_mode} to start there)"
        )

    def _on_timeout(self) -> None:
        """A timeout: fewer requests in flight and a longer wait, or nothing left to adapt."""
        with self._state:
            before = (self._slots.limit, self.timeout_s)
            limit = self._slots.shrink()
            self.timeout_s = min(
                self.timeout_s * 2, max(self.settings.max_timeout_s, self.timeout_s)
            )
            after = (limit, self.timeout_s)
        if after != before:
            warn(
                f"{self.provider}:{self.model} at {self.base_url}: no answer within {before[1]:g} s "
                f"with up to {before[0]} request(s) in flight; now {after[0]} in flight and a "
                f"{after[1]:g} s timeout (set ANALOGIST_MAX_CONCURRENCY / ANALOGIST_TIMEOUT to "
                "start there)"
            )

    def _kwargs(self, req: Request, mode: str | None = None) -> dict:
        kw: dict[str, Any] = {
            "model": self.model,
            "messages": req.message_dicts(),
            "temperature": req.temperature,
        }
        kw["max_completion_tokens" if self.provider == "openai" else "max_tokens"] = req.max_tokens
        if req.seed is not None:
            kw["seed"] = req.seed
        fmt = self._response_format(req.schema, mode)
        if fmt is not None:
            kw["response_format"] = fmt
        return kw

    def generate(self, request: Request) -> Completion:
        """One request: bounded retries, format switching (``auto``), timeout adaptation.

        Every failed attempt — a refused format included — is returned in ``retry_errors`` (or
        set on the raised error), so the call log records each request the server saw.
        """
        import openai

        what = f"{self.provider}:{self.model} at {self.base_url}"
        earlier: list[str] = []
        while True:
            mode = self.json_mode
            kwargs = self._kwargs(request, mode)
            probing = request.schema is not None and not self._mode_confirmed and mode != "none"

            def once(kwargs: dict = kwargs, probing: bool = probing) -> Any:
                timeout = self.timeout_s
                try:
                    resp = self.client.chat.completions.create(**kwargs, timeout=timeout)
                except openai.APIStatusError as e:
                    if probing and refuses_format(e.status_code, str(getattr(e, "message", e))):
                        raise FormatRefused(
                            f"HTTP {e.status_code}: {getattr(e, 'message', e)}"
                        ) from None
                    raise classify(e, what) from None
                except openai.OpenAIError as e:
                    err = classify(e, what)
                    if isinstance(err, TimedOut):
                        self._on_timeout()
                        err = TimedOut(f"{what}: no answer within {timeout:g} s")
                    raise err from None
                except (ValueError, TypeError, KeyError) as e:  # the SDK's JSON parse of garbage
                    raise Transient(f"{what}: unreadable reply ({type(e).__name__}: {e})") from None
                if not getattr(resp, "choices", None) or resp.choices[0].message is None:
                    raise Transient(f"{what}: unreadable reply (no choices): {str(resp)[:120]!r}")
                return resp

            try:
                with self._slots:
                    done = call_with_retries(
                        once, self.settings.retry, what=what, sleep=self._sleep
                    )
            except FormatRefused as e:
                earlier.append(f"{what}: response_format {mode} refused: {e}")
                try:
                    self._switch_format(mode, str(e))
                except ModelError as final:
                    final.retry_errors = tuple(earlier[:-1])  # type: ignore[attr-defined]
                    final.attempts = len(earlier)  # type: ignore[attr-defined]
                    raise
                continue
            except ModelError as e:
                e.retry_errors = tuple(earlier) + getattr(e, "retry_errors", ())  # type: ignore[attr-defined]
                e.attempts = len(earlier) + getattr(e, "attempts", 1)  # type: ignore[attr-defined]
                if "gave up" in str(e) and "no answer within" in str(e):
                    advice = (
                        f"; the server is slower than {self.timeout_s:g} s per request with "
                        f"{self._slots.limit} in flight: raise ANALOGIST_MAX_TIMEOUT, use a "
                        "smaller model, or a server with more parallel slots"
                    )
                    e.args = (f"{e}{advice}",)
                raise
            break
        if probing:
            with self._state:
                self._mode_confirmed = True
        resp = done.value
        text = resp.choices[0].message.content or ""
        usage = getattr(resp, "usage", None)
        return completion_from_text(
            text,
            request,
            input_tokens=getattr(usage, "prompt_tokens", None),
            output_tokens=getattr(usage, "completion_tokens", None),
            latency_ms=done.latency_ms,
            attempts=len(earlier) + done.attempts,
            retry_errors=tuple(earlier) + done.errors,
            finish_reason=getattr(resp.choices[0], "finish_reason", None),
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
            return Ping(
                cls.provider, spec, status, f"no answer within {settings.ping_timeout_s:g}s: {err}"
            )
        if name and name not in models:
            shown = ", ".join(models[:8]) or "none"
            return Ping(
                cls.provider,
                spec,
                "error",
                f"server at {ident.base_url} answers but has no model {name!r} (has: {shown})",
            )
        return Ping(cls.provider, spec, "ok", f"{ident.base_url} answers; {len(models)} model(s)")


class OpenAICompatServerLLM(OpenAICompatLLM):
    """Any OpenAI-compatible server (vLLM, Ollama, llama.cpp server) at ``ANALOGIST_BASE_URL``."""

    provider = "openai-compat"
    summary: ClassVar[str] = "OpenAI-compatible server (openai-compat:NAME; ANALOGIST_BASE_URL)"

    @classmethod
    def identity(cls, name: str, settings: ModelSettings) -> Identity:
        if not settings.base_url:
            raise ConfigError(
                f"openai-compat:{name} needs the server address: set ANALOGIST_BASE_URL "
                "(e.g. http://localhost:8000/v1 for vLLM, http://localhost:11434/v1 for Ollama)"
            )
        if not name:
            raise ConfigError(
                "openai-compat: give the served model name, e.g. openai-compat:qwen2.5"
            )
        return Identity(cls.provider, name, settings.base_url.rstrip("/"))

    @classmethod
    def configured(cls, settings: ModelSettings) -> str | None:
        return f"{cls.provider}:" if settings.base_url else None
