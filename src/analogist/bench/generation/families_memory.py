"""Families that search a memory snapshot: F3 spontaneous retrieval, F7 synthetic worlds end
to end, F8 re-representation (spec §16.1).

Each item carries its own snapshot of ten stored episodes, built from the split's motifs only,
in clusters of one motif each, every cluster the same size. The target's structure is drawn
uniformly over its motif's structures, and the target's motif's cluster holds, never in the
target's own skin:

- the valid source: the target's own structure in a *different* domain, and the motif's other
  structures (look-alikes: "decoy_near", the minimal-pair partner of a true target, and
  "decoy_far"); every third F3 item has no valid source at all (spec §16.3's no-match targets)
  and holds the motif's other structures only;
- fillers: clusters of other motifs (as many structures each, drawn at random), chosen close
  in words to the target's motif with every motif used equally over a bench
  (:mod:`~analogist.bench.generation.fillers`), each episode in any ordinary skin of its
  motif (in the target's domain: a surface trap). A nonce target also gets one other motif's
  nonce skin, in its invented world or another one.

Every episode's rendering (skin, seed, asides) is drawn at random, never selected by its
overlap with the target: a selection shows in the chosen episode's own words (to come down to
one overlap level, sources were the renderings lacking common words the target has). The
overlap is balanced on the *target's* side instead, whose wording every candidate shares:
among :data:`TARGET_TRIES` wordings of the target (seeds: phrasings, word choices, aside
places; same structure, skin, invented words and asides), the one that puts the source at the
word-overlap rank among the snapshot's episodes least used so far in the bench
(``Context.ranks``; the lowest of equally used ones), so the source's rank is spread over
the ranks, and the motif's other episodes as near as it allows to their own least-used ranks
(:func:`memory`). So within a snapshot and across a bench, how often a structure or a motif
recurs says nothing about which episode is valid, and no stored episode shares the target's
entity names. Episodes are listed in time order, and times are random, so position says
nothing.

F8 targets are written at a finer grain (one extra intermediate part), over any structure of
the motif that can be written so (:func:`_f8_structures`); F8 snapshots show two of them for
every motif (:data:`F8_CLUSTER`). The key holds the
executable ``check`` of the split world and a fix that resolves it (for the true structure, the
motif's fix with the part put in place of a role where the plain fix no longer reaches).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

from analogist.bench.generation.asides import MAX_ASIDES
from analogist.bench.generation.cases import Case, Shown, episode, make_case, target, twin_overlap
from analogist.bench.generation.fillers import draw, inclusion
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
    variants,
)
from analogist.bench.generation.library import LIBRARY
from analogist.bench.generation.motif import Motif, Skin
from analogist.bench.generation.render import bigrams, words
from analogist.bench.generation.signatures import gold_raw
from analogist.bench.generation.world import world_for
from analogist.signature import parse_term

MEMORY_SIZE = 10
Structures = Callable[[Motif], list[str]]


TARGET_TRIES = 96
"""Wordings of the target tried (seeds: phrasings, word choices, where its asides go)."""
DRAW_TRIES = 24
"""Random renderings tried per stored episode for one whose symptom sentence and (motif,
structure) are not yet in the snapshot."""
OWN = ("source", "decoy_near", "decoy_far")


@dataclass(frozen=True)
class _Spec:
    """One stored episode to be: the (motif, structure, skin, lexicon) renderings it may take
    (lexicon None: the rendering's own invented words), and its role in the snapshot ("filler":
    labelled by the skin it is rendered in, :func:`_filler_label`)."""

    options: tuple[tuple[Motif, str, Skin, int | None], ...]
    label: str


def _filler_skins(o: Motif, t_case: Case) -> tuple[Skin, ...]:
    """The skins another motif's fillers may take: every ordinary skin (the one in the target's
    domain, if ``o`` has one, is a surface trap)."""
    return tuple(s for s in o.skins if s.kind == "ordinary")


def _filler_label(skin: Skin, lexicon: int | None, t_case: Case) -> str:
    """A filler's key-side role: ``same_domain`` when it shares the target's domain (for a
    nonce target: its invented world), else ``other``."""
    if t_case.skin.kind == "nonce":
        return "same_domain" if skin.kind == "nonce" and lexicon == t_case.lexicon else "other"
    return "same_domain" if skin.domain == t_case.domain else "other"


def _plan(
    ctx: Context,
    t_case: Case,
    with_source: bool,
    ordinal: int,
    structures: Structures,
    per_motif: int | None,
) -> list[_Spec]:
    """What the snapshot holds, as clusters of one motif each, every cluster the same size:
    ``per_motif`` structures of the target's motif (all, when None) with the target's own among
    them only when there is a match, then clusters of the other motifs (the same number of
    structures each, drawn at random; no (motif, structure) twice) until the snapshot is full.

    Other motifs are drawn by :mod:`~analogist.bench.generation.fillers`: close in words to the
    target's motif, whose other skins share its stock words, so that it is not the only
    cluster near the target, and every motif used as often as any other over a bench. Each
    filler may take any of its motif's ordinary skins (the one in the target's domain, if
    any, makes it a surface trap). A nonce target also gets one trap among its fillers:
    another motif's nonce skin, in the target's invented world or one of its own (at random),
    so the trap is not always the closest note."""
    m = t_case.motif
    own = "true" if t_case.variant == "split" else t_case.variant.removeprefix("split:")
    size = per_motif or len(structures(m))
    rest = [v for v in structures(m) if v != own]
    ctx.rng.shuffle(rest)
    rest = rest[: size - 1]
    second = (
        partner(m, own, ordinal)
        if own == "true"
        else next((v for v in rest if v != "true"), "true")
    )
    ordinary = [s for s in m.skins if s is not t_case.skin and s.kind == "ordinary"]
    cluster = ([(own, "source")] if with_source else []) + [
        (v, "decoy_near" if v == second else "decoy_far") for v in rest
    ]
    specs = [_Spec(tuple((m, v, s, None) for s in ordinary), label) for v, label in cluster]
    names = tuple(o.name for o in ctx.pool)
    eligible = tuple(len(structures(o)) >= (per_motif or 1) for o in ctx.pool)
    k = -(-(MEMORY_SIZE - len(specs)) // size)
    probs = inclusion(names, t_case.skin.kind == "nonce", eligible, k)[names.index(m.name)]
    chosen = draw(ctx.rng, [(o, p) for o, p in zip(ctx.pool, probs) if p > 0])
    spare = [o for o, e in zip(ctx.pool, eligible) if e and o is not m and o not in chosen]
    ctx.rng.shuffle(spare)  # used only where the draw falls short of a full snapshot
    for i, o in enumerate(chosen + spare):
        vs = structures(o)
        ctx.rng.shuffle(vs)
        if i == 0 and t_case.skin.kind == "nonce":
            nonce = [s for s in o.skins if s.kind == "nonce"]
            lexicons = (t_case.lexicon, None)
            specs.append(_Spec(tuple((o, vs[0], s, x) for s in nonce for x in lexicons), "filler"))
            continue
        skins = _filler_skins(o, t_case)
        specs += [_Spec(tuple((o, v, s, None) for s in skins), "filler") for v in vs[:size]]
        if len(specs) >= MEMORY_SIZE:
            break
    return specs[:MEMORY_SIZE]


def _draw(ctx: Context, spec: _Spec, used: set[tuple[str, str]], symptoms: set[str]) -> Case:
    """One rendering of ``spec`` drawn uniformly over its options and seeds (no overlap with
    the target is measured), drawn again while its symptom sentence or its (motif, structure)
    is already in the snapshot (at most :data:`DRAW_TRIES` times); asides dealt fresh."""
    for k in range(DRAW_TRIES):
        motif, variant, skin, lexicon = spec.options[ctx.rng.randrange(len(spec.options))]
        seed = ctx.rng.randrange(10**9)
        bare = make_case(motif, variant, skin, seed, lexicon)
        fresh = bare.rendering.symptom not in symptoms and (motif.name, variant) not in used
        if fresh or k == DRAW_TRIES - 1:
            break
    n = ctx.rng.randrange(MAX_ASIDES + 1)
    asides = tuple(ctx.dealer.deal(skin.domain, skin.kind, n))
    fix = ctx.stored_fix(motif, variant)
    return make_case(motif, variant, skin, seed, lexicon, fix, asides)


def _wordings(ctx: Context, t_case: Case) -> list[Case]:
    """:data:`TARGET_TRIES` wordings of the target: the same structure, skin, invented words,
    fix and asides, each with its own seed (the first is ``t_case`` itself)."""
    out = [t_case]
    for _ in range(TARGET_TRIES - 1):
        seed = ctx.rng.randrange(10**9)
        out.append(
            make_case(
                t_case.motif,
                t_case.variant,
                t_case.skin,
                seed,
                t_case.lexicon,
                t_case.recorded_fix,
                t_case.asides,
                t_case.extra,
            )
        )
    return out


def _overlaps(text: str, sets: list[tuple[set[str], set[str]]]) -> tuple[list[float], ...]:
    """Word and word-bigram Jaccard overlap of ``text`` with each episode's (word, bigram) sets."""
    t = (words(text), bigrams(text))
    return tuple(
        [len(t[m] & o[m]) / len(t[m] | o[m]) if t[m] | o[m] else 1.0 for o in sets] for m in (0, 1)
    )


def _rank(vals: list[float], i: int) -> float:
    """How many of the other values lie below ``vals[i]`` (ties count half)."""
    return sum((v < vals[i]) + 0.5 * (v == vals[i]) for j, v in enumerate(vals) if j != i)


def _wording(
    ctx: Context,
    wordings: list[Case],
    table: list[tuple[list[float], ...]],
    want: list[float | None],
    src: int | None,
    key: str,
) -> Case:
    """The target's wording for the snapshot: the source (if any) at the overlap rank (word
    Jaccard, among the snapshot's episodes) least used so far in the bench (``ctx.ranks``)
    among those some wording reaches, the lowest of equally used ones (a source's reachable
    ranks run from some floor to the top, so ties drawn at random left the top ranks
    over-used: mean rank quantile 0.67 against 0.55 on 20 test seeds of F3), its bigram rank
    as near; the motif's other episodes (``want`` not None) as near as the wording allows to
    their own least-used ranks (a tally of their own). The values of ``want`` (drawn at random)
    are not used since the look-alikes are balanced by tally; they are still drawn so that
    benches stay as measured in docs/parb.md."""
    ranked = [i for i, w in enumerate(want) if w is not None and i != src]
    every = range(len(wordings))

    def least_used(tally: str, at: list[int]) -> int:
        fewest = min(ctx.ranks[(tally, r)] for r in at)
        return min(r for r in at if ctx.ranks[(tally, r)] == fewest)  # ties: the lowest

    # the motif's other episodes are balanced the same way (their own tally), as near as the
    # wording allows once the source's rank is set, so the source is not the low one of its
    # cluster
    alike = f"{key}/alike"
    goals = {i: least_used(alike, [round(_rank(table[k][0], i)) for k in every]) for i in ranked}

    def rest(k: int) -> float:
        return sum(abs(_rank(v, i) - goals[i]) for v in table[k] for i in ranked)

    options = list(every)
    if src is not None:
        at = [round(_rank(table[k][0], src)) for k in options]
        r = least_used(key, at)
        ctx.ranks[(key, r)] += 1
        options = [k for k in options if at[k] == r]
        best = min(options, key=lambda k: abs(_rank(table[k][1], src) - r) + rest(k))
    else:
        best = min(options, key=rest)
    for i in ranked:
        ctx.ranks[(alike, round(_rank(table[best][0], i)))] += 1
    return wordings[best]


def memory(
    ctx: Context,
    t_case: Case,
    *,
    with_source: bool,
    ordinal: int = 0,
    structures: Structures = variants,
    per_motif: int | None = None,
) -> tuple[list[Shown], dict[str, str], Case]:
    """A snapshot for ``t_case``, the key-side role of every episode in it, and the target's
    wording to show with it.

    The target's motif contributes one episode of each of ``per_motif`` of its structures (all,
    when None; ``structures`` lists a motif's, by default all), in skins other than the
    target's: the valid source (the target's structure) and others of the motif — or, with no
    source, the others only. The rest are clusters of other motifs of the same size
    (:func:`_plan`). Every episode is drawn at random (:func:`_draw`); the target's wording is
    chosen for the snapshot (:func:`_wording`): the source at the least-used overlap rank of
    the bench that some wording reaches (ties: the lowest). No stored episode shares the
    target's skin; the wording keeps ``t_case``'s structure, skin, invented words, fix and
    asides.
    """
    labelled: list[tuple[Case, str]] = []
    symptoms: set[str] = set()
    used: set[tuple[str, str]] = set()
    specs = _plan(ctx, t_case, with_source, ordinal, structures, per_motif)
    for spec in specs:
        c = _draw(ctx, spec, used, symptoms)
        used.add((c.motif.name, c.variant))
        symptoms.add(c.rendering.symptom)
        label = spec.label if spec.label != "filler" else _filler_label(c.skin, c.lexicon, t_case)
        labelled.append((c, label))
    wordings = _wordings(ctx, t_case)
    want = [ctx.rng.random() if label in OWN else None for _, label in labelled]
    src = next((i for i, (_, label) in enumerate(labelled) if label == "source"), None)
    key = f"{t_case.skin.kind}/{per_motif or 0}"

    def table(cases: list[Case]) -> list[tuple[list[float], ...]]:
        sets = [(words(c.text), bigrams(c.text)) for c in cases]
        return [_overlaps(w.text, sets) for w in wordings]

    tab = table([c for c, _ in labelled])
    chosen = _wording(ctx, wordings, tab, want, src, key)
    strings: set[str] = set()
    shown = [(episode(c, ctx.rng, ctx.taken, strings), label) for c, label in labelled]
    shown.sort(key=lambda s: (s[0].record["time"], s[0].record["id"]))
    return [s for s, _ in shown], {s.record["id"]: label for s, label in shown}, chosen


def _retrieval(
    ctx: Context,
    slot: Slot,
    variant: str,
    with_source: bool,
    structures: Structures = variants,
    per_motif: int | None = None,
):
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


def _memory_target(ctx: Context, structures: list[str]) -> str:
    """A memory target's structure, uniform over the motif's structures: the snapshot holds
    each of them once, so no structure (the true one included) is the source more often."""
    return structures[ctx.rng.randrange(len(structures))]


def build_f3(ctx: Context, slot: Slot) -> Item:
    """F3: target only plus a memory snapshot; every third item has no valid source (the key
    still holds the target's check and own fix)."""
    variant = _memory_target(ctx, variants(slot.motif))
    snapshot, tgt, key = _retrieval(ctx, slot, variant, with_source=slot.ordinal % 3 != 1)
    inputs = {"target": tgt.record, "memory": [s.record for s in snapshot]}
    return ctx.item(slot, inputs, key)


def build_f7(ctx: Context, slot: Slot) -> Item:
    """F7: a nonce-skinned target, end to end: retrieve, map, and pick a fix from the menu."""
    nonce_slot = Slot(slot.family, slot.motif, slot.ordinal, True)
    variant = _memory_target(ctx, variants(slot.motif))
    snapshot, tgt, key = _retrieval(ctx, nonce_slot, variant, with_source=True)
    menu = operator_menu([slot.motif] + [s.case.motif for s in snapshot], ctx.rng, extra=2)
    inputs = {"target": tgt.record, "memory": [s.record for s in snapshot], "operators": menu}
    return ctx.item(slot, inputs, key)


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
    variant = _memory_target(
        ctx, [f"split:{v}" if v != "true" else "split" for v in _f8_structures(m)]
    )
    snapshot, tgt, key = _retrieval(
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
