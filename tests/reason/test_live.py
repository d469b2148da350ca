"""Live-use counts are computed from the analogy log and the transfer ledger only."""

from datetime import UTC, datetime

from analogist.reason.live import live_use
from analogist.store import Store, TransferOutcome


def run(run_id, tier, transferred=(), verification=None, tokens=0, candidates=()):
    return {
        "run_id": run_id,
        "trigger": {"tier": tier, "reasons": ["t"]},
        "candidates": [{"episode_id": c} for c in candidates],
        "transferred": list(transferred),
        "verification_result": verification,
        "cost": {"input_tokens": tokens, "model_calls": 0},
    }


def test_counts_by_definition():
    s = Store()
    s.log_run(run("r0", 0, candidates=["e1"]))
    s.log_run(run("r0b", 0))
    s.log_run(run("r1", 1, ["fix"], "passed", tokens=100))
    s.log_run(run("r2", 1, ["fix"], "failed", tokens=300))
    s.log_run(run("r3", 2, [], None, tokens=500))
    s.record_transfer("r2", TransferOutcome("fix", "worse", "no action", 0.4))
    s.record_transfer("r1", TransferOutcome("fix", "resolved", "no action", -0.6))
    u = live_use(s, now=datetime.now(UTC))
    assert (u.opportunities, u.tier0_hits, u.tier1_runs, u.tier2_runs) == (5, 1, 2, 1)
    assert (u.useful, u.false_accepts, u.negative_transfers) == (1, 1, 1)
    assert u.median_token_cost == 300.0
