"""Episodes: what happened, as stored, optionally with its structural signature.

An input line is either an episode object ``{"id", "kind", "text", "outcome", "time",
"provenance", "signature"?}`` or a bare spec §4.1 signature, whose ``episode_id`` and
``levels.L0`` then define the episode.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from analogist.errors import EpisodeError, SignatureError
from analogist.signature import limits as L
from analogist.signature.model import _ID, KINDS, Signature, parse_signature, short
from analogist.signature.vocabulary import Vocabulary

_FIELDS = {"id", "kind", "text", "outcome", "time", "provenance", "signature"}


@dataclass(frozen=True)
class Episode:
    """A stored episode. ``text`` is the literal account (level L0)."""

    id: str
    kind: str
    text: str
    outcome: str | None = None
    time: str | None = None
    provenance: str | None = None
    signature: Signature | None = None

    @property
    def domain(self) -> str:
        return self.signature.surface.domain if self.signature else ""

    def to_json(self) -> dict:
        d: dict[str, Any] = {"id": self.id, "kind": self.kind, "text": self.text}
        for k in ("outcome", "time", "provenance"):
            if getattr(self, k) is not None:
                d[k] = getattr(self, k)
        if self.signature is not None:
            d["signature"] = self.signature.to_json()
        return d


def is_bare_signature(obj: Mapping[str, Any]) -> bool:
    return "episode_id" in obj and "id" not in obj


def parse_episode(obj: Any, vocab: Vocabulary, *, depth_checked: bool = False) -> Episode:
    """Validate one input object (episode or bare signature) into an :class:`Episode`
    (``depth_checked``: ``obj`` came from :func:`~analogist.signature.limits.load_json`, which
    has checked its nesting already; a bulk ingest then walks it once, not three times).

    Raises:
        EpisodeError: the episode fields are wrong.
        SignatureError: the attached signature is wrong (names the episode and field).
    """
    if not isinstance(obj, Mapping):
        raise EpisodeError("each line must be a JSON object (an episode or a bare signature)")
    if not depth_checked:
        L.check_depth(obj, "the episode")
    if is_bare_signature(obj):
        sig = parse_signature(obj, vocab, depth_checked=True)
        return Episode(sig.episode_id, sig.kind, sig.levels["L0"], signature=sig)
    eid = obj.get("id")
    if isinstance(eid, str) and len(eid) > L.MAX_ID_CHARS:
        raise EpisodeError(
            f"episode id {short(eid)}: " + L.over("characters", len(eid), "MAX_ID_CHARS")
        )
    if not isinstance(eid, str) or not _ID.match(eid):
        raise EpisodeError(
            f"episode id {short(eid)}: give a string id of letters, digits and _ . : - "
            "(or a bare signature with episode_id)"
        )
    unknown = sorted(set(obj) - _FIELDS)
    if unknown:
        raise EpisodeError(
            f"episode {eid}: unknown field {short(unknown[0])}; fields are {sorted(_FIELDS)}"
        )
    kind = obj.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        raise EpisodeError(f"episode {eid}: kind {short(kind)} is not one of {', '.join(KINDS)}")
    text = obj.get("text")
    if not isinstance(text, str) or not text.strip():
        raise EpisodeError(f"episode {eid}: text (the literal account, L0) is required")
    for k in ("text", "outcome", "time", "provenance"):
        if obj.get(k) is not None and not isinstance(obj[k], str):
            raise EpisodeError(f"episode {eid}: {k} must be a string")
        if obj.get(k) is not None and len(obj[k]) > L.MAX_TEXT_CHARS:
            raise EpisodeError(
                f"episode {eid}: {k} has " + L.over("characters", len(obj[k]), "MAX_TEXT_CHARS")
            )
    signed: Signature | None = None
    if obj.get("signature") is not None:
        signed = parse_signature(obj["signature"], vocab, depth_checked=True)
        if signed.episode_id != eid:
            raise SignatureError(
                eid,
                "episode_id",
                f"signature names {signed.episode_id!r}; it must equal the episode id",
            )
        if signed.kind != kind:
            raise SignatureError(
                eid, "kind", f"signature kind {signed.kind!r} differs from episode kind {kind!r}"
            )
    return Episode(
        eid, kind, text, obj.get("outcome"), obj.get("time"), obj.get("provenance"), signed
    )
