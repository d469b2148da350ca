"""The likeness / difference / unknown record of spec §10.1, for every accepted mapping.

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
"""

from __future__ import annotations

from dataclasses import dataclass, field

from analogist.verify.checks import StructuralChecks
from analogist.verify.gate import TransferDecision


@dataclass(frozen=True)
class LikenessRecord:
    """Everything a reader needs to judge one analogy, and nothing argumentative."""

    source: str
    mapped: tuple[tuple[str, str], ...]
    matches: tuple[str, ...]
    differences: tuple[str, ...]
    fails: tuple[str, ...]
    blockers: tuple[str, ...]
    transfer: tuple[TransferDecision, ...]
    predict: str | None = None
    check: str | None = None
    check_result: str | None = field(default=None)

    def to_json(self) -> dict:
        return {
            "source": self.source,
            "mapped": [list(p) for p in self.mapped],
            "matches": list(self.matches),
            "differences": list(self.differences),
            "fails": list(self.fails),
            "blockers": list(self.blockers),
            "transfer": [d.to_json() for d in self.transfer],
            "predict": self.predict,
            "check": self.check,
            "check_result": self.check_result,
        }

    def render(self) -> str:
        return render_record(self.to_json())


def render_record(rec: dict) -> str:
    """The §10.1 text of a record in its JSON form (as stored in the analogy log)."""
    rows = [("ANALOGY", [f"source={rec['source']}"]),
            ("MAPPED", [", ".join(f"{s}→{t}" for s, t in rec["mapped"]) or "(nothing)"]),
            ("MATCHES", [", ".join(rec["matches"]) or "(none)"])]
    if rec.get("differences"):
        rows.append(("DIFFERS", list(rec["differences"])))
    rows.append(("FAILS", [f"{f}: unknown in target" for f in rec["fails"]] or ["(none)"]))
    rows.append(("BLOCKERS", [f"target has {b}" for b in rec["blockers"]] or ["(none)"]))
    rows.append(("TRANSFER", [f"{t['inference']} → {t['decision']}  ({t['reason']})"
                              for t in rec["transfer"]] or ["(nothing to transfer)"]))
    rows.append(("PREDICT", [rec.get("predict") or "(no observable prediction)"]))
    check = rec.get("check") or "(no check available)"
    result = rec.get("check_result")
    if isinstance(result, dict):
        check += f" → {result.get('observed', '')}"
    elif result:
        check += f" → {result}"
    rows.append(("CHECK", [check]))
    return "\n".join(f"{h if i == 0 else '':<9} {v}" for h, vs in rows for i, v in enumerate(vs))


def build_record(
    source_id: str,
    checks: StructuralChecks,
    decisions: list[TransferDecision],
    predict: str | None,
    check: str | None,
) -> LikenessRecord:
    """Assemble the record from the checks and the gate's decisions."""
    a = checks.alignment
    return LikenessRecord(
        source=source_id,
        mapped=a.role_map,
        matches=tuple(dict.fromkeys(s.predicate for s, _ in a.matches)),
        differences=tuple(f"{s} ≠ {t}" for s, t in a.alignable_differences),
        fails=tuple(str(f) for f in a.source_only),
        blockers=tuple(str(b) for b in checks.unmatched_blockers),
        transfer=tuple(decisions),
        predict=predict,
        check=check,
    )
