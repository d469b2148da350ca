"""ef_search against recall@10 and latency, per level, on a memory ``bench/retrieval.py`` kept.

``bench/retrieval.py`` measures each level at one ef_search (``ANALOGIST_HNSW_EF``, default
800). The ef a level needs for recall@10 >= 0.95 differs by level (L0's bag-of-pseudo-words
vectors are nearly orthogonal, L2/L3's short texts share phrases) and grows with the memory,
so this script opens a kept memory from its snapshot, computes the exact top 10 of each query
once per level, then for each ef_search times ``VectorIndex.search`` (HNSW candidates
re-scored exactly, thread CPU time) and counts the tie-aware recall of ``bench/retrieval.py``.

Usage: ``python bench/ef_sweep.py --db KEEP/1000000/bench.db --ef 200,400,800,1600,3200``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, as bench/retrieval.py's children
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from retrieval import generate, make_embedder, percentiles, progress  # noqa: E402

from analogist.memory import Memory  # noqa: E402
from analogist.retrieve.dense import VectorIndex  # noqa: E402
from analogist.signature import parse_signature  # noqa: E402


def ef_point(
    idx: VectorIndex, qs: np.ndarray, want: list[list[tuple[str, float]]], ef: int
) -> tuple[float, float, float]:
    """Recall@10 (ties counted) and CPU p50/p95 of ``idx`` searched with ef_search ``ef``
    against the exact answers ``want``."""
    assert idx.ann is not None
    idx.ann.index.expansion_search = ef  # type: ignore[attr-defined]
    idx.exact, cpu, recall = False, [], []
    for q, best in zip(qs, want):
        c0 = time.thread_time()
        got = idx.search(q, 10)
        cpu.append((time.thread_time() - c0) * 1000)
        kth = best[-1][1] if best else 0.0
        # search re-scores exactly, so a found row's score is its exact cosine
        recall.append(sum(s >= kth - 1e-5 for _, s in got) / max(1, len(best)))
    p50, p95 = percentiles(cpu)
    return float(np.mean(recall)), p50, p95


def sweep(db: str, efs: list[int], queries: int, seed: int, levels: list[str]) -> dict:
    """Per level: exact p50 and, per ef_search, recall@10 (ties counted) and CPU p50/p95."""
    emb = make_embedder("hashing")
    rng = random.Random(seed + 1)  # the query stage's queries
    memory = Memory(db, embedder=emb)
    targets = [
        parse_signature(generate(rng, f"q_{i}"), memory.store.vocabulary) for i in range(queries)
    ]
    out: dict = {"levels": {}}
    for level in levels:
        idx = memory.indexes.vectors(level)
        if not isinstance(idx, VectorIndex) or idx.ann is None:
            raise SystemExit(f"{level}: no local HNSW graph in this memory's snapshot")
        qs = emb.embed([sig.level(level) or sig.level("L0") for sig in targets])
        idx.exact, want, exact_cpu = True, [], []
        for q in qs:
            c0 = time.thread_time()
            want.append(idx.search(q, 10))
            exact_cpu.append((time.thread_time() - c0) * 1000)
        idx.exact = False
        row: dict = {"rows": len(idx), "exact_cpu_p50_ms": percentiles(exact_cpu)[0], "ef": {}}
        for ef in efs:
            recall, p50, p95 = ef_point(idx, qs, want, ef)
            row["ef"][ef] = {"recall_at_10": recall, "cpu_p50_ms": p50, "cpu_p95_ms": p95}
            progress(f"{level} ef {ef}: recall@10 {recall:.3f}, CPU p50 {p50:.2f} ms")
        out["levels"][level] = row
    memory.store.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--db", required=True, help="a database bench/retrieval.py --keep left")
    ap.add_argument("--ef", default="200,400,800,1600,3200")
    ap.add_argument("--levels", default="L0,L2,L3")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    efs = [int(e) for e in args.ef.split(",") if e]
    got = sweep(args.db, efs, args.queries, args.seed, args.levels.split(","))
    print(json.dumps(got, indent=1))


if __name__ == "__main__":
    main()
