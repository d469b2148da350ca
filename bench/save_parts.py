"""The two O(size) parts of an incremental snapshot save, timed on a saved snapshot.

Reads a snapshot folder (``bench/retrieval.py --keep``) and times, with a seeded tail of
``--added`` new documents:

* **lists**: each vector level's per-dimension lists opened from the snapshot, extended by the
  tail's rows (the bench generator's texts, hashing embedder) and written to a scratch folder
  beside it (same file system, so unchanged segments are hard-linked as a real save does) —
  and, as the baseline, merged into one segment and written whole, as every incremental save
  did before 2026-12-04;
* **freeze**: the S0 (``fp_``) and S1 (``mac_``) posting lists opened from the snapshot with
  ``--added`` documents of 38 random features each folded in, then frozen into the arrays a
  save writes (not written) — and, alternating with it in the same process on the same
  postings, by the merge used before 2026-12-04 (a key per entry, merged and copied: the
  baseline; the arrays must be the same).

Each part runs in a fresh process (its peak RSS is its own and the baseline's together).
Prints CPU seconds against the baseline's,
the entries involved and the peak RSS. The snapshot is only read.

Usage: ``python bench/save_parts.py SNAPSHOT_DIR [--added 10000] [--seed 0]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from retrieval import generate  # noqa: E402

from analogist.models.embedding import HashingEmbedder  # noqa: E402
from analogist.retrieve.frozen import (  # noqa: E402
    FrozenPostings,
    LayeredPostings,
    merge_sorted,
    postings_triples,
    run_starts,
)
from analogist.retrieve.persist import _load_postings, vector_prefix  # noqa: E402
from analogist.retrieve.vector_lists import VectorLists  # noqa: E402


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def lists_part(folder: Path, level: str, added: int, seed: int) -> dict:
    manifest = json.loads((folder / "manifest.json").read_text())["indexes"]
    (key,) = [k for k in manifest if k.startswith(f"vec:{level}:")]
    n = manifest[key]["n"]
    prefix = vector_prefix(level, key.split(":", 2)[2])
    rng = random.Random(seed)
    tail = HashingEmbedder().embed([generate(rng, f"x{i}")["levels"][level] for i in range(added)])
    out, whole = (Path(tempfile.mkdtemp(dir=folder.parent.parent)) for _ in range(2))
    try:
        c = time.process_time()
        lists = VectorLists.open(folder, prefix, n).extended([tail], added)
        lists.save(out, prefix)
        cpu = time.process_time() - c
        written = sum(p.stat().st_size for p in out.iterdir() if p.stat().st_nlink == 1)
        c = time.process_time()  # the whole old path: open, lists of the tail, copy, write
        opened = VectorLists.open(folder, prefix, n).extended([tail], added)
        VectorLists(n + added, [opened.merged()]).save(whole, prefix)
        baseline = time.process_time() - c
    finally:
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(whole, ignore_errors=True)
    return {
        "part": f"lists {level}",
        "cpu_s": cpu,
        "baseline_cpu_s": baseline,
        "detail": f"{n:,} + {added:,} rows, {len(lists.segments)} segment(s), "
        f"{written / 2**20:,.1f} MB written (the rest linked)",
        "peak_rss_mb": peak_mb(),
    }


def baseline_arrays(p: LayeredPostings) -> tuple:
    """keys, offsets, docs, weights as the merge before 2026-12-04 made them: a uint64 key per
    base entry (``np.repeat``), the sorted tail merged in by ``np.insert`` on all three arrays,
    the distinct keys from a pass over every entry, and docs and weights copied by ``astype``."""
    base = p.base
    k1 = np.repeat(np.asarray(base.keys), np.diff(np.asarray(base.offsets)).astype(np.int64))
    k2, d2, w2 = postings_triples(p.tail, base.n_docs)
    order = np.lexsort((d2, k2))
    keys, docs, weights = merge_sorted(
        k1, (np.asarray(base.docs), np.asarray(base.weights)), k2[order], (d2[order], w2[order])
    )
    uniq, offsets = run_starts(keys)
    return uniq, offsets, docs.astype(np.int32), weights.astype(np.float32)


def freeze_part(folder: Path, prefix: str, added: int, seed: int) -> dict:
    postings = _load_postings(folder, prefix)
    rng = random.Random(seed)
    for _ in range(added):
        postings.add({f"g{rng.randint(0, 5000)}": rng.choice([1, 2, 3]) for _ in range(38)})
    times: dict[str, list[float]] = {"freeze": [], "baseline": []}  # best of 2, alternating
    frozen: FrozenPostings | None = None
    got: tuple = ()
    want: tuple = ()
    for _ in range(2):
        for name in ("baseline", "freeze"):
            c = time.process_time()
            if name == "freeze":
                frozen = postings.freeze()
                got = (frozen.keys, frozen.offsets, frozen.docs, frozen.weights)
            else:
                want = baseline_arrays(postings)
            times[name].append(time.process_time() - c)
    assert frozen is not None
    same = all(a.dtype == b.dtype and np.array_equal(a, b) for a, b in zip(got, want, strict=True))
    return {
        "part": f"freeze {prefix}",
        "cpu_s": min(times["freeze"]),
        "baseline_cpu_s": min(times["baseline"]),
        "detail": f"{len(frozen.docs):,} entries, {len(frozen.keys):,} distinct keys; "
        f"same arrays as the baseline: {same}",
        "peak_rss_mb": peak_mb(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("snapshot", type=Path)
    ap.add_argument("--added", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--part", help=argparse.SUPPRESS)
    args = ap.parse_args()
    folder = args.snapshot.resolve()
    if not (folder / "manifest.json").exists():
        raise SystemExit(f"{folder}: no manifest.json; pass a snapshot folder (<db>.idx/current)")
    if args.part:
        kind, name = args.part.split(":")
        got = (lists_part if kind == "lists" else freeze_part)(folder, name, args.added, args.seed)
        print(json.dumps(got))
        return
    parts = [f"lists:{lv}" for lv in ("L0", "L2", "L3")] + ["freeze:fp_", "freeze:mac_"]
    print(f"{folder}: +{args.added:,} documents, one process per part")
    for part in parts:
        cmd = [sys.executable, __file__, str(folder), "--added", str(args.added), "--part", part]
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode:
            raise SystemExit(f"{part} failed: {proc.stderr.strip().splitlines()[-1]}")
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        timing = (
            f"{r['cpu_s']:6.2f} CPU-s (baseline {r['baseline_cpu_s']:.2f}: "
            f"x{r['baseline_cpu_s'] / max(r['cpu_s'], 1e-9):.1f})"
        )
        print(f"  {r['part']:<12} {timing}  peak RSS {r['peak_rss_mb']:6,.0f} MB  {r['detail']}")


if __name__ == "__main__":
    main()
