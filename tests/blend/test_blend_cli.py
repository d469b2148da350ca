"""``analogist analogize --blend``: blends appear in the printed and logged record with their
inputs; without the flag nothing is blended."""

import json

from click.testing import CliRunner

from analogist.cli.main import cli
from tests.blend.test_blend import BACK, FRONT, UNRELATED


def test_analogize_blend_flag(tmp_path, spec_example):
    db = tmp_path / "m.sqlite"
    eps = tmp_path / "eps.jsonl"
    eps.write_text(
        "\n".join(
            json.dumps(
                {
                    "id": r["episode_id"],
                    "kind": "failure",
                    "text": r["levels"]["L0"],
                    "signature": r,
                }
            )
            for r in (FRONT, BACK, UNRELATED)
        )
        + "\n"
    )
    target = tmp_path / "target.json"
    target.write_text(json.dumps({k: v for k, v in spec_example.items() if k != "fix_operator"}))
    runner = CliRunner()
    added = runner.invoke(cli, ["--db", str(db), "add", str(eps)])
    assert added.exit_code == 0, added.output
    res = runner.invoke(cli, ["--db", str(db), "analogize", str(target), "--blend", "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output[res.output.index("{") :])
    assert any(c.startswith("bld:") for c in out["candidates"])
    assert any(a.get("blends") for a in out["attempts"])
    text = runner.invoke(cli, ["--db", str(db), "analogize", str(target), "--blend"])
    assert "found_by=[BLD] (generated blend of" in text.output
    plain = runner.invoke(cli, ["--db", str(db), "analogize", str(target), "--json"])
    assert not any(
        c.startswith("bld:")
        for c in json.loads(plain.output[plain.output.index("{") :])["candidates"]
    )
    logged = runner.invoke(cli, ["--db", str(db), "log", out["run_id"], "--json"])
    assert "bld:" in logged.output
