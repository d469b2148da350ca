"""Seeded structured random episodes for the persisted-index tests (small sizes only)."""

from __future__ import annotations

import json
import random

SHAPES = [
    [("derives_from", "B", "A"), ("trusts_as_authoritative", "C", "B"), ("skips_check", "C", "A")],
    [("holds", "A", "C"), ("waits_for", "B", "C"), ("starves", "A", "B")],
    [("retries", "A", "B"), ("depends_on", "A", "B")],
    [("observes", "A", "B"), ("filters", "C", "A")],
    [("gates", "A", "B"), ("waits_for", "B", "A"), ("holds", "A", "C")],
]
EXTRA = ["depends_on", "sends_to", "observes", "limits", "holds", "waits_for", "consumes"]


def episode(rng: random.Random, eid: str) -> str:
    """One JSONL line: a shape with renamed roles, 0-2 extra relations, pseudo-word text."""
    rels = list(rng.choice(SHAPES))
    for _ in range(rng.randint(0, 2)):
        a, b = rng.sample("ABC", 2)
        rels.append((rng.choice(EXTRA), a, b))
    rename = dict(zip("ABC", rng.sample([f"R{i}" for i in range(9)], 3)))
    relations = [[p, rename[a], rename[b]] for p, a, b in rels]
    used = sorted({r for rel in relations for r in rel[1:]})

    def words(n: int) -> str:
        return " ".join(f"w{rng.randrange(300)}" for _ in range(n))

    levels = {"L0": words(10), "L2": words(4), "L3": words(2)}
    sig = {
        "episode_id": eid,
        "kind": "failure",
        "roles": {r: f"role {r}" for r in used},
        "relations": relations,
        "causal_chain": [],
        "levels": levels,
    }
    return json.dumps({"id": eid, "kind": "failure", "text": levels["L0"], "signature": sig})


def lines(seed: int, start: int, n: int, prefix: str = "ep") -> list[str]:
    rng = random.Random(seed * 100003 + start)
    return [episode(rng, f"{prefix}_{i}") for i in range(start, start + n)]
