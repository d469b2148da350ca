"""What an accepted vocabulary merge changes in stored episodes (spec §6: "synonyms are merged
during consolidation").

A stored signature keeps the spelling its writer chose: after ``old`` is merged into ``into``
the reader (:func:`~analogist.signature.model.parse_signature`) resolves ``old`` through
``merged_into`` and hands out ``into`` everywhere (relations, causal-chain terms, links). What
is *derived* from the read signature must follow, or search would not find the episode by the
surviving term: its relation rows and its WL fingerprint (S0). :func:`reindex_changes` finds the
signatures whose reading changes and returns one :class:`~analogist.store.consolidation.Reindex`
per episode, written in the merge's transaction with before images, so undoing the run puts
the old rows back. The S1 (MAC) index is computed from read signatures and is rebuilt because
the fingerprint rows change (``index_state.rebuilds``).
"""

from __future__ import annotations

from analogist.errors import SignatureError, VocabularyError
from analogist.signature.fingerprint import WLFingerprint
from analogist.signature.model import Signature, parse_signature
from analogist.signature.vocabulary import Vocabulary
from analogist.store.consolidation import Reindex
from analogist.store.interface import StoreInterface as Store
from analogist.store.signature_rows import term_usage


def _live(vocab: Vocabulary, name: str) -> str | None:
    t = vocab.resolve(name)
    return t.term if t is not None else None


def moved_names(before: Vocabulary, after: Vocabulary) -> list[str]:
    """Every name (term or synonym) that resolves to another live term after the merges."""
    return [n for n in before.names() if _live(before, n) != _live(after, n)]


def reindex_changes(
    store: Store, before: Vocabulary, after: Vocabulary, wl: WLFingerprint
) -> list[Reindex]:
    """The derived rows to rewrite for the stored signatures whose reading changes from
    ``before`` to ``after``.

    Raises:
        VocabularyError: a stored signature would no longer read under ``after`` (nothing is
            written then).
    """
    moved = moved_names(before, after)
    out: list[Reindex] = []
    for eid, raw in store.signatures_naming(moved):
        old: Signature | None
        try:
            old = parse_signature(raw, before, episode_id=eid)
        except SignatureError:
            old = None  # unreadable already: reindexed if the merge makes it readable
        try:
            new = parse_signature(raw, after, episode_id=eid)
        except SignatureError as e:
            raise VocabularyError(
                f"the merge would leave stored episode {eid} unreadable ({e}); nothing was written"
            ) from None
        if new != old:
            delta = term_usage(new)
            if old is not None:
                delta.subtract(term_usage(old))
            else:  # its uses were never counted (it did not read): none to move
                delta.clear()
            usage = {t: n for t, n in delta.items() if n}
            out.append(Reindex(new, wl(new, after).as_row(), usage))
    return out
