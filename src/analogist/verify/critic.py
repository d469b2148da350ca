"""The critic: an independent second opinion on a mapping (spec §10.2 item 4).

It sees the two signatures and the mapping table — role pairs, matches, failures, blockers,
transfer decisions — and never the mapper's argumentative prose, so it cannot simply be talked
into agreement. :class:`EngineCritic` decides from the deterministic checks alone;
:class:`ModelCritic` asks a model (ideally a different one from the mapper's) and logs its
request like every model call.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Protocol

from analogist.signature.model import Signature
from analogist.signature.vocabulary import Vocabulary, default_vocabulary
from analogist.verify.checks import StructuralChecks
from analogist.verify.support import action_support

CRITIC_PROMPT_VERSION = "critic-v1"

#: How the engine critic's reason for an unmapped fix support begins (the analogizer's
#: prediction-check fallback reads it).
UNSUPPORTED = "the fix's causal support is not mapped"

CRITIC_SCHEMA = {
    "type": "object",
    "properties": {
        "verdict": {"type": "string", "enum": ["accept", "reject"]},
        "reasons": {"type": "array", "items": {"type": "string"}},
        "confidence": {"type": "number", "minimum": 0, "maximum": 1},
    },
    "required": ["verdict", "reasons", "confidence"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class CriticVerdict:
    """A critic's decision on one mapping: ``accept`` or ``reject``, why, how sure, and which
    critic (``engine`` or ``model:NAME``)."""

    verdict: str  # "accept" | "reject"
    reasons: tuple[str, ...]
    confidence: float
    critic: str

    @property
    def accepted(self) -> bool:
        return self.verdict == "accept"

    def to_json(self) -> dict:
        return {
            "verdict": self.verdict,
            "reasons": list(self.reasons),
            "confidence": self.confidence,
            "critic": self.critic,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CriticVerdict:
        return cls(
            d["verdict"],
            tuple(d.get("reasons", ())),
            float(d.get("confidence", 0.0)),
            d.get("critic", "?"),
        )


class Critic(Protocol):
    """An independent reviewer of one mapping (the extension point for critics: any object
    with a ``name`` and this ``review`` plugs in)."""

    @property
    def name(self) -> str: ...

    def review(
        self,
        source: Signature,
        target: Signature,
        table: dict,
        checks: StructuralChecks,
        *,
        vocab: Vocabulary | None = None,
    ) -> CriticVerdict: ...


@dataclass(frozen=True)
class EngineCritic:
    """Accepts a coherent mapping whose structural score and mapped causal path clear bars and,
    when the source has a fix, whose causal support for that fix is mapped
    (:func:`analogist.verify.support.action_support`)."""

    min_score: float = 0.35
    min_path: float = 0.34
    name: str = "engine"

    def review(
        self,
        source: Signature,
        target: Signature,
        table: dict,
        checks: StructuralChecks,
        *,
        vocab: Vocabulary | None = None,
    ) -> CriticVerdict:
        reasons = []
        if source.fix_operator is not None and source.causal_chain:
            support = action_support(source, target, checks, vocab or default_vocabulary())
            if not support.supported:
                reasons.append(f"{UNSUPPORTED}: {support.reason}")
        if not checks.coherent:
            reasons.append("mapping is incoherent (not one-to-one or contradictory signs)")
        if checks.score < self.min_score:
            reasons.append(f"structural score {checks.score:.2f} < {self.min_score}")
        if source.causal_chain and checks.source_path_mapped < self.min_path:
            reasons.append(
                f"source causal path mapped {checks.source_path_mapped:.0%} < {self.min_path:.0%}"
            )
        if reasons:
            return CriticVerdict("reject", tuple(reasons), round(1 - checks.score, 4), self.name)
        return CriticVerdict(
            "accept", (f"coherent; score {checks.score:.2f}",), checks.score, self.name
        )


def only_unsupported(verdict: CriticVerdict) -> bool:
    """A rejection whose every reason is the fix's unmapped causal support (the mapping is
    otherwise coherent and clears the score and path bars)."""
    return (
        not verdict.accepted
        and bool(verdict.reasons)
        and all(r.startswith(UNSUPPORTED) for r in verdict.reasons)
    )


def critic_messages(source: Signature, target: Signature, table: dict) -> list[dict]:
    """The critic's whole input: two signatures and the mapping table, nothing else."""
    payload = {
        "source_signature": source.to_json(),
        "target_signature": target.to_json(),
        "mapping_table": table,
    }
    return [
        {
            "role": "system",
            "content": (
                "You are an independent critic of analogies. Given two structural signatures and a "
                "proposed role mapping table, decide whether the mapping preserves the causal "
                "structure that the transferred elements depend on. Reject when a transferred "
                "element relies on source structure that is absent, reversed or blocked in the "
                "target. Answer JSON: verdict (accept|reject), reasons, confidence in [0,1]."
            ),
        },
        {"role": "user", "content": json.dumps(payload, sort_keys=True)},
    ]


@dataclass
class ModelCritic:
    """A model-backed critic. ``llm`` is any object with the LLM interface's ``complete``."""

    llm: Any
    name: str = "model"
    temperature: float = 0.0

    def review(
        self,
        source: Signature,
        target: Signature,
        table: dict,
        checks: StructuralChecks,
        *,
        vocab: Vocabulary | None = None,
    ) -> CriticVerdict:
        out = self.llm.complete(
            critic_messages(source, target, table),
            schema=CRITIC_SCHEMA,
            temperature=self.temperature,
            prompt_version=CRITIC_PROMPT_VERSION,
        )
        p = out.parsed or {}
        verdict = str(p["verdict"]) if p.get("verdict") in ("accept", "reject") else "reject"
        return CriticVerdict(
            verdict,
            tuple(str(r) for r in p.get("reasons", [])),
            float(p.get("confidence", 0.0)),
            f"model:{getattr(out, 'model', '?')}",
        )
