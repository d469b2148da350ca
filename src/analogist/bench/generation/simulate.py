"""The causal engine behind every PARB world: a signature's causal chain, made executable.

A world's structure is read from its gold :class:`~analogist.signature.Signature`, so a
minimal-pair decoy (one structural edit to the signature) changes the simulation by construction
rather than by hand-written special cases. Nodes are the ground terms of the causal chain
(``stale(DER)``, ``derives_from(DER,SRC)``); each link's vocabulary kind fixes its semantics:

- ``causes``, ``propagates``, ``confounds`` are *drivers*: combined by a noisy-OR in [0, 1] plus
  any excess above 1 (so magnitudes can grow);
- ``amplifies`` is a *feedback* driver read from the previous time step, times ``gain``;
- ``enables`` multiplies the effect by the enabler's value (a necessary condition);
- ``prevents``, ``blocks``, ``masks``, ``invalidates`` multiply it by ``1 - inhibitor``.

A node with neither drivers nor feedback is a *standing condition*: it holds with its strength
(default 1) times seeded noise in [0.95, 1]. A node listed in ``pulses`` is a one-off trigger at
step 0 only. A relation term is gated by being listed in the signature's relations, so deleting
a relation switches its node off. A node in ``stocks`` accumulates over time steps. The symptom
severity is the symptom node's value after ``steps`` steps; non-feedback worlds settle at once.

Interventions (what fix operators do) act on a node after its value is computed at every step:
``cut`` sets it to 0, ``scale`` multiplies, ``set`` fixes a value, and ``cut_root`` cuts it only
when it is a standing condition (repairing an intrinsic defect does not stick when something
upstream keeps causing it).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from analogist.errors import BenchError
from analogist.signature import Signature, Term, Vocabulary, default_vocabulary
from analogist.signature.canonical import canonical_term as canonical  # a node key

DRIVERS = frozenset({"causes", "propagates", "confounds"})
FEEDBACK = frozenset({"amplifies"})
ENABLERS = frozenset({"enables"})
INHIBITORS = frozenset({"prevents", "blocks", "masks", "invalidates"})
CAP = 5.0


@lru_cache(maxsize=1)
def vocabulary() -> Vocabulary:
    """The default vocabulary, read once (the bench consults it on every simulated step)."""
    return default_vocabulary()


@dataclass(frozen=True)
class Dynamics:
    """A motif's numeric parameters; its fields are everything the engine is tuned by.

    Attributes:
        strengths: node -> strength of a standing condition or pulse (default 1.0); values
            below 1 model partial conditions ("half the time").
        pulses: nodes that hold only at step 0 (a transient trigger).
        stocks: nodes that accumulate their inflow over steps (a queue, a backlog).
        gain: multiplier on ``amplifies`` links; above 1 a feedback loop runs away.
        steps: time steps simulated.
    """

    strengths: Mapping[str, float] = field(default_factory=dict)
    pulses: frozenset[str] = frozenset()
    stocks: frozenset[str] = frozenset()
    gain: float = 1.3
    steps: int = 8


@dataclass(frozen=True)
class Intervention:
    """One change a fix makes to one node: ``kind`` in cut | scale | set | cut_root."""

    kind: str
    node: str
    value: float = 0.0


@dataclass(frozen=True)
class Link:
    cause: str
    kind: str
    effect: str


class Graph:
    """The executable view of one signature: nodes, typed links, listing and step order."""

    def __init__(self, sig: Signature, vocab: Vocabulary | None = None):
        vocab = vocab or vocabulary()
        self.terms: dict[str, Term] = {}
        self.links: list[Link] = []
        for c in sig.causal_chain:
            a, b = canonical(c.cause, vocab), canonical(c.effect, vocab)
            self.terms.setdefault(a, c.cause)
            self.terms.setdefault(b, c.effect)
            self.links.append(Link(a, c.link, b))
        self.listed = {canonical(r.term(), vocab) for r in sig.relations}
        self.relational = {
            n
            for n, t in self.terms.items()
            if (e := vocab.resolve(t.functor)) is not None and e.kind != "state"
        }
        self.incoming: dict[str, dict[str, list[str]]] = {n: {} for n in self.terms}
        for ln in self.links:
            self.incoming[ln.effect].setdefault(_group(ln.kind), []).append(ln.cause)
        self.order = self._topological()

    def drivers(self, node: str) -> list[str]:
        return self.incoming[node].get("drive", [])

    def is_root(self, node: str) -> bool:
        """A standing condition: nothing drives it, directly or by feedback."""
        return not self.drivers(node) and not self.incoming[node].get("feedback")

    def _topological(self) -> list[str]:
        deps = {
            n: {c for g, cs in self.incoming[n].items() if g != "feedback" for c in cs}
            for n in self.terms
        }
        order: list[str] = []
        done: set[str] = set()
        while len(order) < len(deps):
            ready = sorted(n for n in deps if n not in done and deps[n] <= done)
            if not ready:
                cyc = sorted(n for n in deps if n not in done)
                raise BenchError(
                    f"causal chain has a cycle without an 'amplifies' link through {cyc}; "
                    "mark the feedback edge as 'amplifies'"
                )
            order.extend(ready)
            done.update(ready)
        return order


def _group(kind: str) -> str:
    if kind in DRIVERS:
        return "drive"
    if kind in FEEDBACK:
        return "feedback"
    if kind in ENABLERS:
        return "enable"
    if kind in INHIBITORS:
        return "inhibit"
    raise BenchError(f"causal link {kind!r} has no engine semantics; use a vocabulary causal link")


def _noise(seed: int, node: str) -> float:
    return 0.95 + 0.05 * random.Random(f"{seed}|{node}").random()


def _combine(values: list[float]) -> float:
    """Noisy-OR over the part of each value in [0, 1], plus every excess above 1."""
    keep, excess = 1.0, 0.0
    for v in values:
        keep *= 1.0 - min(1.0, max(0.0, v))
        excess += max(0.0, v - 1.0)
    return 1.0 - keep + excess


def _intervene(value: float, node: str, graph: Graph, acts: list[Intervention]) -> float:
    for act in acts:
        if act.node != node:
            continue
        if act.kind == "cut" or (act.kind == "cut_root" and graph.is_root(node)):
            value = 0.0
        elif act.kind == "scale":
            value *= act.value
        elif act.kind == "set":
            value = act.value
    return value


def run(graph: Graph, dyn: Dynamics, acts: list[Intervention], seed: int) -> dict[str, float]:
    """Simulate ``dyn.steps`` steps and return every node's final value."""
    prev = {n: 0.0 for n in graph.terms}
    for t in range(dyn.steps):
        cur: dict[str, float] = {}
        for n in graph.order:
            inc = graph.incoming[n]
            strength = dyn.strengths.get(n, 1.0) * _noise(seed, n)
            if n in dyn.pulses:
                base = strength if t == 0 else 0.0
            else:
                base = strength if graph.is_root(n) else 0.0
            v = _combine([cur[c] for c in inc.get("drive", [])] + [base])
            v += sum(dyn.gain * prev[c] for c in inc.get("feedback", []))
            for c in inc.get("enable", []):
                v *= min(1.0, cur[c])
            for c in inc.get("inhibit", []):
                v *= 1.0 - min(1.0, cur[c])
            if n in graph.relational and n not in graph.listed:
                v = 0.0
            if n in dyn.stocks:
                v += prev[n]
            cur[n] = _intervene(min(CAP, v), n, graph, acts)
        prev = cur
    return prev
