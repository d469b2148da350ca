"""``bench run --encoder model`` and ``--replay`` end to end with a deterministic stand-in model.

The stand-in answers any request from its JSON schema alone (enum choices picked by a hash of the
request, entities taken from the episode's own words), so the runner, the staged encoder and the
model answerer run their real code paths with no model. Checked here: the model encodes targets
and stored episodes from their own records only; jobs go item by item; a recorded run replays
with zero model calls and the same scores; a call missing from a replay file is one clear error.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re

import pytest
from click.testing import CliRunner

from analogist.bench.execution.replay import comparable_scores, read_replay, record_run, replay_run
from analogist.bench.execution.runner import RunConfig, Runner
from analogist.errors import BenchError, CacheMissError
from analogist.models.llm import Request, completion_from_text
from analogist.models.logged import LoggedLLM
from analogist.models.scripted import ScriptedLLM
from analogist.store import Store
from analogist.store.calls import CallLog
from tests.bench.parb_helpers import bench

ARMS = ("A0", "B", "C", "E")


class SchemaModel(ScriptedLLM):
    """Fills in whatever schema it is given; deterministic in the request."""

    def __init__(self):
        super().__init__(model="schema-model")

    def generate(self, request: Request):
        self.requests.append(request)
        self.calls += 1
        text = request.messages[-1][1]
        words = [w for w in re.findall(r"[a-z]{4,}", _episode(text))][:12] or ["thing", "other"]
        salt = hashlib.sha256(text.encode()).hexdigest()
        value = _fill(request.schema or {}, salt, words, [0])
        return completion_from_text(
            json.dumps(value),
            request,
            input_tokens=len(text) // 4,
            output_tokens=20,
            latency_ms=1.0,
        )


def _episode(text: str) -> str:
    m = re.search(r"(?:Episode|Current situation) \([^)]*\):\n(.*)", text)
    return m.group(1) if m else text


def _fill(s: dict, salt: str, words: list[str], n: list[int]):
    n[0] += 1
    pick = int(salt[(n[0] * 2) % 60 : (n[0] * 2) % 60 + 4], 16)
    if "enum" in s:
        opts = [o for o in s["enum"] if o is not None] or [None]
        return opts[pick % len(opts)]
    if "anyOf" in s:
        opts = [o for o in s["anyOf"] if o.get("type") != "null"]
        return _fill(opts[pick % len(opts)], salt, words, n)
    t = s.get("type")
    if t == "object" or "properties" in s:
        props = s.get("properties", {})
        out = {}
        for k in props:
            if k == "entity" and "enum" not in props[k]:
                out[k] = words[n[0] % len(words)]
            else:
                out[k] = _fill(props[k], salt, words, n)
        return out
    if t == "array" or "prefixItems" in s:
        if "prefixItems" in s:
            return [_fill(x, salt, words, n) for x in s["prefixItems"]]
        k = max(s.get("minItems", 0), min(3, s.get("maxItems", 3) - 1))
        return [_fill(s.get("items", {}), salt, words, n) for _ in range(k)]
    if t == "string":
        return "do_fix" if "pattern" in s else "a general description"
    if t == "number":
        return 0.5
    if t == "boolean":
        return pick % 2 == 0
    return None


def live_llm(store):
    return LoggedLLM(SchemaModel(), CallLog(store), repair=False)


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    b = bench(0, "dev", "small")
    store = Store(":memory:")
    llm = live_llm(store)
    config = RunConfig(arms=ARMS, encoder="model", concurrency=1)
    runner = Runner(store, b, config, llm=llm)
    run_id = runner.run()
    path = tmp_path_factory.mktemp("replay") / "run.jsonl.gz"
    n = record_run(store, b, config, "scripted:schema-model", path, run_id)
    return {
        "bench": b,
        "store": store,
        "llm": llm,
        "runner": runner,
        "run_id": run_id,
        "path": path,
        "n": n,
        "config": config,
    }


def test_the_model_encodes_every_episode_from_its_own_record_and_each_target(recorded):
    reqs = recorded["llm"].inner.requests
    encode = [r for r in reqs if r.prompt_version.startswith("staged-")]
    assert encode
    targets = {it.inputs["target"]["text"] for it in recorded["bench"].items}
    for r in encode:
        user = r.messages[-1][1]
        if user.startswith("Current situation"):
            assert "Outcome" not in user and any(t in user for t in targets)
        else:  # storage time: no target text anywhere in the request
            assert not any(t in user for t in targets)
    # model signatures replaced the generator's in what the answerers saw
    sigs = []
    for it in recorded["bench"].items:
        inputs = recorded["runner"].encoding.item(it).item.inputs
        recs = [
            *inputs.get("memory", []),
            *inputs.get("candidates", []),
            *([inputs["source"]] if inputs.get("source") else []),
        ]
        sigs += [r.get("signature") for r in recs]
    assert any(s and s["writer_model"].endswith("#staged-v4") for s in sigs)
    assert not any(s and s.get("writer_model", "").startswith("gold") for s in sigs)


def test_jobs_run_item_by_item(recorded):
    reqs = [
        r for r in recorded["llm"].inner.requests if r.prompt_version.startswith("model-answer")
    ]
    texts = [r.messages[-1][1] for r in reqs]
    from analogist.bench.execution.runner import item_episodes

    firsts = []  # with the model encoder, items with fewer episodes to encode go first
    for it in sorted(recorded["bench"].items, key=lambda it: len(item_episodes(it))):
        hits = [i for i, t in enumerate(texts) if it.inputs["target"]["text"] in t]
        assert hits and hits == list(range(hits[0], hits[0] + len(hits)))  # contiguous
        firsts.append(hits[0])
    assert firsts == sorted(firsts)


def test_the_run_reports_encoder_fidelity_against_gold(recorded):
    fid = recorded["runner"].encoding.fidelity(recorded["bench"].items)
    assert fid["targets"]["n"] == len(recorded["bench"].items)
    assert fid["episodes"]["n"] > fid["targets"]["n"]
    assert set(fid["episodes"]["steps"]) == {"roles", "relations", "causal_chain", "fix"}
    assert 0.0 <= fid["episodes"]["micro_f1"] <= 1.0


def test_a_recorded_run_replays_with_zero_calls_and_the_same_scores(recorded):
    header, records = read_replay(recorded["path"])
    assert header["calls"] == recorded["n"] == len(records) and not header["unanswered"]
    store, run_id, _, runner = replay_run(recorded["path"])
    assert runner.llm.stats.calls == 0 and runner.llm.stats.cache_hits > 0
    want = comparable_scores(recorded["store"], recorded["run_id"])
    assert comparable_scores(store, run_id) == want == header["run"]["scores"]


def test_a_call_missing_from_the_replay_file_is_a_clear_error(recorded, tmp_path):
    with gzip.open(recorded["path"], "rt", encoding="utf-8") as f:
        lines = f.read().splitlines()
    cut = tmp_path / "cut.jsonl.gz"
    with gzip.open(cut, "wt", encoding="utf-8") as f:
        f.write("\n".join(lines[:-1]) + "\n")
    with pytest.raises(CacheMissError, match="replay-only"):
        replay_run(cut)
    bad = tmp_path / "bad.jsonl.gz"
    bad.write_bytes(b"not gzip")
    with pytest.raises(BenchError, match="not a readable replay file"):
        replay_run(bad)


def test_the_cli_replays_a_file_and_says_no_model_was_called(recorded, tmp_path):
    from analogist.cli.bench_run_cmd import run_cmd

    res = CliRunner().invoke(
        run_cmd,
        ["--replay", str(recorded["path"]), "--out", str(tmp_path / "rep"), "--n-boot", "50"],
        obj={"db": str(tmp_path / "x.db")},
        catch_exceptions=False,
    )
    assert res.exit_code == 0, res.output
    assert "0 model calls made" in res.output and "encoder fidelity (targets" in res.output
    assert (tmp_path / "rep" / "encoder_fidelity.json").exists()


def test_bench_models_prints_tokens_and_seconds_per_kind_and_arm(recorded):
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    out = subprocess.run(
        [
            sys.executable,
            str(root / "bench" / "models.py"),
            "--replay",
            str(recorded["path"]),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=root,
    ).stdout
    rep = json.loads(out[out.index("{") :])
    assert rep["kinds"]["encode"][0] > 0 and rep["kinds"]["answer"][0] > 0
    assert set(rep["arms"]) == set(ARMS)
    assert rep["arms"]["A0"][1] > 0  # input tokens of A0's answers


def test_a_stopped_run_is_recorded_as_far_as_it_got_and_replays(tmp_path):
    b = bench(0, "dev", "small")
    store = Store(":memory:")
    config = RunConfig(arms=("A0", "E"), encoder="model", concurrency=1)
    first = [it.item_id for it in b.items[:2]]
    runner = Runner(store, b, config, llm=live_llm(store))
    only = [j[:5] for j in runner._jobs() if j[2] in first]
    Runner(store, b, config, llm=live_llm(store), only=only).run()
    path = tmp_path / "part.jsonl.gz"
    record_run(store, b, config, "scripted:schema-model", path, runner.run_id)
    header, _ = read_replay(path)
    assert not header["run"]["complete"] and len(header["run"]["jobs"]) == len(only)
    replayed, run_id, _, rep = replay_run(path)
    assert rep.llm.stats.calls == 0
    assert comparable_scores(replayed, run_id) == header["run"]["scores"]
    assert {s["item_id"] for s in header["run"]["scores"]} == set(first)


def test_a_run_past_its_time_stops_cleanly_and_resumes():

    b = bench(0, "dev", "small")
    store = Store(":memory:")
    config = RunConfig(arms=("A0",), encoder="model", concurrency=1, contamination=False)
    first = Runner(store, b, config, llm=live_llm(store), stop_after_s=0)
    first.run()
    assert first.stopped and not store.bench_done_keys(first.run_id)
    assert store.get_bench_run(first.run_id)["status"] == "stopped"
    again = Runner(store, b, config, llm=live_llm(store))
    again.run()
    assert not again.stopped and len(store.bench_done_keys(again.run_id)) == len(b.items)


def test_an_answer_cut_at_max_tokens_replays_through_the_same_repair():
    class Cut(ScriptedLLM):
        def generate(self, request):
            self.requests.append(request)
            if len(self.requests) == 1:
                return completion_from_text(
                    '{"x": ', request, output_tokens=request.max_tokens, finish_reason="length"
                )
            return completion_from_text('{"x": 1}', request, output_tokens=5)

    store = Store(":memory:")
    schema = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
    live = LoggedLLM(Cut(model="cut"), CallLog(store))
    assert live.complete([{"role": "user", "content": "q"}], schema=schema, max_tokens=50).parsed
    assert live.inner.requests[1].max_tokens == 100  # the live repair allowed more tokens
    replay = LoggedLLM(Cut(model="cut"), CallLog(store), cache="replay-only")
    got = replay.complete([{"role": "user", "content": "q"}], schema=schema, max_tokens=50)
    assert got.parsed == {"x": 1} and replay.stats.calls == 0


def test_a_call_that_failed_live_replays_as_the_same_failure(tmp_path):
    from analogist.bench.execution.replay import TrackedLLM, load_calls, write_replay
    from analogist.errors import ModelError
    from analogist.models.registry import open_llm

    store = Store(":memory:")
    live = TrackedLLM(
        LoggedLLM(ScriptedLLM([ModelError("server fell over")], model="m"), CallLog(store))
    )
    with pytest.raises(ModelError):
        live.complete([{"role": "user", "content": "q"}])
    path = tmp_path / "f.jsonl.gz"
    assert write_replay(path, live, {}) == 1
    header, records = read_replay(path)
    assert header["failed_calls"] == 1 and records[0].error
    fresh = Store(":memory:")
    load_calls(fresh, records)
    again = TrackedLLM(open_llm("replay:scripted:m", store=fresh))
    with pytest.raises(ModelError, match="replayed failure.*server fell over"):
        again.complete([{"role": "user", "content": "q"}])


def test_a_replay_uses_the_embedder_its_file_recorded(tmp_path, monkeypatch):
    # recorded under the suite's hashing embedder; replayed in a process configured otherwise,
    # it must retrieve with the recorded one (B-E's prompts depend on what they retrieve)
    b = bench(0, "dev", "small")
    store = Store(":memory:")
    config = RunConfig(arms=("E",), answerers=("model",), encoder="model", concurrency=1)
    first = [b.items[0].item_id]
    runner = Runner(store, b, config, llm=live_llm(store))
    only = [j[:5] for j in runner._jobs() if j[2] in first]
    Runner(store, b, config, llm=live_llm(store), only=only).run()
    path = tmp_path / "emb.jsonl.gz"
    record_run(store, b, config, "scripted:schema-model", path, runner.run_id)
    header, _ = read_replay(path)
    assert header["run"]["embedder"] == {"name": "hashing-384-bi", "spec": "hashing"}
    monkeypatch.setenv("ANALOGIST_EMBEDDER", "hashing:64")
    replayed, run_id, _, rep = replay_run(path)
    assert rep.llm.stats.calls == 0
    assert comparable_scores(replayed, run_id) == header["run"]["scores"]


def test_a_replay_whose_embedder_cannot_be_rebuilt_is_one_clear_error(tmp_path):
    import gzip
    import json

    b = bench(0, "dev", "small")
    store = Store(":memory:")
    config = RunConfig(arms=("A0",), answerers=("model",), encoder="model", concurrency=1)
    runner = Runner(store, b, config, llm=live_llm(store))
    only = [j[:5] for j in runner._jobs() if j[2] == b.items[0].item_id]
    Runner(store, b, config, llm=live_llm(store), only=only).run()
    path = tmp_path / "emb.jsonl.gz"
    record_run(store, b, config, "scripted:schema-model", path, runner.run_id)
    with gzip.open(path, "rt") as f:
        lines = [json.loads(x) for x in f]
    lines[0]["run"]["embedder"]["name"] = "some-other-embedder"
    with gzip.open(path, "wt") as f:
        f.writelines(json.dumps(x) + "\n" for x in lines)
    with pytest.raises(BenchError, match="recorded with the embedder some-other-embedder"):
        replay_run(path)


def test_a_run_resumes_on_another_machine_from_its_recorded_calls(tmp_path):
    # machine 1 runs two items and records them; machine 2 (a fresh database) seeds its call
    # log from the file and runs the same jobs: every call is answered from the log
    from analogist.bench.execution.replay import seed_calls

    b = bench(0, "dev", "small")
    config = RunConfig(arms=("A0", "E"), encoder="model", concurrency=1)
    first = Store(":memory:")
    runner = Runner(first, b, config, llm=live_llm(first))
    only = [j[:5] for j in runner._jobs() if j[2] in {it.item_id for it in b.items[:2]}]
    Runner(first, b, config, llm=live_llm(first), only=only).run()
    path = tmp_path / "part.jsonl.gz"
    n = record_run(first, b, config, "scripted:schema-model", path, runner.run_id)
    second = Store(str(tmp_path / "second.db"))
    assert seed_calls(second, path) == (n, 0)
    assert seed_calls(second, path) == (0, n)  # seeding twice adds nothing
    llm = live_llm(second)
    resumed = Runner(second, b, config, llm=llm, only=only)
    run_id = resumed.run()
    assert llm.inner.calls == 0
    assert comparable_scores(second, run_id) == comparable_scores(first, runner.run_id)


def test_calls_from_and_replay_together_are_one_clear_error(recorded, tmp_path):
    from analogist.cli.bench_run_cmd import run_cmd

    path = str(recorded["path"])
    res = CliRunner().invoke(
        run_cmd,
        ["--replay", path, "--calls-from", path, "--out", str(tmp_path / "o")],
        obj={"db": str(tmp_path / "x.db")},
    )
    assert res.exit_code == 1 and "give one of them" in res.output
    assert "Traceback" not in res.output
