"""The retrieval vocabulary shared by every channel: :class:`Target`, :class:`Hit`, and the
:class:`Channel` protocol.

Spec §7.1 keeps retrieval channels separate and labels their provenance, so a channel only
ever answers for itself: a ranked list of :class:`Hit` values. Combining them is the job of
:class:`~analogist.retrieve.pool.Pool`, which takes the union and never fuses scores.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from analogist.errors import AnalogistError
from analogist.signature.model import Signature

STRUCTURAL = ("S0", "S1", "S2", "S3")
SEMANTIC = ("M",)
PARAMETRIC = "P"


def family(channel: str) -> str:
    """The channel family: ``"S2.L3"`` -> ``"S2"``, ``"M.bm25"`` -> ``"M"``."""
    return channel.split(".", 1)[0]


class ChannelUnavailable(AnalogistError):
    """A channel cannot answer for this target or store; the message says why and what to do.

    Raised by a channel's ``search``; the memory records it under ``Pool.skipped`` rather than
    failing the whole search.
    """


@dataclass(frozen=True)
class Target:
    """What is searched for.

    Attributes:
        text: the literal account (L0), always present.
        signature: the structural signature, when known (stored, given, or encoded).
        episode_id: the stored episode this target is, if any (it is excluded from results).
    """

    text: str
    signature: Signature | None = None
    episode_id: str | None = None

    def level_text(self, level: str) -> str:
        """The target's text at abstraction level ``level`` ("" when it has none)."""
        if self.signature is not None and self.signature.level(level):
            return self.signature.level(level)
        return self.text if level == "L0" else ""


@dataclass(frozen=True)
class Hit:
    """One channel's answer about one candidate.

    Attributes:
        episode_id: the stored episode (for channel P, a ``parametric:<n>`` label; never a
            store id).
        channel: the channel that found it, e.g. ``S1`` or ``S2.L3``.
        score: the channel's own similarity; comparable only within that channel.
        rank: 1-based position in that channel's list.
        detail: channel-specific evidence (match kind, schema id, shared features...).
    """

    episode_id: str
    channel: str
    score: float
    rank: int
    detail: Mapping[str, Any] = field(default_factory=dict)

    @property
    def provenance(self) -> str:
        """The label used in ``found_by``: the channel, plus the schema for S3 (``S3:sch_1``)."""
        schema = self.detail.get("schema_id")
        return f"{self.channel}:{schema}" if schema else self.channel

    def to_json(self) -> dict:
        return {
            "episode_id": self.episode_id,
            "channel": self.channel,
            "score": self.score,
            "rank": self.rank,
            "detail": dict(self.detail),
        }


@runtime_checkable
class Channel(Protocol):
    """A retrieval channel: a name, what it needs, and a ranked search.

    Attributes:
        name: e.g. ``S0``, ``S2.L2``, ``M.bm25``, ``P``.
        needs: ``"signature"`` when the target must have a structural signature, ``"text"``
            when its L0 text is enough.
    """

    @property
    def name(self) -> str: ...
    @property
    def needs(self) -> str: ...

    def search(self, target: Target, k: int, exclude: frozenset[str]) -> list[Hit]:
        """Up to ``k`` hits, best first, none of them in ``exclude``.

        Raises:
            ChannelUnavailable: the channel cannot answer (say why).
        """
        ...


def ranked(channel: str, scored: list[tuple[str, float, dict]], k: int) -> list[Hit]:
    """Turn (id, score, detail) triples, already best-first, into at most ``k`` ranked hits."""
    return [Hit(eid, channel, float(s), i + 1, d) for i, (eid, s, d) in enumerate(scored[:k])]


def channel_params(channel: Any) -> dict[str, Any]:
    """A channel's parameters as plain JSON (indexes left out, a model named ``provider:model``),
    so a run can record exactly what retrieved its candidates."""
    if not dataclasses.is_dataclass(channel):
        return {
            "name": getattr(channel, "name", type(channel).__name__),
            "type": type(channel).__name__,
        }
    out: dict[str, Any] = {"type": type(channel).__name__}
    for f in dataclasses.fields(channel):
        v = getattr(channel, f.name)
        if f.name == "source":
            continue
        if f.name == "llm":
            v = None if v is None else f"{v.provider}:{v.model}"
        out[f.name] = v
    return out
