"""Match filters: required and excluded correspondences (SME v4 note, section 2.5).

SME v4 applies task filters to kernel mappings before the merge. Here a filter is a bit set of
the hypotheses it forbids; a kernel containing any of them takes no part in the merge (the
kernels themselves are made in :mod:`.merge`). Filters only hide kernels, so other
constraints can be explored by re-merging.
"""

from __future__ import annotations

from analogist.errors import MappingError
from analogist.mapping.expressions import DescriptionIndex
from analogist.mapping.hypotheses import FUNCTOR, Forest
from analogist.mapping.params import MatchFilters


def filter_mask(
    forest: Forest, base: DescriptionIndex, target: DescriptionIndex, filters: MatchFilters
) -> int:
    """Bit set (over hypothesis ids) of the hypotheses that the filters forbid.

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
    for mh in forest.mhs:
        if mh.kind == FUNCTOR:
            continue
        b, t = int(mh.base), int(mh.target)
        if (b, t) in excluded or req_base.get(b, t) != t or req_target.get(t, b) != b:
            banned |= mh.bit
    return banned


def _node(index: DescriptionIndex, item: object, side: str) -> int:
    node = index.node_of.get(item)  # type: ignore[call-overload]
    if node is None:
        raise MappingError(
            f"filter names {item} which is not an entity or expression of the {side} "
            f"description '{index.name}'"
        )
    return node
