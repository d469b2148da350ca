"""Python's cyclic garbage collector, paused while a bulk add or an index build runs.

A process that holds a memory's indexes in RAM (a live agent, the bench) keeps millions of
GC-tracked objects: posting lists are ``array.array`` objects, which the collector tracks,
in lists. A bulk add allocates many objects that live for one batch (episodes, signatures,
terms, derived rows); surviving the young collections, they are promoted to the oldest
generation, and their number soon makes the collector run a full collection, which walks
every tracked object — the indexes included — though the batch's objects then die by reference
counting and nothing was garbage. Measured (``bench/ingest.py``, indexes built): 34 full
collections in a 100k ingest, ~0.24 s each at 100k; the bulk path 498 µs per episode with the
collector off against 570 with it on at 300k. Building an index from the database is the same
pattern (15 full collections while the MAC index of a 100k memory was built: 16.6 s, 12.5 s
without them). So ``Memory.add`` (for a bulk add) and ``Indexes`` (while folding database rows
into an index) pause it and restore it as it was: reference counting still frees everything
acyclic at once; only reference cycles made meanwhile (these paths make none of their own)
wait until the collector runs again.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused(pause: bool = True) -> Iterator[None]:
    """Run the body with automatic garbage collection off (when ``pause``), then restore it."""
    was = gc.isenabled()
    if pause:
        gc.disable()
    try:
        yield
    finally:
        if was and pause:
            gc.enable()
