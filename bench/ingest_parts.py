"""The Python parts of an ingest, each timed alone over one pass of fresh signatures.

``bench/ingest.py`` times the phases inside ``Memory.add``; their CPU figures vary ±20 % between
runs on a shared machine, too much to see a 10 % change in one part. This script times only
the parts that are pure Python — *parse* (``load_json`` + ``parse_episode``: read+validate),
*structure* (``StructureMemo.derive`` with a fresh memo: structure key, WL fingerprint, MAC
vector) and *embed* (the hashing embedder over L0, L2 and L3) — once each over the same
``--n`` seeded signatures (``bench/retrieval.py``'s generator, not timed), in one pass as an
ingest meets them (cold caches, memo hits as they come). Compare two trees by running it
alternately from each, several seeds, and reading the medians.

Usage: ``python bench/ingest_parts.py [--n 8000] [--seed 1] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from retrieval import generate  # noqa: E402

from analogist.episode import parse_episode  # noqa: E402
from analogist.models.embedding import HashingEmbedder  # noqa: E402
from analogist.retrieve.structure_memo import StructureMemo  # noqa: E402
from analogist.signature.fingerprint import WLFingerprint  # noqa: E402
from analogist.signature.limits import load_json  # noqa: E402
from analogist.signature.vocabulary import default_vocabulary  # noqa: E402


def measure(n: int, seed: int) -> dict[str, float]:
    """CPU microseconds per episode of each part (see the module docstring)."""
    rng = random.Random(seed)
    lines = [json.dumps(generate(rng, f"ep_{i}")) for i in range(n)]
    vocab, clock = default_vocabulary(), time.process_time
    c = clock()
    eps = [parse_episode(load_json(x, "the line"), vocab, depth_checked=True) for x in lines]
    parse = clock() - c
    memo = StructureMemo(WLFingerprint())
    c = clock()
    for e in eps:
        assert e.signature is not None
        memo.derive(e.signature, vocab)
    structure = clock() - c
    emb = HashingEmbedder()
    c = clock()
    for level in ("L0", "L2", "L3"):
        emb.embed(
            [
                e.text if level == "L0" or e.signature is None else e.signature.level(level)
                for e in eps
            ]
        )
    embed = clock() - c
    return {
        k: v / n * 1e6 for k, v in (("parse", parse), ("structure", structure), ("embed", embed))
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=8000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    got = measure(args.n, args.seed)
    if args.json:
        print(json.dumps(got))
    else:
        print(
            f"{args.n:,} signatures, seed {args.seed}, CPU us per episode: "
            + ", ".join(f"{k} {v:.1f}" for k, v in got.items())
        )


if __name__ == "__main__":
    main()
