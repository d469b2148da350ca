"""Crash tests' one harness: run a script in a child process and kill -9 it at a given point."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def kill_when(script: str, db: Path, ready: str) -> None:
    """Run ``script`` (``python -c``, the database path as ``sys.argv[1]``) and kill -9 it as
    soon as it prints the line ``ready``."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(db)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=env,
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == ready
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    assert child.returncode == -signal.SIGKILL
