"""The staged encoder: a small model writes a signature in four constrained steps.

:class:`StagedEncoder` runs the steps of :mod:`analogist.encode.steps` (roles → relations →
causal chain → levels). After each step the answer is checked; a failed check gets one repair
re-ask that quotes the rejected answer and names the fix, at another temperature and seed, so the
repair always changes the request (a repair answer identical to the rejected one counts as
failed). What each step does when its repair fails:

- roles, relations: the episode is rejected (no structure to store);
- causal chain: the signature is kept without a chain (the trace says so);
- levels: a level that still names surface entities is dropped (the trace says which); a fix
  whose arguments repeat is dropped.

Checks are fair (:mod:`analogist.encode.checks`): entities match the text by stem, generic words
may appear in L2/L3, duplicates are removed rather than rejected, and there is no padding:
relations are asked one slot per role (its main relation). A copy of the worked
example is caught by structure (its relations up to role renaming, its role descriptions), not
only by its entity names.

staged-v12 (:mod:`analogist.encode.staged_v12`) asks the chain and the levels in one call and
re-asks only the half that failed; its trace keeps the four steps.

Storage-time encoding sees the episode's text, kind and outcome (the stored record), nothing else;
query-time encoding (:meth:`StagedEncoder.encode_target`) sees the current text and, when the
caller has one, its entity table, which then becomes step 1's enum.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import permutations
from typing import Any

from analogist.encode import staged_v12 as V12
from analogist.encode import steps as S
from analogist.encode.candidates import candidates
from analogist.encode.checks import content_words, level_leak_problems, mentions, stem
from analogist.encode.encoder import EncodeResult, EncoderSettings, writer_tag
from analogist.encode.scored import RelationScorer
from analogist.encode.scored_roles import RoleScorer
from analogist.episode import Episode
from analogist.errors import CacheMissError, ConfigError, ModelError, SignatureError
from analogist.models.llm import LLM
from analogist.models.scoring import can_score, unsupported
from analogist.signature.model import Signature, parse_signature
from analogist.signature.vocabulary import Vocabulary, default_vocabulary
from analogist.store.db import utcnow

STAGED_SETTINGS = EncoderSettings(max_tokens=400)


@dataclass(frozen=True)
class StepTrace:
    """What one step did: its problems, whether a repair ran, what was dropped."""

    step: str
    ok: bool
    problems: tuple[str, ...] = ()
    repaired: bool = False
    calls: int = 1
    dropped: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()  # staged-v9: what each role's scores chose, and why

    def to_json(self) -> dict:
        return {
            "step": self.step,
            "ok": self.ok,
            "calls": self.calls,
            "problems": list(self.problems),
            "repaired": self.repaired,
            "dropped": list(self.dropped),
            **({"notes": list(self.notes)} if self.notes else {}),
        }


@dataclass
class _State:
    """The signature being built, step by step."""

    eid: str
    kind: str
    text: str
    head: str
    entities: list[str] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    domain: str = ""
    mechanism: str = ""
    relations: list[list[str]] = field(default_factory=list)
    chain: list[list[str]] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    levels: dict[str, str] = field(default_factory=dict)
    ids: dict[str, str] = field(default_factory=dict)  # staged-v12: R-name -> entity-table id
    trace: list[StepTrace] = field(default_factory=list)

    def so_far(self) -> list[str]:
        out = []
        if self.mechanism:
            out.append("Mechanism: " + self.mechanism)
        if self.names:
            out.append(
                "Roles: "
                + "; ".join(
                    f"{n} = {e} ({p})" for n, e, p in zip(self.names, self.entities, self.parts)
                )
            )
        if self.relations:
            out.append("Relations: " + "; ".join(S.fact(r) for r in self.relations))
        if self.chain:
            out.append("Causal chain: " + "; ".join(f"{c} --{k}--> {e}" for c, k, e in self.chain))
        return out


def _norm(text: str) -> str:
    return " ".join(stem(w) for w in content_words(text))


_EX_PARTS = {_norm(r["part"]) for r in S.EXAMPLE["roles"]["roles"]}
_EX_ENTITIES = [r["entity"] for r in S.EXAMPLE["roles"]["roles"]]


def _canon(vocab: Vocabulary, row: Sequence[str]) -> tuple[str, ...]:
    """A relation with the arguments of a commutative term sorted (one fact, either order)."""
    t = vocab.resolve(row[0])
    return (row[0], *sorted(row[1:])) if t is not None and t.commutative else tuple(row)


def _is_new_fact(vocab: Vocabulary, row: Sequence[str], kept: Sequence[Sequence[str]]) -> bool:
    """Whether ``row`` states a fact none of ``kept`` states (commutative terms in either order)."""
    canon = _canon(vocab, row)
    return all(_canon(vocab, k) != canon for k in kept)


def _shape(relations: Sequence[Sequence[str]]) -> list[tuple]:
    return sorted((r[0], *r[1:]) for r in relations)


def copies_example(relations: Sequence[Sequence[str]]) -> bool:
    """True when ``relations`` equal the worked example's relations up to renaming roles."""
    ex = S.EXAMPLE["relations"]["relations"]
    if len(relations) != len(ex) or sorted(r[0] for r in relations) != sorted(r[0] for r in ex):
        return False
    mine = sorted({a for r in relations for a in r[1:]})
    theirs = sorted({a for r in ex for a in r[1:]})
    if len(mine) != len(theirs):
        return False
    target = _shape(ex)
    for perm in permutations(theirs):
        ren = dict(zip(mine, perm))
        if _shape([[r[0], *(ren[a] for a in r[1:])] for r in relations]) == target:
            return True
    return False


class StagedEncoder:
    """Writes signatures in four constrained steps (see the module docstring).

    Args:
        llm: any :class:`~analogist.models.llm.LLM` (normally from ``open_llm``).
        vocab: the controlled vocabulary (default: the packaged one).
        settings: sampling; ``repair`` allows the one re-ask per step.
        repair_temperature: the temperature of a repair re-ask (it must differ from the first).
        clock: gives ``written_at``.
        version: the prompt version (:data:`~analogist.encode.steps.PROMPT_VERSIONS`); an older
            one only to replay a run recorded with it.
    """

    def __init__(
        self,
        llm: LLM,
        vocab: Vocabulary | None = None,
        settings: EncoderSettings = STAGED_SETTINGS,
        *,
        repair_temperature: float = 0.4,
        clock: Callable[[], str] = utcnow,
        version: str = S.STAGED_PROMPT_VERSION,
    ):
        if version not in S.PROMPT_VERSIONS:
            raise ValueError(
                f"unknown staged encoder version {version!r}; one of {', '.join(S.PROMPT_VERSIONS)}"
            )
        if version in S.SCORED_VERSIONS and not can_score(llm):
            raise ConfigError(f"encoder {version}: {unsupported(llm.provider, llm.model)}")
        self.llm = llm
        self.vocab = vocab or default_vocabulary()
        self.settings = settings
        self.repair_temperature = repair_temperature
        self.clock = clock
        self.version = version
        self.writer = writer_tag(llm, version)

    # ------------------------------------------------------------------------ public
    def encode(self, episode: Episode) -> EncodeResult:
        """Storage-time encoding from the episode's own record (text, kind, outcome).

        Raises:
            CacheMissError: in replay-only mode the call log lacks a needed call.
        """
        head = S.episode_head(episode.text, episode.kind, episode.outcome, target=False)
        seen = episode.text + " " + (episode.outcome or "")
        return self._run(_State(episode.id, episode.kind, episode.text, head), seen, None)

    def encode_text(
        self, text: str, *, episode_id: str, kind: str, outcome: str | None = None
    ) -> EncodeResult:
        return self.encode(Episode(episode_id, kind, text, outcome))

    def encode_target(
        self,
        text: str,
        *,
        kind: str | None = None,
        target_id: str = "target",
        entities: Mapping[str, str] | None = None,
    ) -> EncodeResult:
        """Query-time encoding of the current situation. With ``entities`` (id -> name), roles
        are chosen from that table and named by the entity ids."""
        head = S.episode_head(text, kind, None, target=True)
        state = _State(target_id, kind or "observation", text, head)
        return self._run(state, text, dict(entities) if entities else None)

    # ------------------------------------------------------------------------ steps
    def _run(self, st: _State, seen: str, table: dict[str, str] | None) -> EncodeResult:
        try:
            if not self._roles(st, seen, table) or not self._relations(st):
                return self._result(st, None, st.trace[-1].problems)
            if self.version in S.MERGED_VERSIONS:
                self._chain_levels(st, seen)
            else:
                self._chain(st)
                self._levels(st, seen)
        except _Unusable as e:  # the step that failed is the last one in the trace
            st.trace.append(StepTrace(e.step, False, (str(e),)))
            return self._result(st, None, (str(e),))
        if st.ids:
            _put_back_ids(st)
        doc = {
            "episode_id": st.eid,
            "kind": st.kind,
            "roles": dict(zip(st.names, st.parts)),
            "relations": st.relations,
            "causal_chain": st.chain,
            "levels": {"L0": st.text, **st.levels},
            "surface": {
                "domain": st.domain,
                "entities": list(dict.fromkeys(st.entities)),
                "bindings": dict(zip(st.names, st.entities)),
            },
            "verified": False,
            "writer_model": self.writer,
            "written_at": self.clock(),
            **st.extra,
        }
        try:
            sig = parse_signature(doc, self.vocab)
        except SignatureError as e:
            return self._result(st, None, (f"{e.field}: {e.problem}",))
        return self._result(st, sig, ())

    def _result(self, st: _State, sig: Signature | None, problems: Sequence[str]) -> EncodeResult:
        all_problems = tuple(p for t in st.trace for p in t.problems)
        return EncodeResult(
            st.eid,
            sig,
            None if sig is not None else "; ".join(problems) or "rejected",
            all_problems,
            any(t.repaired for t in st.trace),
            writer=self.writer,
            steps=tuple(st.trace),
        )

    def _ask(
        self,
        step: str,
        st: _State,
        schema: dict,
        check: Callable[[Any], list[str]],
        repair_schema: dict | None = None,
    ) -> tuple[Any, list[str], bool, int]:
        """One step with at most one repair: (answer, remaining problems, repaired, calls)."""
        s = self.settings
        version = S.step_version(self.version, step)
        msgs = S.step_messages(self.vocab, step, st.head, st.so_far(), version=version)
        first = self._call(msgs, schema, s.temperature, s.seed, step)
        problems = check(first)
        if not problems or not s.repair:
            return first, problems, False, 1
        msgs = S.step_messages(
            self.vocab, step, st.head, st.so_far(), problems, first, version=version
        )
        second = self._call(
            msgs, repair_schema or schema, self.repair_temperature, s.seed + 1, step
        )
        if second == first:
            return first, [*problems, "the repair re-ask returned the same answer"], True, 2
        return second, check(second), True, 2

    def _call(
        self, messages: list[dict], schema: dict, temperature: float, seed: int, step: str
    ) -> Any:
        s = self.settings
        cap = s.max_tokens
        if self.version == V12.VERSION:  # the longest answer the schema allows, not more
            cap = min(cap, V12.max_tokens_for(schema))
        try:
            c = self.llm.complete(
                messages,
                schema=schema,
                temperature=temperature,
                max_tokens=cap,
                seed=seed,
                prompt_version=f"{S.step_version(self.version, step)}:{step}",
                replicate=s.replicate,
            )
        except CacheMissError:
            raise
        except ModelError as e:
            raise _Unusable(step, f"{step}: model answer unusable: {e}") from None
        if not isinstance(c.parsed, dict):
            raise _Unusable(step, f"{step}: the answer is not one JSON object")
        return c.parsed

    def _roles(self, st: _State, seen: str, table: dict[str, str] | None) -> bool:
        if self.version in S.ROLE_SCORED_VERSIONS:
            return self._roles_scored(st, table)
        names_by_entity = {v: k for k, v in (table or {}).items()}

        def check(ans: Any) -> list[str]:
            out = []
            roles = [r for r in ans.get("roles") or [] if isinstance(r, dict)]
            ents = [str(r.get("entity", "")) for r in roles]
            for e in ents:
                if table is None and not mentions(e, seen):
                    out.append(
                        f"entity {e!r} does not occur in the episode; name each part as "
                        "the episode writes it"
                    )
                if table is None and e in _EX_ENTITIES and not mentions(e, seen):
                    out.append(f"{e!r} is from the worked example; describe this episode")
            parts = [_norm(str(r.get("part", ""))) for r in roles]
            if sum(1 for p in parts if p in _EX_PARTS) >= 2:
                out.append(
                    "the role descriptions copy the worked example; say what each part "
                    "does in THIS episode"
                )
            if len({_norm(e) for e in ents}) < 2:
                out.append("give at least two different parts")
            return out

        entities = list(table.values()) if table else None
        ans, problems, repaired, calls = self._ask(
            "roles",
            st,
            V12.roles_schema(entities)
            if self.version == V12.VERSION
            else S.roles_schema(entities, mechanism=self.version in S.ACTOR_VERSIONS),
            check,
        )
        dropped = []
        for r in ans.get("roles") or []:
            ent, part = str(r.get("entity", "")).strip(), str(r.get("part", "")).strip()
            if any(_norm(ent) == _norm(e) for e in st.entities):
                dropped.append(f"duplicate role for {ent!r}")
                continue
            if table is None and not mentions(ent, seen):
                dropped.append(f"role for {ent!r} (not in the episode)")
                continue
            st.entities.append(ent)
            st.parts.append(part or "part of the mechanism")
            name = f"R{len(st.names) + 1}"
            if self.version == V12.VERSION and ent in names_by_entity:
                st.ids[name] = names_by_entity[ent]  # the model sees R1.., the id comes back
            st.names.append(name if self.version == V12.VERSION else names_by_entity.get(ent, name))
        st.domain = str(ans.get("domain", ""))[:40]
        st.mechanism = str(ans.get("mechanism", "")).strip()
        ok = len(st.names) >= 2
        st.trace.append(StepTrace("roles", ok, tuple(problems), repaired, calls, tuple(dropped)))
        return ok

    def _roles_scored(self, st: _State, table: dict[str, str] | None) -> bool:
        """staged-v11: the roles chosen by likelihood among the text's noun phrases (or the
        entity table's names), :mod:`analogist.encode.scored_roles`. Nothing is generated, so
        there is no repair; fewer than two candidates reject the episode."""
        names_by_entity = {v: k for k, v in (table or {}).items()}
        cands = candidates(st.text, table.values() if table else None)
        if len(cands) < 2:
            problem = "fewer than two candidate parts in the text (noun phrases or table names)"
            st.trace.append(StepTrace("roles", False, (problem,), calls=0))
            return False
        scorer = RoleScorer(self.llm, self.version)
        try:
            choice = scorer.choose(st.head, cands)
        except CacheMissError:
            raise
        except ModelError as e:
            raise _Unusable("roles", f"roles: scoring failed: {e}") from None
        for ent, part, _ in choice.chosen:
            st.entities.append(ent)
            st.parts.append(part)
            st.names.append(names_by_entity.get(ent, f"R{len(st.names) + 1}"))
        ok = len(st.names) >= 2
        st.trace.append(
            StepTrace(
                "roles",
                ok,
                () if ok else ("fewer than two distinct parts among the candidates",),
                False,
                scorer.calls,
                tuple(f"{c!r} (same part as {k!r})" for c, k in choice.merged),
                choice.notes(),
            )
        )
        return ok

    def _relations(self, st: _State) -> bool:
        if self.version in S.SCORED_VERSIONS:
            return self._relation_scored(st)
        if self.version in S.PER_ROLE_VERSIONS:
            return self._relation_per_role(st)
        if self.version in S.SLOT_VERSIONS:
            return self._relation_slots(st)
        sentences = S.fact_sentences(self.vocab, list(zip(st.names, st.entities)))

        def rows(ans: Any) -> list[list[str]]:
            out: list[list[str]] = []
            for r in st.names:
                row = sentences[r].get(ans.get(r)) if isinstance(ans.get(r), str) else None
                if row is not None and _is_new_fact(self.vocab, row, out):
                    out.append(list(row))
            return out

        def check(ans: Any) -> list[str]:
            rels = rows(ans)
            if not rels:
                return ["no role has a fact; give each role's main relation to another role"]
            if copies_example(rels):
                return [
                    (
                        "these relations copy the worked example's structure; write the "
                        "relations of THIS episode"
                    )
                ]
            return []

        ans, problems, repaired, calls = self._ask(
            "relations", st, S.relations_schema(sentences), check
        )
        kept = rows(ans)
        ok = not check(ans)
        if ok:
            st.relations = kept
        dropped = tuple(
            f"{r} (same fact as another role's)"
            if ans.get(r) in sentences[r]
            else f"{r} (not one of its sentences)"
            for r in st.names
            if not any(k[1] == r for k in kept)
        )
        st.trace.append(StepTrace("relations", ok, tuple(problems), repaired, calls, dropped))
        return ok

    def _relation_slots(self, st: _State) -> bool:
        """staged-v4, v6 and v12: one slot per role, a placeholder definition and a role (v6: after
        a free sentence, from an enum shuffled per role; v12: the definitions cut short)."""
        v12 = self.version == V12.VERSION
        terms = V12.short_phrases(self.vocab) if v12 else S.relation_phrases(self.vocab)

        def rows(ans: Any) -> list[list[str]]:
            out = []
            for r in st.names:
                slot = ans.get(r)
                if (
                    isinstance(slot, dict)
                    and slot.get("relation") in terms
                    and slot.get("to") in st.names
                    and slot.get("to") != r
                ):
                    out.append([terms[slot["relation"]], r, slot["to"]])
            return out

        def check(ans: Any) -> list[str]:
            rels = rows(ans)
            if not rels:
                return ["no role has a relation; give each role's main relation to another role"]
            if copies_example(rels):
                return [
                    (
                        "these relations copy the worked example's structure; write the "
                        "relations of THIS episode"
                    )
                ]
            return []

        schema = (
            S.reasoned_slots_schema(self.vocab, st.names, f"{self.settings.seed}:{st.eid}")
            if self.version == "staged-v6"
            else V12.relations_schema(self.vocab, st.names)
            if v12
            else S.relation_slots_schema(self.vocab, st.names)
        )
        ans, problems, repaired, calls = self._ask("relations", st, schema, check)
        kept = rows(ans)
        ok = not check(ans)
        if ok:
            st.relations = kept
        dropped = tuple(f"{r} (none)" for r in st.names if not any(k[1] == r for k in kept))
        st.trace.append(StepTrace("relations", ok, tuple(problems), repaired, calls, dropped))
        return ok

    def _relation_per_role(self, st: _State) -> bool:
        """staged-v7 and v8: one call per role, each a v6 slot alone (the answer cannot copy another
        role's choice). No repair: the grammar makes every answer a valid slot; only a copy of
        the worked example's relations rejects the episode."""
        terms, s = S.term_options(self.vocab, self.version), self.settings
        kept: list[list[str]] = []
        dropped: list[str] = []
        for r, ent in zip(st.names, st.entities):
            msgs = S.step_messages(
                self.vocab,
                "relations",
                st.head,
                st.so_far(),
                version=self.version,
                instruction=S.role_relation_instruction(r, ent),
            )
            schema = S.reasoned_slot(self.vocab, st.names, r, f"{s.seed}:{st.eid}", self.version)
            ans = self._call(msgs, schema, s.temperature, s.seed, "relations")
            row = [terms.get(str(ans.get("relation")), ""), r, str(ans.get("to"))]
            if not row[0] or row[2] not in st.names or row[2] == r:
                dropped.append(f"{r} (not a relation to another role)")
            elif not _is_new_fact(self.vocab, row, kept):
                dropped.append(f"{r} (same fact as another role's)")
            else:
                kept.append(row)
        problems = (
            []
            if not kept
            else ["these relations copy the worked example's structure"]
            if copies_example(kept)
            else []
        )
        ok = bool(kept) and not problems
        if ok:
            st.relations = kept
        st.trace.append(
            StepTrace(
                "relations",
                ok,
                tuple(problems or ([] if kept else ["no role has a relation"])),
                False,
                len(st.names),
                tuple(dropped),
            )
        )
        return ok

    def _relation_scored(self, st: _State) -> bool:
        """staged-v9: each role's relation and other role chosen by likelihood
        (:mod:`analogist.encode.scored`). No repair: nothing is generated, so nothing can be
        malformed; a fact that two roles share is kept once."""
        scorer = RelationScorer(self.llm, self.vocab, self.version)
        try:
            choices = scorer.choose(st.head, list(zip(st.names, st.entities)))
        except CacheMissError:
            raise
        except ModelError as e:
            raise _Unusable("relations", f"relations: scoring failed: {e}") from None
        kept: list[list[str]] = []
        dropped: list[str] = []
        for c in choices:
            row = [c.term or "", c.role, c.other or ""]
            if c.term is None:
                dropped.append(f"{c.role} (no term the episode makes likelier than without it)")
            elif not _is_new_fact(self.vocab, row, kept):
                dropped.append(f"{c.role} (same fact as another role's)")
            else:
                kept.append(row)
        problems = (
            ["no role has a term the episode makes likelier than without it"]
            if not kept
            else ["these relations copy the worked example's structure"]
            if copies_example(kept)
            else []
        )
        ok = not problems
        if ok:
            st.relations = kept
        st.trace.append(
            StepTrace(
                "relations",
                ok,
                tuple(problems),
                False,
                scorer.calls,
                tuple(dropped),
                tuple(c.describe() for c in choices),
            )
        )
        return ok

    def _chain(self, st: _State) -> None:
        ans, problems, repaired, calls = self._ask(
            "causal_chain",
            st,
            S.chain_schema(self.vocab, st.names, S.MAX_STEP_LINKS),
            _chain_problems,
        )
        self._keep_chain(st, ans, problems, repaired, calls)

    def _keep_chain(
        self, st: _State, ans: Any, problems: Sequence[str], repaired: bool, calls: int
    ) -> None:
        dropped, kept = [], []
        for x in ans.get("links") or []:
            c, e = S.fact(x["cause"]), S.fact(x["effect"])
            row = [c, x["link"], e]
            if c == e:
                dropped.append(f"{c} --{x['link']}--> {e} (cause equals effect)")
            elif row in kept:
                dropped.append(f"{c} --{x['link']}--> {e} (repeated)")
            else:
                kept.append(row)
        st.chain = kept
        st.trace.append(
            StepTrace("causal_chain", bool(kept), tuple(problems), repaired, calls, tuple(dropped))
        )

    def _levels(self, st: _State, seen: str) -> None:
        def check(ans: Any) -> list[str]:
            return _level_problems(ans, st, seen)

        ans, problems, repaired, calls = self._ask("levels", st, S.levels_schema(st.names), check)
        self._keep_levels(st, seen, ans, problems, repaired, calls)

    def _keep_levels(
        self,
        st: _State,
        seen: str,
        ans: Any,
        problems: Sequence[str],
        repaired: bool,
        calls: int,
        notes: tuple[str, ...] = (),
    ) -> None:
        remaining = _level_problems(ans, st, seen)
        dropped = []
        for level in ("L1", "L2", "L3"):
            text = str(ans.get(level, "")).strip()
            if any(p.startswith(f"levels.{level}") for p in remaining):
                dropped.append(f"{level} (names surface entities)")
            elif text:
                st.levels[level] = text
        for key in ("symptom", "violated_invariant"):
            if str(ans.get(key, "")).strip():
                st.extra[key] = str(ans[key]).strip()
        fix = ans.get("fix") or {}
        args = fix.get("args") or []
        if fix.get("operator") and args and len(set(args)) == len(args):
            st.extra["fix_operator"] = f"{fix['operator']}({','.join(args)})"
        elif fix:
            dropped.append("fix (repeated arguments)")
        st.trace.append(
            StepTrace(
                "levels", not dropped, tuple(problems), repaired, calls, tuple(dropped), notes
            )
        )

    def _chain_levels(self, st: _State, seen: str) -> None:
        """staged-v12: the causal chain and the levels in one call; a repair re-asks only the
        half that failed (its own schema, the problems quoted, another temperature and seed).
        The trace keeps v4's two steps; the levels step's calls are counted with the chain's."""
        s, step = self.settings, "chain_levels"
        msgs = S.step_messages(self.vocab, step, st.head, st.so_far(), version=self.version)
        schema = V12.chain_levels_schema(self.vocab, st.names)
        first = _with_link_objects(self._call(msgs, schema, s.temperature, s.seed, step))
        ans = dict(first)
        chain_p, level_p = _chain_problems(first), _level_problems(first, st, seen)
        fix_chain, fix_levels = bool(chain_p) and s.repair, bool(level_p) and s.repair
        calls = 1
        if fix_chain or fix_levels:
            part = V12.chain_levels_schema(self.vocab, st.names, chain=fix_chain, levels=fix_levels)
            failed = {k: raw[k] for k in part["properties"] if k in (raw := first["raw"])}
            only = " Answer only: " + ", ".join(part["properties"]) + "."
            msgs = S.step_messages(
                self.vocab,
                step,
                st.head,
                st.so_far(),
                [*chain_p, *level_p],
                failed,
                version=self.version,
                instruction=S.step_instruction(self.version, step) + only,
            )
            second = self._call(msgs, part, self.repair_temperature, s.seed + 1, step)
            calls = 2
            if second == failed:
                same = "the repair re-ask returned the same answer"
                chain_p = [*chain_p, same] if chain_p else []
                level_p = [*level_p, same] if level_p else []
            else:
                ans.update(_with_link_objects(second))
                chain_p = _chain_problems(ans) if fix_chain else chain_p
                level_p = _level_problems(ans, st, seen) if fix_levels else level_p
        self._keep_chain(st, ans, chain_p, fix_chain, calls)
        note = ("asked with the causal chain in one call (staged-v12)",)
        self._keep_levels(st, seen, ans, level_p, fix_levels, 0, note)


class _Unusable(Exception):
    """A step's answer could not be used at all (model error, not JSON)."""

    def __init__(self, step: str, message: str):
        super().__init__(message)
        self.step = step


def _put_back_ids(st: _State) -> None:
    """staged-v12: the entity-table ids in place of the R-names the model wrote with (an id costs
    ~7 tokens each time it is written, R1 one)."""

    def sub(text: str) -> str:
        return re.sub(r"\bR\d+\b", lambda m: st.ids.get(m.group(0), m.group(0)), text)

    st.names = [st.ids.get(n, n) for n in st.names]
    st.relations = [[r[0], *(st.ids.get(a, a) for a in r[1:])] for r in st.relations]
    st.chain = [[sub(c), k, sub(e)] for c, k, e in st.chain]
    if "fix_operator" in st.extra:
        st.extra["fix_operator"] = sub(st.extra["fix_operator"])


def _with_link_objects(ans: dict) -> dict:
    """staged-v12's answer with its links as v4's link objects (the answer itself kept as
    ``raw``, so a repair quotes what the model wrote)."""
    out = {**ans, "raw": ans}
    if "links" in ans:
        out["links"] = V12.link_objects(ans["links"])
    return out


def _chain_problems(ans: Any) -> list[str]:
    links = [x for x in ans.get("links") or [] if isinstance(x, dict)]
    if not [x for x in links if x.get("cause") != x.get("effect")]:
        return ["every link has the same cause and effect; link a cause to its effect"]
    return []


def _level_problems(ans: Any, st: _State, seen: str) -> list[str]:
    levels = {k: str(ans.get(k, "")) for k in ("L2", "L3")}
    out = level_leak_problems(levels, st.entities, seen, st.names)
    args = (ans.get("fix") or {}).get("args") or []
    if len(set(args)) != len(args):
        out.append("the fix names a role twice; give each argument once")
    return out
