"""The memory commands: add / show / list / vocab / delete / demo through the real CLI."""

import json

import pytest
from click.testing import CliRunner

from analogist.cli.main import cli


@pytest.fixture
def run(tmp_path):
    db = str(tmp_path / "m.db")
    runner = CliRunner()

    def call(*args, input=None):
        return runner.invoke(cli, ["--db", db, *args], input=input, catch_exceptions=False)

    return call


def rows(run):
    return json.loads(run("list", "--json").output)


def test_spec_example_round_trips_through_add_and_show(run, spec_example, tmp_path):
    f = tmp_path / "one.jsonl"
    f.write_text(json.dumps(spec_example) + "\n")
    out = run("add", str(f), "--json")
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["added"] == [spec_example["episode_id"]]
    shown = run("show", spec_example["episode_id"], "--json")
    assert json.loads(shown.output) == spec_example


@pytest.mark.parametrize(
    "mutate, needle",
    [
        (lambda s: s["relations"].append(["observes", "MON", "SRC"]), "role 'MON' is not declared"),
        (
            lambda s: s["relations"].__setitem__(0, ["derives_from", "DER"]),
            "takes 2 argument(s), got 1",
        ),
        (
            lambda s: s["relations"][1].__setitem__(0, "trusts_authoritative"),
            "did you mean 'trusts_as_authoritative'",
        ),
        (lambda s: s["causal_chain"][0].__setitem__(0, "diverges_from(DER,"), "malformed term"),
        (lambda s: s.pop("roles"), "roles: required field is missing"),
    ],
)
def test_bad_lines_are_rejected_with_reason_and_nothing_changes(
    run, spec_example, tmp_path, mutate, needle
):
    good = dict(spec_example, episode_id="ep_good")
    good["levels"] = dict(spec_example["levels"])
    first = tmp_path / "first.jsonl"
    first.write_text(json.dumps(good) + "\n")
    assert run("add", str(first)).exit_code == 0
    before = run("show", "ep_good", "--json").output
    bad = json.loads(json.dumps(spec_example))
    mutate(bad)
    f = tmp_path / "bad.jsonl"
    f.write_text(json.dumps(bad) + "\n")
    out = run("add", str(f), "--all-or-nothing")
    assert out.exit_code == 1
    assert needle in out.output
    assert [r["id"] for r in rows(run)] == ["ep_good"]
    assert run("show", "ep_good", "--json").output == before


def test_duplicate_id_is_rejected(run, spec_example, tmp_path):
    f = tmp_path / "a.jsonl"
    f.write_text(json.dumps(spec_example) + "\n")
    assert run("add", str(f)).exit_code == 0
    again = run("add", str(f))
    assert again.exit_code == 1 and "already stored" in again.output
    assert len(rows(run)) == 1


def test_mixed_file_adds_valid_lines_and_lists_rejections(run, spec_example, tmp_path):
    f = tmp_path / "mixed.jsonl"
    f.write_text(
        json.dumps(spec_example)
        + "\nnot json\n"
        + json.dumps({"id": "ep_x", "kind": "weird", "text": "t"})
        + "\n"
    )
    out = run("add", str(f), "--json")
    report = json.loads(out.output)
    assert out.exit_code == 1
    assert report["added"] == [spec_example["episode_id"]]
    assert len(report["rejected"]) == 2


def test_demo_loads_the_example_memory_without_rejections(run):
    out = run("demo", "--json")
    assert out.exit_code == 0
    summary = json.loads(out.output)
    assert summary["episodes"] >= 40 and summary["signed"] == summary["episodes"]
    assert len({r["domain"] for r in summary["by_domain_kind"]}) >= 6
    assert summary["relation_usage"]["derives_from"] > 0
    assert run("demo", "--json").output == out.output  # idempotent


def test_vocab_lists_terms_with_counts(run, spec_example, tmp_path):
    f = tmp_path / "a.jsonl"
    f.write_text(json.dumps(spec_example) + "\n")
    run("add", str(f))
    terms = {t["term"]: t for t in json.loads(run("vocab", "--json").output)}
    assert terms["skips_check"]["count"] == 2 and terms["causes"]["polarity"] == 1
    assert "causes" in run("vocab", "--kind", "causal").output


def test_delete_and_unknown_ids(run, spec_example, tmp_path):
    f = tmp_path / "a.jsonl"
    f.write_text(json.dumps(spec_example) + "\n")
    run("add", str(f))
    missing = run("delete", "nope")
    assert missing.exit_code == 1 and "nothing was deleted" in missing.output
    assert run("delete", spec_example["episode_id"]).exit_code == 0
    assert rows(run) == []
    shown = run("show", "nope")
    assert shown.exit_code == 1 and "analogist list" in shown.output


def test_map_on_stored_episodes_and_analogize_json(run):
    run("demo")
    mapped = json.loads(
        run("map", "ep_ops_feed_status_cache", "ep_fin_ledger_copy", "--json").output
    )
    assert mapped["mappings"] and mapped["mh_count"] > 0
    out = json.loads(run("analogize", "ep_fin_ledger_copy", "--json").output)
    assert set(out) >= {
        "run_id",
        "trigger",
        "source",
        "mapped",
        "matches",
        "fails",
        "blockers",
        "transfer",
        "predict",
        "check",
    }
    assert out["source"] is not None
    listed = run("log", "--json")
    assert out["run_id"] in listed.output
