"""A lists search past 1M rows, one pass against block by block (``BLOCK_ROWS``), paired.

Reads one level's per-dimension lists from a saved snapshot (``bench/retrieval.py --keep``),
tiles them ``--times`` times (row r of copy t becomes row ``t * n + r``: every list keeps its
real length distribution, ``--times`` as long), and searches the same queries — rows of the
snapshot rebuilt from its lists — with the accumulator filled in one pass over each list
(``BLOCK_ROWS`` above the row count) and block by block at several block sizes, alternating
rounds in one process. Prints CPU p50/p95 per setting, its ratio to the one-pass baseline of
the same round, and whether every answer equals the baseline's (it must: each row gets its
dimensions' products in the same order). Arrays are in RAM, so page faults are not measured.

With ``--segments 4,8`` the same lists are also split into that many segments of equal row
ranges (what incremental saves leave, ``MAX_SEGMENTS``) and searched at the default
``BLOCK_ROWS``, to show what each segment costs a search (the answers must not change either).

Usage: ``python bench/lists_blocks.py SNAPSHOT_DIR [--level L2] [--times 10] [--queries 40]
[--rounds 2] [--segments 4,8]``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import analogist.retrieve.vector_lists as vl
from analogist.retrieve.vector_lists import Segment, VectorLists

BLOCKS = (1 << 18, 1 << 19, 1 << 20, 1 << 21)
DEFAULT_BLOCK = vl.BLOCK_ROWS


#: A snapshot level's lists as read: (offsets, docs, vals, row count).
Source = tuple[np.ndarray, np.ndarray, np.ndarray, int]


def tiled(folder: Path, level: str, times: int) -> tuple[VectorLists, Source]:
    """The level's lists ``times`` as long, and the lists as read."""
    (prefix,) = {p.name.split("lists_")[0] for p in folder.glob(f"vec_{level}_*lists_docs.npy")}
    off, docs, vals = (
        np.load(folder / f"{prefix}lists_{name}.npy") for name in ("offsets", "docs", "vals")
    )
    n, dim = int(docs.max()) + 1, len(off) - 1
    new_off = np.zeros(dim + 1, np.int64)
    np.cumsum(np.diff(off) * times, out=new_off[1:])
    new_docs = np.empty(int(new_off[-1]), np.int64)
    new_vals = np.empty(int(new_off[-1]), np.float32)
    for d in range(dim):
        a, b, c = int(off[d]), int(off[d + 1]), int(new_off[d])
        for t in range(times):
            new_docs[c + t * (b - a) : c + (t + 1) * (b - a)] = docs[a:b] + t * n
            new_vals[c + t * (b - a) : c + (t + 1) * (b - a)] = vals[a:b]
    lists = VectorLists(n * times, [Segment(0, n * times, new_off, new_docs, new_vals)])
    lists.segments[0].prefetched[:] = True  # in RAM: nothing to fault in
    return lists, (off, docs, vals, n)


def split(lists: VectorLists, parts: int) -> VectorLists:
    """The same one-segment lists as ``parts`` segments of equal row ranges."""
    (whole,) = lists.segments
    bounds = np.linspace(0, lists.n, parts + 1).astype(np.int64)
    segments = []
    for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist(), strict=True):
        offsets, docs, vals = [0], [], []
        for d in range(lists.dim):
            a, b = int(whole.offsets[d]), int(whole.offsets[d + 1])
            i, j = (np.searchsorted(whole.docs[a:b], [lo, hi]) + a).tolist()
            docs.append(whole.docs[i:j])
            vals.append(whole.vals[i:j])
            offsets.append(offsets[-1] + j - i)
        seg = Segment(
            lo, hi, np.array(offsets, np.int64), np.concatenate(docs), np.concatenate(vals)
        )
        seg.prefetched[:] = True
        segments.append(seg)
    return VectorLists(lists.n, segments)


def queries(source: Source, count: int, seed: int) -> np.ndarray:
    """``count`` random rows of the snapshot, rebuilt from its lists."""
    off, docs, vals, n = source
    rows = np.random.default_rng(seed).choice(n, count, replace=False)
    out = np.zeros((count, len(off) - 1), np.float32)
    for d in range(len(off) - 1):
        a, b = int(off[d]), int(off[d + 1])
        if b == a:
            continue
        pos = np.minimum(np.searchsorted(docs[a:b], rows), b - a - 1)
        hit = docs[a:b][pos] == rows
        out[hit, d] = vals[a:b][pos[hit]]
    return out


def timed(lists: VectorLists, qs: np.ndarray, block: int) -> tuple[list[float], list]:
    vl.BLOCK_ROWS = block
    times, answers = [], []
    for q in qs:
        t = time.process_time()
        answers.append(lists.candidates(q, 10))
        times.append(time.process_time() - t)
    return times, answers


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("snapshot", type=Path)
    ap.add_argument("--level", default="L2")
    ap.add_argument("--times", type=int, default=10)
    ap.add_argument("--queries", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--segments", default="", help="also split the lists into these many segments")
    args = ap.parse_args()
    lists, source = tiled(args.snapshot, args.level, args.times)
    split_into = {int(p): split(lists, int(p)) for p in args.segments.split(",") if p}
    qs = queries(source, args.queries, args.seed)
    print(
        f"{args.level} lists x{args.times}: {lists.n:,} rows, {len(lists.segments[0].docs):,} postings, "
        f"{args.queries} queries (mean {np.count_nonzero(qs, axis=1).mean():.1f} dimensions)"
    )
    one_pass = lists.n + 1
    for r in range(args.rounds):
        base, want = timed(lists, qs, one_pass)
        print(
            f"round {r + 1}  one pass        p50 {np.median(base) * 1e3:7.2f} ms  "
            f"p95 {np.percentile(base, 95) * 1e3:7.2f} ms"
        )
        for block in BLOCKS:
            got, answers = timed(lists, qs, block)
            row(f"round {r + 1}  block {block:>9,}", got, base, "one pass", answers, want)
        default, want = timed(lists, qs, DEFAULT_BLOCK)
        for parts, segmented in split_into.items():
            got, answers = timed(segmented, qs, DEFAULT_BLOCK)
            vs = f"one segment (p50 {np.median(default) * 1e3:.2f} ms)"
            row(f"round {r + 1}  {parts} segments    ", got, default, vs, answers, want)


def row(
    label: str, got: list[float], base: list[float], vs: str, answers: list, want: list
) -> None:
    """One setting's p50/p95, its ratio to ``base`` and whether its answers are ``want``."""
    same = all(np.array_equal(a, b) for a, b in zip(answers, want, strict=True))
    print(
        f"{label} p50 {np.median(got) * 1e3:7.2f} ms  p95 {np.percentile(got, 95) * 1e3:7.2f} ms  "
        f"x{np.median(base) / np.median(got):.2f} vs {vs}  same answers: {same}"
    )


if __name__ == "__main__":
    main()
