"""Retrieval at scale: ingest rate, open-to-first-answer, per-channel latency, recall, RSS, disk.

Each size runs in two child processes, so each stage's RSS is its own. The *ingest* child
generates seeded random but structured signatures — one of twelve motif templates (proxy,
starvation, retry storm, race, masking, ...) with its roles renamed, its relations shuffled,
0-3 random extra relations and sometimes an extra causal link, plus pseudo-word L0/L2/L3 text
— as JSON lines, and times :meth:`analogist.memory.Memory.add` on them in batches of 5,000
(pre-encoded signatures: parsing, WL fingerprint, L0/L2/L3 embeddings, one SQLite transaction
per chunk with FTS and index rows, in-memory index updates; generation is not timed), then
writes the persisted snapshot (``Indexes.save``: arrays + per-dimension lists for sparse
vector rows, HNSW graphs for dense ones) and times that.
The *query* child opens the memory cold and times open + the first answer (S0, S1, S2, M),
then each channel's ``search`` (k=10) on fresh targets from the same generator (p50/p95), the
recall@10 of the vector search in use (lists or HNSW) against an exact scan per level with exact search's own latency, and a numpy
brute-force floor measured in the same process: ``rows @ q`` + ``argpartition`` over the L2
vectors held in RAM. Every latency is also printed as a ratio to that floor.

Targets (issue 16, one core, 1M): open + first answer <= 2 s, S1 <= 10 ms, S0 near <= 5 ms,
S2/M.emb <= 10 ms with recall@10 >= 0.95, RSS <= 1.5 GB, ingest >= 5,000/s.

Usage: ``nice -n 15 python bench/retrieval.py [--sizes 10000,100000,1000000,10000000]
[--quick] [--embedder hashing|random] [--queries N] [--keep DIR] [--json]
[--db postgresql://USER@HOST:PORT/DB]``. With ``--db`` each size runs on that PostgreSQL server
in a fresh database ``DB_bench_SIZE`` (dropped afterwards unless ``--keep``); "db" is then
``pg_database_size`` and the snapshot lives under the run's temporary folder.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from first_touch import FirstTouch
from first_touch import measure as first_touch

from analogist.memory import Memory
from analogist.models.embedding import HashingEmbedder, normalise_rows
from analogist.retrieve import (
    BM25Channel,
    EmbeddingChannel,
    FingerprintChannel,
    MacChannel,
    Target,
)
from analogist.retrieve.ann import GRAPH_DTYPE, build_threads
from analogist.retrieve.dense import VectorIndex
from analogist.retrieve.persist import snapshot_root
from analogist.signature import parse_signature
from analogist.store.postgres import (
    database_bytes,
    drop_database,
    fresh_database,
    is_postgres_url,
)

# name: (relations, causal chain, L2, L3); roles are A, B, C, D
TEMPLATES = {
    "proxy": (
        [
            ("derives_from", "B", "A"),
            ("trusts_as_authoritative", "C", "B"),
            ("skips_check", "C", "A"),
            ("diverges_from", "B", "A"),
        ],
        [("diverges_from(B,A)", "causes", "false_claim(C)")],
        "derived copy treated as authoritative",
        "proxy mistaken for referent",
    ),
    "starvation": (
        [("holds", "A", "C"), ("waits_for", "B", "C"), ("starves", "A", "B")],
        [("starves(A,B)", "causes", "delayed(B)")],
        "holder monopolises a shared pool",
        "hog starves the queue",
    ),
    "retry_storm": (
        [("retries", "A", "B"), ("depends_on", "A", "B")],
        [("retries(A,B)", "amplifies", "overloaded(B)"), ("overloaded(B)", "causes", "fails(B)")],
        "retries amplify load on a failing dependency",
        "positive feedback on failure",
    ),
    "race": (
        [("races_with", "A", "B"), ("shares_resource", "A", "B"), ("depends_on", "A", "C")],
        [("races_with(A,B)", "causes", "corrupted(C)")],
        "unordered writers corrupt shared state",
        "unordered concurrency",
    ),
    "masking": (
        [("observes", "A", "B"), ("filters", "C", "A")],
        [("filters(C,A)", "masks", "missed_event(A)")],
        "a filter hides the signal from the observer",
        "noise suppression hides signal",
    ),
    "absence": (
        [
            ("observes", "A", "B"),
            ("reports_absence", "A", "B"),
            ("trusts_as_authoritative", "C", "A"),
        ],
        [("fails(A)", "causes", "false_claim(C)")],
        "absence of evidence read as evidence of absence",
        "observer failure read as world state",
    ),
    "goodhart": (
        [("optimizes_for", "A", "B"), ("proxies_for", "B", "C")],
        [("optimizes_for(A,B)", "causes", "biased(B)")],
        "optimising a measure detaches it from its goal",
        "a target ceases to be a measure",
    ),
    "gate_deadlock": (
        [("gates", "A", "B"), ("waits_for", "B", "A"), ("holds", "A", "C")],
        [("waits_for(B,A)", "causes", "deadlocked(B)")],
        "gatekeeper waits on what it gates",
        "circular wait",
    ),
    "alert_fatigue": (
        [("alerts", "A", "B"), ("ignores", "B", "A")],
        [
            ("alerts(A,B)", "causes", "desensitized(B)"),
            ("desensitized(B)", "causes", "missed_event(B)"),
        ],
        "too many alarms train responders to ignore them",
        "cry wolf",
    ),
    "backlog": (
        [("sends_to", "A", "B"), ("limits", "C", "B")],
        [("sends_to(A,B)", "causes", "backlogged(B)"), ("backlogged(B)", "causes", "delayed(A)")],
        "inflow exceeds a capped stage",
        "bottleneck queue growth",
    ),
    "priority_inversion": (
        [("has_priority_over", "A", "B"), ("holds", "B", "C"), ("waits_for", "A", "C")],
        [("holds(B,C)", "blocks", "starved(A)")],
        "low priority holder blocks high priority waiter",
        "priority inversion",
    ),
    "stale_cache": (
        [("derives_from", "B", "A"), ("consumes", "C", "B")],
        [("stale(B)", "causes", "wrong_decision(C)")],
        "consumer acts on a stale derived copy",
        "acting on an outdated map",
    ),
}
EXTRA = [
    "depends_on",
    "sends_to",
    "observes",
    "assumes",
    "limits",
    "holds",
    "waits_for",
    "gates",
    "filters",
    "consumes",
    "correlates_with",
    "reconciles_with",
    "alerts",
]
STATES = ["degraded", "unavailable", "overloaded", "delayed", "silent", "inconsistent", "grows"]
WORDS = [f"w{i}" for i in range(5000)]


@dataclass(frozen=True)
class RandomEmbedder:
    """Random unit vectors (timing only): no text cost, same shape as a real embedder."""

    dim: int = 384
    seed: int = 0
    name: str = "random-384"

    def embed(self, texts: list[str]) -> np.ndarray:
        rng = np.random.default_rng(self.seed + len(texts))
        return normalise_rows(rng.standard_normal((len(texts), self.dim), dtype=np.float32))


def generate(rng: random.Random, eid: str) -> dict:
    """One structured random signature (bare spec §4.1 JSON) from a motif template."""
    name = rng.choice(list(TEMPLATES))
    rels, chain, l2, l3 = TEMPLATES[name]
    rename = dict(zip("ABCD", rng.sample([f"R{i}" for i in range(20)], 4)))

    def sub(text: str) -> str:
        return re.sub(r"\b[ABCD]\b", lambda m: rename[m.group(0)], text)

    relations = [[p, rename[a], rename[b]] for p, a, b in rels]
    for _ in range(rng.randint(0, 3)):
        a, b = rng.sample("ABCD", 2)
        relations.append([rng.choice(EXTRA), rename[a], rename[b]])
    links = [[sub(c), link, sub(e)] for c, link, e in chain]
    if rng.random() < 0.3:
        r = rng.choice(relations)
        links.append([f"{r[0]}({r[1]},{r[2]})", "causes", f"{rng.choice(STATES)}({r[2]})"])
    rng.shuffle(relations)
    used = sorted(set(re.findall(r"R\d+", json.dumps([relations, links]))))

    def words(n: int) -> str:
        return " ".join(rng.choices(WORDS, k=n))

    return {
        "episode_id": eid,
        "kind": "failure",
        "roles": {r: f"role {r}" for r in used},
        "relations": relations,
        "causal_chain": links,
        "levels": {
            "L0": f"{name.replace('_', ' ')} {words(12)}",
            "L2": f"{l2} {words(3)}",
            "L3": f"{l3} {words(1)}",
        },
    }


def percentiles(ms: list[float]) -> tuple[float, float]:
    return float(np.percentile(ms, 50)), float(np.percentile(ms, 95))


def rss_mb() -> tuple[float, float]:
    with open("/proc/self/statm") as f:
        now = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    return now, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def rss_split_mb() -> tuple[float, float]:
    """(anonymous, file-backed) resident memory: mapped index pages count as file-backed."""
    got = {}
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("RssAnon:", "RssFile:")):
                key, value = line.split(":", 1)
                got[key] = int(value.split()[0]) / 1024
    return got.get("RssAnon", 0.0), got.get("RssFile", 0.0)


#: The most L2 rows the numpy floor holds dense in RAM (1.5 GB); past it the floor is
#: measured on this many rows and scaled by the row count.
FLOOR_ROWS = 1_000_000


def make_embedder(name: str):
    return HashingEmbedder() if name == "hashing" else RandomEmbedder()


def dir_mb(path: str) -> float:
    total = 0
    for root, _, files in os.walk(path):
        total += sum(
            os.path.getsize(os.path.join(root, f))
            for f in files
            if not os.path.islink(os.path.join(root, f))
        )
    return total / 2**20


def progress(msg: str) -> None:
    """A timestamped line on stderr, flushed: a long run that is stopped still shows what it
    measured (the parent passes the children's stderr through)."""
    stamp = time.strftime("%H:%M:%S")
    print(f"[{stamp} load {os.getloadavg()[0]:.1f}] {msg}", file=sys.stderr, flush=True)


def ingest(
    db: str,
    n: int,
    embedder_name: str,
    seed: int,
    batch: int = 5000,
    per_item: int = 500,
    growth: tuple[float, ...] = (),
    full_rebuild: bool = False,
    save_every: int = 1_000_000,
    resume: bool = False,
) -> dict:
    """Child 1: ingest ``n`` pre-encoded signatures — the first ``per_item`` one call each (the
    per-item path an agent takes), the rest in batches — then write the snapshot. Every
    ``save_every`` episodes before the end an incremental snapshot is saved, which releases
    the in-memory tail (the indexes of 1M episodes take ~2.4 GB of RAM while unsaved, 6.5 GB
    before the vector tails were kept sparse, so a 10M ingest would not fit otherwise);
    those saves are timed apart from the ingest. With
    ``growth`` (e.g. 0.01, 0.1): add that share of ``n`` more and time the incremental save
    after each; with ``full_rebuild`` then time a full rebuild (``save(full=True)``) of the final
    memory (else compare with the first save, itself a full build). With ``resume`` the memory
    at ``db`` (kept by an earlier run with the same seed that was stopped) is continued from
    the episodes it holds: the generator is run past them unrecorded, so the episodes added
    are those the whole run would have added, and there is no per-item path."""
    memory = Memory(db, embedder=make_embedder(embedder_name))
    idx = memory.indexes
    idx.fingerprints(), idx.mac(), [idx.vectors(lv) for lv in ("L0", "L2", "L3")]
    rng, spent, cpu, interim = random.Random(seed), 0.0, 0.0, []
    held = memory.store.count() if resume else 0
    if held >= n:
        raise SystemExit(f"--resume: the kept memory already holds {held:,} episodes (>= {n:,})")
    for i in range(held):
        generate(rng, f"ep_{i}")
    if held:
        progress(f"resuming at {held:,} episodes (generator advanced past them)")
    per_item = 0 if held else min(per_item, n // 10)
    lines = [json.dumps(generate(rng, f"ep_{i}")) for i in range(per_item)]
    t0 = time.perf_counter()
    for line in lines:
        assert not memory.add([line]).rejected
    per_item_s = time.perf_counter() - t0
    first = max(per_item, held)
    # the machine's state; a new file's first touch measured beside a SQLite file, else in TMPDIR
    touch = first_touch(
        folder=None if is_postgres_url(db) else os.path.dirname(os.path.abspath(db))
    )
    user = kernel = 0.0
    for start in range(first, n, batch):
        lines = [json.dumps(generate(rng, f"ep_{i}")) for i in range(start, min(n, start + batch))]
        r0 = resource.getrusage(resource.RUSAGE_SELF)
        t0, c0 = time.perf_counter(), time.process_time()
        report = memory.add(lines)
        spent += time.perf_counter() - t0
        cpu += time.process_time() - c0
        r1 = resource.getrusage(resource.RUSAGE_SELF)
        user += r1.ru_utime - r0.ru_utime
        kernel += r1.ru_stime - r0.ru_stime
        assert not report.rejected, report.rejected[:2]
        done = min(n, start + batch)
        if done // 100_000 > start // 100_000 or done == n:
            added = done - first
            progress(
                f"ingest {done:,}/{n:,}: {added / spent:,.0f}/s wall, {added / cpu:,.0f}/CPU-s, "
                f"peak RSS {rss_mb()[1]:,.0f} MB"
            )
        if save_every and done < n and done // save_every > start // save_every:
            t0, c0 = time.perf_counter(), time.process_time()
            memory.indexes.save()
            interim.append(
                {
                    "at": done,
                    "save_s": time.perf_counter() - t0,
                    "save_cpu_s": time.process_time() - c0,
                    "rss_mb": rss_mb()[0],
                }
            )
            progress(
                f"interim save at {done:,}: {interim[-1]['save_s']:,.1f} s wall, "
                f"RSS after {interim[-1]['rss_mb']:,.0f} MB"
            )
    progress(f"first save of {n:,} started")
    t0, c0 = time.perf_counter(), time.process_time()
    memory.indexes.save()
    save_s, save_cpu_s = time.perf_counter() - t0, time.process_time() - c0
    progress(f"first save: {save_s:,.1f} s wall, {save_cpu_s:,.1f} s CPU")
    grown, saves = n, []
    for g in growth:
        extra = max(1, round(n * g))
        lines = [json.dumps(generate(rng, f"ep_{i}")) for i in range(grown, grown + extra)]
        t0 = time.perf_counter()
        for a in range(0, extra, batch):
            assert not memory.add(lines[a : a + batch]).rejected
        added_s = time.perf_counter() - t0
        t0, c0 = time.perf_counter(), time.process_time()
        folder = memory.indexes.save()
        entry = json.loads((folder / "manifest.json").read_text())["indexes"] if folder else {}
        saves.append(
            {
                "share": g,
                "added": extra,
                "add_s": added_s,
                "save_s": time.perf_counter() - t0,
                "save_cpu_s": time.process_time() - c0,
                "linked": all(e.get("rows_linked") for k, e in entry.items() if ":" in k),
                "extended": all(
                    e.get("hnsw_extended") or e.get("lists_extended")
                    for k, e in entry.items()
                    if ":" in k and (e.get("hnsw") or e.get("lists"))
                ),
            }
        )
        grown += extra
        progress(f"+{g:g} ({extra:,} added in {added_s:,.1f} s): save {saves[-1]['save_s']:,.1f} s")
    full_s = full_cpu_s = None
    if full_rebuild:
        t0, c0 = time.perf_counter(), time.process_time()
        memory.indexes.save(full=True)
        full_s, full_cpu_s = time.perf_counter() - t0, time.process_time() - c0
    memory.store.close()
    return {
        "interim_saves": interim,
        "grown_to": grown,
        "growth_saves": saves,
        "full_rebuild_s": full_s,
        "full_rebuild_cpu_s": full_cpu_s,
        "ingest_per_s": (n - first) / spent,
        "ingest_per_cpu_s": (n - first) / cpu,
        "ingest_user_us": user / max(1, n - first) * 1e6,
        "ingest_kernel_us": kernel / max(1, n - first) * 1e6,
        "first_touch": dataclasses.asdict(touch),
        "resumed_at": held,
        "ingest_s": spent,
        "per_item_per_s": per_item / per_item_s if per_item else float("nan"),
        "per_item_n": per_item,
        "save_s": save_s,
        "save_cpu_s": save_cpu_s,
        "ingest_peak_rss_mb": rss_mb()[1],
    }


CHANNELS = ("S0.exact", "S0", "S1", "S2.L2", "S2.L3", "M.emb", "M.bm25")


def make_channels() -> dict:
    return {
        "S0.exact": FingerprintChannel(near=False),
        "S0": FingerprintChannel(),
        "S1": MacChannel(),
        "S2.L2": EmbeddingChannel("L2", "S2.L2"),
        "S2.L3": EmbeddingChannel("L3", "S2.L3"),
        "M.emb": EmbeddingChannel("L0", "M.emb", needs="text"),
        "M.bm25": BM25Channel(),
    }


def query(db: str, n: int, queries: int, embedder_name: str, seed: int) -> dict:
    """Child 2: open the memory from its snapshot, answer a first query (timed from before the
    open), then per-channel latencies, recall@10 against an exact scan, and the numpy floor."""
    emb = make_embedder(embedder_name)
    vocab_rng = random.Random(seed + 1)
    raw = [generate(vocab_rng, f"q_{i}") for i in range(queries)]
    t0 = time.perf_counter()
    memory = Memory(db, embedder=emb)
    first = parse_signature(raw[0], memory.store.vocabulary)
    pool = memory.search(Target(first.level("L0"), first), channels=["S0", "S1", "S2", "M"], k=10)
    out: dict = {
        "open_first_answer_s": time.perf_counter() - t0,
        "first_skipped": pool.skipped,
        "rebuilt": list(memory.indexes.rebuilt),
    }
    progress(f"open + first answer at {n:,}: {out['open_first_answer_s']:.2f} s")
    targets = [parse_signature(r, memory.store.vocabulary) for r in raw]
    out["latency_ms"], out["cpu_ms"], out["hits"] = {}, {}, {}
    for name, ch in make_channels().items():
        bound, times, cpu, found = memory._bind(ch), [], [], 0
        for sig in targets:
            t = Target(sig.level("L0"), sig)
            t1, c1 = time.perf_counter(), time.thread_time()
            found += len(bound.search(t, 10, frozenset()))
            times.append((time.perf_counter() - t1) * 1000)
            cpu.append((time.thread_time() - c1) * 1000)
        out["latency_ms"][name] = percentiles(times)
        out["cpu_ms"][name] = percentiles(cpu)[0]
        out["hits"][name] = found / len(targets)
        progress(
            f"{name}: p50 {out['latency_ms'][name][0]:.2f} ms, CPU p50 {out['cpu_ms'][name]:.2f} ms"
        )
    out["vector_mode"] = memory.indexes.vectors("L2").mode
    out["vector_search"] = memory.indexes.vector_search
    out["rss_mb"], out["peak_rss_mb"] = rss_mb()
    out["rss_anon_mb"], out["rss_file_mb"] = rss_split_mb()
    out["recall_at_10"], out["strict_recall_at_10"], out["exact_ms"] = {}, {}, {}
    rows_of: dict[str, VectorIndex] = {}
    for level in ("L0", "L2", "L3"):
        idx = memory.indexes.vectors(level)
        # exact cosines of any row: the index itself, or (pgvector: the database ranks, exact
        # mode is a server-side scan) a copy of the stored rows read into this process
        local = idx if isinstance(idx, VectorIndex) else VectorIndex(emb.dim)
        if local is not idx:
            local.add_chunks(memory.store.iter_vectors(level, emb.name))
        rows_of[level] = local
        qs = emb.embed([sig.level(level) or sig.level("L0") for sig in targets])
        approx = [[e for e, _ in idx.search(q, 10)] for q in qs]
        idx.exact, times, recall, strict = True, [], [], []
        for q, got in zip(qs, approx):
            t1 = time.perf_counter()
            want = idx.search(q, 10)
            times.append((time.perf_counter() - t1) * 1000)
            exact = local.scores(q)
            # tie-aware: a hit counts when its exact cosine reaches the 10th best (near-duplicate
            # texts give many rows the same score; which of them fill the last places is arbitrary)
            kth = want[-1][1] if want else 0.0
            hits = sum(bool(exact[local.ids.get(e) or 0] >= kth - 1e-5) for e in got)
            recall.append(hits / max(1, len(want)))
            strict.append(len({e for e, _ in want} & set(got)) / max(1, len(want)))
        idx.exact = False
        out["recall_at_10"][level] = float(np.mean(recall))
        out["strict_recall_at_10"][level] = float(np.mean(strict))
        out["exact_ms"][level] = percentiles(times)[0]
        progress(
            f"{level}: recall@10 {out['recall_at_10'][level]:.3f}, exact p50 {out['exact_ms'][level]:.1f} ms"
        )
    l2 = rows_of["L2"]
    total = len(l2)
    part = min(total, FLOOR_ROWS)
    rows = floor_rows(l2, part)  # the floor's matrix, in RAM
    qs, times = emb.embed([sig.level("L2") for sig in targets]), []
    for q in qs:
        t1 = time.perf_counter()
        scores = rows @ q
        np.argpartition(-scores, 9)[:10]
        times.append((time.perf_counter() - t1) * 1000)
    # a brute-force scan is linear in the rows: past FLOOR_ROWS it is measured on that many
    # and scaled (the dense L2 rows of 9M episodes, 13.8 GB, ran a 24 GB machine out of memory)
    out["floor_ms"] = percentiles(times)[0] * total / max(part, 1)
    out["floor_rows_measured"], out["floor_scaled"] = part, part < total
    memory.store.close()
    return out


def floor_rows(idx: VectorIndex, part: int) -> np.ndarray:
    """The first ``part`` rows of ``idx`` as a dense float32 matrix, reading only those (not
    ``idx.matrix``, which is every row: 15 GB at 10M, and the query stage was OOM-killed)."""
    n0 = len(idx.base)
    head = np.array(idx.base[: min(part, n0)], dtype=np.float32).reshape(-1, idx.dim)
    if part <= n0:
        return head
    return np.concatenate([head, idx.rows_at(np.arange(n0, part))])


class LoadSampler:
    """The 1-minute load average every few seconds while a stage runs (mean, max): figures
    from a machine busy with other work are not comparable with an idle one."""

    def __init__(self, every_s: float = 5.0):
        self.every_s, self.samples = every_s, [os.getloadavg()[0]]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every_s):
            self.samples.append(os.getloadavg()[0])

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def summary(self) -> tuple[float, float]:
        return float(np.mean(self.samples)), float(max(self.samples))


def run_size(
    n: int,
    queries: int,
    embedder_name: str,
    seed: int,
    keep: str | None,
    pg: str | None = None,
    growth: str = "",
    stages: tuple[str, ...] = ("ingest", "query"),
    full_rebuild: bool = False,
    batch: int = 5000,
    save_every: int = 1_000_000,
    resume: bool = False,
) -> dict:
    """Ingest and query in two child processes (RSS is each stage's own)."""
    tmp = keep or tempfile.mkdtemp(prefix="analogist-bench-")
    db = fresh_database(pg, f"_bench_{n}") if pg else os.path.join(tmp, "bench.db")
    os.environ["ANALOGIST_INDEX_DIR"] = os.path.join(tmp, "indexes")  # a PostgreSQL snapshot's home
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    out: dict = {"size": n, "embedder": make_embedder(embedder_name).name}
    for stage in stages:
        load = LoadSampler()
        cmd = [
            sys.executable,
            __file__,
            f"--{stage}",
            db,
            "--one-size",
            str(n),
            "--queries",
            str(queries),
            "--embedder",
            embedder_name,
            "--seed",
            str(seed),
            "--growth",
            growth,
            "--batch",
            str(batch),
            "--save-every",
            str(save_every),
            *(["--full-rebuild"] if full_rebuild else []),
            *(["--resume"] if resume else []),
        ]
        with load:  # the child's progress lines and errors go straight to our stderr
            proc = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, env=env)
        out[f"load_{stage}"] = load.summary()
        if proc.returncode != 0:
            raise SystemExit(
                f"{stage} at {n:,} failed (exit {proc.returncode}; its stderr is above)"
            )
        got = json.loads(proc.stdout.strip().splitlines()[-1])
        out.update(got)
        if keep:  # each stage's figures survive a later stage being stopped
            Path(keep, f"{stage}.json").write_text(json.dumps(got, indent=1))
    if pg:
        out["db_mb"] = database_bytes(db) / 2**20
        if not keep:
            drop_database(db)
    else:
        out["db_mb"] = (
            sum(os.path.getsize(p) for p in (db, db + "-wal") if os.path.exists(p)) / 2**20
        )
    out["backend"] = "postgresql" if pg else "sqlite"
    out["idx_mb"] = dir_mb(str(snapshot_root(db)))
    out["disk_kb_per_episode"] = (out["db_mb"] + out["idx_mb"]) * 1024 / n
    if not keep:
        shutil.rmtree(tmp, ignore_errors=True)
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--quick", action="store_true", help="sizes 2000,10000 and 50 queries")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--embedder", choices=("hashing", "random"), default="hashing")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--growth",
        default="",
        help="after the first snapshot, add these shares of the size (e.g. 0.01,0.1), time each "
        "incremental save, then a full rebuild",
    )
    ap.add_argument(
        "--full-rebuild", action="store_true", help="after --growth, time save(full=True)"
    )
    ap.add_argument("--no-query", action="store_true", help="ingest and save only")
    ap.add_argument(
        "--batch",
        type=int,
        default=5000,
        help="episodes per Memory.add call (default 5000; the size itself: one bulk add, "
        "as `analogist add FILE` does)",
    )
    ap.add_argument(
        "--save-every",
        type=int,
        default=1_000_000,
        help="save an incremental snapshot every N episodes of a larger ingest, releasing the "
        "in-memory indexes (default 1,000,000; 0: only at the end); timed apart from the ingest",
    )
    ap.add_argument(
        "--resume",
        action="store_true",
        help="with --keep and one size: continue the kept memory of a stopped run (same seed) "
        "from the episodes it holds instead of starting empty",
    )
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--keep", help="keep the database and snapshot in this folder (one size)")
    ap.add_argument(
        "--db",
        help="postgresql://USER@HOST:PORT/DB: run on this PostgreSQL server "
        "(a fresh database per size) instead of a SQLite file",
    )
    ap.add_argument("--one-size", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--ingest", help=argparse.SUPPRESS)
    ap.add_argument("--query", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.ingest:
        growth = tuple(float(g) for g in args.growth.split(",") if g)
        got = ingest(
            args.ingest,
            args.one_size,
            args.embedder,
            args.seed,
            growth=growth,
            full_rebuild=args.full_rebuild,
            batch=args.batch,
            save_every=args.save_every,
            resume=args.resume,
        )
        print(json.dumps(got))
        return
    if args.query:
        print(json.dumps(query(args.query, args.one_size, args.queries, args.embedder, args.seed)))
        return
    sizes = [2000, 10000] if args.quick else [int(s) for s in args.sizes.split(",")]
    if args.resume and (not args.keep or len(sizes) != 1 or args.db):
        raise SystemExit("--resume needs --keep and one size in --sizes (SQLite only)")
    queries = 50 if args.quick else args.queries
    results = []
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
    for n in sizes:
        keep = os.path.join(args.keep, str(n)) if args.keep else None
        if keep:
            os.makedirs(keep, exist_ok=True)
        stages = ("ingest",) if args.no_query else ("ingest", "query")
        results.append(
            run_size(
                n,
                queries,
                args.embedder,
                args.seed,
                keep,
                args.db,
                args.growth,
                stages,
                args.full_rebuild,
                args.batch,
                args.save_every,
                args.resume,
            )
        )
        if not args.json:
            report(results[-1])
    if args.json:
        print(json.dumps(results, indent=1))


def report(r: dict) -> None:
    print(
        f"\n{r['size']:,} signatures ({r['embedder']}, {r['backend']}): ingest "
        f"{r['ingest_per_s']:,.0f}/s ({r['ingest_s']:.0f} s; per CPU-second "
        f"{r.get('ingest_per_cpu_s', float('nan')):,.0f}/s), snapshot write {r['save_s']:.1f} s "
        f"({r.get('save_cpu_s', float('nan')):.1f} CPU-s) "
        f"(ingest peak RSS {r['ingest_peak_rss_mb']:,.0f} MB); disk: db {r['db_mb']:,.0f} MB + "
        f"indexes {r['idx_mb']:,.0f} MB = {r['disk_kb_per_episode']:.1f} KB/episode"
    )
    if "ingest_kernel_us" in r:
        print(
            f"  ingest CPU split: user {r['ingest_user_us']:.0f} + kernel "
            f"{r['ingest_kernel_us']:.0f} us/episode; {FirstTouch(**r['first_touch']).describe()}"
        )
    for sv in r.get("interim_saves", []):
        print(
            f"  interim snapshot at {sv['at']:,}: {sv['save_s']:.1f} s wall "
            f"({sv['save_cpu_s']:.1f} CPU-s, not in the ingest rate), RSS after {sv['rss_mb']:,.0f} MB"
        )
    load = ", ".join(
        f"{stage} {r[f'load_{stage}'][0]:.1f}/{r[f'load_{stage}'][1]:.1f}"
        for stage in ("ingest", "query")
        if f"load_{stage}" in r
    )
    per_item = (
        f"resumed at {r['resumed_at']:,} (the figures are for the episodes added after)"
        if r.get("resumed_at")
        else f"batched ingest {r['ingest_per_s']:,.0f}/s vs per-item path (one add() call per "
        f"episode, first {r['per_item_n']:,}) {r['per_item_per_s']:,.0f}/s = "
        f"{r['ingest_per_s'] / r['per_item_per_s']:.1f}x"
    )
    print(
        f"  {per_item}; HNSW graph dtype {GRAPH_DTYPE}, build "
        f"threads {build_threads()}; "
        f"load average (mean/max) {load} on {os.cpu_count()} cores"
    )
    full, what = r.get("full_rebuild_s") or r["save_s"], "a full rebuild"
    if r.get("full_rebuild_s") is None:
        what = f"the first (full) save of {r['size']:,}"
    for g in r.get("growth_saves", []):
        print(
            f"  +{g['share']:.0%} ({g['added']:,} added in {g['add_s']:.1f} s): incremental save "
            f"{g['save_s']:.1f} s ({g.get('save_cpu_s', float('nan')):.1f} CPU-s; rows linked: {g['linked']}, lists or graphs extended: {g['extended']}) "
            f"= {g['save_s'] / full:.3f} x {what}"
        )
    if r.get("full_rebuild_s") is not None:
        print(
            f"  full rebuild (save(full=True)) at {r['grown_to']:,}: {r['full_rebuild_s']:.1f} s "
            f"({r['full_rebuild_cpu_s']:.1f} CPU-s)"
        )
    if "latency_ms" not in r:
        return
    print(
        f"  open + first answer {r['open_first_answer_s']:.2f} s"
        f"{' (REBUILT ' + ','.join(r['rebuilt']) + ')' if r['rebuilt'] else ''}; RSS after "
        f"queries {r['rss_mb']:,.0f} MB (anon {r['rss_anon_mb']:,.0f} + mapped files "
        f"{r['rss_file_mb']:,.0f}; peak {r['peak_rss_mb']:,.0f})"
    )
    floor = r["floor_ms"]
    scaled = (
        f", measured on {r['floor_rows_measured']:,} rows and scaled"
        if r.get("floor_scaled")
        else ""
    )
    print(
        f"  numpy floor (L2 rows @ q + argpartition, in RAM{scaled}): {floor:.2f} ms; vectors: "
        f"{r['vector_mode']} ({r.get('vector_search', '')})"
    )
    print(f"  {'channel':<9}{'p50 ms':>9}{'p95 ms':>9}{'/floor':>8}{'CPU p50':>9}{'hits/q':>8}")
    for ch, (p50, p95) in r["latency_ms"].items():
        cpu = r.get("cpu_ms", {}).get(ch, float("nan"))
        print(f"  {ch:<9}{p50:>9.2f}{p95:>9.2f}{p50 / floor:>8.2f}{cpu:>9.2f}{r['hits'][ch]:>8.1f}")
    for lv in ("L0", "L2", "L3"):
        print(
            f"  {lv} vectors: recall@10 (search vs exact scan, ties counted) {r['recall_at_10'][lv]:.3f} "
            f"(strict id overlap {r['strict_recall_at_10'][lv]:.3f}); exact p50 "
            f"{r['exact_ms'][lv]:.2f} ms ({r['exact_ms'][lv] / floor:.2f} x floor)"
        )


if __name__ == "__main__":
    main()
