"""The shortcut audit: computed for every bench, passing for honest benches, and able to fail."""

from __future__ import annotations

import copy
import random

import pytest

from analogist.bench import run_audit
from analogist.bench.analysis.adversary import adversarial_audit, wilson
from analogist.bench.execution.iso import isomorphism, name_free_form
from analogist.bench.generation.items import Item

from .parb_helpers import bench


@pytest.mark.parametrize(
    "args",
    [
        (1, "dev", "mvp"),
        (1, "test", "mvp"),
        (8, "dev", "small"),
        (8, "test", "small"),
        (1, "dev", "full"),
    ],
)
def test_audit_passes_with_surface_at_chance_and_structure_far_above(args):
    audit = bench(*args).manifest["audit"]
    assert audit["passed"], audit["checks"]
    f2, roles, ret = audit["f2_choice"], audit["role_mapping"], audit["retrieval"]
    assert f2["overlap"] <= 0.5 and f2["cosine"] <= 0.5 and f2["structure"] >= 0.9
    assert roles["surface"] <= roles["surface_limit"] and roles["structure"] >= 0.9
    assert ret["overlap"] <= ret["surface_limit"] and ret["structure"] >= 0.9
    assert ret["f8"]["structure_collapsed"] >= 0.9


def test_surface_baseline_prefers_the_near_decoy():
    """In standard F2 items the surface baseline always picks the same-skin decoy."""
    b = bench(1, "dev", "full")
    standard = [it for it in b.items if it.family == "F2" and not it.key["control"]]
    audit = run_audit(standard)
    assert audit["f2_choice"]["overlap"] == 0.0 and audit["f2_choice"]["structure"] == 1.0


def test_audit_fails_a_bench_where_surface_gives_the_answer():
    b = bench(1, "dev", "full")
    leaky = []
    for it in b.items:
        if it.family == "F2":
            key = dict(it.key)
            key["gold_source"] = it.key["near"]  # pretend the near candidate were always valid
            leaky.append(Item(it.item_id, it.family, it.split, it.motif, it.inputs, key))
    audit = run_audit(leaky)
    assert not audit["checks"]["f2_surface_at_or_below_chance"]
    assert not audit["passed"]


# ---------------------------------------------------------------- the adversarial audit

TELL = "The file was closed on a Friday."


def _relabelled(items, seed: int, plant: bool) -> list[Item]:
    """F2 items whose key names a seeded-random candidate as the valid one: every real cue of
    the generator is then noise with respect to the labels (the bench is clean by
    construction). ``plant`` adds one tell: the valid candidate's outcome gains a sentence."""
    rng = random.Random(seed)
    out = []
    for it in items:
        if it.family != "F2":
            continue
        inputs, key = copy.deepcopy(dict(it.inputs)), copy.deepcopy(dict(it.key))
        ids = [c["id"] for c in inputs["candidates"]]
        valid = ids[rng.randrange(len(ids))]
        key["valid"] = {i: i == valid for i in ids}
        key["gold_source"] = valid
        if plant:
            for c in inputs["candidates"]:
                if c["id"] == valid:
                    c["outcome"] = f"{c.get('outcome', '')} {TELL}".strip()
        out.append(Item(it.item_id, it.family, it.split, it.motif, inputs, key))
    return out


def _audit(plant: bool):
    benches = [(s, _relabelled(bench(s, "dev", "mvp").items, 100 + s, plant)) for s in range(4)]
    return adversarial_audit(benches, learners=("lr",), tasks=("F2",))


def test_adversarial_audit_passes_when_labels_carry_no_surface_signal():
    audit = _audit(plant=False)
    assert audit.train_seeds == (0, 1) and audit.test_seeds == (2, 3)
    attackers = [r for r in audit.results if r.kind != "reference"]
    assert {r.adversary for r in attackers} >= {
        "lr:surface",
        "lr:transductive",
        "longer_outcome",
        "qualifier_present",
        "combined",
    }
    assert audit.passed, [r.to_json() for r in audit.failures]
    n = {r.n_items for r in attackers}
    assert len(n) == 1 and n.pop() >= 12 and {r.chance for r in attackers} == {0.5}


def test_adversarial_audit_fails_a_bench_with_a_planted_tell():
    audit = _audit(plant=True)
    assert not audit.passed
    failed = {r.adversary for r in audit.failures}
    # the learned surface adversary finds the tell (its words land in hashed n-gram buckets)
    assert "lr:surface" in failed, failed
    best = audit.worst()[("F2", "F2")]
    assert best.low > best.chance + 0.05 and best.estimate > 0.8


def test_tiny_samples_cannot_give_a_degenerate_interval():
    low, high = wilson(1.0, 4)
    assert 0.45 < low < 0.55 and high == pytest.approx(1.0)
    # four items all right is not evidence enough to fail a bench at chance 0.5
    assert not low > 0.5 + 0.05


def test_name_free_form_ignores_role_names_and_finds_the_isomorphism():
    a = {
        "roles": {"R1": "x", "R2": "y"},
        "relations": [["observes", "R1", "R2"]],
        "causal_chain": [["fails(R2)", "causes", "silent(R1)"]],
    }
    b = {
        "roles": {"Q9": "p", "Q3": "q"},
        "relations": [["observes", "Q3", "Q9"]],
        "causal_chain": [["fails(Q9)", "causes", "silent(Q3)"]],
    }
    c = {**b, "causal_chain": [["fails(Q3)", "causes", "silent(Q9)"]]}
    assert name_free_form(a) == name_free_form(b) != name_free_form(c)
    assert isomorphism(a, b) == {"R1": "Q3", "R2": "Q9"}
    assert isomorphism(a, c) is None


def test_audit_sidecar_is_written_beside_the_bench_and_reaches_the_report(tmp_path):
    from analogist.bench.analysis.audit_set import SIDECAR, read_sidecar, write_sidecars
    from analogist.bench.analysis.html import render_html
    from analogist.bench.analysis.scoreboard import scoreboard
    from analogist.bench.generation.files import load_bench

    d = tmp_path / "b"
    bench(1, "dev", "small").write(d)
    b = load_bench(d)
    audit = adversarial_audit([(1, b.items)], learners=("lr",), tasks=("F2",))
    assert audit.protocol.startswith("one bench")
    write_sidecars([d], [b], [audit])
    load_bench(d)  # the sealed files are untouched
    doc = read_sidecar(d, b.manifest["bench_id"])
    assert doc and doc["audit"]["split"] == "dev" and (d / SIDECAR).exists()
    assert read_sidecar(d, "another bench") is None
    results = {"bench": dict(b.manifest), "adversarial_audit": doc, "answerers": {}}
    assert "adversarial " in scoreboard(results, None)
    assert "Adversarial audit, split dev" in render_html(results)


def test_audit_command_refuses_bad_input_in_one_line():
    from click.testing import CliRunner

    from analogist.cli.main import cli

    r = CliRunner().invoke(cli, ["bench", "audit"])
    assert r.exit_code != 0 and "Traceback" not in r.output
    assert "bench directories or --seeds" in r.output
    r = CliRunner().invoke(cli, ["bench", "audit", "--seeds", "zero-to-nine"])
    assert r.exit_code != 0 and "range like 0-19" in r.output
