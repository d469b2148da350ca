"""One SAGE step per verified analogy (see :mod:`analogist.learn.generalise`).

For a verified analogy (source S, target T, verified role map) in context c:

1. both S and T already belong to one generalisation of c: it is *confirmed*
   (times_verified + 1), nothing else changes;
2. otherwise every exemplar of the pair not yet generalised is compared by SME with each
   generalisation of c; the closest at or above the assimilation threshold *assimilates* it;
3. when neither was generalised and neither was assimilated, the pair *starts* a new
   generalisation, seeded by S and joined by T through the verified role map;
4. anything else (one exemplar generalised, the other below threshold) is *kept apart*: an
   exemplar belongs to one generalisation, as in SAGE.
"""

from __future__ import annotations

from dataclasses import dataclass

from analogist.learn.evidence import VerifiedAnalogy
from analogist.learn.generalise import Generalisation, Pools, schema_id_for


@dataclass(frozen=True)
class InductionEvent:
    """What one verified analogy did to the pools, with the SME evidence."""

    run_id: str
    action: str  # confirmed | assimilated | started | kept_apart
    schema_id: str | None
    added: tuple[str, ...]
    scores: tuple[tuple[str, float], ...]  # exemplar id -> normalised SME score that decided
    evidence: str

    def to_json(self) -> dict:
        return {
            "run_id": self.run_id,
            "action": self.action,
            "schema_id": self.schema_id,
            "added": list(self.added),
            "scores": dict(self.scores),
            "evidence": self.evidence,
        }


def _owner(pools: Pools, context: str, member: str) -> Generalisation | None:
    return next((g for g in pools.by_context.get(context, []) if member in g.members), None)


def induce_one(pools: Pools, a: VerifiedAnalogy, changed: set[str]) -> InductionEvent:
    """Apply one verified analogy to ``pools``; ids of touched generalisations go in ``changed``."""
    s, t = a.source, a.target
    gs, gt = _owner(pools, a.context, s.episode_id), _owner(pools, a.context, t.episode_id)
    if gs is not None and gs is gt:
        gs.times_verified += 1
        gs.runs.append(a.run_id)
        changed.add(gs.schema_id)
        return InductionEvent(a.run_id, "confirmed", gs.schema_id, (), (), a.evidence)
    loose = [x for x, g in ((s, gs), (t, gt)) if g is None]
    added, scores, where = [], [], None
    for x in loose:
        best = pools.best(a.context, x)
        if best is None:
            continue
        g, cmp = best
        if where is not None and g is not where:
            continue  # the pair stays together or apart
        g.assimilate(x, dict(cmp.binding), pools.vocab)
        g.runs.append(a.run_id)
        where = g
        added.append(x.episode_id)
        scores.append((x.episode_id, round(cmp.normalized, 6)))
    if where is not None:
        changed.add(where.schema_id)
        return InductionEvent(
            a.run_id, "assimilated", where.schema_id, tuple(added), tuple(scores), a.evidence
        )
    if len(loose) < 2:
        owner = gs or gt
        return InductionEvent(
            a.run_id, "kept_apart", owner.schema_id if owner else None, (), (), a.evidence
        )
    g = Generalisation(
        schema_id_for(a.context, s.episode_id, t.episode_id),
        a.context,
        {},
        kind=t.kind,
        summary=s.level("L3") or t.level("L3"),
    )
    g.assimilate(s, {r: r for r in s.role_names}, pools.vocab)
    g.assimilate(t, {tr: sr for sr, tr in a.role_map}, pools.vocab)
    g.runs.append(a.run_id)
    g.times_verified = 1
    pools.add_existing(g)
    changed.add(g.schema_id)
    return InductionEvent(
        a.run_id, "started", g.schema_id, (s.episode_id, t.episode_id), (), a.evidence
    )
