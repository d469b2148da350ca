"""Families that search a memory snapshot: F3 spontaneous retrieval, F7 synthetic worlds end
to end, F8 re-representation (spec §16.1).

Each item carries its own snapshot of stored episodes, built from the split's motifs only. The
target is the motif itself half the time and one of its decoys otherwise, and the snapshot holds
*every* structure of the target's motif (the motif and each decoy) exactly once:

- the valid source: the target's own structure in a *different* domain (absent from every third
  F3 item, which has no valid source at all: spec §16.3's no-match targets);
- the target's minimal-pair partner in the target's own skin (the surface trap), and any other
  structure of the motif in another skin;
- other motifs rendered in the target's domain (or, for a nonce target, other motifs' nonce
  skins), then fillers from other domains; their structures are drawn uniformly over each
  motif's structures too.

So within a snapshot and across a bench, how often a structure recurs says nothing about which
one is valid. Episodes are listed in time order, and times are random, so position says nothing.

F8 targets are written at a finer grain (one extra intermediate part). Its key holds the
executable ``check`` of the split world and a fix that resolves it: the source's fix with the
part put in place of the role it now stands in front of, when that works.
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
            out.append(ctx.case(m, v, skins[0], t_case.lexicon, ctx.stored_fix(m, v)))
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
    """A snapshot for ``t_case`` and the key-side role of every episode in it."""
    m = t_case.motif
    own = "true" if t_case.variant == "split" else t_case.variant
    near = partner(m, own, ordinal)
    labelled: list[tuple[Case, str]] = []
    if with_source:
        labelled.append((ctx.case(m, own, ctx.skin(m, avoid=(t_case.skin,)),
                                  fix=ctx.stored_fix(m, own)), "source"))
    labelled.append((ctx.case(m, near, t_case.skin, t_case.lexicon, ctx.stored_fix(m, near)),
                     "decoy_near"))
    for v in variants(m):
        if v not in (own, near):
            labelled.append((ctx.case(m, v, ctx.skin(m, avoid=(t_case.skin,)),
                                      fix=ctx.stored_fix(m, v)), "decoy_far"))
    labelled += [(c, "same_domain") for c in _same_domain(ctx, m, t_case)]
    labelled += [(c, "other") for c in _filler(ctx, m, MEMORY_SIZE - len(labelled), t_case.domain)]
    shown = [(episode(c, ctx.rng, ctx.taken), label) for c, label in labelled]
    shown.sort(key=lambda s: (s[0].record["time"], s[0].record["id"]))
    return [s for s, _ in shown], {s.record["id"]: label for s, label in shown}


def _retrieval(ctx: Context, slot: Slot, variant: str, with_source: bool):
    m = slot.motif
    t_case = ctx.case(m, variant, ctx.skin(m, nonce=slot.nonce))
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


def build_f8(ctx: Context, slot: Slot) -> Item:
    """F8: the target is written at a finer grain (one extra intermediate part), so its
    structure matches the source only after the two hops are read as one (level L2). Motifs
    whose split world no fix resolves are replaced by the next one of the split that has one."""
    m = slot.motif
    if split_fix(m.name) is None:
        usable = [x for x in ctx.pool if split_fix(x.name) is not None]
        m = usable[(ctx.pool.index(m) + slot.ordinal) % len(usable)]
        slot = Slot(slot.family, m, slot.ordinal, slot.nonce)
    snapshot, tgt, key = _retrieval(ctx, slot, "split", with_source=True)
    a, b = _ends(m.split.relation)
    key.update(level=m.split.level,
               split={"part": tgt.roles[m.split.part], "between": [tgt.roles[a], tgt.roles[b]]},
               fix=fix_in_target(split_fix(m.name), tgt))
    menu = operator_menu([m] + [s.case.motif for s in snapshot], ctx.rng, extra=2)
    inputs = {"target": tgt.record, "memory": [s.record for s in snapshot], "operators": menu}
    return ctx.item(slot, inputs, key)


def _ends(relation: str) -> tuple[str, str]:
    t = parse_term(relation)
    return str(t.args[0]), str(t.args[1])
