"""Overlap ranks balanced on the target's side: the wording of a memory target.

A memory snapshot's episodes are drawn at random and never selected by their word overlap with
the target, because a selection shows in the chosen episode's own words (when every episode was
drawn to one overlap level, sources were the renderings lacking common words the target has).
The target's wording is common to every candidate of the item, so choosing *it* leaves nothing
that tells candidates apart: among :data:`TARGET_TRIES` wordings of the target (seeds:
phrasings, word choices, aside places; the same structure, skin, invented words, fix and
asides), :func:`target_wording` takes the one that puts the source at the word-overlap rank
among the snapshot's episodes least used so far in the bench (``Context.ranks``; the lowest of
equally used ones), so the source's rank is spread over the ranks across a bench, and the
motif's other episodes as near as it allows to their own least-used ranks.
"""

from __future__ import annotations

from analogist.bench.generation.cases import Case, make_case
from analogist.bench.generation.items import Context
from analogist.bench.generation.render import bigrams, words

TARGET_TRIES = 96
"""Wordings of the target tried (seeds: phrasings, word choices, where its asides go)."""
OWN = ("source", "decoy_near", "decoy_far")
"""Snapshot roles of the target's motif's own episodes."""


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


def target_wording(
    ctx: Context, t_case: Case, labelled: list[tuple[Case, str]], per_motif: int | None
) -> Case:
    """The wording of ``t_case`` to show with a snapshot of ``labelled`` (episode, role) pairs:
    :data:`TARGET_TRIES` wordings are drawn, each scored by its word and bigram overlap with
    every episode, and :func:`_wording` picks one. Rank tallies are kept per snapshot kind
    (the target's skin kind and ``per_motif``)."""
    wordings = _wordings(ctx, t_case)
    want = [ctx.rng.random() if label in OWN else None for _, label in labelled]
    src = next((i for i, (_, label) in enumerate(labelled) if label == "source"), None)
    key = f"{t_case.skin.kind}/{per_motif or 0}"
    sets = [(words(c.text), bigrams(c.text)) for c, _ in labelled]
    table = [_overlaps(w.text, sets) for w in wordings]
    return _wording(ctx, wordings, table, want, src, key)
