"""Replay files: a benchmark run's model calls, so ``bench run --replay FILE`` re-scores it with
zero model calls.

A replay file is gzipped JSON lines: a header ``{"replay": 1, "model": "provider:name",
"run": {...}}`` (the bench and run options that produced it; ``"encoder_model"`` too when another
model wrote the signatures, ``bench run --encoder-model``), then one call-log record per
request the run made, both models' when there are two (:class:`~analogist.store.calls.CallRecord`
JSON: request, response, tokens, latency), sorted by cache key so the same run always writes the
same file. :class:`TrackedLLM` notes every cache key a run asks for — first answers and repair
re-asks alike — so the file holds exactly the run's calls, not the whole database.

Replaying loads the records into a fresh call log and answers from it in replay-only mode: a
request that is not in the file raises :class:`~analogist.errors.CacheMissError` (one clear error
line), never a live call.
"""

from __future__ import annotations

import gzip
import json
import threading
from dataclasses import fields
from pathlib import Path
from typing import Any

from analogist.encode.steps import GENERATED_BY
from analogist.errors import BenchError, CacheMissError, ModelError
from analogist.models.llm import Completion, Request
from analogist.models.logged import LoggedLLM
from analogist.store.calls import CallLog, CallRecord

FORMAT = 1


class TrackedLLM(LoggedLLM):
    """A :class:`LoggedLLM` that remembers the cache key of every request it answers and, in
    replay-only mode, replays a call that failed live (only error rows logged) as the same
    :class:`~analogist.errors.ModelError`, so a run with failed calls replays exactly."""

    def __init__(self, base: LoggedLLM):
        super().__init__(base.inner, base.log, cache=base.cache, repair=base.repair)
        self.keys: set[str] = set()
        self._keys_lock = threading.Lock()

    def answer(self, req: Request) -> Completion:
        with self._keys_lock:
            self.keys.add(req.cache_key)
        try:
            return super().answer(req)
        except CacheMissError:
            failed = self.log.for_key(req.cache_key) if self.log is not None else []
            if failed and all(r.error for r in failed):
                raise ModelError(f"(replayed failure) {failed[-1].error}") from None
            raise


def write_replay(
    path: str | Path, llm: TrackedLLM, run: dict[str, Any], encoder: TrackedLLM | None = None
) -> int:
    """Write the run's calls (newest successful answer per key; for a call that only failed,
    its last error row) to ``path``; return the count. ``encoder`` is the model that wrote the
    signatures when it is not ``llm``: its calls are written too and the header names it.
    Keys with no row at all are listed in the header as ``unanswered``.

    Raises:
        BenchError: there is no call log to read.
    """
    tracked = [llm] if encoder is None or encoder is llm else [llm, encoder]
    logs: dict[str, CallLog] = {}
    for t in tracked:
        if t.log is None:
            raise BenchError("recording a replay file needs a call log: run with a database (--db)")
        logs.update(dict.fromkeys(t.keys, t.log))
    records, missing = [], []
    for key in sorted(logs):
        log = logs[key]
        rec = log.lookup(key)
        if rec is None:  # failed live: keep its last error row, replayed as the same failure
            rows = log.for_key(key)
            if not rows:
                missing.append(key)
                continue
            rec = rows[-1]
        d = rec.to_json()
        d.pop("id", None)
        d.pop("created_at", None)
        records.append(d)
    header = {
        "replay": FORMAT,
        "model": f"{llm.provider}:{llm.model}",
        **({"encoder_model": tracked[1].name} if len(tracked) > 1 else {}),
        "run": run,
        "calls": len(records),
        "failed_calls": sum(1 for r in records if r.get("error")),
        "unanswered": missing,
    }
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    with gzip.GzipFile(tmp, "wb", mtime=0) as f:
        for line in [header, *records]:
            f.write((json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n").encode())
    tmp.replace(path)
    return len(records)


def read_replay(path: str | Path) -> tuple[dict, list[CallRecord]]:
    """The header and the call records of a replay file.

    Raises:
        BenchError: the file is missing, not gzip JSON lines, or not a replay file.
    """
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            lines = [json.loads(line) for line in f if line.strip()]
    except (OSError, EOFError, json.JSONDecodeError) as e:
        raise BenchError(
            f"{path}: not a readable replay file ({e}); give the .jsonl.gz file "
            "that `bench run --record` wrote"
        ) from None
    if not lines or lines[0].get("replay") != FORMAT:
        raise BenchError(
            f"{path}: no replay header (format {FORMAT}); give a file written by "
            "`bench run --record`"
        )
    return lines[0], [CallRecord.from_json(d) for d in lines[1:]]


def load_calls(store: Any, records: list[CallRecord]) -> int:
    """Put replayed records into ``store``'s call log; return how many."""
    return CallLog(store).record_many(records)


def seed_calls(store: Any, path: str | Path) -> tuple[int, int]:
    """Add the calls of replay file ``path`` to ``store``'s call log, skipping every key the
    log already holds: a run begun on another machine resumes on this one from its recorded
    calls (``bench run --calls-from``), and seeding twice adds nothing. Returns (added, skipped).

    Raises:
        BenchError: the file is not a replay file.
    """
    _, records = read_replay(path)
    log = CallLog(store)
    known = log.keys()
    fresh = [r for r in records if r.cache_key not in known]
    if fresh:
        log.record_many(fresh)
    return len(fresh), len(records) - len(fresh)


# ------------------------------------------------------------------ record and replay a run
VOLATILE = ("wall_ms",)


def comparable_scores(store: Any, run_id: str) -> list[dict]:
    """A run's stored scores without wall-clock fields: what a replay must reproduce exactly."""
    return [{k: v for k, v in s.items() if k not in VOLATILE} for s in store.bench_scores(run_id)]


def run_options(bench: Any, config: Any) -> dict:
    """The header's ``run``: how to regenerate the bench and rerun the configuration, with the
    embedder the item memories retrieved with (it decides what B-E retrieve, so their prompts)."""
    from analogist.bench.generation.files import file_hashes
    from analogist.retrieve.embedder_choice import choose_embedder

    m = dict(bench.manifest)
    choice = choose_embedder()
    return {
        "embedder": {"name": choice.embedder.name, "spec": choice.resolved_spec},
        "seed": m.get("seed"),
        "split": m.get("split"),
        "size": m.get("size"),
        "bench_hash": file_hashes(bench)["items.jsonl"],
        "config": config.to_json(),
        "bench_files": {
            "items": bench.items_text,
            "keys": bench.keys_text,
            "manifest": dict(bench.manifest),
        },
    }


def record_run(
    store: Any, bench: Any, config: Any, spec: str, path: str | Path, run_id: str
) -> int:
    """Write the replay file of run ``run_id`` stored in ``store`` (finished or not).

    The jobs the run has stored are replayed once, in memory, from ``store``'s call log in
    replay-only mode, noting every request: this collects the calls of every session of a resumed
    run and proves the file replays (a missing call raises here, not in CI). The header lists
    those jobs (a stopped run is recorded as far as it got, and says so) and their scores.
    """
    from analogist.bench.execution.runner import Runner
    from analogist.models.registry import open_llm
    from analogist.store import Store

    done = sorted(store.bench_done_keys(run_id))
    tracked = TrackedLLM(open_llm(f"replay:{spec}", store=store))
    encoder = None
    if config.encoder_model is not None:  # a second model wrote the signatures
        encoder = TrackedLLM(open_llm(f"replay:{config.encoder_model}", store=store))
    scratch = Store(":memory:")
    runner = Runner(scratch, bench, config, llm=tracked, only=done, encoder_llm=encoder)
    replayed = runner.run()
    total = sum(1 for _ in runner._jobs())
    header_run = {
        **run_options(bench, config),
        "jobs": [list(k) for k in done],
        "complete": len(done) == total,
        "jobs_planned": total,
        "scores": comparable_scores(scratch, replayed),
    }
    return write_replay(path, tracked, header_run, encoder)


def replay_run(path: str | Path) -> tuple[Any, str, dict, Any]:
    """Re-run a recorded run from its replay file alone, with zero model calls.

    The embedder the header records is put in force for the replay, whatever this process has
    configured. Returns (store, run id, header, runner). Raises :class:`BenchError` when the
    bench the file names cannot be regenerated identically or its embedder cannot be built, and
    :class:`~analogist.errors.CacheMissError` when the run asks for a call the file does not hold.
    """
    header, records = read_replay(path)
    recorded = header["run"].get("embedder")
    if recorded is None:  # files written before the header named it: the configured embedder
        return _replay(path, header, records)
    from analogist.retrieve.embedder_choice import using_embedder

    with using_embedder(recorded["spec"], source="replay file") as choice:
        if choice.embedder.name != recorded["name"]:
            raise BenchError(
                f"{path}: recorded with the embedder {recorded['name']}, but "
                f"{recorded['spec']!r} builds {choice.embedder.name} here; install the "
                "recorded one (make venv installs MiniLM) to replay this file"
            )
        return _replay(path, header, records)


def _replay(
    path: str | Path, header: dict, records: list[CallRecord]
) -> tuple[Any, str, dict, Any]:
    """:func:`replay_run`'s work, with the embedder already in force."""
    from analogist.bench.execution.arms import ArmSettings
    from analogist.bench.execution.runner import RunConfig, Runner
    from analogist.models.registry import open_llm
    from analogist.store import Store

    run = header["run"]
    bench = recorded_bench(path, run)
    names = {f.name for f in fields(RunConfig)}
    kw: dict[str, Any] = {
        k: tuple(v) if isinstance(v, list) else v for k, v in run["config"].items() if k in names
    }
    config = RunConfig(**{**kw, "settings": ArmSettings(**run["config"]["settings"])})
    store = Store(":memory:")
    load_calls(store, records)
    llm = TrackedLLM(open_llm(f"replay:{header['model']}", store=store))
    encoder = None
    if header.get("encoder_model"):  # a second model wrote the signatures
        encoder = TrackedLLM(open_llm(f"replay:{header['encoder_model']}", store=store))
    runner = Runner(
        store,
        bench,
        config,
        llm=llm,
        only=[tuple(k) for k in run["jobs"]],
        encoder_llm=encoder,
    )
    version = recorded_encoder_version(records)
    if runner.encoding is not None and version is not None:
        runner.encoding.use_version(version)
    return store, runner.run(), header, runner


def recorded_bench(path: str | Path, run: dict[str, Any]) -> Any:
    """The bench a replay header's ``run`` names: the recorded files themselves when the header
    holds them, else regenerated from its seed, split and size.

    Raises:
        BenchError: the bench differs from the recorded one (its hash).
    """
    from analogist.bench import generate_bench
    from analogist.bench.generation.files import Bench, file_hashes, load_bench

    if run.get("bench_files"):  # the recorded bench itself: a replay needs no generator
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            files = run["bench_files"]
            Path(tmp, "items.jsonl").write_text(files["items"], encoding="utf-8")
            Path(tmp, "keys.jsonl").write_text(files["keys"], encoding="utf-8")
            Path(tmp, "manifest.json").write_text(json.dumps(files["manifest"]), encoding="utf-8")
            bench: Bench = load_bench(tmp)
    else:
        bench = generate_bench(run["seed"], run["split"], run["size"])
    if file_hashes(bench)["items.jsonl"] != run["bench_hash"]:
        raise BenchError(
            f"{path}: the bench generated from seed {run['seed']} / {run['split']} / "
            f"{run['size']} differs from the recorded one (the generator changed since); "
            "record the run again with `bench run --record`"
        )
    return bench


def recorded_encoder_version(records: list[CallRecord]) -> str | None:
    """The staged encoder's prompt version the recorded calls were made with (``staged-v4``
    from ``staged-v4:roles``), so a replay asks exactly the recorded requests; None when the
    run encoded nothing with it."""
    versions = {(r.prompt_version or "").split(":", 1)[0] for r in records}
    staged = sorted(v for v in versions if v.startswith("staged-"))
    # a version that generates some steps with another's requests (staged-v9: v4's) records both
    staged = [v for v in staged if v not in {GENERATED_BY.get(w) for w in staged}]
    if len(staged) > 1:
        raise BenchError(
            f"the replay file mixes encoder versions {', '.join(staged)}; "
            "record the run again with one code version"
        )
    return staged[0] if staged else None
