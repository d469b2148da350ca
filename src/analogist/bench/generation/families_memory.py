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

Every episode is rendered to one word-overlap level with the target for the whole snapshot. So
within a snapshot and across a bench, how often a structure or a motif recurs says nothing
about which episode is valid, and no stored episode shares the target's entity names.
Episodes are listed in time order, and times are random, so position says nothing.

F8 targets are written at a finer grain (one extra intermediate part), over any structure of
the motif that can be written so (:func:`_f8_structures`); F8 snapshots show two of them for
every motif (:data:`F8_CLUSTER`). The key holds the
executable ``check`` of the split world and a fix that resolves it (for the true structure, the
motif's fix with the part put in place of a role where the plain fix no longer reaches).
"""

from __future__ import annotations

import itertools
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
from analogist.bench.generation.render import bigram_jaccard, jaccard
from analogist.bench.generation.signatures import gold_raw
from analogist.bench.generation.world import world_for
from analogist.signature import parse_term

MEMORY_SIZE = 10
Structures = Callable[[Motif], list[str]]


STEP = (0.01, 0.005)
"""Grid steps of the (word, word-bigram) Jaccard overlap level, with the target's text (asides
left out), that every episode of a snapshot is drawn to."""
RENDERINGS = 24
"""Renderings tried for each stored episode (spread over its skins and seeds), times its
:data:`BUDGET` multiple."""
BUDGET = {"source": 4, "decoy_near": 2, "decoy_far": 2, "filler": 2}
"""Multiples of :data:`RENDERINGS` tried per role (1 for surface traps): the source shares the
most words with the target, so it needs the most tries to reach down to the snapshot's level,
and the target's motif's other structures and the other-domain fillers, which share the least,
need more tries to reach up to it. Only the tries differ by role, never the level."""


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
    t_bare: str,
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
    another motif's nonce skin, in the target's invented world or one of its own (whichever
    lands nearer the snapshot's overlap level), so the trap is not always the closest note."""
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


@dataclass(frozen=True)
class _Option:
    """One candidate rendering of a stored episode and its overlap with the target."""

    motif: Motif
    variant: str
    skin: Skin
    seed: int
    lexicon: int | None
    symptom: str
    words: float
    bigrams: float


def _candidates(ctx: Context, spec: _Spec, t_bare: str) -> list[_Option]:
    """Renderings of ``spec`` tried for the snapshot (spread over its skins and seeds), each
    with its word and word-bigram overlap with the target's bare text."""
    budget = RENDERINGS * BUDGET.get(spec.label, 1)
    tries = max(2, budget // len(spec.options))
    out = []
    for motif, variant, skin, lexicon in spec.options:
        for _ in range(tries):
            seed = ctx.rng.randrange(10**9)
            bare = make_case(motif, variant, skin, seed, lexicon)
            out.append(
                _Option(
                    motif,
                    variant,
                    skin,
                    seed,
                    lexicon,
                    bare.rendering.symptom,
                    jaccard(bare.text, t_bare),
                    bigram_jaccard(bare.text, t_bare),
                )
            )
    return out


def _miss(o: _Option, level: tuple[float, float]) -> float:
    """How far a rendering's overlaps lie from a (words, bigrams) level, each in units of
    :data:`STEP`."""
    return abs(o.words - level[0]) / STEP[0] + abs(o.bigrams - level[1]) / STEP[1]


def _level(ctx: Context, pools: list[list[_Option]]) -> tuple[float, float]:
    """The (word, bigram) overlap level every episode of one snapshot is drawn to: on the grid
    of :data:`STEP`, the level that the snapshot's episodes, source and look-alikes included,
    can all come closest to (the worst nearest miss, then the mean), ties broken at random. One
    level for the whole snapshot, so no episode's overlap tells its role."""
    grid = [(w * STEP[0], b * STEP[1]) for w in range(4, 25) for b in range(0, 25)]
    ctx.rng.shuffle(grid)

    def cost(lv: tuple[float, float]) -> float:
        misses = [min(_miss(o, lv) for o in pool) for pool in pools if pool]
        return max(misses) + 3 * sum(misses) / len(misses)

    return min(grid, key=cost)


def _pick(
    pool: list[_Option], level: tuple[float, float], taken_symptoms: set[str]
) -> _Option | None:
    """The rendering nearest the snapshot's overlap level whose symptom sentence is not yet in
    the snapshot (None: every one repeats a symptom)."""
    fresh = [o for o in pool if o.symptom not in taken_symptoms]
    return min(fresh, key=lambda o: _miss(o, level)) if fresh else None


def memory(
    ctx: Context,
    t_case: Case,
    *,
    with_source: bool,
    ordinal: int = 0,
    structures: Structures = variants,
    per_motif: int | None = None,
) -> tuple[list[Shown], dict[str, str]]:
    """A snapshot for ``t_case`` and the key-side role of every episode in it.

    The target's motif contributes one episode of each of ``per_motif`` of its structures (all,
    when None; ``structures`` lists a motif's, by default all), in skins other than the
    target's: the valid source (the target's structure) and others of the motif — or, with no
    source, the others only. The rest are clusters of other motifs of the same size
    (:func:`_plan`). Every
    episode is rendered to one (word, word-bigram) overlap level with the target chosen for the
    whole snapshot (:func:`_level`, :func:`_pick`), so that neither the motif's episodes nor
    the source stand out by shared words as far as the tried renderings allow (the figures
    left are in docs/parb.md).
    No stored episode shares the target's skin.
    """
    t_bare = make_case(t_case.motif, t_case.variant, t_case.skin, t_case.seed, t_case.lexicon).text
    labelled: list[tuple[Case, str]] = []
    symptoms: set[str] = set()
    used: set[tuple[str, str]] = set()
    specs = _plan(ctx, t_case, t_bare, with_source, ordinal, structures, per_motif)
    pools = [_candidates(ctx, spec, t_bare) for spec in specs]
    level = _level(ctx, pools)
    for spec, pool in zip(specs, pools):
        fresh = [o for o in pool if (o.motif.name, o.variant) not in used]
        o = _pick(fresh or pool, level, symptoms)
        if o is None:  # every rendering repeats a symptom sentence already in the snapshot
            motif, variant, skin, lexicon = spec.options[0]
            seed = ctx.rng.randrange(10**9)
        else:
            motif, variant, skin, seed, lexicon = o.motif, o.variant, o.skin, o.seed, o.lexicon
        used.add((motif.name, variant))
        n = ctx.rng.randrange(MAX_ASIDES + 1)
        asides = tuple(ctx.dealer.deal(skin.domain, skin.kind, n))
        c = make_case(motif, variant, skin, seed, lexicon, ctx.stored_fix(motif, variant), asides)
        symptoms.add(c.rendering.symptom)
        label = spec.label if spec.label != "filler" else _filler_label(skin, lexicon, t_case)
        labelled.append((c, label))
    strings: set[str] = set()
    shown = [(episode(c, ctx.rng, ctx.taken, strings), label) for c, label in labelled]
    shown.sort(key=lambda s: (s[0].record["time"], s[0].record["id"]))
    return [s for s, _ in shown], {s.record["id"]: label for s, label in shown}


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
    snapshot, labels = memory(
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
