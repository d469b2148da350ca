"""Memory snapshots: the ten stored episodes an F3, F7 or F8 item searches (spec §16.1).

Each memory item carries its own snapshot, built from the split's motifs only, in clusters of
one motif each, every cluster the same size. The target's motif's cluster holds, never in the
target's own skin:

- the valid source: the target's own structure in a *different* domain, and the motif's other
  structures (look-alikes: "decoy_near", the minimal-pair partner of a true target, and
  "decoy_far"); a no-match item (every third F3 item, spec §16.3) holds the motif's other
  structures only;
- fillers: clusters of other motifs (as many structures each, drawn at random), chosen close
  in words to the target's motif with every motif used equally over a bench
  (:mod:`~analogist.bench.generation.fillers`), each episode in any ordinary skin of its
  motif (in the target's domain: a surface trap). A nonce target also gets one other motif's
  nonce skin, in its invented world or another one.

Every episode's rendering (skin, seed, asides) is drawn at random, never selected by its
overlap with the target: a selection shows in the chosen episode's own words. The overlap is
balanced on the target's side instead (:mod:`~analogist.bench.generation.overlap_ranks`). So
within a snapshot, how often a structure or a motif recurs says nothing about which episode is
valid, and no stored episode shares the target's entity names. Episodes are listed in time
order, and times are random, so position says nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from analogist.bench.generation.asides import MAX_ASIDES
from analogist.bench.generation.cases import Case, Shown, episode, make_case
from analogist.bench.generation.fillers import draw, inclusion
from analogist.bench.generation.items import Context, partner, variants
from analogist.bench.generation.motif import Motif, Skin
from analogist.bench.generation.overlap_ranks import target_wording

MEMORY_SIZE = 10
Structures = Callable[[Motif], list[str]]
"""The structures of a motif a snapshot may show (by default all of them:
:func:`~analogist.bench.generation.items.variants`)."""

DRAW_TRIES = 24
"""Random renderings tried per stored episode for one whose symptom sentence and (motif,
structure) are not yet in the snapshot."""


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
    chosen for the snapshot (:func:`~analogist.bench.generation.overlap_ranks.target_wording`):
    the source at the least-used overlap rank of the bench that some wording reaches (ties:
    the lowest). No stored episode shares the target's skin; the wording keeps ``t_case``'s
    structure, skin, invented words, fix and asides.
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
    chosen = target_wording(ctx, t_case, labelled, per_motif)
    strings: set[str] = set()
    shown = [(episode(c, ctx.rng, ctx.taken, strings), label) for c, label in labelled]
    shown.sort(key=lambda s: (s[0].record["time"], s[0].record["id"]))
    return [s for s, _ in shown], {s.record["id"]: label for s, label in shown}, chosen
