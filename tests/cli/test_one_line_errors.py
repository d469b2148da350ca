"""Every failure of issue 14 item 3 is one line on stderr naming what was wrong and what to do,
a non-zero exit, no traceback, and the store byte for byte unchanged."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from analogist.cli.main import cli


def invoke(*args: str, env: dict | None = None):
    return CliRunner().invoke(cli, list(args), env=env)


def one_line_error(out, *needles: str) -> None:
    assert out.exit_code != 0, out.output
    assert out.exception is None or isinstance(out.exception, SystemExit), repr(out.exception)
    assert "Traceback" not in out.output
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), out.stderr
    for n in needles:
        assert n in lines[0], lines[0]


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "m.db"
    assert invoke("--db", str(path), "demo").exit_code == 0
    return path


def snapshot(path: Path) -> dict:
    conn = sqlite3.connect(path)
    tables = [
        r[0]
        for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type='table' AND name NOT LIKE 'episodes_fts_%'"
        )
    ]
    out = {t: conn.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall() for t in sorted(tables)}
    conn.close()
    return out


@pytest.mark.parametrize(
    "content",
    [
        b'{"id": "ep_x", "kind": "observation", "text": "caf\xe9"}\n',  # latin-1, not UTF-8
        bytes(range(256)) * 4,  # binary
    ],
)
def test_add_of_a_file_that_is_not_utf8(db, tmp_path, content):
    f = tmp_path / "bad.jsonl"
    f.write_bytes(content)
    before = snapshot(db)
    one_line_error(invoke("--db", str(db), "add", str(f)), "not UTF-8", str(f))
    assert snapshot(db) == before


@pytest.mark.parametrize(
    "line, limit",
    [
        ("[" * 100_000 + "]" * 100_000, "MAX_JSON_DEPTH"),
        (
            '{"id": "ep_n", "kind": "observation", "text": "t", "outcome": ' + "9" * 5000 + "}",
            "MAX_NUMBER_CHARS",
        ),
    ],
)
def test_add_of_deep_json_or_a_huge_number_names_the_limit(db, tmp_path, line, limit):
    f = tmp_path / "bad.jsonl"
    f.write_text(line + "\n")
    before = snapshot(db)
    out = invoke("--db", str(db), "add", str(f))
    assert out.exit_code == 1 and "Traceback" not in out.output
    assert "rejected line 1: " in out.stdout and limit in out.stdout
    assert snapshot(db) == before


@pytest.mark.parametrize("name", ["episodes.jsonl", "notes.txt"])
def test_db_that_is_not_sqlite_is_refused_and_left_alone(tmp_path, name):
    f = tmp_path / name
    f.write_text('{"id": "ep_1", "kind": "observation", "text": "hello"}\n' * 50)
    before = f.read_bytes()
    one_line_error(invoke("--db", str(f), "list"), "is not an analogist database", "--db")
    assert f.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]


def test_db_of_another_program_is_refused(tmp_path):
    f = tmp_path / "other.db"
    conn = sqlite3.connect(f)
    conn.execute("CREATE TABLE invoices (id INTEGER)")
    conn.close()
    one_line_error(invoke("--db", str(f), "list"), "another program")
    tables = sqlite3.connect(f).execute("SELECT name FROM sqlite_master").fetchall()
    assert tables == [("invoices",)]


def make_read_only(folder: Path) -> bool:
    """chattr +i when root (permissions do not stop root), else chmod; False if neither works."""
    if (
        shutil.which("chattr")
        and subprocess.run(
            ["chattr", "+i", str(folder), *map(str, folder.iterdir())],
            capture_output=True,
            check=False,
        ).returncode
        == 0
    ):
        return True
    for p in [*folder.iterdir(), folder]:
        p.chmod(0o555 if p.is_dir() else 0o444)
    probe = folder / ".probe"
    try:
        probe.write_text("x")
    except OSError:
        return True
    probe.unlink()
    return False


def undo_read_only(folder: Path) -> None:
    if shutil.which("chattr"):
        subprocess.run(
            ["chattr", "-i", str(folder), *map(str, folder.iterdir())],
            capture_output=True,
            check=False,
        )
    folder.chmod(0o755)
    for p in folder.iterdir():
        p.chmod(0o644)


def test_read_only_database_reads_work_and_writes_are_one_line(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    path = folder / "m.db"
    assert invoke("--db", str(path), "demo").exit_code == 0
    listed = invoke("--db", str(path), "list", "--json").stdout
    if not make_read_only(folder):
        pytest.skip("cannot make a folder read-only here")
    try:
        out = invoke("--db", str(path), "list", "--json")
        assert out.exit_code == 0, out.output
        assert out.stdout == listed
        assert invoke("--db", str(path), "show", "ep_fin_ledger_copy").exit_code == 0
        one_line_error(
            invoke("--db", str(path), "delete", "ep_fin_ledger_copy"),
            "read-only",
            "nothing was written",
        )
    finally:
        undo_read_only(folder)
    assert invoke("--db", str(path), "list", "--json").stdout == listed


def test_database_from_a_newer_schema_is_read_only(db):
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO schema_migrations VALUES ('9999_from_the_future', 'x')")
    conn.commit()
    conn.close()
    before = snapshot(db)
    assert invoke("--db", str(db), "list").exit_code == 0
    one_line_error(
        invoke("--db", str(db), "delete", "ep_fin_ledger_copy"),
        "newer analogist",
        "9999_from_the_future",
        "upgrade",
    )
    assert snapshot(db) == before


@pytest.mark.parametrize(
    "config, needle",
    [
        ({"db": 5}, "'db' must be a non-empty string"),
        ({"db": {"path": "x"}}, "'db' must be a string or a number"),
        ("{not json", "is not valid JSON"),
    ],
)
def test_invalid_config_file_is_one_line_and_creates_nothing(tmp_path, monkeypatch, config, needle):
    home = tmp_path / "conf"
    (home / "analogist").mkdir(parents=True)
    text = config if isinstance(config, str) else json.dumps(config)
    (home / "analogist" / "config.json").write_text(text)
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("ANALOGIST_DB", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    one_line_error(invoke("list"), "config file", needle, "fix or delete it")
    assert not (tmp_path / "5").exists() and not (tmp_path / "data").exists()


def test_bench_run_with_seeds_that_are_not_integers(tmp_path):
    one_line_error(
        invoke(
            "--db",
            str(tmp_path / "b.db"),
            "bench",
            "run",
            "--seeds",
            "a,b",
            "--size",
            "small",
            "--answerers",
            "engine",
            "--out",
            str(tmp_path / "o"),
        ),
        "--seeds",
        "'a' is not an integer",
    )


def test_bench_generate_into_an_unwritable_folder():
    one_line_error(
        invoke(
            "bench",
            "generate",
            "--seed",
            "0",
            "--split",
            "dev",
            "--size",
            "small",
            "--out",
            "/proc/x",
        ),
        "/proc/x",
    )


def test_bench_folder_with_invalid_utf8(tmp_path):
    out_dir = tmp_path / "bench"
    assert (
        invoke(
            "bench",
            "generate",
            "--seed",
            "0",
            "--split",
            "dev",
            "--size",
            "small",
            "--out",
            str(out_dir),
        ).exit_code
        == 0
    )
    items = out_dir / "items.jsonl"
    items.write_bytes(items.read_bytes()[:100] + b"\xff\xfe" + items.read_bytes()[100:])
    one_line_error(
        invoke(
            "--db",
            str(tmp_path / "b.db"),
            "bench",
            "run",
            "--bench",
            str(out_dir),
            "--answerers",
            "engine",
            "--out",
            str(tmp_path / "o"),
        ),
        "not UTF-8",
        "regenerate",
    )


def test_analogize_text_the_model_cannot_encode(db, tmp_path):
    answers = tmp_path / "answers.json"
    answers.write_text(json.dumps(["no signature here", "still none"]))
    before = snapshot(db)
    one_line_error(
        invoke(
            "--db",
            str(db),
            "analogize",
            "the cache served a stale price",
            "--model",
            f"scripted:{answers}",
        ),
        "could not encode the target text",
        "signature .json file",
    )
    calls = ("llm_calls", "sqlite_sequence")  # the failed model calls are logged, nothing else
    assert {k: v for k, v in snapshot(db).items() if k not in calls} == {
        k: v for k, v in before.items() if k not in calls
    }


@pytest.mark.parametrize(
    "content", [b"{not json", b"[" * 50_000, b"\xff\xfe{}", b'{"episode_id": ' + b"9" * 5000 + b"}"]
)
def test_analogize_and_map_with_a_broken_json_file(db, tmp_path, content):
    sig = tmp_path / "target.json"
    sig.write_bytes(content)
    before = snapshot(db)
    one_line_error(invoke("--db", str(db), "analogize", str(sig)), str(sig))
    one_line_error(invoke("--db", str(db), "map", str(sig), "ep_fin_ledger_copy"), str(sig))
    assert snapshot(db) == before
