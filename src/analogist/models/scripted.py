"""Two backends that never reach a model: ``scripted`` (queued answers) and ``replay``.

:class:`ScriptedLLM` answers from a queue (simonw/llm's mock model): tests enqueue the text or
JSON each call should return, or an exception to raise, and read back every request it got.
An empty queue is an error that says so. Scoring (:mod:`analogist.models.scoring`) is answered by a
``scorer`` function the test gives. :class:`ReplayLLM` names a real backend's identity and
answers only from the call log; it is wrapped in replay-only mode by the registry.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, ClassVar

from analogist.errors import ConfigError, ModelError
from analogist.models.backend import BaseLLM, Identity, Ping
from analogist.models.llm import Completion, Request, completion_from_text
from analogist.models.scoring import Score, Scored
from analogist.models.settings import ModelSettings, split_spec


class ScriptedLLM(BaseLLM):
    """Answers each call with the next queued response (text, JSON value or exception).

    Args:
        scorer: answers scoring requests: ``scorer(messages, continuation)`` is the
            continuation's log-probability (its token count is its word count).

    Attributes:
        requests: every request received, in order (what a test asserts on).
        calls: how many calls were answered.
    """

    provider = "scripted"
    summary: ClassVar[str] = "queued responses for tests (scripted:[FILE.json])"
    can_score = True

    def __init__(
        self,
        responses: Iterable[Any] = (),
        *,
        model: str = "scripted",
        scorer: Callable[[Sequence[Mapping[str, str]], str], float] | None = None,
    ):
        self.model = model
        self.scorer = scorer
        self.base_url = None
        self.params = {}
        self.queue: deque[Any] = deque(responses)
        self.requests: list[Request] = []
        self.calls = 0

    def enqueue(self, *responses: Any) -> ScriptedLLM:
        """Queue answers: a str is returned as is, any other JSON value is serialised, and an
        exception instance is raised."""
        self.queue.extend(responses)
        return self

    def generate(self, request: Request) -> Completion:
        self.requests.append(request)
        if not self.queue:
            raise ModelError(
                f"scripted model: the queue is empty after {self.calls} answered call(s); "
                "enqueue a response with ScriptedLLM.enqueue(...) before calling"
            )
        item = self.queue.popleft()
        if isinstance(item, BaseException):
            raise item
        self.calls += 1
        text = item if isinstance(item, str) else json.dumps(item)
        words = sum(len(m[1].split()) for m in request.messages)
        return completion_from_text(
            text,
            request,
            input_tokens=words,
            output_tokens=len(text.split()),
            latency_ms=0.0,
        )

    def score_request(self, request: Request) -> Scored:
        self.requests.append(request)
        if self.scorer is None:
            raise ModelError(
                "scripted model: no scorer for a scoring request; give one with "
                "ScriptedLLM(scorer=lambda messages, continuation: logprob)"
            )
        self.calls += 1
        msgs = request.message_dicts()
        return Scored(
            tuple(
                Score(c, float(self.scorer(msgs, c)), max(1, len(c.split())))
                for c in request.continuations or ()
            ),
            input_tokens=sum(len(m[1].split()) for m in request.messages),
        )

    # registry -------------------------------------------------------------------
    @classmethod
    def create(cls, name: str, settings: ModelSettings) -> ScriptedLLM:
        """``scripted:`` is an empty queue; ``scripted:FILE`` queues a JSON list (or JSONL)."""
        if not name:
            return cls()
        path = Path(name)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as e:
            raise ConfigError(f"scripted:{name}: cannot read the responses file ({e})") from None
        try:
            data = json.loads(text)
            items = data if isinstance(data, list) else [data]
        except json.JSONDecodeError:
            try:
                items = [json.loads(line) for line in text.splitlines() if line.strip()]
            except json.JSONDecodeError as e:
                raise ConfigError(
                    f"scripted:{name}: give a JSON list of responses or one JSON value per line ({e})"
                ) from None
        return cls(items, model=path.name)

    @classmethod
    def identity(cls, name: str, settings: ModelSettings) -> Identity:
        return Identity(cls.provider, Path(name).name if name else "scripted")

    @classmethod
    def configured(cls, settings: ModelSettings) -> str | None:
        return "scripted:"

    @classmethod
    def ping(cls, name: str, settings: ModelSettings) -> Ping:
        return Ping(cls.provider, f"scripted:{name}", "ok", "always available (tests only)")


class ReplayLLM(BaseLLM):
    """Stands for a logged model; it is never called because it runs in replay-only mode."""

    provider = "replay"
    summary: ClassVar[str] = "answers only from the call log (replay:PROVIDER:NAME)"
    can_score = True  # scores come from the log like answers do

    def __init__(self, identity: Identity):
        self.provider = identity.provider
        self.model = identity.model
        self.base_url = identity.base_url
        self.params = dict(identity.params)

    def generate(self, request: Request) -> Completion:
        raise ModelError(
            f"replay:{self.provider}:{self.model} answers only from the call log and must run "
            "in replay-only mode; open it with analogist.models.open_llm"
        )

    @classmethod
    def _target(cls, name: str, settings: ModelSettings) -> Identity:
        from analogist.models.registry import backend_type

        provider, inner = split_spec(name)
        if provider == cls.provider:
            raise ConfigError("replay:replay:... is not a model; write replay:PROVIDER:NAME")
        return backend_type(provider).identity(inner, settings)

    @classmethod
    def create(cls, name: str, settings: ModelSettings) -> ReplayLLM:
        return cls(cls._target(name, settings))

    @classmethod
    def identity(cls, name: str, settings: ModelSettings) -> Identity:
        return cls._target(name, settings)

    @classmethod
    def configured(cls, settings: ModelSettings) -> str | None:
        return None

    @classmethod
    def ping(cls, name: str, settings: ModelSettings) -> Ping:
        if not name:
            return Ping(
                cls.provider,
                "",
                "not configured",
                "use --model replay:PROVIDER:NAME with a database holding its calls",
            )
        ident = cls._target(name, settings)
        return Ping(
            cls.provider,
            f"replay:{name}",
            "ok",
            f"answers {ident.provider}:{ident.model} from the call log only",
        )
