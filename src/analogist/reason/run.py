"""AnalogyRun: one invocation of the analogizer, as logged (spec §12 analogy_log).

Every run is written, including runs that transferred nothing: the log is how "used sparingly"
becomes measurable (spec §28) and how trigger policies are later fitted.

The run is a frozen value, typed end to end (:class:`~analogist.retrieve.pool.Candidate`,
:class:`MappingRecord`, :class:`~analogist.verify.assessment.Assessment`,
:class:`~analogist.verify.critic.CriticVerdict`). Its JSON carries ``schema_version``;
:meth:`AnalogyRun.from_json` reads every version written so far:

- 1 (no ``schema_version`` key): the first log format;
- 2: adds ``schema_version`` and ``not_assessed`` (why no mapping was assessed). The columns a
  v1 reader expects are still written (``mapping.why``, ``critic.verdict = "not run (…)"``), so
  older readers of the log keep working; in memory those are None, never a sentinel.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from analogist.reason.triggers import Trigger
from analogist.retrieve.pool import Candidate
from analogist.verify.assessment import Assessment
from analogist.verify.critic import CriticVerdict
from analogist.verify.roles import RoleMapping

RUN_SCHEMA_VERSION = 2


@dataclass(frozen=True)
class Cost:
    """What one run spent."""

    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    wall_ms: float = 0.0

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def to_json(self) -> dict[str, Any]:
        return {
            "model_calls": self.model_calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "tokens": self.tokens,
            "wall_ms": round(self.wall_ms, 3),
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Cost:
        return cls(
            int(d.get("model_calls", 0)),
            int(d.get("input_tokens", 0)),
            int(d.get("output_tokens", 0)),
            float(d.get("wall_ms", 0.0)),
        )


@dataclass(frozen=True)
class MappingRecord:
    """The chosen role mapping as logged (:meth:`analogist.verify.roles.RoleMapping.to_json`):
    the structural checks are kept as their stored table."""

    source_id: str
    target_id: str
    role_map: tuple[tuple[str, str], ...]
    sme_score: float | None
    sme_normalized: float | None
    proposer: str
    checks: Mapping[str, Any]

    @property
    def mapping(self) -> dict[str, str]:
        return dict(self.role_map)

    def to_json(self) -> dict[str, Any]:
        return {
            "source_id": self.source_id,
            "target_id": self.target_id,
            "role_map": dict(self.role_map),
            "sme_score": self.sme_score,
            "sme_normalized": self.sme_normalized,
            "proposer": self.proposer,
            "checks": dict(self.checks),
        }

    @classmethod
    def of(cls, m: RoleMapping) -> MappingRecord:
        return cls(
            m.source_id,
            m.target_id,
            m.role_map,
            m.sme_score,
            m.sme_normalized,
            m.proposer,
            m.checks.to_json(),
        )

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> MappingRecord:
        return cls(
            d["source_id"],
            d["target_id"],
            tuple(dict(d["role_map"]).items()),
            d.get("sme_score"),
            d.get("sme_normalized"),
            d.get("proposer", "sme"),
            dict(d.get("checks") or {}),
        )


@dataclass(frozen=True)
class AnalogyRun:
    """One invocation: why it fired, what it looked at, what it decided, what it cost.

    Attributes:
        trigger: why the run fired.
        target: the target signature's JSON (as encoded for this run), or None.
        candidates: the retrieval pool's candidates, with provenance.
        attempts: the trace of each mapping attempt and re-representation step (as logged).
        mapping / record / critic: the chosen mapping, its assessment and the critic's verdict;
            None when nothing was assessed (``not_assessed`` says why) or no critic is
            configured.
        structural_score: the chosen mapping's score; without one, the best score tried.
        plan: the planning loop's outcome (:mod:`analogist.plan`), for plan runs only.
        log_error: why the run could not be written to analogy_log (not stored).
    """

    run_id: str
    trigger: Trigger
    target_id: str | None
    target: Mapping[str, Any] | None
    candidates: tuple[Candidate, ...] = ()
    attempts: tuple[Mapping[str, Any], ...] = ()
    source: str | None = None
    mapping: MappingRecord | None = None
    structural_score: float | None = None
    record: Assessment | None = None
    critic: CriticVerdict | None = None
    transferred: tuple[str, ...] = ()
    predicted_observable: str | None = None
    verification_result: str | None = None
    outcome_delta: float | None = None
    not_assessed: str | None = None
    cost: Cost = field(default_factory=Cost)
    config: Mapping[str, Any] = field(default_factory=dict)
    plan: Mapping[str, Any] | None = None
    created_at: str = ""
    log_error: str | None = None

    @property
    def tier(self) -> int:
        return int(self.trigger.tier or 0)

    def to_json(self) -> dict[str, Any]:
        """The stored JSON (schema version :data:`RUN_SCHEMA_VERSION`)."""
        why = self.not_assessed
        out: dict[str, Any] = {
            "schema_version": RUN_SCHEMA_VERSION,
            "run_id": self.run_id,
            "created_at": self.created_at,
            "trigger": self.trigger.to_json(),
            "target_id": self.target_id,
            "target": dict(self.target) if self.target is not None else None,
            "candidates": [c.to_json() for c in self.candidates],
            "attempts": [dict(a) for a in self.attempts],
            "source": self.source,
            "mapping": (
                self.mapping.to_json()
                if self.mapping is not None
                else {"chosen": None, "why": why}
                if why
                else None
            ),
            "structural_score": self.structural_score,
            "record": self.record.to_json() if self.record is not None else None,
            "critic": (
                self.critic.to_json()
                if self.critic is not None
                else {"verdict": f"not run ({why})"}
                if why
                else None
            ),
            "transferred": list(self.transferred),
            "predicted_observable": self.predicted_observable or (f"none ({why})" if why else None),
            "verification_result": self.verification_result
            or (f"not run ({why})" if why else None),
            "outcome_delta": 0.0 if why and self.outcome_delta is None else self.outcome_delta,
            "not_assessed": why,
            "cost": self.cost.to_json(),
            "config": dict(self.config),
        }
        if self.plan is not None:
            out["plan"] = dict(self.plan)
        return out

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> AnalogyRun:
        """Read a stored run of any schema version (see the module docstring)."""
        version = int(d.get("schema_version", 1))
        if version > RUN_SCHEMA_VERSION:
            from analogist.errors import StoreError

            raise StoreError(
                f"analogy run {d.get('run_id')} has schema version {version}, newer "
                "than this analogist reads; upgrade analogist to read it"
            )
        mapping = d.get("mapping") or {}
        why = d.get("not_assessed") or (mapping.get("why") if "chosen" in mapping else None)
        critic = d.get("critic")
        verdict = CriticVerdict.from_json(critic) if critic and not why else None
        return cls(
            run_id=d["run_id"],
            trigger=Trigger.from_json(d.get("trigger") or {}),
            target_id=d.get("target_id"),
            target=d.get("target"),
            candidates=tuple(Candidate.from_json(c) for c in d.get("candidates", ())),
            attempts=tuple(d.get("attempts", ())),
            source=d.get("source"),
            mapping=MappingRecord.from_json(mapping) if mapping and not why else None,
            structural_score=d.get("structural_score"),
            record=Assessment.from_json(d["record"], verdict) if d.get("record") else None,
            critic=verdict,
            transferred=tuple(d.get("transferred", ())),
            predicted_observable=None if why else d.get("predicted_observable"),
            verification_result=None if why else d.get("verification_result"),
            outcome_delta=d.get("outcome_delta"),
            not_assessed=why,
            cost=Cost.from_json(d.get("cost") or {}),
            config=d.get("config") or {},
            plan=d.get("plan"),
            created_at=d.get("created_at", ""),
        )


def new_run_id(*parts: Any) -> str:
    """A run id: a short digest of the given parts (the same parts give the same id)."""
    h = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()
    return "run_" + h[:16]
