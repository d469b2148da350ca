"""Phase three, first steps: kernels and match filters.

SME v4 algorithm note, sections 2.4 and 2.5. A *kernel* is a structurally consistent root
hypothesis together with its descendants, the seed of a mapping:

    for each root R of the match-hypothesis forest:
        if R is consistent, make the kernel R + descendants(R)
        otherwise recurse on the arguments of R

A kernel's nogoods are its root's nogoods (which already include those of its descendants).
A commutative hypothesis has no fixed arguments, so the recursion does not enter its possible
children (they reach mappings through commutative resolution or their own kernels).
Hypotheses may sit in several kernels. Filters then drop kernels that violate the task's
required or excluded correspondences; they only hide kernels from the merge, so other
constraints can be explored by re-merging. Complexity: O(m) over the forest, O(k) to filter.
"""

from __future__ import annotations

from dataclasses import dataclass

from analogist.errors import MappingError
from analogist.mapping.consistency import Consistency
from analogist.mapping.expressions import DescriptionIndex
from analogist.mapping.hypotheses import FUNCTOR, Forest
from analogist.mapping.params import MatchFilters


@dataclass(frozen=True, slots=True)
class Kernel:
    """One kernel: its root hypothesis, member set and nogood set (bit vectors)."""

    root: int
    members: int
    nogood: int


def find_kernels(forest: Forest, cons: Consistency) -> list[Kernel]:
    """All kernels of the forest, in root order.

    A kernel found by recursing below a losing root is kept only when its root hypothesis is
    not already inside another kernel: such a kernel adds nothing the merge could not get from
    the larger one (this reproduces SME v4's published kernel counts).
    """
    kernels: list[Kernel] = []
    seen: set[int] = set()
    stack = list(reversed(cons.roots))
    while stack:
        mh = stack.pop()
        if mh in seen or forest.kind[mh] == FUNCTOR:
            continue
        seen.add(mh)
        if not cons.losing[mh]:
            kernels.append(Kernel(mh, cons.closure[mh], cons.nogood[mh]))
            continue
        stack.extend(reversed(forest.children[mh]))
    # Only kernels found below a losing root can lie inside another kernel (roots have no
    # parents), so only those are checked.
    inner = [k for k in kernels if forest.parents[k.root]]
    if not inner:
        return kernels
    covered = 0
    for k in kernels:
        if not forest.parents[k.root]:
            covered |= k.members
    dropped = {id(k) for k in inner if covered >> k.root & 1 or any(
        other is not k and other.members >> k.root & 1 for other in inner)}
    return [k for k in kernels if id(k) not in dropped]


def filter_mask(forest: Forest, base: DescriptionIndex, target: DescriptionIndex,
                filters: MatchFilters) -> int:
    """Bit set of the hypotheses that the required/excluded filters forbid.

    Raises:
        MappingError: when a filter names an item that is not in its description.
    """
    if not filters.active:
        return 0
    pairs = [(_node(base, b, "base"), _node(target, t, "target")) for b, t in filters.required]
    excluded = {(_node(base, b, "base"), _node(target, t, "target")) for b, t in filters.excluded}
    req_base = dict(pairs)
    req_target = {t: b for b, t in pairs}
    banned = 0
    for mh in range(len(forest)):
        if forest.kind[mh] == FUNCTOR:
            continue
        b, t = int(forest.base[mh]), int(forest.target[mh])
        if (b, t) in excluded or req_base.get(b, t) != t or req_target.get(t, b) != b:
            banned |= 1 << mh
    return banned


def _node(index: DescriptionIndex, item: object, side: str) -> int:
    node = index.node_of.get(item)  # type: ignore[call-overload]
    if node is None:
        raise MappingError(
            f"filter names {item} which is not an entity or expression of the {side} "
            f"description '{index.name}'"
        )
    return node


def apply_filters(kernels: list[Kernel], banned: int) -> list[Kernel]:
    """The kernels that contain no forbidden hypothesis."""
    if not banned:
        return kernels
    return [k for k in kernels if not k.members & banned]
