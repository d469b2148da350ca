"""Encoder noise (bench/execution/noise.py), the ISO reference arm (bench/execution/iso.py) and how both reach the
results, scoreboard and report."""

from __future__ import annotations

import json

import pytest

from analogist.bench.analysis.report import write_report
from analogist.bench.execution.answer import target_signature
from analogist.bench.execution.arms import get_arm
from analogist.bench.execution.iso import IsoAnswerer
from analogist.bench.execution.noise import (
    corrupt,
    fidelity_at,
    noisy_item,
    noisy_target,
    parse_rates,
    rate_for_fidelity,
)
from analogist.bench.execution.runner import RunConfig, Runner, plan
from analogist.errors import BenchError
from analogist.signature import default_vocabulary, parse_signature
from analogist.store import Store

from .parb_helpers import bench

VOCAB = default_vocabulary()


def _records(item):
    out = list(item.inputs.get("memory", [])) + list(item.inputs.get("candidates", []))
    return out + ([item.inputs["source"]] if item.inputs.get("source") else [])


def test_corruption_is_seeded_and_zero_rate_is_the_identity():
    sig = _records(bench(1, "dev", "mvp").items[0])[0]["signature"]
    assert corrupt(sig, 0.0, "k") == sig
    assert corrupt(sig, 0.3, "k") == corrupt(sig, 0.3, "k")
    variants = {json.dumps(corrupt(sig, 0.3, f"k{i}"), sort_keys=True) for i in range(12)}
    assert len(variants) > 3  # different seeds, different corruptions


def test_every_corrupted_signature_is_still_a_valid_signature():
    for it in bench(1, "dev", "mvp").items:
        noisy = noisy_item(it, 0.3, seed=0)
        for rec in _records(noisy):
            parse_signature(rec["signature"], VOCAB)
        assert noisy_target(it, VOCAB, 0.3, seed=0).writer_model.endswith("noise=0.3")
        assert noisy.key == it.key  # keys are never touched


def test_fidelity_falls_with_the_rate_and_maps_back_to_a_rate():
    items = bench(1, "dev", "small").items
    table = {r: fidelity_at(r, items, VOCAB) for r in (0.0, 0.1, 0.2, 0.3)}
    assert table[0.0] == 1.0 and table[0.0] > table[0.1] > table[0.2] > table[0.3] > 0.4
    assert rate_for_fidelity(table[0.2] + 0.01, table) == 0.2


def test_noise_rates_are_parsed_or_refused_in_one_line():
    assert parse_rates("0.3,0.1, 0.2") == (0.1, 0.2, 0.3) and parse_rates("none") == ()
    with pytest.raises(BenchError, match="rates like"):
        parse_rates("a lot")
    with pytest.raises(BenchError, match=r"\[0, 1\)"):
        parse_rates("1.5")
    with pytest.raises(BenchError, match="gold"):
        RunConfig(noise=(0.1,), encoder="model")


def test_iso_claims_exactly_the_isomorphic_candidate_and_carries_the_fix_over():
    b = bench(1, "dev", "mvp")
    f2 = [it for it in b.items if it.family == "F2"]
    for it in f2:
        ans = IsoAnswerer().answer("F2", it.inputs, target_signature(it.key, VOCAB))
        assert ans.claimed_source == it.key["gold_source"]
        assert ans.judged == {cid: bool(v) for cid, v in it.key["valid"].items()}
    it = next(i for i in b.items if i.family == "F1")
    ans = IsoAnswerer().answer("F1", it.inputs, target_signature(it.key, VOCAB))
    assert ans.role_map == it.key["role_mapping"] and ans.action is not None


def test_iso_has_no_model_form():
    p = plan(RunConfig(arms=("ISO", "E"), answerers=("engine", "model")), has_model=True)
    assert ("ISO", "engine") in p.pairs and "ISO/model" in p.skipped
    assert get_arm("ISO").reference


def test_a_noisy_run_reports_e_minus_iso_and_the_noise_curve(tmp_path):
    store = Store(str(tmp_path / "p.db"))
    config = RunConfig(arms=("ISO", "E"), answerers=("engine",), noise=(0.3,), contamination=False)
    run_id = Runner(store, bench(1, "dev", "small"), config).run()
    paths = write_report(store, run_id, tmp_path / "out", n_boot=200)
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    block = results["answerers"]["engine"]
    curve = block["noise_curve"]
    assert curve["rates"] == [0.0, 0.3] and set(curve["arms"]) == {"ISO", "E"}
    assert [d["rate"] for d in curve["e_minus_iso"]] == [0.0, 0.3]
    assert block["e_minus_iso"]["nav"]["interval"]["n_items"] == 16
    # noise reruns never leak into the ordinary metrics
    assert block["arms"]["E"]["n_items"] == 16
    board = paths["scoreboard_text"]
    assert "E − ISO NAV:" in board and "Encoder noise" in board and "noise 0.3" in board
    html = (tmp_path / "out" / "report.html").read_text()
    assert "NAV against encoder noise" in html and "E − ISO" in html
