"""Scoring given continuations instead of generating: log-probabilities of candidate answers.

A small model is far better at judging which of several given texts is likely than at writing
a choice itself (issue 12: the 1.5B model picks enum options in listed order). A backend that
can score implements ``score_request``: for one prompt (chat messages; a last ``assistant``
message is the start of the answer, which each continuation continues) it returns, per
continuation, the sum of the log-probabilities of its tokens and how many tokens it has.

Only backends that see the model's logits can do this: llama.cpp (``local:``, ``llama:``) and
the scripted test model. An OpenAI-compatible chat endpoint returns log-probabilities of what the
model generated, never of a text we give it, so it cannot score; calling it raises
:class:`ScoringUnsupported` (no silent fallback to generation).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from analogist.errors import ModelError


@dataclass(frozen=True)
class Score:
    """How likely the model finds one continuation after the prompt.

    Attributes:
        text: the continuation.
        logprob: the sum of its tokens' natural-log probabilities (<= 0).
        tokens: how many tokens it has (>= 1).
    """

    text: str
    logprob: float
    tokens: int

    @property
    def mean(self) -> float:
        """Length-normalised: the mean log-probability per token."""
        return self.logprob / self.tokens if self.tokens else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"text": self.text, "logprob": self.logprob, "tokens": self.tokens}

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Score:
        return cls(str(d["text"]), float(d["logprob"]), int(d["tokens"]))


@dataclass(frozen=True)
class Scored:
    """The answer to one scoring request: a :class:`Score` per continuation, in order.

    Attributes:
        input_tokens: tokens of the prompt (None if unknown).
        latency_ms: wall time (0 for an answer from the call log).
        cached: True when the answer came from the call log.
        timings: backend counters (llama.cpp: prompt and continuation tokens evaluated).
    """

    scores: tuple[Score, ...]
    input_tokens: int | None = None
    latency_ms: float = 0.0
    cached: bool = False
    cache_key: str | None = None
    timings: Mapping[str, float] | None = None

    @property
    def scored_tokens(self) -> int:
        return sum(s.tokens for s in self.scores)


class ScoringUnsupported(ModelError):
    """The backend cannot give log-probabilities of a given text."""


def unsupported(provider: str, model: str) -> ScoringUnsupported:
    return ScoringUnsupported(
        f"{provider}:{model} cannot score given continuations: an OpenAI-compatible chat "
        "endpoint returns log-probabilities only of the text it generates, not of a text we "
        "give it; use a local model (--model local, local:NAME or llama:/path.gguf) for "
        "scoring encoders such as staged-v9, or an encoder version that generates (staged-v4)"
    )


def can_score(llm: Any) -> bool:
    """Whether ``llm`` (a backend or a :class:`~analogist.models.logged.LoggedLLM`) scores."""
    inner = getattr(llm, "inner", llm)
    return bool(getattr(inner, "can_score", False))


def check_continuations(continuations: Sequence[str]) -> tuple[str, ...]:
    """Frozen continuations; ModelError when there are none or one is empty."""
    out = tuple(continuations)
    if not out:
        raise ModelError("nothing to score; give at least one continuation")
    for i, c in enumerate(out):
        if not isinstance(c, str) or not c:
            raise ModelError(f"continuations[{i}]: give a non-empty string")
    return out
