"""Families where the source is given: F1 mapping, F2 decoy rejection, F4 solution transfer,
F5 partial analogy and F6 false-analogy rejection (spec §16.1).

Every source is a stored episode in a *different* skin (so a different surface domain) from the
target; only F2's near candidate shares the target's skin, because it is the surface trap.

Structures are drawn symmetrically so that nothing about a candidate on its own says whether it
is valid: a target is the motif itself half the time and one of its decoys otherwise (each an
honest world with its own symptom and fix), and the invalid candidate is always the target's
minimal-pair partner — a decoy of a true target, the true structure of a decoy target. So every
structure, fix operator, outcome wording and text length appears on the valid side as often as
on the invalid side.

F2 has two layouts: in the standard layout the near (same-skin) candidate is the invalid
partner and the far one valid; in the control layout the near candidate is valid. F2, F5 and F6
items come in pairs of ordinals (a full bench holds both items of a motif's pair) that share one
seeded choice per bench, motif and pair, made so that each item's label is the opposite of its
pair's while what a candidate, offered source or claim looks like is the same; the choice is
drawn per bench, so no motif's items carry the same labels in every bench. Candidates' and
offered sources' wording is matched to a closeness level (shared sentences, word overlap with
the target) drawn from renderings of both structures (:func:`matched_case`), so a rendering of
the target's own structure does not read closer to it.

F4 mixes four kinds: the same structure; a target lacking one causal link the source has
(source with extra structure); a target with one more causal link than the source (target with
an extra mechanism); and a target with an extra, irrelevant mechanism borrowed from another
motif in its domain. Exact isomorphism fails in all but the first; the source's fix resolves
every one.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from itertools import combinations
from typing import Any

from analogist.bench.generation.cases import (
    Case,
    Extra,
    episode,
    make_case,
    new_id,
    target,
    twin_overlap,
)
from analogist.bench.generation.edits import edited_structure
from analogist.bench.generation.items import (
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
    transfer_outcome,
)
from analogist.bench.generation.motif import FLIP, MEDIATOR, REVERSE, Motif, Skin
from analogist.bench.generation.render import fill, jaccard
from analogist.bench.generation.simulate import canonical, vocabulary
from analogist.bench.generation.world import world_for
from analogist.errors import BenchError
from analogist.signature import parse_term

SAME_SIZE = (REVERSE, FLIP, MEDIATOR)
NEAR_TRIES = 24  # renderings of each structure an F2 candidate's wording is matched from
F6_TRIES = 24  # the same for F6's offered source
F5_FIX_SEEDS = 12  # seeds on which a fix must behave alike for F5 to offer it
F4_KINDS = ("same", "source_extra", "target_extra_link", "target_extra_mechanism")


def _source_key(source, tgt) -> dict[str, Any]:
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


def _fix_resolves(m: Motif, s_var: str, t_var: str) -> bool:
    """Whether the fix a ``s_var`` episode records by default resolves the ``t_var`` world."""
    fix = m.fix if s_var in ("true", m.partial.name) else m.variant(s_var).fix
    return any(world_for(m, t_var).simulate(fix, s).result == "resolved" for s in range(6))


def _pair(
    ctx: Context,
    slot: Slot,
    t_variant: str,
    s_variant: str,
    extra: Extra | Callable[[Skin], Extra | None] | None = None,
    plain_source: bool = False,
):
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
    return ctx.item(slot, inputs, {**_source_key(source, tgt), **target_key(tgt)})


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
    key = {**_source_key(source, tgt), **target_key(tgt), "kind": kind, "source_variant": s_var}
    return ctx.item(slot, inputs, key)


def _decoy_pair(slot: Slot, *, same_size: bool = False) -> tuple[str, str]:
    """(valid structure, invalid partner) for the slot. With ``same_size``, prefer decoys that
    keep the number of facts, so signature size says little when two candidates are compared."""
    m = slot.motif
    v = target_variant(m, slot.ordinal)
    if same_size and v != "true":
        sized = [d.name for d in m.decoys if d.edit.kind in SAME_SIZE]
        if sized:
            v = sized[(slot.ordinal // 4) % len(sized)]
    p = partner(m, v, slot.ordinal)
    if same_size and p != "true":
        sized = [d.name for d in m.decoys if d.edit.kind in SAME_SIZE]
        if sized:
            p = sized[(slot.ordinal // 4) % len(sized)]
    return v, p


def _shared(a: str, b: str) -> int:
    sa = {x.strip() for x in a.split(". ")}
    return sum(1 for x in b.split(". ") if x.strip() in sa)


def _bigrams(text: str) -> set[tuple[str, str]]:
    w = re.findall(r"[a-z0-9']+", text.lower())
    return set(zip(w, w[1:], strict=False))


def _layout_bit(ctx: Context, slot: Slot) -> int:
    """One seeded bit per bench, family and pair of ordinals (not per motif), so each pair of
    ordinals holds one item of each layout in a bench of any size (F2's standard/control, F6's
    valid/false) while which ordinal gets which changes from bench to bench."""
    return random.Random(f"layout|{ctx.dealer.seed}|{slot.family}|{slot.ordinal // 2}").randrange(2)


def _closeness(text: str, target_text: str) -> tuple[float, float, float]:
    """How close a rendering reads to the target: shared sentences (one weighs as much as 0.05
    of overlap), word overlap and word-pair overlap (Jaccard)."""
    a, b = _bigrams(text), _bigrams(target_text)
    return (
        _shared(text, target_text) / 20,
        jaccard(text, target_text),
        len(a & b) / max(1, len(a | b)),
    )


def matched_case(
    ctx: Context,
    m: Motif,
    variant: str,
    other: str,
    skins: Callable[[], Skin],
    target_text: str,
    tries: int,
    lexicon: int | None = None,
    fix: str | None = None,
) -> Case:
    """A rendering of ``variant`` whose closeness to the target does not say whether it is
    ``variant`` or ``other``: renderings of both structures are drawn (in skins from
    ``skins``, without asides), one of the pooled renderings sets the closeness level, and the
    ``variant`` rendering nearest to that level is rendered again with the seed it was drawn
    with (with asides). A rendering of the target's own structure shares more wording with it;
    matched to a level drawn from both, it does not."""

    def probe(v: str) -> tuple[Skin, int, tuple[float, float, float]]:
        skin, seed = skins(), ctx.rng.randrange(10**9)
        return skin, seed, _closeness(make_case(m, v, skin, seed, lexicon, fix).text, target_text)

    own = [probe(variant) for _ in range(tries)]
    pool = own + [probe(other) for _ in range(tries)]
    level = pool[ctx.rng.randrange(len(pool))][2]
    skin, seed, _ = min(
        own, key=lambda p: sum(abs(x - y) for x, y in zip(p[2], level, strict=True))
    )
    return ctx.case(m, variant, skin, lexicon, fix, seed=seed)


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


def _canonical_sets(structure) -> tuple[set[str], set[tuple[str, str, str]]]:
    """A structure's relations and causal links as canonical node strings."""
    vocab = vocabulary()
    rels, chain = structure
    return (
        {canonical(parse_term(r), vocab) for r in rels},
        {
            (canonical(parse_term(c), vocab), k, canonical(parse_term(e), vocab))
            for c, k, e in chain
        },
    )


def _structure(m: Motif, variant: str):
    return edited_structure(m, None if variant == "true" else m.variant(variant).edit)


def _fix_outcome(m: Motif, fix: str, variant: str) -> str | None:
    """What ``fix`` does in the ``variant`` world: "resolved" or "fails" when it does the same on
    every one of a fixed run of seeds, None when that depends on the seed."""
    results = {
        world_for(m, variant).simulate(fix, s).result == "resolved" for s in range(F5_FIX_SEEDS)
    }
    return None if len(results) > 1 else "resolved" if results.pop() else "fails"


def f5_pairs(m: Motif, fix: str) -> list[tuple[str, str]]:
    """The target pairs an F5 item may be drawn from for a source of ``m``'s true structure
    with ``fix``: two variants (the partial one or a decoy) that each lack a claim of the true
    structure the other keeps, so each item withholds something and transfers something."""
    out = []
    for a, b in combinations([m.partial.name, *(d.name for d in m.decoys)], 2):
        ma, mb = _missing(m, a), _missing(m, b)
        if ma - mb and mb - ma and _fix_outcome(m, fix, a) and _fix_outcome(m, fix, b):
            out.append((a, b))
    return out


def _missing(m: Motif, variant: str) -> set:
    """The true structure's relations and links that ``variant`` lacks (canonical)."""
    t_rels, t_links = _canonical_sets(_structure(m, "true"))
    v_rels, v_links = _canonical_sets(_structure(m, variant))
    return (t_rels - v_rels) | (t_links - v_links)


def build_f5(ctx: Context, slot: Slot) -> Item:
    """F5: a partial analogy. The source has the motif's true structure; the target is one of
    a pair of variants (the partial one or a decoy) that each lack a different part of it. The
    inferences offered are exactly the source's claims (and its fix) on which the pair's two
    targets disagree, stated in the *source's* role names (the system must map them): one
    target keeps what the other lacks. An inference transfers when its image holds in the
    target (for the fix: when it resolves the target world).

    Both targets of a pair are drawn from one seeded choice per bench, motif and pair of
    ordinals (a full bench holds both; a smaller one holds either with equal chance), so every
    claim offered is withheld exactly as often as it transfers: nothing about a claim alone —
    its kind, length, arity, link kind or how often it recurs in the bench — says which."""
    m = slot.motif
    pick = random.Random(f"f5|{ctx.dealer.seed}|{m.name}|{slot.ordinal // 2}")
    fix = m.fix if not m.alt_fixes or pick.random() < 0.6 else pick.choice(m.alt_fixes)
    pairs = f5_pairs(m, fix) or f5_pairs(m, fix := m.fix)
    if not pairs:
        raise BenchError(
            f"motif {m.name}: no two variants lack different parts of it, so it "
            "cannot make an F5 item; give it a partial variant or a decoy that "
            "deletes another claim"
        )
    here, other = pick.choice(pairs)
    if (slot.ordinal + pick.randrange(2)) % 2:
        here, other = other, here
    t_case = ctx.case(m, here, ctx.skin(m, nonce=slot.nonce))
    s_case = ctx.case(m, "true", ctx.skin(m, avoid=(t_case.skin,)), fix=fix)
    source, tgt = episode(s_case, ctx.rng, ctx.taken), target(t_case, ctx.rng, ctx.taken)
    lacks_here, lacks_other = _missing(m, here), _missing(m, other)
    vocab, ids = vocabulary(), source.roles
    rels, chain = _structure(m, "true")
    claims: list[tuple[dict, bool]] = []
    for r in rels:
        t = parse_term(r)
        node = canonical(t, vocab)
        if (node in lacks_here) != (node in lacks_other):
            claims.append(
                (
                    {"kind": "relation", "claim": [t.functor, *[ids[str(a)] for a in t.args]]},
                    node not in lacks_here,
                )
            )
    for c, k, e in chain:
        link = (canonical(parse_term(c), vocab), k, canonical(parse_term(e), vocab))
        if (link in lacks_here) != (link in lacks_other):
            claims.append(
                (
                    {"kind": "link", "claim": [_term(c, ids), k, _term(e, ids)]},
                    link not in lacks_here,
                )
            )
    fix_here, fix_other = _fix_outcome(m, fix, here), _fix_outcome(m, fix, other)
    if fix_here != fix_other:  # labelled by the target's own check seeds, as scoring runs it
        results = {world_for(m, here).simulate(fix, s).result for s in check_spec(tgt)["seeds"]}
        claims.append(({"kind": "fix", "claim": _term(fix, ids)}, results == {"resolved"}))
    shown, decisions = [], {}
    for claim, keep in claims:
        cid = new_id(ctx.rng, "inf", ctx.taken)
        shown.append({"id": cid, **claim})
        decisions[cid] = "transfer" if keep else "withhold"
    shown.sort(key=lambda c: c["id"])
    key = {
        **_source_key(source, tgt),
        "decisions": decisions,
        "pair": f"true>{here}",
        "other_target": other,
        "source_variant": "true",
        "edit": m.variant(here).edit.kind,
        "twin_overlap": twin_overlap(tgt.case),
        **target_key(tgt),
    }
    key["fix"] = fix_in_target(tgt.case.fix, tgt)
    inputs = {"source": source.record, "target": tgt.record, "inferences": shown}
    return ctx.item(slot, inputs, key)


def _term(text: str, ids: dict[str, str]) -> str:
    return parse_term(text).rename(ids).canonical()
