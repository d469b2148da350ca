"""The one registry of LLM backends, and :func:`open_llm`, the way in for everything else.

Built-in backends are registered exactly as a plugin would be (simonw/llm style): a function
``register(registry)`` that calls :meth:`Registry.add` with backend classes. Third-party
packages expose such a function under the entry-point group ``analogist.backends``.
:func:`open_llm` resolves ``--model`` / ``ANALOGIST_MODEL``, builds the backend and wraps it in
:class:`~analogist.models.logged.LoggedLLM` over the store's call log.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.metadata import entry_points
from typing import Any

from analogist.errors import ConfigError
from analogist.models.backend import BackendType, Ping
from analogist.models.logged import LoggedLLM
from analogist.models.settings import CacheMode, ModelSettings, split_spec

ENTRY_POINT_GROUP = "analogist.backends"


class Registry:
    """Backend classes by provider name."""

    def __init__(self) -> None:
        self._types: dict[str, BackendType] = {}

    def add(self, backend: BackendType) -> None:
        """Register a backend class under its ``provider`` name (a later one replaces it)."""
        self._types[backend.provider] = backend

    def get(self, provider: str) -> BackendType:
        try:
            return self._types[provider]
        except KeyError:
            known = ", ".join(sorted(self._types))
            raise ConfigError(
                f"model provider {provider!r} is unknown; known providers: {known} "
                "(`analogist models` lists them)"
            ) from None

    def providers(self) -> list[str]:
        return list(self._types)


def register_builtins(registry: Registry) -> None:
    """The built-in backends, registered through the same hook a plugin uses."""
    from analogist.models.llama import LlamaCppLLM
    from analogist.models.local import LocalLLM
    from analogist.models.openai_compat import OpenAICompatLLM, OpenAICompatServerLLM
    from analogist.models.scripted import ReplayLLM, ScriptedLLM

    for backend in (
        OpenAICompatLLM,
        OpenAICompatServerLLM,
        LocalLLM,
        LlamaCppLLM,
        ScriptedLLM,
        ReplayLLM,
    ):
        registry.add(backend)


_REGISTRY: Registry | None = None


def registry() -> Registry:
    """The process-wide registry: built-ins first, then plugins from entry points."""
    global _REGISTRY
    if _REGISTRY is None:
        reg = Registry()
        register_builtins(reg)
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            hook: Callable[[Registry], Any] = ep.load()
            hook(reg)
        _REGISTRY = reg
    return _REGISTRY


def backend_type(provider: str) -> BackendType:
    return registry().get(provider)


def resolve_spec(spec: str | None, settings: ModelSettings) -> str:
    """The model spec from the flag, else the settings (``ANALOGIST_MODEL``), else an error."""
    chosen = spec or settings.model
    if not chosen:
        raise ConfigError(
            "no model chosen: pass --model provider:name or set ANALOGIST_MODEL "
            "(e.g. local for the bundled CPU model, openai:gpt-4o-mini, openai-compat:qwen2.5 "
            "with ANALOGIST_BASE_URL, llama:/path/model.gguf); `analogist models` lists what is configured"
        )
    return chosen


def create_llm(spec: str, settings: ModelSettings | None = None) -> Any:
    """The bare backend for ``provider:name`` (no log, no cache, no validation)."""
    settings = settings or ModelSettings.from_env()
    provider, name = split_spec(spec)
    return backend_type(provider).create(name, settings)


def open_llm(
    spec: str | None = None,
    *,
    store: Any = None,
    cache: CacheMode | str | None = None,
    settings: ModelSettings | None = None,
    repair: bool = True,
) -> LoggedLLM:
    """The model to use, logged to ``store``'s llm_calls and cached per ``cache``.

    Args:
        spec: ``provider:name``; None reads ``ANALOGIST_MODEL``.
        store: a :class:`~analogist.store.Store` (or sqlite3 connection) for the call log;
            None logs nothing and disables caching.
        cache: off / read-write / replay-only; None reads ``ANALOGIST_CACHE``.
        settings: model settings; None reads the environment.
        repair: allow one repair re-ask when a JSON answer fails its schema.

    Raises:
        ConfigError: the spec or a setting is wrong (the message says what to set).
    """
    from analogist.store.calls import CallLog

    settings = settings or ModelSettings.from_env()
    spec = resolve_spec(spec, settings)
    provider, _ = split_spec(spec)
    mode = CacheMode.parse(cache if cache is not None else settings.cache)
    if provider == "replay":
        mode = CacheMode.REPLAY_ONLY
    log = CallLog(store) if store is not None else None
    if log is None:
        mode = CacheMode.OFF if mode is not CacheMode.REPLAY_ONLY else mode
    return LoggedLLM(create_llm(spec, settings), log, cache=mode, repair=repair)


def ping_backends(settings: ModelSettings | None = None, spec: str | None = None) -> list[Ping]:
    """One :class:`Ping` per registered backend, using the configured spec where there is one.

    Each check is cheap and bounded by ``settings.ping_timeout_s``; nothing is loaded.
    """
    settings = settings or ModelSettings.from_env()
    chosen = spec or settings.model
    out = []
    for provider in registry().providers():
        bt = backend_type(provider)
        name = None
        if chosen and split_spec(chosen)[0] == provider:
            name = split_spec(chosen)[1]
        elif bt.configured(settings):
            name = split_spec(bt.configured(settings) or "")[1]
        if name is None:
            out.append(Ping(provider, "", "not configured", bt.summary))
            continue
        try:
            out.append(bt.ping(name, settings))
        except ConfigError as e:
            out.append(Ping(provider, f"{provider}:{name}", "not configured", str(e)))
    return out
