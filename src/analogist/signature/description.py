"""The predicate-calculus view the structure mapper consumes.

A :class:`Description` is what SME calls a *dgroup*: entities, facts written as nested
expressions, and the typing of every predicate (relation, function, attribute or logical
connective; arity; n-ary; commutative). As in SME every sub-expression of a fact is an item of
the description: ``(greater (mass sun) (mass planet))`` contributes three expressions. Roots are
the expressions that are not an argument of any other expression.

The JSON form is that of ``fixtures/sme/*.json``: facts are nested lists, functor first, string
arguments naming entities. A description file may carry its own ``predicates`` table; otherwise
the caller supplies one (:func:`load_predicates` reads the ``predicates.json`` format).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import InitVar, dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Any

from analogist.errors import DescriptionError

PREDICATE_KINDS = ("relation", "function", "attribute", "logical")


@dataclass(frozen=True, slots=True)
class PredicateInfo:
    """The typing of one predicate.

    Attributes:
        name: the functor as written in facts.
        kind: "relation", "function", "attribute" or "logical" (connectives such as ``and``).
        arity: the declared argument count; None for n-ary predicates.
        n_ary: whether any number of arguments is allowed.
        commutative: whether argument order is irrelevant (SME matches such arguments as sets).
        ubiquitous: a predicate so common that identical uses are not evidence on their own;
            SME does not seed match hypotheses with it, only pulls it in under a matched parent.
        symmetric: a binary relation whose two arguments may be swapped (SME v4 makes two
            match hypotheses per pair, one per argument order).
    """

    name: str
    kind: str
    arity: int | None
    n_ary: bool = False
    commutative: bool = False
    ubiquitous: bool = False
    symmetric: bool = False

    def __post_init__(self) -> None:
        if self.kind not in PREDICATE_KINDS:
            raise DescriptionError(
                f"predicate '{self.name}': kind '{self.kind}' is not one of {PREDICATE_KINDS}"
            )
        if not self.n_ary and (self.arity is None or self.arity < 0):
            raise DescriptionError(
                f"predicate '{self.name}': a fixed-arity predicate needs an arity >= 0 "
                "(or set n_ary to true)"
            )

    @classmethod
    def from_json(cls, name: str, obj: Mapping[str, Any]) -> PredicateInfo:
        """Reads one entry of a ``predicates.json`` table."""
        try:
            return cls(
                name,
                obj["kind"],
                obj.get("arity"),
                bool(obj.get("n_ary", False)),
                bool(obj.get("commutative", False)),
                bool(obj.get("ubiquitous", False)),
                bool(obj.get("symmetric", False)),
            )
        except KeyError as e:
            raise DescriptionError(f"predicate '{name}': missing field {e}") from None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "kind": self.kind,
            "arity": self.arity,
            "n_ary": self.n_ary,
            "commutative": self.commutative,
        }
        if self.ubiquitous:
            out["ubiquitous"] = True
        if self.symmetric:
            out["symmetric"] = True
        return out


@dataclass(frozen=True, slots=True)
class Skolem:
    """An entity a candidate inference introduces for an unmapped base entity."""

    name: str

    def __str__(self) -> str:
        return f"(:skolem {self.name})"


@dataclass(frozen=True, slots=True)
class Expr:
    """A hashable expression: a functor applied to arguments (sub-expressions or entity names).

    The hash is computed once, so expressions can key dictionaries cheaply however deep.
    """

    functor: str
    args: tuple[Arg, ...]
    _hash: int = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash((self.functor, self.args)))

    def __hash__(self) -> int:
        return self._hash

    def __str__(self) -> str:
        return "(" + " ".join([self.functor, *(str(a) for a in self.args)]) + ")"

    def subexpressions(self) -> Iterator[Expr]:
        """This expression and every expression nested in it, children before parents."""
        for a in self.args:
            if isinstance(a, Expr):
                yield from a.subexpressions()
        yield self

    def to_json(self) -> list[Any]:
        """The nested-list form; skolems are written ``["skolem", NAME]``."""
        return [self.functor, *(term_to_json(a) for a in self.args)]

    @classmethod
    def from_json(cls, obj: Any) -> Expr:
        """Parses a nested list whose first element is the functor; strings are entities."""
        if cls is Expr:
            return _parse(obj, {})
        return cls._from_json(obj)

    @classmethod
    def _from_json(cls, obj: Any) -> Expr:
        """The general parser (subclasses, and the error messages of :func:`_parse`)."""
        if not isinstance(obj, list) or not obj or not isinstance(obj[0], str):
            raise DescriptionError(f"expression {json.dumps(obj)}: expected [functor, args...]")
        args: list[Arg] = []
        for a in obj[1:]:
            if isinstance(a, str):
                args.append(a)
            elif isinstance(a, list):
                args.append(cls._from_json(a))
            else:
                raise DescriptionError(
                    f"expression {json.dumps(obj)}: argument {json.dumps(a)} is neither an "
                    "entity name nor an expression"
                )
        return cls(obj[0], tuple(args))


Arg = Expr | str | Skolem

_new = object.__new__
_set = object.__setattr__


_Key = tuple[str, tuple[Arg, ...]]


def _parse(obj: Any, known: dict[_Key, Expr]) -> Expr:
    """:meth:`Expr.from_json` for plain JSON lists, fast (descriptions are parsed on every
    fresh comparison). ``known`` maps (functor, args) — the value an :class:`Expr` hashes and
    compares by — to its first instance: a repeated sub-expression is that instance, looked up
    before it is built (so later comparisons of the two are identity checks), and its values
    are every sub-expression, children first, in first occurrence: the order of
    :attr:`Description.expressions`. Expressions are built without the dataclass
    ``__init__`` frames. Anything but plain lists and strings goes to the general parser."""
    if type(obj) is not list or not obj or type(obj[0]) is not str:
        return _parse_general(obj, known)  # raises, or parses a list or str subclass
    args: list[Arg] = []
    for a in obj[1:]:
        t = type(a)
        if t is str:
            args.append(a)
        elif t is list:
            args.append(_parse(a, known))
        else:
            return _parse_general(obj, known)
    key = (obj[0], tuple(args))
    found = known.get(key)
    if found is not None:
        return found
    e = known[key] = _new(Expr)  # new_expr(*key), inline
    _set(e, "functor", key[0])
    _set(e, "args", key[1])
    _set(e, "_hash", hash(key))
    return e


def new_expr(functor: str, args: tuple[Arg, ...]) -> Expr:
    """``Expr(functor, args)``, built without the dataclass ``__init__`` and
    ``__post_init__`` frames (for the parser and the structure mapper's inferences)."""
    e = _new(Expr)
    _set(e, "functor", functor)
    _set(e, "args", args)
    _set(e, "_hash", hash((functor, args)))
    return e


def _parse_general(obj: Any, known: dict[_Key, Expr]) -> Expr:
    """:meth:`Expr._from_json`, its sub-expressions recorded in ``known`` as :func:`_parse`
    records them."""
    expr = Expr._from_json(obj)
    for sub in expr.subexpressions():
        known.setdefault((sub.functor, sub.args), sub)
    return known[(expr.functor, expr.args)]


def term_to_json(term: Arg) -> Any:
    """JSON form of an expression argument: nested list, entity name, or ["skolem", NAME]."""
    if isinstance(term, Expr):
        return term.to_json()
    if isinstance(term, Skolem):
        return ["skolem", term.name]
    return term


@dataclass(frozen=True, slots=True)
class Entity:
    """A named individual of a description, with an optional type label."""

    name: str
    type: str | None = None


@dataclass(frozen=True)
class Description:
    """A description (SME dgroup): entities, facts, and the typing of their predicates.

    Construction validates everything: each functor must be in ``predicates`` with a matching
    arity, and each entity argument must be declared in ``entities``. Equal descriptions hash
    equally (the predicate table is left out of the hash, not of equality).

    Attributes:
        name: a label used in reports.
        entities: the declared entities.
        facts: the listed expressions, in order (sub-expressions need not be listed).
        predicates: functor -> :class:`PredicateInfo`; may hold more predicates than are used.
    """

    name: str
    entities: tuple[Entity, ...]
    facts: tuple[Expr, ...]
    predicates: Mapping[str, PredicateInfo]
    _parsed: InitVar[tuple[Expr, ...] | None] = None  # from_json's :attr:`expressions`

    def __post_init__(self, _parsed: tuple[Expr, ...] | None) -> None:
        object.__setattr__(self, "entities", tuple(self.entities))
        object.__setattr__(self, "facts", tuple(self.facts))
        preds = MappingProxyType(dict(self.predicates))
        object.__setattr__(self, "predicates", preds)
        if _parsed is not None:
            self.__dict__["expressions"] = _parsed
        names = {e.name for e in self.entities}
        for expr in self.expressions:
            info = preds.get(expr.functor)  # fast path (as in _check): a valid expression
            if info is not None and (
                bool(expr.args) if info.n_ary else len(expr.args) == info.arity
            ):
                for a in expr.args:
                    if not (type(a) is Expr or (type(a) is str and a in names)):
                        break
                else:
                    continue
            self._check(expr, names)

    def __hash__(self) -> int:
        return hash((self.name, self.entities, self.facts))

    def _check(self, expr: Expr, names: set[str]) -> None:
        info = self.predicates.get(expr.functor)
        if (
            info is not None
            and (  # fast path (no message built): a valid expression
                bool(expr.args) if info.n_ary else len(expr.args) == info.arity
            )
            and all(type(a) is Expr or (type(a) is str and a in names) for a in expr.args)
        ):
            return
        where = f"description '{self.name}', expression {expr}"
        if info is None:
            raise DescriptionError(
                f"{where}: unknown predicate '{expr.functor}'; add it to the predicates file "
                "(kind, arity, n_ary, commutative)"
            )
        if info.n_ary:
            if not expr.args:
                raise DescriptionError(f"{where}: n-ary '{expr.functor}' needs arguments")
        elif len(expr.args) != info.arity:
            raise DescriptionError(
                f"{where}: '{expr.functor}' takes {info.arity} argument(s), got {len(expr.args)}"
            )
        for a in expr.args:
            if isinstance(a, str) and a not in names:
                raise DescriptionError(
                    f"{where}: entity '{a}' is not declared; add it to the entities list"
                )
            if isinstance(a, Skolem):
                raise DescriptionError(f"{where}: skolem {a} may appear only in inferences")

    @cached_property
    def expressions(self) -> tuple[Expr, ...]:
        """Every distinct expression (facts and their sub-expressions), children first."""
        seen: dict[Expr, None] = {}
        for fact in self.facts:
            if fact in seen:
                continue
            stack: list[tuple[Expr, int]] = [(fact, 0)]
            while stack:  # iterative post-order walk; shared sub-expressions are kept once
                expr, k = stack.pop()
                while k < len(expr.args) and not (
                    isinstance(expr.args[k], Expr) and expr.args[k] not in seen
                ):
                    k += 1
                if k < len(expr.args):
                    stack.append((expr, k + 1))
                    stack.append((expr.args[k], 0))  # type: ignore[arg-type]
                elif expr not in seen:
                    seen[expr] = None
        return tuple(seen)

    @cached_property
    def roots(self) -> tuple[Expr, ...]:
        """The expressions that are not an argument of any other expression."""
        inner = {a for e in self.expressions for a in e.args if isinstance(a, Expr)}
        return tuple(e for e in self.expressions if e not in inner)

    @classmethod
    def from_json(
        cls, obj: Mapping[str, Any], predicates: Mapping[str, PredicateInfo] | None = None
    ) -> Description:
        """Builds a description from its JSON form.

        Args:
            obj: ``{"name", "entities": [{"name", "type"}] | [names], "facts": [...]}``, with an
                optional ``"predicates"`` table in the predicates.json format.
            predicates: a predicate table to use; entries in ``obj["predicates"]`` override it.

        Raises:
            DescriptionError: on a missing field, an unknown predicate, a wrong arity or an
                undeclared entity.
        """
        name = str(obj.get("name", "description"))
        table = dict(predicates or {})
        if "predicates" in obj:
            table.update(parse_predicates(obj["predicates"]))
        if "facts" not in obj:
            raise DescriptionError(f"description '{name}': no 'facts' list")
        entities = tuple([_entity(e, name) for e in obj.get("entities", [])])
        known: dict[_Key, Expr] = {}
        facts = tuple([_parse(f, known) for f in obj["facts"]])
        return cls(name, entities, facts, table, tuple(known.values()))

    def to_json(self, *, with_predicates: bool = True) -> dict[str, Any]:
        """The JSON form; includes the typing of the predicates used, so it is self-contained."""
        out: dict[str, Any] = {
            "name": self.name,
            "entities": [{"name": e.name, "type": e.type} for e in self.entities],
            "facts": [f.to_json() for f in self.facts],
        }
        if with_predicates:
            used = sorted({e.functor for e in self.expressions})
            out["predicates"] = {p: self.predicates[p].to_json() for p in used}
        return out


def _entity(obj: Any, where: str) -> Entity:
    if type(obj) is str:  # Entity(obj), without the dataclass __init__ frame
        e = _new(Entity)
        _set(e, "name", obj)
        _set(e, "type", None)
        return e
    if isinstance(obj, str):
        return Entity(obj)
    if isinstance(obj, Mapping) and isinstance(obj.get("name"), str):
        return Entity(obj["name"], obj.get("type"))
    raise DescriptionError(f"description '{where}': entity {json.dumps(obj)} needs a name")


def parse_predicates(obj: Mapping[str, Any]) -> dict[str, PredicateInfo]:
    """Reads a predicates table; keys starting with "_" (notes, sources) are skipped."""
    if not isinstance(obj, Mapping):
        raise DescriptionError("predicates: expected an object mapping functor -> typing")
    return {k: PredicateInfo.from_json(k, v) for k, v in obj.items() if not k.startswith("_")}


def load_predicates(path: str | Path) -> dict[str, PredicateInfo]:
    """Reads a ``predicates.json`` file (as in ``fixtures/sme/``)."""
    return parse_predicates(_read_json(path))


def load_description(
    path: str | Path, predicates: Mapping[str, PredicateInfo] | None = None
) -> Description:
    """Reads a description JSON file; see :meth:`Description.from_json` for the format."""
    return Description.from_json(_read_json(path), predicates)


def _read_json(path: str | Path) -> Any:
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise DescriptionError(f"{path}: cannot read ({e.strerror})") from None
    except json.JSONDecodeError as e:
        raise DescriptionError(f"{path}: not valid JSON ({e})") from None
