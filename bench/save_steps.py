"""Incremental snapshot saves in a row: CPU and wall seconds per save, and what each kept.

An agent's memory is saved every few thousand episodes (``Indexes.save_if_worthwhile``), so a
save's cost should follow what was added, not the memory's size. This script opens a copy of a
saved memory (``--onto PATH``, e.g. one ``bench/retrieval.py --keep`` wrote; the original is
not touched) or a new one of ``--size`` generated episodes, opens every index from its
snapshot, then ``--saves`` times adds ``--add`` episodes (batches of ``--batch``, folded into
the open indexes as a long-lived agent process does) and times ``Indexes.save()``. Per save it
prints CPU and wall seconds and, from the manifest, whether S0's and S1's postings, the id
tables and S0's WL-hash table kept their base and how large their delta is (a field an older
snapshot format does not write prints as ``-``).

The saves run in a child process on the code under ``--src`` (default: this checkout's), so
two versions are compared by running the script twice on copies of the same memory.

Usage: ``python bench/save_steps.py (--onto PATH | --size N) [--add 10000] [--saves 6]
[--batch 5000] [--seed 0] [--src DIR] [--json]``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from agent_loop import scratch_memory  # noqa: E402
from retrieval import generate  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
#: Manifest fields reported per index (absent in older snapshot formats).
FIELDS = (
    ("postings", "postings_base_kept", "postings_delta"),
    ("ids", "ids_base_kept", "ids_delta"),
    ("hashes", "hashes_base_kept", "hashes_delta"),
)


def steps(db: str, add: int, saves: int, batch: int, seed: int) -> dict:
    """The child: open ``db``'s indexes, then ``saves`` times add ``add`` episodes and save."""
    from analogist.memory import Memory
    from analogist.models.embedding import HashingEmbedder

    m = Memory(db, embedder=HashingEmbedder())
    idx = m.indexes
    idx.fingerprints(), idx.mac(), [idx.vectors(lv) for lv in ("L0", "L2", "L3")]
    rng, out = random.Random(seed), []
    start = m.store.count()
    for step in range(saves):
        for a in range(0, add, batch):
            first = step * add + a
            lines = [
                json.dumps(generate(rng, f"save_{first + i}")) for i in range(min(batch, add - a))
            ]
            report = m.add(lines)
            if report.rejected:
                raise SystemExit(f"an add was rejected: {report.rejected[0]}")
        c0, t0 = time.process_time(), time.perf_counter()
        folder = idx.save()
        cpu, wall = time.process_time() - c0, time.perf_counter() - t0
        assert folder is not None
        man = json.loads((folder / "manifest.json").read_text())["indexes"]
        kept = {
            f"{name}:{key}": (entry.get(flag), entry.get(size))
            for key, entry in sorted(man.items())
            for name, flag, size in FIELDS
            if flag in entry
        }
        out.append({"episodes": start + (step + 1) * add, "cpu": cpu, "wall": wall, "kept": kept})
    m.store.close()
    return {"code": str(Path(str(sys.modules["analogist"].__file__)).parent), "saves": out}


def report(res: dict) -> None:
    print(f"code: {res['code']}")
    print(f"{'save':>4} {'episodes':>10} {'CPU s':>7} {'wall s':>7}  indexes that kept their base")
    for i, s in enumerate(res["saves"]):
        parts = []
        for name, _, _ in FIELDS:
            got = [v for k, v in s["kept"].items() if k.startswith(f"{name}:")]
            if got:
                delta = max(v[1] or 0 for v in got)
                parts.append(f"{name} {sum(bool(v[0]) for v in got)}/{len(got)} (delta {delta:,})")
        print(
            f"{i:>4} {s['episodes']:>10,} {s['cpu']:>7.2f} {s['wall']:>7.2f}  {', '.join(parts) or '-'}"
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--onto", help="a copy of this saved memory (.db path)")
    ap.add_argument("--size", type=int, default=20000, help="else a new memory of this many")
    ap.add_argument("--add", type=int, default=10000, help="episodes added before each save")
    ap.add_argument("--saves", type=int, default=6)
    ap.add_argument("--batch", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--src", default=str(ROOT / "src"), help="the analogist code to run")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(steps(args.child, args.add, args.saves, args.batch, args.seed + 1)))
        return
    with scratch_memory("analogist-saves-", args.onto, args.size, args.seed) as db:
        cmd = [sys.executable, __file__, "--child", str(db), "--add", str(args.add)]
        cmd += ["--saves", str(args.saves), "--batch", str(args.batch), "--seed", str(args.seed)]
        env = {**os.environ, "PYTHONPATH": args.src, "OMP_NUM_THREADS": "1"}
        run = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, text=True)
        if run.returncode != 0:
            raise SystemExit(f"the saves failed (exit {run.returncode}; stderr above)")
        res = json.loads(run.stdout.strip().splitlines()[-1])
    print(json.dumps(res)) if args.json else report(res)


if __name__ == "__main__":
    main()
