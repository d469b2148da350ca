"""Export / import rate and memory: ``analogist export`` and ``analogist import`` on a memory
of N generated episodes.

Per size, in separate child processes (so each peak RSS is that stage's own): build the memory
(seeded structured signatures from ``bench/retrieval.py``'s generator, through
:meth:`Memory.add` in batches; not timed here), export it to JSONL, import the file into a new
SQLite database, export that again (the two files must be byte-identical), and with ``--db``
import into a fresh PostgreSQL database and export from it (records identical). The floor,
measured in the same run, is copying the database file (and its WAL) with an fsync: moving
the bytes, no decoding (the bench may not open SQLite itself: tests/store/test_boundary.py).
Every time is printed as a ratio to it. Peak RSS per stage across sizes shows whether export
and import stream (it should stay flat as the memory grows).

Usage: ``nice -n 15 python bench/transfer.py [--sizes 2000,10000] [--embedder random|hashing]
[--db postgresql://USER@HOST:PORT/DB] [--json]``
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from itertools import zip_longest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _peak_mb() -> float:
    """Peak RSS of this process image (VmHWM; ``ru_maxrss`` would carry the parent's peak
    across fork and exec)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _same_records(a: Path, b: Path) -> bool:
    """Equal files after their header lines, compared line by line (streamed)."""
    with open(a, "rb") as fa, open(b, "rb") as fb:
        next(fa, None), next(fb, None)
        return all(x == y for x, y in zip_longest(fa, fb))


def build(db: str, n: int, embedder: str, seed: int) -> dict:
    from retrieval import generate, make_embedder

    from analogist.memory import Memory

    memory = Memory(db, embedder=make_embedder(embedder))
    rng = random.Random(seed)
    t0 = time.perf_counter()
    for start in range(0, n, 5000):
        lines = [json.dumps(generate(rng, f"ep_{i}")) for i in range(start, min(n, start + 5000))]
        assert not memory.add(lines).rejected
    memory.store.close()
    return {"build_s": time.perf_counter() - t0}


def stage(name: str, db: str, path: str) -> dict:
    """One timed stage in this (child) process."""
    from analogist.store.transfer import export_to
    from analogist.store.transfer_import import import_from

    t0 = time.perf_counter()
    if name == "copy":
        for suffix in ("", "-wal"):
            if os.path.exists(db + suffix):
                shutil.copyfile(db + suffix, path + suffix)
        with open(path, "rb+") as f:
            os.fsync(f.fileno())
        return {"s": time.perf_counter() - t0, "peak_mb": _peak_mb()}
    report = export_to(db, path) if name == "export" else import_from(path, db)
    return {
        "s": time.perf_counter() - t0,
        "records": report.records,
        "episodes": dict(report.counts)["episodes"],
        "bytes": Path(path).stat().st_size,
        "peak_mb": _peak_mb(),
    }


def _child(*args: str) -> dict:
    env = {**os.environ, "ANALOGIST_PERSIST_INDEXES": "0", "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(
        [sys.executable, __file__, *args], capture_output=True, text=True, env=env
    )
    if proc.returncode != 0:
        raise SystemExit(f"{args[:2]} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def run_size(n: int, embedder: str, seed: int, pg: str | None) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="analogist-transfer-"))
    src, out = str(tmp / "a.db"), {"size": n}
    out.update(_child("--build", src, "--one-size", str(n), "--embedder", embedder))
    out["copy"] = _child("--stage", "copy", src, str(tmp / "copy.db"))
    out["export"] = _child("--stage", "export", src, str(tmp / "a.jsonl"))
    out["import"] = _child("--stage", "import", str(tmp / "b.db"), str(tmp / "a.jsonl"))
    out["export_again"] = _child("--stage", "export", str(tmp / "b.db"), str(tmp / "b.jsonl"))
    out["identical"] = filecmp.cmp(tmp / "a.jsonl", tmp / "b.jsonl", shallow=False)
    out["db_mb"] = os.path.getsize(src) / 2**20
    if pg:
        from analogist.store.postgres import drop_database, fresh_database

        url = fresh_database(pg, f"_transfer_{n}")
        out["import_pg"] = _child("--stage", "import", url, str(tmp / "a.jsonl"))
        out["export_pg"] = _child("--stage", "export", url, str(tmp / "p.jsonl"))
        out["identical_pg"] = _same_records(tmp / "a.jsonl", tmp / "p.jsonl")
        drop_database(url)
    shutil.rmtree(tmp, ignore_errors=True)
    return out


def report(r: dict) -> None:
    floor = r["copy"]["s"]
    print(
        f"\n{r['size']:,} episodes: db {r['db_mb']:.1f} MB, JSONL "
        f"{r['export']['bytes'] / 2**20:.1f} MB, {r['export']['records']:,} records; "
        f"floor (file copy) {floor:.3f} s, peak RSS {r['copy']['peak_mb']:.0f} MB"
    )
    stages = ["export", "import", "export_again", "import_pg", "export_pg"]
    for name in [s for s in stages if s in r]:
        x = r[name]
        print(
            f"  {name:<13} {x['s']:7.2f} s  {x['episodes'] / x['s']:8,.0f} episodes/s  "
            f"{x['records'] / x['s']:8,.0f} records/s  {x['bytes'] / 2**20 / x['s']:6.1f} MB/s  "
            f"{x['s'] / floor:6.1f}x floor  peak RSS {x['peak_mb']:.0f} MB"
        )
    same = "identical" if r["identical"] else "DIFFERENT"
    pg = {True: ", PostgreSQL records identical", False: ", PostgreSQL records DIFFER"}
    print(f"  second export {same}{pg.get(r.get('identical_pg'), '')}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="2000,10000")
    ap.add_argument("--embedder", choices=("random", "hashing"), default="random")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--db",
        help="postgresql://USER@HOST:PORT/DB: also import into / export "
        "from a fresh database on this server",
    )
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--build", help=argparse.SUPPRESS)
    ap.add_argument("--one-size", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--stage", nargs=3, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.build:
        print(json.dumps(build(args.build, args.one_size, args.embedder, args.seed)))
        return
    if args.stage:
        print(json.dumps(stage(*args.stage)))
        return
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    results = []
    for n in [int(s) for s in args.sizes.split(",")]:
        results.append(run_size(n, args.embedder, args.seed, args.db))
        if not args.json:
            report(results[-1])
    if args.json:
        print(json.dumps(results, indent=1))
    if not all(r["identical"] and r.get("identical_pg", True) for r in results):
        raise SystemExit("a round trip was not identical")


if __name__ == "__main__":
    main()
