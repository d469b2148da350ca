"""The runner: arms × answerers × items × seeds, stored row by row, resumable and idempotent.

A run's id is a digest of the bench hash and the run configuration, so running the same thing
again continues where a killed run stopped and re-does nothing. Model calls go through the
logged, cached LLM and may run concurrently; engine answers are CPU-bound and run in order.
Besides the ordinary runs, E (and E+R where run) gets the contamination controls of spec §17:
the source-dependence test (correct / no / surface-matched wrong source, on F1 and F4 items)
and the mapping-lesion test (drop one relation the system relied on; does the conclusion move?).
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from analogist.bench.analysis.check import check_fix
from analogist.bench.analysis.score_answer import score
from analogist.bench.execution import noise as encoder_noise
from analogist.bench.execution.answer import Answer, target_signature
from analogist.bench.execution.arms import ARMS, ArmSettings, get_arm
from analogist.bench.execution.engine_answer import EngineAnswerer
from analogist.bench.execution.iso import IsoAnswerer
from analogist.bench.execution.run_models import encoder_llm_for, models_text, spec_of
from analogist.bench.generation.files import Bench, file_hashes
from analogist.bench.generation.items import Item
from analogist.errors import BenchError
from analogist.retrieve.embedder_choice import configured_embedder
from analogist.store import Store

CONTROL_ARM = "E"
CONTROL_FAMILIES = ("F1", "F4")
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class RunConfig:
    """What to run. Stored with the run; its digest (with the bench hash) is the run id."""

    arms: tuple[str, ...] = tuple(ARMS)
    answerers: tuple[str, ...] = ("engine", "model")
    seeds: tuple[int, ...] = (0,)
    model: str | None = None
    encoder: str = "gold"
    settings: ArmSettings = field(default_factory=ArmSettings)
    contamination: bool = True
    concurrency: int = 4
    noise: tuple[float, ...] = ()  # extra encoder-noise rates for ISO, C, D, E (engine answers)
    # the model that writes the signatures when it is not ``model`` (spec §20's second model:
    # the answerer swapped, the encodings kept); None = ``model`` encodes, as in a one-model run
    encoder_model: str | None = None

    def __post_init__(self) -> None:
        if self.encoder_model is not None and self.encoder_model == self.model:
            object.__setattr__(self, "encoder_model", None)  # one model: the same run as without
        bad = [r for r in self.noise if not 0 < r < 1]
        if bad:
            raise BenchError(f"noise rates {bad} are outside (0, 1); use e.g. 0.1,0.2,0.3")
        if self.noise and self.encoder != "gold":
            raise BenchError(
                "noise corrupts the gold encoder's output; use --encoder gold with --noise"
            )
        if self.encoder not in ("gold", "model"):
            raise BenchError(
                f"encoder {self.encoder!r} is unknown: use gold (the generator's signatures, "
                "labelled) or model (the model encodes targets and stored episodes)"
            )
        if self.encoder_model is not None and self.encoder != "model":
            raise BenchError(
                f"--encoder-model {self.encoder_model} names the model that writes the "
                "signatures, but the gold encoder uses no model: add --encoder model"
            )

    def to_json(self) -> dict:
        out = {
            **asdict(self),
            "arms": list(self.arms),
            "answerers": list(self.answerers),
            "seeds": list(self.seeds),
            "noise": list(self.noise),
        }
        if self.encoder_model is None:  # a one-model run keeps its run id and replay header
            del out["encoder_model"]
        return out


@lru_cache(maxsize=1)
def code_digest() -> str:
    """A digest of the package's own source: a run id changes when the system under test does,
    so resuming never mixes results of two versions of the code."""
    root = Path(__file__).resolve().parents[2]
    h = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        h.update(f.relative_to(root).as_posix().encode())
        h.update(f.read_bytes())
    return h.hexdigest()[:16]


def run_id_for(bench: Bench, config: RunConfig) -> str:
    """Bench hash + configuration + code digest + embedder: the same four resume the same run."""
    parts = [file_hashes(bench), config.to_json(), code_digest(), configured_embedder().name]
    return "bench_" + hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]


@dataclass
class Plan:
    """The (arm, answerer) pairs that will run, and why the others will not."""

    pairs: list[tuple[str, str]]
    skipped: dict[str, str]


def plan(config: RunConfig, has_model: bool) -> Plan:
    pairs, skipped = [], {}
    for name in config.arms:
        arm = get_arm(name)
        for answerer in config.answerers:
            label = f"{arm.name}/{answerer}"
            engine_skip = arm.engine_skip() if answerer == "engine" else None
            if engine_skip:
                skipped[label] = engine_skip
            elif answerer == "model" and arm.model_skip():
                skipped[label] = arm.model_skip() or ""
            elif answerer == "model" and not has_model:
                skipped[label] = "no model configured (--model or ANALOGIST_MODEL)"
            elif answerer not in ("engine", "model"):
                raise BenchError(f"unknown answerer {answerer!r}; use engine or model")
            else:
                pairs.append((arm.name, answerer))
    return Plan(pairs, skipped)


class Runner:
    """Runs a bench into a store. ``llm`` is the logged model (None: engine answers only);
    ``encoder_llm`` the one that encodes when ``config.encoder_model`` names another model.
    ``stop_when_unencoded``: an encoding missing from the call log of a log-only encoder stops
    the run (``stopped``, ``stop_reason``) rather than failing it: a second-model run reusing a
    partial reference run answers exactly the items that run encoded."""

    def __init__(
        self,
        store: Store,
        bench: Bench,
        config: RunConfig = RunConfig(),
        *,
        llm: Any = None,
        progress: Progress | None = None,
        only: Iterable[tuple] | None = None,
        stop_after_s: float | None = None,
        encoder_llm: Any = None,
        stop_when_unencoded: bool = False,
    ):
        self.store, self.bench, self.config, self.llm = store, bench, config, llm
        self.encoder_llm = encoder_llm_for(config, llm, encoder_llm)
        self.progress = progress
        # past this time no new job (or episode encoding) starts; the run is left "stopped"
        self.deadline = None if stop_after_s is None else time.monotonic() + stop_after_s
        self.stopped = False
        self.stop_reason = ""
        # (arm, answerer, item, seed, condition) keys to run, e.g. a partial run being replayed
        self.only = None if only is None else {tuple(k) for k in only}
        self.run_id = run_id_for(bench, config)
        self.plan = plan(config, llm is not None)
        self._lock = threading.Lock()
        self._wrong = _wrong_sources(bench.items)
        self.adversarial_audit: dict | None = None
        self.encoding = None
        if config.encoder == "model":
            if self.encoder_llm is None:
                raise BenchError(
                    "--encoder model needs a model: pass --model (or set "
                    "ANALOGIST_MODEL), or use --encoder gold"
                )
            from analogist.bench.execution.model_encoding import ItemEncoder

            self.encoding = ItemEncoder(
                self.encoder_llm,
                store.vocabulary,
                deadline=self.deadline,
                stop_when_unlogged=stop_when_unencoded,
            )

    def model_llms(self) -> list[Any]:
        """The distinct models of this run (the answerer first), e.g. to count their calls."""
        out = [self.llm] if self.llm is not None else []
        if self.encoder_llm is not None and self.encoder_llm is not self.llm:
            out.append(self.encoder_llm)
        return out

    def run(self) -> str:
        """Run everything not yet stored; return the run id."""
        config = {
            **self.config.to_json(),
            "skipped": self.plan.skipped,
            "bench": dict(self.bench.manifest),
            "code_digest": code_digest(),
            "embedders": arm_embedders(self.plan.pairs),
        }
        answering = self.llm is not None and any(a == "model" for _, a in self.plan.pairs)
        models = models_text(
            spec_of(self.llm) if answering else None,
            spec_of(self.encoder_llm) if self.encoding is not None else None,
        )
        if models is not None:
            config["models"] = models
        if self.adversarial_audit is not None:  # the bench's sidecar (bench/analysis/audit_set.py)
            config["adversarial_audit"] = self.adversarial_audit
        self.store.start_bench_run(self.run_id, file_hashes(self.bench)["items.jsonl"], config)
        done = self.store.bench_done_keys(self.run_id)
        jobs = [
            j
            for j in self._jobs()
            if j[:5] not in done and (self.only is None or j[:5] in self.only)
        ]
        total, count = len(jobs), 0
        by_item: dict[str, list[tuple]] = {}
        for j in jobs:
            by_item.setdefault(j[2], []).append(j)
        # item by item (engine jobs, then model jobs, concurrently): a stopped run has finished
        # whole items, and a model-encoded item is encoded just before its answers
        with ThreadPoolExecutor(max_workers=max(1, self.config.concurrency)) as pool:
            for group in by_item.values():
                for job in (j for j in group if j[1] == "engine"):
                    if self._guarded(job) is not None:
                        count += 1
                        self._tick(count, total, job)
                for finished in pool.map(self._guarded, [j for j in group if j[1] == "model"]):
                    if finished is not None:
                        count += 1
                        self._tick(count, total, finished)
                if self.stopped:
                    break
        self.store.finish_bench_run(self.run_id, "stopped" if self.stopped else "done")
        return self.run_id

    def _guarded(self, job: tuple) -> tuple | None:
        """Run ``job`` unless the run's time is up (then None, and the run is stopped)."""
        from analogist.bench.execution.model_encoding import RunStopped

        if self.stopped or (self.deadline is not None and time.monotonic() > self.deadline):
            self.stopped = True
            self.stop_reason = self.stop_reason or "the run's time is up"
            return None
        try:
            return self._do(job)
        except RunStopped as e:
            self.stopped = True
            self.stop_reason = self.stop_reason or str(e)
            return None

    def _tick(self, count: int, total: int, job: tuple) -> None:
        if self.progress is not None:
            self.progress(count, total, f"{job[0]}/{job[1]}")

    def _jobs(self) -> Iterable[tuple]:
        """Item by item, then arm by arm: consecutive model prompts share the item's text, so a
        local model's prompt (KV) cache is reused. With the model encoder, items holding fewer
        episodes to encode go first, so a run stopped early has answered the most whole items."""
        items = list(self.bench.items)
        if self.config.encoder == "model":
            items.sort(key=lambda it: len(item_episodes(it)))
        for item in items:
            for arm, answerer in self.plan.pairs:
                for seed in self.config.seeds:
                    yield (arm, answerer, item.item_id, seed, "", item)
                    if (
                        self.config.contamination
                        and arm == CONTROL_ARM
                        and item.family in CONTROL_FAMILIES
                    ):
                        for cond in ("correct_source", "no_source", "wrong_source", "lesion"):
                            yield (arm, answerer, item.item_id, seed, cond, item)
                    if answerer == "engine" and arm in encoder_noise.NOISE_ARMS:
                        for rate in self.config.noise:
                            yield (
                                arm,
                                answerer,
                                item.item_id,
                                seed,
                                encoder_noise.noise_condition(rate),
                                item,
                            )

    def _answerer(self, arm_name: str, answerer: str, seed: int):
        arm = get_arm(arm_name)
        if answerer == "engine" and arm.reference:
            return IsoAnswerer(seed)
        if answerer == "engine":
            return EngineAnswerer(arm, seed)
        from analogist.bench.execution.model_answer import ModelAnswerer
        from analogist.models.settings import ModelSettings

        return ModelAnswerer(
            arm, self.llm, self.config.settings, seed, ModelSettings.from_env().n_ctx
        )

    def _do(self, job: tuple) -> tuple:
        arm, answerer, _, seed, cond, item = job
        wrong, rejected = self._wrong.get(item.item_id), ""
        if self.encoding is not None:
            encoded = self.encoding.item(item)
            item, target = encoded.item, encoded.target
            rejected = encoded.target_result.reason or "rejected"
            wrong = self.encoding.record(wrong) if wrong is not None else None
        else:
            target = target_signature(item.key, self.store.vocabulary)
        rate = encoder_noise.parse_noise_condition(cond) or 0.0
        if rate:  # the gold encoder's output, corrupted (bench/execution/noise.py)
            target = encoder_noise.noisy_target(item, self.store.vocabulary, rate, seed)
            item = encoder_noise.noisy_item(item, rate, seed)
        probe = _probe(item)
        who = self._answerer(arm, answerer, seed)
        kw: dict[str, Any] = {"probe": probe, "oracle_source": item.key.get("gold_source")}
        condition, lesioned = None, False
        if cond in ("correct_source", "no_source", "wrong_source"):
            condition = cond
            kw["sources"] = {
                "correct_source": [item.inputs["source"]],
                "no_source": [],
                "wrong_source": [wrong],
            }[cond]
        elif cond == "lesion":
            lesioned = True
        if target is None and (answerer == "engine" or lesioned):
            ans = Answer(run={"error": f"the model encoder rejected the target: {rejected}"})
        else:
            if lesioned:
                kw["sources"] = [_lesioned(item, who, target, probe)]
            ans = who.answer(item.family, item.inputs, target, **kw)
        sc = score(
            item,
            ans,
            arm=arm,
            answerer=answerer,
            seed=seed,
            condition=condition,
            lesioned=lesioned,
            noise=rate,
        )
        with self._lock:
            self.store.put_bench_result(
                self.run_id, (arm, answerer, item.item_id, seed, cond), sc.to_json(), ans.to_json()
            )
        return job


def arm_embedders(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The embedder each arm's memory retrieval used ("none" for arms without memory or
    without an embedding channel), stored with the run."""
    name, out = configured_embedder().name, {}
    for arm_name, _ in pairs:
        arm = get_arm(arm_name)
        embeds = arm.memory and (
            not arm.channels or any(c.startswith(("S2", "M")) for c in arm.channels)
        )
        out[arm.name] = name if embeds else "none"
    return out


def item_episodes(item: Item) -> list[dict]:
    """The stored episodes an item holds (memory, candidates, given source)."""
    inputs = item.inputs
    return [
        *inputs.get("memory", []),
        *inputs.get("candidates", []),
        *([inputs["source"]] if inputs.get("source") else []),
    ]


def _probe(item: Item):
    check = item.key.get("check")
    if not check:
        return None
    return lambda op, args: check_fix(check, op, args).result


def _domain(record: dict) -> str:
    return (record.get("signature") or {}).get("surface", {}).get("domain", "")


def _wrong_sources(items: Iterable[Item]) -> dict[str, dict]:
    """For each F1/F4 item, a surface-matched wrong source: another motif's source episode from
    the target's own domain when one exists (else from any other motif)."""
    items = [it for it in items if it.family in CONTROL_FAMILIES]
    out = {}
    for it in items:
        domain = it.key["target_signature"].get("surface", {}).get("domain", "")
        others = [o for o in items if o.motif != it.motif]
        same = [o for o in others if _domain(o.inputs["source"]) == domain]
        pick = (same or others or [it])[0]
        out[it.item_id] = pick.inputs["source"]
    return out


def _lesioned(item: Item, who: Any, target, probe) -> dict:
    """The given source with one load-bearing relation deleted (spec §17.2).

    Load-bearing: a source relation the intact engine run matched that also sits inside a matched
    causal link. The lesion is chosen from the engine's own intact answer, so both answerers are
    lesioned the same way.
    """
    intact = EngineAnswerer(who.arm).answer(item.family, item.inputs, target, probe=probe)
    source = json.loads(json.dumps(item.inputs["source"]))
    mapping = (intact.run or {}).get("mapping") or {}
    matched_links = list(((intact.run or {}).get("record") or {}).get("matches", []))
    if not source.get("signature"):  # a model encoder rejected it: there is nothing to lesion
        return source
    rels = source["signature"]["relations"]
    chain_text = " ".join(" ".join(link) for link in source["signature"].get("causal_chain", []))
    victim = next((r for r in rels if r[0] in matched_links and r[0] in chain_text), None)
    if victim is None and rels and mapping:
        victim = rels[0]
    if victim is not None:
        from analogist.signature import parse_term

        gone = f"{victim[0]}({','.join(victim[1:])})"
        sig = source["signature"]
        sig["relations"] = [r for r in rels if r != victim]
        sig["causal_chain"] = [
            c
            for c in sig.get("causal_chain", [])
            if gone not in (parse_term(c[0]).canonical(), parse_term(c[2]).canonical())
        ]
    source["signature"]["episode_id"] = source["id"]
    return source


def run_bench(
    store: Store,
    bench: Bench,
    config: RunConfig = RunConfig(),
    *,
    llm: Any = None,
    progress: Progress | None = None,
) -> str:
    """Run (or resume) ``config`` on ``bench`` into ``store``; return the run id."""
    return Runner(store, bench, config, llm=llm, progress=progress).run()
