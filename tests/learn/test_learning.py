"""The PARB learning phase on a tiny stream: only engine verdicts feed consolidation (the keys
are read only by the gold encoder and the world check), results are stored and reported."""

from __future__ import annotations

from dataclasses import replace

from analogist.bench.generation.motifs import split_motifs
from analogist.bench.suites.learning import (
    LearningConfig,
    _items,
    latest_learning,
    learn,
    run_learning,
)
from analogist.bench.suites.learning_report import learning_section, learning_text, with_learning
from analogist.store import Store


class Watched(dict):
    """A key that records which fields were read."""

    read: set[str]

    def __getitem__(self, k):
        self.read.add(k)
        return super().__getitem__(k)

    def get(self, k, default=None):
        self.read.add(k)
        return super().get(k, default)


def test_learning_reads_only_the_gold_encoder_and_the_world_check():
    pool = split_motifs("dev")
    items = _items(pool[:2], pool, 4, "stream", 0, "dev")
    watched = []
    for it in items:
        key = Watched(it.key)
        key.read = set()
        watched.append(replace(it, key=key))
    learner, report = learn(LearningConfig(stream_items=4), watched)
    read = set().union(*(k.key.read for k in watched))
    assert read <= {"target_signature", "target_roles", "check"}, read
    assert sum(report["verdicts"].values()) == 4
    assert len(learner.store.list_runs(limit=10)) == 4
    learner.close()


def test_tiny_learning_run_is_stored_and_reported():
    store = Store(":memory:")
    config = LearningConfig(stream_items=6, test_items=2, learn_motifs=3, n_boot=100, pad=3)
    run_id = run_learning(store, config)
    doc = latest_learning(store, n_boot=100)
    assert doc is not None and doc["run_id"] == run_id
    base = {"learned", "heldout", "learned+pad", "heldout+pad"}
    conds = base | {f"{c} map1" for c in base}
    assert set(doc["conditions"]) == conds
    for c in doc["conditions"].values():
        assert c["n_items"] == 2
        assert set(c["metrics"]["nav"]) == {"E", "E+S", "E+S - E"}
    rows = store.bench_results(run_id)
    assert {(r.arm, r.condition) for r in rows} == {(a, c) for a in ("E", "E+S") for c in conds}
    assert "learned motifs" in learning_text(doc)
    html = with_learning("<main></main>", doc)
    assert html.count('<section id="learning">') == 1 and learning_section(doc) in html
    assert with_learning(html, doc).count('<section id="learning">') == 1  # replaced, not added


def test_padding_adds_only_other_motifs_clusters():
    from analogist.bench.suites.learning import _padded

    pool = split_motifs("dev")
    items = _items(pool[:3], pool, 3, "pad", 0, "dev")
    for before, after in zip(items, _padded(items, 5, 0)):
        own = {r["id"] for r in before.inputs["memory"]}
        extra = [r for r in after.inputs["memory"] if r["id"] not in own]
        assert len(extra) == 5 and before.key == after.key
        others = {
            r["id"]: it.motif
            for it in items
            if it.motif != before.motif
            for r in it.inputs["memory"]
        }
        assert all(r["id"] in others for r in extra)


def test_budget_arm_maps_only_the_first_candidates():
    from analogist.bench.execution.arms import ARMS
    from analogist.bench.suites.learning import E_S, budgeted

    arm = budgeted(E_S, 1)
    assert arm.pipeline.fac_candidates == 1 and ARMS["E"].pipeline.fac_candidates == 8
    assert arm.name == "E+S" and arm.pipeline.gate is not None  # otherwise E+S unchanged
