"""Running the planning bench's arms (spec §14 metrics: success, expansions, wall time, plan
length).

Arms, each a configuration of the same loop (:mod:`analogist.plan.loop`):

- ``planner`` — the planner alone on the target;
- ``analogy`` — the whole loop: retrieve from memory, SME role map, project, repair;
- ``decoy`` — the item's decoy prior plan given as the source (SME role map), to measure what a
  wrong analogue costs and that the broken skeleton is caught;
- ``oracle`` — the true prior plan with the generator's gold role map. **Oracle**: it reads the
  key; it bounds what a perfect retrieval and mapping would give;
- ``macro`` — the planner alone with macro-actions compiled from the verified transfers in the
  analogy log (the analogy arm's validated skeleton plans of the *other* items, leave-one-out;
  :mod:`analogist.plan.macros`). It runs after the other arms of its planner.

Wall time covers everything an arm does after the bench is built: grounding, retrieval and
mapping where the arm has them, and search.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from analogist.bench.suites.planning.items import PlanBench, PlanItem, without_key
from analogist.episode import Episode
from analogist.errors import BenchError
from analogist.memory import Memory
from analogist.models.embedders import get_embedder
from analogist.plan.loop import PlanLoop, plan_target, roles_of, with_source
from analogist.plan.macros import learn_macros, plan_with_macros, verified_transfers
from analogist.plan.pddl import ground
from analogist.plan.planner import Planner
from analogist.plan.repair import Repair, plan_alone
from analogist.plan.skeleton import MATCHED, MISSING, UNMATCHED, Skeleton
from analogist.store import Store

ARMS = ("planner", "analogy", "decoy", "oracle", "macro")
ORACLE_ARMS = ("oracle",)


@dataclass(frozen=True)
class PlanScore:
    """One arm on one item under one planner."""

    item: str
    kind: str
    arm: str
    planner: str
    solved: bool
    expansions: int
    seconds: float
    length: int
    mode: str
    source: str | None
    source_was: str  # true | decoy | other | none (scoring reads the key)
    reason: str = ""
    skeleton: tuple[int, int, int] = (0, 0, 0)  # steps matched, unmatched precondition, missing
    decoy_kind: str = ""  # the item's decoy kind (scoring reads the key)

    def to_json(self) -> dict:
        return {k: (round(v, 5) if isinstance(v, float) else v) for k, v in vars(self).items()}


def _was(item: PlanItem, source: str | None) -> str:
    if source is None:
        return "none"
    return (
        "true"
        if source == item.true_source
        else "decoy"
        if source == item.decoy_source
        else "other"
    )


def _score(
    item: PlanItem,
    arm: str,
    planner: Planner,
    rep: Repair,
    seconds: float,
    source: str | None,
    sk: Skeleton | None,
) -> PlanScore:
    counts = (sk.count(MATCHED), sk.count(UNMATCHED), sk.count(MISSING)) if sk else (0, 0, 0)
    return PlanScore(
        item.id,
        item.kind,
        arm,
        planner.label,
        rep.solved,
        rep.expansions,
        seconds,
        len(rep.steps),
        rep.mode,
        source,
        _was(item, source),
        rep.reason,
        counts,
        item.decoy_kind,
    )


def open_memory(bench: PlanBench, db: str | Path = ":memory:") -> Memory:
    """A memory holding the bench's prior plans (hashing embedder: no model needed)."""
    memory = Memory(Store(db), embedder=get_embedder("hashing"))
    eps = [
        Episode(
            s.episode_id,
            "plan",
            s.level("L0"),
            "succeeded",
            provenance="planning bench",
            signature=s,
        )
        for s in bench.prior_plans
    ]
    report = memory.add(eps, all_or_nothing=True)
    if report.rejected:
        raise BenchError(f"planning bench: prior plans were rejected: {report.rejected[0]}")
    return memory


def run_item(
    memory: Memory, item: PlanItem, planner: Planner, loop: PlanLoop, arms: Sequence[str] = ARMS
) -> list[PlanScore]:
    """Every requested arm on one item; decoy and oracle only where the item has an analogue."""
    t = without_key(item).target
    assert t.plan is not None
    out = []
    for arm in arms:
        if arm == "macro" or (arm in ("decoy", "oracle") and item.kind != "analogue"):
            continue
        start = time.perf_counter()
        source: str | None = None
        sk: Skeleton | None = None
        if arm == "planner":
            rep = plan_alone(ground(t.plan, roles_of(t)), planner)
        elif arm == "analogy":
            res = plan_target(memory, t, loop)
            rep, source, sk = res.repair, res.source_id, res.skeleton
        else:  # the given source is the arm's manipulation; only the oracle gets the gold map
            source = item.decoy_source if arm == "decoy" else item.true_source
            assert source is not None
            src = memory.store.get_episode(source).signature
            assert src is not None
            gold = dict(item.gold_map) if arm == "oracle" else None
            _, sk, rep = with_source(t, src, ground(t.plan, roles_of(t)), loop, gold)
        out.append(_score(item, arm, planner, rep, time.perf_counter() - start, source, sk))
    return out


def run_planning(
    bench: PlanBench,
    planners: Sequence[Planner],
    arms: Sequence[str] | Mapping[Planner, Sequence[str]] = ARMS,
    db: str | Path = ":memory:",
    progress: Callable[[int, int, str], None] | None = None,
) -> list[PlanScore]:
    """All arms (the same for every planner, or per planner), items and planners; the analogy
    arm's runs go to ``db``'s analogy log."""
    scores: list[PlanScore] = []
    with open_memory(bench, db) as memory:
        total = len(planners) * len(bench.items)
        for pi, planner in enumerate(planners):
            loop = PlanLoop(planner=planner)
            mine = arms[planner] if isinstance(arms, Mapping) else arms
            for ii, item in enumerate(bench.items):
                scores += run_item(memory, item, planner, loop, mine)
                if progress:
                    progress(pi * len(bench.items) + ii + 1, total, planner.label)
            if "macro" in mine:
                scores += run_macros(memory, bench, planner)
    return scores


def run_macros(memory: Memory, bench: PlanBench, planner: Planner) -> list[PlanScore]:
    """The macro arm on every item, with macros learned from the other items' logged transfers."""
    logged = verified_transfers(memory.store.list_runs(), memory.store.vocabulary)
    by_target = {t.target_id: t for t in logged}  # one transfer per target (planners repeat them)
    out = []
    for item in bench.items:
        t = without_key(item).target
        assert t.plan is not None
        start = time.perf_counter()
        ref, macros = learn_macros([x for k, x in sorted(by_target.items()) if k != item.id])
        rep = plan_with_macros(t.plan, roles_of(t), ref, macros, planner)
        out.append(_score(item, "macro", planner, rep, time.perf_counter() - start, None, None))
    return out
