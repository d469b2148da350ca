"""Channel P: analogies the model proposes from its pretrained knowledge (spec §7).

The model sees only the target — its text, abstract levels and structure — never the store,
and is asked to name known cases with the same relational structure (e.g. "Goodhart's law",
"the Challenger O-ring decision"). Its proposals are not store episodes: each is a
:class:`~analogist.retrieve.base.Hit` with a ``parametric:<n>`` id, ``detail.label ==
"parametric"``, the model's own confidence as score, and it lives in ``Pool.parametric``,
never in another channel's ranks. Keeping it apart is what lets the benchmark tell what the
machinery adds beyond the base model (spec §22, H4).

A model failure or an unusable answer makes the channel unavailable for this search (the
reason is recorded in ``Pool.skipped``); it never fails the search.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from analogist.errors import ModelError
from analogist.models.llm import LLM, parse_json_text
from analogist.retrieve.base import ChannelUnavailable, Hit, Target

PROMPT_VERSION = "parametric-v1"

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "proposals": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "case": {"type": "string"},
                    "domain": {"type": "string"},
                    "why": {"type": "string"},
                    "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                },
                "required": ["case", "why"],
            },
        },
    },
    "required": ["proposals"],
}

_SYSTEM = (
    "You find analogies. Given a situation described by its relational structure, name up to "
    "{n} well-known cases from any field (history, engineering, biology, economics, ...) that "
    "share that structure, not its surface topic. For each give the case, its domain, why the "
    "structure matches (which element corresponds to which), and your confidence 0-1. Answer "
    'only JSON: {{"proposals": [{{"case": ..., "domain": ..., "why": ..., "confidence": ...}}]}}.'
)


def target_prompt(target: Target) -> str:
    """The user message: the target's text, abstract levels and structure (nothing else)."""
    parts = [f"Situation: {target.text}"]
    sig = target.signature
    if sig is not None:
        for level in ("L1", "L2", "L3"):
            if sig.level(level):
                parts.append(f"{level}: {sig.level(level)}")
        parts.append("Roles: " + ", ".join(f"{r.name} ({r.description})" for r in sig.roles))
        parts.append("Relations: " + "; ".join(str(r.term().canonical()) for r in sig.relations))
        if sig.causal_chain:
            parts.append(
                "Causal chain: "
                + "; ".join(
                    f"{c.cause.canonical()} {c.link} {c.effect.canonical()}"
                    for c in sig.causal_chain
                )
            )
        if sig.fix_operator is not None:
            parts.append(f"Fix: {sig.fix_operator}")
    return "\n".join(parts)


def _proposals(parsed: Any) -> list[dict]:
    if not isinstance(parsed, dict) or not isinstance(parsed.get("proposals"), list):
        raise TypeError('expected {"proposals": [...]}')
    out = []
    for i, p in enumerate(parsed["proposals"]):
        if not isinstance(p, dict) or not isinstance(p.get("case"), str) or not p["case"].strip():
            raise TypeError(f"proposals[{i}] needs a non-empty 'case' string")
        conf = p.get("confidence")
        conf = float(conf) if isinstance(conf, (int, float)) and 0 <= conf <= 1 else 0.0
        out.append(
            {
                "case": p["case"].strip(),
                "domain": str(p.get("domain", "")),
                "why": str(p.get("why", "")),
                "confidence": conf,
            }
        )
    return out


@dataclass(frozen=True)
class ParametricChannel:
    """P: ask the model for known analogous cases; label every answer ``parametric``.

    Attributes:
        llm: any :class:`~analogist.models.llm.LLM` (scripted in tests).
        max_proposals: how many cases to ask for (``k`` caps it further).
        temperature: sampling temperature of the call.
        prompt_version: recorded in the call log's cache key.
        name: channel name in the pool.
    """

    llm: LLM | None = field(default=None, compare=False)
    max_proposals: int = 5
    temperature: float = 0.0
    prompt_version: str = PROMPT_VERSION
    name: str = "P"
    needs: str = "text"

    def search(self, target: Target, k: int, exclude: frozenset[str] = frozenset()) -> list[Hit]:
        if self.llm is None:
            raise ChannelUnavailable("no model configured for channel P (pass llm= to Memory)")
        n = min(self.max_proposals, k)
        messages = [
            {"role": "system", "content": _SYSTEM.format(n=n)},
            {"role": "user", "content": target_prompt(target)},
        ]
        try:
            answer = self.llm.complete(
                messages,
                schema=SCHEMA,
                temperature=self.temperature,
                prompt_version=self.prompt_version,
            )
            parsed = answer.parsed if answer.parsed is not None else parse_json_text(answer.text)
            proposals = _proposals(parsed)
        except (ModelError, ValueError, TypeError) as e:
            raise ChannelUnavailable(f"the model's proposals could not be used: {e}") from None
        who = f"{self.llm.provider}:{self.llm.model}"
        return [
            Hit(
                f"parametric:{i + 1}",
                self.name,
                p["confidence"],
                i + 1,
                {"label": "parametric", "model": who, **p},
            )
            for i, p in enumerate(proposals[:n])
        ]
