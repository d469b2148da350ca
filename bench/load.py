"""Load test: several agents sharing one memory database (issue 14).

W writer processes and R reader processes run for S seconds (bounded) against one database
file. Writers add episodes through :meth:`analogist.memory.Memory.add` (what ``analogist add``
does: parse, fingerprint, embed, one transaction), mostly small batches and every tenth a long
one of 300 episodes, and log a model call now and then; readers count, list ids, run a text
search and read an episode back, without pause. Each process writes what it saw to a JSON file.

Checked afterwards: every episode a writer was told was stored is in the database (lost = 0),
nothing is there that no writer stored (phantom = 0), no process printed a traceback or exited
non-zero, and no reader ever failed. Reported: the p50/p95/max wait for the write lock
(``Store.write_waits``), reader latency p50/p95/max, episodes and batches written, writes that
hit the bound (``ANALOGIST_DB_TIMEOUT``, reported, not lost: they were never confirmed).

Writers embed with the configured embedder (``ANALOGIST_EMBEDDER``; MiniLM by default where
installed, which makes each write much slower and contention lower than with ``hashing``).

Usage: ``python bench/load.py [--writers 4] [--readers 4] [--seconds 60] [--runs 1]
[--db PATH] [--json]``; exit status 1 when any run lost, invented or crashed anything.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
import time
from importlib import resources
from pathlib import Path

LONG_BATCH, LONG_EVERY = 300, 10


def _templates() -> list[dict]:
    text = resources.files("analogist.data").joinpath("example_memory.jsonl").read_text("utf-8")
    return [json.loads(ln) for ln in text.splitlines() if ln.strip()]


def _episode(template: dict, eid: str) -> str:
    rec = json.loads(json.dumps(template))
    rec["id"] = eid
    if rec.get("signature"):
        rec["signature"]["episode_id"] = eid
    return json.dumps(rec)


def writer(db: str, index: int, seconds: float, out: str) -> None:
    from analogist.errors import StoreBusyError
    from analogist.memory import Memory
    from analogist.store import Store
    from analogist.store.calls import CallLog, CallRecord

    rng, templates = random.Random(index), _templates()
    store = Store(db)
    memory, log = Memory(store), CallLog(store)
    stored, busy, batches, n = [], 0, 0, 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        size = LONG_BATCH if batches % LONG_EVERY == LONG_EVERY - 1 else rng.randint(1, 8)
        ids = [f"w{index}_{n + i}" for i in range(size)]
        n += size
        lines = [_episode(rng.choice(templates), i) for i in ids]
        try:
            report = memory.add(lines)
            if report.rejected:
                raise RuntimeError(f"writer {index}: rejected {report.rejected[0]}")
            stored.extend(report.added)
            if batches % 3 == 0:
                log.record(
                    CallRecord(
                        cache_key=f"w{index}_{batches}",
                        provider="load",
                        model="none",
                        request={"batch": batches},
                    )
                )
        except StoreBusyError:
            busy += 1
        batches += 1
    result = {
        "role": "writer",
        "index": index,
        "stored": stored,
        "batches": batches,
        "busy": busy,
        "waits": store.write_waits(),
    }
    store.close()
    Path(out).write_text(json.dumps(result))


def reader(db: str, index: int, seconds: float, out: str) -> None:
    from analogist.store import Store

    rng = random.Random(1000 + index)
    store = Store(db)
    latencies, reads = [], 0
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        t0 = time.monotonic()
        store.count()
        ids = store.episode_ids()
        store.bm25("cache expired stale replica", limit=10)
        if ids:
            store.get_episode(rng.choice(ids))
        latencies.append(time.monotonic() - t0)
        reads += 1
    store.close()
    Path(out).write_text(
        json.dumps({"role": "reader", "index": index, "reads": reads, "latencies": latencies})
    )


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    s = sorted(values)
    return s[min(len(s) - 1, round(q * (len(s) - 1)))]


def run_once(db: str, writers: int, readers: int, seconds: float) -> dict:
    """One load run on ``db``; the figures and checks as a dict."""
    from analogist.store import Store

    Store(db).close()  # create and migrate once, before the crowd arrives
    work = Path(tempfile.mkdtemp(prefix="analogist-load-"))
    procs = []
    for role, count in (("writer", writers), ("reader", readers)):
        for i in range(count):
            out = work / f"{role}{i}.json"
            cmd = [sys.executable, __file__, "worker", role, db, str(i), str(seconds), str(out)]
            procs.append(
                (
                    role,
                    i,
                    out,
                    subprocess.Popen(
                        cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
                    ),
                )
            )
    results, crashes, tracebacks = [], [], 0
    for role, i, out, p in procs:
        try:
            stdout, stderr = p.communicate(timeout=seconds + 120)
        except subprocess.TimeoutExpired:
            p.kill()
            stdout, stderr = p.communicate()
        tracebacks += (stdout + stderr).count("Traceback")
        if p.returncode != 0 or not out.exists():
            crashes.append(f"{role} {i}: exit {p.returncode}: {stderr.strip()[-300:]}")
            continue
        results.append(json.loads(out.read_text()))
    ws = [r for r in results if r["role"] == "writer"]
    rs = [r for r in results if r["role"] == "reader"]
    confirmed = {e for w in ws for e in w["stored"]}
    store = Store(db)
    present = set(store.episode_ids())
    store.close()
    waits = [x for w in ws for x in w["waits"]]
    lat = [x for r in rs for x in r["latencies"]]
    from analogist.retrieve.embedder_choice import configured_embedder

    return {
        "writers": writers,
        "readers": readers,
        "seconds": seconds,
        "embedder": configured_embedder().name,
        "episodes_confirmed": len(confirmed),
        "episodes_present": len(present),
        "lost": len(confirmed - present),
        "phantom": len(present - confirmed),
        "batches": sum(w["batches"] for w in ws),
        "busy_bound_hit": sum(w["busy"] for w in ws),
        "reads": sum(r["reads"] for r in rs),
        "crashes": crashes,
        "tracebacks": tracebacks,
        "write_wait_s": {
            "p50": _pct(waits, 0.5),
            "p95": _pct(waits, 0.95),
            "max": max(waits, default=0.0),
            "n": len(waits),
        },
        "read_latency_s": {
            "p50": _pct(lat, 0.5),
            "p95": _pct(lat, 0.95),
            "max": max(lat, default=0.0),
            "n": len(lat),
        },
    }


def ok(result: dict) -> bool:
    return (
        result["lost"] == 0
        and result["phantom"] == 0
        and not result["crashes"]
        and result["tracebacks"] == 0
    )


def _line(n: int, r: dict) -> str:
    w, rl = r["write_wait_s"], r["read_latency_s"]
    return (
        f"run {n}: {'ok' if ok(r) else 'FAILED'}  episodes {r['episodes_present']} "
        f"(confirmed {r['episodes_confirmed']}, lost {r['lost']}, phantom {r['phantom']})  "
        f"batches {r['batches']}  bound hit {r['busy_bound_hit']}  reads {r['reads']}  "
        f"write wait p50 {w['p50'] * 1000:.1f} ms p95 {w['p95'] * 1000:.1f} ms "
        f"max {w['max'] * 1000:.0f} ms  read p95 {rl['p95'] * 1000:.1f} ms  "
        f"tracebacks {r['tracebacks']}  crashes {len(r['crashes'])}  embedder {r['embedder']}"
    )


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "worker":
        role, db, index, seconds, out = argv[1:6]
        (writer if role == "writer" else reader)(db, int(index), float(seconds), out)
        return 0
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--readers", type=int, default=4)
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--db", help="database file (default: a new temporary one per run)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    runs = []
    for n in range(1, args.runs + 1):
        db = args.db or str(Path(tempfile.mkdtemp(prefix="analogist-load-db-")) / "load.db")
        runs.append(run_once(db, args.writers, args.readers, args.seconds))
        if not args.json:
            print(_line(n, runs[-1]), flush=True)
    survived = sum(ok(r) for r in runs)
    if args.json:
        print(json.dumps({"runs": runs, "survived": survived}, indent=2))
    else:
        print(f"{survived} of {len(runs)} run(s) survived (0 lost, 0 phantom, 0 tracebacks)")
    return 0 if survived == len(runs) else 1


if __name__ == "__main__":
    sys.exit(main())
