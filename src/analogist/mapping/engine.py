"""The Structure-Mapping Engine: one comparison of a base with a target.

Runs SME v4's ``match`` (match.lisp; Forbus, Ferguson, Lovett & Gentner 2017, after
Falkenhainer, Forbus & Gentner 1989), step for step and in SME's orders, so that it agrees
with the real SME v4 on every pair, ties included (see ``docs/mapping.md``, "Fidelity"):

1. build the match-hypothesis forest (:mod:`.hypotheses`);
2. structural consistency, commutative filtering and roots (:mod:`.consistency`);
3. kernels, with forced commutative choices integrated (:mod:`.merge`, :mod:`.commutative`);
4. structural evaluation by trickle-down (:mod:`.scoring`);
5. greedy merge: base partitions, then at most ``greedy-max-#`` global mappings (:mod:`.merge`);
6. candidate inferences (:mod:`.inferences`); with ``block-most-out-of-mapping-contributions?``
   each mapping is re-scored from its own members and the mappings re-sorted (stable).

A comparison may create at most ``mh_budget`` match hypotheses (default
:data:`~analogist.mapping.hypotheses.DEFAULT_MH_BUDGET`); beyond it :func:`match` raises
:class:`~analogist.errors.MappingError` rather than run out of memory.

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

from analogist.mapping.consistency import check_consistency
from analogist.mapping.expressions import DescriptionIndex, index_description
from analogist.mapping.hypotheses import DEFAULT_MH_BUDGET, FUNCTOR, MH, Forest, build_forest
from analogist.mapping.inferences import CandidateInference, Projection, find_inferences
from analogist.mapping.kernels import filter_mask
from analogist.mapping.merge import Merger, PMap
from analogist.mapping.params import MatchFilters, SMEParams
from analogist.mapping.results import KIND_NAMES, Mapping, MatchHypothesis, MatchResult
from analogist.mapping.scoring import evaluate
from analogist.signature.description import Description

DEFAULT_PARAMS = SMEParams()
NO_FILTERS = MatchFilters()


def match(base: Description, target: Description, params: SMEParams = DEFAULT_PARAMS,
          filters: MatchFilters = NO_FILTERS, mh_budget: int = DEFAULT_MH_BUDGET) -> MatchResult:
    """Compares ``base`` with ``target`` and returns up to ``params.greedy_max`` mappings.

    Raises:
        MappingError: when a filter names an item absent from its description, or when the
            comparison would need more than ``mh_budget`` match hypotheses.
    """
    run = _Run(index_description(base), index_description(target), params, filters, mh_budget)
    return run.result(base, target)


class _Run:
    """State of one comparison; the phases are its methods."""

    def __init__(self, b: DescriptionIndex, t: DescriptionIndex, params: SMEParams,
                 filters: MatchFilters, budget: int):
        self.b, self.t, self.params, self.filters = b, t, params, filters
        self.forest: Forest = build_forest(b, t, params, filters.identical_functions, budget)
        roots = check_consistency(self.forest)
        self.merger = Merger(self.forest, params)
        self.kernels = self.merger.make_kernels(roots)
        evaluate(self.forest, params)
        self.network = [m.score for m in self.forest.mhs]
        self.merger.score_kernels()

    def result(self, base: Description, target: Description) -> MatchResult:
        banned = filter_mask(self.forest, self.b, self.t, self.filters)
        usable: Callable[[PMap], bool] = (lambda k: not k.desc & banned) if banned else (
            lambda k: True)
        merged = self.merger.greedy_merge(usable)
        p = self.params
        norm = 0.5 * (self.b.self_score(p.trickle_down, p.same_functor, p.max_local_score)
                      + self.t.self_score(p.trickle_down, p.same_functor, p.max_local_score))
        mappings = [self._mapping(m, norm) for m in merged]
        if p.block_most_out_of_mapping_contributions:
            mappings.sort(key=lambda m: -m.score)  # stable, as SME's final sort
        return MatchResult(
            base=base, target=target, params=self.params,
            filters=self.filters, mh_count=len(self.forest), kernel_count=len(self.kernels),
            mappings=tuple(mappings), _all_hypotheses=self._all_hypotheses,
        )

    def _hypothesis(self, mh: MH) -> MatchHypothesis:
        if mh.kind == FUNCTOR:
            base, target = mh.base, mh.target
        else:
            base, target = self.b.items[mh.base], self.t.items[mh.target]  # type: ignore[index]
        return MatchHypothesis(mh.index, KIND_NAMES[mh.kind], base, target,  # type: ignore[arg-type]
                               self.network[mh.index], mh.local)

    def _all_hypotheses(self) -> tuple[MatchHypothesis, ...]:
        return tuple(self._hypothesis(mh) for mh in self.forest.mhs)

    def _mapping(self, pm: PMap, norm: float) -> Mapping:
        p = self.params
        cis = find_inferences(self._projection(pm, reverse=False), p,
                              self._support(pm, reverse=False))
        rcis: tuple[CandidateInference, ...] = ()
        if p.compute_reverse_inferences:
            rcis = find_inferences(self._projection(pm, reverse=True), p,
                                   self._support(pm, reverse=True), reverse=True)
        if p.block_most_out_of_mapping_contributions:
            total = self.merger.evaluate(pm, global_=True)
        else:
            total = pm.score
        members = sorted(pm.mhs, key=lambda m: m.index)
        objs = [self._hypothesis(m) for m in members]
        root_objs = [self._hypothesis(m) for m in pm.roots]
        return Mapping(
            score=total, normalized_score=total / norm if norm > 0 else 0.0,
            mhs=tuple(objs), mh_scores=tuple(self.network[m.index] for m in members),
            root_mhs=tuple(root_objs), candidate_inferences=cis, reverse_inferences=rcis,
        )

    def _projection(self, pm: PMap, reverse: bool) -> Projection:
        node_map: dict[int, int] = {}
        functor_map: dict[str, str] = {}
        for mh in reversed(pm.mhs):  # SME finds the first hypothesis in list order
            src, dst = (mh.target, mh.base) if reverse else (mh.base, mh.target)
            if mh.kind == FUNCTOR:
                functor_map[str(src)] = str(dst)
            else:
                node_map[int(src)] = int(dst)
        source, other = (self.t, self.b) if reverse else (self.b, self.t)
        return Projection(source, other, node_map, functor_map)

    def _support(self, pm: PMap, reverse: bool) -> Callable[[int], float]:
        """Support of the inference from a root: the network scores of the mapping's
        correspondences inside that root (SME v4 scores support by its own trickle-down over
        the inference's hypotheses; this figure is not part of the SME comparison)."""
        index = self.t if reverse else self.b

        def support(root: int) -> float:
            under = index.under_root(root)
            total = 0.0
            for mh in pm.mhs:
                if mh.kind != FUNCTOR and (mh.target if reverse else mh.base) in under:
                    total += self.network[mh.index]
            return total

        return support

