"""Keeping the index snapshot near the database across one-shot processes: ``Indexes.behind``
counts the episodes the next open would fold in from the database; ``Memory.close`` — run at
the end of every CLI command that opens a memory, and after each MCP ``add_episode`` — saves
once that is worthwhile, never over another embedder's snapshot, and a failed save is one note."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from analogist.cli.main import cli
from analogist.mcp import tools
from analogist.memory import Memory
from analogist.models.embedding import HashingEmbedder
from analogist.retrieve import indexes as indexes_module
from tests.scale.episodes import lines
from tests.scale.test_persisted_indexes import open_memory


@pytest.fixture
def small_bounds(monkeypatch):
    """Save at 5 episodes behind, at 5% of the memory, or at 10 behind, whichever is reached."""
    monkeypatch.setattr(indexes_module, "SAVE_MIN", 5)
    monkeypatch.setattr(indexes_module, "SAVE_AFTER", 10)


def live(db: Path) -> str | None:
    link = Path(f"{db}.idx") / "current"
    return os.readlink(link) if link.is_symlink() else None


def run(db: Path, *args: str):
    return CliRunner().invoke(cli, ["--db", str(db), "--embedder", "hashing", *args])


def test_behind_counts_the_episodes_past_the_live_snapshot(tmp_path):
    db = tmp_path / "m.db"
    m = open_memory(db)
    m.add(lines(1, 0, 30))
    assert m.indexes.behind() == (30, 30)  # no snapshot yet: all of them
    m.indexes.save()
    assert m.indexes.behind() == (0, 30)
    m.add(lines(1, 30, 12))
    assert m.indexes.behind() == (12, 42)
    other = open_memory(db)  # another process, nothing built: the same count
    assert other.indexes.behind() == (12, 42)
    other.delete(["ep_1"])  # the snapshot no longer fits: the next open rebuilds everything
    assert other.indexes.behind() == (42, 42)
    assert open_memory(db, persist=False).indexes.behind() == (0, 0)
    m.store.close()
    other.store.close()


def test_close_saves_once_the_next_open_would_fold_in_enough(tmp_path, small_bounds):
    db = tmp_path / "m.db"
    m = open_memory(db)
    m.add(lines(2, 0, 4))
    m.close()  # 4 behind < SAVE_MIN
    assert live(db) is None
    m = open_memory(db)
    m.add(lines(2, 4, 1))  # 5: SAVE_MIN, and more than 5% of 5
    m.close()
    first = live(db)
    assert first is not None
    m = open_memory(db)
    assert m.indexes.behind() == (0, 5)
    m.add(lines(2, 5, 195))  # 195 behind: past SAVE_AFTER
    m.close()
    assert live(db) != first
    m = open_memory(db)  # 5% of 200 is 10 = SAVE_AFTER; 9 is not enough
    m.add(lines(2, 200, 9))
    m.close()
    m = open_memory(db)
    assert m.indexes.behind() == (9, 209)
    m.store.close()


def test_a_cold_writer_pays_for_the_save_and_the_snapshot_answers_the_same(tmp_path, small_bounds):
    db = tmp_path / "m.db"
    writer = Memory(db, embedder=HashingEmbedder())
    writer.add(lines(3, 0, 60))  # no index built in this process
    writer.close()  # builds them from the database and saves
    reader = open_memory(db)
    assert reader.indexes.behind() == (0, 60)
    fresh = open_memory(db, persist=False)
    for eid in ("ep_0", "ep_17", "ep_59"):
        got = reader.search(eid, channels=["S0", "S1", "S2"], k=5)
        want = fresh.search(eid, channels=["S0", "S1", "S2"], k=5)
        assert [c.episode_id for c in got.candidates] == [c.episode_id for c in want.candidates]
    reader.store.close()
    fresh.store.close()


def test_no_save_over_a_snapshot_of_another_embedder(tmp_path, small_bounds):
    db = tmp_path / "m.db"
    m = open_memory(db)
    m.add(lines(4, 0, 40))
    m.close()
    saved = live(db)
    other = Memory(db, embedder=HashingEmbedder(dim=128))
    other.add(lines(4, 40, 40))
    other.close()  # saving would drop the hashing-384 vector indexes from the snapshot
    assert live(db) == saved
    m = open_memory(db)
    assert m.indexes.behind() == (40, 80)
    m.store.close()


def test_cli_commands_keep_the_snapshot_current(tmp_path, small_bounds):
    db = tmp_path / "m.db"
    src = tmp_path / "eps.jsonl"
    src.write_text("\n".join(lines(5, 0, 30)) + "\n")
    assert run(db, "add", str(src)).exit_code == 0
    assert live(db) is not None  # the add process saved: 30 behind
    Memory(db, embedder=HashingEmbedder()).add(lines(5, 30, 12))  # a writer that never closes
    before = live(db)
    info = run(db, "info", "--json")  # a report: says how far behind, saves nothing
    assert json.loads(info.output)["snapshot_behind"] == 12 and live(db) == before
    out = run(db, "search", "-c", "S0", "ep_3")
    assert out.exit_code == 0, out.output
    assert live(db) != before  # the search folded the 12 in and saved them
    m = open_memory(db)
    assert m.indexes.behind() == (0, 42)
    m.store.close()


def test_a_failed_save_is_one_note_and_the_command_succeeds(tmp_path, small_bounds):
    db = tmp_path / "m.db"
    Path(f"{db}.idx").write_text("not a folder")  # the snapshot folder cannot be made
    src = tmp_path / "eps.jsonl"
    src.write_text("\n".join(lines(6, 0, 30)) + "\n")
    out = run(db, "add", str(src))
    assert out.exit_code == 0
    notes = [line for line in out.output.splitlines() if line.startswith("note:")]
    assert len(notes) == 1 and "could not write the index snapshot" in notes[0], out.output
    assert "Traceback" not in out.output
    assert Memory(db, embedder=HashingEmbedder()).store.count() == 30


def test_mcp_add_episode_saves_when_worthwhile(tmp_path, small_bounds):
    db = tmp_path / "m.db"
    m = Memory(db, embedder=HashingEmbedder())
    for line in lines(7, 0, 4):
        tools.add_episode(m, line)
    assert live(db) is None
    tools.add_episode(m, lines(7, 4, 1)[0])
    assert live(db) is not None and m.indexes.behind() == (0, 5)
    m.store.close()


def test_no_save_while_another_process_writes_one(tmp_path, small_bounds):
    import fcntl

    db = tmp_path / "m.db"
    m = open_memory(db)
    m.add(lines(8, 0, 30))
    root = Path(f"{db}.idx")
    root.mkdir()
    with open(root / ".lock", "a+b") as held:  # what a save holds while it writes
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)
        m.close()
        assert live(db) is None
    m = open_memory(db)
    m.close()  # the lock is free again
    assert live(db) is not None


def manifest(db: Path) -> dict:
    return json.loads((Path(f"{db}.idx") / "current" / "manifest.json").read_text())


def test_a_save_that_ends_while_another_process_decides_is_not_repeated(
    tmp_path, small_bounds, monkeypatch
):
    """Process B counts enough behind, then process A saves before B holds the lock: B counts
    again under the lock and writes nothing. When enough is still behind after A's save, B
    reopens its indexes from A's snapshot first, so its save keeps the postings' base instead
    of rewriting every posting (what its indexes, opened from an older snapshot, would do)."""
    db = tmp_path / "m.db"
    a = open_memory(db)
    a.add(lines(9, 0, 200))
    a.indexes.save()
    b = open_memory(db)
    b.search("ep_0", channels=["S0", "S1"], k=3)  # B's indexes open from that snapshot
    a.add(lines(9, 200, 20))
    real_lock, saved = indexes_module.snapshot_lock, []

    def a_saves_first(root, wait=True):
        if not saved:
            saved.append(None)
            saved[0] = a.indexes.save()  # A, between B's first count and B's lock
        return real_lock(root, wait)

    monkeypatch.setattr(indexes_module, "snapshot_lock", a_saves_first)
    assert b.indexes.save_if_worthwhile() is None
    assert live(db) == saved[0].name and b.indexes.behind() == (0, 220)

    b2 = open_memory(db)
    b2.search("ep_0", channels=["S0", "S1"], k=3)  # opened from A's second snapshot
    a.add(lines(9, 220, 20))
    saved.clear()
    monkeypatch.setattr(indexes_module, "snapshot_lock", real_lock)
    a.indexes.save()  # A saves again; 20 more arrive after it
    a.add(lines(9, 240, 20))
    mine = b2.indexes.save_if_worthwhile()
    assert mine is not None and live(db) == mine.name
    entries = manifest(db)["indexes"]
    assert entries["fp"]["postings_base_kept"] and entries["mac"]["postings_base_kept"]
    assert b2.indexes.behind() == (0, 260)
    for m in (a, b, b2):
        m.store.close()


@pytest.fixture(params=["sqlite", "postgres"])
def target(request, tmp_path, monkeypatch) -> str:
    """A fresh memory of the parametrised backend (PostgreSQL's snapshots in ``tmp_path``)."""
    if request.param == "sqlite":
        return str(tmp_path / "m.db")
    monkeypatch.setenv("ANALOGIST_INDEX_DIR", str(tmp_path / "indexes"))
    return str(request.getfixturevalue("pg_server").url())


def test_both_backends_count_what_is_behind_and_save_on_close(target, small_bounds):
    def memory() -> Memory:
        return Memory(target, embedder=HashingEmbedder())

    m = memory()
    m.add(lines(9, 0, 4))
    assert m.indexes.behind() == (4, 4)
    root = m.indexes.root
    m.close()  # 4 < SAVE_MIN: nothing written
    assert root is not None and not (root / "current").exists()
    m = memory()
    m.add(lines(9, 4, 1))
    m.close()
    assert (root / "current").is_symlink()
    m = memory()
    assert m.indexes.behind() == (0, 5)
    m.store.close()
