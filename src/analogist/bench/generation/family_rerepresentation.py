"""F8 re-representation: the match appears only once two hops are read as one (spec §16.1).

An F8 target is written at a finer grain (the motif's split variant: one extra intermediate
part), over any structure of the motif that can be written so (:func:`_f8_structures`: the true
structure, the decoys of :func:`split_decoys` and the partial variant when
:func:`split_partial`). F8 snapshots show :data:`F8_CLUSTER` of those structures for every
motif, so how many episodes a motif has says nothing about which is the target's. The key holds
the executable ``check`` of the split world and a fix that resolves it: for the true structure
:data:`SPLIT_FIXES` (the motif's fix with the part put in place of a role where the plain fix no
longer reaches), found by :func:`search_split_fix` and tested; for a decoy or the partial
variant, its own fix. Motifs with fewer usable structures take no F8 target
(:func:`f8_motifs` replaces them per bench).
"""

from __future__ import annotations

import itertools
import random
from functools import cache

from analogist.bench.generation.family_retrieval import memory_target, retrieval_parts
from analogist.bench.generation.items import Context, Item, Slot, fix_in_target, operator_menu
from analogist.bench.generation.library import LIBRARY
from analogist.bench.generation.motif import Motif
from analogist.bench.generation.signatures import gold_raw
from analogist.bench.generation.world import world_for
from analogist.signature import parse_term

SPLIT_FIXES: dict[str, str | None] = {
    # found by search_split_fix (the motif's own operator first, then the library) and tested to
    # resolve the split world (tests/bench/test_parb_worlds.py); None: no operator resolves it
    "stale_copy": "reconcile(CON,DER,SRC)",
    "observer_failure": "heartbeat(MON)",
    "masking_cause": "expose(AGG,CMP)",
    "positive_feedback": None,
    "starvation": "age_priority(HOG,VIC)",
    "priority_inversion": "inherit_priority(LO,HI)",
    "survivorship_filter": "expose(STG,FIL)",
    "proxy_optimisation": "realign(PRX,GOAL)",
    "race_condition": "serialize(CHK,MUT)",
    "shared_dependency_cascade": "circuit_break(MID,POOL)",
    "retry_amplification": "backoff(CLI,SRV)",
    "circular_wait": "order_locks(T2,L1,L2)",
    "alarm_fatigue": "dedupe(ALM,DSP)",
    "confounded_correlation": "stratify(DM,RPT,CFD)",
    "missing_backpressure": "backpressure(Q,PRD)",
    "version_skew": "upgrade(OLD,NEW)",
    "thundering_herd": "jitter(CCH)",
    "hidden_spof": "diversify(SEC,STG)",
    "observer_effect": "cap_usage(PRB,TGT)",
    "fail_open_guard": "fail_closed(GRD,FLT)",
}


def split_fix(name: str) -> str | None:
    """The fix keyed for F8 targets of motif ``name`` (None: F8 skips the motif)."""
    return SPLIT_FIXES.get(name)


@cache
def search_split_fix(name: str) -> str | None:
    """A fix over the split world's roles that resolves it (checked under seeds 0-5), or None.

    Tried in order: the motif's fix as written; its operator over every ordering of the split
    world's roles (the part put in place of a neighbour); any library operator.
    """
    from analogist.bench.generation.motifs import motif as by_name

    m = by_name(name)
    w = world_for(m, "split")
    roles = list(gold_raw(m, "split")["roles"])

    def works(fix: str) -> bool:
        return all(w.simulate(fix, s).result == "resolved" for s in range(6))

    if works(m.fix):
        return m.fix
    first = parse_term(m.fix).functor
    ops = [LIBRARY[first]] + [op for n, op in sorted(LIBRARY.items()) if n != first]
    for op in ops:
        for args in itertools.permutations(roles, op.arity):
            fix = f"{op.name}({','.join(args)})"
            if works(fix):
                return fix
    return None


@cache
def split_decoys(name: str) -> tuple[str, ...]:
    """Decoys of motif ``name`` that can also be written at the finer grain: the decoy's edit
    and the split rewrite different facts, and the decoy's own fix resolves the split world."""
    from analogist.bench.generation.motifs import motif as by_name

    m = by_name(name)
    out = []
    for d in m.decoys:
        if d.edit.element == m.split.relation or m.fact_of(d.edit.element) == m.fact_of(
            m.split.relation
        ):
            continue
        w = world_for(m, f"split:{d.name}")
        if all(w.simulate(d.fix, s).result == "resolved" for s in range(6)):
            out.append(d.name)
    return tuple(out)


F8_CLUSTER = 2
"""Structures shown per motif in an F8 snapshot: one size for every motif, so how many
episodes a motif has says nothing about which is the target's (motifs that can be written at
the finer grain in fewer structures neither take F8 targets nor fill F8 snapshots)."""


def f8_motifs(chosen: list[Motif], pool: tuple[Motif, ...], rng: random.Random) -> list[Motif]:
    """``chosen`` (a bench's F8 target motifs, in slot order) with every motif that cannot take
    an F8 target replaced by a usable one, drawn per bench without replacement (cycling), so
    the motifs that get the extra items differ from bench to bench and no motif is the source
    more often across benches (a fixed replacement made four dev motifs the source half as
    often again as the others, which their fix operator alone gave away)."""
    usable = [m for m in pool if len(_f8_structures(m)) >= F8_CLUSTER]
    if not usable:
        return chosen
    deck: list[Motif] = []
    out = []
    for m in chosen:
        if len(_f8_structures(m)) >= F8_CLUSTER:
            out.append(m)
            continue
        if not deck:
            deck = list(usable)
            rng.shuffle(deck)
        out.append(deck.pop())
    return out


def build_f8(ctx: Context, slot: Slot) -> Item:
    """F8: the target is written at a finer grain (one extra intermediate part), so its
    structure matches the source only after the two hops are read as one (level L2). Motifs
    whose split world no fix resolves are replaced by the next one of the split that has one."""
    m = slot.motif
    if len(_f8_structures(m)) < F8_CLUSTER:
        usable = [x for x in ctx.pool if len(_f8_structures(x)) >= F8_CLUSTER]
        m = usable[(ctx.pool.index(m) + slot.ordinal) % len(usable)]
        slot = Slot(slot.family, m, slot.ordinal, slot.nonce)
    # the target is the true structure or a decoy written at the finer grain, uniformly; the
    # snapshot holds exactly the structures an F8 target can take, so each is the source as often
    variant = memory_target(
        ctx, [f"split:{v}" if v != "true" else "split" for v in _f8_structures(m)]
    )
    snapshot, tgt, key = retrieval_parts(
        ctx, slot, variant, with_source=True, structures=_f8_structures, per_motif=F8_CLUSTER
    )
    a, b = _ends(m.split.relation)
    fix = (split_fix(m.name) or m.fix) if variant == "split" else m.variant(variant[6:]).fix
    key.update(
        level=m.split.level,
        split={"part": tgt.roles[m.split.part], "between": [tgt.roles[a], tgt.roles[b]]},
        fix=fix_in_target(fix, tgt),
    )
    menu = operator_menu([m] + [s.case.motif for s in snapshot], ctx.rng, extra=2)
    inputs = {"target": tgt.record, "memory": [s.record for s in snapshot], "operators": menu}
    return ctx.item(slot, inputs, key)


def _f8_structures(m: Motif) -> list[str]:
    """The structures an F8 target of ``m`` can take, unsplit (none: F8 never targets ``m``);
    an F8 snapshot shows every motif in these only, so no structure is the source more often."""
    if split_fix(m.name) is None:
        return []
    return ["true", *split_decoys(m.name), *(["partial"] if split_partial(m.name) else [])]


@cache
def split_partial(name: str) -> bool:
    """Whether motif ``name``'s partial variant can also be written at the finer grain: its
    edit and the split rewrite different facts, and its fix resolves the split world."""
    from analogist.bench.generation.motifs import motif as by_name

    m = by_name(name)
    if m.fact_of(m.partial.edit.element) == m.fact_of(m.split.relation):
        return False
    w = world_for(m, "split:partial")
    return all(w.simulate(m.partial.fix, s).result == "resolved" for s in range(6))


def _ends(relation: str) -> tuple[str, str]:
    t = parse_term(relation)
    return str(t.args[0]), str(t.args[1])
