"""AnalogyRun: one invocation of the analogizer, as logged (spec §12 analogy_log).

Every run is written, including runs that transferred nothing: the log is how "used sparingly"
becomes measurable (spec §28) and how trigger policies are later fitted.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Cost:
    """What one run spent."""

    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    wall_ms: float = 0.0

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def to_json(self) -> dict:
        return {"model_calls": self.model_calls, "input_tokens": self.input_tokens,
                "output_tokens": self.output_tokens, "tokens": self.tokens,
                "wall_ms": round(self.wall_ms, 3)}


@dataclass
class AnalogyRun:
    """One invocation: why it fired, what it looked at, what it decided, what it cost."""

    run_id: str
    trigger: dict
    target_id: str | None
    target: dict | None
    candidates: list[dict] = field(default_factory=list)
    attempts: list[dict] = field(default_factory=list)
    source: str | None = None
    mapping: dict | None = None
    structural_score: float | None = None
    record: dict | None = None
    critic: dict | None = None
    transferred: list[str] = field(default_factory=list)
    predicted_observable: str | None = None
    verification_result: str | None = None
    outcome_delta: float | None = None
    cost: Cost = field(default_factory=Cost)
    config: dict = field(default_factory=dict)
    created_at: str = ""
    log_error: str | None = None  # why the run could not be written to analogy_log (not stored)

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "created_at": self.created_at, "trigger": self.trigger,
            "target_id": self.target_id, "target": self.target, "candidates": self.candidates,
            "attempts": self.attempts, "source": self.source, "mapping": self.mapping,
            "structural_score": self.structural_score, "record": self.record,
            "critic": self.critic, "transferred": self.transferred,
            "predicted_observable": self.predicted_observable,
            "verification_result": self.verification_result,
            "outcome_delta": self.outcome_delta, "cost": self.cost.to_json(),
            "config": self.config,
        }

    @property
    def tier(self) -> int:
        return int(self.trigger.get("tier") or 0)


def new_run_id(*parts: Any) -> str:
    """A run id: a short digest of the given parts (the same parts give the same id)."""
    h = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()
    return "run_" + h[:16]
