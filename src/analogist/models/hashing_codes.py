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


def bucket(token: str, dim: int) -> int:
    """The token's signed bucket as one integer: ``j + 1`` for ``+1`` at column ``j``,
    ``-(j + 1)`` for ``-1`` (the first 8 bytes of its BLAKE2b digest, little-endian: column =
    value mod ``dim``, sign = the top bit)."""
    h = hashlib.blake2b(token.encode("utf-8"), digest_size=8).digest()
    v = int.from_bytes(h, "little")
    return v % dim + 1 if (v >> 63) & 1 else -(v % dim + 1)


def token_codes(
    texts: Sequence[str], dim: int, bigrams: bool, known: dict[str, int]
) -> tuple[list[int], list[int]]:
    """(every token's signed bucket, tokens per text): each text's lower-cased words, then
    (with ``bigrams``) each pair of neighbouring words joined by ``_``. ``known`` holds the
    buckets hashed before and takes the new ones."""
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
            for i in range(n - 1):
                t = words[i] + "_" + words[i + 1]
                c = known.get(t)
                if c is None:
                    c = known[t] = bucket(t, dim)
                codes.append(c)
            n += max(0, n - 1)
        lengths.append(n)
    return codes, lengths
