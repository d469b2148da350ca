"""What consolidation learns from: verified analogies read back from the analogy log.

An analogy run is *verified* when the pipeline's own verification kept it: a source was chosen,
the critic accepted the mapping, the prediction check did not fail, and no transfer-ledger row
of the run made things worse. ``evidence`` says how strong that is: ``checked`` (the check ran
and passed — a sandbox, a world, or an outcome reported later) or ``critic`` (the check was not
available). Consolidation never reads answer keys: in the benchmark these verdicts are the
engine's own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from analogist.errors import AnalogistError
from analogist.learn.generalise import context_of
from analogist.signature.model import Signature, parse_signature
from analogist.signature.vocabulary import Vocabulary


@dataclass(frozen=True)
class VerifiedAnalogy:
    """One verified analogy: source and target signatures and the verified role map."""

    run_id: str
    source: Signature
    target: Signature
    target_stored: bool
    role_map: tuple[tuple[str, str], ...]  # source role -> target role
    context: str
    evidence: str


@dataclass(frozen=True)
class Verdict:
    """How one logged run counts for consolidation (``status``: verified, rejected, no_source,
    negative, unreadable) and why."""

    run_id: str
    status: str
    why: str


def verdict(run: Mapping, negative: bool, require_check: bool) -> Verdict:
    """Classify a logged run (see the module docstring)."""
    rid = str(run.get("run_id"))
    if not run.get("source"):
        return Verdict(rid, "no_source", "no source was accepted")
    if negative:
        return Verdict(rid, "negative", "a transfer of this run made the target worse")
    critic = (run.get("critic") or {}).get("verdict")
    if critic != "accept":
        return Verdict(rid, "rejected", f"critic verdict {critic!r}")
    result = run.get("verification_result")
    if result == "failed":
        return Verdict(rid, "rejected", "the prediction check failed")
    if require_check and result != "passed":
        return Verdict(rid, "rejected", f"check {result!r} (policy requires a passed check)")
    return Verdict(rid, "verified", "checked" if result == "passed" else "critic")


def read_analogy(
    run: Mapping, source: Signature, vocab: Vocabulary, evidence: str, stored_target: bool
) -> VerifiedAnalogy:
    """The verified analogy of a run whose source signature is ``source``.

    The target's member id is its stored episode id, else ``<run_id>:target``.

    Raises:
        AnalogistError: the run's target or mapping cannot be read back.
    """
    raw = run.get("target")
    if not isinstance(raw, Mapping):
        raise AnalogistError(f"run {run.get('run_id')}: no target signature in the log")
    target_id = run.get("target_id") if stored_target else f"{run['run_id']}:target"
    target = parse_signature({**raw, "episode_id": target_id}, vocab)
    role_map = (run.get("mapping") or {}).get("role_map") or {}
    tier = int((run.get("trigger") or {}).get("tier") or 0)
    return VerifiedAnalogy(
        str(run["run_id"]),
        source,
        target,
        stored_target,
        tuple(sorted(role_map.items())),
        context_of(target, tier),
        evidence,
    )


def negative_runs(ledger_rows: Sequence[Mapping]) -> set[str]:
    """Run ids with a ledger row marked negative."""
    return {str(r["run_id"]) for r in ledger_rows if r.get("negative")}
