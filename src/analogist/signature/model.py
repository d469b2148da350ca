"""The Structural Signature (spec §4.1): the structural re-description of one episode.

A signature holds typed roles (not surface names), relations over those roles from the controlled
vocabulary, a causal chain of parsed terms, the violated invariant, the symptom, a fix operator
over roles, the abstraction ladder L0–L3, surface metadata, and verification status, plus who wrote
it and when. :func:`parse_signature` validates raw JSON against a :class:`Vocabulary` and returns an
immutable :class:`Signature`; :meth:`Signature.to_json` gives back the same JSON.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from analogist.errors import SignatureError, TermSyntaxError
from analogist.signature import limits as L
from analogist.signature.plan_block import PlanBlock, parse_plan_block
from analogist.signature.terms import FixOperator, Term, parse_fix_operator, parse_term
from analogist.signature.vocabulary import Vocabulary

KINDS = ("failure", "success", "plan", "observation")
LEVELS = ("L0", "L1", "L2", "L3")
_ROLE = re.compile(r"^[A-Za-z][A-Za-z0-9_]*$")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:\-]*$")


def short(value: Any, n: int = 60) -> str:
    """``repr(value)`` cut to about ``n`` characters, so an error message stays one short line."""
    r = repr(value)
    return r if len(r) <= n else r[: n - 5] + "...'" + f" ({len(str(value)):,} chars)"


def clip(text: str, n: int = 40) -> str:
    """``text`` cut to about ``n`` characters, for a field path in an error message."""
    return text if len(text) <= n else text[: n - 3] + "..."


# The classes built for every parsed signature write their own ``__init__`` (``init=False``):
# the one ``dataclass`` generates is interpreted Python even in the compiled core, ~0.3 µs
# against ~0.1 for a compiled one, and a signature makes a dozen of them. Each takes exactly
# its fields, in order, with the same defaults (tests/signature/test_model_init.py checks).


@dataclass(frozen=True, init=False)
class Role:
    """A typed role: a name such as ``DER``, what it is, and an optional role type."""

    name: str
    description: str
    type: str | None = None

    def __init__(self, name: str, description: str, type: str | None = None) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "description", description)
        object.__setattr__(self, "type", type)

    def to_json(self) -> Any:
        if self.type is None:
            return self.description
        return {"description": self.description, "type": self.type}


@dataclass(frozen=True, init=False)
class Relation:
    """A vocabulary predicate over roles: ``derives_from(DER, SRC)``."""

    predicate: str
    args: tuple[str, ...]

    def __init__(self, predicate: str, args: tuple[str, ...]) -> None:
        object.__setattr__(self, "predicate", predicate)
        object.__setattr__(self, "args", args)

    def to_json(self) -> list[str]:
        return [self.predicate, *self.args]

    def term(self) -> Term:
        return Term(self.predicate, self.args)


@dataclass(frozen=True, init=False)
class CausalLink:
    """One causal-chain entry: ``cause --link--> effect`` with both ends parsed."""

    cause: Term
    link: str
    effect: Term

    def __init__(self, cause: Term, link: str, effect: Term) -> None:
        object.__setattr__(self, "cause", cause)
        object.__setattr__(self, "link", link)
        object.__setattr__(self, "effect", effect)

    def to_json(self) -> list[str]:
        return [str(self.cause), self.link, str(self.effect)]


@dataclass(frozen=True, init=False)
class Surface:
    """Surface-domain metadata; kept for retrieval by surface, never for mapping."""

    domain: str = ""
    entities: tuple[str, ...] = ()
    extra: tuple[tuple[str, Any], ...] = ()

    def __init__(
        self,
        domain: str = "",
        entities: tuple[str, ...] = (),
        extra: tuple[tuple[str, Any], ...] = (),
    ) -> None:
        object.__setattr__(self, "domain", domain)
        object.__setattr__(self, "entities", entities)
        object.__setattr__(self, "extra", extra)

    def to_json(self) -> dict:
        d: dict[str, Any] = {"domain": self.domain, "entities": list(self.entities)}
        d.update(dict(self.extra))
        return d


@dataclass(frozen=True)
class Signature:
    """A validated structural signature. Build one with :func:`parse_signature`."""

    episode_id: str
    kind: str
    roles: tuple[Role, ...]
    relations: tuple[Relation, ...]
    causal_chain: tuple[CausalLink, ...] = ()
    violated_invariant: str | None = None
    symptom: str | None = None
    fix_operator: FixOperator | None = None
    levels: Mapping[str, str] = field(default_factory=dict)
    surface: Surface = Surface()
    verified: bool = False
    writer_model: str | None = None
    written_at: str | None = None
    plan: PlanBlock | None = (
        None  # kind "plan" only: states, operators, steps (signature/plan_block.py)
    )

    @property
    def role_names(self) -> tuple[str, ...]:
        return tuple(r.name for r in self.roles)

    def level(self, name: str) -> str:
        return self.levels.get(name, "")

    def to_json(self) -> dict:
        """The signature as JSON, in spec §4.1 key order; absent optional fields are omitted."""
        d: dict[str, Any] = {
            "episode_id": self.episode_id,
            "kind": self.kind,
            "roles": {r.name: r.to_json() for r in self.roles},
            "relations": [r.to_json() for r in self.relations],
            "causal_chain": [c.to_json() for c in self.causal_chain],
        }
        for key in ("violated_invariant", "symptom"):
            if getattr(self, key) is not None:
                d[key] = getattr(self, key)
        if self.fix_operator is not None:
            d["fix_operator"] = str(self.fix_operator)
        d["levels"] = dict(self.levels)
        d["surface"] = self.surface.to_json()
        d["verified"] = self.verified
        if self.writer_model is not None:
            d["writer_model"] = self.writer_model
        if self.written_at is not None:
            d["written_at"] = self.written_at
        if self.plan is not None:
            d["plan"] = self.plan.to_json()
        return d

    def with_episode_id(self, episode_id: str) -> Signature:
        from dataclasses import replace

        return replace(self, episode_id=episode_id)


_KNOWN = {
    "episode_id",
    "kind",
    "roles",
    "relations",
    "causal_chain",
    "violated_invariant",
    "symptom",
    "fix_operator",
    "levels",
    "surface",
    "verified",
    "writer_model",
    "written_at",
    "plan",
}
_REQUIRED = ("episode_id", "kind", "roles", "relations", "levels")


_CHECKED: dict[int, tuple[Vocabulary, dict[str, tuple[Term, frozenset[str]]]]] = {}
_CHECKED_LIMIT = 1 << 16


def _checked_terms(vocab: Vocabulary) -> dict[str, tuple[Term, frozenset[str]]]:
    """Causal-chain term spellings already checked against ``vocab`` (an immutable object),
    with the terms they resolved to and their role names. A bulk ingest meets the same
    spellings over and over; a hit only needs its roles declared (otherwise the full check
    runs again, for its error message). Bounded: emptied at ``_CHECKED_LIMIT`` spellings."""
    hit = _CHECKED.get(id(vocab))
    if hit is None or hit[0] is not vocab:
        if len(_CHECKED) > 8:  # vocabularies replaced by edits are let go
            _CHECKED.clear()
        hit = _CHECKED[id(vocab)] = (vocab, {})
    return hit[1]


class _Checker:
    """Validation with errors that name the episode, the field and the fix."""

    def __init__(self, raw: Mapping[str, Any], vocab: Vocabulary, episode_id: str | None):
        self.raw = raw
        self.vocab = vocab
        self.eid = episode_id if episode_id is not None else raw.get("episode_id")
        if not isinstance(self.eid, str) or len(self.eid) > L.MAX_ID_CHARS:
            self.eid = None

    def err(self, where: str, problem: str) -> SignatureError:
        return SignatureError(self.eid, where, problem)

    def text(self, key: str, *, required: bool = False) -> str | None:
        v = self.raw.get(key)
        if v is None:
            if required:
                raise self.err(key, "required field is missing")
            return None
        if not isinstance(v, str) or not v.strip():
            raise self.err(key, "must be a non-empty string")
        self.length(key, v, "MAX_TEXT_CHARS")
        return v

    def length(self, where: str, text: str, limit_name: str) -> None:
        if len(text) > getattr(L, limit_name):
            raise self.err(where, L.over("characters", len(text), limit_name))

    def count(self, where: str, items: Any, what: str, limit_name: str) -> None:
        if len(items) > getattr(L, limit_name):
            raise self.err(where, L.over(what, len(items), limit_name))

    def roles(self) -> tuple[Role, ...]:
        raw = self.raw["roles"]
        if not isinstance(raw, dict) or not raw:
            raise self.err("roles", 'must be a non-empty object {"ROLE": "what it is", ...}')
        self.count("roles", raw, "roles", "MAX_ROLES")
        out = []
        for name, v in raw.items():
            if len(name) > L.MAX_NAME_CHARS:
                raise self.err(
                    f"roles.{clip(name)}", L.over("characters", len(name), "MAX_NAME_CHARS")
                )
            if not _ROLE.match(name):
                raise self.err(
                    f"roles.{clip(name)}", "role names are letters, digits and '_' (e.g. SRC)"
                )
            if isinstance(v, str) and v.strip():
                self.length(f"roles.{name}", v, "MAX_TEXT_CHARS")
                out.append(Role(name, v))
            elif isinstance(v, dict) and isinstance(v.get("description"), str):
                rtype = v.get("type")
                if rtype is not None and not isinstance(rtype, str):
                    raise self.err(f"roles.{name}.type", "role type must be a string")
                self.length(f"roles.{name}.description", v["description"], "MAX_TEXT_CHARS")
                self.length(f"roles.{name}.type", rtype or "", "MAX_NAME_CHARS")
                out.append(Role(name, v["description"], rtype))
            else:
                raise self.err(
                    f"roles.{name}",
                    'give a description string or {"description": ..., "type": ...}',
                )
        return tuple(out)

    def predicate(self, where: str, name: Any, n_args: int) -> str:
        if not isinstance(name, str):
            raise self.err(where, f"predicate must be a string, got {short(name)}")
        if len(name) > L.MAX_NAME_CHARS:
            raise self.err(
                where, "predicate name has " + L.over("characters", len(name), "MAX_NAME_CHARS")
            )
        term = self.vocab.resolve(name)
        if term is None:
            hint = self.vocab.suggest(name)
            tip = f" (did you mean {hint!r}?)" if hint else ""
            raise self.err(
                where,
                f"relation {name!r} is not in the vocabulary{tip}; use a listed term "
                "(`analogist vocab`) or propose a new one with a definition",
            )
        if term.arity != n_args:
            raise self.err(where, f"{term.term!r} takes {term.arity} argument(s), got {n_args}")
        return term.term

    def role_args(self, where: str, args: tuple[Any, ...], roles: set[str]) -> None:
        for a in args:
            if not isinstance(a, str):
                raise self.err(where, f"argument {short(a)} must be a role name")
            if a not in roles:
                raise self.err(
                    where,
                    f"role {short(a)} is not declared in roles (declared: {', '.join(sorted(roles))})",
                )

    def relations(self, roles: set[str]) -> tuple[Relation, ...]:
        raw = self.raw["relations"]
        if not isinstance(raw, list):
            raise self.err("relations", 'must be a list like [["derives_from", "DER", "SRC"], ...]')
        self.count("relations", raw, "relations", "MAX_RELATIONS")
        out = []
        for i, rel in enumerate(raw):
            where = f"relations[{i}]"
            if not isinstance(rel, list) or not rel:
                raise self.err(where, 'write a relation as ["predicate", "ROLE", ...]')
            pred = self.predicate(where, rel[0], len(rel) - 1)
            self.role_args(where, tuple(rel[1:]), roles)
            out.append(Relation(pred, tuple(rel[1:])))
        return tuple(out)

    def chain_term(self, where: str, text: Any, roles: set[str]) -> Term:
        if isinstance(text, str):
            hit = _checked_terms(self.vocab).get(text)
            if hit is not None and roles.issuperset(hit[1]):
                return hit[0]
            self.length(where, text, "MAX_TERM_CHARS")
        try:
            t = parse_term(text)
        except TermSyntaxError as e:
            raise self.err(where, str(e)) from None
        checked = self.check_term(where, t, roles)
        memo = _checked_terms(self.vocab)
        if len(memo) >= _CHECKED_LIMIT:
            memo.clear()
        memo[text] = (checked, frozenset(t.roles()))
        return checked

    def check_term(self, where: str, t: Term, roles: set[str]) -> Term:
        """``t`` checked, with every functor written as the live term it resolves to (a
        synonym, or a term merged by consolidation); unchanged terms keep their spelling."""
        pred = self.predicate(where, t.functor, len(t.args))
        args: list[Term | str] = []
        for a in t.args:
            if isinstance(a, Term):
                args.append(self.check_term(where, a, roles))
            else:
                self.role_args(where, (a,), roles)
                args.append(a)
        if pred == t.functor and all(x is y for x, y in zip(args, t.args)):
            return t
        return Term(pred, tuple(args))

    def causal_chain(self, roles: set[str]) -> tuple[CausalLink, ...]:
        raw = self.raw.get("causal_chain", [])
        if not isinstance(raw, list):
            raise self.err(
                "causal_chain", 'must be a list of ["cause(ROLE)", "causes", "effect(ROLE)"]'
            )
        self.count("causal_chain", raw, "causal links", "MAX_CAUSAL_LINKS")
        out = []
        for i, entry in enumerate(raw):
            where = f"causal_chain[{i}]"
            if not isinstance(entry, list) or len(entry) != 3:
                raise self.err(where, 'write a link as ["cause(ROLE)", "causes", "effect(ROLE)"]')
            cause = self.chain_term(f"{where}.cause", entry[0], roles)
            link = self.vocab.resolve(entry[1]) if isinstance(entry[1], str) else None
            if link is None or not link.is_causal_link:
                links = ", ".join(t.term for t in self.vocab.by_kind("causal"))
                raise self.err(
                    f"{where}.link", f"{short(entry[1])} is not a causal link; use one of {links}"
                )
            effect = self.chain_term(f"{where}.effect", entry[2], roles)
            out.append(CausalLink(cause, link.term, effect))
        return tuple(out)

    def fix(self, roles: set[str]) -> FixOperator | None:
        v = self.raw.get("fix_operator")
        if v is None:
            return None
        if isinstance(v, str):
            self.length("fix_operator", v, "MAX_TERM_CHARS")
        try:
            fx = parse_fix_operator(v)
        except TermSyntaxError as e:
            raise self.err("fix_operator", str(e)) from None
        for a in fx.term.roles():
            self.role_args("fix_operator", (a,), roles)
        return fx

    def levels(self) -> dict[str, str]:
        raw = self.raw["levels"]
        if not isinstance(raw, dict) or "L0" not in raw:
            raise self.err("levels", 'must be an object with at least "L0" (and ideally L1-L3)')
        for k, v in raw.items():
            if k not in LEVELS:
                raise self.err(f"levels.{clip(k)}", f"unknown level; use {', '.join(LEVELS)}")
            if not isinstance(v, str) or not v.strip():
                raise self.err(f"levels.{k}", "must be a non-empty string")
            self.length(f"levels.{k}", v, "MAX_TEXT_CHARS")
        return {k: raw[k] for k in raw}

    def surface(self) -> Surface:
        raw = self.raw.get("surface", {})
        if not isinstance(raw, dict):
            raise self.err("surface", 'must be an object {"domain": ..., "entities": [...]}')
        ents = raw.get("entities", [])
        if not isinstance(ents, list) or not all(isinstance(e, str) for e in ents):
            raise self.err("surface.entities", "must be a list of strings")
        self.count("surface.entities", ents, "entities", "MAX_ENTITIES")
        for i, e in enumerate(ents):
            self.length(f"surface.entities[{i}]", e, "MAX_TEXT_CHARS")
        domain = raw.get("domain", "")
        if not isinstance(domain, str):
            raise self.err("surface.domain", "must be a string")
        self.length("surface.domain", domain, "MAX_TEXT_CHARS")
        extra = tuple((k, v) for k, v in raw.items() if k not in ("domain", "entities"))
        return Surface(domain, tuple(ents), extra)


def parse_signature(
    raw: Mapping[str, Any],
    vocab: Vocabulary,
    *,
    episode_id: str | None = None,
    depth_checked: bool = False,
) -> Signature:
    """Validate raw signature JSON against ``vocab`` and build a :class:`Signature`.

    Every relation name, causal-chain functor and link is written as the live vocabulary term it
    resolves to: a synonym (the vocabulary's explicit list) or a term merged into another by
    consolidation (``merged_into``), so a stored signature keeps reading after a merge; the
    stored JSON keeps its spelling. Anything unknown is rejected with the nearest term suggested.

    ``depth_checked``: the caller has checked the nesting of an object holding ``raw``.

    Raises:
        SignatureError: naming the episode, the field and what to do.
    """
    if not isinstance(raw, Mapping):
        raise SignatureError(episode_id, "(signature)", "must be a JSON object")
    c = _Checker(raw, vocab, episode_id)
    if not depth_checked and L.json_depth(raw) > L.MAX_JSON_DEPTH:
        raise c.err(
            "(signature)",
            f"nests objects and lists more than {L.MAX_JSON_DEPTH} deep; "
            "the limit is MAX_JSON_DEPTH (docs/limits.md)",
        )
    for key in _REQUIRED:
        if key not in raw or raw[key] is None:
            raise c.err(key, "required field is missing")
    unknown = sorted(set(raw) - _KNOWN)
    if unknown:
        raise c.err(
            clip(unknown[0]), f"unknown field; signature fields are {', '.join(sorted(_KNOWN))}"
        )
    eid = c.text("episode_id", required=True)
    assert eid is not None  # required=True raised otherwise
    c.length("episode_id", eid, "MAX_ID_CHARS")
    if not _ID.match(eid):
        raise c.err("episode_id", "use letters, digits and _ . : - (no spaces)")
    kind = raw["kind"]
    if not isinstance(kind, str) or kind not in KINDS:
        raise c.err("kind", f"{short(kind)} is not one of {', '.join(KINDS)}")
    roles = c.roles()
    names = {r.name for r in roles}
    verified = raw.get("verified", False)
    if not isinstance(verified, bool):
        raise c.err("verified", "must be true or false")
    return Signature(
        episode_id=eid,
        kind=kind,
        roles=roles,
        relations=c.relations(names),
        causal_chain=c.causal_chain(names),
        violated_invariant=c.text("violated_invariant"),
        symptom=c.text("symptom"),
        fix_operator=c.fix(names),
        levels=c.levels(),
        surface=c.surface(),
        verified=verified,
        writer_model=c.text("writer_model"),
        written_at=c.text("written_at"),
        plan=_plan(raw, kind, roles, eid),
    )


def _plan(
    raw: Mapping[str, Any], kind: str, roles: tuple[Role, ...], eid: str | None
) -> PlanBlock | None:
    """The plan block of a kind-\"plan\" signature, validated and simulated (signature/plan_block.py)."""
    if raw.get("plan") is None:
        return None
    if kind != "plan":
        raise SignatureError(
            eid, "plan", f"only a signature of kind 'plan' carries a plan (kind is {kind!r})"
        )
    return parse_plan_block(raw["plan"], {r.name: r.type for r in roles}, eid)
