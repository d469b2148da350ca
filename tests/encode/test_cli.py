"""``analogist encode`` and ``analogist models`` through click's CliRunner on a throwaway group
(the lead registers them on the main CLI)."""

import json

import click
import pytest
from click.testing import CliRunner

from analogist.cli.encode_cmd import encode_cmd
from analogist.cli.models_cmd import models_cmd
from analogist.store import Store
from analogist.store.calls import CallLog

from .helpers import answer


@click.group()
@click.option("--db")
@click.pass_context
def cli(ctx, db):
    ctx.ensure_object(dict)["db"] = db


cli.add_command(encode_cmd)
cli.add_command(models_cmd)


@pytest.fixture
def run(tmp_path, monkeypatch):
    for var in (
        "ANALOGIST_MODEL",
        "ANALOGIST_CACHE",
        "ANALOGIST_BASE_URL",
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
        "ANALOGIST_EMBEDDER",
    ):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    db = str(tmp_path / "a.db")

    def invoke(*args, responses=None):
        if responses is not None:
            f = tmp_path / "responses.json"
            f.write_text(json.dumps(responses))
            args = (*args, "--model", f"scripted:{f}")
        if args and args[0] == "encode" and "--encoder" not in args:
            args = (*args, "--encoder", "one-call")
        return CliRunner().invoke(cli, ["--db", db, *args], catch_exceptions=False)

    invoke.db = db
    return invoke


def test_encode_prints_a_signature(run):
    res = run(
        "encode",
        "The cached summary was read instead of the Intel feed.",
        "--kind",
        "failure",
        responses=[answer()],
    )
    assert res.exit_code == 0, res.output
    assert "derives_from(DER,SRC)" in res.output and "L3: Proxy mistaken for referent" in res.output


def test_encode_json_and_the_call_is_logged(run):
    res = run(
        "encode",
        "The cached summary was read instead of the Intel feed.",
        "--json",
        "--id",
        "ep_9",
        responses=[answer()],
    )
    data = json.loads(res.output)
    assert data["ok"] and data["signature"]["episode_id"] == "ep_9"
    assert data["signature"]["kind"] == "observation"
    assert CallLog(Store(run.db)).count() == 1


def test_a_rerun_is_answered_from_the_cache(run):
    run(
        "encode",
        "The cached summary was read instead of the Intel feed.",
        "--json",
        responses=[answer()],
    )
    res = run(
        "encode", "The cached summary was read instead of the Intel feed.", "--json", responses=[]
    )
    assert json.loads(res.output)["ok"]


def test_replay_only_miss_is_one_clear_error(run):
    res = run("encode", "never recorded", "--cache", "replay-only", responses=[])
    assert res.exit_code == 1 and "replay-only" in res.output and "read-write" in res.output


def test_a_rejected_encoding_exits_1_with_the_reason(run):
    bad = answer(relations=[["believes", "CON", "DER"]])
    res = run("encode", "x y", responses=[bad, bad])
    assert res.exit_code == 1 and "rejected" in res.output and "believes" in res.output


def test_no_model_says_what_to_set(run):
    res = run("encode", "x")
    assert res.exit_code == 1 and "ANALOGIST_MODEL" in res.output


def test_eval_scores_against_gold(run, tmp_path, spec_example):
    gold = dict(spec_example, episode_id="ep_a")
    line = {"id": "ep_a", "kind": "failure", "text": gold["levels"]["L0"], "signature": gold}
    f = tmp_path / "gold.jsonl"
    f.write_text(json.dumps(line) + "\n")
    res = run("encode", "--eval", str(f), "--json", responses=[answer()])
    s = json.loads(res.output)["summary"]
    assert (s["n"], s["micro_f1"], s["role_accuracy"]) == (1, 1.0, 1.0)
    text = run("encode", "--eval", str(f), responses=[]).output
    assert "F1 1.000" in text and "role alignment accuracy 1.000" in text


def test_models_lists_backends_and_embedders(run, monkeypatch):
    monkeypatch.setenv("ANALOGIST_BASE_URL", "http://127.0.0.1:9/v1")
    res = run("models", "--model", "openai-compat:qwen2.5", "--timeout", "1")
    assert res.exit_code == 0
    assert "offline" in res.output and "embedder:minilm" in res.output
    data = json.loads(run("models", "--json", "--timeout", "1").output)
    by = {b["provider"]: b for b in data["backends"]}
    assert by["scripted"]["ok"] and by["embedder:hashing"]["ok"]
