"""The hashing embedder's per-token work: texts to signed bucket codes.

Split out of :mod:`~analogist.models.embedding` (whose runtime-checkable ``Protocol`` mypyc
does not compile) so that it is compiled with the ingest kernels (``analogist.compiled.INGEST``):
it runs for every token of the three texts of every episode added.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

_WORD = re.compile(r"[a-z0-9]+")
_BLANK8 = hashlib.blake2b(digest_size=8)


def key64(text: str) -> int:
    """A stable 64-bit value of ``text``: its 8-byte BLAKE2b digest, little-endian, the same in
    every process and version (token buckets here; snapshot keys of features and ids in
    :mod:`~analogist.retrieve.frozen`). A copy of an empty state, updated, gives the same
    digest as a new state at ~60 % of its cost."""
    state = _BLANK8.copy()
    state.update(text.encode("utf-8"))
    return int.from_bytes(state.digest(), "little")


def bucket(token: str, dim: int) -> int:
    """The token's signed bucket as one integer: ``j + 1`` for ``+1`` at column ``j``,
    ``-(j + 1)`` for ``-1`` (from :func:`key64`: column = value mod ``dim``, sign = the top
    bit)."""
    v = key64(token)
    return v % dim + 1 if (v >> 63) & 1 else -(v % dim + 1)


def token_codes(
    texts: Sequence[str], dim: int, bigrams: bool, known: dict[str, int]
) -> tuple[list[int], list[int]]:
    """(every token's signed bucket, tokens per text): each text's lower-cased words, then
    (with ``bigrams``) each pair of neighbouring words joined by ``_``. ``known`` holds the
    words' buckets hashed before and takes the new ones. Word pairs are hashed every time:
    most are met once (on the bench's stream ~13 of an episode's ~52 tokens were new, nearly
    all pairs), and remembering them filled ``known`` with pairs that never came back, whose
    lookups in a dictionary of 2^18 strings cost more than hashing them (embedding 33 -> 29
    µs per episode)."""
    codes: list[int] = []
    lengths: list[int] = []
    for text in texts:
        words: list[str] = _WORD.findall(text.lower())
        for w in words:
            c = known.get(w)
            if c is None:
                c = known[w] = bucket(w, dim)
            codes.append(c)
        n = len(words)
        if bigrams:
            for i in range(n - 1):  # (not remembered: see the docstring)
                codes.append(bucket(words[i] + "_" + words[i + 1], dim))
            n += max(0, n - 1)
        lengths.append(n)
    return codes, lengths
