"""A graph opened from a snapshot is mapped for random access (retrieve/random_access.py):
the kernel's read-ahead around each page fault is off for it (``rr`` in its VmFlags)."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from analogist.retrieve import ann
from analogist.retrieve.ann import Hnsw
from analogist.retrieve.random_access import advise_file

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux") or ann.available() is not None,
    reason="needs Linux /proc and usearch",
)


def vm_flags(path: str) -> list[list[str]]:
    """The VmFlags of every mapping of ``path`` in this process."""
    out, current = [], None
    with open("/proc/self/smaps") as smaps:
        for line in smaps:
            head = line.split()
            if head and "-" in head[0] and len(head) >= 5 and ":" in head[3]:
                current = os.path.realpath(head[5]) if len(head) > 5 else None
            elif head and head[0] == "VmFlags:" and current == os.path.realpath(path):
                out.append(head[1:])
    return out


def test_an_opened_graph_is_advised_random_and_still_answers(tmp_path):
    rng = np.random.default_rng(0)
    rows = rng.standard_normal((3000, 32)).astype(np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    path = tmp_path / "g.usearch"
    Hnsw.build(rows).save(path)
    graph = Hnsw.open(path, "L2")
    flags = vm_flags(str(path))
    assert flags and all("rr" in f for f in flags)
    assert list(graph.candidates(rows[7], 1)) == [7]


def test_a_file_not_mapped_is_left_alone(tmp_path):
    path = tmp_path / "nothing"
    path.write_bytes(b"x")
    assert advise_file(path) == 0
