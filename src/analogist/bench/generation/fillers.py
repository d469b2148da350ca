"""Which other motifs fill a memory snapshot: close in words to the target's motif, and every
motif used as often as any other.

A snapshot's own motif shares stock words with the target across skins, so a snapshot filled
with motifs drawn at random leaves the target's motif as the cluster nearest the target in
words, and guessing inside it beats chance. Filling it with the motifs nearest in words
instead would use wordy motifs over and over, and a learner that recognises a motif would
learn that the often-used ones are rarely the source. So the choice is both:

- :func:`closeness`: how many words a motif's notes share with another motif's notes, on
  average (fixed renderings, so it is the same in every bench);
- :func:`inclusion`: per target motif, the probability of including each other motif, close
  motifs favoured, with every row summing to the number of filler motifs a snapshot takes and
  every column to the same number (Sinkhorn scaling, capped at 1): over a bench each motif
  fills as many snapshots as any other, so how often a motif appears says nothing about
  whether it is the source;
- :func:`draw`: a set of motifs with exactly those inclusion probabilities (systematic
  sampling in a random order).
"""

from __future__ import annotations

import math
import random
from functools import cache

from analogist.bench.generation.cases import make_case
from analogist.bench.generation.motif import Motif
from analogist.bench.generation.render import jaccard

TEMPERATURE = 0.006
"""Word-overlap difference that multiplies a motif's weight by e: small, so that the nearest
motifs are strongly favoured within the limit that balance sets."""
PROBES = 2
"""Renderings per (motif, skin) used to measure closeness."""


@cache
def closeness(names: tuple[str, ...], nonce: bool) -> tuple[tuple[float, ...], ...]:
    """Mean word overlap of motif ``i``'s target notes (its nonce skin when ``nonce``, else its
    ordinary skins) with motif ``j``'s notes in its ordinary skins (every structure), from
    fixed seeds; the diagonal is 0."""

    def texts(m: Motif, kinds: tuple[str, ...], structures: tuple[str, ...]) -> list[str]:
        return [
            make_case(m, v, s, 7919 * k + i).text
            for s in m.skins
            if s.kind in kinds
            for i, v in enumerate(structures)
            for k in range(PROBES)
        ]

    from analogist.bench.generation.motifs import motif

    pool = [motif(n) for n in names]
    targets = [texts(m, ("nonce",) if nonce else ("ordinary",), ("true",)) for m in pool]
    stored = [texts(m, ("ordinary",), ("true", *(d.name for d in m.decoys))) for m in pool]
    return tuple(
        tuple(
            0.0
            if i == j
            else sum(jaccard(a, b) for a in targets[i] for b in stored[j])
            / (len(targets[i]) * len(stored[j]))
            for j in range(len(pool))
        )
        for i in range(len(pool))
    )


@cache
def inclusion(
    names: tuple[str, ...], nonce: bool, eligible: tuple[bool, ...], k: int
) -> tuple[tuple[float, ...], ...]:
    """Inclusion probabilities ``p[i][j]`` of motif ``j`` in a snapshot of target motif ``i``
    (eligible motifs only; 0 on the diagonal): weights ``exp(closeness / TEMPERATURE)`` scaled
    so that every row and every column sums to ``k`` (at most the eligible motifs but one),
    no entry above 1."""
    n = len(names)
    idx = [i for i in range(n) if eligible[i]]
    k = min(k, len(idx) - 1)
    c = closeness(names, nonce)
    w = [
        [math.exp((c[i][j] - max(c[i])) / TEMPERATURE) if i != j else 0.0 for j in idx] for i in idx
    ]
    for _ in range(500):
        for row in w:
            s = sum(row)
            row[:] = [min(1.0, x * k / s) for x in row]
        for j in range(len(idx)):
            s = sum(row[j] for row in w)
            for row in w:
                row[j] = min(1.0, row[j] * k / s)
    out = [[0.0] * n for _ in range(n)]
    for a, i in enumerate(idx):
        for b, j in enumerate(idx):
            out[i][j] = w[a][b]
    return tuple(tuple(r) for r in out)


def draw(rng: random.Random, probs: list[tuple[Motif, float]]) -> list[Motif]:
    """Motifs drawn so that each is included with its probability (systematic sampling over a
    random order; the probabilities should sum to a whole number)."""
    order = list(probs)
    rng.shuffle(order)
    u = rng.random()
    out, acc = [], 0.0
    for m, p in order:
        lo, acc = acc, acc + p
        if math.floor(acc - u) > math.floor(lo - u) or (p >= 1.0 - 1e-9):
            out.append(m)
    return out
