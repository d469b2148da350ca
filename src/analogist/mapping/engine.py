"""The Structure-Mapping Engine: one comparison of a base with a target.

Runs the phases of SME v4 (Forbus, Ferguson, Lovett & Gentner 2017, with the supplemental
"SME algorithm, version 4" note; after Falkenhainer, Forbus & Gentner 1989):

1. build the match-hypothesis forest (:mod:`.hypotheses`);
2. structural consistency: descendants, nogoods, incompleteness (:mod:`.consistency`);
3. structural evaluation by trickle-down (:mod:`.scoring`);
4. kernels and filters (:mod:`.kernels`);
5. greedy merge into at most ``greedy-max-#`` mappings (:mod:`.merge`), resolving commutative
   arguments inside each (:mod:`.commutative`);
6. final scores and candidate inferences (:mod:`.inferences`).

Worst case O(n^2 log n) in the size of the descriptions; typical comparisons of a few dozen
statements take about a millisecond.

Example:
    >>> from analogist.signature.description import Description, Entity, Expr, PredicateInfo
    >>> preds = {"hits": PredicateInfo("hits", "relation", 2)}
    >>> b = Description("b", (Entity("x"), Entity("y")), (Expr("hits", ("x", "y")),), preds)
    >>> t = Description("t", (Entity("p"), Entity("q")), (Expr("hits", ("p", "q")),), preds)
    >>> [(m.base, m.target) for m in match(b, t).best.entity_mhs]
    [('x', 'p'), ('y', 'q')]
"""

from __future__ import annotations

from collections.abc import Callable

from analogist.mapping.commutative import resolve_commutatives
from analogist.mapping.consistency import Consistency, check_consistency
from analogist.mapping.expressions import DescriptionIndex, index_description
from analogist.mapping.hypotheses import FUNCTOR, Forest, build_forest
from analogist.mapping.inferences import CandidateInference, Projection, find_inferences
from analogist.mapping.kernels import apply_filters, filter_mask, find_kernels
from analogist.mapping.merge import Merger
from analogist.mapping.params import MatchFilters, SMEParams
from analogist.mapping.results import KIND_NAMES, Mapping, MatchHypothesis, MatchResult
from analogist.mapping.scoring import SetScorer, iter_bits, network_scores, set_scores
from analogist.signature.description import Description

DEFAULT_PARAMS = SMEParams()
NO_FILTERS = MatchFilters()


def match(base: Description, target: Description, params: SMEParams = DEFAULT_PARAMS,
          filters: MatchFilters = NO_FILTERS) -> MatchResult:
    """Compares ``base`` with ``target`` and returns up to ``params.greedy_max`` mappings.

    Raises:
        MappingError: when a filter names an item absent from its description.
    """
    run = _Run(index_description(base), index_description(target), params, filters)
    return run.result(base, target)


class _Run:
    """State of one comparison; the phases are its methods."""

    def __init__(self, b: DescriptionIndex, t: DescriptionIndex, params: SMEParams,
                 filters: MatchFilters):
        self.b, self.t, self.params, self.filters = b, t, params, filters
        self.forest: Forest = build_forest(b, t, params, filters.identical_functions)
        self.cons: Consistency = check_consistency(self.forest)
        self.net = network_scores(self.forest, self.cons, params)
        self.scorer = SetScorer(self.forest, self.net, params)

    def result(self, base: Description, target: Description) -> MatchResult:
        kernels = find_kernels(self.forest, self.cons)
        banned = filter_mask(self.forest, self.b, self.t, self.filters)
        merger = Merger(apply_filters(kernels, banned), self.scorer, self.params)
        members = [resolve_commutatives(i.members, self.forest, self.cons, self.net, banned)
                   for i in merger.greedy_map(self.forest, self.b)]
        p = self.params
        norm = 0.5 * (self.b.self_score(p.trickle_down, p.same_functor, p.max_local_score)
                      + self.t.self_score(p.trickle_down, p.same_functor, p.max_local_score))
        mappings = [self._mapping(m, norm) for m in members]
        mappings.sort(key=lambda m: m.score, reverse=True)
        return MatchResult(
            base=base, target=target, params=self.params,
            filters=self.filters, mh_count=len(self.forest), kernel_count=len(kernels),
            mappings=tuple(mappings), _all_hypotheses=self._all_hypotheses,
        )

    def _hypothesis(self, mh: int) -> MatchHypothesis:
        f = self.forest
        if f.kind[mh] == FUNCTOR:
            base, target = f.base[mh], f.target[mh]
        else:
            base, target = self.b.items[f.base[mh]], self.t.items[f.target[mh]]  # type: ignore
        return MatchHypothesis(mh, KIND_NAMES[f.kind[mh]], base, target,  # type: ignore[arg-type]
                               self.net[mh], f.local[mh])

    def _all_hypotheses(self) -> tuple[MatchHypothesis, ...]:
        return tuple(self._hypothesis(mh) for mh in range(len(self.forest)))

    def _mapping(self, members: int, norm: float) -> Mapping:
        f = self.forest
        scores = self.scorer.final(members)
        ids = sorted(scores)
        roots = [mh for mh in ids if f.kind[mh] != FUNCTOR
                 and not any(members >> p & 1 for p in f.parents[mh])]
        objs = {mh: self._hypothesis(mh) for mh in ids}
        total = sum(scores.values())
        forward = self._projection(members, reverse=False)
        cis = find_inferences(forward, self.params, self._support(members, scores, False))
        rcis: tuple[CandidateInference, ...] = ()
        if self.params.compute_reverse_inferences:
            backward = self._projection(members, reverse=True)
            rcis = find_inferences(backward, self.params, self._support(members, scores, True),
                                   reverse=True)
        return Mapping(
            score=total, normalized_score=total / norm if norm > 0 else 0.0,
            mhs=tuple(objs[mh] for mh in ids), mh_scores=tuple(scores[mh] for mh in ids),
            root_mhs=tuple(objs[mh] for mh in roots), candidate_inferences=cis,
            reverse_inferences=rcis,
        )

    def _projection(self, members: int, reverse: bool) -> Projection:
        f = self.forest
        node_map: dict[int, int] = {}
        functor_map: dict[str, str] = {}
        for mh in iter_bits(members):
            src, dst = (f.target[mh], f.base[mh]) if reverse else (f.base[mh], f.target[mh])
            if f.kind[mh] == FUNCTOR:
                functor_map[str(src)] = str(dst)
            else:
                node_map[int(src)] = int(dst)
        source, other = (self.t, self.b) if reverse else (self.b, self.t)
        return Projection(source, other, node_map, functor_map)

    def _support(self, members: int, scores: dict[int, float],
                 reverse: bool) -> Callable[[int], float]:
        """Support score of the inference from a root: trickle-down over the correspondences
        inside that root (from them alone, or from the whole mapping when global)."""
        f, p = self.forest, self.params
        side = f.target if reverse else f.base
        index = self.t if reverse else self.b
        ids = list(scores)

        def support(root: int) -> float:
            under = index.under_root(root)
            functors = {index.functor[n] for n in under if not index.is_entity[n]}
            inside = [mh for mh in ids
                      if (side[mh] in functors if f.kind[mh] == FUNCTOR else side[mh] in under)]
            if p.ci_support_scores_global:
                return sum(scores[mh] for mh in inside)
            return sum(set_scores(sum(1 << mh for mh in inside), f, p).values())

        return support
