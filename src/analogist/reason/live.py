"""Live-use counts from the analogy log (spec §28 "Live use — last 7 days").

Definitions (computed only from logged rows, never re-run):

- opportunities: runs whose trigger fired (every logged run);
- tier-0 hits: tier-0 runs that found at least one candidate;
- tier-1 / tier-2 runs: runs at those tiers;
- useful analogies: runs that transferred something and whose check passed;
- false accepts: runs that transferred something and whose check failed;
- negative transfers: ledger entries marked negative in the window;
- median token cost: median tokens over tier ≥ 1 runs.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta

from analogist.reason.run import AnalogyRun
from analogist.store import StoreInterface


@dataclass(frozen=True)
class LiveUse:
    days: int
    opportunities: int
    tier0_hits: int
    tier1_runs: int
    tier2_runs: int
    useful: int
    false_accepts: int
    negative_transfers: int
    median_token_cost: float | None

    def to_json(self) -> dict:
        return asdict(self)


def live_use(store: StoreInterface, days: int = 7, now: datetime | None = None) -> LiveUse:
    now = now or datetime.now(UTC)
    since = (now - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%SZ")
    runs = [AnalogyRun.from_json(r) for r in store.list_runs(since=since)]
    transferred = [r for r in runs if r.transferred]
    costs = [r.cost.tokens for r in runs if r.tier >= 1]
    negatives = [e for e in store.ledger() if e.negative and e.created_at >= since]
    return LiveUse(
        days=days,
        opportunities=len(runs),
        tier0_hits=sum(1 for r in runs if r.tier == 0 and r.candidates),
        tier1_runs=sum(1 for r in runs if r.tier == 1),
        tier2_runs=sum(1 for r in runs if r.tier == 2),
        useful=sum(1 for r in transferred if r.verification_result == "passed"),
        false_accepts=sum(1 for r in transferred if r.verification_result == "failed"),
        negative_transfers=len(negatives),
        median_token_cost=float(statistics.median(costs)) if costs else None,
    )
