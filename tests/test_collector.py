"""A bulk add runs with the cyclic garbage collector paused, and leaves it as it found it."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

from analogist.collector import collector_paused
from analogist.memory import Memory
from analogist.models.embedding import HashingEmbedder
from analogist.store.store import BULK_MIN


@pytest.fixture
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    gc.enable() if was else gc.disable()


def test_paused_then_restored_even_after_an_error(collector_on: None) -> None:
    with pytest.raises(RuntimeError), collector_paused():
        assert not gc.isenabled()
        raise RuntimeError("boom")
    assert gc.isenabled()
    with collector_paused(False):
        assert gc.isenabled()


def test_a_caller_that_turned_it_off_keeps_it_off(collector_on: None) -> None:
    gc.disable()
    with collector_paused():
        pass
    assert not gc.isenabled()


def _lines(n: int, start: int = 0) -> list[dict]:
    return [{"id": f"e{i}", "kind": "observation", "text": f"w{i} queue"} for i in range(start, n)]


def test_a_bulk_add_pauses_it_and_a_single_add_does_not(
    collector_on: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[bool] = []
    m = Memory(":memory:", embedder=HashingEmbedder())
    real = m._accept

    def spy(*args: Any, **kwargs: Any) -> Any:
        seen.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(m, "_accept", spy)
    assert len(m.add(_lines(BULK_MIN)).added) == BULK_MIN
    assert m.add(_lines(BULK_MIN + 1, BULK_MIN)).added == [f"e{BULK_MIN}"]
    assert seen == [False, True] and gc.isenabled()


def test_an_index_built_from_the_database_is_built_with_it_paused(
    collector_on: None, tmp_path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with Memory(tmp_path / "m.db", embedder=HashingEmbedder()) as m:
        m.add(_lines(3))
    seen: list[bool] = []
    with Memory(tmp_path / "m.db", embedder=HashingEmbedder()) as m:
        real = m.store.signatures_after

        def spy(*args: Any, **kwargs: Any) -> Any:
            seen.append(gc.isenabled())
            return real(*args, **kwargs)

        monkeypatch.setattr(m.store, "signatures_after", spy)
        assert len(m.indexes.mac()) == 0  # observations have no signature
    assert seen == [False] and gc.isenabled()
