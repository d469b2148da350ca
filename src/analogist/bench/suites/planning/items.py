"""The planning bench's items and memory, generated from a seed.

Each item is a target problem (a plan signature with no steps) in one skin:

- ``analogue`` items: memory holds a *true prior plan* — the same layout with one link
  subdivided, in a different skin, solved — and a *decoy prior plan* in the target's own skin
  (surface-similar), solved in its own world, whose skeleton looks right but breaks a
  precondition in the target: on even items a *trap* decoy (in its world the target's one-way
  chute is a corridor its plan runs through; in the target the agent would be stuck), on odd
  items — and where no trap decoy plan uses the corridor — a *swap* decoy (two passes open each
  other's places);
- ``no_analogue`` items: a fresh layout; nothing made from it is stored, only the other items'
  plans.

Stored prior plans are solved by the planner itself (GBFS + hadd) and validated by simulation
when their signature is parsed. The ids of an item's true source and decoy and the gold role
map are key fields: only scoring and the oracle arm read them.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from analogist.bench.suites.planning.world import (
    MEANING,
    SKINS,
    Layout,
    Rendered,
    Skin,
    add_trap,
    distances,
    make_layout,
    render,
    subdivide,
    swap_passes,
    trap_shortcut,
)
from analogist.errors import BenchError
from analogist.plan.encode import plan_signature_json
from analogist.plan.pddl import ground, parse_step_key
from analogist.plan.planner import Planner
from analogist.signature.model import Signature, parse_signature
from analogist.signature.plan_block import Step
from analogist.signature.vocabulary import Vocabulary, default_vocabulary

SIZES = {
    "ci": (7, 2, 1, 4, 2),
    "small": (8, 2, 2, 8, 4),
    "mvp": (9, 2, 2, 12, 6),
    "full": (9, 2, 2, 24, 12),
}
"""size -> (places, gates, cargo items, analogue items, no-analogue items)."""
ABSTRACT = (
    "An agent fetches the passes that open sealed places and carries items along links "
    "to their destinations."
)
SOURCE_PLANNER = Planner("gbfs", "hadd", 50_000)


@dataclass(frozen=True)
class PlanItem:
    """One target. ``true_source``, ``decoy_source`` and ``gold_map`` are the key."""

    id: str
    kind: str
    target: Signature
    true_source: str | None = None
    decoy_source: str | None = None
    gold_map: tuple[tuple[str, str], ...] = ()
    decoy_kind: str = ""  # trap | swap (see world.trap_shortcut, world.swap_passes)


@dataclass(frozen=True)
class PlanBench:
    """Items plus the prior plans memory holds."""

    seed: int
    size: str
    items: tuple[PlanItem, ...]
    prior_plans: tuple[Signature, ...]


def _signature(eid: str, r: Rendered, vocab: Vocabulary, solve: bool) -> Signature:
    steps: tuple = ()
    if solve:
        roles = dict(r.roles)
        res = SOURCE_PLANNER.solve(ground(r.block, roles).task)
        if not res.solved:
            raise BenchError(f"planning bench: prior plan {eid} could not be solved ({res.status})")
        steps = tuple(parse_step_key(s) for s in res.plan)
    skin = next(s for s in SKINS if s.name == r.skin)
    raw = plan_signature_json(
        eid,
        r.block,
        dict(r.roles),
        r.text,
        skin.domain,
        MEANING,
        steps,
        verified=solve,
        abstract=ABSTRACT,
    )
    return parse_signature(raw, vocab)


def _trap_decoy(
    eid: str, layout: Layout, skin: Skin, rng: random.Random, vocab: Vocabulary
) -> Signature | None:
    """A decoy whose solved plan really runs through the corridor that is the target's dead end
    (exits tried from the farthest open place; None when no plan uses the corridor)."""
    ((start, trap),) = layout.oneway
    dist = distances(layout, start)
    exits = sorted(
        (p for p in dist if p not in (start, trap) and p not in layout.sealed),
        key=lambda p: (-dist[p], p),
    )
    for exit_to in exits[:3]:
        r = render(trap_shortcut(layout, exit_to), skin, rng)
        sig = _signature(eid, r, vocab, solve=True)
        n = dict(r.names)
        corridor = Step(skin.actions[0], (n["agent"], n[trap], n[exit_to]))
        if sig.plan is not None and corridor in sig.plan.steps:
            return sig
    return None


def _gold(source: Rendered, target: Rendered) -> tuple[tuple[str, str], ...]:
    t = dict(target.names)
    return tuple(sorted((name, t[i]) for i, name in source.names if i in t))


def generate_planning(
    seed: int = 0, size: str = "small", vocab: Vocabulary | None = None
) -> PlanBench:
    """The bench for ``seed`` and ``size`` (same seed, same bench)."""
    if size not in SIZES:
        raise BenchError(f"planning bench: size {size!r} is not one of {', '.join(SIZES)}")
    vocab = vocab or default_vocabulary()
    places, gates, cargo, n_analogue, n_none = SIZES[size]
    rng = random.Random(seed)
    items, priors = [], []
    prior_ids = [f"prior{seed}_{j:03d}" for j in range(2 * n_analogue)]
    rng.shuffle(prior_ids)
    for i in range(n_analogue + n_none):
        layout: Layout = add_trap(make_layout(rng, places, gates, cargo))
        skin = SKINS[i % len(SKINS)]
        target = render(layout, skin, rng)
        tid = f"plan{seed}_{i:02d}"
        sig = _signature(tid, target, vocab, solve=False)
        if i >= n_analogue:
            items.append(PlanItem(tid, "no_analogue", sig))
            continue
        true = render(subdivide(layout, rng), SKINS[(i + 1 + rng.randrange(3)) % len(SKINS)], rng)
        a, b = prior_ids.pop(), prior_ids.pop()
        found = _trap_decoy(b, layout, skin, rng, vocab) if i % 2 == 0 else None
        decoy, kind = (
            (found, "trap")
            if found
            else (_signature(b, render(swap_passes(layout), skin, rng), vocab, solve=True), "swap")
        )
        priors += [_signature(a, true, vocab, solve=True), decoy]
        items.append(PlanItem(tid, "analogue", sig, a, b, _gold(true, target), kind))
    # ids and storage order carry no hint of which prior belongs to which target, or is true
    priors.sort(key=lambda s: s.episode_id)
    return PlanBench(seed, size, tuple(items), tuple(priors))


def without_key(item: PlanItem) -> PlanItem:
    """The item as the system under test may see it."""
    return replace(item, true_source=None, decoy_source=None, gold_map=())
