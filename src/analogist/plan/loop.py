"""The analogical planning loop (spec §14): retrieve -> map -> project -> repair -> validate ->
record.

1. *Retrieve*: the target's plan signature goes through the memory's ordinary channels
   (``Memory.search``); stored plan episodes that succeeded are the candidates (MAC), and SME
   compares each candidate's situation with the target's (FAC, :mod:`analogist.plan.describe`).
   The best one whose normalised SME score reaches ``min_normalized`` is the source.
2. *Map*: that SME interpretation's entity correspondences are the role map.
3. *Project*: the source's steps become a skeleton over the target, each step marked matched,
   unmatched precondition or missing operator (:mod:`analogist.plan.skeleton`).
4. *Repair*: the planner follows the skeleton as subgoals and fills its gaps, or abandons a
   broken skeleton and plans alone (:mod:`analogist.plan.repair`).
5. *Validate* the final plan against the grounded domain, and *record* the run in the analogy
   log and the applied transfer in the ledger.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from analogist.plan.describe import PlanMapping, describe_plan, map_plans
from analogist.plan.pddl import GroundProblem, PlanningError, ground
from analogist.plan.planner import Planner
from analogist.plan.repair import Repair, RepairPolicy, plan_alone, repair
from analogist.plan.skeleton import Skeleton, project
from analogist.reason.run import AnalogyRun, Cost, MappingRecord, new_run_id
from analogist.reason.triggers import Trigger
from analogist.retrieve.pool import Candidate
from analogist.signature.model import Signature
from analogist.store.runs import TransferOutcome

if TYPE_CHECKING:
    from analogist.memory import Memory


@dataclass(frozen=True)
class PlanLoop:
    """The loop's settings: planner, repair policy, channels and FAC limits."""

    planner: Planner = field(default_factory=Planner)
    policy: RepairPolicy = field(default_factory=RepairPolicy)
    channels: str = "S0,S1"
    k: int = 10
    max_candidates: int = 4
    min_normalized: float = 0.5

    def to_json(self) -> dict:
        return {
            "planner": self.planner.label,
            "max_expansions": self.planner.max_expansions,
            "policy": vars(self.policy),
            "channels": self.channels,
            "k": self.k,
            "max_candidates": self.max_candidates,
            "min_normalized": self.min_normalized,
        }


@dataclass(frozen=True)
class Considered:
    """A candidate plan episode: the channels that found it and its SME comparison."""

    episode_id: str
    found_by: tuple[str, ...]
    mapping: PlanMapping | None

    def to_json(self) -> dict:
        return {
            "episode_id": self.episode_id,
            "found_by": list(self.found_by),
            "mapping": self.mapping.to_json() if self.mapping else None,
        }


@dataclass(frozen=True)
class PlanOutcome:
    """One loop run: what was considered, the source and mapping used, the skeleton, the repair."""

    target_id: str
    considered: tuple[Considered, ...]
    source_id: str | None
    mapping: PlanMapping | None
    skeleton: Skeleton | None
    repair: Repair
    seconds: float
    run_id: str = ""

    def to_json(self) -> dict:
        return {
            "run_id": self.run_id,
            "target_id": self.target_id,
            "considered": [c.to_json() for c in self.considered],
            "source_id": self.source_id,
            "mapping": self.mapping.to_json() if self.mapping else None,
            "skeleton": self.skeleton.to_json() if self.skeleton else None,
            "repair": self.repair.to_json(),
            "seconds": round(self.seconds, 4),
        }


def roles_of(sig: Signature) -> dict[str, str | None]:
    return {r.name: r.type for r in sig.roles}


def with_source(
    target: Signature,
    source: Signature,
    gp: GroundProblem,
    loop: PlanLoop,
    role_map: Mapping[str, str] | None = None,
    mapping: PlanMapping | None = None,
) -> tuple[PlanMapping | None, Skeleton | None, Repair]:
    """Map (SME, unless ``role_map`` or an SME ``mapping`` made earlier is given), project and
    repair with one given source."""
    assert target.plan is not None and source.plan is not None
    if mapping is None and role_map is not None:
        mapping = PlanMapping(source.episode_id, tuple(sorted(role_map.items())), 0.0, 0.0)
    if mapping is None:
        mapping = map_plans(
            source.episode_id,
            describe_plan(source.episode_id, source.plan, source.role_names),
            describe_plan(target.episode_id, target.plan, target.role_names),
        )
        if mapping is None:
            return None, None, plan_alone(gp, loop.planner, reason="SME found no mapping")
    sk = project(source.episode_id, source.plan, target.plan, dict(mapping.role_map), gp)
    return mapping, sk, repair(gp, sk, loop.planner, loop.policy)


def _usable(sig: Signature | None) -> bool:
    return (
        sig is not None
        and sig.plan is not None
        and sig.plan.outcome == "succeeded"
        and bool(sig.plan.steps)
    )


def retrieve(
    memory: Memory, target: Signature, loop: PlanLoop
) -> tuple[tuple[Considered, ...], tuple[Candidate, ...]]:
    """MAC through the memory's channels, then FAC by SME over plan descriptions (best first);
    also the pool's candidates as the log keeps them."""
    assert target.plan is not None
    pool = memory.search(target, channels=loop.channels, k=loop.k)
    tdesc = describe_plan(target.episode_id, target.plan, target.role_names)
    out: list[Considered] = []
    for cand in pool.candidates:
        if len(out) >= loop.max_candidates:
            break
        sig = memory.store.get_episode(cand.episode_id).signature
        if not _usable(sig):
            continue
        assert sig is not None and sig.plan is not None
        m = map_plans(
            sig.episode_id, describe_plan(sig.episode_id, sig.plan, sig.role_names), tdesc
        )
        out.append(Considered(cand.episode_id, tuple(cand.found_by), m))
    ranked = tuple(sorted(out, key=lambda c: -(c.mapping.normalized if c.mapping else 0.0)))
    return ranked, tuple(pool.candidates)


def plan_target(
    memory: Memory, target: Signature, loop: PlanLoop = PlanLoop(), *, record: bool = True
) -> PlanOutcome:
    """Run the whole loop for one target plan signature (its plan block has no steps yet)."""
    if target.plan is None:
        raise PlanningError(
            f"{target.episode_id}: the target has no plan block (kind 'plan' with "
            "predicates, operators, init and goal)"
        )
    start = time.perf_counter()
    gp = ground(target.plan, roles_of(target))
    considered, pool = retrieve(memory, target, loop)
    best = considered[0] if considered and considered[0].mapping else None
    if best is None or best.mapping is None or best.mapping.normalized < loop.min_normalized:
        why = (
            "no stored plan reached the SME threshold"
            if considered
            else "no stored plan was retrieved"
        )
        rep = replace(plan_alone(gp, loop.planner), reason=why)
        out = PlanOutcome(
            target.episode_id, considered, None, None, None, rep, time.perf_counter() - start
        )
    else:
        source = memory.store.get_episode(best.episode_id).signature
        assert source is not None
        mapping, sk, rep = with_source(target, source, gp, loop, mapping=best.mapping)
        out = PlanOutcome(
            target.episode_id,
            considered,
            best.episode_id,
            mapping,
            sk,
            rep,
            time.perf_counter() - start,
        )
    return _record(memory, target, out, loop, pool) if record else out


def _record(
    memory: Memory, target: Signature, out: PlanOutcome, loop: PlanLoop, pool: tuple[Candidate, ...]
) -> PlanOutcome:
    """Write the run to the analogy log and, when a skeleton was applied, the ledger."""
    run_id = new_run_id("plan", target.episode_id, out.source_id, out.repair.operators, time.time())
    rep, m = out.repair, out.mapping
    mapping = (
        None
        if m is None
        else MappingRecord(
            m.source_id, target.episode_id, m.role_map, m.score, m.normalized, "sme", {}
        )
    )
    run = AnalogyRun(
        run_id,
        Trigger.manual(0, "analogist plan"),
        target.episode_id,
        target.to_json(),
        candidates=pool,
        source=out.source_id,
        mapping=mapping,
        structural_score=m.normalized if m else None,
        transferred=tuple(s.operator for s in rep.steps if s.provenance == "skeleton"),
        verification_result="valid plan" if rep.valid else "no valid plan",
        not_assessed=None if m else (rep.reason or "no source"),
        cost=Cost(wall_ms=out.seconds * 1000.0),
        config=loop.to_json(),
        plan=out.to_json(),
    )
    transfer = None
    if out.source_id is not None:
        used = rep.mode == "skeleton"
        transfer = TransferOutcome(
            f"plan skeleton of {out.source_id}",
            "resolved" if used and rep.valid else "worse",
            "planner alone",
        )
    memory.store.log_run(run.to_json(), transfer)
    return replace(out, run_id=run_id)
