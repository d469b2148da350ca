"""Encoders: episode text -> :class:`~analogist.signature.Signature`.

:class:`ModelEncoder` is the storage-time encoder of spec §5: the model writes the signature of
one episode, seeing nothing but that episode (never another episode or a target, so it cannot
tailor representations). Its answer is constrained by :func:`~analogist.encode.schema.signature_schema`,
validated with :func:`~analogist.signature.parse_signature` and the surface-leak check, and may
be repaired once with a re-ask that quotes every problem. The same class writes query-time
target signatures (:meth:`ModelEncoder.encode_target`). :class:`GoldEncoder` hands back the
signatures an episode already carries (labelled ``gold``), for attribution experiments.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from analogist.encode import prompts
from analogist.encode.checks import (
    NameResolver,
    RelationMapping,
    foreign_entity_problems,
    level_leak_problems,
)
from analogist.encode.schema import signature_schema
from analogist.episode import Episode
from analogist.errors import CacheMissError, ModelError, SignatureError, TermSyntaxError
from analogist.models.llm import LLM
from analogist.signature.model import Signature, parse_signature
from analogist.signature.terms import Term, parse_term
from analogist.signature.vocabulary import Vocabulary, default_vocabulary
from analogist.store.db import utcnow


def writer_tag(llm: LLM, prompt_version: str) -> str:
    """``provider:model#prompt_version``, stored as a signature's ``writer_model``."""
    return f"{llm.provider}:{llm.model}#{prompt_version}"


def split_writer_tag(tag: str) -> tuple[str, str | None]:
    """``"openai:gpt-4o-mini#encode-v1"`` -> ``("openai:gpt-4o-mini", "encode-v1")``."""
    model, sep, version = tag.rpartition("#")
    return (model, version) if sep else (tag, None)


@dataclass(frozen=True)
class EncoderSettings:
    """Sampling of encoder calls (part of each cache key) and whether to repair once."""

    temperature: float = 0.0
    max_tokens: int = 1200
    seed: int = 0
    replicate: int = 0
    repair: bool = True


@dataclass(frozen=True)
class EncodeResult:
    """What an encoder produced for one episode.

    Attributes:
        signature: the accepted signature, or None when rejected.
        reason: why it was rejected (None when accepted).
        problems: what the first answer got wrong (what the repair re-ask quoted).
        repaired: the accepted signature came from the repair re-ask.
        mappings: relation names mapped to vocabulary terms, and how.
        writer: ``provider:model#prompt_version`` (``gold`` for gold signatures).
        steps: the staged encoder's per-step traces (:class:`~analogist.encode.staged.StepTrace`).
    """

    episode_id: str
    signature: Signature | None
    reason: str | None = None
    problems: tuple[str, ...] = ()
    repaired: bool = False
    mappings: tuple[RelationMapping, ...] = ()
    writer: str = ""
    steps: tuple[Any, ...] = ()

    @property
    def ok(self) -> bool:
        return self.signature is not None

    def require(self) -> Signature:
        """The signature, or :class:`SignatureError` with the rejection reason."""
        if self.signature is None:
            raise SignatureError(self.episode_id, "(encoder)", self.reason or "rejected")
        return self.signature

    def to_json(self) -> dict:
        d = {
            "episode_id": self.episode_id,
            "ok": self.ok,
            "writer": self.writer,
            "signature": self.signature.to_json() if self.signature else None,
            "reason": self.reason,
            "problems": list(self.problems),
            "repaired": self.repaired,
            "mappings": [m.to_json() for m in self.mappings],
        }
        if self.steps:
            d["steps"] = [s.to_json() for s in self.steps]
        return d


class Encoder(Protocol):
    """Anything that turns an episode into a signature (model, gold, pre-encoded)."""

    def encode(self, episode: Episode) -> EncodeResult: ...


class GoldEncoder:
    """Returns the signature an episode was given (the generator's own), labelled ``gold``."""

    def encode(self, episode: Episode) -> EncodeResult:
        if episode.signature is None:
            return EncodeResult(episode.id, None, "episode has no gold signature", writer="gold")
        return EncodeResult(episode.id, episode.signature, writer="gold")


class ModelEncoder:
    """The LLM writes signatures; see the module docstring for the checks and the repair.

    Args:
        llm: any :class:`~analogist.models.llm.LLM` (normally from ``open_llm``, so calls are
            logged and cached).
        vocab: the controlled vocabulary (default: the packaged one).
        settings: sampling and repair.
        clock: gives ``written_at`` (tests pass a fixed one).
    """

    def __init__(
        self,
        llm: LLM,
        vocab: Vocabulary | None = None,
        settings: EncoderSettings = EncoderSettings(),
        *,
        clock: Callable[[], str] = utcnow,
    ):
        self.llm = llm
        self.vocab = vocab or default_vocabulary()
        self.settings = settings
        self.clock = clock

    def encode(self, episode: Episode) -> EncodeResult:
        """Storage-time encoding of one episode (its text, kind and outcome only).

        A model failure or an invalid answer is a rejected :class:`EncodeResult` with the reason.

        Raises:
            CacheMissError: in replay-only mode the call log lacks a needed call.
        """
        msgs = prompts.episode_messages(self.vocab, episode.text, episode.kind, episode.outcome)
        return self._run(
            msgs, episode.id, episode.kind, episode.text, prompts.ENCODE_PROMPT_VERSION
        )

    def encode_text(
        self, text: str, *, episode_id: str, kind: str, outcome: str | None = None
    ) -> EncodeResult:
        return self.encode(Episode(episode_id, kind, text, outcome))

    def encode_target(
        self, text: str, *, kind: str | None = None, target_id: str = "target"
    ) -> EncodeResult:
        """Query-time encoding of the current situation; an unknown kind becomes observation."""
        msgs = prompts.target_messages(self.vocab, text, kind)
        return self._run(
            msgs, target_id, kind or "observation", text, prompts.TARGET_PROMPT_VERSION
        )

    def rewrite(self, messages: list[dict], base: Signature, version: str) -> EncodeResult:
        """Run an arbitrary signature-writing request for ``base``'s episode (re-abstraction)."""
        return self._run(messages, base.episode_id, base.kind, base.level("L0"), version)

    # ------------------------------------------------------------------------------
    def _ask(self, messages: list[dict], schema: dict, version: str) -> Any:
        s = self.settings
        return self.llm.complete(
            messages,
            schema=schema,
            temperature=s.temperature,
            max_tokens=s.max_tokens,
            seed=s.seed,
            prompt_version=version,
            replicate=s.replicate,
        )

    def _run(
        self, messages: list[dict], eid: str, kind: str, l0: str, version: str
    ) -> EncodeResult:
        writer = writer_tag(self.llm, version)
        try:
            first = self._ask(messages, signature_schema(self.vocab), version)
        except CacheMissError:
            raise  # a replay that lacks a call is a setup problem, not a rejected signature
        except ModelError as e:
            return EncodeResult(eid, None, f"model answer unusable: {e}", writer=writer)
        sig, res = self._build(first.parsed, eid, kind, l0, writer, explicit=False)
        if sig is not None:
            return EncodeResult(eid, sig, mappings=tuple(res.mappings), writer=writer)
        problems = tuple(res.problems)
        if not self.settings.repair:
            return EncodeResult(eid, None, "; ".join(problems), problems, writer=writer)
        again = [
            *messages,
            {"role": "assistant", "content": first.text},
            prompts.repair_message(list(problems), res.unknown),
        ]
        try:
            second = self._ask(again, signature_schema(self.vocab, unknown=res.unknown), version)
        except CacheMissError:
            raise
        except ModelError as e:
            return EncodeResult(
                eid, None, f"repair answer unusable: {e}", problems, True, writer=writer
            )
        sig, res2 = self._build(second.parsed, eid, kind, l0, writer, explicit=True)
        if sig is None:
            reason = "still invalid after one repair re-ask: " + "; ".join(res2.problems)
            return EncodeResult(eid, None, reason, problems, True, tuple(res2.mappings), writer)
        return EncodeResult(eid, sig, None, problems, True, tuple(res2.mappings), writer)

    def _build(
        self, raw: Any, eid: str, kind: str, l0: str, writer: str, *, explicit: bool
    ) -> tuple[Signature | None, NameResolver]:
        mapping = raw.get("relation_mapping") if explicit and isinstance(raw, dict) else None
        res = NameResolver(self.vocab, mapping if isinstance(mapping, dict) else None)
        if not isinstance(raw, dict):
            res.problems.append("the answer must be one JSON object")
            return None, res
        doc = self._document(raw, eid, kind, l0, writer, res)
        sig = None
        if not res.problems:
            try:
                sig = parse_signature(doc, self.vocab)
            except SignatureError as e:
                res.problems.append(f"{e.field}: {e.problem}")
        ents = doc["surface"].get("entities") if isinstance(doc["surface"], dict) else None
        ents = [e for e in ents if isinstance(e, str)] if isinstance(ents, list) else []
        levels = {k: v for k, v in doc["levels"].items() if isinstance(v, str)}
        roles = doc["roles"] if isinstance(doc["roles"], dict) else {}
        res.problems.extend(foreign_entity_problems(ents, l0))
        res.problems.extend(level_leak_problems(levels, ents, l0, map(str, roles)))
        return (None if res.problems else sig), res

    def _document(
        self, raw: dict, eid: str, kind: str, l0: str, writer: str, res: NameResolver
    ) -> dict:
        roles = raw.get("roles") or []
        if isinstance(roles, list):
            names = [r.get("name") for r in roles if isinstance(r, dict)]
            for name in sorted({n for n in names if names.count(n) > 1}, key=str):
                res.problems.append(
                    f"roles: {name!r} is declared {names.count(name)} times; declare each role once"
                )
            roles = {r.get("name"): r.get("description") for r in roles if isinstance(r, dict)}
        relations = []
        for i, rel in enumerate(raw.get("relations") or []):
            if isinstance(rel, list) and rel and isinstance(rel[0], str):
                rel = [res(rel[0], f"relations[{i}]"), *rel[1:]]
            relations.append(rel)
        chain = []
        for i, link in enumerate(raw.get("causal_chain") or []):
            if isinstance(link, list) and len(link) == 3:
                link = [
                    self._term(link[0], f"causal_chain[{i}].cause", res),
                    res(link[1], f"causal_chain[{i}].link")
                    if isinstance(link[1], str)
                    else link[1],
                    self._term(link[2], f"causal_chain[{i}].effect", res),
                ]
            chain.append(link)
        levels = dict(raw.get("levels") or {}) if isinstance(raw.get("levels"), dict) else {}
        levels = {"L0": l0, **{k: v for k, v in levels.items() if k != "L0"}}
        doc: dict[str, Any] = {
            "episode_id": eid,
            "kind": kind,
            "roles": roles,
            "relations": relations,
            "causal_chain": chain,
            "levels": levels,
            "surface": raw.get("surface") or {},
            "verified": False,
            "writer_model": writer,
            "written_at": self.clock(),
        }
        for key in ("violated_invariant", "symptom", "fix_operator"):
            if raw.get(key):
                doc[key] = raw[key]
        return doc

    def _term(self, text: Any, where: str, res: NameResolver) -> Any:
        if not isinstance(text, str):
            return text
        try:
            t = parse_term(text)
        except TermSyntaxError:
            return text  # parse_signature reports it with the field path
        return _rename_functors(t, lambda f: res(f, where)).canonical()


def _rename_functors(t: Term, fn: Callable[[str], str]) -> Term:
    args = tuple(a if isinstance(a, str) else _rename_functors(a, fn) for a in t.args)
    return Term(fn(t.functor), args)
