"""The analogizer: the v2 loop of spec §1, one configurable pipeline for agent and benchmark.

::

    trigger → target signature → channels → pool (provenance) → structure mapping (FAC)
      → likeness / difference / unknown → causal gate → critic → prediction + check
      → transfer decision → AnalogyRun in analogy_log (always, also when nothing transferred)

An experimental arm is only an :class:`AnalogizerConfig`: which channels run, how the source is
chosen, whether the gate, the critic, the prediction check and re-representation are on.
Tier 0 runs make no model call: fingerprint and predicate lookups only.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from analogist.errors import AnalogistError, StoreError
from analogist.mapping.params import SMEParams
from analogist.mapping.roles import RoleMapping, map_signatures
from analogist.reason.rerep import re_represent
from analogist.reason.run import AnalogyRun, Cost, new_run_id
from analogist.reason.triggers import Trigger
from analogist.signature.model import Signature
from analogist.store import TransferOutcome
from analogist.verify.critic import Critic, CriticVerdict, EngineCritic
from analogist.verify.gate import CausalGate, TransferDecision
from analogist.verify.inference import candidate_inferences
from analogist.verify.ldu import build_record
from analogist.verify.predict import CheckFn, CheckResult, make_prediction, no_check

SELECT = ("mapping", "structural_rank", "semantic_rank", "union_rank")
TIER0_CHANNELS = ("S0", "S1")


MANUAL = Trigger.manual(1)  # the trigger of a call that names no other (frozen: one is enough)


@dataclass(frozen=True)
class AnalogizerConfig:
    """The pipeline's settings; an arm is one of these.

    Attributes:
        channels: retrieval channels or families (None: all the memory has).
        k: hits per channel.
        fac_candidates: how many pool candidates the mapper (FAC stage) sees.
        select: how the source is chosen: ``mapping`` (best structural score after mapping;
            "none" below ``accept_threshold``) or the best ``structural_rank``,
            ``semantic_rank`` or ``union_rank`` in the pool (arms without forced mapping).
        accept_threshold: the least structural score an analogy needs (``mapping`` only).
        gate: the causal-path gate, or None to transfer every projectable inference.
        critic: ``engine``, ``model`` or None.
        predict: state a prediction and run the check before transferring.
        rerep_attempts: re-representation retries when mapping fails (spec §9: at most 2).
        sme: the mapper's parameters.
    """

    channels: tuple[str, ...] | None = None
    k: int = 5
    fac_candidates: int = 8
    select: str = "mapping"
    accept_threshold: float = 0.4
    gate: CausalGate | None = field(default_factory=CausalGate)
    critic: str | None = "engine"
    predict: bool = True
    rerep_attempts: int = 0
    sme: SMEParams = field(default_factory=SMEParams)

    def __post_init__(self) -> None:
        if self.select not in SELECT:
            raise AnalogistError(f"select must be one of {SELECT}, got {self.select!r}")
        if not 0 <= self.rerep_attempts <= 2:
            raise AnalogistError("rerep_attempts must be 0, 1 or 2 (spec §9 caps it at two)")

    def to_json(self) -> dict:
        d = asdict(self)
        d["sme"] = self.sme.to_fixture_dict()
        return d


@dataclass
class _Attempt:
    target: Signature
    sources: dict[str, Signature]
    mappings: list[RoleMapping]
    chosen: RoleMapping | None
    note: str


class Analogizer:
    """Runs the loop over a :class:`~analogist.memory.Memory`.

    Args:
        memory: where sources are retrieved from and runs are logged.
        config: the pipeline settings.
        llm: the model for a model critic and model re-representation (never needed at tier 0).
        critic: overrides the critic that ``config.critic`` names.
        check: the check hook that tests predictions (default: none available).
        log: write every run to analogy_log (switch off only for throwaway runs).
    """

    def __init__(self, memory: Any, config: AnalogizerConfig = AnalogizerConfig(), *,
                 llm: Any = None, critic: Critic | None = None, check: CheckFn | None = None,
                 log: bool = True):
        self.memory, self.config, self.llm = memory, config, llm
        self.vocab = memory.store.vocabulary
        self.critic = critic or self._make_critic()
        self.check = check or no_check
        self.log = log

    def _make_critic(self) -> Critic | None:
        if self.config.critic is None:
            return None
        if self.config.critic == "model":
            from analogist.verify.critic import ModelCritic

            if self.llm is None:
                raise AnalogistError("a model critic needs a model: pass llm= or --model")
            return ModelCritic(self.llm)
        return EngineCritic()

    # ------------------------------------------------------------------------
    def run(self, target: Signature, *, trigger: Trigger = MANUAL,
            exclude: Sequence[str] = (), sources: Sequence[Signature] | None = None,
            check: CheckFn | None = None, run_id: str | None = None) -> AnalogyRun:
        """One invocation for ``target``; ``sources`` bypasses retrieval (given/oracle sources).

        ``run_id`` lets a caller (the benchmark) give a deterministic id; live runs get a fresh
        one, so repeated invocations are separate log rows.
        """
        t0 = time.perf_counter()
        calls0 = self._llm_calls()
        run = AnalogyRun(run_id or new_run_id(uuid.uuid4().hex),
                         trigger.to_json(), target.episode_id, target.to_json(),
                         config=self.config.to_json())
        if trigger.tier == 0:
            pool = self.memory.search(target, channels=TIER0_CHANNELS, k=self.config.k, exclude=exclude)
            run.candidates = [c.to_json() for c in pool.candidates]
            return self._finish(run, t0, calls0)
        attempt = self._attempt(target, exclude, sources, run, "as encoded")
        tries = 0
        while attempt.chosen is None and tries < self.config.rerep_attempts:
            tries += 1
            step = re_represent(attempt.target, tries, self.vocab, self.llm)
            run.attempts.append({"rerep": tries, **step.to_json()})
            if not step.ok:
                break
            attempt = self._attempt(step.signature, exclude, sources, run, f"re-represented {tries}")
        if attempt.chosen is not None:
            self._assess(run, attempt, check or self.check)
        return self._finish(run, t0, calls0)

    def _attempt(self, target: Signature, exclude: Sequence[str], sources: Sequence[Signature] | None,
                 run: AnalogyRun, note: str) -> _Attempt:
        ordered = self._sources(target, exclude, sources, run)
        mappings = []
        for src in ordered[: self.config.fac_candidates]:
            found = map_signatures(src, target, self.vocab, self.config.sme)
            if found:
                mappings.append(found[0])
        by_id = {x.episode_id: x for x in ordered}
        verdicts = self._screen(mappings, by_id, target)
        eligible = [m for m in mappings if m.source_id not in verdicts or verdicts[m.source_id].accepted]
        chosen = self._choose(eligible, [s.episode_id for s in ordered])
        run.attempts.append({
            "note": note, "target_writer": target.writer_model,
            "mapped": [{"source": m.source_id, "score": m.score, "sme_score": m.sme_score,
                        "critic": verdicts[m.source_id].to_json() if m.source_id in verdicts else None}
                       for m in mappings],
            "chosen": chosen.source_id if chosen else None,
        })
        return _Attempt(target, {x.episode_id: x for x in ordered}, mappings, chosen, note)

    def _sources(self, target: Signature, exclude: Sequence[str], given: Sequence[Signature] | None,
                 run: AnalogyRun) -> list[Signature]:
        if given is not None:
            run.candidates = [{"episode_id": s.episode_id, "found_by": ["given"]} for s in given]
            return list(given)
        pool = self.memory.search(target, channels=self.config.channels, k=self.config.k,
                                  exclude=exclude)
        run.candidates = [c.to_json() for c in pool.candidates]
        cands = pool.candidates
        inf = float("inf")
        key = {
            "structural_rank": lambda c: (c.structural_rank or inf, c.episode_id),
            "semantic_rank": lambda c: (c.semantic_rank or inf, c.episode_id),
            "union_rank": lambda c: (min(c.structural_rank or inf, c.semantic_rank or inf),
                                     c.structural_rank or inf, c.episode_id),
        }.get(self.config.select)
        if key is not None:
            cands = sorted(cands, key=key)
        out = []
        for c in cands:
            ep = self.memory.store.get_episode(c.episode_id)
            if ep.signature is not None:
                out.append(ep.signature)
        return out

    def _screen(self, mappings: list[RoleMapping], sources: dict[str, Signature],
                target: Signature) -> dict[str, CriticVerdict]:
        """With an engine critic, verification screens candidates before one is chosen, so a
        structurally close decoy does not shadow a valid analogue. A model critic is asked only
        about the chosen mapping (one call per run)."""
        if not isinstance(self.critic, EngineCritic):
            return {}
        return {m.source_id: self.critic.review(sources[m.source_id], target, {}, m.checks,
                                                vocab=self.vocab) for m in mappings}

    def _choose(self, mappings: list[RoleMapping], order: list[str]) -> RoleMapping | None:
        if not mappings:
            return None
        if self.config.select != "mapping":
            rank = {eid: i for i, eid in enumerate(order)}
            return min(mappings, key=lambda m: rank.get(m.source_id, len(rank)))
        best = max(mappings, key=lambda m: (m.score, m.sme_score or 0.0, m.source_id))
        return best if best.score >= self.config.accept_threshold else None

    # ------------------------------------------------------------------------
    def _assess(self, run: AnalogyRun, attempt: _Attempt, check: CheckFn) -> None:
        m, target = attempt.chosen, attempt.target
        source = attempt.sources[m.source_id]
        inferences = candidate_inferences(source, m.checks.alignment)
        if self.config.gate is not None:
            decisions = self.config.gate.decide(source, target, m.checks, inferences, self.vocab)
        else:
            decisions = [TransferDecision(ci, not ci.skolems, "no gate: every projectable inference")
                         for ci in inferences]
        run.source, run.mapping, run.structural_score = m.source_id, m.to_json(), m.score
        table = {"mapped": dict(m.role_map), "checks": m.checks.to_json(),
                 "transfer": [d.to_json() for d in decisions]}
        if self.critic is not None:
            verdict = self.critic.review(source, target, table, m.checks, vocab=self.vocab)
            run.critic = verdict.to_json()
            if not verdict.accepted:
                decisions = [TransferDecision(d.inference, False, "critic rejected the mapping")
                             if d.transfer else d for d in decisions]
        prediction = make_prediction(target, decisions) if self.config.predict else None
        result = CheckResult(None, "prediction check off")
        if prediction is not None:
            result = check(prediction, decisions)
            run.predicted_observable = prediction.statement
            if result.passed is False:
                decisions = [TransferDecision(d.inference, False, "abandoned: prediction failed")
                             if d.transfer else d for d in decisions]
        run.verification_result = result.label if prediction is not None else None
        run.outcome_delta = result.delta
        run.transferred = [d.inference.projected for d in decisions if d.transfer]
        record = build_record(m.source_id, m.checks, decisions,
                              prediction.statement if prediction else None,
                              prediction.check if prediction else None)
        run.record = {**record.to_json(), "check_result": result.to_json(),
                      "target_matches": [str(t) for _, t in m.checks.alignment.matches]}
        if result.outcome is not None and prediction is not None and prediction.action:
            run.record["applied"] = {"action": prediction.action, "outcome": result.outcome}

    def _llm_calls(self) -> tuple[int, int, int]:
        stats = getattr(self.llm, "stats", None)
        if stats is None:
            return (0, 0, 0)
        return (stats.calls, stats.input_tokens, stats.output_tokens)

    def _finish(self, run: AnalogyRun, t0: float, calls0: tuple[int, int, int]) -> AnalogyRun:
        c1 = self._llm_calls()
        run.cost = Cost(c1[0] - calls0[0], c1[1] - calls0[1], c1[2] - calls0[2],
                        (time.perf_counter() - t0) * 1000)
        _fill_unused(run)
        if self.log:
            run.log_error = _log_run(self.memory.store, run)
        return run


def _log_run(store: Any, run: AnalogyRun) -> str | None:
    """Write the run and its ledger entry in one transaction (writers wait, boundedly, for the
    lock). A failed write never loses the result: the run is returned with the reason."""
    applied = (run.record or {}).get("applied")
    transfer = None
    if applied and run.record is not None:
        transfer = TransferOutcome(applied["action"], applied["outcome"], "no action",
                                   run.record["check_result"].get("delta"))
    try:
        store.log_run(run.to_json(), transfer)
    except StoreError as e:
        return str(e)
    return None


def _fill_unused(run: AnalogyRun) -> None:
    """Give every analogy_log field a value that says why it is empty (spec §12: the log is
    not optional, also for runs that transferred nothing)."""
    if run.source is not None:
        return
    why = "tier 0: lookup only" if run.tier == 0 else (
        "no candidate" if not run.candidates else "no mapping accepted")
    scores = [m["score"] for a in run.attempts for m in a.get("mapped", [])]
    run.mapping = {"chosen": None, "why": why}
    run.structural_score = max(scores) if scores else 0.0
    run.critic = run.critic or {"verdict": f"not run ({why})"}
    run.predicted_observable = run.predicted_observable or f"none ({why})"
    run.verification_result = run.verification_result or f"not run ({why})"
    run.outcome_delta = 0.0 if run.outcome_delta is None else run.outcome_delta
