"""Private-history items (spec §16.3): labels, snapshots without the target, frozen keys, and
the runner scoring them through the same arms."""

from __future__ import annotations

import json
from importlib import resources

import pytest
from click.testing import CliRunner

from analogist.bench.analysis.check import check_fix
from analogist.bench.analysis.score_record import Score
from analogist.bench.execution.runner import RunConfig, run_bench
from analogist.bench.generation.files import load_bench
from analogist.bench.suites.private import (
    LABELS_FORMAT,
    build_private_bench,
    combine,
    example_labels,
    parse_labels,
)
from analogist.cli.main import cli
from analogist.cli.memory_cmd import example_memory_lines
from analogist.errors import BenchError
from analogist.memory import Memory
from analogist.store import Store


def _data(name: str) -> str:
    return resources.files("analogist.data").joinpath(name).read_text("utf-8")


@pytest.fixture(scope="module")
def store():
    m = Memory(":memory:")
    derived = {
        "id": "ep_note_on_ledger",
        "kind": "observation",
        "text": "Summary note of the ledger copy incident.",
        "provenance": "derived_from:ep_fin_ledger_copy",
    }
    assert not m.add([*example_memory_lines(), json.dumps(derived)]).rejected
    return m.store


@pytest.fixture(scope="module")
def example(store):
    text = _data("example_private_labels.json")
    return build_private_bench(store, parse_labels(text), text), text


def test_example_labels_file_is_built_from_the_pairs_fixture():
    pairs = json.loads(_data("example_memory_pairs.json"))
    assert json.loads(_data("example_private_labels.json")) == example_labels(pairs)


def test_example_bench_counts_and_snapshots(example, store):
    bench, _ = example
    m = bench.manifest
    assert m["counts"] == {"total": 39, "true_match": 25, "no_match": 14, "by_family": {"F3": 39}}
    assert m["memory_episodes"] == store.count()
    for it in bench.items:
        ids = {r["id"] for r in it.inputs["memory"]}
        target = it.key["private_target"]
        assert target not in ids  # the target is removed from its own snapshot
        assert not ids & set(it.key["withheld"])
        assert it.key["item_source"] == "private" and it.family == "F3"
        if it.key["has_valid_source"]:
            assert it.key["gold_source"] in ids
            assert set(it.key["keyed_matches"]) <= ids
        else:
            assert it.key["gold_source"] is None and it.key["keyed_matches"] == []
            # a lookalike stays as the trap, the withheld twins are gone
            assert {e for e, r in it.key["memory_roles"].items() if r == "lookalike"} <= ids
        # nothing key-side is in the inputs
        shown = json.dumps(it.inputs)
        assert target not in shown and "fix_operator" not in json.dumps(it.key["target_signature"])


def test_target_derivatives_are_removed(example):
    bench, _ = example
    it = next(i for i in bench.items if i.key["private_target"] == "ep_fin_ledger_copy")
    assert "ep_note_on_ledger" not in {r["id"] for r in it.inputs["memory"]}
    other = next(
        i
        for i in bench.items
        if i.key["private_target"] == "ep_ops_feed_status_cache" and i.key["has_valid_source"]
    )
    assert "ep_note_on_ledger" in {r["id"] for r in other.inputs["memory"]}


def test_keys_are_frozen_with_hashes_and_builds_are_deterministic(example, store, tmp_path):
    bench, text = example
    again = build_private_bench(store, parse_labels(text), text)
    assert again.keys_text == bench.keys_text and again.manifest == bench.manifest
    import hashlib

    assert bench.manifest["labels_sha256"] == hashlib.sha256(text.encode()).hexdigest()
    bench.write(tmp_path / "b")
    assert load_bench(tmp_path / "b").manifest["bench_id"] == bench.manifest["bench_id"]
    keys = tmp_path / "b" / "keys.jsonl"
    keys.write_text(keys.read_text().replace('"private"', '"synthetic"', 1))
    with pytest.raises(BenchError, match="modified after generation"):
        load_bench(tmp_path / "b")


def test_recorded_fix_check():
    check = {
        "kind": "recorded_fix",
        "fix": {"operator": "reconcile", "args": ["CON", "DER", "SRC"]},
    }
    assert check_fix(check, "reconcile", ["CON", "DER", "SRC"]).result == "resolved"
    assert check_fix(check, "reconcile", ["DER", "CON", "SRC"]).result == "unchanged"
    assert check_fix(check, "add_jitter", ["SCH"]).result == "unchanged"


@pytest.mark.parametrize(
    "doc, message",
    [
        ("[1]", "format"),
        (json.dumps({"format": LABELS_FORMAT, "items": []}), "non-empty"),
        (json.dumps({"format": LABELS_FORMAT, "items": [{"target": "a"}]}), '"matches" must be'),
        (
            json.dumps({"format": LABELS_FORMAT, "items": [{"target": "a", "matches": ["a"]}]}),
            "named twice",
        ),
        (
            json.dumps(
                {"format": LABELS_FORMAT, "items": [{"target": "a", "matches": [], "x": 1}]}
            ),
            "unknown field",
        ),
        ("{not json", "not JSON"),
    ],
)
def test_bad_labels_are_one_line_errors(doc, message):
    with pytest.raises(BenchError, match=message):
        parse_labels(doc)


def test_unknown_episode_in_labels(store):
    text = json.dumps({"format": LABELS_FORMAT, "items": [{"target": "ep_nope", "matches": []}]})
    with pytest.raises(BenchError, match="ep_nope, which is not in the memory"):
        build_private_bench(store, parse_labels(text), text)


def test_runner_scores_private_items_through_the_arms(store):
    doc = json.loads(_data("example_private_labels.json"))
    doc["items"] = [doc["items"][0], doc["items"][5], doc["items"][-1]]  # 2 true, 1 no-match
    text = json.dumps(doc)
    bench = build_private_bench(store, parse_labels(text), text)
    run_store = Store(":memory:")
    rid = run_bench(
        run_store, bench, RunConfig(arms=("B", "E"), answerers=("engine",), contamination=False)
    )
    scores = [Score.from_json(s) for s in run_store.bench_scores(rid)]
    assert len(scores) == 6 and all(s.item_source == "private" for s in scores)
    e = {s.item_id: s for s in scores if s.arm == "E"}
    true_items = [it for it in bench.items if it.key["has_valid_source"]]
    assert all(e[it.item_id].claim_correct for it in true_items)  # E finds a keyed twin
    assert any(e[it.item_id].outcome == "resolved" for it in true_items)
    # H4's private half reads these scores (and the nonce synthetic half does not)
    import math

    from analogist.bench.analysis.hypotheses import NAV_NONCE, NAV_PRIVATE

    e_rows = [s for s in scores if s.arm == "E"]
    assert not math.isnan(NAV_PRIVATE(e_rows)) and NAV_PRIVATE(e_rows) > 0
    assert math.isnan(NAV_NONCE(e_rows))


def test_cli_builds_runs_and_rejects_bad_input(tmp_path):
    db = tmp_path / "mem.db"
    runner = CliRunner()
    assert runner.invoke(cli, ["--db", str(db), "demo"]).exit_code == 0
    labels = tmp_path / "labels.json"
    doc = json.loads(_data("example_private_labels.json"))
    doc["items"] = doc["items"][:2] + doc["items"][-1:]
    labels.write_text(json.dumps(doc))
    r = runner.invoke(
        cli,
        [
            "bench",
            "private",
            "--db",
            str(db),
            "--labels",
            str(labels),
            "--out",
            str(tmp_path / "pv"),
        ],
    )
    assert r.exit_code == 0, r.output
    assert "3 items (2 true-match, 1 no-match)" in r.output
    assert len(load_bench(tmp_path / "pv").items) == 3
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "x"}')
    r = runner.invoke(
        cli,
        ["bench", "private", "--db", str(db), "--labels", str(bad), "--out", str(tmp_path / "x")],
    )
    assert r.exit_code == 1 and "error:" in r.output and "Traceback" not in r.output
    assert not (tmp_path / "x").exists()
    r = runner.invoke(
        cli,
        [
            "bench",
            "private",
            "--db",
            str(tmp_path / "none.db"),
            "--labels",
            str(labels),
            "--out",
            str(tmp_path / "y"),
        ],
    )
    assert r.exit_code == 1 and "does not exist" in r.output
    assert not (tmp_path / "none.db").exists()


def test_combine_keeps_both_halves(example, store):
    _, text = example
    doc = json.loads(text)
    doc["items"] = doc["items"][:1]
    one = build_private_bench(store, parse_labels(json.dumps(doc)), json.dumps(doc))
    other_doc = json.loads(text)
    other_doc["items"] = other_doc["items"][1:3]
    other = build_private_bench(store, parse_labels(json.dumps(other_doc)), json.dumps(other_doc))
    both = combine(one, other)
    assert len(both.items) == 3 and both.manifest["private"]["counts"]["total"] == 1
    with pytest.raises(BenchError, match="in both benches"):
        combine(one, one)
