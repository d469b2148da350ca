"""Model settings, read once from flags and the environment into frozen dataclasses.

Environment variables (flags win, then ``ANALOGIST_*``, then the config file):

- ``ANALOGIST_MODEL``: ``provider:name``, e.g. ``openai:gpt-4o-mini``, ``openai-compat:qwen2.5``,
  ``llama:/path/model.gguf``, ``scripted:``, ``replay:openai:gpt-4o-mini``.
- ``ANALOGIST_BASE_URL`` (else ``OPENAI_BASE_URL``): server address for ``openai-compat``.
- ``OPENAI_API_KEY`` (or ``ANALOGIST_API_KEY``): sent to the server, never logged.
- ``ANALOGIST_CACHE``: ``off`` | ``read-write`` | ``replay-only`` (default read-write).
- ``ANALOGIST_TIMEOUT``, ``ANALOGIST_MAX_TIMEOUT``, ``ANALOGIST_MAX_RETRIES``,
  ``ANALOGIST_MAX_CONCURRENCY``, ``ANALOGIST_JSON_MODE`` (``auto`` | ``json_schema`` |
  ``json_object_schema`` | ``json_object`` | ``none``; ``auto`` starts with ``json_schema`` and
  switches, loudly, when the server refuses it).
- ``ANALOGIST_THREADS`` (0 = the cores this process may use that are idle) and ``ANALOGIST_CTX`` (context
  tokens, default 8192), ``ANALOGIST_PROMPT_CACHE_MB`` (RAM for llama.cpp states of recent
  prompts, default 1024; 0 = reuse only the previous prompt's prefix): the local llama.cpp
  backends.
- ``ANALOGIST_EMBEDDER``: ``hashing`` | ``minilm`` | ``openai:text-embedding-3-small``.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any, TypeVar

from analogist.errors import ConfigError


class CacheMode(str, Enum):  # noqa: UP042 (StrEnum would change str() of a member)
    """How the call log is used as a cache.

    OFF: always call the model (every call is still logged).
    READ_WRITE: answer from the log when the exact request is there, else call and log.
    REPLAY_ONLY: answer only from the log; a miss raises CacheMissError.
    """

    OFF = "off"
    READ_WRITE = "read-write"
    REPLAY_ONLY = "replay-only"

    @classmethod
    def parse(cls, value: str | CacheMode) -> CacheMode:
        try:
            return cls(value)
        except ValueError:
            names = ", ".join(m.value for m in cls)
            raise ConfigError(f"cache mode {value!r} is unknown; use one of {names}") from None


JSON_MODES = ("auto", "json_schema", "json_object_schema", "json_object", "none")


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries with exponential backoff; a server's Retry-After wins when given.

    Attributes:
        max_attempts: total tries, first one included.
        base_delay_s: wait before the 2nd try; doubles each time.
        max_delay_s: cap on any single wait (also caps Retry-After).
    """

    max_attempts: int = 4
    base_delay_s: float = 0.5
    max_delay_s: float = 30.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait after failed try number ``attempt`` (1-based)."""
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.max_delay_s)
        return min(self.base_delay_s * 2 ** (attempt - 1), self.max_delay_s)


@dataclass(frozen=True)
class ModelSettings:
    """Everything a backend needs besides its name.

    Attributes:
        model: the ``provider:name`` spec, or None when none was chosen.
        base_url: server address for OpenAI-compatible backends.
        api_key: secret; excluded from repr and never written to the call log.
        timeout_s: per-request timeout.
        ping_timeout_s: timeout of the cheap liveness check behind ``analogist models``.
        retry: retry policy for transient failures (429, 5xx, timeouts, refused connections).
        max_timeout_s: the most a timeout grows to when a slow server keeps timing out.
        max_concurrency: most requests in flight at once per backend instance.
        json_mode: how a schema is sent to an OpenAI-compatible server (see JSON_MODES).
        threads: llama.cpp threads; 0 = the idle cores of this process's CPU affinity
            (:func:`auto_threads`).
        n_ctx: llama.cpp context size in tokens (prompt + answer).
        cache: how the call log is used.
        embedder: the embedder spec.
    """

    model: str | None = None
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    timeout_s: float = 60.0
    ping_timeout_s: float = 3.0
    retry: RetryPolicy = RetryPolicy()
    max_timeout_s: float = 600.0
    max_concurrency: int = 4
    json_mode: str = "auto"
    cache: CacheMode = CacheMode.READ_WRITE
    embedder: str = "hashing"
    threads: int = 0
    n_ctx: int = 8192
    prompt_cache_mb: int = 1024

    def __post_init__(self) -> None:
        if self.json_mode not in JSON_MODES:
            raise ConfigError(
                f"ANALOGIST_JSON_MODE={self.json_mode!r}: use one of {', '.join(JSON_MODES)}"
            )
        if self.max_concurrency < 1:
            raise ConfigError("ANALOGIST_MAX_CONCURRENCY must be at least 1")
        if self.n_ctx < 512:
            raise ConfigError(f"ANALOGIST_CTX={self.n_ctx}: give at least 512 tokens of context")

    def cpu_threads(self) -> int:
        """The llama.cpp thread count: ``threads`` when set, else :func:`auto_threads`."""
        return self.threads or auto_threads()[0]

    def with_(self, **changes: Any) -> ModelSettings:
        """A copy with some fields changed (None values are ignored)."""
        return replace(self, **{k: v for k, v in changes.items() if v is not None})

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ModelSettings:
        """Read the ``ANALOGIST_*`` / ``OPENAI_*`` variables (see the module docstring)."""
        from analogist.config import file_settings

        e = os.environ if env is None else env
        conf = file_settings() if env is None else {}

        def get(name: str, *fallbacks: str) -> str | None:
            for key in (f"ANALOGIST_{name.upper()}", *fallbacks):
                if e.get(key):
                    return e[key]
            v = conf.get(name)
            return str(v) if v is not None else None

        retries = _number(get("max_retries"), "ANALOGIST_MAX_RETRIES", int, 3)
        return cls(
            model=get("model"),
            base_url=get("base_url", "OPENAI_BASE_URL"),
            api_key=get("api_key", "OPENAI_API_KEY"),
            timeout_s=_number(get("timeout"), "ANALOGIST_TIMEOUT", float, 60.0),
            retry=RetryPolicy(max_attempts=retries + 1),
            max_timeout_s=_number(get("max_timeout"), "ANALOGIST_MAX_TIMEOUT", float, 600.0),
            max_concurrency=_number(get("max_concurrency"), "ANALOGIST_MAX_CONCURRENCY", int, 4),
            json_mode=get("json_mode") or "auto",
            cache=CacheMode.parse(get("cache") or "read-write"),
            embedder=get("embedder") or "hashing",
            threads=_number(get("threads"), "ANALOGIST_THREADS", int, 0),
            n_ctx=_number(get("ctx"), "ANALOGIST_CTX", int, 8192),
            prompt_cache_mb=_number(get("prompt_cache_mb"), "ANALOGIST_PROMPT_CACHE_MB", int, 1024),
        )


def auto_threads() -> tuple[int, str]:
    """Threads for llama.cpp: every core this process may use that is not already busy.

    llama.cpp's threads meet at spinning barriers after every operation, so a thread that has no
    core to itself stalls all the others: measured here with SmolLM2 while the machine's load
    was 14 on 2 cores, 2 threads generated 1.2-1.9 tokens/s and 1 thread 28. So the default is
    the cores in this process's affinity minus the 1-minute load average (at least 1); on an
    idle machine that is every core. Returns the count and a phrase saying why.
    """
    cores = available_cores()
    try:
        load = os.getloadavg()[0]
    except OSError:  # pragma: no cover - no load average on this platform
        return cores, f"{cores} core(s) available"
    free = max(1, min(cores, int(cores - load + 0.5)))
    return free, f"{cores} core(s) available, 1-min load {load:.1f}"


def available_cores() -> int:
    """Cores this process may run on (its CPU affinity), not the machine's count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - no sched_getaffinity (macOS)
        return max(1, os.cpu_count() or 1)


_N = TypeVar("_N", int, float)


def _number(raw: str | None, name: str, kind: Callable[[str], _N], default: _N) -> _N:
    if raw is None:
        return default
    try:
        value = kind(raw)
    except ValueError:
        raise ConfigError(f"{name}={raw!r} is not a number") from None
    if value < 0:
        raise ConfigError(f"{name}={raw!r} must not be negative")
    return value


def split_spec(spec: str) -> tuple[str, str]:
    """``"openai:gpt-4o-mini"`` -> ``("openai", "gpt-4o-mini")``; the name may contain ':'.

    Raises:
        ConfigError: there is no ``provider:`` prefix.
    """
    if spec == "local":  # `--model local`: the default bundled model
        return "local", ""
    provider, sep, name = spec.partition(":")
    if not sep or not provider:
        raise ConfigError(
            f"model {spec!r}: write provider:name, e.g. local, local:smollm2, openai:gpt-4o-mini, "
            "openai-compat:qwen2.5, llama:/path/model.gguf, scripted:, replay:openai:gpt-4o-mini"
        )
    return provider, name
