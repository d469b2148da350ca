"""Vocabulary consolidation (spec §6): relation telemetry and merge proposals with evidence.

*Telemetry* per relation: how often it takes part in the matched structure of a verified
analogy, of a rejected one (critic or check said no), and of one with a negative transfer (usage
counts are the vocab table's own).

*Interchangeable use*: in a verified analogy, a source fact ``p(A,B)`` whose corresponding
target fact (same roles through the verified role map) is ``q(A',B')`` with ``q != p``, while
neither side states the other predicate on those roles, is one observation that ``p`` and ``q``
say the same thing. SME matches only identical relations, so these pairs are exactly what the
verified mapping aligned around. A pair both stated on the same roles of one signature counts
against (they are used together, so they differ). A pair is *proposed* for a merge when it was
observed at least ``min_evidence`` times and never used together; the less used term is merged
into the more used one.

*Near-identical definitions*: terms of the same kind and arity whose definitions embed within
``definition_cosine`` of each other are proposed too, with the cosine and embedder as evidence.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from analogist.errors import VocabularyError
from analogist.signature.model import Signature
from analogist.signature.vocabulary import Vocabulary

TELEMETRY = ("verified", "rejected", "negative")


@dataclass(frozen=True)
class MergeProposal:
    """A proposed merge of ``old`` into ``into`` and why."""

    old: str
    into: str
    reason: str  # interchangeable | definition
    evidence: Mapping[str, object]

    def to_json(self) -> dict:
        return {
            "old": self.old,
            "into": self.into,
            "reason": self.reason,
            "evidence": dict(self.evidence),
        }


def _facts(sig: Signature, names: Mapping[str, str]) -> set[tuple[str, tuple[str, ...]]]:
    return {(r.predicate, tuple(names.get(a, a) for a in r.args)) for r in sig.relations}


def matched_predicates(
    source: Signature, target: Signature, role_map: Iterable[tuple[str, str]]
) -> set[str]:
    """Relations (and causal link names) the role map carries from source onto the target."""
    names = dict(role_map)
    shared = {p for p, _ in _facts(source, names) & _facts(target, {})}
    tl = {
        (str(c.cause.rename(names)), c.link, str(c.effect.rename(names)))
        for c in source.causal_chain
    }
    tt = {(c.cause.canonical(), c.link, c.effect.canonical()) for c in target.causal_chain}
    return shared | {link for _, link, _ in tl & tt}


def interchangeable(
    source: Signature, target: Signature, role_map: Iterable[tuple[str, str]]
) -> tuple[Counter, Counter]:
    """(pairs used interchangeably, pairs used together) observed in one verified analogy;
    pairs are sorted tuples of predicate names."""
    names = dict(role_map)
    sf, tf = _facts(source, names), _facts(target, {})
    by_args_s: dict[tuple[str, ...], set[str]] = {}
    by_args_t: dict[tuple[str, ...], set[str]] = {}
    for p, args in sf:
        by_args_s.setdefault(args, set()).add(p)
    for p, args in tf:
        by_args_t.setdefault(args, set()).add(p)
    swap: Counter[tuple[str, ...]] = Counter()
    together: Counter[tuple[str, ...]] = Counter()
    for args, ps in by_args_s.items():
        qs = by_args_t.get(args, set())
        for p in ps - qs:
            for q in qs - ps:
                swap[tuple(sorted((p, q)))] += 1
    for side in (by_args_s, by_args_t):
        for ps in side.values():
            for p in ps:
                for q in ps:
                    if p < q:
                        together[(p, q)] += 1
    return swap, together


def mergeable(vocab: Vocabulary, old: str, into: str) -> bool:
    """Whether :meth:`Vocabulary.merge` would accept merging ``old`` into ``into`` (same arity;
    a causal link only into a link of the same polarity), so nothing refused is proposed."""
    try:
        vocab.merge(old, into)
    except VocabularyError:
        return False
    return True


def proposals_from_use(
    swaps: Mapping[str, int],
    together: Mapping[str, int],
    counts: Mapping[str, int],
    vocab: Vocabulary,
    min_evidence: int = 2,
) -> list[MergeProposal]:
    """Merge proposals from accumulated interchangeable-use counts (keys ``p|q``)."""
    out = []
    for key, n in sorted(swaps.items()):
        p, q = key.split("|")
        if n < min_evidence or together.get(key, 0):
            continue
        tp, tq = vocab.resolve(p), vocab.resolve(q)
        if tp is None or tq is None or tp.term == tq.term or tp.arity != tq.arity:
            continue
        old, into = sorted((p, q), key=lambda x: (-counts.get(x, 0), x))[::-1]
        if not mergeable(vocab, old, into):
            continue
        out.append(
            MergeProposal(
                old,
                into,
                "interchangeable",
                {
                    "verified_swaps": n,
                    "used_together": 0,
                    "usage": {p: counts.get(p, 0), q: counts.get(q, 0)},
                },
            )
        )
    return out


def proposals_from_definitions(
    vocab: Vocabulary, embedder, counts: Mapping[str, int], definition_cosine: float = 0.92
) -> list[MergeProposal]:
    """Merge proposals for live terms of one kind and arity with near-identical definitions."""
    live = [t for t in vocab if t.merged_into is None and t.definition]
    if len(live) < 2:
        return []
    mat = np.asarray(embedder.embed([t.definition for t in live]), dtype=np.float32)
    norms = np.linalg.norm(mat, axis=1, keepdims=True)
    mat = (mat / np.where(norms == 0, 1, norms)).astype(np.float32)
    sims = mat @ mat.T
    out = []
    for i, a in enumerate(live):
        for j in range(i + 1, len(live)):
            b = live[j]
            if a.kind != b.kind or a.arity != b.arity or sims[i, j] < definition_cosine:
                continue
            old, into = sorted((a.term, b.term), key=lambda x: (-counts.get(x, 0), x))[::-1]
            if not mergeable(vocab, old, into):
                continue
            out.append(
                MergeProposal(
                    old,
                    into,
                    "definition",
                    {
                        "cosine": round(float(sims[i, j]), 4),
                        "embedder": getattr(embedder, "name", "?"),
                    },
                )
            )
    return out
