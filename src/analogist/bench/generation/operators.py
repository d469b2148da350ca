"""Fix operators: the shared library of interventions a transferred fix can name.

An operator is a name over role arguments (``reconcile(CON,DER,SRC)``) with fixed effects on
world nodes, written as patterns over its arguments: ``("cut", "stale({1})")`` cuts the node
``stale(DER)`` when called as above; ``*`` matches any functor or argument. ``requires`` lists
patterns that must match a node or listed relation of the world for the operator to act at all,
so that naming the wrong roles does nothing. The library is shared by all motifs: an operator
means the same thing in every world, which is what makes a transferred fix checkable anywhere.

Each operator also carries plain phrasings (``{0}``.. are entity names) used to report what was
done in an episode's outcome; they avoid every vocabulary word, like L0 text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from analogist.bench.generation.simulate import Graph, Intervention, vocabulary
from analogist.errors import BenchError
from analogist.signature import Term, parse_term

_PATTERN = re.compile(r"^(\*|[a-z_]+)\(([^()]*)\)$")


@dataclass(frozen=True)
class Operator:
    """One fix operator.

    Attributes:
        name: the operator's name as used in fix terms.
        params: what each argument is, in order.
        summary: one line saying what the operator does.
        effects: ``(kind, pattern, value)``; kind is an engine intervention kind.
        requires: patterns that must match the world for the effects to apply.
        phrases: outcome phrasings over ``{0}``, ``{1}`` ... (entity names).
    """

    name: str
    params: tuple[str, ...]
    summary: str
    effects: tuple[tuple[str, str, float], ...]
    requires: tuple[str, ...] = ()
    phrases: tuple[str, ...] = ()

    @property
    def arity(self) -> int:
        return len(self.params)

    def to_json(self) -> dict:
        """What a system under test is shown: name, parameters and summary."""
        return {"name": self.name, "params": list(self.params), "summary": self.summary}


def _match(pattern: str, args: tuple[str, ...], term: Term) -> bool:
    m = _PATTERN.match(pattern.replace(" ", ""))
    if m is None:
        raise BenchError(f"operator pattern {pattern!r} is malformed; write name({{0}},*)")
    functor, raw = m.group(1), [a for a in m.group(2).split(",") if a]
    if functor != "*" and functor != term.functor:
        return False
    if len(raw) != len(term.args):
        return False
    want = [None if a == "*" else args[int(a.strip("{}"))] for a in raw]
    got = [a if isinstance(a, str) else None for a in term.args]
    entry = vocabulary().resolve(term.functor)
    if entry is not None and entry.commutative and None not in want:
        return sorted(want) == sorted(got)  # type: ignore[type-var]
    return all(w is None or w == g for w, g in zip(want, got))


def interventions(op: Operator, args: tuple[str, ...], graph: Graph) -> list[Intervention]:
    """The interventions ``op(args)`` makes in ``graph``; empty when it does not apply."""
    if len(args) != op.arity:
        return []
    listed = dict(graph.terms)
    for r in graph.listed:
        listed.setdefault(r, parse_term(r))
    for req in op.requires:
        if not any(_match(req, args, t) for t in listed.values()):
            return []
    out = []
    for kind, pattern, value in op.effects:
        for node, term in graph.terms.items():
            if _match(pattern, args, term):
                out.append(Intervention(kind, node, value))
    return out


def make_operator(
    name: str, params: str, summary: str, effects, requires=(), phrases=()
) -> Operator:
    """An :class:`Operator` from compact arguments (``params`` separated by ``|``)."""
    return Operator(
        name, tuple(params.split("|")), summary, tuple(effects), tuple(requires), tuple(phrases)
    )
