"""An agent's one-shot processes on one memory: how long each ``analogist search`` takes as
``analogist add`` calls pile up episodes past the index snapshot.

An agent that calls analogist as a tool runs a new process per call. ``analogist add`` writes
the database and builds no index; the next process that searches folds every episode added
since the live snapshot in from the database (parsing their rows) before it answers, and so
does every process after it until a snapshot covers them. This bench runs that loop with real
subprocesses of the CLI: per round, one ``analogist add`` of ``--batch`` episodes, then one
``analogist search`` (every channel) of a stored episode. It prints, per round, how far the
database was past the snapshot before the search (:meth:`analogist.retrieve.indexes.Indexes.behind`),
each process's wall and CPU seconds (``RUSAGE_CHILDREN``), which process wrote a snapshot, and
the search as a ratio to the baseline: the same search on the memory with a current snapshot,
measured first in the same run.

The memory is a copy of ``--onto PATH`` (a saved memory, e.g. one ``bench/retrieval.py --keep``
wrote; the original is not touched) or a new one of ``--size`` generated episodes, saved first.
Subprocesses use this checkout's code (``PYTHONPATH``), so a worktree's ``src`` can be measured
by pointing ``--src`` at it. Hashing embedder; ids ``loop_<round>_<i>``.

Usage: ``python bench/agent_loop.py [--size 20000 | --onto PATH] [--rounds 12] [--batch 2000]
[--src DIR] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("OMP_NUM_THREADS", "1")

from ingest import copy_memory  # noqa: E402
from retrieval import generate  # noqa: E402

from analogist.memory import Memory  # noqa: E402
from analogist.models.embedding import HashingEmbedder  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


def make_memory(db: Path, size: int, seed: int) -> None:
    """A new memory of ``size`` generated episodes with a current snapshot."""
    rng = random.Random(seed)
    m = Memory(db, embedder=HashingEmbedder())
    for a in range(0, size, 5000):
        m.add([json.dumps(generate(rng, f"ep_{i}")) for i in range(a, min(size, a + 5000))])
    m.indexes.save()
    m.store.close()


@contextmanager
def scratch_memory(prefix: str, onto: str | None, size: int, seed: int) -> Iterator[Path]:
    """A copy of ``onto`` (a saved memory's .db path; the original is not touched) or a new
    memory of ``size`` generated episodes, in a temporary folder (under ``TMPDIR``) that is
    removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir=os.environ.get("TMPDIR")))
    try:
        db = folder / "bulk.db"
        if onto:
            copy_memory(onto, str(folder))
        else:
            make_memory(db, size, seed)
        yield db
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def live(db: Path) -> str:
    """The live snapshot's folder name ('' when there is none)."""
    try:
        return os.readlink(f"{db}.idx/current")
    except OSError:
        return ""


def behind(db: Path) -> tuple[int, int]:
    m = Memory(db, embedder=HashingEmbedder())
    try:
        return m.indexes.behind()
    finally:
        m.store.close()


def cli(db: Path, src: Path, *args: str) -> dict:
    """Run ``analogist --db db --embedder hashing ARGS`` in a new process: wall and CPU
    seconds, and whether it wrote a snapshot."""
    env = {**os.environ, "PYTHONPATH": str(src)}
    before, r0 = live(db), resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    run = subprocess.run(
        [sys.executable, "-c", "from analogist.cli.main import cli; cli()"]
        + ["--db", str(db), "--embedder", "hashing", *args],
        env=env,
        capture_output=True,
        text=True,
    )
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode != 0:
        raise SystemExit(f"analogist {args[0]} failed: {run.stderr.strip()[-400:]}")
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return {"wall": wall, "cpu": cpu, "saved": live(db) != before}


def loop(db: Path, src: Path, rounds: int, batch: int, seed: int, target: str) -> dict:
    """``rounds`` of one ``add`` of ``batch`` new episodes then one ``search`` of ``target``,
    after a baseline search on the memory as given."""
    rng = random.Random(seed)
    base = cli(db, src, "search", target)
    out = []
    for r in range(rounds):
        path = db.parent / f"add_{r}.jsonl"
        path.write_text(
            "".join(json.dumps(generate(rng, f"loop_{r}_{i}")) + "\n" for i in range(batch))
        )
        add = cli(db, src, "add", str(path))
        gap, total = behind(db)
        search = cli(db, src, "search", target)
        out.append({"round": r + 1, "behind": gap, "episodes": total, "add": add, "search": search})
    return {"baseline": base, "rounds": out}


def report(res: dict, src: Path) -> None:
    b = res["baseline"]
    print(f"code: {src}")
    print(f"baseline search (snapshot current): {b['wall']:.2f} s wall, {b['cpu']:.2f} CPU-s")
    print(
        f"{'round':>5}{'episodes':>11}{'behind':>9}{'add s':>8}{'add CPU':>9}{'saved':>7}"
        f"{'search s':>10}{'CPU':>7}{'saved':>7}{'x base':>8}"
    )
    for r in res["rounds"]:
        a, s = r["add"], r["search"]
        print(
            f"{r['round']:>5}{r['episodes']:>11,}{r['behind']:>9,}{a['wall']:>8.2f}{a['cpu']:>9.2f}"
            f"{'yes' if a['saved'] else '':>7}{s['wall']:>10.2f}{s['cpu']:>7.2f}"
            f"{'yes' if s['saved'] else '':>7}{s['cpu'] / max(b['cpu'], 1e-9):>8.1f}"
        )
    worst = max(r["search"]["wall"] for r in res["rounds"])
    print(f"slowest search: {worst:.2f} s wall (target: open + first answer <= 2 s at 1M)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=20000)
    ap.add_argument("--onto", help="a copy of this saved memory (.db path) instead of --size")
    ap.add_argument("--rounds", type=int, default=12)
    ap.add_argument("--batch", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--src", default=str(ROOT / "src"), help="the analogist code to run")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    with scratch_memory("analogist-loop-", args.onto, args.size, args.seed) as db:
        res = loop(db, Path(args.src), args.rounds, args.batch, args.seed + 1, "ep_0")
    print(json.dumps(res)) if args.json else report(res, Path(args.src))


if __name__ == "__main__":
    main()
