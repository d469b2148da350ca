"""Throughput of the structure-mapping engine on signature-like descriptions.

Generates seeded random description pairs shaped like structural signatures: 4-10 entities,
binary relations drawn from ~20 predicates, and ``cause``/``enables``/``prevents`` facts over
them (a quarter of the relations are higher-order). The target is the base with its entities
renamed and about a third of its facts replaced, so that pairs have real but partial
structure in common, as retrieved analogues do. Times :func:`analogist.mapping.match` on one
core at 5-15, 30 and 80 relations and prints matches per second, mappings per second and the
growth factor of the time per match from one size to the next. Time is the process's CPU time
(best of ``--repeat`` runs), so other load on the machine disturbs the figures less.

Usage: ``python bench/mapping.py [--seed N] [--pairs N] [--json]``
"""

from __future__ import annotations

import argparse
import itertools
import json
import random
import statistics
import time

from analogist.mapping import match
from analogist.signature.description import Description, Entity, Expr, PredicateInfo

FIRST_ORDER = [f"rel_{i}" for i in range(20)]
HIGHER_ORDER = ["cause", "enables", "prevents"]
PREDICATES = {
    **{p: PredicateInfo(p, "relation", 2) for p in FIRST_ORDER + HIGHER_ORDER},
}
SIZES = (("5-15", 5, 15), ("30", 30, 30), ("80", 80, 80))


def random_facts(rng: random.Random, entities: list[str], n_relations: int) -> list[Expr]:
    """``n_relations`` facts: three quarters binary relations, the rest causal links."""
    n_high = n_relations // 4
    first: list[Expr] = []
    while len(first) < n_relations - n_high:
        a, b = rng.sample(entities, 2)
        fact = Expr(rng.choice(FIRST_ORDER), (a, b))
        if fact not in first:
            first.append(fact)
    high: list[Expr] = []
    pool = list(first)
    while len(high) < n_high:
        cause, effect = rng.sample(pool, 2)
        fact = Expr(rng.choice(HIGHER_ORDER), (cause, effect))
        if fact not in high:
            high.append(fact)
            pool.append(fact)
    return first + high


def _rename(term: Expr | str, names: dict[str, str]) -> Expr | str:
    if isinstance(term, Expr):
        return Expr(term.functor, tuple(_rename(a, names) for a in term.args))  # type: ignore
    return names[term]


def make_pair(rng: random.Random, n_relations: int) -> tuple[Description, Description]:
    """A base and a perturbed, renamed copy of it as target."""
    n_entities = rng.randint(4, 10)
    entities = [f"e{i}" for i in range(n_entities)]
    facts = random_facts(rng, entities, n_relations)
    base = Description("base", tuple(Entity(e) for e in entities), tuple(facts), PREDICATES)
    names = {e: f"t{i}" for i, e in enumerate(rng.sample(entities, n_entities))}
    kept = [_rename(f, names) for f in facts if rng.random() > 0.33]
    fresh = random_facts(rng, list(names.values()), n_relations)
    extra = [f for f in fresh if f not in kept][: n_relations - len(kept)]
    target = Description("target", tuple(Entity(n) for n in names.values()),
                         tuple(kept + extra), PREDICATES)  # type: ignore[arg-type]
    return base, target


def time_size(rng: random.Random, low: int, high: int, pairs: int) -> dict[str, float]:
    """Matches ``pairs`` fresh pairs of the given size; returns throughput figures."""
    batch = [make_pair(rng, rng.randint(low, high)) for _ in range(pairs)]
    mappings = 0
    started = time.process_time()  # CPU time of this (single-threaded) process: one core
    for base, target in batch:
        mappings += match(base, target).mapping_count
    elapsed = time.process_time() - started
    return {"matches_per_s": pairs / elapsed, "mappings_per_s": mappings / elapsed,
            "ms_per_match": 1000 * elapsed / pairs, "mappings_per_match": mappings / pairs}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--pairs", type=int, default=400, help="pairs per size (fewer at 80)")
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs per size")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, dict[str, float]] = {}
    for label, low, high in SIZES:
        n = max(20, args.pairs // (1 if high <= 15 else 4 if high <= 30 else 16))
        runs = [time_size(random.Random(args.seed), low, high, n) for _ in range(args.repeat)]
        results[label] = min(runs, key=lambda r: r["ms_per_match"])
        results[label]["pairs"] = n
        results[label]["median_ms"] = statistics.median(r["ms_per_match"] for r in runs)
    labels = [s[0] for s in SIZES]
    for prev, cur in itertools.pairwise(labels):
        results[cur]["growth_vs_" + prev] = (results[cur]["ms_per_match"]
                                             / results[prev]["ms_per_match"])
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"structure mapping, one core, seed {args.seed}")
    print(f"{'relations':>10} {'pairs':>6} {'ms/match':>9} {'matches/s':>10} "
          f"{'mappings/s':>11} {'growth':>7}")
    for i, label in enumerate(labels):
        r = results[label]
        growth = "" if i == 0 else f"x{r['growth_vs_' + labels[i - 1]]:.1f}"
        print(f"{label:>10} {int(r['pairs']):>6} {r['ms_per_match']:>9.3f} "
              f"{r['matches_per_s']:>10.0f} {r['mappings_per_s']:>11.0f} {growth:>7}")


if __name__ == "__main__":
    main()
