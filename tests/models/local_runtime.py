"""One gate for the tests that need the real local runtime and the smallest model's weights.

Missing pieces skip those tests with a loud reason, except under ``ANALOGIST_REQUIRE_LOCAL=1``
(``make test``), where they are an error: CI must never pass by skipping them.
"""

from __future__ import annotations

import importlib.util
import os

import pytest

from analogist.models.local import CATALOGUE, SMALLEST_MODEL


def missing(modules: tuple[str, ...], what: str) -> str | None:
    """What is missing of ``modules`` (``what`` names them) and the smallest model, or None."""
    for mod in modules:
        if importlib.util.find_spec(mod) is None:
            return f"{mod} is not installed ({what})"
    if not CATALOGUE[SMALLEST_MODEL].installed():
        return f"the {SMALLEST_MODEL} weights are not installed"
    return None


def require(modules: tuple[str, ...], what: str, skipped: str) -> pytest.MarkDecorator:
    """A skip mark for tests needing ``modules``; raises instead when the runtime is required."""
    gap = missing(modules, what)
    if gap and os.environ.get("ANALOGIST_REQUIRE_LOCAL") == "1":
        raise RuntimeError(f"ANALOGIST_REQUIRE_LOCAL=1 but {gap}: run `make local-test`")
    return pytest.mark.skipif(
        gap is not None, reason=f"{skipped} SKIPPED: {gap}; run `make local-test`"
    )
