"""Families where the source is given: F1 mapping, F2 decoy rejection, F4 solution transfer,
F5 partial analogy and F6 false-analogy rejection (spec §16.1).

Every source is a stored episode in a *different* skin (so a different surface domain) from the
target; only F2's near candidate shares the target's skin, because it is the surface trap.
F2 alternates two layouts so that no surface strategy beats chance: in the standard layout the
near candidate is a minimal-pair decoy and the far one the true analogue; in the control layout
the near candidate is a true analogue and the far one a decoy.
"""

from __future__ import annotations

from typing import Any

from analogist.bench.cases import episode, new_id, target, twin_overlap
from analogist.bench.edits import edited_structure
from analogist.bench.engine import canonical, vocabulary
from analogist.bench.items import (
    Context,
    Item,
    Slot,
    check_spec,
    fix_in_target,
    operator_menu,
    role_mapping,
    target_key,
    transfer_outcome,
)
from analogist.bench.motif import FLIP, MEDIATOR, REVERSE
from analogist.bench.render import jaccard
from analogist.bench.world import world_for
from analogist.signature import parse_term

SAME_SIZE = (REVERSE, FLIP, MEDIATOR)
NEAR_TRIES = 4


def _pair(ctx: Context, slot: Slot, variant: str = "true"):
    """A target (in ``variant``) and a true source episode in another skin."""
    m = slot.motif
    t_case = ctx.case(m, variant, ctx.skin(m, nonce=slot.nonce))
    s_case = ctx.case(m, "true", ctx.skin(m, avoid=(t_case.skin,)))
    return episode(s_case, ctx.rng, ctx.taken), target(t_case, ctx.rng, ctx.taken)


def _source_key(source, tgt) -> dict[str, Any]:
    far = source.case.domain != tgt.case.domain
    return {"gold_source": source.record["id"], "keyed_matches": [], "has_valid_source": True,
            "far": far, "role_mapping": role_mapping(source, tgt), "check": check_spec(tgt),
            "fix": fix_in_target(tgt.case.fix, tgt)}


def build_f1(ctx: Context, slot: Slot) -> Item:
    """F1: source and target given; key: role mapping and the transferred fix."""
    source, tgt = _pair(ctx, slot)
    inputs = {"source": source.record, "target": tgt.record}
    return ctx.item(slot, inputs, {**_source_key(source, tgt), **target_key(tgt)})


def build_f4(ctx: Context, slot: Slot) -> Item:
    """F4: adapt the source fix to the target (true or partial variant); checked by simulation."""
    variant = "true" if slot.ordinal % 2 == 0 else slot.motif.partial.name
    source, tgt = _pair(ctx, slot, variant)
    inputs = {"source": source.record, "target": tgt.record,
              "operators": operator_menu([slot.motif], ctx.rng)}
    return ctx.item(slot, inputs, {**_source_key(source, tgt), **target_key(tgt)})


def _decoy(slot: Slot, *, same_size: bool = False):
    """The slot's decoy. With ``same_size``, prefer edits that keep the number of facts (a
    reversal, a flip, a mediator turned confounder), so a candidate's signature size cannot
    give a deletion decoy away when two candidates are compared side by side."""
    decoys = slot.motif.decoys
    if same_size:
        decoys = tuple(d for d in decoys if d.edit.kind in SAME_SIZE) or decoys
    return decoys[(slot.ordinal // 2) % len(decoys)]


def build_f2(ctx: Context, slot: Slot) -> Item:
    """F2: a near (same-skin) and a far (other-skin) candidate; exactly one is valid."""
    m, control = slot.motif, slot.ordinal % 2 == 1
    decoy = _decoy(slot, same_size=True)
    t_case = ctx.case(m, "true", ctx.skin(m, nonce=slot.nonce))
    far_skin = ctx.skin(m, avoid=(t_case.skin,))
    near_variant, far_variant = ("true", decoy.name) if control else (decoy.name, "true")
    # the near candidate is the closest in wording of a few renderings, whichever layout
    near_fix = ctx.stored_fix(m, near_variant)
    near_case = max((ctx.case(m, near_variant, t_case.skin, t_case.lexicon, near_fix)
                     for _ in range(NEAR_TRIES)), key=lambda c: jaccard(c.text, t_case.text))
    far_case = ctx.case(m, far_variant, far_skin, fix=ctx.stored_fix(m, far_variant))
    near, far = (episode(c, ctx.rng, ctx.taken) for c in (near_case, far_case))
    tgt = target(t_case, ctx.rng, ctx.taken)
    valid, fake = (near, far) if control else (far, near)
    candidates = sorted([near.record, far.record], key=lambda r: r["id"])
    key = {
        "gold_source": valid.record["id"], "keyed_matches": [], "has_valid_source": True,
        "far": valid is far, "control": control,
        "valid": {valid.record["id"]: True, fake.record["id"]: False},
        "near": near.record["id"], "decoy": fake.record["id"], "edit": decoy.edit.kind,
        "decoy_twin_overlap": twin_overlap(fake.case),
        "role_mapping": role_mapping(valid, tgt), "check": check_spec(tgt),
        "transfer_outcomes": {valid.record["id"]: transfer_outcome(valid.case, tgt),
                              fake.record["id"]: transfer_outcome(fake.case, tgt)},
        **target_key(tgt),
    }
    return ctx.item(slot, {"target": tgt.record, "candidates": candidates}, key)


def build_f6(ctx: Context, slot: Slot) -> Item:
    """F6: the offered source is a true case but the target is a decoy (no valid source
    exists); every third item is a valid control so that always rejecting does not win."""
    valid = slot.ordinal % 3 == 1
    variant = "true" if valid else _decoy(slot).name
    source, tgt = _pair(ctx, slot, variant)
    key = {"gold_source": source.record["id"] if valid else None, "keyed_matches": [],
           "has_valid_source": valid, "offered_is_valid": valid,
           "far": source.case.domain != tgt.case.domain,
           "edit": None if valid else slot.motif.variant(variant).edit.kind,
           "decoy_twin_overlap": None if valid else twin_overlap(tgt.case),
           "check": check_spec(tgt), "source_fix": fix_in_target(source.case.fix, tgt),
           "transfer_outcome": transfer_outcome(source.case, tgt), **target_key(tgt)}
    if valid:
        key["role_mapping"] = role_mapping(source, tgt)
    return ctx.item(slot, {"source": source.record, "target": tgt.record}, key)


def _canonical_sets(structure) -> tuple[set[str], set[tuple[str, str, str]]]:
    """A structure's relations and causal links as canonical node strings."""
    vocab = vocabulary()
    rels, chain = structure
    return ({canonical(parse_term(r), vocab) for r in rels},
            {(canonical(parse_term(c), vocab), k, canonical(parse_term(e), vocab))
             for c, k, e in chain})


def _term(text: str, ids: dict[str, str]) -> str:
    return parse_term(text).rename(ids).canonical()


def build_f5(ctx: Context, slot: Slot) -> Item:
    """F5: the target lacks or changes one part of the source mechanism (a decoy, where the fix
    must be withheld, or the partial variant, where it transfers); one decision per inference."""
    m = slot.motif
    variant = _decoy(slot).name if slot.ordinal % 2 == 0 else m.partial.name
    source, tgt = _pair(ctx, slot, variant)
    t_rels, t_links = _canonical_sets(edited_structure(m, m.variant(variant).edit))
    vocab, ids = vocabulary(), tgt.roles
    claims: list[tuple[dict, bool]] = []
    for r in m.relations:
        t = parse_term(r)
        claims.append(({"kind": "relation", "claim": [t.functor, *[ids[str(a)] for a in t.args]]},
                       canonical(t, vocab) in t_rels))
    for c, k, e in m.chain:
        link = (canonical(parse_term(c), vocab), k, canonical(parse_term(e), vocab))
        claims.append(({"kind": "link", "claim": [_term(c, ids), k, _term(e, ids)]}, link in t_links))
    results = {world_for(m, variant).simulate(m.fix, s).result for s in check_spec(tgt)["seeds"]}
    claims.append(({"kind": "fix", "claim": _term(m.fix, ids)}, results == {"resolved"}))
    shown, decisions = [], {}
    for claim, keep in claims:
        cid = new_id(ctx.rng, "inf", ctx.taken)
        shown.append({"id": cid, **claim})
        decisions[cid] = "transfer" if keep else "withhold"
    shown.sort(key=lambda c: c["id"])
    key = {**_source_key(source, tgt), "decisions": decisions,
           "edit": m.variant(variant).edit.kind, "twin_overlap": twin_overlap(tgt.case),
           **target_key(tgt)}
    key["fix"] = fix_in_target(tgt.case.fix, tgt)
    inputs = {"source": source.record, "target": tgt.record, "inferences": shown}
    return ctx.item(slot, inputs, key)
