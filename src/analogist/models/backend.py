"""What every backend shares: a base class that turns ``complete()`` into one :class:`Request`,
the liveness-check result, and bounded retries that honour Retry-After.

A backend subclasses :class:`BaseLLM`, implements :meth:`BaseLLM.generate` for a single request
(and, when it sees the model's logits, :meth:`BaseLLM.score_request`; see
:mod:`analogist.models.scoring`), and describes itself to the registry with the class methods of :class:`BackendType` (create it,
name its identity without creating it, say whether the environment configures it, ping it).
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from analogist.errors import ModelError
from analogist.models.llm import Completion, Request, build_request
from analogist.models.scoring import Scored, check_continuations, unsupported
from analogist.models.settings import ModelSettings, RetryPolicy

T = TypeVar("T")


@dataclass(frozen=True)
class Identity:
    """Who answers: the parts of a request that name the model, known without loading it."""

    provider: str
    model: str
    base_url: str | None = None
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Ping:
    """The answer of a cheap liveness check, for ``analogist models``.

    Attributes:
        provider: registry name.
        spec: the ``provider:name`` that was checked ("" when nothing is configured).
        status: ``ok``, ``offline``, ``not configured``, ``missing dependency`` or ``error``.
        detail: one line saying what was found and, when not ok, what to do.
    """

    provider: str
    spec: str
    status: str
    detail: str

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def to_json(self) -> dict:
        return {
            "provider": self.provider,
            "spec": self.spec,
            "status": self.status,
            "ok": self.ok,
            "detail": self.detail,
        }


class BackendType(Protocol):
    """The registry's view of a backend class (simonw/llm-style: one small class each)."""

    @property
    def provider(self) -> str: ...

    @property
    def summary(self) -> str: ...

    @classmethod
    def create(cls, name: str, settings: ModelSettings) -> Any: ...

    @classmethod
    def identity(cls, name: str, settings: ModelSettings) -> Identity: ...

    @classmethod
    def configured(cls, settings: ModelSettings) -> str | None: ...

    @classmethod
    def ping(cls, name: str, settings: ModelSettings) -> Ping: ...


class BaseLLM(ABC):
    """Implements :meth:`complete` on top of one abstract :meth:`generate` per request."""

    provider: str = ""
    model: str = ""
    base_url: str | None = None
    params: Mapping[str, Any] = {}
    can_score: bool = False  # True where score_request is implemented

    def complete(
        self,
        messages: Sequence[Mapping[str, str]],
        *,
        schema: Mapping[str, Any] | None = None,
        temperature: float = 0.0,
        max_tokens: int = 1024,
        seed: int | None = 0,
        prompt_version: str = "",
        replicate: int = 0,
    ) -> Completion:
        request = build_request(
            self,
            messages,
            schema=schema,
            temperature=temperature,
            max_tokens=max_tokens,
            seed=seed,
            prompt_version=prompt_version,
            replicate=replicate,
        )
        return self.generate(request)

    @abstractmethod
    def generate(self, request: Request) -> Completion:
        """Answer one request (no caching, no schema repair: :class:`LoggedLLM` adds those)."""

    def score(
        self,
        messages: Sequence[Mapping[str, str]],
        continuations: Sequence[str],
        *,
        prompt_version: str = "",
        replicate: int = 0,
    ) -> Scored:
        """Log-probabilities of each continuation after ``messages`` (a last ``assistant``
        message is the start of the answer that each continuation continues)."""
        request = scoring_request(self, messages, continuations, prompt_version, replicate)
        return self.score_request(request)

    def score_request(self, request: Request) -> Scored:
        """Score one request's continuations; backends that cannot see logits refuse."""
        raise unsupported(self.provider, self.model)


def scoring_request(
    llm: Any,
    messages: Sequence[Mapping[str, str]],
    continuations: Sequence[str],
    prompt_version: str,
    replicate: int,
) -> Request:
    """The :class:`Request` of a scoring call: no sampling (temperature 0, no tokens, no seed)."""
    return build_request(
        llm,
        messages,
        temperature=0.0,
        max_tokens=0,
        seed=None,
        prompt_version=prompt_version,
        replicate=replicate,
        continuations=check_continuations(continuations),
    )


class Transient(Exception):
    """A failure worth retrying; ``retry_after`` is the server's requested wait in seconds."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class Attempted:
    """A result and how it was reached."""

    value: Any
    attempts: int
    errors: tuple[str, ...]
    latency_ms: float


def call_with_retries(
    fn: Callable[[], T],
    policy: RetryPolicy,
    *,
    what: str,
    sleep: Callable[[float], None] = time.sleep,
) -> Attempted:
    """Call ``fn`` until it succeeds, retrying only :class:`Transient` failures, boundedly.

    Raises:
        ModelError: the last failure, with ``attempts`` and ``retry_errors`` attributes set.
    """
    errors: list[str] = []
    for attempt in range(1, policy.max_attempts + 1):
        t0 = time.perf_counter()
        try:
            value = fn()
        except Transient as e:
            errors.append(str(e))
            if attempt == policy.max_attempts:
                break
            sleep(policy.delay(attempt, e.retry_after))
            continue
        except ModelError as e:
            e.attempts, e.retry_errors = attempt, tuple(errors)  # type: ignore[attr-defined]
            raise
        return Attempted(value, attempt, tuple(errors), (time.perf_counter() - t0) * 1000)
    err = ModelError(
        f"{what}: gave up after {policy.max_attempts} attempt(s); last error: {errors[-1]}; "
        "check the server (`analogist models`) or raise ANALOGIST_MAX_RETRIES / ANALOGIST_TIMEOUT"
    )
    err.attempts, err.retry_errors = policy.max_attempts, tuple(errors[:-1])  # type: ignore[attr-defined]
    raise err


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds from ``retry-after-ms`` or ``retry-after`` (delta seconds or an HTTP date)."""
    if not headers:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return float(ms) / 1000.0
        except ValueError:
            pass
    raw = headers.get("retry-after")
    if not raw:
        return None
    try:
        return float(raw)
    except ValueError:
        from email.utils import parsedate_to_datetime

        try:
            when = parsedate_to_datetime(raw)
        except (TypeError, ValueError):
            return None
        return max(0.0, when.timestamp() - time.time())
