"""F5 partial analogy: only part of the source's mechanism transfers (spec §16.1).

The source (in another skin) has the motif's true structure; the target is one of a pair of
variants (the partial one or a decoy) that each lack a different part of it (:func:`f5_pairs`).
The inferences offered are exactly the source's claims (and its fix) on which the pair's two
targets disagree, stated in the *source's* role names, so every claim is withheld in one item
of the pair and transfers in the other; the key decides each (transfer or withhold). The fix
is offered only when it behaves alike on :data:`F5_FIX_SEEDS` seeds in each world of the pair
and differs between them.
"""

from __future__ import annotations

import random
from itertools import combinations

from analogist.bench.generation.cases import episode, new_id, target, twin_overlap
from analogist.bench.generation.edits import edited_structure
from analogist.bench.generation.family_transfer import source_key
from analogist.bench.generation.items import (
    Context,
    Item,
    Slot,
    check_spec,
    fix_in_target,
    target_key,
)
from analogist.bench.generation.motif import Motif
from analogist.bench.generation.simulate import canonical, vocabulary
from analogist.bench.generation.world import world_for
from analogist.errors import BenchError
from analogist.signature import parse_term

F5_FIX_SEEDS = 12  # seeds on which a fix must behave alike for F5 to offer it


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
        **source_key(source, tgt),
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
