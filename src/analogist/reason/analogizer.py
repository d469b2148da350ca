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
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from analogist.errors import AnalogistError, StoreError
from analogist.mapping.params import SMEParams
from analogist.reason.blend import Blend, BlendPolicy, blend_stage, is_blend, novelty, parsimonious
from analogist.reason.rerep import re_represent
from analogist.reason.run import AnalogyRun, Cost, MappingRecord, new_run_id
from analogist.reason.triggers import Trigger
from analogist.retrieve.pool import Candidate
from analogist.signature.model import Signature
from analogist.store import StoreInterface, TransferOutcome
from analogist.verify.assessment import AppliedTransfer, Assessment, build_assessment
from analogist.verify.critic import Critic, CriticVerdict, EngineCritic, only_unsupported
from analogist.verify.gate import UNSUPPORTED_ACTION, CausalGate, TransferDecision
from analogist.verify.inference import candidate_inferences
from analogist.verify.predict import CheckFn, CheckResult, Prediction, make_prediction, no_check
from analogist.verify.roles import RoleMapping, map_signatures

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
        blend: propose generated blends of the pool's sources (arm E+Bld, reason/blend.py);
            None: no blending.
        test_unsupported: when the engine critic accepts no mapping, try the best one it
            rejected only for its fix's unmapped causal support by the prediction check, and
            keep it only when the check passes (encoder noise breaks exact link-by-link
            support far more often than it breaks the fix; docs/parb.md, "Isomorphism is a
            baseline"). Without a check hook nothing is kept, so the default changes nothing
            there.
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
    blend: BlendPolicy | None = None
    test_unsupported: bool = True

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
    blends: dict[str, Blend] = field(default_factory=dict)
    pending: RoleMapping | None = None  # rejected only for unmapped support: test it


@dataclass(frozen=True)
class _Assessed:
    mapping: RoleMapping
    record: Assessment
    prediction: Prediction | None
    result: CheckResult


@dataclass
class _Draft:
    """What a run has gathered so far; frozen into an :class:`AnalogyRun` at the end."""

    candidates: tuple[Candidate, ...] = ()
    attempts: list[dict[str, Any]] = field(default_factory=list)
    assessed: _Assessed | None = None


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

    def __init__(
        self,
        memory: Any,
        config: AnalogizerConfig = AnalogizerConfig(),
        *,
        llm: Any = None,
        critic: Critic | None = None,
        check: CheckFn | None = None,
        log: bool = True,
    ):
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
    def run(
        self,
        target: Signature,
        *,
        trigger: Trigger = MANUAL,
        exclude: Sequence[str] = (),
        sources: Sequence[Signature] | None = None,
        check: CheckFn | None = None,
        run_id: str | None = None,
    ) -> AnalogyRun:
        """One invocation for ``target``; ``sources`` bypasses retrieval (given/oracle sources).

        ``run_id`` lets a caller (the benchmark) give a deterministic id; live runs get a fresh
        one, so repeated invocations are separate log rows.
        """
        t0 = time.perf_counter()
        calls0 = self._llm_calls()
        draft = _Draft()
        if trigger.tier == 0:
            pool = self.memory.search(
                target, channels=TIER0_CHANNELS, k=self.config.k, exclude=exclude
            )
            draft.candidates = tuple(pool.candidates)
        else:
            self._mapped(target, exclude, sources, check or self.check, draft)
        run = self._freeze(
            run_id or new_run_id(uuid.uuid4().hex), trigger, target, draft, t0, calls0
        )
        if self.log:
            run = replace(run, log_error=_log_run(self.memory.store, run))
        return run

    def _mapped(
        self,
        target: Signature,
        exclude: Sequence[str],
        sources: Sequence[Signature] | None,
        check: CheckFn,
        draft: _Draft,
    ) -> None:
        """Map, re-represent when mapping fails (at most ``rerep_attempts`` times), assess."""
        attempt = self._attempt(target, exclude, sources, draft, "as encoded")
        tries = 0
        while attempt.chosen is None and tries < self.config.rerep_attempts:
            tries += 1
            step = re_represent(attempt.target, tries, self.vocab, self.llm)
            draft.attempts.append({"rerep": tries, **step.to_json()})
            if not step.ok or step.signature is None:
                break
            attempt = self._attempt(
                step.signature, exclude, sources, draft, f"re-represented {tries}"
            )
        if attempt.chosen is None and attempt.pending is not None:
            tried = self._assess(attempt, attempt.pending, check, pending=True)
            if tried.result.passed is True:
                draft.assessed = tried
            else:  # unsupported and unconfirmed: no analogy
                draft.attempts.append(
                    {
                        "pending": attempt.pending.source_id,
                        "abandoned": "causal support not mapped and the prediction check "
                        f"did not pass ({tried.result.label})",
                        "check": tried.result.to_json(),
                    }
                )
        if attempt.chosen is not None:
            draft.assessed = self._assess(attempt, attempt.chosen, check)
            if is_blend(attempt.chosen.source_id):  # a generated source: say why it is novel
                a = draft.assessed
                draft.attempts.append(
                    {
                        "novelty": novelty(
                            attempt.chosen,
                            attempt.mappings,
                            attempt.blends,
                            critic_ok=a.record.critic.accepted if a.record.critic else None,
                            check_passed=a.result.passed,
                            transferred=len(a.record.transferred),
                        )
                    }
                )

    def _attempt(
        self,
        target: Signature,
        exclude: Sequence[str],
        sources: Sequence[Signature] | None,
        draft: _Draft,
        note: str,
    ) -> _Attempt:
        ordered = self._sources(target, exclude, sources, draft)
        mappings = []
        for src in ordered[: self.config.fac_candidates]:
            found = map_signatures(src, target, self.vocab, self.config.sme)
            if found:
                mappings.append(found[0])
        stage = None
        if self.config.blend is not None:  # generated sources join the pool (reason/blend.py)
            stage = blend_stage(
                target,
                ordered[: self.config.fac_candidates],
                self.vocab,
                self.config.sme,
                self.config.blend,
                self.llm,
            )
            ordered, mappings = ordered + stage.signatures, mappings + list(stage.mappings)
            draft.candidates += stage.candidates
        by_id = {x.episode_id: x for x in ordered}
        verdicts = self._screen(mappings, by_id, target)
        eligible = [
            m for m in mappings if m.source_id not in verdicts or verdicts[m.source_id].accepted
        ]
        if self.config.blend is not None:  # a blend never displaces a stored source as good
            eligible = parsimonious(eligible, self.config.blend.margin, mappings)
        chosen = self._choose(eligible, [s.episode_id for s in ordered])
        pending = None
        if chosen is None and self.config.test_unsupported:
            pending = self._choose(
                [
                    m
                    for m in mappings
                    if m.source_id in verdicts and only_unsupported(verdicts[m.source_id])
                ],
                [s.episode_id for s in ordered],
            )
        draft.attempts.append(
            {
                "note": note,
                "target_writer": target.writer_model,
                "mapped": [
                    {
                        "source": m.source_id,
                        "score": m.score,
                        "sme_score": m.sme_score,
                        "critic": verdicts[m.source_id].to_json()
                        if m.source_id in verdicts
                        else None,
                    }
                    for m in mappings
                ],
                "chosen": chosen.source_id if chosen else None,
                **({"pending": pending.source_id} if pending is not None else {}),
                **(
                    {"blends": stage.trace(), "blend_note": stage.note} if stage is not None else {}
                ),
            }
        )
        return _Attempt(
            target,
            {x.episode_id: x for x in ordered},
            mappings,
            chosen,
            note,
            {b.episode_id: b for b in stage.blends} if stage is not None else {},
            pending,
        )

    def _sources(
        self,
        target: Signature,
        exclude: Sequence[str],
        given: Sequence[Signature] | None,
        draft: _Draft,
    ) -> list[Signature]:
        if given is not None:
            draft.candidates = tuple(
                Candidate(s.episode_id, ("given",), {}, {}, None, None) for s in given
            )
            return list(given)
        pool = self.memory.search(
            target, channels=self.config.channels, k=self.config.k, exclude=exclude
        )
        draft.candidates = tuple(pool.candidates)
        cands = pool.candidates
        inf = float("inf")
        key = {
            "structural_rank": lambda c: (c.structural_rank or inf, c.episode_id),
            "semantic_rank": lambda c: (c.semantic_rank or inf, c.episode_id),
            "union_rank": lambda c: (
                min(c.structural_rank or inf, c.semantic_rank or inf),
                c.structural_rank or inf,
                c.episode_id,
            ),
        }.get(self.config.select)
        if key is not None:
            cands = sorted(cands, key=key)
        out = []
        for c in cands:
            ep = self.memory.store.get_episode(c.episode_id)
            if ep.signature is not None:
                out.append(ep.signature)
        return out

    def _screen(
        self, mappings: list[RoleMapping], sources: dict[str, Signature], target: Signature
    ) -> dict[str, CriticVerdict]:
        """With an engine critic, verification screens candidates before one is chosen, so a
        structurally close decoy does not shadow a valid analogue. A model critic is asked only
        about the chosen mapping (one call per run)."""
        if not isinstance(self.critic, EngineCritic):
            return {}
        return {
            m.source_id: self.critic.review(
                sources[m.source_id], target, {}, m.checks, vocab=self.vocab
            )
            for m in mappings
        }

    def _choose(self, mappings: list[RoleMapping], order: list[str]) -> RoleMapping | None:
        if not mappings:
            return None
        if self.config.select != "mapping":
            rank = {eid: i for i, eid in enumerate(order)}
            return min(mappings, key=lambda m: rank.get(m.source_id, len(rank)))
        best = max(mappings, key=lambda m: (m.score, m.sme_score or 0.0, m.source_id))
        return best if best.score >= self.config.accept_threshold else None

    # ------------------------------------------------------------------------
    def _assess(
        self, attempt: _Attempt, m: RoleMapping, check: CheckFn, *, pending: bool = False
    ) -> _Assessed:
        """Gate, critic, prediction and check for mapping ``m``. ``pending``: the critic
        rejected ``m`` only for its fix's unmapped support, so the action goes to the
        prediction check instead of being withheld (the caller keeps it only if that passes)."""
        target, source = attempt.target, attempt.sources[m.source_id]
        inferences = candidate_inferences(source, m.checks.alignment, m.inferences)
        if self.config.gate is not None:
            decisions = self.config.gate.decide(source, target, m.checks, inferences, self.vocab)
        else:
            decisions = [
                TransferDecision(ci, not ci.skolems, "no gate: every projectable inference")
                for ci in inferences
            ]
        if pending:
            decisions = [
                TransferDecision(d.inference, True, f"pending the prediction check; {d.reason}")
                if d.inference.kind == "action" and d.reason.startswith(UNSUPPORTED_ACTION)
                else d
                for d in decisions
            ]
        verdict = None
        if self.critic is not None:
            table = {
                "mapped": dict(m.role_map),
                "checks": m.checks.to_json(),
                "transfer": [d.to_json() for d in decisions],
            }
            verdict = self.critic.review(source, target, table, m.checks, vocab=self.vocab)
            if not verdict.accepted and not pending:
                decisions = [
                    TransferDecision(d.inference, False, "critic rejected the mapping")
                    if d.transfer
                    else d
                    for d in decisions
                ]
        prediction = make_prediction(target, decisions) if self.config.predict else None
        result = CheckResult(None, "prediction check off")
        if prediction is not None:
            result = check(prediction, decisions)
            if result.passed is False:
                decisions = [
                    TransferDecision(d.inference, False, "abandoned: prediction failed")
                    if d.transfer
                    else d
                    for d in decisions
                ]
        record = build_assessment(
            m.source_id,
            m.checks,
            decisions,
            prediction.statement if prediction else None,
            prediction.check if prediction else None,
        )
        applied = None
        if result.outcome is not None and prediction is not None and prediction.action:
            applied = AppliedTransfer(prediction.action, result.outcome)
        record = replace(record, check_result=result, critic=verdict, applied=applied)
        return _Assessed(m, record, prediction, result)

    def _llm_calls(self) -> tuple[int, int, int]:
        stats = getattr(self.llm, "stats", None)
        if stats is None:
            return (0, 0, 0)
        return (stats.calls, stats.input_tokens, stats.output_tokens)

    def _freeze(
        self,
        run_id: str,
        trigger: Trigger,
        target: Signature,
        draft: _Draft,
        t0: float,
        calls0: tuple[int, int, int],
    ) -> AnalogyRun:
        """The finished run. A run that assessed nothing says why (spec §12: the log is not
        optional, also for runs that transferred nothing)."""
        c1 = self._llm_calls()
        cost = Cost(
            c1[0] - calls0[0],
            c1[1] - calls0[1],
            c1[2] - calls0[2],
            (time.perf_counter() - t0) * 1000,
        )
        run = AnalogyRun(
            run_id,
            trigger,
            target.episode_id,
            target.to_json(),
            candidates=draft.candidates,
            attempts=tuple(draft.attempts),
            cost=cost,
            config=self.config.to_json(),
        )
        a = draft.assessed
        if a is None:
            why = (
                "tier 0: lookup only"
                if trigger.tier == 0
                else ("no candidate" if not draft.candidates else "no mapping accepted")
            )
            scores = [m["score"] for t in draft.attempts for m in t.get("mapped", [])]
            return replace(run, structural_score=max(scores) if scores else 0.0, not_assessed=why)
        predicted = a.prediction is not None
        return replace(
            run,
            source=a.mapping.source_id,
            mapping=MappingRecord.of(a.mapping),
            structural_score=a.mapping.score,
            record=a.record,
            critic=a.record.critic,
            transferred=tuple(t.inference for t in a.record.transferred),
            predicted_observable=a.prediction.statement if a.prediction is not None else None,
            verification_result=a.result.label if predicted else None,
            outcome_delta=a.result.delta,
        )


def _log_run(store: StoreInterface, run: AnalogyRun) -> str | None:
    """Write the run and its ledger entry in one transaction (writers wait, boundedly, for the
    lock). A failed write never loses the result: the run is returned with the reason."""
    transfer = None
    if run.record is not None and run.record.applied is not None:
        applied, chk = run.record.applied, run.record.check_result
        transfer = TransferOutcome(
            applied.action, applied.outcome, "no action", chk.delta if chk is not None else None
        )
    try:
        store.log_run(run.to_json(), transfer)
    except StoreError as e:
        return str(e)
    return None
