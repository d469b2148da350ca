"""The causal-path transfer gate (spec §10, §13): transfer nothing whose causal support is not
itself mapped.

Rules, in order, for each candidate inference:

1. An incoherent mapping (not one-to-one, or with contradictory causal signs) transfers nothing.
2. An inference that names a source role with no target counterpart (a skolem) is withheld.
3. **Actions** (the source's fix) need mapped causal support (:mod:`analogist.verify.support`):
   the path from where the fix intervenes to the symptom reappears in the target link by link,
   with the same terms and the same sign, and no extra target link cuts into it. Topology alone
   never licenses an action: the matched links must carry the same predicates, not just the
   same shape.
4. A **blocker** (a negative-polarity fact in the target with no source counterpart) stops every
   inference whose support path or conclusion concerns the role it blocks.
5. **Facts** transfer only when a matched source link has them as its effect (their cause is
   mapped, Lee & Holyoak 2008); otherwise they are unknown in the target and become
   predictions to check, not conclusions.
"""

from __future__ import annotations

from dataclasses import dataclass

from analogist.signature.model import Signature
from analogist.signature.vocabulary import Vocabulary
from analogist.verify.align import Fact, LinkFact
from analogist.verify.checks import StructuralChecks, polarity
from analogist.verify.inference import CandidateInference
from analogist.verify.support import Support, action_support

#: How the gate's reason for withholding an action with unmapped causal support begins.
UNSUPPORTED_ACTION = "causal support not mapped"


@dataclass(frozen=True)
class TransferDecision:
    """YES or NO for one candidate inference, with the reason."""

    inference: CandidateInference
    transfer: bool
    reason: str

    @property
    def decision(self) -> str:
        return "YES" if self.transfer else "NO"

    def to_json(self) -> dict:
        return {
            "inference": self.inference.projected,
            "kind": self.inference.kind,
            "source": self.inference.source,
            "decision": self.decision,
            "reason": self.reason,
        }


@dataclass(frozen=True)
class CausalGate:
    """The gate's parameters (stored with every run).

    Attributes:
        require_support: whether an action needs its causal support mapped (off only for
            lesion experiments).
        block_on_blockers: whether unmatched target blockers stop inferences they touch
            (off only for lesion experiments).
    """

    require_support: bool = True
    block_on_blockers: bool = True

    def decide(
        self,
        source: Signature,
        target: Signature,
        checks: StructuralChecks,
        inferences: list[CandidateInference],
        vocab: Vocabulary,
    ) -> list[TransferDecision]:
        support = action_support(source, target, checks, vocab)
        return [self._one(ci, checks, vocab, support) for ci in inferences]

    def _one(
        self, ci: CandidateInference, c: StructuralChecks, vocab: Vocabulary, support: Support
    ) -> TransferDecision:
        if not c.one_to_one:
            return TransferDecision(ci, False, f"mapping is not one-to-one: {c.role_violations[0]}")
        if c.contradictory_signs:
            s, t = c.contradictory_signs[0]
            return TransferDecision(
                ci, False, f"contradictory causal sign: source {s} vs target {t}"
            )
        if ci.skolems:
            return TransferDecision(
                ci, False, f"source role(s) {', '.join(ci.skolems)} have no target counterpart"
            )
        matched_links = _matched_links(c, vocab)
        blocker = self._blocker_for(ci, c, matched_links)
        if blocker is not None:
            return TransferDecision(
                ci, False, f"target blocker {blocker} has no source counterpart"
            )
        if ci.kind == "action":
            return self._action(ci, matched_links, support)
        return _fact(ci, matched_links, c)

    def _blocker_for(
        self, ci: CandidateInference, c: StructuralChecks, links: list[LinkFact]
    ) -> Fact | None:
        if not self.block_on_blockers:
            return None
        if ci.fact is None:  # the action
            touched = {r for f in links for r in f.cause.roles()}
        else:
            touched = set(ci.fact.renamed(c.alignment.mapping).roles())
        for b in c.unmatched_blockers:
            if b.roles() and b.roles()[-1] in touched:
                return b
        return None

    def _action(
        self, ci: CandidateInference, links: list[LinkFact], support: Support
    ) -> TransferDecision:
        if not links:
            return TransferDecision(ci, False, "no source causal link is matched in the target")
        if self.require_support and not support.supported:
            return TransferDecision(ci, False, f"{UNSUPPORTED_ACTION}: {support.reason}")
        return TransferDecision(ci, True, f"causal support mapped: {support.reason}")


def _matched_links(c: StructuralChecks, vocab: Vocabulary) -> list[LinkFact]:
    """Target-side links that match a source link with the same sign (a link only ever
    aligns with a link: their keys differ from relations')."""
    out = [t for s, t in c.alignment.matches if s.kind == "link" and t.kind == "link"]
    out += [
        t
        for s, t in c.alignment.alignable_differences
        if s.kind == "link" and t.kind == "link" and polarity(s, vocab) == polarity(t, vocab)
    ]
    return out


def _fact(ci: CandidateInference, links: list[LinkFact], c: StructuralChecks) -> TransferDecision:
    f = ci.fact
    if f is not None and f.kind == "relation":
        projected = f.renamed(c.alignment.mapping)
        for link in links:
            if link.effect.functor == projected.predicate and link.effect.roles() == projected.args:
                return TransferDecision(ci, True, f"caused by a mapped link: {link}")
    return TransferDecision(
        ci, False, "unknown in target: its causal support is not mapped; check it"
    )
