"""Closeness matching: a given candidate's wording does not say whether it is valid.

A rendering of the target's own structure shares more words with the target than a rendering
of another structure (word overlap 0.157 against 0.130 in another skin, 0.52 against 0.41 in
the same skin; docs/parb.md). So F2's candidates and F6's offered source are not rendered
freely: :func:`matched_case` draws probe renderings of both structures (no asides, so no aside
deck is drained), lets one of them set a closeness level (:func:`_closeness`: shared sentences,
word overlap, word-pair overlap with the target) and renders the wanted structure's probe
nearest to that level again, asides added. Matched to a level drawn from both, the valid and
the invalid structure read equally close.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from analogist.bench.generation.cases import Case, make_case
from analogist.bench.generation.items import Context
from analogist.bench.generation.motif import Motif, Skin
from analogist.bench.generation.render import jaccard


def _shared(a: str, b: str) -> int:
    sa = {x.strip() for x in a.split(". ")}
    return sum(1 for x in b.split(". ") if x.strip() in sa)


def _bigrams(text: str) -> set[tuple[str, str]]:
    w = re.findall(r"[a-z0-9']+", text.lower())
    return set(zip(w, w[1:], strict=False))


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
