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

import gc
from collections.abc import Callable
from operator import attrgetter
from typing import cast

from analogist.mapping.consistency import check_consistency
from analogist.mapping.expressions import DescriptionIndex, index_description
from analogist.mapping.hypotheses import DEFAULT_MH_BUDGET, FUNCTOR, MH, Forest, build_forest
from analogist.mapping.inferences import CandidateInference, Projection, find_inferences
from analogist.mapping.kernels import filter_mask
from analogist.mapping.merge import Merger, PMap
from analogist.mapping.params import MatchFilters, SMEParams
from analogist.mapping.results import KIND_NAMES, Mapping, MatchHypothesis, MatchResult
from analogist.mapping.scoring import evaluate, f32
from analogist.signature.description import Description

DEFAULT_PARAMS = SMEParams()
_new_hypothesis = tuple.__new__  # MatchHypothesis from a ready tuple of its fields
NO_FILTERS = MatchFilters()


def match(
    base: Description,
    target: Description,
    params: SMEParams = DEFAULT_PARAMS,
    filters: MatchFilters = NO_FILTERS,
    mh_budget: int = DEFAULT_MH_BUDGET,
) -> MatchResult:
    """Compares ``base`` with ``target`` and returns up to ``params.greedy_max`` mappings.

    Raises:
        MappingError: when a filter names an item absent from its description, or when the
            comparison would need more than ``mh_budget`` match hypotheses.
    """
    # The forest is a web of cross-referencing objects; the cyclic garbage collector would
    # rescan it again and again while it grows, so it is paused for the comparison, and the
    # links are dropped at the end (Forest.release) so that nothing is left for it.
    paused = gc.isenabled()
    gc.disable()
    try:
        run = _Run(index_description(base), index_description(target), params, filters, mh_budget)
        return run.result(base, target)
    finally:
        if paused:
            gc.enable()


class _Run:
    """State of one comparison; the phases are its methods."""

    def __init__(
        self,
        b: DescriptionIndex,
        t: DescriptionIndex,
        params: SMEParams,
        filters: MatchFilters,
        budget: int,
    ):
        self.b, self.t, self.params, self.filters = b, t, params, filters
        self.forest: Forest = build_forest(b, t, params, filters.identical_functions, budget)
        roots = check_consistency(self.forest)
        self.merger = Merger(self.forest, params)
        self.kernels = self.merger.make_kernels(roots)
        evaluate(self.forest, params)
        self.network = [m.score for m in self.forest.mhs]
        self._objects: dict[int, MatchHypothesis] = {}
        self.merger.score_kernels()

    def result(self, base: Description, target: Description) -> MatchResult:
        banned = filter_mask(self.forest, self.b, self.t, self.filters)
        usable: Callable[[PMap], bool] = (
            (lambda k: not k.desc & banned) if banned else (lambda k: True)
        )
        merged = self.merger.greedy_merge(usable)
        p = self.params
        b, t = self.b, self.t

        def norm() -> float:
            return 0.5 * (
                b.self_score(p.trickle_down, p.same_functor, p.max_local_score)
                + t.self_score(p.trickle_down, p.same_functor, p.max_local_score)
            )

        inferences = [self._inferences(m) for m in merged]  # SME: all inferences, then scores
        mappings = [self._mapping(m, norm, cis, rcis) for m, (cis, rcis) in zip(merged, inferences)]
        if p.block_most_out_of_mapping_contributions:
            mappings.sort(key=lambda m: -m.score)  # stable, as SME's final sort
        self.forest.release()
        return MatchResult(
            base=base,
            target=target,
            params=self.params,
            filters=self.filters,
            mh_count=len(self.forest),
            kernel_count=len(self.kernels),
            mappings=tuple(mappings),
            _all_hypotheses=self._all_hypotheses,
        )

    def _hypothesis(self, mh: MH) -> MatchHypothesis:
        found = self._objects.get(mh.index)
        if found is not None:
            return found
        base: object
        target: object
        if mh.kind == FUNCTOR:
            base, target = mh.base, mh.target
        else:
            base, target = self.b.items[mh.base], self.t.items[mh.target]  # type: ignore[index]
        found = self._objects[mh.index] = _new_hypothesis(
            MatchHypothesis,
            (mh.index, KIND_NAMES[mh.kind], base, target, self.network[mh.index], mh.local),
        )
        return found

    def _all_hypotheses(self) -> tuple[MatchHypothesis, ...]:
        return tuple(self._hypothesis(mh) for mh in self.forest.mhs)

    def _inferences(
        self, pm: PMap
    ) -> tuple[tuple[CandidateInference, ...], tuple[CandidateInference, ...]]:
        p = self.params
        cis = self._side_inferences(pm, reverse=False)
        rcis: tuple[CandidateInference, ...] = ()
        if p.compute_reverse_inferences:
            rcis = self._side_inferences(pm, reverse=True)
        return cis, rcis

    def _side_inferences(self, pm: PMap, reverse: bool) -> tuple[CandidateInference, ...]:
        """Inferences of ``pm`` projected from one side. The mapping's correspondences by
        source item, the first in SME's list order winning (its members are walked from the
        end of the list, so the first one is written last)."""
        by_node: dict[int, MH] = {}
        by_functor: dict[str, MH] = {}
        node_map: dict[int, int] = {}
        functor_map: dict[str, str] = {}
        for mh in reversed(pm.mhs):
            src_item, dst_item = (mh.target, mh.base) if reverse else (mh.base, mh.target)
            if mh.kind == FUNCTOR:
                by_functor[cast(str, src_item)] = mh
                functor_map[cast(str, src_item)] = cast(str, dst_item)
            else:
                by_node[cast(int, src_item)] = mh
                node_map[cast(int, src_item)] = cast(int, dst_item)
        src, dst = (self.t, self.b) if reverse else (self.b, self.t)
        proj = Projection(src, dst, node_map, functor_map)
        return find_inferences(
            proj, self.params, self._scores(by_node, by_functor, reverse), reverse=reverse
        )

    def _mapping(
        self,
        pm: PMap,
        norm: Callable[[], float],
        cis: tuple[CandidateInference, ...],
        rcis: tuple[CandidateInference, ...],
    ) -> Mapping:
        p = self.params
        if p.block_most_out_of_mapping_contributions:
            total = self.merger.evaluate(pm, global_=True)
        else:
            total = pm.score
        members = sorted(pm.mhs, key=attrgetter("index"))
        objects, hypothesis = self._objects, self._hypothesis
        objs = tuple([objects.get(m.index) or hypothesis(m) for m in members])
        root_objs = tuple([objects.get(m.index) or hypothesis(m) for m in pm.roots])
        network = self.network
        return Mapping(
            score=total,
            _self_match=norm,
            mhs=objs,
            mh_scores=tuple([network[m.index] for m in members]),
            root_mhs=root_objs,
            candidate_inferences=cis,
            reverse_inferences=rcis,
        )

    def _scores(
        self, by_node: dict[int, MH], by_functor: dict[str, MH], reverse: bool
    ) -> Callable[[int], tuple[float, float]]:
        return _CIScores(self, by_node, by_functor, reverse)


class _CIScores:
    """Support and extrapolation of the inference from a root, as SME v4's ciscore.lisp
    computes them. Support: over the correspondences the inference was built from (each
    mapped item met while rewriting the root, functor correspondences included), each
    scores its local evidence (same-functor; same-function for non-identical functions)
    plus trickle-down times that for each of its arguments; with
    ``ci-support-scores-global?`` it is the sum of those correspondences' descendants'
    scores instead. Extrapolation: outside / (outside + inside), inside being the local
    support and outside the new top statement scored the same way (SME's shadow cache
    keeps only that entry). (An object, not closures: compiled closures that call each
    other form reference cycles, left to the cyclic garbage collector.)"""

    def __init__(self, run: _Run, by_node: dict[int, MH], by_functor: dict[str, MH], reverse: bool):
        self.p, self.forest, self.b, self.t = run.params, run.forest, run.b, run.t
        self.index = run.t if reverse else run.b
        self.by_node, self.by_functor = by_node, by_functor
        self.td = f32(run.params.trickle_down)

    def _used(self, root: int, acc: dict[int, MH]) -> None:
        """Depth-first, arguments in order (an explicit stack)."""
        index, by_node, by_functor = self.index, self.by_node, self.by_functor
        stack = [root]
        while stack:
            node = stack.pop()
            mh = by_node.get(node)
            if mh is not None:
                acc.setdefault(mh.id, mh)
            elif not index.is_entity[node]:
                fmh = by_functor.get(index.functor[node])
                if fmh is not None:
                    acc.setdefault(fmh.id, fmh)
                stack.extend(reversed(index.args[node]))

    def _local(self, mh: MH) -> float:
        p = self.p
        if mh.kind != 1:
            return f32(p.same_functor)
        b_f, t_f = self.b.functor[mh.base], self.t.functor[mh.target]  # type: ignore[index]
        if self.t.kind[mh.target] == 1 and b_f != t_f:  # type: ignore[index]
            return f32(p.same_function)
        return f32(p.same_functor)

    def _evidence(self, local: float, children: int) -> float:
        score, step = local, f32(self.td * local)
        for _ in range(children):
            score = f32(score + step)
        return score

    def __call__(self, root: int) -> tuple[float, float]:
        p = self.p
        acc: dict[int, MH] = {}
        self._used(root, acc)
        inside = 0.0
        for mh in acc.values():
            extra = 1 if p.functor_trickle_down and mh.functor_mh is not None else 0
            inside = f32(inside + self._evidence(self._local(mh), len(mh.args) + extra))
        outside = self._evidence(
            f32(p.same_functor), len(self.index.args[root]) + (1 if p.functor_trickle_down else 0)
        )
        extrap = f32(outside / f32(inside + outside)) if inside + outside > 0 else 0.0
        if not p.ci_support_scores_global:
            return inside, extrap
        desc = 0
        for mh in acc.values():
            desc |= mh.desc
        total = 0.0
        for d in self.forest.members(desc):
            total = f32(total + d.score)
        return total, extrap
