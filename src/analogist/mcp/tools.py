"""What each MCP tool does, as plain functions on a Memory (no MCP types here).

Each function validates its input, calls the same library code as the CLI command of the same
name, and returns JSON-ready data; bad input raises :class:`~analogist.errors.AnalogistError`
with the CLI's one-line message, which the server turns into a tool error.
"""

from __future__ import annotations

import json
from typing import Any

from analogist.errors import AnalogistError, EpisodeError
from analogist.memory import Memory

OUTCOMES = ("resolved", "unchanged", "worse")
MAX_LOG = 200


def add_episode(memory: Memory, episode: dict[str, Any] | str) -> dict:
    """Store one episode or bare signature (a JSON object or its JSON text), validated exactly
    as ``analogist add`` validates a line; a rejection is an error carrying its reason."""
    line = episode if isinstance(episode, str) else json.dumps(episode)
    report = memory.add([line], all_or_nothing=True)
    if report.rejected:
        raise EpisodeError(report.rejected[0][1])
    # a server is stopped more often than closed: keep its index snapshot near the database,
    # so a restart does not fold in everything added since the last save
    memory.indexes.save_if_worthwhile()
    eid = report.added[0]
    ep = memory.store.get_episode(eid)
    return {"added": eid, "kind": ep.kind, "domain": ep.domain, "signed": ep.signature is not None}


def search(
    memory: Memory,
    target: str,
    channels: str | None = None,
    k: int = 10,
    exclude: list[str] | None = None,
) -> dict:
    """The candidate pool for a stored episode id or text, each candidate with the channels
    that found it (provenance) and its ranks; no fused score (spec §7.1)."""
    _check_k(k)
    pool = memory.search(target, channels=channels, k=k, exclude=exclude or ())
    data = pool.to_json()
    data["target"]["kind"] = "text" if pool.target.get("episode_id") is None else "episode"
    return data


def analogize(
    memory: Memory,
    target: str | None = None,
    signature: dict | None = None,
    tier: int = 1,
    why: str = "agent request",
    model: str | None = None,
) -> dict:
    """Run the loop on a stored episode id, a signature object, or text (encoded by ``model``)
    and return the spec §10.1 record; the run is logged like ``analogist analogize``."""
    from analogist.cli.analogize_cmd import _target, run_json
    from analogist.reason.analogizer import Analogizer, AnalogizerConfig
    from analogist.reason.triggers import Trigger
    from analogist.signature import parse_signature

    if tier not in (0, 1, 2):
        raise AnalogistError(
            f"tier {tier!r} is not 0, 1 or 2 (0: lookup only, 1: full loop, "
            "2: with re-representation)"
        )
    if (target is None) == (signature is None):
        raise AnalogistError(
            "give exactly one of target (an episode id or text) and signature (a signature object)"
        )
    if signature is not None:
        sig, exclude = parse_signature(signature, memory.store.vocabulary), []
    else:
        assert target is not None  # exactly one of the two, checked above
        sig, exclude = _target(memory, target, model)
    config = AnalogizerConfig(rerep_attempts=2 if tier == 2 else 0)
    run = Analogizer(memory, config).run(sig, trigger=Trigger.manual(tier, why), exclude=exclude)
    out = {
        **run_json(run),
        "tier": tier,
        "accepted": run.record is not None,
        "logged": run.log_error is None,
        "log_error": run.log_error,
        "record_text": run.record.render() if run.record else None,
        "applied": run.record.applied.to_json() if run.record and run.record.applied else None,
    }
    return out


def map_episodes(memory: Memory, base: str, target: str) -> dict:
    """Map two stored episodes: the role mapping with its §8.2 checks (what the analogizer
    uses) and the Structure-Mapping Engine's interpretations (what ``analogist map`` prints)."""
    from analogist.mapping import match, to_fixture_json
    from analogist.signature.describe import describe
    from analogist.verify.roles import map_signatures

    store = memory.store
    b, t = store.get_signature(base), store.get_signature(target)
    found = map_signatures(b, t, store.vocabulary)
    sme = match(describe(b, store.vocabulary), describe(t, store.vocabulary))
    return {
        "base": base,
        "target": target,
        "role_mapping": found[0].to_json() if found else None,
        "score": found[0].score if found else 0.0,
        "sme": to_fixture_json(sme, detailed=True),
    }


def log(memory: Memory, run_id: str | None = None, limit: int = 20) -> dict:
    """Recent analogy runs, newest first (or one run in full), as stored in the analogy log."""
    if run_id:
        return {"runs": [memory.store.get_run(run_id)]}
    if not 1 <= limit <= MAX_LOG:
        raise AnalogistError(f"limit {limit} is out of range; give 1 to {MAX_LOG}")
    return {"runs": memory.store.list_runs(limit=limit)}


def record_outcome(
    memory: Memory,
    run_id: str,
    outcome: str,
    action: str | None = None,
    delta: float | None = None,
    control: str = "no action",
) -> dict:
    """Record what really happened when a run's transfer was applied: one row in the
    negative-transfer ledger (spec §10.2 item 7) and the run's verification result, in one
    transaction. ``action`` defaults to the run's first transferred inference."""
    from analogist.store import TransferOutcome

    if outcome not in OUTCOMES:
        raise AnalogistError(
            f"outcome {outcome!r} is not one of {', '.join(OUTCOMES)} "
            "(versus the no-action control)"
        )
    if delta is not None and not isinstance(delta, int | float):
        raise AnalogistError("delta must be a number (positive: worse than the control)")
    run = memory.store.get_run(run_id)
    if action is None:
        applied = (run.get("record") or {}).get("applied") or {}
        action = applied.get("action") or next(iter(run.get("transferred") or []), None)
        if action is None:
            raise AnalogistError(f"run {run_id} transferred nothing; name the action you applied")
    if not isinstance(action, str) or not action.strip():
        raise AnalogistError("action must be a non-empty string")
    transfer = TransferOutcome(action, outcome, control, delta)
    run = {**run, "verification_result": f"outcome reported: {outcome}", "outcome_delta": delta}
    ledger_id = memory.store.log_run(run, transfer)
    return {
        "run_id": run_id,
        "ledger_id": ledger_id,
        "action": action,
        "outcome": outcome,
        "delta": delta,
        "negative": transfer.negative,
    }


def vocabulary(memory: Memory) -> list[dict]:
    """The controlled vocabulary with usage counts (what ``analogist vocab --json`` prints)."""
    counts = memory.store.vocab_counts()
    return [{**t.to_json(), "count": counts.get(t.term, 0)} for t in memory.store.vocabulary]


def _check_k(k: int) -> None:
    if not isinstance(k, int) or not 1 <= k <= 1000:
        raise AnalogistError(f"k {k!r} is out of range; give 1 to 1000 hits per channel")


__all__ = [
    "OUTCOMES",
    "add_episode",
    "analogize",
    "log",
    "map_episodes",
    "record_outcome",
    "search",
    "vocabulary",
]
