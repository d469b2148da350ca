"""The PARB blending suite: honest fragments, deterministic items, scoring of generated
sources, and a tiny stored run aggregated into H6 and a report section."""

import copy

import pytest

from analogist.bench.generation.motifs import motif
from analogist.bench.generation.signatures import gold_signature
from analogist.bench.generation.world import World
from analogist.bench.suites.blending import (
    BlendingConfig,
    blend_score,
    fragment_fix,
    fragment_motif,
    items,
    rebuilds_target,
    splits,
)
from analogist.bench.suites.blending_report import blending_text, latest_blending, with_blending


def test_fragments_are_honest_worlds():
    m = motif("stale_copy")
    pairs = splits(m)
    assert pairs
    for a, b in pairs:
        assert set(a) | set(b) == set(m.facts) and set(a) & set(b)
        assert set(a) != set(m.facts) and set(b) != set(m.facts)
    a, _ = pairs[0]
    frag = fragment_motif(m, a)
    assert set(frag.relations) <= set(m.relations) and set(frag.chain) <= set(m.chain)
    assert len(frag.chain) < len(m.chain) or len(frag.relations) < len(m.relations)
    fix = next(f for f in (fragment_fix(fragment_motif(m, x)) for pair in pairs for x in pair) if f)
    good = next(
        fragment_motif(m, x)
        for pair in pairs
        for x in pair
        if fragment_fix(fragment_motif(m, x)) == fix
    )
    world = World(good, "true", gold_signature(good))
    assert all(world.simulate(fix, s).result == "resolved" for s in range(3))


@pytest.fixture(scope="module")
def split_items():
    return items(BlendingConfig(items=2), "split")


def test_items_are_deterministic_and_split(split_items):
    again = items(BlendingConfig(items=2), "split")
    assert [i.input_record() for i in split_items] == [i.input_record() for i in again]
    for it in split_items:
        labels = it.key["memory_roles"]
        frags = [eid for eid, lab in labels.items() if lab == "fragment"]
        assert sorted(frags) == sorted(it.key["blend_inputs"]) == sorted(it.key["keyed_matches"])
        assert it.key["has_valid_source"] and it.key["gold_source"] is None
        assert "source" not in labels.values()  # no stored episode holds the whole structure
        n_target = len(it.key["target_signature"]["relations"]) + len(
            it.key["target_signature"]["causal_chain"]
        )
        for rec in it.inputs["memory"]:
            if rec["id"] in frags:
                sig = rec["signature"]
                assert len(sig["relations"]) + len(sig["causal_chain"]) < n_target
        assert "key" not in it.input_record()


def test_a_blend_is_valid_only_if_it_rebuilds_the_target(split_items):
    key = split_items[0].key
    gold = copy.deepcopy(key["target_signature"])
    to_eid = {role: eid for eid, role in key["target_roles"].items()}
    assert rebuilds_target(gold, to_eid, key)
    gold["causal_chain"] = gold["causal_chain"][1:]
    assert not rebuilds_target(gold, to_eid, key)


def test_novel_needs_a_useful_blend(split_items):
    from analogist.bench.execution.answer import Answer

    it = split_items[0]
    sc = blend_score(it, Answer(claimed_source="bld:x:y", run={"attempts": []}), "E+Bld", 0)
    assert not sc.novel and sc.false_accept  # an unknown blend is no keyed match


def test_bench_run_suite_blending_cli(tmp_path, monkeypatch):
    import json

    from click.testing import CliRunner

    import analogist.bench.suites.blending as blending
    from analogist.cli.main import cli

    monkeypatch.setitem(blending.SIZES, "small", 1)  # one item per condition: seconds, not minutes
    out = tmp_path / "out"
    res = CliRunner().invoke(
        cli,
        [
            "--db",
            str(tmp_path / "b.sqlite"),
            "bench",
            "run",
            "--suite",
            "blending",
            "--size",
            "small",
            "--n-boot",
            "50",
            "--out",
            str(out),
            "--json",
        ],
    )
    assert res.exit_code == 0, res.output
    doc = json.loads(res.output[res.output.index("{") :])
    assert doc["summary"]["h6"] == "insufficient data"
    assert (out / "blending.txt").read_text().count("H6") == 1
    assert '<section id="blending">' in (out / "blending.html").read_text()
    from analogist.store import Store

    store = Store(str(tmp_path / "b.sqlite"))
    run_id = doc["run_id"]
    rows = store.bench_results(run_id)
    assert {(r.arm, r.condition) for r in rows} == {
        (a, c) for a in ("E", "E+Bld") for c in ("split", "split_decoy", "plain")
    }
    assert all(r.answer["blending"]["proposed"] == 0 for r in rows if r.arm == "E")
    agg = latest_blending(store, n_boot=50)
    assert agg is not None and agg["run_id"] == run_id and "197 needed" in agg["h6"]["reason"]
    assert "H6 (E+Bld vs E, pooled)" in blending_text(agg)
    html = with_blending("<main></main>", agg)
    assert '<section id="blending">' in html and html.endswith("</main>")
    store.close()
