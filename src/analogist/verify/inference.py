"""Candidate inferences at the signature level: what the source says that the target does not.

Every source fact with no counterpart in the target is projected through the role mapping; a
role with no target counterpart becomes a skolem (``skolem:ROLE``, as in SME's candidate
inferences). The source's fix operator is projected as the one *action* inference. Whether any
of these may transfer is the causal gate's decision, not this module's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from analogist.mapping.inferences import CandidateInference as SMEInference
from analogist.signature.describe import FIX
from analogist.signature.model import Signature
from analogist.signature.terms import Term
from analogist.verify.align import Alignment, Fact

SKOLEM = "skolem:"


@dataclass(frozen=True)
class CandidateInference:
    """One projected source element.

    Attributes:
        kind: ``fact`` (a relation or causal link) or ``action`` (the fix operator).
        source: the element as written in the source.
        projected: the element with target role names (skolems for unmapped roles).
        fact: the source fact (None for the action).
        action: the projected operator term (None for facts).
        skolems: source roles that had no target counterpart.
        support / extrapolation: SME's scores for the inference (its structural support in
            the mapping, and the share of it that is projected); None when SME did not
            produce it (the fix operator, which is not part of the Description).
    """

    kind: str
    source: str
    projected: str
    fact: Fact | None = None
    action: Term | None = None
    skolems: tuple[str, ...] = ()
    support: float | None = None
    extrapolation: float | None = None

    def to_json(self) -> dict:
        return {
            "kind": self.kind,
            "source": self.source,
            "projected": self.projected,
            "skolems": list(self.skolems),
        }


def _with_skolems(
    roles: tuple[str, ...], m: dict[str, str]
) -> tuple[dict[str, str], tuple[str, ...]]:
    missing = tuple(r for r in dict.fromkeys(roles) if r not in m)
    full = dict(m)
    full.update({r: SKOLEM + r for r in missing})
    return full, missing


def candidate_inferences(
    source: Signature, alignment: Alignment, sme: Sequence[SMEInference] = ()
) -> list[CandidateInference]:
    """Project unmatched source facts and the source fix through the alignment's mapping.

    ``sme`` are the structure mapper's inferences for the same interpretation
    (:attr:`analogist.verify.roles.RoleMapping.inferences`); an inference projected from the
    same source statement carries their support and extrapolation scores.
    """
    m = alignment.mapping
    by_root = {ci.source: ci for ci in sme if not ci.reverse}
    fix = next((ci for ci in sme if not ci.reverse and ci.source.functor == FIX), None)
    out = []
    for f in alignment.source_only + alignment.non_alignable_source:
        full, missing = _with_skolems(f.roles(), m)
        scored = by_root.get(f.expr())
        out.append(
            CandidateInference(
                "fact",
                str(f),
                str(f.renamed(full)),
                fact=f,
                skolems=missing,
                support=scored.support if scored else None,
                extrapolation=scored.extrapolation if scored else None,
            )
        )
    if source.fix_operator is not None:
        term = source.fix_operator.term
        full, missing = _with_skolems(term.roles(), m)
        projected = term.rename(full)
        text = f"{projected.canonical()} {source.fix_operator.qualifier}".strip()
        out.append(
            CandidateInference(
                "action",
                str(source.fix_operator),
                text,
                action=projected,
                skolems=missing,
                support=fix.support if fix else None,
                extrapolation=fix.extrapolation if fix else None,
            )
        )
    return out
