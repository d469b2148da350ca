"""PARB learning phase (spec §3.2, Phase 5): do schemas induced from the system's own verified
analogies help it later?

1. **Motifs.** The split's motifs are shuffled by the seed; ``learn_motifs`` of them are
   *learned*, the rest *held out*.
2. **Learning stream.** F3 items (target plus a memory snapshot) on the learned motifs are
   answered by arm E's machinery (engine answerer). Each run goes into a learner memory: the
   target and the chosen source as episodes, the run in its analogy log and the world check's
   outcome in its transfer ledger. Only the engine's verdicts decide what counts (critic
   accepted, prediction check passed in the item's world); the answer keys are never read.
   :func:`analogist.learn.consolidate` then induces the schema library (``require_check``).
3. **Test.** Fresh F3 items (another item seed: new skins, new snapshots) on the learned motifs
   and on the held-out ones are answered by E and by ``E+S`` — E with the induced library
   installed in each item's memory (S3 finds the schema's instances there; schema hits are
   mapped first). Scores are the benchmark's own (:func:`analogist.bench.analysis.score_answer.score`).

Figures: S3 recall@1 (the schema channel's first hit is the keyed source), first-candidate
recall (the first candidate the mapper maps is the keyed source — the arms' common ground),
time to the first correct source (its position in the order candidates are mapped), NAV of E
and E+S with the paired difference, and on held-out motifs the false-accept rate of both arms
(schema false positives would raise E+S above E). Targets use the labelled ``gold`` encoder,
as in every engine run.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from analogist.bench.analysis.check import check_fix
from analogist.bench.analysis.metrics import Metric, nav
from analogist.bench.analysis.score_answer import score
from analogist.bench.analysis.score_record import Score
from analogist.bench.analysis.stats import bootstrap, paired_difference
from analogist.bench.execution.answer import Answer, target_signature
from analogist.bench.execution.arms import ARMS, Arm
from analogist.bench.execution.engine_answer import EngineAnswerer
from analogist.bench.generation.asides import Dealer
from analogist.bench.generation.family_retrieval import build_f3
from analogist.bench.generation.items import Context, Item, Slot
from analogist.bench.generation.motifs import split_motifs
from analogist.bench.suites.runs import newest_done_run
from analogist.errors import BenchError
from analogist.learn import ConsolidationPolicy, InductionPolicy
from analogist.memory import Memory
from analogist.reason.analogizer import AnalogizerConfig
from analogist.store.runs import TransferOutcome

KIND = "learning"
E_S = replace(
    ARMS["E"],
    name="E+S",
    purpose="E plus the schema library induced in the "
    "learning phase from E's own verified analogies",
)


SIZES = {"small": (12, 8), "mvp": (36, 24), "full": (72, 48)}  # stream items, test items/condition


@dataclass(frozen=True)
class LearningConfig:
    """The learning phase's settings (stored with its run)."""

    seed: int = 0
    split: str = "dev"
    learn_motifs: int = 6
    stream_items: int = 36
    test_items: int = 24
    threshold: float = 0.7
    n_boot: int = 1000
    pad: int = 40
    budget: int = 1

    def to_json(self) -> dict:
        return asdict(self)

    @classmethod
    def sized(cls, size: str, **kw: Any) -> LearningConfig:
        """The configuration of a bench size (small: 12 + 2x8 items, mvp: 36 + 2x24,
        full: 72 + 2x48)."""
        if size not in SIZES:
            raise BenchError(f"unknown size {size!r}; use one of {', '.join(SIZES)}")
        stream, test = SIZES[size]
        return cls(stream_items=stream, test_items=test, **kw)


def _items(motifs: Sequence, pool: tuple, n: int, tag: str, seed: int, split: str) -> list[Item]:
    taken: set[str] = set()
    dealer = Dealer(f"learning|{tag}|{seed}")
    out = []
    for i in range(n):
        rng = random.Random(f"learning|{tag}|{seed}|{i}")
        m = motifs[i % len(motifs)]
        # the ordinal runs on, so every third item has no valid source (build_f3), spread
        # evenly over the stream and over motifs
        out.append(build_f3(Context(rng, split, pool, taken, dealer), Slot("F3", m, i, i % 4 == 3)))
    return out


def _probe(item: Item) -> Callable[[str, Sequence[str]], str] | None:
    check = item.key.get("check")
    return (lambda op, args: check_fix(check, op, args).result) if check else None


@dataclass(frozen=True)
class BudgetArm(Arm):
    """An arm whose mapper maps only the first ``fac`` pool candidates (a mapping budget)."""

    fac: int = 8

    @property
    def pipeline(self) -> AnalogizerConfig:
        return replace(Arm.pipeline.fget(self), fac_candidates=self.fac)  # type: ignore[attr-defined]


def budgeted(arm: Arm, fac: int) -> BudgetArm:
    return BudgetArm(**{f.name: getattr(arm, f.name) for f in fields(Arm)}, fac=fac)


class SchemaAnswerer(EngineAnswerer):
    """E+S: arm E's machinery with a schema library installed in every item memory."""

    def __init__(self, schemas: Sequence[dict], seed: int = 0, arm: Arm = E_S):
        super().__init__(arm, seed)
        self.schemas = list(schemas)

    def memory(self, inputs: Any) -> Memory:
        m = super().memory(inputs)
        for raw in self.schemas:
            m.add_schema(raw, [])
        return m


def _target(item: Item, vocab: Any) -> Any:
    """The gold encoder's target signature named after its item (the encoder
    names every target ``target``; the learner memory needs them apart)."""
    return target_signature(item.key, vocab).with_episode_id(f"tgt_{item.item_id}")


def _learner_record(item: Item, sig: Any) -> dict:
    rec = item.inputs["target"]
    return {
        "id": sig.episode_id,
        "kind": sig.kind,
        "text": rec.get("text", sig.level("L0")),
        "signature": sig.to_json(),
    }


def learn(config: LearningConfig, items: Sequence[Item]) -> tuple[Memory, dict]:
    """Answer the stream with E, feed every run to a learner memory, consolidate."""
    learner = Memory(":memory:")  # the configured embedder, as the arms' item memories use
    e = EngineAnswerer(ARMS["E"], config.seed)
    vocab = learner.store.vocabulary
    for item in items:
        target = _target(item, vocab)
        ans = e.answer(item.family, item.inputs, target, probe=_probe(item))
        run = dict(ans.run or {})
        records = [_learner_record(item, target)]
        records += [r for r in item.inputs.get("memory", []) if r["id"] == run.get("source")]
        learner.add([json.dumps(r) for r in records if not learner.store.has_episode(r["id"])])
        applied = (run.get("record") or {}).get("applied")
        transfer = None
        if applied:
            delta = (run["record"].get("check_result") or {}).get("delta")
            transfer = TransferOutcome(applied["action"], applied["outcome"], delta=delta)
        learner.store.log_run({**run, "target_id": target.episode_id}, transfer)
    report = learner.consolidate(
        policy=ConsolidationPolicy(
            InductionPolicy(assimilation_threshold=config.threshold), require_check=True
        )
    )
    return learner, report.to_json()


def _s3_first(ans: Answer) -> str | None:
    cands = (ans.run or {}).get("candidates", [])
    hits = [(c["ranks"]["S3"], c["episode_id"]) for c in cands if "S3" in c.get("ranks", {})]
    return min(hits)[1] if hits else None


def _padded(items: Sequence[Item], n: int, seed: int) -> list[Item]:
    """Each item with ``n`` more stored episodes: the motif clusters (source and decoys) of
    items whose target is another motif — so the padding holds no valid source for the item
    and no new structure of its motif, only more structured distractors (generator-side
    knowledge, as when the generator builds a snapshot)."""
    out = []
    for i, item in enumerate(items):
        own = {r["id"] for r in item.inputs.get("memory", [])}
        spare = [
            r
            for other in items
            if other.motif != item.motif
            for r in other.inputs.get("memory", [])
            if other.key["memory_roles"].get(r["id"], "").startswith(("source", "decoy"))
            and r["id"] not in own
        ]
        spare = list({r["id"]: r for r in spare}.values())
        random.Random(f"learning|pad|{seed}|{i}").shuffle(spare)
        memory = [*item.inputs.get("memory", []), *spare[:n]]
        memory.sort(key=lambda r: (r.get("time", ""), r["id"]))
        out.append(replace(item, inputs={**item.inputs, "memory": memory}))
    return out


def run_learning(store: Any, config: LearningConfig = LearningConfig()) -> str:
    """Run the learning phase, store every test score as a bench run of kind ``learning``
    (conditions ``learned`` / ``heldout``; with ``pad`` > 0 the same items in larger
    memories, ``learned+pad`` / ``heldout+pad``; with ``budget`` > 0 every condition again
    with a mapper that maps only the first ``budget`` candidates, ``… map1``) and return its
    run id."""
    pool = split_motifs(config.split)
    order = list(pool)
    random.Random(f"learning|motifs|{config.seed}").shuffle(order)
    learned, held = order[: config.learn_motifs], order[config.learn_motifs :]
    stream = _items(learned, pool, config.stream_items, "stream", config.seed, config.split)
    learner, summary = learn(config, stream)
    schemas = [r.schema_json for r in learner.store.list_schemas()]
    run_id = "learn_" + hashlib.sha256(json.dumps(config.to_json()).encode()).hexdigest()[:12]
    cfg = {
        "kind": KIND,
        **config.to_json(),
        "embedder": learner.embedder.name,
        "learned_motifs": [m.name for m in learned],
        "heldout_motifs": [m.name for m in held],
        "consolidation": summary,
        "schemas": len(schemas),
    }
    store.start_bench_run(run_id, run_id, cfg)
    plain = (EngineAnswerer(ARMS["E"], config.seed), SchemaAnswerer(schemas, config.seed))
    tight = (
        EngineAnswerer(budgeted(ARMS["E"], config.budget), config.seed),
        SchemaAnswerer(schemas, config.seed, budgeted(E_S, config.budget)),
    )
    vocab = store.vocabulary
    tests = {
        cond: _items(motifs, pool, config.test_items, f"test-{cond}", config.seed + 1, config.split)
        for cond, motifs in (("learned", learned), ("heldout", held))
    }
    if config.pad:
        both = tests["learned"] + tests["heldout"]
        padded = {it.item_id: it for it in _padded(both, config.pad, config.seed)}
        for cond in ("learned", "heldout"):
            tests[f"{cond}+pad"] = [padded[it.item_id] for it in tests[cond]]
    if config.budget:
        for cond in list(tests):
            tests[f"{cond} map{config.budget}"] = tests[cond]
    for cond, items in tests.items():
        e, es = tight if " map" in cond else plain
        for item in items:
            target = _target(item, vocab)
            for arm, who in (("E", e), ("E+S", es)):
                ans = who.answer(item.family, item.inputs, target, probe=_probe(item))
                sc = score(item, ans, arm=arm, answerer="engine", seed=config.seed)
                extra = {"s3_first": _s3_first(ans)}
                store.put_bench_result(
                    run_id,
                    (arm, "engine", item.item_id, config.seed, cond),
                    sc.to_json(),
                    {**ans.to_json(), "learning": extra},
                )
    store.finish_bench_run(run_id)
    learner.close()
    return run_id


def _rate(name: str, row: Callable[[Score], tuple[float, float]], higher: bool = True) -> Metric:
    return Metric(
        name,
        ("hit", "n"),
        row,
        lambda t: float(t[0] / t[1]) if t[1] else float("nan"),
        higher,
        description=name,
    )


FIRST_CANDIDATE = _rate(
    "first_candidate_recall",
    lambda s: (
        bool(s.retrieved) and s.retrieved[0] == s.gold_source,
        s.has_valid_source and bool(s.gold_source),
    ),
)
TIME_TO_SOURCE = Metric(
    "time_to_first_correct_source",
    ("position", "found"),
    lambda s: (
        float(s.retrieved.index(s.gold_source) + 1) if s.gold_source in s.retrieved else 0.0,
        float(s.gold_source in s.retrieved),
    ),
    lambda t: float(t[0] / t[1]) if t[1] else float("nan"),
    False,
    description="mean position of the keyed source in the mapping order",
)
FALSE_ACCEPT = _rate("false_accept_rate", lambda s: (s.false_accept, 1.0), higher=False)


def mapped(k: int) -> Metric:
    """The keyed source is among the first ``k`` candidates (those the mapper maps)."""
    return _rate(
        "source_mapped",
        lambda s: (s.gold_source in s.retrieved[:k], s.has_valid_source and bool(s.gold_source)),
    )


NAV = nav()


def metrics_for(condition: str, budget: int) -> tuple[Metric, ...]:
    k = budget if " map" in condition else ARMS["E"].pipeline.fac_candidates
    return (NAV, FIRST_CANDIDATE, mapped(k), TIME_TO_SOURCE, FALSE_ACCEPT)


def latest_learning(store: Any, n_boot: int = 1000, seed: int = 0) -> dict | None:
    """The newest finished learning run of ``store`` aggregated from its rows, or None."""
    run = newest_done_run(store, "learn_")
    if run is None:
        return None
    rows = store.bench_results(run["run_id"])
    out: dict[str, Any] = {"run_id": run["run_id"], "config": run["config"], "conditions": {}}
    conds = sorted(
        {r.condition for r in rows},
        key=lambda c: (c.startswith("heldout"), "+pad" in c, " map" in c),
    )
    for cond in conds:
        by_arm: dict[str, list[Score]] = {"E": [], "E+S": []}
        s3, fired = [0, 0], 0
        for r in rows:
            if r.condition != cond:
                continue
            s = Score.from_json(r.score)
            by_arm[r.arm].append(s)
            first = (r.answer.get("learning") or {}).get("s3_first")
            fired += r.arm == "E+S" and first is not None
            if r.arm == "E+S" and s.has_valid_source and s.gold_source:
                s3 = [s3[0] + (first == s.gold_source), s3[1] + 1]
        c: dict[str, Any] = {
            "n_items": len(by_arm["E"]),
            "s3_recall_at_1": s3[0] / s3[1] if s3[1] else None,
            "s3_n": s3[1],
            "s3_fired": fired,
            "metrics": {},
        }
        for metric in metrics_for(cond, int(run["config"].get("budget") or 0)):
            c["metrics"][metric.name] = {
                arm: bootstrap(metric, by_arm[arm], n_boot=n_boot, seed=seed).to_json()
                for arm in by_arm
            }
            c["metrics"][metric.name]["E+S - E"] = paired_difference(
                metric, by_arm["E+S"], by_arm["E"], n_boot=n_boot, seed=seed
            ).to_json()
        out["conditions"][cond] = c
    return out
