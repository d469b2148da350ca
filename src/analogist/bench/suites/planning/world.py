"""Planning worlds: the gated-courier motif as generated PDDL, with skins and nonce labels.

The motif: one agent moves along links between places; some places are sealed and open only
with the pass that unseals them; cargo must be taken from where it lies to its destination.
A :class:`Layout` is one instance of the motif with abstract object ids (places ``p0..``,
passes ``k0..``, cargo ``c0..``): the link graph, which places are sealed, which pass opens
which, where everything lies, and the goal. A :class:`Skin` renders a layout in one surface
domain — runbooks, logistics, lab procedures, migrations — by renaming the types and the
actions; objects get nonce labels drawn from the seed, so no name carries over between a source
and a target. The predicates are the motif's relational vocabulary and stay the same in every
skin, as PARB keeps its controlled relations.

Every layout has a one-way chute from the start into a dead end (:func:`add_trap`). Layout
edits give the bench its sources: :func:`subdivide` (a true analogue whose plan needs a small
repair) and two decoys whose plans look right in the target but break a precondition there —
:func:`trap_shortcut` (the chute is a corridor in the decoy's world, so its plan walks into the
target's dead end) and :func:`swap_passes` (a pass opens a different place).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from analogist.signature.plan_block import OperatorSchema, PlanBlock

PREDICATES = (
    ("at", 2),
    ("link", 2),
    ("open", 1),
    ("sealed", 1),
    ("opens", 2),
    ("lies", 2),
    ("carries", 2),
)
MEANING = {
    "link": "sends_to",
    "opens": "gates",
    "lies": "holds",
    "carries": "holds",
    "sealed": "unavailable",
    "at": "depends_on",
}
"""The vocabulary relation each predicate contributes to the plan signature's ``relations``
(what the ordinary retrieval channels index)."""


@dataclass(frozen=True)
class Skin:
    """A surface domain: type names, action names, and words for the text."""

    name: str
    domain: str
    types: tuple[str, str, str]  # agent, place, cargo
    actions: tuple[str, str, str, str]  # go, take, put, unseal
    story: str


SKINS = (
    Skin(
        "logistics",
        "logistics",
        ("courier", "depot", "parcel"),
        ("drive", "load", "unload", "clear"),
        "A courier drives between depots; some depots are closed until cleared with the right permit.",
    ),
    Skin(
        "runbook",
        "operations runbook",
        ("operator", "host", "artifact"),
        ("hop", "fetch", "deploy", "authorize"),
        "An operator hops between hosts; some hosts are locked until authorized with the right credential.",
    ),
    Skin(
        "lab",
        "lab procedure",
        ("technician", "station", "sample"),
        ("walk", "collect", "deposit", "unlock"),
        "A technician walks between stations; some stations are locked until unlocked with the right badge.",
    ),
    Skin(
        "migration",
        "data migration",
        ("migrator", "cluster", "dataset"),
        ("connect", "export", "import", "grant"),
        "A migrator connects between clusters; some clusters are closed until granted with the right token.",
    ),
)


def operators(skin: Skin) -> tuple[OperatorSchema, ...]:
    """The motif's four operators in ``skin``'s names and types."""
    ag, pl, cg = skin.types
    go, take, put, unseal = skin.actions
    return (
        OperatorSchema(
            go,
            (("?a", ag), ("?p", pl), ("?q", pl)),
            (("at", "?a", "?p"), ("link", "?p", "?q"), ("open", "?q")),
            (("at", "?a", "?q"),),
            (("at", "?a", "?p"),),
        ),
        OperatorSchema(
            take,
            (("?a", ag), ("?i", cg), ("?p", pl)),
            (("at", "?a", "?p"), ("lies", "?i", "?p")),
            (("carries", "?a", "?i"),),
            (("lies", "?i", "?p"),),
        ),
        OperatorSchema(
            put,
            (("?a", ag), ("?i", cg), ("?p", pl)),
            (("at", "?a", "?p"), ("carries", "?a", "?i")),
            (("lies", "?i", "?p"),),
            (("carries", "?a", "?i"),),
        ),
        OperatorSchema(
            unseal,
            (("?a", ag), ("?k", cg), ("?p", pl), ("?q", pl)),
            (
                ("at", "?a", "?p"),
                ("link", "?p", "?q"),
                ("carries", "?a", "?k"),
                ("opens", "?k", "?q"),
                ("sealed", "?q"),
            ),
            (("open", "?q"),),
            (("sealed", "?q"),),
        ),
    )


@dataclass(frozen=True)
class Layout:
    """One motif instance over abstract ids. ``links`` holds each undirected edge once."""

    places: tuple[str, ...]
    links: tuple[tuple[str, str], ...]
    sealed: tuple[str, ...]
    opens: tuple[tuple[str, str], ...]  # pass -> place
    lies: tuple[tuple[str, str], ...]  # pass or cargo -> place
    goal: tuple[tuple[str, str], ...]  # cargo -> destination
    oneway: tuple[tuple[str, str], ...] = ()  # links that go from -> to only

    @property
    def cargo(self) -> tuple[str, ...]:
        return tuple(i for i, _ in self.lies)


def make_layout(rng: random.Random, places: int, gates: int, items: int) -> Layout:
    """A random solvable layout: a random tree plus a few chords; passes lie where the agent can
    reach without crossing a sealed place; cargo starts and ends anywhere."""
    ps = tuple(f"p{i}" for i in range(places))
    links = {_edge(ps[i], ps[rng.randrange(i)]) for i in range(1, places)}
    for _ in range(places // 4):
        a, b = rng.sample(ps, 2)
        links.add(_edge(a, b))
    sealed = tuple(sorted(rng.sample(ps[1:], gates)))
    free = _reachable(ps[0], links, set(sealed))
    passes = tuple(f"k{i}" for i in range(gates))
    lies = [(k, rng.choice(sorted(free))) for k in passes]
    goal = []
    for i in range(items):
        start, dest = rng.sample(ps, 2)
        lies.append((f"c{i}", start))
        goal.append((f"c{i}", dest))
    return Layout(
        ps,
        tuple(sorted(links)),
        sealed,
        tuple(zip(passes, sealed, strict=True)),
        tuple(lies),
        tuple(goal),
    )


def _edge(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def _reachable(start: str, links: set[tuple[str, str]], blocked: set[str]) -> set[str]:
    seen, todo = {start}, [start]
    while todo:
        p = todo.pop()
        for a, b in links:
            for x, y in ((a, b), (b, a)):
                if x == p and y not in seen and y not in blocked:
                    seen.add(y)
                    todo.append(y)
    return seen


def subdivide(layout: Layout, rng: random.Random) -> Layout:
    """A near analogue: one link gets a new place in its middle (the old step across it is
    missing in the other world and must be repaired)."""
    a, b = rng.choice(layout.links)
    new = f"p{len(layout.places)}"
    links = [link for link in layout.links if link != (a, b)] + [_edge(a, new), _edge(new, b)]
    return replace(layout, places=(*layout.places, new), links=tuple(sorted(links)))


def add_trap(layout: Layout) -> Layout:
    """A one-way chute from the start into a dead end: a place the agent can enter from ``p0``
    and never leave. Nothing the goal needs is there, so a planner simply avoids it."""
    trap = f"p{len(layout.places)}"
    return replace(layout, places=(*layout.places, trap), oneway=((layout.places[0], trap),))


def trap_shortcut(layout: Layout, exit_to: str) -> Layout:
    """A decoy world: the chute is a two-way corridor with a second exit to ``exit_to``. Its
    plan runs through the corridor; projected onto the real layout, it walks into the dead end
    and cannot go on — the skeleton looks right and breaks a precondition it cannot repair."""
    (start, trap), *rest = layout.oneway
    links = (*layout.links, _edge(start, trap), _edge(trap, exit_to))
    return replace(layout, links=tuple(sorted(links)), oneway=tuple(rest))


def distances(layout: Layout, start: str) -> dict[str, int]:
    """Breadth-first link distances from ``start`` (two-way links only)."""
    dist, todo = {start: 0}, [start]
    for p in todo:
        for a, b in layout.links:
            for x, y in ((a, b), (b, a)):
                if x == p and y not in dist:
                    dist[y] = dist[p] + 1
                    todo.append(y)
    return dist


def swap_passes(layout: Layout) -> Layout:
    """A decoy: the first two passes open each other's places (needs two gates)."""
    (k0, g0), (k1, g1), *rest = layout.opens
    return replace(layout, opens=((k0, g1), (k1, g0), *rest))


@dataclass(frozen=True)
class Rendered:
    """A layout in one skin with nonce names: the block, roles, text and the id -> name map."""

    block: PlanBlock
    roles: tuple[tuple[str, str], ...]
    names: tuple[tuple[str, str], ...]  # abstract id -> nonce label (scoring only)
    text: str
    skin: str


_SYLL = (
    "ka",
    "lo",
    "mi",
    "ru",
    "ze",
    "ta",
    "vo",
    "ni",
    "su",
    "pe",
    "do",
    "gi",
    "ba",
    "fu",
    "xe",
    "yo",
)


def nonce_names(rng: random.Random, ids: tuple[str, ...]) -> dict[str, str]:
    """Distinct pronounceable labels with no meaning, e.g. ``kalomi``."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for i in ids:
        while True:
            name = "".join(rng.choice(_SYLL) for _ in range(3))
            if name not in used:
                used.add(name)
                out[i] = name
                break
    return out


def render(layout: Layout, skin: Skin, rng: random.Random) -> Rendered:
    """The layout as a plan block in ``skin``'s names with nonce objects (no steps yet)."""
    ag, pl, cg = skin.types
    ids = ("agent", *layout.places, *layout.cargo)
    n = nonce_names(rng, ids)
    init: list[tuple[str, ...]] = [("at", n["agent"], n["p0"])]
    for a, b in layout.links:
        init += [("link", n[a], n[b]), ("link", n[b], n[a])]
    init += [("link", n[a], n[b]) for a, b in layout.oneway]
    init += [("sealed", n[p]) if p in layout.sealed else ("open", n[p]) for p in layout.places]
    init += [("opens", n[k], n[p]) for k, p in layout.opens]
    init += [("lies", n[i], n[p]) for i, p in layout.lies]
    goal = tuple(("lies", n[i], n[p]) for i, p in layout.goal)
    roles = (
        (n["agent"], ag),
        *((n[p], pl) for p in layout.places),
        *((n[c], cg) for c in layout.cargo),
    )
    block = PlanBlock(PREDICATES, operators(skin), tuple(init), goal)
    goals = ", ".join(f"{n[i]} to {n[p]}" for i, p in layout.goal)
    text = f"{skin.story} The {ag} {n['agent']} starts at {n['p0']} and must bring {goals}."
    return Rendered(block, roles, tuple(n.items()), text, skin.name)
