"""Candidate inferences: what a mapping suggests carrying from base to target.

SME v4 algorithm note, section 2.7 (FindCandidateInferences, ConstructCI):

- Every base *root* that is not itself mapped but whose structure overlaps the mapping gives
  one inference. By default (``allow-entity-supported-inferences?``) overlap through entities
  suffices (the liberal criterion, needed for carry-over); otherwise a mapped expression must
  lie inside the root (the conservative criterion).
- The inference is the root rewritten into target terms: mapped expressions and entities become
  their correspondents, functors are translated when a functor correspondence is in the mapping
  and carried over intact otherwise, and each unmapped entity becomes a *skolem*, the same one
  for every occurrence within the inference.
- *Support* and *extrapolation* are scored as SME v4's ciscore.lisp scores them (computed by
  the engine, which knows the hypotheses behind each item; see ``engine._Run._scores``):
  support is the evidence of the correspondences the inference is built from, and
  extrapolation is outside / (outside + support), "outside" being the inference's new top
  statement (SME's shadow cache keeps only that entry).

Reverse inferences (target to base) use the same procedure with the roles swapped.
Complexity: O(n) inferences per mapping, each a walk over one root's structure.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from analogist.mapping.expressions import DescriptionIndex
from analogist.mapping.params import SMEParams
from analogist.signature.description import Arg, Expr, Skolem, new_expr


@dataclass(frozen=True, slots=True)
class CandidateInference:
    """One inference of a mapping.

    Attributes:
        expression: the inferred statement in the other description's terms (may hold
            :class:`~analogist.signature.description.Skolem` arguments).
        source: the root statement it was projected from.
        skolems: the skolem entities it introduces, in order of first occurrence.
        support: structural support from the mapping (trickle-down score).
        extrapolation: share of the statement that is new, in [0, 1].
        reverse: True for a target-to-base inference.
    """

    expression: Expr
    source: Expr
    skolems: tuple[Skolem, ...]
    support: float
    extrapolation: float
    reverse: bool = False

    def __str__(self) -> str:
        return str(self.expression)


class Projection:
    """A mapping seen from one side: its node and functor correspondences (source -> other).
    (A plain record: made twice per mapping.)"""

    __slots__ = ("functor_map", "node_map", "other", "source")

    def __init__(
        self,
        source: DescriptionIndex,
        other: DescriptionIndex,
        node_map: dict[int, int],
        functor_map: dict[str, str],
    ):
        self.source, self.other = source, other
        self.node_map, self.functor_map = node_map, functor_map


def find_inferences(
    proj: Projection,
    params: SMEParams,
    scores: Callable[[int], tuple[float, float]],
    reverse: bool = False,
) -> tuple[CandidateInference, ...]:
    """Candidate inferences of one mapping projected from ``proj.source``.

    Args:
        proj: the mapping as seen from the projecting side.
        params: the run's parameters (criterion, trickle-down, caps).
        scores: root node -> its (support, extrapolation) (the caller knows the hypotheses behind
            each node).
        reverse: mark the inferences as target-to-base.
    """
    src = proj.source
    node_map = proj.node_map
    entities_count = params.allow_entity_supported_inferences
    out = []
    for root in src.roots:
        if root in node_map or src.ubiquitous[root]:  # SME infers no top-level ubiquitous
            continue
        if not _overlaps(root, src, node_map, entities_count):
            continue
        skolems: dict[int, Skolem] = {}
        expression = _construct(root, proj, skolems)
        assert isinstance(expression, Expr)
        support, extrap = scores(root)
        out.append(
            CandidateInference(
                expression=expression,
                source=src.items[root],  # type: ignore[arg-type]
                skolems=tuple(skolems.values()),
                support=support,
                extrapolation=extrap,
                reverse=reverse,
            )
        )
    return tuple(out)


def _overlaps(
    root: int, src: DescriptionIndex, node_map: dict[int, int], entities_count: bool
) -> bool:
    """Whether some node in the structure of ``root`` is mapped (entities only when
    entity-supported inferences are allowed)."""
    stack = list(src.args[root])
    seen: set[int] = set()
    while stack:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        if n in node_map and (entities_count or not src.is_entity[n]):
            return True
        stack.extend(src.args[n])
    return False


def _construct(node: int, proj: Projection, skolems: dict[int, Skolem]) -> Arg:
    """ConstructCI: the node rewritten into the other description's terms."""
    src = proj.source
    mapped = proj.node_map.get(node)
    if mapped is not None:
        return proj.other.canonical[mapped]
    if src.is_entity[node]:
        if node not in skolems:
            skolems[node] = Skolem(src.items[node])  # type: ignore[arg-type]
        return skolems[node]
    functor = src.functor[node]
    args = tuple([_construct(a, proj, skolems) for a in src.args[node]])
    return new_expr(proj.functor_map.get(functor, functor), args)
