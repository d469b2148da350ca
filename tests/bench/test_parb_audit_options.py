"""The audit's per-task rows must not leak one task's bookkeeping into another task."""

from __future__ import annotations

import numpy as np

from analogist.bench.analysis.adversary_features import build_examples

from .parb_helpers import bench


def test_has_match_rows_do_not_depend_on_whether_retrieval_was_built_too():
    """Retrieval centres its options' features; has_match aggregates the same options. The
    centred columns once went into the shared dicts, so only items with a gold episode had
    them: a has_match adversary read the answer from which columns were non-zero."""
    benches = [bench(0, "dev", "full").items, bench(1, "dev", "full").items]
    both = {(e.task, e.family): e for e in build_examples(benches, ("retrieval", "has_match"))}
    alone = {(e.task, e.family): e for e in build_examples(benches, ("has_match",))}
    a, b = both[("has_match", "F3")], alone[("has_match", "F3")]
    assert a.names == b.names and not any(":max_c:" in n or ":mean_c:" in n for n in a.names)
    assert np.array_equal(a.x, b.x) and np.array_equal(a.label, b.label)


def test_audit_command_runs_one_task_on_benches_generated_in_two_processes():
    """``--task retrieval --jobs 2`` audits the retrieval decisions only, on the same benches
    a single process generates, and writes no sidecar (a partial audit is not the audit)."""
    import json

    from click.testing import CliRunner

    from analogist.bench.analysis.audit_set import generated
    from analogist.cli.main import cli

    one = generated([0, 1], ["dev"], "small")
    two = generated([0, 1], ["dev"], "small", jobs=2)
    assert [b.manifest["bench_id"] for b in one] == [b.manifest["bench_id"] for b in two]
    args = ["bench", "audit", "--seeds", "0-1", "--split", "dev", "--size", "small"]
    r = CliRunner().invoke(cli, [*args, "--task", "retrieval", "--jobs", "2", "--json"])
    assert "Traceback" not in r.output
    doc, _ = json.JSONDecoder().raw_decode(r.output[r.output.index("{") :])
    tasks = {x["task"] for a in doc["audits"] for x in a["results"]}
    assert tasks == {"retrieval"}, tasks
