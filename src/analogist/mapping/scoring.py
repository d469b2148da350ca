"""Phase two, part two: structural evaluation by trickle-down.

SME v4 algorithm note, section 2.3. Every viable hypothesis starts with a local score
(``same-functor`` for identical functors, ``same-function`` for non-identical functions, zero for
entities and functor correspondences), then receives ``trickle-down`` times the scores of its
parents, working from the roots down. This is the local implementation of systematicity: an
entity correspondence under a deep, connected structure ends up with a large score.

Two evaluations exist:

- :func:`network_scores`: over the whole forest. With ``block-most-out-of-mapping-
  contributions?`` a hypothesis takes its parents greedily by score, skipping any parent
  inconsistent with those already taken, so that rival parents do not inflate it (the note's
  example of MH1/MH2 above MH3); without it, every viable parent contributes.
- :func:`set_scores`: over one set of hypotheses (a kernel or a mapping), counting trickle-down
  from parents inside the set only. This is how SME v4 re-scores global mappings when
  out-of-mapping contributions are blocked, and every partial mapping when they are not
  allowed at all.

Scores are not clamped unless ``max-local-score`` is set (the note: earlier versions capped each
node at 1.0, which flattened deep structure; v4 normalises at the mapping level instead).
Complexity: one pass over the hypotheses, O(m) plus a sort of each hypothesis' parents.
"""

from __future__ import annotations

from collections.abc import Callable

from analogist.mapping.consistency import Consistency
from analogist.mapping.hypotheses import FUNCTOR, Forest
from analogist.mapping.params import SMEParams


def iter_bits(bits: int) -> list[int]:
    """Indices of the set bits of ``bits``, ascending."""
    out = []
    while bits:
        low = bits & -bits
        out.append(low.bit_length() - 1)
        bits ^= low
    return out


def _clamp(params: SMEParams) -> Callable[[float], float]:
    cap = params.max_local_score
    if cap is None:
        return lambda x: x
    return lambda x: min(cap, x)


def network_scores(forest: Forest, cons: Consistency, params: SMEParams) -> list[float]:
    """Score of every hypothesis in the whole forest (0 for losing ones)."""
    n = len(forest)
    scores = [0.0] * n
    clamp = _clamp(params)
    td = params.trickle_down
    greedy = params.block_most_out_of_mapping_contributions
    losing, nogood, closure = cons.losing, cons.nogood, cons.closure
    for mh in sorted(range(n), key=forest.order.__getitem__, reverse=True):
        if losing[mh] or (forest.kind[mh] == FUNCTOR and not params.functor_trickle_down):
            continue
        parents = [p for p in forest.parents[mh] if not losing[p]]
        if greedy and len(parents) > 1:
            parents.sort(key=scores.__getitem__, reverse=True)
            taken: list[int] = []
            union = 0
            for p in parents:
                if not nogood[p] & union:
                    taken.append(p)
                    union |= closure[p]
            parents = taken
        scores[mh] = clamp(forest.local[mh] + td * sum(scores[p] for p in parents))
    return scores


def set_scores(members: int, forest: Forest, params: SMEParams) -> dict[int, float]:
    """Score of each hypothesis of the set ``members``, trickle-down from members only."""
    clamp = _clamp(params)
    td = params.trickle_down
    scores: dict[int, float] = {}
    for mh in sorted(iter_bits(members), key=forest.order.__getitem__, reverse=True):
        if forest.kind[mh] == FUNCTOR and not params.functor_trickle_down:
            scores[mh] = 0.0
            continue
        inherited = sum(scores[p] for p in forest.parents[mh] if p in scores)
        scores[mh] = clamp(forest.local[mh] + td * inherited)
    return scores


class SetScorer:
    """Scores partial mappings the way the merge needs, memoised by member set.

    With out-of-mapping contributions allowed, a partial mapping scores the sum of its members'
    network scores; otherwise it is re-scored with :func:`set_scores`.
    """

    def __init__(self, forest: Forest, network: list[float], params: SMEParams):
        self.forest, self.network, self.params = forest, network, params
        self.global_sum = params.allow_out_of_mapping_score_contributions
        self.cache: dict[int, float] = {}

    def __call__(self, members: int) -> float:
        found = self.cache.get(members)
        if found is None:
            if self.global_sum:
                net = self.network
                found = sum(net[i] for i in iter_bits(members))
            else:
                found = sum(set_scores(members, self.forest, self.params).values())
            self.cache[members] = found
        return found

    def final(self, members: int) -> dict[int, float]:
        """Per-hypothesis scores of a finished mapping (re-scored when contributions are
        blocked or disallowed, network scores otherwise)."""
        p = self.params
        if p.block_most_out_of_mapping_contributions or not p.allow_out_of_mapping_score_contributions:
            return set_scores(members, self.forest, p)
        return {i: self.network[i] for i in iter_bits(members)}
