"""The shortcut audit: computed for every bench, passing for honest benches, and able to fail."""

from __future__ import annotations

import pytest

from analogist.bench import run_audit
from analogist.bench.items import Item

from .parb_helpers import bench


@pytest.mark.parametrize("args", [(1, "dev", "mvp"), (1, "test", "mvp"), (8, "dev", "small"),
                                  (8, "test", "small"), (1, "dev", "full")])
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
