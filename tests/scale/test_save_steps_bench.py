"""``bench/save_steps.py`` times incremental saves in a row and reports what each kept."""

from __future__ import annotations

import os

from tests.scale.bench_script import bench_json


def test_saves_in_a_row_keep_their_bases_until_a_delta_outgrows_them(tmp_path):
    args = ["--size", "400", "--add", "30", "--saves", "3", "--batch", "30"]
    res = bench_json("save_steps.py", args, tmp_path)
    assert [s["episodes"] for s in res["saves"]] == [430, 460, 490]
    assert all(s["cpu"] > 0 for s in res["saves"])
    # 30 new of a 400 base: kept; 60 would pass 1/8 of it: merged; then 30 of 460: kept
    for s, want in zip(res["saves"], [(True, 30), (False, 0), (True, 30)], strict=True):
        kinds = {k.split(":")[0] for k in s["kept"]}
        assert kinds == {"postings", "ids", "hashes"}
        assert all(tuple(v) == want for v in s["kept"].values()), s["kept"]
    assert sum(k.startswith("ids:") for k in res["saves"][0]["kept"]) == 5  # S0, S1, 3 levels
    assert os.listdir(tmp_path) == []  # the scratch memory is removed
