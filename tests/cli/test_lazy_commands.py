"""The root group imports a command's module only when that command runs, and still lists,
and runs, every command: the lazy table names each one as its own definition does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import click
from click.testing import CliRunner

from analogist.cli.main import COMMANDS, cli

ROOT = Path(__file__).resolve().parents[2]


def test_every_command_loads_under_its_own_name():
    for name, load in COMMANDS.items():
        command = load()
        assert isinstance(command, click.Command) and command.name == name
    bench = COMMANDS["bench"]()
    assert isinstance(bench, click.Group)
    assert {"run", "report", "runs", "private", "external"} <= set(bench.commands)


def test_help_lists_every_command():
    out = CliRunner().invoke(cli, ["--help"])
    assert out.exit_code == 0
    listed = {line.split()[0] for line in out.output.split("Commands:")[1].splitlines() if line}
    assert listed == set(COMMANDS)
    assert CliRunner().invoke(cli, ["bench", "--help"]).exit_code == 0
    bad = CliRunner().invoke(cli, ["serach"])
    assert bad.exit_code == 2 and "No such command 'serach'" in bad.output


def test_a_command_imports_only_its_own_module(tmp_path):
    code = (
        "import json, sys\n"
        "from analogist.cli.main import cli\n"
        f"cli(['--db', {str(tmp_path / 'm.db')!r}, '--embedder', 'hashing', 'search', 'x'],"
        " standalone_mode=False)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('analogist.cli.'))))\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr[-2000:]
    loaded = set(json.loads(run.stdout.strip().splitlines()[-1]))
    assert "analogist.cli.search_cmd" in loaded
    assert not loaded & {"analogist.cli.analogize_cmd", "analogist.cli.bench_cmd"}
