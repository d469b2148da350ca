"""What this machine charges for memory touched for the first time: a baseline for kernel time.

An ingest's kernel time is mostly first touches: of anonymous memory the process grows into
(page faults) and of page-cache pages a growing database file is written into. Their cost is
a property of the machine, not of analogist: on the VM the ingest figures were measured on it
moved by ~10x between runs of the same code, because the hypervisor takes back guest memory
that is free (virtio-balloon free page reporting) and backs it again on its next touch. So
``bench/ingest.py`` measures these costs in the same run, just before the bulk path, and prints
them beside its own kernel time.

Run alone: ``python bench/first_touch.py`` (prints the three costs, three times).
``bench/ingest.py --pretouch MB`` touches and frees that much memory just before the adds (a
diagnostic, printed in the run's header): on that VM it cut the adds' kernel time from
21–57 to 10–34 µs per episode with the same page faults.
"""

from __future__ import annotations

import mmap
import os
import resource
import tempfile
from dataclasses import dataclass

import numpy as np

PAGE = 4096


@dataclass(frozen=True)
class FirstTouch:
    """CPU µs (user + kernel) per 4 KB touched for the first time."""

    anonymous_4k: float  # anonymous memory without huge pages (pymalloc arenas, small buffers)
    huge_2m: float  # numpy's large arrays (madvised for transparent huge pages where enabled)
    page_cache: float  # a new file's pages written (a database file that grows)

    def describe(self) -> str:
        return (
            f"first touch on this machine, CPU us per 4 KB: anonymous {self.anonymous_4k:.2f}, "
            f"numpy large array {self.huge_2m:.2f}, new page-cache page {self.page_cache:.2f}"
        )


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def anonymous(mb: int, held: list) -> float:
    """Touch each 4 KB page of a fresh anonymous mapping (mmap, no huge-page advice); the
    mapping goes to ``held``, so no later measurement is handed its (now backed) pages."""
    m = mmap.mmap(-1, mb << 20)
    view = np.frombuffer(m, dtype=np.uint8)
    c0 = _cpu()
    view[::PAGE] = 1
    spent = _cpu() - c0
    held.append(view)
    return spent / ((mb << 20) // PAGE) * 1e6


def huge(mb: int, held: list) -> float:
    """Touch each 4 KB of a fresh numpy array (numpy advises huge pages for large arrays),
    kept in ``held``."""
    c0 = _cpu()
    a = np.empty(mb << 20, np.uint8)
    a[::PAGE] = 1
    spent = _cpu() - c0
    held.append(a)
    return spent / ((mb << 20) // PAGE) * 1e6


def page_cache(mb: int, folder: str | None) -> float:
    """Write a new file of ``mb`` MB in 1 MB writes (no fsync: what a write costs before the
    kernel writes it back), then delete it."""
    chunk = b"\1" * (1 << 20)
    fd, path = tempfile.mkstemp(prefix="first-touch-", dir=folder)
    try:
        c0 = _cpu()
        for _ in range(mb):
            os.write(fd, chunk)
        spent = _cpu() - c0
    finally:
        os.close(fd)
        os.unlink(path)
    return spent / ((mb << 20) // PAGE) * 1e6


def measure(mb: int = 64, folder: str | None = None) -> FirstTouch:
    """The three costs, each over ``mb`` MB (folder: where the file goes; default TMPDIR).
    Each measurement's memory is held until all three are done: memory one had just freed
    would be handed to the next already backed."""
    held: list = []  # (freed on return)
    h = huge(mb, held)
    return FirstTouch(anonymous(mb, held), h, page_cache(mb, folder))


def pretouch(mb: int) -> None:
    """Touch ``mb`` MB of fresh anonymous memory and free it: a diagnostic (``bench/ingest.py
    --pretouch``). On a VM whose host takes free guest memory back, the freed pages are then
    backed for a while, so adds run right after show how much of their kernel time was the
    host backing memory again."""
    anonymous(mb, [])  # (the mapping is freed as the list goes)


if __name__ == "__main__":
    for _ in range(3):
        print(measure().describe())
