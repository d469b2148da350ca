"""F1 cross-domain mapping and F4 solution transfer: one source given (spec §16.1).

Every given source is a stored episode in a *different* skin (so a different surface domain)
from the target. F1 gives a source of the target's own structure; the key is the role mapping
and the transferred fix. F4 asks to adapt the source's fix to the target and mixes four kinds
(:data:`F4_KINDS`): the same structure; a target lacking one causal link the source has
(source with extra structure); a target with one more causal link than the source (target with
an extra mechanism); and a target with an extra, irrelevant mechanism borrowed from another
motif in its domain (:func:`extra_mechanism`). Exact isomorphism fails in all but the first;
the source's fix resolves every one.

:func:`source_key` and :func:`source_fix_for` are the key of any given source (also F2's valid
candidate and F5's source).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from analogist.bench.generation.cases import Case, Extra, Shown, episode, target
from analogist.bench.generation.items import (
    Context,
    Item,
    Slot,
    check_spec,
    fix_in_target,
    operator_menu,
    role_mapping,
    target_key,
    target_variant,
)
from analogist.bench.generation.motif import Motif, Skin
from analogist.bench.generation.render import fill
from analogist.bench.generation.world import world_for
from analogist.signature import parse_term

F4_KINDS = ("same", "source_extra", "target_extra_link", "target_extra_mechanism")


def source_key(source: Shown, tgt: Shown) -> dict[str, Any]:
    """The key fields of a valid given source: its id, the role mapping, the target's check
    and the transferred fix (:func:`source_fix_for`)."""
    far = source.case.domain != tgt.case.domain
    return {
        "gold_source": source.record["id"],
        "keyed_matches": [],
        "has_valid_source": True,
        "far": far,
        "role_mapping": role_mapping(source, tgt),
        "check": check_spec(tgt),
        "fix": fix_in_target(source_fix_for(source.case, tgt.case), tgt),
    }


def source_fix_for(source: Case, tgt: Case) -> str:
    """The keyed fix: the source's own fix when it resolves the target world, else the
    target's own fix (the source's fix always resolves a valid target; tested)."""
    w = world_for(tgt.motif, tgt.variant)
    if all(w.simulate(source.fix, s).result == "resolved" for s in range(tgt.seed, tgt.seed + 3)):
        return source.fix
    return tgt.fix


def _pair(
    ctx: Context,
    slot: Slot,
    t_variant: str,
    s_variant: str,
    extra: Extra | Callable[[Skin], Extra | None] | None = None,
    plain_source: bool = False,
) -> tuple[Shown, Shown]:
    """A target (in ``t_variant``) and a source episode (``s_variant``) in another skin; a
    ``plain_source`` records its variant's own fix, never an alternative."""
    m = slot.motif
    t_skin = ctx.skin(m, nonce=slot.nonce)
    t_case = ctx.case(m, t_variant, t_skin, extra=extra(t_skin) if callable(extra) else extra)
    fix = None if plain_source else ctx.stored_fix(m, s_variant)
    s_case = ctx.case(m, s_variant, ctx.skin(m, avoid=(t_case.skin,)), fix=fix)
    return episode(s_case, ctx.rng, ctx.taken), target(t_case, ctx.rng, ctx.taken)


def build_f1(ctx: Context, slot: Slot) -> Item:
    """F1: source and target of one structure given; key: role mapping and the transferred fix."""
    v = target_variant(slot.motif, slot.ordinal)
    source, tgt = _pair(ctx, slot, v, v)
    inputs = {"source": source.record, "target": tgt.record}
    return ctx.item(slot, inputs, {**source_key(source, tgt), **target_key(tgt)})


def extra_mechanism(ctx: Context, motif: Motif, skin: Skin) -> Extra | None:
    """One fact of another motif in ``skin``'s domain, stated over its own entities: an
    irrelevant mechanism (its relations never reach the symptom). None when no other motif of
    the split has a skin in that domain."""
    others = [m for m in ctx.pool if m is not motif]
    ctx.rng.shuffle(others)
    for m in others:
        for s in m.skins:
            if s.kind != "ordinary" or s.domain != skin.domain:
                continue
            for key in sorted(m.facts, key=lambda _: ctx.rng.random()):
                rels = [e for e in m.facts[key] if not (e.startswith("c") and e[1:].isdigit())]
                used = sorted({str(a) for r in rels for a in parse_term(r).args})
                template = s.facts[key][ctx.rng.randrange(len(s.facts[key]))]
                named = set(re.findall(r"\{([A-Z][A-Z0-9_]*)\}", template))
                if not rels or not named <= set(used):
                    continue
                ids = {r: f"X{i + 1}" for i, r in enumerate(used)}
                sentence = fill(template, {r: s.entities[r] for r in used})
                return Extra(
                    {ids[r]: s.entities[r] for r in used},
                    tuple(parse_term(r).rename(ids).canonical() for r in rels),
                    sentence,
                )
    return None


def build_f4(ctx: Context, slot: Slot) -> Item:
    """F4: adapt the source fix to the target; the four kinds of :data:`F4_KINDS`."""
    m = slot.motif
    kind = F4_KINDS[slot.ordinal % len(F4_KINDS)]
    t_var, s_var = {
        "same": ("true", "true"),
        "source_extra": (m.partial.name, "true"),
        "target_extra_link": ("true", m.partial.name),
        "target_extra_mechanism": ("true", "true"),
    }[kind]
    extra = None
    if kind == "target_extra_mechanism":
        slot = Slot(slot.family, m, slot.ordinal, False)  # borrowed facts come from ordinary skins

        def extra(skin: Skin) -> Extra | None:
            return extra_mechanism(ctx, m, skin)

    source, tgt = _pair(ctx, slot, t_var, s_var, extra)
    if kind == "target_extra_mechanism" and tgt.case.extra is None:
        kind = "same"  # no other motif of the split has a skin in the target's domain
    inputs = {
        "source": source.record,
        "target": tgt.record,
        "operators": operator_menu([m], ctx.rng),
    }
    key = {**source_key(source, tgt), **target_key(tgt), "kind": kind, "source_variant": s_var}
    return ctx.item(slot, inputs, key)
