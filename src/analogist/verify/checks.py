"""The deterministic structural checks of spec §8.2, on a source→target role mapping.

An LLM may propose a mapping; these checks decide whether it is structurally coherent:

- **one-to-one**: no two source roles share a target role; every mapped role exists.
- **source path mapped**: share of the source causal chain whose links reappear, same cause,
  same effect and same sign, in the target.
- **target path explained**: share of the target causal chain that a source link explains.
- **systematicity**: share of matched facts that sit inside matched causal structure (a matched
  link, or a relation whose roles a matched link mentions) — Gentner's systematicity principle:
  connected matches count more than isolated ones.
- **unmatched blockers**: preventing/blocking/masking facts (negative polarity) present in the
  target with no counterpart in the source (Lee & Holyoak 2008: an unmapped preventer defeats
  the causal inference).
- **contradictory signs**: corresponding facts whose causal polarity is opposite
  (``enables`` ↔ ``prevents``).
"""

from __future__ import annotations

from dataclasses import dataclass

from analogist.signature.model import Signature
from analogist.signature.vocabulary import Vocabulary
from analogist.verify.align import Alignment, Fact, RoleMap, align


def polarity(f: Fact, vocab: Vocabulary) -> int:
    t = vocab.resolve(f.predicate)
    return t.polarity if t is not None else 0


@dataclass(frozen=True)
class StructuralChecks:
    """Results of every §8.2 check plus the alignment they were computed from."""

    alignment: Alignment
    one_to_one: bool
    role_violations: tuple[str, ...]
    source_path_mapped: float
    target_path_explained: float
    systematicity: float
    relation_overlap: float
    unmatched_blockers: tuple[Fact, ...]
    contradictory_signs: tuple[tuple[Fact, Fact], ...]

    @property
    def coherent(self) -> bool:
        """One-to-one and free of contradictory signs: a mapping that may be reasoned from."""
        return self.one_to_one and not self.contradictory_signs

    @property
    def score(self) -> float:
        """A normalised structural score in [0, 1]; causal structure weighs most (spec §13)."""
        s = (
            0.45 * self.source_path_mapped
            + 0.2 * self.target_path_explained
            + 0.25 * self.relation_overlap
            + 0.1 * self.systematicity
        )
        if not self.coherent:
            s *= 0.5
        return round(s, 6)

    def to_json(self) -> dict:
        return {
            "one_to_one": self.one_to_one,
            "role_violations": list(self.role_violations),
            "source_path_mapped": self.source_path_mapped,
            "target_path_explained": self.target_path_explained,
            "systematicity": self.systematicity,
            "relation_overlap": self.relation_overlap,
            "unmatched_blockers": [str(f) for f in self.unmatched_blockers],
            "contradictory_signs": [[str(a), str(b)] for a, b in self.contradictory_signs],
            "coherent": self.coherent,
            "score": self.score,
        }


def _role_violations(source: Signature, target: Signature, m: RoleMap) -> list[str]:
    out = []
    src, tgt = set(source.role_names), set(target.role_names)
    seen: dict[str, str] = {}
    for s, t in sorted(m.items()):
        if s not in src:
            out.append(f"source role {s!r} does not exist")
        if t not in tgt:
            out.append(f"target role {t!r} does not exist")
        if t in seen:
            out.append(f"source roles {seen[t]!r} and {s!r} both map to target role {t!r}")
        seen[t] = s
    return out


def _share(part: int, whole: int) -> float:
    return round(part / whole, 6) if whole else 0.0


def run_checks(
    source: Signature, target: Signature, role_map: RoleMap, vocab: Vocabulary
) -> StructuralChecks:
    """Align the two signatures under ``role_map`` and run every §8.2 check."""
    a = align(source, target, role_map, vocab)
    violations = _role_violations(source, target, role_map)
    same_sign_links = [
        (s, t)
        for s, t in a.alignable_differences
        if s.kind == "link" and polarity(s, vocab) == polarity(t, vocab)
    ]
    matched_links = [(s, t) for s, t in a.matches if s.kind == "link"] + same_sign_links
    contradictions = tuple(
        (s, t) for s, t in a.alignable_differences if polarity(s, vocab) * polarity(t, vocab) < 0
    )
    linked_roles = {r for s, _ in matched_links for r in s.roles()}
    matched_rel = [s for s, _ in a.matches if s.kind == "relation"]
    connected = len(matched_links) + sum(1 for f in matched_rel if set(f.roles()) <= linked_roles)
    blockers = tuple(f for f in a.target_only + a.non_alignable_target if polarity(f, vocab) < 0)
    n_src_rel = len(source.relations)
    return StructuralChecks(
        alignment=a,
        one_to_one=not violations,
        role_violations=tuple(violations),
        source_path_mapped=_share(len(matched_links), len(source.causal_chain)),
        target_path_explained=_share(len(matched_links), len(target.causal_chain)),
        systematicity=_share(connected, len(matched_links) + len(matched_rel)),
        relation_overlap=_share(len(matched_rel), max(n_src_rel, len(target.relations))),
        unmatched_blockers=blockers,
        contradictory_signs=contradictions,
    )
