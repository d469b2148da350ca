"""Snapshot files opened for scattered reads are mapped for random access
(retrieve/random_access.py): the kernel's read-ahead around each page fault is off for them
(``rr`` in their VmFlags); parts read whole are prefetched instead, and answers do not change."""

from __future__ import annotations

import os
import sys

import numpy as np
import pytest

from analogist.memory import Memory
from analogist.models.embedding import HashingEmbedder
from analogist.retrieve import ann
from analogist.retrieve.ann import Hnsw
from analogist.retrieve.random_access import (
    PREFETCH_MIN_BYTES,
    advise_file,
    advise_random,
    prefetch,
)
from tests.scale.episodes import lines

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


def test_a_reopened_snapshot_maps_scattered_arrays_random_and_answers_the_same(tmp_path):
    db = tmp_path / "m.db"
    m = Memory(db, embedder=HashingEmbedder())
    m.add(lines(1, 0, 60))
    folder = m.indexes.save()
    assert folder is not None
    before = {ch: m.search("ep_5", channels=[ch], k=5).hits for ch in ("S0", "S1", "S2.L2")}
    m.store.close()
    m = Memory(db, embedder=HashingEmbedder())
    after = {ch: m.search("ep_5", channels=[ch], k=5).hits for ch in ("S0", "S1", "S2.L2")}
    assert after == before and any(after.values())
    opened = [p for p in folder.iterdir() if p.name.startswith(("fp_", "mac_", "vec_L2_"))]
    scattered = [p for p in opened if p.name.endswith(("rows.f32", "ids.npy", "_keys.npy"))]
    whole = [p for p in opened if p.name.endswith(("_sums.npy", "_norms.npy"))]
    assert scattered and whole
    for path in scattered:
        flags = vm_flags(str(path))
        assert flags and all("rr" in f for f in flags), path.name
    for path in whole:
        assert all("rr" not in f for f in vm_flags(str(path))), path.name  # read-ahead kept
    m.store.close()


def test_prefetch_and_advice_only_touch_file_mappings(tmp_path):
    n = PREFETCH_MIN_BYTES // 4 * 3
    np.save(tmp_path / "a.npy", np.arange(n, dtype=np.int32))
    mapped = np.load(tmp_path / "a.npy", mmap_mode="r")
    assert advise_random(mapped) and prefetch(mapped) and prefetch(mapped[7 : n - 3])
    assert not prefetch(mapped[:10])  # too short to be worth a system call
    assert not prefetch(mapped)  # asked for once already
    in_memory = np.arange(n, dtype=np.int32)
    assert not advise_random(in_memory) and not prefetch(in_memory)
    assert not advise_random(mapped[:0])
    assert int(mapped[n - 1]) == n - 1  # contents unchanged
