"""F2 surface decoy rejection and F6 false-analogy rejection: reject an analogue that looks
right but is not (spec §16.1).

Structures are drawn symmetrically so that nothing about a candidate on its own says whether it
is valid: each structure involved is an honest world with its own symptom and fix, and the
invalid one is always the other's minimal-pair partner (a decoy of a true structure, the true
structure of a decoy). F2 shows a near (same-skin) and a far (other-skin) candidate: in the
standard layout the near one is the invalid partner, in the control layout it is valid. F6
offers one source that is valid in one item of a pair and false in the other.

Items come in pairs of ordinals (a full bench holds both items of a motif's pair) that share one
seeded choice per bench, motif and pair, made so that each item's label is the opposite of its
pair's while what a candidate or offered source looks like is the same; the choice is drawn per
bench, so no motif's items carry the same labels in every bench. Candidates' and offered
sources' wording is matched to a closeness level drawn from renderings of both structures
(:func:`~analogist.bench.generation.closeness.matched_case`).
"""

from __future__ import annotations

import random

from analogist.bench.generation.cases import episode, target, twin_overlap
from analogist.bench.generation.closeness import matched_case
from analogist.bench.generation.family_transfer import source_fix_for
from analogist.bench.generation.items import (
    Context,
    Item,
    Slot,
    check_spec,
    fix_in_target,
    role_mapping,
    target_key,
    transfer_outcome,
)
from analogist.bench.generation.motif import FLIP, MEDIATOR, REVERSE, Motif
from analogist.bench.generation.world import world_for

SAME_SIZE = (REVERSE, FLIP, MEDIATOR)
NEAR_TRIES = 24  # renderings of each structure an F2 candidate's wording is matched from
F6_TRIES = 24  # the same for F6's offered source


def _fix_resolves(m: Motif, s_var: str, t_var: str) -> bool:
    """Whether the fix a ``s_var`` episode records by default resolves the ``t_var`` world."""
    fix = m.fix if s_var in ("true", m.partial.name) else m.variant(s_var).fix
    return any(world_for(m, t_var).simulate(fix, s).result == "resolved" for s in range(6))


def _layout_bit(ctx: Context, slot: Slot) -> int:
    """One seeded bit per bench, family and pair of ordinals (not per motif), so each pair of
    ordinals holds one item of each layout in a bench of any size (F2's standard/control, F6's
    valid/false) while which ordinal gets which changes from bench to bench."""
    return random.Random(f"layout|{ctx.dealer.seed}|{slot.family}|{slot.ordinal // 2}").randrange(2)


def build_f2(ctx: Context, slot: Slot) -> Item:
    """F2: a near (same-skin) and a far (other-skin) candidate; exactly one is valid.

    Items come in pairs of ordinals that share one seeded choice per bench and motif: the valid
    structure (the true one or a same-size decoy) with its minimal-pair partner, and which of
    the two items has the control layout. So in either layout a candidate's structure (and how
    often it recurs in the bench) is valid as often as not."""
    m = slot.motif
    pick = random.Random(f"f2|{ctx.dealer.seed}|{m.name}|{slot.ordinal // 2}")
    sized = [d.name for d in m.decoys if d.edit.kind in SAME_SIZE] or [d.name for d in m.decoys]
    decoy = pick.choice(sized)
    valid_v, fake_v = ("true", decoy) if pick.random() < 0.5 else (decoy, "true")
    control = (slot.ordinal + _layout_bit(ctx, slot)) % 2 == 1
    t_case = ctx.case(m, valid_v, ctx.skin(m, nonce=slot.nonce))
    far_skin = ctx.skin(m, avoid=(t_case.skin,))
    near_variant, far_variant = (valid_v, fake_v) if control else (fake_v, valid_v)
    # each candidate's wording is matched to a closeness level drawn from renderings of both
    # structures (in its own skin), so the valid one does not read closer to the target
    near_case = matched_case(
        ctx,
        m,
        near_variant,
        far_variant,
        lambda: t_case.skin,
        t_case.text,
        NEAR_TRIES,
        t_case.lexicon,
        ctx.stored_fix(m, near_variant),
    )
    far_case = matched_case(
        ctx,
        m,
        far_variant,
        near_variant,
        lambda: far_skin,
        t_case.text,
        NEAR_TRIES,
        fix=ctx.stored_fix(m, far_variant),
    )
    near, far = (episode(c, ctx.rng, ctx.taken) for c in (near_case, far_case))
    tgt = target(t_case, ctx.rng, ctx.taken)
    valid, fake = (near, far) if control else (far, near)
    candidates = sorted([near.record, far.record], key=lambda r: r["id"])
    edit = m.variant(fake_v if fake_v != "true" else valid_v).edit.kind
    key = {
        "gold_source": valid.record["id"],
        "keyed_matches": [],
        "has_valid_source": True,
        "far": valid is far,
        "control": control,
        "valid": {valid.record["id"]: True, fake.record["id"]: False},
        "near": near.record["id"],
        "decoy": fake.record["id"],
        "edit": edit,
        "decoy_variant": fake_v,
        "decoy_twin_overlap": twin_overlap(fake.case),
        "role_mapping": role_mapping(valid, tgt),
        "check": check_spec(tgt),
        "fix": fix_in_target(source_fix_for(valid.case, t_case), tgt),
        "transfer_outcomes": {
            valid.record["id"]: transfer_outcome(valid.case, tgt),
            fake.record["id"]: transfer_outcome(fake.case, tgt),
        },
        **target_key(tgt),
    }
    return ctx.item(slot, {"target": tgt.record, "candidates": candidates}, key)


def build_f6(ctx: Context, slot: Slot) -> Item:
    """F6: is the offered source valid? Items come in pairs of ordinals that share one seeded
    choice per bench and motif: the offered source's structure X (the true structure or a decoy
    whose fix fails on it, and the other way round) and which of the two is the valid control.
    The valid item's target has structure X too, the other's X's minimal-pair partner (no valid
    source exists). So the offered source's structure, wording and recurrence are drawn the same
    way whether it is valid or not; only its relation to the target differs. The key holds the
    target's own fix, so a system that rejects the source and solves the target anyway can be
    credited."""
    m = slot.motif
    pick = random.Random(f"f6|{ctx.dealer.seed}|{m.name}|{slot.ordinal // 2}")
    # a false pair: the true structure and a decoy whose fixes fail in each other's worlds, so
    # either can be offered for the other (a real false analogy, in both directions)
    decoys = [d.name for d in m.decoys if not _fix_resolves(m, d.name, "true")] or [
        d.name for d in m.decoys
    ]
    decoy = pick.choice(decoys)
    s_var = pick.choice(("true", decoy))
    valid = (slot.ordinal + _layout_bit(ctx, slot)) % 2 == 0
    t_var = s_var if valid else decoy if s_var == "true" else "true"
    # the source's wording is matched to a closeness level drawn from renderings (other skins)
    # of both structures, so a source of the target's own structure does not read closer to it
    t_case = ctx.case(m, t_var, ctx.skin(m, nonce=slot.nonce))
    s_case = matched_case(
        ctx,
        m,
        s_var,
        decoy if s_var == "true" else "true",
        lambda: ctx.skin(m, avoid=(t_case.skin,)),
        t_case.text,
        F6_TRIES,
    )
    source, tgt = episode(s_case, ctx.rng, ctx.taken), target(t_case, ctx.rng, ctx.taken)
    key = {
        "gold_source": source.record["id"] if valid else None,
        "keyed_matches": [],
        "has_valid_source": valid,
        "offered_is_valid": valid,
        "far": source.case.domain != tgt.case.domain,
        "edit": None if valid else m.variant(decoy).edit.kind,
        "source_variant": s_var,
        "decoy_twin_overlap": None
        if valid
        else twin_overlap(tgt.case if t_var != "true" else source.case),
        "check": check_spec(tgt),
        "source_fix": fix_in_target(source.case.fix, tgt),
        "fix": fix_in_target(tgt.case.fix, tgt),
        "transfer_outcome": transfer_outcome(source.case, tgt),
        **target_key(tgt),
    }
    if valid:
        key["role_mapping"] = role_mapping(source, tgt)
    return ctx.item(slot, {"source": source.record, "target": tgt.record}, key)
