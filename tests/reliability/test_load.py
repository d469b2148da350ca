"""A short run of bench/load.py: 4 writer and 4 reader processes on one database lose nothing,
invent nothing and print no traceback. The full 60 s run: ``python bench/load.py`` (or set
ANALOGIST_LOAD_SECONDS=60 for this test)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from tests.conftest import REPO


def test_four_writers_and_four_readers_lose_nothing(tmp_path):
    seconds = os.environ.get("ANALOGIST_LOAD_SECONDS", "3")
    out = subprocess.run(
        [
            sys.executable,
            str(REPO / "bench" / "load.py"),
            "--seconds",
            seconds,
            "--db",
            str(tmp_path / "load.db"),
            "--json",
        ],
        check=False,
        capture_output=True,
        text=True,
        timeout=float(seconds) + 180,
    )
    assert "Traceback" not in out.stderr, out.stderr
    result = json.loads(out.stdout)
    (run,) = result["runs"]
    assert out.returncode == 0 and result["survived"] == 1, run
    assert run["lost"] == 0 and run["phantom"] == 0 and run["tracebacks"] == 0
    assert run["episodes_confirmed"] > 0 and run["reads"] > 0
    assert run["write_wait_s"]["n"] >= run["batches"]
