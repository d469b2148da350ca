"""``analogist index``: writes the snapshot (incremental, or --full deciding lists or a graph
per level again); refuses in one line where there is nothing to write."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from analogist.cli.main import cli
from analogist.retrieve.ann import available as ann_available
from tests.scale.episodes import lines


def run(db: Path, *args: str, env: dict | None = None):
    return CliRunner().invoke(cli, ["--db", str(db), "--embedder", "hashing", *args], env=env)


def test_index_writes_the_snapshot_and_full_decides_again(tmp_path):
    db = tmp_path / "m.db"
    src = tmp_path / "eps.jsonl"
    src.write_text("\n".join(lines(4, 0, 30)) + "\n")
    assert run(db, "add", str(src)).exit_code == 0
    out = run(db, "index", "--json")
    assert out.exit_code == 0, out.output
    facts = json.loads(out.output)
    assert not facts["full"] and Path(facts["snapshot"]).is_dir()
    assert "L2 per-dimension lists (exact)" in facts["vector_search"]
    manifest = json.loads((Path(facts["snapshot"]) / "manifest.json").read_text())
    assert manifest["indexes"]["vec:L2:hashing-384-bi"]["lists"]
    graph = run(db, "index", "--full", env={"ANALOGIST_VECTOR_INDEX": "hnsw"})
    assert graph.exit_code == 0 and "full: True" in graph.output
    want = "L2 HNSW graph" if ann_available() is None else "L2 exact scan"
    assert want in graph.output


def test_index_refuses_in_one_line_where_nothing_can_be_written(tmp_path):
    assert run(tmp_path / "empty.db", "index").exit_code == 0  # an empty snapshot is fine
    off = run(tmp_path / "m.db", "index", env={"ANALOGIST_PERSIST_INDEXES": "0"})
    assert off.exit_code == 1 and "Traceback" not in off.output
    assert off.output.strip().startswith("error: this memory keeps no index snapshot")
