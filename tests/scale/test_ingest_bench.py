"""``bench/ingest.py --onto``: the ingest bench adds into a copy of a saved memory (its indexes
opened from the snapshot), leaves the original untouched, and its floor inserts only the rows
the bench appended."""

from __future__ import annotations

import importlib.util
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from analogist.store.ingest_floor import TABLES, raw_insert_floor, table_tops
from tests.scale.episodes import lines
from tests.scale.test_persisted_indexes import open_memory

ROOT = Path(__file__).resolve().parents[2]


def counts(db: Path) -> dict[str, int]:
    conn = sqlite3.connect(db)
    try:
        return {t: conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES}
    finally:
        conn.close()


def test_the_floor_takes_only_the_rows_past_the_tops(tmp_path):
    db = tmp_path / "m.db"
    m = open_memory(db, persist=False)
    m.add(lines(3, 0, 30))
    before = counts(db)
    tops = table_tops(db)
    m.add(lines(3, 30, 20))
    m.store.close()
    after = counts(db)
    raw_insert_floor(db, tmp_path / "floor.db", 7, tops)
    assert counts(tmp_path / "floor.db") == {t: after[t] - before[t] for t in TABLES}
    assert counts(tmp_path / "floor.db")["episodes"] == 20
    raw_insert_floor(db, tmp_path / "whole.db", 7)  # without tops: every row
    assert counts(tmp_path / "whole.db") == after


def test_the_bench_adds_onto_a_copy_and_leaves_the_memory_as_it_was(tmp_path):
    db = tmp_path / "m.db"
    m = open_memory(db)
    m.add(lines(4, 0, 120))
    assert m.indexes.save() is not None
    m.store.close()
    stamp = (counts(db), db.stat().st_mtime_ns, sorted(os.listdir(f"{db}.idx")))
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    run = subprocess.run(
        [sys.executable, "bench/ingest.py", "--sizes", "60", "--batch", "25"]
        + ["--per-item", "5", "--onto", str(db), "--pretouch", "2", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    r = json.loads(run.stdout.strip().splitlines()[-1])
    assert r["n"] == 60 and r["onto_episodes"] == 120 and r["per_episode"]["n"] == 5
    assert r["bulk"]["phase_cpu"]["fold"] > 0  # the snapshot's indexes were open and folded into
    touch = r["first_touch"]  # the machine's first-touch costs, measured in the same run
    assert set(touch) == {"anonymous_4k", "huge_2m", "page_cache"} and min(touch.values()) >= 0
    assert r["pretouch_mb"] == 2  # the diagnostic ran and is recorded with the figures
    assert (counts(db), db.stat().st_mtime_ns, sorted(os.listdir(f"{db}.idx"))) == stamp
    missing = subprocess.run(
        [sys.executable, "bench/ingest.py", "--sizes", "5", "--onto", str(tmp_path / "no.db")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert missing.returncode != 0 and "no such database file" in missing.stderr
    assert "Traceback" not in missing.stderr


def test_first_touch_measures_three_costs_and_leaves_nothing_behind(tmp_path, monkeypatch):
    spec = importlib.util.spec_from_file_location("first_touch", ROOT / "bench" / "first_touch.py")
    ft = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    monkeypatch.setitem(sys.modules, "first_touch", ft)  # (its dataclass looks its module up)
    spec.loader.exec_module(ft)  # type: ignore[union-attr]
    touch = ft.measure(mb=2, folder=str(tmp_path))
    assert all(v >= 0 for v in (touch.anonymous_4k, touch.huge_2m, touch.page_cache))
    assert "anonymous" in touch.describe() and "page-cache" in touch.describe()
    assert list(tmp_path.iterdir()) == []  # its file is deleted
