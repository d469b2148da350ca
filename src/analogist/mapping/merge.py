"""Phase three: greedy merge of kernels into global mappings.

SME v4 algorithm note, section 2.6 (GreedyMap, GreedyMerge):

1. *Base partitions*: for each base root that some kernel projects onto (the kernel's root
   base item lies in that root's structure), greedily merge the kernels projecting onto it.
   Pre-merging kernels that share base structure favours candidate inferences.
2. *Weave*: greedily merge all partition results into at most ``greedy-max-#`` global mappings.

GreedyMerge sorts its partial mappings by score, then repeatedly pops the best one and absorbs
every remaining partial mapping consistent with it (the nogoods of a union are the union of the
nogoods). With ``use-less-greedy-greedy-merge?`` the weave also absorbs consistent kernels of
the mappings already found (step 3.3). A mapping scoring below ``greedy-cutoff`` times the best
so far ends the search. Complexity: O(k log k) for k kernels, consistency tests being bit-vector
operations.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from analogist.mapping.expressions import DescriptionIndex
from analogist.mapping.hypotheses import Forest
from analogist.mapping.kernels import Kernel
from analogist.mapping.params import SMEParams


@dataclass(frozen=True, slots=True)
class Interpretation:
    """A partial or global mapping during the merge: kernel ids, members, nogoods."""

    kernels: tuple[int, ...]
    members: int
    nogood: int

    def absorb(self, other: Interpretation) -> Interpretation:
        new = tuple(k for k in other.kernels if k not in self.kernels)
        return Interpretation(self.kernels + new, self.members | other.members,
                              self.nogood | other.nogood)


class Merger:
    """GreedyMap over a fixed kernel list with one scoring function and one parameter set."""

    def __init__(self, kernels: Sequence[Kernel], score: Callable[[int], float],
                 params: SMEParams):
        self.kernels = [Interpretation((i,), k.members, k.nogood) for i, k in enumerate(kernels)]
        self.roots = [k.root for k in kernels]
        self.score = score
        self.params = params

    def fits(self, interp: Interpretation, other: Interpretation) -> bool:
        """Whether ``other`` can join ``interp`` (consistent, and overlapping if required)."""
        if interp.nogood & other.members:
            return False
        return not self.params.greedy_merge_overlap_only or bool(interp.members & other.members)

    def greedy_merge(self, pmaps: Sequence[Interpretation], reuse: bool) -> list[Interpretation]:
        """The GreedyMerge algorithm of the note; ``reuse`` enables step 3.3."""
        p = self.params
        pending = sorted(pmaps, key=lambda m: self.score(m.members), reverse=True)
        found: list[Interpretation] = []
        best = 0.0
        while pending:
            interp, rest = pending[0], []
            for other in pending[1:]:
                if self.fits(interp, other):
                    interp = interp.absorb(other)
                else:
                    rest.append(other)
            pending = rest
            if reuse:
                interp = self._reuse(interp, found)
            score = self.score(interp.members)
            best = max(best, score)
            if score < p.greedy_cutoff * best:
                break
            if all(f.members != interp.members for f in found):
                found.append(interp)
            if len(found) >= p.greedy_max:
                break
        return found

    def _reuse(self, interp: Interpretation, found: list[Interpretation]) -> Interpretation:
        for previous in found:
            for k in previous.kernels:
                if k not in interp.kernels and self.fits(interp, self.kernels[k]):
                    interp = interp.absorb(self.kernels[k])
        return interp

    def greedy_map(self, forest: Forest, base: DescriptionIndex) -> list[Interpretation]:
        """Base partitions, then the weave; returns the global mappings found."""
        candidates: list[Interpretation] = []
        seen: set[int] = set()
        done: set[tuple[int, ...]] = set()
        for group in self.base_partitions(forest, base):
            key = tuple(g.kernels[0] for g in group)
            if key in done:  # another root projects onto exactly the same kernels
                continue
            done.add(key)
            merged = group if len(group) == 1 else self.greedy_merge(group, reuse=False)
            for interp in merged:
                if interp.members not in seen:
                    seen.add(interp.members)
                    candidates.append(interp)
        return self.greedy_merge(candidates, reuse=self.params.use_less_greedy_greedy_merge)

    def base_partitions(self, forest: Forest,
                        base: DescriptionIndex) -> list[list[Interpretation]]:
        """For each base root (in description order), the kernels projecting onto it."""
        groups: dict[int, list[Interpretation]] = {r: [] for r in base.roots}
        for interp, root_mh in zip(self.kernels, self.roots):
            for r in base.roots_containing(forest.base[root_mh]):  # type: ignore[arg-type]
                groups[r].append(interp)
        return [g for g in groups.values() if g]
