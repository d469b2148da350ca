"""The committed reference run(s) of ``docs/results.md`` replay exactly, with zero model calls.

Each ``bench/reference/*.replay.jsonl.gz`` holds a real local model's calls and, in its header,
the scores that run stored. Replaying regenerates the bench from the recorded seed, split and
size, re-runs exactly the recorded jobs through the current code and must reproduce every score.
A failure means the code under test, the prompts or the bench generator changed since the run
was recorded: record it again (``docs/results.md`` says how) rather than editing the file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from analogist.bench.execution.replay import comparable_scores, read_replay, replay_run

REFERENCE = Path(__file__).resolve().parents[2] / "bench" / "reference"
FILES = sorted(REFERENCE.glob("*.replay.jsonl.gz"))


def test_a_reference_run_is_committed():
    assert FILES, f"no replay file in {REFERENCE}"


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_the_reference_run_replays_exactly_with_zero_model_calls(path, monkeypatch):
    # the reference runs retrieved with MiniLM (their scoreboards' config: embedders); the test
    # suite's default is the hashing embedder (tests/conftest.py), which would change the
    # memories B, C, D and E retrieve from and so the prompts
    monkeypatch.setenv("ANALOGIST_EMBEDDER", "minilm")
    header, records = read_replay(path)
    assert header["model"].startswith("local:") and records
    store, run_id, _, runner = replay_run(path)
    assert runner.llm.stats.calls == 0
    assert comparable_scores(store, run_id) == header["run"]["scores"]
