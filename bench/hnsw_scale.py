"""HNSW at scale, without the database: build time, search latency and recall@10 of one level's
graph over the same seeded episodes ``bench/retrieval.py`` ingests.

``bench/retrieval.py`` measures everything end to end, but on a shared 2-core machine its
snapshot write (three HNSW graphs of n rows, one thread each) is what does not fit in an
afternoon at 1M. This script isolates one graph: it generates the same ``n`` episodes (same
generator and seed, so the same texts), embeds one level with the hashing embedder (``--embedder
minilm``: the dense rows a real embedder gives; ``--cache`` keeps them between runs), builds the
graph exactly as a snapshot save does (``Hnsw.build``), saves it and opens it memory-mapped as
a reopened memory does, then times ``VectorIndex.search`` (HNSW candidates re-scored exactly)
against exact search and the numpy floor (``rows @ q`` + ``argpartition``) on fresh queries,
with the tie-aware and strict recall@10 of ``bench/retrieval.py``.

Usage: ``nice -n 5 python bench/hnsw_scale.py --size 1000000 --level L0 --dir /big/tmp``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, as bench/retrieval.py's children
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ef_sweep import ef_point  # noqa: E402
from retrieval import LoadSampler, generate, percentiles, rss_split_mb  # noqa: E402

from analogist.models.embedders import get_embedder  # noqa: E402
from analogist.models.embedding import Embedder  # noqa: E402
from analogist.retrieve.ann import GRAPH_DTYPE, Hnsw, build_threads, expansion_search  # noqa: E402
from analogist.retrieve.dense import VectorIndex  # noqa: E402
from analogist.retrieve.frozen import IdTable  # noqa: E402


def level_texts(n: int, level: str, seed: int, prefix: str) -> list[str]:
    rng = random.Random(seed)
    return [generate(rng, f"{prefix}_{i}")["levels"][level] for i in range(n)]


def embedded(emb: Embedder, n: int, level: str, seed: int, cache: str | None) -> np.ndarray:
    """The ``n`` rows of ``level`` (read from ``cache`` when it holds them for these settings,
    written there otherwise: MiniLM encodes ~100 texts per CPU-second here)."""
    key = f"{emb.name}-{level}-{seed}-{n}"
    if cache and Path(cache).exists():
        with np.load(cache) as f:
            if str(f["key"]) == key:
                return np.asarray(f["rows"])
    texts = level_texts(n, level, seed, "ep")
    rows = np.concatenate([emb.embed(texts[a : a + 20000]) for a in range(0, n, 20000)])
    if cache:
        np.savez(cache, key=np.array(key), rows=rows)
    return rows


def run(
    n: int,
    level: str,
    queries: int,
    seed: int,
    folder: str,
    efs: list[int],
    embedder: str = "hashing",
    cache: str | None = None,
) -> dict:
    emb = get_embedder(embedder)
    out = dict[str, object](size=n, level=level, dtype=GRAPH_DTYPE, embedder=emb.name)
    t0 = time.perf_counter()
    rows = embedded(emb, n, level, seed, cache)
    out["generate_embed_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    graph = Hnsw.build(rows)
    build_s = time.perf_counter() - t0
    out["build_s"], out["build_rows_per_s"] = build_s, n / build_s
    out["build_threads"] = build_threads()
    path = Path(folder) / f"{level}.usearch"
    graph.save(path)
    del graph
    out["graph_mb"] = os.path.getsize(path) / 2**20
    idx = VectorIndex(
        rows.shape[1],
        base=rows,
        ids=IdTable.build([f"ep_{i}" for i in range(n)]),
        ann=Hnsw.open(path, level),
    )
    out["ef_search"] = expansion_search(level)
    qs = emb.embed(level_texts(queries, level, seed + 1, "q"))
    approx, times = [], []
    for q in qs:
        t1 = time.perf_counter()
        approx.append(idx.search(q, 10))
        times.append((time.perf_counter() - t1) * 1000)
    out["hnsw_ms"] = percentiles(times)
    out["rss_anon_mb"], out["rss_file_mb"] = rss_split_mb()
    idx.exact, times, recall, strict, want_all = True, [], [], [], []
    for q, got in zip(qs, approx):
        t1 = time.perf_counter()
        want = idx.search(q, 10)
        want_all.append(want)
        times.append((time.perf_counter() - t1) * 1000)
        kth = want[-1][1] if want else 0.0
        recall.append(sum(s >= kth - 1e-5 for _, s in got) / max(1, len(want)))
        strict.append(len({e for e, _ in want} & {e for e, _ in got}) / max(1, len(want)))
    out["exact_ms"] = percentiles(times)
    out["recall_at_10"], out["strict_recall_at_10"] = float(np.mean(recall)), float(np.mean(strict))
    times = []
    for q in qs:
        t1 = time.perf_counter()
        scores = rows @ q
        np.argpartition(-scores, 9)[:10]
        times.append((time.perf_counter() - t1) * 1000)
    out["floor_ms"] = percentiles(times)[0]
    sweep: list[tuple[int, float, float]] = []
    out["ef_sweep"] = sweep
    for ef in efs:  # the same graph searched wider: recall against latency
        got_recall, p50, _ = ef_point(idx, qs, want_all, ef)
        sweep.append((ef, got_recall, p50))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=100000)
    ap.add_argument("--level", choices=("L0", "L2", "L3"), default="L0")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dir", help="where the graph file goes (default: a temporary folder)")
    ap.add_argument("--ef", default="", help="also search with these ef_search values (CPU p50)")
    ap.add_argument("--embedder", default="hashing", help="hashing (default) or minilm")
    ap.add_argument("--cache", help="an .npz file keeping the embedded rows between runs")
    args = ap.parse_args()
    folder = args.dir or tempfile.mkdtemp(prefix="analogist-hnsw-")
    with LoadSampler() as load:
        efs = [int(e) for e in args.ef.split(",") if e]
        r = run(
            args.size, args.level, args.queries, args.seed, folder, efs, args.embedder, args.cache
        )
    r["load_mean_max"] = load.summary()
    print(json.dumps(r))
    floor = r["floor_ms"]
    print(
        f"{r['size']:,} {r['level']} vectors ({r['embedder']}), graph {r['dtype']} ({r['graph_mb']:,.0f} MB): build "
        f"{r['build_s']:.0f} s = {r['build_rows_per_s']:,.0f} rows/s on {r['build_threads']} "
        f"thread(s); ef_search {r['ef_search']}; HNSW p50 {r['hnsw_ms'][0]:.2f} ms "
        f"({r['hnsw_ms'][0] / floor:.2f} x floor), exact p50 {r['exact_ms'][0]:.2f} ms "
        f"({r['exact_ms'][0] / floor:.2f} x floor), floor {floor:.2f} ms; recall@10 "
        f"{r['recall_at_10']:.3f} (strict {r['strict_recall_at_10']:.3f}); RSS after HNSW "
        f"queries anon {r['rss_anon_mb']:,.0f} MB + mapped {r['rss_file_mb']:,.0f} MB; load "
        f"average {r['load_mean_max'][0]:.1f} mean / {r['load_mean_max'][1]:.1f} max on "
        f"{os.cpu_count()} cores"
    )
    for ef, recall, cpu in r["ef_sweep"]:
        print(f"  ef_search {ef}: recall@10 {recall:.3f}, CPU p50 {cpu:.2f} ms")


if __name__ == "__main__":
    main()
