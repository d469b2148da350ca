"""What a structure-mapping run returns: hypotheses, mappings, and the run result.

These are plain frozen values with no reference to the engine's internal arrays, so they can be
stored, compared and rendered (see :mod:`analogist.mapping.render`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, NamedTuple

from analogist.mapping.inferences import CandidateInference
from analogist.mapping.params import MatchFilters, SMEParams
from analogist.signature.description import Arg, Description

KIND_NAMES = ("entity", "expression", "functor")


class MatchHypothesis(NamedTuple):
    """A local correspondence between a base item and a target item (a named tuple: a run
    makes one per hypothesis of each mapping, so it must be cheap to build).

    Attributes:
        id: position in the run's match-hypothesis forest (creation order).
        kind: "entity", "expression" or "functor".
        base: the base item (entity name, :class:`Expr`, or functor name).
        target: the target item, of the same kind.
        score: structural evaluation in the whole forest (trickle-down over all parents).
        local_score: the score before trickle-down.
    """

    id: int
    kind: str
    base: Arg
    target: Arg
    score: float
    local_score: float

    def __str__(self) -> str:
        return f"{self.base} <-> {self.target}"


@dataclass(frozen=True)
class Mapping:
    """One interpretation of the comparison.

    Attributes:
        score: SME's structural evaluation of the mapping (re-scored from its own members under
            block-most-out-of-mapping-contributions?, the default; else its members' sum).
        normalized_score: ``score`` over the mean self-match score of base and target
            (1.0 when a description is mapped onto an identical copy).
        mhs: every hypothesis in the mapping (entities, expressions, functors), by id.
        mh_scores: each hypothesis' score in the whole forest (trickle-down over all
            parents), aligned with ``mhs``.
        root_mhs: the roots of the kernels the mapping was merged from (SME's root-mhs).
        candidate_inferences: base-to-target inferences.
        reverse_inferences: target-to-base inferences (when requested).
    """

    score: float
    mhs: tuple[MatchHypothesis, ...]
    mh_scores: tuple[float, ...]
    root_mhs: tuple[MatchHypothesis, ...]
    candidate_inferences: tuple[CandidateInference, ...]
    reverse_inferences: tuple[CandidateInference, ...] = ()
    _self_match: Callable[[], float] = field(default=lambda: 0.0, repr=False, compare=False)

    @cached_property
    def normalized_score(self) -> float:
        """``score`` over the mean self-match score of base and target (computed on first
        use: it needs a trickle-down pass over both descriptions)."""
        norm = self._self_match()
        return self.score / norm if norm > 0 else 0.0

    @property
    def mh_count(self) -> int:
        return len(self.mhs)

    @property
    def entity_mhs(self) -> tuple[MatchHypothesis, ...]:
        return tuple(m for m in self.mhs if m.kind == "entity")

    @property
    def expression_mhs(self) -> tuple[MatchHypothesis, ...]:
        return tuple(m for m in self.mhs if m.kind == "expression")

    @property
    def correspondences(self) -> tuple[tuple[Arg, Arg], ...]:
        """(base, target) item pairs of the entity and expression hypotheses."""
        return tuple((m.base, m.target) for m in self.mhs if m.kind != "functor")

    @cached_property
    def _forward(self) -> dict[Arg, Arg]:
        return dict(self.correspondences)

    def target_of(self, base_item: Arg) -> Arg | None:
        """The target correspondent of a base entity or expression, if mapped."""
        return self._forward.get(base_item)

    @property
    def mapped_base(self) -> frozenset[Arg]:
        return frozenset(self._forward)

    @property
    def mapped_target(self) -> frozenset[Arg]:
        return frozenset(self._forward.values())


@dataclass(frozen=True, repr=False)
class MatchResult:
    """The outcome of one comparison.

    Attributes:
        base: the base description.
        target: the target description.
        params: the parameters used.
        filters: the filters used.
        mh_count: number of match hypotheses in the forest.
        kernel_count: number of kernels (before filtering).
        mappings: the global mappings, best first.
    """

    base: Description
    target: Description
    params: SMEParams
    filters: MatchFilters
    mh_count: int
    kernel_count: int
    mappings: tuple[Mapping, ...]
    _all_hypotheses: Callable[[], tuple[MatchHypothesis, ...]] = field(
        repr=False, compare=False, default=tuple
    )

    def __repr__(self) -> str:
        scores = ", ".join(f"{m.score:.4g}" for m in self.mappings)
        return (
            f"MatchResult({self.base.name!r} -> {self.target.name!r}, mh_count="
            f"{self.mh_count}, kernel_count={self.kernel_count}, scores=[{scores}])"
        )

    @property
    def mapping_count(self) -> int:
        return len(self.mappings)

    @cached_property
    def hypotheses(self) -> tuple[MatchHypothesis, ...]:
        """Every match hypothesis of the forest (built on first access)."""
        return self._all_hypotheses()

    @property
    def best(self) -> Mapping | None:
        return self.mappings[0] if self.mappings else None

    def summary(self) -> dict[str, Any]:
        return {
            "base": self.base.name,
            "target": self.target.name,
            "mh_count": self.mh_count,
            "kernel_count": self.kernel_count,
            "mapping_count": self.mapping_count,
            "scores": [m.score for m in self.mappings],
        }
