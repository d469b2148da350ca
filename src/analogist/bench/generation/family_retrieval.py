"""F3 spontaneous retrieval and F7 synthetic worlds: a target and a memory snapshot to search
(spec §16.1).

An F3 item shows a target and a snapshot of ten stored episodes
(:mod:`~analogist.bench.generation.memory_snapshot`); every third item has no valid source
(spec §16.3's no-match targets). An F7 item is the same end to end with a nonce-skinned target
and an operator menu: retrieve, map, and pick a fix. The target's structure is drawn uniformly
over its motif's structures, each of which the snapshot holds once, so no structure (the true
one included) is the source more often. F8 builds its items with the same parts
(:mod:`~analogist.bench.generation.family_rerepresentation`).
"""

from __future__ import annotations

from typing import Any

from analogist.bench.generation.cases import Shown, target, twin_overlap
from analogist.bench.generation.items import (
    Context,
    Item,
    Slot,
    check_spec,
    fix_in_target,
    operator_menu,
    role_mapping,
    target_key,
    variants,
)
from analogist.bench.generation.memory_snapshot import Structures, memory


def retrieval_parts(
    ctx: Context,
    slot: Slot,
    variant: str,
    with_source: bool,
    structures: Structures = variants,
    per_motif: int | None = None,
) -> tuple[list[Shown], Shown, dict[str, Any]]:
    """The parts of a memory item for ``slot``'s motif with a ``variant`` target: the snapshot,
    the shown target (in the wording chosen for the snapshot) and the key (the source, every
    episode's role, the target's check and own fix)."""
    m = slot.motif
    # a memory target tells at least two asides, which its same-domain traps retell
    t_case = ctx.case(m, variant, ctx.skin(m, nonce=slot.nonce), least=2)
    snapshot, labels, t_case = memory(
        ctx,
        t_case,
        with_source=with_source,
        ordinal=slot.ordinal,
        structures=structures,
        per_motif=per_motif,
    )
    tgt = target(t_case, ctx.rng, ctx.taken)
    source = next((s for s in snapshot if labels[s.record["id"]] == "source"), None)
    key: dict[str, Any] = {
        "gold_source": source.record["id"] if source else None,
        "keyed_matches": [],
        "has_valid_source": source is not None,
        "memory_roles": labels,
        "decoy_twin_overlap": {
            s.record["id"]: twin_overlap(s.case)
            for s in snapshot
            if labels[s.record["id"]].startswith("decoy") and s.case.variant != "true"
        },
        "far": source is not None and source.case.domain != t_case.domain,
        **target_key(tgt),
        "check": check_spec(tgt),
        "fix": fix_in_target(t_case.fix, tgt),
    }
    if source is not None:
        key["role_mapping"] = role_mapping(source, tgt)
    return snapshot, tgt, key


def memory_target(ctx: Context, structures: list[str]) -> str:
    """A memory target's structure, uniform over the motif's structures: the snapshot holds
    each of them once, so no structure (the true one included) is the source more often."""
    return structures[ctx.rng.randrange(len(structures))]


def build_f3(ctx: Context, slot: Slot) -> Item:
    """F3: target only plus a memory snapshot; every third item has no valid source (the key
    still holds the target's check and own fix)."""
    variant = memory_target(ctx, variants(slot.motif))
    snapshot, tgt, key = retrieval_parts(ctx, slot, variant, with_source=slot.ordinal % 3 != 1)
    inputs = {"target": tgt.record, "memory": [s.record for s in snapshot]}
    return ctx.item(slot, inputs, key)


def build_f7(ctx: Context, slot: Slot) -> Item:
    """F7: a nonce-skinned target, end to end: retrieve, map, and pick a fix from the menu."""
    nonce_slot = Slot(slot.family, slot.motif, slot.ordinal, True)
    variant = memory_target(ctx, variants(slot.motif))
    snapshot, tgt, key = retrieval_parts(ctx, nonce_slot, variant, with_source=True)
    menu = operator_menu([slot.motif] + [s.case.motif for s in snapshot], ctx.rng, extra=2)
    inputs = {"target": tgt.record, "memory": [s.record for s in snapshot], "operators": menu}
    return ctx.item(slot, inputs, key)
