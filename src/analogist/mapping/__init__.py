"""Structure mapping: a faithful implementation of the Structure-Mapping Engine, SME v4.

The mapper compares two :class:`~analogist.signature.description.Description` values and
returns up to three interpretations, each with correspondences, a structural score and
candidate inferences (Falkenhainer, Forbus & Gentner 1989; Forbus et al. 2017). It reproduces
SME v4's published regression results (``fixtures/sme/``).

Modules, in the order the engine runs them:

- :mod:`.params` — :class:`SMEParams` (SME's mapping parameters) and :class:`MatchFilters`
  (required / excluded correspondences, identical functions).
- :mod:`.expressions` — the integer-indexed, cached view of a description.
- :mod:`.hypotheses` — seeding and growing the match-hypothesis forest.
- :mod:`.consistency` — descendants, nogoods, incompleteness (bit-vector sets).
- :mod:`.scoring` — trickle-down structural evaluation.
- :mod:`.kernels` — kernels and match filters.
- :mod:`.merge` — base partitions and the greedy merge.
- :mod:`.commutative` — choosing argument pairings of commutative matches.
- :mod:`.inferences` — candidate inferences with skolems, support and extrapolation.
- :mod:`.results` — :class:`MatchHypothesis`, :class:`Mapping`, :class:`MatchResult`.
- :mod:`.engine` — :func:`match`, which runs the phases.
- :mod:`.render` — the fixtures' JSON notation and the human table.
"""

from analogist.mapping.engine import match
from analogist.mapping.inferences import CandidateInference
from analogist.mapping.params import MatchFilters, SMEParams
from analogist.mapping.render import render_mapping, render_result, to_fixture_json
from analogist.mapping.results import Mapping, MatchHypothesis, MatchResult

__all__ = [
    "CandidateInference", "Mapping", "MatchFilters", "MatchHypothesis", "MatchResult",
    "SMEParams", "match", "render_mapping", "render_result", "to_fixture_json",
]
