"""`analogist consolidate`, `schemas` and `vocab --proposals` through the CLI."""

from __future__ import annotations

import json

from click.testing import CliRunner

from analogist.cli.main import cli
from tests.learn.helpers import episode, other, sig


def test_consolidate_schemas_undo(tmp_path):
    db = str(tmp_path / "m.db")
    lines = tmp_path / "eps.jsonl"
    lines.write_text(
        "\n".join(
            episode(s)
            for s in (
                sig("ep_a_1", ("P", "Q", "R")),
                sig("ep_b_2", ("U", "V", "W")),
                other("ep_x_9"),
            )
        )
    )
    r = CliRunner()
    base = ["--db", db, "--embedder", "hashing"]
    assert r.invoke(cli, [*base, "add", str(lines)]).exit_code == 0
    assert r.invoke(cli, [*base, "analogize", "ep_b_2", "--json"]).exit_code == 0
    dry = r.invoke(cli, [*base, "consolidate", "--dry-run", "--json"])
    assert json.loads(dry.output)["run_id"] is None
    out = r.invoke(cli, [*base, "consolidate", "--json"])
    report = json.loads(out.output)
    (schema,) = report["schemas"]
    shown = r.invoke(cli, [*base, "schemas", schema["schema_id"]])
    assert "p=1.00 relation depends_on" in shown.output
    listed = json.loads(r.invoke(cli, [*base, "schemas", "--json"]).output)
    assert listed[0]["induced"] is True
    props = json.loads(r.invoke(cli, [*base, "vocab", "--proposals", "--json"]).output)
    assert props["telemetry"]["depends_on"]["verified"] == 1
    undo = r.invoke(cli, [*base, "consolidate", "--undo", report["run_id"]])
    assert undo.exit_code == 0 and "restored" in undo.output
    assert json.loads(r.invoke(cli, [*base, "schemas", "--json"]).output) == []
    again = r.invoke(cli, [*base, "consolidate", "--undo", report["run_id"]])
    assert again.exit_code == 1 and "already undone" in again.output
    bad = r.invoke(cli, [*base, "consolidate", "--merge", "nonsense"])
    assert bad.exit_code == 1 and "OLD=INTO" in bad.output
