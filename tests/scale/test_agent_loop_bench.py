"""``bench/agent_loop.py`` runs real ``analogist add`` / ``analogist search`` processes on one
memory and reports, per round, how far the database was past the snapshot and which process
saved it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_loop_reports_each_round(tmp_path):
    run = subprocess.run(
        [sys.executable, "bench/agent_loop.py", "--size", "300", "--rounds", "2"]
        + ["--batch", "40", "--json"],
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    res = json.loads(run.stdout.splitlines()[-1])
    assert [(r["episodes"], r["behind"]) for r in res["rounds"]] == [(340, 40), (380, 80)]
    assert not any(r["add"]["saved"] or r["search"]["saved"] for r in res["rounds"])  # < 1,000
    assert all(r["search"]["cpu"] > 0 for r in res["rounds"])
    assert os.listdir(tmp_path) == []  # the scratch memory is removed
