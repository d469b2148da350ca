"""The call log and cache around any LLM, plus schema validation with one repair re-ask.

:class:`LoggedLLM` wraps a backend. Each request is keyed by the sha256 of the whole request
(:attr:`~analogist.models.llm.Request.cache_key`). Depending on the :class:`CacheMode` it
answers from ``llm_calls`` or calls the backend and writes every attempt there: response,
parsed output, tokens, latency, attempt number and error. With a schema, the answer is checked
client-side; an invalid answer gets exactly one repair re-ask (itself logged and cached), and a
second failure raises :class:`~analogist.errors.ModelError`. The re-ask always differs from the
first request: it quotes what was wrong, and an answer cut off at ``max_tokens`` is re-asked
with twice the tokens and a request to be shorter.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from analogist.errors import CacheMissError, ConfigError, ModelError
from analogist.models.backend import scoring_request
from analogist.models.llm import LLM, Completion, Request, build_request
from analogist.models.scoring import Score, Scored, can_score, unsupported
from analogist.models.settings import CacheMode
from analogist.models.validate import output_problem, repair_prompt
from analogist.store.calls import CallLog, CallRecord


@dataclass
class CallStats:
    """Running totals of one wrapper: calls made, cache hits, repairs and tokens."""

    calls: int = 0
    cache_hits: int = 0
    failures: int = 0
    repairs: int = 0
    input_tokens: int = 0
    output_tokens: int = 0

    def to_json(self) -> dict:
        return dict(self.__dict__)


class LoggedLLM:
    """An :class:`~analogist.models.llm.LLM` that logs, caches and validates.

    Args:
        inner: the backend that really answers.
        log: the call log; None logs nothing (validation and repair still apply).
        cache: off / read-write / replay-only.
        repair: allow the one repair re-ask for an answer that fails its schema.
    """

    def __init__(
        self,
        inner: LLM,
        log: CallLog | None = None,
        *,
        cache: CacheMode | str = CacheMode.READ_WRITE,
        repair: bool = True,
    ):
        self.inner = inner
        self.log = log
        self.cache = CacheMode.parse(cache)
        self.repair = repair
        self.provider, self.model = inner.provider, inner.model
        self.base_url, self.params = inner.base_url, dict(inner.params)
        self.stats = CallStats()
        self._stats_lock = threading.Lock()
        if self.cache is CacheMode.REPLAY_ONLY and log is None:
            raise ConfigError(
                "replay-only needs a call log: open a store (--db) that holds the calls"
            )

    @property
    def name(self) -> str:
        return f"{self.provider}:{self.model}"

    @property
    def max_parallel(self) -> int | None:
        """Calls the backend can really run at once (1 for llama.cpp); None = no known limit.

        A runner with more workers than this should say so, or lower its concurrency.
        """
        return getattr(self.inner, "max_parallel", None)

    @property
    def runtime(self) -> dict[str, Any]:
        """What the backend actually used (file, threads, context), once it has loaded."""
        return dict(getattr(self.inner, "runtime", {}) or {})

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
        req = build_request(
            self,
            messages,
            schema=schema,
            temperature=temperature,
            max_tokens=max_tokens,
            seed=seed,
            prompt_version=prompt_version,
            replicate=replicate,
        )
        first = self.answer(req)
        if schema is None:
            return first
        parsed, problem = output_problem(first, schema)
        if problem is None:
            return replace(first, parsed=parsed)
        if not self.repair:
            raise self._invalid(problem, repaired=False)
        self._count(repairs=1)
        tokens = req.max_tokens
        if first.finish_reason == "length":  # cut off, not wrong: ask for less, allow more
            problem = (
                f"the answer was cut off at {tokens} tokens before the JSON ended "
                f"({problem}); give a shorter answer"
            )
            tokens *= 2
        again = replace(
            req,
            max_tokens=tokens,
            messages=req.messages
            + (
                ("assistant", first.text),
                ("user", repair_prompt(problem)),
            ),
        )
        second = self.answer(again)
        parsed, problem = output_problem(second, schema)
        if problem is not None:
            raise self._invalid(problem, repaired=True)
        return replace(second, parsed=parsed, repaired=True)

    @property
    def can_score(self) -> bool:
        """Whether the backend gives log-probabilities of given text (:meth:`score`)."""
        return can_score(self.inner)

    def score(
        self,
        messages: Sequence[Mapping[str, str]],
        continuations: Sequence[str],
        *,
        prompt_version: str = "",
        replicate: int = 0,
    ) -> Scored:
        """Log-probabilities of each continuation after ``messages``
        (:mod:`analogist.models.scoring`), through the cache and the log like a completion: the
        row's ``parsed`` holds the scores, so a replay needs no model.

        Raises:
            ScoringUnsupported: the backend cannot score (an OpenAI-compatible server).
            CacheMissError: replay-only and the call is not in the log.
        """
        req = scoring_request(self, messages, continuations, prompt_version, replicate)
        key = req.cache_key
        if self.cache is not CacheMode.OFF and self.log is not None:
            rec = self.log.lookup(key)
            if rec is not None:
                self._count(cache_hits=1)
                return Scored(
                    tuple(Score.from_json(d) for d in rec.parsed),
                    input_tokens=rec.input_tokens,
                    cached=True,
                    cache_key=key,
                )
        if self.cache is CacheMode.REPLAY_ONLY:
            raise CacheMissError(
                f"replay-only: no logged scores for {self.name} request {key} "
                f"(prompt version {req.prompt_version or '-'!r}); record them by running once "
                "with a live model and ANALOGIST_CACHE=read-write against the same database"
            )
        if not self.can_score:
            raise unsupported(self.provider, self.model)
        try:
            got: Scored = self.inner.score(  # type: ignore[attr-defined]
                req.message_dicts(),
                req.continuations or (),
                prompt_version=req.prompt_version,
                replicate=req.replicate,
            )
        except ModelError as e:
            self._count(failures=1)
            self._log_failures(req, (str(e),), 1)
            raise
        scored = sum(s.tokens for s in got.scores)
        self._count(calls=1, input_tokens=got.input_tokens or 0)
        if self.log is not None:
            self.log.record(
                CallRecord(
                    cache_key=key,
                    provider=req.provider,
                    model=req.model,
                    base_url=req.base_url,
                    prompt_version=req.prompt_version,
                    replicate=req.replicate,
                    request=req.to_json(),
                    response_text=json.dumps([s.to_json() for s in got.scores]),
                    parsed=[s.to_json() for s in got.scores],
                    input_tokens=got.input_tokens,
                    output_tokens=scored,
                    latency_ms=got.latency_ms,
                )
            )
        return replace(got, cache_key=key)

    def _invalid(self, problem: str, *, repaired: bool) -> ModelError:
        how = "even after one repair re-ask" if repaired else "(repair re-ask is off)"
        return ModelError(
            f"{self.name}: the answer does not match the JSON schema {how}: {problem}; "
            "try a stronger model or a server that enforces schemas (ANALOGIST_JSON_MODE)"
        )

    def answer(self, req: Request) -> Completion:
        """One request through the cache and the log (no validation)."""
        key = req.cache_key
        if self.cache is not CacheMode.OFF and self.log is not None:
            rec = self.log.lookup(key)
            if rec is not None:
                self._count(cache_hits=1)
                return _from_record(rec, key)
        if self.cache is CacheMode.REPLAY_ONLY:
            raise CacheMissError(
                f"replay-only: no logged answer for {self.name} request {key} "
                f"(prompt version {req.prompt_version or '-'!r}, replicate {req.replicate}); "
                "record it by running once with a live model and ANALOGIST_CACHE=read-write "
                "(or --cache read-write) against the same database"
            )
        try:
            c = self.inner.complete(
                req.message_dicts(),
                schema=req.schema,
                temperature=req.temperature,
                max_tokens=req.max_tokens,
                seed=req.seed,
                prompt_version=req.prompt_version,
                replicate=req.replicate,
            )
        except ModelError as e:
            self._count(failures=1)
            attempts = getattr(e, "attempts", 1)
            self._log_failures(req, getattr(e, "retry_errors", ()) + (str(e),), attempts)
            raise
        self._count(calls=1, input_tokens=c.input_tokens or 0, output_tokens=c.output_tokens or 0)
        self._log_failures(req, c.retry_errors, c.attempts - 1)
        if self.log is not None:
            self.log.record(_to_record(req, c))
        return replace(c, cache_key=key)

    def _count(self, **amounts: int) -> None:
        with self._stats_lock:
            for k, v in amounts.items():
                setattr(self.stats, k, getattr(self.stats, k) + v)

    def _log_failures(self, req: Request, errors: Sequence[str], last_attempt: int) -> None:
        if self.log is None:
            return
        first = last_attempt - len(errors) + 1
        for i, err in enumerate(errors):
            self.log.record(_to_record(req, None, attempt=first + i, error=err))


def _to_record(
    req: Request, c: Completion | None, *, attempt: int | None = None, error: str | None = None
) -> CallRecord:
    return CallRecord(
        cache_key=req.cache_key,
        provider=req.provider,
        model=req.model,
        base_url=req.base_url,
        prompt_version=req.prompt_version,
        replicate=req.replicate,
        request=req.to_json(),
        response_text=c.text if c else None,
        parsed=c.parsed if c else None,
        input_tokens=c.input_tokens if c else None,
        output_tokens=c.output_tokens if c else None,
        latency_ms=c.latency_ms if c else None,
        attempt=attempt if attempt is not None else (c.attempts if c else 1),
        error=error,
    )


def _from_record(rec: CallRecord, key: str) -> Completion:
    # the log keeps no finish reason; an answer that used its whole token budget was cut off
    # ("length"), so a cached answer takes the same repair path as the live one did
    budget = rec.request.get("max_tokens")
    cut = budget is not None and rec.output_tokens is not None and rec.output_tokens >= budget
    return Completion(
        text=rec.response_text or "",
        parsed=rec.parsed,
        input_tokens=rec.input_tokens,
        output_tokens=rec.output_tokens,
        latency_ms=0.0,
        model=rec.model,
        provider=rec.provider,
        attempts=rec.attempt,
        cached=True,
        cache_key=key,
        finish_reason="length" if cut else None,
    )
