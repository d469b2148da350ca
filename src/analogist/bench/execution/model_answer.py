"""The ``model`` answerer: the LLM answers an item with what the arm's machinery puts before it.

DESIGN "Answerers": every arm can be answered by the engine or by a model. Here the model reads
one prompt (:mod:`analogist.bench.execution.prompts`) built from the arm (spec §20):

- A0: the question, the target's text and entity table, and what the item itself gives (a
  source, candidates, inferences, an operator menu). No memory, no hint.
- A1: A0 plus the hint sentence.
- B: A1 plus the top-k episodes the semantic channel M retrieves (text and outcome only).
- B′: B with further semantic episodes, in rank order, until the prompt is as long as C's for
  the same item (``context_chars``; computed here when the runner does not pass it).
- C / C′: A1 plus the target's structure and the top-k episodes of the structural channels
  S0–S3 with their signatures (C′: over the shuffled memory).
- H: the union of B's and C's episodes.
- D: C plus each shown candidate's forced role-mapping table from the structure mapper.
- E, E+R, G: D plus the verification record of the machinery's run; G shows only the oracle
  source (labelled ``oracle`` in the run metadata, never in the prompt).

The machinery is the engine's own (:class:`~analogist.bench.execution.engine_answer.EngineAnswerer` with
the same arm and seed), so the model and engine answers of one arm see the same retrieval,
mappings and checks. The model never sees an item's key. A malformed answer field is "no claim"
for that field (``run["problems"]``); a model that fails outright, even after LoggedLLM's repair
re-ask, gives a no-claim answer with ``run["error"]`` set. Only a replay-only cache miss raises.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from analogist.bench.execution import prompts as P
from analogist.bench.execution.answer import Answer, shuffled
from analogist.bench.execution.arms import STRUCTURAL, Arm, ArmSettings, get_arm
from analogist.bench.execution.engine_answer import EngineAnswerer, Probe
from analogist.errors import CacheMissError, ModelError
from analogist.models.llm import parse_json_text
from analogist.signature import Signature, default_vocabulary, parse_signature
from analogist.verify.roles import map_signatures


@dataclass(frozen=True)
class Brief:
    """One prompt and what it showed.

    Attributes:
        messages: the chat messages sent (system, user).
        shown: ids of every episode the prompt displays (the ids a claim may name).
        retrieved: ids the arm's machinery surfaced, best first (empty for A0, A1).
        accept_ids / inference_ids: the ids the answer must judge (F2, F6) or decide (F5).
        roles: role names of the signatures shown (the keys a role mapping may use).
        machinery: the engine run the machinery sections came from, if one ran.
        notes: what the machinery could not do for this item, in words.
    """

    messages: tuple[dict[str, str], ...]
    shown: tuple[str, ...]
    retrieved: tuple[str, ...]
    accept_ids: tuple[str, ...] = ()
    inference_ids: tuple[str, ...] = ()
    machinery: Mapping[str, Any] | None = None
    notes: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()

    @property
    def context_chars(self) -> int:
        """The length of the user message: the context volume B′ matches to C."""
        return len(self.messages[-1]["content"])


@dataclass(frozen=True)
class _Call:
    """One item as the runner hands it over (the arguments of :meth:`ModelAnswerer.answer`)."""

    family: str
    inputs: Mapping[str, Any]
    target: Signature | None
    probe: Probe | None = None
    sources: Sequence[dict] | None = None
    oracle_source: str | None = None

    @property
    def text(self) -> str:
        return (self.inputs.get("target") or {}).get("text", "")


@dataclass(frozen=True)
class _Listed:
    """An episode the retrieval section lists, how it was found, and how it is shown."""

    record: Mapping[str, Any]
    note: str
    signature: bool
    above: bool = False  # already displayed with the item: listed by id only


@dataclass
class ModelAnswerer:
    """Answers items with a model. ``seed`` is the call's seed and its replicate index (so seeds
    are distinct cache entries) and drives C′'s shuffle."""

    arm: Arm
    llm: Any
    settings: ArmSettings = field(default_factory=ArmSettings)
    seed: int = 0
    context_tokens: int = 8192

    def answer(
        self,
        family: str,
        inputs: Mapping[str, Any],
        target: Signature | None,
        *,
        probe: Probe | None = None,
        sources: Sequence[dict] | None = None,
        oracle_source: str | None = None,
        context_chars: int | None = None,
    ) -> Answer:
        """Answer one item (the call shape of :meth:`EngineAnswerer.answer`, plus B′'s
        ``context_chars``)."""
        t0 = time.perf_counter()
        brief = self.brief(
            family,
            inputs,
            target,
            probe=probe,
            sources=sources,
            oracle_source=oracle_source,
            context_chars=context_chars,
        )
        schema = P.answer_schema(
            family,
            brief.accept_ids,
            brief.inference_ids,
            shown=brief.shown,
            roles=brief.roles,
            entities=sorted((inputs.get("target") or {}).get("entities") or {}),
            operators=[o["name"] for o in inputs.get("operators") or []],
        )
        parsed, error, calls, tokens, key = self._ask(brief, schema)
        problems: list[str] = []
        fields = P.read_answer(
            family, parsed, brief.shown, brief.accept_ids, brief.inference_ids, problems
        )
        run = {
            "arm": self.arm.name,
            "oracle": self.arm.oracle,
            "prompt_version": P.PROMPT_VERSION,
            "messages": list(brief.messages),
            "response": parsed,
            "machinery": brief.machinery,
            "shown": list(brief.shown),
            "context_chars": brief.context_chars,
            "context_target": context_chars,
            "notes": list(brief.notes),
            "problems": problems,
            "error": error,
            "cache_key": key,
        }
        return Answer(
            retrieved=brief.retrieved,
            **fields,
            survived=self._survived(fields, brief.machinery),
            tokens=tokens,
            calls=calls,
            wall_ms=(time.perf_counter() - t0) * 1000,
            run=run,
        )

    def _ask(self, brief: Brief, schema: dict) -> tuple[Any, str | None, int, int, str | None]:
        """(parsed answer, error, calls, tokens, call-log key). Cost is read off the completion,
        not a shared counter, so concurrent answers through one LoggedLLM do not count each
        other's calls; the key links the answer to its logged call (latency, tokens)."""
        try:
            c = self.llm.complete(
                list(brief.messages),
                schema=schema,
                temperature=self.settings.temperature,
                max_tokens=self.settings.max_tokens,
                seed=self.seed,
                prompt_version=P.PROMPT_VERSION,
                replicate=self.seed,
            )
        except CacheMissError:
            raise
        except ModelError as e:
            return None, str(e), 1, 0, None
        tokens = (c.input_tokens or 0) + (c.output_tokens or 0)
        parsed = c.parsed
        if parsed is None:
            try:
                parsed = parse_json_text(c.text)
            except ValueError as e:
                return None, f"unreadable answer: {e}", 1, tokens, c.cache_key
        return parsed, None, 2 if c.repaired else 1, tokens, c.cache_key

    def _survived(self, fields: Mapping[str, Any], run: Mapping[str, Any] | None) -> bool | None:
        """Verifying arms: did the machinery's own checks keep the analogy the model chose?"""
        if not self.arm.verify or run is None:
            return None
        accepted = [i for i, ok in fields["judged"].items() if ok]
        proposed = fields["claimed_source"] or (accepted[0] if len(accepted) == 1 else None)
        if proposed is None:
            return None
        critic_ok = (run.get("critic") or {}).get("verdict", "accept") == "accept"
        return (
            proposed == run.get("source")
            and critic_ok
            and run.get("verification_result") != "failed"
        )

    # ------------------------------------------------------------------------ brief
    def brief(
        self,
        family: str,
        inputs: Mapping[str, Any],
        target: Signature | None,
        *,
        probe: Probe | None = None,
        sources: Sequence[dict] | None = None,
        oracle_source: str | None = None,
        context_chars: int | None = None,
    ) -> Brief:
        """The prompt for one item under this arm, and what it showed (no model call)."""
        call = _Call(family, inputs, target, probe, sources, oracle_source)
        records = self._records(call)
        cap: list[int | None] = [None]  # memory texts are cut to this many chars to fit
        _, above, accept_ids = self._head(call, records)
        notes: list[str] = []
        run, listed = self._machinery(call, records, above, notes)
        tail = self._tail(call, run, listed, records)
        inference_ids = tuple(i["id"] for i in inputs.get("inferences", []))
        tail.append(
            P.section(
                "ANSWER FORMAT",
                P.answer_lines(
                    family,
                    accept_ids,
                    inference_ids,
                    bool(inputs.get("operators")),
                    signatures=self._structural,
                ),
            )
        )

        def build(items: Sequence[_Listed]) -> Brief:
            body = list(self._head(call, records, cap[0])[0])
            if self._machine:
                body.append(
                    P.section(
                        "RETRIEVED FROM MEMORY",
                        [
                            line
                            for s in items
                            for line in (
                                [f"[{s.record['id']}] {s.note}; shown above"]
                                if s.above
                                else P.episode_block(
                                    s.record, signature=s.signature, note=s.note, max_text=cap[0]
                                )
                            )
                        ]
                        or ["(nothing)"],
                    )
                )
            user = "\n\n".join(body + tail)
            ids = [*above, *(s.record["id"] for s in items)]
            return Brief(
                ({"role": "system", "content": P.SYSTEM}, {"role": "user", "content": user}),
                tuple(dict.fromkeys(ids)),
                tuple(s.record["id"] for s in items),
                tuple(accept_ids),
                inference_ids,
                run,
                tuple(notes),
            )

        def make() -> Brief:
            if not self.arm.match_context_of:
                return build(listed)
            return self._fill(call, build, listed, records, context_chars, notes)

        brief = make()
        budget = self.context_tokens - self.settings.max_tokens
        for limit in P.TEXT_CAPS:
            if P.estimate_tokens(brief.messages) <= budget:
                break
            cap[0] = limit
            brief = make()
        if cap[0] is not None:
            fits = P.estimate_tokens(brief.messages) <= budget
            notes.append(
                f"episode texts cut to {cap[0]} chars to fit the {self.context_tokens}-"
                "token context" + ("" if fits else "; the prompt still may not fit")
            )
            brief = replace(brief, notes=tuple(notes))
        roles = {
            r
            for i in brief.shown
            if self._structural
            for r in ((records.get(i) or {}).get("signature") or {}).get("roles", {})
        }
        return replace(brief, roles=tuple(sorted(roles)))

    @property
    def _structural(self) -> bool:
        return any(c in STRUCTURAL for c in self.arm.channels)

    @property
    def _machine(self) -> bool:
        return self.arm.memory or self.arm.oracle

    def _records(self, call: _Call) -> dict[str, dict]:
        """Every episode the item holds, by id, as the arm's memory holds it (C′: shuffled, as
        EngineAnswerer.memory shuffles), plus source overrides (parsed as given, unshuffled)."""
        recs = [*call.inputs.get("memory", []), *call.inputs.get("candidates", [])]
        if call.inputs.get("source"):
            recs.append(call.inputs["source"])
        if self._machine and self.arm.shuffle_signatures:
            recs = shuffled([dict(r) for r in recs], self.seed)
        out = {r["id"]: r for r in recs}
        out.update({s["id"]: s for s in call.sources or []})
        return out

    def _given(self, call: _Call) -> list[str] | None:
        """The ids the machinery works on without retrieval (as EngineAnswerer.answer)."""
        if self.arm.oracle:
            return [call.oracle_source] if call.oracle_source else []
        if call.sources is not None:
            return [s["id"] for s in call.sources]
        if call.inputs.get("source") and call.family != "F2":
            return [call.inputs["source"]["id"]]
        return None

    def _head(
        self, call: _Call, records: Mapping[str, dict], cap: int | None = None
    ) -> tuple[list[str], list[str], list[str]]:
        """Question, target and what the item itself gives: (sections, ids shown, ids to judge).
        With machinery, an episode is shown as the arm's memory holds it (C′: shuffled). Stored
        signatures are shown only to arms with structural channels (spec §20: A0, A1, B and B′
        have no structural memory), episode texts cut to ``cap`` chars when one is set."""
        inputs, tgt = call.inputs, call.inputs.get("target") or {}
        out = [
            P.section("QUESTION", [inputs.get("question", "")]),
            P.section("TARGET", P.target_lines(tgt)),
            P.section("TARGET ENTITIES", P.entity_lines(tgt)),
        ]
        if self._structural and call.target is not None:
            out.append(
                P.section(
                    "TARGET STRUCTURE",
                    P.structure_lines(
                        [r.term().canonical() for r in call.target.relations],
                        [
                            f"{c.cause.canonical()} --{c.link}--> {c.effect.canonical()}"
                            for c in call.target.causal_chain
                        ],
                    ),
                )
            )

        def block(r: Mapping[str, Any]) -> list[str]:
            return P.episode_block(
                records.get(r["id"], r) if self._machine else r,
                signature=self._structural,
                max_text=cap,
            )

        given = (
            list(call.sources)
            if call.sources is not None
            else ([inputs["source"]] if inputs.get("source") else [])
        )
        ids: list[str] = []
        if "source" in inputs or call.sources is not None:
            out.append(
                P.section(
                    "SOURCE EPISODES" if len(given) > 1 else "SOURCE EPISODE",
                    [x for r in given for x in block(r)] or ["(no source episode is given)"],
                )
            )
            ids += [r["id"] for r in given]
        cands = inputs.get("candidates") or []
        if cands:
            out.append(P.section("CANDIDATE EPISODES", [x for r in cands for x in block(r)]))
            ids += [r["id"] for r in cands]
        if inputs.get("inferences"):
            out.append(
                P.section(
                    "CANDIDATE INFERENCES (carried over from the source)",
                    P.inference_lines(inputs["inferences"]),
                )
            )
        if inputs.get("operators"):
            out.append(P.section("OPERATOR MENU", P.operator_lines(inputs["operators"])))
        if self.arm.hint:
            out.append(P.section("HINT", [P.HINT]))
        accept = {"F2": [r["id"] for r in cands], "F6": [r["id"] for r in given]}
        return out, ids, accept.get(call.family, [])

    # -------------------------------------------------------------------- machinery
    def _machinery(
        self, call: _Call, records: Mapping[str, dict], above: Sequence[str], notes: list[str]
    ) -> tuple[dict | None, list[_Listed]]:
        """The engine run (None without machinery or target signature) and the episodes the
        retrieval section lists, best first."""
        if not self._machine:
            return None, []
        engine = EngineAnswerer(self.arm, self.seed)
        run = None
        if call.target is not None:
            run = dict(
                engine.answer(
                    call.family,
                    call.inputs,
                    call.target,
                    probe=call.probe,
                    sources=call.sources,
                    oracle_source=call.oracle_source,
                ).run
                or {}
            )
        given = self._given(call)
        if given is not None:
            note = "retrieved" if self.arm.oracle else "given with the item"
            return run, [
                _Listed(records[i], note, self._structural, i in above)
                for i in given
                if i in records
            ]
        if run is not None:
            cands = run["candidates"]
        else:
            notes.append(
                "no target signature: structural channels, mapping and verification did not run"
            )
            pool = engine.memory(call.inputs).search(
                call.text, channels=self.arm.channels, k=self.settings.k
            )
            cands = [c.to_json() for c in pool.candidates]
        return run, self._rank(cands, records, above)

    def _rank(
        self,
        cands: Sequence[Mapping[str, Any]],
        records: Mapping[str, dict],
        above: Sequence[str],
        k: int | None = None,
    ) -> list[_Listed]:
        """The top-k semantic and the top-k structural candidates (both for H), best first, in
        the engine's union order; those found structurally are shown with their signatures."""
        k = k or self.settings.k
        inf = float("inf")

        def top(rank: str) -> list[Mapping[str, Any]]:
            ranked = [c for c in cands if c.get(rank) is not None]
            return sorted(ranked, key=lambda c: (c[rank], c["episode_id"]))[:k]

        sem = top("semantic_rank") if "M" in self.arm.channels else []
        struct = top("structural_rank") if self._structural else []
        signed = {c["episode_id"] for c in struct}
        chosen = {c["episode_id"]: c for c in [*sem, *struct]}.values()
        order = sorted(
            chosen,
            key=lambda c: (
                min(c.get("structural_rank") or inf, c.get("semantic_rank") or inf),
                c.get("structural_rank") or inf,
                c["episode_id"],
            ),
        )
        return [
            _Listed(
                records[c["episode_id"]],
                P.found_note(c),
                c["episode_id"] in signed,
                c["episode_id"] in above,
            )
            for c in order
            if c["episode_id"] in records
        ]

    def _tail(
        self,
        call: _Call,
        run: Mapping[str, Any] | None,
        listed: Sequence[_Listed],
        records: Mapping[str, dict],
    ) -> list[str]:
        """The mapping tables (D and above) and the verification record (E, G, E+R)."""
        out = []
        if self.arm.forced_mapping and call.target is not None:
            vocab, tables = default_vocabulary(), []
            for s in listed:
                raw = records[s.record["id"]].get("signature")
                if raw:
                    sig = parse_signature({**raw, "episode_id": s.record["id"]}, vocab)
                    found = map_signatures(sig, call.target, vocab, self.arm.pipeline.sme)
                    tables += P.mapping_lines(
                        sig.episode_id, P.mapping_table(found[0]) if found else None
                    )
            out.append(
                P.section(
                    "MAPPING TABLES (structure mapper; source role → target entity)",
                    tables or ["(no candidate to map)"],
                )
            )
        if self.arm.verify and run is not None:
            out.append(
                P.section(
                    "VERIFICATION (the machinery's checks of its best candidate)",
                    P.verification_lines(run),
                )
            )
        return out

    def _fill(
        self,
        call: _Call,
        build: Callable[[Sequence[_Listed]], Brief],
        listed: list[_Listed],
        records: Mapping[str, dict],
        context_chars: int | None,
        notes: list[str],
    ) -> Brief:
        """B′: add semantic episodes in rank order until the prompt reaches ``context_chars``
        (default: the length of the prompt the matched arm, C, gets for this item)."""
        if context_chars is None:
            other = ModelAnswerer(
                get_arm(self.arm.match_context_of or "C"),
                self.llm,
                self.settings,
                self.seed,
                self.context_tokens,
            )
            context_chars = other.brief(
                call.family,
                call.inputs,
                call.target,
                probe=call.probe,
                sources=call.sources,
                oracle_source=call.oracle_source,
            ).context_chars
            notes.append(f"context matched to {other.arm.name}: {context_chars} chars")
        brief = build(listed)
        if brief.context_chars >= context_chars:
            return brief
        if self._given(call) is not None:
            notes.append("the item gives its source: there is no memory to add")
            return build(listed)
        memory = EngineAnswerer(self.arm, self.seed).memory(call.inputs)
        pool = memory.search(
            call.target if call.target is not None else call.text,
            channels=self.arm.channels,
            k=len(records),
        )
        have = {s.record["id"] for s in listed}
        items = list(listed)
        for extra in self._rank([c.to_json() for c in pool.candidates], records, [], len(records)):
            if extra.record["id"] in have:
                continue
            items.append(extra)
            brief = build(items)
            if brief.context_chars >= context_chars:
                return brief
        notes.append(f"memory ran out at {brief.context_chars} of {context_chars} chars")
        return build(items)
