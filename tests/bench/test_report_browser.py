"""A real report, rendered from a small engine run, opened in a real headless browser (Debian's
``chromium``): a screenshot is taken and the page logs no console error.

Without chromium the test skips with the reason, except under CI (``CI=true``), where the
browser is part of the job (``.ci/run`` installs it) and its absence is a failure.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from analogist.bench.analysis.report import write_report
from analogist.bench.execution.runner import RunConfig, Runner
from analogist.store import Store

from .parb_helpers import bench

CONSOLE = re.compile(r":CONSOLE[^\]]*\]\s*(.*)")


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    if path:
        return path
    why = "chromium is not installed (apt-get install -y chromium)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{why}; CI must install it (.ci/run) so the report is checked in a browser")
    pytest.skip(why)


def _open(page: Path, shot: Path, profile: Path) -> list[str]:
    """Load ``page`` headless, write a screenshot to ``shot``, return the console errors."""
    cmd = [
        _chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        f"--user-data-dir={profile}",
        "--window-size=1280,2400",
        f"--screenshot={shot}",
        "--enable-logging=stderr",
        "--v=0",
        page.resolve().as_uri(),
    ]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return [m.group(1) for m in CONSOLE.finditer(proc.stderr)]


def test_the_browser_check_sees_console_errors(tmp_path):
    """The check itself can fail: a page that throws is caught."""
    bad = tmp_path / "bad.html"
    bad.write_text("<html><body>x<script>console.error('boom'); nope();</script></body></html>")
    errors = _open(bad, tmp_path / "bad.png", tmp_path / "profile")
    assert any("boom" in e for e in errors) and any("nope" in e for e in errors)


def test_a_real_report_opens_in_a_headless_browser(tmp_path, monkeypatch):
    monkeypatch.setenv("ANALOGIST_EMBEDDER", "hashing")
    store = Store(str(tmp_path / "p.db"))
    config = RunConfig(
        arms=("B", "C", "C′", "D", "E", "ISO"), answerers=("engine",), contamination=False
    )
    run_id = Runner(store, bench(1, "dev", "small"), config).run()
    paths = write_report(store, run_id, tmp_path / "out", n_boot=200)
    page = Path(paths["html"])
    html = page.read_text(encoding="utf-8")
    assert html.index("Conclusion") < html.index("<h2>Bench</h2>")
    assert "§" not in html and "Piper" not in html
    assert "hashing" in html  # the embedder each arm used
    shot = tmp_path / "report.png"
    errors = _open(page, shot, tmp_path / "profile")
    assert errors == []
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 10_000
