"""``bench/agent_loop.py`` runs real ``analogist add`` / ``analogist search`` processes on one
memory and reports, per round, how far the database was past the snapshot and which process
saved it."""

from __future__ import annotations

import os

from tests.scale.bench_script import bench_json


def test_the_loop_reports_each_round(tmp_path):
    res = bench_json("agent_loop.py", ["--size", "300", "--rounds", "2", "--batch", "40"], tmp_path)
    assert [(r["episodes"], r["behind"]) for r in res["rounds"]] == [(340, 40), (380, 80)]
    assert not any(r["add"]["saved"] or r["search"]["saved"] for r in res["rounds"])  # < 1,000
    assert all(r["search"]["cpu"] > 0 for r in res["rounds"])
    assert os.listdir(tmp_path) == []  # the scratch memory is removed
