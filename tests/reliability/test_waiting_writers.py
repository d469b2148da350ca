"""Agents sharing one memory: a writer waits for another's long write instead of failing, and an
analogize result is never lost because its log write waited (issue 14 item 2)."""

from __future__ import annotations

import json
import sqlite3
import threading

import pytest
from click.testing import CliRunner

from analogist.cli.main import cli


@pytest.fixture
def db(tmp_path):
    path = str(tmp_path / "m.db")
    assert CliRunner().invoke(cli, ["--db", path, "demo"]).exit_code == 0
    return path


def hold_write_lock(path: str, seconds: float) -> tuple[threading.Thread, threading.Event]:
    """Another process-like writer: a plain connection holding the write lock for a while."""
    held = threading.Event()

    def hold() -> None:
        conn = sqlite3.connect(path, isolation_level=None)
        conn.execute("BEGIN IMMEDIATE")
        conn.execute(
            "INSERT INTO transfer_ledger (run_id, action, outcome, created_at) "
            "VALUES ('other', 'a', 'b', 'now')"
        )
        held.set()
        threading.Event().wait(seconds)
        conn.execute("COMMIT")
        conn.close()

    t = threading.Thread(target=hold)
    t.start()
    held.wait(5)
    return t, held


def test_analogize_waits_for_a_long_write_and_logs_its_run(db, monkeypatch):
    monkeypatch.setenv("ANALOGIST_DB_TIMEOUT", "30")
    t, _ = hold_write_lock(db, 2.5)  # longer than sqlite's own busy slice
    out = CliRunner().invoke(cli, ["--db", db, "analogize", "ep_fin_ledger_copy", "--json"])
    t.join()
    assert out.exit_code == 0, out.output
    run = json.loads(out.stdout)
    assert run["logged"] is True
    logged = CliRunner().invoke(cli, ["--db", db, "log", "--json"])
    assert run["run_id"] in logged.stdout


def test_analogize_past_the_bound_prints_its_result_and_one_warning(db, monkeypatch):
    monkeypatch.setenv("ANALOGIST_DB_TIMEOUT", "0.5")
    t, _ = hold_write_lock(db, 2.0)
    out = CliRunner().invoke(cli, ["--db", db, "analogize", "ep_fin_ledger_copy", "--json"])
    t.join()
    assert out.exit_code == 0, out.output
    run = json.loads(out.stdout)
    assert run["source"] is not None and run["logged"] is False
    (warning,) = out.stderr.strip().splitlines()
    assert "was not written to the analogy log" in warning and "ANALOGIST_DB_TIMEOUT" in warning
    assert "Traceback" not in out.output


@pytest.mark.parametrize("command", [["delete", "ep_fin_ledger_copy"], ["add", "EP"]])
def test_add_and_delete_past_the_bound_are_one_line_and_change_nothing(
    db, tmp_path, monkeypatch, command
):
    ep = tmp_path / "ep.jsonl"
    ep.write_text(json.dumps({"id": "ep_new", "kind": "observation", "text": "x"}) + "\n")
    command = [str(ep) if c == "EP" else c for c in command]
    before = CliRunner().invoke(cli, ["--db", db, "list", "--json"]).stdout
    monkeypatch.setenv("ANALOGIST_DB_TIMEOUT", "0.3")
    t, _ = hold_write_lock(db, 1.0)
    out = CliRunner().invoke(cli, ["--db", db, *command])
    t.join()
    assert out.exit_code == 1
    assert out.stderr.count("\n") == 1 and "stayed locked by another writer" in out.stderr
    assert CliRunner().invoke(cli, ["--db", db, "list", "--json"]).stdout == before
