"""Parameters and filters of a structure-mapping run.

:class:`SMEParams` mirrors SME v4's mapping-parameter object field for field, so a run records
exactly what it used and the published regression cases (``fixtures/sme/*.expected.json``,
key ``params``) load unchanged through :meth:`SMEParams.from_fixture_dict`. The defaults are
the values of those regression runs (SME v3b scale: same-functor 0.005, same-function 0.002,
trickle-down 16); the SME v4 paper quotes 0.0005 / 0.0002 / 8, which ranks the same way for
shallow structure but weights depth less.

:class:`MatchFilters` are the task constraints of the SME v4 algorithm note, section 2.5:
required and excluded correspondences and the identical-functions filter.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from analogist.errors import MappingError
from analogist.signature.description import Arg


@dataclass(frozen=True, slots=True)
class SMEParams:
    """SME v4 mapping parameters (Lisp names in :data:`LISP_NAMES`).

    Attributes:
        greedy_cutoff: mappings must score at least this fraction of the best one.
        greedy_max: at most this many mappings ("greedy-max-#").
        same_function: local score of a match between non-identical functions.
        same_functor: local score of a match between identical functors.
        trickle_down: multiplier passing a parent's score to its arguments (systematicity).
        max_local_score: cap on any one hypothesis' score; None means no cap.
        functor_trickle_down: also pass scores down to functor correspondences.
        enforce_1to1_minimal_ascension: recorded for fidelity; this engine has no minimal
            ascension (no taxonomy), so functor correspondences are always one-to-one.
        allow_out_of_mapping_score_contributions: score partial mappings as the sum of their
            hypotheses' network scores (which include evidence from outside them); when false,
            every partial mapping is re-scored with trickle-down from its own members only.
        minimal_ascension_multiplier: recorded for fidelity (no minimal ascension here).
        probability_as_utility: recorded for fidelity (descriptions carry no probabilities).
        allow_probability: recorded for fidelity (descriptions carry no probabilities).
        unique_attribute_values: recorded for fidelity (no attribute-value predicates here).
        greedy_merge_overlap_only: only merge kernels sharing a hypothesis with the mapping.
        block_most_out_of_mapping_contributions: network trickle-down takes a hypothesis'
            parents greedily by score, skipping parents inconsistent with those taken; final
            mapping scores count trickle-down from parents inside the mapping only.
        allow_entity_supported_inferences: a base root overlapping the mapping only through
            entities still yields a candidate inference (the "liberal criterion").
        ci_support_scores_global: score inference support with the whole mapping's trickle-down
            rather than with the supporting correspondences alone.
        use_less_greedy_greedy_merge: while weaving global mappings, also add consistent kernels
            of previously found mappings (step 3.3 of GreedyMerge).
        compute_reverse_inferences: also compute inferences from target to base.
    """

    greedy_cutoff: float = 0.8
    greedy_max: int = 3
    same_function: float = 0.002
    same_functor: float = 0.005
    trickle_down: float = 16.0
    max_local_score: float | None = None
    functor_trickle_down: bool = False
    enforce_1to1_minimal_ascension: bool = True
    allow_out_of_mapping_score_contributions: bool = True
    minimal_ascension_multiplier: float = 0.8
    probability_as_utility: bool = False
    allow_probability: bool = False
    unique_attribute_values: bool = True
    greedy_merge_overlap_only: bool = False
    block_most_out_of_mapping_contributions: bool = True
    allow_entity_supported_inferences: bool = True
    ci_support_scores_global: bool = False
    use_less_greedy_greedy_merge: bool = True
    compute_reverse_inferences: bool = False

    def __post_init__(self) -> None:
        if not 0.0 <= self.greedy_cutoff <= 1.0:
            raise MappingError(f"greedy-cutoff {self.greedy_cutoff}: must lie in [0, 1]")
        if self.greedy_max < 1:
            raise MappingError(f"greedy-max-# {self.greedy_max}: must be at least 1")
        if self.max_local_score is not None and self.max_local_score <= 0:
            raise MappingError(f"max-local-score {self.max_local_score}: must be > 0 or null")

    @classmethod
    def from_fixture_dict(cls, params: Mapping[str, Any]) -> SMEParams:
        """Builds parameters from Lisp-named keys (as in the fixtures' ``params``).

        Raises:
            MappingError: for a name that is not an SME parameter (the message lists them).
        """
        kwargs: dict[str, Any] = {}
        for key, value in params.items():
            field_name = FIELD_OF.get(key)
            if field_name is None:
                raise MappingError(
                    f"unknown SME parameter '{key}'; valid names: {', '.join(LISP_NAMES.values())}"
                )
            kwargs[field_name] = value
        return cls(**kwargs)

    def to_fixture_dict(self) -> dict[str, Any]:
        """The parameters under their Lisp names, in the fixtures' notation."""
        return {LISP_NAMES[f.name]: getattr(self, f.name) for f in dataclasses.fields(self)}

    def with_values(self, **changes: Any) -> SMEParams:
        """A copy with some fields changed (python names)."""
        return dataclasses.replace(self, **changes)


def _lisp_name(field_name: str) -> str:
    if field_name == "greedy_max":
        return "greedy-max-#"
    name = field_name.replace("_", "-")
    flags = {f.name for f in dataclasses.fields(SMEParams) if f.type in ("bool", bool)}
    return name + "?" if field_name in flags else name


LISP_NAMES: dict[str, str] = {f.name: _lisp_name(f.name) for f in dataclasses.fields(SMEParams)}
FIELD_OF: dict[str, str] = {lisp: py for py, lisp in LISP_NAMES.items()}

ItemPair = tuple[Arg, Arg]


@dataclass(frozen=True, slots=True)
class MatchFilters:
    """Task constraints applied to kernels before the merge (SME v4 note, section 2.5).

    Items are entity names or :class:`~analogist.signature.description.Expr` values of the
    base (first) and target (second).

    Attributes:
        required: pairs (b, t): drop every kernel that maps b to something other than t, or
            something other than b to t.
        excluded: pairs (b, t): drop every kernel that maps b to t.
        identical_functions: forbid matches between non-identical functions.
    """

    required: tuple[ItemPair, ...] = ()
    excluded: tuple[ItemPair, ...] = ()
    identical_functions: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "required", tuple(tuple(p) for p in self.required))
        object.__setattr__(self, "excluded", tuple(tuple(p) for p in self.excluded))
        bases = [b for b, _ in self.required]
        targets = [t for _, t in self.required]
        if len(set(bases)) < len(bases) or len(set(targets)) < len(targets):
            raise MappingError(
                "required correspondences must be one-to-one: an item appears in two pairs"
            )
        clash = set(self.required) & set(self.excluded)
        if clash:
            raise MappingError(f"pairs both required and excluded: {sorted(map(str, clash))}")

    @property
    def active(self) -> bool:
        return bool(self.required or self.excluded)
