"""Per-thread work arrays reused across calls, for the big temporaries of hot loops.

A fresh numpy temporary of a few MB (one float32 per document at 1M; a batch's 5,000 x 384
embedding matrix) is served by ``mmap`` and costs a page fault per 4 KB page on first touch
(~1,000 for 4 MB, ~3 µs each on this project's machines) whenever the allocator has given the
previous one back to the system — which depends on the process's allocation history, not on
the work. Measured on the 1M memory: the same S1 code took 6.7 or 15.7 ms per query depending
on glibc's trim state, and an ingest batch's embedding spent 10-16 µs of kernel time per
episode on such faults (docs/performance.md). Reusing one array per (thread, purpose) takes
that cost out. A work array's contents are undefined on return and it must not outlive the
call that asked for it. It sits at the package's top level because searches (``retrieve``),
embedders (``models``) and the store's row encoding all use it.
"""

from __future__ import annotations

import threading

import numpy as np

_local = threading.local()


def work_array(purpose: str, n: int, dtype: type[np.generic] | np.dtype) -> np.ndarray:
    """An array of ``n`` elements of ``dtype`` for ``purpose``, reused by this thread (grown
    when too small; contents undefined)."""
    pool: dict[tuple[str, np.dtype], np.ndarray] | None = getattr(_local, "pool", None)
    if pool is None:
        pool = _local.pool = {}
    key = (purpose, np.dtype(dtype))
    buf = pool.get(key)
    if buf is None or len(buf) < n:
        buf = pool[key] = np.empty(max(n, 1), key[1])
    return buf[:n]
