"""`analogist bench run` writes the report directory and prints the scoreboard; `bench report`
re-renders the same results from stored rows without re-running."""

import json

from click.testing import CliRunner

from analogist.cli.main import cli


def test_bench_run_then_report(tmp_path):
    db, out, again = tmp_path / "b.db", tmp_path / "out", tmp_path / "again"
    runner = CliRunner()
    res = runner.invoke(
        cli,
        [
            "--db",
            str(db),
            "bench",
            "run",
            "--size",
            "small",
            "--arms",
            "C,E",
            "--answerers",
            "engine,model",
            "--n-boot",
            "100",
            "--out",
            str(out),
        ],
        catch_exceptions=False,
        env={"ANALOGIST_MODEL": ""},
    )
    assert res.exit_code == 0, res.output
    assert "10 Analogical reasoning" in res.output and "Latest — PARB" in res.output
    results = json.loads((out / "results.json").read_text())
    assert set(results["answerers"]) == {"engine"}
    assert "no model configured" in results["skipped"]["E/model"]
    assert (out / "report.html").read_text().startswith("<!DOCTYPE html>")
    run_id = results["run_id"]
    rep = runner.invoke(
        cli,
        ["--db", str(db), "bench", "report", run_id, "--n-boot", "100", "--out", str(again)],
        catch_exceptions=False,
    )
    assert rep.exit_code == 0
    assert json.loads((again / "results.json").read_text()) == results
    listed = runner.invoke(cli, ["--db", str(db), "bench", "runs"])
    assert run_id in listed.output


def test_bench_report_unknown_run_is_a_clear_error(tmp_path):
    res = CliRunner().invoke(
        cli,
        ["--db", str(tmp_path / "x.db"), "bench", "report", "nope", "--out", str(tmp_path / "o")],
    )
    assert res.exit_code == 1 and "bench runs" in res.output
