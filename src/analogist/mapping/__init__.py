"""Structure mapping: a port of the Structure-Mapping Engine, SME v4, that agrees with it.

The mapper compares two :class:`~analogist.signature.description.Description` values and
returns up to three interpretations, each with correspondences, a structural score and
candidate inferences (Falkenhainer, Forbus & Gentner 1989; Forbus et al. 2017). It follows
SME v4's Lisp code step for step and agrees with the real SME v4 on every pair of the
differential test, ties included (``docs/mapping.md``).

Modules, in the order the engine runs them:

- :mod:`.params` — :class:`SMEParams` (SME's mapping parameters) and :class:`MatchFilters`
  (required / excluded correspondences, identical functions).
- :mod:`.expressions` — the integer-indexed, cached view of a description, in SME's orders.
- :mod:`.hypotheses` — seeding and growing the match-hypothesis forest; the
  match-hypothesis budget.
- :mod:`.consistency` — descendants, nogoods, incompleteness, commutative filtering, roots.
- :mod:`.commutative` — commutative tables: how commutative argument choices are settled.
- :mod:`.merge` — kernels, merged mappings, base partitions and the greedy merge.
- :mod:`.scoring` — trickle-down structural evaluation in single precision.
- :mod:`.kernels` — required / excluded correspondence filters.
- :mod:`.inferences` — candidate inferences with skolems, support and extrapolation.
- :mod:`.results` — :class:`MatchHypothesis`, :class:`Mapping`, :class:`MatchResult`.
- :mod:`.engine` — :func:`match`, which runs the phases.
- :mod:`.render` — the fixtures' JSON notation and the human table.

All but this package's ``__init__`` are compiled with mypyc at install (``setup.py``); a missing
or stale build falls back to the source with a warning (:mod:`analogist.compiled`).
"""

from analogist.mapping.engine import match
from analogist.mapping.inferences import CandidateInference
from analogist.mapping.params import MatchFilters, SMEParams
from analogist.mapping.render import render_mapping, render_result, to_fixture_json
from analogist.mapping.results import Mapping, MatchHypothesis, MatchResult

__all__ = [
    "CandidateInference",
    "Mapping",
    "MatchFilters",
    "MatchHypothesis",
    "MatchResult",
    "SMEParams",
    "match",
    "render_mapping",
    "render_result",
    "to_fixture_json",
]
