"""Running a ``bench/`` script as its own process from a test, scratch files under the test's
folder (``TMPDIR``), its last output line read as JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def bench_json(script: str, args: list[str], tmp: Path) -> dict:
    """Run ``bench/<script>`` with ``args`` (and ``--json``); its result, after checking it
    exited cleanly."""
    run = subprocess.run(
        [sys.executable, f"bench/{script}", *args, "--json"],
        cwd=ROOT,
        env={**os.environ, "TMPDIR": str(tmp)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr[-2000:]
    return json.loads(run.stdout.splitlines()[-1])
