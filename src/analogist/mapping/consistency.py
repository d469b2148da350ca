"""Phase two, part one: structural-consistency filtering.

SME v4 algorithm note, section 2.2. Each hypothesis gets

- its *descendants*, the transitive closure of its argument (and functor) hypotheses;
- its *nogoods*: the hypotheses that map its base item elsewhere or its target item from
  elsewhere (the one-to-one constraint), united with the nogoods of its descendants.

A hypothesis is *losing* (never part of a mapping) when it is incomplete (parallel connectivity
failed, here or below) or inconsistent (its nogoods meet its own descendants). Sets are Python
integers used as bit vectors, as the note suggests, so unions and intersections are single
operations; one bottom-up pass over the forest computes everything in O(m) set operations.

A commutative hypothesis has no fixed descendants besides its functor; it is losing when its
arguments admit no complete one-to-one pairing among viable possible children.
"""

from __future__ import annotations

from dataclasses import dataclass

from analogist.mapping.hypotheses import EXPRESSION, FUNCTOR, Forest


@dataclass(frozen=True, eq=False)
class Consistency:
    """Bit-vector sets per hypothesis, plus which hypotheses are losing and which are roots.

    Attributes:
        closure: the hypothesis and all its descendants (bit i = hypothesis i).
        nogood: hypotheses structurally inconsistent with it.
        losing: incomplete or internally inconsistent.
        roots: expression hypotheses with no parent, in creation order.
    """

    closure: tuple[int, ...]
    nogood: tuple[int, ...]
    losing: tuple[bool, ...]
    roots: tuple[int, ...]


def check_consistency(forest: Forest) -> Consistency:
    """Computes descendants, nogoods and losing flags bottom-up (by hypothesis order)."""
    n = len(forest)
    conflict = _direct_conflicts(forest)
    closure = [0] * n
    nogood = [0] * n
    losing = [False] * n
    for mh in sorted(range(n), key=forest.order.__getitem__):
        bits = 1 << mh
        ng = conflict[mh]
        bad = forest.incomplete[mh]
        f = forest.functor_mh[mh]
        if f >= 0:
            bits |= closure[f]
            ng |= nogood[f]
        for c in forest.children[mh]:
            bits |= closure[c]
            ng |= nogood[c]
            bad = bad or losing[c]
        if forest.commutative[mh] and not bad:
            bad = not _has_complete_pairing(forest, mh, losing)
        closure[mh] = bits
        nogood[mh] = ng
        losing[mh] = bad or bool(ng & bits)
    roots = tuple(mh for mh in range(n)
                  if forest.kind[mh] == EXPRESSION and not forest.parents[mh])
    return Consistency(tuple(closure), tuple(nogood), tuple(losing), roots)


def _direct_conflicts(forest: Forest) -> list[int]:
    """Per hypothesis, the others sharing its base item or its target item."""
    by_base: dict[tuple[bool, int | str], int] = {}
    by_target: dict[tuple[bool, int | str], int] = {}
    keys = []
    for mh in range(len(forest)):
        is_functor = forest.kind[mh] == FUNCTOR
        bk, tk = (is_functor, forest.base[mh]), (is_functor, forest.target[mh])
        by_base[bk] = by_base.get(bk, 0) | (1 << mh)
        by_target[tk] = by_target.get(tk, 0) | (1 << mh)
        keys.append((bk, tk))
    return [(by_base[bk] | by_target[tk]) & ~(1 << mh) for mh, (bk, tk) in enumerate(keys)]


def _has_complete_pairing(forest: Forest, mh: int, losing: list[bool]) -> bool:
    """Whether every base argument can take a distinct target argument via viable children."""
    options: dict[int, list[int]] = {}
    for i, j, c in forest.possible[mh]:
        if not losing[c]:
            options.setdefault(i, []).append(j)
    if len(options) < forest.arity[mh]:
        return False
    match: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j in options[i]:
            if j not in seen:
                seen.add(j)
                if j not in match or augment(match[j], seen):
                    match[j] = i
                    return True
        return False

    return all(augment(i, set()) for i in options)
