"""What a search is for, and which channels run: turning a caller's target and channel list
into a :class:`~analogist.retrieve.base.Target` and a list of channels.

A target is a stored episode id (its own episode is then excluded), plain text (only the
text channels can use it, unless an encoder turns it into a signature), a
:class:`~analogist.signature.Signature`, or an :class:`~analogist.episode.Episode`. Each
resolution also says, in words, why structural channels would be skipped when the target
ends up without a signature.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from analogist.episode import Episode
from analogist.errors import ConfigError
from analogist.retrieve.base import Channel, Target, family
from analogist.signature.model import Signature
from analogist.store import Store

Encoder = Callable[[str], Signature]

PLAIN_TEXT = (
    "the target is plain text without a signature; structural channels need one "
    "(pass encoder=text->Signature, a Signature, or a stored episode id)"
)


def resolve_target(store: Store, target: Any, encoder: Encoder | None = None) -> tuple[Target, str]:
    """The :class:`Target` for ``target`` and the reason structural channels cannot use it
    (meaningful only when it has no signature).

    Raises:
        ConfigError: the target is empty or of an unsupported type.
    """
    if isinstance(target, Target):
        return target, "the target has no signature"
    if isinstance(target, Signature):
        stored = store.has_episode(target.episode_id)
        return Target(target.level("L0"), target, target.episode_id if stored else None), ""
    if isinstance(target, Episode):
        stored = store.has_episode(target.id)
        return (
            Target(target.text, target.signature, target.id if stored else None),
            f"episode {target.id} has no signature",
        )
    if not isinstance(target, str) or not target.strip():
        raise ConfigError("search for a stored episode id, some text, or a Signature")
    if store.has_episode(target):
        ep = store.get_episode(target)
        why = (
            f"episode {ep.id} has no signature yet; structural channels need one "
            "(attach one with the store, or search with a Signature)"
        )
        return Target(ep.text, ep.signature, ep.id), why
    if encoder is not None:
        return Target(target, encoder(target)), ""
    return Target(target), PLAIN_TEXT


def select_channels(
    channels: Sequence[Channel], wanted: Sequence[str] | str | None
) -> list[Channel]:
    """The channels named in ``wanted`` (names like ``S2.L3`` or families like ``S2``, as a
    list or a comma-separated string), in the memory's own order; all when None.

    Raises:
        ConfigError: a name matches no channel.
    """
    if wanted is None:
        return list(channels)
    tokens = [t.strip() for t in (wanted.split(",") if isinstance(wanted, str) else wanted)]
    tokens = [t for t in tokens if t]
    unknown = [t for t in tokens if not any(c.name == t or family(c.name) == t for c in channels)]
    if unknown:
        names = ", ".join(c.name for c in channels)
        raise ConfigError(
            f"unknown channel {unknown[0]!r}; this memory has {names} "
            "(families S0, S1, S2, S3, M, P)"
        )
    return [c for c in channels if c.name in tokens or family(c.name) in tokens]
