"""Structure mapping between two signatures: SME over their Descriptions, read back as role
mappings, each checked by the deterministic checks of spec §8.2.

SME proposes up to three interpretations; each interpretation's entity correspondences are a
source-role → target-role mapping. The §8.2 checks (not SME's score) then decide which mapping
is structurally coherent and how strong it is, so a mapping proposed by a model can be checked
the same way (:func:`check_role_map`).
"""

from __future__ import annotations

from collections.abc import Mapping as TMapping
from dataclasses import dataclass

from analogist.mapping.engine import DEFAULT_PARAMS, match
from analogist.mapping.inferences import CandidateInference as SMEInference
from analogist.mapping.params import SMEParams
from analogist.signature.describe import describe
from analogist.signature.model import Signature
from analogist.signature.vocabulary import Vocabulary
from analogist.verify.checks import StructuralChecks, run_checks


@dataclass(frozen=True)
class RoleMapping:
    """One interpretation of source → target at the role level.

    Attributes:
        source_id / target_id: the two signatures' episode ids.
        role_map: source role → target role.
        sme_score: SME's structural evaluation (None for a mapping not proposed by SME).
        sme_normalized: SME's score over the mean self-match score.
        checks: the §8.2 checks on this role map.
        proposer: "sme", "model" or "gold".
        inferences: SME's candidate inferences of this interpretation (with their support and
            extrapolation scores); empty for a mapping SME did not propose.
    """

    source_id: str
    target_id: str
    role_map: tuple[tuple[str, str], ...]
    sme_score: float | None
    sme_normalized: float | None
    checks: StructuralChecks
    proposer: str = "sme"
    inferences: tuple[SMEInference, ...] = ()

    @property
    def mapping(self) -> dict[str, str]:
        return dict(self.role_map)

    @property
    def score(self) -> float:
        """The deterministic structural score that decides (spec §8.2)."""
        return self.checks.score

    def to_json(self) -> dict:
        return {
            "source_id": self.source_id,
            "target_id": self.target_id,
            "role_map": dict(self.role_map),
            "sme_score": self.sme_score,
            "sme_normalized": self.sme_normalized,
            "proposer": self.proposer,
            "checks": self.checks.to_json(),
        }


def check_role_map(
    source: Signature,
    target: Signature,
    role_map: TMapping[str, str],
    vocab: Vocabulary,
    proposer: str,
) -> RoleMapping:
    """Check a mapping proposed elsewhere (a model, a gold key) with the same §8.2 checks."""
    checks = run_checks(source, target, role_map, vocab)
    return RoleMapping(
        source.episode_id,
        target.episode_id,
        tuple(sorted(role_map.items())),
        None,
        None,
        checks,
        proposer,
    )


def map_signatures(
    source: Signature, target: Signature, vocab: Vocabulary, params: SMEParams = DEFAULT_PARAMS
) -> list[RoleMapping]:
    """SME's interpretations of source → target as role mappings, best structural score first."""
    result = match(describe(source, vocab), describe(target, vocab), params)
    out = []
    for m in result.mappings:
        role_map = {str(h.base): str(h.target) for h in m.entity_mhs}
        checks = run_checks(source, target, role_map, vocab)
        out.append(
            RoleMapping(
                source.episode_id,
                target.episode_id,
                tuple(sorted(role_map.items())),
                m.score,
                m.normalized_score,
                checks,
                inferences=m.candidate_inferences,
            )
        )
    out.sort(key=lambda r: (-r.score, -(r.sme_score or 0.0)))
    return out
