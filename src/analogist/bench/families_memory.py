"""Families that search a memory snapshot: F3 spontaneous retrieval, F7 synthetic worlds end
to end, F8 re-representation (spec §16.1).

Each item carries its own snapshot of stored episodes, built from the split's motifs only. The
target is the motif itself half the time and one of its decoys otherwise, and the snapshot holds
two episodes of the target's motif, never in the target's own skin:

- the valid source: the target's own structure in a *different* domain, and one other structure
  of the motif ("decoy_near": the minimal-pair decoy of a true target, the other decoy of a decoy
  target); every third F3 item has no valid source at all (spec §16.3's no-match targets) and
  holds the motif's two other structures instead. So the motif's share of the snapshot, and
  whether its true structure is in it (half the time either way), say nothing about a match;
- surface traps: other motifs rendered in the target's domain (or, for a nonce target, other
  motifs' nonce skins in the target's invented world), then fillers from other domains; their
  structures are drawn uniformly over each motif's structures too.

So within a snapshot and across a bench, how often a structure recurs says nothing about which
one is valid, and no stored episode shares the target's entity names. Episodes are listed in time order, and times are random, so position says nothing.

F8 targets are written at a finer grain (one extra intermediate part), over the motif's true
structure or (half the time, where the motif allows) one of its decoys. The key holds the
executable ``check`` of the split world and a fix that resolves it (for the true structure, the
motif's fix with the part put in place of a role where the plain fix no longer reaches).
"""

from __future__ import annotations

import itertools
from functools import cache
from typing import Any

from analogist.bench.cases import Case, Shown, episode, target, twin_overlap
from analogist.bench.items import (
    Context,
    Item,
    Slot,
    check_spec,
    fix_in_target,
    operator_menu,
    partner,
    role_mapping,
    target_key,
    target_variant,
    variants,
)
from analogist.bench.library import LIBRARY
from analogist.bench.motif import Motif
from analogist.bench.signatures import gold_raw
from analogist.bench.world import world_for
from analogist.signature import parse_term

MEMORY_SIZE = 10


def _others(ctx: Context, motif: Motif) -> list[Motif]:
    rest = [m for m in ctx.pool if m is not motif]
    ctx.rng.shuffle(rest)
    return rest


def _any_variant(ctx: Context, m: Motif) -> str:
    vs = variants(m)
    return vs[ctx.rng.randrange(len(vs))]


def _same_domain(ctx: Context, motif: Motif, t_case: Case) -> list[Case]:
    out = []
    for m in _others(ctx, motif):
        skins = [s for s in m.skins if (s.kind == "nonce" if t_case.skin.kind == "nonce"
                                        else s.domain == t_case.domain)]
        if skins:
            v = _any_variant(ctx, m)
            out.append(ctx.case(m, v, skins[0], t_case.lexicon, ctx.stored_fix(m, v),
                                like=t_case.asides))
    return out[:3]


def _filler(ctx: Context, motif: Motif, n: int, avoid_domain: str) -> list[Case]:
    out: list[Case] = []
    others = _others(ctx, motif)
    while len(out) < n:
        m = others[len(out) % len(others)]
        skin = ctx.skin(m, avoid=tuple(s for s in m.skins if s.domain == avoid_domain))
        v = _any_variant(ctx, m)
        out.append(ctx.case(m, v, skin, fix=ctx.stored_fix(m, v)))
    return out


def memory(ctx: Context, t_case: Case, *, with_source: bool,
           ordinal: int = 0) -> tuple[list[Shown], dict[str, str]]:
    """A snapshot for ``t_case`` and the key-side role of every episode in it.

    The target's motif contributes two episodes, both in skins other than the target's: the
    valid source (the target's structure) and its minimal-pair partner — or, with no source,
    the partner and the motif's other structure. No stored episode shares the target's skin, so
    no entity name singles out the target's motif; the surface traps are the other motifs
    rendered in the target's domain.
    """
    m = t_case.motif
    own = "true" if t_case.variant == "split" else t_case.variant.removeprefix("split:")
    rest = [v for v in variants(m) if v != own]
    # the second structure: for a true target its minimal-pair decoy; for a decoy target the
    # motif's other decoy where there is one (so the true structure is in half the snapshots,
    # with a match or without)
    second = partner(m, own, ordinal) if own == "true" else \
        next((v for v in rest if v != "true"), "true")
    if with_source:
        cluster = [(own, "source"), (second, "decoy_near")]
    else:
        cluster = [(v, "decoy_near" if v == second else "decoy_far") for v in rest[:2]]
    # ordinary skins only: fillers are ordinary too, so a skin's kind never marks the motif
    skins = [s for s in m.skins if s is not t_case.skin and s.kind == "ordinary"]
    ctx.rng.shuffle(skins)
    labelled: list[tuple[Case, str]] = []
    for (v, label), skin in zip(cluster, skins):
        labelled.append((ctx.case(m, v, skin, fix=ctx.stored_fix(m, v)), label))
    labelled += [(c, "same_domain") for c in _same_domain(ctx, m, t_case)]
    labelled += [(c, "other") for c in _filler(ctx, m, MEMORY_SIZE - len(labelled), t_case.domain)]
    shown = [(episode(c, ctx.rng, ctx.taken), label) for c, label in labelled]
    shown.sort(key=lambda s: (s[0].record["time"], s[0].record["id"]))
    return [s for s, _ in shown], {s.record["id"]: label for s, label in shown}


def _retrieval(ctx: Context, slot: Slot, variant: str, with_source: bool):
    m = slot.motif
    # a memory target tells at least two asides, which its same-domain traps retell
    t_case = ctx.case(m, variant, ctx.skin(m, nonce=slot.nonce), least=2)
    snapshot, labels = memory(ctx, t_case, with_source=with_source, ordinal=slot.ordinal)
    tgt = target(t_case, ctx.rng, ctx.taken)
    source = next((s for s in snapshot if labels[s.record["id"]] == "source"), None)
    key: dict[str, Any] = {
        "gold_source": source.record["id"] if source else None, "keyed_matches": [],
        "has_valid_source": source is not None, "memory_roles": labels,
        "decoy_twin_overlap": {s.record["id"]: twin_overlap(s.case) for s in snapshot
                               if labels[s.record["id"]].startswith("decoy")
                               and s.case.variant != "true"},
        "far": source is not None and source.case.domain != t_case.domain, **target_key(tgt),
        "check": check_spec(tgt), "fix": fix_in_target(t_case.fix, tgt),
    }
    if source is not None:
        key["role_mapping"] = role_mapping(source, tgt)
    return snapshot, tgt, key


def build_f3(ctx: Context, slot: Slot) -> Item:
    """F3: target only plus a memory snapshot; every third item has no valid source (the key
    still holds the target's check and own fix)."""
    variant = target_variant(slot.motif, slot.ordinal)
    snapshot, tgt, key = _retrieval(ctx, slot, variant, with_source=slot.ordinal % 3 != 1)
    inputs = {"target": tgt.record, "memory": [s.record for s in snapshot]}
    return ctx.item(slot, inputs, key)


def build_f7(ctx: Context, slot: Slot) -> Item:
    """F7: a nonce-skinned target, end to end: retrieve, map, and pick a fix from the menu."""
    nonce_slot = Slot(slot.family, slot.motif, slot.ordinal, True)
    variant = target_variant(slot.motif, slot.ordinal)
    snapshot, tgt, key = _retrieval(ctx, nonce_slot, variant, with_source=True)
    menu = operator_menu([slot.motif] + [s.case.motif for s in snapshot], ctx.rng, extra=2)
    inputs = {"target": tgt.record, "memory": [s.record for s in snapshot], "operators": menu}
    return ctx.item(slot, inputs, key)


SPLIT_FIXES: dict[str, str | None] = {
    # found by search_split_fix (the motif's own operator first, then the library) and tested to
    # resolve the split world (tests/bench/test_parb_worlds.py); None: no operator resolves it
    "stale_copy": "reconcile(CON,DER,SRC)", "observer_failure": "heartbeat(MON)",
    "masking_cause": "expose(AGG,CMP)", "positive_feedback": None,
    "starvation": "age_priority(HOG,VIC)", "priority_inversion": "inherit_priority(LO,HI)",
    "survivorship_filter": "expose(STG,FIL)", "proxy_optimisation": "realign(PRX,GOAL)",
    "race_condition": "serialize(CHK,MUT)", "shared_dependency_cascade": "circuit_break(MID,POOL)",
    "retry_amplification": "backoff(CLI,SRV)", "circular_wait": "order_locks(T2,L1,L2)",
    "alarm_fatigue": "dedupe(ALM,DSP)", "confounded_correlation": "stratify(DM,RPT,CFD)",
    "missing_backpressure": "backpressure(Q,PRD)", "version_skew": "upgrade(OLD,NEW)",
    "thundering_herd": "jitter(CCH)", "hidden_spof": "diversify(SEC,STG)",
    "observer_effect": "cap_usage(PRB,TGT)", "fail_open_guard": "fail_closed(GRD,FLT)",
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
    from analogist.bench.motifs import motif as by_name

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
    from analogist.bench.motifs import motif as by_name

    m = by_name(name)
    out = []
    for d in m.decoys:
        if d.edit.element == m.split.relation or m.fact_of(d.edit.element) == m.fact_of(m.split.relation):
            continue
        w = world_for(m, f"split:{d.name}")
        if all(w.simulate(d.fix, s).result == "resolved" for s in range(6)):
            out.append(d.name)
    return tuple(out)


def build_f8(ctx: Context, slot: Slot) -> Item:
    """F8: the target is written at a finer grain (one extra intermediate part), so its
    structure matches the source only after the two hops are read as one (level L2). Motifs
    whose split world no fix resolves are replaced by the next one of the split that has one."""
    m = slot.motif
    if split_fix(m.name) is None:
        usable = [x for x in ctx.pool if split_fix(x.name) is not None]
        m = usable[(ctx.pool.index(m) + slot.ordinal) % len(usable)]
        slot = Slot(slot.family, m, slot.ordinal, slot.nonce)
    # half the targets are a decoy structure written at the finer grain, so the valid source is
    # not always the motif's true structure
    decoys = split_decoys(m.name)
    variant = "split"
    if decoys and (slot.ordinal // 2 + slot.ordinal) % 2 == 1:
        variant = f"split:{decoys[(slot.ordinal // 4) % len(decoys)]}"
    snapshot, tgt, key = _retrieval(ctx, slot, variant, with_source=True)
    a, b = _ends(m.split.relation)
    fix = split_fix(m.name) if variant == "split" else m.variant(variant[6:]).fix
    key.update(level=m.split.level,
               split={"part": tgt.roles[m.split.part], "between": [tgt.roles[a], tgt.roles[b]]},
               fix=fix_in_target(fix, tgt))
    menu = operator_menu([m] + [s.case.motif for s in snapshot], ctx.rng, extra=2)
    inputs = {"target": tgt.record, "memory": [s.record for s in snapshot], "operators": menu}
    return ctx.item(slot, inputs, key)


def _ends(relation: str) -> tuple[str, str]:
    t = parse_term(relation)
    return str(t.args[0]), str(t.args[1])
