"""The runner: arms as configurations, engine answers, scoring, resumability, contamination."""

import json

import pytest

from analogist.bench import generate_bench
from analogist.bench.analysis.results import aggregate
from analogist.bench.analysis.scoreboard import scoreboard
from analogist.bench.execution.answer import rename_target, shuffled, target_signature
from analogist.bench.execution.arms import ARMS, get_arm
from analogist.bench.execution.runner import RunConfig, plan, run_bench
from analogist.errors import BenchError
from analogist.store import Store


@pytest.fixture(scope="module")
def small():
    return generate_bench(0, "dev", "small")


@pytest.fixture(scope="module")
def ran(small):
    store = Store(":memory:")
    rid = run_bench(store, small, RunConfig(arms=("B", "C", "D", "E", "G"), answerers=("engine",)))
    return store, rid


def test_arms_are_the_spec_set_and_share_settings():
    assert set(ARMS) == {"A0", "A1", "B", "B′", "C", "C′", "H", "D", "E", "G", "E+R", "ISO"}
    assert get_arm("B'").name == "B′"
    assert ARMS["E"].pipeline.gate is not None and ARMS["D"].pipeline.gate is None
    assert ARMS["E+R"].pipeline.rerep_attempts == 2 and ARMS["G"].oracle
    assert ARMS["C′"].shuffle_signatures and not ARMS["C"].shuffle_signatures
    with pytest.raises(BenchError, match="unknown arm"):
        get_arm("Z")


def test_plan_skips_with_reasons():
    p = plan(RunConfig(), has_model=False)
    assert "A0/engine" in p.skipped and "bare model" in p.skipped["A0/engine"]
    assert "B′/engine" in p.skipped and "context size" in p.skipped["B′/engine"]
    assert "E/model" in p.skipped and "no model configured" in p.skipped["E/model"]
    assert ("E", "engine") in p.pairs


def test_gold_target_signature_hides_role_names_fix_and_templates(small, vocab):
    item = next(i for i in small.items if i.family == "F1")
    sig = target_signature(item.key, vocab)
    assert set(sig.role_names) == set(item.inputs["target"]["entities"])
    assert sig.fix_operator is None
    raw = rename_target(item.key["target_signature"], item.key["target_roles"])
    text = json.dumps(raw)
    assert item.motif not in text
    # L1-L3, invariant and role descriptions are written from the structure (entity ids and
    # names), never copied from the motif: none of its templates or role names appears
    from analogist.bench.generation.motifs import motif

    m = motif(item.motif)
    for s in (m.levels["L2"], m.levels["L3"], m.symptom, m.invariant, *m.roles.values()):
        assert s not in text
    assert not set(m.roles) & set(raw["roles"])


def test_shuffle_moves_every_signature():
    recs = [
        {
            "id": f"e{i}",
            "kind": "failure",
            "text": f"t{i}",
            "signature": {
                "episode_id": f"e{i}",
                "kind": "failure",
                "roles": {"A": "a"},
                "relations": [],
                "levels": {"L0": f"t{i}"},
                "marker": i,
            },
        }
        for i in range(4)
    ]
    out = shuffled(recs, seed=3)
    assert [r["signature"]["episode_id"] for r in out] == ["e0", "e1", "e2", "e3"]
    assert [r["signature"]["marker"] for r in out] != [0, 1, 2, 3]
    assert shuffled(recs, seed=3) == out


def test_run_stores_every_score_and_resumes_without_work(small, ran):
    store, rid = ran
    n = len(store.bench_scores(rid))
    per_arm = len(small.items)
    controls = sum(1 for i in small.items if i.family in ("F1", "F4")) * 4
    assert n == 5 * per_arm + controls
    again = run_bench(
        store, small, RunConfig(arms=("B", "C", "D", "E", "G"), answerers=("engine",))
    )
    assert again == rid and len(store.bench_scores(rid)) == n


def test_killed_run_continues_where_it_stopped(small):
    store = Store(":memory:")
    cfg = RunConfig(arms=("C",), answerers=("engine",), contamination=False)
    rid = run_bench(store, small, cfg)
    full = store.bench_scores(rid)
    store.conn.execute(
        "DELETE FROM bench_results WHERE rowid IN "
        "(SELECT rowid FROM bench_results ORDER BY rowid DESC LIMIT 5)"
    )
    run_bench(store, small, cfg)

    def timeless(scores):
        return [{k: v for k, v in s.items() if k != "wall_ms"} for s in scores]

    assert timeless(store.bench_scores(rid)) == timeless(full)


def test_oracle_is_at_least_as_good_and_verification_cuts_negative_transfer(ran):
    store, rid = ran
    res = aggregate(store, rid, n_boot=200)
    arms = res["answerers"]["engine"]["arms"]
    nav = {a: arms[a]["metrics"]["nav"]["estimate"] for a in arms}
    assert nav["G"] >= nav["E"]
    assert arms["E"]["metrics"]["negative_transfer_rate"]["estimate"] in (0.0, None)
    verdicts = {v["hypothesis"]: v["status"] for v in res["answerers"]["engine"]["verdicts"]}
    assert verdicts["H4"] == "not run"


def test_source_dependence_and_lesion_are_reported(ran):
    store, rid = ran
    c = aggregate(store, rid, n_boot=200)["answerers"]["engine"]["contamination"]
    acc = c["source_dependence"]["accuracy"]
    assert acc["no_source"] == 0.0
    assert acc["correct_source"] >= acc["wrong_source"]
    assert c["lesion"]["n"] > 0


def test_scoreboard_has_the_three_sections(ran):
    store, rid = ran
    text = scoreboard(aggregate(store, rid, n_boot=200), {"opportunities": 3})
    assert text.startswith("10 Analogical reasoning")
    for part in (
        "Latest — PARB",
        "NAV:",
        "Decoy d′:",
        "Recall@5 far:",
        "Baseline —",
        "A1 NAV:            not run",
        "Live use — last 7 days",
        "opportunities:",
    ):
        assert part in text


def test_system_under_test_never_reads_the_key(small, monkeypatch):
    """The engine answerer gets inputs and a gold-encoded target; key access would fail."""
    from analogist.bench.execution import engine_answer

    seen = []
    real = engine_answer.EngineAnswerer.answer

    def spy(self, family, inputs, target, **kw):
        seen.append(json.dumps(inputs, default=str))
        return real(self, family, inputs, target, **kw)

    monkeypatch.setattr(engine_answer.EngineAnswerer, "answer", spy)
    run_bench(
        Store(":memory:"), small, RunConfig(arms=("E",), answerers=("engine",), contamination=False)
    )
    for item, text in zip(small.items, seen):
        assert item.motif not in text
        assert "role_mapping" not in text and "gold_source" not in text
