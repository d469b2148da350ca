"""Phase three: kernels and the greedy merge, as SME v4 (greedy-merge.lisp, mapping.lisp).

- *Kernels* (``make-kernel-mapping``): one per root hypothesis, its descendants, with a
  commutative table whose forced choices are integrated at once.
- *Merging* (``find-or-create-merged-mapping``): a merged mapping is identified by the set of
  kernels it is made of and cached, so the same set always gives the same mapping. Its
  hypotheses are the union of its parts' (in SBCL's ``union`` order), its score the sum of
  their scores, then its commutative tables are combined, pruned and integrated.
- *Base partitions* (``partition-mappings-via-roots``): kernels are grouped by the base roots
  their root's base item lies under (SME's ``roots`` order). SME's attribute folding is
  switched off by its own default (``*minimal-ascend-attributes*``), so attribute statements
  partition like any other.
- ``greedy-merge``: every partition is merged with ``greedy-cream`` keeping every alternative
  (cutoff 0, as many as the partition has kernels); the results, sorted by score, are merged
  again with ``greedy-cutoff`` and ``greedy-max-#``.
- ``greedy-cream``: repeatedly take the best remaining candidate, absorb every candidate
  consistent with it, then let it absorb the consistent kernels of the solutions found before
  it; stop at ``greedy-max-#`` solutions or when one scores below cutoff x best.

Tie order: every sort is SME's ``careful-candidate-sort`` / ``merge``: a candidate inserted
among equal scores goes *before* them, so among equal scores the later-inserted comes first;
kernels are listed newest first (SME pushes them), partitions newest first.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter

from analogist.mapping.commutative import (
    CTEntry,
    check_constraints,
    combine_tables,
    make_entry,
    tables_consistent,
)
from analogist.mapping.hypotheses import MH, Forest
from analogist.mapping.params import SMEParams
from analogist.mapping.scoring import cl_union, f32, structural_evaluation, sum_scores


class PMap:
    """A kernel or merged mapping during the merge (SME's ``mapping``)."""

    __slots__ = ("bits", "comm", "desc", "id", "key", "mhs", "nogood", "roots", "score")

    def __init__(self, uid: int, roots: list[MH], mhs: list[MH], bits: int, desc: int, nogood: int):
        self.id = uid
        self.roots = roots
        self.mhs = mhs
        self.bits = bits  # membership of ``mhs`` as a bit set
        self.desc, self.nogood = desc, nogood
        self.key: tuple[int, ...] = (uid,)
        self.score = 0.0
        self.comm: list[CTEntry] = []

    def add_mh(self, m: MH) -> None:
        """Integration of a commutative choice: push, with its sets and score."""
        self.mhs.insert(0, m)
        self.bits |= m.bit
        self.desc |= m.desc
        self.nogood |= m.nogood
        self.score = f32(self.score + m.score)

    def __repr__(self) -> str:
        return f"<PMap {self.id} {self.key} {self.score:.4g}>"


def consistent(m1: PMap, m2: PMap) -> bool:
    """``mappings-mutually-consistent?``."""
    if m1.desc & m2.nogood or m2.desc & m1.nogood:
        return False
    if not m1.comm and not m2.comm:
        return True
    return tables_consistent(m1, m2)


def careful_sort(items: list[PMap]) -> list[PMap]:
    """SME's ``careful-candidate-sort``: each item merged in turn into a list sorted by
    descending score, before its equals; that is a stable sort of the reversed list."""
    # (a stable sort: ``reverse`` keeps equal items in their order)
    if len(items) < 2:
        return items[::-1]
    return sorted(items[::-1], key=_score, reverse=True)  # noqa: C415 - reversal: tie order


_score = attrgetter("score")


class Merger:
    """Kernels, merge cache and the greedy merge of one comparison."""

    def __init__(self, forest: Forest, params: SMEParams):
        self.forest, self.params = forest, params
        self.counter = 0
        self.cache: dict[tuple[int, ...], PMap] = {}
        self.kernels: list[PMap] = []  # SME's kernel-mappings list order (newest first)
        self.kernels_by_id: dict[int, PMap] = {}
        # structural_evaluation of a non-global mapping is the plain sum of its scores
        self.plain_sum = params.allow_out_of_mapping_score_contributions

    def make_kernels(self, roots: list[MH]) -> list[PMap]:
        """``find-kernel-mappings``: a kernel per root, in SME's order."""
        forest = self.forest
        for root in roots:
            self.counter += 1
            mhs = forest.members(root.desc)
            k = PMap(self.counter, [root], mhs, root.desc, root.desc, root.nogood)
            for m in mhs:
                if m.comm:
                    k.comm.insert(0, make_entry(m, k.desc, k.nogood))
            if k.comm:
                check_constraints(k, forest)
            self.kernels.append(k)
        self.kernels.reverse()  # SME pushes kernels
        self.kernels_by_id = {k.id: k for k in self.kernels}
        return self.kernels

    def score_kernels(self) -> None:
        for k in self.kernels:
            k.score = self.evaluate(k)

    def evaluate(self, m: PMap, global_: bool = False) -> float:
        return structural_evaluation(m.mhs, m.desc, m.nogood, self.forest, self.params, global_)

    def merge(self, m1: PMap, m2: PMap) -> PMap:
        """``merge-mapping-pair`` / ``find-or-create-merged-mapping``."""
        key = tuple(sorted({*m1.key, *m2.key}))
        found = self.cache.get(key)
        if found is not None:
            return found
        self.counter += 1
        new = PMap(
            self.counter,
            cl_union(m1.roots, m2.roots),
            cl_union(m1.mhs, m2.mhs),
            m1.bits | m2.bits,
            m1.desc | m2.desc,
            m1.nogood | m2.nogood,
        )
        new.key = key
        # SME scores a merged mapping before it sets the mapping's descendants and nogoods,
        # so its commutative guesses are checked against empty sets.
        if self.plain_sum:
            new.score = sum_scores(new.mhs)
        else:
            new.score = structural_evaluation(new.mhs, 0, 0, self.forest, self.params, False)
        self.cache[key] = new
        if m1.comm or m2.comm:
            new.comm = combine_tables([m1, m2], new.nogood)
            check_constraints(new, self.forest)
        return new

    # -- partitions -------------------------------------------------------------------------

    def partitions(self, usable: Callable[[PMap], bool]) -> list[list[PMap]]:
        """``partition-mappings-via-roots``: for each base root (newest partition first), the
        kernels whose root's base item lies under it, by descending score. SME's attribute
        folding is off (``*minimal-ascend-attributes*`` is t), so ``fold-in-attributes`` only
        re-sorts each partition."""
        b = self.forest.b
        table: list[list[PMap]] = []  # partitions in creation order, kernels as added
        where: dict[int, tuple[list[PMap], set[int]]] = {}
        for k in self.kernels:
            if not usable(k):
                continue
            for root_mh in k.roots:
                for r in b.lisp_roots(root_mh.base):  # type: ignore[union-attr,arg-type]
                    entry = where.get(r)
                    if entry is None:
                        entry = where[r] = ([k], {k.id})
                        table.append(entry[0])
                    elif k.id not in entry[1]:
                        entry[0].append(k)
                        entry[1].add(k.id)
        # Each kernel was merged into its partition by score (careful order), then
        # fold-in-attributes sorts each partition once more; newest partition first.
        return [careful_sort(careful_sort(entry)) for entry in reversed(table)]

    # -- greedy merge -----------------------------------------------------------------------

    def greedy_merge(self, usable: Callable[[PMap], bool]) -> list[PMap]:
        """SME's ``greedy-merge``: partitions first (all alternatives), then the weave."""
        found: list[PMap] = []
        seen: set[int] = set()
        for group in self.partitions(usable):
            for new in self.greedy_cream(group, 0.0, len(group), final=False):
                if new.id not in seen:
                    seen.add(new.id)
                    found.append(new)
        candidates = careful_sort(found)  # each merged in by score, before its equals
        p = self.params
        return self.greedy_cream(candidates, p.greedy_cutoff, p.greedy_max, final=True)

    def greedy_cream(
        self, candidates: list[PMap], cutoff: float, max_n: int, final: bool
    ) -> list[PMap]:
        if not candidates:
            return []
        if len(candidates) == 1:
            return [candidates[0]]
        solutions: list[PMap] = []
        remaining = careful_sort(candidates)
        used: list[PMap] = []
        best = -1.0
        kernels_by_id = self.kernels_by_id
        overlap = final and self.params.greedy_merge_overlap_only
        while True:
            solution, remaining = (
                self._gather_overlap(remaining) if overlap else self._gather(remaining)
            )
            if solution is not None:
                old_used = used
                used = used + [kernels_by_id[i] for i in solution.key]
                for k in old_used:
                    if consistent(k, solution):
                        solution = self.merge(solution, k)
            if solution is None:
                break
            if solution.score >= cutoff * best:
                best = max(best, solution.score)
                solutions.insert(0, solution)
            else:
                break
            max_n -= 1
            if max_n <= 0:
                break
        return [s for s in careful_sort(solutions) if not s.score < cutoff * best]

    def _gather(self, candidates: list[PMap]) -> tuple[PMap | None, list[PMap]]:
        """``basic-greedy-gatherer``."""
        if not candidates:
            return None, []
        solution = candidates[0]
        rest = []
        for c in candidates[1:]:
            # consistent(solution, c), inline
            if (
                solution.desc & c.nogood
                or c.desc & solution.nogood
                or ((solution.comm or c.comm) and not tables_consistent(solution, c))
            ):
                rest.append(c)
            else:
                solution = self.merge(solution, c)
        return solution, rest

    def _gather_overlap(self, candidates: list[PMap]) -> tuple[PMap | None, list[PMap]]:
        """``greedy-gatherer-overlap-only``: absorb only candidates sharing a (non-functor)
        hypothesis, repeating until nothing more joins."""
        if not candidates:
            return None, []
        if len(candidates) == 1:
            return candidates[0], []
        solution = candidates[0]
        remaining = candidates[1:]
        found = True
        while found:
            found = False
            rest = []
            for c in remaining:
                if consistent(solution, c) and _overlap(c, solution):
                    found = True
                    solution = self.merge(solution, c)
                else:
                    rest.append(c)
            remaining = rest
        return solution, remaining


def _overlap(m1: PMap, m2: PMap) -> bool:
    return any(m2.bits & m.bit and m.kind != 2 for m in m1.mhs)
