"""Finding a suite's stored run: suites (learning, blending) store their runs as bench runs
whose id starts with the suite's prefix."""

from __future__ import annotations

from typing import Any


def newest_done_run(store: Any, prefix: str) -> dict | None:
    """The newest finished bench run whose id starts with ``prefix`` (``list_bench_runs`` is
    newest first), with its config, or None."""
    for r in store.list_bench_runs():
        if str(r["run_id"]).startswith(prefix) and r.get("status") == "done":
            return store.get_bench_run(r["run_id"])
    return None
