"""Retrieval at scale: ingest rate, per-channel query latency and memory at 10k-1M signatures.

Each size runs in its own child process (so RSS is that size's alone). The child generates
seeded random but structured signatures — one of twelve motif templates (proxy, starvation,
retry storm, race, masking, ...) with its roles renamed, its relations shuffled, 0-3 random
extra relations and sometimes an extra causal link, plus pseudo-word L0/L2/L3 text — as JSON
lines, and times :meth:`analogist.memory.Memory.add` on them in batches (pre-encoded
signatures: parsing, WL fingerprint, L0/L2/L3 embeddings, the SQLite transaction and the
in-memory index updates; generation is not timed). It then times each channel's ``search``
(k=10) on fresh targets from the same generator and reports p50/p95 per channel, plus the
time to rebuild the indexes from the store in a new process-local Memory (sizes <= 100k).

Targets on one core: S0 <= 1 ms, S1 <= 30 ms at 1M, S2 <= 30 ms at 100k, ingest >= 2,000/s.

Usage: ``python bench/retrieval.py [--sizes 10000,100000,1000000] [--quick]
[--embedder hashing|random] [--queries N] [--json]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

import numpy as np

from analogist.memory import Memory
from analogist.models.embedding import HashingEmbedder, normalise_rows
from analogist.retrieve import (
    BM25Channel,
    EmbeddingChannel,
    FingerprintChannel,
    MacChannel,
    Target,
)
from analogist.signature import parse_signature

# name: (relations, causal chain, L2, L3); roles are A, B, C, D
TEMPLATES = {
    "proxy": ([("derives_from", "B", "A"), ("trusts_as_authoritative", "C", "B"),
               ("skips_check", "C", "A"), ("diverges_from", "B", "A")],
              [("diverges_from(B,A)", "causes", "false_claim(C)")],
              "derived copy treated as authoritative", "proxy mistaken for referent"),
    "starvation": ([("holds", "A", "C"), ("waits_for", "B", "C"), ("starves", "A", "B")],
                   [("starves(A,B)", "causes", "delayed(B)")],
                   "holder monopolises a shared pool", "hog starves the queue"),
    "retry_storm": ([("retries", "A", "B"), ("depends_on", "A", "B")],
                    [("retries(A,B)", "amplifies", "overloaded(B)"),
                     ("overloaded(B)", "causes", "fails(B)")],
                    "retries amplify load on a failing dependency", "positive feedback on failure"),
    "race": ([("races_with", "A", "B"), ("shares_resource", "A", "B"), ("depends_on", "A", "C")],
             [("races_with(A,B)", "causes", "corrupted(C)")],
             "unordered writers corrupt shared state", "unordered concurrency"),
    "masking": ([("observes", "A", "B"), ("filters", "C", "A")],
                [("filters(C,A)", "masks", "missed_event(A)")],
                "a filter hides the signal from the observer", "noise suppression hides signal"),
    "absence": ([("observes", "A", "B"), ("reports_absence", "A", "B"), ("trusts_as_authoritative", "C", "A")],
                [("fails(A)", "causes", "false_claim(C)")],
                "absence of evidence read as evidence of absence", "observer failure read as world state"),
    "goodhart": ([("optimizes_for", "A", "B"), ("proxies_for", "B", "C")],
                 [("optimizes_for(A,B)", "causes", "biased(B)")],
                 "optimising a measure detaches it from its goal", "a target ceases to be a measure"),
    "gate_deadlock": ([("gates", "A", "B"), ("waits_for", "B", "A"), ("holds", "A", "C")],
                      [("waits_for(B,A)", "causes", "deadlocked(B)")],
                      "gatekeeper waits on what it gates", "circular wait"),
    "alert_fatigue": ([("alerts", "A", "B"), ("ignores", "B", "A")],
                      [("alerts(A,B)", "causes", "desensitized(B)"),
                       ("desensitized(B)", "causes", "missed_event(B)")],
                      "too many alarms train responders to ignore them", "cry wolf"),
    "backlog": ([("sends_to", "A", "B"), ("limits", "C", "B")],
                [("sends_to(A,B)", "causes", "backlogged(B)"), ("backlogged(B)", "causes", "delayed(A)")],
                "inflow exceeds a capped stage", "bottleneck queue growth"),
    "priority_inversion": ([("has_priority_over", "A", "B"), ("holds", "B", "C"), ("waits_for", "A", "C")],
                           [("holds(B,C)", "blocks", "starved(A)")],
                           "low priority holder blocks high priority waiter", "priority inversion"),
    "stale_cache": ([("derives_from", "B", "A"), ("consumes", "C", "B")],
                    [("stale(B)", "causes", "wrong_decision(C)")],
                    "consumer acts on a stale derived copy", "acting on an outdated map"),
}
EXTRA = ["depends_on", "sends_to", "observes", "assumes", "limits", "holds", "waits_for",
         "gates", "filters", "consumes", "correlates_with", "reconciles_with", "alerts"]
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
        "episode_id": eid, "kind": "failure",
        "roles": {r: f"role {r}" for r in used},
        "relations": relations, "causal_chain": links,
        "levels": {"L0": f"{name.replace('_', ' ')} {words(12)}", "L2": f"{l2} {words(3)}",
                   "L3": f"{l3} {words(1)}"},
    }


def percentiles(ms: list[float]) -> tuple[float, float]:
    return float(np.percentile(ms, 50)), float(np.percentile(ms, 95))


def rss_mb() -> tuple[float, float]:
    with open("/proc/self/statm") as f:
        now = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    return now, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_size(n: int, queries: int, embedder_name: str, seed: int, batch: int = 5000) -> dict:
    emb = HashingEmbedder() if embedder_name == "hashing" else RandomEmbedder()
    with tempfile.TemporaryDirectory() as tmp:
        memory = Memory(os.path.join(tmp, "bench.db"), embedder=emb)
        idx = memory.indexes
        idx.fingerprints(), idx.mac(), [idx.vectors(lv) for lv in ("L0", "L2", "L3")]
        rng, spent = random.Random(seed), 0.0
        for start in range(0, n, batch):
            lines = [json.dumps(generate(rng, f"ep_{i}")) for i in range(start, min(n, start + batch))]
            t0 = time.perf_counter()
            report = memory.add(lines)
            spent += time.perf_counter() - t0
            assert not report.rejected, report.rejected[:2]
        out = {"size": n, "embedder": emb.name, "ingest_per_s": n / spent, "ingest_s": spent}
        vocab, qrng = memory.store.vocabulary, random.Random(seed + 1)
        targets = [parse_signature(generate(qrng, f"q_{i}"), vocab) for i in range(queries)]
        channels = {
            "S0.exact": FingerprintChannel(near=False), "S0": FingerprintChannel(),
            "S1": MacChannel(), "S2.L2": EmbeddingChannel("L2", "S2.L2"),
            "S2.L3": EmbeddingChannel("L3", "S2.L3"),
            "M.emb": EmbeddingChannel("L0", "M.emb", needs="text"), "M.bm25": BM25Channel(),
        }
        out["latency_ms"], out["hits"] = {}, {}
        for name, ch in channels.items():
            ch, times, found = memory._bind(ch), [], 0
            for sig in targets:
                t = Target(sig.level("L0"), sig)
                t0 = time.perf_counter()
                found += len(ch.search(t, 10, frozenset()))
                times.append((time.perf_counter() - t0) * 1000)
            out["latency_ms"][name] = percentiles(times)
            out["hits"][name] = found / len(targets)
        out["rss_mb"], out["peak_rss_mb"] = rss_mb()
        out["db_mb"] = os.path.getsize(os.path.join(tmp, "bench.db")) / 2**20
        if n <= 100_000:
            t0 = time.perf_counter()
            cold = Memory(memory.store, embedder=emb).indexes
            cold.fingerprints(), cold.mac(), [cold.vectors(lv) for lv in ("L0", "L2", "L3")]
            out["index_load_s"] = time.perf_counter() - t0
        memory.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="10000,100000,1000000")
    ap.add_argument("--quick", action="store_true", help="sizes 2000,10000 and 50 queries")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--embedder", choices=("hashing", "random"), default="hashing")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--one-size", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one_size:
        print(json.dumps(run_size(args.one_size, args.queries, args.embedder, args.seed)))
        return
    sizes = [2000, 10000] if args.quick else [int(s) for s in args.sizes.split(",")]
    queries = 50 if args.quick else args.queries
    results = []
    for n in sizes:
        cmd = [sys.executable, __file__, "--one-size", str(n), "--queries", str(queries),
               "--embedder", args.embedder, "--seed", str(args.seed)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=True,
                              env={**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"})
        results.append(json.loads(proc.stdout.strip().splitlines()[-1]))
        if not args.json:
            report(results[-1])
    if args.json:
        print(json.dumps(results, indent=1))


def report(r: dict) -> None:
    load = f", index load {r['index_load_s']:.1f} s" if "index_load_s" in r else ""
    print(f"\n{r['size']:,} signatures ({r['embedder']}): ingest {r['ingest_per_s']:,.0f}/s "
          f"({r['ingest_s']:.0f} s){load}; RSS {r['rss_mb']:,.0f} MB (peak {r['peak_rss_mb']:,.0f}); "
          f"db {r['db_mb']:,.0f} MB")
    print(f"  {'channel':<9}{'p50 ms':>9}{'p95 ms':>9}{'hits/q':>8}")
    for ch, (p50, p95) in r["latency_ms"].items():
        print(f"  {ch:<9}{p50:>9.2f}{p95:>9.2f}{r['hits'][ch]:>8.1f}")


if __name__ == "__main__":
    main()
