"""A save that starts far behind the database (a cold bulk add) folds the missing rows in
steps of ``CATCH_UP_STEP`` per index with a snapshot after each, so it never holds more than a
step in RAM, and ends where a save in one go ends; a failing step drops the indexes. Rows the
indexes already hold (added in this process) do not count against a step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import analogist.retrieve.indexes as indexes_module
import analogist.store.index_sync as index_sync
from analogist.memory import Memory
from tests.scale.episodes import lines
from tests.scale.test_persisted_indexes import answers, fresh_answers, open_memory

STEP, CHUNK = 40, 10


def small_chunks(m: Memory, monkeypatch: pytest.MonkeyPatch) -> None:
    """The store reads source rows in chunks of ``CHUNK`` (a budget is checked per chunk)."""
    for name in ("fingerprints_after", "signatures_after", "vectors_after"):
        read = getattr(m.store, name)
        monkeypatch.setattr(m.store, name, lambda *a, _r=read, **k: _r(*a, **{**k, "size": CHUNK}))


def behind(db: Path, n: int, monkeypatch: pytest.MonkeyPatch) -> Memory:
    """A memory opened on ``n`` episodes that a process which built no index added (as
    ``analogist add`` does), with a save step of ``STEP`` rows read ``CHUNK`` at a time."""
    monkeypatch.setattr(indexes_module, "CATCH_UP_STEP", STEP)
    m = open_memory(db, persist=False)
    m.add(lines(21, 0, n))
    m.store.close()
    m = open_memory(db)
    small_chunks(m, monkeypatch)
    return m


def test_a_save_far_behind_folds_in_steps_and_answers_as_one_go(tmp_path, monkeypatch):
    db = tmp_path / "m.db"
    m = behind(db, 130, monkeypatch)
    seen: list[dict[str, int]] = []
    write = m.indexes._write_snapshot

    def spy(full: bool) -> Path | None:
        ix = m.indexes
        seen.append(
            {"fp": len(ix._fp.ids.tail), "mac": len(ix._mac.ids.tail)}  # type: ignore[union-attr]
            | {lv: len(v.ids.tail) for (lv, _), v in ix._vectors.items()}
        )
        return write(full)

    monkeypatch.setattr(m.indexes, "_write_snapshot", spy)
    folder = m.indexes.save()
    assert folder is not None and len(seen) == 4  # 40 + 40 + 40 + the last 10
    assert all(0 < t <= STEP for s in seen[:-1] for t in s.values())
    assert seen[-1] == {"fp": 10, "mac": 10, "L0": 10, "L2": 10, "L3": 10}
    entries = json.loads((folder / "manifest.json").read_text())["indexes"]
    assert {k: e["n"] for k, e in entries.items()} == {k: 130 for k in entries}
    probes = ["ep_3", "ep_77", "ep_129"]
    assert answers(m, probes) == fresh_answers(db, probes)
    m.store.close()
    reopened = open_memory(db)
    assert answers(reopened, probes) == fresh_answers(db, probes)
    reopened.store.close()


def test_a_failing_step_drops_the_indexes_and_nothing_is_missed(tmp_path, monkeypatch):
    db = tmp_path / "m.db"
    m = behind(db, 100, monkeypatch)
    write, calls = m.indexes._write_snapshot, []

    def fail_second(full: bool) -> Path | None:
        calls.append(full)
        if len(calls) == 2:
            raise OSError("disk full")
        return write(full)

    monkeypatch.setattr(m.indexes, "_write_snapshot", fail_second)
    with pytest.raises(OSError, match="disk full"):
        m.indexes.save()
    assert m.indexes._fp is None and m.indexes._mac is None and not m.indexes._vectors
    probes = ["ep_5", "ep_99"]
    assert answers(m, probes) == fresh_answers(db, probes)  # reopened and caught up in full
    m.store.close()


def test_rows_added_in_this_process_take_no_step_and_one_snapshot_is_written(tmp_path, monkeypatch):
    # The catch-up at save reads them back from the database and skips them; counted as
    # folded, a million in-process adds made a save write four snapshots at 250k a step.
    monkeypatch.setattr(indexes_module, "CATCH_UP_STEP", STEP)
    db = tmp_path / "m.db"
    m = open_memory(db)
    m.add(lines(21, 0, 30))
    assert m.indexes.save() is not None
    small_chunks(m, monkeypatch)
    m.indexes.fingerprints(), m.indexes.mac(), [m.indexes.vectors(lv) for lv in ("L0", "L2", "L3")]
    m.add(lines(21, 30, 3 * STEP + 5))  # folded into the built indexes as they are added
    writes, write = [], m.indexes._write_snapshot
    monkeypatch.setattr(
        m.indexes, "_write_snapshot", lambda full: writes.append(full) or write(full)
    )
    read, kept, unheld = [], [], index_sync._unheld  # and the catch-up parses none again

    def spy(rows: list, held: index_sync.Held | None) -> list:
        read.extend(rows)
        kept.extend(unheld(rows, held))
        return unheld(rows, held)

    monkeypatch.setattr(index_sync, "_unheld", spy)
    folder = m.indexes.save()
    monkeypatch.setattr(index_sync, "_unheld", unheld)
    assert folder is not None and writes == [False]  # one snapshot, not one per STEP rows
    assert len(read) == 5 * (3 * STEP + 5) and kept == []  # every row past the snapshot, held
    entries = json.loads((folder / "manifest.json").read_text())["indexes"]
    assert {k: e["n"] for k, e in entries.items()} == {k: 3 * STEP + 35 for k in entries}
    probes = ["ep_3", "ep_77", "ep_154"]
    assert answers(m, probes) == fresh_answers(db, probes)
    m.store.close()
