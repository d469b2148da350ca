"""The Assessment of one accepted mapping: the likeness / difference / unknown record of
spec §10.1 with the per-inference transfer decisions, the critic's verdict, the prediction and
what its check observed.

::

    ANALOGY   source=ep_0213
    MAPPED    DER→cache_summary, SRC→sensor, CON→health_reporter
    MATCHES   derives_from, trusts_as_authoritative, skips_check
    FAILS     diverges_from: unknown in target
    BLOCKERS  target has TTL eviction
    TRANSFER  reconcile-before-assert → YES
              "cache is stale"        → NO
    PREDICT   direct sensor read will disagree with cache
    CHECK     perform one source read; abort analogy if prediction fails

It is a value (frozen, JSON in and out): the analogizer builds it, the run log stores it
(``AnalogyRun.record``), and the benchmark and the CLI read it back with :meth:`from_json`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from analogist.verify.checks import StructuralChecks
from analogist.verify.critic import CriticVerdict
from analogist.verify.gate import TransferDecision
from analogist.verify.predict import CheckResult


@dataclass(frozen=True)
class TransferRecord:
    """One inference's decision as recorded: the projected text, its kind (``fact`` |
    ``action``), the source element, YES/NO and the reason.

    ``support`` and ``extrapolation`` are SME's scores for the inference when the structure
    mapper produced it (None when it did not).
    """

    inference: str
    kind: str
    source: str
    transfer: bool
    reason: str
    support: float | None = None
    extrapolation: float | None = None

    @property
    def decision(self) -> str:
        return "YES" if self.transfer else "NO"

    @classmethod
    def of(cls, d: TransferDecision) -> TransferRecord:
        ci = d.inference
        return cls(
            ci.projected, ci.kind, ci.source, d.transfer, d.reason, ci.support, ci.extrapolation
        )

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "inference": self.inference,
            "kind": self.kind,
            "source": self.source,
            "decision": self.decision,
            "reason": self.reason,
        }
        if self.support is not None or self.extrapolation is not None:
            out.update(support=self.support, extrapolation=self.extrapolation)
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TransferRecord:
        return cls(
            d["inference"],
            d["kind"],
            d["source"],
            d["decision"] == "YES",
            d["reason"],
            d.get("support"),
            d.get("extrapolation"),
        )


@dataclass(frozen=True)
class AppliedTransfer:
    """A transferred action that the check applied, and its outcome versus no action."""

    action: str
    outcome: str

    def to_json(self) -> dict[str, Any]:
        return {"action": self.action, "outcome": self.outcome}


@dataclass(frozen=True)
class Assessment:
    """Everything a reader needs to judge one analogy, and nothing argumentative.

    Attributes:
        source: the source episode id.
        mapped: (source role, target role) pairs.
        matches: predicates matched under the mapping.
        differences: alignable differences, ``source ≠ target``.
        fails: source facts unknown in the target.
        blockers: target blockers with no source counterpart.
        transfer: one decision per candidate inference, after critic and check.
        predict / check: the prediction stated before acting and how to test it.
        check_result: what the check observed (None only before the check ran).
        target_matches: target facts the mapping found already true.
        critic: the critic's verdict; None when the configuration runs no critic.
        applied: the action the check applied, with its outcome (None: nothing applied).
    """

    source: str
    mapped: tuple[tuple[str, str], ...]
    matches: tuple[str, ...]
    differences: tuple[str, ...]
    fails: tuple[str, ...]
    blockers: tuple[str, ...]
    transfer: tuple[TransferRecord, ...]
    predict: str | None = None
    check: str | None = None
    check_result: CheckResult | None = None
    target_matches: tuple[str, ...] = ()
    critic: CriticVerdict | None = None
    applied: AppliedTransfer | None = None

    @property
    def transferred(self) -> tuple[TransferRecord, ...]:
        return tuple(t for t in self.transfer if t.transfer)

    def to_json(self) -> dict[str, Any]:
        """The stored form (``AnalogyRun`` JSON ``record``; the critic is stored beside it)."""
        out: dict[str, Any] = {
            "source": self.source,
            "mapped": [list(p) for p in self.mapped],
            "matches": list(self.matches),
            "differences": list(self.differences),
            "fails": list(self.fails),
            "blockers": list(self.blockers),
            "transfer": [t.to_json() for t in self.transfer],
            "predict": self.predict,
            "check": self.check,
            "check_result": self.check_result.to_json() if self.check_result else None,
            "target_matches": list(self.target_matches),
        }
        if self.applied is not None:
            out["applied"] = self.applied.to_json()
        return out

    @classmethod
    def from_json(cls, d: dict[str, Any], critic: CriticVerdict | None = None) -> Assessment:
        """Read a stored record (every schema version writes this shape)."""
        chk, applied = d.get("check_result"), d.get("applied")
        return cls(
            d["source"],
            tuple((s, t) for s, t in d["mapped"]),
            tuple(d["matches"]),
            tuple(d.get("differences", ())),
            tuple(d["fails"]),
            tuple(d["blockers"]),
            tuple(TransferRecord.from_json(t) for t in d["transfer"]),
            d.get("predict"),
            d.get("check"),
            CheckResult.from_json(chk) if isinstance(chk, dict) else None,
            tuple(d.get("target_matches", ())),
            critic,
            AppliedTransfer(applied["action"], applied["outcome"]) if applied else None,
        )

    def render(self) -> str:
        """The §10.1 text."""
        rows = [
            ("ANALOGY", [f"source={self.source}"]),
            ("MAPPED", [", ".join(f"{s}→{t}" for s, t in self.mapped) or "(nothing)"]),
            ("MATCHES", [", ".join(self.matches) or "(none)"]),
        ]
        if self.differences:
            rows.append(("DIFFERS", list(self.differences)))
        rows.append(("FAILS", [f"{f}: unknown in target" for f in self.fails] or ["(none)"]))
        rows.append(("BLOCKERS", [f"target has {b}" for b in self.blockers] or ["(none)"]))
        rows.append(
            (
                "TRANSFER",
                [f"{t.inference} → {t.decision}  ({t.reason})" for t in self.transfer]
                or ["(nothing to transfer)"],
            )
        )
        rows.append(("PREDICT", [self.predict or "(no observable prediction)"]))
        check = self.check or "(no check available)"
        if self.check_result is not None:
            check += f" → {self.check_result.observed}"
        rows.append(("CHECK", [check]))
        return "\n".join(
            f"{h if i == 0 else '':<9} {v}" for h, vs in rows for i, v in enumerate(vs)
        )


def build_assessment(
    source_id: str,
    checks: StructuralChecks,
    decisions: list[TransferDecision],
    predict: str | None,
    check: str | None,
) -> Assessment:
    """Assemble the record from the checks and the gate's decisions (critic and check result
    are added by the analogizer as they happen)."""
    a = checks.alignment
    return Assessment(
        source=source_id,
        mapped=a.role_map,
        matches=tuple(dict.fromkeys(s.predicate for s, _ in a.matches)),
        differences=tuple(f"{s} ≠ {t}" for s, t in a.alignable_differences),
        fails=tuple(str(f) for f in a.source_only),
        blockers=tuple(str(b) for b in checks.unmatched_blockers),
        transfer=tuple(TransferRecord.of(d) for d in decisions),
        predict=predict,
        check=check,
        target_matches=tuple(str(t) for _, t in a.matches),
    )
