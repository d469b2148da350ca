"""Random-access hints for the memory-mapped snapshot files (Linux ``madvise(MADV_RANDOM)``).

An HNSW walk touches scattered nodes of a graph file of hundreds of MB. By
default the kernel reads ahead around every page fault of a file mapping, so the first query
of a 1M memory on a cold page cache mapped 430-750 MB of each 925 MB HNSW graph (measured:
``docs/performance.md``, "Cold open and MADV_RANDOM"; 170-230 MB advised). ``MADV_RANDOM`` turns that read-ahead off for the
mapping, so a one-shot process reads what its walks touch. The rows files are not advised:
exact search reads them from end to end, where read-ahead is what it needs. It is a hint:
answers do not change, and where the platform has no ``madvise`` (or no ``/proc/self/maps``)
it is skipped.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import mmap
import os
from pathlib import Path
from typing import Any

_MADV_RANDOM = getattr(mmap, "MADV_RANDOM", None)


def advise_file(path: Path) -> int:
    """Mark every mapping of ``path`` in this process random-access (mappings a library made,
    such as usearch's view of a graph file); the number of mappings advised."""
    if _MADV_RANDOM is None or not os.path.exists("/proc/self/maps"):
        return 0
    libc = _libc()
    if libc is None:
        return 0
    target, done = os.path.realpath(path), 0  # the kernel lists mappings by resolved path
    with open("/proc/self/maps") as maps:
        for line in maps:
            parts = line.split(maxsplit=5)
            if len(parts) < 6 or parts[5].rstrip("\n") != target:
                continue
            start, end = (int(x, 16) for x in parts[0].split("-"))
            done += libc.madvise(start, end - start, _MADV_RANDOM) == 0
    return done


@functools.cache
def _libc() -> Any:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    libc = ctypes.CDLL(name, use_errno=True)
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    libc.madvise.restype = ctypes.c_int
    return libc
