"""The ``engine`` answerer: the arm's machinery answers an item deterministically.

Each item gets its own throwaway memory built from its inputs (the memory snapshot, the offered
candidates), so nothing leaks between items; the arm's analogizer configuration then retrieves,
maps, gates and checks exactly as it would for a live agent. Target signatures come from the
labelled ``gold`` encoder (:func:`analogist.bench.execution.answer.target_signature`); the prediction check
is the item's own target world, reached only through the check hook.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from analogist.bench.execution.answer import Answer, shuffled
from analogist.bench.execution.arms import Arm
from analogist.memory import Memory
from analogist.reason.analogizer import Analogizer
from analogist.reason.run import AnalogyRun, new_run_id
from analogist.reason.triggers import Trigger
from analogist.signature import Signature, parse_fix_operator, parse_signature
from analogist.signature.terms import TermSyntaxError
from analogist.verify.predict import CheckResult, Prediction

Probe = Callable[[str, Sequence[str]], str]  # (operator, entity ids) -> outcome in the world


def _records(inputs: Mapping[str, Any]) -> list[dict]:
    out = list(inputs.get("memory", []))
    out += list(inputs.get("candidates", []))
    if inputs.get("source"):
        out.append(inputs["source"])
    return out


def _fix_term(text: str):
    """The term of a transferred action, or None when an argument is a skolem (a source role
    the mapping left unmapped, e.g. under encoder noise): no target entity to act on."""
    try:
        return parse_fix_operator(text).term
    except TermSyntaxError:
        return None


def _action(run: AnalogyRun) -> tuple[str, tuple[str, ...]] | None:
    for t in run.record.transfer if run.record is not None else ():
        if t.kind == "action" and t.transfer:
            term = _fix_term(t.inference)
            if term is not None:
                return term.functor, tuple(str(a) for a in term.args)
    return None


def world_check(probe: Probe | None):
    """A check hook that runs a predicted action in the target world (a sandbox) via ``probe``.

    Fact predictions are not observable through the world's interface, so they stay unchecked.
    """

    def hook(prediction: Prediction, decisions) -> CheckResult:
        if probe is None or prediction.action is None:
            return CheckResult(None, "no observable check for this prediction")
        term = parse_fix_operator(prediction.action).term
        outcome = probe(term.functor, [str(a) for a in term.args])
        return CheckResult(
            outcome == "resolved",
            f"sandbox run: {outcome}",
            outcome,
            {"resolved": -1.0, "unchanged": 0.0, "worse": 1.0}[outcome],
        )

    return hook


@dataclass
class EngineAnswerer:
    """Answers items with an arm's machinery. ``seed`` drives C′'s shuffle."""

    arm: Arm
    seed: int = 0

    def memory(self, inputs: Mapping[str, Any]) -> Memory:
        records = _records(inputs)
        if self.arm.shuffle_signatures:
            records = shuffled(records, self.seed)
        m = Memory(":memory:")
        report = m.add([json.dumps(r) for r in records])
        if report.rejected:
            raise ValueError(f"item memory rejected: {report.rejected[0]}")
        return m

    def answer(
        self,
        family: str,
        inputs: Mapping[str, Any],
        target: Signature,
        *,
        probe: Probe | None = None,
        sources: Sequence[dict] | None = None,
        oracle_source: str | None = None,
    ) -> Answer:
        """Answer one item. ``sources`` overrides the given source (source-dependence test);
        ``oracle_source`` is G's gold source id (None: the oracle knows there is none)."""
        with self.memory(inputs) as memory:  # closed after each answer
            vocab = memory.store.vocabulary
            if self.arm.oracle:
                given = [memory.store.get_signature(oracle_source)] if oracle_source else []
            elif sources is not None:
                given = [parse_signature(s["signature"], vocab) for s in sources]
            elif inputs.get("source") and family != "F2":
                given = [memory.store.get_signature(inputs["source"]["id"])]
            else:  # memory families retrieve; F2 ranks its candidates with the arm's channels
                given = None
            analogizer = Analogizer(memory, self.arm.pipeline, check=world_check(probe), log=False)
            # a run id from what was asked, so a rerun stores the same answer row by row
            run_id = new_run_id(
                "parb", self.arm.name, self.seed, family, target.to_json(), sources, oracle_source
            )
            run = analogizer.run(
                target,
                trigger=Trigger.manual(2 if self.arm.rerep else 1, "benchmark item"),
                sources=given,
                run_id=run_id,
            )
        return self._answer(family, inputs, run)

    def _answer(self, family: str, inputs: Mapping[str, Any], run: AnalogyRun) -> Answer:
        claimed = run.source
        offered = [c["id"] for c in inputs.get("candidates", [])]
        if family == "F6" and inputs.get("source"):
            offered = [inputs["source"]["id"]]
        judged = {cid: cid == claimed for cid in offered}
        decisions = _inference_decisions(inputs.get("inferences", []), run)
        role_map = run.mapping.mapping if run.mapping is not None else {}
        survived = None
        if self.arm.verify and claimed is not None:  # a missing critic is not an acceptance
            critic_ok = run.critic is not None and run.critic.accepted
            survived = critic_ok and run.verification_result != "failed"
        action = _action(run)
        return Answer(
            retrieved=tuple(c.episode_id for c in run.candidates),
            claimed_source=claimed,
            judged=judged,
            role_map=role_map,
            decisions=decisions,
            action=action,
            confidence=run.structural_score if claimed else None,
            survived=survived,
            conclusion=" ".join([action[0], *action[1]]) if action else None,
            tokens=run.cost.tokens,
            calls=run.cost.model_calls,
            wall_ms=run.cost.wall_ms,
            run=run.to_json(),
        )


def _norm_claim(claim: Any, names: Mapping[str, str] | None = None) -> str:
    """A shown inference claim as comparable text: ``pred(a,b)`` or ``c --link--> e``, its role
    names (the source's, as PARB states them) renamed through ``names`` (the run's role map)."""
    from analogist.signature import parse_term

    ren = dict(names or {})

    def term(text: str) -> str:
        return parse_term(text).rename(ren).canonical()

    if isinstance(claim, str):
        return term(claim)
    if len(claim) == 3 and isinstance(claim[0], str) and "(" in claim[0]:
        return f"{term(claim[0])} --{claim[1]}--> {term(claim[2])}"
    return f"{claim[0]}({','.join(ren.get(a, a) for a in claim[1:])})"


def _inference_decisions(shown: Sequence[Mapping[str, Any]], run: AnalogyRun) -> dict[str, bool]:
    """F5: decide each shown inference from the run's matches and gate decisions.

    Claims are stated in the source's role names; they are carried into the target through the
    run's own role map. A claim the mapping found already true in the target transfers; a
    projected claim transfers when the gate said YES; anything else is withheld.
    """
    if not shown:
        return {}
    if run.record is None:
        return {inf["id"]: False for inf in shown}
    yes = set()
    for t in run.record.transferred:
        text = t.inference
        if t.kind == "action":
            term = _fix_term(text)
            text = term.canonical() if term is not None else text
        else:
            text = text.replace(", ", ",")
        yes.add(text)
    held = set(run.record.target_matches)
    names = run.mapping.mapping if run.mapping is not None else {}
    out = {}
    for inf in shown:
        c = _norm_claim(inf["claim"], names).replace(", ", ",")
        out[inf["id"]] = c in yes or c in held
    return out
