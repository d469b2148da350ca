"""Presenting a match: the fixtures' JSON notation and a human table (spec section 8.1).

:func:`to_fixture_json` writes a :class:`~analogist.mapping.results.MatchResult` in the notation
of ``fixtures/sme/*.expected.json`` (expressions as nested lists, skolems as
``["skolem", NAME]``), so a run can be compared with SME v4's published results or stored.
:func:`render_result` prints, per mapping, the source -> target entity table, the matched
relations, the unmatched source relations (base facts outside the mapping), the target-only
factors (target facts outside the mapping) and the candidate inferences.
"""

from __future__ import annotations

from typing import Any

from analogist.mapping.inferences import CandidateInference
from analogist.mapping.results import Mapping, MatchResult
from analogist.signature.description import Expr, Skolem


def to_fixture_json(result: MatchResult, *, detailed: bool = False) -> dict[str, Any]:
    """The result in the fixtures' notation.

    Args:
        result: a match result.
        detailed: also include the normalised score, each inference's support, extrapolation
            and skolems, and reverse inferences (keys the fixtures do not have).
    """
    return {
        "mh_count": result.mh_count,
        "kernel_count": result.kernel_count,
        "mapping_count": result.mapping_count,
        "mappings": [_mapping_json(m, detailed) for m in result.mappings],
    }


def _mapping_json(m: Mapping, detailed: bool) -> dict[str, Any]:
    out: dict[str, Any] = {
        "score": m.score,
        "mh_count": m.mh_count,
        "entity_mhs": [[h.base, h.target] for h in m.mhs if h.kind == "entity"],
        "root_mhs": [[_term(h.base), _term(h.target)] for h in m.root_mhs],
        "cis": [_term(ci.expression) for ci in m.candidate_inferences],
    }
    if detailed:
        out["normalized_score"] = m.normalized_score
        out["ci_details"] = [_ci_json(ci) for ci in m.candidate_inferences]
        out["reverse_cis"] = [_ci_json(ci) for ci in m.reverse_inferences]
    return out


def _term(term: object) -> object:
    """``term_to_json`` (nested lists, entity names, ``["skolem", NAME]``), here so that it is
    compiled with the mapper: the fixture layout is written for every result."""
    if isinstance(term, Expr):
        return [term.functor, *[_term(a) for a in term.args]]
    if isinstance(term, Skolem):
        return ["skolem", term.name]
    return term


def _ci_json(ci: CandidateInference) -> dict[str, Any]:
    return {
        "expression": _term(ci.expression),
        "source": _term(ci.source),
        "skolems": [s.name for s in ci.skolems],
        "support": ci.support,
        "extrapolation": ci.extrapolation,
    }


def render_result(result: MatchResult) -> str:
    """All mappings of a result as plain-text tables, best first."""
    head = (
        f"{result.base.name} -> {result.target.name}: {result.mapping_count} mapping(s), "
        f"{result.mh_count} match hypotheses, {result.kernel_count} kernels"
    )
    if not result.mappings:
        return head + "\nno structurally consistent mapping found"
    parts = [head]
    for i, m in enumerate(result.mappings, 1):
        parts.append(render_mapping(m, result, title=f"MAPPING {i} of {result.mapping_count}"))
    return "\n\n".join(parts)


def render_mapping(m: Mapping, result: MatchResult, title: str = "MAPPING") -> str:
    """One mapping in the layout of spec section 8.1."""
    lines = [f"{title}   score {m.score:.4g}   normalised {m.normalized_score:.3f}", ""]
    lines += _entity_table(m)
    mapped_b, mapped_t = m.mapped_base, m.mapped_target
    matched = [(f, m.target_of(f)) for f in result.base.facts if f in mapped_b]
    lines += _section("MATCHED RELATIONS", [f"{b}  ->  {t}" for b, t in matched])
    lines += _section(
        "UNMATCHED SOURCE RELATIONS", [str(f) for f in result.base.facts if f not in mapped_b]
    )
    lines += _section(
        "TARGET-ONLY FACTORS", [str(f) for f in result.target.facts if f not in mapped_t]
    )
    lines += _section("CANDIDATE INFERENCES", [_ci_line(ci) for ci in m.candidate_inferences])
    if m.reverse_inferences:
        lines += _section("REVERSE INFERENCES", [_ci_line(ci) for ci in m.reverse_inferences])
    return "\n".join(lines).rstrip()


def _entity_table(m: Mapping) -> list[str]:
    rows = [(str(h.base), str(h.target)) for h in m.entity_mhs]
    left = max([len("SOURCE ENTITY"), *(len(b) for b, _ in rows)])
    out = [
        f"{'SOURCE ENTITY':<{left}}    TARGET ENTITY",
        f"{'-' * len('SOURCE ENTITY'):<{left}}    {'-' * len('TARGET ENTITY')}",
    ]
    out += [f"{b:<{left}}    {t}" for b, t in rows] or ["(none)"]
    return out


def _section(title: str, items: list[str]) -> list[str]:
    return ["", title, *(f"- {x}" for x in items)] if items else ["", title, "(none)"]


def _ci_line(ci: CandidateInference) -> str:
    return f"{ci.expression}   support {ci.support:.4g}, extrapolation {ci.extrapolation:.2f}"
