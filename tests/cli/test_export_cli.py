"""`analogist export` / `analogist import` through the real CLI: --db and ANALOGIST_DB select
the memory, stdout/stdin work, bad input is one line with exit status 1 and nothing written."""

from __future__ import annotations

import json

from click.testing import CliRunner

from analogist.cli.main import cli
from analogist.store import Store
from tests.store.export_cases import dump, fill


def _memory(path) -> str:
    with Store(path) as s:
        fill(s)
    return str(path)


def test_export_then_import_by_file_and_by_pipe(tmp_path, monkeypatch):
    src = _memory(tmp_path / "a.db")
    runner = CliRunner()
    out = runner.invoke(cli, ["--db", src, "export", str(tmp_path / "a.jsonl")])
    assert out.exit_code == 0, out.output
    assert "exported to" in out.stdout and "7 episodes" in out.stdout
    got = runner.invoke(cli, ["--db", str(tmp_path / "b.db"), "import", str(tmp_path / "a.jsonl")])
    assert got.exit_code == 0 and "imported into" in got.stdout, got.output
    piped = runner.invoke(cli, ["--db", str(tmp_path / "b.db"), "export"])  # stdout
    assert piped.exit_code == 0 and piped.stdout_bytes == (tmp_path / "a.jsonl").read_bytes()
    assert "exported" in piped.stderr
    monkeypatch.setenv("ANALOGIST_DB", str(tmp_path / "c.db"))
    again = runner.invoke(cli, ["import", "-", "--json"], input=piped.stdout_bytes)
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["tables"]["episodes"] == 7
    with Store(src) as a, Store(tmp_path / "c.db") as c:
        assert dump(a) == dump(c)


def test_bad_input_is_one_line_and_writes_nothing(tmp_path):
    src = _memory(tmp_path / "a.db")
    runner = CliRunner()
    data = runner.invoke(cli, ["--db", src, "export"]).stdout_bytes
    bad = tmp_path / "bad.jsonl"
    bad.write_bytes(data.replace(b'"table":"signatures"', b'"table":"signature"', 1))
    target = tmp_path / "new.db"
    out = runner.invoke(cli, ["--db", str(target), "import", str(bad)])
    assert out.exit_code == 1 and out.stdout == ""
    (line,) = out.stderr.splitlines()
    assert line.startswith(f"error: {bad} line ") and "'signature' is not one the header" in line
    assert not target.exists()
    full = runner.invoke(cli, ["--db", src, "import", "-"], input=data)
    assert full.exit_code == 1 and "not empty" in full.stderr and len(full.stderr.splitlines()) == 1
    missing = runner.invoke(cli, ["--db", str(tmp_path / "nope.db"), "export", "x.jsonl"])
    assert missing.exit_code == 1 and "no memory at" in missing.stderr
    assert not (tmp_path / "nope.db").exists()
    nodir = runner.invoke(cli, ["--db", src, "export", str(tmp_path / "no" / "x.jsonl")])
    assert nodir.exit_code == 1 and "folder" in nodir.stderr and "does not exist" in nodir.stderr
    nofile = runner.invoke(cli, ["--db", str(target), "import", str(tmp_path / "no.jsonl")])
    assert nofile.exit_code == 1 and "cannot access" in nofile.stderr
    assert not target.exists()


def test_help_says_what_is_exported_and_how_import_fails():
    runner = CliRunner()
    exp = runner.invoke(cli, ["export", "--help"]).output
    assert "Lossless" in exp and "postgresql://" in exp and "header" in exp
    imp = runner.invoke(cli, ["import", "--help"]).output
    assert "All or nothing" in imp and "must be empty" in imp
