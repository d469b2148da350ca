"""The LLM interface: chat messages (plus an optional JSON schema) in, a :class:`Completion` out.

Every backend (OpenAI-compatible HTTP, llama.cpp, scripted, replay) has the same small shape,
:class:`LLM`, so the encoder, the critic and the benchmark never know which one answers. A call
is fully described by a :class:`Request`; its sha256 is the cache key of the call log, so two
requests share a cached answer only when provider, base URL, model, messages, every sampling
parameter, schema, prompt version and replicate index are all the same.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from analogist.errors import ModelError

ROLES = ("system", "user", "assistant")
_FENCE = re.compile(r"^```[a-zA-Z]*\s*\n?(.*?)\n?```\s*$", re.DOTALL)


@dataclass(frozen=True)
class Completion:
    """One model answer.

    Attributes:
        text: the raw text the model produced.
        parsed: the JSON value parsed from ``text`` when a schema was asked for, else None.
        input_tokens / output_tokens: token counts reported by the backend (None if unknown).
        latency_ms: wall time of the successful attempt (0 for a cache hit).
        model / provider: who answered.
        attempts: transport attempts the answer took (1 = first try).
        cached: True when the answer came from the call log, not from the model.
        cache_key: the request's cache key, when the call went through the call log.
        repaired: True when the answer is the result of the one repair re-ask.
        retry_errors: the errors of failed attempts before this answer.
        finish_reason: why generation stopped (``stop``, ``length`` = cut at max_tokens), if known.
        timings: backend counters for this call (llama.cpp: prompt tokens evaluated, i.e. not
            served from its KV cache, generated tokens, and the milliseconds of each).
    """

    text: str
    parsed: Any = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    latency_ms: float = 0.0
    model: str = ""
    provider: str = ""
    attempts: int = 1
    cached: bool = False
    cache_key: str | None = None
    repaired: bool = False
    retry_errors: tuple[str, ...] = ()
    finish_reason: str | None = None
    timings: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Request:
    """Everything that determines an answer: the call log stores it and hashes it.

    ``params`` holds a backend's fixed sampling settings (top_p, top_k, ...), so changing them
    changes the key too. ``continuations`` makes it a scoring request
    (:mod:`analogist.models.scoring`): the texts whose log-probabilities are asked for after the
    messages. The API key is never part of a request.
    """

    provider: str
    model: str
    base_url: str | None
    messages: tuple[tuple[str, str], ...]
    schema: Mapping[str, Any] | None = None
    temperature: float = 0.0
    max_tokens: int = 1024
    seed: int | None = 0
    prompt_version: str = ""
    replicate: int = 0
    params: Mapping[str, Any] = field(default_factory=dict)
    continuations: tuple[str, ...] | None = None

    def message_dicts(self) -> list[dict[str, str]]:
        return [{"role": r, "content": c} for r, c in self.messages]

    def to_json(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "base_url": self.base_url,
            "model": self.model,
            "messages": self.message_dicts(),
            "schema": self.schema,
            "temperature": float(self.temperature),
            "max_tokens": int(self.max_tokens),
            "seed": self.seed,
            "prompt_version": self.prompt_version,
            "replicate": int(self.replicate),
            "params": dict(self.params),
            # only a scoring request has continuations; leaving the key out otherwise keeps
            # the cache keys of every recorded completion unchanged
            **({"continuations": list(self.continuations)} if self.continuations else {}),
        }

    @property
    def cache_key(self) -> str:
        """sha256 over the canonical JSON of the whole request."""
        canon = json.dumps(
            self.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )
        return hashlib.sha256(canon.encode("utf-8")).hexdigest()

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Request:
        return cls(
            provider=d["provider"],
            model=d["model"],
            base_url=d.get("base_url"),
            messages=normalise_messages(d["messages"]),
            schema=d.get("schema"),
            temperature=d.get("temperature", 0.0),
            max_tokens=d.get("max_tokens", 1024),
            seed=d.get("seed"),
            prompt_version=d.get("prompt_version", ""),
            replicate=d.get("replicate", 0),
            params=d.get("params") or {},
            continuations=tuple(d["continuations"]) if d.get("continuations") else None,
        )


@runtime_checkable
class LLM(Protocol):
    """Anything that answers chat messages; ``provider:model`` names it in logs and signatures.

    ``params`` are the backend's fixed sampling settings, folded into every cache key.
    """

    provider: str
    model: str
    base_url: str | None

    @property
    def params(self) -> Mapping[str, Any]: ...

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
        """Answer ``messages``; with ``schema``, the answer is JSON meant to satisfy it."""
        ...


def normalise_messages(messages: Sequence[Mapping[str, str]]) -> tuple[tuple[str, str], ...]:
    """Check chat messages and freeze them as (role, content) pairs.

    Raises:
        ModelError: a message lacks a known role or string content.
    """
    out = []
    for i, m in enumerate(messages):
        role, content = m.get("role"), m.get("content")
        if role not in ROLES or not isinstance(content, str):
            raise ModelError(
                f"messages[{i}]: write each message as {{'role': one of {ROLES}, 'content': str}}"
            )
        out.append((role, content))
    if not out:
        raise ModelError("no messages to send; give at least one user message")
    return tuple(out)


def build_request(llm: LLM, messages: Sequence[Mapping[str, str]], **kw: Any) -> Request:
    """The :class:`Request` that ``llm.complete(messages, **kw)`` stands for."""
    return Request(
        provider=llm.provider,
        model=llm.model,
        base_url=llm.base_url,
        messages=normalise_messages(messages),
        params=dict(llm.params),
        **kw,
    )


def parse_json_text(text: str) -> Any:
    """Parse a JSON answer, tolerating a Markdown code fence or prose around one object.

    Raises:
        ValueError: no JSON value could be read.
    """
    s = text.strip()
    m = _FENCE.match(s)
    if m:
        s = m.group(1).strip()
    try:
        return json.loads(s)
    except json.JSONDecodeError:
        pass
    start = s.find("{")
    if start >= 0:
        try:
            value, _ = json.JSONDecoder().raw_decode(s[start:])
            return value
        except json.JSONDecodeError as e:
            raise ValueError(
                f"answer is not valid JSON ({e.msg} at char {e.pos + start})"
            ) from None
    raise ValueError("answer holds no JSON object")


def completion_from_text(text: str, request: Request, **kw: Any) -> Completion:
    """A :class:`Completion` for ``text``, parsed when the request asked for a schema."""
    parsed = None
    if request.schema is not None:
        try:
            parsed = parse_json_text(text)
        except ValueError:
            parsed = None
    return Completion(
        text=text, parsed=parsed, model=request.model, provider=request.provider, **kw
    )
