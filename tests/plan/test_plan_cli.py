"""`analogist plan`: table and --json output, PDDL input, one-line errors."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from analogist.cli.main import cli
from analogist.plan.pddl import to_pddl
from tests.plan.helpers import DATA, pair


@pytest.fixture()
def run(tmp_path, monkeypatch):
    monkeypatch.setenv("ANALOGIST_EMBEDDER", "hashing")
    db = str(tmp_path / "m.db")
    runner = CliRunner()

    def go(*args):
        return runner.invoke(cli, ["--db", db, *args])

    assert go("demo").exit_code == 0
    return go


def test_plan_prints_the_skeleton_table_and_the_plan_with_provenance(run):
    r = run("plan", str(DATA / "cache_key_rotation.json"))
    assert r.exit_code == 0, r.output
    assert "projected skeleton:" in r.output and "matched" in r.output
    assert "provenance" in r.output and "logged as run_" in r.output


def test_plan_json(run):
    r = run("plan", str(DATA / "cache_key_rotation.json"), "--json", "--search", "bfs")
    d = json.loads(r.output)
    assert (
        d["repair"]["valid"]
        and d["skeleton"]["matched"] == 4
        and d["config"]["planner"] == "pyperplan bfs"
    )


def test_plan_reads_pddl(run, tmp_path):
    target, _, _, _ = pair()
    text = to_pddl(target.block, dict(target.roles))
    (tmp_path / "d.pddl").write_text(text.domain)
    (tmp_path / "p.pddl").write_text(text.problem)
    r = run("plan", str(tmp_path / "p.pddl"), "--domain", str(tmp_path / "d.pddl"), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["repair"]["valid"]


def test_bad_input_is_one_line(run, tmp_path):
    (tmp_path / "bad.json").write_text('{"id": "x", "kind": "plan", "text": "t", "signature": 3}')
    r = run("plan", str(tmp_path / "bad.json"))
    assert r.exit_code == 1 and "Traceback" not in r.output
    assert len(r.output.strip().splitlines()) == 1
