"""Ingest of pre-encoded signatures: episodes per CPU-second and per wall second, by phase.

Generates seeded structured signatures as JSON lines (``bench/retrieval.py``'s generator; not
timed), then ingests them into a fresh SQLite memory with every retrieval index built (as a
long-lived agent process holds them), in three ways measured in the same run:

* **bulk**: :meth:`analogist.memory.Memory.add` with batches of ``--batch`` lines (the path
  ``analogist add`` and ``Memory.add_jsonl`` take);
* **per-episode**: one ``Memory.add`` call per line (what an agent adding one episode does),
  on the first ``--per-item`` lines of a second fresh memory;
* **floor**: raw ``executemany`` of exactly the rows the bulk path stored (read back
  afterwards) into the same tables of a bare database — no FTS, no secondary index, no trigger,
  one transaction per batch — i.e. what SQLite alone needs to take the bytes.

The bulk path is timed per phase by wrapping the methods ``Memory.add`` calls (nothing is
re-implemented here), each once per batch so that the timers cost nothing per episode:
*read+validate* (``Memory._accept``: ``json.loads``, limits, signature parsing, the check
that the ids are new; until the twelfth session ``Memory._parse`` was timed once per
episode, and those timer calls, ~2–4 µs per episode, were charged to the bulk figure),
*derive* (``Memory._derive``: embeddings, WL fingerprint, MAC features), *write*
(``Store.add_episodes``: the SQLite transaction), *fold* (``Indexes.on_add``: in-memory
indexes), *other* (the rest of ``add``). CPU time (``time.process_time``) is the figure to
trust on a shared machine; wall time is printed beside it. The bulk path's CPU is also split
into user and kernel time, with its page faults (``getrusage``): memory the process or the
page cache touches for the first time shows up as kernel time, not in any Python profile, and
what a first touch costs depends on the machine's state (on the VM this was measured on,
0.4–30 µs per 4 KB page, as the hypervisor had taken the guest's free memory back or not:
``bench/first_touch.py``). So the run measures those costs just before the bulk path and
prints them beside the split.

With ``--cold`` no index is built before adding (as in ``analogist add``, a process that opens
the memory, adds and closes: its indexes catch up from the database at the next open or save),
so there is no *fold* phase. ``--embedder random`` takes the embedding cost out (random unit
vectors of the same shape) to show analogist's own share. The first line says whether the
compiled core (mypyc: parsing, WL/MAC, posting lists) or the pure-Python source runs
(``ANALOGIST_PURE_PYTHON=1`` for the latter: the two can be compared in one checkout). The
garbage collector's work is timed too (``gc.callbacks``): ``Memory.add`` pauses it for a bulk
add (``analogist/collector.py``), so collections the bench's own code triggers between the
adds are charged to the bulk path, and the number of full collections is printed.

With ``--onto PATH`` the episodes go into a copy of a saved memory (``PATH`` and its snapshot
folder ``PATH.idx``, copied into a temporary folder; the original is not touched) instead of an
empty one: its indexes open from the snapshot (mapped; a tail for what is added), as in an agent
process that opens a large memory and adds to it, and the B-trees, FTS segments and id tables
are those of a memory of that size. The per-episode path then adds to the same copy, and the
floor inserts only the rows the bulk path appended. The ids are ``onto_<i>`` (``one_<i>`` for
the per-episode path), so they do not meet the ``ep_<i>`` of a memory this bench or
``bench/retrieval.py`` made.

Usage: ``nice -n 15 python bench/ingest.py [--sizes 10000,100000] [--batch 5000]
[--per-item 500] [--embedder hashing|random] [--cold] [--onto PATH] [--json]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import os
import random
import resource
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("OMP_NUM_THREADS", "1")

from first_touch import FirstTouch, pretouch  # noqa: E402
from first_touch import measure as first_touch  # noqa: E402
from retrieval import generate, make_embedder  # noqa: E402

from analogist import compiled  # noqa: E402
from analogist.memory import Memory  # noqa: E402
from analogist.store.ingest_floor import raw_insert_floor, table_tops  # noqa: E402

PHASES = ("read+validate", "derive", "embed", "write", "fold")


class Clock:
    """Accumulated CPU and wall seconds per phase."""

    def __init__(self) -> None:
        self.cpu = dict.fromkeys(PHASES, 0.0)
        self.wall = dict.fromkeys(PHASES, 0.0)

    def wrap(self, phase: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def timed(*args: Any, **kwargs: Any) -> Any:
            c0, t0 = time.process_time(), time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.cpu[phase] += time.process_time() - c0
                self.wall[phase] += time.perf_counter() - t0

        return timed


class TimedEmbedder:
    """The memory's embedder, its ``embed`` timed as the ``derive: embed`` share of derive."""

    def __init__(self, inner: Any, clock: Clock):
        self.inner, self.name, self.dim = inner, inner.name, inner.dim
        self.embed = clock.wrap("embed", inner.embed)


class CollectorClock:
    """CPU time of Python's garbage collections (``gc.callbacks``), inside ``Memory.add`` and
    between the adds, and the number of full (oldest-generation) collections."""

    def __init__(self) -> None:
        self.inside, self.full = False, 0
        self.inside_cpu = self.outside_cpu = 0.0
        self._started = 0.0

    def callback(self, phase: str, info: dict) -> None:
        if phase == "start":
            self._started = time.process_time()
            return
        spent = time.process_time() - self._started
        if self.inside:
            self.inside_cpu += spent
        else:
            self.outside_cpu += spent
        self.full += info.get("generation") == 2


def fresh_memory(folder: str, name: str, embedder: str, cold: bool = False) -> Memory:
    """A new memory with every index built, so ``add`` folds into them as a live process does
    (``cold``: none built, as in ``analogist add``, whose indexes catch up at the next open)."""
    m = Memory(os.path.join(folder, name), embedder=make_embedder(embedder))
    if not cold:
        idx = m.indexes
        idx.fingerprints(), idx.mac(), [idx.vectors(lv) for lv in ("L0", "L2", "L3")]
        idx.derivatives()
    return m


def batches(n: int, batch: int, seed: int, prefix: str = "ep_") -> Iterator[list[str]]:
    """The ``n`` JSON lines in batches (generated as needed, so 1M lines are never all held)."""
    rng = random.Random(seed)
    for a in range(0, n, batch):
        yield [json.dumps(generate(rng, f"{prefix}{i}")) for i in range(a, min(n, a + batch))]


def copy_memory(onto: str, folder: str) -> None:
    """``onto`` and its snapshot folder, copied to ``folder``/bulk.db (the bench never writes
    to the original), then flushed to disk: otherwise the kernel writes the copy's ~4 GB back
    (at 1M) while the adds are timed, which made their figures swing by ±10 %."""
    if not os.path.isfile(onto):
        raise SystemExit(f"--onto {onto}: no such database file; pass a memory's .db path")
    shutil.copyfile(onto, os.path.join(folder, "bulk.db"))
    if os.path.isdir(onto + ".idx"):
        shutil.copytree(onto + ".idx", os.path.join(folder, "bulk.db.idx"), symlinks=True)
    os.sync()


def bulk(folder: str, n: int, batch: int, embedder: str, seed: int, cold: bool, onto: bool) -> dict:
    m = fresh_memory(folder, "bulk.db", embedder, cold)
    clock = Clock()
    m._accept = clock.wrap("read+validate", m._accept)  # type: ignore[method-assign]
    m._derive = clock.wrap("derive", m._derive)  # type: ignore[method-assign]
    m.store.add_episodes = clock.wrap("write", m.store.add_episodes)  # type: ignore[method-assign]
    m.indexes.on_add = clock.wrap("fold", m.indexes.on_add)  # type: ignore[method-assign]
    m.embedder = TimedEmbedder(m.embedder, clock)
    cpu = wall = 0.0
    kernel = {"user": 0.0, "sys": 0.0, "faults": 0}
    collector = CollectorClock()
    gc.callbacks.append(collector.callback)
    try:
        for lines in batches(n, batch, seed, "onto_" if onto else "ep_"):
            collector.inside = True
            r0 = resource.getrusage(resource.RUSAGE_SELF)
            c0, t0 = time.process_time(), time.perf_counter()
            report = m.add(lines)
            cpu += time.process_time() - c0
            wall += time.perf_counter() - t0
            r1 = resource.getrusage(resource.RUSAGE_SELF)
            kernel["user"] += r1.ru_utime - r0.ru_utime
            kernel["sys"] += r1.ru_stime - r0.ru_stime
            kernel["faults"] += r1.ru_minflt - r0.ru_minflt + r1.ru_majflt - r0.ru_majflt
            collector.inside = False
            assert not report.rejected, report.rejected[:2]
    finally:
        gc.callbacks.remove(collector.callback)
    memo = getattr(m, "structures", None)  # absent before the structure memo (a baseline run)
    m.store.close()
    return {  # collections between the adds (in the generator's code) are charged to the bulk path
        "cpu": cpu + collector.outside_cpu,
        "wall": wall + collector.outside_cpu,
        "gc": {
            "full_collections": collector.full,
            "cpu_inside_add": collector.inside_cpu,
            "cpu_outside_add": collector.outside_cpu,
        },
        "phase_cpu": clock.cpu,
        "phase_wall": clock.wall,
        "rusage": kernel,
        "structures": {"hits": memo.hits, "misses": memo.misses} if memo else None,
    }


def per_episode(folder: str, n: int, embedder: str, seed: int, cold: bool, onto: bool) -> dict:
    lines = next(batches(n, n, seed, "one_" if onto else "ep_"))
    m = fresh_memory(folder, "bulk.db" if onto else "single.db", embedder, cold)
    c0, t0 = time.process_time(), time.perf_counter()
    for line in lines:
        assert not m.add([line]).rejected
    out = {"cpu": time.process_time() - c0, "wall": time.perf_counter() - t0}
    m.store.close()
    return out


def floor(folder: str, batch: int, after: dict[str, int]) -> dict:
    """Raw executemany of the rows the bulk run stored (past ``after``) into bare tables."""
    return raw_insert_floor(
        os.path.join(folder, "bulk.db"), os.path.join(folder, "floor.db"), batch, after
    )


def run_size(
    n: int,
    batch: int,
    per_item: int,
    embedder: str,
    seed: int,
    cold: bool,
    onto: str | None,
    pretouch_mb: int = 0,
) -> dict:
    with tempfile.TemporaryDirectory(
        prefix="analogist-ingest-", dir=os.environ.get("TMPDIR")
    ) as folder:
        base: dict[str, int] = {}
        if onto:
            copy_memory(onto, folder)
            base = table_tops(os.path.join(folder, "bulk.db"))
        touch = first_touch(folder=folder)  # this machine's state, just before the bulk path
        if pretouch_mb:  # a diagnostic (see bench/first_touch.py), said in the header
            pretouch(pretouch_mb)
        b = bulk(folder, n, batch, embedder, seed, cold, bool(onto))
        f = floor(folder, batch, base)
        s = per_episode(folder, min(per_item, n), embedder, seed, cold, bool(onto))
        size_mb = os.path.getsize(os.path.join(folder, "bulk.db")) / 2**20
    s["n"] = min(per_item, n)
    return {
        "n": n,
        "onto": onto,
        "onto_episodes": base.get("episodes", 0),
        "batch": batch,
        "embedder": embedder,
        "cold": cold,
        "bulk": b,
        "floor": f,
        "per_episode": s,
        "db_mb": size_mb,
        "first_touch": dataclasses.asdict(touch),
        "pretouch_mb": pretouch_mb,
        "compiled": compiled.status().compiled,
    }


def report(r: dict) -> None:
    n, b, f, s = r["n"], r["bulk"], r["floor"], r["per_episode"]
    print(
        f"\n== {n:,} episodes, batches of {r['batch']:,}, embedder {r['embedder']}, "
        f"indexes {'not built (cold)' if r['cold'] else 'built (folded into)'}, "
        f"db {r['db_mb']:.0f} MB =="
    )
    if r.get("onto"):
        print(
            f"added onto a copy of {r['onto']} ({r['onto_episodes']:,} episodes, snapshot opened)"
        )
    if r.get("pretouch_mb"):
        print(
            f"DIAGNOSTIC: {r['pretouch_mb']:,} MB touched and freed just before the adds "
            "(--pretouch; not how an agent runs: compare with a run without it)"
        )
    print(f"{'path':<14}{'/CPU-s':>10}{'/s wall':>10}{'us/ep CPU':>11}{'x floor (CPU)':>15}")
    fl = f["cpu"] / n
    for name, cpu, wall, k in (
        ("bulk", b["cpu"], b["wall"], n),
        ("per-episode", s["cpu"], s["wall"], s["n"]),
        ("floor", f["cpu"], f["wall"], n),
    ):
        print(
            f"{name:<14}{k / cpu:>10,.0f}{k / wall:>10,.0f}{cpu / k * 1e6:>11.0f}"
            f"{cpu / k / fl:>15.1f}"
        )
    print(f"bulk vs per-episode (CPU per episode): {s['cpu'] / s['n'] / (b['cpu'] / n):.2f}x")
    other = b["cpu"] - sum(v for p, v in b["phase_cpu"].items() if p != "embed")
    print("bulk, per phase (us/episode CPU; wall):")
    for p in PHASES:
        label = "  of which embed" if p == "embed" else p
        print(
            f"  {label:<16}{b['phase_cpu'][p] / n * 1e6:>6.0f}{b['phase_wall'][p] / n * 1e6:>10.0f}"
        )
    print(f"  {'other':<16}{other / n * 1e6:>6.0f}")
    ru = b.get("rusage")
    if ru:
        print(
            f"bulk CPU split: user {ru['user'] / n * 1e6:.0f} + kernel {ru['sys'] / n * 1e6:.0f} "
            f"us/episode; {ru['faults'] / n:.2f} page faults per episode"
        )
    if r.get("first_touch"):
        print(FirstTouch(**r["first_touch"]).describe())
    g = b.get("gc")
    if g:
        print(
            f"garbage collector: {g['full_collections']} full collections; "
            f"{g['cpu_inside_add'] / n * 1e6:.0f} us/episode in collections inside add, "
            f"{g['cpu_outside_add'] / n * 1e6:.0f} between the adds (counted in bulk above)"
        )
    st = b["structures"] or {"hits": 0, "misses": n}
    print(
        f"distinct structures derived: {st['misses']:,} of {st['hits'] + st['misses']:,} "
        f"signatures (memo hit rate {st['hits'] / max(1, st['hits'] + st['misses']):.2f})"
    )
    print(f"target 5,000/CPU-s (200 us/episode): {'MET' if n / b['cpu'] >= 5000 else 'not met'}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--batch", type=int, default=5000)
    ap.add_argument("--per-item", type=int, default=500)
    ap.add_argument("--embedder", choices=("hashing", "random"), default="hashing")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--cold", action="store_true", help="no index built before adding")
    ap.add_argument("--onto", help="add into a copy of this saved memory (.db path)")
    ap.add_argument(
        "--pretouch",
        type=int,
        default=0,
        metavar="MB",
        help="diagnostic: touch and free this much memory just before the adds, to show how "
        "much kernel time is the host backing freed memory again (bench/first_touch.py)",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if not args.json:
        print(compiled.status().describe())
    for n in (int(x) for x in args.sizes.split(",")):
        r = run_size(
            n,
            args.batch,
            args.per_item,
            args.embedder,
            args.seed,
            args.cold,
            args.onto,
            args.pretouch,
        )
        print(json.dumps(r)) if args.json else report(r)


if __name__ == "__main__":
    main()
