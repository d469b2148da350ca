"""Time a full PARB run in engine mode (target: mvp under 5 minutes on one core).

Prints generation time, run time per arm and in total, aggregation time, and peak memory.

    .venv/bin/python bench/parb.py [--size mvp] [--seed 0]
"""

from __future__ import annotations

import argparse
import resource
import time

from analogist.bench import generate_bench
from analogist.bench.analysis.results import aggregate
from analogist.bench.execution.runner import RunConfig, run_bench
from analogist.store import Store


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--size", default="mvp")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-boot", type=int, default=2000)
    args = ap.parse_args()
    t = time.perf_counter()
    bench = generate_bench(args.seed, "dev", args.size)
    gen = time.perf_counter() - t
    print(f"generate {args.size}: {len(bench.items)} items in {gen:.2f} s")
    store = Store(":memory:")
    total = 0.0
    arms = ("B", "C", "C′", "H", "D", "E", "G", "E+R")
    for arm in arms:
        t = time.perf_counter()
        run_bench(store, bench, RunConfig(arms=(arm,), answerers=("engine",)))
        dt = time.perf_counter() - t
        total += dt
        print(f"  arm {arm:<4} {dt:6.2f} s  ({1000 * dt / len(bench.items):.1f} ms/item)")
    t = time.perf_counter()
    rid = run_bench(store, bench, RunConfig(arms=arms, answerers=("engine",)))
    aggregate(store, rid, n_boot=args.n_boot)
    agg = time.perf_counter() - t
    print(
        f"all engine arms: {total:.2f} s; one combined run + aggregation "
        f"(n_boot={args.n_boot}): {agg:.2f} s"
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"peak RSS {peak:.0f} MiB")


if __name__ == "__main__":
    main()
