"""Access hints for the memory-mapped snapshot files (Linux ``madvise``).

By default the kernel reads ahead around every page fault of a file mapping (up to the
device's ``read_ahead_kb``: 8 MB on the machine measured), which a one-shot process on a cold
page cache pays for every scattered access. So:

* An HNSW walk touches scattered nodes of a graph file of hundreds of MB: the graph is mapped
  ``MADV_RANDOM`` (:func:`advise_file`, a mapping usearch made). The first query of a 1M
  memory then read 170-230 MB of each 925 MB graph instead of 430-750 MB.
* Arrays read at scattered places — posting-list keys, offsets and entries, id tables, the
  vector rows a search re-scores — are mapped ``MADV_RANDOM`` too (:func:`advise_random`).
* A part read from end to end — an exact scan of the rows, a dense hot column, a long posting
  list — is asked for whole first (:func:`prefetch`, ``MADV_WILLNEED``): one large read
  instead of a fault per page.

Measured in ``docs/performance.md`` ("Cold open"). These are hints: answers do not change,
and where the platform has no ``madvise`` (or no ``/proc/self/maps``) they are skipped.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import mmap
import os
from pathlib import Path
from typing import Any

import numpy as np

_MADV_RANDOM = getattr(mmap, "MADV_RANDOM", None)
_MADV_WILLNEED = getattr(mmap, "MADV_WILLNEED", None)
_PAGE = mmap.PAGESIZE

#: A slice shorter than this many bytes is left to page faults (a prefetch costs a system call).
PREFETCH_MIN_BYTES = 64 * 1024
#: (address, bytes) ranges this process has prefetched, up to ``_ASKED_MAX`` (then forgotten).
_asked: set[tuple[int, int]] = set()
_ASKED_MAX = 1 << 16


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


def advise_random(array: np.ndarray) -> bool:
    """Mark the pages of a memory-mapped ``array`` random-access; False where nothing was done
    (an array in ordinary memory, an empty one, or no ``madvise``)."""
    return _advise(array, _MADV_RANDOM)


def prefetch(array: np.ndarray) -> bool:
    """Ask the kernel to read a memory-mapped ``array`` (a contiguous slice of one) now, in
    large requests, before it is read from end to end; False where nothing was done (ordinary
    memory, a slice under :data:`PREFETCH_MIN_BYTES`, a range already asked for by this
    process, or no ``madvise``). Each range is asked for once: on pages already cached the
    call still costs the kernel a walk over them (measured at 100k: +0.3 ms per S0/S1 query
    when repeated every query)."""
    if array.nbytes < PREFETCH_MIN_BYTES:
        return False
    key = (_address(array), array.nbytes)
    if key in _asked:
        return False
    if len(_asked) >= _ASKED_MAX:
        _asked.clear()
    done = _advise(array, _MADV_WILLNEED, key[0])
    if done:
        _asked.add(key)
    return done


def _address(array: np.ndarray) -> int:
    return int(array.__array_interface__["data"][0])


def _advise(array: np.ndarray, advice: int | None, start: int | None = None) -> bool:
    if advice is None or not array.nbytes or not _file_backed(array):
        return False
    if not array.flags.c_contiguous:
        return False
    libc = _libc()
    if libc is None:
        return False
    start = _address(array) if start is None else start
    first = start - start % _PAGE  # the mapping starts on a page, so the page is mapped
    return bool(libc.madvise(first, start + array.nbytes - first, advice) == 0)


def _file_backed(array: np.ndarray) -> bool:
    """Is ``array`` a view of a file mapping (``np.load(mmap_mode=...)``, ``np.memmap``)?"""
    base: object = array
    while isinstance(base, np.ndarray):
        if isinstance(base, np.memmap):
            return True
        base = base.base
    return isinstance(base, mmap.mmap)


@functools.cache
def _libc() -> Any:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    libc = ctypes.CDLL(name, use_errno=True)
    libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    libc.madvise.restype = ctypes.c_int
    return libc


def hard_link(src: Path, dst: Path) -> bool:
    """Hard-link snapshot file ``src`` to ``dst`` (a save reusing a file it does not change);
    False where the file system cannot, and then the caller writes the file."""
    try:
        os.link(src, dst)
    except OSError:
        return False
    return True
