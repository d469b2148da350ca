"""``generate_bench``: plan, build, audit and describe one versioned PARB benchmark.

Sizes:

- ``small``: two items per family (16), for tests; generation takes well under two seconds.
- ``mvp``: spec §23's 48 items, weighted to F2, F3, F5 and F7 (eight each), with six F4 (every
  kind of :data:`~analogist.bench.generation.family_transfer.F4_KINDS`, three of which exact
  isomorphism cannot solve), four F6, three F1 and three F8; close to half the targets in nonce
  skins (all of F7, a third of the rest).
- ``full``: every motif of the split × every family, twice (192 dev / 128 test items).

Every random choice comes from ``random.Random`` instances seeded from (seed, split, size, item
slot), so the same arguments give byte-identical files. Items are ordered by their random ids.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from typing import Any

from analogist.bench.analysis.audit import run_audit
from analogist.bench.generation.asides import Dealer
from analogist.bench.generation.family_partial import build_f5
from analogist.bench.generation.family_rejection import build_f2, build_f6
from analogist.bench.generation.family_rerepresentation import build_f8, f8_motifs
from analogist.bench.generation.family_retrieval import build_f3, build_f7
from analogist.bench.generation.family_transfer import build_f1, build_f4
from analogist.bench.generation.files import Bench, file_hashes, seal
from analogist.bench.generation.items import FAMILIES, Context, Item, Slot
from analogist.bench.generation.motifs import DEV_MOTIFS, HELDOUT_MOTIFS, split_motifs
from analogist.errors import BenchError

GENERATOR_VERSION = "2.0.0"
SIZES = ("small", "mvp", "full")
MVP_COUNTS = {"F1": 3, "F2": 8, "F3": 8, "F4": 6, "F5": 8, "F6": 4, "F7": 8, "F8": 3}
SMALL_PER_FAMILY = 2
FULL_PER_CELL = 2

BUILDERS: dict[str, Callable[[Context, Slot], Item]] = {
    "F1": build_f1,
    "F2": build_f2,
    "F3": build_f3,
    "F4": build_f4,
    "F5": build_f5,
    "F6": build_f6,
    "F7": build_f7,
    "F8": build_f8,
}


def plan(seed: int, split: str, size: str) -> list[Slot]:
    """The item slots of a benchmark: family, motif, ordinal and whether the target is nonce."""
    if size not in SIZES:
        raise BenchError(f"unknown size {size!r}; use one of {', '.join(SIZES)}")
    motifs = split_motifs(split)
    rng = random.Random(f"plan|{seed}|{split}|{size}")
    slots: list[Slot] = []
    # one shuffled cycle over the motifs runs through all families, so every motif gets as many
    # items as any other (within one): how often a motif recurs in a bench says nothing
    cycle: list = []
    for fi, family in enumerate(FAMILIES):
        if size == "full":
            chosen = [m for m in motifs for _ in range(FULL_PER_CELL)]
        else:
            n = MVP_COUNTS[family] if size == "mvp" else SMALL_PER_FAMILY
            chosen = []
            while len(chosen) < n:
                if not cycle:
                    cycle = list(motifs)
                    rng.shuffle(cycle)
                pick = next((m for m in cycle if m not in chosen), cycle[0])
                cycle.remove(pick)
                chosen.append(pick)
        if family == "F8":
            chosen = f8_motifs(chosen, tuple(motifs), rng)
        for i, m in enumerate(chosen):
            # pairs of ordinals share a skin kind, so F2's standard/control layouts (and F5's
            # decoy/partial targets) are balanced within each kind
            k = i // 2 + fi
            nonce = family == "F7" or (k % 3 == 2 if size == "mvp" else k % 4 == 3)
            slots.append(Slot(family, m, i, nonce))
    return slots


def generate_bench(seed: int, split: str = "dev", size: str = "small") -> Bench:
    """Generate, audit and seal a benchmark (see the module docstring for sizes).

    Args:
        seed: any integer; the same seed and options give byte-identical files.
        split: "dev" (the twelve development motifs) or "test" (the eight held-out motifs).
        size: "small", "mvp" or "full".

    Raises:
        BenchError: for an unknown split or size.
    """
    pool = split_motifs(split)
    taken: set[str] = set()
    dealer = Dealer(f"{seed}|{split}|{size}")  # one deck per bench: no aside repeats
    ranks: Counter[tuple[str, int]] = Counter()  # memory sources' overlap ranks, balanced
    items = []
    # built in a seeded order, so which items come first (and so meet unused overlap ranks,
    # asides and ids first) changes from bench to bench instead of following the motif order
    slots = plan(seed, split, size)
    random.Random(f"order|{seed}|{split}|{size}").shuffle(slots)
    for slot in slots:
        rng = random.Random(f"item|{seed}|{split}|{size}|{slot.family}|{slot.ordinal}")
        items.append(BUILDERS[slot.family](Context(rng, split, pool, taken, dealer, ranks), slot))
    items.sort(key=lambda it: it.item_id)
    audit = run_audit(items)
    manifest = {
        "generator": "analogist PARB",
        "generator_version": GENERATOR_VERSION,
        "seed": seed,
        "split": split,
        "size": size,
        "motifs": list(DEV_MOTIFS if split == "dev" else HELDOUT_MOTIFS),
        "counts": _counts(items, split),
        "audit": audit,
    }
    bench = Bench(tuple(items), manifest)
    return Bench(bench.items, seal(manifest, file_hashes(bench)))


def _counts(items: list[Item], split: str) -> dict[str, Any]:
    return {
        "total": len(items),
        "family": dict(sorted(Counter(it.family for it in items).items())),
        "motif": dict(sorted(Counter(it.motif for it in items).items())),
        "skin_kind": dict(
            sorted(Counter("nonce" if it.key.get("nonce") else "ordinary" for it in items).items())
        ),
        "split": {split: len(items)},
    }
