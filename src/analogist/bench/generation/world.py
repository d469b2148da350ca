"""Worlds: a motif variant as an executable causal system (DESIGN "Worlds make transfer executable").

A :class:`World` is a gold signature plus its motif's dynamics. :meth:`World.simulate` applies a
fix (an operator term over the world's roles, e.g. ``reconcile(CON,DER,SRC)``) and compares the
symptom severity with the no-fix control under the same seed: the fix ``resolved`` the symptom,
left it ``unchanged`` or made it ``worse``. That comparison is what makes useful transfer (U) and
negative transfer (N) countable.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property

from analogist.bench.generation.library import LIBRARY
from analogist.bench.generation.motif import Motif
from analogist.bench.generation.operators import interventions
from analogist.bench.generation.signatures import gold_signature
from analogist.bench.generation.simulate import Graph, canonical, run, vocabulary
from analogist.errors import BenchError, TermSyntaxError
from analogist.signature import Signature, Term, parse_term

PRESENT = 0.3
RESOLVED = 0.15
WORSE_MARGIN = 0.1


@dataclass(frozen=True)
class Outcome:
    """A fix against the no-fix control: ``result`` and both symptom severities."""

    result: str
    control: float
    treated: float

    def to_json(self) -> dict:
        return {
            "result": self.result,
            "control": round(self.control, 4),
            "treated": round(self.treated, 4),
        }


def judge(control: float, treated: float) -> str:
    """``resolved`` when a present symptom drops below RESOLVED; ``worse`` when it rises by more
    than WORSE_MARGIN; otherwise ``unchanged``."""
    if control >= PRESENT and treated < RESOLVED:
        return "resolved"
    if treated > control + WORSE_MARGIN:
        return "worse"
    return "unchanged"


@dataclass(frozen=True)
class World:
    """One motif variant, executable. Build it with :func:`world_for`."""

    motif: Motif
    variant: str
    signature: Signature

    @cached_property
    def graph(self) -> Graph:
        """The executable view of this world's signature (built once)."""
        return Graph(self.signature)

    @property
    def symptom_node(self) -> str:
        return canonical(parse_term(self.motif.symptom_node), vocabulary())

    def severity(self, fix: Term | None, seed: int) -> float:
        """The symptom's value after simulation with ``fix`` applied (None: no fix)."""
        acts = []
        if fix is not None:
            op = LIBRARY.get(fix.functor)
            if op is not None and all(isinstance(a, str) for a in fix.args):
                acts = interventions(op, tuple(fix.args), self.graph)  # type: ignore[arg-type]
        values = run(self.graph, self.motif.dynamics, acts, seed)
        return values[self.symptom_node]

    def simulate(self, fix: Term | str | None, seed: int) -> Outcome:
        """Apply ``fix`` and judge it against the no-fix control under the same seed.

        An unknown operator, a wrong arity or roles the world lacks change nothing, so they
        come back ``unchanged``.
        """
        if isinstance(fix, str):
            try:
                fix = parse_term(fix)
            except TermSyntaxError as e:
                raise BenchError(f"world {self.motif.name}/{self.variant}: {e}") from None
        control = self.severity(None, seed)
        treated = control if fix is None else self.severity(fix, seed)
        return Outcome(judge(control, treated), control, treated)


@cache
def _world(name: str, variant: str) -> World:
    from analogist.bench.generation.motifs import motif

    m = motif(name)
    return World(m, variant, gold_signature(m, variant))


@cache
def _graph(name: str, variant: str) -> Graph:
    return Graph(_world(name, variant).signature)


def world_for(motif: Motif | str, variant: str = "true") -> World:
    """The world of ``motif`` in ``variant`` ("true", a decoy or the partial variant)."""
    name = motif if isinstance(motif, str) else motif.name
    return _world(name, variant)
