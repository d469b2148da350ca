"""Spec §20's second model: ``bench run --encoder-model`` keeps the encoder and swaps the answerer.

Two deterministic stand-in models (``schema:big`` encodes in the reference run, ``schema:small``
answers in the second run) fill in whatever schema they get, so the runner, the staged encoder and
the model answerer run their real code. Checked here: a one-model run's options, run id and replay
header are unchanged; the second run's encoder requests have exactly the reference run's cache
keys (answered from the call log: zero encoder calls) while every answer goes to the other model;
the stored options, scoreboard, results.json and fidelity line name both models; a recorded
two-model run replays with zero calls; ``bench/models.py`` splits calls per model; bad options
give one line.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from analogist.bench.execution.replay import (
    TrackedLLM,
    comparable_scores,
    read_replay,
    replay_run,
)
from analogist.bench.execution.runner import RunConfig, Runner, run_id_for
from analogist.bench.generation.files import Bench, file_hashes, seal
from analogist.errors import BenchError, CacheMissError
from analogist.models.backend import Identity, Ping
from analogist.models.logged import LoggedLLM
from analogist.models.registry import registry
from analogist.store import Store
from analogist.store.calls import CallLog
from tests.bench.parb_helpers import bench
from tests.bench.test_model_run import SchemaModel

ROOT = Path(__file__).resolve().parents[2]
# one item of F1, F4 (source-dependence controls), F2 and F3 (a memory of ten episodes)
ITEMS = ("it_9b0a6d71573b", "it_bddbcb6cf6cc", "it_c198880baa84", "it_8d68a435829a")
SECOND = ("A1", "C", "E")
# The second-model run: the small model answers A1, C and E; the big one's encodings are reused.
SECOND_CONFIG = RunConfig(
    arms=SECOND,
    answerers=("model",),
    model="schema:small",
    encoder="model",
    encoder_model="schema:big",
    concurrency=1,
)


class SchemaBackend(SchemaModel):
    """The stand-in model as a registered backend, ``schema:NAME``, so the CLI can open it."""

    provider = "schema"
    summary = "schema-filling stand-in model (tests only)"

    def __init__(self, name: str):
        super().__init__()
        self.model = name

    @classmethod
    def create(cls, name, settings):
        return cls(name)

    @classmethod
    def identity(cls, name, settings):
        return Identity(cls.provider, name)

    @classmethod
    def configured(cls, settings):
        return None

    @classmethod
    def ping(cls, name, settings):
        return Ping(cls.provider, f"schema:{name}", "ok", "tests only")


@pytest.fixture(scope="module")
def schema_backend():
    registry().add(SchemaBackend)
    yield
    registry()._types.pop("schema", None)


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """Four items of the small bench, written as a bench directory."""
    full = bench(0, "dev", "small")
    items = tuple(it for it in full.items if it.item_id in ITEMS)
    sub = Bench(items, {})
    sub = Bench(items, seal(dict(full.manifest), file_hashes(sub)))
    d = tmp_path_factory.mktemp("tiny")
    sub.write(d)
    return sub, d


def logged(name: str, log: CallLog) -> TrackedLLM:
    return TrackedLLM(LoggedLLM(SchemaBackend(name), log))


def test_a_one_model_run_keeps_its_options_and_run_id(tiny):
    one = RunConfig(model="local:qwen-coder-1.5b", encoder="model")
    same = RunConfig(
        model="local:qwen-coder-1.5b", encoder="model", encoder_model="local:qwen-coder-1.5b"
    )
    two = RunConfig(
        model="local:qwen-coder-0.5b", encoder="model", encoder_model="local:qwen-coder-1.5b"
    )
    assert "encoder_model" not in one.to_json() and same.to_json() == one.to_json()
    assert run_id_for(tiny[0], same) == run_id_for(tiny[0], one)
    assert two.to_json()["encoder_model"] == "local:qwen-coder-1.5b"
    assert run_id_for(tiny[0], two) != run_id_for(tiny[0], one)
    with pytest.raises(BenchError, match="add --encoder model"):
        RunConfig(model="local:qwen-coder-0.5b", encoder_model="local:qwen-coder-1.5b")


@pytest.fixture(scope="module")
def runs(tiny):
    """The reference run (big answers and encodes, all model arms), then the second run in the
    same database (small answers A1, C and E; big encodes)."""
    b = tiny[0]
    store = Store(":memory:")
    log = CallLog(store)
    ref = logged("big", log)
    ref_config = RunConfig(
        arms=("A0", "A1", "B", "C", "D", "E"), model="schema:big", encoder="model", concurrency=1
    )
    ref_run = Runner(store, b, ref_config, llm=ref)
    ref_run.run()
    answer, encoder = logged("small", log), logged("big", log)
    config = SECOND_CONFIG
    second = Runner(store, b, config, llm=answer, encoder_llm=encoder)
    run_id = second.run()
    return {
        "store": store,
        "ref": ref,
        "answer": answer,
        "encoder": encoder,
        "second": second,
        "run_id": run_id,
    }


def _encode_keys(llm: TrackedLLM) -> set[str]:
    log = llm.log
    assert log is not None
    out = set()
    for key in llm.keys:
        rec = log.lookup(key)
        if rec is not None and rec.prompt_version and rec.prompt_version.startswith("staged-"):
            out.add(key)
    return out


def test_the_second_run_asks_the_reference_runs_encoder_requests_and_no_more(runs):
    ref_encode = _encode_keys(runs["ref"])
    assert ref_encode
    # every encoder request of the second run has a reference-run cache key: zero encoder calls
    assert runs["encoder"].keys == ref_encode
    assert runs["encoder"].inner.calls == 0 and runs["encoder"].stats.cache_hits > 0
    # every answer went to the other model, and it encoded nothing
    reqs = runs["answer"].inner.requests
    assert reqs and {(r.provider, r.model) for r in reqs} == {("schema", "small")}
    assert all(r.prompt_version.startswith("model-answer") for r in reqs)
    assert not runs["answer"].keys & runs["ref"].keys
    assert {s["arm"] for s in runs["store"].bench_scores(runs["run_id"])} == set(SECOND)


def test_the_stored_options_and_fidelity_name_both_models(runs):
    cfg = runs["store"].get_bench_run(runs["run_id"])["config"]
    assert cfg["model"] == "schema:small" and cfg["encoder_model"] == "schema:big"
    assert cfg["models"] == "answers: schema:small; encodings: schema:big"
    fid = runs["second"].encoding.fidelity(runs["second"].bench.items)
    assert fid["writer"].startswith("schema:big#staged-")


def test_an_encoder_model_other_than_the_runs_is_refused(tiny):
    store = Store(":memory:")
    log = CallLog(store)
    config = RunConfig(model="schema:small", encoder="model", encoder_model="schema:big")
    with pytest.raises(BenchError, match="encoder model is schema:big, but schema:other"):
        Runner(store, tiny[0], config, llm=logged("small", log), encoder_llm=logged("other", log))
    with pytest.raises(BenchError, match="no encoder model was opened"):
        Runner(store, tiny[0], config, llm=logged("small", log))
    one = RunConfig(model="schema:small", encoder="model")  # no encoder_model: small encodes
    with pytest.raises(BenchError, match="encoder model is schema:small"):
        Runner(store, tiny[0], one, llm=logged("small", log), encoder_llm=logged("big", log))


# ---------------------------------------------------------------- the CLI, end to end
def _cli(args: list[str], db: Path):
    from analogist.cli.bench_run_cmd import run_cmd

    return CliRunner().invoke(run_cmd, args, obj={"db": str(db)}, catch_exceptions=False)


@pytest.fixture(scope="module")
def cli_runs(schema_backend, tiny, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cli")
    db = tmp / "ref.db"
    common = ["--bench", str(tiny[1]), "--encoder", "model", "--n-boot", "20"]
    ref = _cli(
        [*common, "--model", "schema:big", "--arms", "B,A1,C,E", "--out", str(tmp / "ref")], db
    )
    assert ref.exit_code == 0, ref.output
    before = [(r.model, r.cache_key) for r in CallLog(Store(str(db))).all()]
    path = tmp / "second.replay.jsonl.gz"
    second = _cli(
        [
            *common,
            "--model",
            "schema:small",
            "--encoder-model",
            "schema:big",
            "--arms",
            ",".join(SECOND),
            "--answerers",
            "model",
            "--record",
            str(path),
            "--out",
            str(tmp / "second"),
        ],
        db,
    )
    assert second.exit_code == 0, second.output
    after = [(r.model, r.cache_key) for r in CallLog(Store(str(db))).all()]
    return {"tmp": tmp, "second": second, "path": path, "before": before, "after": after}


def test_the_cli_second_run_makes_no_encoder_call_and_names_both_models(cli_runs):
    new = cli_runs["after"][len(cli_runs["before"]) :]
    assert new and {m for m, _ in new} == {"small"}  # only answers were asked
    out = cli_runs["second"].output
    assert "Models:       answers: schema:small; encodings: schema:big" in out
    assert "encoder fidelity (targets, schema:big#staged-" in out
    results = json.loads((cli_runs["tmp"] / "second" / "results.json").read_text())
    assert results["config"]["models"] == "answers: schema:small; encodings: schema:big"
    assert results["config"]["encoder_model"] == "schema:big"
    scoreboard = (cli_runs["tmp"] / "second" / "scoreboard.txt").read_text()
    assert "answers: schema:small; encodings: schema:big" in scoreboard
    html = (cli_runs["tmp"] / "second" / "report.html").read_text()
    assert "answers: schema:small; encodings: schema:big" in html


def test_a_recorded_two_model_run_replays_with_zero_calls(cli_runs, tmp_path):
    header, records = read_replay(cli_runs["path"])
    assert header["model"] == "schema:small" and header["encoder_model"] == "schema:big"
    assert {r.model for r in records} == {"small", "big"} and not header["unanswered"]
    store, run_id, _, runner = replay_run(cli_runs["path"])
    assert [m.name for m in runner.model_llms()] == ["schema:small", "schema:big"]
    assert all(m.stats.calls == 0 for m in runner.model_llms())
    assert comparable_scores(store, run_id) == header["run"]["scores"]
    res = _cli(
        ["--replay", str(cli_runs["path"]), "--out", str(tmp_path / "rep"), "--n-boot", "20"],
        tmp_path / "x.db",
    )
    assert res.exit_code == 0, res.output
    assert "(schema:small, encodings schema:big): 0 model calls made" in res.output


def test_bench_models_splits_calls_per_model(cli_runs, capsys, monkeypatch):
    spec = importlib.util.spec_from_file_location("bench_models", ROOT / "bench" / "models.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    monkeypatch.setattr(sys, "argv", ["models.py", "--replay", str(cli_runs["path"])])
    mod.main()
    out = capsys.readouterr().out
    assert "answers schema:small, encodings schema:big" in out
    assert "per model" in out and "schema:big" in out and "schema:small" in out
    store, run_id, _, _ = replay_run(cli_runs["path"])
    rep = mod.report(store, run_id)
    assert set(rep["models"]) == {"schema:big", "schema:small"}
    assert set(rep["models"]["schema:big"]) == {"all", "encode"}
    assert set(rep["models"]["schema:small"]) == {"all", "answer"}
    assert rep["models"]["schema:small"]["all"][0] == rep["kinds"]["answer"][0]
    assert set(rep["arms"]) == set(SECOND)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--encoder-model", "schema:big"], "error: --encoder-model schema:big names the model"),
        (
            ["--encoder", "model", "--model", "schema:small", "--encoder-model", "nope:x"],
            "error: --encoder-model nope:x: model provider 'nope' is unknown",
        ),
        (
            ["--encoder", "model", "--encoder-model", "schema:big", "--answerers", "model"],
            "error: --encoder-model schema:big encodes, but no model answers",
        ),
    ],
)
def test_a_bad_encoder_model_option_is_one_line(
    schema_backend, tiny, tmp_path, monkeypatch, args, message
):
    monkeypatch.delenv("ANALOGIST_MODEL", raising=False)
    db = tmp_path / "bad.db"
    res = _cli(["--bench", str(tiny[1]), "--out", str(tmp_path / "o"), *args], db)
    assert res.exit_code == 1
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message), res.output
    assert "Traceback" not in res.output
    assert not Store(str(db)).list_bench_runs()  # nothing was stored


# ------------------------------------------------- the committed reference run, the real model
REFERENCE = sorted((ROOT / "bench" / "reference").glob("*.replay.jsonl.gz"))


@pytest.mark.parametrize("path", REFERENCE, ids=[p.name for p in REFERENCE])
def test_the_reference_runs_encodings_serve_a_second_answerer(path):
    """The second run's encoder requests, with the real local model's identity, are the ones the
    committed reference run logged: its encoder answers from that log in replay-only mode (any
    other key would raise CacheMissError) while a stand-in answers A1, C and E."""
    from analogist.bench.execution.arms import ArmSettings
    from analogist.bench.execution.replay import (
        load_calls,
        recorded_bench,
        recorded_encoder_version,
    )
    from analogist.bench.execution.runner import item_episodes
    from analogist.models.registry import open_llm

    header, records = read_replay(path)
    run, ref = header["run"], header["run"]["config"]
    if ref.get("encoder") != "model" or header.get("encoder_model"):
        pytest.skip(f"{path.name} is not a one-model run with the model encoder")
    b = recorded_bench(path, run)
    done = {k[2] for k in run["jobs"]}
    items = sorted(
        (it for it in b.items if it.item_id in done), key=lambda it: len(item_episodes(it))
    )
    chosen = {it.item_id for it in items[:2]}
    store = Store(":memory:")
    load_calls(store, records)
    encoder = TrackedLLM(open_llm(f"replay:{header['model']}", store=store))
    answer = logged("small", CallLog(store))
    config = RunConfig(
        arms=SECOND,
        answerers=("model",),
        seeds=tuple(ref["seeds"]),
        model="schema:small",
        encoder="model",
        encoder_model=header["model"],
        settings=ArmSettings(**ref["settings"]),
        contamination=ref["contamination"],
        concurrency=1,
    )
    probe = Runner(store, b, config, llm=answer, encoder_llm=encoder)
    only = [j[:5] for j in probe._jobs() if j[2] in chosen]
    runner = Runner(store, b, config, llm=answer, encoder_llm=encoder, only=only)
    version = recorded_encoder_version(records)
    if runner.encoding is not None and version is not None:
        runner.encoding.use_version(version)
    run_id = runner.run()
    assert encoder.stats.calls == 0 and encoder.stats.cache_hits > 0
    assert {(r.provider, r.model) for r in answer.inner.requests} == {("schema", "small")}
    assert len(store.bench_done_keys(run_id)) == len(only)


def test_a_replay_encoder_takes_every_encoding_from_the_log(cli_runs, tiny, tmp_path):
    db = cli_runs["tmp"] / "ref.db"
    args = ["--bench", str(tiny[1]), "--encoder", "model", "--n-boot", "20", "--answerers"]
    args += ["model", "--model", "schema:small", "--encoder-model", "replay:schema:big"]
    res = _cli([*args, "--arms", "A1,C", "--out", str(tmp_path / "o")], db)
    assert res.exit_code == 0, res.output
    assert "answers: schema:small; encodings: schema:big" in res.output
    rows = [r.model for r in CallLog(Store(str(db))).all()]
    assert rows.count("big") == [m for m, _ in cli_runs["after"]].count("big")
    # without the reference run's log: the run stops before its first item, nothing called
    res = _cli([*args, "--arms", "A1", "--out", str(tmp_path / "p")], tmp_path / "empty.db")
    assert res.exit_code == 0 and "Traceback" not in res.output, res.output
    assert "run stopped: the encoder's call log holds no encoding for this item" in res.output
    empty = Store(str(tmp_path / "empty.db"))
    assert not CallLog(empty).all() and empty.list_bench_runs()[0]["status"] == "stopped"


def test_a_replay_encoder_answers_exactly_the_items_a_partial_reference_run_encoded(tiny):
    from analogist.bench.execution.runner import item_episodes
    from analogist.models.registry import open_llm

    b = tiny[0]
    store = Store(":memory:")
    log = CallLog(store)
    ref_config = RunConfig(arms=SECOND, model="schema:big", encoder="model", concurrency=1)
    first = sorted(b.items, key=lambda it: len(item_episodes(it)))[:2]
    ref = Runner(store, b, ref_config, llm=logged("big", log))
    only = [j[:5] for j in ref._jobs() if j[2] in {it.item_id for it in first}]
    Runner(store, b, ref_config, llm=logged("big", log), only=only).run()  # a partial run
    encoder = TrackedLLM(open_llm("replay:schema:big", store=store))
    config = SECOND_CONFIG
    second = Runner(
        store, b, config, llm=logged("small", log), encoder_llm=encoder, stop_when_unencoded=True
    )
    run_id = second.run()
    assert second.stopped and "holds no encoding" in second.stop_reason
    assert {k[2] for k in store.bench_done_keys(run_id)} == {it.item_id for it in first}
    assert encoder.stats.calls == 0 and store.get_bench_run(run_id)["status"] == "stopped"
    # without the flag the same miss is an error, as in any replay
    with pytest.raises(CacheMissError):
        Runner(Store(":memory:"), b, config, llm=logged("small", log), encoder_llm=encoder).run()
