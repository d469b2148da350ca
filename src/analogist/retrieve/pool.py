"""The candidate pool: the union of every channel's hits, with provenance (spec §7.1).

Nothing here fuses scores. Each candidate records which channels found it (``found_by``),
its rank and score in each, its *structural rank* (best rank in S0, S1, S2.*, S3) and its
*semantic rank* (best rank in M.*). Structure mapping, downstream, decides soundness; the pool
only makes attribution possible::

    candidate source=ep_1042 found_by=[S1,S2.L3] semantic_rank=- structural_rank=2

Display order puts schema hits first, in S3's order (the schema library is searched before
raw episodes, spec §7), then sorts by structural rank, then semantic rank, then episode id (a
candidate no channel of a family found sorts after those that one did). That order is not a
relevance judgement (the analogizer maps candidates in it, so schema hits are mapped first). Channel P's proposals are not store episodes: they are kept apart
in :attr:`Pool.parametric`, labelled ``parametric``, and never enter any rank.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from analogist.retrieve.base import PARAMETRIC, SEMANTIC, STRUCTURAL, Hit, family


@dataclass(frozen=True)
class Candidate:
    """One stored episode in the pool, with everything each channel said about it."""

    episode_id: str
    found_by: tuple[str, ...]
    ranks: Mapping[str, int]
    scores: Mapping[str, float]
    structural_rank: int | None
    semantic_rank: int | None
    details: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def line(self) -> str:
        """``candidate source=ep_1 found_by=[S1,S2.L2] semantic_rank=42 structural_rank=2``."""
        sem = "-" if self.semantic_rank is None else self.semantic_rank
        struct = "-" if self.structural_rank is None else self.structural_rank
        return (
            f"candidate source={self.episode_id} found_by=[{','.join(self.found_by)}] "
            f"semantic_rank={sem} structural_rank={struct}"
        )

    def to_json(self) -> dict:
        return {
            "episode_id": self.episode_id,
            "found_by": list(self.found_by),
            "ranks": dict(self.ranks),
            "scores": dict(self.scores),
            "semantic_rank": self.semantic_rank,
            "structural_rank": self.structural_rank,
            "details": {k: dict(v) for k, v in self.details.items() if v},
        }

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> Candidate:
        """Read a logged candidate (a given source logs only its id and ``found_by``)."""
        return cls(
            d["episode_id"],
            tuple(d.get("found_by", ())),
            dict(d.get("ranks", {})),
            dict(d.get("scores", {})),
            d.get("structural_rank"),
            d.get("semantic_rank"),
            {k: dict(v) for k, v in (d.get("details") or {}).items()},
        )


def _best(ranks: Mapping[str, int], families: tuple[str, ...]) -> int | None:
    found = [r for ch, r in ranks.items() if family(ch) in families]
    return min(found) if found else None


@dataclass(frozen=True)
class Pool:
    """The result of one search.

    Attributes:
        target: a short description of what was searched (episode id, text, signature?).
        hits: each channel's own ranked list, exactly as it answered.
        skipped: channel -> why it did not run (or could not answer).
        excluded: ids kept out of every channel (the target, its derivatives, the caller's).
        channels: the channels that ran, in the order they ran.
    """

    target: Mapping[str, Any]
    hits: Mapping[str, tuple[Hit, ...]]
    skipped: Mapping[str, str] = field(default_factory=dict)
    excluded: frozenset[str] = frozenset()
    channels: tuple[str, ...] = ()

    @cached_property
    def candidates(self) -> list[Candidate]:
        """Store episodes found by any non-parametric channel, in display order."""
        per: dict[str, list[Hit]] = {}
        for ch, hits in self.hits.items():
            if family(ch) == PARAMETRIC:
                continue
            for h in hits:
                per.setdefault(h.episode_id, []).append(h)
        out = []
        for eid, hs in per.items():
            ranks = {h.channel: h.rank for h in hs}
            out.append(
                Candidate(
                    episode_id=eid,
                    found_by=tuple(dict.fromkeys(h.provenance for h in hs)),
                    ranks=ranks,
                    scores={h.channel: h.score for h in hs},
                    structural_rank=_best(ranks, STRUCTURAL),
                    semantic_rank=_best(ranks, SEMANTIC),
                    details={h.channel: h.detail for h in hs},
                )
            )
        inf = float("inf")
        out.sort(
            key=lambda c: (
                _best(c.ranks, ("S3",)) or inf,
                c.structural_rank or inf,
                c.semantic_rank or inf,
                c.episode_id,
            )
        )
        return out

    @property
    def parametric(self) -> list[Hit]:
        """Channel P's proposals from the model's pretrained knowledge (not store episodes)."""
        return [h for ch, hs in self.hits.items() if family(ch) == PARAMETRIC for h in hs]

    def __len__(self) -> int:
        return len(self.candidates)

    def ids(self) -> list[str]:
        return [c.episode_id for c in self.candidates]

    def get(self, episode_id: str) -> Candidate | None:
        return next((c for c in self.candidates if c.episode_id == episode_id), None)

    def found_by(self, channel: str) -> list[str]:
        """Ids a channel (``S2.L3``) or family (``S2``) found, in that channel's rank order."""
        hits = [
            h for ch, hs in self.hits.items() if ch == channel or family(ch) == channel for h in hs
        ]
        return list(dict.fromkeys(h.episode_id for h in sorted(hits, key=lambda h: h.rank)))

    def to_json(self) -> dict:
        return {
            "target": dict(self.target),
            "channels": list(self.channels),
            "candidates": [c.to_json() for c in self.candidates],
            "parametric": [h.to_json() for h in self.parametric],
            "skipped": dict(self.skipped),
            "excluded": sorted(self.excluded),
        }

    def format(self) -> str:
        """Readable lines: one per candidate, then parametric proposals and skipped channels."""
        lines = [c.line() for c in self.candidates] or ["(no candidates)"]
        for h in self.parametric:
            lines.append(f"parametric rank={h.rank} case={h.detail.get('case', h.episode_id)!r}")
        lines += [f"skipped {ch}: {why}" for ch, why in self.skipped.items()]
        return "\n".join(lines)
