"""S0 near matching: the top-k search against the full scan, on the same memory in one run.

Builds an S0 index (WL fingerprints of ``bench/retrieval.py``'s generated signatures, not
timed), writes and reopens it as a persisted snapshot (memory-mapped, with dense columns), and
optionally tiles it ``--times`` k into the 1M stand-in of ``bench/scale_proxy.py`` (every
posting list k times longer; each episode has k identical copies). Then, for fresh target
signatures from the same generator, times both near paths of :class:`FingerprintChannel` —
``near_scan=True`` (score every document above the threshold, the path before issue 16) and
the default top-k search (:mod:`analogist.retrieve.wl_near`) — alternating per query, and
prints CPU p50/p95 (thread time) of the near step alone (targets with fewer than k exact
hits) and of the whole channel (exact + near, what ``bench/retrieval.py`` reports as S0),
their ratio, and how far the two answers agree (identical top-k lists; recall of the scan's
hits). Both paths are exact, so agreement should be 1.0.

Usage: ``python bench/s0_near.py --size 111000 [--times 9] [--queries 200] [--keep DIR]``
(``--keep`` stores the built snapshot there and reuses it in a later run).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import Counter
from itertools import islice
from pathlib import Path

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from retrieval import generate  # noqa: E402
from scale_proxy import tile_ids, tile_postings, tile_sorted  # noqa: E402

from analogist.retrieve.persist import load_fingerprints, save_fingerprints  # noqa: E402
from analogist.retrieve.wl import FingerprintChannel, FingerprintIndex  # noqa: E402
from analogist.signature import default_vocabulary, parse_signature  # noqa: E402
from analogist.signature.fingerprint import WLFingerprint  # noqa: E402

WL = WLFingerprint()


def fingerprints(n: int, seed: int, prefix: str) -> list[tuple[str, str, Counter]]:
    vocab, rng = default_vocabulary(), random.Random(seed)
    out = []
    for i in range(n):
        raw = generate(rng, f"{prefix}_{i}")
        fp = WL(parse_signature(raw, vocab), vocab)
        out.append((raw["episode_id"], fp.wl_hash, Counter(fp.features)))
    return out


def build(folder: Path, n: int, seed: int, times: int) -> FingerprintIndex:
    """The persisted index of ``n`` generated episodes (tiled ``times``), opened read-only."""
    stamp = folder / "s0_near.json"
    want = {"n": n, "seed": seed, "times": times, "wl": WL.version}
    if not (stamp.exists() and json.loads(stamp.read_text()) == want):
        folder.mkdir(parents=True, exist_ok=True)
        idx = FingerprintIndex(WL.version)
        for eid, h, f in fingerprints(n, seed, "ep"):
            idx.add(eid, h, f)
        save_fingerprints(folder, idx)
        if times > 1:
            fp = load_fingerprints(folder, WL.version)
            hk, hd = tile_sorted(np.asarray(fp.hash_keys), np.asarray(fp.hash_docs), n, times)
            base = fp.postings.base  # type: ignore[union-attr]
            big = FingerprintIndex(
                WL.version, tile_postings(base, times), tile_ids(fp.ids, times), hk, hd
            )
            save_fingerprints(folder, big)
        stamp.write_text(json.dumps(want))
    return load_fingerprints(folder, WL.version)


def p50_95(ms: list[float]) -> tuple[float, float]:
    return float(np.percentile(ms, 50)), float(np.percentile(ms, 95))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", type=int, default=111000)
    ap.add_argument("--times", type=int, default=1, help="tile into a k-times stand-in")
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--k", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--keep", help="folder for the built snapshot (reused when it matches)")
    args = ap.parse_args()
    folder = Path(args.keep or f"/tmp/analogist-s0-near-{args.size}-x{args.times}")
    t0 = time.process_time()
    index = build(folder, args.size, args.seed, args.times)
    built_cpu = time.process_time() - t0
    targets = fingerprints(args.queries, args.seed + 1, "q")
    scan, top = FingerprintChannel(near_scan=True), FingerprintChannel()
    near_ms: dict[str, list[float]] = {"scan": [], "top-k": []}
    channel_ms: dict[str, list[float]] = {"scan": [], "top-k": []}
    same = recall = 0.0
    for _, h, features in targets:
        got = {}
        for name, ch in (("scan", scan), ("top-k", top)):
            c0 = time.thread_time()
            exact = list(islice(index.exact(h), args.k))
            c1 = time.thread_time()
            hits = (
                ch._near(index, features, args.k - len(exact), set(exact))
                if len(exact) < args.k
                else []
            )
            c2 = time.thread_time()
            channel_ms[name].append((c2 - c0) * 1000)
            if len(exact) < args.k:
                near_ms[name].append((c2 - c1) * 1000)
            got[name] = hits
        same += got["scan"] == got["top-k"]
        want = {e for e, _, _ in got["scan"]}
        recall += len(want & {e for e, _, _ in got["top-k"]}) / len(want) if want else 1.0
    rows = {}
    for label, data in (("near step", near_ms), ("S0 channel", channel_ms)):
        s, t = p50_95(data["scan"]), p50_95(data["top-k"])
        rows[label] = {
            "queries": len(data["scan"]),
            "scan_p50_ms": s[0],
            "scan_p95_ms": s[1],
            "topk_p50_ms": t[0],
            "topk_p95_ms": t[1],
            "ratio_p50": s[0] / t[0] if t[0] else float("nan"),
        }
    out = {
        "documents": len(index),
        "size": args.size,
        "times": args.times,
        "build_or_open_cpu_s": round(built_cpu, 1),
        "identical_top_k": same / len(targets),
        "recall_of_scan_hits": recall / len(targets),
        "load_avg": os.getloadavg()[0],
        "cpu_ms": rows,
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
