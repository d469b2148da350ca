"""Families that search a memory snapshot: F3 spontaneous retrieval, F7 synthetic worlds end
to end, F8 re-representation (spec §16.1).

Each item carries its own snapshot of stored episodes, built from the split's motifs only:

- the true source (when there is one): the target's motif in a *different* domain;
- surface traps: a minimal-pair decoy of the target's motif in the target's own skin, a second
  decoy in another skin, and other motifs rendered in the target's domain (or, for a nonce
  target, other motifs' nonce skins);
- fillers: other motifs in other domains, some of them decoy variants.

Episodes are listed in time order, and times are random, so position says nothing. Every third
F3 item has no valid source at all (spec §16.3: no-match targets).
"""

from __future__ import annotations

from typing import Any

from analogist.bench.cases import Case, Shown, episode, target, twin_overlap
from analogist.bench.items import (
    Context,
    Item,
    Slot,
    check_spec,
    fix_in_target,
    operator_menu,
    role_mapping,
    target_key,
)
from analogist.bench.motif import Motif

MEMORY_SIZE = 10


def _others(ctx: Context, motif: Motif) -> list[Motif]:
    rest = [m for m in ctx.pool if m is not motif]
    ctx.rng.shuffle(rest)
    return rest


def _same_domain(ctx: Context, motif: Motif, t_case: Case) -> list[Case]:
    out = []
    for m in _others(ctx, motif):
        skins = [s for s in m.skins if (s.kind == "nonce" if t_case.skin.kind == "nonce"
                                        else s.domain == t_case.domain)]
        if skins:
            out.append(ctx.case(m, "true", skins[0], t_case.lexicon, ctx.stored_fix(m, "true")))
    return out[:3]


def _filler(ctx: Context, motif: Motif, n: int, avoid_domain: str) -> list[Case]:
    out: list[Case] = []
    others = _others(ctx, motif)
    while len(out) < n:
        m = others[len(out) % len(others)]
        skin = ctx.skin(m, avoid=tuple(s for s in m.skins if s.domain == avoid_domain))
        variant = "true" if ctx.rng.random() < 0.7 else m.decoys[ctx.rng.randrange(len(m.decoys))].name
        out.append(ctx.case(m, variant, skin, fix=ctx.stored_fix(m, variant)))
    return out


def memory(ctx: Context, t_case: Case, *, with_source: bool) -> tuple[list[Shown], dict[str, str]]:
    """A snapshot for ``t_case`` and the key-side role of every episode in it."""
    m = t_case.motif
    labelled: list[tuple[Case, str]] = []
    if with_source:
        source = ctx.case(m, "true", ctx.skin(m, avoid=(t_case.skin,)), fix=ctx.stored_fix(m, "true"))
        labelled.append((source, "source"))
    first, second = m.decoys[0], m.decoys[-1]
    labelled.append((ctx.case(m, first.name, t_case.skin, t_case.lexicon), "decoy_near"))
    labelled.append((ctx.case(m, second.name, ctx.skin(m, avoid=(t_case.skin,))), "decoy_far"))
    labelled += [(c, "same_domain") for c in _same_domain(ctx, m, t_case)]
    labelled += [(c, "other") for c in _filler(ctx, m, MEMORY_SIZE - len(labelled), t_case.domain)]
    shown = [(episode(c, ctx.rng, ctx.taken), label) for c, label in labelled]
    shown.sort(key=lambda s: (s[0].record["time"], s[0].record["id"]))
    return [s for s, _ in shown], {s.record["id"]: label for s, label in shown}


def _retrieval(ctx: Context, slot: Slot, variant: str, with_source: bool):
    m = slot.motif
    t_case = ctx.case(m, variant, ctx.skin(m, nonce=slot.nonce))
    snapshot, labels = memory(ctx, t_case, with_source=with_source)
    tgt = target(t_case, ctx.rng, ctx.taken)
    source = next((s for s in snapshot if labels[s.record["id"]] == "source"), None)
    key: dict[str, Any] = {
        "gold_source": source.record["id"] if source else None, "keyed_matches": [],
        "has_valid_source": source is not None, "memory_roles": labels,
        "decoy_twin_overlap": {s.record["id"]: twin_overlap(s.case) for s in snapshot
                               if labels[s.record["id"]].startswith("decoy")},
        "far": source is not None and source.case.domain != t_case.domain, **target_key(tgt),
    }
    if source is not None:
        key["role_mapping"] = role_mapping(source, tgt)
    if variant != "split":
        key.update(check=check_spec(tgt), fix=fix_in_target(t_case.fix, tgt))
    return snapshot, tgt, key


def build_f3(ctx: Context, slot: Slot) -> Item:
    """F3: target only plus a memory snapshot; every third item has no valid source."""
    snapshot, tgt, key = _retrieval(ctx, slot, "true", with_source=slot.ordinal % 3 != 1)
    inputs = {"target": tgt.record, "memory": [s.record for s in snapshot]}
    return ctx.item(slot, inputs, key)


def build_f7(ctx: Context, slot: Slot) -> Item:
    """F7: a nonce-skinned target, end to end: retrieve, map, and pick a fix from the menu."""
    nonce_slot = Slot(slot.family, slot.motif, slot.ordinal, True)
    snapshot, tgt, key = _retrieval(ctx, nonce_slot, "true", with_source=True)
    menu = operator_menu([slot.motif] + [s.case.motif for s in snapshot], ctx.rng, extra=2)
    inputs = {"target": tgt.record, "memory": [s.record for s in snapshot], "operators": menu}
    return ctx.item(slot, inputs, key)


def build_f8(ctx: Context, slot: Slot) -> Item:
    """F8: the target is written at a finer grain (one extra intermediate part), so its
    structure matches the source only after the two hops are read as one (level L2)."""
    snapshot, tgt, key = _retrieval(ctx, slot, "split", with_source=True)
    m = slot.motif
    a, b = _ends(m.split.relation)
    key.update(level=m.split.level,
               split={"part": tgt.roles[m.split.part], "between": [tgt.roles[a], tgt.roles[b]]})
    inputs = {"target": tgt.record, "memory": [s.record for s in snapshot]}
    return ctx.item(slot, inputs, key)


def _ends(relation: str) -> tuple[str, str]:
    from analogist.signature import parse_term

    t = parse_term(relation)
    return str(t.args[0]), str(t.args[1])
